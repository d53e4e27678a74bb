"""Crossroads Inn end to end: the bot process, the emulator, simulated innkeepers.

Each person plays only through what Discord shows them: the buttons and selects of the
public turn message, the follow-up menus the bot answers with privately, and their DM
hand message. They play like the heuristic AI would (the test asks the AI what to do,
then finds the choice by its label path through the menus and clicks it), so the number
of clicks a turn takes is measured for a player who knows what they want.

After every move the test reads the true state from the bot's SQLite file and scans
every new or edited message: no Recipe in a hand and no Basic Inn Tile held face down
(the game's declared ``secret_fragments``) may be readable by anyone but its holder, in
the channel, in another player's DM or ephemeral replies, or in a custom_id. The shared
check of tests/e2e/hidden.py then verifies the pictures and custom_ids of a whole table.
"""

from __future__ import annotations

import os
import re
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot.core.choices.crossroads_inn import CrossroadsUI
from engines import get_game
from engines.core import Rng
from tests.e2e.harness import E2E, latest_with_buttons
from tests.e2e.hidden import CUSTOM_ID, LeakCheck, fragment_patterns
from tests.e2e.play import actions, click_code, set_table_seed, shortest_path, table_row
from tests.emulator import Emulator, Message, Person

pytestmark = pytest.mark.e2e

GAME = get_game("crossroads-inn")
UI = CrossroadsUI()
BUDGET = float(os.environ.get("CROSSROADS_E2E_BUDGET", "50"))
"""Seconds of play per game test: the game is played to its end when it fits (set
``CROSSROADS_E2E_BUDGET=600`` to play every game to its end)."""


def _agent() -> Any:
    from engines.agents.crossroads_inn import HeuristicAgent

    return HeuristicAgent()


# --------------------------------------------------------------------------- the table


@dataclass
class Clicks:
    """Clicks per decision, and per turn of a person (draft and setup apart)."""

    turns: dict[tuple[int, int], int] = field(default_factory=dict)
    done: set[tuple[int, int]] = field(default_factory=set)
    setup: int = 0
    decisions: int = 0
    total: int = 0
    where: dict[str, int] = field(default_factory=dict)

    def median(self) -> float:
        per_turn = [n for key, n in self.turns.items() if key in self.done]
        return statistics.median(per_turn) if per_turn else float("nan")


