"""Two table services on one database, as two bot processes of a cluster: every write
of a table is conditional on what its writer read, the loser is told what happened,
one process plays a table's AI seats, and a reminder goes out once.

The races are made deterministic: the losing service reads the table, then the other
service writes, then the loser tries to write (a store wrapper runs the other service's
operation just before the loser's write reaches the database).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.core.settings import Settings
from bot.core.store import Store
from bot.core.tables import NotPlaying, Outbox, StaleVersion, TableService, TableStatus
from bot.core.tables.errors import TableChanged
from engines.core import Action, Game, Rng, Seat
from tests.conftest import Backend
from tests.toy_game import TOY_ID, ToyAgent, ToyAgents, toy_registered

CH, GUILD = 700, 1
ANN, BOB, CAT = 201, 202, 203


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(autouse=True)
def _toy() -> Iterator[None]:
    with toy_registered():
        yield


class CountingAgents(ToyAgents):
    """Toy agents that count every decision (which process thought about a move)."""

    def __init__(self) -> None:
        self.calls = 0

    def get(self, game_id: str, level: str) -> ToyAgent:
        outer = self
        agent = super().get(game_id, level)

        class Counted(ToyAgent):
            def choose(self, game: Game, state: Any, seat: Seat, rng: Rng) -> Action:
                outer.calls += 1
                time.sleep(0.01)  # a thought takes time: the other process would overlap it
                return agent.choose(game, state, seat, rng)

        return Counted(level)


@pytest.fixture
async def pair(backend: Backend) -> AsyncIterator[tuple[TableService, TableService]]:
    """Two services, as two processes, on one database of each backend."""
    clock = Clock()
    a = TableService(backend.store(), clock=clock, agents=CountingAgents())
    b = TableService(backend.store(), clock=clock, agents=CountingAgents())
    await a.open()
    await b.open()
    try:
        yield a, b
    finally:
        await a.close()
        await b.close()


def before_write(store: Store, method: str, other: Callable[[], Awaitable[Any]]) -> list[Any]:
    """The next ``store.<method>`` call first lets ``other`` run to its end (the other
    process writes between this one's read and its write). Returns a list that receives
    ``other``'s result."""
    real = getattr(store, method)
    done: list[Any] = []

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        setattr(store, method, real)
        done.append(await other())
        return await real(*args, **kwargs)

    setattr(store, method, wrapped)
    return done


async def lobby(s: TableService) -> None:
    await s.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)


