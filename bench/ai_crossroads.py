"""Crossroads Inn AI strength, speed and game statistics from seeded games.

    .venv/bin/python -m bench.ai_crossroads [--search-games 200] [--random-games 200]
        [--search-random-games 50] [--seat-games 1000] [--seed 0] [--jobs 2]
        [--samples 6] [--width 4] [--option basic_tiles=draft] [--sections ...]

Sections (``--sections``, comma-separated; default all):

* ``search``: search vs heuristic, 2 players, seats alternate (game ``i``: search in seat
  ``i % 2``);
* ``random``: heuristic vs random, 2 players, seats alternate;
* ``search-random``: search vs random, 2 players, seats alternate;
* ``seats``: heuristic self-play with 2, 3 and 4 players: win rate per seat (ties share
  the win), first-player bias, game length, score spread.

Game ``i`` of a section uses seed ``seed + offset + i`` (offsets 0, 100000, 200000 and
300000 + 10000 * players), and the agents' generator is seeded from the game's seed, so
a run is reproducible from ``--seed`` (move times, being CPU times, are not). Table
options default to the game's (``basic_tiles=draft``, ``kingdom=none``,
``advanced_recipes=auto``); ``--option`` changes them for every section. Move times
are the CPU time (``time.thread_time``) of each ``choose`` call, trivial ones (a single
legal action) included and also reported apart. Prints a plain-text table, then one JSON
summary line.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from engines import get_game
from engines.agents import get_agent
from engines.core import Rng

GAME_ID = "crossroads-inn"
OFFSETS = {"search": 0, "random": 100_000, "search-random": 200_000, "seats": 300_000}
ALL_SECTIONS = ("search", "random", "search-random", "seats")


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _agent(level: str, samples: int, width: int) -> Any:
    if level == "search":
        return get_agent(GAME_ID, level, samples=samples, width=width)
    return get_agent(GAME_ID, level)


def play(job: tuple[str, int, int, tuple[str, ...], dict[str, Any], int, int]) -> dict[str, Any]:
    """One game. ``levels[seat]`` plays ``seat``. Returns a plain record."""
    section, seed, players, levels, options, samples, width = job
    game = get_game(GAME_ID)
    agents = [_agent(lv, samples, width) for lv in levels]
    state = game.setup(players, game.parse_options(options), seed)
    rng = Rng.from_seed(seed * 7919 + 17)
    times: dict[str, list[float]] = {}
    trivial: dict[str, list[float]] = {}
    actions = [0] * players
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        n_legal = sum(1 for a in game.legal_actions(state, seat) if a.kind != "undo")
        t0 = time.thread_time()  # CPU time: wall time lies when the machine is busy
        action = agents[seat].choose(game, state, seat, rng.spawn())
        dt = time.thread_time() - t0
        (trivial if n_legal <= 1 else times).setdefault(levels[seat], []).append(dt)
        game.apply(state, seat, action)
        actions[seat] += 1
    out = game.outcome(state)
    assert out is not None
    return {
        "section": section, "seed": seed, "players": players, "levels": list(levels),
        "winners": list(out.winners), "scores": [out.scores[s] for s in range(players)],
        "turns": [p.turns for p in state.seats], "actions": actions,
        "times": times, "trivial": trivial,
    }


def wilson(k: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return 0.0, 0.0
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return centre - half, centre + half


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def _spread(xs: list[float]) -> dict[str, float]:
    if not xs:
        return {}
    return {"mean": round(statistics.fmean(xs), 2),
            "stdev": round(statistics.pstdev(xs), 2), "min": min(xs), "max": max(xs)}


def _share(rec: dict[str, Any], seat: int) -> float:
    """The seat's share of the win (ties split it)."""
    return 1.0 / len(rec["winners"]) if seat in rec["winners"] else 0.0


def _jobs(section: str, args: argparse.Namespace, options: dict[str, Any]) -> list[Any]:
    base = args.seed + OFFSETS[section]
    if section == "seats":
        out = []
        for players in (2, 3, 4):
            for i in range(args.seat_games):
                out.append((section, base + 10_000 * players + i, players,
                            ("heuristic",) * players, options, args.samples, args.width))
        return out
    a, b, n = {"search": ("search", "heuristic", args.search_games),
               "random": ("heuristic", "random", args.random_games),
               "search-random": ("search", "random", args.search_random_games)}[section]
    out = []
    for i in range(n):
        levels = (a, b) if i % 2 == 0 else (b, a)
        out.append((section, base + i, 2, levels, options, args.samples, args.width))
    return out


def _run(jobs: list[Any], workers: int, chunksize: int) -> list[dict[str, Any]]:
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(workers) as pool:
            return list(pool.map(play, jobs, chunksize=chunksize))
    return [play(j) for j in jobs]


