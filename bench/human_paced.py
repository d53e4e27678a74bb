"""Every game mixed, played at a person's pace, under Discord's rate limits, beside an
older build measured in the same run (issue 24).

    .venv/bin/python -m bench.human_paced [--sizes 1000,3000] [--think 20] [--window 120]
        [--closed-window 30] [--ref 348c7a8] [--builds new,ref] [--seed 1]
        [--render-workers N] [--setup-concurrency 16] [--workdir DIR] [--json FILE]

For each size N and each build (``new``: this checkout; ``ref``: the commit ``--ref``,
checked out once as a git worktree under ``--workdir``), one run in a fresh process of
its own (the emulator, the people and their bookkeeping start empty; the bot is a fresh
``python -m bot.cli run`` of that build on a fresh SQLite file):

1. **set-up**: N channels of one guild, tables dealt round-robin over the five games
   (two people a table, three for Winter Tales), each opened, joined and started,
   ``--setup-concurrency`` at a time (not measured, its length is printed).
2. **paced**: every person thinks an exponential time (mean ``--think`` s) before each
   decision, then clicks one of the choices the bot shows them at random (and answers the
   private menus it leads to at once: bench/load_drivers.py). After one mean think time
   of ramp, a window of ``--window`` s is measured.
3. **closed loop**: the same tables, every decision as soon as it shows, a
   ``--closed-window`` s window after a 5 s ramp: the build's saturation in moves/s.
4. **the herd**: the bot is stopped (SIGTERM) and started again; the moment it is up,
   every table makes one decision, all of them within one second (uniformly). Its first
   responses are what a crowd sees after a restart or an outage.

The emulator enforces Discord's own rate limits (tests/emulator/ratelimits.py:
``DISCORD_LIMITS``, the global 50 requests/s per bot token, 5 per 5 s per channel for
message create and for edit, 5 per 2 s per interaction token, the invalid-request ban)
in every phase.

Printed per run, for the paced window: click -> next choices (the interaction that
played a move to the first message showing anyone at the table a choice of a newer
version) p50/p95/p99; first response (INTERACTION_CREATE to the bot's callback)
p50/p95/p99/max and how many took over 3 s; bot-token requests (everything but the
interaction callback and the interaction-token webhooks, which Discord exempts from the
global limit) per move, per second and per game per move; 429s met, by scope (global,
user: a route's bucket, shared); moves/s; CPU per move (the bot and its render workers);
pictures posted (count, KiB per move). Then the closed-loop moves/s and requests/s, the
herd's first responses, and a side-by-side summary of the builds with the ratios new /
ref. Every move here is a person's (no AI seats), so per move is per human move.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/human_paced.py` as well as `-m`
    sys.path.insert(0, str(ROOT))

from bench.load import (  # noqa: E402
    LoadEmulator,
    LoopLag,
    bot_env,
    first_responses,
    freeze_garbage,
    log_problems,
    ms_line,
    open_backend,
    quiet,
    response_line,
    sample_tree,
    say,
)
from bench.load_drivers import DRIVERS, GAMES, GameTable, Played  # noqa: E402
from bench.load_games import merged, played_figures  # noqa: E402
from tests.e2e.harness import BotProcess  # noqa: E402
from tests.emulator.ratelimits import DISCORD_LIMITS  # noqa: E402

REFERENCE = "348c7a8"
"""main when issue 24 was filed: what the issue's figures were measured on."""
TARGET_P95 = {1000: 1.0, 3000: 3.0}  # click -> next choices, seconds
TARGET_PER_MOVE = 0.25  # bot-token requests per human move, in every game
DRAIN = 60.0


class PacedEmulator(LoadEmulator):
    """The load emulator under Discord's rate limits, noting every picture posted."""

    def __init__(self) -> None:
        super().__init__(rate_limits=DISCORD_LIMITS)
        self.pictures: list[tuple[float, int]] = []
        """(perf_counter, bytes) of every PNG the bot sent (created or edited in)."""

    def _attachments(self, payload: dict[str, Any], files: list[tuple[str, bytes, str]],
                     keep: Any = None) -> Any:
        now = time.perf_counter()
        self.pictures += [(now, len(data)) for name, data, _type in files
                          if name.endswith(".png")]
        return super()._attachments(payload, files, keep)


