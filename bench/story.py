"""Issue 27's benchmark: 20 all-AI Winter Tales games, and how their passages read.

    .venv/bin/python -m bench.story [--games 20] [--seed 1] [--show N]

Game ``i`` seats ``3 + i % 5`` storytellers, with the Power, Objective and Skill Modules
on or off in turn (every fourth game has all three, every fifth none) and a line and a
veil on every other game. Printed per game: AI passages, distinct passages, the most used
opener (first three words), frame, tail and motive as shares of the passages, the longest
run of movement passages in a row, passages naming their card's element (of those with a
card), passages saying "someone" where a character acted. Exits 1 on a repeated passage,
a line's words in a passage, a share over 3 %, or six movement passages in a row. The
most used tail and motive of every game are listed at the end, by their words.
"""

from __future__ import annotations

import argparse
import time

from engines import get_game
from engines.agents import get_agent
from engines.core import Rng
from engines.winter_tales.state import WinterState
from engines.winter_tales.telling.figures import StoryFigures, ai_passages, figures

MAX_SHARE = 0.03
MAX_MOVES = 5
"""Movement passages in a row a reader may meet at most (issue 27 found runs of 6 to 9)."""
LINES = ["spiders", "drowning"]
VEILS = ["violence"]


def options_for(i: int) -> dict[str, object]:
    bits = (i * 5 + 3) % 8 if i % 5 else 0
    opts: dict[str, object] = {
        "power": bool(bits & 1),
        "objective": bool(bits & 2),
        "skill": bool(bits & 4),
    }
    if i % 4 == 3:
        opts.update(power=True, objective=True, skill=True)
    if i % 2:
        opts.update(lines=LINES, veils=VEILS)
    return opts


def play(
    players: int, options: dict[str, object], seed: int, max_plies: int = 20000
) -> WinterState:
    game = get_game("winter-tales")
    state = game.setup(players, game.Options(**options), seed=seed)
    agent = get_agent("winter-tales", "storyteller")
    rng = Rng.from_seed(seed ^ 0x5702)
    for _ in range(max_plies):
        seats = game.to_act(state)
        if not seats:
            break
        seat = seats[0]
        game.apply(state, seat, agent.choose(game, state, seat, rng))
    return state  # type: ignore[no-any-return]


def failures(f: StoryFigures) -> list[str]:
    out = []
    if f.repeated:
        out.append(f"{f.repeated} repeated passage(s)")
    if f.line_hits:
        out.append(f"{f.line_hits} passage(s) with a line's words")
    for label, (_, share) in (
        ("opener", f.top_start),
        ("opener rule", f.top_opener),
        ("frame", f.top_frame),
        ("tail", f.top_tail),
        ("motive", f.top_motive),
    ):
        if share > MAX_SHARE:
            out.append(f"top {label} share {share:.1%}")
    if f.longest_moves > MAX_MOVES:
        out.append(f"{f.longest_moves} movement passages in a row")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=0, help="print N passages of game 1")
    args = parser.parse_args(argv)
    bad = 0
    tops: list[tuple[int, StoryFigures]] = []
    print(
        "game seats modules      passages distinct top-opener        top-frame   tail "
        " motive moves element   someone  secs"
    )
    for i in range(args.games):
        players, opts = 3 + i % 5, options_for(i)
        t0 = time.process_time()
        state = play(players, opts, args.seed + i)
        secs = time.process_time() - t0
        f = figures(state)
        mods = "".join(
            m[0].upper() if opts.get(m) else "-" for m in ("power", "objective", "skill")
        )
        mods += " L/V" if opts.get("lines") else "    "
        print(
            f"{i + 1:>4} {players:>5} {mods:<12} {f.passages:>8} {f.distinct:>8} "
            f"{f.top_start[1]:>5.1%} {f.top_start[0][:12]:<12} {f.top_frame[1]:>5.1%} "
            f"{f.top_frame[0]:<6}{f.top_tail[1]:>5.1%} {f.top_motive[1]:>6.1%} "
            f"{f.longest_moves:>5}{f.naming_element:>5}/{f.with_card:<4} {f.someone:>7}"
            f" {secs:>5.1f}" + ("" if state.winner else "  (unfinished)")
        )
        tops.append((i + 1, f))
        problems = failures(f)
        if problems:
            bad += 1
            print("      FAIL: " + "; ".join(problems))
        if i == 0 and args.show:
            for e in ai_passages(state)[: args.show]:
                print(f"      #{e.n} [{e.kind}] {e.text}")
    print("most used tail and motive:")
    for n, f in tops:
        print(f"{n:>4} {f.top_tail[0][:48]:<48}  {f.top_motive[0][:40]}")
    print(f"{args.games - bad} of {args.games} games within the limits")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
