"""Every game under load, on SQLite and on PostgreSQL, beside a bot that only acks.

    .venv/bin/python -m bench.load_games [--sizes 10,100,1000] [--games all]
        [--backends sqlite,postgres] [--window 30] [--ramp 5] [--idle-seconds 60]
        [--render-workers N] [--seed 1] [--setup-concurrency 16] [--pg-url URL]
        [--keep DIR]

For each backend and each size N, the real bot (``python -m bot.cli run``,
tests.e2e.harness.BotProcess) runs on a fresh store (a SQLite file; or a private
PostgreSQL database ``fabletop_bench_<random>`` made on ``--pg-url``'s server, default
``BENCH_PG_URL`` or postgresql://postgres@127.0.0.1:5432/test, and dropped after the run)
against the loopback Discord emulator with N channels. The tables are dealt out
round-robin over ``--games`` (default every game: fairy-tale-inn, pocket,
crossroads-inn, treasure, winter-tales), each with its own people (two, three for
Winter Tales), who play as bench/load_drivers.py says: whoever is shown a choice (on the
public turn message, their DM hand, a private menu, a text form) clicks a random one of
those the bot offers as soon as it shows; a finished game is opened again in the same
channel. The bot runs with ``IDLE_SECONDS`` (``--idle-seconds``, default 60), the time
after which an unused table sheds its state from memory (600 s in production).

The phases of one run (a backend, a size):

1. **set-up**: the bot starts (``quiet``: its render workers warmed up), then every
   table is opened, joined and started, ``--setup-concurrency`` at a time.
2. **load**: every table plays in closed loop; the window (``--window``, default 30 s)
   starts after a ramp (``--ramp``, default 5 s) and the drivers stop at its end (their
   last decisions finish, then the bot's backlog drains).
3. **idle**: nobody clicks for ``IDLE_SECONDS`` + 7 s after the bot went quiet (the bot
   sheds idle tables every 5 s), then the bot's memory is read. How many tables were
   shed meanwhile is counted from the bot's log if it logs a line ``shed <n> idle
   tables`` (else printed as "not in the bot log").
4. **wake-up**: every table makes one decision, their starts spread uniformly over
   N / (moves/s of the load window) seconds (2 to 60), so the shed tables are loaded
   again at about the load's own pace.
5. then the **minimal bot** (bench/minimal_bot.py: a discord.py bot that only
   acknowledges) gets the same number of people, clicking a button (and ``/ping`` for
   the share of slash commands) at the interaction rate the real bot sustained in the
   window, closed loop (bench.load.minimal_phase), with the same ramp and window.

What the figures mean (inside the window unless said otherwise):

* **first response**: INTERACTION_CREATE leaving the emulator's gateway to the bot's
  first interaction callback arriving (``Interaction.latency``, as ``emu.latencies()``;
  Discord's 3-second rule is about it), over every interaction the people sent in the
  window: button clicks, select picks, text forms sent, and the slash commands of the
  games opened again. p50/p95/p99/max, how many took over 3 s and how many *failed*
  (no callback in 3 s: "This interaction failed"). Also per game (clicks and forms),
  and for the slash commands alone.
* **click -> next choices**: from the interaction that played a move (the click, or the
  text form sent) to the emulator applying the first message that shows the table's
  people a choice of a newer version (a new or edited turn message, a DM hand message),
  for moves made in the window and answered within 120 s. What a person waits for
  between two moves; the last move of a game has none.
* **clicks came to**: the outcome of each interaction (bench/load_drivers.py): a move,
  a private menu, a text form opened, refused, failed, lost.
* **moves/s**: rows added to the ``actions`` table (committed moves) in the window, over
  the window; also per game (joined with ``tables.game_id``).
* **CPU per move**, **load average**, **emulator+people**: as in bench/load.py.
* **memory**: RSS (``/proc/<pid>/stat``) of the bot and its descendants (the render
  workers), and of the bot process alone (where the tables live; the workers' caches are
  bounded and the same for any number of tables):

  - *zero tables*: after start-up, workers warmed, no table yet;
  - *per live table*: (RSS at the end of the load window - zero tables) / N;
  - *per idle table*: (RSS after the idle phase, when every table has shed its state -
    zero tables) / N; with the absolute totals. The allocator keeps freed memory, so
    this falls little in place;
  - *per idle table, restarted* (the idle target): the bot is restarted with the same
    tables (SIGTERM, start, its catch-up reads every table once and sheds it), and
    (its RSS once quiet - zero tables) / N: what a process whose tables all wait holds;
  - *slope between sizes* (in the summary, when the run has several sizes): the change
    of the restarted-idle (and live) RSS from one size to the next over the change of N. Each size
    is a fresh bot, so one-time costs (a worker's fonts and caches, imports, the SQLite
    page cache) cancel out: the cost of one more table.
* **wake-up**: how many tables played a move after the idle phase (their state was
  reloaded on demand), their first response and click -> next choices.
* **minimal bot**: its first response (all its interactions) in the same run, and the
  ratio bot p99 / minimal p99 (the real bot's p99 over every interaction in the window).

Targets (printed with each run and in the summary): at 1,000 tables the bot's p99 first
response within 10 times the minimal bot's p99 measured in the same run; under 50 KB
(here KiB) per idle table. The idle target is judged on the slope between the two
largest sizes when the run has several sizes, else on the per-table figure of the size;
both the bot+workers and the bot-process figures are printed.

Prints a block per backend and size, a side-by-side summary per size, progress on
stderr, and one JSON line with every figure. The default run (3 sizes x 2 backends)
takes about 30 to 40 minutes on a 2-core machine: each run has about 3 minutes of fixed
phases (bot start, ramp, window, idle, wake-up, the minimal bot's start, ramp and
window), and a 1,000-table run adds a few minutes of set-up and of draining the bot's
backlog. ``--sizes 10 --window 10 --idle-seconds 10`` takes about 1.5 minutes per
backend.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import logging
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/load_games.py` as well as `-m`
    sys.path.insert(0, str(ROOT))

from bench.load import (  # noqa: E402
    BACKENDS,
    DRAIN,
    LATE,
    PG_ADMIN_URL,
    RAMP,
    LoadEmulator,
    LoopLag,
    Options,
    bot_env,
    clean,
    figures,
    first_responses,
    freeze_garbage,
    in_window,
    log_problems,
    measure_window,
    minimal_bot,
    ms_line,
    open_backend,
    quiet,
    response_line,
    sample_tree,
    say,
)
from bench.load_drivers import DRIVERS, GAMES, GameTable, Played  # noqa: E402
from tests.e2e.harness import BotProcess  # noqa: E402

SHED_POLL = 5.0  # the bot's timer loop sheds idle tables this often (bot/core/tables/timers.py)
P99_RATIO_TARGET = 10.0  # bot p99 / minimal bot p99, at 1,000 tables
IDLE_TARGET = 50 * 2**10  # bytes per idle table
TARGET_SIZE = 1000
OUTCOMES = ("move", "menu", "form", "refused", "failed", "lost", "?")
SHED_LOG = re.compile(r"shed (\d+) idle tables?")
"""The bot's log line when its timer loop sheds tables (if this bot logs it)."""


