"""Chapters and turns (rulebook, Chapters): activation, movement, actions, End of Chapter.

* On a Turn the Acting Player must activate one ready character; a player with no ready
  character is passed over; the Chapter ends when every character has been activated.
* Activating: turn the card, draw 3 Story cards, move, perform one action, discard down to 7.
* Movement: one discarded Story card moves the character 2 spaces along the streets (the
  map graph). Movement is taken one space at a time, so an opponent standing in a space
  can interrupt it there with a Battle or a Trap; a discarded card's unused space is lost
  when the activation ends.
* An incapacitated character may still be activated (it draws its cards) but can neither
  move nor act; it may only Save itself.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import battles, flow, objectives, powers, quests, saves, turn_powers
from engines.winter_tales.activations import activate, opportunities, opportunity_act
from engines.winter_tales.common import (
    Events,
    chapter_draw,
    content,
    draw,
    event,
    name_of,
    next_seat,
    ready_figures,
    space_name,
    spaces_per_card,
    take,
    tell,
    to_discard,
    verb,
)
from engines.winter_tales.state import (
    Activate,
    ActivationFrame,
    Discard,
    DiscardFrame,
    Done,
    Move,
    Pass,
    TakePart,
    Tell,
    TellFrame,
    TurnFrame,
    WinterState,
)

# --------------------------------------------------------------------------- telling


def tell_legal(state: WinterState, frame: TellFrame, seat: Seat) -> list[Action]:
    return [Tell()]


def tell_act(state: WinterState, frame: TellFrame, seat: Seat, action: Tell, ev: Events) -> None:
    state.stack.pop()
    tell(state, frame.entry_kind, action.text, seat, frame.character)
    if action.text:
        ev.append(event("tell", "{0} tells the story.", seat))
    cont = flow.CONTINUE.get(frame.purpose)
    if cont is not None:
        cont(state, ev)


# --------------------------------------------------------------------------- turns


def chapter_over(state: WinterState) -> bool:
    return not any(f.ready and f.in_play for f in state.figures.values())


def turn_options(state: WinterState, seat: Seat) -> list[Action]:
    """Everything the Acting Player may do to open the Turn."""
    out: list[Action] = [Activate(character=f.id) for f in ready_figures(state, seat)]
    out += turn_powers.turn_options(state, seat)
    return out


def next_turn(state: WinterState, ev: Events) -> None:
    """Idle driver: pass the Acting Player counter clockwise, ending Chapters as needed."""
    if state.winner is not None or state.chapter == 0:
        return
    if chapter_over(state):
        end_of_chapter(state, ev)
    seat = state.acting if state.acting is not None else state.order[0]
    for _ in range(state.players):
        seat = next_seat(state, seat)
        if turn_options(state, seat):
            state.acting = seat
            state.stack.append(TurnFrame(seat=seat))
            ev.append(event("turn", "It is {0}'s turn.", seat))
            return
    end_of_chapter(state, ev)  # pragma: no cover - a Chapter always has a ready character


def end_of_chapter(state: WinterState, ev: Events) -> None:
    for seat in state.order:
        draw(state, seat, chapter_draw(state, seat), ev, "End of Chapter")
    for f in state.figures.values():
        if not f.removed:
            f.ready = True
    state.chapter += 1
    tell(state, "chapter", f"Chapter {state.chapter}")
    ev.append(event("chapter", f"Chapter {state.chapter} begins: every character is ready."))


def turn_to_act(state: WinterState, frame: TurnFrame) -> list[Seat]:
    return [frame.seat]


def turn_legal(state: WinterState, frame: TurnFrame, seat: Seat) -> list[Action]:
    out = turn_options(state, seat)
    if not ready_figures(state, seat):
        out.append(Pass())
    return out + opportunities(state, seat)


def turn_act(state: WinterState, frame: TurnFrame, seat: Seat, action: Action,
             ev: Events) -> None:
    if opportunity_act(state, seat, action, ev):
        return
    state.stack.pop()
    if isinstance(action, Activate):
        activate(state, seat, action.character, "turn", action.text, ev)
    elif isinstance(action, Pass):
        ev.append(event("pass", "{0} has no ready character and passes.", seat))
    else:
        turn_powers.turn_act(state, seat, action, ev)


# --------------------------------------------------------------------------- activation


def move_options(state: WinterState, frame: ActivationFrame) -> list[Action]:
    fig = state.figures[frame.character]
    if not frame.can_move or fig.incapacitated or fig.space is None:
        return []
    partner = powers.partner_here(state, fig)
    flags = [False, True] if partner else [False]
    cards: list[str | None] = [None] if frame.moves_left > 0 else list(dict.fromkeys(
        state.hands[frame.seat]))
    out: list[Action] = []
    for to in sorted(content().map.neighbours(fig.space)):
        for card in cards:
            out += [Move(to=to, card=card, partner=p) for p in flags]
    return out


def activation_legal(state: WinterState, frame: ActivationFrame, seat: Seat) -> list[Action]:
    if frame.ended or frame.stage != "main":
        return []
    fig = state.figures[frame.character]
    out = move_options(state, frame)
    out += saves.save_options(state, seat)
    if not fig.incapacitated and not frame.action_done:
        if frame.mode == "turn":
            out += quests.generate_options(state, seat, fig)
            out += quests.start_options(state, fig)
            out += powers.activation_options(state, frame)
        elif quests.can_take_part(state, fig):
            out.append(TakePart())
    out += objectives.activation_options(state, frame)
    out += powers.artefact_pass_options(state, frame)
    out.append(Done())
    return out


def activation_act(state: WinterState, frame: ActivationFrame, seat: Seat, action: Action,
                   ev: Events) -> None:
    fig = state.figures[frame.character]
    if isinstance(action, Move):
        move(state, frame, action, ev)
    elif isinstance(action, Done):
        tell(state, "narration", action.text, seat, fig.id)
        frame.ended = True
    elif isinstance(action, TakePart):
        quests.take_part(state, frame, action, ev)
    elif action.kind in ("generate_quest", "start_quest"):
        quests.activation_act(state, frame, action, ev)
    elif action.kind == "save":
        saves.start_save(state, seat, action, ev)  # type: ignore[arg-type]
    elif action.kind in ("complete_objective", "attack_objective", "swap_objective"):
        objectives.act(state, frame, seat, action, ev)
    else:
        powers.activation_act(state, frame, action, ev)


def move(state: WinterState, frame: ActivationFrame, action: Move, ev: Events) -> None:
    fig = state.figures[frame.character]
    if action.card is not None:
        take(state, frame.seat, action.card)
        to_discard(state, [action.card])
        frame.moves_left += spaces_per_card(state, fig.id)
        ev.append(event("move_card", "{0} discards a Story card to move.", frame.seat))
    frame.moves_left -= 1
    partner = powers.partner_here(state, fig) if action.partner else None
    fig.space = action.to
    msg = f"{name_of(fig.id)} {verb(fig.id, 'moves', 'move')} to {space_name(action.to)}"
    if partner is not None:
        partner.space = action.to
        msg += f" with {name_of(partner.id)}"
    ev.append(event("move", msg + ".", frame.seat, character=fig.id))
    if action.text:
        tell(state, "narration", action.text, frame.seat, fig.id)
    objectives.on_move(state, frame.seat, fig, action.to, ev)
    battles.check_interrupt(state, frame.seat, fig, action.to, ev)


def route(state: WinterState, character: str, dest: str) -> tuple[list[str], int]:
    """The shortest way for a character to ``dest`` and the Story cards it costs now.

    A helper for interfaces offering "move to a place": play it as one :class:`Move` per
    step, naming a card to discard whenever the activation has no space of movement left.
    Cards needed counts the movement the activation still holds, when it is activating.
    """
    fig = state.figures[character]
    if fig.space is None:
        return [], 0
    path = content().map.shortest_path(fig.space, dest)[1:]
    left = 0
    for frame in state.stack:
        if frame.kind == "activation" and frame.character == character:
            left = frame.moves_left
    per = spaces_per_card(state, character)
    return path, max(0, -(-(len(path) - left) // per))


def activation_auto(state: WinterState, frame: ActivationFrame, ev: Events) -> bool:
    if frame.stage == "main":
        if not frame.ended:
            return False
        frame.stage = "discard"
        if len(state.hands[frame.seat]) > content().setup.hand_limit:
            state.stack.append(DiscardFrame(seat=frame.seat))
        return True
    state.stack.pop()
    ev.append(event("activation_end", f"{name_of(frame.character)}'s activation ends.",
                    frame.seat, character=frame.character))
    powers.after_activation(state, frame, ev)
    return True


# --------------------------------------------------------------------------- discards


def discard_legal(state: WinterState, frame: DiscardFrame, seat: Seat) -> list[Action]:
    return [Discard(card=c) for c in dict.fromkeys(state.hands[seat])]


def discard_act(state: WinterState, frame: DiscardFrame, seat: Seat, action: Discard,
                ev: Events) -> None:
    take(state, seat, action.card)
    to_discard(state, [action.card])
    ev.append(event("discard", "{0} discards a Story card (hand limit).", seat))
    if len(state.hands[seat]) <= content().setup.hand_limit:
        state.stack.pop()


def _seat(state: WinterState, frame: object) -> list[Seat]:
    return [frame.seat]  # type: ignore[attr-defined]


def _activation_to_act(state: WinterState, frame: ActivationFrame) -> list[Seat]:
    return [frame.seat] if not frame.ended and frame.stage == "main" else []


flow.register("tell", flow.Handler(_seat, tell_legal, tell_act, flow.never))  # type: ignore[arg-type]
flow.register("turn", flow.Handler(turn_to_act, turn_legal, turn_act, flow.never))  # type: ignore[arg-type]
flow.register("activation", flow.Handler(_activation_to_act, activation_legal,  # type: ignore[arg-type]
                                         activation_act, activation_auto))  # type: ignore[arg-type]
flow.register("discard", flow.Handler(_seat, discard_legal, discard_act, flow.never))  # type: ignore[arg-type]
flow.IDLE.append(next_turn)
