"""The order of a table's deliveries: version by version, within this process.

A move's outbox holds its place in its table's order from the moment it is committed
(:meth:`TableOrder.begin`, before any wait), so a later version (an AI's instant answer)
waits behind it. A delivery still waiting for its picture when a newer version's delivery
begins is *overtaken*: what it was about to show is no longer the table, so it goes out as
news alone (:func:`without_choices`) and the newer one brings the board and the buttons.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from bot.core.tables import Outbox

__all__ = ["TableOrder", "without_choices"]

log = logging.getLogger(__name__)


def without_choices(outbox: Outbox) -> Outbox:
    """``outbox``'s news alone: a newer version is on its way with the board, the
    buttons and the hands."""
    return replace(outbox, public_view=None, seats=tuple(
        replace(s, view=None, legal=()) for s in outbox.seats))


class TableOrder:
    """Per-table ordering of outboxes by version (within this process).

    An outbox is *in flight* from the moment it is handed to the delivery
    (synchronously, before any wait) until it is delivered; a later version waits for
    every earlier one in flight. A resync after a restart takes the place just after its
    snapshot's version (``version + 0.5``), between two moves."""

    WAIT = 10.0
    """Seconds an update waits before going out anyway (the predecessor may never
    come: its delivery failed, or this process just restarted)."""

    def __init__(self) -> None:
        self.in_flight: set[float] = set()
        self.highest = -1
        """The newest version whose delivery began here (a resync's place aside)."""
        self._changed = asyncio.Condition()
        self._overtaken: dict[float, asyncio.Event] = {}

    def begin(self, version: float) -> None:
        self.in_flight.add(version)
        if version == int(version):
            self.highest = max(self.highest, int(version))
            for older, event in self._overtaken.items():
                if older < version:
                    event.set()

    def overtaken(self, version: float) -> asyncio.Event:
        """Set once a newer version's delivery begins here while ``version``'s is on
        its way (its picture still waiting to be drawn, say): what it was about to show
        is no longer the table, and the newer one is waiting for it."""
        event = self._overtaken.get(version)
        if event is None:
            event = self._overtaken[version] = asyncio.Event()
            if self.newer_waiting(version):
                event.set()
        return event

    def arrives_late(self, version: int) -> bool:
        """A stored outbox of ``version`` reaches this process after a newer version's
        delivery began here without it: an older outbox left by a process that died,
        found by the catch-up while the table had moved on."""
        return version not in self.in_flight and self.highest > version

    def newer_waiting(self, version: float) -> bool:
        """A later delivery is in flight: it brings the board and the buttons. (A
        resync's place, between two versions, brings neither.)"""
        return any(v > version and v == int(v) for v in self.in_flight)

    async def wait_for_turn(self, version: float) -> None:
        async with self._changed:
            try:
                await asyncio.wait_for(
                    self._changed.wait_for(lambda: not any(v < version for v in self.in_flight)),
                    self.WAIT)
            except TimeoutError:
                log.warning("update %s went out before its predecessor", version)
                # whatever it waited for is not coming: do not make the next one wait too
                self.in_flight = {v for v in self.in_flight if v >= version}

    async def done(self, version: float) -> None:
        self._overtaken.pop(version, None)
        async with self._changed:
            self.in_flight.discard(version)
            self._changed.notify_all()
