"""The embedded store: one SQLite file through aiosqlite, in WAL mode.

Every operation is one plain function run whole in aiosqlite's connection thread
(``Connection._execute``), and every write inside it is one explicit transaction
(``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error). Because that thread
runs one function at a time, two coroutines can never interleave statements inside
one transaction, and a move costs a single hop to the database thread instead of five.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

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
T = TypeVar("T")

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

    def __repr__(self) -> str:
        return f"<SqliteStore {str(self.path)!r}>"

    @property
    def db(self) -> aiosqlite.Connection:
        """The aiosqlite connection (for diagnostics; the store does its own SQL)."""
        if self._db is None:
            raise StoreError("The store is not open.")
        return self._db

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` whole in the connection's thread."""
        db = self.db
        return await db._execute(fn, db._conn)  # one hop, never interleaved

    @staticmethod
    def _transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = work(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return result

    async def open(self) -> None:
        if self._db is not None:
            return
        if str(self.path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = await aiosqlite.connect(str(self.path), isolation_level=None)
        if not callable(getattr(db, "_execute", None)):  # pragma: no cover - old aiosqlite
            await db.close()
            raise StoreError("This aiosqlite version is not supported (needs >= 0.20).")
        self._db = db

        def setup(conn: sqlite3.Connection) -> None:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("PRAGMA busy_timeout=5000")

            def schema(c: sqlite3.Connection) -> None:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        c.execute(statement)
                rows = c.execute("SELECT version FROM schema_version").fetchall()
                if not rows:
                    c.execute("INSERT INTO schema_version (version) VALUES (?)",
                              (SCHEMA_VERSION,))
                elif rows[0][0] > SCHEMA_VERSION:
                    raise StoreError(
                        f"The database {self.path} was written by a newer Fabletop "
                        f"(schema {rows[0][0]}, this one knows {SCHEMA_VERSION})."
                    )

            self._transaction(conn, schema)

        try:
            await self._call(setup)
        except BaseException:
            self._db = None
            await db.close()
            raise

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    async def schema_version(self) -> int:
        def read(conn: sqlite3.Connection) -> int:
            row = conn.execute("SELECT version FROM schema_version").fetchone()
            return int(row[0]) if row else 0

        return await self._call(read)

    # -- writes ---------------------------------------------------------------

    async def create_table(self, rec: TableRecord) -> None:
        values = _row_values(rec)

        def work(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    f"INSERT INTO tables ({_COLUMNS}) VALUES ({', '.join('?' * 16)})", values
                )
            except sqlite3.IntegrityError as exc:
                raise ChannelTaken(str(exc)) from exc

        await self._call(lambda conn: self._transaction(conn, work))

    @staticmethod
    def _update(conn: sqlite3.Connection, rec: TableRecord,
                expected_version: int | None) -> None:
        values = _row_values(rec)
        sets = ", ".join(f"{col.strip()} = ?" for col in _COLUMNS.split(",")[1:])
        sql = f"UPDATE tables SET {sets} WHERE id = ?"
        params: tuple[Any, ...] = (*values[1:], rec.id)
        if expected_version is not None:
            sql += " AND version = ?"
            params = (*params, expected_version)
        try:
            cur = conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise ChannelTaken(str(exc)) from exc
        if cur.rowcount != 1:
            raise VersionConflict(
                f"table {rec.id}: stored version is not {expected_version}"
                if expected_version is not None
                else f"table {rec.id} does not exist"
            )

    async def save_table(self, rec: TableRecord, expected_version: int | None = None) -> None:
        def work(conn: sqlite3.Connection) -> None:
            self._update(conn, rec, expected_version)

        await self._call(lambda conn: self._transaction(conn, work))

    async def commit_action(
        self,
        rec: TableRecord,
        expected_version: int,
        action: ActionRecord,
        events: list[EventRecord],
    ) -> None:
        if rec.version != expected_version + 1 or action.version != rec.version:
            raise VersionConflict("an action must move the table exactly one version on")
        action_row = (action.table_id, action.version, action.seat, action.user_id,
                      action.action, _ts(action.created_at))
        event_rows = [(e.table_id, e.version, e.idx, e.data) for e in events]

        def work(conn: sqlite3.Connection) -> None:
            self._update(conn, rec, expected_version)
            try:
                conn.execute(
                    "INSERT INTO actions (table_id, version, seat, user_id, action, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    action_row,
                )
                if event_rows:
                    conn.executemany(
                        "INSERT INTO events (table_id, version, idx, data) VALUES (?, ?, ?, ?)",
                        event_rows,
                    )
            except sqlite3.IntegrityError as exc:
                raise VersionConflict(str(exc)) from exc

        await self._call(lambda conn: self._transaction(conn, work))

    # -- reads ----------------------------------------------------------------

    async def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return await self._call(lambda conn: conn.execute(sql, params).fetchall())

    async def _tables(self, where: str, params: tuple[Any, ...]) -> list[TableRecord]:
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM tables WHERE {where} ORDER BY created_at, id", params
        )
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
        rows = await self._fetch(
            "SELECT table_id, version, seat, user_id, action, created_at FROM actions"
            " WHERE table_id = ? ORDER BY version",
            (table_id,),
        )
        return [
            ActionRecord(table_id=r[0], version=r[1], seat=r[2], user_id=r[3], action=r[4],
                         created_at=datetime.fromisoformat(r[5]))
            for r in rows
        ]

    async def events(self, table_id: str) -> list[EventRecord]:
        rows = await self._fetch(
            "SELECT table_id, version, idx, data FROM events WHERE table_id = ?"
            " ORDER BY version, idx",
            (table_id,),
        )
        return [EventRecord(table_id=r[0], version=r[1], idx=r[2], data=r[3]) for r in rows]