class Table:
    """One Crossroads Inn table seen from outside: the true state in the bot's file, and
    the people at it."""

    def __init__(self, emu: Emulator, db: Path, people: list[Person]) -> None:
        self.emu, self.db, self.people = emu, db, people
        self.by_id = {p.id: p for p in people}
        self.agent = _agent()
        self.rng = Rng.from_seed(4)
        self.clicks = Clicks()
        self.seen: dict[int, tuple[int, int, int]] = {}
        self.scans = 0
        self.messages_checked = 0
        self.turn_messages: dict[tuple[int, int], set[int]] = {}
        self.timing: dict[str, float] = dict.fromkeys(
            ("think", "wait for the choices", "clicks", "commit", "scan"), 0.0)
        self.held: dict[int, set[str]] = {}
        """seat -> every secret it ever held (it may name those: it knew them)."""

    def row(self) -> Any:
        row = table_row(self.db, self.emu.channel.id)
        assert row is not None
        return row

    @staticmethod
    def state(row: Any) -> Any:
        return GAME.load_state(row.state)

    def person(self, row: Any, seat: int) -> Person | None:
        uid = next(s["user_id"] for s in row.seats if s["index"] == seat)
        return self.by_id.get(uid) if uid is not None else None

    def seat_of(self, row: Any, person: Person) -> int:
        return next(s["index"] for s in row.seats if s["user_id"] == person.id)

    def hand_message(self, person: Person) -> Message:
        msgs = [m for m in person.dm_messages() if "hand**" in m.content]
        assert len(msgs) == 1, f"{person.name} has {len(msgs)} hand messages"
        return msgs[0]

    # -- the leak scan -------------------------------------------------------------------

    def secrets(self, state: Any) -> dict[int, list[re.Pattern[str]]]:
        """Per seat: the patterns of its own secrets (the game's declared fragments of
        a copy of the state that keeps only that seat's Recipes and face-down tiles)."""
        out = {}
        for seat in range(state.players):
            only = GAME.copy_state(state)
            for s, p in enumerate(only.seats):
                if s != seat:
                    p.recipes, p.kept, p.pack = [], [], []
            out[seat] = fragment_patterns(GAME, only)
        return out

    def _fresh(self, msgs: list[Message]) -> Iterator[Message]:
        for m in msgs:
            key = (m.edits, len(m.content), len(m.custom_ids))
            if self.seen.get(m.id) != key:
                self.seen[m.id] = key
                yield m

    def scan(self, row: Any) -> None:
        """Every message new or edited since the last scan, against the secrets of now:
        the channel may show nobody's, a person's DM and ephemeral replies only their
        own (or ones they held before: they knew them)."""
        state = self.state(row)
        secret = self.secrets(state)
        names = {s: {p.pattern for p in pats} for s, pats in secret.items()}
        for s, pats in names.items():
            self.held.setdefault(s, set()).update(pats)
        self.scans += 1
        everyone = [p for pats in secret.values() for p in pats]
        for msg in self._fresh(self.emu.channel.messages):
            self._clean(msg, everyone, "the channel")
        for person in self.people:
            seat = self.seat_of(row, person)
            others = [p for s, pats in secret.items() if s != seat for p in pats
                      if p.pattern not in self.held.get(seat, set())]
            for msg in self._fresh(person.dm_messages() + person.ephemerals()):
                self._clean(msg, others, f"{person.name}'s DM or ephemeral")

    def _clean(self, msg: Message, patterns: list[re.Pattern[str]], where: str) -> None:
        self.messages_checked += 1
        text = f"{msg.text}\n{msg.raw_json()}"
        for pattern in patterns:
            hit = pattern.search(text)
            assert hit is None, f"{where}: {msg!r} shows the secret {hit.group(0)!r}"
        for cid in msg.custom_ids:
            m = CUSTOM_ID.fullmatch(cid)
            assert m is not None, cid
            code = m["code"].lower()
            for pattern in patterns:
                assert not pattern.search(code.replace("_", " ")), cid

    # -- one decision, by clicks -----------------------------------------------------------

    async def current_hand(self, person: Person, version: int) -> tuple[Message, int]:
        """The person's DM hand once it carries this version's choices, and the taps it
        took (0 or 1). Between its player's looks the DM hand is a record (its Refresh
        button, or the choices of an older moment): a person asked to act taps Refresh,
        as the record tells them to, or one of the old buttons, which brings the hand
        to the moment of now; the click's own token then makes it show their choices."""
        marker = f":{version}:"

        def choices(msg: Message) -> list[str]:
            return [c for c in msg.custom_ids if not c.endswith(":refresh")]

        def ready() -> Message | None:
            msg = self.hand_message(person)
            ids = choices(msg)
            return msg if ids and all(marker in c for c in ids) else None

        def tap() -> tuple[str, str | None] | None:
            """(custom_id, select value) of what to tap: Refresh, else a control of an
            older moment (harmless: its click can never play a move)."""
            msg = self.hand_message(person)
            old = [(b.custom_id, None) for b in msg.buttons if b.custom_id and not b.disabled]
            old += [(s.custom_id, s.values[0]) for s in msg.selects if s.values]
            old = [(c, v) for c, v in old if c.endswith(":refresh") or marker not in c]
            return next(((c, v) for c, v in old if c.endswith(":refresh")), None) or next(
                iter(old), None)

        first = await self.emu.wait_for(lambda: ready() or tap(), 20,
                                        f"{person.name}'s hand buttons")
        if isinstance(first, Message):
            return first, 0
        cid, value = first
        msg = self.hand_message(person)
        if value is None:
            await person.click(msg, custom_id=cid)
        else:
            await person.select(msg, value, custom_id=cid)
        hand = await self.emu.wait_for(ready, 20, f"{person.name}'s hand at v{version}")
        return hand, 1

    async def look(self, person: Person) -> Message:
        """The person taps their DM hand's Refresh (a hand showing choices of the moment
        is current already): the hand as it is now."""
        msg = self.hand_message(person)
        cid = next((c for c in msg.custom_ids if c.endswith(":refresh")), None)
        if cid is not None:
            await person.click(msg, custom_id=cid)
            await self.emu.settle(quiet=0.3)
        return self.hand_message(person)

    def current_public(self, version: int) -> Message | None:
        msg = latest_with_buttons(self.emu, self.emu.channel.id)
        if msg is not None and any(f":{version}:" in c for c in msg.custom_ids):
            return msg
        return None

    async def decide(self, row: Any, seat: int, person: Person, *, via: str | None = None,
                     target: Any = None) -> Any:
        """Play what the AI would (or ``target``), by clicks; returns the action.
        ``via="hand"``: from the DM hand message only."""
        t0 = time.perf_counter()
        state = self.state(row)
        legal = GAME.legal_actions(state, seat)
        if target is None:
            target = self.agent.choose(GAME, state, seat, self.rng)
        view = GAME.view(state, seat)
        t1 = time.perf_counter()
        # The turn message in the channel comes first (the hand message follows it):
        # a choice it offers is clicked there, else in the DM hand message.
        public = await self.emu.wait_for(lambda: self.current_public(row.version), 20,
                                         f"the turn message at v{row.version}")
        self.note_turn_message(state, seat, public)
        where, msg = "public", public
        path = None if via == "hand" else shortest_path(UI, public, view, legal, target)
        hand_path = None
        taps = 0
        if path is None or len(path) > 1:
            hand, taps = await self.current_hand(person, row.version)
            hand_path = shortest_path(UI, hand, view, legal, target)
            if hand_path is not None and (path is None or len(hand_path) < len(path)):
                where, msg, path = "hand", hand, hand_path
        t2 = time.perf_counter()
        assert path is not None, f"{target!r} is offered nowhere to {person.name}"
        for depth, code in enumerate(path):
            inter = await click_code(person, msg, code)  # type: ignore[arg-type]
            if depth < len(path) - 1:
                reply = await self.emu.answer(inter)
                assert reply is not None and reply.ephemeral, f"no menu after {code}"
                msg = reply
        t3 = time.perf_counter()
        await self.emu.wait_for(lambda: self.row().version > row.version, 20, "the move")
        t4 = time.perf_counter()
        self.timing["think"] += t1 - t0
        self.timing["wait for the choices"] += t2 - t1
        self.timing["clicks"] += t3 - t2
        self.timing["commit"] += t4 - t3
        # A Refresh tap is a click the person made for this decision.
        self.count(state, seat, target, len(path) + taps, where)
        return target

    def count(self, state: Any, seat: int, action: Any, clicks: int, where: str) -> None:
        c = self.clicks
        c.decisions += 1
        c.total += clicks
        c.where[where] = c.where.get(where, 0) + clicks
        if state.phase != "turn" or state.turn.seat != seat:
            c.setup += clicks
            return
        key = (seat, state.seats[seat].turns)
        c.turns[key] = c.turns.get(key, 0) + clicks
        if action.kind == "end_turn":
            c.done.add(key)

    # -- a whole game -------------------------------------------------------------------

    async def play(self, budget: float, max_moves: int = 2000, *, turns: int = 0
                   ) -> dict[str, Any]:
        """Play until the game ends, or the time budget runs out once the people have
        played ``turns`` turns (a slow machine gets up to half the budget more)."""
        started = time.perf_counter()
        moves = 0
        while moves < max_moves:
            row = self.row()
            t0 = time.perf_counter()
            self.scan(row)
            self.timing["scan"] += time.perf_counter() - t0
            if row.finished:
                break
            spent = time.perf_counter() - started
            if spent > budget and (len(self.clicks.done) >= turns or spent > budget * 1.5):
                break
            state = self.state(row)
            humans = [s for s in GAME.to_act(state) if self.person(row, s) is not None]
            if not humans:  # an AI innkeeper is thinking
                await self.emu.wait_for(
                    lambda v=row.version: self.row().version > v or self.row().finished,
                    30, "the AI's move")
                continue
            seat = humans[0]
            person = self.person(row, seat)
            assert person is not None
            await self.decide(row, seat, person)
            moves += 1
        await self.emu.settle(quiet=0.5)
        row = self.row()
        self.scan(row)
        return {"moves": moves, "seconds": time.perf_counter() - started, "row": row,
                "state": self.state(row)}

    def note_turn_message(self, state: Any, seat: int, msg: Message | None) -> None:
        """Which channel messages carried a person's turn (one, edited: not a flood)."""
        if state.phase != "turn" or state.turn.seat != seat or state.pending is not None:
            return
        if msg is not None:
            key = (seat, state.seats[seat].turns)
            self.turn_messages.setdefault(key, set()).add(msg.id)


