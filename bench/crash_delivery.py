"""Crash delivery: is a move committed just before a SIGKILL announced after the restart?

The real bot process (``python -m bot.cli run``) runs against the loopback Discord emulator
(tests/emulator) on a fresh SQLite file in a temporary directory. Two people play Fairy
Tale Inn; N times over, the person to act makes their move (a click on the turn message,
then on a column of the private menu, as ``tests/e2e/play.fti_turn`` does, without waiting
for the announcement), and after a random delay (0 to ``--max-delay`` ms) the bot is
SIGKILLed. The table's committed version is read from the SQLite file, the bot is started
again, and the benchmark waits up to ``--wait`` s for the channel to show that version: a
turn message whose buttons carry it, or for a finished game the result. A move that had
not committed must have changed nothing. A game that ends is replaced by a new table in a
new channel.

Counted per kill: committed before the kill or not, already delivered before the kill,
announced within the wait, announced twice (one of the move's public lines, from the
events table, in more messages than the table has versions carrying it), and the seconds
from the restart (the new process spawned) to the announcement.

    .venv/bin/python -m bench.crash_delivery [--kills 20] [--max-delay 150] [--seed 1]
        [--wait 8] [--json PATH] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/crash_delivery.py` as well as `-m`
    sys.path.insert(0, str(ROOT))

from bench.stats import percentile  # noqa: E402
from tests.e2e.harness import BotProcess, latest_with_buttons  # noqa: E402
from tests.e2e.play import fti_turn, prompt_version, table_row  # noqa: E402
from tests.emulator import Channel, Emulator, Message  # noqa: E402

RESULT = "Game over"
"""How the result of a finished game begins (bot/core/tables/texts.outcome_text)."""


@dataclass
class Kill:
    index: int
    table: str
    channel: str
    delay_ms: float
    version_before: int
    version_at_kill: int
    committed: bool
    finished: bool
    delivered_before_kill: bool  # the outbox row was marked delivered by the dead process
    shown_before_kill: bool  # the channel already showed the announcement at the kill
    announced: bool
    restart_to_announcement: float | None  # seconds from spawning the new process
    start_seconds: float  # spawning the new process to its shards connected
    twice: list[str] = field(default_factory=list)  # lines found in too many messages
    changed: str | None = None  # what an uncommitted click changed (it must change nothing)
    outbox_undelivered_after: bool = False  # the move's outbox still undelivered at the end
    stale_buttons: int = 0  # other messages still offering game buttons after the restart


# ---- reading the bot's SQLite file ----------------------------------------------------------


def _connect(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)


def public_lines(db: Path, table_id: str) -> dict[int, list[str]]:
    """version -> the public lines of its events (as tests/e2e bot_history reads them)."""
    out: dict[int, list[str]] = {}
    with _connect(db) as conn:
        rows = conn.execute("SELECT version, data FROM events WHERE table_id = ?"
                            " ORDER BY version, idx", (table_id,)).fetchall()
    for version, raw in rows:
        data = json.loads(raw)
        if data.get("visible_to") is None and data.get("text"):
            out.setdefault(version, []).append(data["text"])
    return out


def outbox_delivered(db: Path, table_id: str, version: int) -> bool | None:
    """Whether the outbox of ``version`` is marked delivered (None: no outbox row)."""
    with _connect(db) as conn:
        rows = conn.execute("SELECT delivered_at FROM outbox WHERE table_id = ? AND version = ?",
                            (table_id, version)).fetchall()
    if not rows:
        return None
    return all(done is not None for (done,) in rows)


def undelivered(db: Path) -> list[tuple[str, int]]:
    with _connect(db) as conn:
        return conn.execute("SELECT table_id, version FROM outbox WHERE delivered_at IS NULL"
                            " ORDER BY id").fetchall()


# ---- reading the channel ------------------------------------------------------------------


def announced(channel: Channel, version: int, finished: bool) -> bool:
    """The channel shows ``version``: the newest turn message carries its buttons, or (a
    finished game) a message gives the result."""
    if finished:
        return any(RESULT in m.content for m in channel.visible)
    newest = _newest_prompt(channel)
    return newest is not None and prompt_version(newest) == version


def _newest_prompt(channel: Channel) -> Message | None:
    for msg in reversed(channel.visible):
        if any(not b.disabled and ":lobby." not in (b.custom_id or "") for b in msg.buttons):
            return msg
    return None


def repeated_lines(channel: Channel, lines: dict[int, list[str]], version: int) -> list[str]:
    """The move's public lines that are in more messages than there are versions carrying
    the same line (the steps of one turn merge into one message, so that bound is loose
    only in the safe direction)."""
    contents = [m.content for m in channel.visible]
    twice = []
    for line in dict.fromkeys(lines.get(version, [])):
        allowed = sum(line in ls for ls in lines.values())
        found = sum(line in c for c in contents)
        if found > allowed:
            twice.append(line)
    return twice


def stale_prompts(channel: Channel, version: int) -> int:
    """Messages other than the newest turn message that still offer game buttons of an
    older version (the bot takes them off when the turn moves on, across restarts)."""
    newest = _newest_prompt(channel)
    return sum(1 for m in channel.visible
               if m is not newest and prompt_version(m) not in (-1, version)
               and any(not b.disabled for b in m.buttons))


def channel_state(channel: Channel) -> tuple[Any, ...]:
    return tuple((m.id, m.content, tuple(m.custom_ids), m.edits, m.deleted)
                 for m in channel.messages)


# ---- the run --------------------------------------------------------------------------------


class CutRequests(logging.Filter):
    """Counts (and silences) the emulator's "Error handling request": a request the
    killed bot was still sending (a board picture upload, say) when it died."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def filter(self, record: logging.LogRecord) -> bool:
        self.count += 1
        return False


