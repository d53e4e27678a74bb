"""AI innkeepers for Crossroads Inn.

``heuristic`` scores each legal action by what it brings at once (Prestige and the
Prestige value of Reputation, guldens, gossips, tiles towards a full inn and ingredients
for the Recipes it holds) and never takes a step back. It looks only at its own view.
"""

from __future__ import annotations

from typing import Any

from engines.agents import register_agent
from engines.core import Rng, Seat
from engines.crossroads_inn.game import CrossroadsInn
from engines.crossroads_inn.state import CrossroadsState


def _value(game: CrossroadsInn, st: CrossroadsState, seat: Seat) -> float:
    """A rough worth of a position for ``seat``: the score if the game ended now, plus
    progress the score does not see yet (tiles built, revenue, recipes within reach)."""
    c = game.content
    p = st.seats[seat]
    score = game.scores(st)[seat]["total"]
    have = game.ingredients(p)
    reach = 0.0
    for r in p.recipes:
        need = c.recipe(r).ingredients
        reach += 2.0 * sum(1 for i in need if have.get(i, 0)) / len(need)
    built = sum(1 for b in p.inn.values() if not b.basic)
    bought = len(st.turn.bought) if st.turn.seat == seat else 0
    return (score + 2.5 * (built + bought) + 0.6 * p.revenue + 0.1 * p.pouch
            + 0.3 * len(p.reserved) + reach)


class HeuristicAgent:
    """One-step greedy over the legal actions, judged on a copy of the true state."""

    def __init__(self, **_: Any) -> None:
        pass

    def choose(self, game: CrossroadsInn, state: CrossroadsState, seat: Seat,
               rng: Rng) -> Any:
        legal = [a for a in game.legal_actions(state, seat) if a.kind != "undo"]
        if len(legal) == 1:
            return legal[0]
        # Work on a determinized copy: the value must not depend on what the seat
        # cannot see (the next draws).
        base = game.determinize(state, seat, rng.spawn())
        best, best_value = legal[0], float("-inf")
        for action in legal:
            trial = game.copy_state(base)
            game.apply(trial, seat, action)
            value = _value(game, trial, seat) + rng.random() * 0.01
            if action.kind == "next" and state.turn.step in ("invest",):
                value -= 0.5
            if value > best_value:
                best, best_value = action, value
        return best


register_agent("crossroads-inn", "heuristic", HeuristicAgent, selfplay_default=True)
