"""Cluster mode end to end: bot processes with different shard ranges on one database.

Each process is the real ``python -m bot.cli run`` with ``SHARD_COUNT``/``SHARD_IDS``
against the emulator, which routes a guild's events to shard ``(guild_id >> 22) %
shard_count`` and every DM to shard 0, as Discord does. All table state is in the shared
database, so any process serves any table.

* Two processes of one shard each, on SQLite and on PostgreSQL: each serves its shard's
  games, and a DM (shard 0) finds a table the other process runs.
* Two processes of two shards each (0-1 and 2-3 of 4) on one PostgreSQL schema, all at
  once: a game on shard 0; a Crossroads Inn table on shard 2 (two people and an AI)
  played from the DM hand (served by the shard-0 process, announced in the shard-2
  channel) and from the channel, the same button clicked in both at the same moment
  four times (once with another player's click too), the turn handed to the AI from
  each process; a Fairy Tale Inn table against an AI; a reminder due in both processes.

  Then: of each set of simultaneous clicks one move applied, the others refused in
  words; one reminder; every table's action log without a gap, nothing in it twice,
  equal to its state's replay; every public line in its channel, a line told once in one
  message; no message sent twice; every outbox delivered; every interaction answered
  exactly once; no traceback (nor StaleVersion) in either process's log.

The PostgreSQL cases use a private schema of the test database (``pg_schema`` of
tests/conftest.py; skipped when the server is unreachable unless FABLETOP_REQUIRE_PG=1).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest

from bot.core.store import Store, TableRecord
from bot.core.store.factory import store_for
from bot.core.tables.audit import audit_store
from bot.messages.ui.texts import literal
from engines import get_game
from tests.conftest import BACKENDS, PgSchema
from tests.e2e.harness import BotProcess, latest_with_buttons, report_rate_limits, stop_quietly
from tests.e2e.play import click_code, fti_turn, prompt_version
from tests.emulator import Channel, Emulator, Interaction, Message, Person
from tests.emulator.ratelimits import MACHINE_SPEED_LIMITS

pytestmark = pytest.mark.e2e

T = TypeVar("T")

CROSSROADS = get_game("crossroads-inn")
REFUSED = ("older", "not your turn")
"""What a click that cannot count is told (a button of an older version, in the channel
or in a DM; a player whose turn it is not)."""


# --------------------------------------------------------------------------- the cluster


@pytest.fixture(params=BACKENDS)
def pg(request: pytest.FixtureRequest) -> PgSchema | None:
    """None for SQLite (one file in the test's directory); for PostgreSQL a fresh private
    schema (``pg_schema``: dropped after the test)."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("pg_schema")


@dataclass
class Cluster:
    emu: Emulator
    bots: list[BotProcess]
    store: Store
    """The test's own connection to the bots' database (reads only)."""
    launched: float
    first_shard_up: list[float] = field(default_factory=list)
    """When each process's first shard was connected (perf_counter)."""

    def timers_spread(self) -> float:
        """At most how many seconds apart the processes' timers started. A process
        starts them in discord.py's ``setup_hook``, which runs right after it logs
        "logging in" and before its first shard connects."""
        offset = time.time() - time.perf_counter()
        logins = []
        for bot in self.bots:
            text = bot.log().rsplit("---- start", 1)[-1]
            stamp = next((line[:23] for line in text.splitlines()
                          if "logging in using static token" in line), None)
            try:
                logins.append(datetime.strptime(stamp or "", "%Y-%m-%d %H:%M:%S,%f")
                              .timestamp() - offset)
            except ValueError:
                logins.append(self.launched)  # the log changed: the looser bound
        return max(max(self.first_shard_up) - min(logins), 0.0)


@contextlib.asynccontextmanager
async def cluster(request: pytest.FixtureRequest, emu: Emulator, tmp_path: Path,
                  pg: PgSchema | None, ranges: list[str], **env: str) -> AsyncIterator[Cluster]:
    """One bot process per shard range (``"0-1"``...), all started at once on one
    database (the first runs shard 0 and syncs the commands). On a passing test: nothing
    Discord would refuse, no interaction unanswered, no traceback in any log."""
    sep = "&" if pg is not None and "?" in pg.url else "?"
    url = f"{pg.url}{sep}search_path={pg.schema}" if pg is not None else None
    # The schema first, by one store (two processes would both migrate an empty one);
    # it stays open as the test's reader.
    store = pg.store() if pg is not None else store_for(tmp_path / "fabletop.db")
    await store.open()
    bots = []
    for ids in ranges:
        bot = BotProcess(emu, tmp_path, shards=tuple(_ids(ids)), database_url=url,
                         SHARD_COUNT=str(emu.shard_count), SHARD_IDS=ids, **env)
        bot.log_path = tmp_path / f"bot-shards-{ids}.log"
        bots.append(bot)
    launched = time.perf_counter()
    up: dict[int, float] = {}

    async def first_shard(i: int, bot: BotProcess) -> None:
        await emu.wait_for(lambda: bot.shards[0] in emu.gateway.ready_shards, 90,
                           f"shard {bot.shards[0]} to connect")
        up[i] = time.perf_counter()

    try:
        await asyncio.gather(
            *(bot.start(sync=i == 0, timeout=90) for i, bot in enumerate(bots)),
            *(first_shard(i, bot) for i, bot in enumerate(bots)))
        yield Cluster(emu, bots, store, launched, [up[i] for i in range(len(bots))])
        report_rate_limits(emu)
        call = getattr(request.node, "report_call", None)
        if call is not None and call.failed:
            _print_logs(bots)
            await _print_tables(emu, store)
        else:
            emu.assert_clean()
            for bot in bots:
                bot.assert_log_clean()
    except BaseException:
        _print_logs(bots)
        raise
    finally:
        await asyncio.gather(*(stop_quietly(bot) for bot in bots))
        await store.close()


def _ids(ids: str) -> list[int]:
    low, _, high = ids.partition("-")
    return list(range(int(low), int(high or low) + 1))


def _print_logs(bots: list[BotProcess]) -> None:
    for bot in bots:
        print(f"--- bot log ({bot.log_path}) ---\n{bot.log()[-6000:]}")


async def _print_tables(emu: Emulator, store: Store) -> None:
    """For a post-mortem: each table's row and the end of its channel."""
    for table_id in await store.all_table_ids():
        rec = await store.get_table(table_id)
        if rec is None:
            continue
        game = get_game(rec.game_id)
        to_act = game.to_act(game.load_state(rec.state)) if rec.state else []
        print(f"--- table {rec.id} {rec.game_id} {rec.status} v{rec.version} "
              f"r{rec.revision} to act {to_act} seats {rec.seats}")
        for a in (await store.actions(rec.id))[-4:]:
            print(f"    action v{a.version} seat {a.seat} user {a.user_id}: {a.action[:100]}")
        for m in emu.channels[rec.channel_id].messages[-4:]:
            print(f"    msg {m.id} edits={m.edits} deleted={m.deleted} "
                  f"{m.content[:300]!r} {m.custom_ids[:4]}")


async def until(check: Callable[[], Awaitable[T | None]], timeout: float, what: str) -> T:
    """Poll an async ``check`` (a read of the database) until it returns something."""
    deadline = time.perf_counter() + timeout
    while True:
        value = await check()
        if value:
            return value
        if time.perf_counter() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.1)


