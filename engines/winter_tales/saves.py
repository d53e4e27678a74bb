"""Incapacitated characters and Saves (rulebook, Incapacitated Characters and Saves).

A Save is an opportunity action: a player plays 2 Story cards (1 with the Save skill) and
tells how the character is saved. The savior is the incapacitated character itself or a
standing character of the same Faction in the same space. The engine offers Saves
whenever the player has the floor (an activation, the start of their Turn, a Quest's call
to join or step in), which covers "moving through a space with an incapacitated friend":
movement goes one space at a time.

This module also collects the other "pay N cards" effects (the Fairy Tale returns, the
Attack Objective's discards), which share the same card-by-card payment frame.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import flow, objectives, powers
from engines.winter_tales.common import (
    Events,
    content,
    event,
    figures_of,
    name_of,
    save_cost,
    take,
    tell,
    to_discard,
    verb,
)
from engines.winter_tales.state import (
    Discard,
    PayFrame,
    PlayCard,
    SaveCharacter,
    WinterState,
)


def save_options(state: WinterState, seat: Seat) -> list[Action]:
    out: list[Action] = []
    hand = len(state.hands[seat])
    mine = [f for f in figures_of(state, seat) if f.in_play]
    for target in (f for f in state.figures.values() if f.in_play and f.incapacitated):
        for savior in mine:
            if savior.faction != target.faction or savior.space != target.space:
                continue
            if savior.id != target.id and savior.incapacitated:
                continue
            if hand >= save_cost(state, savior.id):
                out.append(SaveCharacter(target=target.id, savior=savior.id))
    return out


def start_save(state: WinterState, seat: Seat, action: SaveCharacter, ev: Events) -> None:
    target = state.figures[action.target]
    state.stack.append(PayFrame(seat=seat, purpose="save", remaining=save_cost(state,
                                action.savior), side=target.faction, target=target.id,
                                savior=action.savior))
    ev.append(event("save_start", f"{{0}} begins to save {name_of(target.id)} with "
                    f"{name_of(action.savior)}.", seat, character=action.savior))
    tell(state, "save", action.text, seat, action.savior)


def pay_legal(state: WinterState, frame: PayFrame, seat: Seat) -> list[Action]:
    cards = list(dict.fromkeys(state.hands[seat]))
    if frame.purpose == "attack":
        return [Discard(card=c) for c in cards]
    return [PlayCard(card=c, side=frame.side or "spring") for c in cards]


def pay_act(state: WinterState, frame: PayFrame, seat: Seat, action: Action,
            ev: Events) -> None:
    card = action.card  # type: ignore[attr-defined]
    take(state, seat, card)
    to_discard(state, [card])
    if isinstance(action, PlayCard):
        ev.append(event("play_card", f"{{0}} plays {content().story_card(card).title} on the "
                        f"{action.side} side.", seat, card=card))
        tell(state, "card", action.text, seat, frame.savior or frame.target, card, action.side)
    else:
        ev.append(event("discard", "{0} discards a Story card.", seat))
    frame.remaining -= 1
    if frame.remaining > 0:
        return
    state.stack.pop()
    if frame.purpose == "save":
        fig = state.figures[frame.target or ""]
        fig.incapacitated = False
        ev.append(event("saved", f"{name_of(fig.id)} {verb(fig.id, 'is', 'are')} saved and back on "
                        f"{verb(fig.id, 'its', 'their')} feet.", seat,
                        character=fig.id))
        tell(state, "save", f"{name_of(fig.id)} {verb(fig.id, 'is', 'are')} saved.", seat,
             frame.savior)
        objectives.on_save(state, seat, fig, ev)
    elif frame.purpose == "return":
        powers.tale_returns(state, seat, frame, ev)
    else:
        objectives.attack_paid(state, seat, frame, ev)


def pay_auto(state: WinterState, frame: PayFrame, ev: Events) -> bool:
    if state.hands[frame.seat]:
        return False
    state.stack.pop()  # cannot pay any more: the effect fails (cards already spent stay spent)
    ev.append(event("pay_failed", "{0} has no more Story cards: the action fails.", frame.seat))
    return True


def _seat(state: WinterState, frame: object) -> list[Seat]:
    return [frame.seat]  # type: ignore[attr-defined]


flow.register("pay", flow.Handler(_seat, pay_legal, pay_act, pay_auto))  # type: ignore[arg-type]
