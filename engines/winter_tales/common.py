"""Small helpers every rules module uses: content, hands and the deck, seats, the transcript."""

from __future__ import annotations

from engines.core import Seat
from engines.winter_tales.content import Skill, WinterContent, load_content
from engines.winter_tales.content import verb as verb  # re-exported: the rules word lines
from engines.winter_tales.state import (
    Entry,
    Faction,
    Figure,
    WinterEvent,
    WinterState,
)


def content() -> WinterContent:
    return load_content()


Events = list[WinterEvent]


def event(kind: str, msg: str, *who: Seat, private: tuple[Seat, ...] | None = None,
          card: str | None = None, character: str | None = None,
          entry: int | None = None) -> WinterEvent:
    return WinterEvent(kind=kind, msg=msg, who=tuple(who), seat=who[0] if who else None,
                       visible_to=private, card=card, character=character, entry=entry)


def name_of(character: str | None) -> str:
    if character is None:
        return "someone"
    return content().character(character).name


def space_name(space: str | None) -> str:
    if space is None:
        return "nowhere"
    return content().map.space(space).name


# --------------------------------------------------------------------------- seats


def writer_seat(state: WinterState) -> Seat | None:
    for seat, faction in enumerate(state.factions):
        if faction == "writer":
            return seat
    return None


def others_clockwise(state: WinterState, seat: Seat) -> list[Seat]:
    """The other seats, starting with the one on ``seat``'s left."""
    i = state.order.index(seat)
    return [state.order[(i + k) % state.players] for k in range(1, state.players)]


def next_seat(state: WinterState, seat: Seat) -> Seat:
    i = state.order.index(seat)
    return state.order[(i + 1) % state.players]


def sides_of_seat(state: WinterState, seat: Seat) -> list[Faction]:
    f = state.factions[seat]
    return ["spring", "winter"] if f == "writer" else [f]  # type: ignore[list-item]


def figures_of(state: WinterState, seat: Seat) -> list[Figure]:
    return [f for f in state.figures.values() if f.owner == seat and not f.removed]


def figures_in(state: WinterState, space: str) -> list[Figure]:
    return [f for f in state.figures.values() if f.in_play and f.space == space]


def ready_figures(state: WinterState, seat: Seat) -> list[Figure]:
    return [f for f in figures_of(state, seat) if f.ready and f.in_play]


# --------------------------------------------------------------------------- cards


def hand(state: WinterState, seat: Seat) -> list[str]:
    return state.hands[seat]


def draw(state: WinterState, seat: Seat, n: int, ev: Events, why: str) -> int:
    """Draw ``n`` Story cards (reshuffling the discards when the deck runs out)."""
    got: list[str] = []
    for _ in range(n):
        if not state.deck and state.discard:
            state.deck = state.discard
            state.discard = []
            state.rng.shuffle(state.deck)
            ev.append(event("reshuffle", "The discarded Story cards are shuffled into a new deck."))
        if not state.deck:
            break
        got.append(state.deck.pop())
    state.hands[seat].extend(got)
    if got:
        ev.append(event("draw", f"{{0}} draws {len(got)} Story card(s) ({why}).", seat))
        ev.append(event("drew", "You drew: " + ", ".join(
            content().story_card(c).title for c in got) + ".", seat, private=(seat,)))
    return len(got)


def take(state: WinterState, seat: Seat, card: str) -> None:
    state.hands[seat].remove(card)


def to_discard(state: WinterState, cards: list[str]) -> None:
    state.discard.extend(c for c in cards if not c.startswith("memory:"))


def writer_draw(state: WinterState) -> int:
    return content().setup.writer_hand(state.players)


def chapter_draw(state: WinterState, seat: Seat) -> int:
    if state.factions[seat] == "writer":
        return writer_draw(state)
    return content().setup.end_of_chapter_draw


# --------------------------------------------------------------------------- skills


def skill(state: WinterState, character: str) -> Skill | None:
    """The character's Skill when the Skill Module is in use (and applies)."""
    if not state.options.skill:
        return None
    s = content().skill_of(character)
    if s.requires_module == "objective" and not state.options.objective:
        return None
    return s


def count_bonus(state: WinterState, character: str, kind: str) -> int:
    s = skill(state, character)
    return s.count_bonus if s is not None and s.kind == kind else 0


def spaces_per_card(state: WinterState, character: str) -> int:
    s = skill(state, character)
    if s is not None and s.kind == "move" and s.spaces_per_card:
        return s.spaces_per_card
    return content().setup.spaces_per_card


def activation_draw(state: WinterState, character: str) -> int:
    s = skill(state, character)
    extra = s.extra_draw if s is not None and s.kind == "draw" else 0
    return content().setup.activation_draw + extra


def save_cost(state: WinterState, savior: str) -> int:
    s = skill(state, savior)
    if s is not None and s.kind == "save" and s.save_cost is not None:
        return s.save_cost
    return content().setup.save_cost


# --------------------------------------------------------------------------- transcript


def tell(state: WinterState, kind: str, text: str | None, seat: Seat | None = None,
         character: str | None = None, card: str | None = None,
         side: Faction | None = None) -> Entry | None:
    """Append one entry to the story; cards carry their side's caption and image concept.

    Nothing is written for a narration left untold (no text and no card).
    """
    if text is None and card is None and side is None:
        return None
    entry = Entry(n=len(state.transcript), kind=kind, seat=seat,  # type: ignore[arg-type]
                  character=character, text=text, card=card, side=side,
                  chapter=state.chapter)
    state.transcript.append(entry)
    return entry


def card_title(card: str) -> str:
    c = content()
    if card.startswith("memory:"):
        return "a Memory"
    try:
        return c.story_card(card).title
    except ValueError:
        pass
    try:
        return c.neutral_card(card).name
    except ValueError:
        return c.objective_card(card).title


# --------------------------------------------------------------------------- board


def quest_space(state: WinterState, counter: str) -> str | None:
    for q in state.quests:
        if q.counter == counter:
            if q.carrier is not None:
                return state.figures[q.carrier].space
            return q.space
    return None


def quest_in(state: WinterState, space: str) -> list[str]:
    return [q.counter for q in state.quests if quest_space(state, q.counter) == space]
