"""Moves made in the Activity at a crowd's pace: what they cost the server in pictures,
and how soon each move reaches the other people's boards (issue 26).

    .venv/bin/python -m bench.activity [--size 1000] [--think 20] [--window 60]
        [--seed 1] [--render-workers N] [--setup-concurrency 16] [--workdir DIR]
        [--json FILE]

One fresh bot process (``python -m bot.cli run`` of this checkout, with ``WEB_PORT``: the
Discord front-end and the Activity's web server in one process, on a fresh SQLite file)
against the emulator under Discord's own rate limits (tests/emulator/ratelimits.py:
``DISCORD_LIMITS``), and ``--size`` tables of the five games dealt round-robin (two
people a table, three for Winter Tales), opened, joined and started on Discord. Then, on
the same tables, two windows of ``--window`` s each after a ramp of one think time, every
person thinking an exponential time (mean ``--think`` s) before each decision:

1. **on Discord** (the reference, in the same run): everyone plays on the message
   buttons (bench/load_drivers.py, as bench/human_paced.py does); its pictures per move
   and click -> next choices are what the Activity is compared with.
2. **in the Activity**: every seated person signs in as the page does (the OAuth2 code
   through the emulator, ``/api/token``, ``/api/session``) and opens the board's socket;
   each decision is a ``choose`` on it, following the guided steps and typing a passage
   where the game asks for words. Measured: from the ``choose`` that made the move to
   the moment each *other* person's socket receives the state of that version
   (p50/p95/p99; the issue asks p95 < 200 ms at 1,000 tables), the pictures the bot
   sent (a picture is drawn only to be sent) and the render workers' CPU, bot-token
   requests, 429s, moves/s and the bot's CPU per move.

The people's own sockets, sign-ins and bookkeeping run in this process, on its one
event loop, beside the emulator: they share the machine with the bot.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/activity.py` as well as `-m`
    sys.path.insert(0, str(ROOT))

from bench.human_paced import Counters, PacedEmulator, open_tables, window  # noqa: E402
from bench.load import (  # noqa: E402
    LoopLag,
    bot_env,
    figures,
    log_problems,
    ms_line,
    open_backend,
    quiet,
    sample_tree,
    say,
)
from bench.load_drivers import DRIVERS, GAMES  # noqa: E402
from tests.e2e.harness import BotProcess  # noqa: E402

ORIGIN = "https://activity-bench.example"
TARGET_P95 = 0.200  # seconds, a move to the other viewers' sockets
PASSAGE = "The snow fell on Wintertown, and somewhere a door closed softly."
DRAIN = 60.0
SIGN_IN_TRIES = 5
PASSING = frozenset({429, 502, 503})
"""Sign-in refusals that say "try again", not "you may not"."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Moves:
    """When each move was sent and when each other viewer's socket had it."""

    def __init__(self) -> None:
        self.sent: dict[tuple[str, int], tuple[float, int]] = {}
        """(table id, version) -> (perf_counter of the choose that made it, mover id)."""
        self.arrived: dict[tuple[str, int], dict[int, float]] = {}
        """(table id, version) -> user id -> when their socket received that state."""
        self.refused = 0
        self.errors = 0

    def latencies(self, t0: float, t1: float) -> list[float]:
        out = []
        for key, (at, mover) in self.sent.items():
            if not t0 <= at < t1:
                continue
            out += [got - at for user, got in self.arrived.get(key, {}).items()
                    if user != mover and got >= at]
        return out

    def moves(self, t0: float, t1: float) -> int:
        return sum(1 for at, _ in self.sent.values() if t0 <= at < t1)


