"""Load through Discord: N Fairy Tale Inn tables played at once by simulated people.

The real bot process (``python -m bot.cli run``) runs against the loopback Discord emulator
(tests/emulator) with a fresh SQLite file. Each table lives in its own channel with two
people who click the turn buttons and the column menus exactly as in the end-to-end tests;
all tables play concurrently until every game ends (or ``--decisions`` clicks each).
Prints moves per second (committed moves, read from the bot's SQLite file) and the
bot-side latency percentiles from INTERACTION_CREATE leaving the emulator's gateway to the
bot's first interaction callback arriving (the figure Discord's 3-second rule is about),
per kind of interaction.

    .venv/bin/python -m bench.load_emulator [--tables 8] [--decisions 0] [--latency 0]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/load_emulator.py` as well as `-m`
    sys.path.insert(0, str(ROOT))

from bench.stats import percentile  # noqa: E402
from tests.e2e.harness import BotProcess  # noqa: E402
from tests.e2e.play import actions, play_fti, table_row  # noqa: E402
from tests.emulator import Emulator  # noqa: E402


def line(label: str, values: list[float]) -> str:
    v = sorted(values)
    ms = [1000 * percentile(v, q) for q in (0.5, 0.95, 0.99)] + [1000 * v[-1] if v else 0.0]
    return (f"{label:<22} n={len(v):<5} p50={ms[0]:7.1f} ms  p95={ms[1]:7.1f} ms  "
            f"p99={ms[2]:7.1f} ms  max={ms[3]:7.1f} ms")


async def one_table(emu: Emulator, db: Path, index: int, decisions: int | None) -> None:
    channel = emu.channel_named(f"table-{index}")
    host, guest = emu.user(f"host{index}"), emu.user(f"guest{index}")
    # Each command after the last one's answer, as people do (the bot acknowledges at
    # once and answers when the table is made).
    for person, command, options in ((host, "/table new", {"game": "fairy-tale-inn"}),
                                     (guest, "/table join", {}), (host, "/table start", {})):
        await emu.answer(await person.slash(command, channel=channel, settle=False, **options))
    await play_fti(emu, db, channel, random.Random(index), stop_after=decisions)


async def run(tables: int, decisions: int | None, latency: float, workdir: Path) -> None:
    async with Emulator() as emu:
        for i in range(tables):
            emu.add_channel(emu.guild, f"table-{i}")
        bot = BotProcess(emu, workdir)
        await bot.start()
        emu.faults.latency = latency
        started = time.perf_counter()
        try:
            await asyncio.gather(*(one_table(emu, bot.db_path, i, decisions)
                                   for i in range(tables)))
        finally:
            wall = time.perf_counter() - started
            await bot.stop()
        moves = 0
        finished = 0
        for i in range(tables):
            row = table_row(bot.db_path, emu.channel_named(f"table-{i}").id)
            if row is not None:
                moves += len(actions(bot.db_path, row.id))
                finished += row.status == "finished"
        interactions = list(emu.interactions.values())
        failed = sum(i.failed for i in interactions)
        print(f"tables={tables} finished={finished} moves={moves} wall={wall:.1f}s "
              f"moves/s={moves / wall:.2f} interactions={len(interactions)} failed={failed} "
              f"network latency={latency * 1000:.0f} ms")
        print(line("all interactions", emu.latencies()))
        kinds = {"slash commands": 2, "button clicks": 3}
        for label, itype in kinds.items():
            print(line(label, [i.latency for i in interactions
                               if i.type == itype and i.latency is not None]))
        if emu.api_errors or emu.unknown_routes:
            print(f"refused requests: {len(emu.api_errors)}, unknown routes: "
                  f"{emu.unknown_routes}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=8, help="concurrent tables (default 8)")
    parser.add_argument("--decisions", type=int, default=0,
                        help="clicks per table (0 = play every game to its end)")
    parser.add_argument("--latency", type=float, default=0.0,
                        help="seconds of simulated network latency per frame and request")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fabletop-load-") as tmp:
        asyncio.run(run(args.tables, args.decisions or None, args.latency, Path(tmp)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
