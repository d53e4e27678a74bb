"""Fairy Tale Inn end to end: the bot process, the emulator, simulated people."""

from __future__ import annotations

import asyncio
import io
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.harness import E2E, latest_with_buttons
from tests.e2e.hidden import assert_no_hidden_information
from tests.e2e.play import (
    actions,
    person_to_act,
    play_fti,
    prompt_version,
    set_table_seed,
    table_row,
    wait_next_prompt,
)
from tests.emulator import Channel, Emulator, Interaction, Message
from tests.emulator.server import Fault

pytestmark = pytest.mark.e2e


async def open_table(e2e: E2E, *, ai: bool = False) -> None:
    _emu, _bot, (alice, bob, _carol) = e2e
    opened = await alice.slash("/table new", game="fairy-tale-inn")
    assert opened.reply is not None and "Fairy Tale Inn" in opened.reply.content
    if ai:
        await alice.slash("/table addbot")
    else:
        await bob.slash("/table join")
    started = await alice.slash("/table start")
    assert started.reply is not None and started.reply.ephemeral


async def test_two_people_play_a_full_game(e2e: E2E) -> None:
    emu, bot, _users = e2e
    await open_table(e2e)
    board = emu.channel.messages[-1]
    assert board.image is not None and board.image.size[0] > 200
    played = await play_fti(emu, bot.db_path, emu.channel, random.Random(1))
    assert played.prompt is None
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.status == "finished"
    moves = actions(bot.db_path, row.id)
    assert [v for v, _, _ in moves] == list(range(1, row.version + 1))
    assert played.decisions >= len(moves) > 10
    assert "wins" in emu.channel.messages[-1].content
    assert latest_with_buttons(emu) is None  # no buttons left on a finished game
    check = assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
    # The steps of one turn share one message (its picture replaced when the board
    # changes): every picture ever posted is checked, and the board was shown often.
    assert check.checked_images > len(moves) // 2 and check.checked_messages > len(moves) // 2
    bot.assert_log_clean()


# A short AI_DELAY (production: 1 s); test_ai_answer_is_announced_after_the_move_it_answers
# covers AI_DELAY=0, where delivery must keep each table's updates in move order.
@pytest.mark.bot_env(AI_DELAY="0.3")
async def test_a_full_game_against_the_ai_survives_a_restart(e2e: E2E) -> None:
    emu, bot, (alice, _bob, _carol) = e2e
    await open_table(e2e, ai=True)
    rng = random.Random(2)
    played = await play_fti(emu, bot.db_path, emu.channel, rng, stop_after=4)
    prompt = played.prompt
    assert prompt is not None and alice.mention in prompt.content
    before = table_row(bot.db_path, emu.channel.id)
    assert before is not None and before.status == "playing"

    await bot.restart()  # SIGKILL mid-game, then a fresh process on the same SQLite file

    assert table_row(bot.db_path, emu.channel.id) == before  # nothing lost, nothing added
    # The turn message posted before the restart still works: its buttons are DynamicItems.
    assert latest_with_buttons(emu) is prompt
    old_slot = next(b for b in prompt.buttons if not b.disabled).custom_id
    played = await play_fti(emu, bot.db_path, emu.channel, rng, prompt=prompt, stop_after=1)
    assert table_row(bot.db_path, emu.channel.id).version > before.version  # type: ignore
    # The turn message is in the store, so the restarted process knows it: once the move is
    # made its old buttons are gone (edited into the next step of the turn, or taken off
    # when the turn passes), never left to answer "older turn" for good.
    await emu.wait_for(
        lambda: all(f":{before.version}:" not in (b.custom_id or "") for b in prompt.buttons),
        10,
        "the old buttons to go",
    )
    assert old_slot not in [b.custom_id for b in prompt.buttons]
    played = await play_fti(emu, bot.db_path, emu.channel, rng, prompt=played.prompt)
    assert played.prompt is None
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.status == "finished"
    moves = actions(bot.db_path, row.id)
    assert [v for v, _, _ in moves] == list(range(1, row.version + 1))
    assert {seat for _, seat, _ in moves} == {0, 1}  # both the person and the AI moved
    assert_no_hidden_information(emu, bot.db_path, emu.channel.id)


