"""Fuzzing (hypothesis) of every input a person can send, through the REAL command tree.

Real tables of every game sit in a few channels (lobbies and games being played, with
seated players, an outsider, a closed and a finished table), run by the real
:class:`bot.messages.client.FabletopBot` against the in-process fake of Discord
(tests/discord_fakes.py). Every case is an interaction payload fed the way the gateway
feeds it (``parse_interaction_create``), so it goes through ``FabletopTree`` (its
``interaction_check`` and its error handler), the DynamicItem button and select, and
``FabletopBot.on_interaction`` for text forms and unknown components.

Four kinds of input:

* **slash**: every command of the tree (walked from ``tree.get_commands()``) with values
  of each option's declared type and of the wrong type (a stale registration), out of
  range, off the choice list, huge, empty, with markdown and mentions; members who are
  bots or strangers; unknown commands and subcommands, a group without a subcommand;
  the autocomplete of every option that has one. Callers: seated players, the
  outsider, the owner; in every channel and in a DM.
* **buttons**: every ``ft:`` custom_id (game and lobby buttons) the bot really showed
  (channel messages, DM hand messages, private menus), as shown and mutated: truncated,
  another table's, an older / newer / negative / huge / non-numeric version, another
  code or an unknown one, extra colons, another prefix, empty, 100+ characters,
  non-ASCII; pressed by seated players and the outsider, in the message's channel, in
  another channel and in a DM.
* **selects**: every ``fs:`` id likewise, with the chosen values forged (none, two, an
  unknown code, another menu's, a lobby code, huge).
* **forms**: every ``fm:`` text form the bot opened, as opened and mutated (and forms
  for codes that open none), with random words (empty, blank, over-long, markdown,
  mentions) in odd component layouts.

Properties, for every case:

* nothing escapes: no error is logged (the error policy logs every fault of ours; an
  apology with a reference is a FAILURE: bad input must get a specific message);
* the interaction is answered (once); what the person reads is private (a refusal
  always; any answer that changed nothing too, unless its command answers for itself,
  ``extras`` "at once"), non-empty, within Discord's limits, plain words (no traceback,
  no exception name), and leaks nothing: no secret fragment the games declare
  (``GameSpec.secret_fragments``, as in tests/e2e/hidden.py) nor another seat's Winter
  Tales cards, that its reader cannot know (what a reader cannot see is what moves when
  ``determinize`` resamples the secrets hidden from them); DMs and public messages the
  case caused are read the same way, by their readers;
* nothing the bot posts publicly pings anyone a fuzzed text names;
* an option outside what its command declares to Discord (a range, a length, the
  choices) is refused;
* the store is unchanged by a refused input: every table's row (state, version,
  revision, status, seats, options, settings, host) and every other store table but the
  delivery bookkeeping (the move log, server settings, results...), and the service's
  live cache agrees with the store. An input that is in fact valid (a legal move, a
  join) may change the store: it is accepted when the change was possible (a command
  that changes tables; for a click or a form: a seated player, or anyone for a lobby's
  Join, in the table's own channel, or on a message only the clicker sees for a game
  click, at the table's version) and got no refusal, and a click changes only its own
  table. The world is then restored from its template before the next case.

``test_found_cases`` keeps the cases the fuzzer found (and those of the channel rule) as
examples that always run.

``pytest tests/test_fuzz.py -s`` prints ``fuzz cases: slash N, buttons M, selects K,
forms L`` (the line bypasses output capture, so it shows without ``-s`` too).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import json
import logging
import random
import re
import shutil
import sqlite3
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from discord import app_commands
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import bot.messages.client as client_module
import bot.messages.delivery.order as delivery_order
import bot.messages.lobby_clicks as lobby_module
from bot.core.choices import get_ui
from bot.core.tables import TableStatus
from bot.messages.replies import INTERNAL_ERROR
from bot.messages.ui.forms import FORM_TEMPLATE
from bot.messages.ui.ids import BUTTON_TEMPLATE, SELECT_TEMPLATE
from engines import get_game
from engines.catalog import has_hands, specs
from engines.core import Rng
from tests.discord_fakes import (
    ANN,
    BOB,
    BOT_ID,
    CAROL,
    GUILD_ID,
    MANAGE_CHANNELS,
    OWNER_ID,
    Harness,
    Sent,
    channel_payload,
    close_harness,
    make_harness,
    member_payload,
    snowflake,
    user_payload,
    walk_components,
)
from tests.e2e.hidden import fragment_patterns

# --------------------------------------------------------------------------- the world

DAVE = 444000000000000004
"""An outsider: a seat nowhere."""
ERIN = 666000000000000006
"""The host of two lobbies (a host keeps at most three tables open in a server)."""
ROBOT = 555000000000000005
"""A bot account (only ever an option value: bots do not click)."""
VICTIM = 999000000000000999
"""The member every fuzzed mention names: never seated, so never to be pinged."""
NAMES = {ANN: "Ann", BOB: "Bob", CAROL: "Carol", DAVE: "Dave", ERIN: "Erin",
         OWNER_ID: "Owner"}
CALLERS = (ANN, BOB, CAROL, DAVE, ERIN, OWNER_ID)
PRESSERS = (ANN, BOB, CAROL, DAVE, ERIN)

GAMES = ("fairy-tale-inn", "pocket", "crossroads-inn", "treasure", "winter-tales")
PLAY = {g: 610000000000000000 + i for i, g in enumerate(GAMES)}
"""A game being played in each of these channels (two moves made: older buttons)."""
LOBBY = {g: 620000000000000000 + i for i, g in enumerate(GAMES)}
"""A table waiting in its lobby (Carol or Erin the host, Bob seated) in each of these."""
EMPTY = 630000000000000001
CLOSED = 630000000000000002
"""A lobby its host closed."""
FINISHED = 630000000000000003
"""A game played to its end (Ann alone)."""
CHANNELS = (*PLAY.values(), *LOBBY.values(), EMPTY, CLOSED, FINISHED)
SEATED = {PLAY[g]: (ANN, BOB) for g in GAMES[:3]} | {
    PLAY["treasure"]: (BOB, ANN), PLAY["winter-tales"]: (BOB, ANN, CAROL)} | {
    LOBBY[g]: (CAROL, BOB) for g in GAMES[:3]} | {LOBBY[g]: (ERIN, BOB) for g in GAMES[3:]}
"""Who sits where, the host first."""

MUTATING = frozenset({
    "table new", "table join", "table leave", "table addbot", "table kick", "table start",
    "table abort", "table handover", "winter tell", "winter xcard", "winter retell",
    "winter arbiter retell", "winter arbiter strike", "winter arbiter bookmark",
    "winter arbiter figure", "winter arbiter count", "table threads",
})
"""The commands that may change the store (a table, a server's settings); any other
command changing it is a bug. A new command that changes the store belongs here."""

MOVE_LOG = frozenset({"actions", "events", "journal", "results"})
"""What a move (a click, a form) writes besides its table's row: its action and events,
the journal entries it adds (Winter Tales' story), and the result when it ends the
game."""

UNPINNED = {g: get_ui(g).unpinned_forms for g in GAMES}
"""Form codes whose words count whatever the table's version (each game's adapter says
which: words added to a story out of turn)."""

_BUTTON = re.compile(BUTTON_TEMPLATE)
_SELECT = re.compile(SELECT_TEMPLATE)
EPHEMERAL = 64
EVERYTHING = discord.Permissions.all().value
"""An administrator's permissions, as Discord sends them (every bit set)."""


@dataclass(frozen=True)
class Posted:
    """A component the bot really showed: its id, on which message, where, to whom."""

    custom_id: str
    kind: int
    """2 a button, 3 a select."""
    values: tuple[str, ...]
    """A select's option values."""
    channel_id: int
    """The guild channel or the DM channel of the message."""
    dm_user: int | None
    """The recipient, when the message is in a DM."""
    viewer: int | None
    """Whose private (ephemeral) message it is."""
    components: tuple[str, ...] = ()
    """The message's components, as JSON (hashable)."""
    message_id: int = 0
    flags: int = 0

    def message(self) -> list[dict[str, Any]]:
        return json.loads(self.components[0]) if self.components else []

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # hypothesis's report
        p.text(repr(self))

    def __repr__(self) -> str:
        where = (f"DM of {NAMES.get(self.dm_user or 0)}" if self.dm_user
                 else f"private to {NAMES.get(self.viewer or 0)}" if self.viewer
                 else "public")
        return f"<{self.custom_id} {where} in {self.channel_id}>"


@dataclass
class WorldData:
    """What the build recorded: real components, real forms, the tables."""

    posted: list[Posted] = field(default_factory=list)
    forms: list[str] = field(default_factory=list)
    tables: dict[str, tuple[str, int]] = field(default_factory=dict)
    """table id -> (game id, channel id)."""
    dm_of: dict[int, int] = field(default_factory=dict)
    """user id -> DM channel id."""
    codes: list[str] = field(default_factory=list)
    """Every action code seen (for "another code" mutations)."""
    hand_texts: dict[tuple[int, int], list[str]] = field(default_factory=dict)
    """(table channel, user) -> the words of the user's DM hand messages, as they read
    at the end of the build (edits applied)."""


def answer_channels(h: Harness) -> None:
    """Let the fake answer what the bot asks of channels as Discord would: ``GET
    /channels/{id}`` (a table that ends has its thread archived: the world's channels
    are the server's text channels, a DM is a DM, anything else is unknown), and a
    table's own thread (``/table new thread:``): started from a message, read, edited
    (archived)."""
    request = h.fake.http_request
    threads: dict[int, dict[str, Any]] = {}

    async def answering(route: discord.http.Route, **kwargs: Any) -> Any:
        path, method = route.path, route.method
        if path == "/channels/{channel_id}/messages/{message_id}/threads" and method == "POST":
            thread = snowflake()
            threads[thread] = {
                "id": str(thread), "type": 11, "guild_id": str(GUILD_ID),
                "parent_id": str(route.channel_id), "owner_id": str(BOT_ID),
                "name": (kwargs.get("json") or {}).get("name", "thread"),
                "last_message_id": None, "rate_limit_per_user": 0, "flags": 0,
                "message_count": 0, "member_count": 1,
                "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                                    "archive_timestamp": "2026-01-01T00:00:00+00:00",
                                    "locked": False}}
            await request(route, **kwargs)  # recorded like any other call
            return threads[thread]
        if path == "/channels/{channel_id}" and method in ("GET", "PATCH"):
            channel = int(route.channel_id)  # type: ignore[arg-type]
            if channel in threads:
                if method == "PATCH":
                    changes = kwargs.get("json") or {}
                    meta = threads[channel]["thread_metadata"]
                    for key in ("archived", "locked", "auto_archive_duration"):
                        if key in changes:
                            meta[key] = changes[key]
                    await request(route, **kwargs)
                return threads[channel]
            if method == "GET" and channel in h.fake.dm_channels:
                return {"id": str(channel), "type": 1,
                        "recipients": [user_payload(h.fake.dm_channels[channel])]}
            if method == "GET" and channel in CHANNELS:
                return channel_payload(channel)
            raise discord.NotFound(_Response(404), {"code": 10003, "message": "Unknown Channel"})
        return await request(route, **kwargs)

    h.fake.http_request = answering  # type: ignore[method-assign]
    h.bot.http.request = answering  # type: ignore[method-assign]


