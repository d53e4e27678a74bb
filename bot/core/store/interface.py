"""The :class:`Store` interface and the plain records it reads and writes (every
backend implements it with the same semantics: :mod:`.sqlite`, :mod:`.postgres`)."""

from __future__ import annotations

import abc
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

__all__ = [
    "ActionRecord",
    "ChannelTaken",
    "EventRecord",
    "HandMessage",
    "OutboxRecord",
    "ResultRecord",
    "Store",
    "StoreError",
    "StoreUnwritable",
    "TableRecord",
    "TurnMessage",
    "VersionConflict",
    "utcnow",
]


def utcnow() -> datetime:
    return datetime.now(UTC)


class StoreError(Exception):
    """Base of store errors (not user-facing: the service translates them)."""


class StoreUnwritable(StoreError):
    """The database cannot be written now (its disk is full, it is read-only, an I/O
    error): nothing was written. ``reason`` says which, in words for an operator; the
    store has logged the change of state once (:mod:`bot.core.store.health`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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
    settings: dict[str, Any] = field(default_factory=dict)
    """Table settings that are not game rules (JSON-able), e.g. ``interrupt_timeout``."""
    revision: int = 0
    """How many times the row has been written. ``version`` counts moves only; a lobby
    change, a handover, an abort or a reminder moves ``revision`` alone. Every write
    names the revision it was based on (``rec.revision`` is that plus one), so of two
    writers that read the same row exactly one succeeds, whatever they change."""
    ai_to_act: bool = False
    """An AI seat is to act in the row's ``state`` (its writer sets it on every write),
    so any process finds the AI turns nobody is playing without reading a state
    (:meth:`Store.unclaimed_ai_turns`)."""


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


@dataclass(frozen=True)
class JournalRecord:
    """One entry of a table's append-only journal (Winter Tales: a line of the story).

    The journal lives beside the state, not inside it: a commit adds only the entries its
    move appended or replaced, so a long story is never rewritten. Rows are only ever
    inserted; an entry the game replaced later (a passage retold, hidden, struck) is a
    new row of the same ``n`` at the version that replaced it, and the newest row of each
    ``n`` is the entry. ``version`` is the table version that wrote it (0: the set-up)."""

    table_id: str
    n: int
    version: int
    data: str
    """The entry as JSON (the game's own dump)."""


def newest_entries(rows: Sequence[JournalRecord]) -> list[JournalRecord]:
    """Of rows ordered by ``(n, version)``, the newest row of each ``n``, by ``n``.

    >>> rows = [JournalRecord("t", 0, 0, "a"), JournalRecord("t", 0, 3, "a2"),
    ...         JournalRecord("t", 1, 2, "b")]
    >>> [r.data for r in newest_entries(rows)]
    ['a2', 'b']
    """
    newest: dict[int, JournalRecord] = {}
    for row in rows:
        newest[row.n] = row
    return [newest[n] for n in sorted(newest)]


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _iso(value: datetime | None) -> str:
    return value.isoformat(timespec="seconds") if value is not None else "-"


@dataclass(frozen=True, repr=False)
class OutboxRecord:
    """A change still to be told to Discord (``payload`` is JSON, owned by the caller);
    ``version`` is the table version it was written with."""

    id: int
    table_id: str
    version: int
    payload: str
    created_at: datetime
    delivered_at: datetime | None = None

    def __repr__(self) -> str:
        state = f"delivered {_iso(self.delivered_at)}" if self.delivered_at else "undelivered"
        return (
            f"OutboxRecord(#{self.id} table={self.table_id} v{self.version} {state}"
            f" created {_iso(self.created_at)} payload={_clip(self.payload)!r})"
        )


@dataclass(frozen=True)
class HandMessage:
    """The DM message showing ``user_id`` their hand at ``table_id``."""

    table_id: str
    user_id: int
    channel_id: int
    message_id: int
    signature: str
    """What the message shows (its text and buttons), to skip edits that change nothing."""
    image_sig: str
    """What its picture shows."""
    shows_choices: bool
    """The message has buttons to act on (so it must be looked at after a restart)."""


@dataclass(frozen=True, repr=False)
class TurnMessage:
    """The current public turn message of a table."""

    table_id: str
    channel_id: int
    message_id: int
    version: int
    """The table version it shows."""
    pinged: tuple[int, ...]
    """The people asked to act who have not answered since: the turn message (or an
    earlier one) mentioned them, so a new turn message does not ping them again."""
    lines: tuple[str, ...]
    has_buttons: bool
    board_key: str | None
    """What its board picture shows, if it has one."""

    def __post_init__(self) -> None:  # lists in, tuples stored (equality, hashing)
        object.__setattr__(self, "pinged", tuple(self.pinged))
        object.__setattr__(self, "lines", tuple(self.lines))

    def __repr__(self) -> str:
        return (
            f"TurnMessage(table={self.table_id} v{self.version}"
            f" message={self.channel_id}/{self.message_id} pinged={list(self.pinged)}"
            f" lines={len(self.lines)} buttons={'yes' if self.has_buttons else 'no'}"
            f" board={self.board_key!r})"
        )


@dataclass(frozen=True)
class ResultRecord:
    """A finished game, as history and ratings read it. ``seats`` are the seats at the
    end (``index``, ``name``, ``user_id``, ``ai_level``), ``winners`` seat indexes,
    ``scores`` by seat index; ``cooperative``: the seats played as one team."""

    table_id: str
    guild_id: int | None
    channel_id: int
    game_id: str
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    winners: list[int]
    scores: dict[int, float]
    reason: str | None
    cooperative: bool
    moves: int
    started_at: datetime
    finished_at: datetime


def result_json(r: ResultRecord) -> tuple[str, str, str, str]:
    """The JSON columns of a result row (options, seats, winners, scores), the same in
    every store."""
    return (json.dumps(r.options, sort_keys=True), json.dumps(r.seats),
            json.dumps(list(r.winners)),
            json.dumps({str(k): v for k, v in sorted(r.scores.items())}))


def result_from(table_id: str, guild_id: int | None, channel_id: int, game_id: str,
                options: str, seats: str, winners: str, scores: str, reason: str | None,
                cooperative: Any, moves: int, started_at: datetime,
                finished_at: datetime) -> ResultRecord:
    """A result row read back (times already converted by the store)."""
    return ResultRecord(
        table_id=table_id, guild_id=guild_id, channel_id=channel_id, game_id=game_id,
        options=json.loads(options), seats=json.loads(seats), winners=json.loads(winners),
        scores={int(k): v for k, v in json.loads(scores).items()}, reason=reason,
        cooperative=bool(cooperative), moves=int(moves), started_at=started_at,
        finished_at=finished_at)


RESULT_COLUMNS = ("table_id, guild_id, channel_id, game_id, options, seats, winners, "
                  "scores, reason, cooperative, moves, started_at, finished_at")


class Store(abc.ABC):
    """The persistence interface of the table service."""

    @abc.abstractmethod
    async def open(self) -> None:
        """Connect and create or migrate the schema."""

    @abc.abstractmethod
    async def close(self) -> None: ...

    @abc.abstractmethod
    async def applied_migrations(self) -> list[int]:
        """The versions of the migrations recorded in the database, ascending."""

    @abc.abstractmethod
    async def create_table(self, rec: TableRecord) -> None:
        """Insert a new table; raises :class:`ChannelTaken` if its channel has a live one."""

    @abc.abstractmethod
    async def save_table(
        self,
        rec: TableRecord,
        expected_version: int | None = None,
        *,
        outbox: str | None = None,
        journal: Sequence[tuple[int, str]] = (),
    ) -> int | None:
        """Overwrite a table row (lobby changes, start, abort, reminders), only if the
        stored revision is ``rec.revision - 1`` and, with ``expected_version``, the
        stored version matches; else :class:`VersionConflict` and nothing is written.
        With ``outbox`` (a JSON payload) an outbox row (version ``rec.version``) is
        written in the same transaction and its id returned; ``journal`` entries
        ``(n, JSON)`` are appended at version ``rec.version`` in it too."""

    @abc.abstractmethod
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
        """Atomically: the table row (with ``rec.version == expected_version + 1``), the
        action, its events, the ``journal`` entries ``(n, JSON)`` the move appended or
        replaced and, with ``outbox``, an outbox row (whose id is returned).
        Raises :class:`VersionConflict` (and writes nothing) if the stored version is
        not ``expected_version`` or the stored revision not ``rec.revision - 1``; the
        action log's key ``(table_id, version)`` refuses a second commit of a version
        in the database itself."""

    @abc.abstractmethod
    async def get_table(self, table_id: str) -> TableRecord | None: ...

    @abc.abstractmethod
    async def live_table_in_channel(self, channel_id: int) -> TableRecord | None: ...

    @abc.abstractmethod
    async def last_table_in_channel(self, channel_id: int) -> TableRecord | None:
        """The newest table of a channel whatever its status: the live one if any, else
        the most recently updated."""

    @abc.abstractmethod
    async def load_all_active(self) -> list[TableRecord]:
        """Every lobby and playing table (for resuming after a restart)."""

    @abc.abstractmethod
    async def count_live_tables(self, *, guild_id: int | None = None,
                                host_id: int | None = None) -> int:
        """How many lobby or playing tables match: of a guild, of a host, or (both
        given) of that host in that guild (the limits on open tables)."""

    @abc.abstractmethod
    async def all_table_ids(self) -> list[str]:
        """Every table's id, whatever its status, oldest first (export, checks)."""

    @abc.abstractmethod
    async def import_table(self, rec: TableRecord, actions: Sequence[ActionRecord],
                           events: Sequence[EventRecord],
                           journal: Sequence[JournalRecord] = ()) -> None:
        """Write a table exactly as given (its revision included) with its action and
        event logs and every row of its journal, in one transaction; :class:`ChannelTaken`
        or :class:`StoreError` if it clashes with what is stored (a table of that id
        already exists)."""

    # -- servers and results -------------------------------------------------

    @abc.abstractmethod
    async def guild_settings(self, guild_id: int) -> dict[str, Any]:
        """A server's own settings (empty if it never chose any)."""

    @abc.abstractmethod
    async def save_guild_settings(self, guild_id: int, settings: dict[str, Any]) -> None:
        """Replace a server's settings."""

    @abc.abstractmethod
    async def record_result(self, result: ResultRecord) -> bool:
        """Record a finished game once (a second record of the same table is ignored);
        true if this call recorded it."""

    @abc.abstractmethod
    async def results(self, *, guild_id: int | None = None, channel_id: int | None = None,
                      game_id: str | None = None, limit: int | None = None
                      ) -> list[ResultRecord]:
        """Finished games matching every filter given, newest first (``limit``: at most
        that many)."""

    @abc.abstractmethod
    async def finished_without_result(self, limit: int = 500) -> list[TableRecord]:
        """Finished tables whose result is not recorded yet (a crash between the last
        move and its record), oldest first."""

    # -- who runs a table's background work ----------------------------------

    @abc.abstractmethod
    async def claim_lease(self, table_id: str, owner: str, seconds: float) -> bool:
        """Take or renew the right to run ``table_id``'s background work (AI turns)
        for ``seconds``: true if it was free, expired or already ``owner``'s (one
        conditional write: of two claimers exactly one wins)."""

    @abc.abstractmethod
    async def release_claims(self, owner_prefix: str) -> int:
        """Free every outbox claim and table lease whose owner starts with
        ``owner_prefix``: at start, a process takes back what its previous run (killed,
        its claims still running) held, instead of waiting for them to expire. Returns
        how many were freed."""

    @abc.abstractmethod
    async def unclaimed_ai_turns(self, quiet_seconds: float, limit: int = 100) -> list[str]:
        """The ids of playing tables whose AI is to act (``ai_to_act``) and which nobody
        plays: their lease has expired, or there is none and the row has not been
        written for ``quiet_seconds`` (its writer, if alive, would have claimed one by
        then). Oldest write first, at most ``limit``. Shard-independent: it is every
        process's way to the AI turns a dead process left, loaded there or not."""

    @abc.abstractmethod
    async def release_lease(self, table_id: str, owner: str) -> None:
        """Give the lease back if ``owner`` holds it (so another process may take the
        table's next AI turn at once)."""

    @abc.abstractmethod
    async def journal(self, table_id: str, *, every_row: bool = False
                      ) -> list[JournalRecord]:
        """The table's journal: the newest row of each entry, by ``n`` (every row ever
        written, by ``(n, version)``, with ``every_row``: what an export copies)."""

    @abc.abstractmethod
    async def actions(self, table_id: str) -> list[ActionRecord]:
        """The action log of a table, in version order."""

    @abc.abstractmethod
    async def events(self, table_id: str) -> list[EventRecord]:
        """The event log of a table, in (version, idx) order."""

    # -- outbox ---------------------------------------------------------------

    @abc.abstractmethod
    async def undelivered_outboxes(self, limit: int = 1000, *, table_id: str | None = None
                                   ) -> list[OutboxRecord]:
        """Outbox rows not yet delivered, oldest (lowest id) first; of one table only
        with ``table_id``."""

    @abc.abstractmethod
    async def claim_outbox(self, outbox_id: int, owner: str, lease_seconds: float) -> bool:
        """Take the delivery of an undelivered outbox row for ``lease_seconds``: true only
        if it was unclaimed or its lease had expired (one conditional write, so of two
        claimers exactly one wins)."""

    @abc.abstractmethod
    async def mark_delivered(
        self,
        outbox_id: int,
        *,
        hands: Sequence[HandMessage] = (),
        turn: TurnMessage | None = None,
    ) -> bool:
        """In one transaction: mark the row delivered if it is not yet, and upsert the
        hand and turn messages the delivery posted. Returns whether *this* call marked
        it (false: it was already delivered, or does not exist)."""

    # -- messages and DMs -----------------------------------------------------

    @abc.abstractmethod
    async def hand_messages(self, table_id: str) -> list[HandMessage]:
        """The hand messages of a table, by user id."""

    @abc.abstractmethod
    async def all_hand_messages_showing_choices(self) -> list[HandMessage]:
        """Every hand message with buttons (to look at after a restart)."""

    @abc.abstractmethod
    async def save_hand_messages(self, hands: Sequence[HandMessage]) -> None:
        """Insert or replace hand messages (by table and user), in one transaction."""

    @abc.abstractmethod
    async def delete_hand_message(self, table_id: str, user_id: int) -> None: ...

    @abc.abstractmethod
    async def turn_message(self, table_id: str) -> TurnMessage | None: ...

    @abc.abstractmethod
    async def save_turn_message(self, tm: TurnMessage) -> None:
        """Insert or replace the turn message of ``tm.table_id``."""

    @abc.abstractmethod
    async def dm_closed(self, user_id: int) -> bool:
        """Whether the user's DMs are known to be closed."""

    @abc.abstractmethod
    async def dm_closed_among(self, user_ids: Sequence[int]) -> set[int]:
        """Which of these users' DMs are known to be closed (one read for a table)."""

    @abc.abstractmethod
    async def set_dm_closed(self, user_id: int, closed: bool) -> None: ...

    # -- the Activity ---------------------------------------------------------------

    @abc.abstractmethod
    async def save_presence(self, owner: str, present: Sequence[tuple[int, int]]) -> None:
        """In one transaction: the ``(channel_id, user_id)`` pairs that have the Activity
        open in the process ``owner`` become exactly ``present``, stamped now (its other
        rows go)."""

    @abc.abstractmethod
    async def present_in(self, channel_id: int, since: datetime) -> set[int]:
        """The users any process has said, at ``since`` or later, have the channel's
        Activity open."""

    @abc.abstractmethod
    async def table_revisions(self, table_ids: Sequence[str]
                              ) -> dict[str, tuple[int, int]]:
        """``(version, revision)`` of each of these tables that exists, as stored (one
        read for all): the revision grows with every write of the row, a lobby change
        included."""
