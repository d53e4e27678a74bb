"""Which Story card fits the moment: the AI's choice when the rules leave one.

A card whose element the moment prefers (``telling.json`` ``fit``: a place for a Trap, an
object for the Great Artefact, a feeling for A New Hope...) weighs three times as much as
another; a card whose words touch a line or a veil of the table, a tenth.

>>> from engines import get_game
>>> game = get_game("winter-tales")
>>> state = game.setup(3, game.Options(), seed=2)
>>> preferred("trap", None)
['place', 'object']
"""

from __future__ import annotations

from engines.winter_tales.content import load_content
from engines.winter_tales.state import WinterState
from engines.winter_tales.telling.moment import thing_of
from engines.winter_tales.telling.safety import Safety
from engines.winter_tales.telling.words import Element, load_words

FITS = 3.0
UNSAFE = 0.1


def preferred(context: str | None, quest: str | None) -> list[Element]:
    fit = load_words().fit
    if context == "quest" and quest is not None:
        return list(fit.get(f"quest.{quest}", []))
    return list(fit.get(context or "", []))


def moment_of(state: WinterState) -> tuple[str | None, str | None]:
    """The context (quest, battle, trap, save, epilogue) and the Quest in progress."""
    quest = next((f.quest for f in reversed(state.stack) if f.kind == "quest"), None)
    for f in reversed(state.stack):
        if f.kind in ("battle", "trap", "epilogue", "quest"):
            return f.kind, quest
        if f.kind == "pay" and f.purpose == "save":
            return "save", quest
    return None, quest


def weight(state: WinterState, card: str, side: str) -> float:
    """How much ``card`` played on ``side`` serves the story of this moment."""
    context, quest = moment_of(state)
    reading = load_words().card(card)
    w = FITS if reading.element in preferred(context, quest) else 1.0
    safety = Safety.of(state.options.lines, state.options.veils, state.story.avoid)
    caption = load_content().story_card(card).side(side).caption  # type: ignore[arg-type]
    if not safety.allows(caption) or not safety.allows(thing_of(card) or ""):
        w *= UNSAFE
    return w