@dataclass
class RunOptions:
    sizes: list[int]
    games: list[str]
    backends: list[str]
    window: float
    ramp: float
    idle_seconds: float
    seed: int
    render_workers: str | None
    setup_concurrency: int
    workdir: Path
    pg_url: str


def merged(tables: Sequence[GameTable]) -> Played:
    out = Played()
    for t in tables:
        out.clicks += t.rec.clicks
        out.slash += t.rec.slash
        out.next_choices += t.rec.next_choices
        out.kinds.update(t.rec.kinds)
        out.decisions += t.rec.decisions
        out.surfaces += t.rec.surfaces
        out.stuck += t.rec.stuck
        out.lobbies += t.rec.lobbies
    return out


def played_figures(rec: Played, t0: float, t1: float) -> dict[str, Any]:
    """The first responses, outcomes and next-choice waits of what began in [t0, t1)."""
    clicks = in_window(rec.clicks, t0, t1)
    slash = in_window(rec.slash, t0, t1)
    return {
        "all": first_responses(clicks + slash),
        "clicks": first_responses(clicks),
        "slash": first_responses(slash),
        "next_choices": figures([lat for at, lat in rec.next_choices if t0 <= at < t1]),
        "surfaces": dict(Counter(where for at, where in rec.surfaces if t0 <= at < t1)),
        "outcomes": {k: sum(1 for i in clicks if rec.kinds.get(i.id, "?") == k)
                     for k in OUTCOMES},
        "interactions": len(clicks) + len(slash),
        "slash_share": len(slash) / max(1, len(clicks) + len(slash)),
    }


