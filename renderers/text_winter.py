"""The Winter Tales table as text, for the console (a view, never a state).

The header (chapter, phase, who decides what), the storytellers in turn order with their
Faction and hand size, the characters where they stand, the Quests, the Memory Track,
the Powers, the seat's own Story cards and Objectives (its own view only), the last
passages of the story, and a key. Names come from the game's content, as on the board
picture; an id the content does not know is shown as it is.

>>> from engines import get_game
>>> game = get_game("winter-tales")
>>> text = winter_tales_board(game.view(game.setup(3, game.Options(), 3), 0))
>>> text.splitlines()[0]
'Winter Tales · setting up, before the first chapter'
>>> [line for line in text.splitlines() if line.startswith("Key: ")] != []
True
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from functools import cache
from typing import Any

from engines.winter_tales.content import printed_name

__all__ = ["winter_tales_board"]

WIDTH = 88
SIDE = {"spring": "Spring", "winter": "Winter", "writer": "Writer"}
MARK = {"spring": "S", "winter": "W"}
RECENT = 4
"""Passages of the story shown under the board (the whole story: /winter story)."""


@cache
def _content() -> Any:
    from engines.winter_tales.content import load_content

    return load_content()


def _name(ident: str | None) -> str:
    """The printed name of a character, space, Story card, Objective or Quest."""
    return printed_name(ident, "-")


def _fill(text: str, indent: str = "    ", first: str = "") -> list[str]:
    return textwrap.wrap(" ".join(text.split()), WIDTH, initial_indent=first,
                         subsequent_indent=indent) or [""]


def _header(v: Any, name: Callable[[int], str]) -> list[str]:
    if v.phase == "setup":
        when = "setting up, before the first chapter"
    elif v.phase == "epilogue":
        when = "the Epilogue"
    elif v.phase == "over" or v.winner is not None:
        when = "the story is over"
    else:
        when = f"chapter {v.chapter} (the game ends after {v.length} Memories)"
    lines = [f"Winter Tales · {when}"]
    if v.to_act:
        who = ", ".join(name(s) for s in v.to_act)
        lines.append(f"To decide now: {who} ({str(v.decision).replace('_', ' ')})")
    if v.final:
        score = ", ".join(f"{SIDE.get(k, k)} {n}" for k, n in v.final.items())
        lines.append(f"The Epilogue: {score}" + (f"; {SIDE.get(v.winner, v.winner)} wins"
                                                 if v.winner else ""))
    return lines


def _players(v: Any, name: Callable[[int], str]) -> list[str]:
    lines = ["Storytellers, in turn order:"]
    for place, seat in enumerate(v.order, 1):
        tags = [SIDE.get(v.factions[seat], v.factions[seat])]
        count = v.hand_counts[seat] if seat < len(v.hand_counts) else 0
        tags.append(f"{count} Story card{'s' if count != 1 else ''}")
        if seat < len(v.objective_counts) and v.objective_counts[seat]:
            tags.append(f"{v.objective_counts[seat]} Objective(s)")
        if seat == v.arbiter:
            tags.append("Story Arbiter")
        arrow = ">" if seat == v.acting else " "
        lines.append(f" {arrow}{place}. {name(seat)}: {', '.join(tags)}")
    return lines


def _figure(f: Any, name: Callable[[int], str]) -> str:
    marks = MARK.get(f.faction, "?")
    if not f.ready:
        marks += "*"
    if f.incapacitated:
        marks += "x"
    owner = f", {name(f.owner)}" if f.owner is not None else ""
    return f"{_name(f.id)} ({marks}{owner})"


def _map(v: Any, name: Callable[[int], str]) -> list[str]:
    where: dict[str, list[str]] = {}
    waiting, out = [], []
    for f in v.figures:
        if f.removed:
            out.append(_name(f.id))
        elif f.space is None:
            waiting.append(f"{_name(f.id)} ({MARK.get(f.faction, '?')})")
        else:
            where.setdefault(f.space, []).append(_figure(f, name))
    lines = ["Characters on the map:" if where else "No character is on the map yet."]
    for space in sorted(where, key=_name):
        lines += _fill(f"{_name(space)}: {', '.join(where[space])}", "      ", "  ")
    if waiting:
        lines += _fill(f"Not in play yet: {', '.join(waiting)}")
    if out:
        lines += _fill(f"Removed from the story: {', '.join(out)}")
    return lines


def _quests(v: Any) -> list[str]:
    if not v.quests:
        return []
    parts = []
    for q in v.quests:
        place = f"under {_name(q.carrier)}" if q.carrier else (
            f"at {_name(q.space)}" if q.space else "off the map")
        parts.append(f"{_name(q.quest)} ({SIDE.get(q.faction, q.faction)}) {place}")
    lines = _fill("Quests: " + "; ".join(parts))
    if v.ongoing:
        lines += _fill(f"Under way: {_name(v.ongoing)}")
    return lines


def _memories(v: Any) -> list[str]:
    slots = []
    for m in sorted(v.memories, key=lambda m: m.slot):
        side = SIDE.get(m.faction, "neutral") if m.faction else "neutral"
        mark = ", the bookmark" if v.bookmark == m.slot else ""
        slots.append(f"{side} ({_name(m.card)}{mark})")
    head = f"Memory Track ({len(v.memories)} of {v.length}): "
    return _fill(head + ("; ".join(slots) if slots else "empty"))


def _powers(v: Any, name: Callable[[int], str]) -> list[str]:
    if not v.powers:
        return []
    parts = [f"{_name(p.quest)} held by {name(p.holder)}" for p in v.powers]
    return _fill("Powers: " + "; ".join(parts))


def _own(v: Any) -> list[str]:
    """The seat's own cards and Objectives (only in its own view)."""
    lines: list[str] = []
    if v.hand is not None:
        lines.append(f"Your Story cards ({len(v.hand)}):" if v.hand else "No Story cards.")
        for card in v.hand:
            lines += _fill(f"{card.title}: Spring - {card.spring}; Winter - {card.winter}",
                           "      ", "  ")
    for o in v.objectives:
        if o.seat != v.seat:
            continue
        state = "completed" if o.completed else "revealed" if o.revealed else "secret"
        places = ", ".join(_name(p) for p in o.locations)
        lines += _fill(f"Your Objective ({state}): {o.title}"
                       + (f", at {places}" if places else ""))
    if v.trap_hidden:
        hidden = ", ".join(f"{_name(c)} ({SIDE.get(s, s)} up)" for c, s in v.trap_hidden)
        lines += _fill(f"Hidden under your character (Trap): {hidden}")
    return lines


