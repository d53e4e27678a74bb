"""Save the Treasure end to end: the bot process, the emulator, children clicking tiles."""

from __future__ import annotations

import random

import pytest

from tests.e2e.harness import E2E
from tests.e2e.hidden import assert_no_hidden_information
from tests.e2e.play import actions, person_to_act, prompt_version, table_row, wait_next_prompt
from tests.emulator import Channel, Emulator, Message

pytestmark = pytest.mark.e2e


async def treasure_turn(
    emu: Emulator, channel: Channel, rng: random.Random, prompt: Message
) -> None:
    """One decision for whoever the turn message asks: a tile then its direction, or a
    green tile / a step / stop sliding (single clicks on the turn message)."""
    actor = person_to_act(emu, prompt)
    assert actor is not None, f"nobody is asked to act in {prompt.content!r}"
    enabled = [b for b in prompt.buttons if not b.disabled]
    assert enabled, "a turn message always offers a legal move"
    choice = rng.choice(enabled)
    first = await actor.click(prompt, custom_id=choice.custom_id, settle=False)
    menu = await emu.answer(first)
    if ":t" in choice.custom_id:  # a tile: its directions come back privately
        assert menu is not None and menu.ephemeral and actor.sees(menu)
        assert "Which way" in menu.content
        direction = rng.choice([b for b in menu.buttons if not b.disabled])
        await actor.click(menu, custom_id=direction.custom_id, settle=False)


async def play_treasure(
    emu: Emulator, bot_db, channel: Channel, rng: random.Random, max_decisions: int = 400
) -> tuple[int, Message | None]:
    made = 0
    prompt = await wait_next_prompt(emu, bot_db, channel, 0)
    while prompt is not None and made < max_decisions:
        seen = prompt_version(prompt)
        await treasure_turn(emu, channel, rng, prompt)
        made += 1
        prompt = await wait_next_prompt(emu, bot_db, channel, prompt.id, after_version=seen)
    return made, prompt


async def test_two_children_play_a_full_game(e2e: E2E) -> None:
    emu, bot, (alice, bob, carol) = e2e
    opened = await alice.slash(
        "/table new", game="treasure", options={"options": "variant=true king_path_length=8"}
    )
    assert opened.reply is not None and "Save the Treasure" in opened.reply.content
    await bob.slash("/table join")
    started = await alice.slash("/table start")
    assert started.reply is not None and started.reply.ephemeral
    board = emu.channel.messages[-1]
    assert board.image is not None and board.image.size[0] == 1100
    assert all(":t" in b.custom_id for b in board.buttons), "first: pick a tile"

    # A spectator's click changes nothing and is answered privately.
    spectator = await carol.click(board, custom_id=board.buttons[0].custom_id)
    assert spectator.reply is not None and spectator.reply.ephemeral
    assert "do not have a seat" in spectator.reply.content

    helped = await carol.slash("/treasure help")
    assert helped.reply is not None and helped.reply.ephemeral
    assert "0/12 pages" in helped.reply.content

    decisions, prompt = await play_treasure(emu, bot.db_path, emu.channel, random.Random(3))
    assert prompt is None
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.status == "finished"
    assert row.options == {"variant": True, "king_path_length": 8}
    moves = actions(bot.db_path, row.id)
    assert [v for v, _, _ in moves] == list(range(1, row.version + 1))
    assert decisions == len(moves) > 8
    assert {seat for _, seat, _ in moves} == {0, 1}
    last = emu.channel.messages[-1].content
    assert "king" in last.lower() or "saved" in last.lower()
    # No move buttons are left on a finished game (the lobby message keeps its own).
    assert not [m for m in emu.channel.messages
                if any(":lobby." not in b.custom_id for b in m.buttons)]
    check = assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
    assert check.checked_images == len(moves) + 1
    bot.assert_log_clean()


@pytest.mark.bot_env(AI_DELAY="1")
async def test_a_child_plays_with_an_ai_teammate(e2e: E2E) -> None:
    emu, bot, (alice, _bob, _carol) = e2e
    await alice.slash("/table new", game="treasure", options={"options": "king_path_length=6"})
    added = await alice.slash("/table addbot", level="team")
    assert added.reply is not None
    await alice.slash("/table start")
    _decisions, prompt = await play_treasure(emu, bot.db_path, emu.channel, random.Random(5))
    assert prompt is None
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.status == "finished"
    moves = actions(bot.db_path, row.id)
    assert {seat for _, seat, _ in moves} == {0, 1}  # the child and the AI both moved
    assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
