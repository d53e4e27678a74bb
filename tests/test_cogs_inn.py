"""Fairy Tale Inn by buttons: the generic DynamicItem button + the FTI UI adapter,
driven through real discord.py component dispatch (see tests/discord_fakes.py)."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.choices import get_ui
from bot.core.choices.adapter import UnknownChoice
from bot.core.choices.fairy_tale_inn import FairyTaleInnUI
from bot.core.tables import TableInfo
from bot.messages.ui.ids import ButtonId
from engines import get_game
from engines.fairy_tale_inn import Drop, EndTurn, ExtraTurn, Rat
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    EDITS,
    Harness,
    Sent,
    answer,
    close_harness,
    edits_of,
    make_harness,
    only,
)

GAME = get_game("fairy-tale-inn")
CODE = re.compile(r"^(s\d|d\dc\d|r\d|x|e|turn|lobby\.(join|leave|ai|start))$")


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


async def started(h: Harness) -> TableInfo:
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    return await h.service.status(CHANNEL_ID)


def other(info: TableInfo, user: int) -> int:
    return ANN if user == BOB else BOB


def button(sent: Sent, code: str) -> dict[str, Any]:
    for b in sent.buttons():
        if b["custom_id"].endswith(f":{code}"):
            return b
    raise AssertionError(f"no button {code} in {sent.custom_ids}")


def codes(sent: Sent) -> list[str]:
    return [ButtonId.parse(cid).code for cid in sent.custom_ids]


async def play(h: Harness, slot: int | None = None, column: int | None = None) -> list[Sent]:
    """The player to act answers the newest prompt: a pending choice (the Rat's column,
    the extra turn) with its first sensible button, else a slot (``slot`` or the last
    affordable one) and then ``column`` (or the first open one)."""
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    pending = [c for c in codes(prompt) if c == "e" or c.startswith("r")]
    if pending:
        return await h.click(button(prompt, pending[0])["custom_id"], mover, prompt)
    enabled = [b for b in prompt.buttons() if not b.get("disabled")]
    chosen = enabled[-1] if slot is None else button(prompt, f"s{slot}")
    menu = answer(await h.click(chosen["custom_id"], mover, prompt))
    col_ids = menu.custom_ids
    wanted = [c for c in col_ids if column is not None and c.endswith(f"c{column}")]
    return await h.click((wanted or col_ids)[0], mover, menu)


# --------------------------------------------------------------------------- the prompt


async def test_prompt_has_one_button_per_guest_slot(h: Harness) -> None:
    info = await started(h)
    prompt = h.fake.last_prompt()
    view = await h.service.public_view(info.id)
    mover = info.to_act_users[0]
    seat = info.seat_of(mover).index
    buttons = prompt.buttons()
    assert [ButtonId.parse(b["custom_id"]).code for b in buttons] == [
        f"s{s.slot}" for s in view.guest_list if s.token is not None
    ]
    for b, slot in zip(buttons, view.guest_list, strict=False):
        assert slot.name in b["label"]
        assert ("free" if slot.cost == 0 else f"{slot.cost} gold") in b["label"]
        assert bool(b.get("disabled")) == (slot.cost > view.gold[seat])


async def test_custom_ids_carry_only_public_codes(h: Harness) -> None:
    info = await started(h)
    for _ in range(4):
        await play(h)
    card_ids = {c.id for c in GAME.data.characters} | {c.id for c in GAME.data.companions}
    all_ids = [cid for s in h.fake.sent for cid in s.custom_ids]
    assert len(all_ids) > 10
    for cid in all_ids:
        assert len(cid) <= 100
        parsed = ButtonId.parse(cid)
        assert parsed.table_id == info.id
        assert CODE.match(parsed.code), cid
        assert not any(card in cid for card in card_ids), cid


# --------------------------------------------------------------------------- a move


async def test_slot_then_column_plays_the_move(h: Harness) -> None:
    info = await started(h)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    view = await h.service.public_view(info.id)
    # the Pied Piper would keep the turn for its Rat: take a guest that ends the turn
    free_slot = next((s for s in view.guest_list if s.cost == 0 and s.token is not None
                      and s.token != "pied_piper"), None)
    if free_slot is None:  # pragma: no cover - both free guests are Pied Pipers
        pytest.skip("no plain free guest this seed")

    sent = await h.click(button(prompt, f"s{free_slot.slot}")["custom_id"], mover, prompt)
    assert only(sent, "callback").response_type == 6  # acknowledged before the table is read
    menu = answer(sent)
    assert menu.ephemeral
    assert free_slot.name in menu.content
    assert codes(menu) == [f"d{free_slot.slot}c{c}" for c in range(1, 8)]
    assert not h.fake.channel_messages()[2:]  # nothing public yet (the lobby, the board)
    assert (await h.service.status(info.id)).version == 0

    sent = await h.click(button(menu, f"d{free_slot.slot}c3")["custom_id"], mover, menu)
    ack = only(sent, "callback")
    assert ack.response_type == 6  # deferred update: answered within 3 seconds
    (done,) = edits_of(sent, menu.message_id)
    assert f"You dropped {free_slot.name} into column 3" in done.content
    assert done.payload["components"] == []
    new_prompt = only(sent, "channel_message")
    # Everything rode on the clicks' own tokens: the next turn message is a follow-up
    # of the column click, and the old turn message lost its buttons on the slot
    # click's token (the click whose component sat on it).
    (stripped,) = edits_of(sent, prompt.message_id)
    assert stripped.payload["components"] == []
    assert [s for s in sent if not s.token] == []  # not one request on the bot token
    after = await h.service.status(info.id)
    assert after.version == 1
    assert after.to_act_users == (other(info, mover),)
    assert f"<@{other(info, mover)}>" in new_prompt.content
    assert "column 3" in new_prompt.content
    assert all(cid.startswith(f"ft:{info.id}:1:") for cid in new_prompt.custom_ids)
    grid = (await h.service.public_view(info.id)).grid
    assert len(grid[2]) == 1 and grid[2][0].owner == info.seat_of(mover).index


async def test_full_columns_are_not_offered(h: Harness) -> None:
    info = await started(h)
    for _ in range(20):
        if len((await h.service.public_view(info.id)).grid[0]) == 6:
            break
        await play(h, column=1)
    view = await h.service.public_view(info.id)
    assert len(view.grid[0]) == 6, "column 1 did not fill up"
    while view.phase != "drop":  # settle a pending Rat or extra turn first
        await play(h)
        view = await h.service.public_view(info.id)
    info = await h.service.status(info.id)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    enabled = next(b for b in prompt.buttons() if not b.get("disabled"))
    menu = answer(await h.click(enabled["custom_id"], mover, prompt))
    open_columns = [c + 1 for c, col in enumerate(view.grid) if len(col) < 6]
    assert 1 not in open_columns
    assert [c.split("c")[-1] for c in codes(menu)] == [str(c) for c in open_columns]


# --------------------------------------------------------------------------- refusals


async def test_foreign_click_is_refused_privately(h: Harness) -> None:
    info = await started(h)
    prompt = h.fake.last_prompt()
    sent = await h.click(prompt.custom_ids[-1], CAROL, prompt)
    reply = answer(sent)
    assert reply.ephemeral and "do not have a seat" in reply.content
    assert [s.kind for s in sent] == ["callback", "followup"]  # nothing else was sent
    assert (await h.service.status(info.id)).version == 0


async def test_not_your_turn_click_is_refused_privately(h: Harness) -> None:
    info = await started(h)
    waiting = other(info, info.to_act_users[0])
    prompt = h.fake.last_prompt()
    sent = await h.click(prompt.custom_ids[-1], waiting, prompt)
    reply = answer(sent)
    assert reply.ephemeral and "not your turn" in reply.content
    # even a hand-made column click cannot move for the waiting player
    forged = ButtonId(info.id, 0, "d3c1").custom_id
    reply = answer(await h.click(forged, waiting, prompt))
    assert reply.ephemeral and "not your turn" in reply.content
    assert (await h.service.status(info.id)).version == 0


async def test_stale_clicks_change_nothing(h: Harness) -> None:
    info = await started(h)
    mover = info.to_act_users[0]
    old_prompt = h.fake.last_prompt()
    enabled = next(b for b in old_prompt.buttons() if not b.get("disabled"))
    old_menu = answer(await h.click(enabled["custom_id"], mover, old_prompt))
    await play(h)
    assert (await h.service.status(info.id)).version == 1
    before = len(h.fake.channel_messages())
    # the column menu of the first turn, clicked by the same player
    sent = await h.click(old_menu.custom_ids[0], mover, old_menu)
    reply = answer(sent)
    assert reply.ephemeral and "older turn" in reply.content
    # the old public prompt, clicked by the player whose turn it now is
    sent = await h.click(enabled["custom_id"], other(info, mover), old_prompt)
    assert "older turn" in answer(sent).content
    assert (await h.service.status(info.id)).version == 1
    assert len(h.fake.channel_messages()) == before


async def test_double_click_makes_one_move(h: Harness) -> None:
    info = await started(h)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    enabled = next(b for b in prompt.buttons() if not b.get("disabled"))
    menu = answer(await h.click(enabled["custom_id"], mover, prompt))
    first = h.fake.click_payload(menu.custom_ids[0], user_id=mover, message=menu)
    second = h.fake.click_payload(menu.custom_ids[0], user_id=mover, message=menu)
    h.bot._connection.parse_interaction_create(first)
    h.bot._connection.parse_interaction_create(second)
    await h.fake.settle()
    assert (await h.service.status(info.id)).version == 1
    replies = h.fake.of_interaction(first) + h.fake.of_interaction(second)
    refusals = [s for s in replies if s.ephemeral
                and ("older turn" in s.content or "not your turn" in s.content)]
    assert len(refusals) == 1, replies
    moves = [s for s in h.fake.channel_messages() if "dropped" in s.content]
    assert len(moves) == 1


async def test_unaffordable_slot_explains_the_cost(h: Harness) -> None:
    info = await started(h)
    mover = info.to_act_users[0]
    view = await h.service.public_view(info.id)
    gold = view.gold[info.seat_of(mover).index]
    pricey = next((s for s in view.guest_list if s.cost > gold), None)
    if pricey is None:  # pragma: no cover - the starter has 1 gold, slot 1 costs 2
        pytest.skip("every slot affordable")
    forged = ButtonId(info.id, 0, f"s{pricey.slot}").custom_id
    reply = answer(await h.click(forged, mover, h.fake.last_prompt()))
    assert reply.ephemeral
    assert f"You have {gold} gold; slot {pricey.slot} costs {pricey.cost}" in reply.content


async def test_garbage_code_is_refused(h: Harness) -> None:
    info = await started(h)
    mover = info.to_act_users[0]
    forged = ButtonId(info.id, 0, "zz9").custom_id
    reply = answer(await h.click(forged, mover, h.fake.last_prompt()))
    assert reply.ephemeral and "not available" in reply.content
    missing = ButtonId("nosuchtable", 0, "s1").custom_id
    reply = answer(await h.click(missing, mover, h.fake.last_prompt()))
    assert reply.ephemeral and "no longer exists" in reply.content


# --------------------------------------------------------------------------- pending choices


async def test_extra_turn_offer_is_answered_with_buttons(h: Harness) -> None:
    """Fill column 2 with free guests until a token lands in the extra-turn room (2,4)."""
    info = await started(h)
    for _ in range(12):
        view = await h.service.public_view(info.id)
        if view.phase == "extra_turn":
            break
        if view.phase == "rat":
            prompt = h.fake.last_prompt()
            mover = (await h.service.status(info.id)).to_act_users[0]
            rat = next(c for c in codes(prompt) if c != "r2")
            await h.click(button(prompt, rat)["custom_id"], mover, prompt)
            continue
        free = next(s.slot for s in view.guest_list if s.cost == 0 and s.token is not None)
        await play(h, slot=free, column=2)
    view = await h.service.public_view(info.id)
    assert view.phase == "extra_turn", "column 2 row 4 never offered the extra turn"
    status = await h.service.status(info.id)
    mover = status.to_act_users[0]
    prompt = h.fake.last_prompt()
    assert set(codes(prompt)) <= {"x", "e"} and "e" in codes(prompt)
    assert f"<@{mover}>" in prompt.content
    sent = await h.click(button(prompt, "e")["custom_id"], mover, prompt)
    assert only(sent, "callback").response_type == 6
    after = await h.service.status(info.id)
    assert after.version == status.version + 1
    assert after.to_act_users == (other(info, mover),)


def test_adapter_rat_and_extra_turn_menus() -> None:
    ui = FairyTaleInnUI()
    state = GAME.setup(2, GAME.Options(), seed=1)
    view = GAME.view(state, None)
    menu = ui.public_menu(view, [Rat(column=1), Rat(column=5)])
    assert [c.code for c in menu.choices] == ["r1", "r5"]
    assert "Rat" in menu.prompt
    assert isinstance(ui.resolve("r5", view, [Rat(column=5)]).action, Rat)
    with pytest.raises(UnknownChoice):
        ui.resolve("r3", view, [Rat(column=5)])
    menu = ui.public_menu(view, [ExtraTurn(), EndTurn()])
    assert [c.code for c in menu.choices] == ["x", "e"]
    menu = ui.public_menu(view, [EndTurn()])  # cannot pay: only "end my turn"
    assert [c.code for c in menu.choices] == ["e"]
    assert ui.resolve("x", view, [ExtraTurn(), EndTurn()]).action == ExtraTurn()
    with pytest.raises(UnknownChoice, match="extra turn"):
        ui.resolve("x", view, [EndTurn()])


def test_adapter_slot_and_drop_codes() -> None:
    ui = get_ui("fairy-tale-inn")
    state = GAME.setup(2, GAME.Options(), seed=4)
    view = GAME.view(state, 0)
    legal = GAME.legal_actions(state, 0)
    resolution = ui.resolve("s3", view, legal)
    assert resolution.menu is not None
    assert [c.code for c in resolution.menu.choices] == [f"d3c{c}" for c in range(1, 8)]
    action = ui.resolve("d3c7", view, legal).action
    assert action == Drop(slot=3, column=7)
    with pytest.raises(UnknownChoice):
        ui.resolve("d3c8", view, legal)
    # the generic "take your turn" code opens the same menu privately
    assert ui.resolve("turn", view, legal).menu is not None


# --------------------------------------------------------------------------- restart, /inn


async def test_buttons_keep_working_after_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    h1 = await make_harness(db)
    info = await started(h1)
    mover = info.to_act_users[0]
    prompt = h1.fake.last_prompt()
    await close_harness(h1)

    h2 = await make_harness(db)  # a new process: new bot, new service, same file
    try:
        enabled = next(b for b in prompt.buttons() if not b.get("disabled"))
        menu = answer(await h2.click(enabled["custom_id"], mover, prompt))
        assert menu.ephemeral and menu.custom_ids
        sent = await h2.click(menu.custom_ids[0], mover, menu)
        assert only(sent, "callback").response_type == 6
        assert (await h2.service.status(info.id)).version == 1
        assert only(sent, "channel_message").custom_ids
    finally:
        await close_harness(h2)


async def test_inn_board_reposts_with_fresh_buttons(h: Harness) -> None:
    info = await started(h)
    old = h.fake.last_prompt()
    sent = await h.slash("inn board", CAROL)
    assert answer(sent).ephemeral
    board = only(sent, "channel_message")
    assert board.files and board.files[0][0] == "board.png"
    assert codes(board) == codes(old)
    assert all(cid.startswith(f"ft:{info.id}:0:") for cid in board.custom_ids)
    assert "<@" not in board.content  # re-posting does not ping anyone
    stripped = only(sent, "edit_message")
    assert stripped.message_id == old.message_id


async def test_inn_help_lists_the_characters_at_the_table(h: Harness) -> None:
    info = await started(h)
    view = await h.service.public_view(info.id)
    reply = answer(await h.slash("inn help", CAROL))
    assert reply.ephemeral
    for c in view.characters:
        assert c.name in reply.content
    reply = answer(await h.slash("inn help", CAROL, channel_id=CHANNEL_ID + 1))
    assert "5 of these 8" in reply.content


async def test_inn_board_needs_an_inn_game(h: Harness) -> None:
    reply = answer(await h.slash("inn board", ANN))
    assert reply.ephemeral and "no table" in reply.content.lower()
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    reply = answer(await h.slash("inn board", ANN))
    assert "not started" in reply.content


async def test_real_renderer_attaches_a_png(tmp_path: Path) -> None:
    import renderers

    h = await make_harness(tmp_path / "bot.db", renderer=renderers.render)
    try:
        await started(h)
        board = h.fake.last_prompt()
        assert board.files and board.files[0][1].startswith(b"\x89PNG")
    finally:
        await close_harness(h)


async def test_concurrent_tables_in_two_channels(h: Harness) -> None:
    await started(h)
    other_channel = CHANNEL_ID + 7
    await h.slash("table new", CAROL, uname="Carol", game="fairy-tale-inn",
                  channel_id=other_channel)
    info = await h.service.status(other_channel)
    assert info.host_id == CAROL and info.id != (await h.service.status(CHANNEL_ID)).id


@pytest.mark.parametrize("seed", [3, 11])
async def test_a_whole_game_by_buttons(tmp_path: Path, seed: int) -> None:
    from bot.core.tables import TableStatus

    h = await make_harness(tmp_path / "bot.db", seed=seed)
    try:
        info = await started(h)
        for _ in range(200):
            info = await h.service.status(info.id)
            if info.status is not TableStatus.PLAYING:
                break
            await play(h)
        assert info.status is TableStatus.FINISHED
        last = h.fake.channel_messages()[-1]
        assert info.outcome_text and info.outcome_text in last.content
        assert not last.custom_ids  # nothing left to click
        assert "<@" not in last.content.split(info.outcome_text)[-1]
        # every public line of the game is in the channel, in at most one message per
        # move (the steps of one turn share one message, edited as they happen)
        channel = "\n".join(h.fake.current(m).content for m in h.fake.channel_messages())
        for line in await h.service.history(info.id):
            assert line in channel, line
        assert len(h.fake.channel_messages()) <= info.version + 1
    finally:
        await close_harness(h)


async def test_reminders_ping_the_player_with_fresh_buttons(h: Harness) -> None:
    from datetime import UTC, datetime, timedelta

    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn", reminder_minutes=5.0)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    old = h.fake.last_prompt()
    due = await h.service.due_reminders(datetime.now(UTC) + timedelta(minutes=6))
    assert len(due) == 1
    await h.bot.on_table_news(due[0])  # what the service's reminder loop calls
    reminder = h.fake.channel_messages()[-1]
    mover = info.to_act_users[0]
    assert f"<@{mover}>" in reminder.content and "waiting for you" in reminder.content
    assert codes(reminder) == codes(old)
    assert all(cid.startswith(f"ft:{info.id}:0:") for cid in reminder.custom_ids)
    lobby = h.fake.channel_messages()[0]  # closed at the start
    assert [s.message_id for s in h.fake.sent if s.kind in EDITS
            and s.message_id != lobby.message_id] == [old.message_id]
    # the reminder's buttons play like any others
    sent = await play(h)
    assert (await h.service.status(info.id)).version == 1
    assert edits_of(sent, reminder.message_id)


async def test_missing_channel_permissions_are_reported(h: Harness) -> None:
    """If the bot may not post in the channel, the person is told, not left waiting."""
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    await h.slash("table join", BOB, uname="Bob")
    h.fake.fail_channel_posts = True
    sent = await h.slash("table start", ANN)
    ack = only(sent, "followup")
    assert ack.ephemeral and "could not post" in ack.content and "Send Messages" in ack.content
    info = await h.service.status(CHANNEL_ID)
    assert info.version == 0  # the game did start: it is in the database
    h.fake.fail_channel_posts = False
    sent = await h.slash("inn board", ANN)
    prompt = only(sent, "channel_message")
    h.fake.fail_channel_posts = True
    mover = info.to_act_users[0]
    enabled = next(b for b in prompt.buttons() if not b.get("disabled"))
    menu = answer(await h.click(enabled["custom_id"], mover, prompt))
    # The clicks' tokens are spent (their 15 minutes are up), so the move's message
    # needs the bot's own right to post: refused here.
    h.bot.delivery.tokens.clock = lambda: time.time() + 15 * 60
    sent = await h.click(menu.custom_ids[0], mover, menu)
    warning = only(sent, "followup")
    assert warning.ephemeral and "could not post" in warning.content
    assert (await h.service.status(info.id)).version == 1


async def test_a_failed_announcement_does_not_deny_the_move(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = await started(h)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    enabled = next(b for b in prompt.buttons() if not b.get("disabled"))
    menu = answer(await h.click(enabled["custom_id"], mover, prompt))

    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("renderer exploded")

    monkeypatch.setattr(h.bot.delivery.turn_messages, "post", broken)
    sent = await h.click(menu.custom_ids[0], mover, menu)
    assert (await h.service.status(info.id)).version == 1
    note = only(sent, "followup")
    assert note.ephemeral and "You dropped" in note.content and "saved" in note.content
    assert "nothing was changed" not in note.content
    monkeypatch.undo()
    board = only(await h.slash("inn board", mover), "channel_message")
    assert all(c.startswith(f"ft:{info.id}:1:") for c in board.custom_ids)


async def test_a_broken_adapter_falls_back_to_the_generic_button(
    h: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Any, view: Any, legal: Any) -> Any:
        raise RuntimeError("adapter bug")

    monkeypatch.setattr(FairyTaleInnUI, "public_menu", broken)
    info = await started(h)
    prompt = h.fake.last_prompt()
    assert prompt.custom_ids == [f"ft:{info.id}:0:turn"]
