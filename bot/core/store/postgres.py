"""The shared store: PostgreSQL through an asyncpg connection pool.

:class:`PostgresStore` is :class:`~bot.core.store.Store` with exactly the semantics of
:class:`~bot.core.store.sqlite.SqliteStore` (its tests run on both), for several bot
processes on one database.

How a call runs. Each call borrows one pooled connection for its whole duration. A
write of several statements (a move: the row, its action, its events, its outbox row) is
one explicit transaction, rolled back whole on any error; a write of a single statement
is left to PostgreSQL's own per-statement atomicity, which saves the BEGIN and COMMIT
round trips. Reads are single statements, so they see one snapshot each.

Why the conditional writes are safe at READ COMMITTED. Every table write is ``UPDATE
... WHERE id = $ AND revision = $`` (and ``version`` for moves); the outbox and lease
claims are conditional statements of the same kind. When two transactions race for one
row, the second waits for the first's row lock, then PostgreSQL evaluates its ``WHERE``
again on the row the first committed: the revision has moved on, so it matches nothing,
writes nothing, and the store raises :class:`~bot.core.store.VersionConflict` (or the claim
returns false). Exactly one writer wins without retry loops or SERIALIZABLE. The lease
claim is one ``INSERT ... ON CONFLICT DO UPDATE ... WHERE``: a concurrent insert of the
same key waits for the other and then takes the conflict path, whose ``WHERE`` decides.

Migrations (:data:`bot.core.store.pg_migrations.PG_MIGRATIONS`, the same numbers and names as
SQLite's) are applied at :meth:`PostgresStore.open`, each in its own transaction that
first takes ``pg_advisory_xact_lock`` on one fixed key and then re-reads what is
recorded. An advisory lock rather than a table lock because there may be no table yet to
lock (not even ``migrations``), and because ``CREATE ... IF NOT EXISTS`` is not safe
against a concurrent identical ``CREATE`` (it can fail on the catalogs' unique indexes);
a transaction-scoped one because PostgreSQL releases it at commit or rollback, even when
the process holding it dies. So any number of processes may start at once: one applies
each migration, the others wait and find it recorded.

Times: whatever the store dates itself (outbox rows, deliveries, claims, leases, closed
DMs, migrations) is stamped by its ``clock``, never by the server's ``now()``, as in
SQLite, so a test clock governs both stores alike. Columns are ``TIMESTAMPTZ``
(microseconds); what comes back is an aware UTC datetime equal to what was stored. A
naive datetime is taken as UTC (the interface deals in aware UTC times only).

Outbox ids come from an identity column: increasing, never reused, but a rolled-back
write leaves a gap (SQLite's do not), and rows of two different tables committed at once
may become visible out of id order. Rows of one table cannot: every write of a table
updates its row first, so they are serialized by that row's lock.

Constraint violations map to the errors SQLite's store raises at the same place: any
violation by a table row is :class:`~bot.core.store.ChannelTaken` (the live-channel index
is the one that matters), by an action or event row :class:`~bot.core.store.VersionConflict`,
and a second import of a table id a plain :class:`~bot.core.store.StoreError`.

``schema`` puts the store in its own PostgreSQL schema (created if missing): every pooled
connection starts with ``search_path`` set to it, so the SQL here never names a schema,
and several stores (tests, or several deployments) can share one database.

asyncpg and OS errors never leave the store: they become :class:`~bot.core.store.StoreError`
with the driver's message (a refused connection at open says plainly where it tried).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import asyncpg

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
from bot.core.store.migrations import Migration
from bot.core.store.pg_migrations import LATEST, PG_MIGRATIONS

__all__ = ["MIGRATION_LOCK_KEY", "PostgresStore", "redact", "server_address"]

T = TypeVar("T")
Connection = asyncpg.Connection
"""What the store's functions are given: a pooled connection (a proxy of one)."""

MIGRATION_LOCK_KEY = 0x46_61_62_6C_65_74_6F_70
"""The advisory lock key migrations take: "Fabletop" in ASCII, a positive 64-bit int.
One key for the whole database (not one per schema): migrations are rare and quick, and
a fixed key cannot be got wrong by two versions of the code."""

_DRIVER_ERRORS: tuple[type[BaseException], ...] = (
    asyncpg.PostgresError,  # everything the server reports, and bad argument data
    asyncpg.InterfaceError,  # the pool or connection misused or gone
    asyncpg.InternalClientError,  # protocol trouble inside asyncpg
    OSError,  # the network (TimeoutError is one too)
)

