"""Plain-text boards for the console table (and anywhere an image will not do).

:func:`text_board` turns a view (never a raw state) into readable lines. Games with a
dedicated text board name it in their declaration (``GameSpec.text_board``); every other game gets
:func:`generic_board`, a tidy dump of its view's fields, so a new game is playable in
the console from day one. Every board ends with a key to its symbols: the board's own
(a ``Key:`` line), else the one :mod:`renderers.text_keys` works out for it.
Winter Tales' board is :func:`renderers.text_winter.winter_tales_board`.

>>> from engines.core import View
>>> print(generic_board(View(seat=None, players=2)))
players: 2
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

__all__ = ["fairy_tale_inn_board", "generic_board", "text_board"]

NameFn = Callable[[int], str]


def _default_name(seat: int) -> str:
    return f"Player {seat + 1}"


def text_board(game_id: str, view: BaseModel, name: NameFn | None = None) -> str:
    """A text picture of ``view``; ``name`` turns seat numbers into player names. The
    game's declaration names its own text board; any other game gets every field.
    Every board ends with a key to its symbols: its own, or the one
    :mod:`renderers.text_keys` has for it."""
    from engines.catalog import resolve, spec
    from renderers.text_keys import key_for

    name = name or _default_name
    target = spec(game_id).text_board
    board = resolve(target) if target is not None else generic_board
    text = str(board(view, name)).rstrip("\n")
    if not any(line.startswith("Key:") for line in text.splitlines()):
        text += "\n" + key_for(target, view, name)
    return text


# --------------------------------------------------------------------------- generic


def _short(value: Any, limit: int = 100) -> str:
    text = str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def generic_board(view: BaseModel, name: NameFn | None = None) -> str:
    """Every field of a view, one per line; nested data is summarised, not dumped."""
    lines = []
    data = view.model_dump(mode="json")
    for key, value in data.items():
        if key == "seat" or value is None or value == [] or value == {}:
            continue
        label = key.replace("_", " ")
        if _scalar(value):
            lines.append(f"{label}: {value}")
        elif isinstance(value, list) and all(_scalar(v) for v in value):
            lines.append(f"{label}: {', '.join(str(v) for v in value)}")
        elif isinstance(value, dict) and all(_scalar(v) for v in value.values()):
            lines.append(f"{label}: " + ", ".join(f"{k} {v}" for k, v in value.items()))
        elif isinstance(value, list):
            lines.append(f"{label}:")
            for item in value[:30]:
                if isinstance(item, dict):
                    text = ", ".join(f"{k}={_short(v, 40)}" for k, v in item.items()
                                     if v not in (None, [], {}, ""))
                else:
                    text = _short(item)
                lines.append(f"  - {_short(text)}")
            if len(value) > 30:
                lines.append(f"  ... and {len(value) - 30} more")
        else:
            lines.append(f"{label}: {_short(value)}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- Fairy Tale Inn

_ROOM_MARK = {"no_ability": "x", "extra_turn": "T"}


def _abbreviations(names: list[str]) -> dict[str, str]:
    """Two-letter codes: initials of the last two words, or a one-word name's first two
    letters ("Big Bad Wolf" -> "BW", "Jack" -> "Ja"); clashes get a digit."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for full in names:
        words = full.replace("-", " ").split()
        code = (words[-2][0] + words[-1][0]).upper() if len(words) > 1 else full[:2].title()
        base, n = code, 2
        while code in used:
            code, n = f"{base[0]}{n}", n + 1
        used.add(code)
        out[full] = code
    return out


def fairy_tale_inn_board(view: Any, name: NameFn | None = None) -> str:
    """The 7x6 inn (top row first), the Guest List, gold and a legend.

    Each room shows ``XXs`` = token code + owner seat number (``-`` for Rats and
    Beanstalks); ``*`` marks the tokens placed in the latest turn and ``~`` a token
    whose ability is cancelled by its room. Empty special rooms show ``+1``/``+2``
    (gold), ``x`` (no abilities) or ``T`` (extra turn)."""
    name = name or _default_name
    ncols, nrows = view.columns, view.rows
    # Characters in content order, then companions (Rats, Beanstalks) as they appear.
    names = list(dict.fromkeys(
        [c.name for c in view.characters] + [cell.name for col in view.grid for cell in col]
    ))
    codes = _abbreviations(names)
    rooms = {(r.column, r.row): r for r in view.rooms}
    last = {tuple(c) for c in view.last_cells}

    lines = []
    if view.winners is not None:
        winners = " and ".join(name(s) for s in view.winners)
        reason = (view.reason or "").strip()
        reason = reason[:1].upper() + reason[1:]
        if reason and reason[-1] not in ".!?":
            reason += "."
        lines.append(f"Game over: {winners} won. {reason}".rstrip())
    elif view.to_act is not None:
        lines.append(f"{name(view.to_act)} to play: {view.prompt}")
    header = "     " + "".join(f"  {c:<3} " for c in range(1, ncols + 1))
    rule = "    +" + "-----+" * ncols
    lines += [header, rule]
    for row in range(nrows, 0, -1):
        cells = []
        for col in range(1, ncols + 1):
            column = view.grid[col - 1]
            if row <= len(column):
                cell = column[row - 1]
                owner = "-" if cell.owner is None else str(cell.owner + 1)
                flag = "*" if (col, row) in last else ("~" if cell.silenced else " ")
                cells.append(f"{codes.get(cell.name, cell.name[:2])}{owner}{flag}")
            elif (col, row) in rooms:
                room = rooms[(col, row)]
                mark = _ROOM_MARK.get(room.kind, f"+{room.amount}")
                cells.append(f"{mark:^4}")
            else:
                cells.append("    ")
        lines.append(f" {row:>2} |" + "|".join(f" {c:<4}" for c in cells) + "|")
    lines.append(rule)
    if view.rat_columns:
        lines.append("The Rat may go in column " + ", ".join(map(str, view.rat_columns)) + ".")

    slots = []
    for slot in view.guest_list:
        cost = "free" if slot.cost == 0 else f"{slot.cost} gold"
        slots.append(f"{slot.slot}) {slot.name or '(empty)'} [{cost}]")
    lines.append(textwrap.fill("Guest List: " + "  ".join(slots), 88,
                               subsequent_indent="            "))
    gold = []
    for seat, amount in enumerate(view.gold):
        start = ", started" if seat == view.starter else ""
        preview = ""
        if view.winners is None and view.end_preview and view.end_preview[seat]:
            preview = f", +{view.end_preview[seat]} at the end so far"
        gold.append(f"{name(seat)} (seat {seat + 1}{start}): {amount} gold{preview}")
    lines.append(textwrap.fill("Gold: " + "; ".join(gold), 88, subsequent_indent="      "))
    extras = [f"{k} {v}" for k, v in view.companions_left.items()]
    lines.append(f"Bag: {view.bag_count} token(s) left"
                 + (f"; companions left: {', '.join(extras)}" if extras else ""))
    legend = ", ".join(f"{codes[n]} {n}" for n in names)
    lines.append(textwrap.fill(
        f"Key: {legend}. Rooms: +1/+2 gold, x no abilities, T extra turn. * = latest turn, "
        "~ = ability cancelled, digit = owner's seat.", 88, subsequent_indent="  "))
    return "\n".join(lines)


def _treasure_board(view: Any, name: NameFn) -> str:
    from renderers.treasure import text_board as treasure_text_board

    return treasure_text_board(view, name)
