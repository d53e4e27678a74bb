"""The /table, /hand, /rules, /help and /admin commands, driven through the REAL
discord.py command tree with interaction payloads (see tests/discord_fakes.py)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.tables import NoTable, TableStatus
from bot.messages.replies import INTERNAL_ERROR
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    MANAGE_CHANNELS,
    OWNER_ID,
    PNG,
    Harness,
    Sent,
    answer,
    close_harness,
    make_harness,
    only,
    reply_text,
)


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


async def open_table(h: Harness) -> Sent:
    """Ann opens a Fairy Tale Inn table; returns the lobby message."""
    sent = await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    assert only(sent, "callback").response_type == 5  # acknowledged at once, privately
    assert answer(sent).ephemeral
    return only(sent, "channel_message")


# --------------------------------------------------------------------------- lobby


async def test_new_table_is_announced_publicly(h: Harness) -> None:
    sent = await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    assert only(sent, "callback").response_type == 5  # deferred before the table is made
    lobby = only(sent, "channel_message")  # the lobby is the bot's own channel message
    assert "Fairy Tale Inn" in lobby.content and "Ann" in lobby.content
    assert any(c.endswith("lobby.join") for c in lobby.custom_ids)
    reply = answer(sent)
    assert reply.ephemeral and "is open" in reply.content
    assert str(lobby.message_id) in reply.content  # a link to the lobby message
    info = await h.service.status(CHANNEL_ID)
    assert info.status is TableStatus.LOBBY and info.host_id == ANN


async def test_game_can_be_typed_by_name(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="fairy tale inn")
    assert (await h.service.status(CHANNEL_ID)).game_id == "fairy-tale-inn"


async def test_second_table_in_channel_is_refused_privately(h: Harness) -> None:
    await open_table(h)
    sent = await h.slash("table new", BOB, uname="Bob", game="fairy-tale-inn")
    reply = answer(sent)
    assert reply.ephemeral
    assert "already has a table" in reply.content


async def test_unknown_game_is_refused_with_the_list(h: Harness) -> None:
    sent = await h.slash("table new", ANN, game="chess")
    reply = answer(sent)
    assert reply.ephemeral
    assert "chess" in reply.content and "Fairy Tale Inn" in reply.content
    assert not h.fake.channel_messages()


async def test_bad_options_are_refused(h: Harness) -> None:
    sent = await h.slash("table new", ANN, game="fairy-tale-inn", options="!!!")
    reply = answer(sent)
    assert reply.ephemeral and "options" in reply.content


async def test_game_autocomplete_offers_registered_games(h: Harness) -> None:
    sent = await h.autocomplete("table new", ANN, "game", game="inn")
    choices = sent.payload["data"]["choices"]
    assert {"name": "Fairy Tale Inn", "value": "fairy-tale-inn"} in choices
    assert all("inn" in c["name"].lower() or "inn" in c["value"] for c in choices)


async def test_level_autocomplete_follows_the_channel_game(h: Harness) -> None:
    await open_table(h)
    sent = await h.autocomplete("table addbot", ANN, "level", level="")
    values = [c["value"] for c in sent.payload["data"]["choices"]]
    assert "random" in values and "mcts" in values


async def test_join_leave_and_status(h: Harness) -> None:
    await open_table(h)
    sent = await h.slash("table join", BOB, uname="Bob")
    assert "Bob sat down" in answer(sent).content
    sent = await h.slash("table join", BOB, uname="Bob")
    reply = answer(sent)
    assert reply.ephemeral and "already" in reply.content
    sent = await h.slash("table status", CAROL)
    status = answer(sent)
    assert status.ephemeral and "Ann" in status.content and "Bob" in status.content
    sent = await h.slash("table leave", BOB, uname="Bob")
    assert "Bob" in answer(sent).content
    assert [s.user_id for s in (await h.service.status(CHANNEL_ID)).seats] == [ANN]


async def test_commands_without_a_table_explain(h: Harness) -> None:
    for name in ("table join", "table leave", "table start", "table status", "table abort"):
        sent = await h.slash(name, ANN)
        text = reply_text(sent)
        assert "no table in this channel" in text.lower(), (name, sent)
        assert all(s.ephemeral for s in sent if s.kind in ("callback", "followup")), name


async def test_only_the_host_starts(h: Harness) -> None:
    await open_table(h)
    await h.slash("table join", BOB, uname="Bob")
    before = len(h.fake.channel_messages())  # the lobby message
    sent = await h.slash("table start", BOB)
    assert "host" in reply_text(sent).lower()
    assert (await h.service.status(CHANNEL_ID)).status is TableStatus.LOBBY
    assert len(h.fake.channel_messages()) == before


async def test_start_defers_then_posts_board_and_buttons(h: Harness) -> None:
    await open_table(h)
    await h.slash("table join", BOB, uname="Bob")
    sent = await h.slash("table start", ANN)
    defer = only(sent, "callback")
    assert defer.response_type == 5 and defer.ephemeral  # deferred, thinking, private
    board = only(sent, "channel_message")
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    assert f"<@{mover}>" in board.content
    assert [int(u) for u in board.payload["allowed_mentions"]["users"]] == [mover]
    assert board.files and board.files[0][0] == "board.png"
    assert board.files[0][1] == PNG
    assert board.custom_ids
    assert all(cid.startswith(f"ft:{info.id}:0:s") for cid in board.custom_ids)
    # the picture was drawn from the public view, with the seat names
    game_id, view, options = h.rendered[-1]
    assert game_id == "fairy-tale-inn" and view.seat is None
    assert sorted(options["names"]) == ["Ann", "Bob"]
    ack = only(sent, "followup")
    assert ack.ephemeral


async def test_addbot_and_ai_moves_arrive_in_the_channel(h: Harness) -> None:
    await open_table(h)
    sent = await h.slash("table addbot", ANN, level="random")
    assert "AI" in answer(sent).content
    sent = await h.slash("table addbot", BOB, level="random")
    assert answer(sent).ephemeral  # not the host (or table full)
    await h.slash("table start", ANN)
    await h.service.wait_idle()
    await h.fake.settle()
    info = await h.service.status(CHANNEL_ID)
    assert info.to_act_users == (ANN,)
    # every move so far (the AI's included) was posted, and the latest one offers buttons
    prompt = h.fake.last_prompt()
    assert f"<@{ANN}>" in prompt.content
    assert all(cid.startswith(f"ft:{info.id}:{info.version}:") for cid in prompt.custom_ids)


async def test_abort_by_host_or_manage_channels(h: Harness) -> None:
    await open_table(h)
    sent = await h.slash("table abort", BOB)
    assert "host" in reply_text(sent).lower()
    sent = await h.slash("table abort", BOB, permissions=MANAGE_CHANNELS)
    assert any(s.kind == "followup" and s.ephemeral for s in sent)
    assert await h.service.tables_of_user(ANN) == []  # no live table left
    sent = await h.slash("table status", ANN)
    assert "no table" in answer(sent).content.lower()


async def test_handover_gives_a_seat_to_a_member(h: Harness) -> None:
    await open_table(h)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    bob_seat = info.seat_of(BOB).index + 1
    sent = await h.slash("table handover", BOB, seat=bob_seat, member=(CAROL, "Carol"))
    assert "host" in reply_text(sent).lower()
    sent = await h.slash("table handover", ANN, seat=bob_seat, member=(CAROL, "Carol"))
    assert "Carol" in reply_text(sent)
    info = await h.service.status(CHANNEL_ID)
    assert info.seat_of(CAROL) is not None and info.seat_of(BOB) is None


async def test_handover_refuses_member_and_level_together(h: Harness) -> None:
    await open_table(h)
    sent = await h.slash("table handover", ANN, seat=1, member=(CAROL, "Carol"), level="random")
    reply = answer(sent)
    assert reply.ephemeral and "not both" in reply.content


async def test_log_is_private(h: Harness) -> None:
    await open_table(h)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    sent = await h.slash("table log", CAROL)
    assert answer(sent).ephemeral


# --------------------------------------------------------------------------- /hand /rules /help


async def test_hand_is_ephemeral_with_picture_and_turn_buttons(h: Harness) -> None:
    await open_table(h)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    sent = await h.slash("hand", mover)
    assert only(sent, "callback").response_type == 5
    reply = only(sent, "followup")
    assert reply.ephemeral
    assert reply.files and reply.files[0][0] == "hand.png"
    assert reply.custom_ids and all(c.startswith(f"ft:{info.id}:") for c in reply.custom_ids)
    # a private picture is drawn from the asker's own seat view
    assert h.rendered[-1][1].seat == info.seat_of(mover).index


async def test_hand_without_a_seat(h: Harness) -> None:
    sent = await h.slash("hand", CAROL)
    reply = answer(sent)
    assert reply.ephemeral and "no seat" in reply.content


async def test_rules_from_data(h: Harness) -> None:
    sent = await h.slash("rules", ANN, game="fairy-tale-inn")
    reply = answer(sent)
    assert reply.ephemeral
    assert "Fairy Tale Inn" in reply.content and "three columns" in reply.content
    assert "rulebook" in reply.content.lower()
    sent = await h.slash("rules", ANN, game="nonsense")
    assert "no rules summary" in answer(sent).content


async def test_help_lists_every_public_command(h: Harness) -> None:
    sent = await h.slash("help", ANN)
    reply = answer(sent)
    assert reply.ephemeral and len(reply.content) < 2000
    for name in ("/table new", "/table join", "/table start", "/table addbot",
                 "/table handover", "/hand", "/rules", "/inn"):
        assert name in reply.content, name
    assert "/admin" not in reply.content
    reply = answer(await h.slash("help", ANN, command="inn"))
    assert "/inn board" in reply.content and "/inn help" in reply.content
    reply = answer(await h.slash("help", ANN, command="admin"))
    assert "no command group" in reply.content
    sent = await h.autocomplete("help", ANN, "command", command="")
    values = [c["value"] for c in sent.payload["data"]["choices"]]
    assert "table" in values and "inn" in values and "admin" not in values


# --------------------------------------------------------------------------- errors, admin


async def test_unexpected_errors_become_a_private_apology(h: Harness, monkeypatch) -> None:
    async def boom(*_: Any, **__: Any) -> Any:
        raise RuntimeError("database on fire")

    monkeypatch.setattr(h.service, "status", boom)
    sent = await h.slash("table status", ANN)
    reply = answer(sent)
    # A plain apology with a short reference for the operator's log, nothing internal.
    assert reply.ephemeral and reply.content.startswith(INTERNAL_ERROR)
    assert "(Reference " in reply.content
    assert "fire" not in reply.content


async def test_admin_sync_is_owner_only(h: Harness) -> None:
    sent = await h.slash("admin sync", ANN)
    reply = answer(sent)
    assert reply.ephemeral and "owner" in reply.content.lower()
    assert not [s for s in h.fake.sent if s.kind == "sync"]
    sent = await h.slash("admin sync", OWNER_ID, scope="here")
    sync = [s for s in h.fake.sent if s.kind == "sync"]
    assert len(sync) == 1 and "/guilds/" in sync[0].path
    names = {c["name"] for c in sync[0].payload["commands"]}
    assert {"table", "hand", "rules", "help", "inn", "admin"} <= names
    assert re.search(r"Published \d+ commands", reply_text(sent))


async def test_no_commands_are_synced_on_start(h: Harness) -> None:
    assert not [s for s in h.fake.sent if s.kind == "sync"]


# --------------------------------------------------------------------------- lobby buttons


async def test_lobby_buttons_join_add_ai_and_start(h: Harness) -> None:
    lobby = await open_table(h)
    info = await h.service.status(CHANNEL_ID)
    assert lobby.custom_ids == [f"ft:{info.id}:0:lobby.{c}" for c in ("join", "leave", "ai",
                                                                     "start")]
    start = next(b for b in lobby.buttons() if b["custom_id"].endswith("start"))
    assert start.get("disabled")  # one player is not enough yet

    sent = await h.click(f"ft:{info.id}:0:lobby.join", BOB, lobby, uname="Bob")
    assert only(sent, "callback").response_type == 6  # acknowledged before the table is read
    update = only(sent, "edit_original")  # then the lobby message is updated in place
    assert "Bob sat down" in update.content and "Bob" in update.content
    assert [s.user_id for s in (await h.service.status(CHANNEL_ID)).seats] == [ANN, BOB]
    join = next(b for b in update.buttons() if b["custom_id"].endswith("join"))
    assert join.get("disabled")  # the table is full

    # only the host starts; a refusal is private and changes nothing
    reply = answer(await h.click(f"ft:{info.id}:0:lobby.start", BOB, update))
    assert reply.ephemeral and "host" in reply.content
    sent = await h.click(f"ft:{info.id}:0:lobby.start", ANN, update)
    assert only(sent, "callback").response_type == 6
    assert "has started" in only(sent, "edit_original").content
    board = only(sent, "channel_message")
    assert board.custom_ids and all(c.startswith(f"ft:{info.id}:0:s") for c in board.custom_ids)
    # an old lobby button after the start
    reply = answer(await h.click(f"ft:{info.id}:0:lobby.join", CAROL, update))
    assert reply.ephemeral and "already started" in reply.content


async def test_lobby_buttons_refuse_privately(h: Harness) -> None:
    lobby = answer(await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn"))
    info = await h.service.status(CHANNEL_ID)
    reply = answer(await h.click(f"ft:{info.id}:0:lobby.ai", BOB, lobby))
    assert reply.ephemeral and "host" in reply.content
    reply = answer(await h.click(f"ft:{info.id}:0:lobby.join", ANN, lobby))
    assert reply.ephemeral and "already" in reply.content
    sent = await h.click(f"ft:{info.id}:0:lobby.ai", ANN, lobby)
    assert "AI player joined" in answer(sent).content
    sent = await h.click(f"ft:{info.id}:0:lobby.leave", ANN, lobby)
    assert "closed" in answer(sent).content  # only an AI was left
    reply = answer(await h.click(f"ft:{info.id}:0:lobby.join", BOB, lobby))
    assert reply.ephemeral and "closed" in reply.content


async def test_start_by_command_takes_the_buttons_off_the_lobby(h: Harness) -> None:
    lobby = await open_table(h)
    await h.slash("table join", BOB, uname="Bob")
    sent = await h.slash("table start", ANN)
    closed = [s for s in sent if s.kind == "edit_message"
              and s.message_id == lobby.message_id]
    assert len(closed) == 1 and closed[0].payload["components"] == []
    # the lobby closes before the board goes up
    assert sent.index(closed[0]) < sent.index(only(sent, "channel_message"))


async def test_options_autocomplete_comes_from_the_game(h: Harness) -> None:
    sent = await h.autocomplete("table new", ANN, "options", game="treasure", options="")
    values = [c["value"] for c in sent.payload["data"]["choices"]]
    assert "variant=true" in values
    assert any(v.startswith("king_path_length=") for v in values)
    sent = await h.autocomplete("table new", ANN, "options", game="treasure",
                                options="variant=true")
    values = [c["value"] for c in sent.payload["data"]["choices"]]
    assert values[0] == "variant=true"
    assert all(v.startswith("variant=true") for v in values)
    assert not any(v.count("variant=") > 1 for v in values)
    sent = await h.autocomplete("table new", ANN, "options", game="fairy-tale-inn", options="")
    assert sent.payload["data"]["choices"] == []  # the Inn has no options


@pytest.mark.parametrize(("game", "options", "name"), [
    ("pocket", "special=wand special=boots", "special"),
    ("treasure", "variant=true variant=false", "variant"),
    ("treasure", "variant=true Variant=true", "Variant"),
    ("fairy-tale-inn", "seats=2 seats=3", "seats"),
])
async def test_an_option_given_twice_is_refused_by_name(h: Harness, game: str, options: str,
                                                        name: str) -> None:
    """Issue 23: one option given twice opened a table with the last value and no word.
    Refused, privately, naming the option; no table is opened, nothing is posted."""
    sent = await h.slash("table new", ANN, uname="Ann", game=game, options=options)
    reply = answer(sent)
    assert reply.ephemeral
    assert f"The option '{name}' is given twice: give it once." in reply.content
    with pytest.raises(NoTable):
        await h.service.status(CHANNEL_ID)
    assert not h.fake.channel_messages()


async def test_game_options_reach_the_table(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="treasure", options="variant=true")
    assert (await h.service.status(CHANNEL_ID)).options.get("variant") is True
    await h.slash("table abort", ANN)
    sent = await h.slash("table new", ANN, game="treasure", options="colour=blue")
    reply = answer(sent)
    assert reply.ephemeral and "option" in reply.content.lower()