async def table_of(store: Store, channel: Channel) -> TableRecord:
    rec = await store.last_table_in_channel(channel.id)
    assert rec is not None, f"no table in {channel!r}"
    return rec


async def open_table(host: Person, others: list[Person], channel: Channel, game: str,
                     *, ais: int = 0, ai_level: str | None = None, **new: Any) -> None:
    await host.slash("/table new", game=game, channel=channel, **new)
    for p in others:
        await p.slash("/table join", channel=channel)
    for _ in range(ais):
        level = {"level": ai_level} if ai_level is not None else {}
        await host.slash("/table addbot", channel=channel, **level)
    started = await host.slash("/table start", channel=channel)
    assert started.reply is not None and started.reply.ephemeral, started.reply


def shards_that_got(emu: Emulator, inter: Interaction) -> set[int]:
    """The shards whose gateway sessions were sent this interaction."""
    return {s.shard_id for s in emu.gateway.sessions.values()
            if any(inter.token in text for _seq, text in s.history)}


# --------------------------------------------------------------------------- Fairy Tale Inn


def next_prompt(emu: Emulator, channel: Channel, after: tuple[int, int]) -> Message | None:
    """The newest turn message with buttons, if newer than ``after`` (the id and version
    of the one clicked: a new message, or the same one edited with the buttons of a
    newer version; the emulator edits a message in place, so they are taken before)."""
    msg = latest_with_buttons(emu, channel.id)
    if msg is None:
        return None
    if msg.id > after[0] or (msg.id == after[0] and prompt_version(msg) > after[1]):
        return msg
    return None