# --------------------------------------------------------------------------- opening


async def open_table(e2e: E2E, people: list[Person], options: str, *, ais: int = 0,
                     seed: int = 1) -> Table:
    emu, bot, _ = e2e
    opened = await people[0].slash("/table new", game="crossroads-inn",
                                   options={"options": options})
    assert opened.reply is not None and "Crossroads Inn" in opened.reply.content
    for p in people[1:]:
        await p.slash("/table join")
    for _ in range(ais):
        await people[0].slash("/table addbot", level="heuristic")
    set_table_seed(bot.db_path, emu.channel.id, seed)
    await people[0].slash("/table start")
    return Table(emu, bot.db_path, people)


class PublicPictures(LeakCheck):
    """The shared check, with the inn pictures of ``/crossroads inn`` (drawn from the
    PUBLIC view, ``part="inn:<seat>"``) accepted wherever a picture may be. The text is
    scanned per viewer and per move by :meth:`Table.scan` (a Recipe cooked is public
    from then on, and a player's own hand names its own Recipes), so the fragments of
    the whole game are not searched for in every message here."""

    def _fragments(self) -> list[re.Pattern[str]]:
        return []

    def _check_image(self, msg: Message, data: bytes, seat: int | None, start: int | None
                     ) -> int:
        try:
            return super()._check_image(msg, data, seat, start)
        except AssertionError:
            import hashlib

            import renderers

            digest = hashlib.sha256(data).hexdigest()
            for version in range(len(self.rep.states) - 1, -1, -1):
                view = self.rep.game.view(self.rep.states[version], None)
                for s in range(view.players):
                    png = renderers.render(self.rep.game.id, view, names=self.rep.names,
                                           part=f"inn:{s}")
                    if hashlib.sha256(png).hexdigest() == digest:
                        self.checked_images += 1
                        return version
            raise


