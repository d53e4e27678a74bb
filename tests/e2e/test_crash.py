"""Crash tests on both backends: the bot SIGKILLed at random moments under a load of
concurrent games of every game, restarted, the games going on with the buttons posted
before each kill.

The load and the kills are tests/e2e/crash_load.py. At the end:

* every table's stored state is the replay of its action log, versions 1..N without
  gaps (``bot.core.tables.audit.audit_store``);
* every move a person saw acknowledged is in the action log exactly once: at the
  version it made, by that person, the very action the click stood for;
* every human move in the log is one of the clicks the people sent (nothing played
  twice, nothing played that nobody clicked);
* the buttons posted before each kill worked or were refused cleanly, never failed;
* after a last restart no outbox is left undelivered and every live table resumes (its
  people's next click is acknowledged, or its AI moves);
* the bot's log has no traceback.

The database is read through the store API only (``bot.core.store.factory.store_for``), so
the same code checks SQLite and PostgreSQL. The PostgreSQL case uses a schema of its own
of the test database (the ``pg_schema`` fixture: ``FABLETOP_TEST_PG``, default
``postgresql://postgres@127.0.0.1:5432/test``), named in the bot's DATABASE_URL (asyncpg
takes ``?search_path=`` as a server setting) and dropped afterwards; it is skipped when
the server cannot be reached, unless ``FABLETOP_REQUIRE_PG=1``.

    .venv/bin/pytest -q -s tests/e2e/test_crash.py
    FABLETOP_CRASH_KILLS=40 FABLETOP_CRASH_SEED=7 .venv/bin/pytest -q -s tests/e2e/test_crash.py
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.core.store.factory import store_for
from bot.core.tables.audit import audit_store
from tests.e2e.crash_load import SPECS, Killer, Load, TableDriver, drive
from tests.e2e.harness import BotProcess, stop_quietly
from tests.emulator import Emulator

pytestmark = pytest.mark.e2e

KILLS = int(os.environ.get("FABLETOP_CRASH_KILLS", "20"))
"""SIGKILLs per backend, the last one after the load has stopped."""
SEED = int(os.environ.get("FABLETOP_CRASH_SEED", "1"))
BUDGET = float(os.environ.get("FABLETOP_CRASH_BUDGET", "165"))
"""Seconds of load with kills (stop killing after this even if fewer kills were made)."""
KEEP = os.environ.get("FABLETOP_CRASH_KEEP")
"""A directory to copy the bot's log, its SQLite file and every table channel (as JSON)
into after the run, for a post-mortem."""


class CutRequests(logging.Filter):
    """Silences the emulator's "Error handling request": a request the killed bot was
    still sending when it died."""

    def filter(self, record: logging.LogRecord) -> bool:
        return False


@pytest.fixture(params=["sqlite", "postgres"])
def pg(request: pytest.FixtureRequest) -> Any:
    """None for SQLite (the bot's file in the test's directory); for PostgreSQL a fresh
    private schema (``pg_schema`` of tests/conftest.py: skipped when the server is
    unreachable unless FABLETOP_REQUIRE_PG=1; dropped after the test)."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("pg_schema")


async def schema_url(pg: Any) -> str:
    """The bot's DATABASE_URL for the schema: a first store opened on it creates the
    schema and its tables; asyncpg takes the URL's ``search_path`` as a server setting."""
    first = pg.store()
    await first.open()
    await first.close()
    sep = "&" if "?" in pg.url else "?"
    return f"{pg.url}{sep}search_path={pg.schema}"


async def test_sigkill_under_load_of_every_game(pg: Any, tmp_path: Path) -> None:
    backend = "postgres" if pg is not None else "sqlite"
    database_url = await schema_url(pg) if pg is not None else None
    started = time.perf_counter()
    cut = CutRequests()
    logging.getLogger("aiohttp.server").addFilter(cut)
    logging.getLogger("emulator").setLevel(logging.CRITICAL)
    try:
        async with Emulator() as emu:
            channels = [emu.add_channel(emu.guild, f"crash-{i}-{spec.game_id}")
                        for i, spec in enumerate(SPECS)]
            people = [[emu.user(f"{spec.game_id[:4]}{i}{j}") for j in range(spec.humans)]
                      for i, spec in enumerate(SPECS)]
            # Pictures in a thread: a restart then starts no render workers (2 cores).
            bot = BotProcess(emu, tmp_path, database_url=database_url, RENDER_WORKERS="0",
                             AI_BUDGET="5")
            store = None
            try:
                await bot.start()
                store = store_for(bot.database)
                await store.open()
                await run(emu, bot, store, channels, people, backend, started)
            except BaseException:
                print(f"--- bot log ({bot.log_path}) ---\n{bot.log()[-8000:]}")
                raise
            finally:
                await stop_quietly(bot)
                if store is not None:
                    await store.close()
                if KEEP:
                    keep(Path(KEEP) / backend, bot, channels + [
                        p.dm for ps in people for p in ps if p.dm is not None])
    finally:
        logging.getLogger("aiohttp.server").removeFilter(cut)