async def play_fti(emu: Emulator, channel: Channel, rng: random.Random, decisions: int,
                   timeout: float = 30) -> Message:
    """Make ``decisions`` Fairy Tale Inn decisions (whoever the turn message asks; an AI
    answers by itself), each followed by its announcement: the next turn message."""
    prompt = await emu.wait_for(lambda: next_prompt(emu, channel, (0, -1)), timeout,
                                f"a turn message in {channel.name}")
    for _ in range(decisions):
        seen = (prompt.id, prompt_version(prompt))
        await fti_turn(emu, channel, rng, prompt)
        prompt = await emu.wait_for(lambda s=seen: next_prompt(emu, channel, s), timeout,
                                    f"the next turn message in {channel.name} after {seen}")
    return prompt


# --------------------------------------------------------------------------- the checks


async def public_lines(store: Store, table_id: str, version: int | None = None) -> list[str]:
    """Every public line of the table's event log (of one ``version``), in order, as a
    channel message shows it."""
    out = []
    for e in await store.events(table_id):
        data = json.loads(e.data)
        if version is not None and e.version != version:
            continue
        if data.get("visible_to") is None and data.get("text"):
            out.append(literal(data["text"]))
    return out


async def check_table(emu: Emulator, store: Store, rec: TableRecord) -> int:
    """The action log is versions 1..N of a table at version N (no gap, no double);
    every public line of it is in the table's channel, a line said once in exactly one
    message (a line posted twice would be in two); one message of the channel has game
    buttons, of version N, while a person is to act (none once the table is closed).
    Returns N."""
    log = await store.actions(rec.id)
    assert [a.version for a in log] == list(range(1, rec.version + 1)), (
        rec.id, [a.version for a in log], rec.version)
    game = get_game(rec.game_id)
    to_act = game.to_act(game.load_state(rec.state)) if rec.status == "playing" else []
    people = [s for s in rec.seats if s["index"] in to_act and s["user_id"] is not None]
    with_buttons = [m for m in emu.channels[rec.channel_id].visible
                    if any(c.startswith(("ft:", "fs:")) and ":lobby." not in c
                           for c in m.custom_ids)]
    if people:
        assert [prompt_version(m) for m in with_buttons] == [rec.version], (
            rec.game_id, rec.version, with_buttons)
    elif rec.status != "playing":
        assert not with_buttons, (rec.game_id, rec.status, with_buttons)
    lines = await public_lines(store, rec.id)
    channel = [m.content for m in emu.channels[rec.channel_id].visible]
    said = Counter(lines)
    for line in lines:
        holders = sum(line in content for content in channel)
        assert holders >= 1, f"{rec.game_id}: {line!r} is not in the channel"
        alone = said[line] == 1 and not any(line in other for other in said if other != line)
        if alone:
            assert holders == 1, f"{rec.game_id}: {line!r} is in {holders} messages"
    return rec.version


def assert_every_interaction_answered_once(emu: Emulator) -> None:
    """Each interaction got its one callback (a second is refused with 40060 and shows in
    ``emu.api_errors``; none at all is a failed interaction)."""
    missing = [i for i in emu.interactions.values() if not i.acknowledged or i.failed]
    assert not missing, missing
    assert not emu.api_errors, emu.api_errors


# --------------------------------------------------------------------------- two shards


@pytest.fixture
async def two_shards(request: pytest.FixtureRequest, tmp_path: Path, pg: PgSchema | None
                     ) -> AsyncIterator[Cluster]:
    async with Emulator(shard_count=2, guilds=2, rate_limits=MACHINE_SPEED_LIMITS) as emu, \
            cluster(request, emu, tmp_path, pg, ["0", "1"]) as c:
        yield c


