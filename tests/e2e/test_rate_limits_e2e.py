"""The real bot meets the emulator's 429s: discord.py waits ``retry_after`` and the move
(or the board) still reaches the channel exactly once.

A bot alone honours the ``X-RateLimit-*`` headers before it needs to (discord.py waits
on an exhausted bucket), so the 429s here come from what another client of the same
application spent: another process of the bot on the same token or channel
(``emu.ratelimits.spend`` / ``spend_global``). Nothing is injected: the emulator's own
limiter answers, with Discord's body and headers.
"""

from __future__ import annotations

import random

import pytest

from tests.e2e.harness import E2E, latest_with_buttons
from tests.e2e.play import (
    actions,
    fti_turn,
    person_to_act,
    prompt_version,
    table_row,
    wait_next_prompt,
)
from tests.emulator import Emulator, Message
from tests.emulator.ratelimits import DISCORD_LIMITS, RateLimitPolicy, Window

pytestmark = pytest.mark.e2e

WEBHOOK = "/webhooks/{application_id}/{token}"
CREATE = "/channels/{channel_id}/messages"


async def open_fti(e2e: E2E) -> Message:
    emu, _bot, (alice, bob, _carol) = e2e
    await alice.slash("/table new", game="fairy-tale-inn")
    await bob.slash("/table join")
    await alice.slash("/table start")
    prompt = await emu.wait_for(lambda: latest_with_buttons(emu), 20, "the first turn")
    return prompt  # type: ignore[no-any-return]


def retried_after(emu: Emulator, path: str) -> list[tuple[float, float]]:
    """(seconds the client waited after each 429 on ``path``, the retry_after it was
    told), from the emulator's own request log."""
    out = []
    calls = [c for c in emu.requests if c.path == path]
    events = [e for e in emu.ratelimits.events if e.path == path]
    limited = [i for i, c in enumerate(calls) if c.status == 429]
    for n, i in enumerate(limited):
        after = next((c for c in calls[i + 1 :] if c.status != 429), None)
        assert after is not None, f"no retry after the 429 on {path}"
        out.append((after.at - calls[i].at, events[n].retry_after))
    return out


@pytest.mark.rate_limits(DISCORD_LIMITS)
async def test_a_429_on_the_clicks_token_is_waited_out_and_the_move_posted_once(
    e2e: E2E,
) -> None:
    emu, bot, _users = e2e
    prompt = await open_fti(e2e)
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None
    version = row.version
    actor = person_to_act(emu, prompt)
    assert actor is not None
    rng = random.Random(3)
    slot = rng.choice([b for b in prompt.buttons if not b.disabled])
    first = await actor.click(prompt, custom_id=slot.custom_id, settle=False)
    menu = await emu.answer(first)
    assert menu is not None and menu.ephemeral, "a slot click opens the private column menu"
    column = rng.choice([b for b in menu.buttons if not b.disabled])
    # The click that makes the move; before the bot has read it, another process of the
    # application spends its token's bucket (5 per 2 s per interaction).
    move = await actor.click(menu, custom_id=column.custom_id, wait=False)
    emu.ratelimits.spend("POST", WEBHOOK, token=move.token)
    await emu.finish(move)
    nxt = await wait_next_prompt(emu, bot.db_path, emu.channel, prompt, after_version=version)
    assert nxt is not None
    await emu.settle(quiet=0.5)
    # The emulator refused a request on the click's token with a route 429 ...
    limited = emu.ratelimits.events
    assert [e.scope for e in limited] == ["user"], limited
    assert move.token in limited[0].path and 0 < limited[0].retry_after <= 2.0
    assert emu.ratelimits.limited == {"user": 1}
    # ... discord.py waited what it was told before it tried again ...
    waits = retried_after(emu, limited[0].path)
    assert len(waits) == 1 and waits[0][0] >= waits[0][1] - 0.05, waits
    assert "is rate limited. Retrying in" in bot.log()
    # ... and the move is committed once and announced once, on a turn message of its own.
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.version == version + 1
    assert [v for v, _, _ in actions(bot.db_path, row.id)] == list(range(1, version + 2))
    newer = [m for m in emu.channel.visible if m.id > prompt.id and m.buttons]
    assert newer == [nxt] and prompt_version(nxt) > version
    # The route 429 is reported (the fixture prints the summary), not a failure.
    assert "route 1" in emu.ratelimits.summary() and not emu.ratelimits.problems()


