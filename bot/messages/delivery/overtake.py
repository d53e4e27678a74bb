"""Waiting for something (a picture to be drawn) that a newer version may make
pointless.

>>> import asyncio
>>> async def demo() -> list[object]:
...     newer = asyncio.Event()
...     async def picture() -> str:
...         await asyncio.sleep(10)  # a long queue of pictures
...         return "png"
...     waiting = asyncio.ensure_future(unless(newer, picture()))
...     await asyncio.sleep(0)
...     newer.set()  # the table moved on meanwhile
...     return [await waiting, await unless(None, asyncio.sleep(0, "png"))]
>>> asyncio.run(demo())
[None, 'png']
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable
from typing import TypeVar

__all__ = ["unless"]

T = TypeVar("T")


async def unless(event: asyncio.Event | None, work: Awaitable[T]) -> T | None:
    """``work``'s result, or ``None`` if ``event`` is set first (``work`` is then
    cancelled: a picture still waiting for a worker is never drawn)."""
    if event is None:
        return await work
    if event.is_set():
        if inspect.iscoroutine(work):
            work.close()
        return None
    task = asyncio.ensure_future(work)
    stop = asyncio.ensure_future(event.wait())
    try:
        await asyncio.wait((task, stop), return_when=asyncio.FIRST_COMPLETED)
    finally:
        stop.cancel()
    if task.done():
        return task.result()
    task.cancel()
    with contextlib.suppress(BaseException):
        await task
    return None