async def test_each_process_serves_its_shard_and_dms_reach_shard_zero(
    two_shards: Cluster,
) -> None:
    emu, store = two_shards.emu, two_shards.store
    g0, g1 = emu.guilds.values()
    assert (emu.gateway.shard_for(g0.id), emu.gateway.shard_for(g1.id)) == (0, 1)
    c0, c1 = emu.channel_named("general", g0), emu.channel_named("general", g1)
    alice, bob, carol, dave = (emu.user(n) for n in ("alice", "bob", "carol", "dave"))
    await asyncio.gather(open_table(alice, [bob], c0, "fairy-tale-inn"),
                         open_table(carol, [dave], c1, "fairy-tale-inn"))
    await asyncio.gather(play_fti(emu, c0, random.Random(1), 3),
                         play_fti(emu, c1, random.Random(2), 3))
    await emu.settle(quiet=0.3)
    for c in (c0, c1):
        rec = await table_of(store, c)
        assert rec.status == "playing" and rec.version >= 3
        await check_table(emu, store, rec)
    # carol's table is run by the shard-1 process; her DM arrives on shard 0, in the other
    # process, which must find the table in the shared store, not in its own memory.
    dm = emu.dm_channel(carol.user)
    assert dm is not None
    hand = await carol.slash("/hand", channel=dm)
    assert shards_that_got(emu, hand) == {0}
    assert hand.reply is not None and hand.reply.ephemeral
    # tables_of_user reads the store, so shard 0 finds the table shard 1 runs.
    assert "no seat" not in hand.reply.content, hand.reply.content
    assert "Fairy Tale Inn" in hand.reply.content
    assert emu.gateway.by_shard[0].conn is not None
    assert_every_interaction_answered_once(emu)


# --------------------------------------------------------------------------- four shards


REMINDER_MINUTES = 0.1
"""The reminder table's reminder time (6 s): due at the processes' first reminder pass
after the table starts (a pass runs when a process starts, then every 30 s)."""
REMINDER_POLL = 30.0
"""bot.core.tables.timers.TimersPart.run_reminders' period, as the bot runs it."""


@pytest.fixture
async def four_shards(request: pytest.FixtureRequest, tmp_path: Path, pg_schema: PgSchema
                      ) -> AsyncIterator[Cluster]:
    # Guild i lives on shard i. A reminder loop runs only with a default above 0; the
    # tables other than the reminder table keep that default (10 minutes: never due).
    # Pictures are drawn in a thread of each process: four more worker processes
    # starting with the two bots would only slow the start on a small machine.
    async with Emulator(shard_count=4, guilds=4, rate_limits=MACHINE_SPEED_LIMITS) as emu, \
            cluster(request, emu, tmp_path, pg_schema, ["0-1", "2-3"],
                    REMINDER_MINUTES="10", RENDER_WORKERS="0") as c:
        yield c