def report(label: str, t: Table, result: dict[str, Any]) -> None:
    c = t.clicks
    state = result["state"]
    over = state.finished
    print(f"\n{label}: {result['moves']} decisions by people in {result['seconds']:.1f} s, "
          f"{'finished' if over else 'stopped at the time budget'} at version "
          f"{result['row'].version}; clicks: median {c.median()} per turn over "
          f"{len(c.done)} turns, {c.setup} in the draft/setup, {c.total} in all "
          f"({c.where}); {t.messages_checked} messages scanned in {t.scans} scans; seconds "
          + ", ".join(f"{k} {v:.1f}" for k, v in t.timing.items()))


# --------------------------------------------------------------------------- tests


async def test_two_people_draft_a_game_to_the_end(e2e: E2E) -> None:
    """The draft, the placement of the Basic Inn Tiles and every turn, by clicks; a
    fixed table seed whose game (about 150 decisions) fits the time budget."""
    emu, bot, (alice, bob, _carol) = e2e
    from tests.e2e.test_channel_noise import NoiseReport, noise_report, record_channel

    record_channel(emu)
    t = await open_table(e2e, [alice, bob], "basic_tiles=draft", seed=46)
    # This one is meant to reach the end (about 50 s on an idle machine): it gets four
    # minutes before it settles for a part of the game.
    result = await t.play(max(BUDGET, 240) + 6, turns=10)
    report("2 people, draft", t, result)
    noise = noise_report(emu, emu.channel, [alice, bob], db=t.db, game="crossroads-inn",
                         decisions=t.clicks.decisions)
    print(f"{NoiseReport.HEADER}\n{noise.row()}")
    # the channel reads like a game log: a ping per change of player, a picture at most
    # per step, no line said twice in a row
    assert not noise.problems(), noise.problems()
    state, row = result["state"], result["row"]
    # the draft was made by clicks in the hands; every Basic Inn Tile went on a corner
    assert t.clicks.setup >= 6 and t.clicks.where.get("hand", 0) >= 6
    for p in state.seats:
        assert sum(1 for s, b in p.inn.items() if b.basic or b.covers) == 4
    assert len(t.clicks.done) >= 10, "a substantial part of the game, at least"
    assert t.clicks.median() <= 10
    # each person's turn was one message in the channel, edited step by step
    assert all(len(ids) == 1 for ids in t.turn_messages.values()), t.turn_messages
    log = actions(t.db, row.id)
    assert [v for v, _, _ in log] == list(range(1, row.version + 1))
    if state.finished:
        last = emu.channel.messages[-1].content
        assert "Game over" in last and "wins" in last, last
        assert latest_with_buttons(emu) is None
    else:  # pragma: no cover - a slow machine: the budget ran out first
        print("the time budget ran out before the end of the game")
    bot.assert_log_clean()