_COLUMNS = (
    "id, channel_id, guild_id, game_id, options, seed, status, host_id, seats, version, "
    "state, reminder_minutes, created_at, updated_at, turn_since, reminded_at, settings, "
    "revision, ai_to_act"
)
_COLUMN_NAMES = [c.strip() for c in _COLUMNS.split(",")]
_NCOLUMNS = len(_COLUMN_NAMES)
_LIVE = "status IN ('lobby', 'playing')"
_HAND_COLUMNS = (
    "table_id, user_id, channel_id, message_id, signature, image_sig, shows_choices"
)
_TURN_COLUMNS = (
    "table_id, channel_id, message_id, version, pinged, lines, has_buttons, board_key"
)


def _marks(n: int, start: int = 1) -> str:
    return ", ".join(f"${i}" for i in range(start, start + n))


_INSERT_TABLE = f"INSERT INTO tables ({_COLUMNS}) VALUES ({_marks(_NCOLUMNS)})"
# Every column but the id, then the id and the revision the write is based on.
_UPDATE_TABLE = (
    "UPDATE tables SET "
    + ", ".join(f"{col} = ${i}" for i, col in enumerate(_COLUMN_NAMES[1:], start=2))
    + f" WHERE id = $1 AND revision = ${_NCOLUMNS + 1}"
)
_INSERT_ACTION = (
    "INSERT INTO actions (table_id, version, seat, user_id, action, created_at)"
    " VALUES ($1, $2, $3, $4, $5, $6)"
)
_INSERT_EVENT = "INSERT INTO events (table_id, version, idx, data) VALUES ($1, $2, $3, $4)"
_UPSERT_HAND = (
    f"INSERT INTO hand_messages ({_HAND_COLUMNS}) VALUES ({_marks(7)})"
    " ON CONFLICT (table_id, user_id) DO UPDATE SET channel_id = excluded.channel_id,"
    " message_id = excluded.message_id, signature = excluded.signature,"
    " image_sig = excluded.image_sig, shows_choices = excluded.shows_choices"
)
_UPSERT_TURN = (
    f"INSERT INTO turn_messages ({_TURN_COLUMNS}) VALUES ({_marks(8)})"
    " ON CONFLICT (table_id) DO UPDATE SET channel_id = excluded.channel_id,"
    " message_id = excluded.message_id, version = excluded.version,"
    " pinged = excluded.pinged, lines = excluded.lines,"
    " has_buttons = excluded.has_buttons, board_key = excluded.board_key"
)


def _aware(value: datetime) -> datetime:
    # asyncpg would read a naive datetime in the process's local zone; the interface
    # means UTC, so say so rather than depend on the machine's TZ.
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _ts(value: datetime | None) -> datetime | None:
    return _aware(value) if value is not None else None


def _count(status: str) -> int:
    """The row count of a command tag (``UPDATE 1``, ``INSERT 0 1``, ``DELETE 0``)."""
    return int(status.rsplit(" ", 1)[-1])


_UNWRITABLE: tuple[tuple[type[BaseException], str], ...] = (
    (asyncpg.DiskFullError, "the server's disk is full"),
    (asyncpg.InsufficientResourcesError, "the server is out of resources"),
    (asyncpg.ReadOnlySQLTransactionError, "the database is read-only"),
)
"""What the server says when it cannot write now (SQLSTATE 53xxx, 25006), as
:class:`StoreUnwritable`: one log line per change, a clear refusal for the player."""


def unwritable_reason(exc: BaseException) -> str | None:
    """Why ``exc`` says the database cannot be written now, or ``None``."""
    for kind, reason in _UNWRITABLE:
        if isinstance(exc, kind):
            return f"{reason}: {_describe(exc)}"
    return None


def _describe(exc: BaseException) -> str:
    # asyncpg's text already carries the server's DETAIL and HINT lines.
    return f"{type(exc).__name__}: {exc}"


def _row_values(rec: TableRecord) -> tuple[Any, ...]:
    # The JSON text is made exactly as SQLite makes it, so both stores hold the same bytes.
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
        bool(rec.ai_to_act),
    )


def _record(row: Sequence[Any]) -> TableRecord:
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
        created_at=created,
        updated_at=updated,
        turn_since=turn_since,
        reminded_at=reminded,
        settings=json.loads(settings),
        revision=revision,
        ai_to_act=bool(ai_to_act),
    )


def _action_values(a: ActionRecord) -> tuple[Any, ...]:
    return (a.table_id, a.version, a.seat, a.user_id, a.action, _ts(a.created_at))


