"""Delivery: private news by DM with the closed-DM fallback, the generic "Take your
turn" flow, and public updates in version order when an AI answers at once.

The private-news tests use the test-only Toy Nim game (tests/toy_game.py) declared
without a private picture, so its private news goes the DM-per-update way: taking
stones reveals their values to the taker only (a private event). The hand-message way
is tested in tests/test_game_seam.py.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from bot.core.choices import get_ui
from bot.core.store import SqliteStore
from bot.core.tables import TableInfo, TableService, TableStatus
from bot.messages.delivery import CANNOT_DM
from bot.messages.ui.ids import ButtonId
from tests.conftest import Backend
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
)
from tests.toy_game import TOY_ID, toy_registered


@pytest.fixture
def toy() -> Iterator[None]:
    with toy_registered(private_picture=None):
        yield


@pytest.fixture
async def h(tmp_path: Path, toy: None) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


async def toy_table(h: Harness) -> TableInfo:
    await h.slash("table new", ANN, uname="Ann", game=TOY_ID)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    return await h.service.status(CHANNEL_ID)


async def take_turn(h: Harness, choice: int = 0) -> tuple[int, list[Sent]]:
    """The player to act opens their private menu and takes ``choice + 1`` stones."""
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    menu = answer(await h.click(prompt.custom_ids[0], mover, prompt))
    assert menu.ephemeral
    code = f"a{choice}"
    if menu.custom_ids[0].startswith("fs:"):  # a select: the option value is the code
        sent = await h.click(menu.custom_ids[0], mover, menu, values=[code])
    else:
        sent = await h.click(ButtonId(info.id, info.version, code).custom_id, mover, menu)
    return mover, sent


def secret_lines(sent: list[Sent]) -> list[Sent]:
    return [s for s in sent if "found stones worth" in s.content]


# --------------------------------------------------------------------------- generic adapter


async def test_generic_game_offers_one_take_your_turn_button(h: Harness) -> None:
    info = await toy_table(h)
    prompt = h.fake.last_prompt()
    assert prompt.custom_ids == [f"ft:{info.id}:0:turn"]
    assert prompt.buttons()[0]["label"] == "Take your turn"
    # someone else's click: refused privately
    reply = answer(await h.click(prompt.custom_ids[0], CAROL, prompt))
    assert reply.ephemeral and "do not have a seat" in reply.content
    mover, sent = await take_turn(h, choice=1)
    assert only(sent, "callback").response_type == 6
    after = await h.service.status(info.id)
    assert after.version == 1 and after.to_act_users != (mover,)
    assert "took 2 stone" in h.fake.channel_messages()[-1].content


async def test_generic_menu_lists_the_legal_actions_privately(h: Harness) -> None:
    info = await toy_table(h)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    menu = answer(await h.click(prompt.custom_ids[0], mover, prompt))
    assert menu.ephemeral
    labels = [b["label"] for b in menu.buttons()]
    legal = await h.service.legal_actions(info.id, mover)
    assert labels == [get_ui(TOY_ID).label(a) for a in legal]
    assert [ButtonId.parse(c).code for c in menu.custom_ids] == ["a0", "a1"]


# --------------------------------------------------------------------------- private news


async def test_private_news_goes_by_dm_only(h: Harness) -> None:
    await toy_table(h)
    mover, sent = await take_turn(h)
    dms = [s for s in sent if s.kind == "dm"]
    assert len(dms) == 1 and dms[0].channel_id == mover
    assert "found stones worth" in dms[0].content
    public = [s for s in h.fake.sent if s.kind in ("channel_message", "edit_message")]
    assert not secret_lines(public)
    assert not any(s.kind == "followup" and "found stones" in s.content for s in sent)


async def test_closed_dms_are_nudged_in_the_channel_and_remembered(h: Harness) -> None:
    info = await toy_table(h)
    mover = info.to_act_users[0]
    h.fake.closed_dms.add(mover)
    _, sent = await take_turn(h)
    assert not [s for s in sent if s.kind == "dm"]
    nudges = [s for s in sent if s.kind == "channel_message" and "/hand" in s.content]
    assert len(nudges) == 1
    nudge = nudges[0]
    assert f"<@{mover}>" in nudge.content and "DMs are closed" in nudge.content
    assert [int(u) for u in nudge.payload["allowed_mentions"]["users"]] == [mover]
    assert not secret_lines([nudge])
    assert await h.bot.delivery.dms.closed(mover)

    # the other player moves, then the same player again: no new DM attempt, a short
    # nudge... unless the private news can go to the clicker ephemerally (it can).
    await take_turn(h)
    creates_before = len([s for s in h.fake.sent if s.kind == "create_dm"])
    _, sent = await take_turn(h)
    assert len([s for s in h.fake.sent if s.kind == "create_dm"]) == creates_before
    private = secret_lines([s for s in sent if s.kind == "followup"])
    assert len(private) == 1 and private[0].ephemeral


async def test_nudge_for_someone_else_never_carries_the_secret(h: Harness) -> None:
    """Private news for a user who is not the clicker (e.g. after an AI move) and whose
    DMs are known to be closed becomes a channel nudge."""
    info = await toy_table(h)
    delivery = h.bot.delivery
    await delivery.dms.mark_closed(BOB)
    from bot.core.tables import PrivateUpdate

    update = PrivateUpdate(table_id=info.id, channel_id=CHANNEL_ID, user_id=BOB,
                           seat=info.seat_of(BOB).index, version=info.version,
                           lines=("secret: 3, 1",))
    how = await delivery.dms.post_private(update, info)
    assert how == "nudge"
    last = h.fake.channel_messages()[-1]
    assert f"<@{BOB}>" in last.content and "/hand" in last.content
    assert "secret" not in last.content


async def test_hand_shows_private_lines_and_can_retry_dms(h: Harness) -> None:
    info = await toy_table(h)
    mover = info.to_act_users[0]
    h.fake.closed_dms.add(mover)
    await take_turn(h)
    assert await h.bot.delivery.dms.closed(mover)
    sent = await h.slash("hand", mover, retry_dm=True)
    reply = only(sent, "followup")
    assert reply.ephemeral
    assert "Only you know" in reply.content and "found stones worth" in reply.content
    assert "try to DM you again" in reply.content
    assert not await h.bot.delivery.dms.closed(mover)
    # the other player's /hand does not show the mover's stones
    waiting = BOB if mover == ANN else ANN
    other = only(await h.slash("hand", waiting), "followup")
    assert "found stones worth" not in other.content


async def test_closed_dms_are_remembered_by_the_store_across_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "dm.db"
    first = SqliteStore(db)
    await first.open()
    await first.set_dm_closed(42, True)
    await first.close()
    again = SqliteStore(db)
    await again.open()
    try:
        assert await again.dm_closed(42)
        await again.set_dm_closed(42, False)
        assert not await again.dm_closed(42)
    finally:
        await again.close()
    assert CANNOT_DM == 50007


# --------------------------------------------------------------------------- ordering


async def test_an_instant_ai_answer_never_overtakes_the_move(tmp_path: Path) -> None:
    """With AI_DELAY=0 the AI answers while the person's move is still being announced;
    the channel must still read in order and the newest message must hold the buttons."""
    h = await make_harness(tmp_path / "bot.db", seed=5)
    # The person's move is still on its way (tidying the clicked message, posting) when
    # the AI, with no delay, has already answered.
    h.fake.webhook_latency = 0.3
    try:
        await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
        await h.slash("table addbot", ANN, level="greedy")
        await h.slash("table start", ANN)
        for _ in range(6):
            await h.service.wait_idle()
            await h.fake.settle()
            info = await h.service.status(CHANNEL_ID)
            if info.status is not TableStatus.PLAYING:
                break
            prompt = h.fake.last_prompt()
            # the newest channel message is the live turn, with this version's buttons
            assert h.fake.channel_messages()[-1] is prompt
            assert all(c.startswith(f"ft:{info.id}:{info.version}:") for c in prompt.custom_ids)
            stripped = {s.message_id for s in h.fake.sent if s.kind == "edit_message"}
            assert prompt.message_id not in stripped
            codes = [ButtonId.parse(c).code for c in prompt.custom_ids]
            if codes[0].startswith("s"):
                enabled = next(b for b in prompt.buttons() if not b.get("disabled"))
                menu = answer(await h.click(enabled["custom_id"], ANN, prompt))
                await h.click(menu.custom_ids[0], ANN, menu)
            else:
                await h.click(prompt.custom_ids[-1], ANN, prompt)
        # the moves were announced in the order they were played; a move whose answer was
        # already waiting gets its text only (only the latest board is drawn), and the
        # newest message carries the board
        moves = [s for s in h.fake.channel_messages() if " took " in s.content]
        movers = [m.content.split(" took ")[0] for m in moves]
        assert movers == [("Ann" if i % 2 else "AI (greedy)") for i in range(len(movers))] \
            or movers == [("AI (greedy)" if i % 2 else "Ann") for i in range(len(movers))]
        assert len(moves) >= 6
        assert moves[-1].files, [(m.content[:30], bool(m.files)) for m in moves]
    finally:
        await close_harness(h)


async def test_select_menus_play_like_buttons(h: Harness) -> None:
    """Menus of more than five choices are selects (``fs:`` ids); the chosen option's
    value is the action code."""
    from bot.messages.ui.ids import SelectId

    info = await toy_table(h)
    mover = info.to_act_users[0]
    select_id = SelectId(info.id, 0, "pick").custom_id
    sent = await h.click(select_id, mover, h.fake.last_prompt(), values=["a1"])
    assert only(sent, "callback").response_type == 6
    assert (await h.service.status(info.id)).version == 1
    assert "took 2 stone" in h.fake.channel_messages()[-1].content
    # a stale select answers like a stale button
    sent = await h.click(select_id, mover, h.fake.last_prompt(), values=["a0"])
    assert "older turn" in answer(sent).content


def test_menus_and_ids_validate() -> None:
    from bot.core.choices.adapter import Choice, Menu, Resolution
    from bot.messages.ui.items import GameSelect, build_view

    with pytest.raises(ValueError):
        ButtonId("bad id!", 1, "s1")
    with pytest.raises(ValueError):
        ButtonId("t1", 1, "no spaces")
    with pytest.raises(ValueError):
        ButtonId.parse("xx:t1:1:s1")
    with pytest.raises(ValueError):
        Menu("too many", tuple(Choice(f"a{i}", str(i)) for i in range(26)))
    with pytest.raises(ValueError):
        Menu("twice", (Choice("a", "x"), Choice("a", "y")))
    with pytest.raises(ValueError):
        Resolution()
    many = Menu("pick", tuple(Choice(f"a{i}", f"option {i}") for i in range(7)), as_select=True)
    view = build_view(many, "t1", 3)
    assert view is not None and view.timeout is None
    (item,) = view.children
    assert isinstance(item, GameSelect)
    assert item.item.custom_id == "fs:t1:3:pick"
    assert [o.value for o in item.item.options] == [f"a{i}" for i in range(7)]
    buttons = build_view(Menu("b", tuple(Choice(f"a{i}", f"{i}") for i in range(7))), "t1", 3)
    assert buttons is not None
    assert [b.item.row for b in buttons.children] == [0, 0, 0, 0, 0, 1, 1]
    assert build_view(None, "t1", 3) is None


def test_parse_options() -> None:
    from bot.messages.cogs.common import parse_options

    assert parse_options(None) == {}
    assert parse_options("variant=yes size=5, ratio=0.5; name='a b'") == {
        "variant": True, "size": 5, "ratio": 0.5, "name": "a b"}
    assert parse_options("flag=off word=hello") == {"flag": False, "word": "hello"}
    with pytest.raises(ValueError, match="name=value"):
        parse_options("just words")


async def test_sequence_orders_and_never_blocks_for_good(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from bot.messages.delivery.order import TableOrder

    seq = TableOrder()
    order: list[int] = []

    async def post(version: int) -> None:
        seq.begin(version)
        await seq.wait_for_turn(version)
        order.append(version)
        await seq.done(version)

    seq.begin(1)  # version 1 is handed over first, but its post is slow to start
    later = asyncio.ensure_future(post(2))
    await asyncio.sleep(0)
    assert order == []  # 2 waits for 1
    await post(1)
    await later
    assert order == [1, 2]
    # a version that never comes holds the next one back only for WAIT seconds
    monkeypatch.setattr(TableOrder, "WAIT", 0.01)
    seq.begin(3)
    await post(4)
    assert order == [1, 2, 4] and seq.in_flight == set()
    # a stored outbox older than a delivery already begun here arrives late (a dead
    # process's leftover found by the catch-up); one whose place was held does not
    assert seq.arrives_late(3) and not seq.arrives_late(5)
    seq.begin(6)
    seq.begin(7)
    assert not seq.arrives_late(6) and seq.arrives_late(5)
    seq.begin(7.5)  # a resync's place is no delivery
    assert seq.highest == 7 and not seq.newer_waiting(7)


def test_a_broken_adapter_module_falls_back_to_the_generic_ui(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import dataclasses

    from bot.core import choices
    from bot.core.choices.adapter import GenericUI
    from engines import catalog

    broken = dataclasses.replace(catalog.spec("fairy-tale-inn"),
                                 ui="bot.core.choices.no_such:Thing")
    monkeypatch.setitem(catalog._SPECS, "fairy-tale-inn", broken)
    assert isinstance(choices.get_ui("fairy-tale-inn"), GenericUI)
    assert isinstance(choices.get_ui("unknown-game"), GenericUI)


async def test_a_resync_waits_for_the_delivery_of_its_version_in_flight(h: Harness) -> None:
    """The catch-up after a start resyncs every table while clicks are already being
    answered: a delivery of the snapshot's version still in flight (its edit on its way
    to Discord, its turn message not yet stored) must end first, or the resync takes its
    fresh buttons for stale ones and strips them (seen in the SIGKILL test)."""
    import asyncio

    info = await toy_table(h)
    await take_turn(h)
    await h.fake.settle()
    snapshot = await h.service.table_snapshot(info.id)
    assert snapshot is not None
    delivery = h.bot.delivery
    assert delivery is not None
    seq = delivery._order.setdefault(info.id, type(delivery._order[info.id])())
    version = snapshot.table.version
    seq.begin(version)  # the delivery of this very version is still on its way
    read: list[int] = []
    real = delivery.turn_messages.current

    async def turn_message(table_id: str) -> object:
        read.append(version)
        return await real(table_id)

    delivery.turn_messages.current = turn_message  # type: ignore[method-assign]
    task = asyncio.ensure_future(delivery.resync(snapshot))
    for _ in range(20):
        await asyncio.sleep(0)
    assert read == [] and not task.done()  # it waits its turn
    assert not seq.newer_waiting(version)  # the delivery in flight still brings buttons
    later = asyncio.ensure_future(seq.wait_for_turn(version + 1))
    await seq.done(version)
    await task
    assert read == [version]
    await later  # a later delivery was not held for good
    assert seq.in_flight == set()


async def test_a_move_made_while_the_older_board_is_drawn_overtakes_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    """Under a backlog of pictures a table can move on while its previous board still
    waits to be drawn (seen at 1,000 tables: the start picture still queued when the
    first move came, 180 tables a run). The older delivery must not wait for its picture
    and then post an old board with old buttons below the new turn: it goes out at once
    as news only, and the newer one brings the board and the buttons, in order."""
    import asyncio
    import threading

    from tests.discord_fakes import PNG

    drawing, release = threading.Event(), threading.Event()
    hold = [False]

    def slow_renderer(game_id: str, view: object, **options: object) -> bytes:
        if hold[0]:
            hold[0] = False
            drawing.set()
            release.wait(10)  # a picture stuck in the queue
        return PNG

    with toy_registered(private_picture=None):
        h = await make_harness(tmp_path / "bot.db", renderer=slow_renderer)
        try:
            info = await toy_table(h)
            await h.fake.settle()
            delivery = h.bot.delivery
            assert delivery is not None
            before = len(h.fake.channel_messages())

            async def move() -> asyncio.Future[bool]:
                now = await h.service.status(CHANNEL_ID)
                t = h.service._live[now.id]
                seat = now.to_act[0]
                action = next(iter(t.game.legal_actions(t.state, seat)))
                outbox = await h.service.act(CHANNEL_ID, now.seats[seat].user_id, action,
                                             now.version)
                return asyncio.ensure_future(delivery.deliver(outbox))

            hold[0] = True
            first = await move()
            assert await asyncio.to_thread(drawing.wait, 5)  # its board is being drawn
            second = await move()
            # the older delivery does not wait for its picture any more
            await asyncio.wait_for(asyncio.shield(first), 5)
            release.set()
            await asyncio.wait_for(second, 5)
            await h.fake.settle()

            posted = h.fake.channel_messages()[before:]
            current = [h.fake.current(m) for m in posted]
            took = [m for m in current if " took " in m.content]
            assert len(took) == 2, [m.content for m in current]
            older, newer = took  # in the order they were posted
            assert not older.files and not older.custom_ids  # news only
            last = current[-1]
            assert last is newer and last.files and last.custom_ids
            version = (await h.service.status(CHANNEL_ID)).version
            assert all(c.startswith(f"ft:{info.id}:{version}:") for c in last.custom_ids)
            assert "went out before its predecessor" not in caplog.text
        finally:
            release.set()
            await close_harness(h)


async def test_overtaken_is_set_by_a_newer_delivery_only() -> None:
    from bot.messages.delivery.order import TableOrder
    from bot.messages.delivery.overtake import unless as _unless

    seq = TableOrder()
    seq.begin(3)
    three = seq.overtaken(3)
    seq.begin(3.5)  # a resync's place overtakes nothing
    assert not three.is_set()
    seq.begin(4)
    assert three.is_set()
    assert seq.overtaken(2).is_set()  # asked after 4 began: already overtaken
    await seq.done(3)
    assert not seq.overtaken(4).is_set()

    import asyncio

    started = asyncio.Event()

    async def slow() -> str:
        started.set()
        await asyncio.sleep(10)
        return "drawn"

    event = asyncio.Event()
    task = asyncio.ensure_future(_unless(event, slow()))
    await started.wait()
    event.set()
    assert await asyncio.wait_for(task, 2) is None
    assert await _unless(asyncio.Event(), asyncio.sleep(0, "drawn")) == "drawn"
    assert await _unless(None, asyncio.sleep(0, "drawn")) == "drawn"


async def test_a_move_killed_before_its_announcement_is_told_first_after_the_restart(
    backend: Backend, toy: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 23: with AI_DELAY=0 at a table with an AI seat, the bot is killed after a
    person's move is committed and before it is announced. After the restart the AI
    answers at once, and its delivery came before the catch-up reached the person's
    move: the new turn message read "It is Ann's turn." with no mention (the previous
    run's turn message had asked Ann), and the person's move was dropped as late
    ("outbox 3 (v2) came after v3: not shown"). Every committed move must be told once,
    in order, and the person asked to act pinged."""
    import logging

    from bot.messages.client import FabletopBot

    caplog.set_level(logging.INFO, logger="bot.messages.delivery.deliver")
    h = await make_harness(tmp_path / "unused.db", store=backend.store())
    try:
        info = await toy_table_with_ai(h)
        # The kill: the move is committed (with its outbox), nothing after it happens.
        h.service._start_ai = lambda t: False  # type: ignore[method-assign]
        moved = await h.service.act(CHANNEL_ID, ANN, {"kind": "take", "n": 1}, info.version)
        assert moved.table.seats[moved.table.to_act[0]].is_ai
    finally:
        await close_harness(h)

    # The restart. Its AI answers before its catch-up reaches the stored move (the
    # order the issue saw, made certain here: the catch-up runs once the AI is told).
    async def later(self: FabletopBot) -> None:
        return None

    monkeypatch.setattr(TableService, "_start_ai", lambda self, t: False)
    monkeypatch.setattr(FabletopBot, "catch_up", later)
    h = await make_harness(tmp_path / "unused.db", store=backend.store())
    try:
        monkeypatch.undo()  # the AI and the catch-up as they are
        h.service._kick_ai(h.service._live[info.id])
        await h.service.wait_idle()
        await h.fake.settle()
        await h.bot.catch_up()
        await h.fake.settle()
        after = await h.service.status(info.id)
        assert after.version == info.version + 2 and after.to_act_users == (ANN,)

        posted = [h.fake.current(m) for m in h.fake.channel_messages()]
        told = [m for m in posted if " took " in m.content]
        assert [m.content.split(" took ")[0] for m in told] == ["Ann", "AI (greedy)"], \
            [m.content for m in posted]
        assert "Ann took 1 stone(s)." in told[0].content  # once, before the AI's answer
        ask = told[1]
        assert ask.content.endswith(f"<@{ANN}>: it's your turn.")
        assert [int(u) for u in ask.payload["allowed_mentions"]["users"]] == [ANN]
        assert ask is posted[-1] and ask.custom_ids  # the live turn, with its buttons
        assert await h.service.store.undelivered_outboxes() == []
        assert "not shown" not in caplog.text
    finally:
        await close_harness(h)


async def toy_table_with_ai(h: Harness) -> TableInfo:
    """A toy table of Ann and an AI, everything delivered, Ann to act."""
    await h.slash("table new", ANN, uname="Ann", game=TOY_ID)
    await h.slash("table addbot", ANN)
    await h.slash("table start", ANN)
    await h.service.wait_idle()
    await h.fake.settle()
    info = await h.service.status(CHANNEL_ID)
    assert info.to_act_users == (ANN,)
    assert await h.service.store.undelivered_outboxes() == []
    return info
