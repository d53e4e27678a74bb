"""The live boards: every open socket per channel, and the fan-out of each commit.

The table service tells :meth:`Viewers.on_commit` of every commit of every table
(``TableService.watch``: a move made here, on Discord, by an AI or a timer, a lobby
change), under the table's lock, so in commit order. A channel nobody watches costs a
dictionary look-up. A watched channel has a :class:`Feed`: one task that takes its jobs
in order, each commit and each viewer's (re)synchronisation, builds one ``state``
message per seat (and one for the spectators) and puts it on each viewer's own queue;
each viewer's writer sends its queue in order. So every viewer gets every commit in
version order, and a slow socket holds up nobody but itself: past
:data:`QUEUE_LIMIT` unsent messages its queue is dropped and it gets the latest state
instead (a resync). A state older than the one a viewer has is never sent to it.

Another process of a cluster commits moves this one's watcher never sees (a Discord
click that reached another shard): every :data:`POLL_SECONDS` one store read takes the
revision of every watched table, and a table whose row changed without a commit here (or
is at a newer version than its viewers have) resynchronises its viewers from the store.

Nothing here draws a picture: the browser draws the board from the view.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from bot.core.tables import NoTable, Outbox, TableService, TableStatus
from bot.web.protocol import dumps, no_table
from bot.web.states import role_of, state_message

__all__ = ["NO_TABLE", "POLL_SECONDS", "QUEUE_LIMIT", "Feed", "Viewer", "Viewers"]

log = logging.getLogger("fabletop.web")

POLL_SECONDS = 0.5
"""How often the watched tables' rows are compared with the store (another process's
commits reach these boards within about this)."""
QUEUE_LIMIT = 64
"""Messages a viewer may have waiting before it is resynchronised instead."""
NO_TABLE = ("There is no table in this channel yet. Open one with /table new (pick the "
            "game; others join with /table join, the host starts with /table start) and "
            "this board shows it at once.")

Send = Callable[[str], Awaitable[None]]


@dataclass(eq=False)
class Viewer:
    """One open board: a socket of one person, watching one channel."""

    user_id: int
    channel_id: int
    send: Send
    queue: asyncio.Queue[str | None] = field(default_factory=asyncio.Queue)
    table_id: str | None = None
    game_id: str | None = None
    version: int = -1
    """The version of the newest state sent (a lobby's and a new game's are 0)."""
    seat: int | None = None
    closed: bool = False
    writer: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"<Viewer user={self.user_id} channel={self.channel_id} table={self.table_id}>"


@dataclass(eq=False)
class Feed:
    """One watched channel: its viewers and its jobs, done in order by one task."""

    channel_id: int
    viewers: set[Viewer] = field(default_factory=set)
    jobs: deque[Outbox | Viewer] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None


class Viewers:
    """Every live board of this process, on one table service."""

    def __init__(self, service: TableService) -> None:
        self.service = service
        self.feeds: dict[int, Feed] = {}
        self.sockets: dict[int, int] = {}
        """Open sockets per person (the per-person limit)."""
        self.sent = 0
        """State messages queued for sockets (a benchmark's count)."""
        self.remote = 0
        """Resynchronisations for another process's commits (a test's and a benchmark's
        count)."""
        self._unwatch: Callable[[], None] | None = None
        self._poller: asyncio.Task[None] | None = None
        self._polled: dict[str, tuple[int, int]] = {}
        """table id -> (version, revision) at the last poll."""
        self._local: set[str] = set()
        """Tables committed in this process since the last poll."""

    def start(self) -> None:
        if self._unwatch is None:
            self._unwatch = self.service.watch(self.on_commit)
        if self._poller is None:
            self._poller = asyncio.get_running_loop().create_task(self._poll(),
                                                                  name="web-poll")

    async def close(self) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
            self._poller = None
        for feed in list(self.feeds.values()):
            for viewer in list(feed.viewers):
                await self.leave(viewer)
            if feed.task is not None:
                feed.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await feed.task
        self.feeds.clear()

    # -- viewers ---------------------------------------------------------------------

    def join(self, viewer: Viewer) -> None:
        """Start showing ``viewer`` its channel: a first state (or no_table) comes
        through the channel's feed, in order with the commits."""
        self.sockets[viewer.user_id] = self.sockets.get(viewer.user_id, 0) + 1
        viewer.writer = asyncio.get_running_loop().create_task(
            self._write(viewer), name=f"web-writer-{viewer.user_id}")
        self.resync(viewer)

    def resync(self, viewer: Viewer) -> None:
        """Send ``viewer`` the table as it is now (after a reconnect, on request, or
        when it fell too far behind)."""
        if viewer.closed:
            return
        feed = self._feed(viewer.channel_id)
        feed.jobs.append(viewer)
        feed.wake.set()

    async def leave(self, viewer: Viewer) -> None:
        if viewer.closed:
            return
        viewer.closed = True
        left = self.sockets.get(viewer.user_id, 1) - 1
        if left > 0:
            self.sockets[viewer.user_id] = left
        else:
            self.sockets.pop(viewer.user_id, None)
        feed = self.feeds.get(viewer.channel_id)
        if feed is not None:
            feed.viewers.discard(viewer)
            if not feed.viewers and not any(isinstance(j, Viewer) for j in feed.jobs):
                self.feeds.pop(viewer.channel_id, None)
                if feed.task is not None:
                    feed.task.cancel()
        viewer.queue.put_nowait(None)  # the writer's end
        if viewer.writer is not None and viewer.writer is not asyncio.current_task():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await viewer.writer

    def open_sockets(self, user_id: int) -> int:
        return self.sockets.get(user_id, 0)

    # -- commits -----------------------------------------------------------------------

    def on_commit(self, outbox: Outbox) -> None:
        """The service's watcher: under the table's lock, so it only queues."""
        self._local.add(outbox.table_id)
        feed = self.feeds.get(outbox.table.channel_id)
        if feed is None:
            return
        feed.jobs.append(outbox)
        feed.wake.set()

    # -- other processes' commits ----------------------------------------------------------

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                await self.poll_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # a store that cannot answer now: the next poll tries again
                log.warning("the web boards could not read the watched tables",
                            exc_info=True)

    async def poll_once(self) -> int:
        """Resynchronise the viewers of every watched table whose row another process
        changed since the last poll; returns how many tables that was."""
        watched: dict[str, list[Viewer]] = {}
        queued: dict[str, int] = {}  # the newest commit each feed has yet to fan out
        for feed in self.feeds.values():
            for viewer in feed.viewers:
                if viewer.table_id is not None and not viewer.closed:
                    watched.setdefault(viewer.table_id, []).append(viewer)
            for job in feed.jobs:
                if isinstance(job, Outbox):
                    queued[job.table_id] = max(queued.get(job.table_id, -1), job.version)
        local, self._local = self._local, set()
        if not watched:
            self._polled.clear()
            return 0
        rows = await self.service.store.table_revisions(list(watched))
        moved = 0
        for table_id, (version, revision) in rows.items():
            before = self._polled.get(table_id)
            self._polled[table_id] = (version, revision)
            viewers = watched[table_id]
            behind = any(max(v.version, queued.get(table_id, -1)) < version for v in viewers)
            # A row changed by this process's own commit has reached its viewers through
            # the watcher already; a first look only catches a viewer left behind.
            unexplained = not (before is None or before[1] == revision or table_id in local)
            if not unexplained and not behind:
                continue
            moved += 1
            self.remote += 1
            for viewer in viewers:
                self.resync(viewer)
        for gone in set(self._polled) - set(watched):
            del self._polled[gone]
        return moved

    def _feed(self, channel_id: int) -> Feed:
        feed = self.feeds.get(channel_id)
        if feed is None:
            feed = self.feeds[channel_id] = Feed(channel_id)
        if feed.task is None or feed.task.done():
            feed.task = asyncio.get_running_loop().create_task(
                self._run(feed), name=f"web-feed-{channel_id}")
        return feed

    async def _run(self, feed: Feed) -> None:
        while True:
            if not feed.jobs:
                feed.wake.clear()
                await feed.wake.wait()
                continue
            job = feed.jobs.popleft()
            try:
                if isinstance(job, Viewer):
                    await self._sync(feed, job)
                else:
                    await self._fan_out(feed, job)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the web feed of channel %s failed a job", feed.channel_id)

    async def _fan_out(self, feed: Feed, outbox: Outbox) -> None:
        """One commit to every viewer of its channel, each with its own view."""
        if not feed.viewers:
            return
        info = outbox.table
        if outbox.public_view is None and info.status in (TableStatus.PLAYING,
                                                          TableStatus.FINISHED):
            # A commit that carries no views (a reminder, a seat change's news): the
            # views of now, so no viewer is ever left without a board.
            snapshot = await self.service.table_snapshot(info.id)
            if snapshot is not None:
                outbox = Outbox(table=snapshot.table, public=outbox.public,
                                public_view=snapshot.public_view, seats=snapshot.seats,
                                id=outbox.id)
                info = outbox.table
        built: dict[int | None, str] = {}
        for viewer in list(feed.viewers):
            if viewer.version > info.version and viewer.table_id == info.id:
                continue  # it already has a newer state (its sync read the table later)
            seat = role_of(info, viewer.user_id)
            text = built.get(seat)
            if text is None:
                text = built[seat] = dumps(state_message(outbox, seat))
            self._push(viewer, text, info.id, info.game_id, info.version, seat)

    async def _sync(self, feed: Feed, viewer: Viewer) -> None:
        """The table of the viewer's channel as it is now (its last game, finished, if
        there is no live one), or no_table."""
        if viewer.closed:
            return
        feed.viewers.add(viewer)
        try:
            info = await self.service.last_table(viewer.channel_id)
        except NoTable:
            viewer.table_id = viewer.game_id = None
            self._queue(viewer, dumps(no_table(NO_TABLE)))
            return
        snapshot = await self.service.table_snapshot(info.id) if info.status in (
            TableStatus.PLAYING, TableStatus.FINISHED) else None
        outbox = snapshot if snapshot is not None else Outbox(table=info)
        seat = role_of(outbox.table, viewer.user_id)
        self._push(viewer, dumps(state_message(outbox, seat, with_lines=False)),
                   outbox.table.id, outbox.table.game_id, outbox.table.version, seat)

    # -- the viewer's queue ------------------------------------------------------------------

    def _push(self, viewer: Viewer, text: str, table_id: str, game_id: str, version: int,
              seat: int | None) -> None:
        viewer.table_id, viewer.game_id, viewer.version, viewer.seat = (
            table_id, game_id, version, seat)
        self.sent += 1
        self._queue(viewer, text)

    def _queue(self, viewer: Viewer, text: str) -> None:
        if viewer.closed:
            return
        if viewer.queue.qsize() >= QUEUE_LIMIT:
            # Too far behind to catch up message by message: what it has not sent is
            # dropped and the table as it is now follows (it would be overtaken anyway).
            while not viewer.queue.empty():
                viewer.queue.get_nowait()
            log.info("web viewer of user %s in channel %s fell behind: resynchronised",
                     viewer.user_id, viewer.channel_id)
            viewer.version = -1
            self.resync(viewer)
            return
        viewer.queue.put_nowait(text)

    async def _write(self, viewer: Viewer) -> None:
        while True:
            text = await viewer.queue.get()
            if text is None or viewer.closed:
                return
            try:
                await viewer.send(text)
            except (ConnectionError, RuntimeError) as exc:
                # The socket went away under us: its handler's end will tidy up.
                log.debug("web socket of user %s closed while sending (%s)",
                          viewer.user_id, type(exc).__name__)
                return

    def stats(self) -> dict[str, Any]:
        return {"channels": len(self.feeds),
                "viewers": sum(len(f.viewers) for f in self.feeds.values())}