class Tables:
    """One Fairy Tale Inn table at a time, each in its own channel, two people."""

    def __init__(self, emu: Emulator, db: Path) -> None:
        self.emu, self.db = emu, db
        self.alice, self.bob = emu.user("alice"), emu.user("bob")
        self.count = 0
        self.channel: Channel | None = None

    async def open(self) -> Channel:
        self.count += 1
        channel = self.emu.add_channel(self.emu.guild, f"inn-{self.count}")
        await asyncio.sleep(0.05)  # CHANNEL_CREATE on its way to the bot
        await self.alice.slash("/table new", game="fairy-tale-inn", channel=channel)
        await self.bob.slash("/table join", channel=channel)
        started = await self.alice.slash("/table start", channel=channel)
        assert started.reply is not None, "the table did not start"
        self.channel = channel
        return channel

    def row(self) -> Any:
        assert self.channel is not None
        return table_row(self.db, self.channel.id)

    async def prompt(self, timeout: float = 5.0) -> Message | None:
        """The turn message of the table's current version (None if it does not come)."""
        assert self.channel is not None
        channel = self.channel

        def ready() -> Message | None:
            row = table_row(self.db, channel.id)
            msg = latest_with_buttons(self.emu, channel.id)
            if row is None or row.finished or msg is None:
                return None
            return msg if prompt_version(msg) == row.version else None

        try:
            return await self.emu.wait_for(ready, timeout, "the current turn message")
        except AssertionError:
            return None


