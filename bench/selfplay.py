"""Engine benchmark: random self-play of every registered game (games/sec, moves/sec).

    .venv/bin/python -m bench.selfplay [--games N] [--game ID ...]
"""

from __future__ import annotations

import argparse

from bot.selfplay import main as selfplay_main
from engines import game_ids, get_game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", action="append", default=None,
                        help="only this game id (repeatable; default: every game)")
    args = parser.parse_args(argv)
    rc = 0
    for gid in args.game or game_ids():
        try:
            players = get_game(gid).min_players
        except Exception as exc:  # a broken game must not stop the others' figures
            print(f"{gid}: cannot load ({exc})")
            rc = 1
            continue
        print(f"# {gid}, {players} players, random agents")
        code = selfplay_main(["--game", gid, "--games", str(args.games), "--seed",
                              str(args.seed), "--players", str(players), "--quiet"])
        rc = rc or code
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