class Board:
    """One person's open board: its socket and the newest state it received."""

    def __init__(self, person: Any, ws: aiohttp.ClientWebSocketResponse, moves: Moves,
                 http: aiohttp.ClientSession) -> None:
        self.person, self.ws, self.moves, self.http = person, ws, moves, http
        self.state: dict[str, Any] | None = None
        self.replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.poke = asyncio.Event()
        self.reader = asyncio.ensure_future(self._read())
        self.request = 0
        self.tries = 1  # sign-ins it took (a passing refusal is tried again)

    async def _read(self) -> None:
        async for frame in self.ws:
            if frame.type != aiohttp.WSMsgType.TEXT:
                continue
            now = time.perf_counter()
            msg = json.loads(frame.data)
            if msg["type"] == "state":
                key = (msg["table"]["id"], int(msg["version"]))
                self.moves.arrived.setdefault(key, {}).setdefault(self.person.id, now)
                if self.state is None or int(msg["version"]) >= int(self.state["version"]):
                    self.state = msg
            else:
                self.replies.put_nowait(msg)
            self.poke.set()

    async def wait(self, timeout: float) -> None:
        self.poke.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.poke.wait(), timeout)

    def choices(self) -> list[dict[str, Any]]:
        st = self.state
        if st is None or st["table"]["status"] != "playing":
            return []
        return [c for m in st["menus"] for c in m["choices"] if not c["disabled"]]

    async def send(self, version: int, code: str, text: str | None = None) -> float:
        self.request += 1
        msg: dict[str, Any] = {"type": "choose", "id": self.request, "version": version,
                               "code": code}
        if text is not None:
            msg["text"] = text
        await self.ws.send_str(json.dumps(msg))
        return time.perf_counter()

    async def decide(self, rng: random.Random) -> None:
        """One decision on the newest state: a choice, its steps, words where asked."""
        st = self.state
        assert st is not None
        version, table = int(st["version"]), st["table"]["id"]
        code = rng.choice(self.choices())["code"]
        text = None
        for _step in range(10):
            at = await self.send(version, code, text)
            deadline = time.perf_counter() + 15.0
            while True:
                now_state = self.state
                if now_state is not None and int(now_state["version"]) > version:
                    self.moves.sent.setdefault((table, version + 1), (at, self.person.id))
                    return
                if not self.replies.empty():
                    reply = self.replies.get_nowait()
                    break
                if time.perf_counter() > deadline:
                    self.moves.errors += 1
                    return
                await self.wait(deadline - time.perf_counter())
            if reply["type"] == "menu":
                enabled = [c for c in reply["menu"]["choices"] if not c["disabled"]]
                if not enabled:
                    return
                code, text = rng.choice(enabled)["code"], None
            elif reply["type"] == "form":
                code, text = reply["code"], PASSAGE
            else:  # refused (stale, or not legal now) or an error: the next state decides
                self.moves.refused += 1
                return
        self.moves.errors += 1

    async def play(self, stop: asyncio.Event, think: float, rng: random.Random) -> None:
        while not stop.is_set():
            if not self.choices():
                await self.wait(1.0)
                continue
            await asyncio.sleep(rng.expovariate(1.0 / think))
            if stop.is_set() or not self.choices():
                continue
            await self.decide(rng)


def source_address(i: int) -> str:
    """A loopback address of its own for the ``i``-th person: the server limits sign-ins
    per address (a crowd signs in from many), and all of 127.0.0.0/8 is this machine."""
    i += 2
    return f"127.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"


async def sign_in(i: int, base: str, emu: PacedEmulator, person: Any, channel_id: int,
                  moves: Moves) -> Board:
    """Sign ``person`` in and open their board, as the Activity does; a refusal the
    server calls passing (502, 503, 429) is tried again after a pause, as a person
    would reopen the board."""
    http = aiohttp.ClientSession(connector=aiohttp.TCPConnector(
        local_addr=(source_address(i), 0)))
    try:
        for attempt in range(SIGN_IN_TRIES):
            session = await _session_of(http, base, emu, person, channel_id)
            if isinstance(session, str):
                break
            if attempt == SIGN_IN_TRIES - 1:
                raise RuntimeError(f"no session after {SIGN_IN_TRIES} tries: {session}")
            await asyncio.sleep(0.5 * 2 ** attempt)
        ws = await http.ws_connect(base + "/api/ws", headers={"Origin": ORIGIN},
                                   max_msg_size=0)
        await ws.send_str(json.dumps({"type": "hello", "session": session,
                                      "channel_id": str(channel_id), "version": None}))
    except BaseException:
        await http.close()
        raise
    board = Board(person, ws, moves, http)
    board.tries = attempt + 1
    return board


async def _session_of(http: aiohttp.ClientSession, base: str, emu: PacedEmulator,
                      person: Any, channel_id: int) -> str | tuple[int, str]:
    """The server's session for ``person``, or the passing refusal (status, words);
    any other refusal is the benchmark's failure."""
    headers = {"Origin": ORIGIN}
    async with http.post(base + "/api/token", headers=headers,
                         json={"code": emu.authorization_code(person)}) as resp:
        if resp.status in PASSING:
            return resp.status, await resp.text()
        if resp.status != 200:
            raise RuntimeError(f"no token: {resp.status} {await resp.text()}")
        token = (await resp.json())["access_token"]
    async with http.post(base + "/api/session",
                         headers={**headers, "Authorization": f"Bearer {token}"},
                         json={"channel_id": str(channel_id),
                               "guild_id": str(emu.guild.id)}) as resp:
        if resp.status in PASSING:
            return resp.status, await resp.text()
        if resp.status != 200:
            raise RuntimeError(f"no session: {resp.status} {await resp.text()}")
        return str((await resp.json())["session"])