@pytest.mark.rate_limits(RateLimitPolicy(global_limit=Window(50, 4.0)))
async def test_route_and_global_429s_on_the_bot_token_are_waited_out(e2e: E2E) -> None:
    """``/inn board`` posts on the bot token (a re-post rides no click): once with the
    channel's message bucket spent, once with the global window spent. A longer global
    window than Discord's 1 s is forced so the bot's post surely falls inside it."""
    emu, bot, (alice, bob, _carol) = e2e
    await open_fti(e2e)
    before = len(emu.channel.visible)
    emu.ratelimits.spend("POST", CREATE, channel_id=str(emu.channel.id))
    reply = (await alice.slash("/inn board")).reply
    await emu.wait_for(lambda: len(emu.channel.visible) == before + 1, 15, "the board re-post")
    await emu.settle(quiet=0.5)
    assert reply is not None
    path = f"/channels/{emu.channel.id}/messages"
    assert [(e.scope, e.path) for e in emu.ratelimits.events] == [("user", path)]
    assert emu.ratelimits.limited == {"user": 1}
    assert "We are being rate limited" in bot.log()

    before = len(emu.channel.visible)
    emu.ratelimits.spend_global()
    await bob.slash("/inn board")
    await emu.wait_for(lambda: len(emu.channel.visible) == before + 1, 15, "the board re-post")
    await emu.settle(quiet=0.5)
    assert emu.ratelimits.limited["global"] >= 1
    assert "Global rate limit has been hit" in bot.log()
    # Every 429 was waited out for as long as it said before the request went again.
    for where in {e.path for e in emu.ratelimits.events}:
        for waited, told in retried_after(emu, where):
            assert waited >= told - 0.05, (where, waited, told)
    # Each board posted once: nothing more arrived while the bot went quiet.
    assert len(emu.channel.visible) == before + 1
    # The global 429s were forced here; a bot that met one on its own would fail
    # assert_clean, which the fixture runs.
    with pytest.raises(AssertionError, match="global rate limit exceeded"):
        emu.assert_clean()
    emu.ratelimits.take_limited()


@pytest.mark.rate_limits(DISCORD_LIMITS)
async def test_after_fifteen_minutes_the_bot_token_edits_what_a_click_posted(e2e: E2E) -> None:
    """A turn message posted as a click's follow-up keeps its buttons until a later turn
    takes them off. When that comes after the click's token has expired (15 minutes on the
    emulator's clock), the edit still happens, on the bot token: the bot authored the
    message."""
    emu, bot, (alice, _bob, _carol) = e2e
    prompt = await open_fti(e2e)
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None
    actor = person_to_act(emu, prompt)
    assert actor is not None
    rng = random.Random(4)
    slot = rng.choice([b for b in prompt.buttons if not b.disabled])
    first = await actor.click(prompt, custom_id=slot.custom_id, settle=False)
    menu = await emu.answer(first)
    assert menu is not None
    column = rng.choice([b for b in menu.buttons if not b.disabled])
    move = await actor.click(menu, custom_id=column.custom_id)
    turn = await wait_next_prompt(emu, bot.db_path, emu.channel, prompt, after_version=row.version)
    assert turn is not None and turn.interaction_id == move.id, "posted on the click's token"
    await emu.settle(quiet=0.5)
    emu.advance_time(16 * 60)
    # A re-post of the board is a new turn message: the old one's buttons come off.
    await alice.slash("/inn board")
    await emu.wait_for(lambda: not turn.buttons, 15, "the old turn message's buttons to go")
    await emu.settle(quiet=0.5)
    on_token = [
        c
        for c in emu.requests
        if c.method == "PATCH" and c.path.endswith(f"/{turn.id}") and move.token in c.path
    ]
    on_bot = [
        c
        for c in emu.requests
        if c.method == "PATCH" and c.path == f"/channels/{emu.channel.id}/messages/{turn.id}"
    ]
    assert [c.status for c in on_token] == [401], on_token  # tried once: the token expired
    assert [c.status for c in on_bot] == [200], on_bot  # then the bot token did it
    assert [e.code for e in emu.take_errors()] == [50027]
    assert emu.ratelimits.invalid == 1


async def test_a_turn_message_posted_on_the_clicks_token_pings_the_person_asked(
    e2e: E2E,
) -> None:
    """The next turn message is a follow-up of the mover's click (no bot-token request)
    and still notifies whoever it asks: Discord notifies on a created message, and a
    follow-up is one; an edit never notifies anyone."""
    emu, bot, (alice, bob, _carol) = e2e
    prompt = await open_fti(e2e)  # its first turn message answers /table start: bot token
    since = len(emu.requests)
    rng = random.Random(5)
    asked_anew = []
    for _ in range(12):
        mover = person_to_act(emu, prompt)
        assert mover is not None
        clicks = await fti_turn(emu, emu.channel, rng, prompt)
        nxt = await wait_next_prompt(emu, bot.db_path, emu.channel, prompt)
        assert nxt is not None
        if nxt.id != prompt.id:
            asked = person_to_act(emu, nxt)
            assert asked is not None
            # Posted on the click that played the move, as a message of its own ...
            assert nxt.interaction_id == clicks[-1].id and nxt.webhook_id is not None
            # ... it notified the person it asks, and not the mover who answered theirs
            # (unless the same person is asked anew, as after the Rat).
            if asked.id != mover.id:
                assert nxt.pinged == {asked.id}, (nxt.content, nxt.pinged)
                asked_anew.append(nxt)
        else:
            # One more step of the same turn: an edit, which notifies nobody.
            assert nxt.pinged <= {mover.id}
        prompt = nxt
    assert asked_anew, "no change of player in twelve decisions"
    assert {alice.id, bob.id} >= {m for msg in asked_anew for m in msg.pinged}
    posted = [c for c in emu.requests[since:] if c.method == "POST" and c.template == CREATE]
    assert not posted, "every turn message rode a click's token"