async def test_stale_foreign_and_double_clicks_change_nothing(e2e: E2E) -> None:
    emu, bot, (alice, bob, carol) = e2e
    await open_table(e2e)
    first = await wait_next_prompt(emu, bot.db_path, emu.channel, 0)
    assert first is not None
    actor = next(p for p in (alice, bob) if p.mention in first.content)
    waiting = bob if actor is alice else alice
    slots = [b for b in first.buttons if not b.disabled]

    # Foreign: a spectator, and the player whose turn it is not.
    spectator = await carol.click(first, custom_id=slots[0].custom_id)
    assert spectator.reply is not None and spectator.reply.ephemeral
    assert "do not have a seat" in spectator.reply.content
    assert carol.sees(spectator.reply) and not actor.sees(spectator.reply)
    not_yours = await waiting.click(first, custom_id=slots[0].custom_id)
    assert not_yours.reply is not None and "not your turn" in not_yours.reply.content

    # The actor opens two column menus, plays from the second: the first goes stale.
    menu_a = (await actor.click(first, custom_id=slots[0].custom_id)).reply
    menu_b = (await actor.click(first, custom_id=slots[-1].custom_id)).reply
    assert menu_a is not None and menu_b is not None and menu_a.ephemeral
    assert table_row(bot.db_path, emu.channel.id).version == 0  # type: ignore[union-attr]
    await actor.click(menu_b, custom_id=menu_b.buttons[0].custom_id)
    prompt = await wait_next_prompt(emu, bot.db_path, emu.channel, first.id, after_version=0)
    assert prompt is not None
    assert table_row(bot.db_path, emu.channel.id).version == 1  # type: ignore[union-attr]
    assert menu_b.buttons == [] and "You dropped" in menu_b.content
    # The old turn message loses its version-0 buttons: taken off when the turn passed,
    # or replaced by the next step's when the same player decides again (a Rat, an
    # extra turn), since the steps of one turn share one message.
    await emu.wait_for(
        lambda: all(":0:" not in (b.custom_id or "") for b in first.buttons),
        5,
        "the old turn message to lose its old buttons",
    )
    stale = await actor.click(menu_a, custom_id=menu_a.buttons[0].custom_id)
    assert stale.reply is not None and stale.reply.ephemeral
    assert "older turn" in stale.reply.content
    assert table_row(bot.db_path, emu.channel.id).version == 1  # type: ignore[union-attr]

    # The table's seed is random: the first drop may have opened an extra-turn or a Rat
    # decision, whose buttons act at once. Settle those until a Guest List slot is offered.
    while not (
        slots := [
            b for b in prompt.buttons if not b.disabled and re.search(r":s\d+$", b.custom_id or "")
        ]
    ):
        actor = next(p for p in (alice, bob) if p.mention in prompt.content)
        decision = next(b for b in prompt.buttons if not b.disabled)
        seen = prompt_version(prompt)
        await actor.click(prompt, custom_id=decision.custom_id)
        prompt = await wait_next_prompt(
            emu, bot.db_path, emu.channel, prompt.id, after_version=seen
        )
        assert prompt is not None
    before = table_row(bot.db_path, emu.channel.id).version  # type: ignore[union-attr]

    # Double click: the same column button twice at once makes exactly one move.
    actor = next(p for p in (alice, bob) if p.mention in prompt.content)
    menu = (await actor.click(prompt, custom_id=slots[0].custom_id)).reply
    assert menu is not None and menu.buttons
    column = next(b for b in menu.buttons if not b.disabled).custom_id
    both = await asyncio.gather(
        actor.click(menu, custom_id=column, wait=False),
        actor.click(menu, custom_id=column, wait=False),
    )
    for inter in both:
        await emu.finish(inter)
    await wait_next_prompt(emu, bot.db_path, emu.channel, prompt.id, after_version=before)
    await emu.settle(quiet=0.5)
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.version == before + 1
    assert len(actions(bot.db_path, row.id)) == before + 1
    answers = [r.content for i in both for r in i.replies]
    # One click moved, the other got a private refusal (the table moved on under it).
    assert sum("older turn" in a or "not your turn" in a for a in answers) == 1, answers
    assert_no_hidden_information(emu, bot.db_path, emu.channel.id)


def bot_history(db: Path, table_id: str) -> list[str]:
    """The public lines of a table's event log, straight from the bot's SQLite file."""
    import json
    import sqlite3

    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute(
            "SELECT data FROM events WHERE table_id = ? ORDER BY version, idx", (table_id,)
        ).fetchall()
    return [d["text"] for (raw,) in rows if (d := json.loads(raw))["visible_to"] is None]


def boards(e2e: E2E) -> list[Message]:
    return [
        m for m in e2e.emu.channel.messages if any(a.filename == "board.png" for a in m.attachments)
    ]


