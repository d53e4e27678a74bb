"""The lobby: opening a table, seats, starting, closing, and reading a table's status."""

from __future__ import annotations

import math
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from pydantic import ValidationError

from bot.core.store import ChannelTaken, StoreUnwritable, TableRecord
from bot.core.tables.errors import (
    AlreadyHasTable,
    AlreadySeated,
    BadOptions,
    BadSeat,
    ConcurrentChange,
    NoTable,
    NotEnoughPlayers,
    NotHost,
    NotInLobby,
    NotPlaying,
    NotSeated,
    StorageUnavailable,
    TableError,
    TableFull,
    UnknownAILevel,
)
from bot.core.tables.live import ServiceBase, Table, check_id, clean_name, options_error, seat_dict
from bot.core.tables.models import ChannelOrTable, Outbox, PublicUpdate, TableInfo, TableStatus
from bot.core.tables.texts import quote
from engines.catalog import spec
from engines.core import GameError, Rng

__all__ = ["LOBBY_ATTEMPTS", "LobbyPart", "TablePlace", "TooManyTables", "no_such_seat"]

SEATING_SALT = 0x5EA7_1B6_5EED
MASK63 = (1 << 63) - 1
MAX_REMINDER_MINUTES = 7 * 24 * 60.0
MAX_INTERRUPT_TIMEOUT = 24 * 3600.0
MAX_NAMED_CHANNELS = 10
"""A refusal for too many open tables names at most this many of their channels."""
LOBBY_ATTEMPTS = 4
"""Tries of a join, a leave or an AI seat that keeps losing races on the table's revision
to other processes' lobby changes (each try reads the row again): a lobby filled in a
burst through several processes settles in a few; past this, the person is told."""


class TooManyTables(TableError):
    """A new table would pass the limit of open tables of its host or of its server."""


@dataclass(frozen=True)
class TablePlace:
    """Where a table lives and what it plays: what a click is checked against before
    anything else (the channel never changes in a table's life)."""

    game_id: str
    channel_id: int


def no_such_seat(index: object, seats: int) -> str:
    """A refusal that counts seats as players see them (from 1); ``index`` is 0-based."""
    shown = index + 1 if isinstance(index, int) and not isinstance(index, bool) else index
    if seats == 1:
        return f"There is no seat {shown}; this table has only seat 1."
    return f"There is no seat {shown}; seats are numbered 1 to {seats}."


