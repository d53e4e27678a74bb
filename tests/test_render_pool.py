"""bot.messages.render_pool: pictures drawn in worker processes are the same bytes as in-process,
a game the workers do not know is drawn in a thread, and a dead worker is replaced."""

from __future__ import annotations

import asyncio
import os
import signal
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

import renderers
from bot.messages.delivery import Delivery
from bot.messages.render_pool import WORKER_NICENESS, RenderPool
from engines import get_game


def _views() -> list[tuple[str, Any]]:
    out = []
    for game_id in ("fairy-tale-inn", "pocket"):
        game = get_game(game_id)
        state = game.setup(game.min_players, game.parse_options({}), 5)
        out.append((game_id, game.view(state, None)))
    return out


async def test_worker_pictures_are_the_in_process_pictures() -> None:
    pool = RenderPool(workers=1)
    try:
        for game_id, view in _views():
            drawn = await pool.render(game_id, view, names=["Ann", "Bob"])
            assert drawn == renderers.render(game_id, view, names=["Ann", "Bob"])
        # many at once: each comes back to its own caller
        game_id, view = _views()[1]
        many = await asyncio.gather(*(pool.render(game_id, view) for _ in range(4)))
        assert len(set(many)) == 1
        with pytest.raises(KeyError):
            await pool.render("no-such-game", view)
    finally:
        pool.close()


async def test_a_dead_worker_is_replaced() -> None:
    pool = RenderPool(workers=1)
    try:
        game_id, view = _views()[1]
        await pool.render(game_id, view)
        assert pool._pool is not None
        for pid in list(pool._pool._processes):  # the test kills a worker
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        with pytest.raises(BrokenProcessPool):
            await pool.render(game_id, view)
        assert await pool.render(game_id, view) == renderers.render(game_id, view)
    finally:
        pool.close()


def test_only_shipped_games_go_to_the_workers() -> None:
    from tests.toy_game import TOY_ID, toy_registered  # a game declared by a test

    assert RenderPool.serves("treasure") and RenderPool.serves("crossroads-inn")
    with toy_registered():
        assert not RenderPool.serves(TOY_ID)
    # an injected renderer (tests) keeps the thread path: no pool
    delivery = Delivery(client=None, store=None, renderer=lambda *a, **k: b"")  # type: ignore[arg-type]
    assert delivery.pictures.pool is None


@pytest.mark.skipif(not hasattr(os, "nice"), reason="no process priorities here")
def test_workers_run_at_a_lower_priority_than_the_bot() -> None:
    pool = RenderPool(workers=1)
    pool.start()
    try:
        assert pool._pool is not None
        worker = pool._pool.submit(os.nice, 0).result(timeout=60)
    finally:
        pool.close()
    assert worker == min(19, os.nice(0) + WORKER_NICENESS)
