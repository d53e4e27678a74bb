"""The cyclic garbage collector, tuned for a process that holds many tables.

Every click waits while the collector runs on the event loop's thread, and a *full*
collection walks every object the process holds. At 1,000 busy tables of every game
Python's own schedule ran one every few seconds, each holding the bot for 325-770 ms
(``python -m bench.load_games``, a quiet 2-core machine): those pauses *were* the p99
of first responses. Freezing the survivors of each one did not help, since every move
replaces its table's state and the next full collection walked the new states again.
So full collections leave Python's schedule and run on the clock instead:

* automatic collections stop at the middle generation (0 and 1: the young objects,
  where most cyclic garbage is found, in a few milliseconds);
* every ``full_seconds`` (ten minutes) one full collection runs, a pause of the length
  above at most once in ten minutes at 1,000 busy tables, far shorter with fewer;
  cyclic garbage that outlived the young generations waits for it (memory, not
  correctness);
* a collection over 100 ms is logged as a warning.

>>> Collector().full_seconds
600.0
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time

log = logging.getLogger(__name__)

__all__ = ["NEVER", "Collector"]

NEVER = 1 << 30
"""A middle-generation count the oldest generation's threshold never reaches."""


class Collector:
    """Installs the thresholds and the timing callback; :meth:`run` makes the full
    collections (cancel it to stop)."""

    def __init__(self, *, full_seconds: float = 600.0, slow: float = 0.1) -> None:
        self.full_seconds = full_seconds
        self.slow = slow
        self.full_collections = 0
        self._started = 0.0
        self._saved: tuple[int, int, int] | None = None

    def install(self) -> None:
        self._saved = gc.get_threshold()
        gen0, gen1, _gen2 = self._saved
        gc.set_threshold(gen0, gen1, NEVER)
        gc.callbacks.append(self._callback)

    def uninstall(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._callback)
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        # Start-up's collections (before gc.freeze, nobody waiting) are not news.
        if took >= self.slow and gc.get_freeze_count():
            log.warning("a garbage collection (generation %d) held the bot for %.0f ms",
                        info.get("generation", -1), took * 1000)

    def collect(self) -> int:
        """One full collection now; returns the unreachable objects found."""
        self.full_collections += 1
        return gc.collect()

    async def run(self) -> None:
        """Every ``full_seconds``, one full collection."""
        while True:
            await asyncio.sleep(self.full_seconds)
            started = time.perf_counter()
            found = self.collect()
            log.info("full collection: %d unreachable objects, %.0f ms", found,
                     (time.perf_counter() - started) * 1000)
