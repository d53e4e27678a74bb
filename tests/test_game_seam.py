"""One declaration per game: a game declared from the tests alone gets everything.

The toy (tests/toy_game.py) is declared by ``TOY_SPEC`` and registered only inside
these tests. Without a line of shared code naming it, it gets: the lobby, the turn
button, a private DM hand message (edited in place, its choices as buttons that play),
the ephemeral ``/hand``, ``/rules``, the console, self-play, the conformance suite and
the leak check's secret fragments.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import Case, play_random_game
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
    reply_text,
    user_payload,
)
from tests.toy_game import TOY_ID, TOY_SPEC, toy_registered

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def toy() -> Iterator[None]:
    with toy_registered():
        yield


@pytest.fixture
async def h(tmp_path: Path, toy: None) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


def test_no_shared_code_names_the_toy() -> None:
    """The seam is real: nothing outside tests/ mentions the toy game."""
    files = [p for top in ("bot", "engines", "renderers", "data")
             for p in (ROOT / top).rglob("*") if p.suffix in (".py", ".json", ".md")]
    assert len(files) > 50
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert TOY_ID not in text and "toy_game" not in text, path


def hand_messages(h: Harness, user: int) -> list[Sent]:
    return [s for s in h.fake.sent if s.kind == "dm" and s.channel_id == user
            and "'s hand**" in s.content]


def current_dm(h: Harness, first: Sent) -> dict[str, Any]:
    payload = dict(first.payload)
    for s in h.fake.sent:
        if s.kind in EDITS and s.message_id == first.message_id:
            payload.update(s.payload)
    return payload


def dm_click(h: Harness, user: int, custom_id: str, message: Sent) -> dict[str, Any]:
    """A click on a button of the user's DM hand message (no guild, a private channel)."""
    dm = next(c for c, u in h.fake.dm_channels.items() if u == user)
    payload = h.fake.click_payload(custom_id, user_id=user, channel_id=dm)
    payload.pop("guild_id")
    payload.pop("member")
    payload["user"] = user_payload(user)
    payload["channel"] = {"id": str(dm), "type": 1, "recipients": [user_payload(user)]}
    payload["context"] = 1
    payload["authorizing_integration_owners"] = {"1": str(user)}
    payload["message"] = h.fake.message_payload(
        dm, {"components": current_dm(h, message).get("components") or []},
        message_id=message.message_id)
    return payload


async def test_lobby_turn_button_and_a_dm_hand_that_plays(h: Harness) -> None:
    opened = await h.slash("table new", ANN, uname="Ann", game=TOY_ID)
    assert "Toy Nim" in reply_text(opened)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    # The public turn message: the generic "Take your turn" button.
    prompt = h.fake.last_prompt()
    assert prompt.custom_ids == [f"ft:{info.id}:0:turn"]
    # Every seat has ONE hand message by DM, with its private picture: the record of its
    # hand, with a Refresh button (the turn is asked in the channel, not in DMs).
    for user in (ANN, BOB):
        (hand,) = hand_messages(h, user)
        assert hand.files and hand.files[0][0] == "hand.png"
        assert hand.custom_ids == [f"ft:{info.id}:0:refresh"]
    mover = info.to_act_users[0]
    waiting = BOB if mover == ANN else ANN

    # Take your turn: the panel, only for the mover, with their choices.
    panel = answer(await h.click(prompt.custom_ids[0], mover, prompt))
    assert panel.ephemeral and panel.files and "'s hand**" in panel.content
    ids = [c for c in panel.custom_ids if f":{info.id}:0:a" in c]
    assert ids
    # A choice on the panel plays the move and brings the same panel up to date, in
    # place, on the click's own token; no DM is touched for the mover's own move.
    sent = await h.click(ids[-1], mover, panel)
    assert (await h.service.status(info.id)).version == 1
    (updated,) = edits_of(sent, panel.message_id)
    assert updated.token and "found stones worth" in updated.content
    assert not [s for s in sent if s.kind == "dm" or (s.kind in EDITS and not s.token)]
    # Refresh on the DM: the hand as it is now, on that click's token.
    (hand,) = hand_messages(h, mover)
    sent = await h.fake.dispatch(h.bot, dm_click(h, mover, f"ft:{info.id}:0:refresh", hand))
    (refreshed,) = edits_of(sent, hand.message_id)
    values = next(x for x in updated.content.splitlines() if x.startswith("my values"))
    assert refreshed.token and values in current_dm(h, hand)["content"]
    # The other seat, asked in the channel: its choices come on its panel, and its DM
    # played after a Refresh keeps itself current on each click's token.
    other = hand_messages(h, waiting)[0]
    # (its Refresh button is the one it was sent with: any version shows the hand now)
    sent = await h.fake.dispatch(h.bot, dm_click(h, waiting, f"ft:{info.id}:0:refresh", other))
    choices = [c for c in json.dumps(current_dm(h, other).get("components") or [])
               .split('"') if c.startswith(f"ft:{info.id}:1:a")]
    assert choices
    sent = await h.fake.dispatch(h.bot, dm_click(h, waiting, choices[0], other))
    assert (await h.service.status(info.id)).version == 2
    played = edits_of(sent, other.message_id)
    assert played and all(s.token for s in played)
    assert len(hand_messages(h, mover)) == 1 and len(hand_messages(h, waiting)) == 1
    # Nothing of anyone's stones in the channel.
    for s in h.fake.channel_messages():
        assert "found stones worth" not in h.fake.current(s).content


