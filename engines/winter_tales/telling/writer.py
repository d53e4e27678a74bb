"""The storyteller: an AI seat's passage for the moment, and the engine's retelling.

:func:`compose` builds the moment, offers it the frames it can fill, writes a handful of
candidates and keeps the one least like what this game has already read: the frame, the
opener and the first three words least used (``WinterState.story``), no tail or motive
said in the last :data:`RECENT` passages, no content word twice in one passage, never a
passage already told, never a word of a line, a veil or what the table took out. A
moment that touches a veil fades to black instead.

A walk is told as a journey: its first step has a passage, a later step only when it
leads to someone (or to a Quest of the walker's side), at most :data:`TOLD_STEPS` in all;
the other steps are left untold (the rules make telling a movement optional) and the
walker's next passage folds them in as its route ("After pacing back and forth between
Soot Square and the Asylum, Candlewick went still"). A declined interrupt lets the walk
go on (the rules keep no passage for it, so none is written).

Everything is drawn from ``Rng(seed)`` and the state, so the engine can write the same
passage again to check an AI seat's mark, and a replay writes it again exactly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from engines.core import Action, Rng, Seat
from engines.winter_tales.content import load_content
from engines.winter_tales.state import Entry, WinterState
from engines.winter_tales.story_memory import (
    RECENT,
    StoryMark,
    StoryMemory,
    act_key,
    phrase_key,
    words_of,
)
from engines.winter_tales.telling.grammar import Grammar, Person, Slot, capitalise
from engines.winter_tales.telling.moment import ONWARD, STEP, Moment, build, thing_of
from engines.winter_tales.telling.safety import Safety, stem
from engines.winter_tales.telling.words import TellingWords, load_words

CANDIDATES = 8
"""Passages written for one moment before the least repetitive is kept."""
ATTEMPTS = 40
MAX_SENTENCES = 3
MAX_CHARS = 360
DEEDS_CHARS = 130
"""Room for the winners' deeds in an ending, so that its longest shape stays within
:data:`MAX_CHARS`."""
UNNAMED = 6.0
"""Score added to a card's passage that does not name the card's image."""
STAKES = {
    "stake": "quest",
    "battle_stake": "battle",
    "trap_stake": "trap",
    "save_stake": "save",
    "epilogue_stake": "epilogue",
}
"""Rules that say what is at stake, each offered only in its own context."""
TAILS = ("watch", "resolve", "company")
"""The rules that end (or lead) a passage with a small scene: what the figures count."""
MOTIVES = ("motive",)
HELD_BACK = TAILS + MOTIVES
"""Rules whose alternatives are never said again within :data:`RECENT` passages."""
SOON = 12
"""A frame or phrase used within this many passages costs :data:`SOON_COST` more."""
SOON_COST = 3.0
TOLD_STEPS = 2
"""Steps of one walk told in passages of their own; the rest fold into the next one."""
WINTER_MASTER = "mangiafuoco"
"""Whom the Soldiers answer to (a Winter motive names him: "since he expected results"
when he is the one acting)."""
ROUTE_PLACES = 3
"""Places a folded route names at most (the last ones the walker went through)."""

_STUTTER = re.compile(r"\b(\w+)\s+\1\b", re.IGNORECASE)
"""A word said twice in a row ("nothing more to answer with with a glance")."""

_Choice = tuple[str, str, str | None, str | None, list[str]]
"""text, frame, opener, act (key), phrase keys."""


def _stake_context(moment: Moment) -> str | None:
    if moment.kind.split(".")[0] in ("pass", "done") or moment.kind.startswith("tell."):
        return None
    return moment.context


@dataclass(frozen=True)
class Passage:
    text: str
    mark: StoryMark


@dataclass(frozen=True)
class _Shape:
    id: str
    text: str
    weight: float


def compose(state: WinterState, seat: Seat, action: Action, seed: int) -> Passage | None:
    """The AI passage for ``action`` of ``seat`` (None: nothing to tell, or nothing the
    table's lines allow)."""
    moment = build(state, seat, action)
    if moment is None or folded(moment):
        return None
    safety = Safety.of(state.options.lines, state.options.veils, state.story.avoid)
    rng = Rng.from_seed(seed)
    words = load_words()
    slots = _slots(state, moment, safety)
    best = None
    for shapes in _shapes(words, moment, safety, slots):
        best = _choose(state.story, shapes, slots, safety, rng, words, moment)
        if best is not None:
            break
    if best is None:
        best = _choose(
            state.story,
            _list("retell", words.retell),
            slots,
            safety,
            rng,
            words,
            moment,
            act_keys=["retell"],
        )
    if best is None:
        return None
    text, frame, opener, act, phrases = best
    mark = StoryMark(seed=seed, frame=frame, opener=opener, act=act, phrases=phrases)
    return Passage(text, mark)


def folded(moment: Moment) -> bool:
    """Nothing to tell now: a later step of a walk that leads nowhere in particular (or
    one past :data:`TOLD_STEPS`), whose route the walker's next passage tells; or a
    declined offer, whose passage the rules would not keep (a passage written for it
    would count in the storyteller's memory and never be read)."""
    if moment.kind in ONWARD:
        return not moment.notable or moment.walk_told >= TOLD_STEPS
    return moment.untold


def retell(state: WinterState, entry: Entry) -> tuple[str, StoryMark] | None:
    """The engine's retelling of an AI passage the X-card (or the Arbiter) sent back: the
    same moment (the character, the place), none of the hidden passage's own words."""
    words = load_words()
    keep = _names_and_places()
    hidden = {stem(w) for w in words_of(entry.text or "")} - keep
    safety = Safety.of(state.options.lines, state.options.veils, [*state.story.avoid, *hidden])
    seat = entry.seat if entry.seat is not None else 0
    actor = entry.character if entry.character in state.figures else None
    fig = state.figures.get(actor or "")
    moment = Moment(
        kind="retell",
        seat=seat,
        faction=fig.faction if fig else "writer",
        actor=actor,
        place=fig.space if fig else None,
        chapter=state.chapter,
    )
    seed = (entry.n * 7919 + state.story.passages * 104729 + len(state.transcript)) % (2**63)
    slots = _slots(state, moment, safety)
    best = _choose(
        state.story,
        _list("retell", words.retell),
        slots,
        safety,
        Rng.from_seed(seed),
        words,
        moment,
        act_keys=["retell"],
    )
    if best is None:
        return None
    text, frame, opener, act, phrases = best
    return text, StoryMark(seed=seed, frame=frame, opener=opener, act=act, phrases=phrases)


def taken_out(entry: Entry) -> list[str]:
    """The words of a passage the table took out (X-card, struck): never said again."""
    keep = _names_and_places() | {stem(w) for w in load_words().safety.stopwords}
    return sorted({stem(w) for w in words_of(entry.text or "") if len(w) > 3} - keep)


# --------------------------------------------------------------------------- choosing


def _choose(
    memory: StoryMemory,
    shapes: list[_Shape],
    slots: dict[str, Slot],
    safety: Safety,
    rng: Rng,
    words: TellingWords,
    moment: Moment,
    act_keys: list[str] | None = None,
) -> _Choice | None:
    acts = _acts(words, act_keys or moment.act_keys)
    rules = {
        k: v
        for k, v in words.rules.items()
        if k not in STAKES or STAKES[k] == _stake_context(moment)
    }
    route = slots.get("route_kind")
    grammar = Grammar(
        {
            **rules,
            "act": acts,
            "motive": words.rules.get(f"motive_{moment.faction}", []),
            "route_lead": words.rules.get(f"route_lead_{route}", []),
            "route_walk": words.rules.get(f"route_walk_{route}", []),
        },
        rng,
        avoid=frozenset(
            k for k in memory.last if k.split(":")[0] in HELD_BACK and memory.recent(k, RECENT)
        ),
    )
    deed = slots.get("deed")
    deed_key = phrase_key("deed", deed) if isinstance(deed, str) else None
    if deed_key is not None and memory.recent(deed_key, RECENT):
        # the same deed recalled twice running ("Having stepped into the Quest...")
        shapes = [s for s in shapes if "{deed}" not in s.text]
    usable = [s for s in shapes if grammar.fillable(_with_act(s.text), slots)]
    thing = slots.get("thing")
    found: list[tuple[float, str, str, str | None, str | None, list[str]]] = []
    echoing: list[tuple[float, str, str, str | None, str | None, list[str]]] = []
    for _ in range(ATTEMPTS):
        if not usable or len(found) >= CANDIDATES:
            break
        shape = _pick(usable, memory, rng)
        text = grammar.fill(_with_act(shape.text), slots)
        opener = grammar.choices.get("opener")
        act = grammar.choices.get("act")
        if text is None or not _acceptable(text, safety, memory, slots):
            continue
        phrases = [phrase_key(rule, alt) for rule, alt in grammar.picked]
        # a frame and its twin with an opener in front say the same sentence
        phrases.append(phrase_key("body", shape.text.removeprefix("<opener> ").lower()))
        if deed_key is not None and isinstance(deed, str) and deed in text:
            phrases.append(deed_key)
        score = (
            4.0 * memory.frames.get(shape.id, 0)
            + 4.0 * (memory.openers.get(opener, 0) if opener else 0)
            + 4.0 * memory.starts.get(" ".join(words_of(text)[:3]), 0)
            + 2.0 * (memory.acts.get(act_key(act), 0) if act else 0)
            + sum(memory.phrases.get(k, 0) for k in phrases if not k.startswith("act:"))
            + SOON_COST * sum(memory.recent(k, SOON) for k in (f"frame:{shape.id}", *phrases))
            + (UNNAMED if isinstance(thing, str) and thing not in text.lower() else 0.0)
            + rng.random()
        )
        row = (score, text, shape.id, opener, act_key(act) if act else None, phrases)
        # a passage saying a word twice is kept only for want of any other
        (echoing if echoes(text, slots) else found).append(row)
    if not found:
        found = echoing
    if not found:
        return None
    _, text, frame, opener, act, phrases = min(found)
    return text, frame, opener, act, phrases


def _with_act(template: str) -> str:
    return template.replace("{act}", "<act>")


def _pick(shapes: list[_Shape], memory: StoryMemory, rng: Rng) -> _Shape:
    weights = [s.weight / (1 + memory.frames.get(s.id, 0)) ** 2 for s in shapes]
    return rng.weighted(shapes, weights)  # type: ignore[no-any-return]


def _acceptable(text: str, safety: Safety, memory: StoryMemory, slots: dict[str, Slot]) -> bool:
    if not safety.allows(text) or memory.seen(text) or len(text) > MAX_CHARS:
        return False
    if _STUTTER.search(text):  # "nothing more to answer with with a glance"
        return False
    if sum(text.count(p) for p in (". ", "? ", "! ")) + 1 > MAX_SENTENCES:
        return False
    low = text.lower()
    for key in ("place_name", "thing", "to_name"):
        value = slots.get(key)
        if isinstance(value, str) and low.count(value.lower()) > 1:
            return False
    return True


def echoes(text: str, slots: dict[str, Slot]) -> bool:
    """The passage says one content word twice ("held back; she did not look back"):
    names, short and common words (``echo_stopwords``) may come back. The card's printed
    title and caption are the card's own words (they may share one: "the crown of ice",
    "the Queen of Winter's crown"), but the storyteller's words may not echo them.

    >>> echoes("Alice held back; she did not look back.", {})
    True
    >>> echoes("Alice held back; she did not turn round.", {})
    False
    >>> card = {"thing": "the hot soup", "caption": "soup that sends its eater to sleep"}
    >>> echoes("Alice found the hot soup: soup that sends its eater to sleep.", card)
    False
    >>> echoes("When the soup had gone cold, Alice found the hot soup.", card)
    True
    """
    free = _echo_free()
    low = text.lower()
    card = [str(slots.get(k) or "") for k in ("thing", "caption")]
    # the card's words, and a person named by an epithet ("the girl back from
    # Wonderland"), are taken out: what is left is the storyteller's own
    for part in (*card, *(w.name for w in slots.values() if isinstance(w, Person))):
        if part:
            low = low.replace(part.lower(), " ")
    own = _counts(low, free)
    printed = _counts(" ".join(card), free)
    return any(n > 1 or w in printed for w, n in own.items())


@cache
def _echo_free() -> frozenset[str]:
    """Words any passage may say twice: names, stopwords (built once)."""
    words = load_words()
    return _names_and_places() | {
        stem(w) for w in (*words.safety.stopwords, *words.echo_stopwords)
    }


def _counts(text: str, free: frozenset[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for w in words_of(text):
        s = stem(w)
        if len(w) >= 4 and s not in free:
            out[s] = out.get(s, 0) + 1
    return out


def _acts(words: TellingWords, keys: list[str]) -> list[str]:
    for key in keys:
        if key in words.acts:
            return list(words.acts[key])
    return list(words.acts["tell"])


def _list(prefix: str, texts: list[str]) -> list[_Shape]:
    return [_Shape(f"{prefix}{i + 1:02d}", t, 1.0) for i, t in enumerate(texts)]


def _shapes(
    words: TellingWords, moment: Moment, safety: Safety, slots: dict[str, Slot]
) -> list[list[_Shape]]:
    """The frames to try, in order (the next list when none of one can be written)."""
    if moment.kind == "tell.intro":
        return [_list("intro", words.intro)]
    if moment.kind == "tell.conclusion":
        return [_list("ending", words.endings)]
    material = [m for m in (_caption(moment), thing_of(moment.card)) if m]
    topics = [t for t in (*moment.topics, moment.kind.split(".")[0]) if t]
    kinds = {moment.kind, moment.kind.split(".")[0]}
    topic_keys = [k for t in topics for k in words.safety.kind_topics.get(t, [])]
    if moment.actor is not None and safety.veiled_moment(material, topic_keys):
        return [_list("fade", words.fade)]
    base = "play_card" if moment.kind.startswith("card.") else None
    general = [
        _Shape(f.id, f.text, f.weight)
        for f in words.frames
        if f.kinds is None or base in f.kinds or kinds & set(f.kinds)
    ]
    linked = []
    if "route_kind" in slots:
        linked.append(_list("journey", words.journey))
    if moment.kind in ONWARD:
        linked.append(_list("onward", words.onward))
    if moment.kind == STEP + ".meanwhile":
        linked.append(_list("meanwhile", words.meanwhile))
    return [*linked, general]


# --------------------------------------------------------------------------- slots


@cache
def _names_and_places() -> frozenset[str]:
    """The stems of every character's and space's name (built once: the content is fixed)."""
    c = load_content()
    names = [ch.name for ch in c.characters] + [s.name for s in c.map.spaces]
    return frozenset(stem(w) for n in names for w in words_of(n))


def _person(character: str, safety: Safety) -> Person:
    """The character as named in text; an epithet when the name itself touches a line."""
    words = load_words()
    name = load_content().character(character).name
    options = [name, *words.characters[character].epithets]
    chosen = next((o for o in options if safety.allows(o)), options[-1])
    if chosen.startswith("The "):
        chosen = "the " + chosen[4:]
    plural = load_content().character(character).plural
    return Person(chosen, words.characters[character].pronoun, plural)


def _place(space: str | None, safety: Safety) -> str | None:
    if space is None:
        return None
    name = load_content().map.space(space).name
    alt = load_words().places[space]
    chosen = name if safety.allows(name) else alt
    return "the " + chosen[4:] if chosen.startswith("The ") else chosen


def _caption(moment: Moment) -> str | None:
    if moment.card is None or moment.side not in ("spring", "winter"):
        return None
    cap = load_content().story_card(moment.card).side(moment.side).caption  # type: ignore[arg-type]
    cap = cap.rstrip(".!?,;: ")
    return cap[:1].lower() + cap[1:]


def _deed(moment: Moment, safety: Safety) -> str | None:
    if moment.deed is None:
        return None
    kind, space, other, quest = ([*moment.deed.split("|"), "", "", ""])[:4]
    template = load_words().deeds.get(kind)
    if template is None:
        return None
    values = {
        "space": _place(space or None, safety),
        "quest": _goal(quest or None),
        "other": _person(other, safety).name if other else None,
    }
    if any(values[k] is None for k in ("space", "quest", "other") if "{" + k + "}" in template):
        return None
    return template.format(**{k: v or "" for k, v in values.items()})


def _goal(quest: str | None) -> str | None:
    return load_words().quests[quest].goal if quest else None


def _slots(state: WinterState, moment: Moment, safety: Safety) -> dict[str, Slot]:
    words = load_words()
    s: dict[str, Slot | None] = {}
    if moment.actor is not None:
        s["actor"] = _person(moment.actor, safety)
    for key in ("foe", "target", "prev_actor"):
        who = getattr(moment, key)
        if who is not None:
            s[key] = _person(who, safety)
    if moment.target is not None:
        forms = words.pronouns[words.characters[moment.target].pronoun]
        s["target_subj"], s["target_pos"] = forms.subj, forms.pos
    if moment.others:
        s["other"] = _person(moment.others[0], safety)
    if moment.met is not None:
        s["met"] = _person(moment.met, safety)
    s["winter_master"] = _person(WINTER_MASTER, safety)
    if moment.actor is not None and not (moment.card or moment.kind.startswith("tell")):
        s.update(_route(moment, safety))
    place = _place(moment.place, safety)
    s["place"] = s["place_name"] = place
    s["to"] = s["to_name"] = _place(moment.to, safety)
    thing = thing_of(moment.card)
    s["thing"] = thing
    s["caption"] = _caption(moment)
    if moment.card is not None:
        reading = words.card(moment.card)
        s["feeling"], s["doing"] = reading.feeling, reading.doing
    s["quest"] = _goal(moment.quest)
    if moment.quest is not None:
        s["quest_stake"] = capitalise(
            words.quests[moment.quest].stakes[
                moment.chapter % len(words.quests[moment.quest].stakes)
            ]
        )
    if moment.quest_around is not None:
        s["quest_where"] = (
            "around " + s["actor"].form("refl")  # type: ignore[union-attr]
            if moment.quest_around == moment.actor and "actor" in s
            else "around " + _person(moment.quest_around, safety).name
        )
    elif moment.quest_in is not None:
        s["quest_where"] = "in " + (_place(moment.quest_in, safety) or "")
    s["chapter"] = words.ordinals[min(max(moment.chapter, 1), len(words.ordinals)) - 1]
    s["memory"] = moment.memory
    s["prev_thing"] = thing_of(moment.prev_card)
    s["deed"] = _deed(moment, safety)
    s["faction_folk"] = words.faction_folk.get(moment.faction)
    if moment.kind == "tell.intro":
        s["quests"] = _quests_on_board(state)
    if moment.kind == "tell.conclusion":
        s.update(_ending(state, safety))
    filled = {k: v for k, v in s.items() if v is not None}
    if moment.context != "quest":
        filled.pop("quest_stake", None)
    return filled


def _route(moment: Moment, safety: Safety) -> dict[str, Slot]:
    """The untold steps of the actor's walk, as the slots of a journey passage: the kind
    of route (:data:`~engines.winter_tales.telling.words.ROUTES`) and the places it went
    through, leaving out where the actor stands and is going (the passage names those).

    >>> walk = ("mad_hatter_asylum", "soot_square", "statue_square", "soot_square",
    ...         "mad_hatter_asylum", "soot_square")
    >>> m = Moment(kind="done.activation", seat=0, faction="winter", actor="candlewick",
    ...            place="soot_square", route=walk)
    >>> _route(m, Safety.of([], [], []))
    {'route_kind': 'turns', 'route': 'Mad Hatter Asylum and Statue Square'}
    >>> _route(Moment(kind="done.activation", seat=0, faction="winter", actor="candlewick",
    ...        place="soot_square", visited=("statue_square", "mad_hatter_asylum"),
    ...        route=("statue_square", "soot_square")), Safety.of([], [], []))
    {'route_kind': 'back', 'route': 'Statue Square'}
    >>> _route(Moment(kind="done.activation", seat=0,
    ...        faction="winter", actor="candlewick", place="soot_square",
    ...        route=("soot_square",)), Safety.of([], [], []))
    {'route_kind': 'step'}
    """
    if not moment.route:
        return {}
    here = {moment.place, moment.to}
    seen = list(dict.fromkeys(moment.route))
    places = [p for p in seen if p not in here]
    if not places:
        return {"route_kind": "step"}
    names = _and_list([_place(p, safety) or "" for p in places[-ROUTE_PLACES:]])
    if len(moment.route) > len(seen) and len(places) >= 2:
        return {"route_kind": "turns", "route": names}
    if len(moment.route) > len(seen) or set(places) & set(moment.visited):
        return {"route_kind": "back", "route": names}
    return {"route_kind": "through", "route": names}


def _quests_on_board(state: WinterState) -> str | None:
    c = load_content()
    parts = []
    for q in state.quests:
        goal = load_words().quests[q.quest].goal
        where = (
            f"around {c.character(q.carrier).name}"
            if q.carrier
            else f"in {c.map.space(q.space).name}"
            if q.space
            else ""
        )
        parts.append(f"{goal} {where}".strip())
    return _and_list(parts) if parts else None


def _and_list(parts: list[str]) -> str:
    """``["a", "b", "c"]`` as "a, b and c"."""
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _won_list(won: list[tuple[str, str | None]]) -> list[str]:
    """The Quests the winners made Memories of, as few words as the ending has room for:
    each with what it is remembered as while that fits, else the Quests alone (a table
    that fills the Memory Track with one side's Memories is the usual case).

    >>> _won_list([("a safe house", "the bare tree")])
    ['a safe house, remembered as the bare tree']
    >>> _won_list([("a great artefact", "the telescope"), ("a love that melts the snow",
    ...     "the starry pond"), ("a safe house", "the bare tree"), ("a new hope", "the siren")])
    ['a great artefact, a love that melts the snow, a safe house and a new hope']
    """
    full = [goal + (f", remembered as {thing}" if thing else "") for goal, thing in won]
    if len("; ".join(full)) <= DEEDS_CHARS:
        return full
    goals = [goal for goal, _thing in won]
    while len(goals) > 1 and len(", ".join(goals)) > DEEDS_CHARS:
        goals.pop()
    return [_and_list(goals)]


def _ending(state: WinterState, safety: Safety) -> dict[str, Slot]:
    """The winners and what they did: their Memories, then a deed of one of theirs."""
    from engines.winter_tales.epilogue import winner_of

    final = state.final or {"spring": 0, "winter": 0}
    winner = winner_of(state, final)
    words = load_words()
    sides = ["spring", "winter"] if winner == "writer" else [winner]
    won: list[tuple[str, str | None]] = []
    for m in state.memories:
        if m.faction not in sides or m.counter is None:
            continue
        quest = load_content().quest_counter(m.counter).quest
        won.append((words.quests[quest].goal, thing_of(m.card)))
    deeds = _won_list(won)
    for fig in sorted(state.figures.values(), key=lambda f: f.id):
        if fig.faction in sides and state.story.deeds.get(fig.id):
            moment = Moment(
                kind="ending",
                seat=0,
                faction=fig.faction,
                actor=fig.id,
                deed=state.story.deeds[fig.id][-1],
            )
            d = _deed(moment, safety)
            if d is not None and any(goal in d for goal, _thing in won):
                continue  # "they won a great artefact; Alice had made a great artefact..."
            if d is not None:
                deed = f"{_person(fig.id, safety).name} had {d}"
                if len("; ".join([*deeds, deed])) <= DEEDS_CHARS:
                    deeds.append(deed)
                break
    label = {
        "spring": "the Fairy Tales of Spring",
        "winter": "the Soldiers of Winter",
        "writer": "the Writer, who kept Spring and Winter level",
    }[winner]
    lead = "they won " if winner != "writer" else "each side had won something: "
    listed = lead + "; ".join(deeds) if deeds else "they held on when it mattered"
    line_pool = words.ending_lines[winner]
    return {
        "winners": label,
        "deeds": listed,
        "ending": line_pool[len(state.memories) % len(line_pool)],
    }