class _Response:
    def __init__(self, status: int) -> None:
        self.status, self.reason = status, "Not Found"


class Recorder:
    """Who each interaction of the build came from, where (follow-ups carry neither)."""

    def __init__(self, h: Harness) -> None:
        self.who: dict[int, tuple[int, int]] = {}
        dispatch = h.fake.dispatch

        async def recording(bot: Any, payload: dict[str, Any]) -> list[Sent]:
            user = (payload.get("member") or {}).get("user") or payload.get("user") or {}
            self.who[int(payload["id"])] = (int(user.get("id", 0)),
                                            int(payload.get("channel_id", 0)))
            return await dispatch(bot, payload)

        h.fake.dispatch = recording  # type: ignore[method-assign]


def latest_prompt(h: Harness, channel_id: int) -> Sent | None:
    """The newest message of a channel that carries buttons now (edits applied)."""
    for s in reversed(h.fake.sent):
        if s.kind == "channel_message" and s.channel_id == channel_id:
            now = h.fake.current(s)
            if now.custom_ids:
                return now
    return None


def first_choice(components: list[dict[str, Any]]) -> tuple[str, list[str] | None] | None:
    """The first enabled choice of a message that is not a text form."""
    for c in walk_components(components):
        if c.get("type") == 3 and c.get("options"):
            return c["custom_id"], [c["options"][0]["value"]]
        if (c.get("type") == 2 and not c.get("disabled")
                and not c.get("custom_id", "").endswith((":tell", ":lobby.leave"))):
            return c["custom_id"], None
    return None


async def press(h: Harness, user: int, custom_id: str, components: list[dict[str, Any]],
                channel_id: int, message_id: int | None, values: list[str] | None = None,
                flags: int = 0) -> list[Sent]:
    payload = h.fake._base(3, user, NAMES.get(user), 0, channel_id)
    payload["data"] = {"custom_id": custom_id, "component_type": 3 if values else 2,
                       **({"values": values} if values else {})}
    payload["message"] = h.fake.message_payload(
        channel_id, {"components": components, "flags": flags}, message_id=message_id)
    return await h.fake.dispatch(h.bot, payload)


async def advance(h: Harness, channel_id: int, steps: int) -> None:
    """Play ``steps`` moves at the table of ``channel_id`` by clicking what the bot shows
    (the public turn message, then the private menus it answers with)."""
    for _ in range(steps):
        info = await h.service.status(channel_id)
        if not info.to_act_users:
            return
        user = info.to_act_users[0]
        message = latest_prompt(h, channel_id)
        components = message.components if message else []
        mid, flags = (message.message_id if message else None), 0
        for _depth in range(6):
            choice = first_choice(components)
            if choice is None:
                return
            sent = await press(h, user, choice[0], components, channel_id, mid, choice[1],
                               flags)
            if (await h.service.status(channel_id)).version != info.version:
                break
            menus = [s for s in sent if s.kind == "followup" and s.custom_ids]
            if not menus:
                return
            components, mid, flags = menus[-1].components, menus[-1].message_id, EPHEMERAL
        await h.service.wait_idle()
        await h.fake.settle()


async def peek(h: Harness, channel_id: int) -> None:
    """Open what the current moment offers each seated player without playing: the
    private menus behind the turn message, a Winter Tale's text form, ``/hand``."""
    info = await h.service.status(channel_id)
    users = [s.user_id for s in info.seats if s.user_id]
    message = latest_prompt(h, channel_id)
    if message is not None:
        for user in users:
            for c in walk_components(message.components):
                cid = c.get("custom_id", "")
                if c.get("type") == 2 and re.search(r":(turn|tell|s\d|t[A-E]\d)$", cid):
                    await press(h, user, cid, message.components, channel_id,
                                message.message_id)
    for user in users:
        await h.slash("hand", user, uname=NAMES[user], channel_id=channel_id)
    await h.service.wait_idle()
    await h.fake.settle()


async def deal_winter_hands(h: Harness) -> None:
    """Play the Winter Tale's opening (the draft, the setup) with random legal moves
    through the service until every hand holds Story cards, then announce those moves
    as a restart would (the hand messages then show the cards)."""
    rng = random.Random(1)
    channel = PLAY["winter-tales"]
    for _ in range(3000):
        info = await h.service.status(channel)
        view = await h.service.public_view(channel)
        if all(n > 0 for n in view.hand_counts) and view.chapter >= 1:
            break
        seat = rng.choice(list(info.to_act))
        user = next(s.user_id for s in info.seats if s.index == seat)
        legal = await h.service.legal_actions(channel, user)
        await h.service.act(channel, user, rng.choice(legal))
    else:
        raise AssertionError("the Winter Tales hands were never dealt")
    await h.bot.deliver_undelivered()
    await h.fake.settle()


async def play_to_the_end(h: Harness) -> None:
    """A Save the Treasure game (Ann alone) played to its end through the service."""
    await h.slash("table new", ANN, uname="Ann", game="treasure", channel_id=FINISHED)
    await h.slash("table start", ANN, uname="Ann", channel_id=FINISHED)
    rng = random.Random(1)
    info = await h.service.status(FINISHED)
    for _ in range(5000):
        info = await h.service.status(info.id)
        if info.status.value != "playing":
            break
        legal = await h.service.legal_actions(info.id, ANN)
        await h.service.act(info.id, ANN, rng.choice(legal))
    assert info.status.value == "finished", info.status


async def build(db: Path) -> WorldData:
    """Open, seat and start the tables of the world; record what the bot showed."""
    h = await make_harness(db, seed=11)
    answer_channels(h)
    rec = Recorder(h)
    try:
        await play_to_the_end(h)
        await h.slash("table new", ANN, uname="Ann", game="treasure", channel_id=CLOSED)
        await h.slash("table abort", ANN, uname="Ann", channel_id=CLOSED)
        for channel, game in [(PLAY[g], g) for g in GAMES] + [(LOBBY[g], g) for g in GAMES]:
            host, *others = SEATED[channel]
            sent = await h.slash("table new", host, uname=NAMES[host], game=game,
                                 channel_id=channel)
            assert "is open" in sent[-1].content, sent
            for user in others:
                await h.slash("table join", user, uname=NAMES[user], channel_id=channel)
        for game in GAMES:
            host = SEATED[PLAY[game]][0]
            await h.slash("table start", host, uname=NAMES[host], channel_id=PLAY[game])
            await h.service.wait_idle()
            await h.fake.settle()
        await deal_winter_hands(h)
        for game in GAMES:
            await advance(h, PLAY[game], 2)
            await peek(h, PLAY[game])
        await h.service.wait_idle()
        await h.fake.settle()
        data = record(h, rec)
        # The moves played through the service are announced now, so no restart of the
        # world delivers them again.
        await h.bot.deliver_undelivered()
        await h.fake.settle()
        for channel in CHANNELS:
            row = _last_row(db, channel)
            if row is not None:
                data.tables[row[0]] = (row[1], channel)
        return data
    finally:
        await close_harness(h)


def _last_row(db: Path, channel: int) -> tuple[str, str] | None:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT id, game_id FROM tables WHERE channel_id = ? "
                            "ORDER BY created_at DESC LIMIT 1", (channel,)).fetchone()


