"""The content model of a moment: what the engine knows when an AI seat tells something.

Only public facts are read (the card being played, figures on the map, the frames of
the decision stack as everyone sees them, the public story), never a hand, the deck, a
hidden Trap card or a secret Objective, so a passage cannot give a secret away.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.core import Action, Seat
from engines.winter_tales.content import load_content
from engines.winter_tales.state import Entry, WinterState
from engines.winter_tales.telling.words import load_words

QUIET = frozenset(
    {
        "discard",
        "hide_card",
        "x_card",
        "retell",
        "ask_retell",
        "strike",
        "rule_bookmark",
        "correct_figure",
        "correct_count",
        "narrate",
    }
)
"""Actions an AI passage never goes with (no text, or the table's own tools)."""

_STORY_KINDS = ("ruling", "chapter", "setup")

STEP = "move"
"""A movement step: the first of a walk keeps this kind, or is "move.meanwhile" after
another figure's movement passage; the next ones are :data:`ONWARD`."""
ONWARD = (STEP + ".on", STEP + ".back")
"""A later step of a walk: on to a new space, or back to one it was in."""


@dataclass(frozen=True)
class Moment:
    kind: str
    """The action's kind, refined by where it happens ("done.quest", "tell.battle_end")."""
    seat: Seat
    faction: str
    actor: str | None = None
    place: str | None = None
    to: str | None = None
    others: tuple[str, ...] = ()
    foe: str | None = None
    target: str | None = None
    card: str | None = None
    side: str | None = None
    context: str | None = None
    """quest, battle, trap, save or epilogue: what is in progress."""
    quest: str | None = None
    """The Quest in progress (or being generated), a Quest id."""
    quest_around: str | None = None
    """A Quest being placed under this character's figure..."""
    quest_in: str | None = None
    """...or in this Location."""
    chapter: int = 0
    memory: str | None = None
    """The bookmarked Memory, as a phrase."""
    prev_actor: str | None = None
    prev_card: str | None = None
    deed: str | None = None
    """The actor's latest earlier deed (a code ``kind|space|other|quest``)."""
    topics: tuple[str, ...] = field(default_factory=tuple)
    walk_told: int = 0
    """Steps of the actor's movement in progress that had a passage of their own."""
    route: tuple[str, ...] = ()
    """Spaces the actor entered since the walk's last told passage (untold steps)."""
    visited: tuple[str, ...] = ()
    """Where the actor's walk began, and the spaces it entered before ``route``."""
    met: str | None = None
    """Who a step leads to: a figure of the other side, or a fallen friend, at ``to``."""
    notable: bool = False
    """The step leads somewhere that matters: ``met``, or a Quest of the actor's side."""
    untold: bool = False
    """The rules keep no passage for this action: an interrupt declined (the walker goes
    on), an invitation to join the Quest declined."""

    @property
    def act_keys(self) -> list[str]:
        base = self.kind.split(".")[0]
        keys = [self.kind]
        if base == "start_quest" and self.memory is not None:
            keys.insert(0, "start_quest.bookmark")
        if base == "choose_memory" and self.card is not None:
            keys.insert(0, "choose_memory.card")
        if base != self.kind:
            keys.append(base)
        return keys


def thing_of(card: str | None) -> str | None:
    """The card's image named as a thing ("the paper lantern"), for a Story card."""
    if card is None:
        return None
    c = load_content()
    try:
        title = c.story_card(card).title
    except ValueError:
        return None
    return title.lower() if title.startswith("The ") else "the " + title.lower()


def build(state: WinterState, seat: Seat, action: Action) -> Moment | None:
    """The moment ``action`` of ``seat`` happens in, or None when nothing is told."""
    kind: str = getattr(action, "kind", "")
    if kind in QUIET or "text" not in type(action).model_fields:
        return None
    state.stack[-1] if state.stack else None
    quest_frame = next((f for f in reversed(state.stack) if f.kind == "quest"), None)
    context = _context(state)
    actor = _actor(state, seat, action)
    fig = state.figures.get(actor) if actor else None
    place = fig.space if fig is not None else None
    foe, target = _foe(state, seat, action, actor), _target(state, action)
    # only characters of this game are named (a frame may hold an empty id)
    foe = foe if foe in state.figures else None
    target = target if target in state.figures else None
    refined = _refine(state, kind, action)
    card = getattr(action, "card", None) if kind in ("play_card", "choose_memory") else None
    if card is not None and thing_of(card) is None:
        card = None
    quest = quest_frame.quest if quest_frame is not None else None
    around = where = None
    if kind in ("generate_quest", "place_quest"):
        counter = getattr(action, "counter", "")
        quest = load_content().quest_counter(counter).quest
        tgt = getattr(action, "target", "")
        around, where = (tgt, None) if tgt in state.figures else (None, tgt)
    if kind == "start_quest":
        quest = next(
            (q.quest for q in state.quests if q.counter == getattr(action, "counter", None)), None
        )
    if kind == "choose_character":
        place = getattr(action, "space", None)
    prev = _previous(state)
    others = tuple(
        sorted(
            f.id
            for f in state.figures.values()
            if f.in_play
            and place is not None
            and f.space == place
            and f.id not in (actor, foe, target)
        )
    )
    deeds = state.story.deeds.get(actor or "", [])
    topics = [kind.split(".")[0], *(f"quest.{quest}" for _ in [0] if quest)]
    walk = state.story.walk if state.story.walk and state.story.walk.character == actor else None
    to = getattr(action, "to", None) or _relocation(action)
    met, notable = _arrival(state, actor, to) if kind == STEP else (None, False)
    if kind == STEP:
        back = walk is not None and to in (*walk.visited, *walk.silent)
        refined = _step_kind(state, walk is not None and walk.told > 0, back)
    return Moment(
        kind=refined,
        seat=seat,
        faction=_faction(state, seat, actor),
        actor=actor,
        place=place,
        to=to,
        others=others,
        foe=foe,
        target=target,
        card=card,
        side=getattr(action, "side", None),
        context=context,
        quest=quest
        if (quest_frame is not None or kind in ("generate_quest", "place_quest", "start_quest"))
        else None,
        quest_around=around,
        quest_in=where,
        chapter=state.chapter,
        memory=_bookmark(state),
        prev_actor=prev.character if prev is not None and prev.character != actor else None,
        prev_card=prev.card if prev is not None else None,
        deed=deeds[-1] if deeds else None,
        topics=tuple(t for t in (*topics, context or "") if t),
        walk_told=walk.told if walk is not None else 0,
        route=tuple(walk.silent) if walk is not None else (),
        visited=tuple(walk.visited) if walk is not None else (),
        met=met,
        notable=notable,
        untold=kind == "pass" and _declined_offer(state),
    )


# --------------------------------------------------------------------------- walks


def step_of(state: WinterState, action: Action) -> tuple[str, str, str] | None:
    """(character, from, to) of a movement step ``action`` is about to make, else None."""
    top = state.stack[-1] if state.stack else None
    if getattr(action, "kind", "") != STEP or top is None or top.kind != "activation":
        return None
    character: str = top.character  # type: ignore[union-attr]
    return character, state.figures[character].space or "", getattr(action, "to", "")


def lets_pass(state: WinterState, action: Action) -> bool:
    """``action`` declines an interrupt: the moving figure goes on, its walk with it."""
    top = state.stack[-1] if state.stack else None
    return getattr(action, "kind", "") == "pass" and top is not None and top.kind == "interrupt"


def _declined_offer(state: WinterState) -> bool:
    """A Pass here declines an interrupt or joining the Quest: nothing of it is told."""
    top = state.stack[-1] if state.stack else None
    if top is None:
        return False
    return top.kind == "interrupt" or (top.kind == "quest" and top.stage == "join")  # type: ignore[union-attr]


def _step_kind(state: WinterState, walking: bool, back: bool) -> str:
    """A later step of a told walk goes on (or back, to a space it was in), a first step
    right after another figure's movement passage happens meanwhile."""
    if walking:
        return STEP + (".back" if back else ".on")
    return STEP + ".meanwhile" if state.story.moves_in_row else STEP


def _arrival(state: WinterState, actor: str | None, to: str | None) -> tuple[str | None, bool]:
    """Who the step leads to (a figure of the other side, else a fallen friend), and
    whether the step matters to the story: someone met, or a Quest of the actor's side."""
    fig = state.figures.get(actor or "")
    if fig is None or to is None:
        return None, False
    there = sorted(
        (f for f in state.figures.values() if f.in_play and f.space == to and f.id != fig.id),
        key=lambda f: f.id,
    )
    foes = [f.id for f in there if f.faction != fig.faction]
    fallen = [f.id for f in there if f.faction == fig.faction and f.incapacitated]
    met = (foes or fallen or [None])[0]
    quest = any(q.space == to and q.faction == fig.faction for q in state.quests)
    return met, met is not None or quest



# --------------------------------------------------------------------------- parts


def _context(state: WinterState) -> str | None:
    for f in reversed(state.stack):
        if f.kind in ("battle", "trap", "epilogue", "quest"):
            return f.kind
        if f.kind == "pay" and f.purpose == "save":
            return "save"
    return None


def _faction(state: WinterState, seat: Seat, actor: str | None) -> str:
    if actor is not None:
        return state.figures[actor].faction
    return state.factions[seat]


def _own_recent(state: WinterState, seat: Seat, mine: bool) -> str | None:
    """The character of ``seat`` (or, ``mine=False``, of another seat) last in the story."""
    for e in reversed(state.transcript):
        fig = state.figures.get(e.character or "")
        if fig is None or not fig.in_play:
            continue
        if (fig.owner == seat) == mine:
            return fig.id
    return None


def _first_of(state: WinterState, seat: Seat) -> str | None:
    figs = sorted(f.id for f in state.figures.values() if f.owner == seat and f.in_play)
    return figs[0] if figs else None


def _actor(state: WinterState, seat: Seat, action: Action) -> str | None:
    a: object = action
    for attr in ("savior",):
        if getattr(a, attr, None):
            return getattr(a, attr)  # type: ignore[no-any-return]
    kind = getattr(a, "kind", "")
    if kind in (
        "choose_character",
        "activate",
        "battle",
        "trap",
        "step_in",
        "use_artefact",
        "free_round",
        "return_tale",
    ):
        return getattr(a, "character", None)
    top = state.stack[-1] if state.stack else None
    if top is not None:
        k = top.kind
        if k == "activation":
            return top.character  # type: ignore[union-attr]
        if k == "quest":
            if top.stage == "step_play" and top.stepper_character:  # type: ignore[union-attr]
                return top.stepper_character  # type: ignore[union-attr]
            if top.seat == seat or top.stage in ("end", "memory", "last"):  # type: ignore[union-attr]
                return top.character  # type: ignore[union-attr]
        # A Freezing Horror fights without a Soldier (``soldier == ""``): Winter's side
        # of that Battle has no character to name.
        if k == "battle":
            return (top.soldier if top.turn == "winter" else top.fairy) or None  # type: ignore[union-attr]
        if k == "trap":
            return (top.soldier if top.stage == "defend" else top.fairy) or None  # type: ignore[union-attr]
        if k == "pay":
            return top.savior or top.target  # type: ignore[union-attr]
        if k == "interrupt":
            mine = top.offers.get(seat) or top.offers.get(str(seat))  # type: ignore[union-attr,call-overload]
            if mine:
                return mine[0]  # type: ignore[no-any-return]
        if k == "offer" and top.character and state.figures[top.character].owner == seat:  # type: ignore[union-attr]
            return top.character  # type: ignore[union-attr]
        if k == "power":
            return top.first or (top.participants[0] if top.participants else None)  # type: ignore[union-attr]
        if k == "tell" and top.character:  # type: ignore[union-attr]
            return top.character  # type: ignore[union-attr]
    return _own_recent(state, seat, True) or _first_of(state, seat)


def _foe(state: WinterState, seat: Seat, action: Action, actor: str | None) -> str | None:
    top = state.stack[-1] if state.stack else None
    if top is not None and top.kind in ("battle", "trap"):
        pair = {top.soldier, top.fairy} - {""}  # type: ignore[union-attr]
        rest = pair - {actor}
        return next(iter(rest)) if len(rest) == 1 else None
    if top is not None and top.kind == "interrupt":
        return top.mover  # type: ignore[union-attr]
    if top is not None and top.kind == "offer" and top.offer == "relocate":  # type: ignore[union-attr]
        return top.character  # type: ignore[union-attr]
    if top is not None and top.kind == "tell" and top.purpose in ("battle_end", "trap_end"):  # type: ignore[union-attr]
        return _own_recent(state, seat, False)
    return None


def _target(state: WinterState, action: Action) -> str | None:
    tgt = getattr(action, "target", None)
    if (
        getattr(action, "kind", "") == "save"
        and tgt in state.figures
        and tgt != getattr(action, "savior", None)
    ):
        return tgt  # type: ignore[no-any-return]
    top = state.stack[-1] if state.stack else None
    if top is not None and top.kind == "pay" and top.target and top.target != top.savior:  # type: ignore[union-attr]
        return top.target  # type: ignore[union-attr]
    return None


def _relocation(action: Action) -> str | None:
    if getattr(action, "kind", "") in ("relocate", "return_tale"):
        return getattr(action, "space", None)
    return None


def _refine(state: WinterState, kind: str, action: Action) -> str:
    top = state.stack[-1] if state.stack else None
    where = top.kind if top is not None else ""
    if kind == "play_card":
        card = getattr(action, "card", "")
        try:
            return "card." + load_words().card(card).element
        except ValueError:
            return "card.object"
    if kind == "tell":
        if where == "tell":
            return "tell." + top.purpose  # type: ignore[union-attr]
        if where == "quest":
            return "tell.quest_end" if top.stage != "intro" else "tell.quest_intro"  # type: ignore[union-attr]
        if where == "epilogue":
            return "tell.conclusion"
        return "tell"
    if kind in ("done", "pass"):
        ctx = {
            "activation": "activation",
            "quest": "quest",
            "trap": "trap",
            "battle": "battle",
            "epilogue": "epilogue",
            "interrupt": "interrupt",
        }.get(where)
        return f"{kind}.{ctx}" if ctx else kind
    if kind == "save" and getattr(action, "target", None) == getattr(action, "savior", None):
        return "save.self"
    return kind


def _previous(state: WinterState) -> Entry | None:
    """The last passage told and still in the story (hidden or struck ones are not)."""
    for e in reversed(state.transcript):
        if (
            e.text
            and not e.hidden
            and not e.struck
            and e.kind not in _STORY_KINDS
            and e.seat is not None
        ):
            return e
    return None


def _bookmark(state: WinterState) -> str | None:
    if state.bookmark is None:
        return None
    m = next((m for m in state.memories if m.slot == state.bookmark), None)
    if m is None:
        return None
    thing = thing_of(m.card)
    if thing is not None:
        return thing
    if m.counter is not None:
        quest = load_content().quest_counter(m.counter).quest
        return load_words().quests[quest].goal
    return None


DEED_KINDS = frozenset(
    {
        "battle",
        "trap",
        "save",
        "start_quest",
        "take_part",
        "step_in",
        "generate_quest",
        "return_tale",
        "use_artefact",
        "relocate",
        "choose_memory",
    }
)


def deed_of(state: WinterState, seat: Seat, action: Action) -> tuple[str, str] | None:
    """(character, code) of the deed ``action`` is about to do, for the storyteller's
    memory: the acting character, the kind, the space, the other character and Quest."""
    kind = getattr(action, "kind", "")
    if kind not in DEED_KINDS:
        return None
    m = build(state, seat, action)
    if m is None or m.actor is None:
        return None
    other = m.foe or m.target or ""
    if kind == "save" and other in ("", m.actor):
        kind, other = "save_self", ""
    space = m.to if kind == "relocate" else (m.place or "")
    return m.actor, f"{kind}|{space or ''}|{other}|{m.quest or ''}"
