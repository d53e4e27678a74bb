"""The real bot under load on the loopback Discord emulator, beside a bot that only acks.

    .venv/bin/python -m bench.load [--sizes 10,100,1000] [--modes closed,open]
        [--window SECONDS] [--interval 20] [--render-workers N] [--seed 1]
        [--game fairy-tale-inn] [--setup-concurrency 16] [--ramp 5] [--keep DIR]
        [--backend sqlite|postgres] [--pg-url URL]

For each size N the real bot (``python -m bot.cli run``, tests.e2e.harness.BotProcess,
a fresh store: a SQLite file, or with ``--backend postgres`` a private PostgreSQL
database made for the run and dropped after it) runs against an emulator
(tests/emulator) with N channels; in each
channel two simulated people open, join and start a Fairy Tale Inn table (the warm-up,
``/table new`` / ``join`` / ``start``; not part of the measured figures). Then, for each
mode, the tables are played for a fixed window:

* ``closed``: at every table whoever is asked clicks as soon as the bot shows the next
  turn (a Guest List slot, then a column in the private menu, as tests/e2e/play.fti_turn
  does). The window (default 60 s) starts after a 5 s ramp (``--ramp``).
* ``open``: each table makes one decision every ``--interval`` seconds (default 20), the
  tables' first ticks spread uniformly over the first interval, so decisions arrive at a
  steady N/interval per second. At a tick the person waits for the previous move's turn
  message only if it has not come yet; such a tick is counted as *late* and the decision
  is made as soon as it comes (missed ticks are skipped, not made up). A decision that
  failed or was refused is not tried again before the next tick. Window default 2
  intervals, from the first tick.

A finished game is opened, joined and started again in the same channel (its slash
commands are then inside the window: they are reported as lobby slash commands and their
CPU is in the CPU per move). Then a minimal discord.py bot (bench/minimal_bot.py, own
process, own emulator of the same kind, N channels with one button each put there by the
emulator) gets the same load shape: the same number of people, clicking the button (and
``/ping`` for the share of slash commands) at the interaction rate measured for the real
bot in that size and mode; closed = the next click of a table as soon as the ack arrives
but not before its turn in that rate, open = on schedule whatever the answers. The
warm-up opens ``--setup-concurrency`` tables at a time (more would only measure the
bot's queue), and reports how long it took.

What the figures mean (everything inside the window unless said otherwise):

* **first response**: INTERACTION_CREATE leaving the emulator's gateway to the bot's first
  interaction callback arriving (``Interaction.latency``, what ``emu.latencies()`` lists;
  Discord's 3-second rule is about this), over the component clicks dispatched in the
  window: p50/p95/p99/max, how many came after 3 s and how many *failed* (no callback in
  the emulator's 3 s window: the person saw "This interaction failed"). Split into
  clicks answered with a private menu (a slot) and clicks that play a move (a column, the
  Rat, the extra-turn buttons), told apart by the button's code (a slot, ``s<n>``,
  opens the menu: the bot may acknowledge every click with a deferred update and send
  the menu as a followup, so the first response alone does not say).
* **slot click -> menu shown**: from a slot click to the private column menu (the first
  response, or a followup after a deferred update) being applied by the emulator: what
  the person waits for before the second click.
* **click -> next picture**: from the click that plays a move (the column click, or the
  single Rat / extra-turn click; its dispatch time) to the moment the emulator applies the
  bot's request that puts the move's board picture in the channel: the first public
  message of that channel, created or edited after the click, carrying a ``.png``
  attachment it did not carry before. For Fairy Tale Inn every move changes the board, so
  this is the new turn message (posted with the picture and the next player's buttons),
  the same turn message edited with a new picture (a Rat or extra-turn step), or the last
  message of the game. Moves clicked in the window, answered until 120 s after it.
  Also as the p50 of the window's first and second halves: it rises when the pictures
  fall behind (a backlog in the render pool).
* **moves/s**: rows added to the bot's ``actions`` table (committed moves) between the
  start and the end of the window, over the window.
* **CPU per move**: utime+stime (``/proc/<pid>/stat``) of the bot process and all its
  descendants (the render pool's workers, RENDER_WORKERS) plus the bot's reaped children,
  end of window minus start, over the moves in the window; also as cores used. When the
  pictures fall behind, a window's moves leave work for after it (and a backlog at its
  start is work for earlier moves): the *whole phase* figure runs from the idle bot
  before the ramp to the idle bot after the window, over the moves committed meanwhile.
* **memory per table**: RSS of the bot and its descendants after the warm-up minus their
  RSS after start-up (workers warmed, no table), over N; and the totals. Also the slope
  after the first tenth of the tables (the first pictures load a worker's fonts and
  caches once), the cost of one more table.
* **load average**: the 1-minute load average at the start and the end of the window;
  and the cores the machine's other processes used meanwhile (``/proc/stat`` busy time
  minus the bot's and this process's): the machine is shared, so read the latencies with
  it.
* **emulator+people**: CPU of this process (the emulator and the simulated people) in
  cores, how late its event loop woke (p99/max) and its garbage-collection pauses: when
  it is near a full core, or late, the figures above measure the load generator too.

Prints a block per size and mode, progress on stderr, and finally one JSON line with
every figure. Only Fairy Tale Inn is played here (``--game``); ``python -m
bench.load_games`` plays every game, on both stores, and measures idle tables too. This
module is also the shared machinery of that benchmark: the instrumented emulator, the
process-tree samples, the database probes and stores (:func:`open_backend`), the
measured window and the minimal bot.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import random
import re
import resource
import secrets
import sqlite3
import struct
import sys
import tempfile
import time
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `python bench/load.py` as well as `-m`
    sys.path.insert(0, str(ROOT))

from bench.stats import percentile  # noqa: E402
from tests.e2e.harness import BotProcess  # noqa: E402
from tests.emulator import Attachment, Channel, Emulator, Interaction, Message, Person  # noqa: E402

GAME = "fairy-tale-inn"
LATE = 3.0  # Discord's window for a first response
RAMP = 5.0  # closed loop, default: every table's first click lands at once; not measured
DRAIN = 30.0  # seconds the drivers get to finish their last decision after the window
PATIENCE = 120.0  # seconds a person waits for a picture or a menu before giving up on it
DEFERRED_UPDATE, CHANNEL_MESSAGE = 6, 4
MENTION = re.compile(r"<@!?(\d+)>")
MENU_CODE = re.compile(r"s\d+")  # a Guest List slot: the bot answers with the column menu
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# ---- the bot's process tree, from /proc ---------------------------------------------------


def _stat(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name may hold spaces and parentheses: fields start after the last ")"
    return raw[raw.rindex(")") + 2:].split()


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


@dataclass
class TreeSample:
    cpu_main: float  # seconds, the bot process (with its reaped children)
    cpu_children: float  # seconds, its live descendants (render workers)
    rss: int  # bytes, the bot and its descendants
    processes: int
    rss_main: int = 0  # bytes, the bot process alone (where the tables live)

    @property
    def cpu(self) -> float:
        return self.cpu_main + self.cpu_children


def sample_tree(pid: int) -> TreeSample:
    main, kids, rss, n, rss_main = 0.0, 0.0, 0, 0, 0
    for p in [pid, *descendants(pid)]:
        fields = _stat(p)
        if fields is None:
            continue
        n += 1
        ticks = int(fields[11]) + int(fields[12])
        if p == pid:
            main += (ticks + int(fields[13]) + int(fields[14])) / CLK_TCK
            rss_main = int(fields[21]) * PAGE
        else:
            kids += ticks / CLK_TCK
        rss += int(fields[21]) * PAGE
    return TreeSample(main, kids, rss, n, rss_main)


def machine_busy() -> float:
    """CPU seconds all processes of the machine have used (``/proc/stat``, not idle)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:8]]
    return (sum(fields) - fields[3] - fields[4]) / CLK_TCK


