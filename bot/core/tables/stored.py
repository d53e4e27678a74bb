"""A table's game state as the store keeps it: the row's body and, for a game that keeps
a journal (Winter Tales' story), the journal stored beside it.

Every reader of a stored state goes through :func:`stored_state`, so none of them can
forget the journal.
"""

from __future__ import annotations

from bot.core.store import Store, TableRecord
from engines.core import Game, GameState

__all__ = ["stored_state"]


async def stored_state(store: Store, game: Game, rec: TableRecord
                       ) -> tuple[GameState | None, bool]:
    """The state of ``rec`` (``None`` before its start), and whether the store holds its
    journal beside it: ``False`` for a row written before journals were kept, whose body
    holds the journal itself (its next commit stores all of it)."""
    if rec.state is None:
        return None, True
    if not game.journaled:
        return game.load_state(rec.state), True
    rows = await store.journal(rec.id)
    state = game.load_stored(rec.state, [r.data for r in rows])
    return state, bool(rows) or not game.journal_changes(None, state)
