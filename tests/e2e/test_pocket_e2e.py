"""Fairy Tale in My Pocket end to end: the bot process, the emulator, people clicking.

A person plays what the careful AI would, by clicks on the public turn message (and the
follow-up menus the bot answers with), so a game reaches one of its real endings; the
co-op game passes the peasant between two people and an AI teammate. Afterwards the
shared leak check reads every message, picture and custom_id against the true state of
every version: the deck order, the set-aside cards and the tile stacks never show.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.core.choices.pocket import PocketUI
from engines import get_game
from engines.agents.pocket import CarefulAgent
from engines.core import Rng
from engines.pocket.state import PocketOptions
from tests.e2e.harness import E2E, latest_with_buttons
from tests.e2e.hidden import CUSTOM_ID, assert_no_hidden_information
from tests.e2e.play import actions, click_code, set_table_seed, shortest_path, table_row
from tests.emulator import Channel, Emulator, Message, Person

pytestmark = pytest.mark.e2e

GAME = get_game("pocket")
UI = PocketUI()


def winning_seed(special: str, first: int = 1) -> int:
    """The first seed from ``first`` at which the careful AI, choosing with
    ``Rng.from_seed(seed)`` as the test's person does, wins alone: the e2e game then
    reaches the happy ending (the data may be retuned; the seed is found, not fixed)."""
    for seed in range(first, first + 200):
        state = GAME.setup(1, PocketOptions(special=special), seed)
        agent, rng = CarefulAgent(), Rng.from_seed(seed)
        while GAME.outcome(state) is None:
            GAME.apply(state, 0, agent.choose(GAME, state, 0, rng))
        if state.result == "won":
            return seed
    raise AssertionError("the careful AI won none of 200 games")


class Table:
    """The table of the channel seen from outside: the true state in the bot's file."""

    def __init__(self, emu: Emulator, db: Path, people: list[Person], seed: int,
                 channel: Channel) -> None:
        self.emu, self.db, self.channel = emu, db, channel
        self.by_id = {p.id: p for p in people}
        self.agent = CarefulAgent()
        self.rng = Rng.from_seed(seed)
        self.clicks = 0
        self.decisions = 0

    def row(self) -> Any:
        row = table_row(self.db, self.channel.id)
        assert row is not None
        return row

    def person(self, row: Any, seat: int) -> Person | None:
        uid = next(s["user_id"] for s in row.seats if s["index"] == seat)
        return self.by_id.get(uid) if uid is not None else None

    def turn_message(self, version: int) -> Message | None:
        msg = latest_with_buttons(self.emu, self.channel.id)
        if msg is not None and any(f":{version}:" in c for c in msg.custom_ids):
            return msg
        return None

    async def decide(self, row: Any, seat: int, person: Person) -> Any:
        """Play what the careful AI would, by clicks; returns the action played."""
        state = GAME.load_state(row.state)
        legal = GAME.legal_actions(state, seat)
        target = self.agent.choose(GAME, state, seat, self.rng)
        view = GAME.view(state, seat)
        msg = await self.emu.wait_for(lambda: self.turn_message(row.version), 20,
                                      f"the turn message at v{row.version}")
        # everything the peasant may do is on the public message, for the one in control
        offered = shortest_path(UI, msg, view, legal, target)
        assert offered is not None, f"{target!r} is not offered on {msg!r}"
        for depth, code in enumerate(offered):
            inter = await click_code(person, msg, code)
            if depth < len(offered) - 1:
                reply = await self.emu.answer(inter)
                assert reply is not None and reply.ephemeral, f"no menu after {code}"
                msg = reply
        await self.emu.wait_for(lambda: self.row().version > row.version, 20, "the move")
        self.clicks += len(offered)
        self.decisions += 1
        return target

    async def play(self, max_moves: int = 600) -> Any:
        for _ in range(max_moves):
            row = self.row()
            if row.finished:
                break
            state = GAME.load_state(row.state)
            seat = GAME.to_act(state)[0]
            person = self.person(row, seat)
            if person is None:  # an AI teammate leads the peasant
                await self.emu.wait_for(
                    lambda v=row.version: self.row().version > v or self.row().finished,
                    30, "the AI's move")
                continue
            await self.decide(row, seat, person)
        await self.emu.settle(quiet=0.6)
        return self.row()


