"""Replays: a finished game's board as an animated GIF (``/table replay [game]``).

The story comes from :mod:`bot.core.tables.replay` (the table rebuilt from its action log,
read through the public view only, one step per change of the board); the pictures are
the game's own board renderer, drawn through the ``renderer`` given (the bot passes
``Delivery.draw``: the render pool's worker processes); the GIF is
:func:`renderers.animation.animate`, in a thread. Nothing CPU-bound runs on the event
loop: the replay and the encoding are threads, the boards the pool (or threads).

Every picture is one of at most ``max_frames`` steps (the setup, the end, an even spread
between), and the GIF stays within ``max_bytes`` whatever the game's length (fewer
frames, then smaller, then fewer colours, at worst the final board alone).

    anim = await channel_replay(service, channel_id, game, renderer=delivery.pictures.draw)
    await channel.send(literal(anim.summary), file=discord.File(io.BytesIO(anim.data),
                                                                anim.filename))

One replay is built at a time per process (a second request waits: they are seconds of
CPU each), and the last few are kept, so asking twice costs nothing.
"""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from bot.core.store import Store
from bot.core.tables import TableService
from bot.core.tables.replay import (
    NoFinishedGame,
    NotThatGame,
    ReplayTooShort,
    ReplayUnavailable,
    TableReplay,
    finished_table,
    replay_table,
    require_finished,
)
from bot.core.tables.texts import quote
from bot.messages.render_pool import draw_picture
from renderers.animation import DEFAULT_MAX_BYTES, Still, animate

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_FRAMES",
    "NoFinishedGame",
    "NotThatGame",
    "ReplayAnimation",
    "ReplayTooShort",
    "ReplayUnavailable",
    "channel_replay",
    "replay_animation",
]

log = logging.getLogger(__name__)

Draw = Callable[..., Awaitable[bytes]]
"""``await draw(game_id, view, names=[...]) -> PNG bytes``: ``Delivery.draw``."""

DEFAULT_MAX_FRAMES = 40
"""Pictures of one replay at most: 40 s of animation at a second each, and about 40
boards to draw (3-10 s of CPU on the pool, depending on the game)."""

DEFAULT_WIDTH = 720
"""Frame width: the boards are 900-1200 px wide; at 720 a caption is still 14 px on a
phone showing the GIF 400 px wide, and a 40-frame replay is 1-3 MB."""

PARALLEL = 2
"""Boards of one replay drawn at once: a live table's picture, queued in the same pool,
waits behind at most one replay board (a tenth to a quarter of a second), never
behind the whole replay."""

CACHE_SIZE = 3
"""Replays kept (a finished table never changes): at most this many times ``max_bytes``
of memory."""


class ReplayAnimation(NamedTuple):
    """What ``/table replay`` posts."""

    data: bytes
    """The animated GIF, at most ``max_bytes``."""
    filename: str
    """``replay-<game>-<table>.gif``: the extension makes Discord show it inline."""
    summary: str
    """Plain text for the message (it holds seat names: make it literal before
    posting): the game, the table, how many moves and pictures, the result."""


_cache: OrderedDict[tuple[Any, ...], ReplayAnimation] = OrderedDict()
_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary())


def _lock() -> asyncio.Lock:
    # one per event loop: an asyncio lock belongs to the loop that first waits on it
    loop = asyncio.get_running_loop()
    lock = _locks.get(loop)
    if lock is None:
        lock = _locks[loop] = asyncio.Lock()
    return lock


def _store_of(source: TableService | Store) -> Store:
    """The store of a :class:`~bot.core.tables.TableService`, or the store given."""
    store = getattr(source, "store", source)
    if not isinstance(store, Store):
        raise TypeError(f"a TableService or a Store, not {type(source).__name__}")
    return store


async def _thread_draw(game_id: str, view: Any, **options: Any) -> bytes:
    return await asyncio.to_thread(draw_picture, game_id, view, **options)