async def test_one_person_and_three_ai_innkeepers_with_kingdom_cards(e2e: E2E) -> None:
    """A person among three AI innkeepers, Kingdom Cards #1 and #5 in play, to the end
    of the game (about 350 moves: some 25 s, since an AI move overtaken by the next one
    is posted without its picture)."""
    emu, bot, (alice, _bob, _carol) = e2e
    t = await open_table(e2e, [alice], "kingdom=1+5 basic_tiles=random", ais=3, seed=5)
    start = next(m for m in emu.channel.messages if "In play: Kingdom Cards" in m.content)
    assert "#1 I wanna see you!" in start.content and "interesting and simple" in start.content
    result = await t.play(max(BUDGET, 300.0))
    report("1 person + 3 AI, Kingdom Cards 1+5", t, result)
    state, row = result["state"], result["row"]
    assert row.finished and state.finished, "the game reached its end"
    assert state.kingdom == [1, 5]
    # the end is announced with the final scores of all four inns: the AI moves before
    # it go out on the bot token, paced within Discord's limits, so the channel may still
    # be catching up when the table is over (a person would wait for it too)
    await emu.wait_for(lambda: "Game over" in emu.channel.messages[-1].content, 60,
                       "the end of the game in the channel")
    assert len(t.clicks.done) >= 3
    assert t.clicks.median() <= 10
    me = t.seat_of(row, alice)
    ai_moves = [seat for _v, seat, _a in actions(t.db, row.id) if seat != me]
    assert len(ai_moves) > 3 * len(t.clicks.done), "the AI innkeepers played their turns"
    # every inn keeps the Kingdom Cards' laws
    from engines.crossroads_inn import inn as board

    built = 0
    for p in state.seats:
        assert board.inn_problem(GAME.content, p.inn, state.kingdom, list(p.inn)) is None
        built += sum(1 for b in p.inn.values() if not b.basic)
    assert built >= 8
    bot.assert_log_clean()


async def test_no_secret_reaches_anyone_else(e2e: E2E) -> None:
    """Three people draft (the packs go round the table), place their tiles and play a
    few turns, look at their hands with /hand, at the log with /table log and at inns
    with /crossroads inn. After every move each new or edited message is scanned against
    the declared secret fragments of that moment; at the end the shared check replays
    the table and verifies every picture (the public ones are renderings of the public
    view, each hand a rendering of its holder's own view) and every custom_id."""
    emu, bot, (alice, bob, carol) = e2e
    people = [alice, bob, carol]
    t = await open_table(e2e, people, "basic_tiles=draft kingdom=random", seed=7)
    draft = t.row()
    await t.play(12.0, max_moves=6)  # into the draft: everyone holds tiles face down
    for p in people:
        done = await p.slash("/hand")
        assert done.reply is not None and done.reply.ephemeral_for == p.id
    mid = t.row()
    state = t.state(mid)
    assert state.phase == "draft" and any(q.kept for q in state.seats)
    t.scan(mid)
    await t.play(30.0, max_moves=40)
    row = t.row()
    for p in people:
        await p.slash("/table log")
        await p.slash("/hand")
    await alice.slash("/crossroads inn", seat=2)
    await bob.slash("/crossroads inn", player=carol, public=True)
    await emu.settle(quiet=0.3)
    t.scan(t.row())
    # the scan can see a secret: each holder's own hand message names their Recipes once
    # they look at it (between looks it is a record: its Refresh shows it as it is now)
    state = t.state(t.row())
    for p in people:
        await t.look(p)
        own = t.secrets(state)[t.seat_of(row, p)]
        text = t.hand_message(p).text
        assert own and all(pattern.search(text) for pattern in own), p.name
    # the game log: no public line names a secret of its moment
    from tests.e2e.hidden import replay

    rep = replay(t.db, emu.channel.id)
    checked = 0
    for version, text in public_events(t.db, rep.row.id):
        for pattern in fragment_patterns(GAME, rep.states[version]):
            assert not pattern.search(text), f"the public log at v{version}: {text!r}"
        checked += 1
    check = PublicPictures(emu, t.db, emu.channel.id)
    check.run()
    print(f"\nleak check: {t.messages_checked} messages scanned in {t.scans} scans, "
          f"{check.checked_images} pictures and {check.checked_messages} messages checked, "
          f"{checked} public log lines; draft began at v{draft.version}, ended at "
          f"v{row.version}")
    assert check.checked_images >= 10 and checked > 20
    bot.assert_log_clean()


