"""What one viewer is shown: a table's outbox as the ``state`` message of one seat.

This is the only place the web front-end chooses a view, so the rule is kept here: a
viewer sees the view of the seat they hold at the table (read from the outbox's table,
so a seat handed over mid-game changes what its old and new holders see at once), else
the public view; never another seat's, and their choices of the moment from the game's
choice adapter, built from that same view. One message is built per seat (and one for
the spectators) and shared by every socket of that role.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from bot.core.choices import get_ui
from bot.core.choices.adapter import GameUI, Menu
from bot.core.tables import Outbox, TableInfo, TableStatus
from bot.web.protocol import menu_data
from engines.catalog import has_hands
from engines.core import Action, View

__all__ = ["menus_for", "role_of", "state_message"]

log = logging.getLogger("fabletop.web")


def role_of(info: TableInfo, user_id: int) -> int | None:
    """The seat ``user_id`` holds at the table, or ``None`` (a spectator)."""
    seat = info.seat_of(user_id)
    return seat.index if seat is not None else None


def menus_for(info: TableInfo, seat: int, view: View, public_view: View | None,
              legal: Sequence[Action]) -> list[Menu]:
    """The seat's choices of the moment, as Discord offers them: a game with private
    hands gives them from the seat's own view (its hand message's rows); another gives
    the turn message's menu when the seat is the one person to act (built from the
    public view, as there), else the seat's own menu. A "Take your turn" button alone
    is opened at once: on the board there is no public message to keep it off."""
    if not legal:
        return []
    ui = get_ui(info.game_id)
    try:
        if has_hands(info.game_id):
            menus = list(ui.hand_menus(view, legal))
        elif len(info.to_act_users) == 1:
            menu = ui.public_menu(public_view if public_view is not None else view, legal)
            if menu is not None and [c.code for c in menu.choices] == [ui.turn_code]:
                menu = ui.private_menu(view, legal)
            menus = [menu] if menu is not None else []
        else:
            menus = [ui.private_menu(view, legal)]
    except Exception:
        # A broken adapter must not cost the seat its turn: the one button that opens
        # its own menu still works (as on the turn message).
        log.exception("could not build the web menus of table %s", info.id)
        menus = [GameUI.turn_button_menu(ui)]
    return [m for m in menus if m.choices or m.buttons]


def state_message(outbox: Outbox, seat: int | None, *, with_lines: bool = True
                  ) -> dict[str, Any]:
    """The ``state`` message for the holder of ``seat`` (``None``: a spectator)."""
    info = outbox.table
    view: View | None = outbox.public_view
    legal: tuple[Action, ...] = ()
    if seat is not None:
        news = next((s for s in outbox.seats if s.seat == seat), None)
        if news is not None and news.view is not None:
            view, legal = news.view, news.legal
    menus: list[Menu] = []
    if (seat is not None and view is not None and info.status is TableStatus.PLAYING
            and seat in info.to_act):
        menus = menus_for(info, seat, view, outbox.public_view, legal)
    lines: list[str] = []
    if with_lines and outbox.public is not None:
        lines = [*outbox.public.lines,
                 *([outbox.public.turn_line] if outbox.public.turn_line else [])]
    return {
        "type": "state",
        "game": info.game_id,
        "table": {
            "id": info.id,
            "status": info.status.value,
            "seats": [{"index": s.index, "name": s.name, "ai": s.is_ai,
                       "you": seat is not None and s.index == seat} for s in info.seats],
        },
        "version": info.version,
        "seat": seat,
        "view": view.model_dump(mode="json") if view is not None else None,
        "menus": [menu_data(m) for m in menus],
        "lines": lines,
    }
