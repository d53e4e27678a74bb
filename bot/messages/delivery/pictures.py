"""The pictures a delivery sends: a table's board or a seat's own picture, drawn off the
event loop (in the render pool's worker processes, or in a thread for an injected
renderer), never from anything but the view they are given."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from bot.core.loop_turns import LoopTurns
from bot.core.tables import TableInfo
from bot.messages.render_pool import RenderPool, draw_picture
from engines.catalog import spec

__all__ = ["Pictures", "Renderer"]

log = logging.getLogger(__name__)

Renderer = Callable[..., bytes]
"""``render(game_id, view, names=[...]) -> PNG bytes`` (renderers.render)."""


def _default_renderer() -> Renderer | None:
    try:
        import renderers  # noqa: F401
    except ImportError:  # pragma: no cover - renderers is part of the package
        return None
    return draw_picture


class Pictures:
    """The one way to a picture. One per bot process, owned by the delivery."""

    def __init__(self, renderer: Renderer | None, pool: RenderPool | None,
                 turns: LoopTurns) -> None:
        self.renderer = renderer if renderer is not None else _default_renderer()
        self.pool = pool if renderer is None else None
        """Worker processes for the shipped games' pictures (an injected renderer, a
        test's, is called in a thread instead)."""
        self.turns = turns
        self.watching: Callable[[int], Awaitable[set[int]]] | None = None
        """Who has a channel's board open in the Activity (``Presence.watching``), when
        the Activity is served: their moves need no picture in Discord."""

    async def all_watching(self, channel_id: int, users: Collection[int]) -> bool:
        """Whether every one of ``users`` (some) has the channel's board open in the
        Activity, where the browser draws it: a picture for them in Discord would not be
        seen. The record of what a message shows keeps the older picture's key, so the
        first update after one of them leaves draws it again."""
        if self.watching is None or not users:
            return False
        return set(users) <= await self.watching(channel_id)

    async def render_png(self, game_id: str, view: Any, info: TableInfo | None = None, *,
                         private: bool = False) -> bytes | None:
        """The picture of ``view`` (the board, or with ``private`` the seat's own
        picture) or ``None`` (no renderer, or it failed: the text still goes out).
        ``info`` gives the seat names."""
        if self.renderer is None or view is None:
            return None
        try:
            declared = spec(game_id)
        except KeyError:
            return None
        if (declared.private_picture if private else declared.board) is None:
            return None
        options: dict[str, Any] = {}
        if info is not None and info.seats:
            options["names"] = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
        if private:
            options["private"] = True
        try:
            png = await self.draw(game_id, view, **options)
        except Exception:
            log.exception("rendering %s failed; sending text only", game_id)
            return None
        # The message that carries it is built next: that work waits its turn.
        await self.turns.take()
        return png

    async def draw(self, game_id: str, view: Any, **options: Any) -> bytes:
        """The renderer's picture of ``view``, off the event loop: in a worker process
        when the pool serves the game, else in a thread. Raises what the renderer
        raised."""
        if self.pool is not None and self.pool.serves(game_id):
            return await self.pool.render(game_id, view, **options)
        assert self.renderer is not None
        return await asyncio.to_thread(self.renderer, game_id, view, **options)
