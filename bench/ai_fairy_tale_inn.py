"""Fairy Tale Inn AI strength and speed: seeded matches between AI levels.

    .venv/bin/python -m bench.ai_fairy_tale_inn [--games 200] [--iterations N] [--jobs 2]

For each pairing the two levels alternate seats (seat 0 starts), game ``i`` uses
seed ``seed + i``. Prints win rates with counts and 95% Wilson intervals, and the
CPU time per AI move (mean and 95th percentile) for every level.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engines import get_game
from engines.agents import get_agent
from engines.core import Rng

GAME_ID = "fairy-tale-inn"


def _agent(level: str, iterations: int) -> Any:
    if level == "mcts":
        return get_agent(GAME_ID, level, iterations=iterations)
    return get_agent(GAME_ID, level)


def play(args: tuple[str, str, int, int]) -> tuple[int, dict[str, list[float]], int]:
    """One game: level ``a`` in seat ``(i % 2)``; returns (1 if a won, move times, margin)."""
    a, b, seed, iterations = args
    game = get_game(GAME_ID)
    a_seat = seed % 2
    levels = [a, b] if a_seat == 0 else [b, a]
    agents = [_agent(lv, iterations) for lv in levels]
    state = game.setup(2, game.Options(), seed)
    rng = Rng.from_seed(seed * 7919 + 17)
    times: dict[str, list[float]] = {a: [], b: []}
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        t0 = time.thread_time()  # CPU time: wall time lies when the machine is busy
        action = agents[seat].choose(game, state, seat, rng.spawn())
        times[levels[seat]].append(time.thread_time() - t0)
        game.apply(state, seat, action)
    out = game.outcome(state)
    assert out is not None
    margin = out.scores[a_seat] - out.scores[1 - a_seat]
    return (1 if a_seat in out.winners else 0), times, margin


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, default=400, help="MCTS iterations per move")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="worker processes (default: 2, or 1 on a single core)")
    p.add_argument("--pairs", default="mcts:random,mcts:greedy,greedy:random",
                   help="comma-separated a:b pairings")
    args = p.parse_args(argv)
    all_times: dict[str, list[float]] = {}
    print(f"Fairy Tale Inn AI bench: {args.games} games per pairing, seeds "
          f"{args.seed}..{args.seed + args.games - 1}, mcts iterations {args.iterations}, "
          f"sides alternate (seat 0 starts)")
    for pair in args.pairs.split(","):
        a, b = pair.split(":")
        jobs = [(a, b, args.seed + i, args.iterations) for i in range(args.games)]
        t0 = time.perf_counter()
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                results = list(pool.map(play, jobs, chunksize=4))
        else:
            results = [play(j) for j in jobs]
        secs = time.perf_counter() - t0
        wins = sum(r[0] for r in results)
        first = sum(r[0] for r, j in zip(results, jobs, strict=True) if j[2] % 2 == 0)
        n_first = sum(1 for j in jobs if j[2] % 2 == 0)
        margins = [r[2] for r in results]
        lo, hi = wilson(wins, len(results))
        for r in results:
            for level, ts in r[1].items():
                all_times.setdefault(level, []).extend(ts)
        print(f"{a} vs {b}: {a} won {wins}/{len(results)} = {wins / max(1, len(results)):.1%} "
              f"(95% CI {lo:.1%}-{hi:.1%}); as starter {first}/{n_first}, "
              f"as second {wins - first}/{len(results) - n_first}; "
              f"mean gold margin {statistics.fmean(margins):+.1f}; {secs:.0f}s")
    for level, ts in sorted(all_times.items()):
        ts.sort()
        p95 = ts[min(len(ts) - 1, int(0.95 * len(ts)))]
        print(f"move CPU time {level}: mean {statistics.fmean(ts) * 1000:.2f} ms, "
              f"p95 {p95 * 1000:.2f} ms over {len(ts)} moves")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
