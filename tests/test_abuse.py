"""Abuse and bad input, through the real command tree and real click dispatch
(tests/discord_fakes.py): a click counts only in its table's channel (or, for a
seated player's own hand, in a DM or on an ephemeral answer); one member, and one
server, may hold only so many open tables; a board re-post has a cooldown; and what
people type is shown as text, never as markdown, a mention or a masked link.

Every refusal is private and specific, and leaves the table as it was."""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import bot.messages.delivery.order as delivery_order
from bot.core.tables import NoTable, TableInfo, TableService, TableStatus
from bot.core.tables.lobby import TooManyTables
from bot.messages.cogs.common import Cooldown
from bot.messages.delivery import CANNOT_POST
from bot.messages.ui.items import OTHER_CHANNEL
from bot.messages.ui.texts import literal
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    EDITS,
    GUILD_ID,
    Harness,
    Sent,
    answer,
    close_harness,
    make_harness,
    only,
    reply_text,
    user_payload,
)

ELSEWHERE = CHANNEL_ID + 77
"""Another channel of the same server."""
STRANGER = 444000000000000004
"""A member with no seat anywhere."""
NAMES = {ANN: "Ann", BOB: "Bob", CAROL: "Carol", STRANGER: "Stranger"}
NASTY = "**bold** @everyone <@&123456789012345678> [prize](https://evil.example) `x`"
"""What a person might type: markdown, a mass mention, a role ping, a masked link."""
MASKED_LINK = re.compile(r"(?<!\\)\[[^\]]*(?<!\\)\]\(")
"""A masked link Discord would draw: ``[text](`` with neither bracket escaped."""


@pytest.fixture
async def h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Harness]:
    # Moves made straight through the service are never announced; the next
    # announcement need not wait for them.
    monkeypatch.setattr(delivery_order.TableOrder, "WAIT", 0.01)
    harness = await make_harness(tmp_path / "abuse.db", seed=11)
    yield harness
    await close_harness(harness)


# --------------------------------------------------------------------------- helpers


async def click_in(h: Harness, custom_id: str, user: int, channel_id: int,
                   message: Sent | None = None, values: list[str] | None = None) -> list[Sent]:
    """A click on ``custom_id`` from ``channel_id`` (a forged copy when ``message`` is
    another channel's)."""
    payload = h.fake.click_payload(custom_id, user_id=user, name=NAMES.get(user),
                                   message=message, values=values, channel_id=channel_id)
    return await h.fake.dispatch(h.bot, payload)


def dm_channel_of(h: Harness, user: int) -> int:
    return next(c for c, u in h.fake.dm_channels.items() if u == user)


def as_dm(h: Harness, payload: dict[str, Any], user: int, dm: int,
          components: list[dict[str, Any]], message_id: int | None = None) -> dict[str, Any]:
    """``payload`` moved into ``user``'s DM with the bot: no guild, no member."""
    payload.pop("guild_id")
    payload.pop("member")
    payload["channel_id"] = str(dm)
    payload["user"] = user_payload(user, NAMES[user])
    payload["channel"] = {"id": str(dm), "type": 1, "recipients": [user_payload(user)]}
    payload["context"] = 1
    payload["authorizing_integration_owners"] = {"1": str(user)}
    payload["message"] = h.fake.message_payload(dm, {"components": components},
                                                 message_id=message_id)
    return payload


def dm_click(h: Harness, user: int, custom_id: str, components: list[dict[str, Any]],
             message_id: int | None = None, values: list[str] | None = None,
             dm: int | None = None) -> dict[str, Any]:
    dm = dm if dm is not None else dm_channel_of(h, user)
    payload = h.fake.click_payload(custom_id, user_id=user, values=values, channel_id=dm)
    return as_dm(h, payload, user, dm, components, message_id)


def changes(sent: list[Sent]) -> list[Sent]:
    """What a refused click must not have done: post, edit or open anything public."""
    return [s for s in sent if s.kind in ("channel_message", "edit_message", "edit_original")]


async def inn_started(h: Harness) -> TableInfo:
    """A Fairy Tale Inn game of Ann and Bob in the main channel."""
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    return await h.service.status(CHANNEL_ID)


async def winter_started(h: Harness, options: str = "interrupt_timeout=60") -> TableInfo:
    """A Winter Tales game of Ann, Bob and Carol (hands by DM) in the main channel."""
    await h.slash("table new", ANN, uname="Ann", game="winter-tales", options=options)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table join", CAROL, uname="Carol")
    await h.slash("table start", ANN, uname="Ann")
    return await h.service.status(CHANNEL_ID)


