"""Pure game rules: one module per game, all behind the contract in :mod:`engines.core`.

Games are found through their declarations (:mod:`engines.catalog`)."""

from __future__ import annotations

from engines.catalog import game_ids, spec
from engines.core import Game

__all__ = ["game_ids", "get_game"]

_cache: dict[str, Game] = {}


def get_game(game_id: str) -> Game:
    """The game object for ``game_id``; raises KeyError for an unknown id."""
    declared = spec(game_id)
    game = _cache.get(game_id)
    if game is None or type(game) is not declared.engine:
        game = _cache[game_id] = declared.engine()
    return game
