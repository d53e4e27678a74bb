"""The embedded store: one SQLite file through aiosqlite, in WAL mode.

Every write is one explicit transaction (``BEGIN IMMEDIATE`` ... ``COMMIT``) behind an
asyncio lock, because one aiosqlite connection is shared by every coroutine and two
interleaved transactions on one connection would merge. Reads take the same lock so
they never see another coroutine's half-written transaction.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

import aiosqlite

from bot.store import (
    ActionRecord,
    ChannelTaken,
    EventRecord,
    Store,
    StoreError,
    TableRecord,
    VersionConflict,
)

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tables (
    id               TEXT PRIMARY KEY,
    channel_id       INTEGER NOT NULL,
    guild_id         INTEGER,
    game_id          TEXT NOT NULL,
    options          TEXT NOT NULL,
    seed             INTEGER NOT NULL,
    status           TEXT NOT NULL
                     CHECK (status IN ('lobby', 'playing', 'finished', 'aborted')),
    host_id          INTEGER NOT NULL,
    seats            TEXT NOT NULL,
    version          INTEGER NOT NULL DEFAULT 0,
    state            TEXT,
    reminder_minutes REAL NOT NULL,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    turn_since       TEXT,
    reminded_at      TEXT
);
-- One live table per channel, enforced by the database itself (several processes).
CREATE UNIQUE INDEX IF NOT EXISTS tables_live_channel
    ON tables (channel_id) WHERE status IN ('lobby', 'playing');
CREATE INDEX IF NOT EXISTS tables_status ON tables (status);
CREATE TABLE IF NOT EXISTS actions (
    table_id   TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    seat       INTEGER NOT NULL,
    user_id    INTEGER,
    action     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (table_id, version)
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    version  INTEGER NOT NULL,
    idx      INTEGER NOT NULL,
    data     TEXT NOT NULL,
    UNIQUE (table_id, version, idx)
);
"""

_COLUMNS = (
    "id, channel_id, guild_id, game_id, options, seed, status, host_id, seats, version, "
    "state, reminder_minutes, created_at, updated_at, turn_since, reminded_at"
)


