"""Who has a channel's board open in the Activity, for every process of a deployment.

The web front-end says who enters and leaves (:meth:`Presence.enter`, :meth:`leave`: one
call per socket, so two tabs of one person count once and the second tab's close keeps
them in); the Discord delivery asks who is looking (:meth:`Presence.watching`) before it
draws a picture that only people outside the Activity would see. The process that
delivers a table's messages need not be the one serving its board (a cluster on
PostgreSQL), so each process writes its viewers to the store, whole, when they change
and on a heartbeat, and a reader takes every process's rows stamped recently: a process
that died stops counting within :data:`FRESH_SECONDS`, without anyone cleaning up.

>>> import asyncio
>>> from bot.core.store.sqlite import SqliteStore
>>> async def demo():
...     store = SqliteStore(":memory:")
...     await store.open()
...     presence = Presence(store, "host:1")
...     presence.enter(10, 7)
...     presence.enter(10, 7)          # a second tab
...     presence.leave(10, 7)
...     here = await presence.watching(10)
...     await presence.close()
...     await store.close()
...     return here
>>> asyncio.run(demo())
{7}
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.core.store import Store, StoreError

__all__ = ["FRESH_SECONDS", "HEARTBEAT_SECONDS", "Presence"]

log = logging.getLogger("fabletop.presence")

HEARTBEAT_SECONDS = 20.0
"""How often a process stamps its viewers again while it has any."""

FRESH_SECONDS = 60.0
"""A row stamped longer ago than this is a dead process's (three missed heartbeats)."""

READ_SECONDS = 2.0
"""How long a channel's rows from the store are taken as read (a delivery per move
would otherwise read them on every move)."""

Left = Callable[[int, int], None]
"""``on_leave(channel_id, user_id)``: the last socket of that person in this process
closed."""


class Presence:
    """One per table service (so one per process): its own viewers, counted per socket,
    and every process's as the store has them."""

    def __init__(self, store: Store, owner: str,
                 clock: Callable[[], datetime] | None = None) -> None:
        self.store = store
        self.owner = owner
        self.clock = clock or (lambda: datetime.now(UTC))
        self._sockets: Counter[tuple[int, int]] = Counter()
        self._read: dict[int, tuple[float, frozenset[int]]] = {}
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._written = False
        """Whether the store holds rows of ours (an empty process writes nothing)."""
        self._left: list[Left] = []

    def __repr__(self) -> str:
        return f"<Presence {self.owner} viewers={len(self._sockets)}>"

    def enter(self, channel_id: int, user_id: int) -> None:
        """A socket of ``user_id`` shows ``channel_id``'s board (in this process)."""
        key = (int(channel_id), int(user_id))
        self._sockets[key] += 1
        if self._sockets[key] == 1:
            self._dirty()

    def leave(self, channel_id: int, user_id: int) -> None:
        """That socket closed (or moved to another channel)."""
        key = (int(channel_id), int(user_id))
        if self._sockets[key] <= 0:
            self._sockets.pop(key, None)
            return
        self._sockets[key] -= 1
        if self._sockets[key] == 0:
            del self._sockets[key]
            self._dirty()
            for on_leave in list(self._left):
                try:
                    on_leave(*key)
                except Exception:
                    log.exception("a leave listener failed for channel %s", key[0])

    def on_leave(self, listener: Left) -> Callable[[], None]:
        """Call ``listener`` when a person's last socket here closes; returns the undo."""
        self._left.append(listener)
        return lambda: self._left.remove(listener) if listener in self._left else None

    def here(self, channel_id: int) -> set[int]:
        """The people with the channel's board open in this process."""
        return {u for c, u in self._sockets if c == channel_id}

    async def watching(self, channel_id: int) -> set[int]:
        """The people with the channel's board open in any process: this one's at once,
        the others' as stamped in the store (read at most every :data:`READ_SECONDS`
        per channel). A store that cannot answer counts nobody else: the picture is
        then drawn, which is never wrong, only dearer."""
        mine = self.here(channel_id)
        now = time.monotonic()
        read = self._read.get(channel_id)
        if read is None or now - read[0] > READ_SECONDS:
            since = self.clock() - timedelta(seconds=FRESH_SECONDS)
            try:
                others = frozenset(await self.store.present_in(channel_id, since))
            except StoreError:
                others = frozenset()
            read = (now, others)
            self._read[channel_id] = read
            if len(self._read) > 4096:  # channels looked at once long ago
                for old in [c for c, (t, _) in self._read.items() if now - t > READ_SECONDS]:
                    del self._read[old]
        return mine | set(read[1])

    def _dirty(self) -> None:
        self._read.clear()  # our own change is in the next read
        self._changed.set()
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._stamp())

    async def _stamp(self) -> None:
        """Write this process's viewers on every change (a burst of them once) and on a
        heartbeat while there are any; once there are none, clear ours and stop."""
        while True:
            self._changed.clear()
            rows = list(self._sockets)
            if rows or self._written:
                try:
                    await self.store.save_presence(self.owner, rows)
                    self._written = bool(rows)
                except StoreError as exc:
                    log.warning("could not stamp the Activity's viewers: %s", exc)
            if not self._sockets and not self._written:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), HEARTBEAT_SECONDS)

    async def close(self) -> None:
        """Stop the heartbeat and take this process's rows out of the store."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._sockets.clear()
        if self._written:
            with contextlib.suppress(StoreError):
                await self.store.save_presence(self.owner, [])
            self._written = False