def record(h: Harness, rec: Recorder) -> WorldData:
    """Every component the bot showed (as first sent and as edited since), where and to
    whom; every form it opened."""
    data = WorldData()
    data.dm_of = {user: dm for dm, user in h.fake.dm_channels.items()}
    seen: set[tuple[str, int | None, int | None]] = set()
    codes: set[str] = set()
    for s in h.fake.sent:
        if s.kind == "callback" and s.response_type == 9:
            cid = s.data.get("custom_id", "")
            if cid not in data.forms:
                data.forms.append(cid)
        if s.kind not in ("channel_message", "dm", "followup"):
            continue
        now = h.fake.current(s)  # its edits applied (a hand message, a turn message)
        dm, viewer, flags = None, None, 0
        if s.kind == "dm":
            dm = s.channel_id  # the fake names a DM by its recipient
            channel = data.dm_of.get(dm or 0, 0)
            table = re.search(r"<#(\d+)>", now.content)
            if table is not None and dm is not None:
                data.hand_texts.setdefault((int(table[1]), dm), []).append(now.content)
        elif s.kind == "followup":
            viewer, channel = rec.who.get(s.interaction_id or 0, (0, 0))
            flags = EPHEMERAL

        else:
            channel = s.channel_id or 0
        components = json.dumps(now.components)
        for c in [*walk_components(s.components), *walk_components(now.components)]:
            cid = c.get("custom_id")
            if not cid or c.get("type") not in (2, 3):
                continue
            m = _BUTTON.fullmatch(cid) or _SELECT.fullmatch(cid)
            if m is not None:
                codes.add(m["code"])
            values = tuple(o["value"] for o in c.get("options") or [])
            codes.update(values)
            key = (cid, dm, viewer)
            if key in seen:
                continue
            seen.add(key)
            data.posted.append(Posted(cid, c["type"], values, channel, dm, viewer,
                                      (components,), s.message_id or 0, flags))
    data.codes = sorted(codes)
    return data


# --------------------------------------------------------------------------- the store


@dataclass(frozen=True)
class Row:
    channel_id: int
    game_id: str
    status: str
    version: int
    revision: int
    state: str | None
    seats: str
    options: str
    settings: str
    host_id: int

    def seat_of(self, user_id: int) -> int | None:
        return next((s["index"] for s in json.loads(self.seats)
                     if s.get("user_id") == user_id), None)


def rows(db: Path) -> dict[str, Row]:
    """Every table's stored row, read straight from the bot's SQLite file."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                            timeout=5)) as conn:
        found = conn.execute(
            "SELECT id, channel_id, game_id, status, version, revision, state, seats, "
            "options, settings, host_id FROM tables").fetchall()
    return {r[0]: Row(*r[1:]) for r in found}


BOOKKEEPING = frozenset({"outbox", "hand_messages", "turn_messages", "table_leases",
                         "migrations", "sqlite_sequence"})
"""Store tables that record what was delivered (or who works on what), not what a table
is: a refused click may well re-post a board; everything else must not move."""


def store_rest(db: Path) -> dict[str, str]:
    """A digest of every other store table (the move log, events, settings of servers,
    results, closed DMs...), so that nothing a case must not change escapes the check."""
    out = {}
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                            timeout=5)) as conn:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        for name in names:
            if name in BOOKKEEPING or name == "tables":
                continue
            digest = hashlib.sha1()
            for row in conn.execute(f'SELECT * FROM "{name}" ORDER BY 1'):
                digest.update(repr(row).encode())
            out[name] = digest.hexdigest()
    return out


# --------------------------------------------------------------------------- secrets


def _winter_hands(game: Any, state: Any) -> list[list[str]]:
    """Winter Tales declares no fragments: its secrets are the Story cards in hands;
    each title (as words) is one."""
    from engines.winter_tales.content import load_content

    titles = {c.id: c.title for c in load_content().story_cards}
    return [titles[c].split() for hand in state.hands for c in hand if c in titles]


def _fragments(game: Any, state: Any) -> dict[str, re.Pattern[str]]:
    out = {p.pattern: p for p in fragment_patterns(game, state)}
    if game.id == "winter-tales":
        sep = r"\W{0,4}"
        for words in _winter_hands(game, state):
            p = re.compile(r"\b" + sep.join(re.escape(w) for w in words) + r"\b",
                           re.IGNORECASE)
            out[p.pattern] = p
    return out


class Secrets:
    """The secret fragments of a stored state that a reader (a seat, or the public)
    cannot know: those that move when ``determinize`` resamples what the reader cannot
    see (kept across resets: keyed by the state itself)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, int | None], list[re.Pattern[str]]] = {}

    def of(self, row: Row, seat: int | None) -> list[re.Pattern[str]]:
        if row.state is None:
            return []
        key = (hashlib.sha1(row.state.encode()).hexdigest(), seat)
        if key not in self._cache:
            game = get_game(row.game_id)
            state = game.load_state(row.state)
            true = _fragments(game, state)
            fixed = set(true)
            for salt in (1, 2, 3):
                fixed &= set(_fragments(game, game.determinize(state, seat, Rng.from_seed(salt))))
            self._cache[key] = [p for k, p in true.items() if k not in fixed]
        return self._cache[key]


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One fuzzed interaction (built into a payload when it runs)."""

    kind: str
    """``slash``, ``autocomplete``, ``button``, ``select`` or ``form``."""
    user: int
    name: str | None
    channel: int | None
    """A guild channel, or ``None`` for the user's DM."""
    permissions: int = 0
    # slash
    path: tuple[str, ...] = ()
    options: list[dict[str, Any]] = field(default_factory=list)
    resolved: dict[str, Any] = field(default_factory=dict)
    command: str | None = None
    """The real command's qualified name (``None``: an unknown one)."""
    # components and forms
    custom_id: str = ""
    values: list[str] | None = None
    source: Posted | None = None
    form_components: list[dict[str, Any]] = field(default_factory=list)
    ephemeral: bool = False
    """Whether the clicked message (a form's: the message it was opened from) is one only
    the clicker sees."""
    with_message: bool = True
    """A form submission names the message it was opened from (a slash-opened one
    would not)."""
    note: str = ""

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # hypothesis's report
        p.text(repr(self))

    def __repr__(self) -> str:
        where = "DM" if self.channel is None else str(self.channel)
        who = f"{NAMES.get(self.user, self.user)}({self.name!r})"
        if self.kind in ("slash", "autocomplete"):
            opts = {o["name"]: _short(o.get("value")) for o in self.options}
            return (f"Case({self.kind} /{' '.join(self.path)} {opts} by {who} in {where}"
                    f" perms={self.permissions} {self.note})")
        what = self.values if self.kind == "select" else (
            _short(_form_words(self.form_components)) if self.kind == "form" else "")
        return (f"Case({self.kind} {self.custom_id[:120]!r} {what} by {who} in {where}, "
                f"from {self.source!r} {self.note})")


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 60:
        return f"{value[:40]!r}...({len(value)} chars)"
    return value


def _form_words(components: list[dict[str, Any]]) -> Any:
    for c in walk_components(components):
        if "value" in c:
            return c["value"]
        inner = c.get("component")
        if isinstance(inner, dict) and "value" in inner:
            return inner["value"]
    return None


def _in_dm(payload: dict[str, Any], user: int, name: str | None, dm: int) -> None:
    """Make a guild interaction payload a DM one: no guild, no member."""
    payload.pop("guild_id", None)
    payload.pop("member", None)
    payload["user"] = user_payload(user, name)
    payload["channel_id"] = str(dm)
    payload["channel"] = {"id": str(dm), "type": 1, "recipients": [user_payload(user)]}
    payload["context"] = 1
    payload["authorizing_integration_owners"] = {"1": str(user)}


def build_payload(h: Harness, world: World, case: Case) -> dict[str, Any]:
    channel = case.channel if case.channel is not None else world.dm_channel(case.user)
    itype = {"slash": 2, "autocomplete": 4, "button": 3, "select": 3, "form": 5}[case.kind]
    payload = h.fake._base(itype, case.user, case.name, case.permissions, channel)
    if case.kind in ("slash", "autocomplete"):
        inner = case.options
        path = list(case.path)
        if len(path) == 2:
            inner = [{"type": 1, "name": path[1], "options": case.options}]
        elif len(path) >= 3:
            inner = [{"type": 2, "name": path[1],
                      "options": [{"type": 1, "name": path[2], "options": case.options}]}]
        data: dict[str, Any] = {"id": "1", "type": 1, "name": path[0], "options": inner}
        if case.resolved:
            data["resolved"] = case.resolved
        payload["data"] = data
    elif case.kind in ("button", "select"):
        kind = 3 if case.kind == "select" else 2
        payload["data"] = {"custom_id": case.custom_id, "component_type": kind}
        if case.values is not None:
            payload["data"]["values"] = case.values
        payload["message"] = h.fake.message_payload(
            channel, {"components": _carrying(case), "flags": EPHEMERAL if case.ephemeral
                      else 0},
            message_id=(case.source.message_id or None) if case.source else None)
    else:
        payload["data"] = {"custom_id": case.custom_id, "components": case.form_components}
        if case.with_message:
            payload["message"] = h.fake.message_payload(
                channel, {"content": "…", "flags": EPHEMERAL if case.ephemeral else 0})
    if case.channel is None:
        _in_dm(payload, case.user, case.name, channel)
        if "message" in payload:
            payload["message"]["channel_id"] = str(channel)
    return payload


def _carrying(case: Case) -> list[dict[str, Any]]:
    """The clicked message's components: the real message's, with the clicked component
    added when it is not there with this type (Discord delivers only clicks on what a
    message has: a forged id rides on a message that carries it), and a forged value
    among a select's options."""
    components = case.source.message() if case.source is not None else []
    kind = 3 if case.kind == "select" else 2
    for c in walk_components(components):
        if c.get("custom_id") == case.custom_id and c.get("type") == kind:
            if kind == 3:
                have = {o["value"] for o in c.get("options") or []}
                c.setdefault("options", []).extend(
                    {"label": v[:100] or "?", "value": v} for v in case.values or []
                    if v not in have)
            return components
    extra: dict[str, Any] = {"type": kind, "custom_id": case.custom_id}
    if kind == 2:
        extra.update(style=2, label="forged")
    else:
        extra["options"] = [{"label": v[:100] or "?", "value": v}
                            for v in (case.values or ["x"])]
    return [*components[:4], {"type": 1, "components": [extra]}]  # five rows at most


