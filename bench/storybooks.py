"""Two Winter Tales storybooks to read from start to end (issue 27): one all-AI game, and
one with two people and three AI seats.

    .venv/bin/python -m bench.storybooks [--out DIR] [--seed 7]

Both games run straight on the engine (no Discord): the AI seats are the storyteller
agent; the two people choose at random among the legal actions (as the storyteller does)
and write their own passages, short plain sentences about the card and the character, as
players at a table do. Each storybook is written as HTML and Markdown (the exports
``/winter story`` attaches) under ``--out``, with a line per game: passages, who wrote
them, and whether the story reached its Epilogue.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engines import get_game
from engines.agents import get_agent
from engines.core import Action, Rng
from engines.winter_tales.content import load_content
from engines.winter_tales.state import WinterState
from renderers import storybook

PEOPLE = ("Mara", "Tomas")
AI_NAMES = ("AI (storyteller)", "AI (storyteller) 2", "AI (storyteller) 3",
            "AI (storyteller) 4", "AI (storyteller) 5")

# What a person types at a table: short, plain, about what is in front of them.
WITH_CARD = (
    "{who} didn't like the look of {card}, but there was no other way.",
    "So {who} took {card} and ran for it.",
    "{who} remembered the old song about {card} and hummed it.",
    "Nobody saw {who} pick up {card}. That was the point.",
    "\"{card}? Really?\" {who} muttered, and went anyway.",
    "The snow kept falling while {who} thought about {card}.",
    "{who} had promised the others. {card} would have to do.",
    "{who} laughed for the first time in days when {card} showed up.",
)
WITHOUT_CARD = (
    "{who} pulled the collar up and kept walking.",
    "{who} waited. Someone had to make the first move.",
    "It was cold, {who} was tired, and there was still a long way to go.",
    "{who} stopped, listened, and went on into the dark.",
    "{who} had promised the others, and a promise is a promise.",
    "Nobody in the square looked twice at {who}. Good.",
    "{who} counted the lanterns on the way, the way Grandma used to.",
    "{who} did not look back.",
)


def person_passage(state: WinterState, seat: int, action: Action, rng: Rng) -> Action:
    if "text" not in type(action).model_fields:
        return action
    content = load_content()
    card_id = getattr(action, "card", None)
    card = next((c.title for c in content.story_cards if c.id == card_id), None)
    # The character the action names, else the one this seat last told of.
    char_id = getattr(action, "character", None) or next(
        (e.character for e in reversed(state.transcript) if e.seat == seat and e.character),
        None)
    who = next((c.name for c in content.characters if c.id == char_id), None) or "Our hero"
    pool = WITH_CARD if card else WITHOUT_CARD
    text = rng.choice(list(pool)).format(who=who, card=card)
    return action.model_copy(update={"text": text[0].upper() + text[1:]})


def play(people: int, ais: int, seed: int, options: dict[str, Any],
         max_plies: int = 20000) -> tuple[WinterState, list[str]]:
    game = get_game("winter-tales")
    players = people + ais
    state = game.setup(players, game.Options(**options), seed=seed)
    agent = get_agent("winter-tales", "storyteller")
    rng = Rng.from_seed(seed ^ 0x5702)
    human = set(range(people))
    for _ in range(max_plies):
        seats = game.to_act(state)
        if not seats:
            break
        seat = seats[0]
        if seat in human:
            action = rng.choice(game.legal_actions(state, seat))
            action = person_passage(state, seat, action, rng)
        else:
            action = agent.choose(game, state, seat, rng)
        game.apply(state, seat, action)
    names = [*PEOPLE[:people], *AI_NAMES[:ais]]
    return state, names  # type: ignore[return-value]


def write(state: WinterState, names: list[str], out: Path, stem: str, title: str) -> str:
    game = get_game("winter-tales")
    view = game.view(state, None)
    exports = storybook.export(view, names, title)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.html").write_text(exports["html"], encoding="utf-8")
    (out / f"{stem}.md").write_text(exports["md"], encoding="utf-8")
    entries = [e for e in state.transcript if getattr(e, "text", None)]
    by_ai = sum(1 for e in entries if e.seat is not None and e.seat >= len(
        [n for n in names if n in PEOPLE]))
    ended = "Epilogue" if state.winner else "unfinished"
    return f"{stem}: {len(entries)} passages ({by_ai} by AI seats), {ended} -> {out / stem}.html"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("/tmp/storybooks"))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    modules = {"power": True, "objective": True, "skill": True}
    state, names = play(0, 5, args.seed, modules)
    print(write(state, names, args.out, "all-ai", "A Winter Tale told by five AI seats"))
    state, names = play(2, 3, args.seed + 1, modules)
    print(write(state, names, args.out, "two-people-three-ai",
                "A Winter Tale told by two people and three AI seats"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
