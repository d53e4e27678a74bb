"""Registry of per-game UI adapters (see :mod:`bot.ui.adapter`).

A new game plugs into Discord by adding ``bot/ui/games/<game>.py`` with a
:class:`~bot.ui.adapter.GameUI` subclass and one line below; a game without a line
gets :class:`~bot.ui.adapter.GenericUI`.
"""

from __future__ import annotations

import importlib
import logging

from bot.ui.adapter import Describe, GameUI, GenericUI

__all__ = ["get_ui"]

log = logging.getLogger(__name__)

# game id -> "module:Class", imported lazily so one broken adapter cannot stop the others.
_ADAPTERS: dict[str, str] = {
    "fairy-tale-inn": "bot.ui.games.fairy_tale_inn:FairyTaleInnUI",
    "treasure": "bot.ui.games.treasure:TreasureUI",
    "winter-tales": "bot.ui.games.winter_tales:WinterUI",
}


def get_ui(game_id: str, describe: Describe = repr) -> GameUI:
    """The UI adapter of ``game_id`` (the generic one if the game has none)."""
    target = _ADAPTERS.get(game_id)
    if target is None:
        return GenericUI(describe=describe)
    module_name, _, class_name = target.partition(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except Exception:  # a broken adapter: the game stays playable with the generic menus
        log.exception("UI adapter %s does not load; using the generic one", target)
        return GenericUI(describe=describe)
    return cls(describe=describe)