# --------------------------------------------------------------------------- the world


class Refusals:
    """Which interactions were refused: the tree's error handler, the turn controller's
    ``fail``, the lobby buttons' and the client's private refusals record them."""

    def __init__(self) -> None:
        self.ids: set[int] = set()
        self._undo: list[Callable[[], None]] = []

    def spy_module(self, module: Any) -> None:
        original = module.private

        async def private(interaction: discord.Interaction, text: str, **kw: Any) -> None:
            self.ids.add(interaction.id)
            await original(interaction, text, **kw)

        module.private = private
        self._undo.append(lambda: setattr(module, "private", original))

    def spy_bot(self, h: Harness) -> None:
        tree = h.bot.tree
        on_error = tree.on_error

        async def refused(interaction: discord.Interaction, error: Any) -> None:
            self.ids.add(interaction.id)
            await on_error(interaction, error)

        tree.on_error = refused  # type: ignore[method-assign]
        turns = h.bot.turns
        assert turns is not None
        fail = turns.fail

        async def failed(interaction: discord.Interaction, exc: BaseException,
                         what: str) -> None:
            self.ids.add(interaction.id)
            await fail(interaction, exc, what)

        turns.fail = failed  # type: ignore[method-assign]

    def close(self) -> None:
        for undo in reversed(self._undo):
            undo()


class Errors(logging.Handler):
    """Every error logged while a case runs (a fault of ours, a swallowed exception)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


class World:
    """The tables, built once into a template database; one bot on a copy of it, the
    copy restored from the template whenever a case changed it. Runs every case on one
    event loop."""

    def __init__(self, tmp: Path) -> None:
        self.runner = asyncio.Runner()
        self.template = tmp / "template.db"
        self.db = tmp / "world.db"
        self.refusals = Refusals()
        self.errors = Errors()
        self.secrets = Secrets()
        self.h: Harness | None = None
        self.dirty = False
        self.resets = 0
        self.accepted: Counter[str] = Counter()
        try:
            self.data = self.runner.run(build(self.template))
            self.refusals.spy_module(lobby_module)
            self.refusals.spy_module(client_module)
            logging.getLogger().addHandler(self.errors)
            self.commands = self.runner.run(self._commands())
        except BaseException:
            self.close()
            raise

    async def _commands(self) -> list[app_commands.Command[Any, ..., Any]]:
        h = await self.harness()
        out: list[app_commands.Command[Any, ..., Any]] = []

        def walk(c: Any) -> None:
            if isinstance(c, app_commands.Group):
                for sub in c.commands:
                    walk(sub)
            else:
                out.append(c)

        for c in h.bot.tree.get_commands():
            walk(c)
        self.groups = sorted(c.name for c in h.bot.tree.get_commands()
                             if isinstance(c, app_commands.Group))
        self.group_games = {getattr(cog, "__cog_group_name__", name): game
                            for name, cog in h.bot.cogs.items()
                            if isinstance(game := getattr(cog, "game_id", None), str)}
        self.group_paths = sorted({" ".join(c.qualified_name.split()[:-1]) for c in out
                                   if " " in c.qualified_name})
        return sorted(out, key=lambda c: c.qualified_name)

    @functools.cache  # noqa: B019 (one world per module)
    def components(self, select: bool) -> list[Posted]:
        return [p for p in self.data.posted if (p.kind == 3) == select]

    @functools.cache  # noqa: B019
    def select_values(self) -> list[str]:
        return sorted({v for p in self.components(True) for v in p.values}) or ["x"]

    @functools.cache  # noqa: B019
    def form_bases(self) -> tuple[list[str], list[str]]:
        """The forms the bot opened, and those a code that opens one would (``tell``,
        ``t<i>``) at every table and version shown; then forms for every other code
        shown (no such form exists)."""
        # In the order the bot showed them (table ids are random: sorting by them would
        # make the cases differ from run to run).
        shown = {f"fm:{m['table']}:{m['version']}:{m['code']}": m["code"]
                 for p in self.data.posted if (m := _BUTTON.fullmatch(p.custom_id))}
        opened = list(dict.fromkeys([*self.data.forms, *(
            f for f, code in shown.items() if re.fullmatch(r"tell|t\d+", code))]))
        return opened, [f for f in shown if f not in opened]

    def command(self, name: str) -> app_commands.Command[Any, ..., Any]:
        return next(c for c in self.commands if c.qualified_name == name)

    def dm_channel(self, user: int) -> int:
        return self.data.dm_of.setdefault(user, 640000000000000000 + user % 1000)

    async def harness(self) -> Harness:
        """The bot, on the world as built: a case that changed a table is undone by
        writing the template back into the bot's database (SQLite's backup, as another
        process sharing the store would write it: the service reads a table's row at
        every operation and takes the store's as the truth)."""
        if self.h is None:
            for suffix in ("", "-wal", "-shm"):
                src = Path(f"{self.template}{suffix}")
                if src.exists():
                    shutil.copy(src, f"{self.db}{suffix}")
            self.h = await make_harness(self.db, seed=11)
            answer_channels(self.h)
            self.refusals.spy_bot(self.h)
            await self.h.fake.settle()
            self.dirty = False
        elif self.dirty:
            await self.h.service.wait_idle()
            await self.h.fake.settle()
            with contextlib.closing(sqlite3.connect(self.template)) as src, \
                    contextlib.closing(sqlite3.connect(self.db, timeout=10)) as dst:
                src.backup(dst)
            assert rows(self.db) == rows(self.template) and store_rest(self.db) == (
                store_rest(self.template)), "the world was not restored"
            self.resets += 1
            self.dirty = False
        return self.h

    def close(self) -> None:
        if self.h is not None:
            self.runner.run(close_harness(self.h))
            self.h = None
        logging.getLogger().removeHandler(self.errors)
        self.refusals.close()
        self.runner.close()

    def run(self, case: Case) -> None:
        self.runner.run(self._run(case))

    async def _run(self, case: Case) -> None:
        h = await self.harness()
        before, rest_before = rows(self.db), store_rest(self.db)
        payload = build_payload(h, self, case)
        self.errors.records.clear()
        sent = await h.fake.dispatch(h.bot, payload)
        await h.service.wait_idle()
        await h.fake.settle()
        outcome = Outcome(case, payload, sent, before, rows(self.db),
                          int(payload["id"]) in self.refusals.ids, list(self.errors.records),
                          rest_before, store_rest(self.db))
        self.refusals.ids.discard(int(payload["id"]))
        if outcome.changed:
            self.dirty = True  # restored from the template before the next case
        judge(self, outcome)
        await self.check_cache(h, outcome)
        if outcome.changed:
            self.accepted[case.kind] += 1

    async def check_cache(self, h: Harness, o: Outcome) -> None:
        """The service's live tables agree with the store (a refusal must not have
        changed the cache without the store, or the reverse): the tables the case
        touched or named, and the table of its channel."""
        named = {m["table"] for m in [_any_id(o.case.custom_id)] if m is not None}
        for table_id, row in o.after.items():
            if row.status not in ("lobby", "playing") or not (
                    table_id in named or table_id in o.changed_tables
                    or row.channel_id == o.case.channel):
                continue
            info = await h.service.status(table_id)
            assert (info.version, info.status.value) == (row.version, row.status), (
                f"[cache] table {table_id}: the service has version {info.version} "
                f"({info.status.value}), the store {row.version} ({row.status})")
            seats = [(s["index"], s.get("user_id"), s.get("ai_level"))
                     for s in json.loads(row.seats)]
            assert [(s.index, s.user_id, s.ai_level) for s in info.seats] == seats, (
                f"[cache] table {table_id}: the seats differ from the store")
            if row.status == "playing" and row.state is not None:
                game, state, version = await h.service.state_for_search(table_id)
                assert version == row.version and game.dump_body(state) == row.state, (
                    f"[cache] table {table_id}: the live state differs from the store")


def _any_id(custom_id: str) -> re.Match[str] | None:
    return (_BUTTON.fullmatch(custom_id) or _SELECT.fullmatch(custom_id)
            or FORM_TEMPLATE.fullmatch(custom_id))


@dataclass
class Outcome:
    case: Case
    payload: dict[str, Any]
    sent: list[Sent]
    before: dict[str, Row]
    after: dict[str, Row]
    refused: bool
    errors: list[logging.LogRecord]
    rest_before: dict[str, str] = field(default_factory=dict)
    rest_after: dict[str, str] = field(default_factory=dict)

    @property
    def changed_tables(self) -> set[str]:
        """The game tables whose row changed (or appeared)."""
        return {t for t in set(self.before) | set(self.after)
                if self.before.get(t) != self.after.get(t)}

    @property
    def changed_store(self) -> set[str]:
        """The other store tables that changed (the move log, server settings...)."""
        return {t for t in set(self.rest_before) | set(self.rest_after)
                if self.rest_before.get(t) != self.rest_after.get(t)}

    @property
    def changed(self) -> bool:
        return bool(self.changed_tables or self.changed_store)


# --------------------------------------------------------------------------- properties

TRACEBACK = re.compile(
    r"Traceback \(most recent|File \"[^\"]+\", line \d+|\b[A-Z][A-Za-z]*(Error|Exception)\b"
    r"|validation errors? for|object at 0x|<bound method|\bNoneType\b|\bKeyError\b")
DISCORD_LIMIT = 2000


def _texts(s: Sent) -> str:
    """Everything a message shows: its words, its components' labels and options, and
    a form's or autocomplete's texts (as JSON: nothing is missed)."""
    return json.dumps(s.data, ensure_ascii=False)