async def test_hand_command_rules_and_unchanged_hands_are_left_alone(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game=TOY_ID)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    mover = info.to_act_users[0]
    waiting = BOB if mover == ANN else ANN
    # /hand answers with the same hand, privately.
    reply = only(await h.slash("hand", waiting), "followup")
    assert reply.ephemeral and "'s hand**" in reply.content and reply.files
    rules = reply_text(await h.slash("rules", ANN, game=TOY_ID))
    assert "Toy Nim" in rules and "face-down pile" in rules
    # Hands are edited only when what they show changed: a re-sync with nothing new
    # edits nobody.
    before = len([s for s in h.fake.sent if s.kind == "edit_message"])
    snapshot = await h.service.table_snapshot(info.id)
    assert snapshot is not None
    await h.bot.delivery.refresh_hands(snapshot)
    assert len([s for s in h.fake.sent if s.kind == "edit_message"]) == before


def test_selfplay_and_conformance_from_the_declaration(toy: None) -> None:
    from bot.selfplay import main

    out = io.StringIO()
    assert main(["--game", TOY_ID, "--games", "3", "--seed", "2"], out=out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[-1]["summary"] is True and lines[-1]["games"] == 3
    for case in TOY_SPEC.conformance:
        c = Case.of(TOY_ID, case)
        for seed in range(c.seeds):
            play_random_game(c, seed)


def test_the_leak_check_reads_the_declared_fragments(toy: None) -> None:
    from engines import get_game
    from tests.e2e.hidden import fragment_patterns

    game = get_game(TOY_ID)
    state = game.setup(2, game.Options(pile=9), 4)
    patterns = fragment_patterns(game, state)
    assert patterns
    upcoming = ", ".join(map(str, state.pile[:3]))
    if len(set(state.pile[:3])) > 1:
        assert any(p.search(f"Ann found stones worth {upcoming}") for p in patterns)
    assert not any(p.search("Ann took 2 stone(s).") for p in patterns)
    assert all(isinstance(p, re.Pattern) for p in patterns)


async def test_a_handed_over_seat_closes_the_old_holders_hand(h: Harness) -> None:
    await h.slash("table new", ANN, uname="Ann", game=TOY_ID)
    await h.slash("table join", BOB, uname="Bob")
    await h.slash("table start", ANN)
    info = await h.service.status(CHANNEL_ID)
    (old,) = hand_messages(h, BOB)
    seat = info.seat_of(BOB)
    assert seat is not None
    await h.slash("table handover", ANN, seat=seat.index + 1, member=(CAROL, "Carol"))
    now = current_dm(h, old)
    assert "handed to someone else" in now["content"] and not now.get("components")
    assert len(hand_messages(h, CAROL)) == 1  # the new holder gets the hand
    assert BOB not in {m.user_id for m in await h.service.store.hand_messages(info.id)}