async def _draw_all(replay: TableReplay, steps: list[Any], renderer: Draw) -> list[bytes]:
    gate = asyncio.Semaphore(PARALLEL)
    names = list(replay.names)

    async def one(view: Any) -> bytes:
        async with gate:
            return await renderer(replay.game_id, view, names=names)

    return list(await asyncio.gather(*(one(s.view) for s in steps)))


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _summary(replay: TableReplay, frames: int) -> str:
    """ "Replay of Fairy Tale Inn (table ab12): 34 moves, 35 pictures of the board. Game
    over. Bob wins! ..." """
    text = (f"Replay of {replay.game_name} (table {replay.table_id}): "
            f"{_count(replay.moves, 'move')}, {_count(frames, 'picture')} of the board.")
    return f"{text} {replay.result}" if replay.result else text


async def replay_animation(
    source: TableService | Store,
    table_id: str,
    *,
    renderer: Draw | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_frames: int = DEFAULT_MAX_FRAMES,
    width: int = DEFAULT_WIDTH,
) -> ReplayAnimation:
    """The replay of the finished table ``table_id``: ``(data, filename, summary)``.

    ``source`` is the :class:`~bot.core.tables.TableService` (or its store); ``renderer``
    draws one board (``Delivery.draw``; default: the game's renderer in a thread).

    Raises (every one a :class:`~engines.core.UserError` with a message for the person
    asking): :class:`NoFinishedGame` (no such table, or its game is not finished),
    :class:`ReplayTooShort` (no move changed the board), :class:`ReplayUnavailable`
    (its log no longer replays). A renderer's own failure is raised as it is (a fault
    of ours, not the person's).
    """
    store = _store_of(source)
    draw = renderer if renderer is not None else _thread_draw
    rec = await store.get_table(table_id)
    if rec is None:
        raise NoFinishedGame(f"There is no table '{quote(table_id, 40)}'.")
    require_finished(rec)
    key = (rec.id, rec.revision, max_bytes, max_frames, width)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    async with _lock():
        if key in _cache:  # drawn while this one waited for its turn
            return _cache[key]
        started = time.perf_counter()
        actions = await store.actions(rec.id)
        journal = [j.data for j in await store.journal(rec.id)]
        replay = await asyncio.to_thread(replay_table, rec, actions, journal)
        steps = replay.frames(max_frames)
        replayed = time.perf_counter()
        pictures = await _draw_all(replay, steps, draw)
        drawn = time.perf_counter()
        stills = [Still(p, s.label, s.version) for p, s in zip(pictures, steps, strict=True)]
        anim = await asyncio.to_thread(animate, stills, max_bytes=max_bytes, width=width,
                                       total=replay.moves)
        log.info("replay of table %s (%s): %d moves, %d of %d board changes drawn, "
                 "%d frames, %d bytes; replay %.2fs, boards %.2fs, GIF %.2fs (%d attempts)",
                 rec.id, rec.game_id, replay.moves, len(steps), len(replay.steps),
                 anim.frames, len(anim.data), replayed - started, drawn - replayed,
                 anim.seconds, anim.attempts)
        result = ReplayAnimation(anim.data, f"replay-{rec.game_id}-{rec.id}.gif",
                                 _summary(replay, anim.frames))
        _cache[key] = result
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return result


async def channel_replay(
    source: TableService | Store,
    channel_id: int,
    game: str | None = None,
    *,
    renderer: Draw | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    max_frames: int = DEFAULT_MAX_FRAMES,
    width: int = DEFAULT_WIDTH,
) -> ReplayAnimation:
    """``/table replay [game]`` in ``channel_id``: the replay of the channel's last
    table, or of the one ``game`` names (a table id of this channel, or the name or id
    of the last table's game).

    Raises :class:`NoFinishedGame` (nothing finished to replay here),
    :class:`NotThatGame` (``game`` names no finished game of this channel),
    :class:`ReplayTooShort` and :class:`ReplayUnavailable` (see
    :func:`replay_animation`), all :class:`~engines.core.UserError` s."""
    rec = await finished_table(_store_of(source), channel_id, game)
    return await replay_animation(source, rec.id, renderer=renderer, max_bytes=max_bytes,
                                  max_frames=max_frames, width=width)