def seat_user(info: TableInfo, seat: int) -> int:
    user = next(s.user_id for s in info.seats if s.index == seat)
    assert user is not None
    return user


def hand_message_of(h: Harness, user: int) -> tuple[int, dict[str, Any]]:
    """(message id, latest payload) of the user's DM hand message."""
    first = next(s for s in h.fake.sent
                 if s.kind == "dm" and s.channel_id == user and "hand**" in s.content)
    latest = dict(first.payload)
    for s in h.fake.sent:
        if s.kind in EDITS and s.message_id == first.message_id:
            latest.update(s.payload)
    return first.message_id or 0, latest


async def refreshed_hand(h: Harness, user: int) -> tuple[int, dict[str, Any]]:
    """The user's DM hand message after its Refresh button: it shows their choices."""
    mid, payload = hand_message_of(h, user)
    refresh = next(c["custom_id"] for c in flat(payload["components"])
                   if c.get("custom_id", "").endswith(":refresh"))
    await h.fake.dispatch(h.bot, dm_click(h, user, refresh, payload["components"], mid))
    return hand_message_of(h, user)


def flat(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for row in components for c in row.get("components") or []]


# --------------------------------------------------------------------------- where a click counts


async def test_a_lobby_button_from_another_channel_changes_nothing(h: Harness) -> None:
    sent = await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    lobby = only(sent, "channel_message")
    info = await h.service.status(CHANNEL_ID)
    join = next(c for c in lobby.custom_ids if c.endswith(":lobby.join"))
    start = next(c for c in lobby.custom_ids if c.endswith(":lobby.start"))
    lobbies = dict(h.bot.delivery.lobbies.known)

    # The lobby's Join, copied to another channel: refused there, privately.
    sent = await click_in(h, join, BOB, ELSEWHERE, lobby)
    reply = answer(sent)
    assert reply.ephemeral and reply.content == OTHER_CHANNEL
    assert not changes(sent)
    after = await h.service.status(info.id)
    assert [s.user_id for s in after.seats] == [ANN] and after.status is TableStatus.LOBBY
    # not even which message is the lobby changed
    assert h.bot.delivery.lobbies.known == lobbies

    # In a DM too: lobby buttons are only ever on the table's channel message.
    payload = h.fake.click_payload(join, user_id=BOB, message=lobby, channel_id=ELSEWHERE)
    sent = await h.fake.dispatch(h.bot, as_dm(h, payload, BOB, 880000000000000001,
                                               lobby.components))
    assert answer(sent).content == OTHER_CHANNEL
    assert len((await h.service.status(info.id)).seats) == 1

    # In the table's channel the same button works.
    sent = await h.click(join, BOB, lobby, uname="Bob")
    assert [s.user_id for s in (await h.service.status(info.id)).seats] == [ANN, BOB]

    # The host's Start from elsewhere does not start the game.
    sent = await click_in(h, start, ANN, ELSEWHERE, lobby)
    assert answer(sent).content == OTHER_CHANNEL and not changes(sent)
    assert (await h.service.status(info.id)).status is TableStatus.LOBBY


async def test_a_game_button_from_another_channel_changes_nothing(h: Harness) -> None:
    info = await inn_started(h)
    mover = info.to_act_users[0]
    prompt = h.fake.last_prompt()
    enabled = next(b for b in prompt.buttons() if not b.get("disabled"))

    sent = await click_in(h, enabled["custom_id"], mover, ELSEWHERE, prompt)
    reply = answer(sent)
    assert reply.ephemeral and reply.content == OTHER_CHANNEL
    assert reply.response_type == 4  # refused at once, before anything waits
    assert not changes(sent)

    # A menu's choice (the move itself), forged onto a message of another channel.
    menu = answer(await h.click(enabled["custom_id"], mover, prompt))
    assert menu.ephemeral and menu.custom_ids
    sent = await click_in(h, menu.custom_ids[0], mover, ELSEWHERE)
    assert answer(sent).content == OTHER_CHANNEL and not changes(sent)
    assert (await h.service.status(info.id)).version == info.version

    # The same choice in the table's channel is the move.
    await h.click(menu.custom_ids[0], mover, menu)
    assert (await h.service.status(info.id)).version == info.version + 1


