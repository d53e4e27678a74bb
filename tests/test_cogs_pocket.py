"""Fairy Tale in My Pocket on Discord: ``/pocket hint``, ``help`` and ``board``, the table
option and the buttons of the turn message, through the REAL discord.py command tree
(tests/discord_fakes.py).

The hint is asked at live tables (by the player in control and by a teammate), and
refused plainly where it cannot be given (no table, another game, a lobby, a finished
game, no seat, an AI in control). A hint plays nothing: the table's version and state
are the same after it, and its words never list the deck's next cards.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

import bot.messages.delivery.order as delivery_order
from bot.core.choices.pocket import PocketUI
from bot.core.tables import NoTable, TableInfo, TableStatus
from bot.messages.cogs.pocket import hint_seed
from engines import get_game
from engines.agents.pocket import hint
from engines.core import Rng
from engines.pocket.content import load_content
from engines.pocket.state import PocketState
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    Harness,
    Sent,
    answer,
    close_harness,
    make_harness,
    only,
    reply_text,
)
from tests.e2e.hidden import fragment_patterns

GAME = get_game("pocket")
UI = PocketUI()
C = load_content()


@pytest.fixture
async def h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    # Moves made straight through the service (to reach a moment fast) are never
    # announced; the next announcement need not wait for them.
    monkeypatch.setattr(delivery_order.TableOrder, "WAIT", 0.01)
    harness = await make_harness(tmp_path / "p.sqlite3", seed=5)
    yield harness
    await close_harness(harness)


async def open_table(h: Harness, options: str = "special=wand", *, bob: bool = True
                     ) -> TableInfo:
    await h.slash("table new", ANN, uname="Ann", game="pocket", options=options)
    if bob:
        await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN, uname="Ann")
    await h.service.wait_idle()
    await h.fake.settle()
    return await h.service.status(CHANNEL_ID)


async def stored(h: Harness, info: TableInfo) -> tuple[int, str]:
    rec = await h.service.store.get_table(info.id)
    assert rec is not None and rec.state is not None
    return rec.version, rec.state


def expected(info: TableInfo, state_json: str, version: int) -> tuple[str, str]:
    """The label and the reason the hint must give at this moment."""
    state = GAME.load_state(state_json)
    seat = GAME.to_act(state)[0]
    action, why = hint(GAME, state, seat, Rng.from_seed(hint_seed(info.id, version)))
    assert action in GAME.legal_actions(state, seat)
    return UI.label(action, GAME.view(state, None)), why


async def play(h: Harness, moves: int, seed: int) -> None:
    """Random legal moves through the service, for whoever leads the peasant."""
    pick = random.Random(seed)
    for _ in range(moves):
        try:
            info = await h.service.status(CHANNEL_ID)
        except NoTable:  # the game is over: the channel has no live table
            return
        user = info.to_act_users[0]
        legal = await h.service.legal_actions(CHANNEL_ID, user)
        await h.service.act(CHANNEL_ID, user, pick.choice(legal))


def upcoming(state: PocketState) -> list[re.Pattern[str]]:
    """The deck's next three cards in order, by the items they show (as a player would
    say them) and by card id: no answer may list them."""
    unknown = [k for k in state.deck if k not in state.known_in_deck][:3]
    if len(unknown) < 3:
        return []
    names = [w for k in unknown for w in C.item(C.card(k).item).name.split()]
    return [re.compile(r"\W{0,4}".join(map(re.escape, words)), re.IGNORECASE)
            for words in (names, unknown)]


def private_only(sent: list[Sent]) -> None:
    replies = [s for s in sent if s.kind in ("callback", "followup")]
    assert replies and all(s.ephemeral for s in replies), sent
    assert not [s for s in sent if s.kind == "channel_message"], "a hint posts nothing"


# --------------------------------------------------------------------------- /pocket hint


async def test_the_player_in_control_gets_a_move_and_why(h: Harness) -> None:
    info = await open_table(h)
    mover = info.to_act_users[0]
    version, state = await stored(h, info)
    label, why = expected(info, state, version)
    sent = await h.slash("pocket hint", mover)
    private_only(sent)
    assert only(sent, "callback").response_type == 5  # deferred: the search takes a moment
    text = only(sent, "followup").content
    assert text.startswith("**Hint**:") and f"**{label}**" in text and why in text
    assert "nothing was played" in text
    # nothing changed, and the same question gets the same answer
    assert await stored(h, info) == (version, state)
    assert (await h.service.status(CHANNEL_ID)).version == version
    again = only(await h.slash("pocket hint", mover), "followup").content
    assert again == text


async def test_a_teammate_gets_the_hint_for_the_player_in_control(h: Harness) -> None:
    info = await open_table(h)
    mover = info.to_act_users[0]
    other = BOB if mover == ANN else ANN
    leader = next(s.name for s in info.seats if s.user_id == mover)
    version, state = await stored(h, info)
    label, why = expected(info, state, version)
    sent = await h.slash("pocket hint", other)
    private_only(sent)
    text = only(sent, "followup").content
    assert text.startswith(f"**Hint for {leader}** (the player in control)")
    assert f"**{label}**" in text and why in text
    assert await stored(h, info) == (version, state)


async def test_hints_along_a_game_never_tell_the_deck(h: Harness) -> None:
    info = await open_table(h, "special=mirror", bob=False)
    asked = secrets = 0
    for step in range(6):
        await play(h, 4, seed=step)
        try:
            info = await h.service.status(CHANNEL_ID)
        except NoTable:
            break
        version, state_json = await stored(h, info)
        state = GAME.load_state(state_json)
        sent = await h.slash("pocket hint", ANN)
        private_only(sent)
        text = only(sent, "followup").content
        label, why = expected(info, state_json, version)
        assert f"**{label}**" in text and why in text
        # no run of the next cards (by item or by card id), no set-aside card, no
        # upcoming tiles: the game's own list of secrets, and the deck order here
        for pattern in [*fragment_patterns(GAME, state), *upcoming(state)]:
            assert not pattern.search(text), (pattern.pattern, text)
            secrets += 1
        assert not any(card in text for card in [*state.deck, *state.set_aside])
        assert await stored(h, info) == (version, state_json)
        asked += 1
    assert asked == 6 and secrets


async def test_hint_refusals_are_private_and_plain(h: Harness) -> None:
    sent = await h.slash("pocket hint", ANN)
    private_only(sent)
    assert "no table" in reply_text(sent).lower()
    await h.slash("table new", ANN, uname="Ann", game="treasure")
    sent = await h.slash("pocket hint", ANN)
    private_only(sent)
    assert "not Fairy Tale in My Pocket" in reply_text(sent)
    await h.slash("table abort", ANN)
    await h.slash("table new", ANN, uname="Ann", game="pocket")
    sent = await h.slash("pocket hint", ANN)
    private_only(sent)
    assert "not started" in reply_text(sent)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    await h.service.wait_idle()
    sent = await h.slash("pocket hint", CAROL)
    private_only(sent)
    assert "do not have a seat" in reply_text(sent)


async def test_no_hint_while_an_ai_leads(h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    # The AI would answer at once; held back, its turn can be asked about.
    monkeypatch.setattr(h.service, "_kick_ai", lambda t: None)
    await h.slash("table new", ANN, uname="Ann", game="pocket", options="special=boots")
    await h.slash("table addbot", ANN, level="careful")
    await h.slash("table start", ANN)
    pick = random.Random(1)
    for _ in range(60):
        info = await h.service.status(CHANNEL_ID)
        if not info.to_act_users:
            break
        legal = await h.service.legal_actions(CHANNEL_ID, ANN)
        await h.service.act(CHANNEL_ID, ANN, pick.choice(legal))
    info = await h.service.status(CHANNEL_ID)
    assert info.status is TableStatus.PLAYING and not info.to_act_users
    sent = await h.slash("pocket hint", ANN)
    private_only(sent)
    assert "(an AI) is leading the peasant" in reply_text(sent)
    assert (await h.service.status(CHANNEL_ID)).version == info.version


async def test_no_hint_once_the_game_is_over(h: Harness) -> None:
    await open_table(h, bob=False)
    await play(h, 3000, seed=2)
    info = await h.service.last_table(CHANNEL_ID)
    assert info.status is TableStatus.FINISHED
    sent = await h.slash("pocket hint", ANN)
    private_only(sent)
    assert "game is over" in reply_text(sent)


async def test_every_pocket_command_after_the_end_says_the_game_is_over(h: Harness) -> None:
    """Issue 23: after the end `/pocket board` answered "There is no table in this
    channel" while `/pocket hint` said "This game is over". Both (and the board of every
    game, which is the shared command) say the game is over and point to /table new,
    privately, posting nothing; `/pocket help` still tells about the finished table."""
    await open_table(h, bob=False)
    await play(h, 3000, seed=2)
    assert (await h.service.last_table(CHANNEL_ID)).status is TableStatus.FINISHED
    for command, user in (("pocket board", ANN), ("pocket board", CAROL),
                          ("pocket hint", ANN)):
        posted = len(h.fake.channel_messages())
        sent = await h.slash(command, user)
        private_only(sent)
        text = reply_text(sent)
        assert "This game is over" in text and "/table new" in text, (command, text)
        assert "no table" not in text
        assert len(h.fake.channel_messages()) == posted
    sent = await h.slash("pocket help", CAROL)
    assert "**This table:**" in answer(sent).content


# --------------------------------------------------------------------------- the rest


async def test_the_buttons_of_the_turn_message_play_the_move(h: Harness) -> None:
    info = await open_table(h, "special=mirror")
    mover = info.to_act_users[0]
    other = BOB if mover == ANN else ANN
    prompt = h.fake.last_prompt()
    assert prompt.files and prompt.files[0][0] == "board.png"
    assert prompt.custom_ids == [f"ft:{info.id}:0:x", f"ft:{info.id}:0:xm"]
    labels = [b["label"] for b in prompt.buttons()]
    assert labels == ["Explore the Forest", "Explore with the Mirror (1 gold)"]
    sent = await h.click(prompt.custom_ids[0], other, message=prompt)
    assert "not your turn" in reply_text(sent)
    await h.click(prompt.custom_ids[0], mover, message=prompt)
    await h.service.wait_idle()
    await h.fake.settle()
    info = await h.service.status(CHANNEL_ID)
    assert info.version >= 1
    history = await h.service.history(CHANNEL_ID)
    assert any("explored and found" in line for line in history)
    # the next choice is on the (edited or new) turn message, for the same player
    after = h.fake.last_prompt()
    assert after.custom_ids and all(c.startswith(f"ft:{info.id}:{info.version}:")
                                    or c.startswith(f"fs:{info.id}:{info.version}:")
                                    for c in after.custom_ids)


async def test_table_new_confirms_the_gift(h: Harness) -> None:
    sent = await h.slash("table new", ANN, uname="Ann", game="pocket",
                         options="special='Seven-League Boots'")
    assert "gift: the Seven-League Boots" in answer(sent).content
    await h.slash("table abort", ANN)
    sent = await h.slash("table new", ANN, uname="Ann", game="pocket")
    assert "chosen at random" in answer(sent).content
    await h.slash("table abort", ANN)
    sent = await h.slash("table new", ANN, uname="Ann", game="pocket", options="special=sword")
    assert "not one of random" in reply_text(sent) and all(s.ephemeral for s in sent)
    choices = (await h.autocomplete("table new", ANN, "options", game="pocket",
                                    options="special=w")).payload["data"]["choices"]
    assert [c["value"] for c in choices] == ["special=wand"]


async def test_help_board_and_rules(h: Harness) -> None:
    sent = await h.slash("pocket help", CAROL)
    reply = answer(sent)
    assert reply.ephemeral and "/pocket hint" in reply.content
    assert all(i.name in reply.content for i in C.items) and len(reply.content) <= 2000
    sent = await h.slash("rules", CAROL, game="pocket")
    text = answer(sent).content
    assert "Fairy Tale in My Pocket" in text and "Castle" in text and "/pocket hint" in text
    await open_table(h)
    sent = await h.slash("pocket help", CAROL)
    assert "**This table:** High sun" in answer(sent).content
    sent = await h.slash("pocket board", BOB)
    assert any(s.kind == "channel_message" and s.custom_ids for s in sent)
    assert only(sent, "followup").ephemeral


async def test_hand_at_a_pocket_table_says_the_prompt_once(h: Harness) -> None:
    """Issue 23: `/hand` at a Pocket table repeated "Where to? Explore a new place, or go
    back to one you know." twice (the view's prompt, then the menu's, the same words).
    Once only, for the player in control (with the buttons) and for a teammate."""
    info = await open_table(h)
    mover = info.to_act_users[0]
    other = BOB if mover == ANN else ANN
    prompt = GAME.view(GAME.load_state((await stored(h, info))[1]), None).prompt
    assert prompt.startswith("Where to?")
    for user, buttons in ((mover, True), (other, False)):
        reply = answer(await h.slash("hand", user))
        assert reply.ephemeral and reply.content.count(prompt) == 1, reply.content
        assert bool(reply.custom_ids) is buttons


def test_docstring_examples_of_the_cog() -> None:
    import doctest

    import bot.messages.cogs.pocket as module

    result = doctest.testmod(module)
    assert result.attempted >= 1 and result.failed == 0


async def test_a_long_solo_turn_goes_on_in_a_new_message_instead_of_cutting_its_lines(
        h: Harness) -> None:
    """Solo Pocket is one long turn: the turn message grew until its first lines were
    cut to "…". When a turn's lines would be cut, a new turn message goes on with it
    (without pinging again); no turn message ever loses its first lines."""
    info = await open_table(h, bob=False)
    pick = random.Random(3)
    for _ in range(160):
        try:
            info = await h.service.status(CHANNEL_ID)
        except NoTable:
            break  # the game is over
        if info.status is not TableStatus.PLAYING:
            break
        legal = await h.service.legal_actions(CHANNEL_ID, ANN)
        outbox = await h.service.act(CHANNEL_ID, ANN, pick.choice(legal))
        await h.bot.delivery.deliver(outbox)
    await h.fake.settle()
    turns = [s for s in h.fake.sent if s.kind == "channel_message" and s.channel_id == CHANNEL_ID
             and "components" in s.payload and s.payload["components"]]
    begins = next(i for i, t in enumerate(turns) if "begins!" in t.payload["content"])
    turns = turns[begins:]  # the lobby message before it is not a turn message
    assert len(turns) >= 2, "a long solo game goes on in a new message"
    for message in turns:
        now = h.fake.current(message).payload.get("content") or ""
        assert not now.startswith("…"), now[:80]
    pings = [t for t in turns[1:] if f"<@{ANN}>" in (t.payload.get("content") or "")
             and (t.payload.get("allowed_mentions") or {}).get("users")]
    assert not pings, "going on with the same turn asks nobody again"
