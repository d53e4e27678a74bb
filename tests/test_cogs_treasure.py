"""Save the Treasure on Discord: the button adapter (pure) and the /treasure commands and
clicks driven through the REAL discord.py command tree (see tests/discord_fakes.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.core.choices import get_ui
from bot.core.choices.adapter import UnknownChoice
from bot.core.choices.treasure import TreasureUI
from engines import get_game
from engines.treasure import Slide, Stay, Step, StopSliding, TurnGreen
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    Harness,
    answer,
    close_harness,
    make_harness,
    only,
    reply_text,
)
from tests.test_treasure import TWO_GAPS_RIGHT, build

GAME = get_game("treasure")
UI = TreasureUI()


# --------------------------------------------------------------------------- the adapter


def test_registered_adapter() -> None:
    assert isinstance(get_ui("treasure"), TreasureUI)


def test_slide_menu_offers_exactly_the_tiles_that_can_slide() -> None:
    for seed in range(8):
        state = GAME.setup(2, GAME.Options(), seed)
        legal = GAME.legal_actions(state, 0)
        menu = UI.public_menu(GAME.view(state, None), legal)
        assert menu is not None
        tiles = {f"t{chr(65 + a.row)}{a.col + 1}" for a in legal if isinstance(a, Slide)}
        assert {c.code for c in menu.choices} == tiles, "first slide: no stop button"
        for code in tiles:
            sub = UI.resolve(code, GAME.view(state, 0), legal).menu
            assert sub is not None and sub.choices
            for choice in sub.choices:
                action = UI.resolve(choice.code, GAME.view(state, 0), legal).action
                assert action in legal


def test_direction_menu_counts_the_pushed_line() -> None:
    state = build(TWO_GAPS_RIGHT)
    legal = GAME.legal_actions(state, 0)
    menu = UI.resolve("tB1", GAME.view(state, 0), legal).menu
    assert menu is not None
    assert [c.label for c in menu.choices] == ["Right (2 tiles)"]
    res = UI.resolve("sB1r", GAME.view(state, 0), legal)
    assert res.action == Slide(row=1, col=0, direction="right")
    assert res.done_text == "You slid the tile on B1 right."


def test_bad_codes_get_friendly_refusals() -> None:
    state = build(TWO_GAPS_RIGHT)
    legal = GAME.legal_actions(state, 0)
    view = GAME.view(state, 0)
    with pytest.raises(UnknownChoice, match="no meadow tile on B3"):
        UI.resolve("tB3", view, legal)
    with pytest.raises(UnknownChoice, match="stuck"):
        UI.resolve("tA1", view, legal)
    with pytest.raises(UnknownChoice, match="can't slide left"):
        UI.resolve("sB1l", view, legal)
    with pytest.raises(UnknownChoice, match="slide a tile first"):
        UI.resolve("x", view, legal)
    with pytest.raises(UnknownChoice):
        UI.resolve("zz", view, legal)


def test_second_slide_offers_stop() -> None:
    state = build(TWO_GAPS_RIGHT)
    GAME.apply(state, 0, Slide(row=1, col=1, direction="right"))
    legal = GAME.legal_actions(state, 0)
    menu = UI.public_menu(GAME.view(state, None), legal)
    assert menu is not None and menu.choices[-1].code == "x"
    assert "second" in menu.prompt
    assert UI.resolve("x", GAME.view(state, 0), legal).action == StopSliding()


def test_page_menus_green_then_step() -> None:
    state = build(TWO_GAPS_RIGHT, shown={"D5": 10, "B2": 11, "B3": 0, "B4": 2})
    GAME.apply(state, 0, Slide(row=1, col=1, direction="right"))
    legal = GAME.legal_actions(state, 0)
    menu = UI.public_menu(GAME.view(state, None), legal)
    assert menu is not None and "page" in menu.prompt
    assert len(menu.choices) == len(legal) == 21 and menu.choices[0].code == "gA2"
    assert UI.resolve("gA2", GAME.view(state, 0), legal).action == TurnGreen(row=0, col=1)
    with pytest.raises(UnknownChoice, match="can't be turned green"):
        UI.resolve("gA1", GAME.view(state, 0), legal)
    GAME.apply(state, 0, TurnGreen(row=0, col=1))
    legal = GAME.legal_actions(state, 0)
    menu = UI.public_menu(GAME.view(state, None), legal)
    assert menu is not None and [c.code for c in menu.choices] == ["wr"], "no stay after a page"
    assert UI.resolve("wr", GAME.view(state, 0), legal).action == Step(direction="right")
    with pytest.raises(UnknownChoice, match="has to take a step"):
        UI.resolve("y", GAME.view(state, 0), legal)


def test_optional_step_menu_has_stay() -> None:
    state = build(TWO_GAPS_RIGHT)
    state.green[state.cover[5]] = True  # B1 green: a step down is possible
    GAME.apply(state, 0, Slide(row=3, col=3, direction="right"))
    GAME.apply(state, 0, StopSliding())
    legal = GAME.legal_actions(state, 0)
    menu = UI.public_menu(GAME.view(state, None), legal)
    assert menu is not None and [c.code for c in menu.choices] == ["wd", "y"]
    assert UI.resolve("y", GAME.view(state, 0), legal).action == Stay()


# --------------------------------------------------------------------------- through Discord


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


async def start_table(h: Harness) -> None:
    sent = await h.slash("table new", ANN, uname="Ann", game="treasure")
    assert "Save the Treasure" in only(sent, "channel_message").content  # the lobby
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)


async def test_start_posts_board_with_tile_buttons(h: Harness) -> None:
    await start_table(h)
    info = await h.service.status(CHANNEL_ID)
    board = h.fake.last_prompt()
    assert board.files and board.files[0][0] == "board.png"
    assert board.custom_ids
    assert all(cid.startswith(f"ft:{info.id}:0:t") for cid in board.custom_ids)
    game_id, view, options = h.rendered[-1]
    assert game_id == "treasure" and view.seat is None
    assert sorted(options["names"]) == ["Ann", "Bob"]
    assert "Save the Treasure of Fairy Tales begins!" in board.content


async def test_a_slide_by_two_clicks(h: Harness) -> None:
    await start_table(h)
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    other = BOB if mover == ANN else ANN
    board = h.fake.last_prompt()
    tile = board.custom_ids[0]
    # someone else clicking is told whose turn it is, privately
    sent = await h.click(tile, other, message=board)
    assert "not your turn" in reply_text(sent) and answer(sent).ephemeral
    sent = await h.click(tile, CAROL, message=board)
    assert "do not have a seat" in reply_text(sent)
    # the mover gets the directions privately
    sent = await h.click(tile, mover, message=board)
    menu = answer(sent)
    assert menu.ephemeral and "Which way" in menu.content and menu.custom_ids
    sent = await h.click(menu.custom_ids[0], mover, message=menu)
    await h.service.wait_idle()
    await h.fake.settle()
    info = await h.service.status(CHANNEL_ID)
    assert info.version == 1
    history = await h.service.history(CHANNEL_ID)
    assert any("slid" in line for line in history)
    # the old board's buttons are stale now
    sent = await h.click(tile, mover, message=board)
    assert "older turn" in reply_text(sent)


async def test_treasure_help_and_board(h: Harness) -> None:
    sent = await h.slash("treasure help", CAROL)
    reply = answer(sent)
    assert reply.ephemeral and "Stop sliding" in reply.content and "Cinderella" in reply.content
    await start_table(h)
    sent = await h.slash("treasure help", CAROL)
    assert "0/12 pages" in answer(sent).content
    sent = await h.slash("treasure board", BOB)
    assert any(s.kind == "channel_message" and s.custom_ids for s in sent)
    assert only(sent, "followup").ephemeral


async def test_treasure_board_needs_a_treasure_table(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    sent = await h.slash("treasure board", ANN)
    text = reply_text(sent)
    assert "not Save the Treasure" in text and all(s.ephemeral for s in sent)
    await h.slash("table abort", ANN)
    sent = await h.slash("treasure board", ANN)
    assert "no table" in reply_text(sent).lower()
