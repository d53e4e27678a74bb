"""The defects found by playing the real bot as new users would (issue 9), each with a
test that failed before its fix. The flooded channel (item 2) is measured end to end in
tests/e2e/test_channel_noise.py; the restart items (3, 4) also in tests/e2e."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.core.tables import EngineAgents, TableService, TableStatus
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    EDITS,
    Harness,
    answer,
    close_harness,
    make_harness,
    only,
    reply_text,
)

HUGE = "x" * 6000


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


# -- 1. the Winter Tales AI plays and narrates its own choice ---------------------------


async def test_winter_storytellers_play_their_own_narrated_choices(tmp_path: Path) -> None:
    service = await TableService.open_sqlite(tmp_path / "w.db", agents=EngineAgents(),
                                             reminder_minutes=0)
    try:
        await service.create(CHANNEL_ID, 1, ANN, "Ann", "winter-tales",
                             {"interrupt_timeout": 0}, seed=3)
        await service.add_ai(CHANNEL_ID, ANN, "storyteller")
        await service.add_ai(CHANNEL_ID, ANN, "storyteller")
        # Ann hands her own seat to a storyteller too: the whole table is AI.
        await service.start(CHANNEL_ID, ANN)
        info = await service.status(CHANNEL_ID)
        human = info.seat_of(ANN)
        assert human is not None
        await service.replace_seat(CHANNEL_ID, ANN, human.index, ai_level="storyteller")
        await asyncio.wait_for(service.wait_idle(), 120)
        info = await service.status(info.id)
        assert info.status is TableStatus.FINISHED
        # No choice was refused and replaced by a random one...
        assert service.replaced_choices == 0
        # ...and the storytellers told the story in their own words.
        view = await service.public_view(info.id)
        told = [e for e in view.transcript if e.seat is not None and e.text]
        assert len(told) > 10
    finally:
        await service.close()


# -- 5. long input is never echoed whole ------------------------------------------------


async def test_long_input_gets_an_answer_that_fits(h: Harness) -> None:
    for name, options in (("table new", {"game": HUGE}), ("rules", {"game": HUGE}),
                          ("help", {"command": HUGE})):
        sent = await h.slash(name, ANN, **options)
        reply = answer(sent)
        assert reply.ephemeral and 0 < len(reply.content) <= 2000, name
        assert HUGE not in reply.content
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    reply = answer(await h.slash("table addbot", ANN, level=HUGE))
    assert len(reply.content) <= 2000 and "no AI level" in reply.content
    reply = only(await h.slash("table new", BOB, game="fairy-tale-inn", options=f"a={HUGE}"),
                 "callback")
    assert len(reply.content) <= 2000


# -- 6. every component interaction gets an answer -----------------------------------------


@pytest.mark.parametrize("custom_id", ["ft:", "ft:abc:1", "ft:abc:x:s1", "ft:abc:1:s1!!",
                                       "zz:anything", "fs:t:1:"])
async def test_a_malformed_custom_id_is_answered_and_changes_nothing(
        h: Harness, custom_id: str) -> None:
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    before = await h.service.status(CHANNEL_ID)
    payload = h.fake.click_payload(custom_id, user_id=ANN)
    payload["message"] = h.fake.message_payload(CHANNEL_ID, {"components": [
        {"type": 1, "components": [{"type": 2, "style": 2, "label": "?",
                                    "custom_id": custom_id}]}]})
    sent = await h.fake.dispatch(h.bot, payload)
    reply = answer(sent)
    assert reply.ephemeral and "do not understand" in reply.content
    assert (await h.service.status(CHANNEL_ID)).version == before.version


async def test_a_well_formed_id_not_on_the_message_is_answered(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    payload = h.fake.click_payload("ft:abcd:0:s1", user_id=ANN)
    payload["message"] = h.fake.message_payload(CHANNEL_ID, {"components": []})
    reply = only(await h.fake.dispatch(h.bot, payload), "callback")
    assert reply.ephemeral and "do not understand" in reply.content


# -- 7. unexpected values are answered, never a traceback ------------------------------------


async def test_an_export_format_nobody_offered_is_refused_clearly(h: Harness) -> None:
    sent = await h.slash("winter story", ANN, format="pdf")
    text = reply_text(sent)
    assert "no export format 'pdf'" in text and "md, html or json" in text


@pytest.mark.parametrize(("command", "options"), [
    ("table new", {"game": 12345}),
    ("rules", {"game": 7}),
    ("table addbot", {"level": 3.5}),
    ("table kick", {"seat": "two"}),
    ("help", {"command": True}),
])
async def test_an_option_of_the_wrong_type_is_refused_clearly(
        h: Harness, command: str, options: dict[str, Any]) -> None:
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    payload = h.fake.slash_payload(h.bot, command, user_id=ANN,
                                   **{k: "placeholder" for k in options})
    for option in _options_of(payload):
        option["value"] = options[option["name"]]
    reply = only(await h.fake.dispatch(h.bot, payload), "callback")
    assert reply.ephemeral and "I could not read the option" in reply.content
    assert "Something went wrong" not in reply.content


def _options_of(payload: dict[str, Any]) -> list[dict[str, Any]]:
    options = payload["data"].get("options") or []
    while options and options[0].get("type") in (1, 2):
        options = options[0].get("options") or []
    return options


# -- 8. /rules lists only the games that can be played -------------------------------------


async def test_rules_list_only_playable_games(h: Harness) -> None:
    names = [c["name"] for c in (await h.autocomplete("rules", ANN, "game", game=""))
             .payload["data"]["choices"]]
    playable = [name for _gid, name in TableService.games()]
    assert names == playable
    assert "Fairy Tale in My Pocket" in names
    text = reply_text(await h.slash("rules", ANN, game="nonsense"))
    assert "no rules summary" in text and "Pocket" in text.split("Games:")[1]


# -- 9. seats are numbered as players see them -----------------------------------------------


async def test_seat_numbers_in_refusals_count_from_one(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="winter-tales")
    text = reply_text(await h.slash("table kick", ANN, seat=7))
    assert "There is no seat 7" in text and "only seat 1" in text
    await h.slash("table join", BOB, uname="Bob")
    text = reply_text(await h.slash("table kick", ANN, seat=5))
    assert "numbered 1 to 2" in text and "seat 4" not in text


# -- 10. the lobby message follows slash commands -----------------------------------------


async def test_the_lobby_message_is_refreshed_after_slash_commands(h: Harness) -> None:
    posted = only(await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn"),
                  "channel_message")
    await h.slash("table join", BOB, uname="Bob")
    edits = [s for s in h.fake.sent if s.kind in EDITS
             and s.message_id == posted.message_id]
    assert edits, "the lobby message was not edited"
    lobby = edits[-1]
    assert "Ready: the host can start" in lobby.content
    start = next(b for b in lobby.buttons() if b["label"] == "Start")
    assert not start.get("disabled")


# -- 11. wording --------------------------------------------------------------------------


def test_a_lost_co_op_game_reads_well() -> None:
    from bot.core.tables.texts import outcome_text
    from engines.core import Outcome

    text = outcome_text(Outcome(winners=[], scores={}, reason="the king reached his crown"),
                        lambda s: f"P{s}")
    assert text == "Game over: nobody wins. The king reached his crown."
    assert "Nobody win!" not in (text or "")


def test_a_tied_winter_tale_says_how_it_was_decided() -> None:
    from bot.core.tables.texts import outcome_text
    from engines.core import Outcome

    names = {0: "A", 1: "B", 2: "C"}.__getitem__
    text = outcome_text(Outcome(winners=[0], scores={0: 6, 1: 6, 2: 6},
                                reason="The Epilogue ends in a draw (6 to 6): the Writer wins."),
                        names)
    assert text is not None
    assert text.index("draw") < text.index("Scores")


async def test_ai_seats_are_not_named_twice_and_an_aborting_host_is_the_host(
        h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    await h.slash("table addbot", ANN, level="mcts")
    info = await h.service.status(CHANNEL_ID)
    assert "AI (mcts) (AI, mcts)" not in info.text and "AI (mcts)" in info.text
    await h.slash("table kick", ANN, seat=2)
    await h.slash("table join", BOB, uname="Bob")  # a person keeps the game waiting
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    seat = info.seat_of(ANN)
    assert seat is not None
    await h.slash("table handover", ANN, seat=seat.index + 1)
    await h.service.wait_idle()
    assert (await h.service.status(CHANNEL_ID)).status is TableStatus.PLAYING
    await h.slash("table abort", ANN)
    closed = [s for s in h.fake.channel_messages() if "was closed by" in s.content]
    assert closed and "closed by the host" in closed[0].content


async def test_the_arbiter_is_told_why_a_ruling_does_not_apply(tmp_path: Path) -> None:
    from engines import get_game
    from engines.core import IllegalAction

    game = get_game("winter-tales")
    state = game.setup(3, game.Options(), seed=2)
    arbiter = state.arbiter
    with pytest.raises(IllegalAction, match="no passage #99"):
        game.apply(state, arbiter, game.parse_action({"kind": "strike", "entry": 99}))
    with pytest.raises(IllegalAction, match="Nothing is being counted"):
        game.apply(state, arbiter, game.parse_action(
            {"kind": "correct_count", "faction": "spring", "delta": 1}))


async def test_the_losing_half_of_a_double_click_in_a_dm_is_pointed_to_the_hand(
        h: Harness) -> None:
    """In a DM there is no channel message to go back to: the reply names the hand."""
    from bot.core.tables import StaleVersion
    from bot.messages.clicks import STALE_PRIVATE

    said: list[str] = []

    class Response:
        @staticmethod
        def is_done() -> bool:
            return False

        @staticmethod
        async def send_message(text: str, **_: Any) -> None:
            said.append(text)

    class DmInteraction:
        guild_id = None
        response = Response()

    await h.bot.turns.fail(DmInteraction(), StaleVersion(), "test")  # type: ignore[union-attr,arg-type]
    assert said == [STALE_PRIVATE]
    assert "channel" not in STALE_PRIVATE and "hand" in STALE_PRIVATE


# -- 12. the result stays readable after the end -----------------------------------------------


async def test_status_after_the_end_shows_the_last_result(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="treasure")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    # play until the end with whatever is legal
    import random

    rng = random.Random(1)
    for _ in range(3000):
        info = await h.service.status(info.id)
        if info.status is not TableStatus.PLAYING:
            break
        legal = await h.service.legal_actions(info.id, ANN)
        await h.service.act(info.id, ANN, rng.choice(legal))
    assert info.status is TableStatus.FINISHED
    text = reply_text(await h.slash("table status", CAROL))
    assert "finished" in text and (info.outcome_text or "?") in text
    # ... until a new table opens
    await h.slash("table new", BOB, uname="Bob", game="fairy-tale-inn")
    assert "lobby" in reply_text(await h.slash("table status", CAROL))


# -- 4. a text form opened before a restart is answered after it ---------------------------


def form_submit(h: Harness, user: int, custom_id: str, text: str) -> dict[str, Any]:
    payload = h.fake._base(5, user, None, 0, CHANNEL_ID)
    payload["data"] = {"custom_id": custom_id, "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "text", "value": text}]}]}
    return payload


async def test_a_form_opened_before_a_restart_is_accepted_after_it(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    h = await make_harness(db, seed=11)
    try:
        await h.slash("table new", ANN, uname="Ann", game="winter-tales")
        await h.slash("table join", BOB, uname="Bob")
        await h.slash("table join", CAROL, uname="Carol")
        await h.slash("table start", ANN)
        info = await h.service.status(CHANNEL_ID)
        modal = only(await h.click(f"ft:{info.id}:{info.version}:tell", CAROL), "callback")
        assert modal.response_type == 9
        form_id = modal.data["custom_id"]
    finally:
        await close_harness(h)
    # The bot restarts (a new process on the same file): nothing of the form is in memory.
    h = await make_harness(db, seed=11)
    try:
        sent = await h.fake.dispatch(h.bot, form_submit(h, CAROL, form_id, "Snow fell."))
        assert "in the story" in reply_text(sent)
        view = await h.service.public_view(CHANNEL_ID)
        assert any(e.text == "Snow fell." for e in view.transcript)
    finally:
        await close_harness(h)


async def test_a_form_for_an_older_turn_is_refused_and_gives_the_words_back(
        h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="winter-tales")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table join", CAROL, uname="Carol")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    stale = f"fm:{info.id}:{info.version}:t0"  # a choice told with a sentence, pinned
    mover = info.to_act_users[0]
    legal = await h.service.legal_actions(info.id, mover)
    await h.service.act(info.id, mover, legal[0])  # the table moves on
    sent = await h.fake.dispatch(h.bot, form_submit(h, mover, stale, "Once upon a time."))
    text = reply_text(sent)
    assert "older turn" in text and "Once upon a time." in text
    assert "Something went wrong" not in text


async def test_an_unknown_form_is_answered(h: Harness) -> None:
    reply = only(await h.fake.dispatch(h.bot, form_submit(h, ANN, "xx:what", "hi")),
                 "callback")
    assert reply.ephemeral and "do not know this form" in reply.content


async def test_an_alert_of_a_superseded_update_still_reaches_its_seat(h: Harness) -> None:
    """When a newer update is already waiting, an older one posts its text only, but a
    private line that must be noticed (the X-card notice to the Arbiter) still goes."""
    from dataclasses import replace

    from bot.core.tables import PrivateUpdate
    from engines.winter_tales.content import load_content

    await h.slash("table new", ANN, uname="Ann", game="winter-tales")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table join", CAROL, uname="Carol")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    snapshot = await h.service.table_snapshot(info.id)
    assert snapshot is not None
    notice = load_content().setup.safety.x_card_private_notice
    arbiter = snapshot.seats[0]
    alert = PrivateUpdate(table_id=info.id, channel_id=CHANNEL_ID, user_id=arbiter.user_id,
                          seat=arbiter.seat, version=info.version, lines=(notice,))
    superseded = replace(snapshot, private=(alert,), seats=tuple(
        replace(s, view=None, legal=()) for s in snapshot.seats))
    before = len([s for s in h.fake.sent if s.kind == "dm"])
    await h.bot.delivery.deliver(superseded)
    dms = [s for s in h.fake.sent if s.kind == "dm"][before:]
    assert [d.channel_id for d in dms] == [arbiter.user_id]
    assert notice[:40] in dms[0].content


# -- found in review: AI steps, nudges, handovers, selects, DM forms, ties -----------------


async def test_an_ai_turn_is_one_message_edited_through_its_steps(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="winter-tales",
                  options="interrupt_timeout=0")
    await h.slash("table addbot", ANN, level="storyteller")
    await h.slash("table addbot", ANN, level="storyteller")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    seat = info.seat_of(ANN)
    assert seat is not None
    await h.slash("table handover", ANN, seat=seat.index + 1)
    await asyncio.wait_for(h.service.wait_idle(), 120)
    await h.fake.settle()
    info = await h.service.status(info.id)
    assert info.status is TableStatus.FINISHED
    messages = [h.fake.current(m).content for m in h.fake.channel_messages()]
    moves = info.version
    # Before: one message per AI step (296 messages for 293 moves in review).
    assert len(messages) < moves / 2, (len(messages), moves)
    bare = [m for m in messages if m.strip().startswith("It is ") and "\n" not in m.strip()]
    assert not bare, bare[:3]


async def test_closed_dms_are_told_once_not_pinged_for_every_private_change(
        h: Harness) -> None:
    import random

    h.fake.closed_dms.add(BOB)
    await h.slash("table new", ANN, uname="Ann", game="winter-tales",
                  options="interrupt_timeout=0")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table join", CAROL, uname="Carol")
    await h.slash("table start", ANN)
    rng = random.Random(5)
    info = await h.service.status(CHANNEL_ID)
    for _ in range(120):
        if info.status is not TableStatus.PLAYING:
            break
        user = next(s.user_id for s in info.seats if s.index == rng.choice(list(info.to_act)))
        legal = await h.service.legal_actions(info.id, user)
        outbox = await h.service.act(info.id, user, rng.choice(legal))
        await h.bot.delivery.deliver(outbox)
        info = outbox.table
    nudges = [s for s in h.fake.channel_messages()
              if f"<@{BOB}>" in s.content and "/hand" in s.content]
    told = [s for s in nudges if "can't send you direct messages" in s.content]
    assert len(told) == 1
    assert len(nudges) - len(told) <= sum(1 for s in h.fake.sent if s.kind == "dm"
                                          and "X-card" in s.content) + 2


def test_a_tied_winter_epilogue_without_a_writer_says_who_began_it() -> None:
    from engines import get_game

    game = get_game("winter-tales")
    state = game.setup(4, game.Options(), seed=1)
    state.final = {"spring": 6, "winter": 6}
    state.winner = state.factions[state.order[0]]
    outcome = game.outcome(state)
    assert outcome is not None and "tie" in outcome.reason and "began it" in outcome.reason


async def test_a_select_carrying_a_button_id_is_answered(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    cid = f"ft:{info.id}:{info.version}:s1"
    payload = h.fake.click_payload(cid, user_id=ANN, values=["s1"])
    payload["data"]["component_type"] = 3
    payload["message"] = h.fake.message_payload(CHANNEL_ID, {"components": [
        {"type": 1, "components": [{"type": 3, "custom_id": cid, "options": [
            {"label": "x", "value": "s1"}]}]}]})
    sent = await h.fake.dispatch(h.bot, payload)
    assert [s for s in sent if s.kind in ("callback", "followup")], sent


async def test_a_stale_form_in_a_dm_points_to_the_hand_and_gives_the_words_back(
        h: Harness) -> None:
    from bot.messages.clicks import STALE_PRIVATE

    await h.slash("table new", ANN, uname="Ann", game="winter-tales")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table join", CAROL, uname="Carol")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    stale = f"fm:{info.id}:{info.version}:t0"
    legal = await h.service.legal_actions(info.id, mover)
    await h.service.act(info.id, mover, legal[0])
    payload = form_submit(h, mover, stale, "Far away.")
    payload.pop("guild_id", None)
    payload.pop("member", None)
    payload["user"] = {"id": str(mover), "username": "u", "discriminator": "0",
                       "global_name": None, "avatar": None}
    text = reply_text(await h.fake.dispatch(h.bot, payload))
    assert STALE_PRIVATE in text and "Far away." in text and "channel" not in text


# -- 12. an interaction that expired is a warning, not a fault --------------------------


async def test_an_expired_interaction_is_logged_as_a_warning_and_not_answered(
        caplog: pytest.LogCaptureFixture) -> None:
    from bot.messages.clicks import TurnController
    from bot.messages.replies import expired
    from tests.discord_fakes import _FakeResponse

    gone = discord.NotFound(_FakeResponse(404, "Not Found"),  # type: ignore[arg-type]
                            {"code": 10062, "message": "Unknown interaction"})
    other = discord.NotFound(_FakeResponse(404, "Not Found"),  # type: ignore[arg-type]
                             {"code": 10008, "message": "Unknown Message"})
    assert expired(gone) and not expired(other) and not expired(ValueError("x"))

    class Untouchable:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"the expired interaction was used: {name}")

    controller = TurnController.__new__(TurnController)
    with caplog.at_level(logging.WARNING):
        await controller.fail(Untouchable(), gone, "click s1 on table t")  # type: ignore[arg-type]
    assert any("expired" in r.message and r.levelno == logging.WARNING for r in caplog.records)
    assert not any(r.exc_info for r in caplog.records)
