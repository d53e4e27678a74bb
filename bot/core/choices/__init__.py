"""The per-game UI adapters (see :mod:`bot.core.choices.adapter`), found through each game's
declaration (``GameSpec.ui``); a game without one gets :class:`GenericUI`."""

from __future__ import annotations

import logging

from bot.core.choices.adapter import GameUI, GenericUI
from engines.catalog import resolve, spec

__all__ = ["get_ui"]

log = logging.getLogger(__name__)

_cache: dict[str, GameUI] = {}


def get_ui(game_id: str) -> GameUI:
    """The UI adapter of ``game_id`` (the generic one if the game has none, or if its
    own does not load: the game stays playable with the generic menus)."""
    try:
        target = spec(game_id).ui
    except KeyError:
        target = None
    key = f"{game_id}:{target}"
    ui = _cache.get(key)
    if ui is None:
        ui = GenericUI()
        if target is not None:
            try:
                ui = resolve(target)()
            except Exception:
                log.exception("UI adapter %s does not load; using the generic one", target)
        _cache[key] = ui
    return ui
