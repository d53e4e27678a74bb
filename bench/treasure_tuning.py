"""Tune the king's path in Save the Treasure: win rates of the "team" AI per path length.

The team never looks at the king (its choices depend only on the table and its
memory), so one game played with an endless path tells the result for every path
length: the team wins with a path of ``L`` spaces exactly when all figures are out
while the king has walked fewer than ``L`` spaces. The variant differs only in that
the king also walks on the turns without a page before the first page, so the same
game gives the variant's figure too. ``--verify L`` then replays the same seeds as
real games at path length ``L`` (standard and variant) to confirm the prediction.

    python -m bench.treasure_tuning --games 1000 --seed 0 --players 1,2,3,4
    python -m bench.treasure_tuning --games 1000 --verify 20
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass

from engines import get_game
from engines.agents import get_agent
from engines.core import Rng
from engines.treasure import SaveTheTreasure

ENDLESS = 99


@dataclass(frozen=True)
class Record:
    won: bool
    king: int
    """Spaces the king walked (standard rules) when the game ended."""
    early: int
    """Turns without a page before the first page (the variant's extra king steps)."""
    moves: int


def play(game: SaveTheTreasure, players: int, seed: int, variant: bool = False,
         path: int = ENDLESS, level: str = "team", **kw: object) -> Record:
    """One game of AIs of ``level``, seeded like bot.selfplay's games."""
    options = game.parse_options({"variant": variant, "king_path_length": path})
    state = game.setup(players, options, seed)
    agent = get_agent("treasure", level, **kw)
    rng = Rng.from_seed(seed ^ 0xA11CE)
    early = 0
    moves = 0
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        game.apply(state, seat, agent.choose(game, state, seat, rng.spawn()))
        moves += 1
        turn_over = (state.stage == "slide" and state.slides == 0) or game.is_over(state)
        if turn_over and not state.pages:
            early += 1
    return Record(won=state.result == "won", king=state.king, early=early, moves=moves)


def predicted(records: list[Record], length: int, variant: bool) -> float:
    wins = sum(1 for r in records
               if r.won and r.king + (r.early if variant else 0) < length)
    return wins / len(records)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", default="1,2,3,4")
    p.add_argument("--lengths", default="12-40", help="range of path lengths to print")
    p.add_argument("--level", default="team", help="AI level (default team)")
    p.add_argument("--memory", type=int, default=None,
                   help="override how many covered squares the AI remembers")
    p.add_argument("--verify", type=int, default=None,
                   help="also play real games at this path length")
    args = p.parse_args(argv)
    game: SaveTheTreasure = get_game("treasure")  # type: ignore[assignment]
    lo, _, hi = args.lengths.partition("-")
    lengths = range(int(lo), int(hi or lo) + 1)
    counts = [int(x) for x in args.players.split(",")]
    kw = {} if args.memory is None else {"memory": args.memory}
    table: dict[int, list[Record]] = {}
    for players in counts:
        start = time.perf_counter()
        table[players] = [play(game, players, args.seed + i, level=args.level, **kw)
                          for i in range(args.games)]
        secs = time.perf_counter() - start
        recs = table[players]
        print(json.dumps({
            "players": players, "games": args.games, "seconds": round(secs, 1),
            "games_per_sec": round(args.games / secs, 1),
            "won_with_endless_path": sum(r.won for r in recs),
            "mean_king_steps": round(sum(r.king for r in recs) / len(recs), 2),
            "mean_early_turns": round(sum(r.early for r in recs) / len(recs), 2),
        }))
    print("length  " + "  ".join(f"std{p}p  var{p}p" for p in counts) + "  std_mean var_mean")
    best: tuple[float, int] | None = None
    for length in lengths:
        std = [predicted(table[p], length, False) for p in counts]
        var = [predicted(table[p], length, True) for p in counts]
        mean_std = sum(std) / len(std)
        print(f"{length:6d}  " + "  ".join(f"{s:5.1%}  {v:5.1%}" for s, v in
                                           zip(std, var, strict=True))
              + f"  {mean_std:6.1%}  {sum(var) / len(var):6.1%}")
        if best is None or abs(mean_std - 0.5) < best[0]:
            best = (abs(mean_std - 0.5), length)
    if best is not None:
        print(json.dumps({"closest_to_half_standard": best[1]}))
    if args.verify is not None:
        for players in counts:
            for variant in (False, True):
                start = time.perf_counter()
                recs = [play(game, players, args.seed + i, variant, args.verify, args.level, **kw)
                        for i in range(args.games)]
                secs = time.perf_counter() - start
                print(json.dumps({
                    "verify_length": args.verify, "players": players, "variant": variant,
                    "games": args.games, "win_rate": round(sum(r.won for r in recs)
                                                           / len(recs), 3),
                    "predicted": round(predicted(table[players], args.verify, variant), 3),
                    "games_per_sec": round(args.games / secs, 1),
                }))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
