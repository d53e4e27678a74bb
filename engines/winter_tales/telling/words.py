"""The storyteller's words: ``data/winter_tales/telling.json``, validated once.

>>> w = load_words()
>>> w.card("story_01").element, w.card("story_01").word
('object', 'lantern')
>>> len(w.frames) >= 40
True
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engines.winter_tales.content import DATA_DIR, About, load_content

Element = Literal["character", "place", "object", "action", "feeling"]
ROUTES = ("through", "back", "turns", "step")
"""The kinds of untold route a journey passage folds in: through new places, back
through places the walk was in, back and forth between places, or one street."""
Pronoun = Literal["she", "he", "they"]


class WordsError(ValueError):
    """``telling.json`` is inconsistent with itself or with the rest of the content."""


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CardReading(_Model):
    """How the storyteller reads a Story card's image: as which element, named by ``word``."""

    element: Element
    word: str = Field(min_length=2)
    """The word of the card's title that names the element (the bench looks for it)."""
    feeling: str | None = None
    doing: str | None = None


class CharacterWords(_Model):
    pronoun: Pronoun
    epithets: list[str] = Field(min_length=1)


class PronounForms(_Model):
    subj: str
    obj: str
    pos: str
    refl: str
    was: str


class QuestWords(_Model):
    goal: str
    stakes: list[str] = Field(min_length=1)


class Frame(_Model):
    """A sentence shape: ``{slot}`` from the moment, ``<rule>`` from the rules."""

    id: str
    text: str
    kinds: list[str] | None = None
    """Only for these moments (None: any moment with an actor)."""
    weight: float = Field(default=1.0, gt=0)


class SafetyWords(_Model):
    stopwords: list[str]
    irregular: dict[str, str]
    topics: dict[str, list[str]]
    kind_topics: dict[str, list[str]]


class TellingWords(_Model):
    about: About = Field(alias="_about")
    cards: dict[str, CardReading]
    characters: dict[str, CharacterWords]
    pronouns: dict[Pronoun, PronounForms]
    places: dict[str, str]
    quests: dict[str, QuestWords]
    ordinals: list[str] = Field(min_length=3)
    faction_folk: dict[str, str]
    rules: dict[str, list[str]]
    acts: dict[str, list[str]]
    frames: list[Frame] = Field(min_length=1)
    fade: list[str] = Field(min_length=1)
    retell: list[str] = Field(min_length=1)
    journey: list[str] = Field(min_length=1)
    """A passage that folds in the steps of a walk nobody told (``<route_lead>``,
    ``<route_walk>``: the route's words, by the kind of route)."""
    onward: list[str] = Field(min_length=1)
    """A later step of a walk, told short: it follows the walker's own step."""
    meanwhile: list[str] = Field(min_length=1)
    """A first step told right after another figure's movement passage."""
    intro: list[str] = Field(min_length=1)
    endings: list[str] = Field(min_length=1)
    ending_lines: dict[str, list[str]]
    safety: SafetyWords
    echo_stopwords: list[str]
    """Words a passage may say twice (with the safety stopwords and any word under four
    letters); any other word said twice in one passage reads as an awkward echo."""
    fit: dict[str, list[Element]]
    deeds: dict[str, str]

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    @model_validator(mode="after")
    def _cross_check(self) -> TellingWords:
        c = load_content()
        cards = {sc.id: sc for sc in c.story_cards}
        if set(self.cards) != set(cards):
            raise WordsError("telling.json must read every Story card, and only those")
        for cid, reading in self.cards.items():
            if reading.word.lower() not in cards[cid].title.lower():
                raise WordsError(f"{cid}: {reading.word!r} is not in its title")
            if (reading.element == "feeling") != (reading.feeling is not None):
                raise WordsError(f"{cid}: a feeling card (and only one) names its feeling")
            if (reading.element == "action") != (reading.doing is not None):
                raise WordsError(f"{cid}: an action card (and only one) names its doing")
        if set(self.characters) != {ch.id for ch in c.characters}:
            raise WordsError("telling.json must give words for every character")
        if set(self.places) != {s.id for s in c.map.spaces}:
            raise WordsError("telling.json must describe every space of the map")
        if set(self.quests) != {q.id for q in c.quests}:
            raise WordsError("telling.json must give words for every Quest")
        ids = [f.id for f in self.frames]
        if len(set(ids)) != len(ids):
            raise WordsError("frame ids must be unique")
        routes = [f"route_{use}_{kind}" for use in ("lead", "walk") for kind in ROUTES]
        for name in ("opener", "motive_spring", "motive_winter", "motive_writer", *routes):
            if name not in self.rules:
                raise WordsError(f"rule {name!r} is missing")
        return self

    def card(self, card_id: str) -> CardReading:
        try:
            return self.cards[card_id]
        except KeyError:
            raise WordsError(f"no reading for card {card_id!r}") from None


@lru_cache(maxsize=1)
def load_words() -> TellingWords:
    """The validated storyteller words (cached)."""
    raw = json.loads((DATA_DIR / "telling.json").read_text(encoding="utf-8"))
    return TellingWords.model_validate(raw)
