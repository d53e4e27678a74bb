"""Playing through Discord as people do: read the channel, click what is offered.

Game-independent helpers (who is asked to act, the table row in the bot's SQLite file)
and the Fairy Tale Inn turn: click a Guest List slot on the public turn message, then a
column in the private menu the bot answers with (or the Rat / extra-turn buttons).
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.harness import latest_with_buttons
from tests.emulator import Channel, Emulator, Interaction, Message, Person

MENTION = re.compile(r"<@!?(\d+)>")


@dataclass
class TableRow:
    id: str
    channel_id: int
    game_id: str
    status: str
    version: int
    seed: int
    options: dict[str, Any]
    seats: list[dict[str, Any]]
    state: str | None

    @property
    def finished(self) -> bool:
        return self.status in ("finished", "aborted")


def table_row(db: Path, channel_id: int) -> TableRow | None:
    """The newest table of a channel, read straight from the bot's SQLite file."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        row = conn.execute(
            "SELECT id, channel_id, game_id, status, version, seed, options, seats, state "
            "FROM tables WHERE channel_id = ? ORDER BY created_at DESC LIMIT 1",
            (channel_id,),
        ).fetchone()
        if row is None:
            return None
        journal = conn.execute(
            "SELECT n, data FROM journal WHERE table_id = ? ORDER BY n, version", (row[0],)
        ).fetchall()
    return TableRow(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        json.loads(row[6]),
        json.loads(row[7]),
        _whole_state(row[2], row[8], journal),
    )


def _whole_state(game_id: str, body: str | None, journal: list[tuple[int, str]]) -> str | None:
    """The whole state JSON of a stored row: its body with its journal put back (the
    newest row of each entry), as the bot itself loads it."""
    from engines import get_game

    game = get_game(game_id)
    if body is None or not game.journaled:
        return body
    newest = dict(journal)  # rows come ordered by (n, version): the last one wins
    return game.dump_state(game.load_stored(body, [newest[n] for n in sorted(newest)]))


def actions(db: Path, table_id: str) -> list[tuple[int, int, str]]:
    """(version, seat, action JSON) of every committed move, in order."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as conn:
        return conn.execute(
            "SELECT version, seat, action FROM actions WHERE table_id = ? ORDER BY version",
            (table_id,),
        ).fetchall()


def person_to_act(emu: Emulator, message: Message) -> Person | None:
    """The person a turn message pings ("<@id>: it's your turn")."""
    ids = [int(m) for m in MENTION.findall(message.content)]
    for uid in reversed(ids):
        user = emu.users.get(uid)
        if user is not None and not user.bot:
            return Person(emu, user)
    return None


async def fti_turn(
    emu: Emulator, channel: Channel, rng: random.Random, prompt: Message | None = None
) -> list[Interaction]:
    """Play one Fairy Tale Inn decision for whoever the newest turn message asks."""
    prompt = prompt or latest_with_buttons(emu, channel.id)
    assert prompt is not None, "no turn message with buttons in the channel"
    actor = person_to_act(emu, prompt)
    assert actor is not None, f"nobody is asked to act in {prompt.content!r}"
    enabled = [b for b in prompt.buttons if not b.disabled]
    first = await actor.click(prompt, custom_id=rng.choice(enabled).custom_id, settle=False)
    done = [first]
    menu = await emu.answer(first)
    if menu is not None and menu.ephemeral and any(not b.disabled for b in menu.buttons):
        column = rng.choice([b for b in menu.buttons if not b.disabled])
        done.append(await actor.click(menu, custom_id=column.custom_id, settle=False))
    return done


def prompt_version(message: Message) -> int:
    """The table version a turn message's buttons carry (-1 if none)."""
    versions = [int(c.split(":")[2]) for c in message.custom_ids
                if c.startswith(("ft:", "fs:")) and ":lobby." not in c]
    return max(versions, default=-1)