async def test_closed_dms_lose_nothing(e2e: E2E) -> None:
    emu, bot, (alice, bob, _carol) = e2e
    bob.close_dms()
    await open_table(e2e)
    await play_fti(emu, bot.db_path, emu.channel, random.Random(4), stop_after=6)
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.version >= 5
    # the start and every move reached the channel
    channel = "\n".join(m.content for m in emu.channel.messages)
    assert all(line in channel for line in bot_history(bot.db_path, row.id))
    # Every private message the bot tried to DM bob was refused and replaced by a
    # channel nudge; Fairy Tale Inn has no per-seat secret, so it should not even try.
    refused = [c for c in emu.requests if c.status == 403]
    assert bob.dm_messages() == []
    for _ in refused:
        assert any(bob.mention in m.content and "/hand" in m.content for m in emu.channel.messages)
    assert all(e.code == 50007 for e in emu.take_errors())
    # The ephemeral path: /hand shows bob his view, privately, with the picture.
    hand = await bob.slash("/hand")
    reply = hand.reply
    assert reply is not None and reply.ephemeral and reply.ephemeral_for == bob.id
    assert "Fairy Tale Inn" in reply.content and reply.image is not None
    assert not alice.sees(reply)
    assert_no_hidden_information(emu, bot.db_path, emu.channel.id)


FOLLOW_UP = "POST /webhooks/{application_id}/{token}"
TOKEN_EDIT = "PATCH /webhooks/{application_id}/{token}/messages/{message_id}"
CALLBACK = "POST /interactions/{interaction_id}/{token}/callback"
BOT_POST = "POST /channels/{channel_id}/messages"
SLOT = re.compile(r":s\d+$")


def ai_first_seed() -> int:
    """A table seed that seats the AI (added second) first, worked out as the lobby
    shuffles the seating (bot.core.tables.lobby), so its first move comes before any
    click: no interaction's token is at hand and it goes out on the bot token."""
    from bot.core.tables.lobby import SEATING_SALT
    from engines.core import Rng

    for seed in range(1, 1000):
        order = ["person", "ai"]
        Rng.from_seed(seed ^ SEATING_SALT).shuffle(order)
        if order[0] == "ai":
            return seed
    raise AssertionError("no seed seats the AI first")


async def decide_under_faults(
    emu: Emulator,
    prompt: Message,
    rng: random.Random,
    arm: Callable[[Interaction, Interaction], Fault],
) -> Fault:
    """One decision on ``prompt`` as fti_turn makes it, and, before the bot has read the
    click that makes the move, ``arm(first, mover)``: a fault (returned) on a request of this
    very move, named by the token it rides (``first``: the click on the turn message, whose
    token edits it; ``mover``: the click that plays, whose token answers it, tidies the
    menu and posts the next turn message)."""
    actor = person_to_act(emu, prompt)
    assert actor is not None, prompt.content
    button = rng.choice([b for b in prompt.buttons if not b.disabled])
    assert button.custom_id is not None
    if SLOT.search(button.custom_id):
        first = await actor.click(prompt, custom_id=button.custom_id, settle=False)
        menu = await emu.answer(first)
        assert menu is not None and menu.ephemeral, "a slot opens the column menu"
        column = rng.choice([b for b in menu.buttons if not b.disabled])
        mover = await actor.click(menu, custom_id=column.custom_id, wait=False)
    else:  # a Rat or an extra-turn decision plays at once
        first = mover = await actor.click(prompt, custom_id=button.custom_id, wait=False)
    fault = arm(first, mover)  # no await since the click: the bot has not been answered yet
    await emu.finish(mover)
    return fault


def assert_each_move_told_once(e2e: E2E, channel: Channel) -> int:
    """Versions 1..N in the log, every public line of it in ``channel``, no message
    posted twice, every picture checked for hidden information. Returns N."""
    emu, bot, _users = e2e
    row = table_row(bot.db_path, channel.id)
    assert row is not None
    moves = actions(bot.db_path, row.id)
    assert [v for v, _, _ in moves] == list(range(1, row.version + 1))
    said = "\n".join(m.content for m in channel.messages)
    for line in bot_history(bot.db_path, row.id):
        assert line in said, line
    # (the lobby message, refreshed to what /table join answered, may read the same)
    contents = [m.content for m in channel.messages if m.content and "— lobby" not in m.content]
    twice = [c for c in set(contents) if contents.count(c) > 1]
    assert not twice, f"posted twice: {twice}"
    pictures = [
        m for m in channel.messages if any(a.filename == "board.png" for a in m.attachments)
    ]
    assert len(pictures) <= row.version + 1
    check = assert_no_hidden_information(emu, bot.db_path, channel.id)
    # every picture posted, including ones an edit later replaced, was checked
    replaced = sum(
        1
        for m in channel.messages
        for old in m.history
        for a in old.get("files", [])
        if a not in m.attachments
    )
    assert check.checked_images == len(pictures) + replaced
    return row.version


