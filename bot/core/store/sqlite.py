"""The embedded store: one SQLite file through aiosqlite, in WAL mode.

Every operation is one plain function run whole in aiosqlite's connection thread
(``Connection._execute``), and every write inside it is one explicit transaction
(``BEGIN IMMEDIATE`` ... ``COMMIT``, rolled back on any error). Because that thread
runs one function at a time, two coroutines can never interleave statements inside
one transaction, and a move costs a single hop to the database thread instead of five.

The schema is :data:`bot.core.store.migrations.MIGRATIONS`, applied at :meth:`SqliteStore.open`
one migration per ``BEGIN IMMEDIATE`` transaction that first checks whether another
process has recorded it meanwhile, so any number of processes may open one file at once.
SQLite errors never leave the store: they become :class:`StoreError`, and the ones that
say the file cannot be written now (a full disk, a read-only file, an I/O error)
:class:`StoreUnwritable`, logged once per change of state (:mod:`bot.core.store.health`).
While writes are refused the store checkpoints the write-ahead log now and then (when
the WAL is what filled the disk, that gives its space back), and once one succeeds again
it checkpoints it to its smallest, so the file the full disk left large shrinks.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.core.store.health import WriteHealth
from bot.core.store.interface import RESULT_COLUMNS as _RESULT_COLUMNS
from bot.core.store.interface import (
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
    newest_entries,
    result_from,
    result_json,
    utcnow,
)
from bot.core.store.migrations import LATEST, MIGRATIONS, IfTable, Migration

T = TypeVar("T")

_COLUMNS = (
    "id, channel_id, guild_id, game_id, options, seed, status, host_id, seats, version, "
    "state, reminder_minutes, created_at, updated_at, turn_since, reminded_at, settings, "
    "revision, ai_to_act"
)
_NCOLUMNS = len(_COLUMNS.split(","))
_LIVE = "status IN ('lobby', 'playing')"
_HAND_COLUMNS = (
    "table_id, user_id, channel_id, message_id, signature, image_sig, shows_choices"
)
_TURN_COLUMNS = (
    "table_id, channel_id, message_id, version, pinged, lines, has_buttons, board_key"
)


def _ts(value: datetime | None) -> str | None:
    # Fixed width, so stored times compare as strings (leases, ordering).
    return value.isoformat(timespec="microseconds") if value is not None else None


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
        json.dumps(rec.settings, sort_keys=True),
        rec.revision,
        int(bool(rec.ai_to_act)),
    )


def _record(row: sqlite3.Row | tuple[Any, ...]) -> TableRecord:
    (tid, channel, guild, game, options, seed, status, host, seats, version, state,
     reminder, created, updated, turn_since, reminded, settings, revision,
     ai_to_act) = tuple(row)
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
        settings=json.loads(settings),
        revision=revision,
        ai_to_act=bool(ai_to_act),
    )


def _hand_values(h: HandMessage) -> tuple[Any, ...]:
    return (h.table_id, h.user_id, h.channel_id, h.message_id, h.signature, h.image_sig,
            int(bool(h.shows_choices)))


def _hand(row: tuple[Any, ...]) -> HandMessage:
    tid, user, channel, message, signature, image_sig, choices = row
    return HandMessage(table_id=tid, user_id=user, channel_id=channel, message_id=message,
                       signature=signature, image_sig=image_sig, shows_choices=bool(choices))


def _turn_values(tm: TurnMessage) -> tuple[Any, ...]:
    return (tm.table_id, tm.channel_id, tm.message_id, tm.version,
            json.dumps([int(u) for u in tm.pinged]), json.dumps(list(tm.lines)),
            int(bool(tm.has_buttons)), tm.board_key)


def _turn(row: tuple[Any, ...]) -> TurnMessage:
    tid, channel, message, version, pinged, lines, buttons, board_key = row
    return TurnMessage(table_id=tid, channel_id=channel, message_id=message, version=version,
                       pinged=tuple(json.loads(pinged)), lines=tuple(json.loads(lines)),
                       has_buttons=bool(buttons), board_key=board_key)


def _outbox(row: tuple[Any, ...]) -> OutboxRecord:
    oid, tid, version, payload, created, delivered = row
    return OutboxRecord(id=oid, table_id=tid, version=version, payload=payload,
                        created_at=_dt(created),  # type: ignore[arg-type]
                        delivered_at=_dt(delivered))


_UPSERT_HAND = (
    f"INSERT INTO hand_messages ({_HAND_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (table_id, user_id) DO UPDATE SET channel_id = excluded.channel_id,"
    " message_id = excluded.message_id, signature = excluded.signature,"
    " image_sig = excluded.image_sig, shows_choices = excluded.shows_choices"
)
_UPSERT_TURN = (
    f"INSERT INTO turn_messages ({_TURN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (table_id) DO UPDATE SET channel_id = excluded.channel_id,"
    " message_id = excluded.message_id, version = excluded.version,"
    " pinged = excluded.pinged, lines = excluded.lines,"
    " has_buttons = excluded.has_buttons, board_key = excluded.board_key"
)


_BUSY_MS = 5000

_UNWRITABLE_CODES = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_READONLY: "the database is read-only",
    sqlite3.SQLITE_IOERR: "a disk I/O error",
}
_UNWRITABLE_WORDS = {
    "database or disk is full": "the disk is full",
    "readonly database": "the database is read-only",
    "disk i/o error": "a disk I/O error",
}


def unwritable_reason(exc: BaseException) -> str | None:
    """Why ``exc`` says the file cannot be written now, in an operator's words, or
    ``None`` for any other error (a bug, a constraint). By SQLite's primary result code
    when the driver gives one (extended I/O codes included), else by its message."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in _UNWRITABLE_CODES:
        return f"{_UNWRITABLE_CODES[code & 0xFF]}: {exc}"
    text = str(exc).lower()
    for words, reason in _UNWRITABLE_WORDS.items():
        if words in text:
            return f"{reason}: {exc}"
    return None


