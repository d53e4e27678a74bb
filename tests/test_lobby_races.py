"""Lobby changes that lose a race on the table's revision to another process (issue 23).

Two people joining one table at the same instant through two processes: one of them was
told "Someone else changed this table at the same moment, nothing was done". A join, a
leave or an AI seat that loses the race is tried again on the new revision, checked
again from the start there (still in the lobby, a free seat, still seated), a bounded
number of times; what no longer applies is refused for what it now is. A move is never
retried (tests/test_cluster.py: a lost move says its button is old).

Each race is deterministic, as in tests/test_cluster.py: the losing service has read the
table, the other service writes, then the loser's write reaches the database. Every test
runs on both backends (a SQLite file, and PostgreSQL on 127.0.0.1:5432).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from bot.core.store import VersionConflict
from bot.core.tables import TableService
from bot.core.tables.errors import (
    AlreadySeated,
    ConcurrentChange,
    NotInLobby,
    NotSeated,
    TableChanged,
    TableFull,
)
from bot.core.tables.lobby import LOBBY_ATTEMPTS
from tests.conftest import Backend
from tests.test_cluster import ANN, BOB, CAT, CH, GUILD, before_write
from tests.toy_game import TOY_ID, ToyAgents, toy_registered

DAN = 204


@pytest.fixture(autouse=True)
def _toy() -> Iterator[None]:
    with toy_registered():
        yield


@pytest.fixture
async def pair(backend: Backend) -> AsyncIterator[tuple[TableService, TableService]]:
    """Two services, as two processes, on one database; both have the lobby cached (as
    processes that served a click on it would)."""
    a = TableService(backend.store(), agents=ToyAgents())
    b = TableService(backend.store(), agents=ToyAgents())
    await a.open()
    await b.open()
    try:
        await a.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)
        await b.status(CH)
        yield a, b
    finally:
        await a.close()
        await b.close()


async def seated(s: TableService) -> list[int | None]:
    return [seat.user_id for seat in (await s.status(CH)).seats]


async def test_two_joins_through_two_processes_both_get_a_seat(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    other = before_write(b.store, "save_table", lambda: a.join(CH, BOB, "Bob"))
    info = await b.join(CH, CAT, "Cat")
    assert [s.user_id for s in other[0].seats] == [ANN, BOB]
    assert [s.user_id for s in info.seats] == [ANN, BOB, CAT]
    for s in (a, b):
        assert await seated(s) == [ANN, BOB, CAT]


async def test_two_joins_at_the_same_instant_both_get_a_seat(
    pair: tuple[TableService, TableService],
) -> None:
    """The same, left to the scheduler: whichever write lands second is retried."""
    a, b = pair
    await asyncio.gather(a.join(CH, BOB, "Bob"), b.join(CH, CAT, "Cat"))
    for s in (a, b):
        assert sorted(await seated(s)) == sorted([ANN, BOB, CAT])  # type: ignore[type-var]


async def test_a_leave_that_lost_to_a_join_is_done_on_the_new_revision(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await a.join(CH, BOB, "Bob")
    await b.status(CH)
    before_write(b.store, "save_table", lambda: a.join(CH, CAT, "Cat"))
    info = await b.leave(CH, BOB)
    assert [s.user_id for s in info.seats] == [ANN, CAT]
    assert [s.index for s in info.seats] == [0, 1]
    assert await seated(a) == [ANN, CAT]


async def test_an_ai_seat_that_lost_to_a_join_is_added_after_it(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    before_write(b.store, "save_table", lambda: a.join(CH, BOB, "Bob"))
    info = await b.add_ai(CH, ANN)
    assert [s.user_id for s in info.seats] == [ANN, BOB, None]
    assert [s.is_ai for s in info.seats] == [False, False, True]
    assert await seated(a) == [ANN, BOB, None]


async def test_a_join_that_no_longer_fits_is_refused_for_the_full_table(
    pair: tuple[TableService, TableService],
) -> None:
    """The toy game seats three: Bob took the last seat while Dan's join was in flight."""
    a, b = pair
    await a.join(CH, CAT, "Cat")
    await b.status(CH)
    before_write(b.store, "save_table", lambda: a.join(CH, BOB, "Bob"))
    with pytest.raises(TableFull):
        await b.join(CH, DAN, "Dan")
    assert await seated(a) == [ANN, CAT, BOB]


async def test_the_same_person_joining_through_both_processes_gets_one_seat(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    before_write(b.store, "save_table", lambda: a.join(CH, BOB, "Bob"))
    with pytest.raises(AlreadySeated):
        await b.join(CH, BOB, "Bob")
    assert await seated(a) == [ANN, BOB]


async def test_a_leave_after_being_removed_is_refused_as_not_seated(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await a.join(CH, BOB, "Bob")
    await b.status(CH)
    before_write(b.store, "save_table", lambda: a.remove_seat(CH, ANN, 1))
    with pytest.raises(NotSeated):
        await b.leave(CH, BOB)
    assert await seated(a) == [ANN]


async def test_a_join_that_lost_to_the_start_is_not_retried(
    pair: tuple[TableService, TableService],
) -> None:
    a, b = pair
    await a.join(CH, BOB, "Bob")
    await b.status(CH)
    before_write(b.store, "save_table", lambda: a.start(CH, ANN))
    with pytest.raises(TableChanged) as refused:
        await b.join(CH, CAT, "Cat")
    assert not isinstance(refused.value, ConcurrentChange)
    assert "started at the same moment" in str(refused.value)
    assert CAT not in await seated(a)
    with pytest.raises(NotInLobby):
        await b.join(CH, CAT, "Cat")


async def test_the_retries_are_bounded(
    pair: tuple[TableService, TableService], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store that refuses every write (another writer always just ahead): the join is
    tried LOBBY_ATTEMPTS times, then refused with the race's own words."""
    _a, b = pair
    tries: list[int] = []

    async def always_beaten(*args: Any, **kwargs: Any) -> Any:
        tries.append(1)
        raise VersionConflict("another writer was first")

    monkeypatch.setattr(b.store, "save_table", always_beaten)
    with pytest.raises(ConcurrentChange) as refused:
        await b.join(CH, BOB, "Bob")
    assert len(tries) == LOBBY_ATTEMPTS
    assert "nothing was done" in str(refused.value)
    monkeypatch.undo()
    assert await seated(b) == [ANN]
