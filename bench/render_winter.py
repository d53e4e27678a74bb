"""Winter Tales pictures and exports: board and hand render time and PNG size, and the
size and time of the storybook exports, for random games and a long synthetic transcript.

    .venv/bin/python -m bench.render_winter [--games N] [--every K] [--players 3 5 7]
                                            [--long ENTRIES]

Games are played with random legal choices and generated narration (every module on).
The board is drawn from the public view every K plies; the hand from the view of a seat
that must act. Exports are made from the finished game's public view, then from a
transcript stretched to ``--long`` entries (the story of a very long evening).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from bench.stats import nearest_rank
from engines import get_game
from engines.core import Rng
from engines.winter_tales.content import load_content
from renderers import common, storybook, winter_hand, winter_tales

GAME = get_game("winter-tales")
NAMES = ["Ada", "Bruno", "Chiara", "Dan", "Elena", "Fede", "Gio"]
WORDS = ["snow", "lantern", "whisper", "frost", "door", "song", "shadow", "ember", "river",
         "bell", "promise", "letter", "storm", "candle", "secret", "dawn"]


def _sentence(rng: Rng) -> str:
    c = load_content()
    who = rng.choice(c.characters).name
    where = rng.choice(c.map.locations).name
    return (f"{who} slipped through {where}, carrying a {rng.choice(WORDS)} wrapped in a "
            f"{rng.choice(WORDS)}-coloured scarf, and listened for the siren.")


def _play(players: int, seed: int, every: int) -> tuple[list[Any], list[Any], Any]:
    """Public views every ``every`` plies, seat views of a seat to act, and the last state."""
    state = GAME.setup(players, GAME.Options(power=True, objective=True, skill=True), seed)
    rng = Rng.from_seed(seed)
    boards, hands = [], []
    ply = 0
    while not GAME.is_over(state):
        seats = GAME.to_act(state)
        seat = seats[rng.randrange(len(seats))]
        if ply % every == 0:
            boards.append(GAME.view(state, None))
            hands.append(GAME.view(state, seat))
        action = rng.choice(GAME.legal_actions(state, seat))
        if "text" in type(action).model_fields and rng.randrange(3):
            told = action.model_copy(update={"text": _sentence(rng)})
            try:
                GAME.check(state, seat, told)
                action = told
            except ValueError:
                pass
        GAME.apply(state, seat, action)
        ply += 1
    boards.append(GAME.view(state, None))
    return boards, hands, state


def _export(view: Any, names: list[str], fmt: str, board: bytes | None) -> str:
    story = storybook.story_from_view(view, names)
    if fmt == "md":
        return storybook.to_markdown(story)
    if fmt == "json":
        return storybook.to_json(story)
    return storybook.to_html(story, board_png=board)


def _line(label: str, values: list[float], unit: str) -> str:
    return (f"  {label:<16} mean {statistics.mean(values):7.1f}"
            f"  p95 {nearest_rank(values, 0.95):7.1f}"
            f"  max {max(values):7.1f} {unit}")


def _time(fn: Any, *args: Any, **kw: Any) -> tuple[float, Any]:
    t0 = time.perf_counter()
    out = fn(*args, **kw)
    return (time.perf_counter() - t0) * 1000, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--every", type=int, default=25)
    parser.add_argument("--players", type=int, nargs="+", default=[3, 5, 7])
    parser.add_argument("--long", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    winter_tales.static_map()
    print(f"# static map (drawn once per process): {(time.perf_counter() - t0) * 1000:.0f} ms")
    last_state = None
    for players in args.players:
        board_ms, board_kib, draw_ms, enc_ms, hand_ms, hand_kib, heights = ([] for _ in range(7))
        hand_px = []
        exports: dict[str, list[float]] = {}
        entries = []
        for g in range(args.games):
            boards, hands, state = _play(players, args.seed * 100 + g, args.every)
            last_state = state
            names = NAMES[:players]
            for view in boards:
                ms, png = _time(winter_tales.render, view, names)
                board_ms.append(ms)
                board_kib.append(len(png) / 1024)
            for view in boards[:: max(1, len(boards) // 6)]:
                ms_d, img = _time(winter_tales.draw, winter_tales.picture_from_view(view, names))
                ms_e, _ = _time(common.to_png, img)
                draw_ms.append(ms_d)
                enc_ms.append(ms_e)
                heights.append(img.height)
            for view in hands:
                ms, png = _time(winter_hand.render, view, names)
                hand_ms.append(ms)
                hand_kib.append(len(png) / 1024)
                hand_px.append(len(view.hand or []))
            final = boards[-1]
            entries.append(len(final.transcript))
            board = winter_tales.render(final, names)
            for key, board_png in (("md", None), ("json", None), ("html", None),
                                   ("html+board", board)):
                ms, text = _time(_export, final, names, key.split("+")[0], board_png)
                exports.setdefault(key, []).append(len(text.encode()) / 1024)
                exports.setdefault(key + " ms", []).append(ms)
        print(f"# {players} players: {args.games} random games, {len(board_ms)} boards, "
              f"{len(hand_ms)} hands, transcript {statistics.mean(entries):.0f} entries/game")
        print(_line("board render", board_ms, "ms"))
        print(_line("  of it draw", draw_ms, "ms"))
        print(_line("  of it encode", enc_ms, "ms"))
        print(_line("board PNG", board_kib, "KiB"))
        print(f"  board size px    1200 x {min(heights)}..{max(heights)}")
        print(_line("hand render", hand_ms, "ms"))
        print(_line("hand PNG", hand_kib, "KiB"))
        print(f"  hand cards       {min(hand_px)}..{max(hand_px)} per image")
        for key in ("md", "json", "html", "html+board"):
            print(_line(f"export {key}", exports[key], "KiB"))
        for key in ("md ms", "json ms", "html ms"):
            print(_line(f"export {key}", exports[key], "ms"))
    if last_state is not None and args.long:
        view = GAME.view(last_state, None).model_dump()
        base = [e for e in view["transcript"] if e["kind"] != "chapter"]
        long = []
        chapter = 0
        while len(long) < args.long:
            chapter += 1
            long.append({"n": len(long), "kind": "chapter", "text": f"Chapter {chapter}",
                         "chapter": chapter})
            for e in base[: min(len(base), args.long - len(long))]:
                long.append({**e, "n": len(long), "chapter": chapter})
        view["transcript"] = long
        names = NAMES[: view["players"]]
        ms_story, story = _time(storybook.story_from_view, view, names)
        print(f"# long synthetic transcript: {len(long)} entries, {chapter} chapters "
              f"(adapter {ms_story:.0f} ms)")
        for fmt, fn in (("md", storybook.to_markdown), ("json", storybook.to_json),
                        ("html", storybook.to_html)):
            ms, text = _time(fn, story)
            print(f"  export {fmt:<5} {len(text.encode()) / 1024:8.1f} KiB  in {ms:6.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
