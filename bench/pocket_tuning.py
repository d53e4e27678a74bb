"""Tune Fairy Tale in My Pocket: win rates of the random, careful and hint players.

Plays seeded games (seed ``--seed`` + i, the fairy godmother's gift at random, as a
table would) for each level and prints, per level: the win rate with its 95% interval
(Wilson), how the games were lost (health, sunset), the mean game length in turns and in
decisions, and the time per decision (median and 95th percentile in ms, over every
decision and over the real choices, those with two or more legal actions; the hint
level's is its search time). A table, then one JSON line.

The target (issue 11): the hint player wins between a third and a half of 1,000 seeded
games; random play far fewer. To try other numbers without touching
``data/pocket.json``, give a copy (``--data FILE``) or change the loaded data in place
(``--set``, repeatable: a dotted path into the JSON, list entries by index or by id, then
``=`` and a JSON value or a bare word; ``--villains`` adds to every villain strength per
time of day):

    python -m bench.pocket_tuning                      # 1000 random/careful, 200 hint
    python -m bench.pocket_tuning --hint-games 1000 --jobs 2
    python -m bench.pocket_tuning --villains 0,1,1 --set tiles.lake.edges.w=trees
    python -m bench.pocket_tuning --villains 0,1,1 --save /tmp/pocket.json

The changes this bench found (a dense-tree border more on eight tiles, twelve villain
lines one or two stronger, every dusk villain among them) are in the data file and its
notes. Games run in ``--jobs`` worker processes (each loads the same data); a hint game
takes about 2 s of one core.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.core import Rng

LEVELS = ("random", "careful", "hint")



# --------------------------------------------------------------------------- the data


def _walk(doc: Any, key: str) -> tuple[Any, Any]:
    """The container holding ``key`` inside ``doc`` and the index of it there."""
    if isinstance(doc, list):
        if key.isdigit():
            return doc, int(key)
        for i, entry in enumerate(doc):
            if isinstance(entry, dict) and entry.get("id") == key:
                return doc, i
        raise KeyError(f"no entry {key!r}")
    if key not in doc:
        raise KeyError(f"no field {key!r}")
    return doc, key


def set_path(doc: Any, path: str, value: Any) -> None:
    """``doc`` at the dotted ``path`` becomes ``value`` (list entries by index or id).

    >>> d = {"cards": [{"id": "a", "lines": [{"strength": 1}]}]}
    >>> set_path(d, "cards.a.lines.0.strength", 4); d["cards"][0]["lines"][0]["strength"]
    4
    """
    keys = path.split(".")
    node = doc
    for k in keys[:-1]:
        holder, i = _walk(node, k)
        node = holder[i]
    holder, i = _walk(node, keys[-1])
    holder[i] = value


def shift_villains(doc: dict[str, Any], deltas: list[int]) -> None:
    """Add ``deltas[t]`` to every villain strength at time of day ``t``."""
    for card in doc["cards"]:
        for t, line in enumerate(card["lines"]):
            if line["kind"] == "villain" and t < len(deltas):
                line["strength"] = max(0, line["strength"] + deltas[t])


def changes(before: Any, after: Any, path: str = "") -> list[str]:
    """Every leaf that differs, as ``path: old -> new`` (list entries by id when they have
    one)."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for k in after:
            if k == "_about":
                continue
            out += changes(before.get(k), after[k], f"{path}.{k}" if path else k)
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        out = []
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            key = a.get("id", str(i)) if isinstance(a, dict) else str(i)
            out += changes(b, a, f"{path}.{key}")
        return out
    return [] if before == after else [f"{path}: {json.dumps(before)} -> {json.dumps(after)}"]


def use_data(path: str | None) -> None:
    """Make the engine (and the AIs, which ask it) read ``path`` instead of
    ``data/pocket.json``: the engine looks its content up through
    ``engines.pocket.game.content`` on every use."""
    if path is None:
        return
    from engines.pocket import game
    from engines.pocket.content import load_content

    loaded = load_content(path)
    game.content = lambda: loaded  # type: ignore[assignment]


# --------------------------------------------------------------------------- playing


@dataclass
class Record:
    won: bool
    reason: str
    turns: int
    decisions: int
    progress: int
    times: list[float] = field(default_factory=list)
    """Seconds per decision."""
    choice_times: list[float] = field(default_factory=list)
    """Seconds per decision with two or more legal actions (a real choice)."""


def play(level: str, seed: int, players: int = 1, kw: dict[str, Any] | None = None) -> Record:
    """One game of ``level`` (the same agent for every seat: the peasant is shared)."""
    import engines.agents.pocket as pocket_ai
    from engines.agents import RandomAgent
    from engines.pocket.game import Pocket
    from engines.pocket.state import PocketOptions

    game = Pocket()
    agents: dict[str, Any] = {"random": RandomAgent, "careful": pocket_ai.CarefulAgent,
                              "hint": pocket_ai.HintAgent}
    agent = agents[level](**(kw or {}))
    state = game.setup(players, PocketOptions(), seed)
    rng = Rng.from_seed(seed ^ 0x5EED)
    times: list[float] = []
    choice_times: list[float] = []
    decisions = 0
    while game.outcome(state) is None:
        seat = game.to_act(state)[0]
        choice = len(game.legal_actions(state, seat)) > 1
        start = time.perf_counter()
        action = agent.choose(game, state, seat, rng.spawn())
        times.append(time.perf_counter() - start)
        if choice:
            choice_times.append(times[-1])
        game.apply(state, seat, action)
        decisions += 1
    reason = "won" if state.result == "won" else (
        "health" if state.health == 0 else "sunset")
    return Record(won=state.result == "won", reason=reason, turns=state.turn,
                  decisions=decisions, progress=pocket_ai.progress(state),
                  times=times if level == "hint" else times[::10],
                  choice_times=choice_times if level == "hint" else choice_times[::10])


