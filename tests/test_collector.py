"""The collector's tuning (bot/core/collector.py): no automatic full collection, young ones
as before, and a full collection on the clock that frees old cyclic garbage."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from bot.core.collector import NEVER, Collector


@pytest.fixture
def restored() -> Iterator[None]:
    saved = gc.get_threshold(), list(gc.callbacks)
    yield
    gc.set_threshold(*saved[0])
    gc.callbacks[:] = saved[1]


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def nodes() -> int:
    return sum(type(o) is Node for o in gc.get_objects())


@pytest.mark.usefixtures("restored")
async def test_only_the_clock_runs_a_full_collection() -> None:
    before = gc.get_threshold()
    c = Collector(full_seconds=0.05)
    c.install()
    assert gc.get_threshold() == (before[0], before[1], NEVER)
    old = Node()
    gc.collect(1)
    gc.collect(1)  # survived the young generations: now only a full collection frees it
    del old
    for _ in range(200):  # plenty of young collections
        gc.collect(1)
    assert nodes() == 1 and c.full_collections == 0
    young = Node()
    del young
    gc.collect(0)  # young cyclic garbage goes at once, as before
    assert nodes() == 1
    task = asyncio.ensure_future(c.run())
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert c.full_collections >= 1 and nodes() == 0
    c.uninstall()
    assert gc.get_threshold() == before and c._callback not in gc.callbacks