async def run(emu: Emulator, bot: BotProcess, store: Any, channels: list[Any],
              people: list[list[Any]], backend: str, started: float) -> None:
    load = Load(emu, bot, store, SEED)
    drivers = [TableDriver(load, spec, channels[i], people[i], SEED * 100 + i)
               for i, spec in enumerate(SPECS)]
    await asyncio.gather(*(d.open() for d in drivers))
    opened = time.perf_counter()

    # The load, and the kills.
    tasks = [asyncio.create_task(drive(d), name=f"drive-{d.spec.game_id}") for d in drivers]
    killer = Killer(load, drivers, SEED)
    try:
        await killer.run(KILLS - 1, BUDGET)
        load.stopping = True
        done, pending = await asyncio.wait(tasks, timeout=30)
        assert not pending, f"drivers still busy 30 s after the load stopped: {pending}"
        for task in done:
            task.result()
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # A last kill, then what the restarted bot makes of it all.
    await killer.kill_once("final")
    for d in drivers:
        await d.resume()
    undelivered = await wait_delivered(store, 10.0)
    left = [(o.table_id, o.version) for o in await store.undelivered_outboxes()]
    resumed, live, resumes = await check_resumed(drivers)
    await emu.settle(quiet=0.5, timeout=10)

    # The store: every table replays; the acknowledged moves are there exactly once.
    report = await audit_store(store)
    logs: dict[str, dict[int, Any]] = {}
    for table_id in await store.all_table_ids():
        logs[table_id] = {a.version: a for a in await store.actions(table_id)}
    clicks = load.clicks
    acked = [c for c in clicks if c.acked]
    humans = {p.id for ps in people for p in ps}

    def logged(c: Any) -> bool:
        a = logs.get(c.table, {}).get(c.version + 1)
        return a is not None and a.user_id == c.user and json.loads(a.action) == c.action

    ack_missing = [c for c in acked if not logged(c)]
    ack_twice = [k for k, n in Counter((c.table, c.version) for c in acked).items() if n > 1]
    sent = {(c.table, c.version, c.user, json.dumps(c.action, sort_keys=True))
            for c in clicks}
    human_moves = [(t, a) for t, log in logs.items() for a in log.values()
                   if a.user_id in humans]
    unclicked = [(t, a.version, a.user_id) for t, a in human_moves
                 if (t, a.version - 1, a.user_id,
                     json.dumps(json.loads(a.action), sort_keys=True)) not in sent]
    moves_in_logs = sum(len(log) for log in logs.values())
    ai_moves = sum(1 for log in logs.values() for a in log.values() if a.user_id is None)
    failed_unexplained = [
        i for i in emu.interactions.values()
        if i.failed and not load.killed_during(i.dispatched_at, i.dispatched_at + 3.1)]
    log_text = bot.log()
    tracebacks = log_text.count("Traceback (most recent call last)")

    counts = {
        "backend": backend,
        "kills": killer.kills,
        "kills right after a click": killer.after_click,
        "bot starts": bot.starts,
        "tables": len(logs),
        "tables finished and reopened": sum(d.finished for d in drivers),
        "moves clicked": len(clicks),
        "moves acknowledged": len(acked),
        "acknowledged after a restart": sum("after restart" in c.how for c in acked),
        "moves in logs": moves_in_logs,
        "human moves in logs": len(human_moves),
        "AI moves in logs": ai_moves,
        "acknowledged but not in the log": len(ack_missing),
        "acknowledged twice": len(ack_twice),
        "logged but never clicked": len(unclicked),
        "replay mismatches": len(report.mismatches),
        "moves unanswered 15 s (no kill)": sum(c.outcome == "unanswered" for c in clicks),
        "old buttons clicked": load.counts.get("old buttons clicked", 0),
        "old buttons": dict(sorted(load.old.items())),
        "live tables": live,
        "resumed": resumed,
        "outboxes undelivered at the end": undelivered,
        "interactions failed without a kill": len(failed_unexplained),
        "API errors": len(emu.api_errors),
        "tracebacks in the bot log": tracebacks,
        "problems": len(load.problems),
        "restart p50 s": round(sorted(killer.restart_seconds)[len(killer.restart_seconds) // 2],
                               2) if killer.restart_seconds else None,
        "open s": round(opened - started, 1),
        "wall s": round(time.perf_counter() - started, 1),
        "steps": dict(sorted(load.counts.items())),
    }
    print(f"\ncrash test ({backend}, seed {SEED}):")
    for key, value in counts.items():
        print(f"  {key:<36} {value}")
    for table_id, version in left[:10]:
        print(f"  UNDELIVERED: outbox of table {table_id} v{version}")
    for why in resumes:
        print(f"  resume: {why}")
    for p in load.problems[:10]:
        print(f"  PROBLEM: {p}")
    for c in ack_missing[:10]:
        print(f"  ACK NOT LOGGED: {c} -> {logs.get(c.table, {}).get(c.version + 1)}")
    for m in report.mismatches[:10]:
        print(f"  MISMATCH: {m}")
    for t, v, u in unclicked[:10]:
        print(f"  UNCLICKED: table {t} v{v} by {u}")
    for i in failed_unexplained[:10]:
        print(f"  FAILED: {i!r} at {i.dispatched_at:.2f}")
    for e in emu.api_errors[:10]:
        print(f"  API ERROR: {e}")

    assert killer.kills >= min(KILLS, 20), counts
    assert len(logs) >= len(SPECS)
    assert {rec.game_id for rec in [await store.get_table(t) for t in logs] if rec} \
        == {s.game_id for s in SPECS}
    assert len(acked) >= 2 * killer.kills, "too few moves were acknowledged to mean much"
    assert report.ok, report.mismatches
    assert not ack_missing, ack_missing[:5]
    assert not ack_twice, ack_twice[:5]
    assert not unclicked, unclicked[:5]
    assert load.old.get("failed", 0) == 0 and load.old.get("apology", 0) == 0, load.old
    assert load.counts.get("old buttons clicked", 0) >= killer.kills
    assert not failed_unexplained, failed_unexplained[:5]
    assert not emu.api_errors, emu.api_errors[:5]
    assert not load.problems, load.problems[:5]
    assert resumed == live, f"{live - resumed} live table(s) did not resume: {resumes}"
    assert undelivered == 0, f"outboxes left undelivered: {left}"
    assert tracebacks == 0, log_text[-6000:]


def keep(where: Path, bot: BotProcess, channels: list[Any]) -> None:
    where.mkdir(parents=True, exist_ok=True)
    shutil.copy(bot.log_path, where / "bot.log")
    if bot.db_path.exists():
        shutil.copy(bot.db_path, where / "fabletop.db")
    dump = {c.name: [{"id": m.id, "edits": m.edits, "deleted": m.deleted,
                      "content": m.content, "custom_ids": m.custom_ids}
                     for m in c.messages] for c in channels}
    (where / "channels.json").write_text(json.dumps(dump, indent=1))
    print(f"kept the log, the database and the channels in {where}")


async def wait_delivered(store: Any, timeout: float = 20.0) -> int:
    """Undelivered outboxes left after ``timeout`` s (0: all delivered)."""
    deadline = time.perf_counter() + timeout
    while True:
        left = await store.undelivered_outboxes()
        if not left or time.perf_counter() > deadline:
            return len(left)
        await asyncio.sleep(0.2)


async def check_resumed(drivers: list[TableDriver], timeout: float = 20.0
                        ) -> tuple[int, int, list[str]]:
    """(tables that resumed, live tables, what each did): each live table's next move
    is acknowledged (a person's click) or made (its AI)."""

    async def one(d: TableDriver) -> tuple[bool | None, str]:
        deadline = time.perf_counter() + timeout
        rec = await d.record()
        if rec is None or rec.status != "playing":
            return None, f"{d}: {rec.status if rec else 'no table'}"
        before = rec.version
        outcomes = []
        while time.perf_counter() < deadline:
            outcome = await d.step()
            outcomes.append(outcome)
            if outcome == "acked":
                return True, f"{d}: v{before} resumed ({', '.join(outcomes)})"
            rec = await d.record()
            if rec is not None and (rec.version > before or rec.status != "playing"):
                return True, f"{d}: v{before} -> v{rec.version} ({', '.join(outcomes)})"
        state = await d.state_of(rec) if rec is not None and rec.state else None
        to_act = d.game.to_act(state) if state is not None else []
        seats = {s["index"]: s.get("ai_level") or s.get("name") for s in rec.seats} \
            if rec is not None else {}
        shown = "\n".join(
            f"      msg {m.id} edits={m.edits} {m.content[:160]!r} {m.custom_ids[:6]}"
            for m in d.channel.visible[-3:])
        hands = "\n".join(
            f"      {p.name} DM {m.id} edits={m.edits} {m.content[:100]!r} {m.custom_ids[:4]}"
            for p in d.people for m in p.dm_messages()[-1:])
        return False, (f"{d}: STUCK at v{before}, to act {[seats.get(s) for s in to_act]}"
                       f" ({', '.join(outcomes)}); the channel ends with:\n{shown}\n{hands}")

    results = await asyncio.gather(*(one(d) for d in drivers))
    live = [r for r, _ in results if r is not None]
    return sum(live), len(live), [why for _, why in results]