def memory(sample: Any, base: Any, size: int) -> dict[str, float]:
    return {"rss": sample.rss, "rss_main": sample.rss_main,
            "per_table": (sample.rss - base.rss) / size,
            "per_table_main": (sample.rss_main - base.rss_main) / size}


async def real_bot(size: int, backend: str, opts: RunOptions, lag: LoopLag) -> dict[str, Any]:
    out: dict[str, Any] = {"backend": backend, "size": size}
    workdir = opts.workdir / backend / f"bot-{size}"
    workdir.mkdir(parents=True, exist_ok=True)
    window_opts = Options([size], ["closed"], {"closed": opts.window}, 20.0, opts.seed,
                          opts.render_workers, opts.setup_concurrency, workdir, opts.ramp,
                          backend, opts.pg_url)
    async with open_backend(backend, workdir, opts.pg_url) as store, LoadEmulator() as emu:
        # Channels and people before the bot connects: one GUILD_CREATE.
        games = [opts.games[i % len(opts.games)] for i in range(size)]
        channels = [emu.add_channel(emu.guild, f"table-{i}") for i in range(size)]
        people = [[emu.user(f"p{i}-{k}") for k in range(DRIVERS[g].players)]
                  for i, g in enumerate(games)]
        env = bot_env(opts.render_workers, store, IDLE_SECONDS=f"{opts.idle_seconds:g}")
        bot = BotProcess(emu, workdir, **env)
        t = time.perf_counter()
        await bot.start(timeout=120)
        assert bot.proc is not None
        pid = bot.proc.pid
        connect = time.perf_counter() - t
        await quiet(pid)
        base = sample_tree(pid)
        say(f"{backend}, {size} tables: bot up in {connect:.1f} s ({base.processes} "
            f"processes, {base.rss / 2**20:.0f} MB); opening the tables")
        tables = [GameTable(emu, store.probe, ch, ps, DRIVERS[g],
                            random.Random(opts.seed * 1_000_003 + i))
                  for i, (ch, ps, g) in enumerate(zip(channels, people, games, strict=True))]

        # 1. set-up
        gate = asyncio.Semaphore(opts.setup_concurrency)
        opened = 0
        t_setup = time.perf_counter()

        async def open_table(i: int, table: GameTable) -> bool:
            nonlocal opened
            async with gate:
                ok = await table.lobby(seed=opts.seed * 1_000_003 + i)
            opened += 1
            if opened % max(1, size // 10) == 0:
                say(f"  {opened}/{size} tables open ({time.perf_counter() - t_setup:.0f} s)")
            return ok

        ok = await asyncio.gather(*(open_table(i, tb) for i, tb in enumerate(tables)))
        setup = time.perf_counter() - t_setup
        await quiet(pid, timeout=30)
        loaded = sample_tree(pid)
        out["setup"] = {"tables": size, "opened": sum(ok), "setup_s": setup,
                        "connect_s": connect, "tables_per_s": size / setup,
                        "lobby_slash": first_responses(merged(tables).slash),
                        "processes": loaded.processes}
        out["memory"] = {"zero": {"rss": base.rss, "rss_main": base.rss_main},
                         "after_setup": memory(loaded, base, size)}

        # 2. load, closed loop
        for tb in tables:
            tb.rec = Played()
        say(f"  closed loop, {opts.window:.0f} s window after a {opts.ramp:.0f} s ramp")
        emu.trim_history()
        freeze_garbage()
        errors0, logs0 = len(emu.api_errors), bot.log().count("Traceback (most recent")
        stop = asyncio.Event()
        drivers: list[Awaitable[None]] = [tb.play_closed(stop) for tb in tables]
        m = await measure_window("closed", window_opts, pid, store.probe, lag, tables, stop,
                                 drivers, opts.ramp)
        t0, t1 = m.pop("t0"), m.pop("t1")
        rec = merged(tables)
        m.update(played_figures(rec, t0, t1))
        m["interactions_per_s"] = m["interactions"] / m["window"]
        m["per_game"] = {}
        for game in opts.games:
            mine = merged([tb for tb in tables if tb.game == game])
            f = played_figures(mine, t0, t1)
            moves = m["moves_by_game"].get(game, 0)
            m["per_game"][game] = {"tables": sum(1 for g in games if g == game),
                                   "clicks": f["clicks"], "next_choices": f["next_choices"],
                                   "outcomes": f["outcomes"], "moves": moves,
                                   "moves_per_s": moves / m["window"]}
        m["stuck"] = rec.stuck
        m["api_errors"] = len(emu.api_errors) - errors0
        m["tracebacks"] = bot.log().count("Traceback (most recent") - logs0
        out["load"] = m
        out["memory"]["live"] = {"rss": m["rss_end"], "rss_main": m["rss_end_main"],
                                 "per_table": (m["rss_end"] - base.rss) / size,
                                 "per_table_main": (m["rss_end_main"] - base.rss_main) / size}
        say(f"  load: {m['moves_per_s']:.1f} moves/s, p99 {1000 * m['all']['p99']:.0f} ms, "
            f"failed {m['all']['failed']}")

        # 3. idle: every table sheds its state
        await quiet(pid, timeout=60)
        wait = opts.idle_seconds + SHED_POLL + 2.0
        say(f"  idle for {wait:.0f} s (IDLE_SECONDS={opts.idle_seconds:g})")
        log0 = len(bot.log())
        await asyncio.sleep(wait)
        await quiet(pid, timeout=30)
        idle = sample_tree(pid)
        logged = SHED_LOG.findall(bot.log()[log0:])
        out["memory"]["idle"] = {**memory(idle, base, size), "waited_s": wait,
                                 "shed_logged": sum(map(int, logged)) if logged else None}

        # 3b. restarted: the same tables, waiting, in a fresh process. Freed memory is not
        # given back to the system in place (the allocator keeps its arenas), so the RSS
        # of a process that has only ever held idle tables is the honest idle figure.
        await bot.stop()
        await bot.start(sync=False, timeout=120)
        assert bot.proc is not None
        pid = bot.proc.pid
        await quiet(pid, timeout=60)
        restarted = sample_tree(pid)
        logged = SHED_LOG.findall(bot.log()[log0:])
        out["memory"]["restarted"] = {**memory(restarted, base, size),
                                      "shed_logged": sum(map(int, logged)) if logged else None}

        # 4. wake-up: one decision per table, at about the load's pace
        for tb in tables:
            tb.rec = Played()
        spread = min(60.0, max(2.0, size / m["moves_per_s"] if m["moves_per_s"] else 2.0))
        say(f"  wake-up: one decision per table over {spread:.0f} s")
        moves0 = await store.probe.moves()
        w0 = time.perf_counter()
        outcomes = await asyncio.gather(
            *(tb.play_once(w0 + spread * i / size) for i, tb in enumerate(tables)),
            return_exceptions=True)
        deadline = time.perf_counter() + 120.0
        while any(tb.awaits_picture for tb in tables) and time.perf_counter() < deadline:
            await asyncio.sleep(0.1)
        await quiet(pid, timeout=DRAIN)
        w1 = time.perf_counter()
        wake = played_figures(merged(tables), w0, w1)
        wake["spread_s"] = spread
        wake["moved"] = sum(1 for o in outcomes if o == "move")
        wake["tables"] = size
        wake["errors"] = sum(1 for o in outcomes if isinstance(o, BaseException))
        wake["moves"] = await store.probe.moves() - moves0
        out["wake"] = wake

        out["unknown_routes"] = sorted(set(emu.unknown_routes))[:5]
        before_stop = len(bot.log())
        await bot.stop()
        out["log_problems"] = log_problems(bot.log()[:before_stop])
        out["shutdown_problems"] = log_problems(bot.log()[before_stop:])
    return out


async def reference(size: int, backend: str, opts: RunOptions, real: dict[str, Any],
                    lag: LoopLag) -> dict[str, Any]:
    """The minimal bot at the interaction rate the real bot sustained (bench.load)."""
    m = real["load"]
    load_opts = Options([size], ["closed"], {"closed": opts.window}, 20.0, opts.seed,
                        opts.render_workers, opts.setup_concurrency, opts.workdir / backend,
                        opts.ramp)
    rates = {"closed": {"interactions_per_s": m["interactions_per_s"],
                        "slash_share": m["slash_share"]}}
    out = await minimal_bot(size, load_opts, rates, lag)
    return out.get("closed", {}) | {"log_problems": out["log_problems"]}


# ---- printing -----------------------------------------------------------------------------


def kib(value: float) -> str:
    return f"{value / 2**10:.1f} KiB" if value == value else "-"


def ms(value: float, width: int = 7, digits: int = 1) -> str:
    return f"{1000 * value:{width}.{digits}f}" if value == value else f"{'-':>{width}}"


def ratio_of(real: dict[str, Any], minimal: dict[str, Any]) -> float | None:
    a, b = real["load"]["all"]["p99"], minimal.get("responses", {}).get("p99", float("nan"))
    return a / b if a == a and b == b and b > 0 else None


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else ("met" if ok else "NOT met")


def report(real: dict[str, Any], minimal: dict[str, Any], opts: RunOptions) -> None:
    size, backend = real["size"], real["backend"]
    s, m, mem, wake = real["setup"], real["load"], real["memory"], real["wake"]
    per = ", ".join(f"{g} {m['per_game'][g]['tables']}" for g in opts.games)
    print(f"\n=== {size} tables ({per}), {backend} ===")
    print(f"set-up: {s['opened']}/{size} tables opened, joined and started in "
          f"{s['setup_s']:.1f} s ({s['tables_per_s']:.1f} tables/s, "
          f"{opts.setup_concurrency} at a time); bot connect {s['connect_s']:.1f} s")
    print(response_line("lobby slash commands", s["lobby_slash"]))
    print(f"--- closed loop, {opts.window:.0f} s window after a {opts.ramp:.0f} s ramp ---")
    print(response_line("first response, all", m["all"]))
    print(response_line("  clicks and forms", m["clicks"]))
    print(response_line("  slash (games reopened)", m["slash"]))
    print(ms_line("click -> next choices", m["next_choices"]))
    o = m["outcomes"]
    print("  interactions came to: " + ", ".join(f"{o[k]} {k}" for k in OUTCOMES if o[k])
          + f"; stuck tables {m['stuck']}")
    print(f"  moves/s {m['moves_per_s']:.2f} ({m['moves']} committed in {m['window']:.1f} s); "
          f"interactions/s {m['interactions_per_s']:.1f}")
    print("  per game (clicks and forms: first response; click -> next choices; moves/s):")
    for game in opts.games:
        g = m["per_game"][game]
        c, n = g["clicks"], g["next_choices"]
        print(f"    {game:<15} n={c['n']:<5} p50={ms(c['p50'], 6)} p99={ms(c['p99'])} "
              f"max={ms(c['max'])} ms >3s={c['late']} failed={c['failed']} | next "
              f"p50={ms(n['p50'], 6, 0)} p99={ms(n['p99'], 6, 0)} ms | "
              f"{g['moves_per_s']:5.2f} moves/s ({g['moves']})")
    print(f"  CPU per move {1000 * m['cpu_per_move_s']:.1f} ms (bot {m['cpu_bot_s']:.1f} s + "
          f"render workers {m['cpu_workers_s']:.1f} s = {m['bot_cores']:.2f} cores); "
          f"{1000 * m['cpu_per_move_phase_s']:.1f} ms over the whole phase, idle to idle")
    print(f"  load average (1 min) {m['load1_start']:.2f} -> {m['load1_end']:.2f}; other "
          f"processes used {m['others_cores']:.2f} cores")
    lag = m["loop_lag"]
    print(f"  emulator+people {m['driver_cores']:.2f} cores, its loop late p99 "
          f"{1000 * lag['p99']:.0f} ms max {1000 * lag['max']:.0f} ms (gc "
          f"{1000 * m['gc']['total']:.0f} ms, longest {1000 * m['gc']['max']:.0f} ms); "
          f"refused requests {m['api_errors']}, bot tracebacks {m['tracebacks']}")
    ratio = ratio_of(real, minimal)
    if minimal:
        print(response_line("minimal bot, first resp.", minimal["responses"]))
        print(f"  minimal bot at {minimal['interactions_per_s']:.1f} interactions/s, "
              f"{minimal['bot_cores']:.2f} cores; bot p99 / minimal p99 = "
              f"{'-' if ratio is None else f'{ratio:.1f}'}")
    z, live, idle = mem["zero"], mem["live"], mem["idle"]
    print(f"--- memory (bot + {s['processes'] - 1} render workers; bot process alone) ---")
    print(f"  zero tables         {z['rss'] / 2**20:7.1f} MB  ({z['rss_main'] / 2**20:.1f} MB)")
    for label, f in (("live (end of load)", live), ("idle (after shed)", idle)):
        print(f"  {label:<19} {f['rss'] / 2**20:7.1f} MB  ({f['rss_main'] / 2**20:.1f} MB)"
              f"  -> {kib(f['per_table'])}/table ({kib(f['per_table_main'])}/table)")
    shed = idle["shed_logged"]
    print(f"  (idle: measured {idle['waited_s']:.0f} s after the bot went quiet, "
          f"IDLE_SECONDS={opts.idle_seconds:g}; tables shed meanwhile: "
          f"{'not in the bot log' if shed is None else shed})")
    r = mem["restarted"]
    print(f"  {'idle, restarted':<19} {r['rss'] / 2**20:7.1f} MB  ({r['rss_main'] / 2**20:.1f} MB)"
          f"  -> {kib(r['per_table'])}/table ({kib(r['per_table_main'])}/table)"
          "  (a fresh process, every table waiting: the idle target)")
    print(f"wake-up: {wake['moved']}/{wake['tables']} tables played a move "
          f"({wake['moves']} moves committed) over {wake['spread_s']:.0f} s")
    print(response_line("  first response", wake["all"]))
    print(ms_line("  click -> next choices", wake["next_choices"]))
    at_target = size == TARGET_SIZE
    ok_ratio = (ratio is not None and ratio <= P99_RATIO_TARGET) if at_target else None
    print(f"targets: p99 ratio <= {P99_RATIO_TARGET:g} at {TARGET_SIZE:,} tables: "
          f"{'-' if ratio is None else f'{ratio:.1f}'} "
          f"({verdict(ok_ratio) if at_target else f'judged at {TARGET_SIZE:,} tables only'}); "
          f"idle < 50 KiB/table: {kib(r['per_table'])} "
          f"({verdict(r['per_table'] < IDLE_TARGET)}), bot process "
          f"{kib(r['per_table_main'])} ({verdict(r['per_table_main'] < IDLE_TARGET)})")
    for key, when in (("log_problems", "while running"), ("shutdown_problems", "at SIGTERM")):
        problems = real[key]
        if problems["tracebacks"] or problems["errors"]:
            print(f"bot log {when}: {problems['tracebacks']} tracebacks, {problems['errors']} "
                  f"ERROR lines; " + "; ".join(f"{n}x {k}" for k, n in problems["kinds"].items()))
    sys.stdout.flush()


def slopes(runs: dict[str, dict[str, Any]], backend: str,
           key: str) -> list[tuple[int, int, float, float]]:
    """(size a, size b, bytes per table, bot process bytes per table) of the RSS change
    between consecutive sizes (``key``: ``live``, ``idle`` or ``restarted``)."""
    sizes = sorted(int(n) for n in runs if backend in runs[n])
    out = []
    for a, b in itertools.pairwise(sizes):
        ma = runs[str(a)][backend]["bot"]["memory"][key]
        mb = runs[str(b)][backend]["bot"]["memory"][key]
        out.append((a, b, (mb["rss"] - ma["rss"]) / (b - a),
                    (mb["rss_main"] - ma["rss_main"]) / (b - a)))
    return out


def ms3(f: dict[str, Any] | None, keys: tuple[str, ...] = ("p50", "p99", "max")) -> str:
    if not f or not f.get("n"):
        return "-"
    return "/".join(f"{1000 * f[k]:.0f}" for k in keys) + " ms"


def size_rows(run: dict[str, Any], size: int) -> list[tuple[str, str]]:
    """(label, figure) of one backend's run of one size, for the summary."""
    bot, minimal = run["bot"], run["minimal"]
    r = ratio_of(bot, minimal)
    mem = bot["memory"]
    return [
        ("first response p50/p99/max", ms3(bot["load"]["all"])),
        ("minimal bot p50/p99/max", ms3(minimal.get("responses"))),
        ("p99 bot / minimal (<= 10)", "-" if r is None else f"{r:.1f}"),
        ("click -> next choices p50/p99", ms3(bot["load"]["next_choices"], ("p50", "p99"))),
        ("moves/s", f"{bot['load']['moves_per_s']:.2f}"),
        ("per live table (bot process)", f"{kib(mem['live']['per_table'])} "
                                         f"({mem['live']['per_table_main'] / 2**10:.1f})"),
        ("per idle table (bot process)", f"{kib(mem['idle']['per_table'])} "
                                         f"({mem['idle']['per_table_main'] / 2**10:.1f})"),
        ("idle RSS total (bot process)", f"{mem['idle']['rss'] / 2**20:.0f} MB "
                                         f"({mem['idle']['rss_main'] / 2**20:.0f})"),
        ("per idle table, restarted", f"{kib(mem['restarted']['per_table'])} "
                                      f"({mem['restarted']['per_table_main'] / 2**10:.1f})"),
        ("wake-up: tables that moved", f"{bot['wake']['moved']}/{size}"),
    ]


def summary(runs: dict[str, dict[str, Any]], opts: RunOptions) -> dict[str, Any]:
    """Side by side per size, the slopes between sizes, and the targets."""
    print("\n=== summary ===")
    cols = opts.backends
    print(f"{'':<32}" + "".join(f"{b:>24}" for b in cols))
    for size in opts.sizes:
        got = runs.get(str(size), {})
        print(f"-- {size} tables")
        table = {b: dict(size_rows(got[b], size)) for b in cols if b in got}
        labels = next(iter(table.values()), {})
        for label in labels:
            print(f"  {label:<30}" + "".join(f"{table.get(b, {}).get(label, '-'):>24}"
                                             for b in cols))
    out: dict[str, Any] = {}
    largest = str(max(opts.sizes))
    for b in cols:
        idle, live = slopes(runs, b, "restarted"), slopes(runs, b, "live")
        for (x, y, total, main), (_x, _y, ltotal, lmain) in zip(idle, live, strict=True):
            print(f"{b}: from {x} to {y} tables, each more table: idle {kib(total)} "
                  f"(bot process {kib(main)}), live {kib(ltotal)} (bot process {kib(lmain)})")
        run = runs.get(largest, {}).get(b)
        if run is None:
            continue
        if idle:
            _x, _y, per_idle, per_idle_main = idle[-1]
            how = f"slope {idle[-1][0]} -> {idle[-1][1]} tables"
        else:
            per_idle = run["bot"]["memory"]["restarted"]["per_table"]
            per_idle_main = run["bot"]["memory"]["restarted"]["per_table_main"]
            how = f"at {largest} tables"
        r = ratio_of(run["bot"], run["minimal"]) if largest == str(TARGET_SIZE) else None
        ratio_met = None if r is None else r <= P99_RATIO_TARGET
        out[b] = {"p99_ratio": r, "p99_ratio_met": ratio_met, "idle_per_table": per_idle,
                  "idle_per_table_main": per_idle_main, "idle_met": per_idle < IDLE_TARGET,
                  "idle_main_met": per_idle_main < IDLE_TARGET, "idle_how": how}
        ratio_text = (f"not judged (the largest size is {largest})"
                      if largest != str(TARGET_SIZE) else
                      f"{'-' if r is None else f'{r:.1f}'} ({verdict(ratio_met)})")
        print(f"{b}: target p99 ratio <= 10 at 1,000 tables: {ratio_text}; target idle < 50 "
              f"KiB/table ({how}): {kib(per_idle)} ({verdict(per_idle < IDLE_TARGET)}), "
              f"bot process {kib(per_idle_main)} ({verdict(per_idle_main < IDLE_TARGET)})")
    return out


async def run(opts: RunOptions) -> dict[str, Any]:
    lag = LoopLag()
    lag.start()
    runs: dict[str, dict[str, Any]] = {}
    try:
        for size in opts.sizes:
            for backend in opts.backends:
                t = time.perf_counter()
                real = await real_bot(size, backend, opts, lag)
                minimal = await reference(size, backend, opts, real, lag)
                report(real, minimal, opts)
                runs.setdefault(str(size), {})[backend] = {
                    "bot": real, "minimal": minimal, "elapsed_s": time.perf_counter() - t}
                say(f"{backend}, {size} tables done in {time.perf_counter() - t:.0f} s")
    finally:
        lag.stop()
    return runs


async def postgres_works(url: str) -> str | None:
    """None if a private database can be made on the server, else why not."""
    try:
        async with open_backend("postgres", Path(tempfile.gettempdir()), url) as store:
            await store.probe.close()
    except Exception as exc:  # any failure: the run goes on with the other backends
        return f"{type(exc).__name__}: {exc}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000", help="tables per run (10,100,1000)")
    parser.add_argument("--games", default="all",
                        help=f"comma-separated game ids, or all ({','.join(GAMES)})")
    parser.add_argument("--backends", default=",".join(BACKENDS),
                        help="sqlite,postgres (each size runs on each, side by side)")
    parser.add_argument("--window", type=float, default=30.0,
                        help="seconds measured in closed loop, and for the minimal bot (30)")
    parser.add_argument("--ramp", type=float, default=RAMP,
                        help="seconds played before the window (5)")
    parser.add_argument("--idle-seconds", type=float, default=60.0,
                        help="IDLE_SECONDS for the bot: an unused table sheds its state "
                             "after this long (60; long enough that no table of a "
                             "1,000-table load waits that long between two clicks)")
    parser.add_argument("--render-workers", default=None,
                        help="RENDER_WORKERS for the bot process (default: unset)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--setup-concurrency", type=int, default=16,
                        help="tables opened at once in the set-up (16)")
    parser.add_argument("--pg-url", default=PG_ADMIN_URL,
                        help="PostgreSQL server to make each run's private database on "
                             "(BENCH_PG_URL, default postgresql://postgres@127.0.0.1:5432/test)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the SQLite files and logs in this directory")
    args = parser.parse_args(argv)
    games = list(GAMES) if args.games == "all" else [g.strip() for g in args.games.split(",")
                                                     if g.strip()]
    unknown = [g for g in games if g not in DRIVERS]
    if unknown or not games:
        parser.error(f"unknown games {unknown}; known: {', '.join(GAMES)}")
    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if not backends or not set(backends) <= set(BACKENDS):
        parser.error("--backends takes sqlite and/or postgres")
    if "postgres" in backends:
        why = asyncio.run(postgres_works(args.pg_url))
        if why is not None:
            print(f"PostgreSQL left out: no private database on {args.pg_url} ({why})")
            backends.remove("postgres")
            if not backends:
                return 1
    logging.getLogger("emulator").setLevel(logging.ERROR)  # refusals are counted instead
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        workdir = args.keep or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="fabletop-load-games-")))
        opts = RunOptions([int(s) for s in args.sizes.split(",")], games, backends,
                          args.window, args.ramp, args.idle_seconds, args.seed,
                          args.render_workers, args.setup_concurrency, workdir, args.pg_url)
        runs = asyncio.run(run(opts))
        targets = summary(runs, opts)
    total = time.perf_counter() - started
    print(f"\ntotal {total:.0f} s")
    print(json.dumps(clean({"bench": "load_games", "games": games, "backends": backends,
                            "window": args.window, "ramp": args.ramp,
                            "idle_seconds": args.idle_seconds,
                            "render_workers": args.render_workers, "seed": args.seed,
                            "cpus": os.cpu_count(), "total_s": total, "targets": targets,
                            "late_s": LATE, "sizes": runs}), separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