@pytest.mark.bot_env(AI_DELAY="1")
async def test_rate_limits_and_server_errors_lose_and_repeat_no_move(e2e: E2E) -> None:
    """429s and 5xx on the ways a move reaches the channel now: a person's move rides
    the click's token (the answer, the menu tidied, the next turn message as a follow-up,
    the old turn message's buttons taken off), and an AI's move with no click at hand
    goes out on the bot token. No move is lost, none repeated, each told once."""
    emu, bot, (_alice, _bob, carol) = e2e
    faults = emu.faults
    app = str(emu.application_id)

    # Two people: faults on the requests of the moves themselves.
    await open_table(e2e)
    opened = len(emu.requests)
    armed: list[Callable[[Interaction, Interaction], Fault]] = [
        # The next turn message's follow-up meets the click's bucket twice.
        lambda first, mover: faults.rate_limit(
            FOLLOW_UP, retry_after=0.3, times=2, within=f"/webhooks/{app}/{mover.token}"
        ),
        # The old turn message's edit (its buttons off) on the token that opened the menu.
        lambda first, mover: faults.rate_limit(
            TOKEN_EDIT, retry_after=0.2, within=f"/{first.token}/"
        ),
        # Discord's trouble on the follow-up: discord.py retries it after a second.
        lambda first, mover: faults.fail(
            FOLLOW_UP, status=500, within=f"/webhooks/{app}/{mover.token}"
        ),
        lambda first, mover: faults.fail(TOKEN_EDIT, status=503, within=f"/{mover.token}/"),
    ]
    # discord.py waits 1 s, then 3 s, between 5xx retries: two faults on one callback would
    # miss Discord's 3-second window, so each callback fault is armed for one interaction.
    faults.fail(CALLBACK, status=500)
    rng = random.Random(5)
    prompt = await wait_next_prompt(emu, bot.db_path, emu.channel, 0)
    for _ in range(12):
        if not armed:
            break
        assert prompt is not None
        seen = (prompt.id, prompt_version(prompt))
        fault = await decide_under_faults(emu, prompt, rng, armed[0])
        prompt = await wait_next_prompt(
            emu, bot.db_path, emu.channel, seen[0], after_version=seen[1]
        )
        await emu.settle(quiet=0.3)
        if fault.hits == fault.times:
            armed.pop(0)
        else:
            # The move made no such request (a Rat or an extra turn edits the turn message
            # in place instead of posting the next): the same fault waits for the next one.
            faults.rules.remove(fault)
    assert not armed, "every fault met a move's request"
    faults.fail(CALLBACK, status=502)
    # And the gateway drops mid-game: the next click is delivered after the bot RESUMEs.
    session = emu.gateway.by_shard[0]
    await emu.drop_gateway()
    await play_fti(emu, bot.db_path, emu.channel, rng, stop_after=4, prompt=prompt)
    await emu.settle(quiet=0.5)
    assert all(f.hits == f.times for f in faults.rules), faults.rules
    assert session.resumes == 1 and emu.gateway.identifies == 1
    assert assert_each_move_told_once(e2e, emu.channel) >= 7
    on_bot_token = [c for c in emu.requests[opened:] if c.path.startswith("/channels/")]
    assert not on_bot_token, "the people's moves ride their clicks' tokens"

    # An AI's first move, before anyone clicked: the bot token's message route meets a
    # route 429, the global limit, and a 500 after Discord made the message (the answer
    # is lost): the retry carries the same nonce and is answered with that message.
    inn = emu.add_channel(emu.guild, "inn-with-an-ai")
    await carol.slash("/table new", game="fairy-tale-inn", channel=inn)
    await carol.slash("/table addbot", channel=inn)
    set_table_seed(bot.db_path, inn.id, ai_first_seed())
    within = f"/channels/{inn.id}/messages"
    nonce_hits = emu.nonce_hits
    started = await carol.slash("/table start", channel=inn)
    assert started.reply is not None and started.reply.ephemeral
    row = table_row(bot.db_path, inn.id)
    assert row is not None and row.seats[0]["ai_level"] and row.version == 0
    # (armed now: the start's own message is out; the AI plays after AI_DELAY)
    faults.rate_limit(BOT_POST, retry_after=0.3, within=within)
    faults.rate_limit(BOT_POST, retry_after=0.2, is_global=True, within=within)
    faults.fail(BOT_POST, status=500, after_apply=True, within=within)
    await play_fti(emu, bot.db_path, inn, random.Random(6), stop_after=3)
    await emu.settle(quiet=0.5)
    assert all(f.hits == f.times for f in faults.rules), faults.rules
    assert emu.nonce_hits > nonce_hits, "the retried post was answered by its nonce"
    ai_move = [c for c in emu.requests if c.path == within and c.method == "POST"]
    assert [c.status for c in ai_move][-5:] == [200, 429, 429, 500, 200], ai_move
    assert assert_each_move_told_once(e2e, inn) >= 4
    assert not any(i.failed for i in emu.interactions.values())