def _match_summary(name: str, a: str, recs: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(recs)
    wins = sum(_share(r, r["levels"].index(a)) for r in recs)
    first = [r for r in recs if r["levels"][0] == a]
    second = [r for r in recs if r["levels"][0] != a]
    margins = []
    for r in recs:
        s = r["levels"].index(a)
        margins.append(r["scores"][s] - r["scores"][1 - s])
    lo, hi = wilson(wins, n)
    return {
        "pairing": name, "games": n, "wins": wins, "win_rate": round(wins / max(1, n), 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "as_first": round(sum(_share(r, 0) for r in first) / max(1, len(first)), 4),
        "as_second": round(sum(_share(r, 1) for r in second) / max(1, len(second)), 4),
        "mean_margin": round(statistics.fmean(margins), 2) if margins else None,
    }


def _game_stats(recs: list[dict[str, Any]]) -> dict[str, Any]:
    winners, losers, margins, turns, rounds, actions, per_player = [], [], [], [], [], [], []
    for r in recs:
        scores = r["scores"]
        order = sorted(scores, reverse=True)
        best = order[0]
        winners.append(best)
        losers.extend(s for i, s in enumerate(scores) if i not in r["winners"])
        margins.append(best - order[1])
        turns.append(sum(r["turns"]))
        rounds.append(max(r["turns"]))
        actions.append(sum(r["actions"]))
        per_player.extend(r["actions"])
    return {
        "games": len(recs),
        "turns_total": _spread(turns), "rounds": _spread(rounds),
        "actions_total": _spread(actions), "actions_per_player": _spread(per_player),
        "winner_score": _spread(winners), "loser_score": _spread(losers),
        "margin": _spread(margins),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--search-games", type=int, default=200)
    p.add_argument("--random-games", type=int, default=200)
    p.add_argument("--search-random-games", type=int, default=50)
    p.add_argument("--seat-games", type=int, default=1000,
                   help="heuristic self-play games per player count (2, 3, 4)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--samples", type=int, default=6, help="search: determinisations")
    p.add_argument("--width", type=int, default=4, help="search: candidates per decision")
    p.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1),
                   help="worker processes (default 2)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="table option for every game (repeatable)")
    p.add_argument("--sections", default=",".join(ALL_SECTIONS),
                   help=f"comma-separated subset of {', '.join(ALL_SECTIONS)}")
    args = p.parse_args(argv)
    options: dict[str, Any] = {}
    for pair in args.option:
        key, sep, value = pair.partition("=")
        if not sep:
            p.error(f"--option needs key=value, got {pair!r}")
        options[key.strip()] = _parse_value(value.strip())
    game = get_game(GAME_ID)
    effective = game.parse_options(options).model_dump()
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    for s in sections:
        if s not in ALL_SECTIONS:
            p.error(f"unknown section {s!r}")

    print(f"Crossroads Inn AI bench: seed {args.seed}, {args.jobs} worker(s), table options "
          f"{json.dumps(effective)}; search samples={args.samples} width={args.width}; "
          f"load average {os.getloadavg()[0]:.2f} at start on {os.cpu_count()} CPUs")
    summary: dict[str, Any] = {"bench": "ai_crossroads", "seed": args.seed,
                               "options": effective, "jobs": args.jobs,
                               "search": {"samples": args.samples, "width": args.width}}
    times: dict[str, list[float]] = {}
    trivial: dict[str, list[float]] = {}
    t_all = time.perf_counter()
    matches = []
    for section in sections:
        jobs = _jobs(section, args, options)
        if not jobs:
            continue
        t0 = time.perf_counter()
        chunk = 1 if "search" in section else 8
        recs = _run(jobs, args.jobs, chunk)
        secs = time.perf_counter() - t0
        for r in recs:
            for lv, ts in r["times"].items():
                times.setdefault(lv, []).extend(ts)
            for lv, ts in r["trivial"].items():
                trivial.setdefault(lv, []).extend(ts)
        if section == "seats":
            seats_out: dict[str, Any] = {}
            print("\nHeuristic self-play, win share by seat (ties split), per player count:")
            print(f"  {'players':>7} {'games':>6}  {'seat win rates':<32} {'1st-seat bias':>13}"
                  f"  {'rounds':>6} {'actions':>7}  {'winner':>12} {'loser':>12}"
                  f" {'margin':>11}")
            for players in (2, 3, 4):
                rs = [r for r in recs if r["players"] == players]
                if not rs:
                    continue
                rates = [sum(_share(r, s) for r in rs) / len(rs) for s in range(players)]
                bias = (rates[0] - 1 / players) * 100
                st = _game_stats(rs)
                seats_out[str(players)] = {
                    "seat_win_rates": [round(x, 4) for x in rates],
                    "first_player_bias_points": round(bias, 2),
                    "flag_bias_over_5_points": abs(bias) > 5, **st}
                rate_txt = " ".join(f"{x:.1%}" for x in rates)
                print(f"  {players:>7} {len(rs):>6}  {rate_txt:<32} {bias:>+12.1f}p"
                      f"  {st['rounds']['mean']:>6.1f} {st['actions_total']['mean']:>7.0f}"
                      f"  {st['winner_score']['mean']:>5.1f}±{st['winner_score']['stdev']:<5.1f}"
                      f" {st['loser_score']['mean']:>5.1f}±{st['loser_score']['stdev']:<5.1f}"
                      f" {st['margin']['mean']:>4.1f}±{st['margin']['stdev']:<5.1f}")
                flag = "  <-- first-player bias above 5 points" if abs(bias) > 5 else ""
                print(f"  {'':>7} scores: winner min {st['winner_score']['min']} max "
                      f"{st['winner_score']['max']}, loser min {st['loser_score']['min']} max "
                      f"{st['loser_score']['max']}, margin min {st['margin']['min']} max "
                      f"{st['margin']['max']}; turns per game {st['turns_total']['mean']:.1f}"
                      f" ({st['turns_total']['min']}-{st['turns_total']['max']}), actions "
                      f"per player {st['actions_per_player']['mean']:.1f}{flag}")
            summary["seats"] = seats_out
            summary["seats_seconds"] = round(secs, 1)
        else:
            a = "search" if section.startswith("search") else "heuristic"
            b = "heuristic" if section == "search" else "random"
            m = _match_summary(f"{a} vs {b}", a, recs)
            m["seconds"] = round(secs, 1)
            m["game_stats"] = _game_stats(recs)
            matches.append(m)
    if matches:
        print("\nMatches (2 players, seats alternate, game i: first level in seat i % 2):")
        print(f"  {'pairing':<22} {'games':>5} {'win rate':>9} {'95% CI':>15} "
              f"{'as 1st':>7} {'as 2nd':>7} {'margin':>7} {'rounds':>6} {'actions':>7}"
              f" {'secs':>6}")
        for m in matches:
            gs = m["game_stats"]
            print(f"  {m['pairing']:<22} {m['games']:>5} {m['win_rate']:>9.1%} "
                  f"{m['ci95'][0]:>6.1%}-{m['ci95'][1]:<6.1%} {m['as_first']:>7.1%} "
                  f"{m['as_second']:>7.1%} {m['mean_margin']:>+7.1f} "
                  f"{gs['rounds']['mean']:>6.1f} {gs['actions_total']['mean']:>7.0f} "
                  f"{m['seconds']:>6.0f}")
        summary["matches"] = matches
    print("\nMove CPU time per level (ms; every choose call, and only those with more than "
          "one legal action):")
    print(f"  {'level':<10} {'moves':>8} {'median':>8} {'p95':>8} {'mean':>8} {'max':>9}"
          f"   {'real moves':>10} {'median':>8} {'p95':>8}")
    move_times = {}
    for lv in sorted(set(times) | set(trivial)):
        real = times.get(lv, [])
        every = real + trivial.get(lv, [])
        row = {"moves": len(every), "median_ms": round(_pct(every, 0.5) * 1000, 3),
               "p95_ms": round(_pct(every, 0.95) * 1000, 3),
               "mean_ms": round(statistics.fmean(every) * 1000, 3) if every else None,
               "max_ms": round(max(every) * 1000, 1) if every else None,
               "real_moves": len(real), "real_median_ms": round(_pct(real, 0.5) * 1000, 3),
               "real_p95_ms": round(_pct(real, 0.95) * 1000, 3)}
        move_times[lv] = row
        print(f"  {lv:<10} {row['moves']:>8} {row['median_ms']:>8.2f} {row['p95_ms']:>8.2f} "
              f"{row['mean_ms']:>8.2f} {row['max_ms']:>9.1f}   {row['real_moves']:>10} "
              f"{row['real_median_ms']:>8.2f} {row['real_p95_ms']:>8.2f}")
    summary["move_times"] = move_times
    summary["seconds"] = round(time.perf_counter() - t_all, 1)
    summary["load_average_end"] = round(os.getloadavg()[0], 2)
    print(f"\nTotal {summary['seconds']:.0f}s wall; load average {os.getloadavg()[0]:.2f} "
          "at the end.")
    print(json.dumps(summary, separators=(",", ":")))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
