"""What the storyteller remembers, kept in the game state (``WinterState.story``).

The memory is part of the state, so it is committed with every move, survives a restart
and is rebuilt exactly by a replay of the action log: an AI passage is chosen from the
state and a seed its action carries (:class:`StoryMark`), and the engine records the mark
when it applies the action. Nothing of it is secret: frames, openers and digests of
passages already in the public story, deeds done in public.

>>> m = StoryMemory()
>>> m.record(StoryMark(seed=1, frame="f01", opener="Out of the fog,"), "Out of the fog, Alice ran.")
>>> m.passages, m.frames, m.starts
(1, {'f01': 1}, {'out of the': 1})
>>> m.seen("Out of the  fog, alice ran.")
True
"""

from __future__ import annotations

import hashlib
import re

from pydantic import BaseModel, Field

DEEDS_KEPT = 3
"""Deeds remembered per character (the latest ones: a passage recalls one)."""
RECENT = 40
"""A tail or a motive is not said again within this many AI passages (so none comes
back more than once in 40, under the issue's 3 % of a game)."""

_WORD = re.compile(r"[a-z0-9']+")


def words_of(text: str) -> list[str]:
    """The lower-case words of ``text`` (apostrophes kept: "wolf's")."""
    return _WORD.findall(text.lower())


def start_of(text: str) -> str:
    """The first three words: what the issue measured as a passage's opener."""
    return " ".join(words_of(text)[:3])


def digest(text: str) -> str:
    """A short fingerprint of a passage, blind to case, spacing and punctuation."""
    return hashlib.blake2s(" ".join(words_of(text)).encode(), digest_size=6).hexdigest()


def act_key(act: str) -> str:
    """A short key for the verb phrase a passage used (counted like frames)."""
    return hashlib.blake2s(act.encode(), digest_size=4).hexdigest()


class StoryMark(BaseModel):
    """Carried by an AI seat's action: how its passage was written (checked by the engine,
    which writes the same passage from the same seed before accepting it)."""

    seed: int = Field(ge=0)
    frame: str
    opener: str | None = None
    act: str | None = None
    """:func:`act_key` of the verb phrase used."""
    phrases: list[str] = Field(default_factory=list)
    """The phrase-bank choices a passage made, as ``rule:alternative`` (its tail, its
    motive...): remembered so that none comes back soon."""


def phrase_key(rule: str, alternative: str) -> str:
    """How a phrase-bank choice is remembered: its rule (which keeps "watch" tails apart
    from "motive" ones in the figures) and a short key of its words.

    >>> phrase_key("watch", "Somewhere in {place}, a door closed softly.")[:6]
    'watch:'
    """
    return f"{rule}:{act_key(alternative)}"


class Walk(BaseModel):
    """A figure on the move: the steps of one activation's movement so far (public: every
    step is on the board). Steps nobody told are folded into the walker's next passage."""

    character: str
    steps: int = 0
    told: int = 0
    """Steps that had a passage of their own."""
    visited: list[str] = Field(default_factory=list)
    """Where the walk began, then every space entered up to its last told passage."""
    silent: list[str] = Field(default_factory=list)
    """Spaces entered, in order, since the walk's last told passage."""


class StoryMemory(BaseModel):
    passages: int = 0
    """AI passages written so far."""
    frames: dict[str, int] = Field(default_factory=dict)
    openers: dict[str, int] = Field(default_factory=dict)
    acts: dict[str, int] = Field(default_factory=dict)
    starts: dict[str, int] = Field(default_factory=dict)
    """First three words of each AI passage, counted."""
    digests: list[str] = Field(default_factory=list)
    """Every AI passage's :func:`digest` (none may come twice)."""
    deeds: dict[str, list[str]] = Field(default_factory=dict)
    """character -> its latest deeds, as codes ``kind|space|other`` (public facts)."""
    avoid: list[str] = Field(default_factory=list)
    """Words taken out of the story (an X-carded or struck passage): never said again."""
    phrases: dict[str, int] = Field(default_factory=dict)
    """:func:`phrase_key` -> how many AI passages used it."""
    last: dict[str, int] = Field(default_factory=dict)
    """:func:`phrase_key` (and ``frame:<id>``) -> the AI passage that last used it."""
    walk: Walk | None = None
    """The movement in progress, if the last thing done was a step."""
    moves_in_row: int = 0
    """Told passages in a row that were movements (the run so far)."""
    longest_moves: int = 0
    """The longest such run in the game (what the benchmark prints)."""

    def record(self, mark: StoryMark, text: str) -> None:
        self.passages += 1
        for key in (*mark.phrases, f"frame:{mark.frame}"):
            if not key.startswith("frame:"):
                self.phrases[key] = self.phrases.get(key, 0) + 1
            self.last[key] = self.passages
        self.frames[mark.frame] = self.frames.get(mark.frame, 0) + 1
        if mark.opener is not None:
            self.openers[mark.opener] = self.openers.get(mark.opener, 0) + 1
        if mark.act is not None:
            self.acts[mark.act] = self.acts.get(mark.act, 0) + 1
        start = start_of(text)
        self.starts[start] = self.starts.get(start, 0) + 1
        self.digests.append(digest(text))

    def seen(self, text: str) -> bool:
        return digest(text) in self.digests

    def recent(self, key: str, within: int = RECENT) -> bool:
        """``key`` was used by one of the last ``within`` AI passages."""
        used = self.last.get(key)
        return used is not None and self.passages - used < within

    def told(self, move: bool) -> None:
        """A passage went into the story (anyone's): count the run of movement passages."""
        self.moves_in_row = self.moves_in_row + 1 if move else 0
        self.longest_moves = max(self.longest_moves, self.moves_in_row)

    def step(self, character: str, start: str, to: str, told: bool) -> None:
        """``character`` went from ``start`` into ``to`` (told in a passage of its own, or
        not)."""
        if self.walk is None or self.walk.character != character:
            self.walk = Walk(character=character, visited=[start])
        self.walk.steps += 1
        if told:
            self.walk.told += 1
            self.walk.visited += [*self.walk.silent, to]
            self.walk.silent = []
        else:
            self.walk.silent.append(to)

    def stop(self) -> None:
        """The walker did something else (or someone did): the journey is over."""
        self.walk = None

    def note_deed(self, character: str, code: str) -> None:
        kept = [*self.deeds.get(character, []), code][-DEEDS_KEPT:]
        self.deeds[character] = kept

    def take_out(self, words: list[str]) -> None:
        self.avoid = sorted({*self.avoid, *words})
