"""How noisy is the channel? Whole games counted from the emulator's record of the channel.

A table's channel should read like a game log a person can follow: a new ping only when the
turn passes to someone else, one turn message edited as the steps of a turn happen, a board
picture only when the board changed (at most once per step a player sees), no repeated lines.

:func:`noise_report` counts, for one channel, what a person would have seen:

* ``messages``: channel messages the bot posted (lobby lines included);
* ``pictures``: of those, the ones carrying an image; ``picture_uploads`` also counts edits
  that upload a new image (a picture re-sent by editing is still a picture to look at);
  ``same_pictures``: uploads byte-identical to the channel's previous picture (the board
  did not change; reported, not asserted);
* ``pings``: user mentions that notify. Discord notifies a mentioned user only when the
  message is created (or a deferred "thinking..." answer is filled in), never on an edit,
  and only if the payload's ``allowed_mentions`` permits it. The emulator keeps neither the
  payload nor ``allowed_mentions`` (its messages always say ``"mentions": []``), so
  :func:`record_channel` wraps the emulator's message creation to keep them; without the
  recorder every ``<@id>`` in a message's first content counts;
* ``repeat_pings``: a ping to a user who was in the previous ping, when no other player
  was pinged or acted (interacted with the bot) in between;
* ``changes``: how often a human who was not asked to act is now asked, or is asked a new
  question after answering theirs (the mover still to act while the seats to act changed:
  a new draft round; the seats to act replayed from the bot's action log); ``first``:
  the humans asked at the start;
* ``repeated_line_messages``: messages in which some version says a line twice in a
  row, or says whose turn it is twice ("It is X's turn." twice). A step the game's log
  records twice with something between (two discards to move, each followed by the
  move) is news, not a repeat;
* ``edits`` / ``turn_edits``: edits of channel messages, and of the ones carrying game
  buttons (turn messages).

The target (asserted unless ``NOISE_REPORT_ONLY=1``): no repeat ping; at most one ping per
change of player (plus the first); at most decisions + 2 pictures; no repeated line.

    NOISE_REPORT_ONLY=1 pytest tests/e2e/test_channel_noise.py -s   # just the numbers
"""

from __future__ import annotations

import itertools
import os
import random
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import E2E
from tests.e2e.hidden import replay
from tests.e2e.play import actions, set_table_seed, table_row
from tests.emulator import Channel, Emulator, Message, Person
from tests.emulator.models import walk_components

pytestmark = pytest.mark.e2e

MENTION = re.compile(r"<@!?(\d+)>")
REPORT_ONLY = os.environ.get("NOISE_REPORT_ONLY", "") not in ("", "0")


# ---- recording what the emulator does not keep -------------------------------------------


@dataclass
class Ping:
    seq: int
    message_id: int
    channel_id: int
    users: frozenset[int]


@dataclass
class Recorder:
    """Pings (with ``allowed_mentions`` applied), actions and picture uploads, in order."""

    seq: Any = field(default_factory=itertools.count)
    pings: list[Ping] = field(default_factory=list)
    acts: list[tuple[int, int]] = field(default_factory=list)  # (seq, user id)
    uploads: dict[int, int] = field(default_factory=dict)  # message id -> image uploads
    mentions_in_edits: dict[int, int] = field(default_factory=dict)  # message id -> count
    pictures: list[tuple[int, int, bytes]] = field(default_factory=list)  # (chan, msg, image)


def notified(content: str, allowed: dict[str, Any] | None) -> frozenset[int]:
    """The users a new message with this content and ``allowed_mentions`` notifies."""
    mentioned = {int(m) for m in MENTION.findall(content or "")}
    if allowed is None:  # Discord's default: every mention in the content notifies
        return frozenset(mentioned)
    if "users" in (allowed.get("parse") or []):
        return frozenset(mentioned)
    return frozenset(mentioned & {int(u) for u in allowed.get("users") or []})


def _images(files: Sequence[tuple[str, bytes, str]]) -> list[bytes]:
    return [data for _name, data, _f in files if data.startswith((b"\x89PNG", b"\xff\xd8\xff"))]