async def wait_next_prompt(
    emu: Emulator, db: Path, channel: Channel, after: int | Message, timeout: float = 20.0,
    *, after_version: int | None = None,
) -> Message | None:
    """Wait for the next turn: a turn message newer than ``after`` (a message, or a
    message id), or the same message edited with the buttons of a newer version (the
    steps of one turn share one message), or for the game to end (returns None)."""
    after_id = after if isinstance(after, int) else after.id
    if after_version is None:
        after_version = -1 if isinstance(after, int) else prompt_version(after)

    def ready() -> Any:
        row = table_row(db, channel.id)
        if row is not None and row.finished:
            return "over"
        msg = latest_with_buttons(emu, channel.id)
        if msg is None:
            return None
        if msg.id > after_id or (msg.id == after_id and prompt_version(msg) > after_version):
            return msg
        return None

    found = await emu.wait_for(ready, timeout, "the next turn message or the end")
    if found == "over":
        # The move is committed before the bot announces it (rendering the last board takes
        # a moment): wait for the bot to go properly quiet.
        await emu.settle(quiet=0.6)
        return None
    return found


@dataclass
class Played:
    decisions: int
    prompt: Message | None  # the next turn message, None once the game is over


async def play_fti(
    emu: Emulator,
    db: Path,
    channel: Channel,
    rng: random.Random,
    *,
    max_decisions: int = 400,
    stop_after: int | None = None,
    prompt: Message | None = None,
) -> Played:
    """Play until the game ends (or ``stop_after`` decisions). Every decision is followed
    by waiting for its announcement (the next turn message, or the end of the game), so
    the channel is complete when this returns."""
    made = 0
    if prompt is None:
        prompt = await wait_next_prompt(emu, db, channel, 0)
    while prompt is not None and made < max_decisions and (stop_after is None or made < stop_after):
        seen = (prompt.id, prompt_version(prompt))
        await fti_turn(emu, channel, rng, prompt)
        made += 1
        prompt = await wait_next_prompt(emu, db, channel, seen[0], after_version=seen[1])
    return Played(made, prompt)


def set_table_seed(db: Path, channel_id: int, seed: int) -> None:
    """Fix the lobby's random seed before ``/table start`` (the bot re-reads its table row
    before every change, as it does for writes by another process), so a run repeats."""
    row = table_row(db, channel_id)
    assert row is not None and row.status == "lobby"
    with sqlite3.connect(db, timeout=10) as conn:
        conn.execute("UPDATE tables SET seed = ? WHERE id = ?", (seed, row.id))


def shortest_path(ui: Any, msg: Message, view: Any, legal: list[Any], target: Any
                  ) -> list[str] | None:
    """The fewest codes to click from ``msg`` (and the follow-up menus the bot would
    answer with, worked out by the game's adapter ``ui``) to play ``target``."""
    start = []
    for b in msg.buttons:
        if b.custom_id and not b.disabled:
            start.append(b.custom_id.rsplit(":", 1)[1])
    for s in msg.selects:
        start.extend(s.values)
    frontier: list[list[str]] = [[code] for code in start]
    seen: set[str] = set()
    while frontier:
        path = frontier.pop(0)
        code = path[-1]
        if code in seen or code == ui.turn_code:
            continue
        seen.add(code)
        res = ui.resolve(code, view, legal)
        if res.action is not None:
            if res.action == target:
                return path
            continue
        assert res.menu is not None
        frontier += [[*path, c.code] for c in (*res.menu.choices, *res.menu.buttons)
                     if not c.disabled]
    return None


async def click_code(person: Person, msg: Message, code: str) -> Any:
    for b in msg.buttons:
        if b.custom_id and b.custom_id.rsplit(":", 1)[1] == code:
            return await person.click(msg, custom_id=b.custom_id, settle=False)
    for s in msg.selects:
        if code in s.values:
            return await person.select(msg, code, custom_id=s.custom_id, settle=False)
    raise AssertionError(f"{code} is not on {msg!r}")