def _ts(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _row_values(rec: TableRecord) -> tuple[Any, ...]:
    return (
        rec.id,
        rec.channel_id,
        rec.guild_id,
        rec.game_id,
        json.dumps(rec.options, sort_keys=True),
        rec.seed,
        rec.status,
        rec.host_id,
        json.dumps(rec.seats),
        rec.version,
        rec.state,
        rec.reminder_minutes,
        _ts(rec.created_at),
        _ts(rec.updated_at),
        _ts(rec.turn_since),
        _ts(rec.reminded_at),
    )


def _record(row: sqlite3.Row | tuple[Any, ...]) -> TableRecord:
    (tid, channel, guild, game, options, seed, status, host, seats, version, state,
     reminder, created, updated, turn_since, reminded) = tuple(row)
    return TableRecord(
        id=tid,
        channel_id=channel,
        guild_id=guild,
        game_id=game,
        options=json.loads(options),
        seed=seed,
        status=status,
        host_id=host,
        seats=json.loads(seats),
        version=version,
        state=state,
        reminder_minutes=reminder,
        created_at=_dt(created),  # type: ignore[arg-type]
        updated_at=_dt(updated),  # type: ignore[arg-type]
        turn_since=_dt(turn_since),
        reminded_at=_dt(reminded),
    )


class SqliteStore(Store):
    """:class:`Store` on a SQLite file (WAL, foreign keys on, schema versioned).

    ``synchronous`` is the SQLite durability level: ``FULL`` (default) syncs the WAL on
    every commit, so an acknowledged move survives a power cut; ``NORMAL`` survives
    process crashes only, and is faster.
    """

    def __init__(self, path: str | Path, *, synchronous: str = "FULL") -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"unknown synchronous level {synchronous!r}")
        self.path = Path(path)
        self.synchronous = synchronous.upper()
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"<SqliteStore {str(self.path)!r}>"

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StoreError("The store is not open.")
        return self._db

    async def open(self) -> None:
        if self._db is not None:
            return
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(self.path), isolation_level=None)
        try:
            await db.execute("PRAGMA journal_mode=WAL")
            await db.execute(f"PRAGMA synchronous={self.synchronous}")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.execute("PRAGMA busy_timeout=5000")
            await db.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    await db.execute(statement)
            async with db.execute("SELECT version FROM schema_version") as cur:
                rows = await cur.fetchall()
            if not rows:
                await db.execute(
                    "INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,)
                )
            elif rows[0][0] > SCHEMA_VERSION:
                raise StoreError(
                    f"The database {self.path} was written by a newer Fabletop "
                    f"(schema {rows[0][0]}, this one knows {SCHEMA_VERSION})."
                )
            await db.execute("COMMIT")
        except BaseException:
            await db.close()
            raise
        self._db = db

    async def close(self) -> None:
        if self._db is not None:
            async with self._lock:
                await self._db.close()
                self._db = None

    async def schema_version(self) -> int:
        async with self._lock, self.db.execute("SELECT version FROM schema_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # -- writes ---------------------------------------------------------------

    async def _transaction(self, work: Any) -> None:
        """Run ``await work(db)`` inside BEGIN IMMEDIATE ... COMMIT, rolling back on error."""
        async with self._lock:
            db = self.db
            await db.execute("BEGIN IMMEDIATE")
            try:
                await work(db)
            except BaseException:
                await db.execute("ROLLBACK")
                raise
            await db.execute("COMMIT")

    async def create_table(self, rec: TableRecord) -> None:
        async def work(db: aiosqlite.Connection) -> None:
            try:
                await db.execute(
                    f"INSERT INTO tables ({_COLUMNS}) VALUES ({', '.join('?' * 16)})",
                    _row_values(rec),
                )
            except sqlite3.IntegrityError as exc:
                raise ChannelTaken(str(exc)) from exc

        await self._transaction(work)

    async def _update(
        self, db: aiosqlite.Connection, rec: TableRecord, expected_version: int | None
    ) -> None:
        values = _row_values(rec)
        sets = ", ".join(f"{col.strip()} = ?" for col in _COLUMNS.split(",")[1:])
        sql = f"UPDATE tables SET {sets} WHERE id = ?"
        params: tuple[Any, ...] = (*values[1:], rec.id)
        if expected_version is not None:
            sql += " AND version = ?"
            params = (*params, expected_version)
        try:
            cur = await db.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise ChannelTaken(str(exc)) from exc
        if cur.rowcount != 1:
            raise VersionConflict(
                f"table {rec.id}: stored version is not {expected_version}"
                if expected_version is not None
                else f"table {rec.id} does not exist"
            )

    async def save_table(self, rec: TableRecord, expected_version: int | None = None) -> None:
        async def work(db: aiosqlite.Connection) -> None:
            await self._update(db, rec, expected_version)

        await self._transaction(work)

    async def commit_action(
        self,
        rec: TableRecord,
        expected_version: int,
        action: ActionRecord,
        events: list[EventRecord],
    ) -> None:
        if rec.version != expected_version + 1 or action.version != rec.version:
            raise VersionConflict("an action must move the table exactly one version on")

        async def work(db: aiosqlite.Connection) -> None:
            await self._update(db, rec, expected_version)
            try:
                await db.execute(
                    "INSERT INTO actions (table_id, version, seat, user_id, action, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (action.table_id, action.version, action.seat, action.user_id,
                     action.action, _ts(action.created_at)),
                )
                if events:
                    await db.executemany(
                        "INSERT INTO events (table_id, version, idx, data) VALUES (?, ?, ?, ?)",
                        [(e.table_id, e.version, e.idx, e.data) for e in events],
                    )
            except sqlite3.IntegrityError as exc:
                raise VersionConflict(str(exc)) from exc

        await self._transaction(work)

    # -- reads ----------------------------------------------------------------

    async def _tables(self, where: str, params: tuple[Any, ...]) -> list[TableRecord]:
        async with self._lock, self.db.execute(
            f"SELECT {_COLUMNS} FROM tables WHERE {where} ORDER BY created_at, id", params
        ) as cur:
            rows = await cur.fetchall()
        return [_record(row) for row in rows]

    async def get_table(self, table_id: str) -> TableRecord | None:
        rows = await self._tables("id = ?", (table_id,))
        return rows[0] if rows else None

    async def live_table_in_channel(self, channel_id: int) -> TableRecord | None:
        rows = await self._tables(
            "channel_id = ? AND status IN ('lobby', 'playing')", (channel_id,)
        )
        return rows[0] if rows else None

    async def load_all_active(self) -> list[TableRecord]:
        return await self._tables("status IN ('lobby', 'playing')", ())

    async def actions(self, table_id: str) -> list[ActionRecord]:
        async with self._lock, self.db.execute(
            "SELECT table_id, version, seat, user_id, action, created_at FROM actions"
            " WHERE table_id = ? ORDER BY version",
            (table_id,),
        ) as cur:
            rows = await cur.fetchall()
        return [
            ActionRecord(table_id=r[0], version=r[1], seat=r[2], user_id=r[3], action=r[4],
                         created_at=datetime.fromisoformat(r[5]))
            for r in rows
        ]

    async def events(self, table_id: str) -> list[EventRecord]:
        async with self._lock, self.db.execute(
            "SELECT table_id, version, idx, data FROM events WHERE table_id = ?"
            " ORDER BY version, idx",
            (table_id,),
        ) as cur:
            rows = await cur.fetchall()
        return [EventRecord(table_id=r[0], version=r[1], idx=r[2], data=r[3]) for r in rows]