class CrossroadsTable:
    """A Crossroads Inn table seen from outside: the store's row, the people's screens.
    Its seats: the ``people`` and a heuristic AI."""

    def __init__(self, emu: Emulator, store: Store, channel: Channel,
                 people: list[Person]) -> None:
        self.emu, self.store, self.channel, self.people = emu, store, channel, people
        self.races: list[dict[str, Any]] = []
        self.handed_to_ai: list[str] = []
        """Where each click that ended a turn before the AI's came from (dm, channel)."""

    async def row(self) -> TableRecord:
        return await table_of(self.store, self.channel)

    def person_of(self, rec: TableRecord, seat: int) -> Person | None:
        uid = next(s["user_id"] for s in rec.seats if s["index"] == seat)
        return next((p for p in self.people if p.id == uid), None)

    async def actor(self) -> tuple[TableRecord, Person]:
        """The table once a person is to act (the AI may be playing its turn), and who."""
        async def check() -> tuple[TableRecord, Person] | None:
            rec = await self.row()
            seat = CROSSROADS.to_act(CROSSROADS.load_state(rec.state))[0]
            person = self.person_of(rec, seat)
            return (rec, person) if person is not None else None
        return await until(check, 30, "a person to act at the Crossroads table")

    def hand_message(self, person: Person) -> Message | None:
        hands = [m for m in person.dm_messages() if "hand**" in m.content]
        assert len(hands) <= 1, f"{person.name} has {len(hands)} hand messages"
        return hands[0] if hands else None

    def hand(self, person: Person, version: int) -> Message | None:
        """``person``'s DM hand once it offers the choices of ``version`` (its Refresh
        button alone is not a choice)."""
        msg = self.hand_message(person)
        ids = [c for c in msg.custom_ids if not c.endswith(":refresh")] if msg else []
        if msg is not None and ids and all(f":{version}:" in c for c in ids):
            return msg
        return None

    def public(self, version: int) -> Message | None:
        msg = latest_with_buttons(self.emu, self.channel.id)
        if msg is not None and any(f":{version}:" in c for c in msg.custom_ids):
            return msg
        return None

    async def current(self, person: Person, version: int) -> tuple[Message, Message]:
        """The turn message and ``person``'s DM hand, both showing ``version``.

        Between its player's looks the DM hand is a record (the bot token is spent on it
        only when someone else changed its secrets), so a person about to play from it
        taps its Refresh button, as the record tells them, or one of the older choices it
        still shows (the bot brings the hand to the moment of now): the click's own token,
        served by the shard-0 process, turns it into their choices."""
        await self.emu.wait_for(lambda: self.public(version), 30,
                                f"the turn message at v{version}")
        if self.hand(person, version) is None:
            def buttons() -> list[str] | None:
                m = self.hand_message(person)
                ids = [b.custom_id for b in (m.buttons if m else []) if b.custom_id
                       and not b.disabled]
                return sorted(ids, key=lambda c: not c.endswith(":refresh")) or None

            taps = await self.emu.wait_for(buttons, 30, f"{person.name}'s hand buttons")
            msg = self.hand_message(person)
            assert msg is not None
            looked = await person.click(msg, custom_id=taps[0])
            assert shards_that_got(self.emu, looked) == {0}, "a DM click goes to shard 0"
        return await self.emu.wait_for(
            lambda: (self.public(version), self.hand(person, version))
            if self.public(version) and self.hand(person, version) else None,
            30, f"the turn message and {person.name}'s hand at v{version}")

    async def moved(self, rec: TableRecord, person: Person, kind: str) -> None:
        """``person``'s one move at ``rec.version`` is committed: the action log's next
        entry is theirs, of ``kind``, and no later entry is theirs (only the AI may have
        moved on since: nothing played twice)."""
        async def check() -> bool:
            return (await self.row()).version > rec.version
        await until(check, 30, f"the move at v{rec.version} of the Crossroads table")
        await self.emu.settle(quiet=0.3)
        log = (await self.store.actions(rec.id))[rec.version:]
        assert log and log[0].user_id == person.id, log
        assert json.loads(log[0].action)["kind"] == kind, log[0]
        assert all(a.user_id is None for a in log[1:]), log

    async def from_the_dm(self) -> Interaction:
        """The person to act makes a move (a Guest Impression) in their DM hand: the
        interaction reaches shard 0 only; its news is in the table's channel."""
        rec, actor = await self.actor()
        _public, hand = await self.current(actor, rec.version)
        code = next(c.rsplit(":", 1)[1] for c in _codes(hand)
                    if c.rsplit(":", 1)[1].startswith("i."))
        inter = await click_code(actor, hand, code)
        assert shards_that_got(self.emu, inter) == {0}, "a DM click goes to shard 0"
        await self.moved(rec, actor, "impression")
        # The news, by the shard-0 process, in the shard-2 channel: the turn message now
        # offers the next step, and the move's public lines are in the channel.
        await self.emu.wait_for(lambda: self.public(rec.version + 1), 30,
                                "the turn message of the next step")
        lines = await public_lines(self.store, rec.id, rec.version + 1)
        assert lines, "the impression has public news"
        await self.emu.wait_for(
            lambda: all(any(x in m.content for m in self.channel.visible) for x in lines),
            30, "the impression's news in the channel")
        assert not told_alone(inter), inter.followups
        return inter

    async def skip_or_end(self) -> str:
        """The code both the turn message and the hand offer: Next, else End my turn."""
        rec, actor = await self.actor()
        public, hand = await self.current(actor, rec.version)
        both = ({c.rsplit(":", 1)[1] for c in _codes(public)}
                & {c.rsplit(":", 1)[1] for c in _codes(hand)})
        code = next((c for c in ("n", "end") if c in both), None)
        assert code is not None, (public, hand)
        return code

    def before_ai(self, rec: TableRecord, code: str, where: str) -> None:
        if code != "end":
            return
        state = CROSSROADS.load_state(rec.state)
        following = (CROSSROADS.to_act(state)[0] + 1) % state.players
        if self.person_of(rec, following) is None:
            self.handed_to_ai.append(where)

    async def race(self, code: str, *, dm_first: bool, bystander: Person | None = None
                   ) -> None:
        """The person to act clicks ``code`` on the turn message (the shard-2 process)
        and in their DM hand (the shard-0 process) at the same moment, ``bystander`` the
        same button in the channel: one move, the other clicks refused in words."""
        rec, actor = await self.actor()
        public, hand = await self.current(actor, rec.version)
        assert code in [c.rsplit(":", 1)[1] for c in _codes(public)], (code, public)
        assert code in [c.rsplit(":", 1)[1] for c in _codes(hand)], (code, hand)
        clicks = [(actor, hand, "dm"), (actor, public, "channel")]
        if not dm_first:
            clicks.reverse()
        if bystander is not None:
            clicks.append((bystander, public, "bystander"))
        inters = await asyncio.gather(*(click_code(p, m, code) for p, m, _ in clicks))
        for inter, (_p, _m, where) in zip(inters, clicks, strict=True):
            assert shards_that_got(self.emu, inter) == ({0} if where == "dm" else {2})

        def refusals() -> list[Interaction] | None:
            told = [i for i in inters if told_alone(i)]
            return told if len(told) == len(inters) - 1 else None

        told = await self.emu.wait_for(refusals, 30, "the refusal of the losing clicks")
        await self.moved(rec, actor, "next" if code == "n" else "end_turn")
        winner = [w for i, (_p, _m, w) in zip(inters, clicks, strict=True) if i not in told]
        assert winner != ["bystander"] and len(winner) == 1, winner
        for inter in told:
            answers = told_alone(inter)
            assert len(answers) == 1, inter.followups
            text = answers[0].content.lower()
            assert any(word in text for word in REFUSED), text
        for inter in inters:
            if inter not in told:
                assert not told_alone(inter), inter.followups
        self.before_ai(rec, code, winner[0])
        self.races.append({"code": code, "version": rec.version, "won": winner[0]})

    async def play_until_each_side_handed_the_ai_a_turn(self) -> None:
        """The people skip through their turns (Next, End my turn), clicking in the DM
        (the shard-0 process) and in the channel (the shard-2 process) by turns, until
        the turn has been handed to the AI from the DM and from the channel (so each
        process started the AI once) and the AI has played that turn."""
        for clicks in range(120):
            rec, actor = await self.actor()  # (after the AI's turn, if it is playing)
            if {"dm", "channel"} <= set(self.handed_to_ai):
                return
            code = await self.skip_or_end()
            public, hand = await self.current(actor, rec.version)
            where = "dm" if clicks % 2 == 0 else "channel"
            if code == "end":
                state = CROSSROADS.load_state(rec.state)
                following = (CROSSROADS.to_act(state)[0] + 1) % state.players
                if self.person_of(rec, following) is None:
                    where = next((w for w in ("dm", "channel") if w not in self.handed_to_ai),
                                 where)
            inter = await click_code(actor, hand if where == "dm" else public, code)
            await self.moved(rec, actor, "next" if code == "n" else "end_turn")
            assert not told_alone(inter), inter.followups
            self.before_ai(rec, code, where)
        raise AssertionError(f"the turn went to the AI only from {self.handed_to_ai}")


