"""Service move latency, SQLite commit included.

Plays Fairy Tale Inn moves through :meth:`TableService.act` on several tables at once
(two human seats each, random legal moves; a finished table is replaced by a new one
in the same channel) and prints p50/p95/p99/max of the time one ``act()`` call takes:
lock, checks, parse, engine apply on a copy, one SQLite transaction (state + action +
events), outbox. Two modes: ``sequential`` (one move at a time) and ``concurrent``
(one move on every table at once with asyncio.gather, so commits queue on the single
SQLite connection), for each SQLite durability level.

    .venv/bin/python -m bench.service_latency [--moves 2000] [--tables 8]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench.stats import percentile
from bot.core.store.sqlite import SqliteStore
from bot.core.tables import EngineAgents, TableService, TableStatus
from engines.core import Rng

GAME = "fairy-tale-inn"


async def _new_table(service: TableService, channel: int, seed: int) -> None:
    await service.create(channel, 1, channel * 10, "Ann", GAME, seed=seed, reminder_minutes=0)
    await service.join(channel, channel * 10 + 1, "Bob")
    await service.start(channel, channel * 10)


async def _one_move(service: TableService, channel: int, chooser: Rng,
                    seeds: list[int]) -> float:
    info = await service.status(channel)
    user = info.to_act_users[0]
    action = chooser.choice(await service.legal_actions(channel, user))
    start = time.perf_counter()
    out = await service.act(channel, user, action, expected_version=info.version)
    elapsed = time.perf_counter() - start
    if out.table.status is not TableStatus.PLAYING:
        seeds[0] += 1
        await _new_table(service, channel, seeds[0])
    return elapsed


async def run(path: Path, moves: int, tables: int, synchronous: str,
              concurrent: bool) -> tuple[list[float], float, int]:
    service = TableService(SqliteStore(path, synchronous=synchronous), agents=EngineAgents())
    await service.open()
    chooser = Rng.from_seed(2024)
    seeds = [1000]
    channels = list(range(1, tables + 1))
    for ch in channels:
        seeds[0] += 1
        await _new_table(service, ch, seeds[0])
    times: list[float] = []
    wall = time.perf_counter()
    while len(times) < moves:
        if concurrent:
            times += await asyncio.gather(
                *(_one_move(service, ch, chooser, seeds) for ch in channels)
            )
        else:
            for ch in channels:
                times.append(await _one_move(service, ch, chooser, seeds))
    wall = time.perf_counter() - wall
    games = seeds[0] - 1000
    await service.close()
    return times[:moves], wall, games


async def main_async(args: argparse.Namespace) -> None:
    levels = ["FULL", "NORMAL"] if args.sync == "both" else [args.sync.upper()]
    print(f"TableService.act() latency, {GAME}, {args.moves} moves over {args.tables} "
          "tables, SQLite WAL (times in ms)")
    print(f"{'synchronous':<12}{'mode':<12}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}"
          f"{'mean':>8}{'moves/s':>10}{'games':>7}")
    with tempfile.TemporaryDirectory(prefix="fabletop-bench-", dir=args.dir) as tmp:
        for level in levels:
            for concurrent in (False, True):
                mode = "concurrent" if concurrent else "sequential"
                path = Path(tmp) / f"{level}-{mode}.db"
                times, wall, games = await run(path, args.moves, args.tables, level, concurrent)
                ms = sorted(t * 1000 for t in times)
                print(f"{level:<12}{mode:<12}{percentile(ms, .5):8.2f}{percentile(ms, .95):8.2f}"
                      f"{percentile(ms, .99):8.2f}{ms[-1]:8.2f}{statistics.fmean(ms):8.2f}"
                      f"{len(times) / wall:10.0f}{games:7d}")
    print("concurrent = one move on every table at once (asyncio.gather); its latency "
          "includes waiting for the other tables' commits on the shared connection.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--sync", default="both", choices=["both", "FULL", "NORMAL", "full",
                                                           "normal"])
    parser.add_argument("--dir", default=None, help="where to put the temporary database")
    args = parser.parse_args(argv)
    asyncio.run(main_async(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