def own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ---- the emulator, instrumented -----------------------------------------------------------


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    return None


class LeanAttachment(Attachment):
    """An attachment that keeps only the head of its file.

    The emulator's Attachment decodes the whole PNG with Pillow in every ``to_api`` (for
    its width and height): about 2 ms of CPU for a Fairy Tale Inn board (84 KB, 1200 x
    1532), four or five times per move (the posted message, its MESSAGE_CREATE, every
    click on it, the edit that strips its buttons). At 50 moves/s that is half a core of
    the emulator's, more than all the rest of it. Keeping every board's bytes would also
    grow the emulator by hundreds of MB. The bot never downloads an attachment, so the
    size from the PNG header and 64 bytes are enough."""

    def __init__(self, src: Attachment) -> None:
        super().__init__(src.id, src.filename, src.data[:64], src.description)
        self._size = len(src.data)
        self._type = src.content_type
        self._wh = png_size(src.data)

    @property  # type: ignore[override]
    def size(self) -> int:
        return self._size

    @property  # type: ignore[override]
    def content_type(self) -> str:
        return self._type

    def to_api(self, base_url: str, channel_id: int) -> dict[str, Any]:
        url = f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}"
        out: dict[str, Any] = {"id": str(self.id), "filename": self.filename,
                               "size": self._size, "url": url, "proxy_url": url,
                               "content_type": self._type}
        if self.description:
            out["description"] = self.description
        if self._wh is not None:
            out["width"], out["height"] = self._wh
        return out


Watcher = Callable[[Message, bool, float], None]


class LoadEmulator(Emulator):
    """The emulator, telling each table's driver the moment a message of its channel
    (public, or private to one of its people) is created or edited (waiting with
    ``emu.wait_for`` polls every waiter on every change: at 1,000 tables that polling
    alone would fill a core)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.watchers: dict[int, Watcher] = {}

    def _attachments(self, payload: dict[str, Any], files: list[tuple[str, bytes, str]],
                     keep: list[Attachment] | None = None) -> list[Attachment]:
        out = super()._attachments(payload, files, keep)
        return [a if isinstance(a, LeanAttachment) else LeanAttachment(a) for a in out]

    def _new_message(self, channel: Channel, payload: dict[str, Any],
                     files: list[tuple[str, bytes, str]], **kwargs: Any) -> Message:
        msg = super()._new_message(channel, payload, files, **kwargs)
        watcher = self.watchers.get(channel.id)
        if watcher is not None:
            picture = any(a.filename.endswith(".png") for a in msg.attachments)
            watcher(msg, picture, time.perf_counter())
        return msg

    def _apply_edit(self, msg: Message, payload: dict[str, Any],
                    files: list[tuple[str, bytes, str]], where: str) -> Message:
        before = {a.id for a in msg.attachments}
        out = super()._apply_edit(msg, payload, files, where)
        watcher = self.watchers.get(out.channel_id)
        if watcher is not None:
            picture = any(a.id not in before and a.filename.endswith(".png")
                          for a in out.attachments)
            watcher(out, picture, time.perf_counter())
        return out

    def trim_history(self, keep: int = 200) -> None:
        # Frames are kept for RESUME only; nobody drops the gateway here.
        for session in self.gateway.sessions.values():
            del session.history[:-keep]


# ---- what is recorded ---------------------------------------------------------------------


@dataclass
class Record:
    clicks: list[Interaction] = field(default_factory=list)
    slash: list[Interaction] = field(default_factory=list)
    pictures: list[tuple[float, float]] = field(default_factory=list)  # (click at, latency)
    menus: list[tuple[float, float]] = field(default_factory=list)  # (click at, latency)
    kinds: dict[int, str] = field(default_factory=dict)  # click id -> what it came to
    late_ticks: list[float] = field(default_factory=list)
    ticks: list[float] = field(default_factory=list)
    skipped_ticks: int = 0
    stuck: int = 0
    lobbies: int = 0


def in_window(items: Sequence[Interaction], t0: float, t1: float) -> list[Interaction]:
    return [i for i in items if t0 <= i.dispatched_at < t1]


def figures(values: Sequence[float]) -> dict[str, float | int]:
    v = sorted(values)
    return {"n": len(v), "p50": percentile(v, 0.5), "p95": percentile(v, 0.95),
            "p99": percentile(v, 0.99), "max": v[-1] if v else float("nan")}


def first_responses(inters: Sequence[Interaction]) -> dict[str, float | int]:
    out = figures([i.latency for i in inters if i.latency is not None])
    out["late"] = sum(1 for i in inters if i.latency is not None and i.latency > LATE)
    out["failed"] = sum(1 for i in inters if i.failed)
    return out


def ms_line(label: str, f: dict[str, Any], extra: str = "") -> str:
    def ms(key: str) -> str:
        value = f.get(key, float("nan"))
        return f"{1000 * value:7.1f}" if value == value else "      -"
    return (f"  {label:<26} n={f['n']:<6} p50={ms('p50')} p95={ms('p95')} "
            f"p99={ms('p99')} max={ms('max')} ms{extra}")


def response_line(label: str, f: dict[str, Any]) -> str:
    return ms_line(label, f, f"  >3s={f['late']} failed={f['failed']}")


class LoopLag:
    """How late this process's event loop wakes (the load generator's own saturation),
    and how long its garbage collections stop it."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self.gc_pauses: list[tuple[float, float]] = []
        self._gc_start = 0.0
        self._task: asyncio.Task[None] | None = None

    def _gc(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._gc_start = now
        else:
            self.gc_pauses.append((now, now - self._gc_start))

    def start(self) -> None:
        self._task = asyncio.create_task(self._run())
        gc.callbacks.append(self._gc)

    def gc_between(self, t0: float, t1: float) -> dict[str, float | int]:
        pauses = [d for t, d in self.gc_pauses if t0 <= t < t1]
        return {"n": len(pauses), "total": sum(pauses), "max": max(pauses, default=0.0)}

    async def _run(self) -> None:
        n = 0
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.1)
            now = time.perf_counter()
            self.samples.append((now, now - before - 0.1))
            n += 1
            if n % 20 == 0:
                # The emulator keeps every message, interaction and request it saw: left to
                # the collector, each full pass walks all of them and stops the emulator
                # for up to a few hundred ms at 1,000 tables (the bot's latencies would
                # include it). Frozen objects are skipped; what is garbage among them is
                # only memory, for the length of a run.
                gc.freeze()

    def between(self, t0: float, t1: float) -> dict[str, float | int]:
        return figures([lag for t, lag in self.samples if t0 <= t < t1])

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self._gc)