def told_alone(inter: Interaction) -> list[Message]:
    """What the bot told the clicker alone (a refusal, a note): the click's private
    follow-ups. A follow-up in the table's channel is the next turn message, which rides
    the click's token (it pings; everyone sees it)."""
    return [m for m in inter.followups if m.ephemeral or inter.channel.is_dm]


def _codes(msg: Message) -> list[str]:
    """Every custom_id a click can send from ``msg``: buttons, and each select's value
    (``click_code`` sends a select's value as its code)."""
    out = [b.custom_id for b in msg.buttons if b.custom_id and not b.disabled]
    for s in msg.selects:
        prefix = s.custom_id.rsplit(":", 1)[0] if s.custom_id else ""
        out += [f"{prefix}:{v}" for v in s.values]
    return out


async def lease_holders(c: Cluster, table_ids: list[str], stop: asyncio.Event
                        ) -> dict[str, set[str]]:
    """Which processes held each table's AI lease, sampled until ``stop`` (a report)."""
    from bot.core.store.postgres import PostgresStore

    seen: dict[str, set[str]] = {t: set() for t in table_ids}
    assert isinstance(c.store, PostgresStore)
    while not stop.is_set():
        for row in await c.store.pool.fetch(
                "SELECT table_id, owner FROM table_leases WHERE table_id = ANY($1)",
                table_ids):
            seen[row[0]].add(row[1].split(":", 1)[0])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.05)
    return seen


