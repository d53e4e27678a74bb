"""Persistence behind one small interface.

:class:`Store` is what :class:`bot.tables.TableService` needs; :class:`SqliteStore`
(aiosqlite, WAL) is the embedded default. A table row holds everything needed to
resume it (options, seed, seats, version, the engine state as JSON); the action log
and the event log are append-only, keyed by ``(table_id, version)`` so the same move
can never be committed twice.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "ActionRecord",
    "ChannelTaken",
    "EventRecord",
    "SqliteStore",
    "Store",
    "StoreError",
    "TableRecord",
    "VersionConflict",
    "utcnow",
]


def utcnow() -> datetime:
    return datetime.now(UTC)


class StoreError(Exception):
    """Base of store errors (not user-facing: the service translates them)."""


class VersionConflict(StoreError):
    """The table's stored version is not the one the commit was based on."""


class ChannelTaken(StoreError):
    """The channel already has a live (lobby or playing) table."""


@dataclass
class TableRecord:
    """One table row. ``state`` is the engine state JSON (``None`` in the lobby);
    ``seats`` and ``options`` are plain JSON-able data owned by the service."""

    id: str
    channel_id: int
    guild_id: int | None
    game_id: str
    options: dict[str, Any]
    seed: int
    status: str
    host_id: int
    seats: list[dict[str, Any]]
    version: int = 0
    state: str | None = None
    reminder_minutes: float = 10.0
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    turn_since: datetime | None = None
    """When the current turn began (reminders count from here)."""
    reminded_at: datetime | None = None
    """When the current turn was last reminded, if ever."""


@dataclass(frozen=True)
class ActionRecord:
    """An accepted action; ``version`` is the table version it produced (1 for the
    first move)."""

    table_id: str
    version: int
    seat: int
    user_id: int | None
    action: str
    """The action as JSON (``game.dump_action``)."""
    created_at: datetime = field(default_factory=utcnow)


@dataclass(frozen=True)
class EventRecord:
    table_id: str
    version: int
    idx: int
    data: str
    """JSON: the event dump plus its rendered text and visibility."""


class Store(abc.ABC):
    """The persistence interface of the table service."""

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect and create or migrate the schema."""

    @abc.abstractmethod
    async def close(self) -> None: ...

    @abc.abstractmethod
    async def create_table(self, rec: TableRecord) -> None:
        """Insert a new table; raises :class:`ChannelTaken` if its channel has a live one."""

    @abc.abstractmethod
    async def save_table(self, rec: TableRecord, expected_version: int | None = None) -> None:
        """Overwrite a table row (lobby changes, start, abort, reminders). With
        ``expected_version`` the write happens only if the stored version matches
        (else :class:`VersionConflict`)."""

    @abc.abstractmethod
    async def commit_action(
        self,
        rec: TableRecord,
        expected_version: int,
        action: ActionRecord,
        events: list[EventRecord],
    ) -> None:
        """Atomically: the table row (with ``rec.version == expected_version + 1``), the
        action and its events. Raises :class:`VersionConflict` (and writes nothing)
        if the stored version is not ``expected_version``."""

    @abc.abstractmethod
    async def get_table(self, table_id: str) -> TableRecord | None: ...

    @abc.abstractmethod
    async def live_table_in_channel(self, channel_id: int) -> TableRecord | None: ...

    @abc.abstractmethod
    async def load_all_active(self) -> list[TableRecord]:
        """Every lobby and playing table (for resuming after a restart)."""

    @abc.abstractmethod
    async def actions(self, table_id: str) -> list[ActionRecord]:
        """The action log of a table, in version order."""

    @abc.abstractmethod
    async def events(self, table_id: str) -> list[EventRecord]:
        """The event log of a table, in (version, idx) order."""


from bot.store.sqlite import SqliteStore  # noqa: E402  (re-export; needs the base above)
