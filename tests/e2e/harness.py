"""The real bot process against the emulator: start, stop, restart, read its log.

The bot runs as ``python -m bot.cli run --sync`` in a subprocess, configured only through
its environment (DISCORD_TOKEN, DATABASE_PATH, DISCORD_API_BASE, DISCORD_GATEWAY_URL), with
a real SQLite file (or, given ``database_url``, a PostgreSQL database: DATABASE_URL), exactly
as an operator would run it against Discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import warnings
from pathlib import Path
from typing import NamedTuple

from tests.emulator import Emulator, Message, Person

ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    """One bot subprocess (restartable) pointed at an emulator."""

    def __init__(
        self, emu: Emulator, workdir: Path, *, shards: tuple[int, ...] | None = None,
        database_url: str | None = None, root: Path = ROOT, **env: str
    ) -> None:
        self.emu = emu
        self.root = root
        """The checkout whose bot runs (another build's worktree, for a benchmark)."""
        self.shards = shards if shards is not None else tuple(range(emu.shard_count))
        self.allow_tracebacks = False
        self.db_path = workdir / "fabletop.db"
        self.log_path = workdir / "bot.log"
        self.env = {
            **os.environ,
            "DISCORD_TOKEN": emu.token,
            "DATABASE_PATH": str(self.db_path),
            "DISCORD_API_BASE": emu.api_base,
            "DISCORD_GATEWAY_URL": emu.gateway_url,
            # Blank values beat a developer's .env file (environment variables win over it).
            "DEV_GUILD_ID": "",
            "SHARD_COUNT": "",
            "SHARD_IDS": "",
            "OWNER_IDS": "",
            "AI_DELAY": "0",
            "AI_BUDGET": "30",
            "REMINDER_MINUTES": "0",
            "LOG_LEVEL": os.environ.get("E2E_LOG_LEVEL", "INFO"),
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        self.database_url = database_url
        if database_url is not None:
            self.env["DATABASE_URL"] = database_url
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0

    async def start(self, *, sync: bool = True, timeout: float = 30.0) -> None:
        """Start the process and wait until its shards are connected and commands exist."""
        identifies = self.emu.gateway.identifies
        gateway = self.emu.gateway
        args = [sys.executable, "-m", "bot.cli", "run"] + (["--sync"] if sync else [])
        log = self.log_path.open("ab")
        log.write(f"---- start {self.starts + 1}\n".encode())
        log.flush()
        self.proc = await asyncio.create_subprocess_exec(
            *args,
            cwd=self.root,
            env=self.env,
            stdout=log,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
        )
        log.close()
        self.starts += 1
        try:
            await self.emu.wait_for(
                lambda: (
                    (
                        gateway.identifies >= identifies + len(self.shards)
                        and set(self.shards) <= gateway.ready_shards
                        and self.emu.commands()
                    )
                    or self._died()
                ),
                timeout,
                "the bot to connect and sync its commands",
            )
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- bot log ---\n{self.log()[-4000:]}") from None
        if self._died():
            raise AssertionError(f"the bot exited ({self.proc.returncode}):\n{self.log()}")

    def _died(self) -> bool:
        return self.proc is not None and self.proc.returncode is not None

    async def stop(self, *, kill: bool = False) -> int | None:
        """SIGTERM (or SIGKILL: a crash) and wait; returns the exit code."""
        proc, self.proc = self.proc, None
        if proc is None or proc.returncode is not None:
            return proc.returncode if proc else None
        proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            return await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            proc.kill()
            return await proc.wait()

    @property
    def database(self) -> str:
        """Where the bot keeps its tables, as ``bot.core.store.factory.store_for`` takes it:
        the PostgreSQL URL if one was given, else the SQLite file."""
        return self.database_url or str(self.db_path)

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    async def kill(self) -> int | None:
        """SIGKILL the process (a crash: no clean shutdown) and wait for it to die."""
        return await self.stop(kill=True)

    async def restart(self, *, kill: bool = True) -> None:
        """Kill the process mid-game (no clean shutdown) and start it again."""
        await self.stop(kill=kill)
        await self.emu.wait_for(
            lambda: not set(self.shards) & self.emu.gateway.ready_shards,
            10,
            "the old gateway connection to close",
        )
        await self.start(sync=False)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def assert_log_clean(self) -> None:
        """No traceback in the bot's log (an exception the bot did not expect), unless the
        test said tracebacks are expected (``bot.allow_tracebacks = True``)."""
        text = self.log()
        if not self.allow_tracebacks:
            assert "Traceback (most recent call last)" not in text, text[-6000:]


class E2E(NamedTuple):
    """What the ``e2e`` fixture yields: ``emu, bot, (alice, bob, carol) = e2e``."""

    emu: Emulator
    bot: BotProcess
    users: tuple[Person, ...]


def latest_with_buttons(emu: Emulator, channel_id: int | None = None) -> Message | None:
    """The newest public message that still carries enabled game buttons or selects.

    The lobby message's own buttons (Join, Start, ...) are not a turn prompt: they
    come off once the game starts, but a test must not race that edit."""
    channel = emu.channels[channel_id] if channel_id else emu.channel
    for msg in reversed(channel.visible):
        game_buttons = [b for b in msg.buttons
                        if not b.disabled and ":lobby." not in (b.custom_id or "")]
        if game_buttons or msg.selects:
            return msg
    return None


class RateLimitReport(UserWarning):
    """An end-to-end test met Discord's rate limits (shown in pytest's warnings summary)."""


def report_rate_limits(emu: Emulator) -> None:
    """If the test met a 429 or a ban, say so: a summary line on stdout and a warning in
    pytest's summary. A route 429 is only reported (discord.py waited and retried it);
    a global 429 or a ban also fails ``emu.assert_clean()``."""
    if emu.ratelimits.met():
        line = emu.ratelimits.summary()
        print(line)
        warnings.warn(line, RateLimitReport, stacklevel=2)


def record_request_costs(test_id: str, emu: Emulator, db_path: Path) -> None:
    """With ``E2E_REQUESTS_LOG`` set, append one JSON line per test: its games, the moves
    of people and of AI seats (from the bot's action log), and the bot-token and
    interaction-token requests the emulator counted, lobby and commands included (so
    bot-token requests per human move is an upper bound of what a move costs)."""
    target = os.environ.get("E2E_REQUESTS_LOG")
    if not target or not db_path.exists():
        return
    import json
    import sqlite3

    with contextlib.closing(sqlite3.connect(db_path)) as db:
        games = sorted({g for (g,) in db.execute("SELECT game_id FROM tables")})
        people, ai = db.execute(
            "SELECT COUNT(user_id), COUNT(*) - COUNT(user_id) FROM actions").fetchone()
    line = {"test": test_id, "games": games, "human_moves": people, "ai_moves": ai,
            "bot_token": emu.ratelimits.kinds["bot"],
            "interaction": emu.ratelimits.kinds["interaction"],
            "routes": dict(emu.ratelimits.requests.most_common()),
            "dm_routes": dict(emu.ratelimits.dm_requests.most_common())}
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(line) + "\n")


async def stop_quietly(bot: BotProcess) -> None:
    with contextlib.suppress(ProcessLookupError):
        await bot.stop()
