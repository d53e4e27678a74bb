"""Replays of finished games (``bot.messages.replays``, ``bot.core.tables.replay``,
``renderers.animation``).

Each game is played to its end (seeded random moves, or an AI where random play never
ends), stored as the bot stores it, and replayed. A frame is checked as the leak check
checks a posted board: it must be, pixel for pixel, the rendering of the PUBLIC view at
the version its caption names (redrawn here from the test's own replay of the log), and
its caption must hold no private event and no declared secret fragment.
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import renderers
from bot.core.store import ActionRecord, SqliteStore, TableRecord
from bot.core.tables.replay import (
    NoFinishedGame,
    NotThatGame,
    ReplayTooShort,
    ReplayUnavailable,
    finished_table,
    replay_table,
    spread,
)
from bot.messages import replays
from bot.messages.replays import channel_replay, replay_animation
from engines import get_game
from engines.agents import get_agent
from engines.core import Game, Rng
from renderers.animation import Still, animate, frames_of, read_meta, redraw
from tests.e2e.hidden import fragment_patterns

NAMES = ["Ann", "Bob", "Cyrille", "Dora"]

# (game, players, options, agent): random play ends every one of these quickly, except
# Crossroads Inn, whose random games wander for thousands of steps.
GAMES: dict[str, tuple[int, dict[str, Any], str | None]] = {
    "fairy-tale-inn": (2, {}, None),
    "pocket": (2, {}, None),
    "crossroads-inn": (2, {}, "heuristic"),
    "treasure": (2, {}, None),
    "winter-tales": (3, {"power": True, "objective": True, "skill": True}, None),
}
NARRATION = "Zyxw the owl whispers"
"""Told with every Winter Tales move that takes words: the story, never the board."""


@dataclass
class Played:
    """A finished game: what the store holds, and the test's own replay of it."""

    game: Game[Any, Any]
    rec: TableRecord
    actions: list[ActionRecord]
    public: list[Any] = field(default_factory=list)
    """The public view at each version (0 = the setup)."""
    states: list[Any] = field(default_factory=list)
    private_texts: set[str] = field(default_factory=set)
    public_texts: set[str] = field(default_factory=set)


def _with_words(game: Game[Any, Any], action: Any, n: int) -> Any:
    if game.id == "winter-tales" and "text" in type(action).model_fields:
        return action.model_copy(update={"text": f"{NARRATION} {n}."})
    return action


def _play(game_id: str, seed: int = 3) -> Played:
    players, options, level = GAMES[game_id]
    game = get_game(game_id)
    state = game.setup(players, game.parse_options(options), seed)
    chooser = Rng.from_seed(seed)
    agent = get_agent(game_id, level) if level else None
    log: list[tuple[int, Any]] = []
    while not game.is_over(state):
        assert len(log) < 5000, f"{game_id} did not end"
        seat = chooser.choice(game.to_act(state))
        if agent is not None:
            action = agent.choose(game, game.copy_state(state), seat, chooser.spawn())
        else:
            action = chooser.choice(game.legal_actions(state, seat))
        action = _with_words(game, action, len(log))
        game.apply(state, seat, action)
        log.append((seat, action))
        if game_id == "winter-tales" and len(log) == 12:
            # an out-of-turn narration too (Golden Rule 1), by whoever is not acting
            other = next(s for s in range(players) if s not in game.to_act(state))
            narrate = game.parse_action({"kind": "narrate", "text": f"{NARRATION} aside."})
            game.apply(state, other, narrate)
            log.append((other, narrate))
    table_id = f"r{game_id[:8]}"
    rec = TableRecord(
        id=table_id, channel_id=7000 + len(game_id), guild_id=1, game_id=game_id,
        options=dict(options), seed=seed, status="finished", host_id=1,
        seats=[{"index": i, "name": NAMES[i], "user_id": 100 + i, "ai_level": None}
               for i in range(players)],
        version=len(log), state=game.dump_state(state))
    actions = [ActionRecord(table_id, v, s, 100 + s, game.dump_action(a))
               for v, (s, a) in enumerate(log, start=1)]
    played = Played(game, rec, actions)
    # The test's own replay: every version's public view and state, every event's text.
    again = game.setup(players, game.parse_options(options), seed)
    played.public.append(game.view(again, None))
    played.states.append(game.copy_state(again))
    for seat, action in log:
        for event in game.apply(again, seat, action):
            text = event.text(lambda s: NAMES[s])
            (played.public_texts if event.visible_to is None else played.private_texts).add(text)
        played.public.append(game.view(again, None))
        played.states.append(game.copy_state(again))
    return played


