"""Scenario builders for the Winter Tales rule tests: a started game, then a table arranged
by hand (who controls which figure where, who holds which cards, whose Turn it is)."""

from __future__ import annotations

from typing import Any

from engines import get_game
from engines.winter_tales.game import WinterTales
from engines.winter_tales.state import BoardQuest, TurnFrame, WinterState

G: WinterTales = get_game("winter-tales")  # type: ignore[assignment]


def started(players: int = 4, seed: int = 1, **opts: Any) -> WinterState:
    """A game right after setup (first legal choice everywhere), at Chapter 1."""
    st = G.setup(players, G.Options(**opts), seed)
    while st.chapter == 0:
        seat = G.to_act(st)[0]
        G.apply(st, seat, G.legal_actions(st, seat)[0])
    return st


def seat_of(st: WinterState, faction: str, nth: int = 0) -> int:
    return [s for s in st.order if st.factions[s] == faction][nth]


def arrange(st: WinterState, figures: dict[int, dict[str, str]], *, quests: list[BoardQuest]
            | None = None, turn: int | None = None) -> WinterState:
    """Only the listed figures are in play: ``{seat: {character: space}}``."""
    for f in st.figures.values():
        f.owner, f.space, f.ready, f.incapacitated, f.removed = None, None, True, False, False
    for seat, chars in figures.items():
        for ch, space in chars.items():
            st.figures[ch].owner = seat
            st.figures[ch].space = space
    st.quests = list(quests or [])
    st.used_counters = [q.counter for q in st.quests]
    if turn is not None:
        st.stack = [TurnFrame(seat=turn)]
        st.acting = turn
    return st


def give(st: WinterState, seat: int, n: int) -> list[str]:
    """Replace the seat's hand with ``n`` cards from the deck (old cards go back)."""
    st.deck.extend(st.hands[seat])
    st.hands[seat] = [st.deck.pop(0) for _ in range(n)]
    return list(st.hands[seat])


def act(st: WinterState, seat: int, kind: str, **kw: Any) -> list[Any]:
    action = G.parse_action({"kind": kind, **kw})
    return G.apply(st, seat, action)


def kinds(st: WinterState, seat: int) -> set[str]:
    return {a.kind for a in G.legal_actions(st, seat)}


def top(st: WinterState) -> Any:
    return st.stack[-1] if st.stack else None


def play_until(st: WinterState, stop: Any, limit: int = 500) -> None:
    """Apply first legal actions until ``stop(st)`` holds."""
    for _ in range(limit):
        if stop(st):
            return
        seat = G.to_act(st)[0]
        G.apply(st, seat, G.legal_actions(st, seat)[0])
    raise AssertionError("scenario did not reach its stop condition")