def freeze_garbage() -> None:
    """Between phases: collect once, then keep the world built so far out of the
    collector's passes (see LoopLag._run)."""
    gc.collect()
    gc.freeze()


async def sleep_until(when: float, stop: asyncio.Event) -> bool:
    """Sleep until ``when`` (perf_counter); False if ``stop`` was set meanwhile."""
    delay = when - time.perf_counter()
    if delay > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), delay)
    return not stop.is_set()


# ---- a Fairy Tale Inn table played by two people ------------------------------------------


def game_buttons(msg: Message) -> list[str]:
    """custom_ids of the enabled game buttons (not the lobby's Join / Start)."""
    return [b.custom_id for b in msg.buttons
            if b.custom_id and not b.disabled and ":lobby." not in b.custom_id]


def code_of(custom_id: str) -> str:
    """The action code of ``ft:<table>:<version>:<code>`` (bot/messages/ui/ids.py)."""
    return custom_id.rsplit(":", 1)[-1]


def button_version(custom_ids: list[str]) -> int:
    versions = [int(c.split(":")[2]) for c in custom_ids if c.startswith(("ft:", "fs:"))]
    return max(versions, default=-1)


class Table:
    """One channel's table and its two people, driven from the emulator's notifications."""

    def __init__(self, emu: LoadEmulator, probe: Probe, channel: Channel, host: Person,
                 guest: Person, rng: random.Random) -> None:
        self.emu, self.probe, self.channel = emu, probe, channel
        self.host, self.guest = host, guest
        self.people = {host.id: host, guest.id: guest}
        self.rng = rng
        self.rec = Record()
        self.prompt: Message | None = None
        self.version = -1  # version of the buttons on self.prompt
        self.moved = -1  # the version this table last played a move on
        self.pending: Interaction | None = None  # a click whose picture is awaited
        self.picture_without_buttons = False  # perhaps the end of the game
        self.awaiting_menu: Interaction | None = None  # a click whose private menu is awaited
        self.move_click: Interaction | None = None  # the last click taken for a move
        self.changed = asyncio.Event()
        emu.watchers[channel.id] = self.on_message

    def on_message(self, msg: Message, picture: bool, at: float) -> None:
        if msg.ephemeral:
            # A private answer (a column menu, a refusal), as the first response or as a
            # followup after a deferred update.
            click = self.awaiting_menu
            if click is not None and msg.interaction_id == click.id and game_buttons(msg):
                self.awaiting_menu = None
                self.rec.menus.append((click.dispatched_at, at - click.dispatched_at))
            move = self.move_click
            if (move is not None and msg.interaction_id == move.id and not game_buttons(msg)
                    and self.version <= self.moved):
                # The move acknowledged with a deferred update was refused after all: the
                # turn message shown is still the one to play.
                self.move_click = None
                self.moved = self.version - 1
                self.pending = None
                self.rec.kinds[move.id] = "refused"
            self.changed.set()
            return
        if picture and self.pending is not None:
            click, self.pending = self.pending, None
            self.rec.pictures.append((click.dispatched_at, at - click.dispatched_at))
        ids = game_buttons(msg)
        if picture and not ids:
            self.picture_without_buttons = True
        v = button_version(ids)
        if v > self.version:
            self.prompt, self.version = msg, v
        self.changed.set()

    async def status(self) -> str | None:
        return await self.probe.status(self.channel.id)

    async def wait_turn(self, timeout: float) -> str:
        """``turn`` once buttons newer than the last move are shown, ``over`` once the
        game has ended, ``timeout``."""
        deadline = time.perf_counter() + timeout
        checked = time.perf_counter()
        while self.version <= self.moved:
            now = time.perf_counter()
            # The table's status is read only when a picture came without buttons, or
            # now and then while nothing comes: one SQLite read per table per event would
            # cost more than the bot.
            if self.picture_without_buttons or now - checked > 5.0:
                self.picture_without_buttons = False
                checked = now
                if await self.status() in ("finished", "aborted", None):
                    return "over"
            if now >= deadline:
                return "timeout"
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(deadline - now, 5.0))
        return "turn"

    async def _click(self, person: Person, msg: Message, custom_id: str) -> Interaction | None:
        try:
            inter = await person.click(msg, custom_id=custom_id, wait=False)
        except (LookupError, AssertionError):  # the message changed under the click
            return None
        # Set before the answer: under load the bot's picture (or menu) may be applied
        # before this coroutine runs again.
        self.pending = self.awaiting_menu = inter
        self.rec.clicks.append(inter)
        await inter.responded.wait()
        return inter

    async def _outcome(self, click: Interaction | None,
                       opens_menu: bool) -> tuple[str, Message | None]:
        """What a click came to: ``menu`` (a private message with buttons), ``move``,
        ``refused`` (a private message without buttons: not your turn, an older turn...),
        ``failed`` (no first response in 3 s) or ``lost`` (a menu awaited PATIENCE s).

        A deferred update alone does not say which: the bot may defer every click and
        send the menu as a followup. So a click whose code opens a menu waits for it, and
        any other click is a move once acknowledged (its picture is the next turn's
        business: waiting for it here would hold an open loop's next tick)."""
        if click is None:
            return "refused", None
        if click.failed:
            return "failed", None
        if not opens_menu and click.response_type == DEFERRED_UPDATE:
            return "move", None
        deadline = time.perf_counter() + PATIENCE
        while True:
            answers = [m for m in click.replies if m.ephemeral and not m.loading]
            if answers:
                menu = answers[0]
                return ("menu", menu) if game_buttons(menu) else ("refused", None)
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return "lost", None
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(remaining, 5.0))

    async def decide(self) -> str:
        """One Fairy Tale Inn decision, as tests/e2e/play.fti_turn makes it: a random
        enabled button of the turn message, then a random column of the private menu.
        Returns ``moved``, ``failed``, ``lost`` or ``refused``."""
        prompt, version = self.prompt, self.version
        assert prompt is not None
        ids = [int(m) for m in MENTION.findall(prompt.content)]
        actor = next((self.people[u] for u in reversed(ids) if u in self.people), None)
        choices = game_buttons(prompt)
        if actor is None or not choices:
            return "refused"
        custom_id = self.rng.choice(choices)
        first = await self._click(actor, prompt, custom_id)
        kind, menu = await self._outcome(first, bool(MENU_CODE.fullmatch(code_of(custom_id))))
        if first is not None:
            self.rec.kinds[first.id] = kind
        if kind == "menu":
            assert menu is not None
            second = await self._click(actor, menu, self.rng.choice(game_buttons(menu)))
            kind, _ = await self._outcome(second, False)
            if second is not None:
                self.rec.kinds[second.id] = kind
        self.awaiting_menu = None
        if kind == "move":
            self.moved = version
            self.move_click = self.pending
            return "moved"
        self.pending = None  # no picture is coming for it
        return kind

    async def lobby(self, seed: int | None = None) -> bool:
        """Open, join and start a table in the channel; True once its first turn shows."""
        for _attempt in range(3):
            self.prompt, self.version, self.moved = None, -1, -1
            self.pending, self.picture_without_buttons = None, False
            self.move_click = self.awaiting_menu = None
            self.rec.lobbies += 1
            steps: list[tuple[Person, str, dict[str, Any]]] = [
                (self.host, "/table new", {"game": GAME}), (self.guest, "/table join", {}),
                (self.host, "/table start", {})]
            for person, command, options in steps:
                if command == "/table start" and seed is not None:
                    with contextlib.suppress(Exception):  # a repeatable game if it can be
                        await self.probe.set_seed(self.channel.id, seed)
                inter = await person.slash(command, channel=self.channel, settle=False,
                                           expect_response=False, **options)
                self.rec.slash.append(inter)
                # As a person would: the next command after this one's answer (the bot
                # acknowledges first and answers when the table is made).
                with contextlib.suppress(Exception):
                    await self.emu.answer(inter, timeout=PATIENCE)
            if await self.wait_turn(PATIENCE) == "turn":
                return True
            with contextlib.suppress(Exception):  # a half-made lobby: close it, try again
                inter = await self.host.slash("/table abort", channel=self.channel,
                                              settle=False, expect_response=False)
                self.rec.slash.append(inter)
        return False

    async def next_turn(self) -> bool:
        """Wait for the turn after the last move; a finished game starts again."""
        while True:
            result = await self.wait_turn(PATIENCE)
            if result == "turn":
                return True
            if result == "over":
                if not await self.lobby():
                    return False
                continue
            self.rec.stuck += 1
            return False

    async def play_closed(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if not await self.next_turn():
                await sleep_until(time.perf_counter() + 5.0, stop)
                continue
            if stop.is_set():
                return
            if await self.decide() != "moved":
                await self.glance()

    async def glance(self) -> None:
        # After a refusal or a lost click: give the channel a moment to show the truth
        # instead of clicking the same message again at once.
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), 1.0)

    @property
    def awaits_picture(self) -> bool:
        return self.pending is not None and self.pending.response_type == DEFERRED_UPDATE

    async def play_open(self, stop: asyncio.Event, first_tick: float, interval: float) -> None:
        tick = first_tick
        while await sleep_until(tick, stop):
            self.rec.ticks.append(tick)
            if self.version <= self.moved and not self.picture_without_buttons:
                self.rec.late_ticks.append(tick)
            if await self.next_turn():
                if stop.is_set():
                    return
                # One try per tick: retrying a failed click at once would raise the offered
                # load exactly when the bot is behind, and the loop would not be open.
                await self.decide()
            tick += interval
            while tick < time.perf_counter():
                tick += interval
                self.rec.skipped_ticks += 1