def _event_values(e: EventRecord) -> tuple[Any, ...]:
    return (e.table_id, e.version, e.idx, e.data)


def _hand_values(h: HandMessage) -> tuple[Any, ...]:
    return (h.table_id, h.user_id, h.channel_id, h.message_id, h.signature, h.image_sig,
            bool(h.shows_choices))


def _hand(row: Sequence[Any]) -> HandMessage:
    tid, user, channel, message, signature, image_sig, choices = tuple(row)
    return HandMessage(table_id=tid, user_id=user, channel_id=channel, message_id=message,
                       signature=signature, image_sig=image_sig, shows_choices=bool(choices))


def _turn_values(tm: TurnMessage) -> tuple[Any, ...]:
    return (tm.table_id, tm.channel_id, tm.message_id, tm.version,
            json.dumps([int(u) for u in tm.pinged]), json.dumps(list(tm.lines)),
            bool(tm.has_buttons), tm.board_key)


def _turn(row: Sequence[Any]) -> TurnMessage:
    tid, channel, message, version, pinged, lines, buttons, board_key = tuple(row)
    return TurnMessage(table_id=tid, channel_id=channel, message_id=message, version=version,
                       pinged=tuple(json.loads(pinged)), lines=tuple(json.loads(lines)),
                       has_buttons=bool(buttons), board_key=board_key)


def _outbox(row: Sequence[Any]) -> OutboxRecord:
    oid, tid, version, payload, created, delivered = tuple(row)
    return OutboxRecord(id=oid, table_id=tid, version=version, payload=payload,
                        created_at=created, delivered_at=delivered)


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def redact(url: str) -> str:
    """``url`` without its password (in the user part or as a query parameter).

    >>> redact("postgresql://bot:s3cret@db:5432/fabletop?sslmode=require&password=x")
    'postgresql://bot@db:5432/fabletop?sslmode=require'
    """
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, hosts = netloc.rpartition("@")
        user = userinfo.partition(":")[0]
        netloc = f"{user}@{hosts}" if user else hosts
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                       if "password" not in k.lower()])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def server_address(url: str) -> str:
    """Where ``url`` connects, as ``host:port`` (for error messages).

    >>> server_address("postgresql://u:p@127.0.0.1/test"), server_address("postgres:///db")
    ('127.0.0.1:5432', 'localhost:5432')
    """
    parts = urlsplit(url)
    hosts = parts.netloc.rpartition("@")[2]
    if not hosts:  # asyncpg then takes ?host=, else the local socket or localhost
        query = dict(parse_qsl(parts.query))
        hosts = query.get("host", "localhost")
        return f"{hosts}:{query.get('port', '5432')}"
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # several hosts ("h1:5432,h2:5433"): as written
        return hosts
    return f"{host}:{port or 5432}"