async def activity_window(emu: PacedEmulator, boards: Sequence[Board], pid: int,
                          moves: Moves, think: float, span: float, seed: int
                          ) -> dict[str, Any]:
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(b.play(stop, think, random.Random(seed * 104_729 + i)))
             for i, b in enumerate(boards)]
    await asyncio.sleep(think)
    c0, cpu0 = Counters(emu), sample_tree(pid)
    t0 = c0.at
    await asyncio.sleep(span)
    c1, cpu1 = Counters(emu), sample_tree(pid)
    t1 = c1.at
    stop.set()
    await asyncio.wait(tasks, timeout=DRAIN)
    await asyncio.sleep(2.0)  # the last moves' states reach the other sockets
    n = moves.moves(t0, t1)
    req = c1.since(c0)
    pictures = [b for at, b in emu.pictures if t0 <= at < t1]
    seconds = t1 - t0
    return {
        "window": seconds, "moves": n, "moves_per_s": n / seconds,
        "to_other_boards": figures(moves.latencies(t0, t1)),
        "pictures": len(pictures), "picture_bytes": sum(pictures),
        "pictures_per_move": len(pictures) / n if n else float("nan"),
        "render_cpu_s": cpu1.cpu_children - cpu0.cpu_children,
        "bot_cpu_per_move_s": (cpu1.cpu - cpu0.cpu) / n if n else float("nan"),
        "bot_cores": (cpu1.cpu - cpu0.cpu) / seconds,
        "bot_requests": req["bot"], "bot_per_move": req["bot"] / n if n else float("nan"),
        "bot_per_s": req["bot"] / seconds, "limited": req["limited"],
        "refused": moves.refused, "errors": moves.errors,
    }


