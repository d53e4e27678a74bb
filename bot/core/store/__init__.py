"""Persistence behind one small interface.

:class:`Store` is every write the bot makes; :class:`SqliteStore` (aiosqlite, WAL) is
the embedded default. A table row holds everything needed to resume it (options,
settings, seed, seats, version, the engine state as JSON); the action log and the event
log are append-only, keyed by ``(table_id, version)`` so the same move can never be
committed twice.

The outbox is durable: a change that must be told to Discord writes its payload in the
same transaction as the change (``save_table(..., outbox=...)`` /
``commit_action(..., outbox=...)``), and the delivery marks it done together with the
messages it posted (:meth:`Store.mark_delivered`). After a crash the undelivered rows
are delivered again; :meth:`Store.claim_outbox` makes sure only one process does it.

The interface is driver-neutral: plain records in and out, every error a
:class:`StoreError`.
"""

from bot.core.store.interface import (
    RESULT_COLUMNS,
    ActionRecord,
    ChannelTaken,
    EventRecord,
    HandMessage,
    JournalRecord,
    OutboxRecord,
    ResultRecord,
    Store,
    StoreError,
    StoreUnwritable,
    TableRecord,
    TurnMessage,
    VersionConflict,
    utcnow,
)
from bot.core.store.sqlite import SqliteStore

__all__ = [
    "RESULT_COLUMNS",
    "ActionRecord",
    "ChannelTaken",
    "EventRecord",
    "HandMessage",
    "JournalRecord",
    "OutboxRecord",
    "ResultRecord",
    "SqliteStore",
    "Store",
    "StoreError",
    "StoreUnwritable",
    "TableRecord",
    "TurnMessage",
    "VersionConflict",
    "utcnow",
]