async def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    delays = random.Random(args.seed)
    moves = random.Random(args.seed + 1)
    kills: list[Kill] = []
    stuck = 0  # tables given up because no current turn message came
    started = time.perf_counter()
    cut = CutRequests()
    logging.getLogger("aiohttp.server").addFilter(cut)
    logging.getLogger("emulator").setLevel(logging.ERROR)
    async with Emulator() as emu:
        bot = BotProcess(emu, workdir)
        bot.allow_tracebacks = True
        await bot.start()
        db = bot.db_path
        tables = Tables(emu, db)
        try:
            await tables.open()
            for index in range(args.kills):
                prompt = await tables.prompt()
                if prompt is None:
                    row = tables.row()
                    if row is None or not row.finished:
                        stuck += 1
                    await tables.open()
                    prompt = await tables.prompt()
                    if prompt is None:
                        raise RuntimeError("a new table shows no turn message")
                channel = tables.channel
                assert channel is not None
                before = tables.row()
                delay = delays.uniform(0, args.max_delay)
                await fti_turn(emu, channel, moves, prompt)
                await asyncio.sleep(delay / 1000)
                await bot.stop(kill=True)
                at_kill = tables.row()
                committed = at_kill.version > before.version
                finished = at_kill.finished
                delivered = bool(committed and outbox_delivered(db, at_kill.id, at_kill.version))
                shown = committed and announced(channel, at_kill.version, finished)
                state = channel_state(channel)
                await emu.wait_for(lambda: not set(bot.shards) & emu.gateway.ready_shards,
                                   10, "the old gateway connection to close")

                target = at_kill.version
                seen_at: list[float] = []

                async def watch(channel: Channel = channel, target: int = target,
                                finished: bool = finished, seen_at: list[float] = seen_at) -> None:
                    await emu.wait_for(lambda: announced(channel, target, finished),
                                       args.wait + 30)
                    seen_at.append(time.perf_counter())

                t0 = time.perf_counter()
                watcher = asyncio.create_task(watch())
                await bot.start(sync=False)
                start_seconds = time.perf_counter() - t0
                with contextlib.suppress(TimeoutError, AssertionError):
                    await asyncio.wait_for(asyncio.shield(watcher),
                                           max(0.0, args.wait - (time.perf_counter() - t0)))
                watcher.cancel()
                await emu.settle(quiet=0.3, timeout=3)
                after = tables.row()
                changed = None
                if not committed:
                    if after.version != before.version:
                        changed = f"version {before.version} -> {after.version} after restart"
                    elif channel_state(channel) != state:
                        changed = "the channel changed after the restart"
                lines = public_lines(db, at_kill.id)
                kill = Kill(
                    index=index + 1, table=at_kill.id, channel=channel.name,
                    delay_ms=round(delay, 1), version_before=before.version,
                    version_at_kill=at_kill.version, committed=committed, finished=finished,
                    delivered_before_kill=delivered, shown_before_kill=shown,
                    announced=bool(seen_at), start_seconds=round(start_seconds, 3),
                    restart_to_announcement=round(seen_at[0] - t0, 3) if seen_at else None,
                    twice=repeated_lines(channel, lines, target) if committed else [],
                    changed=changed, stale_buttons=stale_prompts(channel, after.version),
                )
                kills.append(kill)
                print(f"kill {kill.index:>2}: {kill.delay_ms:6.1f} ms  v{before.version}"
                      f"->v{at_kill.version}  committed={committed!s:<5} "
                      f"delivered_before={delivered!s:<5} shown_before={shown!s:<5} "
                      f"announced={kill.announced!s:<5} "
                      f"after={kill.restart_to_announcement}s twice={len(kill.twice)}"
                      f"{f' stale={kill.stale_buttons}' if kill.stale_buttons else ''}"
                      f"{' game over' if finished else ''}"
                      f"{' CHANGED: ' + changed if changed else ''}", flush=True)
                if time.perf_counter() - started > args.budget:
                    print(f"stopping early: over the {args.budget:.0f} s budget", flush=True)
                    break
            await emu.settle(quiet=0.5, timeout=5)
        finally:
            await bot.stop()
        left = set(undelivered(db))
        for kill in kills:
            kill.outbox_undelivered_after = (kill.table, kill.version_at_kill) in left
        # The whole run, every table: any public line in too many messages.
        twice_overall = 0
        for n in range(1, tables.count + 1):
            channel = emu.channel_named(f"inn-{n}")
            row = table_row(db, channel.id)
            if row is None:
                continue
            lines = public_lines(db, row.id)
            for version in lines:
                twice_overall += bool(repeated_lines(channel, lines, version))
        log = bot.log()
        report = summarize(kills, args, time.perf_counter() - started)
        report.update(
            tables=tables.count, tables_stuck=stuck, nonce_hits=emu.nonce_hits,
            requests_cut_by_kill=cut.count,
            versions_shown_twice_overall=twice_overall,
            outboxes_undelivered_at_end=len(left),
            failed_interactions=sum(i.failed for i in emu.interactions.values()),
            api_errors=[f"{m} {p}: {e}" for m, p, e in emu.api_errors][:10],
            log_tracebacks=log.count("Traceback (most recent call last)"),
            log_warnings=[ln for ln in log.splitlines()
                          if (" WARNING " in ln or " ERROR " in ln)
                          and "is not installed, voice" not in ln][:20],
            bot_starts=bot.starts,
            kills_detail=[asdict(k) for k in kills],
        )
        if args.keep:
            keep = Path(args.keep)
            keep.mkdir(parents=True, exist_ok=True)
            shutil.copy(bot.log_path, keep / "bot.log")
            shutil.copy(db, keep / "fabletop.db")
        return report


