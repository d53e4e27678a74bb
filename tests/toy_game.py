"""A tiny test-only game: Nim with a hidden pile order, declared from the tests alone.

A face-down pile of numbered stones (values 1..3, shuffled from the seed). On a turn
a seat takes 1..``max_take`` stones off the top; only the taker learns their values
(a private event, and the seat's own view: its hand). When the pile is empty the
highest total wins (ties: the seat that did not start). Two or three players.

It shows the one-declaration seam: :data:`TOY_SPEC` declares the game (engine, AI
levels, a board and a private picture, rules, conformance cases, the secret
fragments), and inside :func:`toy_registered` it gets the lobby, turn buttons, a DM
hand message, the console, self-play, the conformance suite and the leak check with
no line of shared code naming it. It is never in the real game registry.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from engines.agents import register_agent
from engines.catalog import ConformanceCase, GameSpec, registered
from engines.core import Action, Event, Game, GameState, Options, Outcome, Rng, Seat, View

TOY_ID = "toy-nim"


class ToyOptions(Options):
    pile: int = Field(default=9, ge=2, le=40)
    max_take: int = Field(default=2, ge=1, le=3)


class Take(Action):
    kind: Literal["take"] = "take"
    n: int


class Pass(Action):
    """Never legal: exists so tests can send a well-formed but illegal action."""

    kind: Literal["pass"] = "pass"


ToyAction = Annotated[Take | Pass, Field(discriminator="kind")]


class ToyState(GameState):
    pile: list[int]
    taken: list[list[int]]
    turn: Seat = 0
    max_take: int = 2


class Took(Event):
    kind: str = "took"
    n: int = 0

    def text(self, name: Callable[[Seat], str]) -> str:
        return f"{name(self.seat or 0)} took {self.n} stone(s)."


class SawValues(Event):
    kind: str = "saw_values"
    values: tuple[int, ...] = ()

    def text(self, name: Callable[[Seat], str]) -> str:
        return f"{name(self.seat or 0)} found stones worth {', '.join(map(str, self.values))}."


class ToyView(View):
    pile_left: int
    taken_counts: list[int]
    turn: Seat | None
    my_values: list[int] | None = None


class ToyNim(Game[ToyState, Take | Pass]):
    id = TOY_ID
    name = "Toy Nim"
    min_players = 2
    max_players = 3
    has_secrets = True
    Options = ToyOptions
    State = ToyState
    ViewType = ToyView
    ActionType = ToyAction

    def setup(self, players: int, options: Options, seed: int) -> ToyState:
        assert isinstance(options, ToyOptions)
        rng = Rng.from_seed(seed)
        pile = [1 + (i % 3) for i in range(options.pile)]
        rng.shuffle(pile)
        return ToyState(players=players, seed=seed, rng=rng, pile=pile,
                        taken=[[] for _ in range(players)], max_take=options.max_take)

    def to_act(self, state: ToyState) -> list[Seat]:
        return [] if not state.pile else [state.turn]

    def legal_actions(self, state: ToyState, seat: Seat) -> list[Take | Pass]:
        if seat not in self.to_act(state):
            return []
        return [Take(n=n) for n in range(1, min(state.max_take, len(state.pile)) + 1)]

    def explain_illegal(self, state: ToyState, seat: Seat, action: Take | Pass) -> str:
        if isinstance(action, Pass):
            return "You may not pass in Toy Nim."
        return f"You may take 1 to {min(state.max_take, len(state.pile))} stones."

    def _apply(self, state: ToyState, seat: Seat, action: Take | Pass) -> list[Event]:
        assert isinstance(action, Take)
        got = state.pile[: action.n]
        del state.pile[: action.n]
        state.taken[seat].extend(got)
        state.turn = (state.turn + 1) % state.players
        return [Took(seat=seat, n=action.n),
                SawValues(seat=seat, values=tuple(got), visible_to=(seat,))]

    def view(self, state: ToyState, seat: Seat | None) -> ToyView:
        return ToyView(
            seat=seat, players=state.players, pile_left=len(state.pile),
            taken_counts=[len(t) for t in state.taken],
            turn=self.to_act(state)[0] if state.pile else None,
            my_values=list(state.taken[seat]) if seat is not None else None,
        )

    def outcome(self, state: ToyState) -> Outcome | None:
        if state.pile:
            return None
        scores = {s: sum(v) for s, v in enumerate(state.taken)}
        best = max(scores.values())
        tied = [s for s, v in scores.items() if v == best]
        winner = tied[-1] if len(tied) > 1 else tied[0]
        return Outcome(winners=[winner], scores=scores, reason="The pile is empty.")

    def determinize(self, state: ToyState, seat: Seat | None, rng: Rng) -> ToyState:
        copy = self.copy_state(state)
        rng.shuffle(copy.pile)
        return copy


class ToyAgent:
    """Takes as many stones as allowed (deterministic), or random ones with ``rng``."""

    def __init__(self, level: str) -> None:
        self.level = level

    def choose(self, game: Game, state: ToyState, seat: Seat, rng: Rng) -> Action:
        legal = game.legal_actions(state, seat)
        return legal[-1] if self.level == "greedy" else rng.choice(legal)


class ToyAgents:
    """An agent provider for the service (the real one is engines.agents)."""

    def levels(self, game_id: str) -> list[str]:
        return ["random", "greedy"] if game_id == TOY_ID else []

    def get(self, game_id: str, level: str) -> ToyAgent:
        if level not in self.levels(game_id):
            raise KeyError(level)
        return ToyAgent(level)


def render(view: Any, names: Sequence[str] | None = None) -> bytes:
    """The board (or a seat's hand): the pile and, for a seat, its own stones."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (360, 120), (43, 45, 49))
    draw = ImageDraw.Draw(image)
    draw.text((12, 12), f"Stones left: {view.pile_left}", fill=(235, 235, 235))
    counts = ", ".join(str(n) for n in view.taken_counts)
    draw.text((12, 40), f"Taken: {counts}", fill=(235, 235, 235))
    if view.my_values is not None:
        draw.text((12, 68), f"Yours: {view.my_values}", fill=(255, 215, 120))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def secret_fragments(game: Any, state: ToyState) -> list[list[str]]:
    """The next three stones, in order: no public message may name them."""
    runs = []
    for i in range(len(state.pile) - 2):
        window = state.pile[i:i + 3]
        if len(set(window)) > 1:
            runs.append([f"stones worth {', '.join(map(str, window))}"])
    return runs


register_agent(TOY_ID, "greedy", lambda **_: ToyAgent("greedy"))

TOY_SPEC = GameSpec(
    engine=ToyNim,
    agents="tests.toy_game",
    board="tests.toy_game:render",
    private_picture="tests.toy_game:render",
    rules=str(Path(__file__).with_name("toy_rules.json")),
    conformance=(ConformanceCase(2, seeds=5), ConformanceCase(3, {"max_take": 3}, seeds=5)),
    secret_fragments=secret_fragments,
)


@contextlib.contextmanager
def toy_registered(**changes: Any) -> Iterator[GameSpec]:
    """Declare the toy inside the block only, so no other test (a game list, the
    conformance suite) ever sees it. ``changes`` alter the declaration (a toy without
    pictures: ``board=None, private_picture=None``)."""
    with registered(dataclasses.replace(TOY_SPEC, **changes)) as spec:
        yield spec
