"""What one accepted click costs: service calls, table reads and store writes.

Drives the REAL bot in process with the fake Discord of ``tests/discord_fakes.py``
(``make_harness``, as the cog tests do): per game it opens a table, seats people only
(no AI seats, so every move is a click), starts, and plays ``--moves`` moves by clicking
what the bot offers, choosing at random (seeded) among the enabled choices:

* Fairy Tale Inn, Save the Treasure: the public turn message's buttons, then the
  private follow-up menu the click opens;
* Winter Tales: the player's DM hand message (a "Winter DM click"), then the private
  follow-up menu; a choice told with a sentence opens the narration form, which is
  submitted (reported on its own row: it is not a click).

A click is *accepted* when the table version went up by exactly one; clicks that only
open a menu (or the form) are reported on their own row. Everything is counted by
wrapping the live objects at run time, never by editing the code, so the same script
measures the code before and after a refactor:

* service calls: calls of public methods of ``h.service`` (coroutine functions, or
  any public method whose result is awaitable), by name;
* table reads: outermost calls of ``h.service.store`` methods named ``get_*``,
  ``load_*``, ``live_*``, ``read_*``, ``last_*``, ``find_*``, ``events``, ``actions``;
* commits: outermost store calls named ``commit*``, ``save*``, ``create*``, ``put*``,
  ``mark*``, ``set_*``, ``delete*``, ``write*``;
* outside writes (and reads): INSERT/UPDATE/DELETE/REPLACE (SELECT) statements executed
  on connections opened with ``aiosqlite.connect`` outside a store call (today: the
  Winter cog's WinterStore and the DM memory);
* store SQL, a cross-check that does not depend on method names: SELECTs and
  transactions (BEGIN) seen by a SQLite trace callback on the store's own connection.

By default the DM memory keeps its SQLite table as in production (``FabletopBot``
builds ``DmMemory(database_path)`` when it opens the service itself; ``make_harness``
injects the service, which leaves it in memory: ``--dm-memory memory``).

    .venv/bin/python -m bench.click_cost [--moves 12] [--game winter-tales] [--seed 0]
                                          [--trace] [--json figures.json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import contextvars
import functools
import inspect
import json
import logging
import random
import re
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

import aiosqlite

from bench.stats import percentile
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    Harness,
    Sent,
    close_harness,
    make_harness,
    user_payload,
)

GAMES = ("fairy-tale-inn", "treasure", "winter-tales")
PEOPLE = {ANN: "Ann", BOB: "Bob", CAROL: "Carol"}
PLAYERS = {"fairy-tale-inn": [ANN, BOB], "treasure": [ANN, BOB],
           "winter-tales": [ANN, BOB, CAROL]}
SEED = {"fairy-tale-inn": 7, "treasure": 7, "winter-tales": 11}
"""The table seed (the cog tests' seeds); ``--seed`` is added to it."""

READ_PREFIXES = ("get_", "load_", "live_", "read_", "last_", "find_")
READ_NAMES = ("events", "actions")
WRITE_PREFIXES = ("commit", "save", "create", "put", "mark", "set_", "delete", "write")
WRITE_SQL = re.compile(r"^\s*(INSERT|UPDATE|DELETE|REPLACE)\b", re.IGNORECASE)
READ_SQL = re.compile(r"^\s*(SELECT|WITH)\b", re.IGNORECASE)
BEGIN_SQL = re.compile(r"^\s*BEGIN\b", re.IGNORECASE)
FORM_TEXT = "The snow fell softly on the town."

# --------------------------------------------------------------------------- counting


@dataclass
class Counts:
    service: Counter[str] = field(default_factory=Counter)
    reads: Counter[str] = field(default_factory=Counter)
    writes: Counter[str] = field(default_factory=Counter)
    outside_writes: Counter[str] = field(default_factory=Counter)
    outside_reads: Counter[str] = field(default_factory=Counter)
    connections: Counter[str] = field(default_factory=Counter)
    """``outside``: connections opened outside the store."""
    store_sql: Counter[str] = field(default_factory=Counter)
    """``SELECT``, ``BEGIN``, ``WRITE`` statements on the store's own connections."""

    def copy(self) -> Counts:
        return Counts(**{f.name: Counter(getattr(self, f.name)) for f in fields(self)})

    def minus(self, before: Counts) -> Counts:
        return Counts(**{f.name: getattr(self, f.name) - getattr(before, f.name)
                         for f in fields(self)})


def _statement(sql: str) -> str:
    """``INSERT winter_hand_messages``: the verb and the table of a statement."""
    m = re.search(r"\b(?:INTO|UPDATE|FROM)\s+([A-Za-z_][A-Za-z0-9_]*)", sql, re.IGNORECASE)
    verb = sql.split(None, 1)[0].upper() if sql.strip() else "?"
    return f"{verb} {m[1] if m else '?'}"


def _callers(limit: int = 5) -> str:
    """The innermost functions of the bot on the stack, newest first."""
    names = []
    for frame in reversed(traceback.extract_stack()[:-2]):
        path = frame.filename.replace("\\", "/")
        if "/bot/" in path and "/bench/" not in path:
            module = path.rsplit("/bot/", 1)[1].removesuffix(".py").replace("/", ".")
            names.append(f"{module}:{frame.name}")
            if len(names) == limit:
                break
    return " <- ".join(names) or "?"


class Meter:
    """Counters installed by wrapping the live objects (nothing in the code is edited).

    Only what happens while ``recording`` is counted: the benchmark's own look-ups
    (the table version before and after a click) run with it off."""

    def __init__(self) -> None:
        self.counts = Counts()
        self.recording = False
        self.trace: list[str] = []
        """Per click: each service call and store call, with the bot functions that
        made it (what in the code path causes each read)."""
        self._in_store: contextvars.ContextVar[int] = contextvars.ContextVar(
            "click_cost_store_depth", default=0)
        self._undo: list[Callable[[], None]] = []

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        was, self.recording = self.recording, False
        try:
            yield
        finally:
            self.recording = was

    # -- the service ---------------------------------------------------------------

    def wrap_service(self, service: Any) -> list[str]:
        names = []
        for name in dir(service):
            if name.startswith("_"):
                continue
            try:
                attr = getattr(service, name)
            except Exception:
                continue
            if not callable(attr) or inspect.isclass(attr):
                continue
            try:
                setattr(service, name, self._service_call(attr, name))
            except (AttributeError, TypeError):
                continue  # a read-only attribute
            names.append(name)
        return names

    def _service_call(self, fn: Any, name: str) -> Any:
        def note() -> None:
            if self.recording:
                self.counts.service[name] += 1
                self.trace.append(f"service.{name} <- {_callers(4)}")

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def awrapper(*args: Any, **kwargs: Any) -> Any:
                note()
                return await fn(*args, **kwargs)

            return awrapper

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            result = fn(*args, **kwargs)
            if inspect.isawaitable(result):  # a plain method handing back a coroutine
                note()
            return result

        return wrapper

    # -- the store -----------------------------------------------------------------

    def wrap_store(self, store: Any) -> tuple[list[str], list[str]]:
        reads, writes = [], []
        for name in dir(store):
            if name.startswith("_"):
                continue
            if name.startswith(READ_PREFIXES) or name in READ_NAMES:
                bucket, kind = reads, "read"
            elif name.startswith(WRITE_PREFIXES):
                bucket, kind = writes, "write"
            else:
                continue
            try:
                attr = getattr(store, name)
            except Exception:
                continue
            if not callable(attr) or inspect.isclass(attr):
                continue
            try:
                setattr(store, name, self._store_call(attr, name, kind))
            except (AttributeError, TypeError):
                continue
            bucket.append(name)
        return reads, writes

    def _store_call(self, fn: Any, name: str, kind: str) -> Any:
        counter = self.counts.reads if kind == "read" else self.counts.writes

        def enter() -> contextvars.Token[int]:
            depth = self._in_store.get()
            if self.recording and depth == 0:  # a store method calling another: once
                counter[name] += 1
                self.trace.append(f"  store.{name} ({kind}) <- {_callers(5)}")
            return self._in_store.set(depth + 1)

        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def awrapper(*args: Any, **kwargs: Any) -> Any:
                token = enter()
                try:
                    return await fn(*args, **kwargs)
                finally:
                    self._in_store.reset(token)

            return awrapper

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            token = enter()
            try:
                result = fn(*args, **kwargs)
            finally:
                self._in_store.reset(token)
            if inspect.isawaitable(result):
                async def inside() -> Any:
                    inner = self._in_store.set(self._in_store.get() + 1)
                    try:
                        return await result
                    finally:
                        self._in_store.reset(inner)

                return inside()
            return result

        return wrapper

    async def trace_store_sql(self, store: Any) -> int:
        """A SQLite trace callback on every aiosqlite connection the store holds (its
        attributes, one level into lists and dicts): counts SQL whatever the method
        names. Returns how many connections were found."""
        found: list[aiosqlite.Connection] = []
        for value in vars(store).values():
            items = value.values() if isinstance(value, dict) else \
                value if isinstance(value, (list, tuple, set)) else [value]
            found += [v for v in items if isinstance(v, aiosqlite.Connection)]
        for conn in found:
            with contextlib.suppress(Exception):
                await conn.set_trace_callback(self._store_sql)
        return len(found)

    def _store_sql(self, sql: str) -> None:  # runs in the connection's thread
        if not self.recording:
            return
        if READ_SQL.match(sql):
            self.counts.store_sql["SELECT"] += 1
        elif BEGIN_SQL.match(sql):
            self.counts.store_sql["BEGIN"] += 1
        elif WRITE_SQL.match(sql):
            self.counts.store_sql["WRITE"] += 1

    # -- writes around the store ---------------------------------------------------

    def wrap_aiosqlite(self) -> None:
        original = aiosqlite.connect
        meter = self

        @functools.wraps(original)
        def connect(*args: Any, **kwargs: Any) -> Any:
            conn = original(*args, **kwargs)
            inside = meter._in_store.get() > 0  # the store's own: its SQL is its own
            if meter.recording and not inside:
                meter.counts.connections["outside"] += 1
            for method in ("execute", "executemany", "executescript", "execute_insert",
                           "execute_fetchall"):
                fn = getattr(conn, method, None)
                if fn is not None:
                    setattr(conn, method, meter._sql_call(fn, inside))
            return conn

        aiosqlite.connect = connect  # type: ignore[assignment]
        self._undo.append(lambda: setattr(aiosqlite, "connect", original))

    def _sql_call(self, fn: Any, in_store: bool) -> Any:
        meter = self

        @functools.wraps(fn)
        def wrapper(sql: str, *args: Any, **kwargs: Any) -> Any:
            if meter.recording:
                for statement in [s for s in str(sql).split(";") if s.strip()]:
                    if in_store:
                        meter._store_sql(statement)
                    elif WRITE_SQL.match(statement):
                        meter.counts.outside_writes[_statement(statement)] += 1
                        meter.trace.append(f"  outside {_statement(statement)} <- "
                                           f"{_callers(3)}")
                    elif READ_SQL.match(statement):
                        meter.counts.outside_reads[_statement(statement)] += 1
            return fn(sql, *args, **kwargs)

        return wrapper

    def undo(self) -> None:
        while self._undo:
            self._undo.pop()()


# --------------------------------------------------------------------------- clicks


@dataclass
class Click:
    game: str
    kind: str
    """``accepted`` (the click made a committed move), ``menu`` (it opened a private
    follow-up menu or the narration form), ``form`` (the narration form submitted,
    making the move), ``refused`` (nothing changed, nothing to click next)."""
    source: str
    """What was clicked: ``public`` (the turn message), ``menu`` (the follow-up),
    ``dm`` (the Winter hand message), ``form``."""
    code: str
    counts: Counts
    seconds: float
    trace: list[str] = field(default_factory=list)


def _code(custom_id: str) -> str:
    return custom_id.rsplit(":", 1)[-1]


class Player:
    """Plays one table by clicks and measures each interaction."""

    def __init__(self, h: Harness, meter: Meter, game: str, rng: random.Random) -> None:
        self.h, self.meter, self.game, self.rng = h, meter, game, rng
        self.clicks: list[Click] = []
        self.fallbacks = 0
        self.table_id: str | None = None

    async def status(self) -> Any:
        """The table now (by id once known: a finished table has left its channel)."""
        with self.meter.paused():
            info = await self.h.service.status(self.table_id or CHANNEL_ID)
        self.table_id = info.id
        return info

    async def measured(self, source: str, code: str, payload: dict[str, Any]
                       ) -> tuple[list[Sent], bool]:
        """Dispatch one interaction, record its cost; True if it made the move."""
        before = (await self.status()).version
        start = self.meter.counts.copy()
        self.meter.trace = []
        t0 = time.perf_counter()
        self.meter.recording = True
        try:
            sent = await self.h.fake.dispatch(self.h.bot, payload)  # settles bot tasks
            await self.h.fake.settle()
        finally:
            self.meter.recording = False
        elapsed = time.perf_counter() - t0
        await self.h.service.wait_idle()  # no AI seats: nothing to wait for
        moved = (await self.status()).version - before
        if moved not in (0, 1):
            raise AssertionError(f"one interaction moved the table {moved} versions")
        if moved:
            kind = "form" if source == "form" else "accepted"
        else:
            kind = "menu" if self.reply(sent) is not None else "refused"
        self.clicks.append(Click(self.game, kind, source, code,
                                 self.meter.counts.minus(start), elapsed,
                                 list(self.meter.trace)))
        return sent, bool(moved)

    # -- what to click ---------------------------------------------------------------

    @staticmethod
    def choices(components: list[dict[str, Any]]) -> list[tuple[str, list[str] | None]]:
        """Every enabled choice: (custom_id, select values or None). Not Winter's Tell
        button: it narrates outside the decision at hand."""
        out: list[tuple[str, list[str] | None]] = []
        stack = list(components)
        while stack:
            c = stack.pop(0)
            stack[:0] = c.get("components") or []
            cid = c.get("custom_id")
            if not cid or c.get("disabled"):
                continue
            if c.get("type") == 2 and _code(cid) != "tell":
                out.append((cid, None))
            elif c.get("type") == 3:
                out.extend((cid, [o["value"]]) for o in c.get("options") or [])
        return out

    def pick(self, components: list[dict[str, Any]]) -> tuple[str, list[str] | None] | None:
        options = self.choices(components)
        return self.rng.choice(options) if options else None

    @staticmethod
    def reply(sent: list[Sent]) -> Sent | None:
        """The private answer to a click: the narration form, or a menu."""
        for s in sent:
            if s.kind == "callback" and s.response_type == 9:
                return s
        for s in sent:
            if s.kind in ("callback", "followup") and s.custom_ids:
                return s
        return None

    def click_payload(self, user: int, cid: str, data: dict[str, Any], message_id: int | None,
                      values: list[str] | None, dm: bool, ephemeral: bool) -> dict[str, Any]:
        message = {"components": data.get("components") or [],
                   "content": data.get("content") or "", "flags": 64 if ephemeral else 0}
        if dm:
            return dm_click(self.h, user, cid, message_id or 0, message, values)
        src = Sent("followup", "POST", "", message, message_id=message_id)
        return self.h.fake.click_payload(cid, user_id=user, name=PEOPLE[user], message=src,
                                         values=values)

    def form_payload(self, user: int, form: Sent, dm: bool) -> dict[str, Any]:
        payload = self.h.fake._base(5, user, PEOPLE[user], 0, CHANNEL_ID)
        inputs = [c for row in form.data.get("components") or []
                  for c in row.get("components") or []]
        payload["data"] = {"custom_id": form.data["custom_id"], "components": [
            {"type": 1, "components": [{"type": 4, "custom_id": c["custom_id"],
                                        "value": FORM_TEXT}]} for c in inputs]}
        if dm:
            dm_context(payload, user, dm_channel(self.h, user))
        return payload

    async def follow(self, user: int, answer: Sent | None, dm: bool) -> bool:
        """Answer the private menu (or form) a click opened, until the move is made."""
        for _ in range(6):
            if answer is None:
                return False
            if answer.kind == "callback" and answer.response_type == 9:
                _sent, moved = await self.measured("form", "form",
                                                   self.form_payload(user, answer, dm))
                return moved
            chosen = self.pick(answer.components)
            if chosen is None:
                return False
            cid, values = chosen
            sent, moved = await self.measured("menu", _code(cid), self.click_payload(
                user, cid, answer.data, answer.message_id, values, dm, ephemeral=True))
            if moved:
                return True
            answer = self.reply(sent)
        return False

    # -- one move --------------------------------------------------------------------

    async def move(self) -> bool:
        info = await self.status()
        if info.status.value != "playing" or not info.to_act_users:
            return False
        if self.game == "winter-tales":
            return await self.winter_move(info)
        user = info.to_act_users[0]
        return await self.public_move(user, None)

    async def public_move(self, user: int, code: str | None) -> bool:
        prompt = self.h.fake.last_prompt()
        options = [o for o in self.choices(prompt.components)
                   if code is None or _code(o[0]) == code]
        if not options:
            raise AssertionError(f"nothing to click on {prompt}")
        cid, values = self.rng.choice(options)
        sent, moved = await self.measured("public", _code(cid), self.click_payload(
            user, cid, prompt.data, prompt.message_id, values, dm=False, ephemeral=False))
        return moved or await self.follow(user, self.reply(sent), dm=False)

    async def winter_move(self, info: Any) -> bool:
        users = list(info.to_act_users)
        self.rng.shuffle(users)
        for user in users:
            hand = hand_message(self.h, user, info.version)
            chosen = self.pick(hand[1]["components"]) if hand is not None else None
            if hand is None or chosen is None:
                continue
            cid, values = chosen
            sent, moved = await self.measured("dm", _code(cid), self.click_payload(
                user, cid, hand[1], hand[0], values, dm=True, ephemeral=False))
            return moved or await self.follow(user, self.reply(sent), dm=True)
        # No DM hand message with choices (closed DMs?): the public "Take your turn".
        self.fallbacks += 1
        return await self.public_move(users[0], "turn")


# --------------------------------------------------------------------------- DMs


def dm_channel(h: Harness, user: int) -> int:
    return next(c for c, u in h.fake.dm_channels.items() if u == user)


def dm_context(payload: dict[str, Any], user: int, channel: int) -> None:
    """Make an interaction payload a DM one: no guild, no member, a private channel."""
    payload.pop("guild_id", None)
    payload.pop("member", None)
    payload["channel_id"] = str(channel)
    payload["user"] = user_payload(user, PEOPLE[user])
    payload["channel"] = {"id": str(channel), "type": 1, "recipients": [user_payload(user)]}
    payload["context"] = 1
    payload["authorizing_integration_owners"] = {"1": str(user)}


def dm_click(h: Harness, user: int, cid: str, message_id: int, message: dict[str, Any],
             values: list[str] | None) -> dict[str, Any]:
    channel = dm_channel(h, user)
    payload = h.fake.click_payload(cid, user_id=user, values=values, channel_id=channel)
    dm_context(payload, user, channel)
    payload["message"] = h.fake.message_payload(channel, message, message_id=message_id)
    return payload


def hand_message(h: Harness, user: int, version: int) -> tuple[int, dict[str, Any]] | None:
    """(message id, content as last sent or edited) of the user's newest DM whose
    choices are for ``version``: the Winter hand message."""
    latest: dict[int, tuple[int, dict[str, Any]]] = {}
    for i, s in enumerate(h.fake.sent):
        if s.kind == "dm" and s.channel_id == user and s.message_id:
            latest[s.message_id] = (i, dict(s.payload))
        elif s.kind == "edit_message" and s.message_id in latest:
            latest[s.message_id] = (i, {**latest[s.message_id][1], **s.payload})
    for mid, (_i, data) in sorted(latest.items(), key=lambda kv: -kv[1][0]):
        ids = Sent("dm", "", "", data).custom_ids
        if any(cid.split(":")[2:3] == [str(version)] for cid in ids):
            return mid, data
    return None


# --------------------------------------------------------------------------- one game


async def play_game(game: str, moves: int, tmp: Path, dm_memory: str, seed: int
                    ) -> dict[str, Any]:
    db = tmp / f"{game}.sqlite3"
    h = await make_harness(db, seed=SEED[game] + seed)
    meter = Meter()
    wrapped = {"service": meter.wrap_service(h.service)}
    wrapped["reads"], wrapped["writes"] = meter.wrap_store(h.service.store)
    wrapped["store_connections"] = await meter.trace_store_sql(h.service.store)
    meter.wrap_aiosqlite()
    if dm_memory == "file":
        memory = getattr(getattr(h.bot, "delivery", None), "dm_memory", None)
        with contextlib.suppress(Exception):
            h.bot.delivery.dm_memory = type(memory)(db)
    player = Player(h, meter, game, random.Random(seed))
    t0 = time.perf_counter()
    made = 0
    try:
        host, *others = PLAYERS[game]
        await h.slash("table new", host, uname=PEOPLE[host], game=game)
        for user in others:
            await h.slash("table join", user, uname=PEOPLE[user])
        await h.slash("table start", host, uname=PEOPLE[host])
        await player.status()
        stuck = 0
        while made < moves and stuck < 3:
            if await player.move():
                made, stuck = made + 1, 0
            elif (await player.status()).status.value != "playing":
                break
            else:
                stuck += 1
        final = await player.status()
    finally:
        with contextlib.suppress(Exception):
            await close_harness(h)
        meter.undo()
    return {"game": game, "moves": made, "final_version": final.version,
            "final_status": final.status.value, "fallbacks": player.fallbacks,
            "seconds": time.perf_counter() - t0, "wrapped": wrapped, "clicks": player.clicks}


# --------------------------------------------------------------------------- figures

ROWS = {"accepted": "accepted", "menu": "opens menu", "form": "form submit",
        "refused": "refused"}


def summarise(clicks: list[Click]) -> dict[str, Any]:
    n = len(clicks)
    if not n:
        return {"clicks": 0}

    def series(f: Callable[[Counts], float]) -> dict[str, float]:
        xs = sorted(float(f(c.counts)) for c in clicks)
        return {"mean": statistics.fmean(xs), "median": percentile(xs, 0.5),
                "min": xs[0], "max": xs[-1]}

    def per_name(f: Callable[[Counts], Counter[str]]) -> dict[str, float]:
        total: Counter[str] = Counter()
        for c in clicks:
            total.update(f(c.counts))
        return {k: v / n for k, v in total.most_common()}

    ms = sorted(c.seconds * 1000 for c in clicks)
    return {
        "clicks": n,
        "sources": dict(Counter(c.source for c in clicks)),
        "service_calls": series(lambda c: sum(c.service.values())),
        "service_by_name": per_name(lambda c: c.service),
        "table_reads": series(lambda c: sum(c.reads.values())),
        "reads_by_name": per_name(lambda c: c.reads),
        "commits": series(lambda c: sum(c.writes.values())),
        "commits_by_name": per_name(lambda c: c.writes),
        "outside_writes": series(lambda c: sum(c.outside_writes.values())),
        "outside_writes_by_statement": per_name(lambda c: c.outside_writes),
        "outside_reads": series(lambda c: sum(c.outside_reads.values())),
        "outside_reads_by_statement": per_name(lambda c: c.outside_reads),
        "outside_connections": series(lambda c: c.connections["outside"]),
        "store_sql_selects": series(lambda c: c.store_sql["SELECT"]),
        "store_sql_transactions": series(lambda c: c.store_sql["BEGIN"]),
        "ms": {"p50": percentile(ms, 0.5), "max": ms[-1]},
    }


def groups(clicks: list[Click]) -> dict[str, list[Click]]:
    """Rows: each kind, and the accepted clicks by what was clicked (when they differ)."""
    out = {kind: [c for c in clicks if c.kind == kind] for kind in ROWS}
    sources = sorted({c.source for c in out["accepted"]})
    if len(sources) > 1:
        for source in sources:
            out[f"accepted:{source}"] = [c for c in out["accepted"] if c.source == source]
    return out


def _fmt(s: dict[str, float]) -> str:
    if s["min"] == s["max"]:
        return f"{s['mean']:.1f}"
    return f"{s['mean']:.1f} ({s['min']:.0f}-{s['max']:.0f})"


def _top(by_name: dict[str, float], k: int = 5) -> str:
    return ", ".join(f"{name} {v:.1f}" for name, v in list(by_name.items())[:k])


def _label(key: str) -> str:
    if ":" in key:
        return f"  {key.split(':')[1]} click"
    return ROWS[key]


def print_table(results: list[dict[str, Any]]) -> None:
    head = (f"{'game':<16}{'row':<15}{'n':>4}  {'service':<14}{'reads':<14}{'commits':<9}"
            f"{'out.writes':<12}{'out.reads':<11}{'sql sel/txn':<13}top 5 service calls")
    print(head)
    print("-" * (len(head) + 60))
    for r in results:
        for key, s in r["summary"].items():
            if not s["clicks"]:
                continue
            sql = f"{s['store_sql_selects']['mean']:.1f}/{s['store_sql_transactions']['mean']:.1f}"
            print(f"{r['game']:<16}{_label(key):<15}{s['clicks']:>4}  "
                  f"{_fmt(s['service_calls']):<14}{_fmt(s['table_reads']):<14}"
                  f"{_fmt(s['commits']):<9}{_fmt(s['outside_writes']):<12}"
                  f"{_fmt(s['outside_reads']):<11}{sql:<13}{_top(s['service_by_name'])}")
    print("\nPer click: mean, and (min-max) when the clicks differ. accepted = the click made "
          "a committed move (version +1), split by what was clicked; opens menu = a click "
          "that opened the private follow-up menu or the narration form; form submit = the "
          "narration form sent (a move, not a click). reads/commits = store method calls "
          "by name; out. = SQL on aiosqlite connections opened outside the store; sql "
          "sel/txn = SELECTs and transactions on the store's own connection (trace "
          "callback, independent of method names).")
    for r in results:
        for key, s in r["summary"].items():
            if not s["clicks"] or ":" in key:
                continue
            extra = []
            for title, name in (("reads", "reads_by_name"), ("commits", "commits_by_name"),
                                ("outside writes", "outside_writes_by_statement"),
                                ("outside reads", "outside_reads_by_statement")):
                if s[name]:
                    extra.append(f"{title}: {_top(s[name], 9)}")
            extra.append(f"outside connections {s['outside_connections']['mean']:.1f}")
            print(f"  {r['game']} {ROWS[key]}: " + "; ".join(extra)
                  + f"; {s['ms']['p50']:.0f} ms p50")


def print_traces(results: list[dict[str, Any]], clicks_of: dict[str, list[Click]]) -> None:
    for r in results:
        shown: set[tuple[str, str]] = set()
        for c in clicks_of[r["game"]]:
            if (c.kind, c.source) in shown or c.kind == "refused":
                continue
            shown.add((c.kind, c.source))
            print(f"\n{r['game']}, {ROWS[c.kind]} ({c.source} {c.code}): "
                  f"{sum(c.counts.service.values())} service calls, "
                  f"{sum(c.counts.reads.values())} reads, "
                  f"{sum(c.counts.writes.values())} commits")
            for line in c.trace:
                print(f"    {line}")


async def main_async(args: argparse.Namespace) -> int:
    results = []
    clicks_of: dict[str, list[Click]] = {}
    with tempfile.TemporaryDirectory(prefix="fabletop-clicks-") as tmp:
        for game in args.game or list(GAMES):
            r = await play_game(game, args.moves, Path(tmp), args.dm_memory, args.seed)
            clicks: list[Click] = r.pop("clicks")
            clicks_of[game] = clicks
            r["summary"] = {key: summarise(cs) for key, cs in groups(clicks).items()}
            r["per_click"] = [
                {"kind": c.kind, "source": c.source, "code": c.code, "ms": c.seconds * 1000,
                 **{f.name: dict(getattr(c.counts, f.name)) for f in fields(c.counts)}}
                for c in clicks]
            results.append(r)
    print(f"Cost of one click: people only (Fairy Tale Inn, Save the Treasure 2 seats; "
          f"Winter Tales 3), {args.moves} moves a game from the start, seed {args.seed}, "
          f"DM memory {args.dm_memory}, fake Discord, fake board renderer.")
    print_table(results)
    for r in results:
        w = r["wrapped"]
        note = (f"  {r['game']}: {r['moves']} moves to version {r['final_version']} "
                f"({r['final_status']}) in {r['seconds']:.1f} s; wrapped "
                f"{len(w['service'])} service methods, store reads {w['reads']}, "
                f"writes {w['writes']}, {w['store_connections']} store connection(s) traced")
        if r["fallbacks"]:
            note += f"; {r['fallbacks']} moves via the public turn button"
        print(note)
        if not w["reads"] or not w["writes"]:
            print("  WARNING: no store read or write method matched the name patterns: "
                  "the reads/commits columns are not meaningful; see sql sel/txn")
    if args.trace:
        print_traces(results, clicks_of)
    if args.json:
        out = {"benchmark": "bench.click_cost", "moves": args.moves, "seed": args.seed,
               "dm_memory": args.dm_memory, "python": sys.version.split()[0],
               "games": results}
        Path(args.json).write_text(json.dumps(out, indent=2, default=str) + "\n")
        print(f"figures written to {args.json}")
    short = [r["game"] for r in results
             if r["moves"] < args.moves and r["final_status"] == "playing"]
    if short:
        print(f"stopped early, nothing left to click: {', '.join(short)}")
    return 1 if short else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=12, help="moves per game (default 12)")
    parser.add_argument("--game", action="append", choices=GAMES, default=None,
                        help="only this game (repeatable)")
    parser.add_argument("--seed", type=int, default=0,
                        help="added to the table seeds; also drives the choice of clicks")
    parser.add_argument("--dm-memory", choices=["file", "memory"], default="file",
                        help="file (default): the DM memory in the SQLite file, as in "
                             "production; memory: as make_harness leaves it")
    parser.add_argument("--trace", action="store_true",
                        help="print, for one click of each kind, every call and its callers")
    parser.add_argument("--json", default=None, metavar="PATH", help="write the figures here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
