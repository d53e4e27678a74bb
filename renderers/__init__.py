"""Pillow renderers: a view -> PNG bytes. No discord.

Every game with a picture has a module here exposing ``render(view) -> bytes``;
:func:`render` finds it through a lazy registry (as :mod:`engines` does), so
one broken renderer cannot stop the others loading. Renderers draw only from
the view they are given, never from a raw state: an image can show no more
than its view. Rendering is CPU-bound; the bot runs it off the event loop.

>>> "fairy-tale-inn" in renderer_ids()
True
>>> has_renderer("no-such-game")
False
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

# game id -> "module:function". Add a line here when a game gets its board image.
_REGISTRY: dict[str, str] = {
    "fairy-tale-inn": "renderers.fairy_tale_inn:render",
    "winter-tales": "renderers.winter_tales:render",
    "treasure": "renderers.treasure:render",
}

_cache: dict[str, Callable[..., bytes]] = {}


def renderer_ids() -> list[str]:
    """Ids of every game that has a renderer, in registration order."""
    return list(_REGISTRY)


def has_renderer(game_id: str) -> bool:
    return game_id in _REGISTRY


def get_renderer(game_id: str) -> Callable[..., bytes]:
    """The ``render(view) -> bytes`` function of ``game_id``; KeyError if it has none."""
    if game_id not in _cache:
        if game_id not in _REGISTRY:
            raise KeyError(f"No renderer for game {game_id!r}. Known: {', '.join(_REGISTRY)}.")
        module_name, _, func_name = _REGISTRY[game_id].partition(":")
        module = importlib.import_module(module_name)
        _cache[game_id] = getattr(module, func_name)
    return _cache[game_id]


def render(game_id: str, view: Any, **options: Any) -> bytes:
    """PNG bytes picturing ``view`` (a seat's or the public view) of game ``game_id``.

    ``options`` go to the game's renderer; every renderer accepts ``names`` (the
    seats' display names, by seat number), which views do not carry.
    """
    return get_renderer(game_id)(view, **options)
