"""What a picture costs: CPU time and bytes of every game's pictures, beside the cost of
encoding a blank image of the same size in the same run.

    .venv/bin/python -m bench.render_cost [--games 3] [--every 9] [--repeat 3] [--base DIR]

For each game with a renderer it plays seeded games with the game's self-play AI level,
takes the public view every ``--every`` moves (and seat 0's view for a private picture),
and renders each view ``--repeat`` times. Per picture it prints the median CPU time
(``time.process_time``: the figure that matters on a busy machine), split into drawing
and encoding (the ``to_png`` call), the median size, the pixel count, and the CPU time of
``to_png`` on a blank canvas of the same size (the floor for that size with today's
encoder), and of Pillow's octree palette at zlib level 6 on that blank canvas (the
encoder before the palette of frequent colours: a yardstick that does not move when
``to_png`` changes). A table, then one JSON line.

``--base DIR`` also measures, in the same run, the renderers of another checkout (say
``git worktree add /tmp/base <commit>``) on the same views, and prints before/after.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PIL import Image

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


def legacy_blank_ms(size: tuple[int, int], repeat: int) -> float:
    """CPU ms of the earlier encoder (octree palette, zlib level 6) on a blank canvas."""
    img = common.new_canvas(*size)
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        buf = io.BytesIO()
        img.quantize(colors=256, method=Image.Quantize.FASTOCTREE,
                     dither=Image.Dither.NONE).save(buf, format="PNG")
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
    legacy = legacy_blank_ms(shape, max(3, repeat))
    return {
        "picture": label, "views": len(views), "size": list(shape),
        "megapixels": round(statistics.median(pixels) / 1e6, 2),
        "cpu_ms": round(total, 1), "draw_ms": round(total - encode, 1),
        "encode_ms": round(encode, 1), "blank_encode_ms": round(blank, 1),
        "blank_legacy_ms": round(legacy, 1),
        "cpu_vs_blank": round(total / blank, 2) if blank else None,
        "kib": round(statistics.median(sizes), 1), "kib_max": round(max(sizes), 1),
    }


def pictures_of(gid: str, public: list[Any], private: list[Any]
                ) -> list[tuple[str, Callable[[Any], bytes], list[Any]]]:
    board = get_renderer(gid)
    pictures: list[tuple[str, Callable[[Any], bytes], list[Any]]] = [
        (f"{gid} board", board, public)]
    if gid == "crossroads-inn":
        pictures.append((f"{gid} inn", lambda v, b=board: b(v, part="inn:0"), public))
        pictures.append((f"{gid} inns", lambda v, b=board: b(v, part="inns"), public))
    if has_private_picture(gid):
        pictures.append((f"{gid} private", get_renderer(gid, private=True), private))
    return pictures


def measure_all(games: int, every: int, repeat: int, seed: int) -> list[dict[str, Any]]:
    rows = []
    for gid in renderer_ids():
        public, private = sample_views(gid, games, every, seed)
        for label, render, views in pictures_of(gid, public, private):
            rows.append(measure(label, render, views, repeat))
    return rows


def measure_base(base: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    """The same measurement with another checkout's engines and renderers (its
    ``to_png`` included), run by this script in a child process."""
    env = {**os.environ, "PYTHONPATH": str(base)}
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--rows-only", "--games",
         str(args.games), "--every", str(args.every), "--repeat", str(args.repeat),
         "--seed", str(args.seed)],
        cwd=base, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--every", type=int, default=9, help="a view every K moves")
    p.add_argument("--repeat", type=int, default=3, help="renders per view")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--base", type=Path, help="a checkout to compare with (before/after)")
    p.add_argument("--rows-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.rows_only:
        print(json.dumps(measure_all(args.games, args.every, args.repeat, args.seed)))
        return 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"render cost: seed {args.seed}, {args.games} games per game, a view every "
          f"{args.every} moves, {args.repeat} renders each; load {load:.2f}")
    before = {r["picture"]: r for r in measure_base(args.base, args)} if args.base else {}
    head = (f"{'picture':28} {'views':>5} {'size':>10} {'MP':>5} {'CPU ms':>7} {'draw':>6} "
            f"{'encode':>6} {'blank':>6} {'old enc':>7} {'KiB':>6}")
    if before:
        head += f" | {'before':>7} {'draw':>6} {'encode':>6} {'KiB':>6} {'after/before':>12}"
    print(head)
    rows = measure_all(args.games, args.every, args.repeat, args.seed)
    for row in rows:
        size = "x".join(str(x) for x in row["size"])
        line = (f"{row['picture']:28} {row['views']:5d} {size:>10} {row['megapixels']:5.2f} "
                f"{row['cpu_ms']:7.1f} {row['draw_ms']:6.1f} {row['encode_ms']:6.1f} "
                f"{row['blank_encode_ms']:6.1f} {row['blank_legacy_ms']:7.1f} "
                f"{row['kib']:6.1f}")
        old = before.get(row["picture"])
        if old is not None:
            row["before"] = old
            line += (f" | {old['cpu_ms']:7.1f} {old['draw_ms']:6.1f} {old['encode_ms']:6.1f} "
                     f"{old['kib']:6.1f} {row['cpu_ms'] / old['cpu_ms']:12.2f}")
        print(line)
    end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(json.dumps({"bench": "render_cost", "seed": args.seed, "load_start": load,
                      "load_end": end, "base": str(args.base) if args.base else None,
                      "rows": rows}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