def record_channel(emu: Emulator) -> Recorder:
    """Install (once) the recorder on ``emu``: call before the game starts."""
    existing = getattr(emu, "_noise_recorder", None)
    if existing is not None:
        return existing
    rec = Recorder()
    new_message, apply_edit, start_interaction = (
        emu._new_message, emu._apply_edit, emu.start_interaction)

    def _new_message(channel: Channel, payload: dict[str, Any], files: Any, **kw: Any) -> Message:
        msg = new_message(channel, payload, files, **kw)
        if not msg.ephemeral:
            if not msg.loading:
                users = notified(msg.content, payload.get("allowed_mentions"))
                if users:
                    rec.pings.append(Ping(next(rec.seq), msg.id, msg.channel_id, users))
            rec.uploads[msg.id] = len(images := _images(files))
            rec.pictures += [(msg.channel_id, msg.id, data) for data in images]
        return msg

    def _apply_edit(msg: Message, payload: dict[str, Any], files: Any, where: str) -> Message:
        was_loading = msg.loading
        before = set(MENTION.findall(msg.content))
        out = apply_edit(msg, payload, files, where)
        if not msg.ephemeral:
            if was_loading:  # the deferred answer filled in: this is when it is "sent"
                users = notified(msg.content, (payload or {}).get("allowed_mentions"))
                if users:
                    rec.pings.append(Ping(next(rec.seq), msg.id, msg.channel_id, users))
            else:
                added = set(MENTION.findall(msg.content)) - before
                rec.mentions_in_edits[msg.id] = rec.mentions_in_edits.get(msg.id, 0) + len(added)
            images = _images(files)
            rec.uploads[msg.id] = rec.uploads.get(msg.id, 0) + len(images)
            rec.pictures += [(msg.channel_id, msg.id, data) for data in images]
        return out

    def _start_interaction(user: Any, *args: Any, **kw: Any) -> Any:
        rec.acts.append((next(rec.seq), user.id))
        return start_interaction(user, *args, **kw)

    emu._new_message = _new_message  # type: ignore[method-assign]
    emu._apply_edit = _apply_edit  # type: ignore[method-assign]
    emu.start_interaction = _start_interaction  # type: ignore[method-assign]
    emu._noise_recorder = rec  # type: ignore[attr-defined]
    return rec


# ---- the report -----------------------------------------------------------------------------


@dataclass
class NoiseReport:
    game: str
    decisions: int
    messages: int
    pictures: int
    picture_uploads: int
    same_pictures: int
    pings: int
    repeat_pings: int
    changes: int
    first: int
    repeated_line_messages: int
    edits: int
    turn_edits: int
    mentions_in_edits: int
    seconds: float = 0.0
    examples: dict[str, list[str]] = field(default_factory=dict, repr=False)

    HEADER = (f"{'game':<16}{'decisions':>10}{'messages':>9}{'pictures':>9}{'uploads':>8}"
              f"{'same':>5}{'pings':>7}{'repeat':>7}{'changes':>8}{'rep.lines':>10}{'edits':>7}"
              f"{'turn ed.':>9}{'secs':>7}")

    def row(self) -> str:
        return (f"{self.game:<16}{self.decisions:>10}{self.messages:>9}{self.pictures:>9}"
                f"{self.picture_uploads:>8}{self.same_pictures:>5}{self.pings:>7}{self.repeat_pings:>7}"
                f"{self.changes:>8}{self.repeated_line_messages:>10}{self.edits:>7}"
                f"{self.turn_edits:>9}{self.seconds:>7.1f}")

    def __repr__(self) -> str:
        return (f"<NoiseReport {self.game}: {self.decisions} decisions, {self.messages} messages, "
                f"{self.pictures} pictures ({self.picture_uploads} uploads, {self.same_pictures} "
                f"the same as the one before), {self.pings} pings "
                f"({self.repeat_pings} repeats) for {self.changes} changes of player "
                f"(+{self.first} first), {self.repeated_line_messages} messages repeat a line, "
                f"{self.edits} edits ({self.turn_edits} of turn messages)>")

    def problems(self) -> list[str]:
        """What misses the target, in words (empty: the channel reads well)."""
        out = []
        if self.repeat_pings:
            out.append(f"{self.repeat_pings} repeat pings (e.g. {self.examples['repeat'][:2]})")
        if self.pings > self.changes + max(1, self.first):
            out.append(f"{self.pings} pings for {self.changes} changes of player "
                       f"+ {max(1, self.first)} first")
        if self.picture_uploads > self.decisions + 2:
            out.append(f"{self.picture_uploads} pictures for {self.decisions} decisions")
        if self.repeated_line_messages:
            out.append(f"{self.repeated_line_messages} messages repeat a line "
                       f"(e.g. {self.examples['repeated'][:2]})")
        return out


