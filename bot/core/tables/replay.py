"""A finished game's story as the public saw it: the data of a replay (no Discord, no
pictures).

A table is rebuilt from its seed, options and action log (the engines are deterministic)
and read at every version through the PUBLIC view only (``game.view(state, None)``), so
a replay can show nothing a spectator could not have seen at that moment. Each step gets
a label from the step's public events, never a private one ("Move 12 of 80: Ann takes
the Princess."); a step taken out of turn (a ruling, a safety tool: the game's
``meta_actions``) keeps its events out of the label, as the channel never ties such a
step to a seat.

A replay is of the board: a step that leaves the board as it was (the view fields the
game's declaration names, ``GameSpec.board_fields``; Winter Tales: a passage told is
news, not a board) makes no picture, exactly as it made no new board picture in the
channel. So the storybook stays the story.

>>> from engines import get_game
>>> game = get_game("pocket")
>>> state = game.setup(1, game.Options(), seed=4)
>>> log = []
>>> while not game.is_over(state):
...     seat = game.to_act(state)[0]
...     action = game.legal_actions(state, seat)[0]
...     _ = game.apply(state, seat, action)
...     log.append(ActionRecord("t1", len(log) + 1, seat, None, game.dump_action(action)))
>>> rec = TableRecord(id="t1", channel_id=5, guild_id=None, game_id="pocket", options={},
...                   seed=4, status="finished", host_id=1, seats=[{"index": 0,
...                   "name": "Ann", "user_id": 1}], version=len(log),
...                   state=game.dump_state(state))
>>> replay = replay_table(rec, log)
>>> replay.moves == len(log), replay.steps[0].version, replay.steps[-1].version == len(log)
(True, 0, True)
>>> replay.steps[0].label
'The start: Ann'
>>> [s.version for s in replay.frames(3)] == [0, replay.steps[len(replay.steps) // 2].version,
...                                            len(log)]
True
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.core.store import ActionRecord, Store, TableRecord
from bot.core.tables.errors import NoTable, TableError
from bot.core.tables.models import TableStatus
from bot.core.tables.texts import join_names, outcome_text, quote, said_in
from engines import get_game
from engines.catalog import spec
from engines.core import Event, Game, GameError, Seat, View

__all__ = [
    "LABEL_LIMIT",
    "NoFinishedGame",
    "NotThatGame",
    "ReplayTooShort",
    "ReplayUnavailable",
    "Step",
    "TableReplay",
    "finished_table",
    "replay_table",
    "require_finished",
    "spread",
]

log = logging.getLogger(__name__)

LABEL_LIMIT = 300
"""Characters of events a label keeps (a caption shows two lines of it anyway)."""

_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,40}")


# --------------------------------------------------------------------------- errors


class NoFinishedGame(NoTable):
    """No finished game to replay: the channel's last table is in its lobby, still
    playing or was closed before its end (or there never was one)."""

    default_message = "There is no finished game in this channel to replay."


class NotThatGame(TableError):
    """The game asked for is not one this channel can replay (another game's name, a
    table of another channel, or no table at all)."""

    default_message = "This channel has no finished game by that name."


class ReplayTooShort(TableError):
    """The game ended before anything happened on its board: there is nothing to play."""

    default_message = "That game ended before its board changed: there is nothing to replay."


class ReplayUnavailable(TableError):
    """The action log no longer replays to the stored game (its rules changed since it
    was played), so a replay would show a game that never happened."""

    default_message = (
        "That game was played under an older version of its rules, so it cannot be "
        "replayed."
    )


# --------------------------------------------------------------------------- the story


@dataclass(frozen=True)
class Step:
    """The board after one version of a table: 0 is the setup, ``n`` the ``n``-th move."""

    version: int
    label: str
    view: View
    """The PUBLIC view at that version (what the channel's board was drawn from)."""


@dataclass(frozen=True)
class TableReplay:
    """A finished table, step by step: one :class:`Step` per change of the board (the
    setup first, the final board last)."""

    table_id: str
    game_id: str
    game_name: str
    names: tuple[str, ...]
    """The seats' names, by seat number (the board draws them)."""
    moves: int
    result: str | None
    """The result as the channel was told it ("Game over. Ann wins! ..."), if any."""
    steps: tuple[Step, ...]

    def frames(self, max_frames: int) -> list[Step]:
        """At most ``max_frames`` steps: the first, the last and an even spread of the
        moves between (all of them when they fit)."""
        return [self.steps[i] for i in spread(len(self.steps), max_frames)]


def spread(n: int, k: int) -> list[int]:
    """``min(n, k)`` indices of ``range(n)``: the first, the last and an even spread
    between them (in order, no repeats; ``k == 1`` keeps the last).

    >>> spread(10, 4), spread(3, 10), spread(5, 1), spread(0, 3)
    ([0, 3, 6, 9], [0, 1, 2], [4], [])
    """
    if n <= 0 or k <= 0:
        return []
    if k >= n:
        return list(range(n))
    if k == 1:
        return [n - 1]
    return [round(i * (n - 1) / (k - 1)) for i in range(k)]


def _names(rec: TableRecord) -> tuple[str, ...]:
    by_index = {int(s["index"]): str(s["name"]) for s in rec.seats}
    return tuple(by_index.get(i, f"Seat {i + 1}") for i in range(len(rec.seats)))


def _board_key(game_id: str, view: View) -> str:
    """What the board picture shows (the declared board fields of the view), as a
    digest: two steps with the same key draw the same board."""
    try:
        fields = spec(game_id).board_fields
    except KeyError:
        fields = None
    # only the board's fields: a long game's story would make every dump longer
    shown: Any = view.model_dump(mode="json", include=set(fields) if fields else None)
    return hashlib.sha256(json.dumps(shown, sort_keys=True, default=str).encode()).hexdigest()


def _label(version: int, moves: int, events: Sequence[Event], out_of_turn: bool,
           name: Any, result: str | None) -> str:
    """ "Move 12 of 80: <the step's public events>", the result first on the last step.
    Private events (``visible_to``) never; a step out of turn keeps its events out.

    >>> from engines.core import Event
    >>> seen, secret = Event(kind="took_gold"), Event(kind="drew_the_ace", visible_to=(1,))
    >>> _label(3, 9, [seen, secret], False, str, None)
    'Move 3 of 9: took gold'
    >>> _label(9, 9, [seen], True, str, "Game over. Ann wins!")
    'Move 9 of 9 (out of turn): Game over. Ann wins!'
    """
    head = f"Move {version} of {moves}" + (" (out of turn)" if out_of_turn else "")
    texts = [result] if result else []
    for event in () if out_of_turn else events:
        if event.visible_to is not None:
            continue
        text = " ".join(event.text(name).split())
        # the result says why the game ended: an event saying it too is noise
        if text and not (result and said_in(text, result)):
            texts.append(text)
    return f"{head}: {quote(' '.join(texts), LABEL_LIMIT)}" if texts else head


def replay_table(rec: TableRecord, actions: Sequence[ActionRecord],
                 journal: Sequence[str] = ()) -> TableReplay:
    """The public story of a stored table, from its record and action log (``journal``:
    the newest form of each entry of its stored journal, for a game that keeps one).

    CPU-bound (every move is applied again: a few hundred milliseconds for a long game),
    so the bot runs it in a thread. Raises :class:`ReplayUnavailable` when the log does
    not replay (or not to the stored state), :class:`ReplayTooShort` for a game without
    a move.
    """
    try:
        game: Game[Any, Any] = get_game(rec.game_id)
    except Exception as exc:
        raise ReplayUnavailable("That game is no longer available here.") from exc
    names = _names(rec)

    def name(seat: Seat) -> str:
        return names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"

    if not actions:
        raise ReplayTooShort()
    moves = len(actions)
    for expected, record in enumerate(actions, start=1):
        if record.version != expected:
            raise ReplayUnavailable("That game's record has a gap: it cannot be replayed.")
    result: str | None = None
    try:
        state = game.setup(len(rec.seats), game.parse_options(rec.options), rec.seed)
        steps = [Step(0, f"The start: {join_names(list(names))}", game.view(state, None))]
        last_key = _board_key(rec.game_id, steps[0].view)
        for record in actions:
            seat, action = record.seat, game.parse_action(record.action)
            out_of_turn = game.out_of_turn(state, seat, action)
            events = game.apply(state, seat, action)
            view = game.view(state, None)
            key = _board_key(rec.game_id, view)
            if record.version < moves:
                if key != last_key:  # a step that leaves the board as it was: no picture
                    steps.append(Step(record.version, _label(
                        record.version, moves, events, out_of_turn, name, None), view))
                    last_key = key
                continue
            result = outcome_text(game.outcome(state), name)
            if key == last_key:
                if len(steps) == 1:
                    raise ReplayTooShort()
                steps.pop()  # the final board is the one before: shown once, as the end
            steps.append(Step(record.version, _label(
                record.version, moves, events, out_of_turn, name, result), view))
    except GameError as exc:
        raise ReplayUnavailable() from exc
    if rec.state is not None and game.dump_state(state) != game.dump_state(
            game.load_stored(rec.state, journal)):
        # A game that never happened could show what the real one hid: no replay.
        log.warning("table %s does not replay to its stored state", rec.id)
        raise ReplayUnavailable()
    return TableReplay(
        table_id=rec.id, game_id=rec.game_id, game_name=game.name, names=names,
        moves=moves, result=result, steps=tuple(steps),
    )


def _game_name(game_id: str) -> str:
    try:
        return spec(game_id).name
    except KeyError:
        return game_id


# --------------------------------------------------------------------------- which table


def require_finished(rec: TableRecord, hint: str = "") -> None:
    """Raise :class:`NoFinishedGame` unless ``rec``'s game has ended with a result (a
    closed table's game never did)."""
    if rec.status == TableStatus.FINISHED.value:
        return
    if rec.status == TableStatus.ABORTED.value:
        why = f"Table {rec.id} was closed before its game ended: there is nothing to replay."
    else:
        why = f"The game of table {rec.id} is not over yet: it can be replayed once it ends."
    raise NoFinishedGame(f"{why} {hint}".strip())


def _game_matches(game_id: str, asked: str) -> bool:
    """Whether ``asked`` names ``game_id`` (its id or its name, in any case or spacing)."""
    def simple(text: str) -> str:
        return re.sub(r"[^a-z0-9]", "", text.lower())

    return simple(asked) in (simple(game_id), simple(_game_name(game_id)))


async def finished_table(store: Store, channel_id: int, game: str | None = None
                         ) -> TableRecord:
    """The finished table of ``channel_id`` to replay.

    ``game`` (what the person typed, optional): a table id as ``/table status`` shows
    it (any finished table of this channel), or a game's name or id (the channel's last
    table, which must be that game). Without it, the channel's last table.

    Raises :class:`NoFinishedGame` (the last table is not finished, or there is none;
    a table id of this channel whose game is not finished) and :class:`NotThatGame`
    (a table of another channel or no such table, or another game than the last one
    here). Both are :class:`~engines.core.UserError` s written for the person asking.
    """
    asked = " ".join((game or "").split())
    if asked and _TABLE_ID.fullmatch(asked):
        rec = await store.get_table(asked)
        # another channel's table is not for this one: answered as if it did not exist
        if rec is not None and rec.channel_id == channel_id:
            require_finished(rec)
            return rec
    last = await store.last_table_in_channel(channel_id)
    if last is None:
        raise NoFinishedGame()
    if asked and not _game_matches(last.game_id, asked):
        raise NotThatGame(f"There is no game '{quote(asked, 40)}' to replay in this channel: "
                          f"its last table (table {last.id}) played "
                          f"{_game_name(last.game_id)}.")
    require_finished(last, "An earlier game can be replayed by its table id.")
    return last
