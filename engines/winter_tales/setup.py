"""Setup (rulebook, Setup): Factions, seating, the Story Arbiter, choosing characters and
placing their figures, the two starting Quests, the opening story and the opening hands.

Project decisions where the rulebook leans on the physical table:

* "the youngest Spring player" is the first Spring seat in seat-number order; seating then
  alternates Spring and Winter clockwise, the Writer last.
* The character decks go round the table together: in seating order each player who still
  needs a character picks one of their Faction (the Writer picks from either deck while it
  still needs characters of that Faction) and places its figure at once.
"""

from __future__ import annotations

from engines.core import Rng, Seat
from engines.winter_tales import flow, quests
from engines.winter_tales.common import (
    Events,
    content,
    draw,
    event,
    name_of,
    space_name,
    tell,
    writer_draw,
    writer_seat,
)
from engines.winter_tales.state import (
    ChooseCharacter,
    DraftFrame,
    Figure,
    HeldObjective,
    PlaceQuest,
    PlaceQuestFrame,
    TellFrame,
    TurnFrame,
    WinterOptions,
    WinterState,
)


def quota(state: WinterState, seat: Seat) -> dict[str, int]:
    """Characters of each Faction the seat must control (the rulebook's table)."""
    share = content().setup.share(state.players)
    f = state.factions[seat]
    if f == "spring":
        return {"spring": share.each_spring_player, "winter": 0}
    if f == "winter":
        return {"spring": 0, "winter": share.each_winter_player}
    return {"spring": share.writer_fairy_tales, "winter": share.writer_soldiers}


def new_game(players: int, options: WinterOptions, seed: int) -> WinterState:
    c = content()
    share = c.setup.share(players)
    rng = Rng.from_seed(seed)
    counters = (["spring"] * share.spring_players + ["winter"] * share.winter_players
                + (["writer"] if share.writer else []))
    rng.shuffle(counters)
    springs = [s for s in range(players) if counters[s] == "spring"]
    winters = [s for s in range(players) if counters[s] == "winter"]
    order: list[Seat] = []
    for i in range(max(len(springs), len(winters))):
        order += springs[i:i + 1] + winters[i:i + 1]
    order += [s for s in range(players) if counters[s] == "writer"]
    arbiter = options.arbiter if options.arbiter is not None and options.arbiter < players else 0
    deck = [card.id for card in c.story_cards]
    rng.shuffle(deck)
    state = WinterState(
        players=players, seed=seed, rng=rng, options=options, length=options.length,
        factions=counters, order=order, arbiter=arbiter,  # type: ignore[arg-type]
        figures={ch.id: Figure(id=ch.id, faction=ch.faction) for ch in c.characters},
        hands=[[] for _ in range(players)], deck=deck,
    )
    need = {s: dict(quota(state, s)) for s in range(players)}
    picks: list[Seat] = []
    while any(sum(n.values()) for n in need.values()):
        for s in order:
            if sum(need[s].values()):
                picks.append(s)
                # the Writer alternates decks while it needs both
                f = "spring" if need[s]["spring"] >= need[s]["winter"] else "winter"
                need[s][f] -= 1
    safety = c.setup.safety
    tell(state, "setup", safety.lines_and_veils_intro)
    if options.lines:
        tell(state, "setup", "Lines: " + "; ".join(options.lines) + ".")
    if options.veils:
        tell(state, "setup", "Veils: " + "; ".join(options.veils) + ".")
    state.stack.append(DraftFrame(seat=picks[0], picks=picks))
    return state


def owned(state: WinterState, seat: Seat, faction: str) -> int:
    return sum(1 for f in state.figures.values() if f.owner == seat and f.faction == faction)


def draft_legal(state: WinterState, frame: DraftFrame, seat: Seat) -> list[ChooseCharacter]:
    q = quota(state, seat)
    out: list[ChooseCharacter] = []
    c = content()
    occupied = {f.space for f in state.figures.values() if f.space is not None}
    for faction in ("spring", "winter"):
        if owned(state, seat, faction) >= q[faction]:
            continue
        kind = c.setup.fairy_tale_start if faction == "spring" else c.setup.soldier_start
        spaces = [s.id for s in c.map.spaces if s.kind == kind and s.id not in occupied]
        for ch in c.characters_of(faction):  # type: ignore[arg-type]
            if state.figures[ch.id].owner is None:
                out += [ChooseCharacter(character=ch.id, space=sp) for sp in spaces]
    return out


