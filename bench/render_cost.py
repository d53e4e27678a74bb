"""What a picture costs: CPU time and bytes of every game's pictures, beside the cost of
encoding a blank image of the same size in the same run.

    .venv/bin/python -m bench.render_cost [--games 3] [--every 9] [--repeat 3]

For each game with a renderer it plays seeded games with the game's self-play AI level,
takes the public view every ``--every`` moves (and seat 0's view for a private picture),
and renders each view ``--repeat`` times. Per picture it prints the median CPU time
(``time.process_time``: the figure that matters on a busy machine), split into drawing
and encoding (the ``to_png`` call), the median size, the pixel count, and the CPU time of
``to_png`` on a blank canvas of the same size (the floor for that size with today's
encoder). A table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from engines import get_game
from engines.agents import get_agent, selfplay_level
from engines.core import Rng
from renderers import common, get_renderer, has_private_picture, renderer_ids


def sample_views(game_id: str, games: int, every: int, seed: int
                 ) -> tuple[list[Any], list[Any]]:
    """(public views, seat 0's views) along seeded self-play games."""
    game = get_game(game_id)
    agent = get_agent(game_id, selfplay_level(game_id))
    public, private = [], []
    players = max(game.min_players, 2) if game.max_players >= 2 else game.min_players
    for g in range(games):
        state = game.setup(players, game.parse_options({}), seed + g)
        rng = Rng.from_seed(seed * 1000 + g)
        ply = 0
        while not game.is_over(state) and ply < 3000:
            if ply % every == 0:
                public.append(game.view(state, None))
                private.append(game.view(state, 0))
            seat = game.to_act(state)[0]
            game.apply(state, seat, agent.choose(game, state, seat, rng.spawn()))
            ply += 1
        public.append(game.view(state, None))
        private.append(game.view(state, 0))
    return public, private


class EncodeTimer:
    """Times every ``to_png`` call of the renderer modules (they import it by name)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.size: tuple[int, int] = (0, 0)
        self._original = common.to_png

    def __enter__(self) -> EncodeTimer:
        original = self._original

        def timed(img: Any, *args: Any, **kwargs: Any) -> bytes:
            t0 = time.process_time()
            out = original(img, *args, **kwargs)
            self.seconds += time.process_time() - t0
            self.size = img.size
            return out

        self._patched = [m for name, m in list(sys.modules.items())
                         if name.startswith("renderers.") and getattr(m, "to_png", None)
                         is original]
        for module in self._patched:
            module.to_png = timed  # type: ignore[attr-defined]
        return self

    def __exit__(self, *_: Any) -> None:
        for module in self._patched:
            module.to_png = self._original  # type: ignore[attr-defined]


def blank_ms(size: tuple[int, int], repeat: int) -> float:
    """CPU ms of ``to_png`` on a blank canvas of ``size``, median of ``repeat``."""
    img = common.new_canvas(*size)
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        common.to_png(img)
        times.append(time.process_time() - t0)
    return statistics.median(times) * 1000


def measure(label: str, render: Callable[[Any], bytes], views: list[Any], repeat: int
            ) -> dict[str, Any]:
    render(views[0])  # imports, fonts and caches
    totals, encodes, sizes, pixels = [], [], [], []
    shape = (0, 0)
    for view in views:
        per_total, per_encode = [], []
        for _ in range(repeat):
            with EncodeTimer() as enc:
                t0 = time.process_time()
                png = render(view)
                per_total.append(time.process_time() - t0)
            per_encode.append(enc.seconds)
            shape = enc.size
        totals.append(statistics.median(per_total) * 1000)
        encodes.append(statistics.median(per_encode) * 1000)
        sizes.append(len(png) / 1024)
        pixels.append(shape[0] * shape[1])
    total, encode = statistics.median(totals), statistics.median(encodes)
    blank = blank_ms(shape, max(3, repeat))
    return {
        "picture": label, "views": len(views), "size": list(shape),
        "megapixels": round(statistics.median(pixels) / 1e6, 2),
        "cpu_ms": round(total, 1), "draw_ms": round(total - encode, 1),
        "encode_ms": round(encode, 1), "blank_encode_ms": round(blank, 1),
        "cpu_vs_blank": round(total / blank, 2) if blank else None,
        "kib": round(statistics.median(sizes), 1), "kib_max": round(max(sizes), 1),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--every", type=int, default=9, help="a view every K moves")
    p.add_argument("--repeat", type=int, default=3, help="renders per view")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"render cost: seed {args.seed}, {args.games} games per game, a view every "
          f"{args.every} moves, {args.repeat} renders each; load {load:.2f}")
    head = (f"{'picture':28} {'views':>5} {'size':>10} {'MP':>5} {'CPU ms':>7} {'draw':>6} "
            f"{'encode':>6} {'blank':>6} {'x blank':>7} {'KiB':>6}")
    print(head)
    rows = []
    for gid in renderer_ids():
        public, private = sample_views(gid, args.games, args.every, args.seed)
        pictures: list[tuple[str, Callable[[Any], bytes], list[Any]]] = [
            (f"{gid} board", get_renderer(gid), public)]
        if gid == "crossroads-inn":
            board = get_renderer(gid)
            pictures.append((f"{gid} inn", lambda v, b=board: b(v, part="inn:0"), public))
            pictures.append((f"{gid} inns", lambda v, b=board: b(v, part="inns"), public))
        if has_private_picture(gid):
            pictures.append((f"{gid} private", get_renderer(gid, private=True), private))
        for label, render, views in pictures:
            row = measure(label, render, views, args.repeat)
            rows.append(row)
            size = "x".join(str(x) for x in row["size"])
            print(f"{label:28} {row['views']:5d} {size:>10} {row['megapixels']:5.2f} "
                  f"{row['cpu_ms']:7.1f} {row['draw_ms']:6.1f} {row['encode_ms']:6.1f} "
                  f"{row['blank_encode_ms']:6.1f} {row['cpu_vs_blank']:7.2f} {row['kib']:6.1f}")
    end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(json.dumps({"bench": "render_cost", "seed": args.seed, "load_start": load,
                      "load_end": end, "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
