"""Winter Tales AI players: legal choices, told by the storyteller.

The storyteller picks among the legal actions (it sees nothing hidden), preferring, when
it plays a Story card, one whose element fits the moment (``engines.winter_tales.telling
.fit``), and writes the passage of every action that carries one with
:mod:`engines.winter_tales.telling.writer`: the action carries the mark (the seed) the
engine checks and records, so the story's memory lives in the game state.

>>> from engines import get_game
>>> from engines.core import Rng
>>> game = get_game("winter-tales")
>>> state = game.setup(3, game.Options(), seed=2)
>>> agent = StorytellerAgent()
>>> seat = game.to_act(state)[0]
>>> action = agent.choose(game, state, seat, Rng.from_seed(1))
>>> bool(action.text) and action.telling is not None
True
"""

from __future__ import annotations

from typing import Any

from engines.agents import RandomAgent, register_agent
from engines.core import Action, Game, GameState, Rng, Seat
from engines.winter_tales.telling import fit, writer

SEED_BITS = 62


def choose_card(state: Any, legal: list[Action], action: Action, rng: Rng) -> Action:
    """Among the legal plays of the same side, a card weighted by how well it fits."""
    if getattr(action, "kind", "") != "play_card":
        return action
    side = action.side  # type: ignore[attr-defined]
    plays = [a for a in legal if getattr(a, "kind", "") == "play_card" and a.side == side]  # type: ignore[attr-defined]
    weights = [fit.weight(state, a.card, side) for a in plays]  # type: ignore[attr-defined]
    return rng.weighted(plays, weights)


def narrate(state: Any, seat: Seat, action: Action, rng: Rng) -> Action:
    """``action`` with the storyteller's passage and its mark (unchanged if none)."""
    if "text" not in type(action).model_fields:
        return action
    seed = rng.next_u64() >> (64 - SEED_BITS)
    passage = writer.compose(state, seat, action, seed)
    if passage is None:
        return action
    return action.model_copy(update={"text": passage.text, "telling": passage.mark})


class StorytellerAgent(RandomAgent):
    """Random legal choices, a fitting card preferred, narrated by the storyteller."""

    def choose(self, game: Game, state: GameState, seat: Seat, rng: Rng) -> Action:
        legal = game.legal_actions(state, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        action = choose_card(state, legal, rng.choice(legal), rng)
        return narrate(state, seat, action, rng)

    def __repr__(self) -> str:
        return "<StorytellerAgent>"


register_agent("winter-tales", "random", StorytellerAgent)
register_agent("winter-tales", "storyteller", StorytellerAgent)