class PostgresStore(Store):
    """:class:`Store` on a PostgreSQL database (asyncpg pool, numbered migrations).

    ``url`` is a ``postgresql://`` URL as asyncpg takes it; ``schema`` (created if
    missing) holds the store's tables instead of the connection's default schema;
    ``min_size``/``max_size`` size the pool. ``clock`` stamps what the store itself
    dates (outbox rows, deliveries, claims, leases, closed DMs, applied migrations).
    """

    def __init__(
        self,
        url: str,
        *,
        clock: Callable[[], datetime] = utcnow,
        schema: str | None = None,
        min_size: int = 1,
        max_size: int = 10,
    ) -> None:
        if schema is not None and (not schema or "\x00" in schema
                                   or len(schema.encode()) > 63):
            # PostgreSQL would silently cut a longer name: refuse it instead.
            raise ValueError(f"not a usable schema name: {schema!r}")
        if not 0 <= min_size <= max_size or max_size < 1:
            raise ValueError(f"bad pool size: min_size={min_size}, max_size={max_size}")
        self.url = url
        self.schema = schema
        self.clock = clock
        self.min_size = min_size
        self.max_size = max_size
        self._pool: asyncpg.Pool | None = None
        self.applied_at_open: tuple[int, ...] = ()
        """The migrations the last :meth:`open` applied itself (not found recorded)."""
        self.health = WriteHealth(self._where)
        """Whether writes go through (one log line per change: :mod:`.health`)."""

    def __repr__(self) -> str:
        schema = f" schema={self.schema!r}" if self.schema is not None else ""
        return f"<PostgresStore {redact(self.url)}{schema}>"

    @property
    def _where(self) -> str:
        """The database, for messages (never with its password)."""
        schema = f" (schema {self.schema})" if self.schema is not None else ""
        return f"{redact(self.url)}{schema}"

    @property
    def pool(self) -> asyncpg.Pool:
        """The asyncpg pool (for diagnostics; the store does its own SQL)."""
        if self._pool is None:
            raise StoreError("The store is not open.")
        return self._pool

    async def _run(self, work: Callable[[Connection], Awaitable[T]], *,
                   transaction: bool = False) -> T:
        """``work(connection)`` on one pooled connection, in one explicit transaction if
        asked (rolled back whole if ``work`` raises anything)."""
        pool = self.pool
        try:
            async with pool.acquire() as conn:
                if not transaction:
                    return await work(conn)
                async with conn.transaction():
                    return await work(conn)
        except _DRIVER_ERRORS as exc:
            reason = unwritable_reason(exc)
            if reason is not None:
                raise StoreUnwritable(reason) from exc
            raise StoreError(_describe(exc)) from exc

    async def _write(self, work: Callable[[Connection], Awaitable[T]]) -> T:
        """``work`` as one transaction; a refusal to write is told once (``health``),
        and its end too."""
        return await self._told(self._run(work, transaction=True))

    async def _told(self, write: Awaitable[T]) -> T:
        """Await a write, keeping ``health`` (its one line per change) up to date."""
        try:
            result = await write
        except StoreUnwritable as exc:
            self.health.failed(exc.reason)
            raise
        self.health.succeeded()
        return result

    async def _execute(self, sql: str, *args: Any) -> str:
        """One statement (a write), its own transaction; returns the command tag."""
        return await self._told(self._run(lambda conn: conn.execute(sql, *args)))

    async def _fetch(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        rows = await self._run(lambda conn: conn.fetch(sql, *args))
        return [tuple(r) for r in rows]

    # -- opening and migrations -------------------------------------------------

    async def open(self) -> None:
        if self._pool is not None:
            return
        settings = {"search_path": _quote_ident(self.schema)} if self.schema else None
        try:
            pool = await asyncpg.create_pool(
                self.url, min_size=self.min_size, max_size=self.max_size,
                server_settings=settings,
            )
        except OSError as exc:
            reason = ("connection refused" if isinstance(exc, ConnectionRefusedError)
                      or "refused" in str(exc).lower() else _describe(exc))
            raise StoreError(
                f"Cannot connect to PostgreSQL at {server_address(self.url)}: {reason}."
            ) from exc
        except (*_DRIVER_ERRORS, ValueError) as exc:  # ValueError: a malformed URL
            raise StoreError(f"Cannot open {self._where}: {_describe(exc)}") from exc
        self._pool = pool
        try:
            self.applied_at_open = await self._migrate_all()
        except BaseException:
            self._pool = None
            pool.terminate()  # nothing else uses it yet; do not wait on a broken server
            raise

    async def _migrate_all(self) -> tuple[int, ...]:
        recorded = await self._write(self._prepare)
        applied = []
        for migration in PG_MIGRATIONS:
            if migration.version in recorded:
                continue  # the usual restart: one transaction in all
            if await self._write(lambda conn, m=migration: self._migrate(conn, m)):
                applied.append(migration.version)
        return tuple(applied)

    @staticmethod
    async def _lock(conn: Connection) -> None:
        """Hold the migration lock until this transaction ends (see the module doc)."""
        await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK_KEY)

    async def _recorded(self, conn: Connection) -> set[int]:
        versions = {int(r[0]) for r in await conn.fetch("SELECT version FROM migrations")}
        if versions and max(versions) > LATEST:
            raise StoreError(
                f"The database {self._where} was written by a newer Fabletop "
                f"(migration {max(versions)}; this one knows up to {LATEST})."
            )
        return versions

    async def _prepare(self, conn: Connection) -> set[int]:
        """The schema and the ``migrations`` table; what is recorded; the refusal of a
        database from a newer Fabletop."""
        await self._lock(conn)
        if self.schema is not None:
            # Look first: CREATE SCHEMA IF NOT EXISTS needs the CREATE right on the
            # database even when the schema exists, and a deployment may not have it.
            found = await conn.fetchval(
                "SELECT 1 FROM pg_namespace WHERE nspname = $1", self.schema)
            if found is None:
                await conn.execute(f"CREATE SCHEMA {_quote_ident(self.schema)}")
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS migrations (version INTEGER PRIMARY KEY,"
            " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)"
        )
        return await self._recorded(conn)

    async def _migrate(self, conn: Connection, migration: Migration) -> bool:
        """Apply ``migration`` unless it is recorded (by another process, maybe while
        this one waited for the lock); true if this call applied it. Runs inside the
        caller's transaction."""
        await self._lock(conn)
        if migration.version in await self._recorded(conn):
            return False
        for step in migration.statements:
            assert isinstance(step, str)  # no IfTable here (checked at import)
            await conn.execute(step)
        await conn.execute(
            "INSERT INTO migrations (version, name, applied_at) VALUES ($1, $2, $3)",
            migration.version, migration.name, _ts(self.clock()),
        )
        return True

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            try:
                await pool.close()
            except _DRIVER_ERRORS as exc:
                raise StoreError(_describe(exc)) from exc

    async def applied_migrations(self) -> list[int]:
        rows = await self._fetch("SELECT version FROM migrations ORDER BY version")
        return [int(r[0]) for r in rows]

    # -- table writes -----------------------------------------------------------

    async def create_table(self, rec: TableRecord) -> None:
        values = _row_values(rec)

        async def work(conn: Connection) -> None:
            try:
                await conn.execute(_INSERT_TABLE, *values)
            except asyncpg.IntegrityConstraintViolationError as exc:
                raise ChannelTaken(_describe(exc)) from exc  # as SQLite (module doc)

        await self._told(self._run(work))

    @staticmethod
    async def _update(conn: Connection, rec: TableRecord,
                      expected_version: int | None) -> None:
        values = _row_values(rec)
        sql, params = _UPDATE_TABLE, (*values, rec.revision - 1)
        if expected_version is not None:
            sql += f" AND version = ${_NCOLUMNS + 2}"
            params = (*params, expected_version)
        try:
            status = await conn.execute(sql, *params)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise ChannelTaken(_describe(exc)) from exc
        if _count(status) != 1:
            raise VersionConflict(
                f"table {rec.id}: stored revision is not {rec.revision - 1}"
                + (f" or version not {expected_version}" if expected_version is not None
                   else "")
                + " (or the table does not exist)"
            )

    async def _add_outbox(self, conn: Connection, rec: TableRecord,
                          payload: str | None) -> int | None:
        if payload is None:
            return None
        oid = await conn.fetchval(
            "INSERT INTO outbox (table_id, version, payload, created_at)"
            " VALUES ($1, $2, $3, $4) RETURNING id",
            rec.id, rec.version, payload, _ts(self.clock()),
        )
        return int(oid)

    @staticmethod
    async def _add_journal(conn: Connection, rows: Sequence[tuple[str, int, int, str]]
                           ) -> None:
        if rows:
            try:
                await conn.executemany(
                    "INSERT INTO journal (table_id, n, version, data) VALUES ($1, $2, $3, $4)",
                    rows)
            except asyncpg.IntegrityConstraintViolationError as exc:
                raise VersionConflict(_describe(exc)) from exc

    async def save_table(
        self,
        rec: TableRecord,
        expected_version: int | None = None,
        *,
        outbox: str | None = None,
        journal: Sequence[tuple[int, str]] = (),
    ) -> int | None:
        journal_rows = [(rec.id, n, rec.version, data) for n, data in journal]

        async def work(conn: Connection) -> int | None:
            await self._update(conn, rec, expected_version)
            await self._add_journal(conn, journal_rows)
            return await self._add_outbox(conn, rec, outbox)

        # Without an outbox or journal row the update is a single statement: no BEGIN.
        return await self._told(
            self._run(work, transaction=outbox is not None or bool(journal_rows)))

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
        action_row = _action_values(action)
        event_rows = [_event_values(e) for e in events]
        journal_rows = [(rec.id, n, rec.version, data) for n, data in journal]

        async def work(conn: Connection) -> int | None:
            await self._update(conn, rec, expected_version)
            try:
                await conn.execute(_INSERT_ACTION, *action_row)
                if event_rows:
                    await conn.executemany(_INSERT_EVENT, event_rows)
                await self._add_journal(conn, journal_rows)
            except asyncpg.IntegrityConstraintViolationError as exc:
                raise VersionConflict(_describe(exc)) from exc
            return await self._add_outbox(conn, rec, outbox)

        return await self._write(work)

    # -- table reads ------------------------------------------------------------

    async def _tables(self, where: str, *args: Any,
                      order: str = "created_at, id") -> list[TableRecord]:
        rows = await self._fetch(
            f"SELECT {_COLUMNS} FROM tables WHERE {where} ORDER BY {order}", *args
        )
        return [_record(row) for row in rows]

    async def get_table(self, table_id: str) -> TableRecord | None:
        rows = await self._tables("id = $1", table_id)
        return rows[0] if rows else None

    async def live_table_in_channel(self, channel_id: int) -> TableRecord | None:
        rows = await self._tables(f"channel_id = $1 AND {_LIVE}", channel_id)
        return rows[0] if rows else None

    async def last_table_in_channel(self, channel_id: int) -> TableRecord | None:
        rows = await self._tables(
            "channel_id = $1", channel_id,
            order=f"({_LIVE}) DESC, updated_at DESC, created_at DESC, id DESC LIMIT 1",
        )
        return rows[0] if rows else None

    async def load_all_active(self) -> list[TableRecord]:
        return await self._tables(_LIVE)

    async def count_live_tables(self, *, guild_id: int | None = None,
                                host_id: int | None = None) -> int:
        where, params = [_LIVE], []
        if guild_id is not None:
            params.append(guild_id)
            where.append(f"guild_id = ${len(params)}")
        if host_id is not None:
            params.append(host_id)
            where.append(f"host_id = ${len(params)}")
        rows = await self._fetch(f"SELECT COUNT(*) FROM tables WHERE {' AND '.join(where)}",
                                 *params)
        return int(rows[0][0])

    async def all_table_ids(self) -> list[str]:
        rows = await self._fetch("SELECT id FROM tables ORDER BY created_at, id")
        return [str(r[0]) for r in rows]

    async def import_table(self, rec: TableRecord, actions: Sequence[ActionRecord],
                           events: Sequence[EventRecord],
                           journal: Sequence[JournalRecord] = ()) -> None:
        values = _row_values(rec)
        journal_rows = [(j.table_id, j.n, j.version, j.data) for j in journal]
        action_rows = [_action_values(a) for a in actions]
        event_rows = [_event_values(e) for e in events]

        async def work(conn: Connection) -> None:
            try:
                await conn.execute(_INSERT_TABLE, *values)
            except asyncpg.UniqueViolationError as exc:
                if exc.constraint_name == "tables_pkey":
                    raise StoreError(f"table {rec.id} already exists") from exc
                raise ChannelTaken(_describe(exc)) from exc
            except asyncpg.IntegrityConstraintViolationError as exc:
                raise ChannelTaken(_describe(exc)) from exc
            if action_rows:
                await conn.executemany(_INSERT_ACTION, action_rows)
            if event_rows:
                await conn.executemany(_INSERT_EVENT, event_rows)
            await self._add_journal(conn, journal_rows)

        await self._write(work)

    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        rows = await self._fetch("SELECT settings FROM guild_settings WHERE guild_id = $1",
                                 guild_id)
        return dict(json.loads(rows[0][0])) if rows else {}

    async def save_guild_settings(self, guild_id: int, settings: dict[str, Any]) -> None:
        await self._execute(
            "INSERT INTO guild_settings (guild_id, settings, updated_at) VALUES ($1, $2, $3)"
            " ON CONFLICT (guild_id) DO UPDATE SET settings = excluded.settings,"
            " updated_at = excluded.updated_at",
            guild_id, json.dumps(settings, sort_keys=True), _aware(self.clock()))

    async def record_result(self, result: ResultRecord) -> bool:
        r = result
        status = await self._execute(
            f"INSERT INTO results ({_RESULT_COLUMNS}) VALUES ({_marks(13)})"
            " ON CONFLICT (table_id) DO NOTHING",
            r.table_id, r.guild_id, r.channel_id, r.game_id, *result_json(r), r.reason,
            bool(r.cooperative), r.moves, _aware(r.started_at), _aware(r.finished_at))
        return _count(status) == 1

    async def results(self, *, guild_id: int | None = None, channel_id: int | None = None,
                      game_id: str | None = None, limit: int | None = None
                      ) -> list[ResultRecord]:
        where, params = ["TRUE"], []
        for column, value in (("guild_id", guild_id), ("channel_id", channel_id),
                              ("game_id", game_id)):
            if value is not None:
                params.append(value)
                where.append(f"{column} = ${len(params)}")
        sql = (f"SELECT {_RESULT_COLUMNS} FROM results WHERE {' AND '.join(where)}"
               " ORDER BY finished_at DESC, table_id DESC")
        if limit is not None and limit >= 0:
            sql += f" LIMIT {int(limit)}"
        rows = await self._fetch(sql, *params)
        return [result_from(*r) for r in rows]

    async def finished_without_result(self, limit: int = 500) -> list[TableRecord]:
        return await self._tables(
            "status = 'finished' AND NOT EXISTS"
            " (SELECT 1 FROM results WHERE results.table_id = tables.id)",
            order=f"updated_at, id LIMIT {int(limit)}")

    async def claim_lease(self, table_id: str, owner: str, seconds: float) -> bool:
        now = _aware(self.clock())
        status = await self._execute(
            "INSERT INTO table_leases (table_id, owner, until) VALUES ($1, $2, $3)"
            " ON CONFLICT (table_id) DO UPDATE SET owner = excluded.owner,"
            " until = excluded.until"
            " WHERE table_leases.owner = excluded.owner OR table_leases.until <= $4",
            table_id, owner, now + timedelta(seconds=seconds), now,
        )
        return _count(status) == 1

    async def release_claims(self, owner_prefix: str) -> int:
        pattern = owner_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        async def work(conn: Connection) -> int:
            a = await conn.execute(
                "UPDATE outbox SET claimed_by = NULL, claimed_until = NULL"
                " WHERE delivered_at IS NULL AND claimed_by LIKE $1", pattern)
            b = await conn.execute("DELETE FROM table_leases WHERE owner LIKE $1", pattern)
            return _count(a) + _count(b)

        return await self._write(work)

    async def unclaimed_ai_turns(self, quiet_seconds: float, limit: int = 100) -> list[str]:
        now = _aware(self.clock())
        rows = await self._fetch(
            "SELECT t.id FROM tables t LEFT JOIN table_leases l ON l.table_id = t.id"
            " WHERE t.status = 'playing' AND t.ai_to_act"
            " AND (l.until <= $1 OR (l.table_id IS NULL AND t.updated_at <= $2))"
            " ORDER BY t.updated_at, t.id LIMIT $3",
            now, now - timedelta(seconds=quiet_seconds), limit)
        return [str(r[0]) for r in rows]

    async def release_lease(self, table_id: str, owner: str) -> None:
        await self._execute("DELETE FROM table_leases WHERE table_id = $1 AND owner = $2",
                            table_id, owner)

    async def journal(self, table_id: str, *, every_row: bool = False
                      ) -> list[JournalRecord]:
        rows = await self._fetch(
            "SELECT table_id, n, version, data FROM journal WHERE table_id = $1"
            " ORDER BY n, version", table_id)
        records = [JournalRecord(table_id=r[0], n=int(r[1]), version=int(r[2]), data=r[3])
                   for r in rows]
        return records if every_row else newest_entries(records)

    async def actions(self, table_id: str) -> list[ActionRecord]:
        rows = await self._fetch(
            "SELECT table_id, version, seat, user_id, action, created_at FROM actions"
            " WHERE table_id = $1 ORDER BY version",
            table_id,
        )
        return [ActionRecord(table_id=r[0], version=r[1], seat=r[2], user_id=r[3],
                             action=r[4], created_at=r[5]) for r in rows]

    async def events(self, table_id: str) -> list[EventRecord]:
        rows = await self._fetch(
            "SELECT table_id, version, idx, data FROM events WHERE table_id = $1"
            " ORDER BY version, idx",
            table_id,
        )
        return [EventRecord(table_id=r[0], version=r[1], idx=r[2], data=r[3]) for r in rows]

    # -- outbox -----------------------------------------------------------------

    async def undelivered_outboxes(self, limit: int = 1000, *, table_id: str | None = None
                                   ) -> list[OutboxRecord]:
        rows = await self._fetch(
            "SELECT id, table_id, version, payload, created_at, delivered_at FROM outbox"
            " WHERE delivered_at IS NULL AND ($2::text IS NULL OR table_id = $2)"
            " ORDER BY id LIMIT $1",
            # SQLite reads a negative LIMIT as none; PostgreSQL refuses it, but takes NULL.
            limit if limit >= 0 else None, table_id,
        )
        return [_outbox(r) for r in rows]

    async def claim_outbox(self, outbox_id: int, owner: str, lease_seconds: float) -> bool:
        now = _aware(self.clock())
        status = await self._execute(
            "UPDATE outbox SET claimed_by = $1, claimed_until = $2"
            " WHERE id = $3 AND delivered_at IS NULL"
            " AND (claimed_until IS NULL OR claimed_until <= $4)",
            owner, now + timedelta(seconds=lease_seconds), outbox_id, now,
        )
        return _count(status) == 1

    async def mark_delivered(
        self,
        outbox_id: int,
        *,
        hands: Sequence[HandMessage] = (),
        turn: TurnMessage | None = None,
    ) -> bool:
        hand_rows = [_hand_values(h) for h in hands]
        turn_row = _turn_values(turn) if turn is not None else None

        async def work(conn: Connection) -> bool:
            status = await conn.execute(
                "UPDATE outbox SET delivered_at = $1 WHERE id = $2 AND delivered_at IS NULL",
                _ts(self.clock()), outbox_id,
            )
            if hand_rows:
                await conn.executemany(_UPSERT_HAND, hand_rows)
            if turn_row is not None:
                await conn.execute(_UPSERT_TURN, *turn_row)
            return _count(status) == 1

        return await self._write(work)

    # -- hand and turn messages, closed DMs -------------------------------------

    async def hand_messages(self, table_id: str) -> list[HandMessage]:
        rows = await self._fetch(
            f"SELECT {_HAND_COLUMNS} FROM hand_messages WHERE table_id = $1 ORDER BY user_id",
            table_id,
        )
        return [_hand(r) for r in rows]

    async def all_hand_messages_showing_choices(self) -> list[HandMessage]:
        rows = await self._fetch(
            f"SELECT {_HAND_COLUMNS} FROM hand_messages WHERE shows_choices"
            " ORDER BY table_id, user_id"
        )
        return [_hand(r) for r in rows]

    async def save_hand_messages(self, hands: Sequence[HandMessage]) -> None:
        rows = [_hand_values(h) for h in hands]
        if rows:
            await self._write(lambda conn: conn.executemany(_UPSERT_HAND, rows))

    async def delete_hand_message(self, table_id: str, user_id: int) -> None:
        await self._execute("DELETE FROM hand_messages WHERE table_id = $1 AND user_id = $2",
                            table_id, user_id)

    async def turn_message(self, table_id: str) -> TurnMessage | None:
        rows = await self._fetch(
            f"SELECT {_TURN_COLUMNS} FROM turn_messages WHERE table_id = $1", table_id
        )
        return _turn(rows[0]) if rows else None

    async def save_turn_message(self, tm: TurnMessage) -> None:
        await self._execute(_UPSERT_TURN, *_turn_values(tm))

    async def dm_closed(self, user_id: int) -> bool:
        rows = await self._fetch("SELECT 1 FROM dm_closed WHERE user_id = $1", user_id)
        return bool(rows)

    async def dm_closed_among(self, user_ids: Sequence[int]) -> set[int]:
        ids = [int(u) for u in dict.fromkeys(user_ids)]
        if not ids:
            return set()
        rows = await self._fetch(
            "SELECT user_id FROM dm_closed WHERE user_id = ANY($1::bigint[])", ids)
        return {int(r[0]) for r in rows}

    async def set_dm_closed(self, user_id: int, closed: bool) -> None:
        if closed:  # the first time it was learnt stays
            await self._execute(
                "INSERT INTO dm_closed (user_id, since) VALUES ($1, $2)"
                " ON CONFLICT (user_id) DO NOTHING",
                user_id, _ts(self.clock()),
            )
        else:
            await self._execute("DELETE FROM dm_closed WHERE user_id = $1", user_id)

    # -- the Activity ---------------------------------------------------------------

    async def save_presence(self, owner: str, present: Sequence[tuple[int, int]]) -> None:
        now = _ts(self.clock())
        rows = [(int(c), int(u), owner, now) for c, u in dict.fromkeys(present)]

        async def work(conn: Connection) -> None:
            await conn.execute("DELETE FROM activity_presence WHERE owner = $1", owner)
            if rows:
                await conn.executemany(
                    "INSERT INTO activity_presence (channel_id, user_id, owner, seen_at)"
                    " VALUES ($1, $2, $3, $4)", rows)

        await self._write(work)

    async def present_in(self, channel_id: int, since: datetime) -> set[int]:
        rows = await self._fetch("SELECT user_id FROM activity_presence"
                                 " WHERE channel_id = $1 AND seen_at >= $2",
                                 channel_id, _ts(since))
        return {int(r[0]) for r in rows}

    async def table_revisions(self, table_ids: Sequence[str]
                              ) -> dict[str, tuple[int, int]]:
        ids = list(dict.fromkeys(table_ids))
        if not ids:
            return {}
        rows = await self._fetch("SELECT id, version, revision FROM tables"
                                 " WHERE id = ANY($1::text[])", ids)
        return {str(r[0]): (int(r[1]), int(r[2])) for r in rows}