_PLAYED: dict[str, Played] = {}
_PICTURES: dict[tuple[str, str], bytes] = {}
"""(game, view JSON) -> its board: renderers are deterministic, so a board the replay drew
and the one the test draws to compare it with are drawn once."""


def played(game_id: str) -> Played:
    if game_id not in _PLAYED:
        _PLAYED[game_id] = _play(game_id)
    return _PLAYED[game_id]


def board(game_id: str, view: Any, names: list[str]) -> bytes:
    key = (game_id, view.model_dump_json() + json.dumps(names))
    if key not in _PICTURES:
        _PICTURES[key] = renderers.render(game_id, view, names=names)
    return _PICTURES[key]


class Boards:
    """The renderer the replay is given (as the bot gives it ``Delivery.draw``): it
    records every view it is asked to draw."""

    def __init__(self) -> None:
        self.views: list[Any] = []
        self.busy = 0
        self.most_at_once = 0

    async def __call__(self, game_id: str, view: Any, **options: Any) -> bytes:
        self.views.append(view)
        self.busy += 1
        self.most_at_once = max(self.most_at_once, self.busy)
        try:
            await asyncio.sleep(0)  # let the others start, if they are allowed to
            return board(game_id, view, list(options["names"]))
        finally:
            self.busy -= 1


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    # the replays kept are keyed by table id: each test's store is a new world
    replays._cache.clear()
    yield
    replays._cache.clear()


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "replays.db")
    await s.open()
    yield s
    await s.close()


async def stored(store: SqliteStore, game_id: str) -> Played:
    p = played(game_id)
    await store.import_table(p.rec, p.actions, [])
    return p


def check_frames(p: Played, data: bytes) -> dict[str, Any]:
    """The leak check of a replay GIF: every frame is exactly the public view of the
    version it names, with its caption; no caption holds a private event or a declared
    secret fragment. Returns the GIF's meta."""
    meta = read_meta(data)
    assert meta is not None, "a replay says what it was drawn from"
    names = NAMES[:p.rec.seats.__len__()]
    pictures = [board(p.game.id, p.public[v], names) for v in meta["steps"]]
    shown = frames_of(data)
    expected = redraw(pictures, meta)
    assert len(shown) == len(expected)
    for i, (a, b) in enumerate(zip(shown, expected, strict=True)):
        assert a.tobytes() == b.tobytes(), f"frame {i} is not the public board of its step"
    captions = "\n".join(meta["captions"])
    for text in p.private_texts - p.public_texts:
        assert text not in captions, f"a private event in a caption: {text!r}"
    # What is hidden at a caption's version (a Recipe in a hand): a recipe secret until
    # it is cooked is named by the caption of the move that cooks it, and rightly so.
    for step, caption in zip(meta["steps"], meta["captions"], strict=True):
        for pattern in fragment_patterns(p.game, p.states[step]):
            assert pattern.search(caption) is None, f"a secret in {caption!r}"
    return meta


# --------------------------------------------------------------------------- every game


