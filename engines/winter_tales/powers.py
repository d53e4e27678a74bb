"""The Power Module: a Quest completed for its own Faction grants its Power to the player
who completed it (the Acting Player).

* A New Hope (1 counter on a Fairy Tale that took part): once per Chapter, after that
  character's activation, its owner may turn it back to ready.
* Love that Melts the Snow (2 counters: the Fairy Tale that carried the Quest and one of
  choice): when one moves, the other may move with it for free (even incapacitated) if
  they stand together; they fight Battles and Traps as one (both owners may play).
* The Safe House (counter in the Quest's Location): a Fairy Tale losing a Battle is sent
  there instead of being incapacitated; the Freezing Horror may not be placed there.
* The Great Artefact (counter on a character that took part): whenever that character is
  in a Quest or Battle plot, its player may play the Memory as a card (once per Quest or
  Battle; the Memory stays on the Track); it may be handed to a character in the same space.
* Freezing Horror: a holder with no ready Soldier may, on their Turn, move the counter to a
  Location and start a Battle with a Fairy Tale there; the Memory is the first Winter card.
* Winter Propaganda: as the action of a Soldier's activation, turn a ready Fairy Tale (not
  one being activated) to its activated side.
* Armed Retaliation: destroy a Fairy Tale or a Power held by a Spring player (a Fairy Tale
  carrying a Power counter loses the Power instead); a destroyed Power's Memory changes
  colour. "The Fairy Tale returns": its owner may skip a Turn and play 3 Story cards to put
  it back in a Location, activated.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import epilogue, flow
from engines.winter_tales.common import (
    Events,
    content,
    event,
    figures_in,
    name_of,
    space_name,
    tell,
    verb,
)
from engines.winter_tales.state import (
    ActivationFrame,
    AssignPower,
    Figure,
    HeldPower,
    OfferFrame,
    Pass,
    PassArtefact,
    PayFrame,
    PowerFrame,
    QuestFrame,
    UseArtefact,
    UsePower,
    WinterState,
    other,
)


def kind_of(p: HeldPower) -> str:
    return content().quest(p.quest).power.kind


def held(state: WinterState, kind: str) -> list[HeldPower]:
    return [p for p in state.powers if kind_of(p) == kind]


# --------------------------------------------------------------------------- granting


def grant(state: WinterState, qf: QuestFrame, slot: int, ev: Events,
          carrier: str | None = None) -> None:
    power = content().quest(qf.quest).power
    seat = qf.seat
    tell(state, "power", f"{name_of(qf.character)}'s Faction gains the Power of "
         f"{content().quest(qf.quest).name}.", seat)
    ev.append(event("power", f"{{0}} gains the Power of {content().quest(qf.quest).name}.",
                    seat))
    hp = HeldPower(counter=qf.counter, quest=qf.quest, holder=seat, memory_slot=slot)
    if power.kind in ("safe_haven", "roaming_horror"):
        hp.location = qf.space if content().map.space(qf.space).is_location else None
        state.powers.append(hp)
    elif power.kind == "exhaust_fairy_tale":
        state.powers.append(hp)
    else:
        frame = PowerFrame(seat=seat, counter=qf.counter, quest=qf.quest, memory_slot=slot,
                           first=carrier, participants=list(qf.participants))
        if power_targets(state, frame):
            state.stack.append(frame)
            return
    epilogue.check(state, ev)


def power_targets(state: WinterState, frame: PowerFrame) -> list[str]:
    kind = content().quest(frame.quest).power.kind
    fts = [f.id for f in state.figures.values() if f.in_play and f.faction == "spring"]
    if kind == "extra_activation":
        took = [c for c in frame.participants if c in fts]
        return took or fts
    if kind == "united_pair":
        first = frame.first if frame.first in fts else None
        return [f for f in fts if f != first]
    if kind == "artefact_memory":
        faction = content().quest_counter(frame.counter).faction
        took = [c for c in frame.participants
                if state.figures[c].in_play and state.figures[c].faction == faction]
        return took
    if kind == "destroy":
        spring_powers = [p.counter for p in state.powers
                         if state.factions[p.holder] == "spring"]
        return fts + spring_powers
    return []


def power_legal(state: WinterState, frame: PowerFrame, seat: Seat) -> list[Action]:
    return [AssignPower(target=t) for t in power_targets(state, frame)]


def power_act(state: WinterState, frame: PowerFrame, seat: Seat, action: AssignPower,
              ev: Events) -> None:
    kind = content().quest(frame.quest).power.kind
    target = action.target
    if kind == "united_pair" and (frame.first is None or frame.first not in state.figures
                                  or not state.figures[frame.first].in_play):
        frame.first = target  # the carrier is gone: choose both Fairy Tales
        if not power_targets(state, frame):
            state.stack.pop()
            epilogue.check(state, ev)
        return
    state.stack.pop()
    if kind == "destroy":
        destroy(state, seat, target, action.text, ev)
    else:
        hp = HeldPower(counter=frame.counter, quest=frame.quest, holder=seat,
                       memory_slot=frame.memory_slot)
        hp.characters = [frame.first, target] if kind == "united_pair" else [target]
        state.powers.append(hp)
        names = " and ".join(name_of(c) for c in hp.characters if c)
        ev.append(event("power_placed", f"{{0}} places the Power counter on {names}.", seat))
        tell(state, "power", action.text or f"The Power rests with {names}.", seat)
    epilogue.check(state, ev)


def destroy(state: WinterState, seat: Seat, target: str, text: str | None, ev: Events) -> None:
    """Armed Retaliation: destroy a Fairy Tale, or a Power (always the Power if it has one)."""
    victim = next((p for p in state.powers if p.counter == target), None)
    if victim is None:
        victim = next((p for p in state.powers if target in p.characters), None)
    if victim is not None:
        state.powers.remove(victim)
        for m in state.memories:
            if m.slot == victim.memory_slot and m.counter == victim.counter and m.faction:
                m.faction = other(m.faction)
        what = f"the Power of {content().quest(victim.quest).name} (its Memory changes colour)"
    else:
        fig = state.figures[target]
        for q in state.quests:
            if q.carrier == fig.id:
                q.carrier, q.space = None, fig.space
        fig.removed, fig.space, fig.ready, fig.incapacitated = True, None, False, False
        what = f"{name_of(fig.id)}, who {verb(fig.id, 'falls', 'fall')} to the cruel Winter"
    ev.append(event("destroyed", f"Armed Retaliation: {{0}} destroys {what}.", seat))
    tell(state, "power", text or f"Armed Retaliation destroys {what}.", seat)


# --------------------------------------------------------------------------- effects


def safe_house(state: WinterState) -> str | None:
    for p in held(state, "safe_haven"):
        if p.location:
            return p.location
    return None


def _pair(state: WinterState, character: str) -> Figure | None:
    for p in held(state, "united_pair"):
        if character in p.characters and len(p.characters) == 2:
            mate = p.characters[1] if p.characters[0] == character else p.characters[0]
            fig = state.figures.get(mate or "")
            if fig is not None and fig.in_play:
                return fig
    return None


def partner_here(state: WinterState, fig: Figure) -> Figure | None:
    mate = _pair(state, fig.id)
    return mate if mate is not None and mate.space == fig.space else None


def shared_partner(state: WinterState, fairy: str) -> Figure | None:
    return _pair(state, fairy)


def spring_side(state: WinterState, fairy: str) -> list[Seat]:
    """The seats playing the Spring side of a Battle or Trap against ``fairy``: its owner,
    and the owner of its partner in Love that Melts the Snow (they fight as one)."""
    seats = [state.figures[fairy].owner]
    partner = shared_partner(state, fairy)
    if partner is not None and partner.owner not in seats:
        seats.append(partner.owner)
    return [s for s in seats if s is not None]


def artefact_of(state: WinterState, character: str) -> HeldPower | None:
    return next((p for p in held(state, "artefact_memory") if character in p.characters), None)


def holds_artefact(state: WinterState, character: str) -> bool:
    return artefact_of(state, character) is not None


def artefact_options(state: WinterState, character: str, used: list[str]) -> list[Action]:
    p = artefact_of(state, character)
    if p is None or f"artefact:{p.counter}" in used:
        return []
    return [UseArtefact(character=character)]


def use_artefact(state: WinterState, character: str, used: list[str], ev: Events) -> str:
    p = artefact_of(state, character)
    assert p is not None
    used.append(f"artefact:{p.counter}")
    mem = next((m for m in state.memories if m.slot == p.memory_slot), None)
    side = (mem.faction if mem is not None and mem.faction else
            content().quest_counter(p.counter).faction)
    ev.append(event("artefact", f"{name_of(character)} calls on the Great Artefact: its Memory "
                    f"counts as a {side} card.", character=character))
    return side


def artefact_pass_options(state: WinterState, frame: ActivationFrame) -> list[Action]:
    fig = state.figures[frame.character]
    if not holds_artefact(state, fig.id) or fig.space is None:
        return []
    return [PassArtefact(character=f.id) for f in figures_in(state, fig.space) if f.id != fig.id]


def after_activation(state: WinterState, frame: ActivationFrame, ev: Events) -> None:
    for p in held(state, "extra_activation"):
        fig = state.figures[frame.character]
        if (frame.character in p.characters and p.used_chapter != state.chapter
                and fig.in_play and not fig.ready and fig.owner is not None):
            state.stack.append(OfferFrame(seat=fig.owner, offer="new_hope",
                                          character=fig.id))


def activation_options(state: WinterState, frame: ActivationFrame) -> list[Action]:
    fig = state.figures[frame.character]
    if fig.faction != "winter":
        return []
    busy = {f.character for f in state.stack if f.kind == "activation"}
    out: list[Action] = []
    for p in held(state, "exhaust_fairy_tale"):
        if p.holder != frame.seat:
            continue
        out += [UsePower(counter=p.counter, target=f.id) for f in state.figures.values()
                if f.faction == "spring" and f.in_play and f.ready and f.id not in busy]
    return out


def activation_act(state: WinterState, frame: ActivationFrame, action: Action,
                   ev: Events) -> None:
    if isinstance(action, PassArtefact):
        p = artefact_of(state, frame.character)
        assert p is not None
        p.characters = [action.character]
        ev.append(event("artefact_pass", f"{{0}} hands the Great Artefact to "
                        f"{name_of(action.character)}.", frame.seat))
        tell(state, "power", action.text, frame.seat, frame.character)
        return
    assert isinstance(action, UsePower) and action.target is not None
    target = state.figures[action.target]
    target.ready = False
    frame.action_done = True
    frame.ended = True
    ev.append(event("propaganda", f"Winter Propaganda: {name_of(target.id)} cannot act this "
                    "Chapter.", frame.seat, character=target.id))
    tell(state, "power", action.text or f"Winter Propaganda keeps {name_of(target.id)} away.",
         frame.seat, frame.character)


# --------------------------------------------------------------------------- on a Turn


def tale_returns(state: WinterState, seat: Seat, frame: PayFrame, ev: Events) -> None:
    fig = state.figures[frame.target or ""]
    fig.removed, fig.space, fig.ready, fig.incapacitated = False, frame.space, False, False
    ev.append(event("returned", f"The Fairy Tale returns: {name_of(fig.id)} "
                    f"{verb(fig.id, 'is', 'are')} back in {space_name(frame.space)}.", seat,
                    character=fig.id))
    tell(state, "power", f"{name_of(fig.id)} {verb(fig.id, 'returns', 'return')} to "
         f"{space_name(frame.space)}.", seat, fig.id)


# --------------------------------------------------------------------------- New Hope


def new_hope_legal(state: WinterState, frame: OfferFrame, seat: Seat) -> list[Action]:
    p = next(p for p in held(state, "extra_activation") if frame.character in p.characters)
    return [UsePower(counter=p.counter, target=frame.character), Pass()]


def new_hope_act(state: WinterState, frame: OfferFrame, seat: Seat, action: Action,
                 ev: Events) -> None:
    state.stack.pop()
    if isinstance(action, UsePower):
        p = next(p for p in state.powers if p.counter == action.counter)
        p.used_chapter = state.chapter
        state.figures[frame.character or ""].ready = True
        ev.append(event("new_hope", f"A New Hope: {name_of(frame.character)} "
                        f"{verb(frame.character, 'is', 'are')} ready again.",
                        seat, character=frame.character))
        tell(state, "power", action.text, seat, frame.character)


def _seat(state: WinterState, frame: object) -> list[Seat]:
    return [frame.seat]  # type: ignore[attr-defined]


flow.register("power", flow.Handler(_seat, power_legal, power_act, flow.never))  # type: ignore[arg-type]
flow.OFFERS["new_hope"] = flow.Handler(_seat, new_hope_legal, new_hope_act, flow.never)  # type: ignore[arg-type]