async def test_an_ephemeral_hand_shown_in_another_channel_still_plays(h: Harness) -> None:
    info = await inn_started(h)
    mover = info.to_act_users[0]
    # /hand elsewhere answers with the player's own table, only to them
    hand = answer(await h.slash("hand", mover, channel_id=ELSEWHERE))
    assert hand.ephemeral and hand.custom_ids
    guest = next(b for b in hand.buttons() if not b.get("disabled"))
    menu = answer(await click_in(h, guest["custom_id"], mover, ELSEWHERE, hand))
    assert OTHER_CHANNEL not in menu.content
    assert menu.ephemeral and menu.custom_ids  # which column: the next step, privately
    column = next(b for b in menu.buttons() if not b.get("disabled"))
    await click_in(h, column["custom_id"], mover, ELSEWHERE, menu)
    assert (await h.service.status(info.id)).version == info.version + 1


async def test_a_hand_button_in_a_dm_still_works(h: Harness) -> None:
    info = await winter_started(h)
    user = seat_user(info, info.to_act[0])
    mid, payload = await refreshed_hand(h, user)
    select = next(c for c in flat(payload["components"]) if c["type"] == 3)
    option = select["options"][0]["value"]
    sent = await h.fake.dispatch(h.bot, dm_click(
        h, user, select["custom_id"], payload["components"], mid, values=[option]))
    menu = answer(sent)
    assert OTHER_CHANNEL not in menu.content
    assert menu.ephemeral and menu.custom_ids  # the follow-up choice, privately
    choice = next(c for c in flat(menu.components)
                  if c["type"] == 3 or (c["type"] == 2 and not c.get("disabled")))
    values = [choice["options"][0]["value"]] if choice["type"] == 3 else None
    await h.fake.dispatch(h.bot, dm_click(h, user, choice["custom_id"], menu.components,
                                          values=values))
    assert (await h.service.status(info.id)).version == info.version + 1


async def test_someone_elses_hand_button_in_a_dm_names_nobody(h: Harness) -> None:
    info = await winter_started(h)
    user = seat_user(info, info.to_act[0])
    _mid, payload = await refreshed_hand(h, user)
    select = next(c for c in flat(payload["components"]) if c["type"] == 3)
    # The stranger puts the hand's custom_id on a message in their own DM.
    sent = await h.fake.dispatch(h.bot, dm_click(
        h, STRANGER, select["custom_id"], payload["components"], values=[
            select["options"][0]["value"]], dm=880000000000000002))
    text = reply_text(sent)
    assert OTHER_CHANNEL in text
    # the usual refusal says whose turn it is: not to someone outside the table
    assert not any(name in text for name in ("Ann", "Bob", "Carol"))
    assert (await h.service.status(info.id)).version == info.version


async def test_a_form_from_another_channel_is_refused_and_the_words_given_back(
        h: Harness) -> None:
    info = await winter_started(h)
    before = await h.service.public_view(CHANNEL_ID)
    payload = h.fake._base(5, CAROL, "Carol", 0, ELSEWHERE)
    payload["data"] = {"custom_id": f"fm:{info.id}:{info.version}:tell", "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "text", "value": NASTY}]}]}
    sent = await h.fake.dispatch(h.bot, payload)
    text = reply_text(sent)
    assert OTHER_CHANNEL in text and "Your words were not lost" in text
    assert all(s.ephemeral for s in sent if s.kind == "followup")
    # the words come back as text: no markdown, no mention, no masked link
    assert literal(NASTY) in text and NASTY not in text and not MASKED_LINK.search(text)
    after = await h.service.public_view(CHANNEL_ID)
    assert len(after.transcript) == len(before.transcript)
    assert (await h.service.status(info.id)).version == info.version
    assert not changes(sent)


# --------------------------------------------------------------------------- open tables


async def test_a_member_may_host_only_so_many_open_tables(h: Harness) -> None:
    # the bot sets the service's limits from its settings (3 per member, 50 per server)
    assert (h.service.max_tables_per_member, h.service.max_tables_per_guild) == (3, 50)
    rooms = [CHANNEL_ID + k for k in range(1, 5)]
    for room in rooms[:3]:
        sent = await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn",
                             channel_id=room)
        assert "is open" in answer(sent).content
    sent = await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn",
                         channel_id=rooms[3])
    reply = answer(sent)
    assert reply.ephemeral
    assert reply.content == (
        f"You already host 3 open tables in this server (<#{rooms[0]}>, <#{rooms[1]}>, "
        f"<#{rooms[2]}>): finish or abort one first.")
    assert not [s for s in sent if s.kind == "channel_message"]  # no lobby was posted
    with pytest.raises(NoTable):
        await h.service.status(rooms[3])
    assert await h.service.store.count_live_tables(guild_id=GUILD_ID, host_id=ANN) == 3

    # Somebody else may; and once Ann closes one, so may she.
    sent = await h.slash("table new", BOB, uname="Bob", game="fairy-tale-inn",
                         channel_id=rooms[3])
    assert "is open" in answer(sent).content
    await h.slash("table abort", ANN, channel_id=rooms[0])
    sent = await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn",
                         channel_id=rooms[0])
    assert "is open" in answer(sent).content


