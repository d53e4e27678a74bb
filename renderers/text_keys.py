"""The key under each console text board: what its symbols and abbreviations mean.

:func:`renderers.text.text_board` adds the key of the board it drew when the board has
none of its own (a ``Key:`` line). The boards are named by their dotted path, as the
games' declarations name them (``GameSpec.text_board``); each key is worked out from
the same view the board was drawn from, so it lists only what is on the board (the
places on the map, the innkeepers at the table). A board with no key here gets the
generic one.

>>> print(key_for(None, None, lambda s: str(s)))
Key: each line is one part of what you can see, "name: value".
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

__all__ = ["GENERIC_KEY", "KEYS", "key_for"]

NameFn = Callable[[int], str]
WIDTH = 88
GENERIC_KEY = 'Key: each line is one part of what you can see, "name: value".'


def _letters(players: int, name: NameFn) -> str:
    """``A Ann, B Bob``: the seat letters the boards use."""
    from renderers.common import owner_style

    return ", ".join(f"{owner_style(s).letter} {name(s)}" for s in range(players))


def _wrap(text: str) -> str:
    return textwrap.fill(text, WIDTH, subsequent_indent="  ")


def treasure_key(view: Any, name: NameFn) -> str:
    """Save the Treasure: the tiles, the figures, the halves, and where the tree and
    the gate stand (the text board does not draw them)."""
    players = int(getattr(view, "players", 1) or 1)
    figures = ", ".join(f"{chr(ord('A') + s)} {name(s)}" for s in range(players))
    last_row = chr(ord("A") + int(view.rows) - 1)
    return _wrap(
        "Key: :::::: a grey meadow tile, ,,,,,, a green one; the letters on a tile are the "
        f"children's figures ({figures}). An open square shows its fairy tale: Name< the "
        f"left half, Name> the right half; ...... a blank side. Rows A-{last_row}, columns "
        f"1-{view.cols}. "
        f"The apple tree stands at {view.apple_tree}, the gate (the way out) at "
        f"{view.gate}.")


def pocket_key(view: Any, name: NameFn) -> str:
    """Fairy Tale in My Pocket: the map's marks and the places it abbreviates."""
    short = []
    for tile in getattr(view, "map", []) or []:
        code = tile.name.replace(" ", "")[:5]  # as renderers.pocket draws a place
        if code != tile.name:
            short.append(f"{code} {tile.name}")
    places = f" Places: {', '.join(dict.fromkeys(short))}." if short else ""
    return _wrap(
        "Key: [Name] a place on the map, @ where the peasant is; between places - or | an "
        "open way, # dense trees (going through costs a card), x rose bushes. "
        f"> the choice to make now.{places}")


def crossroads_key(view: Any, name: NameFn) -> str:
    """Crossroads Inn: the innkeepers' letters, the gossips, the inn grids."""
    seats = len(getattr(view, "seats", []) or [])
    return _wrap(
        f"Key: innkeepers {_letters(seats, name)}; > whose turn it is. Gossips: E "
        "economic, P political, T traveller's. Reputation: A4 = innkeeper A on space 4 of "
        "that group's track. Inns (4 rows of 5): B: a Basic Inn Tile, * an ingredient "
        "token on the tile, . an empty space, (corner) a corner for a Basic Inn Tile, xx "
        "a corner no tile may use.")


KEYS: dict[str, Callable[[Any, NameFn], str]] = {
    "renderers.treasure:text_board": treasure_key,
    "renderers.pocket:text_board": pocket_key,
    "renderers.crossroads_inn:text_board": crossroads_key,
}
"""The key of each text board that does not print one itself, by its dotted path."""


def key_for(target: str | None, view: Any, name: NameFn) -> str:
    """The key of the board ``target`` (``None``: the generic board) for ``view``."""
    key = KEYS.get(target or "")
    if key is None:
        return GENERIC_KEY
    try:
        return key(view, name)
    except Exception:  # a view the key does not understand: still say something
        return GENERIC_KEY