def _enter_wal(conn: sqlite3.Connection) -> None:
    """``PRAGMA journal_mode=WAL``, retried: when several processes open a new file at
    once, the switch can fail at once with "database is locked" instead of waiting on
    the busy timeout."""
    deadline = time.monotonic() + _BUSY_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)  # in the connection's own thread: blocks nothing else


def _table_exists(conn: sqlite3.Connection, name: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


class SqliteStore(Store):
    """:class:`Store` on a SQLite file (WAL, foreign keys on, numbered migrations).

    ``synchronous`` is the SQLite durability level: ``FULL`` (default) syncs the WAL on
    every commit, so an acknowledged move survives a power cut; ``NORMAL`` survives
    process crashes only, and is faster. ``clock`` stamps what the store itself dates
    (outbox rows, deliveries, claims, closed DMs, applied migrations).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "FULL",
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"unknown synchronous level {synchronous!r}")
        self.path = Path(path)
        self.synchronous = synchronous.upper()
        self.clock = clock
        self._db: aiosqlite.Connection | None = None
        self.applied_at_open: tuple[int, ...] = ()
        """The migrations the last :meth:`open` applied itself (not found recorded)."""
        self.health = WriteHealth(str(self.path))
        """Whether writes go through (one log line per change: :mod:`.health`)."""
        self._next_checkpoint = 0.0

    def __repr__(self) -> str:
        return f"<SqliteStore {str(self.path)!r}>"

    @property
    def db(self) -> aiosqlite.Connection:
        """The aiosqlite connection (for diagnostics; the store does its own SQL)."""
        if self._db is None:
            raise StoreError("The store is not open.")
        return self._db

    CHECKPOINT_EVERY = 5.0
    """Seconds between two checkpoints tried while writes are refused (each one copies
    the write-ahead log into the file: not on every refused click)."""

    async def _call(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn(connection)`` whole in the connection's thread."""
        db = self.db
        try:
            return await db._execute(fn, db._conn)  # one hop, never interleaved
        except sqlite3.Error as exc:
            reason = unwritable_reason(exc)
            if reason is not None:
                raise StoreUnwritable(reason) from exc
            raise StoreError(f"{type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
        conn.execute("BEGIN IMMEDIATE")
        try:
            result = work(conn)
            conn.execute("COMMIT")
        except BaseException:
            # Some errors (a full disk, I/O) have rolled the transaction back already,
            # and a ROLLBACK would then fail: the first error is the one to report.
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            raise
        return result

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` as one transaction, in one hop; a refusal to write is told once
        (``health``), and its end too, with the checkpoints that give the disk back."""
        try:
            result = await self._call(lambda conn: self._transaction(conn, work))
        except StoreUnwritable as exc:
            self.health.failed(exc.reason)
            now = self.health.clock()
            if now >= self._next_checkpoint:
                # When the write-ahead log is what filled the disk, copying it into
                # the file and truncating it frees the space the next write needs.
                self._next_checkpoint = now + self.CHECKPOINT_EVERY
                await self.checkpoint()
            raise
        if self.health.succeeded():
            self._next_checkpoint = 0.0
            await self.checkpoint()  # the log grew while full: back to its smallest
        return result

    async def checkpoint(self) -> bool:
        """Copy the write-ahead log into the database file and truncate it to nothing
        (``PRAGMA wal_checkpoint(TRUNCATE)``); true if it went all the way (no reader
        held it back, the file could grow). Never raises: it is only ever an attempt
        to give space back."""
        try:
            row = await self._call(
                lambda conn: conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone())
        except StoreError:
            return False
        return row is not None and int(row[0]) == 0

    # -- opening and migrations -------------------------------------------------

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

        def setup(conn: sqlite3.Connection) -> tuple[tuple[int, ...], str | None]:
            conn.execute(f"PRAGMA busy_timeout={_BUSY_MS}")
            _enter_wal(conn)
            conn.execute(f"PRAGMA synchronous={self.synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            applied: list[int] = []
            try:
                self._transaction(conn, self._prepare)
                for migration in MIGRATIONS:
                    if self._transaction(conn, lambda c, m=migration: self._migrate(c, m)):
                        applied.append(migration.version)
            except sqlite3.Error as exc:
                reason = unwritable_reason(exc)
                if reason is None or not self._schema_complete(conn):
                    raise
                # The database is there with its whole schema, only it cannot be
                # written now: the store opens (every read works, each write says
                # why it cannot), so the bot starts and says what is wrong.
                return tuple(applied), reason
            return tuple(applied), None

        try:
            self.applied_at_open, refused = await self._call(setup)
        except BaseException:
            self._db = None
            await db.close()
            raise
        if refused is not None:
            self.health.failed(refused)
            await self.checkpoint()

    def _schema_complete(self, conn: sqlite3.Connection) -> bool:
        """Whether every migration is recorded (read only: nothing left to write)."""
        if not _table_exists(conn, "migrations"):
            return False
        return {m.version for m in MIGRATIONS} <= self._recorded(conn)

    def _recorded(self, conn: sqlite3.Connection) -> set[int]:
        versions = {int(r[0]) for r in conn.execute("SELECT version FROM migrations")}
        if versions and max(versions) > LATEST:
            raise StoreError(
                f"The database {self.path} was written by a newer Fabletop "
                f"(migration {max(versions)}; this one knows up to {LATEST})."
            )
        return versions

    def _prepare(self, conn: sqlite3.Connection) -> None:
        """The ``migrations`` table, and the refusal of databases from a newer Fabletop
        (including one from before numbered migrations with a newer ``schema_version``)."""
        conn.execute(
            "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        if not self._recorded(conn) and _table_exists(conn, "schema_version"):
            row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
            if row and row[0] is not None and int(row[0]) > 1:
                raise StoreError(
                    f"The database {self.path} was written by a newer Fabletop "
                    f"(schema {row[0]}; this one adopts schema 1 only)."
                )

    def _migrate(self, conn: sqlite3.Connection, migration: Migration) -> bool:
        """Apply ``migration`` unless it is recorded (by another process, maybe just
        now); true if this call applied it. Runs inside the caller's transaction."""
        if migration.version in self._recorded(conn):
            return False
        for step in migration.statements:
            if isinstance(step, IfTable):
                if _table_exists(conn, step.table):
                    conn.execute(step.sql)
            else:
                conn.execute(step)
        conn.execute(
            "INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
            (migration.version, migration.name, _ts(self.clock())),
        )
        return True

    async def close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await db.close()

    async def applied_migrations(self) -> list[int]:
        rows = await self._fetch("SELECT version FROM migrations ORDER BY version", ())
        return [int(r[0]) for r in rows]

    # -- table writes -----------------------------------------------------------

    async def create_table(self, rec: TableRecord) -> None:
        values = _row_values(rec)

        def work(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    f"INSERT INTO tables ({_COLUMNS}) VALUES ({', '.join('?' * _NCOLUMNS)})",
                    values,
                )
            except sqlite3.IntegrityError as exc:
                raise ChannelTaken(str(exc)) from exc

        await self._write(work)

    @staticmethod
    def _update(conn: sqlite3.Connection, rec: TableRecord,
                expected_version: int | None) -> None:
        values = _row_values(rec)
        sets = ", ".join(f"{col.strip()} = ?" for col in _COLUMNS.split(",")[1:])
        sql = f"UPDATE tables SET {sets} WHERE id = ? AND revision = ?"
        params: tuple[Any, ...] = (*values[1:], rec.id, rec.revision - 1)
        if expected_version is not None:
            sql += " AND version = ?"
            params = (*params, expected_version)
        try:
            cur = conn.execute(sql, params)
        except sqlite3.IntegrityError as exc:
            raise ChannelTaken(str(exc)) from exc
        if cur.rowcount != 1:
            raise VersionConflict(
                f"table {rec.id}: stored revision is not {rec.revision - 1}"
                + (f" or version not {expected_version}" if expected_version is not None
                   else "")
                + " (or the table does not exist)"
            )

    def _add_outbox(self, conn: sqlite3.Connection, rec: TableRecord,
                    payload: str | None) -> int | None:
        if payload is None:
            return None
        cur = conn.execute(
            "INSERT INTO outbox (table_id, version, payload, created_at) VALUES (?, ?, ?, ?)",
            (rec.id, rec.version, payload, _ts(self.clock())),
        )
        return int(cur.lastrowid)  # type: ignore[arg-type]

    @staticmethod
    def _add_journal(conn: sqlite3.Connection,
                     rows: Sequence[tuple[str, int, int, str]]) -> None:
        if rows:
            try:
                conn.executemany(
                    "INSERT INTO journal (table_id, n, version, data) VALUES (?, ?, ?, ?)", rows)
            except sqlite3.IntegrityError as exc:
                raise VersionConflict(str(exc)) from exc

    async def save_table(
        self,
        rec: TableRecord,
        expected_version: int | None = None,
        *,
        outbox: str | None = None,
        journal: Sequence[tuple[int, str]] = (),
    ) -> int | None:
        journal_rows = [(rec.id, n, rec.version, data) for n, data in journal]

        def work(conn: sqlite3.Connection) -> int | None:
            self._update(conn, rec, expected_version)
            self._add_journal(conn, journal_rows)
            return self._add_outbox(conn, rec, outbox)

        return await self._write(work)

    async def commit_action(
        self,
        rec: TableRecord,
        expected_version: int,
        action: ActionRecord,
        events: list[EventRecord],
        *,
        outbox: str | None = None,
        journal: Sequence[tuple[int, str]] = (),
    ) -> int | None:
        if rec.version != expected_version + 1 or action.version != rec.version:
            raise VersionConflict("an action must move the table exactly one version on")
        action_row = (action.table_id, action.version, action.seat, action.user_id,
                      action.action, _ts(action.created_at))
        event_rows = [(e.table_id, e.version, e.idx, e.data) for e in events]
        journal_rows = [(rec.id, n, rec.version, data) for n, data in journal]

        def work(conn: sqlite3.Connection) -> int | None:
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
                self._add_journal(conn, journal_rows)
            except sqlite3.IntegrityError as exc:
                raise VersionConflict(str(exc)) from exc
            return self._add_outbox(conn, rec, outbox)

        return await self._write(work)

    # -- table reads ------------------------------------------------------------

    async def _fetch(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return await self._call(lambda conn: conn.execute(sql, params).fetchall())

    async def _tables(self, where: str, params: tuple[Any, ...],
                      order: str = "created_at, id") -> list[TableRecord]:
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM tables WHERE {where} ORDER BY {order}", params
        )
        return [_record(row) for row in rows]

    async def get_table(self, table_id: str) -> TableRecord | None:
        rows = await self._tables("id = ?", (table_id,))
        return rows[0] if rows else None

    async def live_table_in_channel(self, channel_id: int) -> TableRecord | None:
        rows = await self._tables(f"channel_id = ? AND {_LIVE}", (channel_id,))
        return rows[0] if rows else None

    async def last_table_in_channel(self, channel_id: int) -> TableRecord | None:
        rows = await self._tables(
            "channel_id = ?", (channel_id,),
            order=f"{_LIVE} DESC, updated_at DESC, created_at DESC, id DESC LIMIT 1",
        )
        return rows[0] if rows else None

    async def load_all_active(self) -> list[TableRecord]:
        return await self._tables(_LIVE, ())

    async def count_live_tables(self, *, guild_id: int | None = None,
                                host_id: int | None = None) -> int:
        where, params = [_LIVE], []
        if guild_id is not None:
            where.append("guild_id = ?")
            params.append(guild_id)
        if host_id is not None:
            where.append("host_id = ?")
            params.append(host_id)
        rows = await self._fetch(f"SELECT COUNT(*) FROM tables WHERE {' AND '.join(where)}",
                                 tuple(params))
        return int(rows[0][0])

    async def all_table_ids(self) -> list[str]:
        rows = await self._fetch("SELECT id FROM tables ORDER BY created_at, id", ())
        return [str(r[0]) for r in rows]

    async def import_table(self, rec: TableRecord, actions: Sequence[ActionRecord],
                           events: Sequence[EventRecord],
                           journal: Sequence[JournalRecord] = ()) -> None:
        values = _row_values(rec)
        journal_rows = [(j.table_id, j.n, j.version, j.data) for j in journal]
        action_rows = [(a.table_id, a.version, a.seat, a.user_id, a.action,
                        _ts(a.created_at)) for a in actions]
        event_rows = [(e.table_id, e.version, e.idx, e.data) for e in events]

        def work(conn: sqlite3.Connection) -> None:
            try:
                conn.execute(
                    f"INSERT INTO tables ({_COLUMNS}) VALUES ({', '.join('?' * _NCOLUMNS)})",
                    values)
            except sqlite3.IntegrityError as exc:
                if "tables.id" in str(exc):
                    raise StoreError(f"table {rec.id} already exists") from exc
                raise ChannelTaken(str(exc)) from exc
            conn.executemany(
                "INSERT INTO actions (table_id, version, seat, user_id, action, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)", action_rows)
            conn.executemany(
                "INSERT INTO events (table_id, version, idx, data) VALUES (?, ?, ?, ?)",
                event_rows)
            self._add_journal(conn, journal_rows)

        await self._write(work)

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        rows = await self._fetch("SELECT settings FROM guild_settings WHERE guild_id = ?",
                                 (guild_id,))
        return dict(json.loads(rows[0][0])) if rows else {}

    async def save_guild_settings(self, guild_id: int, settings: dict[str, Any]) -> None:
        values = (guild_id, json.dumps(settings, sort_keys=True), _ts(self.clock()))
        await self._write(lambda conn: conn.execute(
            "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
            " updated_at = excluded.updated_at", values))

    async def record_result(self, result: ResultRecord) -> bool:
        r = result
        values = (r.table_id, r.guild_id, r.channel_id, r.game_id, *result_json(r), r.reason,
                  int(r.cooperative), r.moves, _ts(r.started_at), _ts(r.finished_at))

        def work(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                f"INSERT INTO results ({_RESULT_COLUMNS}) VALUES ({', '.join('?' * 13)})"
                " ON CONFLICT (table_id) DO NOTHING", values)
            return cur.rowcount == 1

        return await self._write(work)

    async def results(self, *, guild_id: int | None = None, channel_id: int | None = None,
                      game_id: str | None = None, limit: int | None = None
                      ) -> list[ResultRecord]:
        where, params = ["1 = 1"], []
        for column, value in (("guild_id", guild_id), ("channel_id", channel_id),
                              ("game_id", game_id)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        sql = (f"SELECT {_RESULT_COLUMNS} FROM results WHERE {' AND '.join(where)}"
               " ORDER BY finished_at DESC, table_id DESC")
        if limit is not None and limit >= 0:
            sql += f" LIMIT {int(limit)}"
        rows = await self._fetch(sql, tuple(params))
        return [result_from(*r[:11], _dt(r[11]), _dt(r[12])) for r in rows]  # type: ignore[arg-type]

    async def finished_without_result(self, limit: int = 500) -> list[TableRecord]:
        return await self._tables(
            "status = 'finished' AND id NOT IN (SELECT table_id FROM results)", (),
            order=f"updated_at, id LIMIT {int(limit)}")

    async def claim_lease(self, table_id: str, owner: str, seconds: float) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            now = self.clock()
            cur = conn.execute(
                "INSERT INTO table_leases (table_id, owner, until) VALUES (?, ?, ?)"
                " ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner,"
                " until = excluded.until"
                " WHERE table_leases.owner = excluded.owner OR table_leases.until <= ?",
                (table_id, owner, _ts(now + timedelta(seconds=seconds)), _ts(now)),
            )
            return cur.rowcount == 1

        return await self._write(work)

    async def release_claims(self, owner_prefix: str) -> int:
        pattern = owner_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        def work(conn: sqlite3.Connection) -> int:
            a = conn.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
                " WHERE delivered_at IS NULL AND claimed_by LIKE ? ESCAPE '\\'", (pattern,))
            b = conn.execute("DELETE FROM table_leases WHERE owner LIKE ? ESCAPE '\\'",
                             (pattern,))
            return a.rowcount + b.rowcount

        return await self._write(work)

    async def unclaimed_ai_turns(self, quiet_seconds: float, limit: int = 100) -> list[str]:
        now = self.clock()
        rows = await self._fetch(
            "SELECT t.id FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id"
            " WHERE t.status = 'playing' AND t.ai_to_act != 0"
            " AND (l.until <= ? OR (l.table_id IS NULL AND t.updated_at <= ?))"
            " ORDER BY t.updated_at, t.id LIMIT ?",
            (_ts(now), _ts(now - timedelta(seconds=quiet_seconds)), limit))
        return [str(r[0]) for r in rows]

    async def release_lease(self, table_id: str, owner: str) -> None:
        await self._write(lambda conn: conn.execute(
            "DELETE FROM table_leases WHERE table_id = ? AND owner = ?", (table_id, owner)))

    async def journal(self, table_id: str, *, every_row: bool = False
                      ) -> list[JournalRecord]:
        rows = await self._fetch(
            "SELECT table_id, n, version, data FROM journal WHERE table_id = ?"
            " ORDER BY n, version", (table_id,))
        records = [JournalRecord(table_id=r[0], n=r[1], version=r[2], data=r[3]) for r in rows]
        return records if every_row else newest_entries(records)

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

    # -- outbox -----------------------------------------------------------------

    async def undelivered_outboxes(self, limit: int = 1000, *, table_id: str | None = None
                                   ) -> list[OutboxRecord]:
        rows = await self._fetch(
            "SELECT id, table_id, version, payload, created_at, delivered_at FROM outbox"
            " WHERE delivered_at IS NULL AND (? IS NULL OR table_id = ?) ORDER BY id LIMIT ?",
            (table_id, table_id, limit),
        )
        return [_outbox(r) for r in rows]

    async def claim_outbox(self, outbox_id: int, owner: str, lease_seconds: float) -> bool:
        def work(conn: sqlite3.Connection) -> bool:
            now = self.clock()
            cur = conn.execute(
                "UPDATE outbox SET claimed_by = ?, claimed_until = ?"
                " WHERE id = ? AND delivered_at IS NULL"
                " AND (claimed_until IS NULL OR claimed_until <= ?)",
                (owner, _ts(now + timedelta(seconds=lease_seconds)), outbox_id, _ts(now)),
            )
            return cur.rowcount == 1

        return await self._write(work)

    async def mark_delivered(
        self,
        outbox_id: int,
        *,
        hands: Sequence[HandMessage] = (),
        turn: TurnMessage | None = None,
    ) -> bool:
        hand_rows = [_hand_values(h) for h in hands]
        turn_row = _turn_values(turn) if turn is not None else None

        def work(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE outbox SET delivered_at = ? WHERE id = ? AND delivered_at IS NULL",
                (_ts(self.clock()), outbox_id),
            )
            if hand_rows:
                conn.executemany(_UPSERT_HAND, hand_rows)
            if turn_row is not None:
                conn.execute(_UPSERT_TURN, turn_row)
            return cur.rowcount == 1

        return await self._write(work)

    # -- hand and turn messages, closed DMs -------------------------------------

    async def hand_messages(self, table_id: str) -> list[HandMessage]:
        rows = await self._fetch(
            f"SELECT {_HAND_COLUMNS} FROM hand_messages WHERE table_id = ? ORDER BY user_id",
            (table_id,),
        )
        return [_hand(r) for r in rows]

    async def all_hand_messages_showing_choices(self) -> list[HandMessage]:
        rows = await self._fetch(
            f"SELECT {_HAND_COLUMNS} FROM hand_messages WHERE shows_choices != 0"
            " ORDER BY table_id, user_id",
            (),
        )
        return [_hand(r) for r in rows]

    async def save_hand_messages(self, hands: Sequence[HandMessage]) -> None:
        rows = [_hand_values(h) for h in hands]
        if rows:
            await self._write(lambda conn: conn.executemany(_UPSERT_HAND, rows))

    async def delete_hand_message(self, table_id: str, user_id: int) -> None:
        await self._write(lambda conn: conn.execute(
            "DELETE FROM hand_messages WHERE table_id = ? AND user_id = ?", (table_id, user_id)
        ))

    async def turn_message(self, table_id: str) -> TurnMessage | None:
        rows = await self._fetch(
            f"SELECT {_TURN_COLUMNS} FROM turn_messages WHERE table_id = ?", (table_id,)
        )
        return _turn(rows[0]) if rows else None

    async def save_turn_message(self, tm: TurnMessage) -> None:
        row = _turn_values(tm)
        await self._write(lambda conn: conn.execute(_UPSERT_TURN, row))

    async def dm_closed(self, user_id: int) -> bool:
        rows = await self._fetch("SELECT 1 FROM dm_closed WHERE user_id = ?", (user_id,))
        return bool(rows)

    async def dm_closed_among(self, user_ids: Sequence[int]) -> set[int]:
        ids = [int(u) for u in dict.fromkeys(user_ids)]
        if not ids:
            return set()
        marks = ", ".join("?" * len(ids))
        rows = await self._fetch(f"SELECT user_id FROM dm_closed WHERE user_id IN ({marks})",
                                 tuple(ids))
        return {int(r[0]) for r in rows}

    async def set_dm_closed(self, user_id: int, closed: bool) -> None:
        def work(conn: sqlite3.Connection) -> None:
            if closed:  # the first time it was learnt stays
                conn.execute(
                    "INSERT INTO dm_closed (user_id, since) VALUES (?, ?)"
                    " ON CONFLICT (user_id) DO NOTHING",
                    (user_id, _ts(self.clock())),
                )
            else:
                conn.execute("DELETE FROM dm_closed WHERE user_id = ?", (user_id,))

        await self._write(work)

    # -- the Activity ---------------------------------------------------------------

    async def save_presence(self, owner: str, present: Sequence[tuple[int, int]]) -> None:
        now = _ts(self.clock())
        rows = [(int(c), int(u), owner, now) for c, u in dict.fromkeys(present)]

        def work(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM activity_presence WHERE owner = ?", (owner,))
            conn.executemany("INSERT INTO activity_presence (channel_id, user_id, owner,"
                             " seen_at) VALUES (?, ?, ?, ?)", rows)

        await self._write(work)

    async def present_in(self, channel_id: int, since: datetime) -> set[int]:
        rows = await self._fetch("SELECT user_id FROM activity_presence"
                                 " WHERE channel_id = ? AND seen_at >= ?",
                                 (channel_id, _ts(since)))
        return {int(r[0]) for r in rows}

    async def table_revisions(self, table_ids: Sequence[str]
                              ) -> dict[str, tuple[int, int]]:
        ids = list(dict.fromkeys(table_ids))
        found: dict[str, tuple[int, int]] = {}
        for start in range(0, len(ids), 500):  # SQLite's limit of bound parameters
            part = ids[start:start + 500]
            marks = ", ".join("?" * len(part))
            rows = await self._fetch(f"SELECT id, version, revision FROM tables"
                                     f" WHERE id IN ({marks})",
                                     tuple(part))
            found.update((str(r[0]), (int(r[1]), int(r[2]))) for r in rows)
        return found
