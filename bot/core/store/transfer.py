"""Copy every table from one store to another (SQLite to PostgreSQL and back).

:func:`copy_store` moves, through the :class:`~bot.core.store.Store` interface alone, so any
pair of stores works: every table whatever its status, exactly as stored (its revision,
times and settings included), with its action and event logs (one
:meth:`~bot.core.store.Store.import_table` transaction per table), plus what keeps live
tables working on Discord after the move: the hand messages and the turn message of
each table (the bot edits those, and their buttons, instead of posting new ones) and
the closed-DM marks. :func:`compare_stores` then checks the copy row by row; the
``fabletop export-db``/``import-db`` commands also replay every copied table
(:func:`bot.core.tables.audit.audit_store`).

Two refusals keep a copy simple and safe:

* the target must hold no table: merging two databases could clash on table ids and on
  the one live table per channel, and a half-merged database is worse than none;
* the source must have no undelivered outbox row (news committed but not yet posted
  to Discord: the bot posts it at its next start). The interface cannot write such a
  row back without changing its table, and the outbox ids, which the delivery marks by,
  are the store's own; so start the bot once on the source to deliver them, or pass
  ``drop_undelivered=True`` to leave that news behind (the tables themselves are whole
  either way: the outbox holds only announcements).

What is not copied: table leases (who runs a table's AI turns; a new process claims
them) and delivered outbox rows (history the bot never reads again). The applied
migrations are the target's own (it is migrated when opened).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from bot.core.store.interface import (
    ActionRecord,
    EventRecord,
    HandMessage,
    JournalRecord,
    Store,
    StoreError,
    TableRecord,
    TurnMessage,
)

__all__ = ["CopyReport", "TransferError", "compare_stores", "copy_store", "redact_password"]

_READ_ATTEMPTS = 5
_USERS_PER_READ = 500  # one IN (...) list stays far below any driver's parameter limit


def redact_password(target: str) -> str:
    """A database URL without its password (in the user part or the query), to show,
    log or print; anything else as is.

    >>> redact_password("postgresql://bot:secret@db:5432/fabletop?sslmode=require")
    'postgresql://bot@db:5432/fabletop?sslmode=require'
    >>> redact_password("postgresql://bot@db/fabletop?password=secret&sslmode=require")
    'postgresql://bot@db/fabletop?sslmode=require'
    >>> redact_password("backups/fabletop.db")
    'backups/fabletop.db'
    """
    if "://" not in target:
        return target
    parts = urlsplit(target)
    if parts.password is not None:
        host = parts.hostname or ""
        if ":" in host:  # an IPv6 address goes back in brackets
            host = f"[{host}]"
        port = f":{parts.port}" if parts.port else ""
        parts = parts._replace(netloc=f"{parts.username or ''}@{host}{port}")
    query = parse_qsl(parts.query, keep_blank_values=True)
    if any(key == "password" for key, _ in query):
        parts = parts._replace(query=urlencode([(k, v) for k, v in query if k != "password"]))
    return urlunsplit(parts)


class TransferError(StoreError):
    """A copy refused or abandoned; the message is one line meant for the operator."""


@dataclass
class CopyReport:
    """What :func:`copy_store` wrote to the target."""

    tables: int = 0
    actions: int = 0
    events: int = 0
    journal: int = 0
    hand_messages: int = 0
    turn_messages: int = 0
    dm_closed: int = 0
    results: int = 0
    guild_settings: int = 0
    dropped_outboxes: int = 0

    def summary(self) -> str:
        text = (f"{self.tables} table(s), {self.actions} action(s), {self.events} event(s),"
                f" {self.journal} journal row(s), {self.hand_messages} hand message(s),"
                f" {self.turn_messages} turn message(s), {self.dm_closed} closed-DM mark(s),"
                f" {self.results} game result(s), {self.guild_settings} server setting(s)")
        if self.dropped_outboxes:
            text += f"; {self.dropped_outboxes} undelivered announcement(s) left behind"
        return text


@dataclass(frozen=True)
class _Snapshot:
    rec: TableRecord
    actions: list[ActionRecord]
    events: list[EventRecord]
    hands: list[HandMessage]
    turn: TurnMessage | None
    journal: list[JournalRecord]


async def _read_table(source: Store, table_id: str) -> _Snapshot | None:
    """One table with its logs and messages, as of one revision: the logs are read
    between two reads of the row, and read again if the row moved meanwhile (a bot
    still running on the source), so a table is never copied with a log that belongs
    to another version of it."""
    for _ in range(_READ_ATTEMPTS):
        rec = await source.get_table(table_id)
        if rec is None:
            return None
        snap = _Snapshot(rec, await source.actions(table_id), await source.events(table_id),
                         await source.hand_messages(table_id),
                         await source.turn_message(table_id),
                         await source.journal(table_id, every_row=True))
        again = await source.get_table(table_id)
        if again is not None and again.revision == rec.revision:
            return snap
    raise TransferError(f"table {table_id} kept changing while it was copied: stop the bot"
                        " on the source database, then copy again")


def _user_ids(rec: TableRecord, hands: list[HandMessage]) -> set[int]:
    """Everyone the bot may have tried to DM about a table: its host, its seated
    people, and whoever has a hand message there."""
    ids = {int(rec.host_id)}
    ids.update(int(s["user_id"]) for s in rec.seats if s.get("user_id") is not None)
    ids.update(h.user_id for h in hands)
    return ids


async def copy_store(
    source: Store,
    target: Store,
    *,
    progress: Callable[[int, int, str], None] | None = None,
    drop_undelivered: bool = False,
) -> CopyReport:
    """Copy everything of the open ``source`` into the open, empty ``target``.

    ``progress(done, total, table_id)`` is called after each table. Raises
    :class:`TransferError` (and writes nothing) if the target has tables or the source
    has undelivered outbox rows (unless ``drop_undelivered``). Each table is one
    transaction on the target: a copy that fails half way leaves whole tables only, and
    the target must be emptied (or replaced) before the next try.

    Closed-DM marks: the interface reads them per user only, so the marks copied are
    those of every user the tables name (host, seats, hand messages), which are the
    users the bot ever DMs; each keeps its mark but not the time it was learnt.
    """
    existing = await target.all_table_ids()
    if existing:
        raise TransferError(
            f"the target already holds {len(existing)} table(s): copy into an empty"
            " database (a new SQLite file, or a new PostgreSQL database)")
    undelivered = await source.undelivered_outboxes()
    if undelivered and not drop_undelivered:
        tables = sorted({o.table_id for o in undelivered})
        raise TransferError(
            f"the source has {len(undelivered)} announcement(s) not yet delivered to"
            f" Discord (table(s) {', '.join(tables[:5])}{' ...' if len(tables) > 5 else ''}):"
            " start the bot on it once so it posts them, stop it, and copy again"
            " (or pass --drop-undelivered to leave them behind)")

    report = CopyReport(dropped_outboxes=len(undelivered))
    users: set[int] = set()
    guilds: set[int] = set()
    ids = await source.all_table_ids()
    for done, table_id in enumerate(ids, start=1):
        snap = await _read_table(source, table_id)
        if snap is None:  # deleted since the listing: nothing to copy
            continue
        await target.import_table(snap.rec, snap.actions, snap.events, snap.journal)
        if snap.hands:
            await target.save_hand_messages(snap.hands)
        if snap.turn is not None:
            await target.save_turn_message(snap.turn)
        report.tables += 1
        report.actions += len(snap.actions)
        report.events += len(snap.events)
        report.journal += len(snap.journal)
        report.hand_messages += len(snap.hands)
        report.turn_messages += snap.turn is not None
        users |= _user_ids(snap.rec, snap.hands)
        if snap.rec.guild_id is not None:
            guilds.add(snap.rec.guild_id)
        if progress is not None:
            progress(done, len(ids), table_id)

    ordered = sorted(users)
    for start in range(0, len(ordered), _USERS_PER_READ):
        chunk = ordered[start:start + _USERS_PER_READ]
        for user_id in sorted(await source.dm_closed_among(chunk)):
            await target.set_dm_closed(user_id, True)
            report.dm_closed += 1
    # The history (after every table: a result belongs to its table) and the servers'
    # own settings.
    for result in reversed(await source.results()):
        report.results += await target.record_result(result)
    for guild_id in sorted(guilds):
        settings = await source.guild_settings(guild_id)
        if settings:
            await target.save_guild_settings(guild_id, settings)
            report.guild_settings += 1
    return report


async def compare_stores(source: Store, target: Store, *, limit: int = 20) -> list[str]:
    """The differences between two stores' tables, logs and messages (at most
    ``limit``, one short line each); empty when the target is a faithful copy."""
    problems: list[str] = []

    def note(text: str) -> bool:
        problems.append(text)
        return len(problems) >= limit

    source_ids, target_ids = await source.all_table_ids(), await target.all_table_ids()
    if sorted(source_ids) != sorted(target_ids):
        missing = sorted(set(source_ids) - set(target_ids))
        extra = sorted(set(target_ids) - set(source_ids))
        if note(f"table ids differ: {len(missing)} missing, {len(extra)} extra"):
            return problems
    for table_id in sorted(set(source_ids) & set(target_ids)):
        pairs = [
            ("row", await source.get_table(table_id), await target.get_table(table_id)),
            ("action log", await source.actions(table_id), await target.actions(table_id)),
            ("event log", await source.events(table_id), await target.events(table_id)),
            ("journal", await source.journal(table_id, every_row=True),
             await target.journal(table_id, every_row=True)),
            ("hand messages", await source.hand_messages(table_id),
             await target.hand_messages(table_id)),
            ("turn message", await source.turn_message(table_id),
             await target.turn_message(table_id)),
        ]
        for what, a, b in pairs:
            if a != b and note(f"table {table_id}: the {what} differs"):
                return problems
    return problems