class Counters:
    """The emulator's request counts at one moment."""

    def __init__(self, emu: PacedEmulator) -> None:
        rl = emu.ratelimits
        self.at = time.perf_counter()
        self.kinds = Counter(rl.kinds)
        self.limited = Counter(rl.limited)
        self.channels = Counter(rl.bot_channels)
        self.routes = Counter(rl.bot_channel_routes)
        self.banned = rl.banned_requests

    def since(self, before: Counters) -> dict[str, Any]:
        return {"bot": self.kinds["bot"] - before.kinds["bot"],
                "interaction": self.kinds["interaction"] - before.kinds["interaction"],
                "limited": dict(self.limited - before.limited),
                "channels": self.channels - before.channels,
                "routes": self.routes - before.routes,
                "banned": self.banned - before.banned}


async def window(emu: PacedEmulator, tables: list[GameTable], pid: int, probe: Any,
                 lag: LoopLag, drivers: list[Any], stop: asyncio.Event, ramp: float,
                 span: float) -> dict[str, Any]:
    """Run ``drivers`` for ``ramp`` + ``span`` seconds and measure the last ``span``."""
    for tb in tables:
        tb.rec = Played()
    tasks = [asyncio.ensure_future(d) for d in drivers]
    await asyncio.sleep(ramp)
    c0, cpu0, by0 = Counters(emu), sample_tree(pid), await probe.moves_by_game()
    t0 = c0.at
    await asyncio.sleep(span)
    c1, cpu1, by1 = Counters(emu), sample_tree(pid), await probe.moves_by_game()
    t1 = c1.at
    stop.set()
    done, pending = await asyncio.wait(tasks, timeout=DRAIN)
    for task in pending:
        task.cancel()
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            say(f"a table's driver failed: {task.exception()!r}")
    deadline = time.perf_counter() + DRAIN
    while any(tb.awaits_picture for tb in tables) and time.perf_counter() < deadline:
        await asyncio.sleep(0.2)
    await quiet(pid, timeout=DRAIN)
    moves_by_game = {g: by1.get(g, 0) - by0.get(g, 0) for g in by1}
    moves = sum(moves_by_game.values())
    req = c1.since(c0)
    out: dict[str, Any] = played_figures(merged(tables), t0, t1)
    seconds = t1 - t0
    pictures = [b for at, b in emu.pictures if t0 <= at < t1]
    out.update({
        "window": seconds, "moves": moves, "moves_per_s": moves / seconds,
        "bot_requests": req["bot"], "bot_per_s": req["bot"] / seconds,
        "bot_per_move": req["bot"] / moves if moves else float("nan"),
        "interaction_requests": req["interaction"], "limited": req["limited"],
        "banned": req["banned"],
        "cpu_per_move_s": (cpu1.cpu - cpu0.cpu) / moves if moves else float("nan"),
        "bot_cores": (cpu1.cpu - cpu0.cpu) / seconds,
        "pictures": len(pictures), "picture_bytes": sum(pictures),
        "picture_bytes_per_move": sum(pictures) / moves if moves else float("nan"),
        "loop_lag": lag.between(t0, t1),
    })
    per_game: dict[str, Any] = {}
    for game in sorted({tb.game for tb in tables}):
        mine = [tb for tb in tables if tb.game == game]
        channels = {tb.channel.id for tb in mine} | {dm for tb in mine for dm in tb.dm_people}
        spent = sum(n for ch, n in req["channels"].items() if ch in channels)
        dms = {dm for tb in mine for dm in tb.dm_people}
        routes: Counter[str] = Counter()
        for (ch, route), k in req["routes"].items():
            if ch in channels:
                routes[("DM " if ch in dms else "") + route.split(" /")[0]
                       + (" message" if route.endswith("{message_id}") else " messages")] += k
        n = moves_by_game.get(game, 0)
        f = played_figures(merged(mine), t0, t1)
        per_game[game] = {"tables": len(mine), "moves": n, "bot_requests": spent,
                          "bot_per_move": spent / n if n else float("nan"),
                          "routes": dict(routes.most_common()),
                          "next_choices": f["next_choices"], "surfaces": f["surfaces"]}
    out["per_game"] = per_game
    return out


