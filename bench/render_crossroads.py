"""Crossroads Inn pictures: render time (median of N) and PNG size of every part.

    .venv/bin/python -m bench.render_crossroads [--repeat N] [--plies P] [--seed S]

For 2 and 4 players a game is played with random legal choices (take-backs left out) for
P plies, so inns are well filled and tracks, discards and Kingdom Cards are in use; then
each picture is drawn N times from that position: the table (channel picture), one inn,
all inns, the private hand of a seat to act, and the console text. The phone budget is
what matters: a picture that takes long to draw delays every turn message.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from io import BytesIO
from typing import Any

from PIL import Image

from engines import get_game
from engines.core import Rng
from renderers import crossroads_inn as cr

NAMES = ["Ann", "Bruno", "Chiara", "Dmitri"]
OPTIONS: dict[int, dict[str, Any]] = {
    2: {"basic_tiles": "draft", "kingdom": "8+9"},
    4: {"basic_tiles": "random", "kingdom": "1+5"},
}


def _position(players: int, plies: int, seed: int) -> tuple[Any, Any]:
    """(public view, a seat's own view) after ``plies`` random moves (or the end)."""
    game = get_game("crossroads-inn")
    state = game.setup(players, game.Options(**OPTIONS[players]), seed)
    rng = Rng.from_seed(seed)
    for _ in range(plies):
        if game.is_over(state):
            break
        seats = game.to_act(state)
        seat = seats[rng.randrange(len(seats))]
        actions = [a for a in game.legal_actions(state, seat) if a.kind != "undo"]
        if not actions:
            break
        try:
            game.apply(state, seat, rng.choice(actions))
        except Exception as exc:  # an engine bug must not hide the render figures
            print(f"  (engine stopped early: {type(exc).__name__}: {exc})")
            break
    seat = game.to_act(state)[0] if not game.is_over(state) else 0
    return game.view(state, None), game.view(state, seat)


def _parts(public: Any, own: Any) -> list[tuple[str, Callable[[], bytes | str]]]:
    inn_seat = public.active if public.active is not None else 0
    return [
        ("table", lambda: cr.render(public, NAMES)),
        (f"inn:{inn_seat}", lambda: cr.render(public, NAMES, part=f"inn:{inn_seat}")),
        ("inns", lambda: cr.render(public, NAMES, part="inns")),
        (f"hand (seat {own.seat})", lambda: cr.render_hand(own, NAMES)),
        ("text_board", lambda: cr.text_board(public, lambda s: NAMES[s])),
    ]


def _measure(fn: Callable[[], bytes | str], repeat: int) -> tuple[float, int, str]:
    fn()  # warm caches (fonts, content)
    times = []
    out: bytes | str = b""
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t0) * 1000)
    size = ""
    if isinstance(out, bytes):
        with Image.open(BytesIO(out)) as img:
            size = f"{img.width}x{img.height}"
    return statistics.median(times), len(out), size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--plies", type=int, default=170)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    for players in (2, 4):
        public, own = _position(players, args.plies, args.seed)
        print(f"# {players} players ({public.phase}, inns covered "
              f"{[p.covered for p in public.seats]}), median of {args.repeat}")
        for label, fn in _parts(public, own):
            ms, n, size = _measure(fn, args.repeat)
            unit = f"{n / 1024:7.1f} KiB PNG" if size else f"{n:7d} chars"
            print(f"  {label:<16} {ms:7.1f} ms  {unit}  {size}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