def out_of_bounds(world: World, case: Case) -> str | None:
    """Why an option of a slash case is outside what its command declares to Discord
    (a range, a length, the choices), or ``None``. Discord keeps a synced client within
    them; a stale registration or a forged client does not, and then the bot must refuse
    rather than act on it."""
    if case.kind != "slash" or case.command is None:
        return None
    params = {p.name: p for p in world.command(case.command).parameters}
    for option in case.options:
        param, value = params.get(option["name"]), option.get("value")
        if param is None or option.get("type") != param.type.value:
            continue  # a value of another type: refused as such (wrong_option)
        shown = _short(value)
        if param.choices and value not in [c.value for c in param.choices]:
            return f"option {param.name}={shown!r} is not one of its choices"
        low, high = param.min_value, param.max_value
        size = len(value) if isinstance(value, str) else value
        if isinstance(size, int | float) and not isinstance(size, bool) and (
                (low is not None and size < low) or (high is not None and size > high)):
            if isinstance(value, str):
                return f"option {param.name} has {size} characters, not {low}-{high}"
            return f"option {param.name}={shown!r} is outside {low}-{high}"
    return None


def may_change(world: World, o: Outcome) -> tuple[bool, str]:
    """Whether the case could be a valid change, and why not."""
    case = o.case
    if case.kind == "autocomplete":
        return False, "an autocomplete never changes the store"
    if case.kind == "slash":
        beyond = out_of_bounds(world, case)
        if beyond is not None:
            return False, beyond
        if case.command in MUTATING:
            return True, ""
        return False, f"/{case.command or ' '.join(case.path)} never changes the store"
    template = FORM_TEMPLATE if case.kind == "form" else (
        _SELECT if case.custom_id.startswith("fs:") else _BUTTON)
    m = template.fullmatch(case.custom_id)
    if m is None:
        return False, "the custom_id is not one of ours"
    code = m["code"]
    if case.kind == "select" and case.custom_id.startswith("fs:"):
        if not case.values or len(case.values) != 1:
            return False, "a select needs exactly one value"
        code = case.values[0]
    row = o.before.get(m["table"])
    if row is None:
        return False, "no such table"
    lobby = code.startswith("lobby.")
    seated = row.seat_of(case.user) is not None
    home = case.channel == row.channel_id
    private = case.channel is None or case.ephemeral
    if lobby and not home:
        where = "in a DM" if case.channel is None else f"in {case.channel}"
        return False, ("a lobby button counts only on the table's channel message "
                       f"({row.channel_id}), not {where}")
    if not home and not private:
        return False, ("a click counts only in the table's own channel "
                       f"({row.channel_id}) or on a message only the clicker sees, "
                       f"not on a public message in {case.channel}")
    if lobby:
        return (row.status == "lobby", "the table is not in its lobby")
    if not seated:
        return False, "the clicker has no seat"
    if row.status != "playing":
        return False, "the table is not playing"
    unpinned = case.kind == "form" and code in UNPINNED.get(row.game_id, frozenset())
    if not unpinned and int(m["version"]) != row.version:
        return False, f"version {m['version']} is not the table's {row.version}"
    return True, ""


def judge(world: World, o: Outcome) -> None:
    case = o.case
    fail = f"\n  case: {case!r}\n  sent: {o.sent!r}"
    # 1. nothing escapes: no fault of ours logged, no apology
    for r in o.errors:
        text = r.getMessage()
        if r.exc_info:
            import traceback

            text += "\n" + "".join(traceback.format_exception(*r.exc_info)[-4:])
        kind = "[apology]" if r.name == "fabletop.errors" else "[crash]"
        raise AssertionError(f"{kind} an error was logged: {r.name}: {text}{fail}")
    mine = [s for s in o.sent if s.kind in ("callback", "followup", "edit_original")]
    for s in mine:
        assert INTERNAL_ERROR not in s.content, f"[apology] {s.content!r}{fail}"
    # 2. answered once; what the person reads
    callbacks = [s for s in o.sent if s.kind == "callback"]
    assert len(callbacks) == 1, f"[unanswered] {len(callbacks)} responses{fail}"
    first = callbacks[0]
    rtype = first.response_type
    followups = [s for s in o.sent if s.kind == "followup"]
    edits = [s for s in o.sent if s.kind == "edit_original"]
    if case.kind == "autocomplete":
        assert rtype == 8, f"[unanswered] an autocomplete answered with {rtype}{fail}"
        choices = first.payload.get("data", {}).get("choices") or []
        assert len(choices) <= 25, f"[limits] {len(choices)} choices{fail}"
        for c in choices:
            assert 1 <= len(c["name"]) <= 100 and len(str(c["value"])) <= 100, (
                f"[limits] choice {c!r}{fail}")
    elif rtype == 9:
        title = first.data.get("title") or ""
        assert 0 < len(title) <= 45, f"[limits] form title {title!r}{fail}"
        assert FORM_TEMPLATE.fullmatch(first.data.get("custom_id", "")), (
            f"[unclear] a form whose custom_id is not ours{fail}")
    elif not o.changed:
        shown = first if rtype in (4, 7) else (followups or edits or [None])[0]
        assert shown is not None, (
            f"[unanswered] acknowledged (type {rtype}) but nothing followed{fail}")
        assert shown.content.strip() or shown.components or shown.files, (
            f"[unclear] an empty answer{fail}")
        # Nothing changed: a refusal is private, and so is any other answer (a menu, a
        # hand, a status), except that of a command that answers for itself (extras
        # "at once": /leaderboard's board is for everyone).
        own_answer = case.command is not None and world.command(case.command).extras.get(
            "answer") == "at once"
        for s in [first, *followups]:
            if s.response_type in (None, 4, 5) and (o.refused or not own_answer):
                kind = "[public-refusal]" if o.refused else "[public-answer]"
                assert s.ephemeral, f"{kind} {s!r}{fail}"
        public_message = case.channel is not None and not case.ephemeral
        assert not (edits and public_message and case.kind in ("button", "select")), (
            f"[public-answer] the public message clicked was edited, yet nothing "
            f"changed: {edits!r}{fail}")
        if o.refused:
            assert shown.content.strip(), f"[unclear] an empty refusal{fail}"
    for s in mine:
        assert len(s.content) <= DISCORD_LIMIT, f"[limits] {len(s.content)} chars{fail}"
        hit = TRACEBACK.search(s.content)
        assert hit is None, f"[unclear] internal detail {hit.group(0)!r}: {s.content!r}{fail}"
    # 3. no leak: what each reader sees holds no secret they cannot know
    reader_dm = {dm: user for user, dm in world.data.dm_of.items()}
    secrets: dict[int | None, list[tuple[int, re.Pattern[str]]]] = {}

    def secrets_of(reader: int | None) -> list[tuple[int, re.Pattern[str]]]:
        if reader not in secrets:
            secrets[reader] = [
                (row.channel_id, p) for row in o.after.values()
                for p in world.secrets.of(row, None if reader is None else row.seat_of(reader))]
        return secrets[reader]

    # the victim of the fuzzed mentions may have been given a seat (then pinged for it)
    victim_seated = any(r.seat_of(VICTIM) is not None for r in o.after.values())
    for s in o.sent:
        if s.kind in ("callback", "followup", "edit_original"):
            public = s.kind == "edit_original" and case.channel is not None and not (
                case.ephemeral)
            reader: int | None = None if public else case.user
        elif s.kind == "dm":
            reader = s.channel_id
        elif s.kind in ("channel_message", "edit_message"):
            reader = reader_dm.get(s.channel_id or 0)
        else:
            continue
        text = _texts(s)
        for channel, pattern in secrets_of(reader):
            hit = pattern.search(text)
            assert hit is None, (
                f"[leak] {s.kind} to {NAMES.get(reader or 0, 'everyone')} shows "
                f"{hit.group(0)!r} (a secret of the table in {channel}){fail}")
        # 4. fuzzed mentions never ping
        if s.kind in ("channel_message", "edit_message") and reader is None:
            _no_ping(s, fail, victim_seated)
    # 5. an option beyond what its command declares is refused (and so changes nothing)
    beyond = out_of_bounds(world, case)
    if beyond is not None:
        assert o.refused, f"[bounds] {beyond}, yet it was not refused{fail}"
    # 6. the store: unchanged unless the input was a possible change, made without refusal
    if o.changed:
        possible, why = may_change(world, o)
        assert possible, (f"[state-change] {sorted(o.changed_tables | o.changed_store)} "
                          f"changed, but {why}{_diff(o)}{fail}")
        assert not o.refused, f"[state-change] refused, yet the store changed{_diff(o)}{fail}"
        if case.kind in ("button", "select", "form"):
            m = (FORM_TEMPLATE if case.kind == "form" else
                 _SELECT if case.custom_id.startswith("fs:") else _BUTTON).fullmatch(
                case.custom_id)
            assert m is not None and o.changed_tables <= {m["table"]}, (
                f"[state-change] a click on {case.custom_id!r} changed "
                f"{sorted(o.changed_tables)}{fail}")
            assert o.changed_store <= MOVE_LOG, (
                f"[state-change] a click changed {sorted(o.changed_store)}{_diff(o)}{fail}")


def _diff(o: Outcome) -> str:
    out = [f"\n  store tables changed: {sorted(o.changed_store)}"] if o.changed_store else []
    for t in sorted(o.changed_tables):
        a, b = o.before.get(t), o.after.get(t)
        if a is None or b is None:
            out.append(f"\n  table {t}: {'created' if a is None else 'deleted'}")
            continue
        fields = [f for f in Row.__dataclass_fields__ if getattr(a, f) != getattr(b, f)]
        out.append(f"\n  table {t} (channel {a.channel_id}, {a.game_id}): {fields} changed "
                   f"(version {a.version}->{b.version}, revision {a.revision}->{b.revision}, "
                   f"{a.status}->{b.status})")
    return "".join(out)


