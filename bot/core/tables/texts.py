"""The service's plain-English texts: a table's status summary and a game's result.

>>> join_names(["Ann", "Bob", "Cy"])
'Ann, Bob and Cy'
>>> from engines.core import Outcome
>>> names = {0: "Ann", 1: "Bob"}.__getitem__
>>> outcome_text(Outcome(winners=[1], scores={0: 7, 1: 9}, reason="three columns full"), names)
'Game over. Bob wins! Three columns full. Scores: Ann 7, Bob 9.'
>>> tie = outcome_text(Outcome(winners=[1], scores={0: 8, 1: 8}, reason="full"), names)
>>> tie.split(". ")[2:]
['Ann and Bob tie on 8; the rules give the game to Bob', 'Scores: Ann 8, Bob 8.']
>>> outcome_text(Outcome(winners=[], scores={}, reason="the king came home first"), names)
'Game over: nobody wins. The king came home first.'
"""

from __future__ import annotations

from collections.abc import Callable

from bot.core.tables.models import TableInfo, TableStatus
from engines.core import Outcome, Seat

__all__ = ["join_names", "outcome_text", "quote", "said_in", "status_text"]

NameOf = Callable[[Seat], str]


def quote(text: object, limit: int = 60) -> str:
    """A user's own words inside an answer, cut so the answer always fits.

    >>> quote("a" * 300, 10)
    'aaaaaaaaa…'
    """
    shown = " ".join(str(text).split())
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def said_in(line: str, text: str) -> bool:
    """Whether ``line`` is one or more whole sentences of ``text`` (a result that already
    says why the game ended), not just some words of it.

    >>> said_in("The sun has set.", "Game over: nobody wins. The sun has set.")
    True
    >>> said_in("Ann", "Game over. Ann wins!"), said_in("has set.", "The sun has set.")
    (False, False)
    """
    line = line.strip()
    if not line or line[-1] not in ".!?":
        return False
    start = text.find(line)
    while start >= 0:
        before = text[:start].rstrip()
        after = text[start + len(line):start + len(line) + 1]
        if (not before or before[-1] in ".!?:") and after in ("", " "):
            return True
        start = text.find(line, start + 1)
    return False


def join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def outcome_text(outcome: Outcome | None, name: NameOf) -> str | None:
    """One line for a finished game: who won, the scores, and why it ended. When the
    winner shares the best score the engine's reason says how the tie was broken."""
    if outcome is None:
        return None
    reason = _sentence(outcome.reason)
    if not outcome.winners:
        return " ".join(p for p in ("Game over: nobody wins.", reason) if p)
    winners = join_names([name(s) for s in outcome.winners])
    verb = "wins" if len(outcome.winners) == 1 else "win"
    # How it was won comes before the scores: with a shared best score (a faction's
    # total, a tie broken by the rules) the reason is what says who won and why.
    parts = [f"Game over. {winners} {verb}!", reason]
    scores = sorted(outcome.scores.items(), key=lambda x: x[0])
    if scores:
        best = max(v for _s, v in scores)
        tied = [int(s) for s, v in scores if v == best]
        explained = any(w in reason.lower() for w in ("tie", "draw", "wins", "win "))
        if len(tied) > len(outcome.winners) and not explained:
            parts.append(f"{join_names([name(s) for s in tied])} tie on {best}; the rules "
                         f"give the game to {winners}.")
        parts.append("Scores: " + ", ".join(f"{name(int(s))} {v}" for s, v in scores) + ".")
    return " ".join(p for p in parts if p)


def status_text(info: TableInfo) -> str:
    """What ``/table status`` shows (seat numbers from 1, as everywhere a player reads)."""
    names = {s.index: s.name for s in info.seats}
    host = next((s for s in info.seats if s.user_id == info.host_id), None)
    host_name = host.name if host else "not seated"
    lines = [f"{info.game_name} (table {info.id}) — {info.status.value}"]
    seat_lines = []
    for s in info.seats:
        tags = []
        if s.user_id == info.host_id:
            tags.append("host")
        if s.is_ai and not s.name.startswith("AI"):
            tags.append(f"AI, {s.ai_level}")
        if s.index in info.to_act:
            tags.append("to play")
        seat_lines.append(f"  {s.index + 1}. {s.name}" + (f" ({', '.join(tags)})" if tags else ""))
    if info.status is TableStatus.LOBBY:
        lines.append(
            f"Seats: {len(info.seats)} of {info.min_players}-{info.max_players}; "
            f"host {host_name}."
        )
        lines += seat_lines
        if len(info.seats) < info.min_players:
            lines.append(
                f"Waiting for {info.min_players - len(info.seats)} more player(s): "
                "join with /table join (the host can add an AI with /table addbot)."
            )
        else:
            lines.append("Ready: the host can start with /table start.")
    elif info.status is TableStatus.PLAYING:
        lines.append(f"Move {info.version}; host {host_name}.")
        lines += seat_lines
        waiting = [names.get(s, f"Seat {s + 1}") for s in info.to_act]
        if waiting:
            lines.append(f"Waiting for {join_names(waiting)}.")
    elif info.status is TableStatus.FINISHED:
        lines += seat_lines
        if info.outcome_text:
            lines.append(info.outcome_text)
    else:
        lines.append("This table was closed before the game ended.")
    return "\n".join(lines)
