"""The durable outbox: a move committed just before a crash is announced after the
restart, exactly once (the real bot process, SIGKILLed, on its SQLite file)."""

from __future__ import annotations

import random
import sqlite3

import pytest

from engines import get_game
from tests.e2e.harness import E2E
from tests.e2e.play import prompt_version, table_row, wait_next_prompt
from tests.e2e.test_fairy_tale_inn import bot_history, open_table

pytestmark = pytest.mark.e2e

POST = "POST /channels/{channel_id}/messages"


def outboxes(db: object, table_id: str) -> list[tuple[int, str | None]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return conn.execute("SELECT version, delivered_at FROM outbox WHERE table_id = ?"
                            " ORDER BY id", (table_id,)).fetchall()


async def test_a_move_committed_before_a_crash_is_announced_after_the_restart(e2e: E2E) -> None:
    emu, bot, (alice, bob, _carol) = e2e
    await open_table(e2e)
    prompt = await wait_next_prompt(emu, bot.db_path, emu.channel, 0)
    assert prompt is not None
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.version == 0
    actor = alice if alice.mention in prompt.content else bob
    rng = random.Random(3)
    slot = rng.choice([b for b in prompt.buttons if not b.disabled])
    menu = (await actor.click(prompt, custom_id=slot.custom_id)).reply
    assert menu is not None and menu.ephemeral
    column = next(b for b in menu.buttons if not b.disabled)

    # The channel refuses every post for now: the move commits, its news cannot go out,
    # and the bot is killed while discord.py waits to retry.
    emu.faults.fail(POST, status=503, times=None)
    await actor.click(menu, custom_id=column.custom_id, settle=False)
    await emu.wait_for(lambda: table_row(bot.db_path, emu.channel.id).version == 1,  # type: ignore[union-attr]
                       10, "the move to be committed")
    bot.allow_tracebacks = True
    await bot.stop(kill=True)
    assert [v for v, done in outboxes(bot.db_path, row.id) if done is None] == [1]
    emu.faults.clear()

    await bot.start(sync=False)
    # The restarted bot delivers what the dead one committed: the next turn, pinged.
    nxt = await wait_next_prompt(emu, bot.db_path, emu.channel, prompt.id, after_version=0,
                                 timeout=20)
    assert nxt is not None and prompt_version(nxt) == 1
    # Whoever the committed state says acts next is pinged, unless the turn message
    # before already asked them (the move may keep the turn with the same player: a Rat
    # of the Pied Piper). Seats are the lobby's shuffled seating, not the join order.
    committed = table_row(bot.db_path, emu.channel.id)
    assert committed is not None and committed.state is not None
    game = get_game(committed.game_id)
    to_act = game.to_act(game.load_state(committed.state))
    by_id = {alice.id: alice, bob.id: bob}
    people = {i: by_id[int(s["user_id"])] for i, s in enumerate(committed.seats)}
    assert to_act
    for seat in to_act:
        if people[seat] != actor:
            assert people[seat].mention in nxt.content, (seat, nxt.content)
    # Marked delivered after the messages went out (later under load than a settle).
    await emu.wait_for(lambda: all(done is not None
                                   for _v, done in outboxes(bot.db_path, row.id)),
                       15, "every outbox to be marked delivered")
    # Exactly once: every line of the move is in the channel, in one message.
    channel = [m.content for m in emu.channel.messages]
    for line in bot_history(bot.db_path, row.id):
        assert sum(line in c for c in channel) == 1, line
    # The old turn message lost its buttons once the new one was posted.
    assert all(":0:" not in (b.custom_id or "") for b in prompt.buttons)


async def test_a_delivered_outbox_is_not_delivered_again_after_a_restart(e2e: E2E) -> None:
    emu, bot, _people = e2e
    await open_table(e2e)
    prompt = await wait_next_prompt(emu, bot.db_path, emu.channel, 0)
    assert prompt is not None
    await emu.settle(quiet=0.5)
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None
    assert all(done is not None for _v, done in outboxes(bot.db_path, row.id))
    count = len(emu.channel.messages)
    await bot.restart()
    await emu.settle(quiet=1.0)
    assert len(emu.channel.messages) == count  # nothing posted twice