_PING_USER = re.compile(rf"<@!?{VICTIM}>")
_PING_ALL = re.compile(r"@(everyone|here)")


def _no_ping(s: Sent, fail: str, victim_seated: bool) -> None:
    """A public message that quotes a fuzzed mention must not ping it: the mention is
    escaped, or the message's allowed mentions exclude it."""
    content = s.content
    allowed = s.payload.get("allowed_mentions")
    parse = set((allowed or {}).get("parse", ["users", "roles", "everyone"]))
    users = {str(u) for u in (allowed or {}).get("users", [])}
    if _PING_USER.search(content) and not victim_seated:
        assert "users" not in parse and str(VICTIM) not in users, (
            f"[ping] a public message pings <@{VICTIM}> (allowed_mentions={allowed}): "
            f"{content[:200]!r}{fail}")
    if _PING_ALL.search(content):
        assert "everyone" not in parse, (
            f"[ping] a public message pings @everyone/@here (allowed_mentions={allowed})"
            f": {content[:200]!r}{fail}")


# --------------------------------------------------------------------------- strategies

MENTIONS = (f"<@{VICTIM}>", f"<@!{VICTIM}>", "@everyone", "@here", "<@&123456789012345678>",
            f"<#{EMPTY}>")
MARKDOWN = ("**bold**", "__under__", "*it*", "~~s~~", "`tick`", "```py\nimport os\n```",
            "||spoiler||", "> quote", "# Title", "-# small", "[link](https://example.com)",
            "\\", "<t:0:R>", ":smile:", "<:e:123456789012345678>", "* list")
ODD = ("", " ", "   ", "\n\n", "\t", "\u200b", "\u202e", "\x00", "\r\n", "ﷺ", "𝕏𝕐",
       "👩‍👩‍👧‍👦", "ÅÄÖ", "日本語", "🎲" * 30, "null", "None", "{}", "[]", "%s", "{0}",
       "${x}", "'; DROP TABLE tables; --", "ft:x:1:y", "lobby.join", "a0", "t0", "tell",
       "turn", "-1", "0", "1e309", "NaN", "true", "=", "a=b=c", "x=" + "9" * 400)
SNIPPETS = MENTIONS + MARKDOWN + ODD
_chars = st.characters(exclude_categories=("Cs",))
TEXT = st.one_of(
    st.sampled_from(SNIPPETS),
    st.text(_chars, max_size=40),
    st.lists(st.one_of(st.sampled_from(SNIPPETS), st.text(_chars, max_size=10)),
             min_size=2, max_size=6).map(" ".join),
    st.builds(lambda s, n: s * n, st.sampled_from(("x", "é", "🎲", f"<@{VICTIM}> ", "ab ")),
              st.sampled_from((101, 1801, 2001, 6000))),
)
NAME = st.one_of(st.none(), st.sampled_from(("Ann", "Bob", "Carol", "Dave")),
                 st.sampled_from(SNIPPETS), st.text(_chars, min_size=1, max_size=32))

GAME_WORDS = (*GAMES, "fairy tale inn", "Fairy Tale Inn", "inn", "Winter Tales", "pocket",
              "treasure", "chess", "FAIRY-TALE-INN", " pocket ")
OPTION_WORDS = ("special=wand", "special=nope", "gift=boots", "kingdom=1+5", "kingdom=1+1",
                "kingdom=99+100", "kingdom=random", "basic_tiles=draft", "basic_tiles=x",
                "interrupt_timeout=60", "interrupt_timeout=-1", "interrupt_timeout=1e400",
                "interrupt_timeout=soon", "memories=5", "memories=-3", "power=yes",
                "objective=yes skill=yes", "lines='spiders; gore'", "veils=", "variant=true",
                "players=3", "x=1", "a=", "'unclosed", "special=wand special=boots")
LEVELS = ("random", "mcts", "heuristic", "storyteller", "hint", "easy", "RANDOM", "")
INTS = st.one_of(
    st.sampled_from((0, 1, 2, 3, 4, 5, 7, 8, 25, 99, 100, -1, -(2**31), 2**31, 2**53 + 1,
                     2**63, -(2**63) - 1, 10**30)),
    st.integers(-(10**6), 10**6))
FLOATS = st.one_of(st.sampled_from((0.0, 1440.0, 1440.5, -0.5, 1e308, 5e-324, 59.99)),
                   st.floats(allow_nan=False, allow_infinity=False))
WRONG = st.sampled_from(("3", "", "yes", 3, 2.5, True, False, -7))
"""Values of another type than declared (Discord holds an older registration)."""
MEMBERS = (ANN, BOB, CAROL, DAVE, ROBOT, VICTIM, OWNER_ID, BOT_ID)


@functools.cache
def _winter_words() -> dict[str, tuple[str, ...]]:
    """Values for the Winter Tales options that name things: every Story card (anyone's
    hand, the deck), the characters and the spaces, and a few that are none."""
    from engines.winter_tales.content import load_content

    c = load_content()
    return {"card": (*(x.id for x in c.story_cards), *(x.title for x in c.story_cards[:5]),
                     "nocard"),
            "character": (*(x.id for x in c.characters), "nobody"),
            "space": (*(x.id for x in c.map.spaces), "nowhere")}


def string_value(world: World, param: app_commands.Parameter) -> st.SearchStrategy[Any]:
    words: tuple[str, ...] = ()
    if param.choices:
        words = tuple(str(c.value) for c in param.choices) + tuple(
            str(c.name) for c in param.choices) + ("autumn", "SPRING", "pdf", "everywhere")
    elif param.name == "game":
        words = GAME_WORDS
    elif param.name == "options":
        words = OPTION_WORDS
    elif param.name == "level":
        words = LEVELS
    elif param.name == "command":
        words = (*world.groups, "admin", "/table new", "table new", "nope")
    else:
        words = _winter_words().get(param.name, ())
    pools = [TEXT]
    if words:
        pools.insert(0, st.sampled_from(words))
    return st.one_of(*pools)


def option_value(world: World, param: app_commands.Parameter, draw: Any
                 ) -> tuple[Any, dict[str, Any]]:
    """A value for ``param`` (and what ``resolved`` must hold for it)."""
    kind = param.type
    if draw(st.integers(0, 9)) == 0:
        return draw(WRONG), {}
    if kind is discord.AppCommandOptionType.string:
        return draw(string_value(world, param)), {}
    if kind is discord.AppCommandOptionType.integer:
        if param.choices:
            return draw(st.one_of(st.sampled_from([c.value for c in param.choices]), INTS)), {}
        return draw(INTS), {}
    if kind is discord.AppCommandOptionType.number:
        return draw(FLOATS), {}
    if kind is discord.AppCommandOptionType.boolean:
        return draw(st.booleans()), {}
    if kind is discord.AppCommandOptionType.user:
        uid = draw(st.sampled_from(MEMBERS))
        how = draw(st.sampled_from(("member", "member", "user only", "unresolved")))
        if how == "unresolved":
            return str(uid), {}
        bot = uid in (ROBOT, BOT_ID)
        resolved: dict[str, Any] = {"users": {str(uid): user_payload(
            uid, NAMES.get(uid) or draw(NAME), bot=bot)}}
        if how == "member":
            m = member_payload(uid, NAMES.get(uid))
            m.pop("user")
            resolved["members"] = {str(uid): m}
        return str(uid), resolved
    return draw(TEXT), {}


@st.composite
def slash_cases(draw: Any, world: World) -> Case:
    command = draw(st.sampled_from(world.commands))
    path = tuple(command.qualified_name.split())
    variant = draw(st.sampled_from(("real",) * 12 + ("unknown", "unknown sub", "group")))
    real: str | None = command.qualified_name
    if variant == "unknown":
        path, real = (draw(st.sampled_from(("chess", "tabel", "x" * 32, "é"))),), None
    elif variant == "unknown sub" and len(path) > 1:
        path, real = (*path[:-1], draw(st.sampled_from(("nope", "joinn", "NEW", "x" * 32)))), None
    elif variant == "group":
        path, real = tuple(draw(st.sampled_from(world.group_paths)).split()), None
    options: list[dict[str, Any]] = []
    resolved: dict[str, Any] = {}
    params = list(command.parameters) if real else []
    for param in params:
        present = draw(st.integers(0, 19)) > 0 if param.required else draw(st.booleans())
        if not present:
            continue
        value, res = option_value(world, param, draw)
        options.append({"name": param.name, "type": _sent_type(param, value), "value": value})
        for key, part in res.items():
            resolved.setdefault(key, {}).update(part)
    if draw(st.integers(0, 9)) == 0:
        options.append({"name": draw(st.sampled_from(("extra", "seat", "text", "é" * 3))),
                        "type": 3, "value": draw(TEXT)})
    kind = "slash"
    completing = [p for p in params if p.autocomplete]
    if completing and draw(st.integers(0, 3)) == 0:
        param = draw(st.sampled_from(completing))
        kind = "autocomplete"
        options = [o for o in options if o["name"] != param.name]
        options.append({"name": param.name, "type": param.type.value,
                        "value": draw(string_value(world, param)), "focused": True})
    # Where and by whom: often where the command has something to act on (its game's
    # tables, a free channel for /table new) and by someone it should listen to (a
    # seated player, the owner for /admin), so the checks past the first are reached.
    game = world.group_games.get(path[0])
    places: tuple[int | None, ...] = (*CHANNELS, None)
    if game is not None and draw(st.booleans()):
        places = (PLAY[game], PLAY[game], LOBBY[game])
    elif real == "table new" and draw(st.booleans()):
        places = (EMPTY, CLOSED, FINISHED)
    channel = draw(st.sampled_from(places))
    callers: tuple[int, ...] = CALLERS
    if path[0] == "admin" and draw(st.booleans()):
        callers = (OWNER_ID,)
    elif channel in SEATED and draw(st.booleans()):
        callers = SEATED[channel]
    user = draw(st.sampled_from(callers))
    return Case(kind, user, draw(st.one_of(st.just(NAMES[user]), NAME)), channel,
                permissions=draw(st.sampled_from((0, 0, MANAGE_CHANNELS, EVERYTHING))),
                path=path, options=options, resolved=resolved, command=real, note=variant)


