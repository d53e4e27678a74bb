"""The gateway's reading loop gives the event loop a turn at least every 20 ms.

discord.py reads the gateway in a loop of ``await socket.receive()``; when frames are
already buffered, ``receive`` returns without suspending, so a burst of events (a few
hundred clicks and message updates at once, each parsed into models) runs in one turn
of the event loop, and the acknowledgement of the first click of the burst waits for
the parsing of the last one. Measured at 1,000 tables: the loop stopped for up to 135 ms
inside ``poll_event``. With this, after each event that comes 20 ms or more after the
loop's last turn given here, the loop takes a turn (``asyncio.sleep(0)``): the clicks
already parsed are acknowledged (bot/core/loop_turns.py keeps the heavy work to one piece per
turn), then reading goes on. Between bursts it costs nothing: a suspended ``receive``
is a turn of the loop already.

discord.py has no hook for this, so :func:`install` wraps
``discord.gateway.DiscordWebSocket.poll_event`` once per process (idempotent); the
wrapper only awaits more, it never changes what is read or dispatched.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable

from discord.gateway import DiscordWebSocket

__all__ = ["SLICE", "install", "installed"]

SLICE = 0.02
"""Seconds of reading the gateway after which the event loop gets a turn."""

_last_turn = 0.0


def install() -> None:
    """Make the gateway's reading loop give the event loop a turn every :data:`SLICE`."""
    poll: Callable[[DiscordWebSocket], Awaitable[None]] = DiscordWebSocket.poll_event
    if getattr(poll, "_gives_turns", False):
        return

    @functools.wraps(poll)
    async def poll_event(self: DiscordWebSocket) -> None:
        global _last_turn
        await poll(self)
        now = asyncio.get_running_loop().time()
        if now - _last_turn >= SLICE:
            _last_turn = now
            await asyncio.sleep(0)

    poll_event._gives_turns = True  # type: ignore[attr-defined]
    DiscordWebSocket.poll_event = poll_event  # type: ignore[method-assign]


def installed() -> bool:
    """Whether :func:`install` has run in this process (for tests)."""
    return bool(getattr(DiscordWebSocket.poll_event, "_gives_turns", False))