def public_events(db: Path, table_id: str) -> list[tuple[int, str]]:
    """(version, text) of every public line of the game log."""
    import json
    import sqlite3

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        rows = conn.execute("SELECT version, data FROM events WHERE table_id = ? "
                            "ORDER BY version, idx", (table_id,)).fetchall()
    out = []
    for version, data in rows:
        record = json.loads(data)
        if record.get("visible_to") is None:
            out.append((int(version), str(record.get("text", ""))))
    return out


async def test_a_restart_in_the_middle_of_a_turn_resumes_exactly(e2e: E2E) -> None:
    """A step that can be taken back, then the bot process is killed and started again:
    the same turn message and hand message still work, Take back undoes that step, and
    the turn goes on to its end."""
    emu, bot, (alice, bob, _carol) = e2e
    t = await open_table(e2e, [alice, bob], "basic_tiles=none", seed=2)
    # play until a person has taken a step that can be taken back
    for _ in range(40):
        row = t.row()
        state = t.state(row)
        seat = GAME.to_act(state)[0]
        if state.phase == "turn" and state.undo is not None and state.undo.since:
            break
        person = t.person(row, seat)
        assert person is not None
        await t.decide(row, seat, person)
    else:
        raise AssertionError("no step that can be taken back")
    await emu.settle(quiet=0.3)
    row = t.row()
    before_state = t.state(row)
    seat = before_state.turn.seat
    person = t.person(row, seat)
    assert person is not None
    last = GAME.parse_action(actions(t.db, row.id)[-1][2])
    from tests.e2e.hidden import replay

    earlier = replay(t.db, emu.channel.id).states[row.version - 1]  # before that step
    # The turn message of that version, once delivered (later under load than a settle).
    turn_msg = await emu.wait_for(lambda: t.current_public(row.version), 20,
                                  f"the turn message at v{row.version}")
    hand = t.hand_message(person)
    assert turn_msg is not None and any(c.endswith(":u") for c in turn_msg.custom_ids)

    await bot.restart()
    assert t.row().version == row.version and t.row().state == row.state
    # the turn message (posted by the dead process) still takes the click
    undo = next(c for c in turn_msg.custom_ids if c.endswith(":u"))
    await person.click(turn_msg, custom_id=undo, settle=False)
    await emu.wait_for(lambda: t.row().version == row.version + 1, 20, "the take-back")
    after = t.state(t.row())
    assert GAME.view(after, None) == GAME.view(earlier, None), f"not back before {last!r}"
    assert GAME.view(after, seat) == GAME.view(earlier, seat)
    assert GAME.legal_actions(after, seat) == GAME.legal_actions(earlier, seat)
    # the hand message is the same one, edited by the new process, and takes clicks
    edits = hand.edits
    turns = after.seats[seat].turns
    row = t.row()
    await t.decide(row, seat, person, via="hand")
    assert t.clicks.where.get("hand", 0) >= 1
    while True:
        row = t.row()
        state = t.state(row)
        if state.seats[seat].turns > turns or row.finished:
            break
        who = t.person(row, GAME.to_act(state)[0])
        assert who is not None
        await t.decide(row, GAME.to_act(state)[0], who)
    await emu.settle(quiet=0.3)
    assert t.hand_message(person).id == hand.id and t.hand_message(person).edits > edits
    def next_turn_message() -> Message | None:
        msg = latest_with_buttons(emu)
        return msg if msg is not None and msg.id != turn_msg.id else None

    nxt = await emu.wait_for(next_turn_message, 20, "the next player's turn message")
    assert nxt is not None
    # The bot posts the new buttons first and strips the old ones after (so there is
    # never a moment without buttons): the strip is a second request, waited for here.
    await emu.wait_for(
        lambda: not [c for c in turn_msg.custom_ids if c.startswith(("ft:", "fs:"))], 20,
        "the old turn message to lose its buttons")
    bot.assert_log_clean()