async def open_tables(emu: PacedEmulator, store: Any, pid: int, channels: list[Any],
                      people: list[list[Any]], games: list[str], opts: argparse.Namespace
                      ) -> tuple[list[GameTable], dict[str, Any]]:
    """A driven table per channel, each opened, joined and started on Discord
    (``opts.setup_concurrency`` at a time); the tables and what the set-up took, once
    the bot is quiet again."""
    tables = [GameTable(emu, store.probe, ch, ps, DRIVERS[g],
                        random.Random(opts.seed * 1_000_003 + i), dm_share=opts.dm_share)
              for i, (ch, ps, g) in enumerate(zip(channels, people, games, strict=True))]
    gate = asyncio.Semaphore(opts.setup_concurrency)
    t = time.perf_counter()

    async def open_table(i: int, table: GameTable) -> bool:
        async with gate:
            return await table.lobby(seed=opts.seed * 1_000_003 + i)

    opened = await asyncio.gather(*(open_table(i, tb) for i, tb in enumerate(tables)))
    setup = {"opened": sum(opened), "seconds": time.perf_counter() - t}
    await quiet(pid, timeout=DRAIN)
    emu.trim_history()
    freeze_garbage()
    return tables, setup


async def one_run(build: str, root: Path, size: int, opts: argparse.Namespace) -> dict[str, Any]:
    """One build at one size, in this (fresh) process."""
    lag = LoopLag()
    lag.start()
    workdir = Path(opts.workdir) / f"{build}-{size}"
    workdir.mkdir(parents=True, exist_ok=True)
    for old in workdir.glob("fabletop.db*"):
        old.unlink()
    out: dict[str, Any] = {"build": build, "size": size, "root": str(root)}
    async with open_backend("sqlite", workdir) as store, PacedEmulator() as emu:
        games = [GAMES[i % len(GAMES)] for i in range(size)]
        channels = [emu.add_channel(emu.guild, f"table-{i}") for i in range(size)]
        people = [[emu.user(f"p{i}-{k}") for k in range(DRIVERS[g].players)]
                  for i, g in enumerate(games)]
        env = bot_env(opts.render_workers, store, IDLE_SECONDS="600")
        bot = BotProcess(emu, workdir, root=root, **env)
        await bot.start(timeout=180)
        assert bot.proc is not None
        await quiet(bot.proc.pid)
        say(f"{build} {size}: opening the tables")
        tables, out["setup"] = await open_tables(emu, store, bot.proc.pid, channels, people,
                                                 games, opts)
        pid = bot.proc.pid
        errors0 = len(emu.api_errors)

        say(f"{build} {size}: paced, think {opts.think:g} s, window {opts.window:g} s")
        stop = asyncio.Event()
        rngs = [random.Random(opts.seed * 7_919 + i) for i in range(size)]
        out["paced"] = await window(
            emu, tables, pid, store.probe, lag,
            [tb.play_paced(stop, opts.think, r) for tb, r in zip(tables, rngs, strict=True)],
            stop, opts.think, opts.window)

        say(f"{build} {size}: closed loop, window {opts.closed_window:g} s")
        stop = asyncio.Event()
        out["closed"] = await window(emu, tables, pid, store.probe, lag,
                                     [tb.play_closed(stop) for tb in tables], stop, 5.0,
                                     opts.closed_window)
        out["api_errors"] = len(emu.api_errors) - errors0

        say(f"{build} {size}: the herd (restart, then every table within 1 s)")
        for tb in tables:
            tb.rec = Played()
        await bot.stop()
        try:
            await bot.start(sync=False, timeout=180)
        except AssertionError as exc:
            # A bot banned for its invalid requests (the 429s it earned) cannot log in.
            out["herd"] = {"error": str(exc).splitlines()[0],
                           "banned_requests": emu.ratelimits.banned_requests}
            out["log_problems"] = log_problems(bot.log())
            lag.stop()
            return out
        h0 = time.perf_counter()
        spread = [h0 + random.Random(opts.seed + i).random() for i in range(size)]
        outcomes = await asyncio.gather(*(tb.play_once(at) for tb, at in zip(
            tables, spread, strict=True)), return_exceptions=True)
        rec = merged(tables)
        first = [i for tb in tables for i in tb.rec.clicks[:1]]
        out["herd"] = {"tables": size, "first_clicks": first_responses(first),
                       "all_clicks": first_responses(rec.clicks),
                       "moved": sum(1 for o in outcomes if o == "move"),
                       "errors": sum(1 for o in outcomes if isinstance(o, BaseException))}
        before_stop = len(bot.log())
        await bot.stop()
        out["log_problems"] = log_problems(bot.log()[:before_stop])
    lag.stop()
    return out


