"""Winter Tales end to end when the DM path is not there: closed DMs, commands typed in a
DM, and the DM hand message after the bot process is killed and started again.

Issue 3 asks: "Closed DMs: the player is told in the channel and gets the ephemeral path;
nothing is lost". Here Carol's DMs are closed for the whole game: she is told once in the
channel, plays every private decision of hers from ``/winter hand`` (and once from the
public "Take your turn" button), and every move of hers is in the action log. After every
move the per-version leak check of test_winter_e2e (:meth:`Game.scan`) reads every channel
message, DM and ephemeral reply against the true state, and at the end the shared check of
tests/e2e/hidden.py verifies every picture.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from tests.e2e.harness import E2E
from tests.e2e.hidden import assert_no_hidden_information
from tests.e2e.play import actions, set_table_seed, table_row
from tests.e2e.test_winter_e2e import GAME, PREFER, TITLES, Game, choose_and_play
from tests.emulator import Message, Person

pytestmark = pytest.mark.e2e

CLOSED = "can't send you direct messages"
HOARD = {**PREFER, "play_card": 0.02}
"""Carol's taste: she keeps her cards when she may, so her hand soon passes the limit and
she must discard down to it, a choice only her private hand offers."""


SEED = 1


async def open_game(e2e: E2E, options: str, people: list[Person] | None = None,
                    channel: Any = None, seed: int | None = None) -> Game:
    emu, bot, (alice, bob, carol) = e2e
    people = people or [alice, bob, carol]
    where = {"channel": channel} if channel is not None else {}
    opened = await people[0].slash("/table new", game="winter-tales",
                                   options={"options": options}, **where)
    assert opened.reply is not None and "Winter Tales" in opened.reply.content
    for p in people[1:]:
        await p.slash("/table join", **where)
    if seed is not None:
        # A fixed table seed: the game repeats, so the decisions this test needs (a
        # discard down to the hand limit) come before the story ends, every run.
        set_table_seed(bot.db_path, (channel or emu.channel).id, seed)
    await people[0].slash("/table start", **where)
    return Game(emu, bot.db_path, people)


async def step(g: Game, rng: random.Random, person: Person, panel: Message | None = None,
               prefer: dict[str, float] | None = None) -> str:
    """One decision, then wait until the bot has committed it; returns its kind."""
    row = g.row()
    kind = await choose_and_play(g, rng, row, person, panel=panel, prefer=prefer)
    await g.emu.wait_for(lambda v=row.version: g.row().version > v, 15, "the move")
    return kind


async def click_through(person: Person, msg: Message) -> None:
    """Take the first choice on ``msg`` (a DM hand message), then the first of each private
    menu it opens, writing a sentence if a modal asks for one: a move made by clicks only."""
    for _depth in range(3):
        select = next((s for s in msg.selects if not s.disabled), None)
        if select is not None:
            inter = await person.select(msg, select.values[0], custom_id=select.custom_id)
        else:
            button = next(b for b in msg.buttons if b.custom_id and not b.disabled
                          and not b.custom_id.endswith(":tell"))
            inter = await person.click(msg, custom_id=button.custom_id)
        if person.modal is not None:
            await person.submit_modal(text=f"{person.name} kept walking through the snow.")
            return
        menu = inter.reply
        if menu is None or not menu.ephemeral or not (menu.buttons or menu.selects):
            return
        msg = menu
    raise AssertionError("a choice took more than three steps")


def fresh_hand(person: Person, version: int) -> Message | None:
    """The ephemeral hand the bot brought to this version by itself after ``person``'s
    move: the panel she played on, updated in place, or a new one (a move finished on a
    follow-up menu). Only the bot can have made it: nobody opened a hand since the move."""
    for msg in reversed(person.ephemerals()):
        ids = [c for c in msg.custom_ids if not c.endswith(":tell")]
        if "hand**" in msg.content and ids and all(f":{version}:" in c for c in ids):
            return msg
    return None


def observe(g: Game) -> Any:
    row = g.row()
    g.states[row.version] = row.state
    g.scan(row)
    return row


def own_titles(g: Game, row: Any, person: Person) -> set[str]:
    state = g.state(row)
    return {TITLES[c] for c in state.hands[g.seat_of(row, person)]}


def current_ids(msg: Message, version: int) -> list[str]:
    ids = [c for c in msg.custom_ids if not c.endswith(":tell")]
    assert all(f":{version}:" in c for c in ids), (version, ids)
    return ids


async def ephemeral_hand(g: Game, person: Person, others: list[Person], row: Any
                         ) -> Message:
    """``/winter hand``: the person's cards and current choices, for their eyes only."""
    done = await person.slash("/winter hand")
    panel = done.replies[-1]
    assert panel.ephemeral_for == person.id and all(not p.sees(panel) for p in others)
    for title in own_titles(g, row, person):
        assert title in panel.content, title
    assert current_ids(panel, row.version), "the ephemeral hand offers the current choices"
    return panel


