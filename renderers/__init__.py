"""Pillow renderers: a view -> PNG bytes. No discord.

Each game names its pictures in its declaration (:class:`engines.catalog.GameSpec`):
``board`` draws a view for the channel, ``private_picture`` (if any) draws one seat's
own view (a hand). They are imported on first use, so one broken renderer cannot stop
the others loading. Renderers draw only from the view they are given, never from a raw
state: an image can show no more than its view. Rendering is CPU-bound; the bot runs
it off the event loop.

>>> "fairy-tale-inn" in renderer_ids()
True
>>> has_renderer("no-such-game")
False
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engines.catalog import resolve, spec, specs

__all__ = ["get_renderer", "has_private_picture", "has_renderer", "render", "render_private",
           "renderer_ids"]

Render = Callable[..., bytes]


def renderer_ids() -> list[str]:
    """Ids of every game that has a board picture, in menu order."""
    return [s.id for s in specs() if s.board is not None]


def _target(game_id: str, private: bool) -> str | None:
    try:
        declared = spec(game_id)
    except KeyError:
        return None
    return declared.private_picture if private else declared.board


def has_renderer(game_id: str) -> bool:
    return _target(game_id, False) is not None


def has_private_picture(game_id: str) -> bool:
    return _target(game_id, True) is not None


def get_renderer(game_id: str, *, private: bool = False) -> Render:
    """The ``render(view, names=...) -> bytes`` function of ``game_id`` (its board, or its
    private picture); KeyError if it has none."""
    target = _target(game_id, private)
    if target is None:
        what = "private picture" if private else "renderer"
        raise KeyError(f"No {what} for game {game_id!r}.")
    return resolve(target)  # type: ignore[no-any-return]


def render(game_id: str, view: Any, **options: Any) -> bytes:
    """PNG bytes picturing ``view`` (the public view, or a seat's) on the game's board.

    ``options`` go to the game's renderer; every renderer accepts ``names`` (the
    seats' display names, by seat number), which views do not carry.
    """
    return get_renderer(game_id)(view, **options)


def render_private(game_id: str, view: Any, **options: Any) -> bytes:
    """PNG bytes of one seat's private picture (Winter Tales: the hand)."""
    return get_renderer(game_id, private=True)(view, **options)
