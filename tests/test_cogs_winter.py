"""Winter Tales on Discord through the real command tree (tests/discord_fakes.py).

Three people (Ann, Bob, Carol) play; the service is driven directly to reach a moment
quickly, and everything a player does is a real interaction payload: slash commands,
autocomplete, clicks in the channel, in DMs (no guild) and on ephemeral messages, and
modal submits.
"""

from __future__ import annotations

import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import bot.messages.delivery.order as delivery_order
from bot.core.choices.winter_tales import WinterUI
from bot.core.tables import interrupt_timeout
from engines.winter_tales.content import load_content
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
    make_harness,
    reply_text,
    user_payload,
)

PEOPLE = {ANN: "Ann", BOB: "Bob", CAROL: "Carol"}
CARDS = {c.id: c.title for c in load_content().story_cards}


@pytest.fixture
async def h(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # Moves made straight through the service (to reach a moment fast) are never
    # announced; the next announcement need not wait for them.
    monkeypatch.setattr(delivery_order.TableOrder, "WAIT", 0.01)
    harness = await make_harness(tmp_path / "w.sqlite3", seed=11)
    yield harness
    await close_harness(harness)


async def open_table(h: Harness, options: str = "interrupt_timeout=60 lines='spiders; gore'"
                     ) -> Any:
    await h.slash("table new", ANN, uname="Ann", game="winter-tales", options=options)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table join", CAROL, uname="Carol")
    sent = await h.slash("table start", ANN, uname="Ann")
    return sent


async def info(h: Harness) -> Any:
    return await h.service.status(CHANNEL_ID)


def seat_user(i: Any, seat: int) -> int:
    return next(s.user_id for s in i.seats if s.index == seat)


def user_seat(i: Any, user: int) -> int:
    return next(s.index for s in i.seats if s.user_id == user)


async def hand_ids(h: Harness, user: int) -> set[str]:
    view = await h.service.private_view(CHANNEL_ID, user)
    return {c.id for c in view.hand or []}


async def drive(h: Harness, until: Any, rng: random.Random, limit: int = 3000) -> Any:
    """Random legal moves through the service until ``until(info, view)`` holds."""
    for _ in range(limit):
        i = await info(h)
        view = await h.service.public_view(CHANNEL_ID)
        if await until(i, view):
            return i
        assert i.to_act, "the game ended before the moment was reached"
        user = seat_user(i, rng.choice(list(i.to_act)))
        legal = await h.service.legal_actions(CHANNEL_ID, user)
        await h.service.act(CHANNEL_ID, user, rng.choice(legal))
    raise AssertionError("moment not reached")


async def dealt(h: Harness, seed: int = 1) -> Any:
    """Play the draft and setup quickly (hands are dealt once characters are placed), then
    let the cog bring every DM hand message up to date, as a delivery would."""

    async def hands_dealt(i: Any, view: Any) -> bool:
        return all(n > 0 for n in view.hand_counts) and view.chapter >= 1

    i = await drive(h, hands_dealt, random.Random(seed))
    await refresh(h)
    return i


async def refresh(h: Harness) -> None:
    i = await info(h)
    snapshot = await h.service.table_snapshot(i.id)
    assert snapshot is not None
    await h.bot.delivery.refresh_hands(snapshot)
    await h.fake.settle()


def dm_messages(h: Harness, user: int) -> list[Sent]:
    return [s for s in h.fake.sent if s.kind == "dm" and s.channel_id == user]


def dm_channel_of(h: Harness, user: int) -> int:
    return next(c for c, u in h.fake.dm_channels.items() if u == user)


def hand_message_of(h: Harness, user: int) -> tuple[int, dict[str, Any]]:
    """(message id, latest payload) of the user's DM hand message (sent, then edited)."""
    first = next(s for s in dm_messages(h, user) if "hand**" in s.content)
    latest = first.payload
    for s in h.fake.sent:
        if s.kind in EDITS and s.message_id == first.message_id:
            latest = {**latest, **s.payload}
    return first.message_id or 0, latest


def dm_click_payload(h: Harness, user: int, custom_id: str, message_id: int,
                     components: list[dict[str, Any]], values: list[str] | None = None
                     ) -> dict[str, Any]:
    """A click in a DM: no guild, no member, a private channel."""
    dm = dm_channel_of(h, user)
    payload = h.fake.click_payload(custom_id, user_id=user, values=values, channel_id=dm)
    payload.pop("guild_id")
    payload.pop("member")
    payload["user"] = user_payload(user, PEOPLE[user])
    payload["channel"] = {"id": str(dm), "type": 1, "recipients": [user_payload(user)]}
    payload["context"] = 1
    payload["authorizing_integration_owners"] = {"1": str(user)}
    payload["message"] = h.fake.message_payload(dm, {"components": components},
                                                 message_id=message_id)
    return payload


async def refreshed_hand(h: Harness, user: int) -> tuple[int, dict[str, Any]]:
    """The user's DM hand message after its Refresh button: it shows their choices."""
    mid, payload = hand_message_of(h, user)
    refresh = next(c["custom_id"] for c in components_of(payload)
                   if c["custom_id"].endswith(":refresh"))
    await h.fake.dispatch(h.bot, dm_click_payload(h, user, refresh, mid,
                                                  payload["components"]))
    return hand_message_of(h, user)


def components_of(payload: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for row in payload.get("components") or []:
        out.extend(row.get("components") or [])
    return out


def first_choice(components: list[dict[str, Any]]) -> tuple[str, list[str] | None]:
    """The first enabled choice of a message: (custom_id, select values or None)."""
    for c in components_of({"components": components}):
        if c["type"] == 3:
            return c["custom_id"], [c["options"][0]["value"]]
        if c["type"] == 2 and not c.get("disabled") and not c["custom_id"].endswith(":tell"):
            return c["custom_id"], None
    raise AssertionError("no choice offered")


def secret_titles_of_others(hands: dict[int, set[str]], user: int) -> set[str]:
    mine = hands[user]
    return {CARDS[c] for u, ids in hands.items() if u != user for c in ids if c not in mine}


# --------------------------------------------------------------------------- tests


async def test_table_options_split_rules_from_settings(h: Harness) -> None:
    from bot.core.tables import BadOptions

    typed = WinterUI().table_options({"skill": True, "interrupt_timeout": 30})
    opts, settings = h.service.split_settings("winter-tales", typed)
    assert settings == {"interrupt_timeout": 30.0} and opts is not None and opts["skill"] is True
    assert opts["lines"] == load_content().setup.safety.lines  # the house lines by default
    with pytest.raises(BadOptions, match="interrupt_timeout"):
        h.service.split_settings("winter-tales", {"interrupt_timeout": -1})
    with pytest.raises(BadOptions, match="seconds"):
        h.service.split_settings("winter-tales", {"interrupt_timeout": "soon"})
    # a game without optional decisions has no such setting: the option is refused
    assert h.service.split_settings("treasure", {"interrupt_timeout": 5})[1] == {}


async def test_start_shows_lines_and_veils_and_deals_hands_by_dm(h: Harness) -> None:
    await open_table(h)
    public = h.fake.channel_messages()[-1]
    for user in PEOPLE:
        assert len(dm_messages(h, user)) == 1  # the hand message, even before the deal
    await dealt(h)
    assert "Lines" in public.content and "spiders; gore" in public.content
    assert "Veils" in public.content and "/winter xcard" in public.content
    ids = public.custom_ids
    assert ids and all(cid.endswith((":turn", ":tell")) for cid in ids), ids
    i = await info(h)
    assert i.options["lines"] == ["spiders", "gore"]
    hands = {u: await hand_ids(h, u) for u in PEOPLE}
    for user in PEOPLE:
        dms = dm_messages(h, user)
        assert len(dms) == 1, dms  # one hand message each, edited since
        assert dms[0].files and dms[0].files[0][1][:4] == b"\x89PNG"
        _mid, dm = hand_message_of(h, user)
        dm = Sent("dm", "PATCH", "", dm)
        for card in hands[user]:
            assert CARDS[card] in dm.content
        for title in secret_titles_of_others(hands, user):
            assert title not in dm.content
        for title in secret_titles_of_others(hands, user) | {CARDS[c] for c in hands[user]}:
            assert title not in public.content


async def test_hand_is_ephemeral_and_autocomplete_lists_only_own_cards(h: Harness) -> None:
    await open_table(h)
    await dealt(h)
    sent = await h.slash("winter hand", BOB, uname="Bob")
    assert sent[0].response_type == 5 and sent[0].ephemeral  # deferred, privately
    follow = [s for s in sent if s.kind == "followup"]
    assert len(follow) == 1 and follow[0].ephemeral and follow[0].files
    mine = await hand_ids(h, BOB)
    for card in mine:
        assert CARDS[card] in follow[0].content
    for user in PEOPLE:
        got = await h.autocomplete("winter tell", user, "card", text="x", card="")
        values = {c["value"] for c in got.data["choices"]}
        assert values == await hand_ids(h, user)
    # typing filters, still within one's own hand
    one = next(iter(mine))
    got = await h.autocomplete("winter tell", BOB, "card", text="x", card=CARDS[one][:8])
    assert one in {c["value"] for c in got.data["choices"]}
    assert {c["value"] for c in got.data["choices"]} <= mine
    # someone without a seat gets nothing
    stranger = 444000000000000004
    got = await h.autocomplete("winter tell", stranger, "card", text="x", card="")
    assert got.data["choices"] == []


async def test_dm_click_finds_its_table_and_the_hand_message_is_edited(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    user = seat_user(i, i.to_act[0])
    mid, payload = await refreshed_hand(h, user)
    comps = components_of(payload)
    select = next(c for c in comps if c["type"] == 3)
    option = select["options"][0]["value"]
    sent = await h.fake.dispatch(h.bot, dm_click_payload(
        h, user, select["custom_id"], mid, payload["components"], values=[option]))
    menu = answer(sent)
    assert menu.ephemeral and menu.custom_ids  # the follow-up choice, privately
    before = (await info(h)).version
    cid, values = first_choice(menu.components)
    sent = await h.fake.dispatch(h.bot, dm_click_payload(
        h, user, cid, mid, menu.components, values=values))
    after = await info(h)
    assert after.version == before + 1
    # the hand message was edited in place (on the click's own token), never sent again
    edits = [s for s in sent if s.kind in EDITS and s.message_id == mid]
    assert edits and all(s.token for s in edits), sent
    assert len([s for s in dm_messages(h, user) if "hand**" in s.content]) == 1
    # a stale click (older version) in the DM changes nothing
    stale = await h.fake.dispatch(h.bot, dm_click_payload(
        h, user, cid, mid, menu.components, values=values))
    assert "older moment" in reply_text(stale) or "older turn" in reply_text(stale)
    assert (await info(h)).version == after.version
    # ... and brings the clicked DM hand to the moment of now, on the click's token
    fresh = [s for s in stale if s.kind in EDITS and s.message_id == mid]
    assert fresh and all(s.token for s in fresh), stale
    _mid, now = hand_message_of(h, user)
    assert all(c["custom_id"].split(":")[2] == str(after.version)
               for c in components_of(now) if c["custom_id"].count(":") >= 3), now


async def test_foreign_and_spectator_clicks_are_refused(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    actor = seat_user(i, i.to_act[0])
    other = next(u for u in PEOPLE if u != actor)
    code = f"ft:{i.id}:{i.version}:a0"
    sent = await h.click(code, other)
    assert "not your turn" in reply_text(sent)
    sent = await h.click(code, 444000000000000004)
    assert "do not have a seat" in reply_text(sent)
    turn = await h.click(f"ft:{i.id}:{i.version}:turn", other)
    assert "not your turn" in reply_text(turn)
    assert (await info(h)).version == i.version


async def test_take_your_turn_opens_the_private_panel(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    actor = seat_user(i, i.to_act[0])
    sent = await h.click(f"ft:{i.id}:{i.version}:turn", actor)
    follow = [s for s in sent if s.kind == "followup"]
    assert follow and follow[0].ephemeral and follow[0].custom_ids
    assert all(f":{i.version}:" in cid for cid in follow[0].custom_ids)


async def test_tell_button_opens_a_modal_and_the_passage_is_told(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    sent = await h.click(f"ft:{i.id}:{i.version}:tell", CAROL)
    modal = next(s for s in sent if s.kind == "callback")
    assert modal.response_type == 9
    cid = modal.data["custom_id"]
    # a form has its own custom_id (table, version, code): nothing of it lives in memory
    assert cid == f"fm:{i.id}:{i.version}:tell"
    payload = h.fake._base(5, CAROL, "Carol", 0, CHANNEL_ID)
    long = "The snow fell on Wintertown. " * 40
    payload["data"] = {"custom_id": cid, "components": [
        {"type": 1, "components": [{"type": 4, "custom_id": "text", "value": long}]}]}
    sent = await h.fake.dispatch(h.bot, payload)
    assert "in the story" in reply_text(sent)
    view = await h.service.public_view(CHANNEL_ID)
    told = [e for e in view.transcript if e.text == long.strip()]
    assert told and told[0].seat == user_seat(i, CAROL)


async def test_tell_plays_a_card_with_its_sentence(h: Harness) -> None:
    await open_table(h)
    rng = random.Random(3)

    async def can_play(i: Any, view: Any) -> bool:
        for seat in i.to_act:
            legal = await h.service.legal_actions(CHANNEL_ID, seat_user(i, seat))
            if any(a.kind == "play_card" for a in legal):
                return True
        return False

    i = await drive(h, can_play, rng)
    for seat in i.to_act:
        user = seat_user(i, seat)
        legal = await h.service.legal_actions(CHANNEL_ID, user)
        plays = [a for a in legal if a.kind == "play_card"]
        if plays:
            break
    # a card not in one's hand is refused, with nothing changed
    other = next(u for u in PEOPLE if u != user)
    foreign = next(iter(await hand_ids(h, other) - await hand_ids(h, user)))
    sent = await h.slash("winter tell", user, text="A try.", card=foreign)
    assert "not in your hand" in reply_text(sent)
    assert (await info(h)).version == i.version
    play = plays[0]
    sides = {a.side for a in plays if a.card == play.card}
    options: dict[str, Any] = {"text": "The lantern swung in the wind.", "card": play.card}
    if len(sides) > 1:
        sent = await h.slash("winter tell", user, **options)
        assert "choose the side" in reply_text(sent)
        options["side"] = play.side
    sent = await h.slash("winter tell", user, **options)
    assert "Told with" in reply_text(sent)
    view = await h.service.public_view(CHANNEL_ID)
    entry = next(e for e in reversed(view.transcript) if e.card == play.card)
    assert entry.text == "The lantern swung in the wind." and entry.side == play.side


async def test_story_export_mid_game_has_nothing_private(h: Harness) -> None:
    await open_table(h)
    rng = random.Random(5)

    async def chapter_going(i: Any, view: Any) -> bool:
        return view.chapter >= 1 and len(view.transcript) > 12

    await drive(h, chapter_going, rng)
    await h.slash("winter tell", ANN, text="Snow lay on the roofs.")
    sent = await h.slash("winter story", BOB)
    follow = next(s for s in sent if s.kind == "followup")
    assert follow.ephemeral
    names = sorted(n for n, _ in follow.files)
    assert [n.rsplit(".", 1)[1] for n in names] == ["html", "json", "md"]
    view = await h.service.public_view(CHANNEL_ID)
    played = {e.card for e in view.transcript if e.card}
    hands = {u: await hand_ids(h, u) for u in PEOPLE}
    secret = {CARDS[c] for ids in hands.values() for c in ids if c not in played}
    objectives = {o.title for o in (await h.service.private_view(CHANNEL_ID, ANN)).objectives}
    for name, data in follow.files:
        text = data.decode()
        assert "Snow lay on the roofs." in text
        for title in secret | objectives:
            assert title not in text, (name, title)


async def test_arbiter_tools_only_for_the_arbiter_and_announced(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    view = await h.service.public_view(CHANNEL_ID)
    arbiter = seat_user(i, view.arbiter)
    other = next(u for u in PEOPLE if u != arbiter)
    await h.slash("winter tell", other, text="A passage the table dislikes.")
    view = await h.service.public_view(CHANNEL_ID)
    entry = next(e for e in reversed(view.transcript) if e.text == "A passage the table dislikes.")
    refused = await h.slash("winter arbiter strike", other, entry=entry.n)
    assert "Only the Story Arbiter" in reply_text(refused)
    assert (await info(h)).version == i.version + 1
    sent = await h.slash("winter arbiter strike", arbiter, entry=entry.n, note="off the lines")
    assert "struck" in reply_text(sent)
    public = [s for s in sent if s.kind == "channel_message"]
    assert public and "struck" in public[0].content and "Story Arbiter" in public[0].content
    view = await h.service.public_view(CHANNEL_ID)
    assert all(e.text != "A passage the table dislikes." for e in view.transcript)
    log = await h.service.history(CHANNEL_ID)
    assert any("struck" in line for line in log)
    for sub, opts in (("winter arbiter retell", {"entry": 0}),
                      ("winter arbiter bookmark", {"made": False}),
                      ("winter arbiter count", {"faction": "spring", "delta": 1}),
                      ("winter arbiter figure", {"character": "alice", "space": "oaks_park"})):
        refused = await h.slash(sub, other, **opts)
        assert "Only the Story Arbiter" in reply_text(refused), sub


async def test_x_card_is_anonymous(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    view = await h.service.public_view(CHANNEL_ID)
    arbiter = seat_user(i, view.arbiter)
    teller = next(u for u in PEOPLE if u != arbiter)
    raiser = next(u for u in PEOPLE if u not in (arbiter, teller))
    await h.slash("winter tell", teller, text="Something nobody wanted.")
    dms_before = len(dm_messages(h, arbiter))
    sent = await h.slash("winter xcard", raiser, uname=PEOPLE[raiser])
    replies = [s for s in sent if s.kind in ("callback", "followup")]
    assert replies and all(s.ephemeral for s in replies)
    assert "nobody is told who" in reply_text(sent)
    public = [s for s in sent if s.kind == "channel_message"]
    assert public and "X-card" in public[0].content
    xline = next(line for line in public[0].content.splitlines() if "X-card" in line)
    assert PEOPLE[raiser] not in xline and str(raiser) not in public[0].content.split("\n")[0]
    new_dms = dm_messages(h, arbiter)[dms_before:]
    assert any("X-card" in s.content for s in new_dms)
    assert all(PEOPLE[raiser] not in s.content for s in new_dms)
    view = await h.service.public_view(CHANNEL_ID)
    hidden = next(e for e in view.transcript if e.seat == user_seat(i, teller) and e.hidden)
    assert hidden.text is None
    sent = await h.slash("winter story", CAROL, format="md")
    md = next(s for s in sent if s.kind == "followup").files[0][1].decode()
    assert "Something nobody wanted." not in md
    retold = await h.slash("winter retell", teller, entry=hidden.n, text="Another way.")
    assert "retold" in reply_text(retold)


async def test_undecided_interrupt_passes_after_the_timeout(h: Harness) -> None:
    await open_table(h)
    rng = random.Random(9)

    async def optional_open(i: Any, view: Any) -> bool:
        return bool(view.optional)

    i = await drive(h, optional_open, rng)
    assert interrupt_timeout(i) == 60.0
    early = await h.service.due_auto_passes()
    assert early == []
    later = h.service.clock() + timedelta(seconds=61)
    outboxes = await h.service.due_auto_passes(now=later)
    assert outboxes and "did not decide in time" in outboxes[0].public.text
    assert (await info(h)).version > i.version
    actions = await h.service.store.actions(i.id)
    assert actions[-1].user_id is None and '"pass"' in actions[-1].action


async def test_winter_commands_elsewhere_explain_themselves(h: Harness) -> None:
    sent = await h.slash("winter hand", ANN)
    assert "no Winter Tales table" in reply_text(sent)
    await h.slash("table new", ANN, uname="Ann", game="treasure")
    sent = await h.slash("winter tell", ANN, text="hello")
    assert "not Winter Tales" in reply_text(sent)
    sent = await h.slash("winter help", BOB)
    assert "/winter tell" in reply_text(sent)


async def test_closed_dms_get_one_nudge_and_the_ephemeral_hand_still_works(h: Harness) -> None:
    h.fake.closed_dms.add(BOB)
    await open_table(h)
    nudges = [s for s in h.fake.channel_messages() if f"<@{BOB}>" in s.content
              and "/hand" in s.content]
    assert len(nudges) == 1
    assert await h.bot.delivery.dms.closed(BOB)
    await dealt(h)
    assert len([s for s in h.fake.channel_messages() if "/hand" in s.content
                and f"<@{BOB}>" in s.content]) == 1  # no nudge on every change
    sent = await h.slash("winter hand", BOB)
    follow = next(s for s in sent if s.kind == "followup")
    assert follow.ephemeral
    for card in await hand_ids(h, BOB):
        assert CARDS[card] in follow.content


async def test_hand_message_ids_survive_a_restart(h: Harness, tmp_path: Path) -> None:
    from bot.core.store import SqliteStore

    await open_table(h)
    i = await info(h)
    before = {m.user_id: m.message_id for m in await h.service.store.hand_messages(i.id)}
    assert set(before) == set(PEOPLE)
    again = SqliteStore(tmp_path / "w.sqlite3")
    await again.open()
    try:
        assert {m.user_id: m.message_id for m in await again.hand_messages(i.id)} == before
        table = await again.get_table(i.id)
        assert table is not None and table.settings == {"interrupt_timeout": 60.0}
        last = await again.last_table_in_channel(CHANNEL_ID)
        assert last is not None and last.id == i.id
    finally:
        await again.close()


async def test_story_export_after_the_end_and_the_storybook_posted(h: Harness) -> None:
    await open_table(h, options="interrupt_timeout=0")
    rng = random.Random(4)
    i = await info(h)
    for _ in range(4000):
        user = seat_user(i, rng.choice(list(i.to_act)))
        legal = await h.service.legal_actions(i.id, user)
        outbox = await h.service.act(i.id, user, rng.choice(legal))
        i = outbox.table
        if i.status.value == "finished":
            break
    await h.bot.delivery.deliver(outbox)  # the last move is announced as a move would be
    await h.fake.settle()
    book = next(s for s in h.fake.channel_messages() if "storybook" in s.content)
    assert sorted(n.rsplit(".", 1)[1] for n, _ in book.files) == ["html", "json", "md"]
    assert interrupt_timeout(outbox.table) is None  # 0 = never
    sent = await h.slash("winter story", CAROL, format="json")
    follow = next(s for s in sent if s.kind == "followup")
    assert follow.files and follow.files[0][0].endswith(".json")
    assert b'"winner"' in follow.files[0][1] or b"winner" in follow.files[0][1]
    # issue 23: a command for a game in play says the game is over (not "no table")
    for command, user in (("winter board", CAROL), ("winter hand", seat_user(i, 0)),
                          ("winter xcard", seat_user(i, 1))):
        text = reply_text(await h.slash(command, user))
        assert "This game is over" in text and "/table new" in text, (command, text)


# --------------------------------------------------------------------------- the Arbiter's rulings


async def true_state(h: Harness) -> Any:
    """The engine state as the service holds it (to check what views must not show)."""
    async with h.service._locked(CHANNEL_ID) as t:
        return t.state


async def quest_with_bookmark(h: Harness, seed: int) -> Any:
    """Drive to an Ongoing Quest, not yet counted, with the Bookmark on the Memory Track."""
    from engines.winter_tales import quests

    async def moment(i: Any, view: Any) -> bool:
        state = await true_state(h)
        q = quests.ongoing_frame(state)
        return q is not None and q.result is None and state.bookmark is not None

    return await drive(h, moment, random.Random(seed))


def ruling_posts(sent: list[Sent]) -> list[Sent]:
    return [s for s in sent if s.kind == "channel_message" and "Story Arbiter" in s.content]


async def test_arbiter_retell_hides_the_passage_asks_its_author_and_is_announced(
        h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    arbiter = seat_user(i, (await h.service.public_view(CHANNEL_ID)).arbiter)
    author = next(u for u in PEOPLE if u != arbiter)
    await h.slash("winter tell", author, text="The wolf ate the moon whole.")
    view = await h.service.public_view(CHANNEL_ID)
    entry = next(e for e in view.transcript if e.text == "The wolf ate the moon whole.")
    dms_before = len(dm_messages(h, author))
    sent = await h.slash("winter arbiter retell", arbiter, entry=entry.n, note="too grim")
    assert f"#{entry.n} is to be retold" in reply_text(sent)
    post = ruling_posts(sent)
    assert post and f"passage #{entry.n} is to be retold" in post[0].content
    assert "too grim" in post[0].content
    assert "The wolf ate the moon whole." not in post[0].content
    view = await h.service.public_view(CHANNEL_ID)
    assert view.transcript[entry.n].hidden and view.transcript[entry.n].text is None
    asked = [s for s in dm_messages(h, author)[dms_before:] if "asks you to retell" in s.content]
    assert len(asked) == 1 and f"#{entry.n}" in asked[0].content
    # the author sees their passage offered for retelling, and retells it
    got = await h.autocomplete("winter retell", author, "entry", text="x", entry="")
    assert entry.n in {c["value"] for c in got.data["choices"]}
    sent = await h.slash("winter retell", author, entry=entry.n, text="The wolf sang to the moon.")
    assert "retold" in reply_text(sent)
    view = await h.service.public_view(CHANNEL_ID)
    assert view.transcript[entry.n].text == "The wolf sang to the moon."
    assert not view.transcript[entry.n].hidden


async def test_arbiter_strike_leaves_exports_but_not_the_audit_log(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    arbiter = seat_user(i, (await h.service.public_view(CHANNEL_ID)).arbiter)
    author = next(u for u in PEOPLE if u != arbiter)
    await h.slash("winter tell", author, text="A line across the table's lines.")
    await h.slash("winter tell", author, text="A gentler line that stays.")
    view = await h.service.public_view(CHANNEL_ID)
    entry = next(e for e in view.transcript if e.text == "A line across the table's lines.")
    sent = await h.slash("winter arbiter strike", arbiter, entry=entry.n, note="a line")
    post = ruling_posts(sent)
    assert post and f"passage #{entry.n} is struck" in post[0].content
    # gone from every export and from the entry autocomplete...
    sent = await h.slash("winter story", CAROL)
    files = dict(next(s for s in sent if s.kind == "followup").files)
    assert len(files) == 3
    for name, data in files.items():
        text = data.decode()
        assert "A line across the table's lines." not in text, name
        assert "A gentler line that stays." in text, name
        assert f"passage #{entry.n} is struck" in text, name  # the ruling itself is told
    got = await h.autocomplete("winter arbiter strike", arbiter, "entry", entry="")
    assert entry.n not in {c["value"] for c in got.data["choices"]}
    # ...but kept for the table's audit: the event history and the stored move
    assert any(f"passage #{entry.n} is struck" in line for line in await h.service.history(i.id))
    sent = await h.slash("table log", CAROL)
    assert f"passage #{entry.n} is struck" in reply_text(sent)  # what players can read back
    state = await true_state(h)
    kept = state.transcript[entry.n]
    assert kept.struck and kept.text == "A line across the table's lines."
    stored = [a.action for a in await h.service.store.actions(i.id)]
    assert any("A line across the table's lines." in a for a in stored)
    # striking it again is refused, with nothing changed
    version = (await info(h)).version
    again = await h.slash("winter arbiter strike", arbiter, entry=entry.n)
    assert "already struck" in reply_text(again)
    assert (await info(h)).version == version


async def test_arbiter_no_link_bookmark_ruling_fails_the_quest(h: Harness) -> None:
    from engines.winter_tales import quests

    await open_table(h)
    i = await info(h)
    arbiter = seat_user(i, (await h.service.public_view(CHANNEL_ID)).arbiter)
    early = await h.slash("winter arbiter bookmark", arbiter, made=False)
    assert "no Ongoing Quest with a Bookmark" in reply_text(early)  # nothing to rule on yet
    assert (await info(h)).version == i.version
    i = await quest_with_bookmark(h, seed=2)
    view = await h.service.public_view(CHANNEL_ID)
    arbiter = seat_user(i, view.arbiter)
    state = await true_state(h)
    frame = quests.ongoing_frame(state)
    quest, acting = frame.quest, frame.faction
    opposing = "winter" if acting == "spring" else "spring"
    sent = await h.slash("winter arbiter bookmark", arbiter, made=False, note="no link")
    assert "Bookmark" in reply_text(sent)
    post = ruling_posts(sent)
    assert post and "Bookmark link was not made" in post[0].content
    assert quests.ongoing_frame(await true_state(h)).link_ok is False
    # play on: whatever the cards say, the count fails the Quest for its faction

    async def counted(i: Any, view: Any) -> bool:
        return any(e.kind == "quest" and "Bookmark link was not made" in (e.text or "")
                   for e in view.transcript)

    await drive(h, counted, random.Random(7))
    state = await true_state(h)
    line = next(e.text for e in state.transcript
                if e.kind == "quest" and "Bookmark link was not made" in (e.text or ""))
    assert load_content().quest(quest).name in line
    frame = quests.ongoing_frame(state)
    assert frame is not None and frame.quest == quest and frame.result == opposing
    memories = len(state.memories)

    async def remembered(i: Any, view: Any) -> bool:
        return len(view.memories) > memories

    view_i = await drive(h, remembered, random.Random(8))
    assert view_i is not None
    new = (await h.service.public_view(CHANNEL_ID)).memories
    assert [m.faction for m in new if m.slot not in {x.slot for x in state.memories}] == [
        opposing]


async def test_arbiter_figure_correction_shows_on_the_board(h: Harness) -> None:
    await dealt_table(h)
    i = await info(h)
    view = await h.service.public_view(CHANNEL_ID)
    arbiter = seat_user(i, view.arbiter)
    fig = next(f for f in view.figures if f.space is not None and not f.removed)
    space = next(s.id for s in load_content().map.spaces if s.id != fig.space)
    renders = len(h.rendered)
    sent = await h.slash("winter arbiter figure", arbiter, character=fig.id, space=space,
                         incapacitated=True, note="we all saw it fall")
    assert "figure is corrected" in reply_text(sent)
    post = ruling_posts(sent)
    assert post and "we all saw it fall" in post[0].content and "incapacitated" in post[0].content
    after = next(f for f in (await h.service.public_view(CHANNEL_ID)).figures if f.id == fig.id)
    assert after.space == space and after.incapacitated
    # a new board picture, drawn from a view with the figure where the Arbiter put it
    assert len(h.rendered) > renders
    drawn = next(f for f in h.rendered[-1][1].figures if f.id == fig.id)
    assert drawn.space == space and drawn.incapacitated
    assert any(s.files for s in sent if s.kind == "channel_message")


async def test_arbiter_count_correction_changes_the_running_count(h: Harness) -> None:
    await open_table(h)
    i = await quest_with_bookmark(h, seed=3)
    view = await h.service.public_view(CHANNEL_ID)
    arbiter = seat_user(i, view.arbiter)
    before = dict(view.ongoing_count)
    sent = await h.slash("winter arbiter count", arbiter, faction="winter", delta=1,
                         note="a card was missed")
    assert "count is corrected" in reply_text(sent)
    post = ruling_posts(sent)
    assert post and "winter count is corrected by +1" in post[0].content
    after = (await h.service.public_view(CHANNEL_ID)).ongoing_count
    assert after == {**before, "winter": before["winter"] + 1}
    sent = await h.slash("winter arbiter count", arbiter, faction="spring", delta=-1)
    after = (await h.service.public_view(CHANNEL_ID)).ongoing_count
    assert after == {"spring": before["spring"] - 1, "winter": before["winter"] + 1}
    log = await h.service.history(i.id)
    assert sum("count is corrected" in line for line in log) == 2
    # every step the command offers is one the engine accepts (it once offered -3..3, and
    # all but +-1 were refused)
    count = h.bot.tree.get_command("winter").get_command("arbiter").get_command("count")
    steps = [c.value for c in count._params["delta"].choices]
    assert sorted(steps) == [-1, 1]
    for step in steps:
        version = (await info(h)).version
        sent = await h.slash("winter arbiter count", arbiter, faction="spring", delta=step)
        assert "count is corrected" in reply_text(sent)
        assert (await info(h)).version == version + 1


async def dealt_table(h: Harness) -> Any:
    await open_table(h)
    return await dealt(h)


# --------------------------------------------------------------------------- commands in a DM


def dm_slash_payload(h: Harness, name: str, user: int, **options: Any) -> dict[str, Any]:
    """A slash command typed in the user's DM with the bot: no guild, no member."""
    payload = h.fake.slash_payload(h.bot, name, user_id=user, **options)
    dm = dm_channel_of(h, user)
    payload.pop("guild_id")
    payload.pop("member")
    payload["user"] = user_payload(user, PEOPLE[user])
    payload["channel_id"] = str(dm)
    payload["channel"] = {"id": str(dm), "type": 1, "recipients": [user_payload(user)]}
    payload["context"] = 1
    payload["authorizing_integration_owners"] = {"1": str(user)}
    return payload


async def test_hand_commands_in_a_dm_show_the_current_hand_and_choices(h: Harness) -> None:
    await open_table(h)
    await dealt(h)
    rng = random.Random(12)

    async def played_and_to_act(i: Any, view: Any) -> bool:
        seats = {e.seat for e in view.transcript if e.card and e.kind == "card"}
        return any(s in seats for s in i.to_act)

    i = await drive(h, played_and_to_act, rng)
    await refresh(h)
    view = await h.service.public_view(CHANNEL_ID)
    seat = next(s for s in i.to_act
                if any(e.card and e.kind == "card" and e.seat == s for e in view.transcript))
    user = seat_user(i, seat)
    hand = await hand_ids(h, user)
    gone = {CARDS[e.card] for e in view.transcript if e.card and e.kind == "card"
            and e.seat == seat and e.card not in hand} - {CARDS[c] for c in hand}
    assert gone
    for command in ("winter hand", "hand"):
        sent = await h.fake.dispatch(h.bot, dm_slash_payload(h, command, user))
        follow = [s for s in sent if s.kind == "followup"]
        assert len(follow) == 1 and follow[0].ephemeral, (command, sent)
        text = follow[0].content
        for card in hand:
            assert CARDS[card] in text, (command, CARDS[card])
        for title in gone:  # a card played since it was drawn is not shown as held
            assert title not in text, (command, title)
        ids = [c for c in follow[0].custom_ids if not c.endswith(":tell")]
        assert ids and all(f":{i.version}:" in c for c in ids), (command, ids)
        assert not [s for s in sent if s.kind == "channel_message"]


async def test_closed_dms_lose_no_x_card_notice_or_retell_request(h: Harness) -> None:
    await open_table(h)
    i = await info(h)
    arbiter = seat_user(i, (await h.service.public_view(CHANNEL_ID)).arbiter)
    teller = next(u for u in PEOPLE if u != arbiter)
    raiser = next(u for u in PEOPLE if u not in (arbiter, teller))
    h.fake.closed_dms |= {arbiter, teller}
    await h.slash("winter tell", teller, text="A passage someone could not bear.")
    await h.slash("winter xcard", raiser)
    view = await h.service.public_view(CHANNEL_ID)
    hidden = next(e for e in view.transcript if e.seat == user_seat(i, teller) and e.hidden)
    # the Arbiter's notice could not go by DM: pointed to /hand in the channel
    assert any(f"<@{arbiter}>" in s.content and "/hand" in s.content
               for s in h.fake.channel_messages())
    sent = await h.slash("winter hand", arbiter)
    text = next(s for s in sent if s.kind == "followup").content
    assert "X-card" in text and f"#{hidden.n}" in text
    assert PEOPLE[raiser] not in text.split("**Story cards")[-1]
    sent = await h.slash("winter hand", teller)
    text = next(s for s in sent if s.kind == "followup").content
    assert f"#{hidden.n}" in text and "/winter retell" in text
    await h.slash("winter retell", teller, entry=hidden.n, text="Told another way.")
    sent = await h.slash("winter hand", teller)
    text = next(s for s in sent if s.kind == "followup").content
    assert "/winter retell" not in text


async def test_after_a_restart_a_hand_message_showing_choices_loses_them_after_the_move(
        h: Harness) -> None:
    from bot.messages.cogs.winter import Winter

    await open_table(h)
    i = await info(h)
    actor = seat_user(i, i.to_act[0])
    mid, payload = await refreshed_hand(h, actor)
    assert len(components_of(payload)) > 1, "the actor's refreshed hand shows their choices"
    # a fresh cog, as in a new bot process: only the SQLite file is left
    await h.bot.remove_cog("winter")
    await h.bot.add_cog(Winter(h.bot))
    legal = await h.service.legal_actions(CHANNEL_ID, actor)
    outbox = await h.service.act(CHANNEL_ID, actor, legal[0])
    await h.bot.delivery.deliver(outbox)
    await h.fake.settle()
    _mid, payload = hand_message_of(h, actor)
    assert _mid == mid
    assert actor not in outbox.table.to_act_users  # the draft passes to the next seat
    ids = [c["custom_id"] for c in components_of(payload)
           if not c["custom_id"].endswith((":tell", ":refresh"))]
    assert ids == [], ids  # no buttons of a moment that has passed


async def test_a_move_finished_on_the_dm_s_own_menu_brings_the_dm_hand_along(
        h: Harness) -> None:
    """On Discord the second step of a choice is clicked on the private menu the first
    step answered with (a message of its own, ephemeral): the DM hand it started from must
    still be brought to the new moment, not left with buttons of the old one."""
    from tests.discord_fakes import snowflake

    await open_table(h)
    i = await info(h)
    user = seat_user(i, i.to_act[0])
    mid, payload = await refreshed_hand(h, user)
    select = next(c for c in components_of(payload) if c["type"] == 3)
    sent = await h.fake.dispatch(h.bot, dm_click_payload(
        h, user, select["custom_id"], mid, payload["components"],
        values=[select["options"][0]["value"]]))
    menu = answer(sent)
    assert menu.ephemeral and menu.custom_ids
    cid, values = first_choice(menu.components)
    click = dm_click_payload(h, user, cid, snowflake(), menu.components, values=values)
    click["message"]["flags"] = 64  # the menu is ephemeral, not the DM
    await h.fake.dispatch(h.bot, click)
    await h.fake.settle()
    after = await info(h)
    assert after.version == i.version + 1
    _mid, now = hand_message_of(h, user)
    marks = {c["custom_id"].split(":")[2] for c in components_of(now)
             if not c["custom_id"].endswith((":tell", ":refresh"))}
    assert marks <= {str(after.version)}, now


async def test_closed_dms_a_move_finished_on_a_follow_up_menu_brings_the_hand_back(
        h: Harness) -> None:
    """With closed DMs the panel is the only hand. A choice in two steps is finished on
    the follow-up menu the panel's first step answered with (a message of its own): when
    the player still has a choice, their hand must follow, with the new moment's choices,
    not only the menu's "Done" (a move made on the panel itself updates that panel)."""
    from engines import get_game
    from tests.discord_fakes import snowflake

    game = get_game("winter-tales")
    ui = WinterUI()
    h.fake.closed_dms |= set(PEOPLE)
    await open_table(h, options="interrupt_timeout=0")
    await dealt(h)

    def two_steps(state: Any, seat: int) -> str | None:
        """A menu code on the seat's panel whose follow-up holds a move (no sentence)
        that leaves the seat a choice."""
        view = game.view(state, seat)
        legal = game.legal_actions(state, seat)
        for menu in ui.hand_menus(view, legal):
            for first in (*menu.choices, *menu.buttons):
                if first.code[:1] not in ("g", "k"):  # a group or a kind: a menu
                    continue
                follow = ui.resolve(first.code, view, legal).menu
                for c in follow.choices if follow is not None else ():
                    if c.code.startswith("a"):
                        after = state.model_copy(deep=True)
                        game.apply(after, seat, legal[int(c.code[1:])])
                        if seat in game.to_act(after):
                            return first.code
        return None

    async def in_two_steps(i: Any, view: Any) -> bool:
        state = await true_state(h)
        return any(two_steps(state, seat) is not None for seat in i.to_act)

    i = await drive(h, in_two_steps, random.Random(5))
    state = await true_state(h)
    seat = next(s for s in i.to_act if two_steps(state, s) is not None)
    user = seat_user(i, seat)
    code = two_steps(state, seat)
    panel = next(s for s in await h.click(f"ft:{i.id}:{i.version}:turn", user)
                 if s.kind == "followup")
    menu = answer(await h.click(f"ft:{i.id}:{i.version}:{code}", user, message=panel))
    assert menu.ephemeral and menu.custom_ids
    legal = await h.service.legal_actions(CHANNEL_ID, user)
    offered = []  # (custom_id, select values or None, code)
    for c in components_of({"components": menu.data.get("components") or []}):
        if c["type"] == 3:
            offered += [(c["custom_id"], [o["value"]], o["value"]) for o in c["options"]]
        elif c["type"] == 2:
            offered.append((c["custom_id"], None, c["custom_id"].rsplit(":", 1)[1]))
    choice, values, _code = next(
        (cid, values, code) for cid, values, code in offered if code.startswith("a")
        and seat in game.to_act(_after(game, state, seat, legal, code)))
    click = h.fake.click_payload(choice, user_id=user, message=menu, values=values)
    click["message"]["flags"] = 64  # the menu is ephemeral
    click["message"]["id"] = str(snowflake())
    sent = await h.fake.dispatch(h.bot, click)
    await h.fake.settle()
    after = await info(h)
    assert after.version == i.version + 1 and seat in after.to_act
    hands = [s for s in sent if s.kind == "followup" and "hand**" in s.content]
    assert hands and hands[-1].ephemeral, [s.kind for s in sent]
    ids = [c for c in hands[-1].custom_ids if not c.endswith(":tell")]
    assert ids and all(f":{after.version}:" in c for c in ids), ids


def _after(game: Any, state: Any, seat: int, legal: list[Any], code: str) -> Any:
    after = state.model_copy(deep=True)
    game.apply(after, seat, legal[int(code[1:])])
    return after
