"""Pure game rules: one module per game, all behind the contract in :mod:`engines.core`."""

from __future__ import annotations

import importlib

from engines.core import Game

# id -> "module:Class". Imported lazily so one broken game cannot stop the others loading.
_REGISTRY: dict[str, str] = {
    "fairy-tale-inn": "engines.fairy_tale_inn:FairyTaleInn",
    "treasure": "engines.treasure:SaveTheTreasure",
    "winter-tales": "engines.winter_tales.game:WinterTales",
}

_cache: dict[str, Game] = {}


def game_ids() -> list[str]:
    """Ids of every registered game, in registration order."""
    return list(_REGISTRY)


def get_game(game_id: str) -> Game:
    """The game object for ``game_id``; raises KeyError for an unknown id."""
    if game_id not in _cache:
        if game_id not in _REGISTRY:
            raise KeyError(f"Unknown game {game_id!r}. Known games: {', '.join(_REGISTRY)}.")
        module_name, _, class_name = _REGISTRY[game_id].partition(":")
        module = importlib.import_module(module_name)
        _cache[game_id] = getattr(module, class_name)()
    return _cache[game_id]