@pytest.mark.parametrize("game_id", list(GAMES))
async def test_replay_of_a_finished_game(store: SqliteStore, game_id: str) -> None:
    p = await stored(store, game_id)
    boards = Boards()
    anim = await channel_replay(store, p.rec.channel_id, renderer=boards, max_frames=8,
                                width=480)
    data, filename, summary = anim

    image = Image.open(io.BytesIO(data))
    assert image.format == "GIF" and image.n_frames > 1 and image.info.get("loop") == 0
    assert filename == f"replay-{game_id}-{p.rec.id}.gif"
    assert p.game.name in summary and f"{len(p.actions)} moves" in summary

    meta = check_frames(p, data)
    # the first frame is the setup's board, the last the final board
    assert meta["steps"][0] == 0 and meta["steps"][-1] == len(p.actions)
    assert meta["captions"][-1].startswith(f"Move {len(p.actions)} of {len(p.actions)}: ")
    assert "Game over" in meta["captions"][-1]
    # the renderer drew public views only, no more than two at once (the pool's share)
    assert boards.views and all(v.seat is None for v in boards.views)
    assert boards.most_at_once <= 2
    assert all(f.size == (480, image.height) for f in frames_of(data))


async def test_only_the_public_view_is_read(store: SqliteStore,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    p = await stored(store, "fairy-tale-inn")
    seats: list[Any] = []
    engine = type(p.game)
    real = engine.view

    def view(self: Any, state: Any, seat: Any) -> Any:
        seats.append(seat)
        return real(self, state, seat)

    monkeypatch.setattr(engine, "view", view)
    await replay_animation(store, p.rec.id, renderer=Boards(), max_frames=4, width=320)
    assert len(seats) == len(p.actions) + 1 and set(seats) == {None}


async def test_winter_tales_replays_the_board_not_the_story(store: SqliteStore) -> None:
    p = await stored(store, "winter-tales")
    replay = replay_table(p.rec, p.actions)
    # a step that only told the story makes no picture
    assert len(replay.steps) < len(p.actions) + 1
    for step in replay.steps:
        assert NARRATION not in step.label
    # the board picture of a view does not depend on its story
    for step in replay.frames(3):
        told = step.view.model_copy(update={"transcript": [], "lines": [], "veils": []})
        assert board("winter-tales", told, NAMES[:3]) == board("winter-tales", step.view,
                                                                 NAMES[:3])
    assert any(NARRATION in (e.text or "") for e in p.public[-1].transcript)


# --------------------------------------------------------------------------- the budget


async def test_a_long_game_fits_a_tiny_budget() -> None:
    p = played("crossroads-inn")
    replay = replay_table(p.rec, p.actions)
    steps = replay.frames(8)  # the boards the replay test drew: drawn once
    names = NAMES[:2]
    stills = [Still(board(p.game.id, s.view, names), s.label, s.version) for s in steps]
    full = animate(stills, total=replay.moves, width=480)
    assert len(full.data) > 300_000 and full.frames == 8

    small = animate(stills, total=replay.moves, width=480, max_bytes=300_000)
    assert len(small.data) <= 300_000 and 2 <= small.frames < 8
    assert small.kept[0] == 0 and small.kept[-1] == 7  # the setup and the end stay
    meta = check_frames(p, small.data)
    assert meta["steps"][0] == 0 and meta["steps"][-1] == replay.moves

    tiny = animate(stills, total=replay.moves, width=480, max_bytes=20_000)
    assert len(tiny.data) <= 20_000 and tiny.kept == (7,)  # the final board alone
    assert check_frames(p, tiny.data)["steps"] == [replay.moves]

    with pytest.raises(ValueError):
        animate(stills, max_bytes=50)


def test_boards_of_several_sizes_share_one_canvas() -> None:
    boards = [Image.new("RGB", (200 + 100 * i, 300 - 50 * i), (30 * i, 60, 90)) for i in range(3)]
    anim = animate([Still(b, f"Step {i}: x", i) for i, b in enumerate(boards)], width=600)
    frames = frames_of(anim.data)
    assert {f.size for f in frames} == {anim.size} and anim.size[0] == 400  # never enlarged
    # each board keeps its own background around it
    assert frames[0].getpixel((399, 0)) == (0, 60, 90)


def test_spread_keeps_the_ends() -> None:
    assert spread(100, 5) == [0, 25, 50, 74, 99]
    assert spread(2, 40) == [0, 1]
    p = played("treasure")
    replay = replay_table(p.rec, p.actions)
    chosen = replay.frames(6)
    assert len(chosen) == 6 and chosen[0] is replay.steps[0] and chosen[-1] is replay.steps[-1]


# --------------------------------------------------------------------------- which game


async def test_which_table_is_replayed(store: SqliteStore) -> None:
    p = await stored(store, "pocket")
    channel = p.rec.channel_id
    assert (await finished_table(store, channel)).id == p.rec.id
    assert (await finished_table(store, channel, "Fairy Tale in My Pocket")).id == p.rec.id
    assert (await finished_table(store, channel, "pocket")).id == p.rec.id
    assert (await finished_table(store, channel, p.rec.id)).id == p.rec.id

    with pytest.raises(NotThatGame, match="played Fairy Tale in My Pocket"):
        await finished_table(store, channel, "treasure")
    with pytest.raises(NoFinishedGame):
        await finished_table(store, 12345)
    with pytest.raises(NoFinishedGame):
        await finished_table(store, 12345, "pocket")
    # another channel's finished table is not this channel's to replay
    elsewhere = TableRecord(**{**p.rec.__dict__, "id": "relsewhere", "channel_id": 12345})
    await store.import_table(elsewhere, [], [])
    with pytest.raises(NotThatGame):
        await finished_table(store, channel, "relsewhere")

    # a live table in the channel: the finished one is still there by its id
    live = TableRecord(id="rlive", channel_id=channel, guild_id=1, game_id="treasure",
                       options={}, seed=1, status="lobby", host_id=1, seats=[])
    await store.import_table(live, [], [])
    with pytest.raises(NoFinishedGame, match="not over yet"):
        await finished_table(store, channel)
    with pytest.raises(NoFinishedGame, match="not over yet"):
        await finished_table(store, channel, "rlive")
    assert (await finished_table(store, channel, p.rec.id)).id == p.rec.id


async def test_games_that_cannot_be_replayed(store: SqliteStore) -> None:
    p = played("pocket")
    empty = TableRecord(**{**p.rec.__dict__, "id": "rempty", "channel_id": 1, "version": 0,
                           "state": p.game.dump_state(p.states[0])})
    await store.import_table(empty, [], [])
    with pytest.raises(ReplayTooShort):
        await replay_animation(store, "rempty", renderer=Boards())

    # a log that does not lead to the stored state shows a game that never happened
    other = TableRecord(**{**p.rec.__dict__, "id": "rother", "channel_id": 2,
                           "state": p.game.dump_state(p.states[-2])})
    await store.import_table(other, [ActionRecord("rother", a.version, a.seat, a.user_id,
                                                  a.action) for a in p.actions], [])
    with pytest.raises(ReplayUnavailable):
        await channel_replay(store, 2, renderer=Boards())

    with pytest.raises(NoFinishedGame):
        await replay_animation(store, "nosuchtable", renderer=Boards())
    closed = TableRecord(**{**p.rec.__dict__, "id": "rclosed", "channel_id": 3,
                            "status": "aborted"})
    await store.import_table(closed, [], [])
    with pytest.raises(NoFinishedGame, match="closed before its game ended"):
        await channel_replay(store, 3, renderer=Boards())


async def test_a_service_a_thread_renderer_and_the_cache(tmp_path: Path) -> None:
    from bot.core.tables import TableService

    service = await TableService.open_sqlite(tmp_path / "service.db")
    try:
        p = played("pocket")
        await service.store.import_table(p.rec, p.actions, [])
        # no renderer given: the game's own, in a thread
        first = await replay_animation(service, p.rec.id, max_frames=3, width=300)
        check_frames(p, first.data)
        again = await channel_replay(service, p.rec.channel_id, renderer=Boards(),
                                     max_frames=3, width=300)
        assert again is first  # a finished table never changes: drawn once
    finally:
        await service.close()


def test_docstring_examples() -> None:
    # renderers.animation's run with every renderer's (tests/test_doctests.py)
    import doctest

    import bot.core.tables.replay

    result = doctest.testmod(bot.core.tables.replay, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
