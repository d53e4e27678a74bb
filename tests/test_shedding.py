"""Idle tables shed their state from memory and load it again on their next use, with
nothing changed: the same moves, the same reminders, the same store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.core.tables import TableService
from tests.toy_game import TOY_ID, ToyAgents, toy_registered

CH, GUILD, ANN, BOB = 800, 1, 301, 302


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(autouse=True)
def _toy() -> Iterator[None]:
    with toy_registered():
        yield


async def _game(s: TableService, shed: bool) -> list[str]:
    await s.create(CH, GUILD, ANN, "Ann", TOY_ID, {"pile": 6}, seed=11)
    await s.join(CH, BOB, "Bob")
    out = await s.start(CH, ANN)
    states = []
    while out.table.to_act:
        if shed:
            assert s.shed_idle(0) == 1
            t = s._live[out.table.id]
            assert t.state is None and t.rec.state is None and t.views == {}
        seat = out.table.to_act[0]
        user = out.table.seats[seat].user_id
        assert user is not None
        out = await s.act(CH, user, {"kind": "take", "n": 1}, out.version)
        rec = await s.store.get_table(out.table.id)
        assert rec is not None and rec.state is not None
        states.append(rec.state)
    return states


async def test_a_shed_table_plays_on_exactly_as_a_kept_one(tmp_path: Path) -> None:
    kept = await TableService.open_sqlite(tmp_path / "kept.db", agents=ToyAgents())
    shed = await TableService.open_sqlite(tmp_path / "shed.db", agents=ToyAgents())
    try:
        assert await _game(shed, shed=True) == await _game(kept, shed=False)
    finally:
        await kept.close()
        await shed.close()


async def test_timers_still_see_a_shed_table(tmp_path: Path) -> None:
    clock = Clock()
    s = await TableService.open_sqlite(tmp_path / "t.db", clock=clock, agents=ToyAgents(),
                                       reminder_minutes=10)
    try:
        await s.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=2)
        await s.join(CH, BOB, "Bob")
        out = await s.start(CH, ANN)
        assert s.shed_idle(0) == 1
        assert await s.due_auto_passes() == []  # no timeout: looked at, nothing due
        due = await s.due_reminders(clock.now + timedelta(minutes=11))
        assert [o.public.kind for o in due] == ["reminder"]  # type: ignore[union-attr]
        assert (await s.status(CH)).version == out.version
        assert s.shed_idle(0) == 1
        # Recently used tables and lobbies are left alone.
        assert s.shed_idle(60) == 0
    finally:
        await s.close()


async def test_a_table_in_use_is_not_shed(tmp_path: Path) -> None:
    s = await TableService.open_sqlite(tmp_path / "u.db", agents=ToyAgents())
    try:
        await s.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=5)
        assert s.shed_idle(0) == 0  # a lobby has no state to shed
        await s.join(CH, BOB, "Bob")
        out = await s.start(CH, ANN)
        t = s._live[out.table.id]
        async with t.lock:
            assert s.shed_idle(0) == 0
        assert s.shed_idle(0) == 1
    finally:
        await s.close()
