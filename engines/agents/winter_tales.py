"""Winter Tales AI players: random legal choices, told as generated sentences.

The storyteller picks uniformly among the legal actions (it sees nothing hidden) and, where
the action carries a narration, writes a short sentence from the character, the place and
the card's caption, so self-play games produce a readable (if odd) transcript.

>>> from engines import get_game
>>> from engines.core import Rng
>>> game = get_game("winter-tales")
>>> state = game.setup(3, game.Options(), seed=2)
>>> agent = StorytellerAgent()
>>> seat = game.to_act(state)[0]
>>> action = agent.choose(game, state, seat, Rng.from_seed(1))
>>> bool(action.text)
True
"""

from __future__ import annotations

from typing import Any

from engines.agents import RandomAgent, register_agent
from engines.core import Action, Game, GameState, Rng, Seat
from engines.winter_tales.content import load_content

_OPENINGS = [
    "Under a sky the colour of old snow,",
    "While the siren of Winter Prison howled,",
    "In the blue hour before curfew,",
    "With frost creeping along the windows,",
    "As the bells of Memory Lane fell silent,",
    "Far from the Soldiers' lanterns,",
]
_PLOTS = {
    "activate": "{who} stepped out of the shadows of {where}, with a plan half-formed.",
    "move": "{who} slipped through the streets towards {to}.",
    "generate_quest": "{who} heard a rumour: {quest}, {to}, and the townsfolk whispered.",
    "start_quest": "{who} remembered what the last Memory had taught and began the Quest.",
    "take_part": "{who} arrived just in time to take part.",
    "step_in": "{who} stepped into the tale, unannounced.",
    "battle": "{who} barred the way, cold steel shining.",
    "trap": "{who} had prepared a trap long before anyone came.",
    "save": "{who} would not leave a friend behind.",
    "relocate": "the prisoner was dragged to {to}.",
    "tell": "{who} told what happened next, linking it to what had come before.",
    "done": "{who} paused, leaving the story open for the others.",
    "pass": "{who} watched in silence.",
}


def _name(character: str | None) -> str:
    if not character:
        return "someone"
    try:
        return load_content().character(character).name
    except ValueError:
        return "someone"


def _place(space: str | None) -> str:
    if not space:
        return "Wintertown"
    try:
        return load_content().map.space(space).name
    except ValueError:
        return "Wintertown"


def sentence(state: Any, seat: Seat, action: Action, rng: Rng) -> str:
    """A short generated narration for ``action`` (never mentions hidden cards)."""
    c = load_content()
    kind = action.kind  # type: ignore[attr-defined]
    who_id = getattr(action, "character", None) or getattr(action, "savior", None)
    if who_id is None:
        frame = state.stack[-1] if state.stack else None
        who_id = getattr(frame, "character", None) if frame is not None else None
    fig = state.figures.get(who_id) if who_id else None
    where = _place(fig.space if fig is not None else None)
    opening = rng.choice(_OPENINGS)
    if kind == "play_card":
        card = c.story_card(action.card)  # type: ignore[attr-defined]
        caption = card.side(action.side).caption  # type: ignore[attr-defined]
        return f"{opening} {_name(who_id)} saw it clearly: {caption[0].lower()}{caption[1:]}"
    template = _PLOTS.get(kind, "{who} acted, and the story went on.")
    target = getattr(action, "to", None) or getattr(action, "space", None)
    to = _place(target)
    quest = ""
    if kind == "generate_quest":
        quest = c.quest(c.quest_counter(action.counter).quest).name  # type: ignore[attr-defined]
        target = action.target  # type: ignore[attr-defined]
        to = (f"around {_name(target)}" if target in state.figures
              else f"in {_place(target)}")
    return f"{opening} " + template.format(who=_name(who_id), where=where, to=to, quest=quest)


class StorytellerAgent(RandomAgent):
    """Uniformly random legal choices, narrated with generated sentences."""

    def choose(self, game: Game, state: GameState, seat: Seat, rng: Rng) -> Action:
        action = super().choose(game, state, seat, rng)
        if "text" in type(action).model_fields:
            action = action.model_copy(update={"text": sentence(state, seat, action, rng)})
        return action

    def __repr__(self) -> str:
        return "<StorytellerAgent>"


register_agent("winter-tales", "random", StorytellerAgent)
register_agent("winter-tales", "storyteller", StorytellerAgent)