# ---- the parent: one child process per run ------------------------------------------------


def reference_root(ref: str, workdir: Path) -> Path:
    """A worktree of ``ref`` (made once, reused)."""
    path = workdir / f"ref-{ref}"
    if not (path / "bot").is_dir():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force",
                        str(path), ref], check=True, capture_output=True)
    return path


def child(build: str, root: Path, size: int, opts: argparse.Namespace) -> dict[str, Any]:
    args = [sys.executable, "-m", "bench.human_paced", "--one", f"{build}:{root}:{size}",
            "--think", str(opts.think), "--window", str(opts.window),
            "--closed-window", str(opts.closed_window), "--seed", str(opts.seed),
            "--setup-concurrency", str(opts.setup_concurrency), "--workdir", opts.workdir,
            "--dm-share", str(opts.dm_share)]
    if opts.render_workers is not None:
        args += ["--render-workers", opts.render_workers]
    done = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, text=True, check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"build": build, "size": size, "failed": done.returncode}
    return json.loads(lines[-1])  # type: ignore[no-any-return]


def f_ms(value: float) -> str:
    return f"{1000 * value:.0f}" if value == value else "-"


def scopes(limited: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(limited.items())) or "none"


def report(r: dict[str, Any], think: float) -> None:
    if "failed" in r:
        print(f"\n=== {r['build']}, {r['size']} tables: the run failed ({r['failed']}) ===")
        return
    print(f"\n=== {r['build']} ({r['root']}), {r['size']} tables ===")
    print(f"set-up: {r['setup']['opened']}/{r['size']} opened in {r['setup']['seconds']:.0f} s")
    for phase, title in (("paced", f"paced (think {think:g} s mean)"), ("closed", "closed loop")):
        m = r[phase]
        print(f"--- {title}, {m['window']:.0f} s window ---")
        print(ms_line("click -> next choices", m["next_choices"]))
        print(response_line("first response", m["clicks"]))
        print(f"  moves/s {m['moves_per_s']:.1f} ({m['moves']}); CPU per move "
              f"{1000 * m['cpu_per_move_s']:.1f} ms ({m['bot_cores']:.2f} cores)")
        print(f"  bot-token requests {m['bot_per_move']:.3f} per move, {m['bot_per_s']:.1f}/s "
              f"({m['interaction_requests']} on interaction tokens); 429s: "
              f"{scopes(m['limited'])}; banned {m['banned']}")
        print(f"  pictures {m['pictures']} ({m['picture_bytes'] / 2**10 / max(1, m['moves']):.1f} "
              f"KiB per move); emulator loop late p99 {f_ms(m['loop_lag']['p99'])} ms")
        print("  per game: bot-token requests per move, click -> next choices p95")
        for game, g in m["per_game"].items():
            spent = ", ".join(f"{k} {v}" for k, v in g["routes"].items())
            where = ", ".join(f"{k} {v}" for k, v in sorted(g["surfaces"].items()))
            print(f"    {game:<15} {g['bot_per_move']:.3f} ({g['bot_requests']}/{g['moves']})"
                  f"  p95 {f_ms(g['next_choices']['p95'])} ms  [{spent}]  decisions: {where}")
    h = r["herd"]
    if "error" in h:
        print(f"  herd: not run, the restarted bot could not log in ({h['error']}; "
              f"{h['banned_requests']} requests refused by the ban)")
        return
    print(response_line("herd: first clicks", h["first_clicks"]))
    print(f"  herd: {h['moved']}/{h['tables']} tables moved; errors {h['errors']}")
    p = r["log_problems"]
    print(f"bot log: {p['tracebacks']} tracebacks, {p['errors']} ERROR lines; "
          f"refused requests {r['api_errors']}")


