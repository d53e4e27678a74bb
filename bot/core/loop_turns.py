"""Heavy work takes turns on the event loop, so a burst of moves never holds up the
first responses.

Every click is acknowledged before its table is read (bot/messages/clicks.py), but the
acknowledgement is an HTTP request, and sending it (a fresh connection, reading the
answer) takes several turns of the event loop. asyncio runs, in one turn, every callback
that is ready, in order. When a few hundred clicks arrive in the same second (a Discord
outage ending, a restart's catch-up, one busy evening across a thousand channels), the
tables' work is ready all at once: each turn of the loop then runs dozens of moves
(legal actions, views, dumps: a few ms each) back to back, and each acknowledgement waits
behind all of them, once per step of its request. Measured at 1,000 tables: the loop
stopped for up to 1.5 s, and acknowledgements took 0.3 to 1.5 s.

:class:`LoopTurns` lets one piece of such work start per turn of the loop: the others
wait in line (first come, first served), while the loop goes on reading the gateway and
sending acknowledgements between them. The work done is the same, in the same order; a
move waits its turn instead of the acknowledgements waiting for every move.

A turn is not a lock: it ends by itself at the next turn of the loop, whatever its holder
does, so waiting for something else while holding one (a table's lock, the store) can
never deadlock.

>>> import asyncio
>>> async def demo() -> list[str]:
...     turns, seen = LoopTurns(), []
...     async def work(name: str) -> None:
...         await turns.take()
...         seen.append(name)
...     async def light() -> None:
...         seen.append("io")
...     # three pieces of work ready at once, then a light callback (an acknowledgement)
...     tasks = [asyncio.create_task(work(n)) for n in "abc"]
...     tasks.append(asyncio.create_task(light()))
...     await asyncio.gather(*tasks)
...     return seen
>>> asyncio.run(demo())
['a', 'io', 'b', 'c']
"""

from __future__ import annotations

import asyncio

__all__ = ["LoopTurns"]


class LoopTurns:
    """One piece of heavy work starts per turn of the event loop (see the module)."""

    def __init__(self) -> None:
        self._lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"<LoopTurns {'taken' if self._lock.locked() else 'free'}>"

    async def take(self) -> None:
        """Wait for this task's turn; the work that follows until its next wait runs
        with no other such work in the same turn of the loop."""
        await self._lock.acquire()
        # Released by the loop itself once this turn is over: the next piece of work
        # then starts a turn later, after the I/O that became ready in between.
        asyncio.get_running_loop().call_soon(self._lock.release)