@pytest.mark.bot_env(AI_DELAY="0")
async def test_ai_answer_is_announced_after_the_move_it_answers(e2e: E2E) -> None:
    emu, bot, _users = e2e
    await open_table(e2e, ai=True)
    played = await play_fti(
        emu, bot.db_path, emu.channel, random.Random(6), stop_after=6, max_decisions=6
    )
    assert played.decisions == 6
    # After every person's move the newest message must be the newest turn, with buttons.
    assert played.prompt is None or latest_with_buttons(emu) is played.prompt


async def test_the_leak_check_catches_leaks(e2e: E2E) -> None:
    """The no-hidden-information check is only worth something if it fails on a leak."""
    emu, bot, _users = e2e
    await open_table(e2e)
    await play_fti(emu, bot.db_path, emu.channel, random.Random(7), stop_after=2)
    clean = assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
    assert clean.checked_images == 3
    state = clean.rep.states[-1]
    draws = list(reversed(state.bag))
    names = {c.id: c.name for c in clean.rep.game.data.characters}

    def leaks(message: Message, match: str) -> None:
        with pytest.raises(AssertionError, match=match):
            assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
        emu.channel.messages.remove(message)
        assert_no_hidden_information(emu, bot.db_path, emu.channel.id)

    said = emu.inject_message(emu.channel, "Next up: " + ", ".join(names[t] for t in draws))
    leaks(said, "reveals hidden order")
    button = {"type": 2, "style": 1, "label": "Go", "custom_id": "ft:x:1:" + ".".join(draws[:4])}
    hidden_in_id = emu.inject_message(
        emu.channel, "Go", components=[{"type": 1, "components": [button]}]
    )
    leaks(hidden_in_id, "reveals hidden order|not a Fabletop id|future version")
    strange = {**button, "custom_id": "bag:" + draws[0]}
    odd_id = emu.inject_message(
        emu.channel, "Go", components=[{"type": 1, "components": [strange]}]
    )
    leaks(odd_id, "not a Fabletop id")
    board = next(m for m in emu.channel.messages if m.attachments)
    flipped = io.BytesIO()
    board.image.transpose(0).save(flipped, "PNG")  # not a picture of any public view
    picture = emu.inject_message(emu.channel, "board", files=[("board.png", flipped.getvalue())])
    leaks(picture, "not the public view")


async def test_autocomplete_and_a_table_in_a_thread(e2e: E2E) -> None:
    emu, bot, (alice, bob, _carol) = e2e
    choices = await alice.autocomplete("/table new", "game", "fairy")
    assert {"name": "Fairy Tale Inn", "value": "fairy-tale-inn"} in choices
    thread = emu.create_thread(emu.channel, "inn night", owner=alice.user)
    await emu.wait_for(lambda: emu.gateway.by_shard[0].seq > 2)  # THREAD_CREATE sent
    await alice.slash("/table new", game=choices[0]["value"], channel=thread)
    await bob.slash("/table join", channel=thread)
    await alice.slash("/table start", channel=thread)
    played = await play_fti(emu, bot.db_path, thread, random.Random(8), stop_after=2)
    assert played.prompt is not None and played.prompt.channel_id == thread.id
    row = table_row(bot.db_path, thread.id)
    assert row is not None and row.version >= 2
    assert emu.channel.messages == []  # everything happened in the thread
    assert_no_hidden_information(emu, bot.db_path, thread.id)