def _versions(msg: Message) -> list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]]:
    """(content, embeds, components) of every version of a message, oldest first."""
    old = [(h["content"], h["embeds"], h["components"]) for h in msg.history]
    return [*old, (msg.content, msg.embeds, msg.components)]


def _has_game_buttons(components: list[dict[str, Any]]) -> bool:
    return any("custom_id" in c and ":lobby." not in c["custom_id"]
               for c in walk_components(components))


def repeated_line(msg: Message) -> str | None:
    """A line that one version of the message (content, embed texts) says twice in a row,
    or a "whose turn" line it says twice."""
    for content, embeds, _components in _versions(msg):
        texts = [content] + [e.get("description") or "" for e in embeds]
        turn_lines: set[str] = set()
        for text in texts:
            previous = None
            for line in text.splitlines():
                line = line.strip()
                if not line:
                    continue
                if line == previous:
                    return line
                if line.startswith("It is ") and line.endswith(" turn."):
                    if line in turn_lines:
                        return line
                    turn_lines.add(line)
                previous = line
    return None


def _first_content(msg: Message) -> str:
    for content, _e, _c in _versions(msg):
        if content:
            return content
    return ""


def noise_report(
    emu: Emulator,
    channel: Channel,
    humans: Sequence[Person],
    *,
    db: Path | None = None,
    game: str = "",
    decisions: int = 0,
) -> NoiseReport:
    """Count the channel's noise (see the module docstring). ``db``: the bot's SQLite file,
    to replay the table and count changes of player (0 without it)."""
    ids = {p.id for p in humans}
    rec: Recorder | None = getattr(emu, "_noise_recorder", None)
    posted = [m for m in channel.messages if m.author.id == emu.bot.id and not m.ephemeral]
    examples: dict[str, list[str]] = {"repeat": [], "repeated": []}

    # Pings, in order, interleaved with the humans' actions.
    if rec is not None:
        events: list[tuple[int, str, frozenset[int]]] = [
            (p.seq, "ping", p.users & ids) for p in rec.pings if p.channel_id == channel.id]
        events += [(s, "act", frozenset({u})) for s, u in rec.acts if u in ids]
        events.sort(key=lambda e: e[0])
        uploads = sum(rec.uploads.get(m.id, 0) for m in posted)
        in_edits = sum(rec.mentions_in_edits.get(m.id, 0) for m in posted)
        shown = [data for cid, _mid, data in rec.pictures if cid == channel.id]
        same = sum(a == b for a, b in itertools.pairwise(shown))
    else:  # no recorder: every mention in a message's first content counts, no actions known
        events = [(m.id, "ping", frozenset(ids & set(map(int, MENTION.findall(_first_content(m))))))
                  for m in posted]
        uploads = sum(bool(m.images) for m in posted)
        in_edits = same = 0
    names = {p.id: p.name for p in humans}
    pings = repeats = 0
    last: frozenset[int] = frozenset()
    others_since: set[int] = set()  # humans who acted since the last ping
    for _seq, kind, users in events:
        if kind == "act":
            others_since |= users
            continue
        if not users:
            continue
        pings += len(users)
        for u in users:
            if u in last and not (others_since - {u}):
                repeats += 1
                if len(examples["repeat"]) < 5:
                    examples["repeat"].append(names[u])
        last, others_since = users, set()

    repeated = 0
    for m in posted:
        line = repeated_line(m)
        if line is not None:
            repeated += 1
            if len(examples["repeated"]) < 5:
                examples["repeated"].append(line)

    changes = first = 0
    if db is not None:
        rep = replay(db, channel.id)
        humans_at = {s["index"] for s in rep.row.seats if s.get("user_id") in ids}
        movers = {version: seat for version, seat, _a in actions(db, rep.row.id)}
        asked_before: set[int] | None = None
        seats_before: set[int] = set()
        for version, state in enumerate(rep.states):
            seats = set(rep.game.to_act(state))
            asked = seats & humans_at
            if asked_before is None:
                first = len(asked)
            else:
                new = asked - asked_before
                # A person who answered their ask and is asked a new question (a new
                # draft round: the seats to act changed) is asked anew; the steps of one
                # turn (the same seats still to act) are one ask.
                mover = movers.get(version)
                if mover in asked and seats != seats_before:
                    new.add(mover)
                changes += len(new)
            asked_before, seats_before = asked, seats

    return NoiseReport(
        game=game,
        decisions=decisions,
        messages=len(posted),
        pictures=sum(bool(m.images) for m in posted),
        picture_uploads=uploads,
        same_pictures=same,
        pings=pings,
        repeat_pings=repeats,
        changes=changes,
        first=first,
        repeated_line_messages=repeated,
        edits=sum(m.edits for m in posted),
        turn_edits=sum(m.edits for m in posted
                       if any(_has_game_buttons(c) for _t, _e, c in _versions(m))),
        mentions_in_edits=in_edits,
        examples=examples,
    )


