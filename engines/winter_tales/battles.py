"""Interrupts and Battles (rulebook, Interrupts; Battles).

When a figure enters a space, the opponents standing there may interrupt it: a Soldier's
controller may start a Battle against a Fairy Tale (in a Location or a Square), a Fairy
Tale's controller may spring a Trap on a Soldier entering a Location (see :mod:`.traps`;
where each may happen is data: ``setup.json`` ``battle_spaces`` / ``trap_spaces``).
Characters already activated this Chapter may interrupt; incapacitated ones may not;
only one interrupt per entrance, and a player with no Story card cannot interrupt.
Several players may hold the offer at once: the first to take it wins it, the others pass.

A Battle alternates rounds, Winter first (the attack must be a card); a side ends it by
not playing (Pass) or by having nothing left to play; the last side to play wins. The
Battle skill takes one round without a card; a Great Artefact plays its Memory as a card.
If the Soldier wins, the Fairy Tale's movement stops and it is incapacitated (with the
Safe House Power it is sent to the Safe House instead); the Winter player may then place
it in any space they can justify in the plot.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import activations, flow, objectives, powers, traps
from engines.winter_tales.common import (
    Events,
    content,
    event,
    figures_in,
    name_of,
    skill,
    space_name,
    take,
    tell,
    to_discard,
    verb,
)
from engines.winter_tales.state import (
    BattleFrame,
    Figure,
    FreeRound,
    InitiateBattle,
    InterruptFrame,
    OfferFrame,
    Pass,
    PlayCard,
    Relocate,
    SpringTrap,
    TellFrame,
    UseArtefact,
    WinterState,
    other,
)

# --------------------------------------------------------------------------- interrupts


def check_interrupt(state: WinterState, seat: Seat, fig: Figure, space: str,
                    ev: Events) -> None:
    """Offer a Battle (Fairy Tale moving) or a Trap (Soldier moving) to those in ``space``."""
    offers: dict[int, list[str]] = {}
    for f in figures_in(state, space):
        if (f.faction != fig.faction and not f.incapacitated and f.owner is not None
                and f.owner != seat and state.hands[f.owner]):
            offers.setdefault(f.owner, []).append(f.id)
    kind = "battle" if fig.faction == "spring" else "trap"
    rule = content().setup.battle_spaces if kind == "battle" else content().setup.trap_spaces
    if rule == "location" and not content().map.space(space).is_location:
        return
    if not offers:
        return
    state.stack.append(InterruptFrame(seat=seat, mover=fig.id, space=space, offers=offers,
                                      interrupt=kind))


def interrupt_to_act(state: WinterState, frame: InterruptFrame) -> list[Seat]:
    return [s for s in state.order if s in frame.offers and s not in frame.passed]


def interrupt_legal(state: WinterState, frame: InterruptFrame, seat: Seat) -> list[Action]:
    if frame.interrupt == "battle":
        out: list[Action] = [InitiateBattle(character=c) for c in frame.offers[seat]]
    else:
        out = [SpringTrap(character=c) for c in frame.offers[seat]]
    return [*out, Pass()]


def interrupt_act(state: WinterState, frame: InterruptFrame, seat: Seat, action: Action,
                  ev: Events) -> None:
    if isinstance(action, Pass):
        frame.passed.append(seat)
        return
    state.stack.pop()
    if isinstance(action, InitiateBattle):
        start_battle(state, seat, action.character, frame.mover, action.text, ev)
    else:
        assert isinstance(action, SpringTrap)
        traps.start_trap(state, seat, action.character, frame.mover, action.text, ev)


def interrupt_auto(state: WinterState, frame: InterruptFrame, ev: Events) -> bool:
    if interrupt_to_act(state, frame):
        return False
    state.stack.pop()
    return True


# --------------------------------------------------------------------------- battles


def start_battle(state: WinterState, seat: Seat, soldier: str, fairy: str, text: str | None,
                 ev: Events, horror: bool = False) -> BattleFrame:
    frame = BattleFrame(seat=state.figures[fairy].owner or 0, soldier=soldier, fairy=fairy,
                        winter_seats=[seat], spring_seats=powers.spring_side(state, fairy),
                        horror=horror)
    who = "the Freezing Horror" if horror else name_of(soldier)
    ev.append(event("battle", f"{{0}} starts a Battle: {who} against {name_of(fairy)} in "
                    f"{space_name(state.figures[fairy].space)}.", seat, character=soldier or None))
    tell(state, "battle", text or f"Battle: {who} against {name_of(fairy)}.", seat,
         soldier or None)
    if horror:
        # the Freezing Horror's Memory is the first card of the Battle
        frame.winter_cards, frame.last, frame.last_seat, frame.turn = 1, "winter", seat, "spring"
    state.stack.append(frame)
    return frame


def _side_chars(frame: BattleFrame, side: str) -> list[str]:
    if side == "winter":
        return [frame.soldier] if frame.soldier else []
    return [frame.fairy]


def battle_options(state: WinterState, frame: BattleFrame, seat: Seat) -> list[Action]:
    side = frame.turn
    out: list[Action] = [PlayCard(card=c, side=side) for c in dict.fromkeys(state.hands[seat])]
    for ch in _side_chars(frame, side):
        fig = state.figures[ch]
        if fig.owner != seat:
            continue
        s = skill(state, ch)
        if s is not None and s.kind == "battle" and f"skill:{ch}" not in frame.used:
            out.append(FreeRound(character=ch))
        out += powers.artefact_options(state, ch, frame.used)
    return out


def battle_to_act(state: WinterState, frame: BattleFrame) -> list[Seat]:
    seats = frame.winter_seats if frame.turn == "winter" else frame.spring_seats
    return [s for s in seats if s not in frame.passed and battle_options(state, frame, s)]


def battle_legal(state: WinterState, frame: BattleFrame, seat: Seat) -> list[Action]:
    out = battle_options(state, frame, seat)
    if not (frame.turn == "winter" and frame.last is None):
        out.append(Pass())
    return out


def battle_act(state: WinterState, frame: BattleFrame, seat: Seat, action: Action,
               ev: Events) -> None:
    side = frame.turn
    if isinstance(action, Pass):
        frame.passed.append(seat)
        if action.text:
            tell(state, "battle", action.text, seat)
        return
    who = frame.soldier if side == "winter" else frame.fairy
    if isinstance(action, PlayCard):
        take(state, seat, action.card)
        to_discard(state, [action.card])
        ev.append(event("battle_card", f"{{0}} plays {content().story_card(action.card).title} "
                        f"on the {side} side.", seat, card=action.card))
        tell(state, "card", action.text, seat, who or None, action.card, side)
    elif isinstance(action, FreeRound):
        frame.used.append(f"skill:{action.character}")
        ev.append(event("battle_skill", f"{name_of(action.character)}'s strength carries the "
                        "round.", seat, character=action.character))
        tell(state, "battle", action.text, seat, action.character)
    elif isinstance(action, UseArtefact):
        powers.use_artefact(state, action.character, frame.used, ev)
        tell(state, "card", action.text, seat, action.character, side=side)
    if side == "winter":
        frame.winter_cards += 1
    else:
        frame.spring_cards += 1
    frame.last, frame.last_seat = side, seat
    frame.turn = other(side)
    frame.passed = []


def battle_auto(state: WinterState, frame: BattleFrame, ev: Events) -> bool:
    if battle_to_act(state, frame):
        return False
    end_battle(state, frame, ev)
    return True


def end_battle(state: WinterState, frame: BattleFrame, ev: Events) -> None:
    state.stack.remove(frame)
    winner = frame.last or "spring"
    fairy = state.figures[frame.fairy]
    wseat = frame.winter_seats[0]
    sseat = frame.spring_seats[0]
    ev.append(event("battle_end", f"The Battle ends: {winner.capitalize()} played the last card "
                    f"(Winter {frame.winter_cards}, Spring {frame.spring_cards})."))
    if winner == "winter":
        activations.end_activation_of(state, fairy.id)
        haven = powers.safe_house(state)
        if haven is not None:
            fairy.space = haven
            tell(state, "battle", f"{name_of(fairy.id)} {verb(fairy.id, 'loses', 'lose')} "
                 f"the Battle and {verb(fairy.id, 'escapes', 'escape')} to the Safe House in "
                 f"{space_name(haven)}.")
        else:
            fairy.incapacitated = True
            tell(state, "battle", f"{name_of(fairy.id)} {verb(fairy.id, 'loses', 'lose')} "
                 f"the Battle and {verb(fairy.id, 'is', 'are')} incapacitated.")
            state.stack.append(OfferFrame(seat=wseat, offer="relocate", character=fairy.id))
            objectives.on_battle_won(state, wseat, ev)
        state.stack.append(TellFrame(seat=frame.last_seat if frame.last_seat is not None
                                     else wseat, purpose="battle_end", entry_kind="battle"))
    else:
        tell(state, "battle", f"{name_of(fairy.id)} {verb(fairy.id, 'wins', 'win')} the "
                 "Battle and may go on.")
        state.stack.append(TellFrame(seat=frame.last_seat if frame.last_seat is not None
                                     else sseat, purpose="battle_end", entry_kind="battle"))


# --------------------------------------------------------------------------- relocation


def relocate_legal(state: WinterState, frame: OfferFrame, seat: Seat) -> list[Action]:
    fig = state.figures[frame.character or ""]
    return [*(Relocate(space=s.id) for s in content().map.spaces if s.id != fig.space), Pass()]


def relocate_act(state: WinterState, frame: OfferFrame, seat: Seat, action: Action,
                 ev: Events) -> None:
    state.stack.pop()
    if isinstance(action, Relocate):
        fig = state.figures[frame.character or ""]
        fig.space = action.space
        ev.append(event("relocate", f"{{0}} takes {name_of(fig.id)} to "
                        f"{space_name(action.space)}.", seat, character=fig.id))
        tell(state, "battle", action.text, seat, fig.id)


def _seat(state: WinterState, frame: object) -> list[Seat]:
    return [frame.seat]  # type: ignore[attr-defined]


flow.register("interrupt", flow.Handler(interrupt_to_act, interrupt_legal,  # type: ignore[arg-type]
                                        interrupt_act, interrupt_auto))  # type: ignore[arg-type]
flow.register("battle", flow.Handler(battle_to_act, battle_legal, battle_act,  # type: ignore[arg-type]
                                     battle_auto))  # type: ignore[arg-type]
flow.OFFERS["relocate"] = flow.Handler(_seat, relocate_legal, relocate_act, flow.never)  # type: ignore[arg-type]
