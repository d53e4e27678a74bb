"""Is every stored table the replay of its own action log?

A table row keeps the engine state as JSON next to an append-only action log, and the
state must always be exactly what the game's rules make of the log: ``setup`` from the
table's seed and options, then every action in version order. This module checks that,
for one table (:func:`replay_check`) or for a whole store (:func:`audit_store`), after a
move between databases (``fabletop export-db``/``import-db``), in crash tests, or
whenever a stored state is in doubt. It reads only; it needs no Discord and no database
driver (the store is whatever :class:`bot.core.store.Store` it is handed).

>>> from bot.core.store import ActionRecord, TableRecord
>>> from engines import get_game
>>> game = get_game("fairy-tale-inn")
>>> state = game.setup(2, game.parse_options({}), 7)
>>> seat = game.to_act(state)[0]
>>> action = game.legal_actions(state, seat)[0]
>>> _ = game.apply(state, seat, action)
>>> rec = TableRecord(id="t1", channel_id=1, guild_id=None, game_id="fairy-tale-inn",
...                   options={}, seed=7, status="playing", host_id=1,
...                   seats=[{}, {}], version=1, state=game.dump_state(state))
>>> log = [ActionRecord("t1", 1, seat, None, game.dump_action(action))]
>>> replay_check(rec, log) is None
True
>>> replay_check(rec, [])
'0 action(s) for version 1'
>>> rec.seed = 8
>>> replay_check(rec, log)  # doctest: +ELLIPSIS
'the stored state differs from the replay of its 1 action(s) (at ...)'
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engines import get_game

if TYPE_CHECKING:  # records and the interface only: this module opens nothing
    from bot.core.store import ActionRecord, EventRecord, JournalRecord, Store, TableRecord

__all__ = ["AuditReport", "Mismatch", "audit_store", "replay_check"]


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ, as ``players[1].gold`` (a short pointer for
    the person reading the report, not a full diff)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b or a[key] != b[key]:
                sub = f"{path}.{key}" if path else str(key)
                if key in a and key in b:
                    return _first_difference(a[key], b[key], sub)
                return sub
    elif isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
        if len(a) != len(b):
            return f"{path or 'state'} (length {len(a)} vs {len(b)})"
    return path or "the top level"


def _same_json(stored: str, replayed: str) -> tuple[bool, str]:
    """Equal as text, or as JSON values (a store may keep JSON in a normalising column
    type that reorders keys or spacing: that changes nothing the bot reads)."""
    if stored == replayed:
        return True, ""
    try:
        a, b = json.loads(stored), json.loads(replayed)
    except ValueError:
        return False, "the stored state is not JSON"
    if a == b:
        return True, ""
    return False, _first_difference(a, b)


def replay_check(rec: TableRecord, actions: Sequence[ActionRecord],
                 journal: Sequence[JournalRecord] = ()) -> str | None:
    """``None`` if ``rec.state`` (with ``journal``, the newest row of each entry of the
    table's journal, for a game that keeps one) is exactly the replay of ``actions``
    (the table's whole action log, in version order), else a short reason: an unknown
    game, versions missing or out of order, a log longer or shorter than
    ``rec.version``, an action the rules refuse, or the state or journal entry that
    differs (with where it first differs).

    A table that never started (no state) must have version 0 and an empty log; any
    other (playing, finished, or aborted after its start) is replayed.
    """
    versions = [a.version for a in actions]
    if versions != list(range(1, len(versions) + 1)):
        expected = set(range(1, max(versions, default=0) + 1))
        missing = sorted(expected - set(versions))
        if missing:
            shown = ", ".join(map(str, missing[:5])) + (" ..." if len(missing) > 5 else "")
            return f"versions missing from the action log: {shown}"
        return "the action log's versions are repeated or out of order"
    if len(actions) != rec.version:
        return f"{len(actions)} action(s) for version {rec.version}"
    if rec.state is None:
        return None if rec.version == 0 else f"no state at version {rec.version}"
    try:
        game = get_game(rec.game_id)
    except Exception:  # the registry's error for an id it does not know
        return f"unknown game {rec.game_id!r}"
    try:
        options = game.parse_options(rec.options)
        state = game.setup(len(rec.seats), options, rec.seed)
    except Exception as exc:
        return f"the game cannot be set up again: {exc}"
    for a in actions:
        try:
            game.apply(state, a.seat, game.parse_action(a.action))
        except Exception as exc:  # IllegalAction and friends: the log no longer replays
            return f"version {a.version} does not replay: {exc}"
    want = game.journal_changes(None, state) if game.journaled else []
    split = game.journaled and (bool(journal) or not want)
    same, where = _same_json(rec.state, game.dump_body(state) if split else
                             game.dump_state(state))
    if not same:
        return (f"the stored state differs from the replay of its {len(actions)} action(s)"
                f" (at {where})")
    if split:
        got = [(j.n, j.data) for j in journal]
        for (n, data), (m, stored) in zip(want, got, strict=False):
            if n != m:
                return f"journal entry {n} is missing from the store"
            same, where = _same_json(stored, data)
            if not same:
                return f"journal entry {n} differs from the replay (at {where})"
        if len(want) != len(got):
            return (f"the journal holds {len(got)} entries; the replay of its "
                    f"{len(actions)} action(s) makes {len(want)}")
    return None


@dataclass(frozen=True)
class Mismatch:
    """One table whose stored state is not the replay of its log."""

    table_id: str
    reason: str


@dataclass
class AuditReport:
    """What :func:`audit_store` found: counts, and every table that failed."""

    tables: int = 0
    actions: int = 0
    events: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def summary(self) -> str:
        """One line for people, e.g. ``3 tables (2 finished, 1 playing), 41 actions,
        97 events: every table replays``."""
        statuses = ", ".join(f"{n} {s}" for s, n in sorted(self.by_status.items()))
        head = (f"{self.tables} table(s){f' ({statuses})' if statuses else ''},"
                f" {self.actions} action(s), {self.events} event(s)")
        if self.ok:
            return f"{head}: every table replays"
        return f"{head}: {len(self.mismatches)} table(s) do NOT replay"


def _event_reason(rec: TableRecord, events: Sequence[EventRecord]) -> str | None:
    beyond = [e.version for e in events if e.version > rec.version]
    if beyond:
        return f"events at version {max(beyond)}, beyond the table's version {rec.version}"
    return None


async def audit_store(
    store: Store,
    *,
    progress: Callable[[int, int, str], None] | None = None,
) -> AuditReport:
    """Replay every table of an open ``store`` (any status) and check its event log
    reaches no further than its version. ``progress(done, total, table_id)`` is called
    after each table. Reads only.

    Use in a test::

        report = await audit_store(service.store)
        assert report.ok, report.mismatches
    """
    report = AuditReport()
    ids = await store.all_table_ids()
    for done, table_id in enumerate(ids, start=1):
        rec = await store.get_table(table_id)
        if rec is None:  # deleted between the two reads: nothing left to check
            continue
        actions = await store.actions(table_id)
        events = await store.events(table_id)
        journal = await store.journal(table_id)
        report.tables += 1
        report.actions += len(actions)
        report.events += len(events)
        report.by_status[rec.status] = report.by_status.get(rec.status, 0) + 1
        reason = replay_check(rec, actions, journal) or _event_reason(rec, events)
        if reason is not None:
            report.mismatches.append(Mismatch(table_id, reason))
        if progress is not None:
            progress(done, len(ids), table_id)
    return report