# ---- the real bot: one size, every mode ---------------------------------------------------


# ---- the bot's database, read from outside (as the tests read it) --------------------------


class Probe(Protocol):
    """What the people and the measurement read straight from the bot's database: the
    same few queries on SQLite and PostgreSQL (the two stores share their schema)."""

    async def moves(self) -> int:
        """Committed moves: rows of ``actions``."""
        ...

    async def moves_by_game(self) -> dict[str, int]:
        """Committed moves per game id."""
        ...

    async def status(self, channel_id: int) -> str | None:
        """The status of the newest table of a channel (None: no table)."""
        ...

    async def set_seed(self, channel_id: int, seed: int) -> None:
        """Fix the random seed of the channel's lobby before ``/table start`` (the bot
        reads its table's row in every operation), so a run repeats."""
        ...

    async def close(self) -> None: ...


_BY_GAME = ("SELECT t.game_id, COUNT(*) FROM actions a JOIN tables t ON t.id = a.table_id "
            "GROUP BY t.game_id")


class SqliteProbe:
    """The bot's SQLite file, read through one read-only connection (the bot writes in
    WAL mode) in a thread of its own.

    Not on the event loop: this process is the emulator, and the bot's latencies are
    stamped here. A thousand people each checking their table's status every few
    seconds, with a connection opened per query on the loop, stopped the emulator for
    up to 1.5 s (its loop-lag sampler's stacks), and every interaction answered in that
    time was counted late by as much."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="sqlite-probe")
        self._conn: sqlite3.Connection | None = None
        self._closed = False

    def _read_now(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if self._conn is None:  # made and used in the probe's one thread only
            self._conn = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=10,
                                         isolation_level=None)
        return self._conn.execute(sql, args).fetchall()

    async def _read(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, self._read_now, sql, args)

    def _seed_now(self, channel_id: int, seed: int) -> None:
        with sqlite3.connect(self.db, timeout=10) as conn:
            conn.execute("UPDATE tables SET seed = ? WHERE id = (SELECT id FROM tables WHERE "
                         "channel_id = ? AND status = 'lobby' ORDER BY created_at DESC "
                         "LIMIT 1)", (seed, channel_id))

    async def moves(self) -> int:
        return int((await self._read("SELECT COUNT(*) FROM actions"))[0][0])

    async def moves_by_game(self) -> dict[str, int]:
        return {str(g): int(n) for g, n in await self._read(_BY_GAME)}

    async def status(self, channel_id: int) -> str | None:
        rows = await self._read("SELECT status FROM tables WHERE channel_id = ? "
                                "ORDER BY created_at DESC LIMIT 1", (channel_id,))
        return str(rows[0][0]) if rows else None

    async def set_seed(self, channel_id: int, seed: int) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self._seed_now, channel_id, seed)

    async def close(self) -> None:
        def shut() -> None:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

        if self._closed:
            return
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(self._thread, shut)
        self._thread.shutdown(wait=True)


class PostgresProbe:
    """The bot's PostgreSQL database, through a small asyncpg pool of this process."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._pool: Any = None

    async def _conn(self) -> Any:
        if self._pool is None:
            import asyncpg

            self._pool = await asyncpg.create_pool(self.url, min_size=1, max_size=4)
        return self._pool

    async def moves(self) -> int:
        pool = await self._conn()
        return int(await pool.fetchval("SELECT COUNT(*) FROM actions"))

    async def moves_by_game(self) -> dict[str, int]:
        pool = await self._conn()
        return {str(r[0]): int(r[1]) for r in await pool.fetch(_BY_GAME)}

    async def status(self, channel_id: int) -> str | None:
        pool = await self._conn()
        value = await pool.fetchval("SELECT status FROM tables WHERE channel_id = $1 "
                                    "ORDER BY created_at DESC LIMIT 1", channel_id)
        return None if value is None else str(value)

    async def set_seed(self, channel_id: int, seed: int) -> None:
        pool = await self._conn()
        await pool.execute("UPDATE tables SET seed = $1 WHERE id = (SELECT id FROM tables "
                           "WHERE channel_id = $2 AND status = 'lobby' ORDER BY created_at "
                           "DESC LIMIT 1)", seed, channel_id)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None


