"""The console table's words: the commands at the table, ``rules``, who plays, the result.

Kept apart from the console's control flow so each text can be read (and tested) on
its own. Nothing here reads a table's state: the words come from a game's declaration
(:mod:`engines.catalog`) and from a finished table's :class:`~bot.core.tables.TableInfo`.

A game is a **team game** (co-operative: everyone wins or loses together) when its
engine says so with a ``cooperative`` class attribute. The engines declare no such
attribute yet, so until they do a game that can be played alone (``min_players == 1``,
a solitaire) counts as a team game whatever the number of seats: true of both shipped
team games (Save the Treasure, Fairy Tale in My Pocket) and of no competitive one. The
result of a finished game is checked too: everyone winning (or nobody) with one shared
score is a team result.

>>> cooperative("treasure"), cooperative("pocket"), cooperative("fairy-tale-inn")
(True, True, False)
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from engines.catalog import spec
from engines.core import Outcome

__all__ = [
    "COMMANDS",
    "TABLE_HELP",
    "cooperative",
    "result_text",
    "rules_text",
    "team_result",
    "wrap",
]

WIDTH = 88
"""Long lines of prose (rules, results) are wrapped to this width."""

COMMANDS: dict[str, str] = {
    "b": "board", "board": "board",
    "l": "log", "log": "log",
    "r": "rules", "rules": "rules",
    "hand": "hand",
    "h": "help", "help": "help", "?": "help",
    "q": "quit", "quit": "quit", "exit": "quit",
}
"""What may be typed at any prompt of a move, and the command it means."""

TABLE_HELP = """\
Type the number of a choice and press Enter. At any prompt of a move you can also type:
  board (b)    the board again          rules (r)   a summary of the game's rules
  log (l)      the latest moves         hand        your own view (hot seat: others look away)
  back (0)     back one menu            help (h ?)  this list
  quit (q)     save and quit (run the same command again to resume)"""


def wrap(text: str, indent: str = "", first: str = "") -> str:
    """``text`` wrapped to :data:`WIDTH` columns after ``first``, the lines after the
    first indented by ``indent``.

    >>> print(wrap("a b c", "  ", first="1. "))
    1. a b c
    """
    if not text:
        return ""
    return textwrap.fill(" ".join(text.split()), WIDTH, initial_indent=first,
                         subsequent_indent=indent)


# --------------------------------------------------------------------------- team games


def cooperative(game_id: str) -> bool:
    """Whether ``game_id`` is a team game (see the module docstring)."""
    engine = spec(game_id).engine
    declared = getattr(engine, "cooperative", None)
    if isinstance(declared, bool):
        return declared
    return int(engine.min_players) == 1


def team_result(outcome: Outcome, seats: int) -> bool:
    """Whether a result is one team's: all seats win, or none, on one shared score.

    >>> team_result(Outcome(winners=[0, 1], scores={0: 3, 1: 3}, reason="saved"), 2)
    True
    >>> team_result(Outcome(winners=[1], scores={0: 3, 1: 5}, reason="more gold"), 2)
    False
    """
    everyone = sorted(outcome.winners) in ([], list(range(seats)))
    return everyone and len(set(outcome.scores.values())) <= 1


# --------------------------------------------------------------------------- rules


def rules_text(game_id: str) -> str:
    """The game's ``/rules`` summary (the same file Discord's ``/rules`` shows), as
    plain text; its "Playing here" line names Discord's buttons and commands, so the
    console says how to play at the console instead."""
    summary = spec(game_id).rules_summary()
    if summary is None:
        return f"There is no rules summary for {spec(game_id).name} yet."
    lines = [summary.name, wrap(f"Players: {summary.players}", "  "),
             wrap(f"Goal: {summary.goal}", "  "), "A turn:"]
    lines += [wrap(step, "     ", first=f"  {i}. ") for i, step in enumerate(summary.turn, 1)]
    lines.append(wrap("At this table: type the number of a choice; a choice with more "
                      "to decide asks the rest next. Type help for the commands.", "  "))
    lines.append(wrap(f"Full rules: {summary.full_rules}", "  "))
    return "\n".join(lines)


# --------------------------------------------------------------------------- the result


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def result_text(outcome: Outcome | None, name: Callable[[int], str], seats: int, *,
                team: bool, solo_human: bool = False) -> str:
    """The one result line of a finished game.

    A team game says whether the team (or, alone, you) won and why, and never lists
    scores as if the seats were rivals; any other game says who won, why, and the
    scores (``Name: score``, so a name that ends in a digit still reads well).

    >>> names = ["Ann", "AI (greedy) 2"].__getitem__
    >>> result_text(Outcome(winners=[0], scores={0: 9, 1: 7}, reason="three columns are full"),
    ...             names, 2, team=False)
    'Ann wins! Three columns are full. Scores: Ann 9, AI (greedy) 2: 7.'
    >>> result_text(Outcome(winners=[], scores={0: 4, 1: 4}, reason="the king came home"),
    ...             names, 2, team=True)
    'The team lost. The king came home.'
    >>> result_text(Outcome(winners=[0], scores={0: 1}, reason="the princess is saved"),
    ...             names, 1, team=True, solo_human=True)
    'You won! The princess is saved.'
    """
    if outcome is None:
        return "The game is over."
    reason = _sentence(outcome.reason)
    if team or team_result(outcome, seats):
        won = bool(outcome.winners)
        if seats == 1 or solo_human:
            head = "You won!" if won else "You lost."
        else:
            head = "The team won!" if won else "The team lost."
        return " ".join(p for p in (head, reason) if p)
    if not outcome.winners:
        head = "Nobody wins."
    else:
        winners = _names([name(s) for s in outcome.winners])
        head = f"{winners} {'wins' if len(outcome.winners) == 1 else 'win'}!"
    parts = [head, reason]
    if outcome.scores:
        def shown(seat: int, score: int) -> str:
            who = name(seat)
            # "AI (greedy) 2 7" reads as one name: a colon keeps the score apart
            return f"{who}: {score}" if who[-1:].isdigit() else f"{who} {score}"

        scores = sorted(outcome.scores.items())
        parts.append("Scores: " + ", ".join(shown(int(s), v) for s, v in scores) + ".")
    return " ".join(p for p in parts if p)