def _sent_type(param: app_commands.Parameter, value: Any) -> int:
    """The option type Discord sends: the declared one, or, for a value of another type,
    the type an older registration gave the option."""
    declared = param.type
    if declared is discord.AppCommandOptionType.user and not res_ok(value):
        return discord.AppCommandOptionType.string.value
    fits = {bool: discord.AppCommandOptionType.boolean, int: discord.AppCommandOptionType.integer,
            float: discord.AppCommandOptionType.number, str: discord.AppCommandOptionType.string}
    natural = fits[type(value)]
    if natural is declared or (declared is discord.AppCommandOptionType.number
                               and natural is discord.AppCommandOptionType.integer):
        return declared.value
    if declared is discord.AppCommandOptionType.user:
        return declared.value
    return natural.value


def res_ok(value: Any) -> bool:
    return isinstance(value, str) and value.isdigit()


def _split(custom_id: str) -> tuple[str, str, str, str]:
    parts = custom_id.split(":", 3)
    while len(parts) < 4:
        parts.append("")
    return parts[0], parts[1], parts[2], parts[3]


def mutated(world: World, custom_id: str, prefix: str | None = None
            ) -> st.SearchStrategy[tuple[str, str]]:
    """``custom_id`` as shown, or mutated; with what was done to it."""
    pre, table, version, code = _split(custom_id)
    pre = prefix or pre
    v = int(version) if version.isdigit() else 0
    tables = (*world.data.tables, "zzzz", "A" * 40, "A" * 41, "-", "t_1", table.upper())
    versions = ("0", str(max(v - 1, 0)), str(v + 1), str(v + 1000), "-1", "999999999",
                "9999999999", "1e3", "", "٣", "0" + version, " " + version, "x", "+1",
                "1.0", version + "\n")
    codes = (*world.data.codes, "zz", "a99", "a-1", "s0", "s99", "t0", "t99", "tell", "turn",
             "pick", "lobby.join", "lobby.start", "lobby.ai", "lobby.leave", "lobby.nope",
             "lobby.", "x" * 40, "x" * 41, "é", "a 1", "A0", "turn ", "..")

    def digits(n: int) -> str:
        return re.sub(r"\d+", str(n), code) if re.search(r"\d", code) else code + str(n)

    ways: list[tuple[int, st.SearchStrategy[tuple[str, str]]]] = [
        (30, st.just((f"{pre}:{table}:{version}:{code}", "as shown"))),
        (6, st.integers(0, max(len(custom_id) - 1, 0)).map(
            lambda n: (custom_id[:n], f"truncated to {n}"))),
        (10, st.sampled_from(tables).map(
            lambda t: (f"{pre}:{t}:{version}:{code}", "other table"))),
        (12, st.sampled_from(versions).map(
            lambda x: (f"{pre}:{table}:{x}:{code}", "other version"))),
        (12, st.sampled_from(codes).map(
            lambda c: (f"{pre}:{table}:{version}:{c}", "other code"))),
        (6, INTS.map(lambda n: (f"{pre}:{table}:{version}:{digits(n)}",
                                "other number in code"))),
        (5, st.sampled_from((":", ":x", "::", f":{code}", "\n", " ")).map(
            lambda x: (custom_id + x, "extra"))),
        (5, st.sampled_from(("ft", "fs", "fm", "FT", "ft ", "xx", "", "ft:ft")).map(
            lambda p: (f"{p}:{table}:{version}:{code}", "other prefix"))),
        (7, st.sampled_from(("", "ft:", "ft:::", "ft:" + "a" * 97, custom_id + "x" * 100,
                             custom_id.replace(":", "："), custom_id + "é", "ft:tä:1:s1",
                             f"ft:{table}:{version}:{code}é")).map(lambda c: (c, "odd"))),
        (7, TEXT.map(lambda t: (t, "random text"))),
    ]
    return weighted(ways)


def weighted(ways: list[tuple[int, st.SearchStrategy[Any]]]) -> st.SearchStrategy[Any]:
    """One of ``ways``, each as often as its weight says (hypothesis's ``one_of`` favours
    the branches with the most to explore, here the random texts)."""
    total = sum(w for w, _ in ways)

    def pick(n: int) -> st.SearchStrategy[Any]:
        for w, way in ways:
            if n < w:
                return way
            n -= w
        return ways[-1][1]

    return st.integers(0, total - 1).flatmap(pick)


def _pressers(source: Posted) -> tuple[int, ...]:
    own = tuple(u for u in (source.dm_user, source.viewer) if u)
    return (*own, *own, *PRESSERS)


def _where(world: World, source: Posted, draw: Any) -> tuple[int | None, bool, str]:
    """Where the click comes from: (guild channel or ``None`` for a DM, whether the
    message is ephemeral, the words for it)."""
    home = None if source.dm_user else source.channel_id
    choice = draw(st.sampled_from(("home", "home", "home", "other", "other", "other private",
                                   "dm")))
    if choice == "home":
        return home, bool(source.flags & EPHEMERAL), "on its message"
    if choice == "dm":
        return None, False, "in a DM"
    other = draw(st.sampled_from([c for c in CHANNELS if c != source.channel_id]))
    if choice == "other private":
        return other, True, "on a private message in another channel"
    return other, False, "on a public message in another channel"


@st.composite
def click_cases(draw: Any, world: World, select: bool) -> Case:
    pool = world.components(select)
    source = draw(st.sampled_from(pool))
    custom_id, how = draw(mutated(world, source.custom_id))
    user = draw(st.sampled_from(_pressers(source)))
    channel, ephemeral, where = _where(world, source, draw)
    if channel is None and source.dm_user == user:
        where = "on its message (the hand in the DM)"
    values = None
    if select:
        valid = list(source.values) or ["x"]
        others = world.select_values()
        values = draw(st.one_of(
            st.sampled_from(valid).map(lambda v: [v]),
            st.sampled_from(valid).map(lambda v: [v]),
            st.just([]),
            st.lists(st.sampled_from(valid), min_size=2, max_size=3),
            st.sampled_from(others).map(lambda v: [v]),
            st.sampled_from(("lobby.join", "lobby.start", "lobby.ai", "turn", "tell", "t0",
                             "a99", "zz", "x" * 101, "é", "")).map(lambda v: [v]),
            TEXT.map(lambda v: [v]),
        ))
    return Case("select" if select else "button", user,
                draw(st.one_of(st.just(NAMES[user]), NAME)), channel, custom_id=custom_id,
                values=values, source=source, ephemeral=ephemeral, note=f"{how}, {where}")


def form_layouts(words: str) -> st.SearchStrategy[tuple[list[dict[str, Any]], str]]:
    def row(value: Any, cid: str = "text") -> list[dict[str, Any]]:
        return [{"type": 1, "components": [{"type": 4, "custom_id": cid, "value": value}]}]

    return st.sampled_from((
        (row(words), "row"),
        (row(words), "row"),
        ([{"type": 18, "component": {"type": 4, "custom_id": "text", "value": words}}],
         "label"),
        ([], "no inputs"),
        (row(words, "story"), "another input"),
        (row(None), "no value"),
        (row(12345), "a number"),
        (row("") + row(words), "two inputs"),
    ))


@st.composite
def form_cases(draw: Any, world: World) -> Case:
    opened, other = world.form_bases()
    base = draw(weighted([(1, st.sampled_from(opened)), (3, st.sampled_from(other))]))
    custom_id, how = draw(mutated(world, base, prefix="fm"))
    words = draw(st.one_of(st.sampled_from(("Snow fell on Wintertown.", "Once upon a time.")),
                           TEXT))
    components, layout = draw(form_layouts(words))
    user = draw(st.sampled_from(PRESSERS))
    m = FORM_TEMPLATE.fullmatch(base)
    home = world.data.tables.get(m["table"], ("", EMPTY))[1] if m else EMPTY
    place = draw(st.sampled_from(("home", "home", "other", "dm")))
    channel = home if place == "home" else None if place == "dm" else draw(
        st.sampled_from([c for c in CHANNELS if c != home]))
    message = draw(st.sampled_from(("public message", "private message", "no message")))
    return Case("form", user, draw(st.one_of(st.just(NAMES[user]), NAME)), channel,
                custom_id=custom_id, form_components=components,
                ephemeral=message == "private message", with_message=message != "no message",
                note=f"{how}, {layout}, {place}, from a {message}")


# --------------------------------------------------------------------------- the tests

COUNTS: Counter[str] = Counter()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
          ) -> Iterator[World]:
    # Moves are announced at once (no wait for a previous delivery of the table).
    patch = pytest.MonkeyPatch()
    patch.setattr(delivery_order.TableOrder, "WAIT", 0.01)
    started = time.perf_counter()
    w = World(tmp_path_factory.mktemp("fuzz"))
    built = time.perf_counter() - started
    try:
        yield w
    finally:
        w.close()
        patch.undo()
        line = (f"fuzz cases: slash {COUNTS['slash']}, buttons {COUNTS['buttons']}, "
                f"selects {COUNTS['selects']}, forms {COUNTS['forms']}")
        detail = (f"  (autocomplete {COUNTS['autocomplete']} of the slash cases; accepted "
                  f"as valid changes: {dict(w.accepted)}; world restored {w.resets} times; "
                  f"built in {built:.1f} s; {len(w.data.posted)} real components, "
                  f"{len(w.data.forms)} real forms, {len(w.commands)} commands)")
        capture = request.config.pluginmanager.getplugin("capturemanager")
        with (capture.global_and_fixture_disabled() if capture is not None
              else contextlib.nullcontext()):
            print(f"\n{line}\n{detail}")