async def run(opts: argparse.Namespace) -> dict[str, Any]:
    lag = LoopLag()
    lag.start()
    workdir = Path(opts.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    for old in workdir.glob("fabletop.db*"):
        old.unlink()
    (workdir / "bot.log").unlink(missing_ok=True)
    size = opts.size
    out: dict[str, Any] = {"size": size, "think": opts.think, "window": opts.window}
    async with open_backend("sqlite", workdir) as store, PacedEmulator() as emu:
        games = [GAMES[i % len(GAMES)] for i in range(size)]
        channels = [emu.add_channel(emu.guild, f"table-{i}") for i in range(size)]
        people = [[emu.user(f"p{i}-{k}") for k in range(DRIVERS[g].players)]
                  for i, g in enumerate(games)]
        port = free_port()
        env = bot_env(opts.render_workers, store, IDLE_SECONDS="600", WEB_PORT=str(port),
                      WEB_HOST="127.0.0.1", DISCORD_CLIENT_ID=str(emu.application_id),
                      DISCORD_CLIENT_SECRET=emu.client_secret, WEB_ORIGINS=ORIGIN,
                      WEB_SESSION_SECRET="")
        bot = BotProcess(emu, workdir, **env)
        await bot.start(timeout=180)
        assert bot.proc is not None
        pid = bot.proc.pid
        await quiet(pid)
        say(f"{size} tables: opening them on Discord")
        tables, out["setup"] = await open_tables(emu, store, pid, channels, people, games,
                                                 opts)

        say(f"{size} tables: on Discord, think {opts.think:g} s, window {opts.window:g} s")
        stop = asyncio.Event()
        rngs = [random.Random(opts.seed * 7_919 + i) for i in range(size)]
        out["discord"] = await window(
            emu, tables, pid, store.probe, lag,
            [tb.play_paced(stop, opts.think, r) for tb, r in zip(tables, rngs, strict=True)],
            stop, opts.think, opts.window)
        for tb in tables:  # the people leave Discord's buttons for the board
            emu.watchers.pop(tb.channel.id, None)
            for dm in tb.dm_people:
                emu.watchers.pop(dm, None)

        say(f"{size} tables: every seated person opens the board")
        moves = Moves()
        base = f"http://127.0.0.1:{port}"
        t = time.perf_counter()
        gate = asyncio.Semaphore(opts.setup_concurrency)

        async def board_of(i: int, person: Any, channel_id: int) -> Board:
            async with gate:
                return await sign_in(i, base, emu, person, channel_id, moves)

        seated = [(p, tb.channel.id) for tb in tables for p in tb.people]
        boards = await asyncio.gather(*(board_of(i, p, ch) for i, (p, ch)
                                        in enumerate(seated)))
        deadline = time.perf_counter() + DRAIN
        while any(b.state is None for b in boards) and time.perf_counter() < deadline:
            await asyncio.sleep(0.2)
        out["boards"] = {"open": sum(1 for b in boards if b.state is not None),
                         "seconds": time.perf_counter() - t,
                         "tried_again": sum(b.tries - 1 for b in boards)}
        await quiet(pid, timeout=DRAIN)
        say(f"{size} tables: in the Activity, think {opts.think:g} s, "
            f"window {opts.window:g} s")
        out["activity"] = await activity_window(emu, boards, pid, moves, opts.think,
                                                opts.window, opts.seed)
        for b in boards:
            await b.ws.close()
            await b.http.close()
        await bot.stop()
        out["log_problems"] = log_problems(bot.log())
    lag.stop()
    return out


def report(out: dict[str, Any]) -> None:
    d, a = out["discord"], out["activity"]
    print(f"=== Activity benchmark: {out['size']} tables, think {out['think']:g} s, "
          f"{out['window']:g} s windows, load {os.getloadavg()[0]:.2f} at the end ===")
    print(f"set-up: {out['setup']['opened']}/{out['size']} opened in "
          f"{out['setup']['seconds']:.0f} s; boards {out['boards']['open']} open in "
          f"{out['boards']['seconds']:.0f} s ({out['boards']['tried_again']} sign-ins "
          f"tried again)")
    print("--- on Discord (the reference, same tables, same process) ---")
    print(ms_line("click -> next choices", d["next_choices"]))
    print(f"  moves {d['moves']} ({d['moves_per_s']:.1f}/s); pictures {d['pictures']} "
          f"({d['pictures'] / d['moves'] if d['moves'] else float('nan'):.2f} per move); "
          f"CPU per move {1000 * d['cpu_per_move_s']:.1f} ms; bot-token "
          f"{d['bot_per_move']:.3f} per move; 429s {d['limited'] or 'none'}")
    print("--- in the Activity ---")
    print(ms_line("move -> other boards", a["to_other_boards"],
                  f"  (target p95 < {1000 * TARGET_P95:.0f} ms)"))
    print(f"  moves {a['moves']} ({a['moves_per_s']:.1f}/s); pictures {a['pictures']} "
          f"({a['pictures_per_move']:.3f} per move); render workers' CPU "
          f"{a['render_cpu_s']:.2f} s; CPU per move {1000 * a['bot_cpu_per_move_s']:.1f} ms "
          f"({a['bot_cores']:.2f} cores)")
    print(f"  bot-token requests {a['bot_requests']} ({a['bot_per_move']:.3f} per move, "
          f"{a['bot_per_s']:.1f}/s); 429s {a['limited'] or 'none'}; refused "
          f"{a['refused']}; errors {a['errors']}")
    if d["moves"] and a["moves"]:
        ratio = (a["bot_cpu_per_move_s"] / d["cpu_per_move_s"]
                 if d["cpu_per_move_s"] == d["cpu_per_move_s"] else float("nan"))
        print(f"  Activity / Discord: pictures per move {a['pictures_per_move']:.3f} / "
              f"{d['pictures'] / d['moves']:.2f}; CPU per move x{ratio:.2f}")
    problems = out["log_problems"]
    print(f"bot log: {problems}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--think", type=float, default=20.0)
    parser.add_argument("--window", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--render-workers", default=None)
    parser.add_argument("--setup-concurrency", type=int, default=16)
    parser.add_argument("--dm-share", type=float, default=0.25,
                        help="on Discord, the share of decisions played from the DM hand")
    parser.add_argument("--workdir", default=os.environ.get("BENCH_WORKDIR",
                                                            "/tmp/fabletop-bench-activity"))
    parser.add_argument("--json", default=None, help="also write every figure to this file")
    opts = parser.parse_args(argv)
    out = asyncio.run(run(opts))
    report(out)
    if opts.json:
        Path(opts.json).write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
