"""Pictures drawn in worker processes.

Drawing and encoding a board takes tens of milliseconds of pure Python and Pillow work.
In a thread of the bot's process it holds the interpreter's lock for most of that time,
so under load every first response to a click waits behind the pictures being drawn.
In a pool of worker processes (one per core by default, each at a lower CPU priority)
the event loop keeps its interpreter, and first call on the cores, to itself.

Workers are started with ``spawn`` (a fork of a process with an event loop and threads
is not safe) and import the shipped games' renderers once, at start. A worker knows only
the games declared by :data:`engines.catalog.BUILTIN` modules: a game declared at run
time (a test's toy game) is drawn in a thread as before (:meth:`RenderPool.serves`).

>>> pool = RenderPool(workers=1)
>>> pool.serves("fairy-tale-inn"), pool.serves("no-such-game")
(True, False)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from engines.catalog import BUILTIN, spec

__all__ = ["RenderPool", "draw_picture"]

log = logging.getLogger(__name__)


def draw_picture(game_id: str, view: Any, *, private: bool = False, **options: Any) -> bytes:
    """The game's picture of ``view``: its board, or with ``private`` a seat's own
    picture. What a worker runs, and the bot's renderer when pictures stay in-process."""
    import renderers

    draw = renderers.render_private if private else renderers.render
    return draw(game_id, view, **options)


WORKER_NICENESS = 10
"""How much lower a worker's CPU priority is than the bot's: when the machine is busy,
the event loop (first responses, commits) runs first and pictures take what is left."""


def _warm() -> None:
    """Worker start: step back in CPU priority, then import every shipped renderer
    (fonts and caches load once)."""
    from engines.catalog import resolve, specs

    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(WORKER_NICENESS)

    for declared in specs():
        for target in (declared.board, declared.private_picture):
            if target is not None:
                # a renderer that does not load fails later, with its own log line
                with contextlib.suppress(Exception):
                    resolve(target)


def _draw(game_id: str, view: Any, options: dict[str, Any]) -> bytes:
    return draw_picture(game_id, view, **options)


class RenderPool:
    """A process pool for pictures, started on first use (or by :meth:`start`)."""

    QUEUED_PER_WORKER = 2
    """Pictures handed to the pool at once, per worker; the rest wait in the bot's own
    queue (first come, first served)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers if workers is not None else (os.cpu_count() or 1))
        self._pool: ProcessPoolExecutor | None = None
        self._slots: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    def __repr__(self) -> str:
        state = "running" if self._pool is not None else "idle"
        return f"<RenderPool workers={self.workers} {state}>"

    @staticmethod
    def serves(game_id: str) -> bool:
        """Whether a worker process can draw ``game_id`` (a shipped game)."""
        try:
            return spec(game_id).engine.__module__ in BUILTIN
        except KeyError:
            return False

    def start(self) -> None:
        """Start the workers now, so the first picture does not wait for their imports."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_warm)
            for _ in range(self.workers):
                self._pool.submit(os.getpid)  # each worker starts and warms up

    async def render(self, game_id: str, view: Any, **options: Any) -> bytes:
        """PNG bytes of ``view`` drawn by a worker; raises what the renderer raised."""
        loop = asyncio.get_running_loop()
        if self._slots is None or self._slots[0] is not loop:
            self._slots = (loop, asyncio.Semaphore(self.workers * self.QUEUED_PER_WORKER))
        try:
            # A backlog waits here, not in the executor: handing it a thousand pictures
            # makes each submit wait on its manager thread's lock (measured: the event
            # loop stopped for 190 ms in submit), and a picture nobody needs any more
            # (its table moved on) can still be dropped while it waits here.
            async with self._slots[1]:
                self.start()  # again: a pool that broke while this waited is replaced
                assert self._pool is not None
                return await loop.run_in_executor(self._pool, _draw, game_id, view, options)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): a fresh pool for the next picture.
            log.exception("a picture worker died; starting new ones")
            self.close()
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