FUZZ = settings(deadline=None, derandomize=True, database=None, print_blob=False,
                phases=(Phase.explicit, Phase.generate, Phase.shrink),
                suppress_health_check=list(HealthCheck))
"""Repeatable (the same cases every run), no example database written, no time limit
per case (a restore of the world takes a few hundred milliseconds); a failure is
shrunk to its simplest case."""
EXAMPLES = {"slash": 200, "buttons": 200, "selects": 120, "forms": 120}
"""Cases per kind: the file runs in well under a minute on two shared cores."""


def test_the_world_has_every_game_and_every_kind_of_input(world: World) -> None:
    stored = rows(world.template)
    games = {r.game_id for r in stored.values()}
    assert set(GAMES) <= games and {s.id for s in specs()} <= games
    assert {r.status for r in stored.values()} >= {"lobby", "playing", "finished", "aborted"}
    ids = [p.custom_id for p in world.data.posted]
    assert any(i.startswith("ft:") and i.endswith(":lobby.join") for i in ids)
    assert any(i.startswith("fs:") for i in ids) and world.data.forms
    assert any(p.dm_user for p in world.data.posted) and any(p.viewer for p in world.data.posted)
    assert any(has_hands(g) for g in GAMES)
    names = {c.qualified_name for c in world.commands}
    assert {"table new", "hand", "rules", "winter tell", "crossroads inn"} <= names


def _hand_now(row: Row, seat: int) -> str:
    """The words of a seat's hand with its choices as the stored state has them now
    (what its panel, or its DM after Refresh, shows)."""
    game = get_game(row.game_id)
    assert row.state is not None
    state = game.load_state(row.state)
    legal = game.legal_actions(state, seat) if seat in game.to_act(state) else []
    seats = tuple(SimpleNamespace(index=s["index"], name=s["name"])
                  for s in json.loads(row.seats))
    info = SimpleNamespace(game_name=game.name, seats=seats, channel_id=row.channel_id,
                           status=TableStatus(row.status), version=row.version,
                           outcome_text=None)
    return get_ui(row.game_id).hand_text(info, game.view(state, seat), legal, [])


def test_the_leak_check_tells_a_seat_s_own_secrets_from_another_s(world: World) -> None:
    """The oracle itself: each seat's hand (its DM hand message as it reads now, and its
    hand with choices as the state has it now) holds no secret of the others' (Crossroads
    Inn Recipes and draft tiles, Winter Tales cards), and the hand with choices holds
    secrets its reader may see and another seat may not."""
    stored = rows(world.template)
    for game in ("crossroads-inn", "winter-tales"):
        row = next(r for r in stored.values() if r.channel_id == PLAY[game])
        for user in SEATED[PLAY[game]]:
            mine = row.seat_of(user)
            assert mine is not None
            record = "\n".join(t for t in world.data.hand_texts.get((row.channel_id, user), []))
            assert record, (game, user)
            now = _hand_now(row, mine)
            for text in (record, now):
                assert not [p.pattern for p in world.secrets.of(row, mine) if p.search(text)]
            others = [row.seat_of(u) for u in SEATED[PLAY[game]] if u != user]
            assert any(p.search(now) for seat in others for p in world.secrets.of(row, seat)), (
                f"{game}: nothing of {NAMES[user]}'s hand counts as secret to the others")


def _to_act(world: World, channel: int) -> int:
    row = next(r for r in rows(world.template).values() if r.channel_id == channel)
    game = get_game(row.game_id)
    seat = game.to_act(game.load_state(row.state or ""))[0]
    return next(s["user_id"] for s in json.loads(row.seats) if s["index"] == seat)


def _shown(world: World, channel: int, code: str | None = None) -> Posted:
    """A button the bot showed publicly at the table of ``channel``: the one with
    ``code`` (a lobby button, any version), else a turn button at the table's version."""
    table, row = next((t, r) for t, r in rows(world.template).items()
                      if r.channel_id == channel)
    for p in world.components(False):
        m = _BUTTON.fullmatch(p.custom_id)
        if m is None or m["table"] != table or p.viewer is not None or p.dm_user is not None:
            continue
        if code is not None and m["code"] == code:
            return p
        if code is None and int(m["version"]) == row.version and not m["code"].startswith(
                "lobby.") and get_ui(row.game_id).form_title(m["code"]) is None:
            return p
    raise LookupError(f"no such button at the table in {channel}")


def _opt(name: str, value: Any, kind: int = 3) -> dict[str, Any]:
    return {"name": name, "type": kind, "value": value}


def _found(world: World, name: str) -> Case:
    """The cases the fuzzer found (or that the channel rule is about), kept as examples
    that always run (the random cases reach some of them only now and then)."""
    inn, winter, crossroads = PLAY["fairy-tale-inn"], PLAY["winter-tales"], PLAY["crossroads-inn"]
    if name == "slash: an unknown command (a stale registration)":
        return Case("slash", ANN, "Ann", inn, path=("chess",), note="unknown")
    if name == "slash: an unknown subcommand":
        return Case("slash", ANN, "Ann", inn, path=("table", "nope"), note="unknown sub")
    if name == "slash: /crossroads inn seat below 1":
        return Case("slash", ANN, "Ann", crossroads, path=("crossroads", "inn"),
                    options=[_opt("seat", -1162, 4)], command="crossroads inn")
    if name == "slash: /crossroads inn seat 0":
        return Case("slash", ANN, "Ann", crossroads, path=("crossroads", "inn"),
                    options=[_opt("seat", 0, 4)], command="crossroads inn")
    if name == "slash: /admin sync scope off its choices":
        return Case("slash", OWNER_ID, "Owner", EMPTY, path=("admin", "sync"),
                    options=[_opt("scope", "everywhere")], command="admin sync")
    if name == "slash: /table new reminder_minutes above its range":
        return Case("slash", DAVE, "Dave", EMPTY, path=("table", "new"),
                    options=[_opt("game", "treasure"), _opt("reminder_minutes", 5000.0, 10)],
                    command="table new")
    if name == "slash: /winter tell side off its choices":
        return Case("slash", CAROL, "Carol", winter, path=("winter", "tell"),
                    options=[_opt("text", "Snow fell."), _opt("side", "SPRING")],
                    command="winter tell")
    if name == "button: a turn button copied to another channel":
        source = _shown(world, inn)
        return Case("button", _to_act(world, inn), "Ann", EMPTY, custom_id=source.custom_id,
                    source=source, note="on a public message in another channel")
    if name == "button: Join copied to another channel":
        source = _shown(world, LOBBY["pocket"], "lobby.join")
        return Case("button", DAVE, "Dave", EMPTY, custom_id=source.custom_id, source=source,
                    note="on a public message in another channel")
    if name == "button: Join pressed in a DM":
        source = _shown(world, LOBBY["pocket"], "lobby.join")
        return Case("button", DAVE, "Dave", None, custom_id=source.custom_id, source=source,
                    note="in a DM")
    if name == "form: a passage sent from another channel's public message":
        form = world.form_bases()[0][0]
        return Case("form", CAROL, "Carol", EMPTY, custom_id=form, form_components=[
            {"type": 1, "components": [{"type": 4, "custom_id": "text", "value": "Snow."}]}],
            note="from a public message in another channel")
    raise KeyError(name)


FOUND = (
    "slash: an unknown command (a stale registration)",
    "slash: an unknown subcommand",
    "slash: /crossroads inn seat below 1",
    "slash: /crossroads inn seat 0",
    "slash: /admin sync scope off its choices",
    "slash: /table new reminder_minutes above its range",
    "slash: /winter tell side off its choices",
    "button: a turn button copied to another channel",
    "button: Join copied to another channel",
    "button: Join pressed in a DM",
    "form: a passage sent from another channel's public message",
)


@pytest.mark.parametrize("name", FOUND)
def test_found_cases(world: World, name: str) -> None:
    case = _found(world, name)
    COUNTS[{"button": "buttons", "select": "selects", "form": "forms"}.get(
        case.kind, "slash")] += 1
    world.run(case)


@settings(FUZZ, max_examples=EXAMPLES["slash"])
@given(data=st.data())
def test_fuzz_slash_commands(world: World, data: st.DataObject) -> None:
    case = data.draw(slash_cases(world))
    COUNTS["slash"] += 1
    if case.kind == "autocomplete":
        COUNTS["autocomplete"] += 1
    world.run(case)


@settings(FUZZ, max_examples=EXAMPLES["buttons"])
@given(data=st.data())
def test_fuzz_buttons(world: World, data: st.DataObject) -> None:
    case = data.draw(click_cases(world, select=False))
    COUNTS["buttons"] += 1
    world.run(case)


@settings(FUZZ, max_examples=EXAMPLES["selects"])
@given(data=st.data())
def test_fuzz_selects(world: World, data: st.DataObject) -> None:
    case = data.draw(click_cases(world, select=True))
    COUNTS["selects"] += 1
    world.run(case)


@settings(FUZZ, max_examples=EXAMPLES["forms"])
@given(data=st.data())
def test_fuzz_forms(world: World, data: st.DataObject) -> None:
    case = data.draw(form_cases(world))
    COUNTS["forms"] += 1
    world.run(case)
