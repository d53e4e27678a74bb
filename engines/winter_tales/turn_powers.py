"""Powers used as a Turn's action (rulebook, Power Module): the Freezing Horror, which
starts a Battle, and "The Fairy Tale returns", which skips the Turn to pay 3 Story cards.

Above :mod:`battles` (the Horror starts one), while :mod:`powers` stays below it (a
Battle reads the Safe House, the Great Artefact and the united pair from there).
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import battles
from engines.winter_tales.common import (
    Events,
    content,
    event,
    figures_in,
    figures_of,
    name_of,
    space_name,
    tell,
)
from engines.winter_tales.powers import held
from engines.winter_tales.state import PayFrame, ReturnTale, UsePower, WinterState


def turn_options(state: WinterState, seat: Seat) -> list[Action]:
    out: list[Action] = []
    mine = figures_of(state, seat)
    if not any(f.faction == "winter" and f.ready and f.in_play for f in mine):
        for p in held(state, "roaming_horror"):
            if p.holder != seat:
                continue
            banned = {
                h.location
                for h in state.powers
                if "freezing_horror" in content().quest(h.quest).power.forbids_here
            }
            for loc in content().map.locations:
                if loc.id in banned:
                    continue
                out += [
                    UsePower(counter=p.counter, space=loc.id, target=f.id)
                    for f in figures_in(state, loc.id)
                    if f.faction == "spring" and not f.incapacitated and f.owner != seat
                ]
    cost = content().setup.the_fairy_tale_returns_cost
    if state.options.power and len(state.hands[seat]) >= cost:
        for f in state.figures.values():
            if f.owner == seat and f.removed and f.faction == "spring":
                out += [ReturnTale(character=f.id, space=loc.id) for loc in content().map.locations]
    return out


def turn_act(state: WinterState, seat: Seat, action: Action, ev: Events) -> None:
    if isinstance(action, ReturnTale):
        cost = content().setup.the_fairy_tale_returns_cost
        state.stack.append(
            PayFrame(
                seat=seat,
                purpose="return",
                remaining=cost,
                side="spring",
                target=action.character,
                space=action.space,
            )
        )
        ev.append(
            event(
                "return_start",
                f"{{0}} skips the Turn: {name_of(action.character)} may yet return.",
                seat,
            )
        )
        tell(state, "power", action.text, seat, action.character)
        return
    assert isinstance(action, UsePower) and action.space and action.target
    p = next(p for p in state.powers if p.counter == action.counter)
    p.location = action.space
    ev.append(
        event("horror", f"{{0}} unleashes the Freezing Horror in {space_name(action.space)}.", seat)
    )
    battles.start_battle(state, seat, "", action.target, action.text, ev, horror=True)
