"""Renderer benchmark: PNG render time (mean, p95, max) and size for board images.

    .venv/bin/python -m bench.render [--games N] [--every K]

Plays random games, renders the public view every K plies (plus the final
position), and prints the figures per game with a renderer. Also splits the
Fairy Tale Inn time into drawing and PNG encoding.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from bench.stats import nearest_rank
from engines import get_game
from engines.core import Rng
from renderers import common, get_renderer, renderer_ids


def _views(game_id: str, games: int, every: int, seed: int) -> list[Any]:
    game = get_game(game_id)
    views = []
    for g in range(games):
        state = game.setup(game.min_players, game.Options(), seed + g)
        rng = Rng.from_seed(seed * 1000 + g)
        ply = 0
        while not game.is_over(state):
            if ply % every == 0:
                views.append(game.view(state, None))
            seat = game.to_act(state)[0]
            game.apply(state, seat, rng.choice(game.legal_actions(state, seat)))
            ply += 1
        views.append(game.view(state, None))
    return views


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    for gid in renderer_ids():
        render = get_renderer(gid)
        views = _views(gid, args.games, args.every, args.seed)
        render(views[0])  # warm the font cache and the imports
        times, sizes = [], []
        for view in views:
            t0 = time.perf_counter()
            png = render(view)
            times.append((time.perf_counter() - t0) * 1000)
            sizes.append(len(png) / 1024)
        print(f"# {gid}: {len(views)} images from {args.games} random games")
        print(f"  render ms: mean {statistics.mean(times):.1f}  p95 {nearest_rank(times, 0.95):.1f}"
              f"  max {max(times):.1f}")
        print(f"  PNG KiB:   mean {statistics.mean(sizes):.1f}  p95 {nearest_rank(sizes, 0.95):.1f}"
              f"  max {max(sizes):.1f}")
        if gid == "fairy-tale-inn":
            from renderers import fairy_tale_inn as fti

            draw_ms, enc_ms, opt_ms, opt_kib = [], [], [], []
            for view in views[:: max(1, len(views) // 10)]:
                t0 = time.perf_counter()
                img = fti.draw(fti.picture_from_view(view))
                t1 = time.perf_counter()
                common.to_png(img)
                t2 = time.perf_counter()
                opt = common.to_png(img, optimize=True)
                t3 = time.perf_counter()
                draw_ms.append((t1 - t0) * 1000)
                enc_ms.append((t2 - t1) * 1000)
                opt_ms.append((t3 - t2) * 1000)
                opt_kib.append(len(opt) / 1024)
            print(f"  split ms:  draw {statistics.mean(draw_ms):.1f}"
                  f"  encode {statistics.mean(enc_ms):.1f}"
                  f"  (optimize=True would take {statistics.mean(opt_ms):.1f}"
                  f" for {statistics.mean(opt_kib):.1f} KiB)")
            w, h = fti.draw(fti.picture_from_view(views[-1])).size
            print(f"  size px:   {w} x {h} (a phone shows it ~400 px wide)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