def summary(runs: list[dict[str, Any]]) -> None:
    print("\n=== summary: new / ref ===")
    sizes = sorted({r["size"] for r in runs})
    for size in sizes:
        by = {r["build"]: r for r in runs if r["size"] == size and "failed" not in r}
        if len(by) < 2:
            continue
        new, ref = by["new"], by["ref"]
        rows = [
            ("paced click -> next p95 (s)", new["paced"]["next_choices"]["p95"],
             ref["paced"]["next_choices"]["p95"]),
            ("paced first response p99 (s)", new["paced"]["clicks"]["p99"],
             ref["paced"]["clicks"]["p99"]),
            ("paced moves/s", new["paced"]["moves_per_s"], ref["paced"]["moves_per_s"]),
            ("paced bot-token req/move", new["paced"]["bot_per_move"],
             ref["paced"]["bot_per_move"]),
            ("paced bot-token req/s", new["paced"]["bot_per_s"], ref["paced"]["bot_per_s"]),
            ("paced CPU per move (s)", new["paced"]["cpu_per_move_s"],
             ref["paced"]["cpu_per_move_s"]),
            ("paced picture KiB/move", new["paced"]["picture_bytes_per_move"] / 2**10,
             ref["paced"]["picture_bytes_per_move"] / 2**10),
            ("closed moves/s (saturation)", new["closed"]["moves_per_s"],
             ref["closed"]["moves_per_s"]),
            ("herd first response max (s)",
             new["herd"].get("first_clicks", {}).get("max", float("nan")),
             ref["herd"].get("first_clicks", {}).get("max", float("nan"))),
        ]
        print(f"-- {size} tables --")
        for label, a, b in rows:
            ratio = a / b if b and b == b and a == a else float("nan")
            print(f"  {label:<32} {a:10.3f} {b:10.3f}   x{ratio:.2f}")
        p95 = new["paced"]["next_choices"]["p95"]
        target = TARGET_P95.get(size)
        worst = max(g["bot_per_move"] for g in new["paced"]["per_game"].values())
        limited = new["paced"]["limited"]
        # A reference that made no move in its closed loop (banned, say) has no ratio.
        ref_closed = ref["closed"]["moves_per_s"]
        saturation = (f"x{new['closed']['moves_per_s'] / ref_closed:.2f}" if ref_closed > 0
                      else f"- (ref made no closed-loop move: {ref['closed']['banned']} refused "
                           "by a ban)")
        print(f"  targets: p95 <= {target} s: {p95:.2f} s; 0 first responses > 3 s: "
              f"{new['paced']['clicks']['late']}; global 429s: {limited.get('global', 0)}; "
              f"all 429s in the window: {sum(limited.values())}; worst game "
              f"{worst:.3f} req/move (<= {TARGET_PER_MOVE}); saturation {saturation}"
              f" (>= x3); herd first responses > 3 s: "
              f"{new['herd'].get('first_clicks', {}).get('late', '-')}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,3000")
    parser.add_argument("--think", type=float, default=20.0)
    parser.add_argument("--window", type=float, default=120.0)
    parser.add_argument("--closed-window", type=float, default=30.0)
    parser.add_argument("--ref", default=REFERENCE)
    parser.add_argument("--builds", default="new,ref")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dm-share", type=float, default=0.25,
                        help="share of decisions played from the DM hand where the channel "
                             "offers the same moment (the rest: turn message and panel)")
    parser.add_argument("--render-workers", default=None)
    parser.add_argument("--setup-concurrency", type=int, default=16)
    parser.add_argument("--workdir", default=os.environ.get("BENCH_WORKDIR",
                                                            "/tmp/fabletop-human-paced"))
    parser.add_argument("--json", default=None, help="also write every figure to this file")
    parser.add_argument("--one", default=None, help=argparse.SUPPRESS)
    opts = parser.parse_args(argv)
    Path(opts.workdir).mkdir(parents=True, exist_ok=True)
    if opts.one:
        build, root, size = opts.one.split(":")
        result = asyncio.run(one_run(build, Path(root), int(size), opts))
        print(json.dumps(result, default=float))
        return 0
    runs = []
    for size in [int(s) for s in opts.sizes.split(",")]:
        for build in opts.builds.split(","):
            root = ROOT if build == "new" else reference_root(opts.ref, Path(opts.workdir))
            say(f"run: {build} at {size} tables")
            r = child(build, root, size, opts)
            report(r, opts.think)
            runs.append(r)
            sys.stdout.flush()
    summary(runs)
    if opts.json:
        Path(opts.json).write_text(json.dumps(runs, default=float) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
