"""The frame dispatcher: who acts, what is legal, and automatic steps.

Each rules module registers a :class:`Handler` for the frame kinds it owns. The
frame on top of ``state.stack`` is the open decision; :func:`advance` runs the
automatic steps (skipping players who cannot act, counting, passing the turn)
until a real decision is open or the game is over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engines.core import Action, Seat
from engines.winter_tales.common import Events
from engines.winter_tales.state import WinterState


@dataclass(frozen=True)
class Handler:
    to_act: Callable[[WinterState, object], list[Seat]]
    legal: Callable[[WinterState, object, Seat], list[Action]]
    act: Callable[[WinterState, object, Seat, Action, Events], None]
    auto: Callable[[WinterState, object, Events], bool]


HANDLERS: dict[str, Handler] = {}
OFFERS: dict[str, Handler] = {}
CONTINUE: dict[str, Callable[[WinterState, Events], None]] = {}
IDLE: list[Callable[[WinterState, Events], None]] = []
"""Called when the stack is empty (the chapter driver)."""


def register(kind: str, handler: Handler) -> None:
    HANDLERS[kind] = handler


def never(state: WinterState, frame: object, ev: Events) -> bool:
    return False


def handler_for(frame: object) -> Handler:
    kind = frame.kind  # type: ignore[attr-defined]
    if kind == "offer":
        return OFFERS[frame.offer]  # type: ignore[attr-defined]
    return HANDLERS[kind]


def is_over(state: WinterState) -> bool:
    return state.winner is not None


def to_act(state: WinterState) -> list[Seat]:
    if is_over(state) or not state.stack:
        return []
    frame = state.stack[-1]
    return handler_for(frame).to_act(state, frame)


def legal(state: WinterState, seat: Seat) -> list[Action]:
    if seat not in to_act(state):
        return []
    frame = state.stack[-1]
    return handler_for(frame).legal(state, frame, seat)


def act(state: WinterState, seat: Seat, action: Action, ev: Events) -> None:
    frame = state.stack[-1]
    handler_for(frame).act(state, frame, seat, action, ev)
    advance(state, ev)


def advance(state: WinterState, ev: Events) -> None:
    for _ in range(10_000):
        if is_over(state):
            state.stack.clear()
            return
        if not state.stack:
            for idle in IDLE:
                idle(state, ev)
            if not state.stack:
                return
            continue
        frame = state.stack[-1]
        if not handler_for(frame).auto(state, frame, ev):
            return
    raise RuntimeError("Winter Tales flow did not settle")  # pragma: no cover