# ---- playing ------------------------------------------------------------------------------


async def open_table(e2e: E2E, people: list[Person], game: str, seed: int,
                     options: str | None = None) -> None:
    emu, bot, _users = e2e
    kw: dict[str, Any] = {"options": {"options": options}} if options else {}
    opened = await people[0].slash("/table new", game=game, **kw)
    assert opened.reply is not None
    for p in people[1:]:
        await p.slash("/table join")
    set_table_seed(bot.db_path, emu.channel.id, seed)
    started = await people[0].slash("/table start")
    assert started.reply is not None and started.reply.ephemeral
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None and row.status == "playing" and row.seed == seed


def _to_act(db: Path, channel: Channel, people: list[Person]) -> tuple[Any, list[Person]]:
    from engines import get_game

    row = table_row(db, channel.id)
    assert row is not None
    if row.finished:
        return row, []
    game = get_game(row.game_id)
    seats = game.to_act(game.load_state(row.state))
    by_id = {p.id: p for p in people}
    return row, [by_id[s["user_id"]] for s in row.seats if s["index"] in seats]


async def _turn_message(emu: Emulator, channel: Channel, version: int) -> Message:
    """The public message offering this version's moves (new, or an older one edited)."""
    marker = f":{version}:"

    def ready() -> Message | None:
        for msg in reversed(channel.visible):
            ids = [b.custom_id for b in msg.buttons
                   if not b.disabled and b.custom_id and ":lobby." not in b.custom_id]
            ids += [s.custom_id for s in msg.selects]
            if ids and all(marker in c for c in ids):
                return msg
        return None

    return await emu.wait_for(ready, 20, f"the turn message of version {version}")


async def _wait_version(emu: Emulator, db: Path, channel: Channel, version: int) -> None:
    def moved() -> bool:
        row = table_row(db, channel.id)
        return row is not None and (row.version > version or row.finished)

    await emu.wait_for(moved, 20, f"a move after version {version}")