async def test_two_processes_of_two_shards_share_one_postgres(four_shards: Cluster) -> None:
    c = four_shards
    emu, store = c.emu, c.store
    began = time.perf_counter()
    g0, _g1, g2, g3 = emu.guilds.values()
    assert [emu.gateway.shard_for(g.id) for g in emu.guilds.values()] == [0, 1, 2, 3]
    first, _second = c.bots
    assert emu.gateway.by_shard[0].conn is not None and set(first.shards) == {0, 1}
    on_shard_0 = emu.channel_named("general", g0)
    crossroads = emu.channel_named("general", g2)
    ai_channel = emu.channel_named("games", g2)
    waiting = emu.channel_named("general", g3)
    alice, bob, carol, dave, erin, frank, gina = (
        emu.user(n) for n in ("alice", "bob", "carol", "dave", "erin", "frank", "gina"))

    # Four tables, three of them on the second process's shards.
    await asyncio.gather(
        open_table(frank, [gina], waiting, "fairy-tale-inn",
                   reminder_minutes=REMINDER_MINUTES),
        open_table(alice, [bob], on_shard_0, "fairy-tale-inn"),
        open_table(carol, [dave], crossroads, "crossroads-inn", ais=1, ai_level="heuristic",
                   options={"options": "basic_tiles=none"}),
        open_table(erin, [], ai_channel, "fairy-tale-inn", ais=1),
    )
    # The first process learns the tables of the second one's shards from DMs (shard 0):
    # both then have them live, both run their reminder and AI timers for them.
    for person in (frank, erin):
        dm = emu.dm_channel(person.user)
        assert dm is not None
        shown = await person.slash("/hand", channel=dm)
        assert shards_that_got(emu, shown) == {0}
        assert shown.reply is not None and "Fairy Tale Inn" in shown.reply.content

    table = CrossroadsTable(emu, store, crossroads, [carol, dave])
    ai_table = await table_of(store, ai_channel)
    stop_sampling = asyncio.Event()
    holders = asyncio.create_task(lease_holders(
        c, [ai_table.id, (await table.row()).id], stop_sampling))

    async def play_crossroads() -> None:
        await table.from_the_dm()
        _rec, actor = await table.actor()
        other = dave if actor == carol else carol
        # The steps of the turn skipped (gossips, investing, reserving: "n"), then the
        # turn ended ("end"), each clicked from both sides at once.
        for i in range(4):
            await table.race(await table.skip_or_end(), dm_first=i % 2 == 1,
                             bystander=other if i == 0 else None)
        await table.play_until_each_side_handed_the_ai_a_turn()

    async def play_against_ai(moves: int = 4) -> None:
        """Erin plays until the AI has made ``moves`` moves (each decision of hers waits
        for the turn message that follows it, so for the AI's answer)."""
        rng = random.Random(2)
        for _ in range(4 * moves):
            log = await store.actions(ai_table.id)
            if sum(a.user_id is None for a in log) >= moves:
                return
            await play_fti(emu, ai_channel, rng, 1)
        raise AssertionError(f"the AI made fewer than {moves} moves")

    async def remind() -> Message:
        """The reminder, once; then wait out the other process's pass of the same round
        (the two started within ``spread`` s of each other: so did their timers)."""
        def reminders() -> list[Message]:
            return [m for m in waiting.messages if "Reminder:" in m.content]

        found = await emu.wait_for(reminders, 2 * REMINDER_POLL + 15, "the reminder")
        spread = c.timers_spread()
        assert spread < REMINDER_POLL - 5, f"the processes started {spread:.1f} s apart"
        # A bounded wait for an instant (both passes of this round are over by then),
        # not for an event: the other process's pass sends nothing when it works.
        await asyncio.sleep(spread + 2.0)
        assert len(reminders()) == 1, [m.content for m in reminders()]
        reminder = found[0]
        rec = await table_of(store, waiting)
        assert rec.reminded_at is not None and rec.version == 0
        assert any(f":{rec.version}:" in cid for cid in reminder.custom_ids), \
            "the reminder carries the turn's buttons"
        # The table closes so no later round reminds it again while the test ends.
        closed = await frank.slash("/table abort", channel=waiting)
        assert closed.reply is not None
        return reminder

    done: dict[str, float] = {}

    async def timed(name: str, work: Awaitable[T]) -> T:
        value = await work
        done[name] = round(time.perf_counter() - began, 1)
        return value

    try:  # all at once; the first failure stops the others
        async with asyncio.TaskGroup() as group:
            group.create_task(timed("shard-0 game",
                                    play_fti(emu, on_shard_0, random.Random(1), 3)))
            group.create_task(timed("AI game", play_against_ai()))
            group.create_task(timed("crossroads", play_crossroads()))
            reminded = group.create_task(timed("reminder", remind()))
    finally:
        stop_sampling.set()
        ai_owners = await holders
    reminder = reminded.result()

    # Everything delivered, every table's log whole, every line said once.
    await emu.settle(quiet=0.5, timeout=20)
    await until(lambda: _none_undelivered(store), 20, "every outbox to be delivered")
    report = await audit_store(store)
    assert report.ok, report.mismatches
    versions = {}
    for name, channel in (("shard 0", on_shard_0), ("crossroads", crossroads),
                          ("AI", ai_channel), ("reminder", waiting)):
        versions[name] = await check_table(emu, store, await table_of(store, channel))
    ai_log = await store.actions(ai_table.id)
    ai_moves = [a for a in ai_log if a.user_id is None]
    assert len(ai_moves) >= 4 and {a.user_id for a in ai_log} == {None, erin.id}
    assert (await table_of(store, waiting)).status == "aborted"
    assert len(table.races) == 4
    crossroads_log = await store.actions((await table.row()).id)
    assert sum(a.user_id is None and json.loads(a.action)["kind"] == "end_turn"
               for a in crossroads_log) >= len(table.handed_to_ai) >= 2
    assert set(table.handed_to_ai) == {"dm", "channel"}, table.handed_to_ai
    rec, actor = await table.actor()
    await table.current(actor, rec.version)  # the DM hand too shows the table as it is
    assert emu.nonce_hits == 0, "a message was sent twice (Discord's nonce caught it)"
    assert_every_interaction_answered_once(emu)
    for bot in c.bots:
        text = bot.log()
        assert "StaleVersion" not in text and "Traceback" not in text, text[-6000:]
    facts = {
        "seconds to connect": [round(t - c.launched, 1) for t in c.first_shard_up],
        "timers at most s apart": round(c.timers_spread(), 1),
        "done at s": done,
        "reminder": reminder.content.splitlines()[0],
        "table versions": versions,
        "AI moves (Fairy Tale Inn)": len(ai_moves),
        "AI moves (Crossroads)": sum(a.user_id is None for a in crossroads_log),
        "turns handed to the AI": table.handed_to_ai,
        "AI lease holders seen": {t: sorted(o) for t, o in ai_owners.items()},
        "races": table.races,
        "interactions": len(emu.interactions),
        "longest message": max(len(m.content) for ch in (on_shard_0, crossroads, ai_channel,
                                                         waiting) for m in ch.messages),
        "wall s (after connect)": round(time.perf_counter() - began, 1),
    }
    print("\ncluster test:")
    for key, value in facts.items():
        print(f"  {key:<24} {value}")


async def _none_undelivered(store: Store) -> bool:
    return not await store.undelivered_outboxes()
