"""A crash load: concurrent games of every game, the bot SIGKILLed at random moments.

The real bot process (:class:`tests.e2e.harness.BotProcess`) plays against the loopback
Discord emulator. One table of each shipped game sits in a channel of its own, with
simulated people (one set per table, so each DM channel belongs to one table) and, for
some games, an AI seat. Every table's people play at once (:class:`TableDriver`): the
person to act (read from the store, as any e2e test does) clicks a random choice offered
on the message they would use (the public turn message, or their DM hand message for a
game with hands), follows the private menus the bot answers with, fills in a text form
when one opens, and waits to SEE the move acknowledged. What the click will play is
worked out beforehand with the game's own UI adapter (``resolve`` / ``with_text``, on the
clicker's view and legal actions), so each final click is recorded with the exact action
it must produce (:class:`Click`).

A move counts as acknowledged (``Click.acked``) only by what Discord shows the table's
people: buttons (in the channel or a DM hand message) that carry a newer version, the
clicked private menu turned into its confirmation, a new result line, or an answer that
says it is saved. Only one person of a table clicks at a time and only while no AI seat
is to act, so a newer version after a click is that click's move (the test checks each
against the action log anyway). Refusals, menus and apologies are told apart by their
words.

A :class:`Killer` SIGKILLs the bot at seeded random moments (a pause of play, or just
after some table's final click), snapshots every game component each table's people
can see at that moment, and restarts it. After each restart each table first settles
what its interrupted click did (acknowledged if the restarted bot shows the move), then
one of its people clicks a component posted BEFORE the kill (``force``: a client still
showing it), which must work (a menu, a move) or be refused cleanly (a private refusal),
never fail or apologise; then play goes on. The test (tests/e2e/test_crash.py) checks
the counts against the store.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bot.core.choices import get_ui
from bot.core.choices.adapter import UnknownChoice
from bot.core.store import Store, TableRecord
from bot.core.tables.stored import stored_state
from engines import get_game
from engines.catalog import has_hands
from tests.e2e.harness import BotProcess
from tests.emulator import CannotDoThat, Channel, Emulator, Interaction, Message, Person
from tests.emulator.models import MESSAGE_COMPONENT

log = logging.getLogger("crash_load")

RESULT = "Game over"
"""How the result of a finished game begins (bot/core/tables/texts.outcome_text)."""
APOLOGY = "Something went wrong on my side"
"""bot/messages/replies.INTERNAL_ERROR: a fault of ours, never an acceptable answer."""
SAVED = ("It is saved", "Your passage is in the story")
"""Answers that say a move was committed (bot/messages/clicks.py)."""
WORDS = ("snow", "lantern", "whisper", "frost", "bell", "shadow", "song", "ember", "gate")


@dataclass(frozen=True)
class TableSpec:
    game_id: str
    humans: int
    ais: tuple[str, ...] = ()
    options: str = ""


SPECS: tuple[TableSpec, ...] = (
    TableSpec("fairy-tale-inn", 2),
    TableSpec("pocket", 2, ais=("careful",)),
    TableSpec("crossroads-inn", 2),
    TableSpec("treasure", 2, ais=("team",)),
    TableSpec("winter-tales", 3),
)
"""One table of every shipped game (engines/catalog.BUILTIN)."""


@dataclass
class Click:
    """A click that plays a move, as sent: the table, the version its button carries
    (the move makes ``version + 1``), who clicked, and the action it must play."""

    table: str
    version: int
    user: int
    action: Any  # the action as JSON data (game.dump_action, parsed)
    epoch: int
    old_button: bool = False
    acked: bool = False
    how: str = ""
    outcome: str = ""


def ids_of(msg: Message) -> list[tuple[str, str, str | None]]:
    """(kind, custom_id, select value or None) of every enabled game component."""
    out: list[tuple[str, str, str | None]] = []
    for b in msg.buttons:
        if b.custom_id and not b.disabled and b.custom_id.startswith("ft:") \
                and ":lobby." not in b.custom_id:
            out.append(("button", b.custom_id, None))
    for s in msg.selects:
        if s.custom_id and not s.disabled and s.custom_id.startswith("fs:"):
            out.extend(("select", s.custom_id, v) for v in s.values)
    return out


def parse_id(custom_id: str) -> tuple[str, int, str]:
    _prefix, table, version, code = custom_id.split(":", 3)
    return table, int(version), code


def code_of(cid: str, value: str | None) -> str:
    return value if value is not None else parse_id(cid)[2]


def version_in(msg: Message, table: str) -> int:
    best = -1
    for cid in msg.custom_ids:
        if cid.startswith(("ft:", "fs:")) and ":lobby." not in cid:
            t, v, _ = parse_id(cid)
            if t == table:
                best = max(best, v)
    return best


class Load:
    """What the drivers and the killer share: the bot, the store the test reads through,
    the epoch (one per bot process), and everything counted."""

    def __init__(self, emu: Emulator, bot: BotProcess, store: Store, seed: int) -> None:
        self.emu, self.bot, self.store = emu, bot, store
        self.rng = random.Random(seed)
        self.epoch = 0
        self.up = asyncio.Event()
        self.up.set()
        self.stopping = False
        self.clicks: list[Click] = []
        self.problems: list[str] = []
        self.old: dict[str, int] = {}
        self.counts: dict[str, int] = {}
        self.down: list[tuple[float, float]] = []
        """(killed at, restarted at) perf_counter spans when no bot answered."""
        self.armed: asyncio.Event | None = None
        """Set by a driver right after a final click when the killer waits for one."""

    def count(self, what: str, n: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + n

    def problem(self, text: str) -> None:
        log.warning("PROBLEM %s", text)
        self.problems.append(text)

    def after_click(self) -> None:
        if self.armed is not None and not self.armed.is_set():
            self.armed.set()

    def killed_during(self, start: float, end: float) -> bool:
        """Whether a kill left no bot to answer at some moment of [start, end]."""
        now = time.perf_counter()
        for down, up in self.down:
            if down <= end and (up or now) >= start:
                return True
        return not self.up.is_set()


class Interrupted(Exception):
    """The bot was killed while a step waited for it."""


class TableDriver:
    """One table's channel and people, playing by clicks."""

    def __init__(self, load: Load, spec: TableSpec, channel: Channel,
                 people: list[Person], seed: int) -> None:
        self.load, self.spec, self.channel, self.people = load, spec, channel, people
        self.emu = load.emu
        self.game = get_game(spec.game_id)
        self.ui = get_ui(spec.game_id)
        self.hands = has_hands(spec.game_id)
        self.rng = random.Random(seed)
        self.by_id = {p.id: p for p in people}
        self.table_id: str | None = None
        self.tables: list[str] = []
        self.epoch = load.epoch
        self.pending: Click | None = None
        self.pending_over = 0
        self.snapshot: list[tuple[Message, Person, str, str | None]] = []
        self.finished = 0
        self.steps = 0
        self.resumed_epoch = load.epoch

    def __repr__(self) -> str:
        return f"<TableDriver {self.spec.game_id} #{self.channel.name} {self.table_id}>"

    # -- reading ------------------------------------------------------------------------

    async def record(self) -> TableRecord | None:
        if self.table_id is None:
            return None
        return await self.load.store.get_table(self.table_id)

    async def state_of(self, rec: TableRecord) -> Any:
        """The table's whole state, its journal read beside the row as the bot reads it."""
        state, _ = await stored_state(self.load.store, self.game, rec)
        return state

    def user_of(self, rec: TableRecord, seat: int) -> int | None:
        return next((s.get("user_id") for s in rec.seats if s["index"] == seat), None)

    def seat_of(self, rec: TableRecord, user: int) -> int | None:
        return next((s["index"] for s in rec.seats if s.get("user_id") == user), None)

    def messages(self) -> list[tuple[Message, Person | None]]:
        """The recent messages of the table that people see: the channel, their DMs and
        their private answers."""
        out: list[tuple[Message, Person | None]] = [(m, None) for m in self.channel.visible[-8:]]
        for p in self.people:
            out += [(m, p) for m in p.dm_messages()[-3:]]
            out += [(m, p) for m in p.ephemerals()[-4:]]
        return out

    def shown_version(self) -> int:
        """The newest version the table's buttons carry anywhere its people look."""
        assert self.table_id is not None
        best = -1
        for m in self.channel.visible[-8:]:
            best = max(best, version_in(m, self.table_id))
        for p in self.people:
            for m in p.dm_messages()[-3:]:
                best = max(best, version_in(m, self.table_id))
        return best

    def results_shown(self) -> int:
        return sum(RESULT in m.content for m in self.channel.visible)

    def current_message(self, person: Person, version: int) -> Message | None:
        """The message ``person`` acts on at ``version``: their DM hand message in a game
        with hands, else the channel's turn message; None until it carries ``version``."""
        assert self.table_id is not None
        marker = f":{self.table_id}:{version}:"
        if self.hands:
            for m in reversed(person.dm_messages()[-3:]):
                ids = [c for _k, c, _v in ids_of(m) if not c.endswith((":tell", ":refresh"))]
                if ids and all(marker in c for c in ids):
                    return m
            return None
        for m in reversed(self.channel.visible[-6:]):
            ids = [c for _k, c, _v in ids_of(m)]
            if ids:
                return m if all(marker in c for c in ids) else None
        return None

    def hand_message(self, person: Person) -> Message | None:
        """``person``'s DM hand message of this table (the newest DM with its buttons)."""
        assert self.table_id is not None
        for m in reversed(person.dm_messages()[-3:]):
            if any(parse_id(c)[0] == self.table_id for _k, c, _v in ids_of(m)):
                return m
        return None

    async def look(self, person: Person) -> None:
        """Between its player's looks the DM hand is a record (the bot token is spent on
        it only when someone else changed its secrets), so a person about to play taps
        its Refresh button, as the record says, or one of the older choices it still
        shows (the bot then brings the hand to the moment of now, with a short note):
        the click's own token turns the DM into their choices."""
        msg = self.hand_message(person)
        if msg is None:
            return  # not sent yet (the start, a restart's catch-up): the wait below
        offered = [(k, c, v) for k, c, v in ids_of(msg) if not c.endswith(":tell")]
        if not offered:
            return
        offered.sort(key=lambda x: (not x[1].endswith(":refresh"), x[0] != "button"))
        kind, cid, value = offered[0]
        self.load.count("hands refreshed")
        with contextlib.suppress(AssertionError):  # no answer: a kill; the wait says so
            await self.send(person, msg, kind, cid, value)

    def choices(self, msg: Message, version: int) -> list[tuple[str, str, str | None]]:
        assert self.table_id is not None
        marker = f":{self.table_id}:{version}:"
        out = []
        for kind, cid, value in ids_of(msg):
            code = code_of(cid, value)
            if marker not in cid or code in ("tell", "refresh"):  # out of turn: not a move
                continue
            if self.hands and code == self.ui.turn_code:
                continue
            out.append((kind, cid, value))
        return out

    # -- waiting ------------------------------------------------------------------------

    async def wait(self, predicate: Callable[[], Any], timeout: float, what: str) -> Any:
        """``predicate()`` once truthy; raises Interrupted if the bot is killed meanwhile,
        TimeoutError when the time is up."""
        epoch = self.load.epoch
        deadline = time.perf_counter() + timeout
        while True:
            if self.load.epoch != epoch or not self.load.up.is_set():
                raise Interrupted(what)
            value = predicate()
            if value:
                return value
            if time.perf_counter() > deadline:
                raise TimeoutError(f"{self}: {what}")
            await asyncio.sleep(0.05)

    async def wait_store(self, version: int, timeout: float) -> TableRecord | None:
        deadline = time.perf_counter() + timeout
        epoch = self.load.epoch
        while time.perf_counter() < deadline and self.load.epoch == epoch:
            rec = await self.record()
            if rec is None or rec.version > version or rec.status != "playing":
                return rec
            await asyncio.sleep(0.1)
        return None

    # -- opening ------------------------------------------------------------------------

    async def open(self, timeout: float = 40.0) -> None:
        """Make sure the channel has a game in progress: a new table, its people seated,
        its AI seats added, started. Idempotent, so a kill half-way only repeats a step;
        each command is given a moment to show in the store before the next."""
        deadline = time.perf_counter() + timeout
        host = self.people[0]
        while time.perf_counter() < deadline:
            await self.load.up.wait()
            rec = await self.load.store.live_table_in_channel(self.channel.id)
            if rec is not None and rec.status == "playing":
                if rec.id not in self.tables:
                    self.tables.append(rec.id)
                self.table_id = rec.id
                return
            try:
                if rec is None:
                    opts: dict[str, Any] = {"reminder_minutes": 0}
                    if self.spec.options:
                        opts["options"] = self.spec.options
                    await host.slash("/table new", game=self.spec.game_id,
                                     channel=self.channel, settle=False, options=opts)
                else:
                    seated = {s.get("user_id") for s in rec.seats}
                    missing = [p for p in self.people if p.id not in seated]
                    ais = sum(1 for s in rec.seats if s.get("ai_level"))
                    if missing:
                        await missing[0].slash("/table join", channel=self.channel,
                                               settle=False)
                    elif ais < len(self.spec.ais):
                        await host.slash("/table addbot", level=self.spec.ais[ais],
                                         channel=self.channel, settle=False)
                    else:
                        await host.slash("/table start", channel=self.channel, settle=False)
            except AssertionError:
                continue  # no answer (a kill): look again
            before = (rec.id, rec.revision) if rec is not None else None
            for _ in range(50):
                now = await self.load.store.live_table_in_channel(self.channel.id)
                key = (now.id, now.revision) if now is not None else None
                if key != before:
                    break
                await asyncio.sleep(0.1)
        raise AssertionError(f"{self}: could not open a table")

    # -- one decision ---------------------------------------------------------------------

    async def step(self) -> str:
        """One decision by clicks; returns what came of it ("acked", "refused", "ai",
        "waiting", ...)."""
        rec = await self.record()
        if rec is None or rec.status != "playing":
            if rec is not None and rec.status == "finished":
                self.finished += 1
            self.load.count("tables finished")
            await self.open()
            return "opened"
        state = await self.state_of(rec)
        version = rec.version
        to_act = self.game.to_act(state)
        humans = [s for s in to_act if self.user_of(rec, s) in self.by_id]
        if not humans or len(humans) < len(to_act):  # an AI seat is to act
            await self.wait_store(version, 10.0)
            return "ai"
        seat = self.rng.choice(humans)
        person = self.by_id[self.user_of(rec, seat)]  # type: ignore[index]
        if self.hands and self.current_message(person, version) is None:
            await self.look(person)
        try:
            msg = await self.wait(lambda: self.current_message(person, version), 12.0,
                                  f"{person.name}'s choices at v{version}")
        except TimeoutError:
            self.load.count("choices not shown in 12 s")
            return "waiting"
        view = self.game.view(state, seat)
        legal = self.game.legal_actions(state, seat)
        for _depth in range(4):
            offered = self.choices(msg, version)
            if not offered:
                return "nothing offered"
            kind, cid, value = self.rng.choice(offered)
            code = code_of(cid, value)
            form = self.ui.form_title(code)
            if form is not None:
                text = self.sentence(person)
                predicted = self.ui.with_text(code, view, legal, text)
                return await self.final(person, msg, kind, cid, value, version, predicted, text)
            try:
                res = self.ui.resolve(code, view, legal)
            except UnknownChoice:
                self.load.count("offered but unknown to the adapter")
                return "unknown"
            if res.action is not None:
                return await self.final(person, msg, kind, cid, value, version, res.action)
            if res.form is not None:
                return "form by resolve"
            inter = await self.send(person, msg, kind, cid, value)
            reply = await self.wait(lambda i=inter: self.answer_of(i), 10.0,
                                    f"the menu of {code}")
            if reply == "failed":
                self.load.problem(f"{self}: {inter!r} failed (no answer) without a kill")
                return "failed"
            if not isinstance(reply, Message) or not ids_of(reply):
                text = reply.content if isinstance(reply, Message) else reply
                if isinstance(reply, Message) and APOLOGY in reply.content:
                    self.load.problem(f"{self}: apology for menu {code}: {text!r}")
                return "refused"
            msg = reply
        return "too deep"

    def sentence(self, person: Person) -> str:
        a, b, c = self.rng.sample(WORDS, 3)
        n = self.rng.randrange(10**6)
        return f"{person.name} followed the {a} past the {b}, and the {c} answered ({n})."

    async def send(self, person: Person, msg: Message, kind: str, cid: str,
                   value: str | None, *, force: bool = False) -> Interaction:
        """Click (or pick) without waiting for the answer."""
        if kind == "button":
            return await person.click(msg, custom_id=cid, force=force, wait=False)
        if force:
            data = {"custom_id": cid, "component_type": 3, "values": [value]}
            channel = self.emu.channels[msg.channel_id]
            return self.emu.start_interaction(person.user, channel, MESSAGE_COMPONENT, data,
                                              message=msg, name=cid)
        return await person.select(msg, value, custom_id=cid, wait=False)  # type: ignore[arg-type]

    def answer_of(self, inter: Interaction) -> Message | str | None:
        """The first thing the bot showed the clicker: a private message, a modal, or
        ``"failed"`` (no answer in Discord's window)."""
        if inter.timed_out:
            return "failed"
        if inter.modal is not None:
            return "modal"
        reply = inter.reply
        if reply is not None and not reply.loading:
            return reply
        return None

    async def final(self, person: Person, msg: Message, kind: str, cid: str,
                    value: str | None, version: int, predicted: Any,
                    text: str | None = None, *, old: bool = False) -> str:
        """The click that plays ``predicted``; waits to see it acknowledged."""
        assert self.table_id is not None
        click = Click(self.table_id, version, person.id,
                      json.loads(self.game.dump_action(predicted)), self.load.epoch,
                      old_button=old)
        edited = msg.edited_at if msg.ephemeral else None
        started = time.perf_counter()
        if text is not None:
            # The click opens the text form; the move is its submission.
            opener = await self.send(person, msg, kind, cid, value, force=old)
            await self.wait(lambda: opener.modal is not None or opener.timed_out
                            or opener.reply is not None, 5.0, "the text form")
            if opener.modal is None:
                return self.judge_reply(click, opener, started)
            self.load.clicks.append(click)
            self.pending, self.pending_over = click, self.results_shown()
            inter = await person.submit_modal(text=text, wait=False)
        else:
            self.load.clicks.append(click)
            self.pending, self.pending_over = click, self.results_shown()
            inter = await self.send(person, msg, kind, cid, value, force=old)
        self.load.after_click()

        def seen() -> str | None:
            if self.shown_version() > version:
                return "newer buttons"
            if self.results_shown() > self.pending_over:
                return "the result"
            if msg.ephemeral and msg.edited_at != edited and not ids_of(msg):
                return "the menu became its confirmation"
            if inter.timed_out:
                return "failed"
            reply = inter.reply
            if reply is not None and not reply.loading:
                return "reply"
            return None

        try:
            how = await self.wait(seen, 15.0, f"the answer to {person.name}'s move")
        except TimeoutError:
            # Acknowledged (deferred) and then nothing: neither shown nor refused.
            click.outcome = "unanswered"
            self.load.count("moves unanswered in 15 s")
            return "unanswered"
        self.pending = None
        if how in ("failed", "reply"):
            return self.judge_reply(click, inter, started)
        click.acked, click.how, click.outcome = True, how, "acked"
        return "acked"

    def judge_reply(self, click: Click, inter: Interaction, started: float) -> str:
        if inter.timed_out:
            click.outcome = "failed"
            if not self.load.killed_during(started, started + 3.1):
                self.load.problem(f"{self}: {inter!r} failed (no answer) without a kill")
            return "failed"
        reply = inter.reply
        words = reply.content if reply is not None else ""
        if any(s in words for s in SAVED):
            click.acked, click.how, click.outcome = True, "saved", "acked"
            return "acked"
        if APOLOGY in words:
            click.outcome = "apology"
            self.load.problem(f"{self}: apology for a move at v{click.version}: {words!r}")
            return "apology"
        click.outcome = f"refused: {words[:80]}"
        return "refused"

    # -- the kill and after ---------------------------------------------------------------

    def take_snapshot(self) -> None:
        """Every game component of this table people can see at the moment of a kill."""
        self.snapshot = []
        if self.table_id is None:
            return
        seen: set[tuple[int, str, str | None]] = set()
        for msg, owner in self.messages():
            for _kind, cid, value in ids_of(msg):
                if parse_id(cid)[0] != self.table_id or (msg.id, cid, value) in seen:
                    continue
                seen.add((msg.id, cid, value))
                who = owner or self.person_pinged(msg) or self.people[0]
                self.snapshot.append((msg, who, cid, value))

    def person_pinged(self, msg: Message) -> Person | None:
        for uid in reversed([int(x) for x in _mentions(msg.content)]):
            if uid in self.by_id:
                return self.by_id[uid]
        return None

    async def resume(self) -> None:
        """After a restart: settle the interrupted click, then click the old buttons."""
        self.epoch = self.load.epoch
        click, self.pending = self.pending, None
        if click is not None and not click.acked:
            # What the restarted bot shows about it: its catch-up delivers a move
            # committed before the kill.
            with contextlib.suppress(TimeoutError, Interrupted):
                how = await self.wait(
                    lambda: ("newer buttons" if self.shown_version() > click.version else
                             "the result" if self.results_shown() > self.pending_over else None),
                    1.5, "the interrupted move")
                click.acked, click.how, click.outcome = True, f"{how} after restart", "acked"
            if not click.acked:
                click.outcome = click.outcome or "interrupted"
        picks = list(self.snapshot)
        self.rng.shuffle(picks)
        # The buttons of the newest version first: they may still be current.
        picks.sort(key=lambda x: -parse_id(x[2])[1])
        for msg, person, cid, value in picks[:1]:
            await self.old_click(msg, person, cid, value)
        self.snapshot = []
        self.resumed_epoch = self.epoch

    async def old_click(self, msg: Message, person: Person, cid: str, value: str | None
                        ) -> None:
        """A component posted before the kill: it must work or be refused cleanly."""
        assert self.table_id is not None
        _table, version, code = parse_id(cid)
        code = code_of(cid, value)
        if code == "tell":
            return
        kind = "select" if value is not None else "button"
        rec = await self.record()
        current = (rec is not None and rec.status == "playing" and rec.version == version
                   and rec.id == self.table_id)
        predicted = None
        text = None
        if current:
            assert rec is not None
            state = await self.state_of(rec)
            seat = self.seat_of(rec, person.id)
            if seat is not None and seat in self.game.to_act(state):
                view = self.game.view(state, seat)
                legal = self.game.legal_actions(state, seat)
                try:
                    if self.ui.form_title(code) is not None:
                        text = self.sentence(person)
                        predicted = self.ui.with_text(code, view, legal, text)
                    elif not (self.hands and code == self.ui.turn_code):
                        predicted = self.ui.resolve(code, view, legal).action
                except UnknownChoice:
                    predicted = None
        self.load.count("old buttons clicked")
        try:
            if code == "refresh":
                outcome = await self.old_refresh(msg, person, cid)
            elif predicted is not None:
                outcome = await self.final(person, msg, kind, cid, value, version, predicted,
                                           text, old=True)
            else:
                outcome = await self.old_answer(msg, person, kind, cid, value)
        except Interrupted:
            outcome = "interrupted"
        except TimeoutError:
            outcome = "silent"
            self.load.problem(f"{self}: no answer to the old button {cid} ({value})")
        key = {"acked": "moved", "refused": "refused", "menu": "menu", "modal": "refused",
               "interrupted": "interrupted"}.get(outcome, outcome)
        self.load.old[key] = self.load.old.get(key, 0) + 1

    async def old_refresh(self, msg: Message, person: Person, cid: str) -> str:
        """A DM hand's Refresh posted before the kill: the hand shows the moment of now
        in the same message (an edit on the click's token), never a failure."""
        started = time.perf_counter()
        edited = msg.edited_at
        inter = await self.send(person, msg, "button", cid, None, force=True)

        def shown() -> str | None:
            if inter.timed_out:
                return "failed"
            reply = inter.reply
            if reply is not None and not reply.loading:
                return "reply"
            if inter.acknowledged and msg.edited_at != edited:
                return "shown"
            return None

        how = await self.wait(shown, 10.0, f"the answer to {cid}")
        if how == "failed":
            if not self.load.killed_during(started, started + 3.1):
                self.load.problem(f"{self}: the old Refresh {cid} failed (no answer)")
            return "failed"
        reply = inter.reply
        if reply is not None and APOLOGY in reply.content:
            self.load.problem(f"{self}: apology for the old Refresh {cid}: {reply.content!r}")
            return "apology"
        return "menu"

    async def old_answer(self, msg: Message, person: Person, kind: str, cid: str,
                         value: str | None) -> str:
        started = time.perf_counter()
        inter = await self.send(person, msg, kind, cid, value, force=True)
        reply = await self.wait(lambda: self.answer_of(inter), 10.0, f"the answer to {cid}")
        if reply == "failed":
            if not self.load.killed_during(started, started + 3.1):
                self.load.problem(f"{self}: the old button {cid} failed (no answer)")
            return "failed"
        if reply == "modal":
            # A text form opens from the code alone; sent back, it must be refused (the
            # table moved on) with the words given back.
            done = await person.submit_modal(text=self.sentence(person), wait=False)
            reply = await self.wait(lambda: self.answer_of(done), 10.0, "the form's answer")
            if not isinstance(reply, Message):
                self.load.problem(f"{self}: the old form {cid} got {reply!r}")
                return "failed"
            if any(s in reply.content for s in SAVED):
                self.load.problem(f"{self}: a stale form {cid} was played: {reply.content!r}")
                return "moved"
        assert isinstance(reply, Message)
        if APOLOGY in reply.content:
            self.load.problem(f"{self}: apology for the old button {cid}: {reply.content!r}")
            return "apology"
        if ids_of(reply) or "hand**" in reply.content:
            return "menu"
        return "refused"


