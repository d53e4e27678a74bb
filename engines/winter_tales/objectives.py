"""The Objective Module: secret Objectives whose conditions the engine tracks.

Each player holds one secret Objective of their Faction (the Writer one of each). When its
condition is met the player is offered to complete it at once (or later, while they have
the floor in an activation): they reveal it, tell a short plot linked to the bookmarked
Memory, and the card becomes an Objective Memory on a free space with the Objective icon.
Objective Memories never grant Powers and may be overwritten by Quest Memories.

Conditions (data/winter_tales/objectives.json):
  Reward - a Soldier of yours wins a Battle and incapacitates a Fairy Tale;
  Spy - two different Fairy Tales move into spaces holding one of your Soldiers (the card
    is revealed at the first);
  Attack - discard 2 Story cards while one of your characters is in the named Location;
  Garrison - Soldiers stand in more different Locations than Fairy Tales;
  Rescue - you Save an incapacitated Fairy Tale;
  Resistance - a Fairy Tale of yours incapacitates a Soldier with a Trap;
  Connection - one of your Fairy Tales moves into both named Locations in one activation
    (the card is revealed when it reaches the first; the space it starts in does not count).
The Objective skill (Alice, Candlewick) swaps an uncompleted Objective for another of the
same Faction during the character's activation.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import epilogue, flow
from engines.winter_tales.common import (
    Events,
    content,
    event,
    figures_in,
    skill,
    tell,
)
from engines.winter_tales.memory_track import objective_slots, put_memory
from engines.winter_tales.state import (
    ActivationFrame,
    AttackObjective,
    CompleteObjective,
    Figure,
    HeldObjective,
    Memory,
    OfferFrame,
    Pass,
    PayFrame,
    SwapObjective,
    WinterState,
)


def kind(obj: HeldObjective) -> str:
    return content().objective_card(obj.card).kind


def open_objectives(state: WinterState, seat: Seat, k: str | None = None) -> list[HeldObjective]:
    return [o for o in state.objectives if o.seat == seat and not o.completed
            and (k is None or kind(o) == k)]


def garrison_holds(state: WinterState) -> bool:
    locs = {s.id for s in content().map.locations}
    soldiers = {f.space for f in state.figures.values()
                if f.in_play and f.faction == "winter" and f.space in locs}
    tales = {f.space for f in state.figures.values()
             if f.in_play and f.faction == "spring" and f.space in locs}
    return len(soldiers) > len(tales)


def completable(state: WinterState, obj: HeldObjective) -> bool:
    if obj.completed or not objective_slots(state):
        return False
    return obj.achieved or (kind(obj) == "garrison" and garrison_holds(state))


def achieve(state: WinterState, obj: HeldObjective, ev: Events) -> None:
    if obj.completed or obj.achieved:
        return
    obj.achieved = True
    ev.append(event("objective_met", "You met the condition of your Objective "
                    f"{content().objective_card(obj.card).title}.", obj.seat,
                    private=(obj.seat,)))
    if completable(state, obj):
        state.stack.append(OfferFrame(seat=obj.seat, offer="objective", objective=obj.card))


def reveal(obj: HeldObjective, ev: Events) -> None:
    if not obj.revealed:
        obj.revealed = True
        ev.append(event("objective_reveal", f"{{0}} reveals the Objective "
                        f"{content().objective_card(obj.card).title}.", obj.seat))


# --------------------------------------------------------------------------- tracking


def on_activation(state: WinterState, seat: Seat, fig: Figure, ev: Events) -> None:
    # A new activation starts a new try. The space the Fairy Tale starts in does not count:
    # the card asks to "move through" the Locations, revealed "when the Fairy Tale moves to"
    # one of them (so starting in one and stepping out is not a visit).
    for obj in open_objectives(state, seat, "connection"):
        obj.seen = []


def _visit(state: WinterState, obj: HeldObjective, space: str | None, ev: Events) -> None:
    locations = content().objective_card(obj.card).locations
    if space in locations and space not in obj.seen:
        obj.seen.append(space)
        reveal(obj, ev)
        if set(locations) <= set(obj.seen):
            achieve(state, obj, ev)


def on_move(state: WinterState, seat: Seat, fig: Figure, space: str, ev: Events) -> None:
    if not state.options.objective or fig.faction != "spring":
        return
    if fig.owner == seat:
        for obj in open_objectives(state, seat, "connection"):
            _visit(state, obj, space, ev)
    here = figures_in(state, space)
    need = content().objective_type("spy").count
    for obj in [o for o in state.objectives if not o.completed and kind(o) == "spy"]:
        spotted = any(f.faction == "winter" and f.owner == obj.seat for f in here)
        if spotted and fig.id not in obj.seen:
            obj.seen.append(fig.id)
            reveal(obj, ev)
            if len(obj.seen) >= need:
                achieve(state, obj, ev)


def on_battle_won(state: WinterState, seat: Seat, ev: Events) -> None:
    for obj in open_objectives(state, seat, "reward"):
        achieve(state, obj, ev)


def on_trap_won(state: WinterState, seat: Seat, ev: Events) -> None:
    for obj in open_objectives(state, seat, "resistance"):
        achieve(state, obj, ev)


def on_save(state: WinterState, seat: Seat, fig: Figure, ev: Events) -> None:
    if fig.faction == "spring":
        for obj in open_objectives(state, seat, "rescue"):
            achieve(state, obj, ev)


# --------------------------------------------------------------------------- actions


def complete_options(state: WinterState, seat: Seat) -> list[Action]:
    return [CompleteObjective(objective=o.card, slot=slot)
            for o in open_objectives(state, seat) if completable(state, o)
            for slot in objective_slots(state)]


def activation_options(state: WinterState, frame: ActivationFrame) -> list[Action]:
    if not state.options.objective:
        return []
    seat = frame.seat
    out = complete_options(state, seat)
    if len(state.hands[seat]) >= content().objective_type("attack").count:
        mine = {f.space for f in state.figures.values() if f.owner == seat and f.in_play}
        for o in open_objectives(state, seat, "attack"):
            if not o.achieved and set(content().objective_card(o.card).locations) & mine:
                out.append(AttackObjective(objective=o.card))
    s = skill(state, frame.character)
    if s is not None and s.kind == "objective" and not frame.swapped_objective:
        for o in open_objectives(state, seat):
            out += [SwapObjective(objective=o.card, new=n) for n in state.objective_deck
                    if content().objective_card(n) and _faction(n) == o.faction]
    return out


def _faction(card: str) -> str:
    return content().objective_type(content().objective_card(card).kind).faction


def act(state: WinterState, frame: ActivationFrame, seat: Seat, action: Action,
        ev: Events) -> None:
    if isinstance(action, CompleteObjective):
        complete(state, seat, action.objective, action.slot, action.text, ev)
    elif isinstance(action, AttackObjective):
        state.stack.append(PayFrame(seat=seat, purpose="attack", objective=action.objective,
                                    remaining=content().objective_type("attack").count))
        tell(state, "objective", action.text, seat, frame.character)
    else:
        assert isinstance(action, SwapObjective)
        frame.swapped_objective = True
        obj = next(o for o in state.objectives if o.card == action.objective)
        state.objective_deck.remove(action.new)
        obj.card, obj.revealed, obj.achieved, obj.seen = action.new, False, False, []
        ev.append(event("objective_swap", "{0} uses the Objective skill to change Objective.",
                        seat))
        ev.append(event("objective_card", "Your new Objective: "
                        f"{content().objective_card(action.new).title}.", seat, private=(seat,)))
        tell(state, "objective", action.text, seat, frame.character)


def attack_paid(state: WinterState, seat: Seat, frame: PayFrame, ev: Events) -> None:
    obj = next(o for o in state.objectives if o.card == frame.objective)
    reveal(obj, ev)
    achieve(state, obj, ev)


def complete(state: WinterState, seat: Seat, card: str, slot: int, text: str | None,
             ev: Events) -> None:
    obj = next(o for o in state.objectives if o.card == card)
    obj.completed = obj.revealed = True
    oc = content().objective_card(card)
    mem = Memory(slot=slot, source="objective", card=card, faction=obj.faction, objective=card,
                 chapter=state.chapter, placed_by=seat)
    put_memory(state, mem, ev, content().memory_track.bookmark_moves_to_new_objective_memory)
    ev.append(event("objective_done", f"{{0}} completes the Objective {oc.title}: a "
                    f"{obj.faction} Memory on space {slot}.", seat))
    tell(state, "objective", text or f"Objective completed: {oc.title}.", seat, side=obj.faction)
    epilogue.check(state, ev)


def offer_legal(state: WinterState, frame: OfferFrame, seat: Seat) -> list[Action]:
    obj = next(o for o in state.objectives if o.card == frame.objective)
    opts: list[Action] = []
    if completable(state, obj):
        opts = [CompleteObjective(objective=obj.card, slot=s)
                for s in objective_slots(state)]
    return [*opts, Pass()]


def offer_act(state: WinterState, frame: OfferFrame, seat: Seat, action: Action,
              ev: Events) -> None:
    state.stack.pop()
    if isinstance(action, CompleteObjective):
        complete(state, seat, action.objective, action.slot, action.text, ev)


def _seat(state: WinterState, frame: object) -> list[Seat]:
    return [frame.seat]  # type: ignore[attr-defined]


flow.OFFERS["objective"] = flow.Handler(_seat, offer_legal, offer_act, flow.never)  # type: ignore[arg-type]