async def open_table(e2e: E2E, people: list[Person], options: str, seed: int, *,
                     ais: int = 0, channel: Channel | None = None) -> Table:
    emu, bot, _ = e2e
    where = channel or emu.channel
    opened = await people[0].slash("/table new", game="pocket", options={"options": options},
                                   channel=where)
    assert opened.reply is not None and "Pocket" in opened.reply.content
    for p in people[1:]:
        await p.slash("/table join", channel=where)
    for _ in range(ais):
        added = await people[0].slash("/table addbot", level="hint", channel=where)
        assert added.reply is not None
    set_table_seed(bot.db_path, where.id, seed)
    started = await people[0].slash("/table start", channel=where)
    assert started.reply is not None
    return Table(emu, bot.db_path, people, seed, where)


def assert_no_game_buttons_left(channel: Channel) -> None:
    assert not [m for m in channel.messages
                if any(":lobby." not in b.custom_id for b in m.buttons) or m.selects]


async def test_a_solo_game_in_a_thread_to_the_happy_ending(e2e: E2E) -> None:
    """A quiet evening: one person opens a game in a thread of their own."""
    emu, bot, (alice, _bob, carol) = e2e
    thread = emu.create_thread(emu.channel, "a walk in the forest", owner=alice.user)
    await emu.wait_for(lambda: emu.gateway.by_shard[0].seq > 2)  # THREAD_CREATE sent
    seed = winning_seed("boots")
    t = await open_table(e2e, [alice], "special=boots", seed, channel=thread)
    first = await emu.wait_for(lambda: t.turn_message(0), 20, "the first turn message")
    assert first.image is not None and first.image.size[0] == 900
    assert [b.label for b in first.buttons if not b.disabled], "a first move is offered"

    # Somebody without a seat: the buttons and the hint refuse them, privately.
    refused = await carol.click(first, custom_id=first.buttons[0].custom_id)
    assert refused.reply is not None and refused.reply.ephemeral
    assert "seat" in refused.reply.content
    nope = await carol.slash("/pocket hint", channel=thread)
    assert nope.reply is not None and nope.reply.ephemeral and "seat" in nope.reply.content

    # A few moves in, the hint suggests a move with its reason, only to the asker.
    for _ in range(4):
        row = t.row()
        await t.decide(row, 0, alice)
    before = t.row()
    hinted = await alice.slash("/pocket hint", channel=thread)
    reply = hinted.reply
    assert reply is not None and reply.ephemeral and alice.sees(reply)
    assert "**" in reply.content and len(reply.content.splitlines()) >= 2, reply.content
    assert t.row().version == before.version and t.row().state == before.state
    helped = await alice.slash("/pocket help", channel=thread)
    assert helped.reply is not None and helped.reply.ephemeral

    row = await t.play()
    assert row.status == "finished"
    state = GAME.load_state(row.state)
    assert state.result == "won", state.reason
    assert "happily ever after" in thread.messages[-1].content
    assert emu.channel.messages == []  # everything happened in the thread
    moves = actions(bot.db_path, row.id)
    assert [v for v, _, _ in moves] == list(range(1, row.version + 1))
    assert {seat for _, seat, _ in moves} == {0}
    assert t.decisions == len(moves) and t.clicks >= t.decisions
    assert_no_game_buttons_left(thread)
    check = assert_no_hidden_information(emu, bot.db_path, thread.id)
    assert check.checked_images >= 2 and check.checked_messages >= 2
    for msg in thread.messages:
        for cid in msg.custom_ids:
            assert CUSTOM_ID.fullmatch(cid), cid
            assert "card_" not in cid, f"{cid}: a card id in a custom_id"
    bot.assert_log_clean()


@pytest.mark.bot_env(AI_DELAY="0.2")
async def test_co_op_two_people_and_an_ai_teammate_pass_the_peasant(e2e: E2E) -> None:
    emu, bot, (alice, bob, _carol) = e2e
    t = await open_table(e2e, [alice, bob], "special=random", 5, ais=1)
    first = await emu.wait_for(lambda: t.turn_message(0), 20, "the first turn message")
    assert f"<@{alice.id}>" in first.content, "the first player leads the peasant first"
    # the player not in control is refused on the turn message, privately
    refused = await bob.click(first, custom_id=first.buttons[0].custom_id)
    assert refused.reply is not None and refused.reply.ephemeral
    # ...but may ask for a hint for the one in control
    hinted = await bob.slash("/pocket hint")
    assert hinted.reply is not None and hinted.reply.ephemeral
    assert "Alice" in hinted.reply.content or "control" in hinted.reply.content

    row = await t.play()
    assert row.status == "finished"
    moves = actions(bot.db_path, row.id)
    assert {seat for _, seat, _ in moves} == {0, 1, 2}, "all three led the peasant"
    state = GAME.load_state(row.state)
    assert state.result in ("won", "lost") and state.reason
    assert state.reason.split(".")[0] in emu.channel.messages[-1].content
    assert_no_game_buttons_left(emu.channel)
    assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
    bot.assert_log_clean()