BACKENDS = ("sqlite", "postgres")
PG_ADMIN_URL = os.environ.get("BENCH_PG_URL", "postgresql://postgres@127.0.0.1:5432/test")
"""Where a PostgreSQL run makes its private database (``BENCH_PG_URL`` or ``--pg-url``)."""


@dataclass
class Backend:
    """One store for one bot process: what its environment says, and how to read it."""

    name: str  # "sqlite" or "postgres"
    env: dict[str, str]
    probe: Probe
    where: str  # the SQLite file or the database name


@contextlib.asynccontextmanager
async def open_backend(name: str, workdir: Path, pg_url: str = PG_ADMIN_URL
                       ) -> AsyncIterator[Backend]:
    """A fresh store for one bot process: the SQLite file BotProcess names in
    ``workdir``, or a private PostgreSQL database ``fabletop_bench_<random>`` made on the
    server of ``pg_url`` and dropped afterwards (the bot runs its migrations into it)."""
    if name == "sqlite":
        db = workdir / "fabletop.db"  # tests.e2e.harness.BotProcess's file
        probe = SqliteProbe(db)
        try:
            yield Backend(name, {}, probe, str(db))
        finally:
            await probe.close()
        return
    if name != "postgres":
        raise ValueError(f"unknown backend {name!r} (sqlite or postgres)")
    import asyncpg

    dbname = f"fabletop_bench_{secrets.token_hex(4)}"
    admin = await asyncpg.connect(pg_url)
    await admin.execute(f'CREATE DATABASE "{dbname}"')
    parts = urllib.parse.urlsplit(pg_url)
    url = urllib.parse.urlunsplit(parts._replace(path="/" + dbname))
    probe = PostgresProbe(url)
    try:
        yield Backend(name, {"DATABASE_URL": url}, probe, dbname)
    finally:
        await probe.close()
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        finally:
            await admin.close()


def bot_env(render_workers: str | None, backend: Backend,
            **extra: str) -> dict[str, str]:
    """The bot process's environment beyond BotProcess's: no limit on open tables (one
    guild holds every table of the run), the render workers, the store."""
    env = {"MAX_TABLES_PER_GUILD": "0", "MAX_TABLES_PER_MEMBER": "0", **backend.env, **extra}
    if render_workers is not None:
        env["RENDER_WORKERS"] = render_workers
    return env


def merged(tables: Sequence[Table]) -> Record:
    out = Record()
    for t in tables:
        out.clicks += t.rec.clicks
        out.slash += t.rec.slash
        out.pictures += t.rec.pictures
        out.menus += t.rec.menus
        out.kinds.update(t.rec.kinds)
        out.late_ticks += t.rec.late_ticks
        out.ticks += t.rec.ticks
        out.skipped_ticks += t.rec.skipped_ticks
        out.stuck += t.rec.stuck
        out.lobbies += t.rec.lobbies
    return out


async def quiet(pid: int, *, idle: float = 1.0, timeout: float = 30.0) -> None:
    """Wait until the bot's process tree uses next to no CPU (render workers warmed up)."""
    deadline = time.perf_counter() + timeout
    last = sample_tree(pid).cpu
    while time.perf_counter() < deadline:
        await asyncio.sleep(idle)
        now = sample_tree(pid).cpu
        if now - last < 0.05 * idle:
            return
        last = now


@dataclass
class Options:
    sizes: list[int]
    modes: list[str]
    window: dict[str, float]
    interval: float
    seed: int
    render_workers: str | None
    setup_concurrency: int
    workdir: Path
    ramp: float = RAMP
    backend: str = "sqlite"
    pg_url: str = PG_ADMIN_URL


class Drained(Protocol):
    """A table's driver, as the end of a window sees it."""

    @property
    def awaits_picture(self) -> bool:
        """A move of it was acknowledged and what it leads to has not shown yet."""
        ...


async def measure_window(mode: str, opts: Options, pid: int, probe: Probe, lag: LoopLag,
                         tables: Sequence[Drained], stop: asyncio.Event,
                         drivers: list[Awaitable[None]], ramp: float) -> dict[str, Any]:
    cpu_begin, moves_begin = sample_tree(pid), await probe.moves()  # idle: nothing queued
    tasks = [asyncio.ensure_future(c) for c in drivers]
    await asyncio.sleep(ramp)
    window = opts.window[mode]
    t0, load0, cpu0, own0 = time.perf_counter(), os.getloadavg()[0], sample_tree(pid), own_cpu()
    busy0 = machine_busy()
    by_game0 = await probe.moves_by_game()
    await asyncio.sleep(window)
    t1, load1, cpu1, own1 = time.perf_counter(), os.getloadavg()[0], sample_tree(pid), own_cpu()
    busy1 = machine_busy()
    by_game1 = await probe.moves_by_game()
    moves0, moves1 = sum(by_game0.values()), sum(by_game1.values())
    stop.set()
    done, pending = await asyncio.wait(tasks, timeout=DRAIN)
    for task in pending:
        task.cancel()
    for task in done:
        if task.exception() is not None:
            say(f"a table's driver failed: {task.exception()!r}")
    # The drivers stop after their last click's answer; its picture comes later.
    deadline = t1 + PATIENCE
    while any(tb.awaits_picture for tb in tables) and time.perf_counter() < deadline:
        await asyncio.sleep(0.1)
    # A backlog of pictures at the end of the window is work its moves caused but did
    # not pay for yet (and one at its start, work it paid for earlier moves): over the
    # whole phase, from idle to idle, every move's work is counted once.
    await quiet(pid, timeout=DRAIN)
    cpu2, moves2 = sample_tree(pid), await probe.moves()
    span = t1 - t0
    moves = moves1 - moves0
    return {"t0": t0, "t1": t1, "window": span, "moves": moves, "moves_per_s": moves / span,
            "cpu_s": cpu1.cpu - cpu0.cpu, "cpu_bot_s": cpu1.cpu_main - cpu0.cpu_main,
            "cpu_workers_s": cpu1.cpu_children - cpu0.cpu_children,
            "cpu_per_move_s": (cpu1.cpu - cpu0.cpu) / moves if moves else float("nan"),
            "cpu_per_move_phase_s": ((cpu2.cpu - cpu_begin.cpu) / (moves2 - moves_begin)
                                     if moves2 > moves_begin else float("nan")),
            "moves_after_window": moves2 - moves1,
            "bot_cores": (cpu1.cpu - cpu0.cpu) / span, "load1_start": load0, "load1_end": load1,
            "rss_end": cpu1.rss, "rss_end_main": cpu1.rss_main,
            "moves_by_game": {g: n - by_game0.get(g, 0) for g, n in by_game1.items()},
            "driver_cores": (own1 - own0) / span,
            "others_cores": (busy1 - busy0 - (cpu1.cpu - cpu0.cpu) - (own1 - own0)) / span,
            "loop_lag": lag.between(t0, t1), "gc": lag.gc_between(t0, t1)}


