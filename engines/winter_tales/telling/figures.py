"""Figures of a told story: how varied and faithful its AI passages read.

What issue 27 measured, for the benchmark (``bench/story.py``) and the tests: passages,
distinct passages, the most used opener (first three words, and the opener rule), frame,
tail and motive as shares of the passages, the longest run of movement passages in a
row, passages naming their card's element, passages saying "someone" where a character
acted, and any passage with a line's words.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engines.winter_tales.state import Entry, WinterState
from engines.winter_tales.story_memory import digest, phrase_key, start_of
from engines.winter_tales.telling.safety import Safety
from engines.winter_tales.telling.words import load_words
from engines.winter_tales.telling.writer import MOTIVES, TAILS


@dataclass(frozen=True)
class StoryFigures:
    passages: int
    distinct: int
    top_start: tuple[str, float]
    """The most common first three words, and its share of the AI passages."""
    top_opener: tuple[str, float]
    top_frame: tuple[str, float]
    top_tail: tuple[str, float]
    """The most used tail (a ``watch``, ``resolve`` or ``company`` phrase), by its words."""
    top_motive: tuple[str, float]
    longest_moves: int
    """The longest run of movement passages in a row."""
    with_card: int
    naming_element: int
    someone: int
    line_hits: int
    sentences_max: int

    @property
    def repeated(self) -> int:
        return self.passages - self.distinct


def ai_passages(state: WinterState) -> list[Entry]:
    return [e for e in state.transcript if e.storyteller and e.text and not e.struck]


def _top(counts: Counter[str] | dict[str, int], total: int) -> tuple[str, float]:
    if not counts or not total:
        return ("", 0.0)
    key, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return key, n / total


def names_element(entry: Entry) -> bool:
    if entry.card is None or entry.card not in load_words().cards:
        return False
    return load_words().card(entry.card).word.lower() in (entry.text or "").lower()


def _own_words(entry: Entry) -> str:
    """The passage without its card's printed caption (a caption may say "someone")."""
    text = (entry.text or "").lower()
    caption = (entry.caption or "").lower().rstrip(".!?,;: ")
    return text.replace(caption, "") if caption else text


def _top_phrase(state: WinterState, rules: tuple[str, ...]) -> tuple[str, float]:
    """The most used phrase of ``rules``, named by its words, as a share of the passages."""
    words = load_words()
    rule_texts = {
        phrase_key(rule, alt): alt
        for name, alts in words.rules.items()
        for alt in alts
        for rule in rules
        if name == rule or name.startswith(rule + "_")
    }
    counts = {
        rule_texts.get(k, k): n
        for k, n in state.story.phrases.items()
        if k.split(":")[0] in rules
    }
    return _top(counts, state.story.passages)


def figures(state: WinterState) -> StoryFigures:
    told = ai_passages(state)
    texts = [e.text or "" for e in told]
    safety = Safety.of(state.options.lines, [], [])
    carded = [e for e in told if e.card is not None and e.card in load_words().cards]
    total = state.story.passages
    return StoryFigures(
        passages=len(told),
        distinct=len({digest(t) for t in texts}),
        top_start=_top(Counter(start_of(t) for t in texts), len(texts)),
        top_opener=_top(state.story.openers, total),
        top_frame=_top(state.story.frames, total),
        top_tail=_top_phrase(state, TAILS),
        top_motive=_top_phrase(state, MOTIVES),
        longest_moves=state.story.longest_moves,
        with_card=len(carded),
        naming_element=sum(1 for e in carded if names_element(e)),
        someone=sum(1 for e in told if e.character and "someone" in _own_words(e)),
        line_hits=sum(1 for t in texts if safety.hits_line(t)),
        sentences_max=max(
            (t.count(". ") + t.count("? ") + t.count("! ") + 1 for t in texts), default=0
        ),
    )
