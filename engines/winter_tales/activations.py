"""Activations as the other rules call on them (rulebook, Chapters: activation; Quests;
Interrupts): starting a character's activation, stopping one that a Battle or a Trap
blocked, and the opportunity actions (a Save, completing an Objective) a player may take
whenever they have the floor.

The activation itself (movement, the action, its end) is driven in :mod:`chapters`, on
top; these parts sit below it, so a Quest (whose joiners are activated), a Battle and a
Trap (which stop a figure) use them without importing the chapter driver back.
"""

from __future__ import annotations

from engines.core import Action, Seat
from engines.winter_tales import objectives, saves
from engines.winter_tales.common import (
    Events,
    activation_draw,
    draw,
    event,
    name_of,
    space_name,
    tell,
)
from engines.winter_tales.state import ActivationFrame, CompleteObjective, WinterState


def opportunities(state: WinterState, seat: Seat) -> list[Action]:
    """Opportunity actions (Saves, completing an Objective) a player may take whenever
    they have the floor, besides their activations."""
    return [*saves.save_options(state, seat), *objectives.complete_options(state, seat)]


def opportunity_act(state: WinterState, seat: Seat, action: Action, ev: Events) -> bool:
    """Carry out an opportunity action; False if ``action`` is not one."""
    if action.kind == "save":  # type: ignore[attr-defined]
        saves.start_save(state, seat, action, ev)  # type: ignore[arg-type]
        return True
    if action.kind == "complete_objective":  # type: ignore[attr-defined]
        done: CompleteObjective = action  # type: ignore[assignment]
        objectives.complete(state, seat, done.objective, done.slot, done.text, ev)
        return True
    return False


def activate(
    state: WinterState, seat: Seat, character: str, mode: str, text: str | None, ev: Events
) -> None:
    fig = state.figures[character]
    fig.ready = False
    ev.append(
        event(
            "activate",
            f"{{0}} activates {name_of(character)} in {space_name(fig.space)}.",
            seat,
            character=character,
        )
    )
    tell(state, "narration", text, seat, character)
    draw(state, seat, activation_draw(state, character), ev, "activation")
    frame = ActivationFrame(
        seat=seat,
        character=character,
        mode=mode,  # type: ignore[arg-type]
        start_space=fig.space or "",
    )
    state.stack.append(frame)
    objectives.on_activation(state, seat, fig, ev)


def end_activation_of(state: WinterState, character: str, *, stop_only: bool = False) -> None:
    """A Battle or Trap blocked this character: its movement (and maybe activation) ends."""
    for frame in reversed(state.stack):
        if frame.kind == "activation" and frame.character == character:
            frame.can_move = False
            if not stop_only:
                frame.ended = True
            return