async def real_bot(size: int, opts: Options, lag: LoopLag) -> dict[str, Any]:
    out: dict[str, Any] = {}
    workdir = opts.workdir / f"bot-{size}"
    workdir.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    async with open_backend(opts.backend, workdir, opts.pg_url) as store, \
            LoadEmulator() as emu:
        # Channels and people before the bot connects: one GUILD_CREATE instead of
        # thousands of events.
        channels = [emu.add_channel(emu.guild, f"table-{i}") for i in range(size)]
        people = [(emu.user(f"host{i}"), emu.user(f"guest{i}")) for i in range(size)]
        world = time.perf_counter() - began
        bot = BotProcess(emu, workdir, **bot_env(opts.render_workers, store))
        t = time.perf_counter()
        await bot.start(timeout=120)
        assert bot.proc is not None
        pid = bot.proc.pid
        connect = time.perf_counter() - t
        await quiet(pid)
        base = sample_tree(pid)
        say(f"{size} tables: bot up in {connect:.1f} s ({base.processes} processes, "
            f"{base.rss / 2**20:.0f} MB); opening the tables")
        tables = [Table(emu, store.probe, ch, h, g, random.Random(opts.seed * 1_000_003 + i))
                  for i, (ch, (h, g)) in enumerate(zip(channels, people, strict=True))]
        gate = asyncio.Semaphore(opts.setup_concurrency)
        opened = 0
        tenth: list[tuple[int, int]] = []  # (tables open, RSS) after the first tenth

        async def open_table(i: int, table: Table) -> bool:
            nonlocal opened
            async with gate:
                ok = await table.lobby(seed=opts.seed * 1_000_003 + i)
            opened += 1
            if opened == max(1, size // 10):
                tenth.append((opened, sample_tree(pid).rss))
            if opened % max(1, size // 10) == 0:
                say(f"  {opened}/{size} tables open ({time.perf_counter() - t_setup:.0f} s)")
            return ok

        t_setup = time.perf_counter()
        ok = await asyncio.gather(*(open_table(i, tb) for i, tb in enumerate(tables)))
        setup = time.perf_counter() - t_setup
        await quiet(pid, timeout=10)
        freeze_garbage()
        loaded = sample_tree(pid)
        lobby = merged(tables).slash
        out["setup"] = {
            "tables": size, "opened": sum(ok), "world_s": world, "connect_s": connect,
            "setup_s": setup, "tables_per_s": size / setup,
            "rss_before": base.rss, "rss_loaded": loaded.rss,
            "rss_per_table": (loaded.rss - base.rss) / size, "processes": loaded.processes,
            # The first tables pay one-time costs (a worker's fonts and caches on its first
            # picture): the slope over the other nine tenths is the cost of one more table.
            "rss_per_table_marginal": ((loaded.rss - tenth[0][1]) / (size - tenth[0][0])
                                       if tenth and size > tenth[0][0] else float("nan")),
            "lobby_slash": first_responses(lobby)}
        say(f"  set-up {setup:.1f} s ({size / setup:.1f} tables/s), "
            f"{(loaded.rss - base.rss) / size / 2**10:.0f} KiB/table")
        rng = random.Random(opts.seed)
        for mode in opts.modes:
            for tb in tables:
                tb.rec = Record()
            say(f"  {mode} loop, {opts.window[mode]:.0f} s window")
            emu.trim_history()
            freeze_garbage()
            errors0, logs0 = len(emu.api_errors), bot.log().count("Traceback (most recent")
            stop = asyncio.Event()
            drivers: list[Awaitable[None]]
            if mode == "closed":
                drivers, ramp = [tb.play_closed(stop) for tb in tables], opts.ramp
            else:
                first = time.perf_counter() + 0.2
                drivers = [tb.play_open(stop, first + rng.uniform(0, opts.interval),
                                        opts.interval) for tb in tables]
                ramp = 0.2
            m = await measure_window(mode, opts, pid, store.probe, lag, tables, stop, drivers,
                                     ramp)
            rec = merged(tables)
            t0, t1 = m.pop("t0"), m.pop("t1")
            clicks = in_window(rec.clicks, t0, t1)
            slash = in_window(rec.slash, t0, t1)
            m["clicks"] = first_responses(clicks)
            m["menu_clicks"] = first_responses(
                [i for i in clicks if rec.kinds.get(i.id) == "menu"])
            m["move_clicks"] = first_responses(
                [i for i in clicks if rec.kinds.get(i.id) == "move"])
            m["outcomes"] = {k: sum(1 for i in clicks if rec.kinds.get(i.id, "?") == k)
                             for k in ("menu", "move", "refused", "failed", "lost", "?")}
            m["pictures"] = figures([lat for at, lat in rec.pictures if t0 <= at < t1])
            mid = (t0 + t1) / 2
            m["pictures_first_half"] = figures([lat for at, lat in rec.pictures
                                                if t0 <= at < mid])
            m["pictures_second_half"] = figures([lat for at, lat in rec.pictures
                                                 if mid <= at < t1])
            m["menus"] = figures([lat for at, lat in rec.menus if t0 <= at < t1])
            m["lobby_slash"] = first_responses(slash)
            m["interactions_per_s"] = (len(clicks) + len(slash)) / (t1 - t0)
            m["slash_share"] = len(slash) / max(1, len(clicks) + len(slash))
            m["rss_per_table"] = (loaded.rss - base.rss) / size
            m["rss_total_loaded"] = loaded.rss
            m["rss_before"] = base.rss
            m["stuck"] = rec.stuck
            m["api_errors"] = len(emu.api_errors) - errors0
            m["tracebacks"] = bot.log().count("Traceback (most recent") - logs0
            if mode == "open":
                m["ticks"] = sum(1 for x in rec.ticks if t0 <= x < t1)
                m["late_ticks"] = sum(1 for x in rec.late_ticks if t0 <= x < t1)
                m["skipped_ticks"] = rec.skipped_ticks
            out[mode] = m
            say(f"  {mode}: {m['moves_per_s']:.1f} moves/s, click p99 "
                f"{1000 * m['clicks']['p99']:.0f} ms, failed {m['clicks']['failed']}")
        out["unknown_routes"] = sorted(set(emu.unknown_routes))[:5]
        await quiet(pid, timeout=60)  # SIGTERM in the middle of deliveries logs their failures
        before_stop = len(bot.log())
        await bot.stop()
        out["log_problems"] = log_problems(bot.log()[:before_stop])
        out["shutdown_problems"] = log_problems(bot.log()[before_stop:])
    return out


def log_problems(log: str) -> dict[str, Any]:
    """Tracebacks in the bot's log: how many, and the distinct last lines."""
    lines = log.splitlines()
    last: dict[str, int] = {}
    for i, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            j = i + 1
            while j < len(lines) and (lines[j].startswith((" ", "\t")) or not lines[j]):
                j += 1
            tail = lines[j] if j < len(lines) else "?"
            last[tail[:200]] = last.get(tail[:200], 0) + 1
    errors = sum(1 for line in lines if " ERROR " in line)
    return {"tracebacks": sum(last.values()), "errors": errors, "kinds": last}


# ---- the minimal bot ----------------------------------------------------------------------


class MinimalProcess(BotProcess):
    """bench/minimal_bot.py as a subprocess, started like BotProcess starts the bot."""

    async def start(self, *, sync: bool = True, timeout: float = 30.0) -> None:
        log = self.log_path.open("ab")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.minimal_bot", cwd=ROOT, env=self.env, stdout=log,
            stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL)
        log.close()
        try:
            await self.emu.wait_for(lambda: (self.emu.ready and self.emu.commands())
                                    or self._died(), timeout, "the minimal bot to connect")
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n{self.log()[-4000:]}") from None
        if self._died():
            raise AssertionError(f"the minimal bot exited:\n{self.log()}")


async def minimal_phase(mode: str, people: Sequence[tuple[Person, Person]],
                        channels: Sequence[Channel], messages: Sequence[Message],
                        rate: float, share: float, window: float, ramp: float, pid: int,
                        lag: LoopLag, rng: random.Random) -> dict[str, Any]:
    size = len(channels)
    period = size / rate  # seconds between two interactions of one table
    made: list[Interaction] = []

    async def act(i: int, n: int) -> Interaction:
        person = people[i][n % 2]
        if rng.random() < share:
            inter = await person.slash("/ping", channel=channels[i], wait=False)
        else:
            inter = await person.click(messages[i], custom_id="min:go", wait=False)
        made.append(inter)
        return inter

    async def closed(i: int, stop: asyncio.Event, tick: float) -> None:
        n = 0
        while await sleep_until(tick, stop):
            inter = await act(i, n)
            n += 1
            await inter.responded.wait()
            tick = max(tick + period, time.perf_counter())

    async def open_(i: int, stop: asyncio.Event, tick: float) -> None:
        n = 0
        while await sleep_until(tick, stop):
            await act(i, n)
            n += 1
            tick += period

    stop = asyncio.Event()
    first = time.perf_counter() + 0.2
    play = closed if mode == "closed" else open_
    tasks = [asyncio.ensure_future(play(i, stop, first + rng.uniform(0, period)))
             for i in range(size)]
    await asyncio.sleep(ramp)
    t0, load0, cpu0, own0 = time.perf_counter(), os.getloadavg()[0], sample_tree(pid), own_cpu()
    busy0 = machine_busy()
    await asyncio.sleep(window)
    t1, load1, cpu1, own1 = time.perf_counter(), os.getloadavg()[0], sample_tree(pid), own_cpu()
    busy1 = machine_busy()
    stop.set()
    _done, pending = await asyncio.wait(tasks, timeout=DRAIN)
    for task in pending:
        task.cancel()
    await asyncio.sleep(LATE + 0.2)  # the last clicks' answers (or failures)
    inters = in_window(made, t0, t1)
    span = t1 - t0
    return {"responses": first_responses(inters), "interactions_per_s": len(inters) / span,
            "load1_start": load0, "load1_end": load1, "bot_cores": (cpu1.cpu - cpu0.cpu) / span,
            "driver_cores": (own1 - own0) / span, "loop_lag": lag.between(t0, t1),
            "gc": lag.gc_between(t0, t1),
            "others_cores": (busy1 - busy0 - (cpu1.cpu - cpu0.cpu) - (own1 - own0)) / span}


async def minimal_bot(size: int, opts: Options, real: dict[str, Any],
                      lag: LoopLag) -> dict[str, Any]:
    out: dict[str, Any] = {}
    workdir = opts.workdir / f"minimal-{size}"
    workdir.mkdir(parents=True, exist_ok=True)
    button = [{"type": 1, "components": [
        {"type": 2, "style": 1, "label": "Go", "custom_id": "min:go"}]}]
    async with LoadEmulator() as emu:
        channels = [emu.add_channel(emu.guild, f"table-{i}") for i in range(size)]
        people = [(emu.user(f"host{i}"), emu.user(f"guest{i}")) for i in range(size)]
        # As if the bot had posted one button per channel (emulator.inject_message): the
        # minimal bot acknowledges any component click, whatever message it is on.
        messages = [emu.inject_message(ch, "Click me", components=button) for ch in channels]
        bot = MinimalProcess(emu, workdir)
        await bot.start(timeout=120)
        assert bot.proc is not None
        pid = bot.proc.pid
        await quiet(pid)
        rng = random.Random(opts.seed + 7)
        for mode in opts.modes:
            rate = real.get(mode, {}).get("interactions_per_s", 0.0)
            if rate <= 0:
                continue
            say(f"  minimal bot, {mode} loop at {rate:.1f} interactions/s")
            emu.trim_history()
            freeze_garbage()
            out[mode] = await minimal_phase(mode, people, channels, messages, rate,
                                            real[mode]["slash_share"], opts.window[mode],
                                            opts.ramp if mode == "closed" else 0.2, pid, lag,
                                            rng)
        await bot.stop()
        out["log_problems"] = log_problems(bot.log())
    return out


# ---- printing -----------------------------------------------------------------------------


def report(size: int, real: dict[str, Any], minimal: dict[str, Any], opts: Options) -> None:
    s = real["setup"]
    print(f"\n=== {size} Fairy Tale Inn tables, {opts.backend} ===")
    print(f"set-up: {s['opened']}/{size} tables opened, joined and started in "
          f"{s['setup_s']:.1f} s ({s['tables_per_s']:.1f} tables/s, "
          f"{opts.setup_concurrency} at a time); channels+people {s['world_s']:.1f} s, "
          f"bot connect {s['connect_s']:.1f} s")
    print(response_line("lobby slash commands", s["lobby_slash"]))
    print(f"memory: {s['rss_per_table'] / 2**10:.1f} KiB/table "
          f"({s['rss_per_table_marginal'] / 2**10:.1f} KiB for each table after the first "
          f"tenth); bot+children RSS "
          f"{s['rss_before'] / 2**20:.0f} MB before any table, {s['rss_loaded'] / 2**20:.0f} MB "
          f"with {size} tables ({s['processes']} processes)")
    for mode in opts.modes:
        m = real.get(mode)
        if m is None:
            continue
        if mode == "closed":
            how = f"{opts.window[mode]:.0f} s window after a {opts.ramp:.0f} s ramp"
        else:
            how = (f"{opts.window[mode]:.0f} s window, one decision per table every "
                   f"{opts.interval:.0f} s = {size / opts.interval:.1f}/s")
        print(f"--- {size} tables, {mode} loop ({how}) ---")
        print(response_line("first response, clicks", m["clicks"]))
        print(response_line("  that opened a menu", m["menu_clicks"]))
        print(response_line("  that played a move", m["move_clicks"]))
        o = m["outcomes"]
        print(f"  clicks came to: {o['menu']} menus, {o['move']} moves, {o['refused']} refused, "
              f"{o['failed']} failed, {o['lost']} lost (no menu within "
              f"{PATIENCE:.0f} s), "
              f"{o['?']} unfinished")
        print(ms_line("slot click -> menu shown", m["menus"]))
        print(ms_line("click -> next picture", m["pictures"]))
        print(f"    (p50 {1000 * m['pictures_first_half']['p50']:.0f} ms for moves in the first "
              f"half of the window, {1000 * m['pictures_second_half']['p50']:.0f} ms in the "
              f"second: a growing backlog if it rises)")
        print(f"  moves/s {m['moves_per_s']:.2f} ({m['moves']} committed in "
              f"{m['window']:.1f} s); interactions/s {m['interactions_per_s']:.1f}")
        print(f"  CPU per move {1000 * m['cpu_per_move_s']:.1f} ms (bot "
              f"{m['cpu_bot_s']:.1f} s + render workers {m['cpu_workers_s']:.1f} s = "
              f"{m['bot_cores']:.2f} cores); {1000 * m['cpu_per_move_phase_s']:.1f} ms "
              f"over the whole phase, idle to idle")
        print(f"  memory {m['rss_per_table'] / 2**10:.1f} KiB/table "
              f"({m['rss_total_loaded'] / 2**20:.0f} MB loaded, {m['rss_end'] / 2**20:.0f} MB "
              f"at the end of the window)")
        print(f"  load average (1 min) {m['load1_start']:.2f} -> {m['load1_end']:.2f}; "
              f"other processes of the machine used {m['others_cores']:.2f} cores")
        print(response_line("lobby slash commands", m["lobby_slash"]))
        if mode == "open":
            print(f"  ticks {m['ticks']}, late (previous picture not there yet) "
                  f"{m['late_ticks']}, skipped {m['skipped_ticks']}")
        lag = m["loop_lag"]
        print(f"  emulator+people {m['driver_cores']:.2f} cores, its loop late p99 "
              f"{1000 * lag['p99']:.0f} ms max {1000 * lag['max']:.0f} ms (garbage "
              f"collection {1000 * m['gc']['total']:.0f} ms in all, longest "
              f"{1000 * m['gc']['max']:.0f} ms); stuck tables "
              f"{m['stuck']}, refused requests {m['api_errors']}, bot tracebacks "
              f"{m['tracebacks']}")
        mm = minimal.get(mode)
        if mm is not None:
            r = mm["responses"]
            print(response_line("minimal bot, first resp.", r))
            ratio = m["clicks"]["p99"] / r["p99"] if r["p99"] == r["p99"] and r["p99"] else None
            m["p99_ratio"] = ratio
            print(f"  minimal bot at {mm['interactions_per_s']:.1f} interactions/s, "
                  f"{mm['bot_cores']:.2f} cores, emulator+people {mm['driver_cores']:.2f} "
                  f"cores, others {mm['others_cores']:.2f} cores, load "
                  f"{mm['load1_start']:.2f} -> {mm['load1_end']:.2f}; bot p99 / minimal p99 = "
                  f"{'-' if ratio is None else f'{ratio:.1f}'}")
    for key, when in (("log_problems", "while running"), ("shutdown_problems", "at SIGTERM")):
        problems = real[key]
        if problems["tracebacks"] or problems["errors"]:
            print(f"bot log {when}: {problems['tracebacks']} tracebacks, {problems['errors']} "
                  f"ERROR lines; " + "; ".join(f"{n}x {k}" for k, n in problems["kinds"].items()))
    sys.stdout.flush()


def clean(value: Any) -> Any:
    """JSON without NaN (null instead)."""
    if isinstance(value, float):
        return None if value != value else round(value, 6)
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    return value


async def run(opts: Options) -> dict[str, Any]:
    lag = LoopLag()
    lag.start()
    results: dict[str, Any] = {}
    try:
        for size in opts.sizes:
            t = time.perf_counter()
            real = await real_bot(size, opts, lag)
            minimal = await minimal_bot(size, opts, real, lag)
            report(size, real, minimal, opts)
            results[str(size)] = {"bot": real, "minimal": minimal,
                                  "elapsed_s": time.perf_counter() - t}
            say(f"{size} tables done in {time.perf_counter() - t:.0f} s")
    finally:
        lag.stop()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=GAME, help="only fairy-tale-inn is implemented")
    parser.add_argument("--sizes", default="10,100,1000", help="tables per run (10,100,1000)")
    parser.add_argument("--modes", default="closed,open", help="closed,open")
    parser.add_argument("--window", type=float, default=None,
                        help="seconds measured per mode (default 60 closed, 2 intervals open)")
    parser.add_argument("--interval", type=float, default=20.0,
                        help="open loop: seconds between two decisions of a table (20)")
    parser.add_argument("--render-workers", default=None,
                        help="RENDER_WORKERS for the bot process (default: unset)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--setup-concurrency", type=int, default=16,
                        help="tables opened at once in the warm-up (16)")
    parser.add_argument("--ramp", type=float, default=RAMP,
                        help="closed loop: seconds played before the window (5); at 1,000 "
                             "tables the queue of pictures takes about a minute to settle")
    parser.add_argument("--keep", type=Path, default=None,
                        help="keep the SQLite files and logs in this directory")
    parser.add_argument("--backend", choices=BACKENDS, default="sqlite",
                        help="the bot's store (sqlite; postgres makes a private database "
                             "on --pg-url's server and drops it after)")
    parser.add_argument("--pg-url", default=PG_ADMIN_URL,
                        help="PostgreSQL server to make the private database on "
                             "(BENCH_PG_URL, default postgresql://postgres@127.0.0.1:5432/test)")
    args = parser.parse_args(argv)
    if args.game != GAME:
        parser.error("only --game fairy-tale-inn is implemented")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not set(modes) <= {"closed", "open"}:
        parser.error("--modes takes closed and/or open")
    window = {"closed": args.window or 60.0, "open": args.window or 2 * args.interval}
    logging.getLogger("emulator").setLevel(logging.ERROR)  # refusals are counted instead
    started = time.perf_counter()
    with contextlib.ExitStack() as stack:
        workdir = args.keep or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="fabletop-load-")))
        opts = Options([int(s) for s in args.sizes.split(",")], modes, window, args.interval,
                       args.seed, args.render_workers, args.setup_concurrency, workdir,
                       args.ramp, args.backend, args.pg_url)
        results = asyncio.run(run(opts))
    total = time.perf_counter() - started
    print(f"\ntotal {total:.0f} s")
    print(json.dumps(clean({"bench": "load", "game": GAME, "backend": args.backend,
                            "modes": modes, "window": window,
                            "interval": args.interval, "render_workers": args.render_workers,
                            "seed": args.seed, "cpus": os.cpu_count(), "total_s": total,
                            "sizes": results}), separators=(",", ":")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