def _asks(db: Path, channel_id: int, people: list[Person]) -> list[tuple[int, int, int]]:
    """(user id, version asked at, version of their answer or one past the end) of every
    ask of a person, replayed from the action log: a person newly among the seats to act,
    or a mover still to act when the seats to act changed (a new draft round asks anew;
    the steps of one turn, the same seats still to act, are one ask)."""
    from tests.e2e.hidden import replay

    rep = replay(db, channel_id)
    user_of = {s["index"]: s["user_id"] for s in rep.row.seats}
    humans = {s for s, u in user_of.items() if u in {p.id for p in people}}
    movers = {v: seat for v, seat, _a in actions(db, rep.row.id)}
    out: list[tuple[int, int, int]] = []
    asked_before: set[int] = set()
    seats_before: set[int] = set()
    for version, state in enumerate(rep.states):
        seats = set(GAME.to_act(state))
        asked = seats & humans
        new = asked - asked_before
        mover = movers.get(version)
        if version and mover in asked and seats != seats_before:
            new.add(mover)
        for seat in sorted(new):
            answer = next((v for v in range(version + 1, len(rep.states))
                           if movers.get(v) == seat), len(rep.states))
            out.append((user_of[seat], version, answer))
        asked_before, seats_before = asked, seats
    return out


def _first_version(msg: Message, table_id: str) -> int | None:
    """The table version a channel message was created at (its first buttons say)."""
    from tests.emulator.models import walk_components

    versions = [h["components"] for h in msg.history] + [msg.components]
    for comps in versions:
        for c in walk_components(comps):
            m = CUSTOM_ID.fullmatch(c.get("custom_id", ""))
            if m is not None and m["table"] == table_id:
                return int(m["version"])
    return None


async def test_three_people_to_the_end_every_ask_pings_and_every_hand_is_told(e2e: E2E) -> None:
    """Issue 23: a 3-person game with the draft, played to its end. Every ask of a person
    (each draft round included) is a channel message CREATED with a mention of them that
    its allowed_mentions lets notify (Discord does not notify on an edit), posted before
    they answered; at the end every person's DM hand message says the game is over."""
    emu, bot, (alice, bob, carol) = e2e
    from tests.e2e.test_channel_noise import record_channel

    rec = record_channel(emu)
    people = [alice, bob, carol]
    t = await open_table(e2e, people, "basic_tiles=draft", seed=7)
    result = await t.play(max(BUDGET, 900.0))
    row = result["row"]
    assert row.finished, "the game reached its end"
    await emu.settle(quiet=1.0, timeout=30)
    # Every hand message is told the game ended (none left saying "not your move").
    for p in people:
        text = t.hand_message(p).content
        assert "The game is over" in text, f"{p.name}'s hand: {text[-300:]!r}"
        assert "Not your move" not in text, f"{p.name}'s hand: {text[-300:]!r}"
    # Every ask is a created message that pings the person asked, before their answer.
    by_id = {m.id: m for m in emu.channel.messages}
    pinged: dict[int, list[int | None]] = {}
    for ping in rec.pings:
        if ping.channel_id != emu.channel.id:
            continue
        version = _first_version(by_id[ping.message_id], row.id)
        for u in ping.users:
            pinged.setdefault(u, []).append(version)
    asks = _asks(t.db, emu.channel.id, people)
    names = {p.id: p.name for p in people}
    missing = [(names[u], v) for u, v, answer in asks
               if not any(pv is not None and v <= pv < answer for pv in pinged.get(u, []))]
    print(f"\n3 people, draft, to the end at v{row.version}: {len(asks)} asks, "
          f"{sum(len(v) for v in pinged.values())} pings, mentions added by edits "
          f"{sum(rec.mentions_in_edits.values())}; missing {missing}")
    assert len(asks) > 3 * 10, "a whole game asks each person many times"
    assert not missing, f"asked without a ping in a created message: {missing}"
    assert "Game over" in emu.channel.messages[-1].content
    bot.assert_log_clean()
