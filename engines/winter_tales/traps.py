"""Traps (rulebook, Traps): sprung by a Fairy Tale on a Soldier entering its space.

1. The Spring player plays the Trap card (it never counts) and tells the lure; then, in
   secret, hides any number of Story cards under the character card, each Spring side or
   Winter side up (only the Spring ones count; the Winter ones are a bluff).
2. The Winter player plays any number of cards on the Winter side to evade it.
3. The hidden cards are revealed. More Winter cards: no effect, the Soldier goes on. Equal:
   the Soldier's movement is blocked, it goes back to the space it started its movement
   from and its activation ends. More Spring cards: blocked and incapacitated.
   The Trap skill adds 1 to its side's count. Every card used is discarded.

Only the hiding player sees which cards lie under the character card and how.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import activations, flow, objectives, powers
from engines.winter_tales.common import (
    Events,
    content,
    count_bonus,
    event,
    name_of,
    space_name,
    take,
    tell,
    to_discard,
)
from engines.winter_tales.state import (
    Done,
    HideCard,
    Pass,
    PlayCard,
    TellFrame,
    TrapFrame,
    WinterState,
)


def start_trap(state: WinterState, seat: Seat, fairy: str, soldier: str, text: str | None,
               ev: Events) -> None:
    sfig = state.figures[soldier]
    frame = TrapFrame(seat=seat, fairy=fairy, soldier=soldier, soldier_seat=sfig.owner or 0,
                      spring_seats=powers.spring_side(state, fairy))
    if seat not in frame.spring_seats:
        frame.spring_seats.insert(0, seat)
    state.stack.append(frame)
    ev.append(event("trap", f"{{0}} springs a Trap with {name_of(fairy)} on {name_of(soldier)} "
                    f"in {space_name(sfig.space)}.", seat, character=fairy))
    tell(state, "trap", text or f"Trap: {name_of(fairy)} against {name_of(soldier)}.", seat,
         fairy)


def trap_to_act(state: WinterState, frame: TrapFrame) -> list[Seat]:
    if frame.stage == "card":
        return [frame.seat]
    if frame.stage == "hide":
        return [s for s in frame.spring_seats if s not in frame.hiding_done]
    return [frame.soldier_seat]


def trap_legal(state: WinterState, frame: TrapFrame, seat: Seat) -> list[Action]:
    cards = list(dict.fromkeys(state.hands[seat]))
    if frame.stage == "card":
        return [PlayCard(card=c, side="spring") for c in cards]
    # Pass is Done under another name, so a table timer can end either step for a player
    if frame.stage == "hide":
        return [*(HideCard(card=c, side=s) for c in cards for s in ("spring", "winter")),
                Done(), Pass()]
    return [*(PlayCard(card=c, side="winter") for c in cards), Done(), Pass()]


def trap_act(state: WinterState, frame: TrapFrame, seat: Seat, action: Action,
             ev: Events) -> None:
    if frame.stage == "card":
        assert isinstance(action, PlayCard)
        take(state, seat, action.card)
        frame.trap_card = action.card
        frame.stage = "hide"
        ev.append(event("trap_card", f"{{0}} sets the Trap: "
                        f"{content().story_card(action.card).title}.", seat, card=action.card))
        tell(state, "card", action.text, seat, frame.fairy, action.card, "spring")
    elif isinstance(action, HideCard):
        take(state, seat, action.card)
        frame.hidden.append((action.card, action.side, seat))
        ev.append(event("trap_hide", "{0} hides a card under the character card.", seat))
        ev.append(event("trap_hide_private", f"You hide {content().story_card(action.card).title}"
                        f" {action.side} side up.", seat, private=(seat,), card=action.card))
    elif frame.stage == "hide":
        frame.hiding_done.append(seat)
        if action.text:
            tell(state, "trap", action.text, seat, frame.fairy)
    elif isinstance(action, PlayCard):
        take(state, seat, action.card)
        frame.winter_cards.append(action.card)
        ev.append(event("trap_defend", f"{{0}} plays {content().story_card(action.card).title} "
                        "on the winter side.", seat, card=action.card))
        tell(state, "card", action.text, seat, frame.soldier, action.card, "winter")
    else:
        if action.text:
            tell(state, "trap", action.text, seat, frame.soldier)
        resolve(state, frame, ev)


def trap_auto(state: WinterState, frame: TrapFrame, ev: Events) -> bool:
    if frame.stage == "hide" and not trap_to_act(state, frame):
        frame.stage = "defend"
        return True
    if frame.stage == "defend" and not state.hands[frame.soldier_seat]:
        resolve(state, frame, ev)
        return True
    return False


def counts(state: WinterState, frame: TrapFrame) -> tuple[int, int]:
    spring = sum(1 for _, side, _ in frame.hidden if side == "spring")
    spring += count_bonus(state, frame.fairy, "trap")
    # Love that Melts the Snow: the united pair plays the Trap as one, so the partner is
    # "involved in" it too (Trap skill)
    partner = powers.shared_partner(state, frame.fairy)
    if partner is not None:
        spring += count_bonus(state, partner.id, "trap")
    winter = len(frame.winter_cards) + count_bonus(state, frame.soldier, "trap")
    return spring, winter


def resolve(state: WinterState, frame: TrapFrame, ev: Events) -> None:
    state.stack.remove(frame)
    spring, winter = counts(state, frame)
    soldier = state.figures[frame.soldier]
    shown = ", ".join(f"{content().story_card(c).title} ({side})" for c, side, _ in frame.hidden)
    used = [c for c, _, _ in frame.hidden] + frame.winter_cards
    if frame.trap_card:
        used.append(frame.trap_card)
    to_discard(state, used)
    if winter > spring:
        result = "the Trap has no effect"
        teller = frame.soldier_seat
    elif winter == spring:
        result = "the Trap is sprung: the movement is blocked"
        start = _start_space(state, frame.soldier)
        if start is not None:
            soldier.space = start
        activations.end_activation_of(state, frame.soldier)
        teller = frame.seat
    else:
        result = "the Trap is sprung: the Soldier is incapacitated"
        soldier.incapacitated = True
        activations.end_activation_of(state, frame.soldier)
        objectives.on_trap_won(state, frame.seat, ev)
        teller = frame.seat
    msg = (f"Trap revealed: {shown or 'no hidden cards'}. Spring {spring}, Winter {winter}: "
           f"{result}.")
    ev.append(event("trap_end", msg))
    tell(state, "trap", msg)
    state.stack.append(TellFrame(seat=teller, purpose="trap_end", entry_kind="trap"))


def _start_space(state: WinterState, character: str) -> str | None:
    for f in reversed(state.stack):
        if f.kind == "activation" and f.character == character:
            return f.start_space
    return None


flow.register("trap", flow.Handler(trap_to_act, trap_legal, trap_act, trap_auto))  # type: ignore[arg-type]
