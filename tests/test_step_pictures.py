"""A turn of several steps shows the board where a person reads it, not at every step
(issue 24: Crossroads uploaded its table picture on almost every step).

Tables are played through the REAL bot against the fake Discord (tests/discord_fakes.py):
a person's move is the game's AI choice for their seat, played through the service and
handed to the delivery as a click's outbox is; an AI seat's moves reach the delivery on
their own. The renderer draws a distinct stand-in picture per call and remembers the
view it drew, so each upload is matched to what it shows.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import bot.core.tables.ai as ai_runner
from bot.core.choices import get_ui
from engines import get_game
from engines.agents import get_agent
from engines.core import Rng
from tests.discord_fakes import (
    ANN,
    BOB,
    CHANNEL_ID,
    EDITS,
    GUILD_ID,
    PNG,
    Harness,
    Sent,
    close_harness,
    make_harness,
)

UPLOADS = ("channel_message", "followup", *EDITS)


class Drawn:
    """A renderer that draws a distinct stand-in per call and keeps the view."""

    def __init__(self) -> None:
        self.views: dict[bytes, Any] = {}
        self._n = itertools.count()

    def __call__(self, game_id: str, view: Any, **options: Any) -> bytes:
        png = PNG + str(next(self._n)).encode()
        if not options.get("private"):
            self.views[png] = view
        return png


@pytest.fixture
async def drawn() -> Drawn:
    return Drawn()


@pytest.fixture
async def h(tmp_path: Path, drawn: Drawn, monkeypatch: pytest.MonkeyPatch
            ) -> AsyncIterator[Harness]:
    monkeypatch.setattr(ai_runner, "BACKLOG", 1)  # each AI move delivered before the next
    harness = await make_harness(tmp_path / "s.sqlite3", renderer=drawn, seed=5)
    yield harness
    await close_harness(harness)


async def open_table(h: Harness, game_id: str, ai_seats: int, people: tuple[int, ...] = (),
                     options: dict[str, Any] | None = None) -> None:
    await h.service.create(CHANNEL_ID, GUILD_ID, ANN, "Ann", game_id, options, seed=5)
    for user in people:
        await h.service.join(CHANNEL_ID, user, "Bob")
    for _ in range(ai_seats):
        await h.service.add_ai(CHANNEL_ID, ANN)
    await h.bot.delivery.deliver(await h.service.start(CHANNEL_ID, ANN))
    await settle(h)


async def settle(h: Harness) -> None:
    await h.service.wait_idle()
    await h.fake.settle()


async def move(h: Harness, game_id: str, seed: int = 1) -> tuple[Any, list[Sent]]:
    """The person to act plays the AI's choice for their seat: (the action, what the
    bot sent for it, the AI's answers included)."""
    info = await h.service.status(CHANNEL_ID)
    user = info.to_act_users[0]
    seat = info.seat_of(user)
    assert seat is not None
    game, state, version = await h.service.state_for_search(CHANNEL_ID)
    action = get_agent(game_id, "heuristic" if game_id == "crossroads-inn" else "random"
                       ).choose(game, state, seat.index, Rng.from_seed(version * 31 + seed))
    before = len(h.fake.sent)
    outbox = await h.service.play(CHANNEL_ID, seat.index, action, version, user_id=user)
    await h.bot.delivery.deliver(outbox)
    await settle(h)
    return action, h.fake.sent[before:]


def uploads(sent: list[Sent]) -> list[Sent]:
    return [s for s in sent if s.files and s.kind in UPLOADS and s.channel_id == CHANNEL_ID]


async def test_a_crossroads_turn_shows_the_board_only_where_its_person_reads_the_tracks(
        h: Harness, drawn: Drawn) -> None:
    await open_table(h, "crossroads-inn", 0, (BOB,), {"basic_tiles": "none",
                                                     "kingdom": "1+5"})
    start = await h.service.status(CHANNEL_ID)
    mover = start.to_act_users[0]
    shown = uploads(h.fake.sent)[-1].files[0][1]  # the start: the board as the turn begins
    steps, track_moves, edits = 0, 0, []
    while True:
        action, sent = await move(h, "crossroads-inn")
        steps += 1
        info = await h.service.status(CHANNEL_ID)
        if mover not in info.to_act_users:  # the turn passed: a new message shows the board
            posted = [s for s in uploads(sent) if s.kind in ("channel_message", "followup")]
            assert len(posted) == 1 and posted[0].files[0][1] != shown
            break
        track_moves += action.kind in ("buy", "reserve")
        edits += [s for s in sent if s.kind in EDITS and s.channel_id == CHANNEL_ID]
        for s in uploads(sent):
            # A step's new picture: its choice is made on the tracks, and they changed.
            view = drawn.views[s.files[0][1]]
            assert get_ui("crossroads-inn").step_board_fields(view) == ("tracks",)
            assert view.tracks != drawn.views[shown].tracks
            shown = s.files[0][1]
    assert steps >= 6, steps
    pictured = [s for s in edits if s.files]
    assert len(pictured) <= track_moves + 1, (len(pictured), track_moves, steps)
    # The other edits leave the message's picture as it is (no ``attachments`` sent).
    assert edits and all("attachments" not in s.payload for s in edits if not s.files)


async def test_an_ai_turn_of_several_steps_draws_the_board_once_when_it_ends(
        h: Harness, drawn: Drawn) -> None:
    """Save the Treasure: an AI's slides and step are edits of one turn message with no
    picture; the board comes with the message that hands the turn back."""
    await open_table(h, "treasure", 1)
    turns = 0
    for _ in range(12):
        before = len(drawn.views)
        _, sent = await move(h, "treasure")
        info = await h.service.status(CHANNEL_ID)
        posted = [s for s in sent if s.kind in ("channel_message", "followup")
                  and s.channel_id == CHANNEL_ID]
        if not info.status.live or not posted:
            continue  # her own turn goes on (her next slide), or the game ended
        ai_steps = [s for s in sent if s.kind in EDITS and s.channel_id == CHANNEL_ID
                    and s.content]
        # Ann's move passed the turn (one board), the AI's steps edited that message
        # (none), its last step handed the turn back (one board): never one per step.
        assert len(posted) == 2 and len(drawn.views) - before == 2, (posted, ai_steps)
        assert len(ai_steps) >= 1 and not any(s.files for s in ai_steps)
        turns += 1
    assert turns >= 2


async def test_a_person_s_step_on_the_board_still_gets_the_new_board(
        h: Harness, drawn: Drawn) -> None:
    """A game whose adapter names no step fields (Save the Treasure) draws every change
    of the board for the person still to act: their next slide is chosen on it."""
    await open_table(h, "treasure", 0, (BOB,))
    game = get_game("treasure")
    for _ in range(12):
        info = await h.service.status(CHANNEL_ID)
        mover = info.to_act_users[0]
        _, sent = await move(h, "treasure")
        info = await h.service.status(CHANNEL_ID)
        edited = [s for s in sent if s.kind in EDITS and s.channel_id == CHANNEL_ID]
        if mover in info.to_act_users and edited:
            assert uploads(edited), "the person's next step is chosen on the new board"
            view = drawn.views[uploads(edited)[-1].files[0][1]]
            assert view.model_dump() == (await h.service.public_view(CHANNEL_ID)).model_dump()
            return
    pytest.fail(f"no two-step turn of {game.name} in 12 moves")