def summarize(kills: list[Kill], args: argparse.Namespace, wall: float) -> dict[str, Any]:
    committed = [k for k in kills if k.committed]
    after = sorted(k.restart_to_announcement for k in committed
                   if k.restart_to_announcement is not None and not k.shown_before_kill)
    return {
        "conditions": {"kills": args.kills, "max_delay_ms": args.max_delay, "seed": args.seed,
                       "wait_s": args.wait, "game": "fairy-tale-inn", "seats": 2},
        "kills": len(kills),
        "committed_before_kill": len(committed),
        "delivered_before_kill": sum(k.delivered_before_kill for k in committed),
        "shown_before_kill": sum(k.shown_before_kill for k in committed),
        "announced": sum(k.announced for k in committed),
        "never_announced": sum(not k.announced for k in committed),
        "announced_twice": sum(bool(k.twice) for k in committed),
        "uncommitted": len(kills) - len(committed),
        "uncommitted_changed_something": sum(k.changed is not None for k in kills),
        "stale_buttons_after_restart": sum(k.stale_buttons > 0 for k in kills),
        "restart_to_announcement_n": len(after),
        "restart_to_announcement_p50_s": round(percentile(after, 0.5), 3) if after else None,
        "restart_to_announcement_max_s": round(after[-1], 3) if after else None,
        "start_p50_s": round(percentile(sorted(k.start_seconds for k in kills), 0.5), 3)
        if kills else None,
        "wall_s": round(wall, 1),
    }


def verdict(r: dict[str, Any]) -> str:
    problems = []
    if r["never_announced"]:
        problems.append(f"{r['never_announced']} committed move(s) never announced "
                        f"within {r['conditions']['wait_s']} s")
    if r["announced_twice"] or r["versions_shown_twice_overall"]:
        problems.append(f"{max(r['announced_twice'], r['versions_shown_twice_overall'])} "
                        "move(s) announced twice")
    if r["uncommitted_changed_something"]:
        problems.append(f"{r['uncommitted_changed_something']} uncommitted click(s) "
                        "changed something")
    if r["outboxes_undelivered_at_end"]:
        problems.append(f"{r['outboxes_undelivered_at_end']} outbox row(s) left undelivered")
    if r["tables_stuck"]:
        problems.append(f"{r['tables_stuck']} table(s) left without a current turn message")
    if problems:
        return "FAIL: " + "; ".join(problems) + "."
    return (f"PASS: all {r['announced']} moves committed before a kill were announced "
            f"exactly once after the restart (p50 {r['restart_to_announcement_p50_s']} s), "
            f"and the {r['uncommitted']} uncommitted click(s) changed nothing.")


def print_table(r: dict[str, Any]) -> None:
    c = r["conditions"]
    print()
    print(f"crash delivery: {c['game']}, {c['seats']} people, kill delay 0-{c['max_delay_ms']}"
          f" ms, seed {c['seed']}, wait {c['wait_s']} s, {r['tables']} table(s), "
          f"{r['wall_s']} s wall")
    rows = [
        ("kills", r["kills"]),
        ("committed before kill", r["committed_before_kill"]),
        ("  already delivered before kill", r["delivered_before_kill"]),
        ("  announced (within the wait)", r["announced"]),
        ("  never announced", r["never_announced"]),
        ("  announced twice", r["announced_twice"]),
        ("not committed", r["uncommitted"]),
        ("  ...that changed something", r["uncommitted_changed_something"]),
        ("restart->announcement p50 (s)", r["restart_to_announcement_p50_s"]),
        ("restart->announcement max (s)", r["restart_to_announcement_max_s"]),
        ("  (n, delivered by the new process)", r["restart_to_announcement_n"]),
        ("bot start p50 (s)", r["start_p50_s"]),
        ("kills leaving stale buttons", r["stale_buttons_after_restart"]),
        ("outboxes undelivered at end", r["outboxes_undelivered_at_end"]),
        ("nonce hits (repeat sends caught)", r["nonce_hits"]),
        ("requests cut mid-send by a kill", r["requests_cut_by_kill"]),
        ("tracebacks in bot log", r["log_tracebacks"]),
    ]
    for label, value in rows:
        print(f"  {label:<38} {value}")
    print(verdict(r))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs (default 20)")
    parser.add_argument("--max-delay", type=float, default=150.0,
                        help="ms; the kill comes 0..this after the move's click (default 150)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the delays and the moves")
    parser.add_argument("--wait", type=float, default=8.0,
                        help="seconds to wait for the announcement after a restart (default 8)")
    parser.add_argument("--json", metavar="PATH", help="write the figures as JSON")
    parser.add_argument("--keep", metavar="DIR", help="copy bot.log and the SQLite file here")
    parser.add_argument("--budget", type=float, default=170.0,
                        help="stop starting new kills after this many seconds (default 170)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fabletop-crash-") as tmp:
        report = asyncio.run(run(args, Path(tmp)))
    print_table(report)
    report["verdict"] = verdict(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    return 0 if report["verdict"].startswith("PASS") else 1


if __name__ == "__main__":
    raise SystemExit(main())