def _mentions(text: str) -> list[str]:
    import re

    return re.findall(r"<@!?(\d+)>", text)


class Killer:
    """SIGKILLs the bot at seeded random moments and starts it again."""

    def __init__(self, load: Load, drivers: list[TableDriver], seed: int) -> None:
        self.load, self.drivers = load, drivers
        self.rng = random.Random(seed)
        self.kills = 0
        self.after_click = 0
        self.restart_seconds: list[float] = []

    async def kill_once(self, how: str = "pause") -> None:
        load = self.load
        load.up.clear()
        load.epoch += 1
        down = time.perf_counter()
        load.down.append((down, 0.0))
        for d in self.drivers:
            d.take_snapshot()
        await load.bot.kill()
        self.kills += 1
        load.count(f"kills ({how})")
        await load.emu.wait_for(lambda: not set(load.bot.shards) & load.emu.gateway.ready_shards,
                                10, "the old gateway connection to close")
        t0 = time.perf_counter()
        await load.bot.start(sync=False)
        self.restart_seconds.append(time.perf_counter() - t0)
        load.down[-1] = (down, time.perf_counter())
        load.up.set()

    async def resumed(self, timeout: float = 3.0) -> None:
        """Until every table has clicked its old buttons (and had its answers)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline and any(
                d.resumed_epoch != self.load.epoch for d in self.drivers):
            await asyncio.sleep(0.05)

    async def run(self, kills: int, budget: float) -> None:
        """``kills`` kills, each once the tables have tried their old buttons on the
        restarted bot and played on for a moment (0.1 to 1 s): about half right after
        some table's click (0 to 60 ms later), the others at that random moment."""
        started = time.perf_counter()
        for _ in range(kills):
            if time.perf_counter() - started > budget:
                log.warning("kill budget of %.0f s spent after %d kills", budget, self.kills)
                break
            await self.resumed()
            await asyncio.sleep(self.rng.uniform(0.1, 1.0))
            if self.rng.random() < 0.5:
                self.load.armed = asyncio.Event()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.load.armed.wait(), 5.0)
                self.load.armed = None
                await asyncio.sleep(self.rng.uniform(0.0, 0.06))
                self.after_click += 1
                await self.kill_once("right after a click")
            else:
                await self.kill_once("mid-load")


async def drive(driver: TableDriver) -> None:
    """Play the table until the load stops; resume after every kill."""
    load = driver.load
    while not load.stopping:
        await load.up.wait()
        if driver.epoch != load.epoch:
            try:
                await driver.resume()
            except Exception:  # a kill during the resume: resume again
                if driver.epoch == load.epoch and load.up.is_set():
                    load.problem(f"{driver}: resume failed:\n{traceback.format_exc()}")
            continue
        epoch = load.epoch
        try:
            outcome = await driver.step()
        except Interrupted:
            outcome = "interrupted"
        except (CannotDoThat, TimeoutError, AssertionError) as exc:
            if epoch != load.epoch or not load.up.is_set():
                outcome = "interrupted"
            else:
                outcome = "driver retry"
                log.info("%s: %s", driver, exc)
        except Exception:
            if epoch != load.epoch or not load.up.is_set():
                outcome = "interrupted"
            else:
                load.problem(f"{driver}: step failed:\n{traceback.format_exc()}")
                outcome = "error"
                await asyncio.sleep(0.5)
        driver.steps += 1
        load.count(f"steps {outcome}")
