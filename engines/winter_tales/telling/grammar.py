"""A small grammar engine: a frame's ``<rule>`` and ``{slot}`` parts filled in order.

* ``<name>`` expands one alternative of the rule ``name`` (``<name_cap>``: capitalised);
  alternatives whose slots the moment cannot fill are never chosen.
* ``{slot}`` is a value of the moment (``{slot_cap}``: capitalised). A person slot is
  tracked: ``{actor}`` names the actor the first time and says "she", "he" or "they"
  afterwards (``{actor:obj}``, ``{actor:pos}`` for "her", "his"...); a second person whose
  pronoun is the actor's keeps their name, so a pronoun never points two ways.
* ``{subj}``, ``{obj}``, ``{pos}``, ``{refl}`` are the actor's pronouns (used inside
  verb phrases, where the actor was just named).
* ``{was}`` (the actor) and ``{foe:was}`` (any person) agree with how the person was last
  mentioned: "the Fox and the Cat were", "they were", "Alice was", "she was".
* Alternatives in ``avoid`` (as :func:`phrase_key`) are never chosen: what the story said
  too recently. A rule left with none cannot be filled, so its frame is not offered.

>>> from engines.core import Rng
>>> alice = Person("Alice", "she")
>>> g = Grammar({"weather": ["in the snow"]}, Rng.from_seed(1))
>>> g.fill("{actor} ran <weather>; {actor} did not stop for {actor:pos} hat.",
...        {"actor": alice})
'Alice ran in the snow; she did not stop for her hat.'
>>> g.fill("{actor} met {foe}.", {"actor": alice}) is None
True
>>> pair = Person("the Fox and the Cat", "they", plural=True)
>>> g.fill("{foe_cap} {foe:was} late; {actor} was not.", {"actor": alice, "foe": pair})
'The Fox and the Cat were late; Alice was not.'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from engines.core import Rng
from engines.winter_tales.story_memory import phrase_key
from engines.winter_tales.telling.words import load_words

_TOKEN = re.compile(r"<([a-z_]+)>|\{([a-z_]+)(?::(obj|pos|was))?\}")
_PRONOUN_SLOTS = ("subj", "obj", "pos", "refl", "was")
MAX_DEPTH = 4


@dataclass(frozen=True)
class Person:
    """A character as the text names it (mid-sentence form: "the Tin Man")."""

    name: str
    pronoun: str
    plural: bool = False
    """The name stands for more than one (the Fox and the Cat): "were", not "was"."""

    def form(self, form: str) -> str:
        return getattr(load_words().pronouns[self.pronoun], form)  # type: ignore[index]

    def named(self, form: str) -> str:
        if form == "was":
            return "were" if self.plural else "was"
        if form != "pos":
            return self.name
        return self.name + ("'" if self.name.endswith("s") else "'s")


Slot = str | Person


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def sentences(text: str) -> str:
    """Capitalise each sentence's first letter (names like "the Tin Man" start one); an
    ellipsis goes on with the same sentence (a card's caption: "to sleep... or the rebels").

    >>> sentences("the Tin Man waited. a melody lulls the guard to sleep... or the rebels.")
    'The Tin Man waited. A melody lulls the guard to sleep... or the rebels.'
    """
    out = re.sub(r"(^|(?<!\.\.)[.!?]\s+|^')([a-z])",
                 lambda m: m.group(1) + m.group(2).upper(), text)
    return out


def slots_of(template: str) -> set[str]:
    return {m.group(2).removesuffix("_cap") for m in _TOKEN.finditer(template) if m.group(2)}


def rules_of(template: str) -> set[str]:
    return {m.group(1).removesuffix("_cap") for m in _TOKEN.finditer(template) if m.group(1)}


@dataclass
class Grammar:
    """Rules (name -> alternatives) and a generator; :meth:`fill` writes one text."""

    rules: Mapping[str, list[str]]
    rng: Rng
    avoid: frozenset[str] = frozenset()
    """:func:`phrase_key` of alternatives never to choose."""
    choices: dict[str, str] = field(default_factory=dict)
    """The alternative each rule took in the last :meth:`fill` (the opener is counted)."""
    picked: list[tuple[str, str]] = field(default_factory=list)
    """Every (rule, alternative) the last :meth:`fill` took, in order."""

    def fill(self, template: str, slots: Mapping[str, Slot]) -> str | None:
        """``template`` written out, or None if the moment cannot fill it."""
        self.choices = {}
        self.picked = []
        mentioned: dict[Person, bool] = {}
        text = self._expand(template, slots, mentioned, 0)
        return None if text is None else sentences(" ".join(text.split()))

    def fillable(self, template: str, slots: Mapping[str, Slot], depth: int = 0) -> bool:
        if not slots_of(template) <= _available(slots):
            return False
        if depth >= MAX_DEPTH:
            return True
        return all(
            any(self.fillable(alt, slots, depth + 1) for alt in self._alternatives(r))
            for r in rules_of(template)
        )

    def _alternatives(self, rule: str) -> list[str]:
        return [a for a in self.rules.get(rule, []) if phrase_key(rule, a) not in self.avoid]

    def _expand(
        self,
        template: str,
        slots: Mapping[str, Slot],
        mentioned: dict[Person, bool],
        depth: int,
    ) -> str | None:
        out: list[str] = []
        pos = 0
        for m in _TOKEN.finditer(template):
            out.append(template[pos : m.start()])
            pos = m.end()
            rule, slot, form = m.group(1), m.group(2), m.group(3) or "subj"
            if rule:
                piece = self._rule(rule, slots, mentioned, depth)
            else:
                piece = self._slot(slot, form, slots, mentioned)
            if piece is None:
                return None
            out.append(piece)
        out.append(template[pos:])
        return "".join(out)

    def _rule(
        self, rule: str, slots: Mapping[str, Slot], mentioned: dict[Person, bool], depth: int
    ) -> str | None:
        cap = rule.endswith("_cap")
        name = rule.removesuffix("_cap")
        if depth >= MAX_DEPTH:
            return None
        alts = [a for a in self._alternatives(name) if self.fillable(a, slots, depth + 1)]
        if not alts:
            return None
        alt = self.rng.choice(alts)
        self.choices[name] = alt
        self.picked.append((name, alt))
        piece = self._expand(alt, slots, mentioned, depth + 1)
        return capitalise(piece) if cap and piece is not None else piece

    def _slot(
        self, slot: str, form: str, slots: Mapping[str, Slot], mentioned: dict[Person, bool]
    ) -> str | None:
        cap = slot.endswith("_cap")
        name = slot.removesuffix("_cap")
        if name in _PRONOUN_SLOTS and name not in slots:
            actor = slots.get("actor")
            if not isinstance(actor, Person):
                return None
            piece = _agree(actor, mentioned) if name == "was" else actor.form(name)
        else:
            value = slots.get(name)
            if value is None:
                return None
            if isinstance(value, str):
                piece = value
            elif form == "was":
                piece = _agree(value, mentioned)
            else:
                piece = _mention(value, form, mentioned)
        return capitalise(piece) if cap else piece


def _available(slots: Mapping[str, Slot]) -> set[str]:
    have = {k for k, v in slots.items() if v is not None}
    if isinstance(slots.get("actor"), Person):
        have |= set(_PRONOUN_SLOTS)
    return have


def _mention(person: Person, form: str, mentioned: dict[Person, bool]) -> str:
    """The name on a first mention; a pronoun afterwards, unless it would be ambiguous.
    ``mentioned`` keeps, for each person, whether the last mention was the name (what a
    following "was" agrees with)."""
    if person not in mentioned or any(
        p.pronoun == person.pronoun for p in mentioned if p != person
    ):
        mentioned[person] = True
        return person.named(form)
    mentioned[person] = False
    return person.form(form)


def _agree(person: Person, mentioned: dict[Person, bool]) -> str:
    """"was" or "were" for ``person`` as last mentioned (by name, or by pronoun)."""
    return person.named("was") if mentioned.get(person, True) else person.form("was")