async def test_a_server_may_hold_only_so_many_open_tables(h: Harness) -> None:
    h.service.max_tables_per_guild = 2
    await h.slash("table new", ANN, uname="Ann", game="fairy-tale-inn")
    await h.slash("table new", BOB, uname="Bob", game="fairy-tale-inn",
                  channel_id=CHANNEL_ID + 1)
    sent = await h.slash("table new", CAROL, uname="Carol", game="fairy-tale-inn",
                         channel_id=CHANNEL_ID + 2)
    reply = answer(sent)
    assert reply.ephemeral
    assert reply.content == ("This server already has 2 open tables, the most it may have "
                             "at once: finish or abort one before opening another.")
    assert not [s for s in sent if s.kind == "channel_message"]
    assert await h.service.store.count_live_tables(guild_id=GUILD_ID) == 2


async def test_a_table_in_a_dm_counts_for_its_host_only(tmp_path: Path) -> None:
    service = await TableService.open_sqlite(tmp_path / "dm.db")
    try:
        service.max_tables_per_member = 1
        service.max_tables_per_guild = 1
        dm_one, dm_two, dm_three = 700000000000000001, 700000000000000002, 700000000000000003
        await service.create(dm_one, None, ANN, "Ann", "fairy-tale-inn")
        with pytest.raises(TooManyTables) as refused:
            await service.create(dm_two, None, ANN, "Ann", "fairy-tale-inn")
        assert str(refused.value) == (f"You already host 1 open table (<#{dm_one}>): finish "
                                      "or abort one first.")
        # DM tables are in no server: the server's limit does not count them
        await service.create(dm_three, None, BOB, "Bob", "fairy-tale-inn")
        await service.create(CHANNEL_ID, GUILD_ID, CAROL, "Carol", "fairy-tale-inn")
        assert await service.store.count_live_tables() == 3
    finally:
        await service.close()


# --------------------------------------------------------------------------- board re-posts


async def test_board_reposts_have_a_cooldown_per_member_and_table(h: Harness) -> None:
    info = await inn_started(h)
    cog = h.bot.get_cog("Inn")
    assert cog is not None
    cooldown: Cooldown = cog.reposts  # type: ignore[attr-defined]
    assert cooldown.seconds == 10.0  # REPOST_COOLDOWN's default
    now = [1000.0]
    cooldown.clock = lambda: now[0]

    first = await h.slash("inn board", ANN)
    posted = only(first, "channel_message")
    assert answer(first).content == "Here it is."
    again = await h.slash("inn board", ANN)
    reply = answer(again)
    assert reply.ephemeral and reply.content == "You can show the board again in 10 s."
    assert not changes(again)
    turn = await h.service.store.turn_message(info.id)
    assert turn is not None and turn.message_id == posted.message_id  # still the last post

    # Spectators may want the board too: someone without a seat may show it, once.
    spectator = await h.slash("inn board", CAROL)
    assert only(spectator, "channel_message")
    assert "again in" in answer(await h.slash("inn board", CAROL)).content

    now[0] += 4
    assert answer(await h.slash("inn board", ANN)).content == \
        "You can show the board again in 6 s."
    now[0] += 6
    assert only(await h.slash("inn board", ANN), "channel_message")
    assert (await h.service.status(info.id)).version == info.version


async def test_a_repost_that_could_not_be_posted_does_not_count(h: Harness) -> None:
    await inn_started(h)
    h.fake.fail_channel_posts = True
    assert answer(await h.slash("inn board", ANN)).content == CANNOT_POST
    h.fake.fail_channel_posts = False
    assert only(await h.slash("inn board", ANN), "channel_message")