def draft_act(state: WinterState, frame: DraftFrame, seat: Seat, action: ChooseCharacter,
              ev: Events) -> None:
    fig = state.figures[action.character]
    fig.owner = seat
    fig.space = action.space
    ev.append(event("choose_character",
                    f"{{0}} takes {name_of(fig.id)} and places the figure in "
                    f"{space_name(action.space)}.", seat, character=fig.id))
    tell(state, "setup", action.text, seat, fig.id)
    frame.index += 1
    # the Writer picks whichever Faction it still needs; recompute who picks next
    while frame.index < len(frame.picks):
        nxt = frame.picks[frame.index]
        q = quota(state, nxt)
        if any(owned(state, nxt, f) < q[f] for f in ("spring", "winter")):
            break
        frame.index += 1
    if frame.index < len(frame.picks):
        frame.seat = frame.picks[frame.index]
        return
    state.stack.pop()
    _after_draft(state, ev)


def _after_draft(state: WinterState, ev: Events) -> None:
    c = content()
    if state.options.objective:
        deal_objectives(state, ev)
    w = writer_seat(state)
    first = {f: next(s for s in state.order if state.factions[s] == f)
             for f in ("spring", "winter")}
    opener = w if w is not None else state.arbiter
    state.stack.append(TellFrame(seat=opener, purpose="intro"))
    for faction in ("winter", "spring"):
        counter = state.rng.choice([q.id for q in c.counters_of(faction)])  # type: ignore[arg-type]
        placer = w if w is not None else first[faction]
        state.stack.append(PlaceQuestFrame(seat=placer, counter=counter))


def deal_objectives(state: WinterState, ev: Events) -> None:
    """Objective Module: each player draws one of their Faction; the Writer one of each."""
    c = content()
    decks = {f: [o.id for o in c.objectives_of(f)] for f in ("spring", "winter")}  # type: ignore[arg-type]
    for d in decks.values():
        state.rng.shuffle(d)
    for seat in state.order:
        f = state.factions[seat]
        for faction in (["spring", "winter"] if f == "writer" else [f]):
            card = decks[faction].pop()
            state.objectives.append(HeldObjective(card=card, seat=seat, faction=faction))
            ev.append(event("objective", "{0} draws a secret Objective.", seat))
            ev.append(event("objective_card", f"Your Objective: {c.objective_card(card).title}.",
                            seat, private=(seat,)))
    state.objective_deck = decks["spring"] + decks["winter"]


def place_legal(state: WinterState, frame: PlaceQuestFrame, seat: Seat) -> list[PlaceQuest]:
    return [PlaceQuest(counter=frame.counter, target=t)
            for t in quests.placement_targets(state, frame.counter)]


def place_act(state: WinterState, frame: PlaceQuestFrame, seat: Seat, action: PlaceQuest,
              ev: Events) -> None:
    state.stack.pop()
    quests.place(state, seat, action.counter, action.target, action.text, ev)


def finish_intro(state: WinterState, ev: Events) -> None:
    """After the opening story: opening hands, then the first Chapter begins."""
    c = content()
    for seat in state.order:
        n = writer_draw(state) if state.factions[seat] == "writer" else c.setup.opening_hand
        draw(state, seat, n, ev, "opening hand")
    state.chapter = 1
    tell(state, "chapter", "Chapter 1")
    ev.append(event("chapter", "Chapter 1 begins."))
    first = next(s for s in state.order if state.factions[s] == "spring")
    state.acting = first
    state.stack.append(TurnFrame(seat=first))


def _to_act(state: WinterState, frame: object) -> list[Seat]:
    return [frame.seat]  # type: ignore[attr-defined]


flow.register("draft", flow.Handler(_to_act, draft_legal, draft_act, flow.never))  # type: ignore[arg-type]
flow.register("place_quest", flow.Handler(_to_act, place_legal, place_act, flow.never))  # type: ignore[arg-type]
flow.CONTINUE["intro"] = finish_intro