async def test_closed_dms_told_once_and_every_decision_made_from_the_ephemeral_hand(
        e2e: E2E) -> None:
    emu, _bot, (alice, bob, carol) = e2e
    carol.close_dms()
    # interrupt_timeout=0: an optional decision waits for its player (nothing passes for
    # Carol behind her back, so every one of her decisions is hers).
    g = await open_game(e2e, "interrupt_timeout=0", seed=SEED)

    def told() -> list[Message]:
        return [m for m in emu.channel.messages if carol.mention in m.content
                and CLOSED in m.content]

    await emu.wait_for(told, 15, "Carol to be told in the channel")
    assert "/hand" in told()[0].content
    assert alice.sees(told()[0])  # in the channel, not a DM
    rng = random.Random(6)
    mine = 0
    moves = 0
    used_turn_button = False
    picture_checked = False
    followed = 0
    last: Person | None = None
    last_kind = ""
    news_seen = 0
    kinds: Counter[str] = Counter()
    # Until she has made 8 decisions, one of them discarding down to the hand limit (a
    # choice only her hand can offer).
    while mine < 8 or not kinds["discard"]:
        assert moves < 150, f"Carol had only {dict(kinds)} in {moves} moves"
        row = observe(g)
        assert row.status == "playing"
        state = g.state(row)
        person = g.person(row, rng.choice(GAME.to_act(state)))
        if person != carol:
            await step(g, rng, person)
            moves += 1
            last = person
            continue
        others = [alice, bob]
        if last == carol:
            # Her last move left her a choice: the hand comes back by itself, privately.
            panel = await emu.wait_for(lambda v=row.version: fresh_hand(carol, v), 15,
                                       "Carol's hand to follow her move")
            followed += 1
            if last_kind == "activate":  # she drew cards: her private news comes with it
                assert "**Latest:**" in panel.content and "drew" in panel.content, panel.content
                news_seen += 1
        elif not used_turn_button:
            # The public "Take your turn" button of this moment (posted with the news of
            # the last move) opens the same private panel.
            code = f"ft:{row.id}:{row.version}:turn"
            board = await emu.wait_for(
                lambda c=code: next((m for m in reversed(emu.channel.visible)
                                     if any(b.custom_id == c for b in m.buttons)), None),
                15, "the public turn button")
            turn = next(b for b in board.buttons if b.custom_id.endswith(":turn"))
            opened = await carol.click(board, custom_id=turn.custom_id)
            panel = opened.replies[-1]
            assert panel.ephemeral_for == carol.id and not alice.sees(panel)
            current_ids(panel, row.version)
            used_turn_button = True
        else:
            panel = await ephemeral_hand(g, carol, others, row)
        if not picture_checked and panel.attachments:
            from renderers import winter_hand

            names = [s["name"] for s in sorted(row.seats, key=lambda s: s["index"])]
            view = GAME.view(state, g.seat_of(row, carol))
            assert panel.attachments[0].data == winter_hand.render(view, names)
            picture_checked = True
        last_kind = await step(g, rng, carol, panel=panel, prefer=HOARD)
        kinds[last_kind] += 1
        last = carol
        mine += 1
        moves += 1
    row = observe(g)
    # Nothing lost: every move is in the log, in order, and each of Carol's is there.
    log = actions(g.db, row.id)
    assert [v for v, _, _ in log] == list(range(1, row.version + 1))
    assert len(log) == moves
    assert Counter(seat for _, seat, _ in log)[g.seat_of(row, carol)] == mine
    # Told once, never again; no DM reached her; the only refusals were her closed DMs.
    assert len(told()) == 1
    assert carol.dm_messages() == []
    errors = emu.take_errors()
    assert errors and all(e.code == 50007 for e in errors)
    assert used_turn_button and picture_checked and followed
    # The others still play from one DM hand message each, kept current.
    for p in (alice, bob):
        assert g.hand_message(p) is not None
    # She learns her cards any time, whoever's turn it is.
    panel = (await carol.slash("/winter hand")).replies[-1]
    for title in own_titles(g, row, carol):
        assert title in panel.content
    observe(g)
    # The shared check too: every picture (boards, Carol's ephemeral hands, the others' DM
    # hands) is a rendering of a view its viewer may see, unchanged by resampled secrets.
    check = assert_no_hidden_information(emu, g.db, emu.channel.id)
    assert check.checked_images > mine
    print(f"\nclosed DMs: {check.checked_images} pictures checked, {moves} moves, "
          f"{mine} by Carol from the ephemeral hand "
          f"({followed} from the hand that followed her move, {news_seen} with news) "
          f"{dict(kinds)}, "
          f"{g.scans} scans, {g.custom_ids} private custom_ids checked")