# --------------------------------------------------------------------------- text shown as text


async def test_lines_and_veils_are_shown_as_text(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game="winter-tales",
                  options=f"interrupt_timeout=60 lines='{NASTY}' veils='none'")
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table join", CAROL, uname="Carol")
    sent = await h.slash("table start", ANN, uname="Ann")
    start = next(s for s in sent if s.kind == "channel_message" and "Table safety" in s.content)
    content = h.fake.current(start).content
    assert literal(NASTY) in content
    assert NASTY not in content and "**bold**" not in content
    assert not MASKED_LINK.search(content)
    assert "@everyone" not in content and "<@&123456789012345678>" not in content
    assert "**Table safety.**" in content  # the bot's own markup still works
    assert "everyone" not in start.payload["allowed_mentions"].get("parse", [])
    assert "roles" not in start.payload["allowed_mentions"].get("parse", [])
    # stored as typed: escaping is the Discord edge's business, not the game's
    view = await h.service.public_view(CHANNEL_ID)
    assert view.lines == [NASTY]
    # /winter help quotes them the same way
    assert literal(NASTY) in answer(await h.slash("winter help", BOB)).content


async def test_an_arbiter_note_is_shown_as_text(h: Harness) -> None:
    info = await winter_started(h)
    view = await h.service.public_view(CHANNEL_ID)
    arbiter = seat_user(info, view.arbiter)
    teller = next(u for u in (ANN, BOB, CAROL) if u != arbiter)
    await h.slash("winter tell", teller, text="A passage the table dislikes.")
    view = await h.service.public_view(CHANNEL_ID)
    entry = next(e for e in reversed(view.transcript)
                 if e.text == "A passage the table dislikes.")
    sent = await h.slash("winter arbiter strike", arbiter, entry=entry.n, note=NASTY)
    public = [h.fake.current(s).content for s in sent if s.kind == "channel_message"]
    ruling = next(c for c in public if "Story Arbiter" in c)
    assert literal(NASTY) in ruling and NASTY not in ruling and not MASKED_LINK.search(ruling)
    # the log quotes it the same way, to whoever asks
    log = answer(await h.slash("table log", BOB))
    assert literal(NASTY) in log.content and NASTY not in log.content


async def test_seat_names_are_shown_as_text(h: Harness) -> None:
    """A seat name as the service holds it (typed in another front end, with none of
    Discord's cleaning) reaches Discord as text: in the lobby, the start message, the
    status and the hand message."""
    nasty_name = "*Carol* [me](https://evil.example)"
    await h.slash("table new", ANN, uname="Ann", game="winter-tales",
                  options="interrupt_timeout=60")
    await h.slash("table join", BOB, uname="Bob")
    await h.service.join(CHANNEL_ID, CAROL, nasty_name)
    sent = await h.slash("table start", ANN, uname="Ann")
    start = next(s for s in sent if s.kind == "channel_message" and "Seating" in s.content)
    assert literal(nasty_name) in start.content and not MASKED_LINK.search(start.content)
    status = answer(await h.slash("table status", BOB))
    assert literal(nasty_name) in status.content and nasty_name not in status.content
    _mid, payload = hand_message_of(h, CAROL)
    assert literal(nasty_name) in payload["content"]
    assert not MASKED_LINK.search(payload["content"])
    assert "**Winter Tales — " in payload["content"]  # the adapter's own bold
    info = await h.service.status(CHANNEL_ID)
    assert info.seat_of(CAROL) is not None and info.seat_of(CAROL).name == nasty_name


async def test_random_clicks_from_elsewhere_never_move_a_game(h: Harness) -> None:
    """Every button and select the bot showed at this table, clicked from another
    channel by anyone: refused each time, and the game stays where it was."""
    info = await inn_started(h)
    rng = random.Random(3)
    shown = [s for s in h.fake.sent if s.custom_ids]
    for _ in range(20):
        message = rng.choice(shown)
        custom_id = rng.choice(message.custom_ids)
        user = rng.choice([ANN, BOB, CAROL, STRANGER])
        values = ["a0"] if custom_id.startswith("fs:") else None
        sent = await click_in(h, custom_id, user, ELSEWHERE, None, values)
        assert OTHER_CHANNEL in reply_text(sent), (custom_id, sent)
        assert not changes(sent)
    after = await h.service.status(info.id)
    assert (after.version, after.status) == (info.version, info.status)