async def test_a_join_and_an_addbot_at_once_lose_no_seat(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await lobby(a)
    await b.status(CH)  # b has the lobby cached, as a process that served a click would
    other = before_write(b.store, "save_table", lambda: a.join(CH, BOB, "Bob"))
    # The AI seat lost the race to Bob's join and is added on the new revision
    # (issue 23; tests/test_lobby_races.py has the other seat changes).
    info = await b.add_ai(CH, ANN)
    assert [s.user_id for s in other[0].seats] == [ANN, BOB]
    assert [seat.is_ai for seat in info.seats] == [False, False, True]
    # Both processes now agree: Bob's seat is there, and the AI after it.
    for s in (a, b):
        assert [seat.user_id for seat in (await s.status(CH)).seats] == [ANN, BOB, None]


async def test_an_abort_then_a_stale_move_does_not_revive_the_table(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await lobby(a)
    await a.join(CH, BOB, "Bob")
    out = await a.start(CH, ANN)
    mover = out.table.seats[out.table.to_act[0]].user_id
    before_write(b.store, "commit_action", lambda: a.abort(CH, ANN))
    with pytest.raises(TableChanged) as refused:
        await b.act(out.table.id, mover, {"kind": "take", "n": 1}, out.version)
    assert "aborted" in str(refused.value)
    rec = await a.store.get_table(out.table.id)
    assert rec is not None and rec.status == TableStatus.ABORTED.value
    assert await a.store.actions(out.table.id) == []
    with pytest.raises(NotPlaying):
        await b.act(out.table.id, mover, {"kind": "take", "n": 1}, out.version)


async def test_a_handover_then_a_stale_move_keeps_the_handover(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await lobby(a)
    await a.join(CH, BOB, "Bob")
    out = await a.start(CH, ANN)
    seat = out.table.to_act[0]
    mover = out.table.seats[seat].user_id
    assert mover is not None
    before_write(b.store, "commit_action",
                 lambda: a.replace_seat(CH, ANN, seat, new_user_id=CAT, new_name="Cat"))
    with pytest.raises(TableChanged):
        await b.act(out.table.id, mover, {"kind": "take", "n": 1}, out.version)
    info = await b.status(CH)
    assert info.seats[seat].user_id == CAT and info.version == out.version
    # Cat, who now holds the seat, can play it; the old holder cannot.
    moved = await b.act(CH, CAT, {"kind": "take", "n": 1}, out.version)
    assert moved.version == out.version + 1


async def test_a_reminder_due_in_both_processes_goes_out_once(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await lobby(a)
    await a.join(CH, BOB, "Bob")
    await a.start(CH, ANN)
    await b.status(CH)
    later = a.clock() + timedelta(minutes=11)
    first, second = await asyncio.gather(a.due_reminders(later), b.due_reminders(later))
    assert len(first) + len(second) == 1
    # The same moment seen later by either process: already reminded.
    assert await a.due_reminders(later) == [] and await b.due_reminders(later) == []


async def test_one_process_plays_a_tables_ai_seats(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await lobby(a)
    await a.add_ai(CH, ANN)
    await a.add_ai(CH, ANN)
    await b.status(CH)
    # The host leaves the AIs to it: hand the host's seat to an AI too, from b.
    out = await a.start(CH, ANN)
    human = next(s.index for s in out.table.seats if not s.is_ai)
    await b.replace_seat(CH, ANN, human)
    # Both processes are asked to run the AI: b after its handover, a at its timer pass
    # once it has seen the handover.
    await a.status(out.table.id)
    await a.due_auto_passes()
    await asyncio.gather(a.wait_idle(), b.wait_idle())
    for _ in range(50):
        await a.due_auto_passes()
        await b.due_auto_passes()
        await asyncio.gather(a.wait_idle(), b.wait_idle())
        info = await a.status(out.table.id)
        if info.status is TableStatus.FINISHED:
            break
    assert info.status is TableStatus.FINISHED
    moves = len(await a.store.actions(out.table.id))
    thoughts = a.agents.calls + b.agents.calls  # type: ignore[attr-defined]
    # Every move was thought about once, by the lease holder (a thought whose move lost
    # a race would show as an extra call).
    assert thoughts == moves
    assert a.replaced_choices == b.replaced_choices == 0


async def test_a_lease_has_one_holder_and_expires(backend: Backend) -> None:
    clock = Clock()
    one, two = backend.store(clock=clock), backend.store(clock=clock)
    await asyncio.gather(one.open(), two.open())
    try:
        svc = TableService(one, clock=clock, agents=ToyAgents())
        await svc.open()
        await lobby(svc)
        table_id = (await svc.status(CH)).id
        won = await asyncio.gather(one.claim_lease(table_id, "p1", 60),
                                   two.claim_lease(table_id, "p2", 60))
        assert sorted(won) == [False, True]
        holder, other = ("p1", "p2") if won[0] else ("p2", "p1")
        assert await one.claim_lease(table_id, holder, 60)  # renewal
        assert not await two.claim_lease(table_id, other, 60)
        clock.now += timedelta(seconds=61)
        assert await two.claim_lease(table_id, other, 60)  # expired: taken over
        await one.release_lease(table_id, holder)  # not the holder any more: no effect
        assert not await one.claim_lease(table_id, holder, 60)
        await two.release_lease(table_id, other)
        assert await one.claim_lease(table_id, holder, 60)
    finally:
        await one.close()
        await two.close()


def test_cluster_settings_and_the_one_syncer() -> None:
    s = Settings(_env_file=None, SHARD_IDS="0-3", SHARD_COUNT=8)
    assert s.shard_ids == [0, 1, 2, 3] and s.syncs_commands
    t = Settings(_env_file=None, SHARD_IDS="4-7", SHARD_COUNT=8)
    assert t.shard_ids == [4, 5, 6, 7] and not t.syncs_commands
    assert Settings(_env_file=None).syncs_commands  # one process: it syncs
    with pytest.raises(ValueError, match="backwards"):
        Settings(_env_file=None, SHARD_IDS="3-1", SHARD_COUNT=8)
    with pytest.raises(ValueError, match="outside"):
        Settings(_env_file=None, SHARD_IDS="6-9", SHARD_COUNT=8)


def test_run_takes_the_cluster_flags(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.cli

    seen: list[Settings] = []

    async def fake_run(settings: Settings, *, sync: bool) -> int:
        seen.append(settings)
        return 0

    import bot.messages.client

    monkeypatch.setattr(bot.messages.client, "run_bot", fake_run)
    monkeypatch.setenv("DISCORD_TOKEN", "x.y.z")
    assert bot.cli.main(["run", "--shard-ids", "2-3", "--shard-count", "4"]) == 0
    assert seen[0].shard_ids == [2, 3] and seen[0].shard_count == 4
    assert not seen[0].syncs_commands


async def test_a_refused_stale_move_is_a_stale_version(
    pair: tuple[TableService, TableService],
) -> None:
    """A move that lost to another move (not to a lobby change) still says the button
    is old: TableChanged is only for changes that are not moves."""
    a, b = pair
    await lobby(a)
    await a.join(CH, BOB, "Bob")
    out: Outbox = await a.start(CH, ANN)
    mover = out.table.seats[out.table.to_act[0]].user_id
    before_write(b.store, "commit_action",
                 lambda: a.act(CH, mover, {"kind": "take", "n": 1}, out.version))
    with pytest.raises(StaleVersion) as refused:
        await b.act(CH, mover, {"kind": "take", "n": 2}, out.version)
    assert not isinstance(refused.value, TableChanged)
    assert [x.version for x in await b.store.actions(out.table.id)] == [1]


@pytest.mark.parametrize("death", ["holding the lease", "before claiming the lease"])
async def test_a_dead_processs_ai_turn_is_taken_over_where_the_table_was_never_loaded(
    backend: Backend, death: str,
) -> None:
    """Issue 23: of two processes on one database, the one playing a table's AI is
    killed; the survivor, which started first and never loaded that table, must still
    play the AI's turn once the lease has run out (it used to wait for the dead one to
    come back). Killed while its AI waited AI_DELAY with the lease held, or right after
    the commit that left the AI to act, before it claimed the lease."""
    from bot.core.tables.ai import LEASE_SECONDS

    clock = Clock()
    survivor = TableService(backend.store(clock=clock), clock=clock, agents=CountingAgents())
    await survivor.open()
    dying = TableService(backend.store(clock=clock), clock=clock, agents=CountingAgents(),
                         ai_delay=3600)
    await dying.open()
    try:
        if death == "before claiming the lease":
            dying._start_ai = lambda t: False  # type: ignore[method-assign]
        await dying.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)
        await dying.add_ai(CH, ANN)
        out = await dying.start(CH, ANN)
        table_id = out.table.id
        if out.table.seats[out.table.to_act[0]].user_id == ANN:
            out = await dying.act(CH, ANN, {"kind": "take", "n": 1}, out.version)
        assert out.table.seats[out.table.to_act[0]].is_ai
        leases = "SELECT owner FROM table_leases"
        if death == "holding the lease":
            for _ in range(200):  # its AI claims the lease, then waits its AI_DELAY
                if await backend.rows(dying.store, leases):
                    break
                await asyncio.sleep(0.01)
            assert await backend.rows(dying.store, leases) == [(dying.owner,)]
        # SIGKILL: nothing is given back.
        dying.store.release_lease = _nothing  # type: ignore[method-assign]
        await dying.close()
        assert table_id not in survivor._live

        # While the lease (or the writer's time to claim one) runs, nobody takes over.
        clock.now += timedelta(seconds=LEASE_SECONDS - 1)
        await survivor.due_auto_passes()
        await survivor.wait_idle()
        rec = await survivor.store.get_table(table_id)
        assert rec is not None and rec.version == out.version and rec.ai_to_act
        # Then the survivor's timer pass plays it, once.
        clock.now += timedelta(seconds=2)
        await survivor.due_auto_passes()
        await survivor.wait_idle()
        rec = await survivor.store.get_table(table_id)
        assert rec is not None and rec.version == out.version + 1
        assert survivor.agents.calls == 1  # type: ignore[attr-defined]
        assert dying.agents.calls == 0  # type: ignore[attr-defined]
        assert not rec.ai_to_act  # Ann's turn again
        assert (await survivor.status(table_id)).to_act_users == (ANN,)
    finally:
        await survivor.close()
        if not dying._closed:
            await dying.close()


async def _nothing(*args: Any, **kwargs: Any) -> None:
    return None
