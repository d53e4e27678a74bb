"""bot/core/loop_turns.py: heavy work takes turns on the event loop, light callbacks run
between the turns, and a turn can never be held for good."""

from __future__ import annotations

import asyncio

import pytest

from bot.core.loop_turns import LoopTurns


async def _burst(turns: LoopTurns | None, pieces: int) -> tuple[list[str], int]:
    """``pieces`` tasks of heavy work ready at once, and a light callback (an
    acknowledgement) that becomes ready while the first one runs: the order they ran in,
    and how many pieces ran before the light one."""
    order: list[str] = []
    light_ready = asyncio.Event()

    async def heavy(i: int) -> None:
        if turns is not None:
            await turns.take()
        order.append(f"w{i}")
        if i == 0:
            # the first piece makes the light one ready (a request's answer arriving)
            asyncio.get_running_loop().call_soon(light_ready.set)

    async def light() -> None:
        await light_ready.wait()
        order.append("ack")

    await asyncio.gather(light(), *(heavy(i) for i in range(pieces)))
    return order, order.index("ack")


async def test_without_turns_every_ready_piece_runs_before_the_light_callback() -> None:
    # The problem, shown: one turn of the loop runs every piece that is ready.
    _order, before = await _burst(None, 20)
    assert before == 20


async def test_with_turns_the_light_callback_runs_after_one_piece() -> None:
    order, before = await _burst(LoopTurns(), 20)
    assert before <= 2
    # and the work itself is all done, in the order it came
    assert [x for x in order if x != "ack"] == [f"w{i}" for i in range(20)]


async def test_a_turn_ends_by_itself_even_if_its_holder_waits_on_another() -> None:
    # A holds a turn and waits for B, which needs a turn of its own: no deadlock.
    turns = LoopTurns()
    b_done = asyncio.Event()

    async def a() -> str:
        await turns.take()
        await b_done.wait()
        return "a"

    async def b() -> str:
        await turns.take()
        b_done.set()
        return "b"

    assert await asyncio.wait_for(asyncio.gather(a(), b()), 2) == ["a", "b"]


async def test_a_waiter_cancelled_in_line_does_not_stop_the_others() -> None:
    turns = LoopTurns()
    seen: list[int] = []

    async def work(i: int) -> None:
        await turns.take()
        seen.append(i)

    tasks = [asyncio.create_task(work(i)) for i in range(5)]
    await asyncio.sleep(0)  # every task is now in line (the first holds the turn)
    tasks[2].cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(results[2], asyncio.CancelledError)
    assert seen == [0, 1, 3, 4]
    await asyncio.wait_for(turns.take(), 1)  # and the turn is free again


def test_repr() -> None:
    assert repr(LoopTurns()) == "<LoopTurns free>"


@pytest.mark.parametrize("pieces", [1, 3])
async def test_small_bursts_run_everything(pieces: int) -> None:
    order, _ = await _burst(LoopTurns(), pieces)
    assert sorted(order) == sorted(["ack", *(f"w{i}" for i in range(pieces))])

