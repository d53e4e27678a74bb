"""Finished games as history: a table's result record, written when its last move is
committed (and, for a process killed in between, at the next start).

>>> from datetime import UTC, datetime
>>> from bot.core.store import TableRecord
>>> from engines.core import Outcome
>>> rec = TableRecord(id="t", channel_id=5, guild_id=1, game_id="x", options={}, seed=1,
...                   status="finished", host_id=7, version=12,
...                   seats=[{"index": 0, "name": "Ann", "user_id": 7, "ai_level": None}],
...                   created_at=datetime(2026, 1, 1, tzinfo=UTC),
...                   updated_at=datetime(2026, 1, 1, 1, tzinfo=UTC))
>>> r = result_of(rec, Outcome(winners=[0], scores={0: 9}, reason="Done."), False)
>>> r.winners, r.scores, r.moves, r.finished_at.hour
([0], {0: 9.0}, 12, 1)
"""

from __future__ import annotations

import logging

from bot.core.store import ResultRecord, Store, StoreUnwritable, TableRecord
from bot.core.tables.stored import stored_state
from engines import get_game
from engines.core import Outcome

__all__ = ["backfill_results", "result_of"]

log = logging.getLogger("fabletop.tables")


def result_of(rec: TableRecord, outcome: Outcome, cooperative: bool) -> ResultRecord:
    """The result record of a finished table's row and its outcome."""
    return ResultRecord(
        table_id=rec.id, guild_id=rec.guild_id, channel_id=rec.channel_id,
        game_id=rec.game_id, options=dict(rec.options), seats=[dict(s) for s in rec.seats],
        winners=sorted(outcome.winners),
        scores={int(k): float(v) for k, v in outcome.scores.items()},
        reason=outcome.reason, cooperative=cooperative, moves=rec.version,
        started_at=rec.created_at, finished_at=rec.updated_at)


async def backfill_results(store: Store) -> int:
    """Record the result of every finished table that has none (its process stopped
    between the last move and the record); returns how many."""
    done = 0
    for rec in await store.finished_without_result():
        try:
            game = get_game(rec.game_id)
            state, _ = await stored_state(store, game, rec)
            outcome = game.outcome(state) if state is not None else None
        except Exception:
            log.exception("cannot read the result of table %s", rec.id)
            continue
        if outcome is not None:
            try:
                done += await store.record_result(result_of(rec, outcome, game.cooperative))
            except StoreUnwritable:
                # The store said so once; the rest waits for the next start, as a
                # process stopped before recording its results does.
                break
    return done