async def test_dm_commands_and_the_dm_hand_after_a_restart(e2e: E2E) -> None:
    emu, bot, (alice, _bob, carol) = e2e
    g = await open_game(e2e, "interrupt_timeout=0")
    rng = random.Random(8)
    for _ in range(4):
        row = observe(g)
        await step(g, rng, g.person(row, rng.choice(GAME.to_act(g.state(row)))))
    row = observe(g)
    # /winter hand and /hand typed in a DM with the bot find the table, privately.
    dm = emu.dm_channel(alice.user)
    done = await alice.slash("/winter hand", channel=dm)
    panel = done.replies[-1]
    assert panel.ephemeral_for == alice.id and panel.channel_id == dm.id
    for title in own_titles(g, row, alice):
        assert title in panel.content
    done = await alice.slash("/hand", channel=dm)
    reply = done.replies[-1]
    assert reply.ephemeral_for == alice.id and "Winter Tales" in reply.content
    assert "Story cards" in reply.content  # the same hand as /winter hand
    for title in own_titles(g, row, alice):
        assert title in reply.content
    # A stranger's DM gets a clear answer, not someone else's table.
    dave = emu.user("dave")
    done = await dave.slash("/winter hand", channel=emu.dm_channel(dave.user))
    assert done.reply is not None and "no seat" in done.reply.content
    # The bot process dies and starts again: the DM hand message still works.
    state = g.state(row)
    actor = g.person(row, GAME.to_act(state)[0])
    before = g.hand_message(actor)
    await bot.restart()
    assert g.row().version == row.version
    # The DM hand is a record between looks: its player taps Refresh (a click the
    # restarted process answers), then plays from the choices it shows.
    current = await g.wait_current(actor, row.version)
    assert current is not None and current.id == before.id
    edits = current.edits
    await click_through(actor, current)
    await emu.wait_for(lambda: g.row().version == row.version + 1, 15, "the DM click's move")
    # the restarted process edits the same hand message (its id is in the SQLite file)
    await emu.wait_for(lambda: g.hand_message(actor).edits > edits, 15, "the hand edit")
    assert g.hand_message(actor).id == before.id
    row = observe(g)
    assert assert_no_hidden_information(emu, g.db, emu.channel.id).checked_images
    # A second Winter table for Alice: in a DM, /winter hand answers with both hands, each
    # naming its channel, with its own table's buttons. (The leak scan stops here: it knows
    # the secrets of the first table only.)
    games = emu.channel_named("games")
    await open_game(e2e, "interrupt_timeout=0", [dave, alice, carol], channel=games)
    second = table_row(g.db, games.id)
    assert second is not None and second.status == "playing"
    done = await alice.slash("/winter hand", channel=dm)
    hands = [m for m in done.replies if "hand**" in m.content]
    assert len(hands) == 2 and all(m.ephemeral_for == alice.id for m in hands)
    for channel, table in ((emu.channel, row), (games, second)):
        msg = next(m for m in hands if f"<#{channel.id}>" in m.content)
        assert msg.custom_ids and all(f":{table.id}:" in c for c in msg.custom_ids), (
            table.id, msg.custom_ids)
