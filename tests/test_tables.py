"""TableService with the test-only Toy Nim: lobby, turns, errors, concurrency,
restarts, reminders, seat replacement and hidden information. Real databases: every
test with a ``service`` or a ``backend`` runs on a SQLite file and on a private
PostgreSQL schema (``tests/conftest.py``); a restart or a second process is a new store
on the same database."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bot.core.tables import (
    AlreadyHasTable,
    AlreadySeated,
    BadOptions,
    BadSeat,
    NoTable,
    NotEnoughPlayers,
    NotHost,
    NotInLobby,
    NotPlaying,
    NotSeated,
    NotYourTurn,
    Outbox,
    StaleVersion,
    TableError,
    TableFull,
    TableService,
    TableStatus,
    UnknownAILevel,
    UnknownGame,
)
from engines import core, get_game
from engines.core import IllegalAction
from tests.toy_game import TOY_ID, ToyAgents, toy_registered

if TYPE_CHECKING:
    from tests.conftest import Backend

CH, GUILD = 500, 1
ANN, BOB, CAT, DAN = 101, 102, 103, 104


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, minutes: float) -> datetime:
        self.now += timedelta(minutes=minutes)
        return self.now


@pytest.fixture(autouse=True)
def _toy() -> Iterator[None]:
    with toy_registered():
        yield


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


async def open_service(backend: Backend, **kwargs: Any) -> TableService:
    """A service opened on the test's database through a new store: another process
    sharing it, or this one after a restart."""
    kwargs.setdefault("agents", ToyAgents())
    s = TableService(backend.store(), **kwargs)
    await s.open()
    return s


@pytest.fixture
async def service(backend: Backend, clock: FakeClock):
    s = await open_service(backend, clock=clock)
    yield s
    await s.close()


@pytest.fixture
async def sqlite_service(tmp_path: Path, clock: FakeClock):
    """For refusals made before anything is written, and checks that never touch the
    store: one backend is enough (and saves a PostgreSQL schema per case)."""
    s = await TableService.open_sqlite(tmp_path / "tables.db", clock=clock, agents=ToyAgents())
    yield s
    await s.close()


async def two_player_game(s: TableService, seed: int = 7, **opts: int) -> Outbox:
    await s.create(CH, GUILD, ANN, "Ann", TOY_ID, dict(opts) or None, seed=seed)
    await s.join(CH, BOB, "Bob")
    return await s.start(CH, ANN)


def user_of(outbox: Outbox, seat: int) -> int:
    user = outbox.table.seats[seat].user_id
    assert user is not None
    return user


def current_user(outbox: Outbox) -> int:
    return user_of(outbox, outbox.table.to_act[0])


def other_user(outbox: Outbox) -> int:
    return ANN if current_user(outbox) == BOB else BOB


async def snapshot(s: TableService, backend: Backend, table_id: str) -> tuple[object, ...]:
    """Everything a refused call must leave alone: memory and the store."""
    info = await s.status(table_id)
    started = info.status in (TableStatus.PLAYING, TableStatus.FINISHED)
    view = (await s.public_view(table_id)).model_dump() if started else None
    store = backend.store()
    await store.open()
    try:
        rec = await store.get_table(table_id)
        n_actions = len(await store.actions(table_id))
        n_events = len(await store.events(table_id))
    finally:
        await store.close()
    assert rec is not None
    return (info.version, info.status, info.seats, info.host_id, view, rec.version, rec.state,
            rec.status, json.dumps(rec.seats), n_actions, n_events)


# --------------------------------------------------------------------------- lobby


async def test_lobby_lifecycle_and_status(service: TableService) -> None:
    info = await service.create(CH, GUILD, ANN, "Ann", TOY_ID, {"pile": 6}, seed=3)
    assert info.status is TableStatus.LOBBY and info.host_id == ANN
    assert info.options == {"pile": 6, "max_take": 2}  # defaults filled in and recorded
    assert info.seed == 3 and info.version == 0 and info.to_act == ()
    assert "Waiting for 1 more player" in info.text
    info = await service.join(CH, BOB, "  Bob \n the  Builder ")
    assert [s.name for s in info.seats] == ["Ann", "Bob the Builder"]
    assert "Ready" in info.text and "Ann (host)" in info.text
    assert (await service.status(CH)).id == info.id == (await service.status(info.id)).id
    assert [t.id for t in await service.tables_of_user(BOB)] == [info.id]
    assert await service.tables_of_user(CAT) == []
    out = await service.start(CH, ANN)
    assert out.table.status is TableStatus.PLAYING and out.version == 0
    assert out.public is not None and out.public.kind == "start"
    assert out.public.render_board and out.public.mentions == (current_user(out),)
    assert any(line.startswith("Seating:") for line in out.public.lines)
    assert "Waiting for" in out.table.text


async def test_seating_comes_from_the_recorded_seed(tmp_path: Path) -> None:
    orders = []
    for run in range(2):
        s = await TableService.open_sqlite(tmp_path / f"s{run}.db", agents=ToyAgents())
        await s.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=1234)
        await s.join(CH, BOB, "Bob")
        await s.join(CH, CAT, "Cat")
        out = await s.start(CH, ANN)
        orders.append([seat.user_id for seat in out.table.seats])
        await s.close()
    assert orders[0] == orders[1]
    seen = set()
    for seed in range(12):  # different seeds give different seatings
        s = await TableService.open_sqlite(tmp_path / f"x{seed}.db", agents=ToyAgents())
        await s.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=seed)
        await s.join(CH, BOB, "Bob")
        out = await s.start(CH, ANN)
        seen.add(out.table.seats[0].user_id)
        await s.close()
    assert seen == {ANN, BOB}


@pytest.mark.parametrize(
    ("game", "options", "error", "text"),
    [
        ("chess", None, UnknownGame, "no game called 'chess'"),
        (TOY_ID, {"pile": 1}, BadOptions, "option 'pile'"),
        (TOY_ID, {"pile": "lots"}, BadOptions, "option 'pile'"),
        (TOY_ID, {"colour": "red"}, BadOptions, "unknown option 'colour'"),
        (TOY_ID, ["pile", 3], BadOptions, "name=value"),
    ],
)
async def test_create_refuses_bad_input(sqlite_service: TableService, game: str,
                                        options: object, error: type[TableError],
                                        text: str) -> None:
    with pytest.raises(error, match=text):
        await sqlite_service.create(CH, GUILD, ANN, "Ann", game, options)  # type: ignore[arg-type]
    with pytest.raises(NoTable, match="Start one with /table new"):
        await sqlite_service.status(CH)


@pytest.mark.parametrize("minutes", [-1, float("nan"), 1e9, "soon"])
async def test_create_refuses_bad_reminder(sqlite_service: TableService, minutes: object) -> None:
    with pytest.raises(BadOptions, match="reminder"):
        await sqlite_service.create(CH, GUILD, ANN, "Ann", TOY_ID, reminder_minutes=minutes)  # type: ignore[arg-type]


async def test_one_table_per_channel(service: TableService) -> None:
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID)
    with pytest.raises(AlreadyHasTable):
        await service.create(CH, GUILD, BOB, "Bob", TOY_ID)
    other = await service.create(CH + 1, GUILD, BOB, "Bob", TOY_ID)  # a thread is a channel
    assert other.channel_id == CH + 1


async def test_concurrent_creates_make_one_table(service: TableService) -> None:
    results = await asyncio.gather(
        *(service.create(CH, GUILD, u, str(u), TOY_ID) for u in (ANN, BOB, CAT)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, AlreadyHasTable) for r in results if isinstance(r, Exception))


async def test_join_errors(service: TableService, backend: Backend) -> None:
    with pytest.raises(NoTable):
        await service.join(CH, BOB, "Bob")
    info = await service.create(CH, GUILD, ANN, "Ann", TOY_ID)
    with pytest.raises(AlreadySeated):
        await service.join(CH, ANN, "Ann again")
    await service.join(CH, BOB, "Bob")
    with pytest.raises(AlreadySeated):
        await service.join(CH, BOB, "Bob")
    await service.join(CH, CAT, "Cat")
    before = await snapshot(service, backend, info.id)
    with pytest.raises(TableFull, match="3 of 3"):
        await service.join(CH, DAN, "Dan")
    with pytest.raises(TableFull):
        await service.add_ai(CH, ANN)
    assert await snapshot(service, backend, info.id) == before
    await service.start(CH, ANN)
    with pytest.raises(NotInLobby, match="already started"):
        await service.join(CH, DAN, "Dan")
    with pytest.raises(NotInLobby):
        await service.leave(CH, BOB)
    with pytest.raises(NotInLobby):
        await service.add_ai(CH, ANN)


async def test_start_errors(service: TableService, backend: Backend) -> None:
    info = await service.create(CH, GUILD, ANN, "Ann", TOY_ID)
    before = await snapshot(service, backend, info.id)
    with pytest.raises(NotEnoughPlayers, match="at least 2"):
        await service.start(CH, ANN)
    await service.join(CH, BOB, "Bob")
    with pytest.raises(NotHost, match=r"host \(Ann\)"):
        await service.start(CH, BOB)
    with pytest.raises(NotPlaying, match="not started"):
        await service.act(CH, ANN, {"kind": "take", "n": 1})
    with pytest.raises(NotPlaying):
        await service.public_view(CH)
    assert await snapshot(service, backend, info.id) != before  # Bob joined...
    await service.leave(CH, BOB)
    assert await snapshot(service, backend, info.id) == before  # ...and left; nothing else moved
    await service.join(CH, BOB, "Bob")
    await service.start(CH, ANN)
    with pytest.raises(NotInLobby):
        await service.start(CH, ANN)


async def test_leave_passes_host_or_closes(service: TableService) -> None:
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID)
    with pytest.raises(NotSeated):
        await service.leave(CH, BOB)
    await service.add_ai(CH, ANN, "random")
    await service.join(CH, BOB, "Bob")
    info = await service.leave(CH, ANN)  # the host leaves: Bob (the next human) hosts
    assert info.host_id == BOB and [s.index for s in info.seats] == [0, 1]
    assert [s.name for s in info.seats] == ["AI (random)", "Bob"]
    info = await service.leave(CH, BOB)  # no human left: the lobby closes
    assert info.status is TableStatus.ABORTED
    with pytest.raises(NoTable):
        await service.status(CH)
    await service.create(CH, GUILD, CAT, "Cat", TOY_ID)  # the channel is free again


async def test_add_ai_and_remove_seat(service: TableService) -> None:
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID)
    assert service.ai_levels(TOY_ID) == ["random", "greedy"]
    with pytest.raises(NotHost):
        await service.add_ai(CH, BOB)
    with pytest.raises(UnknownAILevel, match="Levels: random, greedy"):
        await service.add_ai(CH, ANN, "grandmaster")
    info = await service.add_ai(CH, ANN)
    assert info.seats[1].is_ai and info.seats[1].ai_level == "greedy"  # the strongest
    info = await service.add_ai(CH, ANN, "GREEDY")
    assert [s.name for s in info.seats] == ["Ann", "AI (greedy)", "AI (greedy) 2"]
    with pytest.raises(BadSeat):
        await service.remove_seat(CH, ANN, 7)
    with pytest.raises(BadSeat, match="leave"):
        await service.remove_seat(CH, ANN, 0)
    with pytest.raises(NotHost):
        await service.remove_seat(CH, BOB, 1)
    info = await service.remove_seat(CH, ANN, 1)
    assert [(s.index, s.name) for s in info.seats] == [(0, "Ann"), (1, "AI (greedy) 2")]


async def test_game_without_ai_levels(service: TableService) -> None:
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID)
    service.agents = type("NoAgents", (), {"levels": lambda self, g: [],
                                           "get": lambda self, g, lv: None})()
    with pytest.raises(UnknownAILevel, match="no AI"):
        await service.add_ai(CH, ANN)


# --------------------------------------------------------------------------- turns


async def test_a_game_between_two_humans(service: TableService) -> None:
    out = await two_player_game(service, pile=7)
    table_id = out.table_id
    versions = [out.version]
    while not out.public.finished:  # type: ignore[union-attr]
        user = current_user(out)
        assert await service.legal_actions(CH, other_user(out)) == []
        legal = await service.legal_actions(CH, user)
        out = await service.act(CH, user, legal[-1].model_dump(), expected_version=out.version)
        versions.append(out.version)
        assert out.public is not None and out.public.kind == "move"
        assert out.public.mentions == (() if out.public.finished else (current_user(out),))
    assert versions == list(range(len(versions)))
    assert out.table.status is TableStatus.FINISHED
    assert out.public.outcome_text and out.public.outcome_text.startswith("Game over.")  # type: ignore[union-attr]
    assert out.public.outcome_text in out.public.lines  # type: ignore[union-attr]
    # The channel is free; the finished table stays readable by id.
    with pytest.raises(NoTable):
        await service.act(CH, ANN, {"kind": "take", "n": 1})
    with pytest.raises(NotPlaying, match="over"):
        await service.act(table_id, ANN, {"kind": "take", "n": 1})
    final = await service.status(table_id)
    assert final.status is TableStatus.FINISHED and final.outcome is not None
    assert (await service.public_view(table_id)).pile_left == 0  # type: ignore[attr-defined]
    await service.create(CH, GUILD, CAT, "Cat", TOY_ID)


async def test_every_kind_of_bad_move_changes_nothing(service: TableService,
                                                      backend: Backend) -> None:
    out = await two_player_game(service)
    out = await service.act(CH, current_user(out), {"kind": "take", "n": 1}, out.version)
    tid, now_user, idle_user = out.table_id, current_user(out), other_user(out)
    before = await snapshot(service, backend, tid)
    cases: list[tuple[int, object, int | None, type[Exception], str]] = [
        (idle_user, {"kind": "take", "n": 1}, out.version, NotYourTurn, "waiting for"),
        (CAT, {"kind": "take", "n": 1}, out.version, NotSeated, "seat"),
        (now_user, {"kind": "take", "n": 1}, out.version - 1, StaleVersion,
         "This button is from an older turn"),
        (now_user, {"kind": "take", "n": 1}, out.version + 5, StaleVersion, "older turn"),
        (now_user, {"kind": "teleport"}, out.version, IllegalAction, "not a valid Toy Nim"),
        (now_user, {"kind": "take"}, out.version, IllegalAction, "not a valid"),
        (now_user, {"kind": "take", "n": "many"}, out.version, IllegalAction, "not a valid"),
        (now_user, "{not json", out.version, IllegalAction, "not a valid"),
        (now_user, 42, out.version, IllegalAction, "not a valid"),
        (now_user, {"kind": "take", "n": 3}, out.version, IllegalAction, "1 to 2 stones"),
        (now_user, {"kind": "pass"}, None, IllegalAction, "may not pass"),
    ]
    for user, action, version, error, text in cases:
        with pytest.raises(error, match=text):
            await service.act(CH, user, action, version)  # type: ignore[arg-type]
        assert await snapshot(service, backend, tid) == before, (action, error)
    # Both views of the service errors: a TableError and the engine's error class.
    with pytest.raises(core.NotYourTurn):
        await service.act(CH, idle_user, {"kind": "take", "n": 1})
    with pytest.raises(core.StaleVersion):
        await service.act(CH, now_user, {"kind": "take", "n": 1}, -3)
    with pytest.raises(NoTable):
        await service.act(CH + 9, now_user, {"kind": "take", "n": 1})
    with pytest.raises(NoTable, match="no table with id"):
        await service.act("nosuchid", now_user, {"kind": "take", "n": 1})
    with pytest.raises(NoTable):
        await service.act(None, now_user, {"kind": "take", "n": 1})  # type: ignore[arg-type]
    assert await snapshot(service, backend, tid) == before
    # ... and the right move still works.
    out2 = await service.act(tid, now_user, {"kind": "take", "n": 2}, out.version)
    assert out2.version == out.version + 1


async def test_two_concurrent_clicks_exactly_one_applies(service: TableService,
                                                         backend: Backend) -> None:
    out = await two_player_game(service)
    user = current_user(out)
    results = await asyncio.gather(
        service.act(CH, user, {"kind": "take", "n": 1}, out.version),
        service.act(CH, user, {"kind": "take", "n": 2}, out.version),
        return_exceptions=True,
    )
    applied = [r for r in results if isinstance(r, Outbox)]
    refused = [r for r in results if isinstance(r, Exception)]
    assert len(applied) == 1 and len(refused) == 1
    assert isinstance(refused[0], (StaleVersion, NotYourTurn))
    store = backend.store()
    await store.open()
    assert [a.version for a in await store.actions(out.table_id)] == [1]
    await store.close()
    assert (await service.status(CH)).version == 1

    # Double clicks without a version: each player's second click finds it is no
    # longer their turn, so exactly one move per player applies.
    out = applied[0]
    cur, other = current_user(out), other_user(out)
    results = await asyncio.gather(
        *(service.act(CH, u, {"kind": "take", "n": 1}) for u in (cur, cur, other, other)),
        return_exceptions=True,
    )
    assert [type(r) for r in results] == [Outbox, NotYourTurn, Outbox, NotYourTurn]
    assert (await service.status(CH)).version == 3


async def test_abort_rules(service: TableService) -> None:
    with pytest.raises(NoTable):
        await service.abort(CH, ANN)
    out = await two_player_game(service)
    with pytest.raises(NotHost, match="Manage Channels"):
        await service.abort(CH, BOB)
    with pytest.raises(NotHost):
        await service.abort(CH, CAT, can_manage_channel=False)
    done = await service.abort(CH, CAT, can_manage_channel=True)  # a moderator
    assert done.table.status is TableStatus.ABORTED
    assert done.public is not None and "closed by a moderator" in done.public.text
    with pytest.raises(NoTable):
        await service.act(CH, ANN, {"kind": "take", "n": 1})
    with pytest.raises(NotPlaying, match="closed"):
        await service.act(out.table_id, current_user(out), {"kind": "take", "n": 1})
    # The host may abort a lobby too.
    await service.create(CH, GUILD, BOB, "Bob", TOY_ID)
    done = await service.abort(CH, BOB)
    assert "closed by Bob" in done.public.text  # type: ignore[union-attr]
    with pytest.raises(NotPlaying):
        await service.public_view(done.table_id)


# --------------------------------------------------------------------------- restart


async def test_restart_continues_identically(backend: Backend, clock: FakeClock,
                                            tmp_path: Path) -> None:
    # Reference: one uninterrupted service (on a SQLite file whatever the backend: the
    # run under test is the restarted one below).
    ref = await TableService.open_sqlite(tmp_path / "ref.db", clock=clock, agents=ToyAgents())
    out = await two_player_game(ref, seed=99, pile=11)
    takes = [1, 2, 2, 1, 1, 2, 1, 1]
    for n in takes:
        out = await ref.act(CH, current_user(out), {"kind": "take", "n": n}, out.version)
    ref_view = (await ref.public_view(out.table_id)).model_dump()
    await ref.close()

    # The same moves with a restart in the middle.
    s1 = await open_service(backend, clock=clock)
    out = await two_player_game(s1, seed=99, pile=11)
    for n in takes[:4]:
        out = await s1.act(CH, current_user(out), {"kind": "take", "n": n}, out.version)
    mid = await s1.public_view(CH)
    secret = await s1.private_view(CH, ANN)
    await s1.close()

    s2 = await open_service(backend, clock=clock)
    info = await s2.status(CH)
    assert info.version == 4 and info.status is TableStatus.PLAYING
    assert await s2.public_view(CH) == mid and await s2.private_view(CH, ANN) == secret
    with pytest.raises(StaleVersion):  # a button from before the restart is still stale
        await s2.act(CH, current_user(out), {"kind": "take", "n": 1}, 3)
    for n in takes[4:]:
        out = await s2.act(CH, current_user(out), {"kind": "take", "n": n}, out.version)
    assert (await s2.public_view(out.table_id)).model_dump() == ref_view

    # The stored state is exactly the replay of the action log from the seed.
    game = get_game(TOY_ID)
    rec = await s2.store.get_table(out.table_id)
    assert rec is not None
    log = [(a.seat, game.parse_action(a.action)) for a in await s2.store.actions(rec.id)]
    assert [a.version for a in await s2.store.actions(rec.id)] == list(range(1, len(takes) + 1))
    replayed = game.replay(2, game.parse_options(rec.options), rec.seed, log)
    assert game.dump_state(replayed) == rec.state
    await s2.close()


async def test_ai_turn_resumes_after_restart(backend: Backend, clock: FakeClock) -> None:
    s1 = await open_service(backend, clock=clock)
    for seed in range(50):  # find a seed where the AI sits first
        info = await s1.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=seed)
        await s1.add_ai(CH, ANN, "greedy")
        out = await s1.start(CH, ANN)
        if out.table.seats[0].is_ai:
            break
        await s1.abort(CH, ANN)
    assert out.table.to_act == (0,) and out.public.mentions == ()  # type: ignore[union-attr]
    await s1.close()  # before the AI task ever ran

    s2 = TableService(backend.store(), clock=clock, agents=ToyAgents())
    seen: list[Outbox] = []
    s2.subscribe(seen.append)
    await s2.open()
    await s2.wait_idle()
    assert len(seen) == 1 and seen[0].table_id == info.id and seen[0].version == 1
    assert seen[0].public.mentions == (ANN,)  # type: ignore[union-attr]
    assert "AI (greedy) took 2 stone(s)." in seen[0].public.lines  # type: ignore[union-attr]
    await s2.close()


# --------------------------------------------------------------------------- AI seats


async def test_ai_moves_arrive_through_listeners(service: TableService) -> None:
    seen: list[Outbox] = []
    unsubscribe = service.subscribe(seen.append)

    async def async_listener(outbox: Outbox) -> None:
        seen.append(outbox)

    def broken(outbox: Outbox) -> None:
        raise RuntimeError("front end bug")

    service.subscribe(async_listener)
    service.subscribe(broken)  # must not stop the table
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID, {"pile": 9}, seed=5)
    await service.add_ai(CH, ANN, "random")
    out = await service.start(CH, ANN)
    await service.wait_idle()
    out = seen[-1] if seen else out
    while out.table.status is TableStatus.PLAYING:
        legal = await service.legal_actions(CH, ANN)
        out = await service.act(CH, ANN, legal[0], out.version)
        await service.wait_idle()
        if seen and seen[-1].version > out.version:
            out = seen[-1]
    assert out.table.status is TableStatus.FINISHED
    ai_outboxes = seen[::2]
    assert ai_outboxes and all(o.public.kind == "move" for o in ai_outboxes)  # type: ignore[union-attr]
    assert all(o.private == () for o in ai_outboxes)  # the AI's secrets go to nobody
    assert seen[::2] == seen[1::2]
    unsubscribe()
    unsubscribe()  # twice is harmless
    events = await service.store.actions(out.table_id)
    assert {a.user_id for a in events} == {ANN, None}


async def test_failing_agent_falls_back_to_a_legal_move(service: TableService) -> None:
    class BadAgents(ToyAgents):
        def get(self, game_id: str, level: str):  # type: ignore[override]
            class Cheater:
                def choose(self, game, state, seat, rng):  # type: ignore[no-untyped-def]
                    return {"kind": "pass"}
            return Cheater()

    service.agents = BadAgents()
    seen: list[Outbox] = []
    service.subscribe(seen.append)
    for seed in range(50):
        await service.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=seed)
        await service.add_ai(CH, ANN)
        out = await service.start(CH, ANN)
        if out.table.seats[0].is_ai:
            break
        await service.abort(CH, ANN)
    await service.wait_idle()
    assert len(seen) == 1 and seen[0].version == 1  # it moved legally instead of stalling


# --------------------------------------------------------------------------- reminders


async def test_reminders_with_a_fake_clock(backend: Backend, clock: FakeClock) -> None:
    s = await open_service(backend, clock=clock, reminder_minutes=10)
    out = await two_player_game(s)
    first = current_user(out)
    assert await s.due_reminders() == []
    assert await s.due_reminders(clock.advance(9.5)) == []
    due = await s.due_reminders(clock.advance(0.5))
    assert len(due) == 1 and due[0].public is not None
    assert due[0].public.kind == "reminder" and due[0].public.mentions == (first,)
    assert "it is your turn" in due[0].public.text and "10 min" in due[0].public.text
    assert await s.due_reminders() == []  # not twice for the same wait
    assert await s.due_reminders(clock.advance(9)) == []
    again = await s.due_reminders(clock.advance(1))
    assert [o.public.mentions for o in again] == [(first,)]  # type: ignore[union-attr]
    out = await s.act(CH, first, {"kind": "take", "n": 1}, out.version)
    assert await s.due_reminders(clock.advance(5)) == []  # the new turn's clock restarted
    # The reminder bookkeeping survives a restart.
    await s.close()
    s = await open_service(backend, clock=clock)
    due = await s.due_reminders(clock.advance(5))
    assert [o.public.mentions for o in due] == [(current_user(out),)]  # type: ignore[union-attr]
    assert await s.due_reminders() == []
    await s.close()


async def test_per_table_reminder_time_and_zero_means_never(backend: Backend,
                                                            clock: FakeClock) -> None:
    s = await open_service(backend, clock=clock)
    await s.create(CH, GUILD, ANN, "Ann", TOY_ID, reminder_minutes=2)
    await s.join(CH, BOB, "Bob")
    await s.start(CH, ANN)
    await s.create(CH + 1, GUILD, ANN, "Ann", TOY_ID, reminder_minutes=0)
    await s.join(CH + 1, BOB, "Bob")
    await s.start(CH + 1, ANN)
    assert (await s.status(CH)).reminder_minutes == 2
    due = await s.due_reminders(clock.advance(3))
    assert [o.table.channel_id for o in due] == [CH]
    assert [o.table.channel_id for o in await s.due_reminders(clock.advance(600))] == [CH]
    await s.close()


async def test_reminder_loop_delivers_to_listeners(backend: Backend, clock: FakeClock) -> None:
    s = await open_service(backend, clock=clock, reminder_minutes=1)
    got: list[Outbox] = []
    s.subscribe(got.append)
    await two_player_game(s)
    clock.advance(2)
    task = asyncio.create_task(s.run_reminders(poll_seconds=0.001))
    for _ in range(200):
        if got:
            break
        await asyncio.sleep(0.001)
    assert len(got) == 1 and got[0].public.kind == "reminder"  # type: ignore[union-attr]
    await s.close()
    assert task.done()


# --------------------------------------------------------------------------- seats


async def test_seat_replacement(service: TableService, backend: Backend) -> None:
    out = await two_player_game(service, pile=12)
    tid = out.table_id
    bob_seat = next(s.index for s in out.table.seats if s.user_id == BOB)
    before = await snapshot(service, backend, tid)
    with pytest.raises(NotHost):
        await service.replace_seat(CH, BOB, bob_seat, new_user_id=CAT, new_name="Cat")
    with pytest.raises(BadSeat):
        await service.replace_seat(CH, ANN, 5, new_user_id=CAT, new_name="Cat")
    with pytest.raises(AlreadySeated, match="Ann already holds"):
        await service.replace_seat(CH, ANN, bob_seat, new_user_id=ANN, new_name="Ann")
    with pytest.raises(UnknownAILevel):
        await service.replace_seat(CH, ANN, bob_seat, ai_level="godlike")
    assert await snapshot(service, backend, tid) == before

    out = await service.replace_seat(CH, ANN, bob_seat, new_user_id=CAT, new_name="Cat")
    assert out.public is not None and "(Bob) is now played by Cat" in out.public.text
    assert out.version == before[0]  # no game move: buttons stay valid
    assert out.table.seats[bob_seat].user_id == CAT
    with pytest.raises(NotSeated):
        await service.act(CH, BOB, {"kind": "take", "n": 1})
    if current_user(out) != CAT:
        out = await service.act(CH, ANN, {"kind": "take", "n": 1}, out.version)
    out = await service.act(CH, CAT, {"kind": "take", "n": 1}, out.version)
    assert (await service.private_view(CH, CAT)).my_values  # type: ignore[attr-defined]

    # A moderator hands Cat's seat to an AI, which then plays on its own.
    seen: list[Outbox] = []
    service.subscribe(seen.append)
    out = await service.replace_seat(CH, BOB, bob_seat, can_manage_channel=True)
    assert out.table.seats[bob_seat].is_ai and out.table.seats[bob_seat].ai_level == "greedy"
    await service.act(CH, ANN, {"kind": "take", "n": 1}, out.version)
    await service.wait_idle()
    assert seen and seen[-1].public.lines[0].startswith("AI (greedy) took")  # type: ignore[union-attr]
    with pytest.raises(NotSeated):
        await service.private_view(CH, CAT)


async def test_replace_needs_a_running_game(service: TableService) -> None:
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID)
    with pytest.raises(NotPlaying):
        await service.replace_seat(CH, ANN, 0, new_user_id=BOB, new_name="Bob")


# --------------------------------------------------------------------------- hidden info


async def test_private_events_never_reach_the_public(service: TableService) -> None:
    seen: list[Outbox] = []
    service.subscribe(seen.append)
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID, {"pile": 10}, seed=11)
    await service.join(CH, BOB, "Bob")
    await service.add_ai(CH, ANN, "greedy")
    out = await service.start(CH, ANN)
    outboxes = [out]
    await service.wait_idle()
    while True:
        info = await service.status(out.table_id)
        if info.status is not TableStatus.PLAYING:
            break
        user = info.to_act_users[0]
        out = await service.act(CH, user, {"kind": "take", "n": 1}, info.version)
        outboxes.append(out)
        await service.wait_idle()
    outboxes += seen
    assert len(outboxes) > 8
    for o in outboxes:
        assert o.public is not None
        assert not any("found stones worth" in line for line in o.public.lines)
        for p in o.private:
            seat = o.table.seats[p.seat]
            assert p.user_id == seat.user_id and p.seat == seat.index
            # A private line names only its own seat.
            assert all(line.startswith(seat.name) for line in p.lines)
    private_lines = [line for o in outboxes for p in o.private for line in p.lines]
    assert any("found stones worth" in line for line in private_lines)
    # Public history and views hold no secret; a seat's history has its own only.
    public_log = await service.history(out.table_id)
    assert public_log and not any("found" in line for line in public_log)
    ann_log = await service.history(out.table_id, ANN)
    ann_name = out.table.seat_of(ANN).name  # type: ignore[union-attr]
    assert all(line.startswith(ann_name) for line in ann_log if "found" in line)
    assert any("found" in line for line in ann_log)
    assert (await service.public_view(out.table_id)).my_values is None  # type: ignore[attr-defined]
    # Nothing but views leaves the service: no outbox or info carries a state.
    assert not hasattr(out.table, "state") and "pile" not in out.table.__dict__


async def test_action_labels_come_from_the_game_adapter(sqlite_service: TableService) -> None:
    """Labels have one home, the game's UI adapter; a game without one gets the generic
    label, and the service only lists games."""
    from bot.core.choices import get_ui
    from tests.toy_game import Take

    assert get_ui(TOY_ID).label(Take(n=2)) == "take n=2"
    assert get_ui("nope").label(Take(n=2)) == "take n=2"
    with pytest.raises(UnknownGame):
        sqlite_service._game("nope")
    assert (TOY_ID, "Toy Nim") in sqlite_service.games()


async def test_checks_for_front_ends(sqlite_service: TableService) -> None:
    assert sqlite_service.check_options(TOY_ID, {"pile": 4}) == {"pile": 4, "max_take": 2}
    assert sqlite_service.check_options(TOY_ID, None) == {"pile": 9, "max_take": 2}
    with pytest.raises(BadOptions, match="option 'max_take'"):
        sqlite_service.check_options(TOY_ID, {"max_take": 9})
    with pytest.raises(UnknownGame):
        sqlite_service.check_options("nope", {})
    assert sqlite_service.check_ai_level(TOY_ID, None) == "greedy"
    assert sqlite_service.check_ai_level(TOY_ID, "Random") == "random"
    with pytest.raises(UnknownAILevel):
        sqlite_service.check_ai_level(TOY_ID, "wizard")


# --------------------------------------------------------------------------- two processes


async def test_two_services_share_one_store(backend: Backend, clock: FakeClock) -> None:
    """Two bot processes on one database (the scale-out design): no table state lives
    only in one process's memory, and a move can still be committed only once."""
    a = await open_service(backend, clock=clock)
    b = await open_service(backend, clock=clock)
    try:
        info = await a.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=4)
        with pytest.raises(AlreadyHasTable):  # b has never seen this table
            await b.create(CH, GUILD, BOB, "Bob", TOY_ID)
        await b.join(CH, BOB, "Bob")  # b finds it in the store
        out = await a.start(CH, ANN)  # a catches up with b's join
        assert {s.user_id for s in out.table.seats} == {ANN, BOB}
        first, second = current_user(out), other_user(out)
        out = await b.act(CH, first, {"kind": "take", "n": 1}, out.version)
        # a has a stale copy in memory, but a click with the current version works there.
        out = await a.act(info.id, second, {"kind": "take", "n": 1}, out.version)
        assert (await b.status(CH)).version == 2
        assert await b.public_view(CH) == await a.public_view(CH)
        # The same click delivered to both processes at once: exactly one applies.
        results = await asyncio.gather(
            a.act(CH, first, {"kind": "take", "n": 1}, out.version),
            b.act(CH, first, {"kind": "take", "n": 2}, out.version),
            return_exceptions=True,
        )
        assert sum(isinstance(r, Outbox) for r in results) == 1
        assert all(isinstance(r, (StaleVersion, NotYourTurn)) for r in results
                   if not isinstance(r, Outbox))
        assert [x.version for x in await a.store.actions(info.id)] == [1, 2, 3]
        # An abort in one process frees the channel in the other.
        await b.abort(CH, ANN)
        with pytest.raises(NotPlaying):
            await a.act(info.id, second, {"kind": "take", "n": 1})
        with pytest.raises(NoTable):
            await a.status(CH)
        await a.create(CH, GUILD, CAT, "Cat", TOY_ID)
        assert (await b.status(CH)).host_id == CAT
    finally:
        await a.close()
        await b.close()


async def test_malformed_ids_are_refused(service: TableService) -> None:
    for channel in ("500", None, True, -1, 2**70):
        with pytest.raises(TableError, match="not a valid channel id"):
            await service.create(channel, GUILD, ANN, "Ann", TOY_ID)  # type: ignore[arg-type]
    with pytest.raises(TableError, match="not a valid user id"):
        await service.create(CH, GUILD, "ann", "Ann", TOY_ID)  # type: ignore[arg-type]
    with pytest.raises(TableError, match="not a valid server id"):
        await service.create(CH, "guild", ANN, "Ann", TOY_ID)  # type: ignore[arg-type]
    await service.create(CH, None, ANN, "", TOY_ID)  # DMs have no guild; blank name
    assert (await service.status(CH)).seats[0].name == f"Player {ANN}"
    with pytest.raises(TableError, match="not a valid user id"):
        await service.join(CH, 1.5, "Bob")  # type: ignore[arg-type]
    await service.join(CH, BOB, "Bob")
    out = await service.start(CH, ANN)
    with pytest.raises(TableError, match="not a valid user id"):
        await service.replace_seat(CH, ANN, 0, new_user_id="x", new_name="X")  # type: ignore[arg-type]
    assert (await service.status(CH)).version == out.version