class LobbyPart(ServiceBase):
    """Lobby operations of :class:`bot.core.tables.TableService`."""

    max_tables_per_member: int = 0
    """Open (lobby or playing) tables one member may host in one server; 0 = no limit.
    The bare service (the console, tests, benches) has none; the bot sets both limits
    from its settings (``MAX_TABLES_PER_MEMBER``, ``MAX_TABLES_PER_GUILD``)."""
    max_tables_per_guild: int = 0
    """Open tables one server may have at once; 0 = no limit."""

    def _check_reminder(self, minutes: float | None) -> float:
        if minutes is None:
            return self.default_reminder_minutes
        try:
            value = float(minutes)
        except (TypeError, ValueError) as exc:
            raise BadOptions("The reminder time must be a number of minutes.") from exc
        if not math.isfinite(value) or not 0 <= value <= MAX_REMINDER_MINUTES:
            raise BadOptions(
                "The reminder time must be between 0 (never) and "
                f"{int(MAX_REMINDER_MINUTES)} minutes."
            )
        return value

    async def create(
        self,
        channel_id: int,
        guild_id: int | None,
        host_id: int,
        host_name: str,
        game_id: str,
        options: dict[str, Any] | None = None,
        *,
        reminder_minutes: float | None = None,
        seed: int | None = None,
    ) -> TableInfo:
        """Open a lobby in ``channel_id`` with the host seated. Raises UnknownGame,
        BadOptions, AlreadyHasTable. ``seed`` (random if omitted) drives the seating
        shuffle and the game; it is recorded in the table."""
        check_id(channel_id, "channel")
        check_id(host_id, "user")
        if guild_id is not None:
            check_id(guild_id, "server")
        game = self._game(game_id)
        engine_options, settings = self.split_settings(game_id, options)
        parsed_options = self.check_options(game_id, engine_options)
        minutes = self._check_reminder(reminder_minutes)
        if seed is None:
            seed = secrets.randbits(63)
        elif isinstance(seed, bool) or not isinstance(seed, int):
            raise BadOptions("The seed must be a whole number.")
        seed &= MASK63
        now = self.clock()
        async with self._create_lock:
            if channel_id in self._by_channel:
                raise AlreadyHasTable()
            # Under the lock that orders this process's openings, so two quick /table new
            # of one member cannot both pass the count (a server's tables are all opened
            # by the process of its shard).
            await self._check_limits(guild_id, host_id)
            table_id = await self._new_table_id()
            rec = TableRecord(
                id=table_id,
                channel_id=channel_id,
                guild_id=guild_id,
                game_id=game.id,
                options=parsed_options,
                seed=seed,
                status=TableStatus.LOBBY.value,
                host_id=host_id,
                seats=[seat_dict(0, clean_name(host_name, f"Player {host_id}"), host_id, None)],
                reminder_minutes=minutes,
                created_at=now,
                updated_at=now,
                settings=settings,
            )
            try:
                await self.store.create_table(rec)
            except ChannelTaken as exc:
                raise AlreadyHasTable() from exc
            except StoreUnwritable as exc:
                raise StorageUnavailable() from exc
            t = Table(rec=rec, game=game)
            self._live[table_id] = t
            self._by_channel[channel_id] = table_id
            if self._watchers:
                self._tell_watchers(Outbox(table=self._info(t)))
        return self._info(t)

    async def _check_limits(self, guild_id: int | None, host_id: int) -> None:
        """Refuse a table past the host's or the server's limit of open tables (counted
        in the store: other processes' tables count too). A table in a DM has no server:
        only the host's own limit applies, counting every table they host."""
        per_member, per_guild = self.max_tables_per_member, self.max_tables_per_guild
        if per_member > 0:
            hosted = await self.store.count_live_tables(guild_id=guild_id, host_id=host_id)
            if hosted >= per_member:
                where = " in this server" if guild_id is not None else ""
                raise TooManyTables(
                    f"You already host {hosted} open table{'s' if hosted != 1 else ''}{where}"
                    f"{self._channels_of(guild_id, host_id)}: finish or abort one first.")
        if per_guild > 0 and guild_id is not None:
            open_here = await self.store.count_live_tables(guild_id=guild_id)
            if open_here >= per_guild:
                raise TooManyTables(
                    f"This server already has {open_here} open tables, the most it may have "
                    "at once: finish or abort one before opening another.")

    def _channels_of(self, guild_id: int | None, host_id: int) -> str:
        """`` (<#a>, <#b>)``: the channels of the host's open tables this process knows
        (the count comes from the store; a table another process made may be missing)."""
        channels = sorted(t.rec.channel_id for t in self._live.values()
                          if t.rec.host_id == host_id and t.status.live
                          and (guild_id is None or t.rec.guild_id == guild_id))
        if not channels:
            return ""
        shown = ", ".join(f"<#{c}>" for c in channels[:MAX_NAMED_CHANNELS])
        more = len(channels) - MAX_NAMED_CHANNELS
        return f" ({shown}{f' and {more} more' if more > 0 else ''})"

    async def place_of(self, table_id: str) -> TablePlace | None:
        """The game and the channel of a table (from the cache; else one read), ``None``
        if there is no such table. A click asks this first, instead of the game alone,
        so checking where it came from costs nothing more."""
        t = self._live.get(table_id)
        if t is None:
            try:
                t, _ = await self._resolve(table_id)
            except NoTable:
                return None
        return TablePlace(t.rec.game_id, t.rec.channel_id)

    async def _new_table_id(self) -> str:
        while True:
            table_id = secrets.token_hex(4)
            if table_id not in self._live and await self.store.get_table(table_id) is None:
                return table_id

    def _require_lobby(self, t: Table) -> None:
        if t.status is TableStatus.LOBBY:
            return
        if t.status is TableStatus.PLAYING:
            raise NotInLobby(
                "The game at this table has already started. The host can hand a seat "
                "to someone with /table handover."
            )
        raise NotInLobby("This table is closed.")

    def _require_host(self, t: Table, user_id: int, can_manage: bool = False,
                      what: str = "do that") -> None:
        if user_id == t.rec.host_id or can_manage:
            return
        host = t.seat_of(t.rec.host_id)
        who = f"the host ({host.name})" if host else "the host"
        extra = " or a member with Manage Channels" if what in ("abort", "replace") else ""
        verb = {"abort": "close this table", "replace": "hand a seat to someone else"}.get(
            what, what
        )
        raise NotHost(f"Only {who}{extra} can {verb}.")

    async def _seat_change(
        self, channel_id: int, change: Callable[[Table], Awaitable[TableInfo]]
    ) -> TableInfo:
        """Run ``change`` on the table in ``channel_id`` under its lock; when its write
        loses a race to another process's lobby change (:class:`ConcurrentChange`), run it
        again on the row as it now is, where it checks everything again: a seat change
        asked for at the same moment as another is done if it still applies (a join and
        a join both get a seat), refused for what the table now is if not (full, already
        seated). Only changes that mean the same on any revision come here: a join, a
        leave, an AI seat; never a move, never a seat named by its index."""
        for attempt in range(1, LOBBY_ATTEMPTS + 1):
            try:
                async with self._locked(channel_id) as t:
                    return await change(t)
            except ConcurrentChange:
                if attempt == LOBBY_ATTEMPTS:
                    raise
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def join(self, channel_id: int, user_id: int, name: str) -> TableInfo:
        """Take a seat in the lobby. Raises NoTable, NotInLobby, AlreadySeated, TableFull."""
        check_id(user_id, "user")

        async def take_seat(t: Table) -> TableInfo:
            self._require_lobby(t)
            if t.seat_of(user_id) is not None:
                raise AlreadySeated("You already have a seat at this table.")
            if len(t.rec.seats) >= t.game.max_players:
                raise TableFull(
                    f"This table is full ({len(t.rec.seats)} of {t.game.max_players} seats "
                    "taken)."
                )
            rec = self._copy_rec(t)
            rec.seats.append(
                seat_dict(len(rec.seats), clean_name(name, f"Player {user_id}"), user_id, None)
            )
            await self._save(t, rec)
            return self._info(t)

        return await self._seat_change(channel_id, take_seat)

    @staticmethod
    def _reindex(seats: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{**s, "index": i} for i, s in enumerate(seats)]

    async def leave(self, channel_id: int, user_id: int) -> TableInfo:
        """Leave the lobby. If the host leaves, the host role passes to the
        longest-seated remaining human; with no human left the lobby is closed
        (the returned info has status ``aborted``). Raises NoTable, NotInLobby, NotSeated."""

        async def give_up_seat(t: Table) -> TableInfo:
            self._require_lobby(t)
            if t.seat_of(user_id) is None:
                raise NotSeated("You do not have a seat at this table.")
            rec = self._copy_rec(t)
            rec.seats = self._reindex([s for s in rec.seats if s["user_id"] != user_id])
            if user_id == rec.host_id:
                humans = [s for s in rec.seats if s["user_id"] is not None]
                if humans:
                    rec.host_id = humans[0]["user_id"]
                else:
                    rec.status = TableStatus.ABORTED.value
            await self._save(t, rec)
            return self._info(t)

        return await self._seat_change(channel_id, give_up_seat)

    def split_settings(self, game_id: str, options: dict[str, Any] | None
                       ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """Take the table settings that are not rules out of the options typed at
        ``/table new``: ``interrupt_timeout`` (seconds, 0 = wait for ever) for a game
        that declares one. Raises BadOptions."""
        default = spec(game_id).interrupt_timeout
        if options is None or not isinstance(options, dict) or default is None:
            return options, ({"interrupt_timeout": default} if default is not None else {})
        rest = dict(options)
        raw = rest.pop("interrupt_timeout", rest.pop("timeout", default))
        try:
            seconds = float(raw)
        except (TypeError, ValueError) as exc:
            raise BadOptions("interrupt_timeout must be a number of seconds (0 = never).") \
                from exc
        if not math.isfinite(seconds) or not 0 <= seconds <= MAX_INTERRUPT_TIMEOUT:
            raise BadOptions("interrupt_timeout must be between 0 (never) and "
                             f"{int(MAX_INTERRUPT_TIMEOUT)} seconds.")
        return rest, {"interrupt_timeout": seconds}

    def check_options(self, game_id: str, options: dict[str, Any] | None) -> dict[str, Any]:
        """The full options of a new table (defaults filled in) as JSON data, validated
        by the game. Raises UnknownGame, BadOptions (with a plain-English reason)."""
        game = self._game(game_id)
        if options is not None and not isinstance(options, dict):
            raise BadOptions(f"Options for {game.name} must be a set of name=value pairs.")
        try:
            parsed = game.parse_options(options)
        except (GameError, ValidationError, TypeError, ValueError) as exc:
            raise BadOptions(options_error(game, exc)) from exc
        return parsed.model_dump(mode="json")

    def check_ai_level(self, game_id: str, level: str | None) -> str:
        """The AI level ``level`` names (case-insensitive; None = the strongest).
        Raises UnknownGame, UnknownAILevel."""
        self._game(game_id)
        return self._pick_level(game_id, level)

    def _pick_level(self, game_id: str, level: str | None) -> str:
        levels = self.ai_levels(game_id)
        if not levels:
            raise UnknownAILevel("This game has no AI players.")
        if level is None or str(level).strip() == "":
            return levels[-1]
        wanted = str(level).strip().lower()
        for known in levels:
            if known.lower() == wanted:
                return known
        raise UnknownAILevel(
            f"There is no AI level '{quote(str(level), 40)}' for this game. "
            f"Levels: {', '.join(levels)}."
        )

    def _ai_name(self, t: Table, level: str, seats: list[dict[str, Any]]) -> str:
        taken = {s["name"] for s in seats}
        base = f"AI ({level})"
        name, n = base, 2
        while name in taken:
            name, n = f"{base} {n}", n + 1
        return name

    async def add_ai(self, channel_id: int, user_id: int, level: str | None = None) -> TableInfo:
        """Host adds an AI seat (``level`` from :meth:`ai_levels`, default the strongest).
        Raises NotHost, NotInLobby, TableFull, UnknownAILevel."""

        async def seat_ai(t: Table) -> TableInfo:
            self._require_lobby(t)
            self._require_host(t, user_id, what="add an AI player")
            if len(t.rec.seats) >= t.game.max_players:
                raise TableFull(
                    f"This table is full ({len(t.rec.seats)} of {t.game.max_players} seats "
                    "taken)."
                )
            chosen = self._pick_level(t.rec.game_id, level)
            rec = self._copy_rec(t)
            rec.seats.append(
                seat_dict(len(rec.seats), self._ai_name(t, chosen, rec.seats), None, chosen)
            )
            await self._save(t, rec)
            return self._info(t)

        return await self._seat_change(channel_id, seat_ai)

    async def remove_seat(self, channel_id: int, user_id: int, index: int) -> TableInfo:
        """Host removes a lobby seat (an AI, or a member) by its index. The host's own
        seat cannot be removed this way (use leave). Raises NotHost, NotInLobby, BadSeat."""
        async with self._locked(channel_id) as t:
            self._require_lobby(t)
            self._require_host(t, user_id, what="remove a seat")
            if isinstance(index, bool) or not isinstance(index, int) or not (
                0 <= index < len(t.rec.seats)
            ):
                raise BadSeat(no_such_seat(index, len(t.rec.seats)))
            if t.rec.seats[index]["user_id"] == t.rec.host_id:
                raise BadSeat("The host cannot remove their own seat; use /table leave.")
            rec = self._copy_rec(t)
            del rec.seats[index]
            rec.seats = self._reindex(rec.seats)
            await self._save(t, rec)
            return self._info(t)

    async def start(self, channel_id: int, user_id: int) -> Outbox:
        """Host starts the game: checks min/max players, shuffles the seating with the
        table's seeded RNG, sets the game up, commits, and mentions whoever acts first.
        If an AI acts first it plays in the background (outboxes go to listeners).
        Raises NotHost, NotInLobby, NotEnoughPlayers."""
        async with self._locked(channel_id) as t:
            self._require_lobby(t)
            self._require_host(t, user_id, what="start the game")
            game, n = t.game, len(t.rec.seats)
            if n < game.min_players:
                raise NotEnoughPlayers(
                    f"{game.name} needs at least {game.min_players} players and this table "
                    f"has {n}. Invite someone to /table join, or add an AI with /table addbot."
                )
            if n > game.max_players:  # only reachable if a game's limits changed
                raise TableFull(f"{game.name} takes at most {game.max_players} players.")
            options = game.parse_options(t.rec.options)
            seating = Rng.from_seed(t.rec.seed ^ SEATING_SALT)
            order = list(t.rec.seats)
            seating.shuffle(order)
            state = game.setup(n, options, t.rec.seed)
            rec = self._copy_rec(t)
            rec.seats = self._reindex([dict(s) for s in order])
            rec.status = TableStatus.PLAYING.value
            rec.version = 0
            rec.state = game.dump_body(state)
            rec.turn_since = self.clock()
            rec.reminded_at = None
            seat_line = "Seating: " + ", ".join(
                f"{s['index'] + 1}. {s['name']}" for s in rec.seats
            ) + "."
            outbox = await self._commit(t, rec, state, "start",
                                       [f"{game.name} begins!", seat_line])
        self._kick_ai(t)
        return outbox

    async def abort(
        self, channel_id: int, user_id: int, *, can_manage_channel: bool = False
    ) -> Outbox:
        """End the live table in a channel without a result. Allowed for the host or a
        member with Manage Channels (the front end passes ``can_manage_channel``).
        Raises NoTable, NotHost."""
        async with self._locked(channel_id) as t:
            if not t.status.live:
                raise NotPlaying("This table is already closed.")
            self._require_host(t, user_id, bool(can_manage_channel), what="abort")
            rec = self._copy_rec(t)
            rec.status = TableStatus.ABORTED.value
            who = t.seat_of(user_id)
            by = who.name if who else "the host" if user_id == t.rec.host_id else "a moderator"
            staged = replace(t, rec=rec)
            public = PublicUpdate(
                table_id=rec.id, channel_id=rec.channel_id, game_id=rec.game_id,
                version=rec.version, kind="abort",
                lines=(f"The {t.game.name} table was closed by {by}.",),
            )
            outbox = Outbox(table=self._info(staged), public=public)
            outbox_id = await self._save(t, rec, outbox)
            return replace(outbox, id=outbox_id)

    async def status(self, channel_or_table: ChannelOrTable) -> TableInfo:
        """The table in a channel (live only) or by id (any status). Raises NoTable."""
        async with self._locked(channel_or_table) as t:
            return self._info(t)

    async def last_table(self, channel_id: int) -> TableInfo:
        """The channel's live table, else its last game if that one finished (so its
        result can be read until a new table opens). Raises NoTable."""
        check_id(channel_id, "channel")
        try:
            return await self.status(channel_id)
        except NoTable:
            rec = await self.store.last_table_in_channel(channel_id)
            if rec is None or rec.status != TableStatus.FINISHED.value:
                raise
            return self._info(await self._adopt(rec))

    async def tables_of_user(self, user_id: int) -> list[TableInfo]:
        """Live tables where ``user_id`` holds a seat (for /hand and DMs).

        Read from the store, not from memory: DMs arrive on shard 0, whose process
        may not be the one running the user's table."""
        out: list[TableInfo] = []
        for rec in await self.store.load_all_active():
            if any(s.get("user_id") == user_id for s in rec.seats):
                t = await self._adopt(rec)
                async with t.lock:
                    await self._absorb(t, rec)
                    if t.status.live and t.seat_of(user_id):
                        out.append(self._info(t))
        return out

    # -- the server's own choices ------------------------------------------------

    async def guild_threads(self, guild_id: int) -> bool:
        """Whether ``/table new`` opens tables in a thread by default in this server."""
        return (await self.store.guild_settings(guild_id)).get("threads") is True

    async def set_guild_threads(self, guild_id: int, on: bool) -> None:
        """The server's default for table threads (Manage Server decides, in the cog)."""
        check_id(guild_id, "server")
        settings = await self.store.guild_settings(guild_id)
        settings["threads"] = bool(on)
        try:
            await self.store.save_guild_settings(guild_id, settings)
        except StoreUnwritable as exc:
            raise StorageUnavailable() from exc