def _init(data: str | None) -> None:
    use_data(data)


def _job(args: tuple[str, int, int, dict[str, Any]]) -> Record:
    level, seed, players, kw = args
    return play(level, seed, players, kw)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate.

    >>> [round(x, 3) for x in wilson(400, 1000)]
    [0.37, 0.431]
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def summary(level: str, recs: list[Record], seconds: float) -> dict[str, Any]:
    n = len(recs)
    wins = sum(r.won for r in recs)
    lo, hi = wilson(wins, n)
    def ms(values: list[float], q: float) -> float:
        if not values:
            return 0.0
        values = sorted(values)
        return round(values[min(len(values) - 1, int(q * len(values)))] * 1000, 2)

    times = [t for r in recs for t in r.times]
    choices = [t for r in recs for t in r.choice_times]
    return {
        "level": level, "games": n, "wins": wins, "win_rate": round(wins / n, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "lost_health": sum(r.reason == "health" for r in recs),
        "lost_sunset": sum(r.reason == "sunset" for r in recs),
        "princess_woken": sum(r.progress >= 2 for r in recs),
        "mean_turns": round(sum(r.turns for r in recs) / n, 2),
        "mean_decisions": round(sum(r.decisions for r in recs) / n, 2),
        "move_ms_median": round(statistics.median(times) * 1000, 2) if times else 0.0,
        "move_ms_p95": ms(times, 0.95),
        "choice_ms_median": round(statistics.median(choices) * 1000, 2) if choices else 0.0,
        "choice_ms_p95": ms(choices, 0.95),
        "choice_ms_max": ms(choices, 1.0),
        "seconds": round(seconds, 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--games", type=int, default=1000, help="games for random and careful")
    p.add_argument("--hint-games", type=int, default=200,
                   help="games for hint (default 200: about 8 s a game on one core)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, default=1)
    p.add_argument("--levels", default=",".join(LEVELS))
    p.add_argument("--jobs", type=int, default=1, help="worker processes")
    p.add_argument("--samples", type=int, default=None, help="hint: worlds per action")
    p.add_argument("--data", default=None, help="a copy of data/pocket.json to use")
    p.add_argument("--set", action="append", default=[], metavar="PATH=JSON",
                   help="change one value of the data (repeatable)")
    p.add_argument("--villains", default=None, metavar="D0,D1,D2",
                   help="add to every villain strength, per time of day")
    p.add_argument("--save", default=None, help="write the changed data file here")
    args = p.parse_args(argv)

    from engines.pocket.content import DATA_PATH

    source = Path(args.data) if args.data else DATA_PATH
    doc = json.loads(source.read_text(encoding="utf-8"))
    original = json.loads(DATA_PATH.read_text(encoding="utf-8"))
    if args.villains:
        shift_villains(doc, [int(x) for x in args.villains.split(",")])
    for item in args.set:
        path, _, value = item.partition("=")
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:  # a bare word: a string (trees, open...)
            parsed = value
        set_path(doc, path, parsed)
    data: str | None = args.data
    diff = changes(original, doc)
    if diff or args.save:
        target = Path(args.save or f"/tmp/pocket_tuning_{int(time.time() * 1000)}.json")
        target.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        data = str(target)
    for line in diff:
        print("data change:", line)
    use_data(data)  # validates the file before any game runs

    kw: dict[str, Any] = {} if args.samples is None else {"samples": args.samples}
    results = []
    pool = (multiprocessing.get_context("spawn").Pool(args.jobs, _init, (data,))
            if args.jobs > 1 else None)
    try:
        for level in args.levels.split(","):
            n = args.hint_games if level == "hint" else args.games
            jobs = [(level, args.seed + i, args.players, kw if level == "hint" else {})
                    for i in range(n)]
            start = time.perf_counter()
            recs = list(pool.imap(_job, jobs, chunksize=4)) if pool else [_job(j) for j in jobs]
            results.append(summary(level, recs, time.perf_counter() - start))
    finally:
        if pool is not None:
            pool.close()
            pool.join()

    head = (f"{'level':8} {'games':>5} {'win rate':>8} {'95% CI':>15} {'health':>6} "
            f"{'sunset':>6} {'woke':>5} {'turns':>6} {'decis.':>6} {'ms med':>7} {'ms p95':>7}"
            f" {'choice med':>10} {'p95':>7}")
    print(head)
    for r in results:
        ci = f"{r['ci95'][0]:.1%}-{r['ci95'][1]:.1%}"
        print(f"{r['level']:8} {r['games']:5d} {r['win_rate']:8.1%} {ci:>15} "
              f"{r['lost_health']:6d} {r['lost_sunset']:6d} {r['princess_woken']:5d} "
              f"{r['mean_turns']:6.1f} {r['mean_decisions']:6.1f} {r['move_ms_median']:7.1f} "
              f"{r['move_ms_p95']:7.1f} {r['choice_ms_median']:10.1f} {r['choice_ms_p95']:7.1f}")
    print(json.dumps({"seed": args.seed, "players": args.players, "jobs": args.jobs,
                      "data_changes": diff, "results": results}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