def _story(v: Any, name: Callable[[int], str]) -> list[str]:
    told = [e for e in v.transcript if not e.struck and e.kind != "setup"]
    if not told:
        return []
    lines = [f"The story so far (the last {min(RECENT, len(told))} of {len(told)}):"]
    for e in told[-RECENT:]:
        who = name(e.seat) if e.seat is not None else "The table"
        if e.character:
            who += f" ({_name(e.character)})"
        text = "(hidden until it is retold)" if e.hidden else (e.text or f"({e.kind})")
        lines += _fill(f"#{e.n} {who}: {text}", "      ", "  ")
    return lines


KEY = ("Key: S a Spring character, W a Winter one; * activated this round; x "
       "incapacitated; the name after it is who plays it. > the storyteller acting now. "
       "#n a passage of the story.")


def winter_tales_board(view: Any, name: Callable[[int], str] | None = None) -> str:
    """The table as text: see the module docstring."""
    from engines.winter_tales.state import WinterView

    v = view if isinstance(view, WinterView) else WinterView.model_validate(view)
    name = name or (lambda s: f"Player {s + 1}")
    blocks = [_header(v, name), _players(v, name), _map(v, name), _quests(v),
              _memories(v), _powers(v, name),
              [f"Story cards: deck {v.deck_count}, discard {v.discard_count}"],
              _own(v), _story(v, name), _fill(KEY, "  ")]
    return "\n".join(line for block in blocks for line in block)