async def play_by_clicks(e2e: E2E, people: list[Person], rng: random.Random,
                         max_decisions: int) -> int:
    """Fairy Tale Inn and Save the Treasure: the player the table waits for clicks one of
    the turn message's buttons, then one of the private menu's (a column, a direction), as
    :func:`tests.e2e.play.fti_turn` and the Treasure test's ``treasure_turn`` do; the actor
    is read from the table (not from a mention) so a quieter channel plays the same."""
    emu, bot, _users = e2e
    made = 0
    while made < max_decisions:
        row, actors = _to_act(bot.db_path, emu.channel, people)
        if row.finished:
            break
        assert len(actors) == 1, f"{actors} are to act at once"
        prompt = await _turn_message(emu, emu.channel, row.version)
        enabled = [b for b in prompt.buttons if not b.disabled]
        first = await actors[0].click(prompt, custom_id=rng.choice(enabled).custom_id,
                                      settle=False)
        menu = await emu.answer(first)
        if menu is not None and menu.ephemeral and any(not b.disabled for b in menu.buttons):
            choice = rng.choice([b for b in menu.buttons if not b.disabled])
            await actors[0].click(menu, custom_id=choice.custom_id, settle=False)
        made += 1
        await _wait_version(emu, bot.db_path, emu.channel, row.version)
        await emu.settle(quiet=0.1)
    return made


async def play_winter(e2e: E2E, people: list[Person], rng: random.Random,
                      max_decisions: int) -> int:
    """Winter Tales through each player's DM hand message, as the Winter test plays
    (:func:`tests.e2e.test_winter_e2e.choose_and_play`), without its extra checks."""
    from tests.e2e.test_winter_e2e import Game, choose_and_play

    emu, bot, _users = e2e
    g = Game(emu, bot.db_path, people)
    made = 0
    while made < max_decisions:
        row = g.row()
        if row.finished:
            break
        to_act = _to_act(bot.db_path, emu.channel, people)[1]
        assert to_act, "a playing table always waits for someone"
        await choose_and_play(g, rng, row, rng.choice(to_act))
        made += 1
        await _wait_version(emu, bot.db_path, emu.channel, row.version)
        # The DM hand can carry the next choices before the channel hears of this move: let
        # the announcement arrive first, so pings and actions keep their order (repeatable).
        await emu.settle(quiet=0.1)
    return made


@dataclass(frozen=True)
class Case:
    game: str
    players: int
    table_seed: int
    choice_seed: int
    max_decisions: int
    play: Callable[[E2E, list[Person], random.Random, int], Awaitable[int]]
    options: str | None = None


CASES = [
    Case("fairy-tale-inn", 2, table_seed=1, choice_seed=1, max_decisions=200,
         play=play_by_clicks),
    Case("treasure", 2, table_seed=2, choice_seed=2, max_decisions=200, play=play_by_clicks),
    Case("winter-tales", 3, table_seed=3, choice_seed=1, max_decisions=120, play=play_winter,
         options="interrupt_timeout=120"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.game for c in CASES])
async def test_the_channel_reads_like_a_game_log(e2e: E2E, case: Case) -> None:
    emu, bot, users = e2e
    people = list(users[: case.players])
    record_channel(emu)
    started = time.perf_counter()
    await open_table(e2e, people, case.game, case.table_seed, case.options)
    decisions = await case.play(e2e, people, random.Random(case.choice_seed),
                                case.max_decisions)
    await emu.settle(quiet=0.8, timeout=20)
    report = noise_report(emu, emu.channel, people, db=bot.db_path, game=case.game,
                          decisions=decisions)
    report.seconds = time.perf_counter() - started
    row = table_row(bot.db_path, emu.channel.id)
    assert row is not None
    print(f"\n{NoiseReport.HEADER}\n{report.row()}\n"
          f"  {case.game}: table seed {case.table_seed}, choice seed {case.choice_seed}, "
          f"{case.players} people, status {row.status} at version {row.version}, "
          f"mentions added by edits {report.mentions_in_edits}, "
          f"examples {report.examples}")
    if REPORT_ONLY:
        return
    assert not report.problems(), f"{report!r}: " + "; ".join(report.problems())
