"""Lines and veils as words (table safety on AI passages).

A line is content the table left out of the story entirely: none of its words may appear
in an AI passage (the storyteller picks another frame, or leaves the card's words out). A
veil is content that may happen only off the page: a moment that touches it is told with
a fade to black, and a passage may not spell it out either. A line or veil is read as its
content words (its parenthesised remarks and the stopwords of ``telling.json`` left out),
each folded to a stem, plus every word of a topic it names ("violence" covers blades and
blood).

>>> s = Safety.of(["Spiders (any kind)"], ["violence"], [])
>>> s.hits_line("A spider crossed the floor.")
True
>>> s.hits_veil("He drew a sword.")
True
>>> s.hits_line("A quiet night.") or s.hits_veil("A quiet night.")
False
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engines.winter_tales.story_memory import words_of
from engines.winter_tales.telling.words import load_words

_PARENS = re.compile(r"\([^)]*\)")


def stem(word: str) -> str:
    """A crude fold of plurals and possessives, enough to match "spiders" with "spider"."""
    w = load_words().safety.irregular.get(word, word)
    if w.endswith("'s"):
        w = w[:-2]
    w = w.strip("'")
    if len(w) > 4 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 4 and w.endswith(("ches", "shes", "sses", "xes")):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    return w


def stems(text: str) -> set[str]:
    return {stem(w) for w in words_of(text)}


def content_words(phrase: str) -> set[str]:
    """The stems of a line's or veil's content words, widened by the topics it names."""
    sw = set(load_words().safety.stopwords)
    topics = load_words().safety.topics
    out: set[str] = set()
    for w in words_of(_PARENS.sub(" ", phrase)):
        if w in sw or len(w) < 3:
            continue
        out.add(stem(w))
        for name, members in topics.items():
            if stem(w) == stem(name):
                out |= {stem(m) for m in members}
    return out


def topic_words(topics: Iterable[str]) -> set[str]:
    all_topics = load_words().safety.topics
    return {stem(m) for t in topics for m in all_topics.get(t, [])}


@dataclass(frozen=True)
class Safety:
    """The forbidden stems of one table: lines, veils, and what was taken out."""

    lines: frozenset[str]
    veils: frozenset[str]
    avoided: frozenset[str]

    @classmethod
    def of(cls, lines: Iterable[str], veils: Iterable[str], avoid: Iterable[str]) -> Safety:
        return cls(
            lines=frozenset(w for p in lines for w in content_words(p)),
            veils=frozenset(w for p in veils for w in content_words(p)),
            avoided=frozenset(stem(w) for w in avoid),
        )

    def hits_line(self, text: str) -> bool:
        return bool(stems(text) & (self.lines | self.avoided))

    def hits_veil(self, text: str) -> bool:
        return bool(stems(text) & self.veils)

    def allows(self, text: str) -> bool:
        """Nothing of a line, a veil, or what the table took out, is in ``text``."""
        return not stems(text) & (self.lines | self.veils | self.avoided)

    def veiled_moment(self, material: Iterable[str], topics: Iterable[str]) -> bool:
        """The moment touches a veil: its words (card, caption) or its kind's topics."""
        words = set().union(*(stems(m) for m in material)) | topic_words(topics)
        return bool(words & self.veils)
