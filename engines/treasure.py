"""Save the Treasure of Fairy Tales: a co-op sliding-tile memory game for 1-4 children.

The box is a grid of fairy-tale tiles (24 halves of 12 tales plus one blank tile in
the apple-tree corner) that never move. Meadow tiles lie on top of them, grey side or
green side up; three squares are left open, so their fairy-tale tile shows. Players
slide meadow tiles to uncover two halves of the same tale, which wins a page of the
fairy-tale book. After the twelfth page the whole garden turns green and the children
must walk out through the garden gate before the king is back on his crown space.

Squares are numbered ``row * cols + col`` with row 0 at the top; in texts a square is
named like a map, ``B3`` = second row, third column.

>>> from engines import get_game
>>> game = get_game("treasure")
>>> state = game.setup(2, game.Options(), seed=3)
>>> view = game.view(state, None)
>>> sum(1 for c in view.cells if c.face is not None and c.face.tale is not None)
3
>>> game.to_act(state)
[0]

Rule decisions where the rulebook is silent or loose (the project's, documented here):

* The green meadow tile at setup is the one on the apple-tree corner (CONTENT.md);
  the three open squares are chosen at random among the other 24, and the halves are
  re-dealt until no two visible halves belong together.
* A slide pushes one meadow tile and every meadow tile touching it in front, in the
  direction of the push (the 15-puzzle's line move). The line keeps going, one square
  at a time, until its front bumps into a tile or the wall, or until two matching
  halves are visible anywhere.
* The step after a found page is compulsory when some adjacent green tile exists
  ("Move your figure forward"); the step after a turn without a page, and in the end
  phase, is optional ("you can move your figure"). With no adjacent green tile the
  step is skipped.
* In the end phase both slides are optional ("you can slide twice").
* A figure leaves the garden as soon as it stands on the meadow tile on the gate
  square during the end phase (by stepping or by riding a slide). Players whose
  figure has left keep taking turns: their slides can carry the others along, and the
  king keeps walking.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from engines.catalog import ConformanceCase, GameSpec, register
from engines.core import (
    Action,
    Event,
    Game,
    GameState,
    IllegalAction,
    Options,
    Outcome,
    Rng,
    Seat,
    View,
)

# --------------------------------------------------------------------------- content


class Picture(BaseModel):
    """A simple picture concept the renderer can draw."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    glyph: Literal[
        "slipper", "apple", "hood", "house", "rose", "tower", "frog", "boot",
        "beanstalk", "bricks", "bowls", "duckling",
    ]
    background: str
    color: str
    accent: str
    description: str

    @field_validator("background", "color", "accent")
    @classmethod
    def _hex(cls, value: str) -> str:
        if len(value) != 7 or value[0] != "#":
            raise ValueError(f"{value!r} is not a #RRGGBB colour")
        int(value[1:], 16)
        return value


class Tale(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    name: str
    caption: str
    picture: Picture


class Box(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rows: int = Field(ge=2, le=9)
    cols: int = Field(ge=2, le=9)
    apple_tree: tuple[int, int]
    gate: tuple[int, int]


class TreasureData(BaseModel):
    """``data/treasure.json``, validated."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    about: str = Field(alias="_about")
    notes: str
    box: Box
    meadow_tiles: int
    king_path_length: int = Field(ge=4, le=99)
    king_path_tuning: dict[str, dict[str, float]]
    tales: list[Tale]

    def model_post_init(self, _context: object) -> None:
        cells = self.box.rows * self.box.cols
        corners = {(0, 0), (0, self.box.cols - 1), (self.box.rows - 1, 0),
                   (self.box.rows - 1, self.box.cols - 1)}
        if 2 * len(self.tales) + 1 != cells:
            raise ValueError(f"{len(self.tales)} tales do not fill a {cells}-square box")
        if not cells - 2 > self.meadow_tiles >= 2:
            raise ValueError("the meadow tiles must leave at least two squares open")
        if self.box.apple_tree not in corners or self.box.gate not in corners:
            raise ValueError("the apple tree and the gate stand on corners")
        ar, ac = self.box.apple_tree
        gr, gc = self.box.gate
        if ar == gr or ac == gc:
            raise ValueError("the gate is diagonally opposite the apple tree")
        if len({t.id for t in self.tales}) != len(self.tales):
            raise ValueError("tale ids must be unique")


DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "treasure.json"


@functools.cache
def load_data() -> TreasureData:
    """The validated content of ``data/treasure.json`` (cached)."""
    text = DATA_PATH.read_text(encoding="utf-8")
    return TreasureData.model_validate(json.loads(text))


# --------------------------------------------------------------------------- geometry

Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")
_DELTA: dict[str, tuple[int, int]] = {
    "up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1),
}


def square_name(cell: int, cols: int) -> str:
    """A map-style name: row letter, column number (1-based).

    >>> square_name(0, 5), square_name(24, 5), square_name(7, 5)
    ('A1', 'E5', 'B3')
    """
    return f"{chr(ord('A') + cell // cols)}{cell % cols + 1}"


# --------------------------------------------------------------------------- options/state


class TreasureOptions(Options):
    """Table options. ``variant``: the king walks from the very first turn."""

    variant: bool = False
    king_path_length: int = Field(
        default_factory=lambda: load_data().king_path_length, ge=4, le=99
    )


Stage = Literal["slide", "green", "step", "over"]


class TreasureState(GameState):
    rows: int
    cols: int
    apple: int
    gate: int
    variant: bool
    path_length: int
    faces: list[int]
    """Per square: the fairy-tale tile, ``tale * 2 + half``, or -1 for a blank side."""
    cover: list[int]
    """Per square: the meadow tile lying on it, or -1 if the square is open."""
    green: list[bool]
    """Per meadow tile: green side up?"""
    figures: list[int]
    """Per seat: the meadow tile the figure stands on, or -1 once it left the garden."""
    seen: list[int] = Field(default_factory=list)
    """Per square: the face last seen there (-2 never seen). Everyone at the table saw it,
    so AI teammates may use it as their memory; views never show it (remembering is
    the children's game)."""
    seen_at: list[int] = Field(default_factory=list)
    """Per square: the ply at which it was last seen uncovered (-1 never), so that a
    forgetful AI teammate can remember only the most recent sightings."""
    king: int = 0
    """Spaces the king has walked from the crown; at ``path_length`` he is back."""
    pages: list[int] = Field(default_factory=list)
    turn: Seat = 0
    stage: Stage = "slide"
    slides: int = 0
    found: bool = False
    """A page was found this turn (the step is then compulsory and the king rests)."""
    endgame: bool = False
    result: Literal["won", "lost"] | None = None


# --------------------------------------------------------------------------- actions


class Slide(Action):
    """Push the meadow tile on (row, col) one way; the tiles in front of it go along."""

    kind: Literal["slide"] = "slide"
    row: int
    col: int
    direction: Direction


class StopSliding(Action):
    """Do not use the remaining slide of this turn."""

    kind: Literal["stop"] = "stop"


class TurnGreen(Action):
    """After a found page: turn the grey meadow tile on (row, col) green side up."""

    kind: Literal["green"] = "green"
    row: int
    col: int


class Step(Action):
    """Move your figure one square onto an adjacent green meadow tile."""

    kind: Literal["step"] = "step"
    direction: Direction


class Stay(Action):
    """Leave your figure where it is (only when the step is optional)."""

    kind: Literal["stay"] = "stay"


TreasureAction = Annotated[
    Slide | StopSliding | TurnGreen | Step | Stay, Field(discriminator="kind")
]


# --------------------------------------------------------------------------- events


class Slid(Event):
    kind: Literal["slid"] = "slid"
    square: str
    direction: Direction
    tiles: int
    distance: int
    stopped: Literal["pair", "tile", "wall"]
    riders: list[Seat] = Field(default_factory=list)

    def text(self, name):  # type: ignore[no-untyped-def]
        what = "the meadow tile" if self.tiles == 1 else f"{self.tiles} meadow tiles"
        spaces = "1 space" if self.distance == 1 else f"{self.distance} spaces"
        line = f"{name(self.seat)} slid {what} from {self.square} {self.direction} {spaces}"
        if self.riders:
            line += " (" + ", ".join(f"{name(s)}'s figure" for s in self.riders) + " rode along)"
        return line + ("." if self.stopped != "pair" else " and two halves match!")


class PageFound(Event):
    kind: Literal["page_found"] = "page_found"
    tale: str
    pages: int
    total: int

    def text(self, name):  # type: ignore[no-untyped-def]
        return (f"{name(self.seat)} found a page: {self.tale}! "
                f"The book now has {self.pages} of {self.total} pages.")


class TurnedGreen(Event):
    kind: Literal["turned_green"] = "turned_green"
    square: str

    def text(self, name):  # type: ignore[no-untyped-def]
        return f"{name(self.seat)} turned the meadow tile on {self.square} green."


class GardenBlossoms(Event):
    kind: Literal["garden_blossoms"] = "garden_blossoms"

    def text(self, name):  # type: ignore[no-untyped-def]
        return ("All the pages are found and the garden blossoms: every meadow tile is "
                "green! Now hurry out through the garden gate before the king is back.")


class Stepped(Event):
    kind: Literal["stepped"] = "stepped"
    direction: Direction
    square: str

    def text(self, name):  # type: ignore[no-untyped-def]
        return f"{name(self.seat)}'s figure stepped {self.direction} to {self.square}."


class Stayed(Event):
    kind: Literal["stayed"] = "stayed"
    reason: Literal["chose", "blocked", "gone"]

    def text(self, name):  # type: ignore[no-untyped-def]
        if self.reason == "blocked":
            return f"{name(self.seat)}'s figure has no green tile next to it, so it waits."
        if self.reason == "gone":
            return f"{name(self.seat)}'s figure is already out of the garden."
        return f"{name(self.seat)}'s figure stays where it is."


class LeftGarden(Event):
    kind: Literal["left_garden"] = "left_garden"

    def text(self, name):  # type: ignore[no-untyped-def]
        return f"{name(self.seat)}'s figure left the garden through the gate!"


class KingWalked(Event):
    kind: Literal["king_walked"] = "king_walked"
    position: int
    remaining: int

    def text(self, name):  # type: ignore[no-untyped-def]
        if self.remaining == 0:
            return "The king took one more step and is back at his crown."
        left = "1 more step" if self.remaining == 1 else f"{self.remaining} more steps"
        return f"The king took a step on his walk: {left} until he is back at his crown."


class GameEnded(Event):
    kind: Literal["game_ended"] = "game_ended"
    won: bool

    def text(self, name):  # type: ignore[no-untyped-def]
        if self.won:
            return ("Hooray! Everyone left the garden in time: you saved the Treasure of "
                    "Fairy Tales!")
        return "Oh no, the king is back at his crown before everyone got out. The king wins."


# --------------------------------------------------------------------------- views


class Face(BaseModel):
    """A visible fairy-tale tile: ``tale`` is None for a blank side."""

    tale: str | None = None
    name: str | None = None
    half: int = 0


class CellView(BaseModel):
    square: str
    row: int
    col: int
    meadow: Literal["grey", "green"] | None
    """The meadow tile on this square, or None if the square is open."""
    face: Face | None
    """The fairy-tale tile, only when the square is open (visible)."""
    figures: list[Seat] = Field(default_factory=list)


class TreasureView(View):
    rows: int
    cols: int
    apple_tree: str
    gate: str
    cells: list[CellView]
    pages: list[str]
    """Ids of the tales found, in order."""
    page_names: list[str]
    total_pages: int
    king: int
    path_length: int
    variant: bool
    king_walking: bool
    """Does the king step at the end of a turn without a page right now?"""
    turn: Seat
    stage: Stage
    slides: int
    found: bool
    endgame: bool
    figures_out: list[Seat]
    result: Literal["won", "lost"] | None
    prompt: str
    """What the player to act does now, in a child-friendly sentence."""


# --------------------------------------------------------------------------- the game


class SaveTheTreasure(Game[TreasureState, Action]):
    """Save the Treasure of Fairy Tales (rules/save_the_treasure.txt)."""

    id = "treasure"
    name = "Save the Treasure of Fairy Tales"
    min_players = 1
    max_players = 4
    cooperative = True
    has_secrets = True
    Options = TreasureOptions
    State = TreasureState
    ViewType = TreasureView
    ActionType = TreasureAction

    # -- setup ----------------------------------------------------------------

    def setup(self, players: int, options: Options, seed: int) -> TreasureState:
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction(
                f"{self.name} is for {self.min_players} to {self.max_players} players."
            )
        opts = options if isinstance(options, TreasureOptions) else self.parse_options(
            options.model_dump())
        data = load_data()
        rows, cols = data.box.rows, data.box.cols
        apple = data.box.apple_tree[0] * cols + data.box.apple_tree[1]
        gate = data.box.gate[0] * cols + data.box.gate[1]
        rng = Rng.from_seed(seed)
        cells = rows * cols
        others = [c for c in range(cells) if c != apple]
        # The squares left open: every square but the apple-tree corner can be one.
        open_count = cells - data.meadow_tiles
        open_squares = set(rng.sample(others, open_count))
        halves = [t * 2 + h for t in range(len(data.tales)) for h in (0, 1)]
        while True:  # re-deal until no two visible halves belong together (the rulebook)
            rng.shuffle(halves)
            faces = [-1] * cells
            for cell, face in zip(others, halves, strict=True):
                faces[cell] = face
            visible = [faces[c] // 2 for c in open_squares]
            if len(set(visible)) == len(visible):
                break
        cover = [-1] * cells
        tile = 1
        for cell in range(cells):
            if cell == apple:
                cover[cell] = 0  # meadow tile 0: the green one on the apple-tree corner
            elif cell not in open_squares:
                cover[cell] = tile
                tile += 1
        green = [False] * data.meadow_tiles
        green[0] = True
        seen = [faces[c] if c in open_squares or c == apple else -2 for c in range(cells)]
        seen_at = [0 if c in open_squares or c == apple else -1 for c in range(cells)]
        return TreasureState(
            players=players, seed=seed, rng=rng, rows=rows, cols=cols, apple=apple,
            gate=gate, variant=opts.variant, path_length=opts.king_path_length,
            faces=faces, cover=cover, green=green, figures=[0] * players, seen=seen,
            seen_at=seen_at,
        )

    # -- queries --------------------------------------------------------------

    def to_act(self, state: TreasureState) -> list[Seat]:
        return [] if state.result is not None else [state.turn]

    def outcome(self, state: TreasureState) -> Outcome | None:
        if state.result is None:
            return None
        won = state.result == "won"
        scores = dict.fromkeys(range(state.players), len(state.pages))
        if won:
            reason = "Everyone left the garden before the king was back: the treasure is saved!"
        elif state.endgame:
            reason = "The king was back at his crown before everyone left the garden."
        else:
            reason = (f"The king was back at his crown with {len(state.pages)} of "
                      f"{len(load_data().tales)} pages found.")
        return Outcome(winners=list(range(state.players)) if won else [], scores=scores,
                       reason=reason)

    def _neighbour(self, state: TreasureState, cell: int, direction: str) -> int | None:
        dr, dc = _DELTA[direction]
        r, c = divmod(cell, state.cols)
        r, c = r + dr, c + dc
        if 0 <= r < state.rows and 0 <= c < state.cols:
            return r * state.cols + c
        return None

    def _line(self, state: TreasureState, cell: int, direction: str) -> tuple[list[int], str]:
        """The squares of the line pushed from ``cell`` (back to front) and what is in
        front of it: ``"open"``, or ``"wall"`` when the line reaches the wall."""
        line = [cell]
        while True:
            nxt = self._neighbour(state, line[-1], direction)
            if nxt is None:
                return line, "wall"
            if state.cover[nxt] < 0:
                return line, "open"
            line.append(nxt)

    def visible_pair(self, state: TreasureState) -> int | None:
        """The tale whose two halves are both visible right now, if any."""
        seen: set[int] = set()
        for cell, face in enumerate(state.faces):
            if face >= 0 and state.cover[cell] < 0:
                if face // 2 in seen:
                    return face // 2
                seen.add(face // 2)
        return None

    def _tile_cell(self, state: TreasureState, tile: int) -> int:
        return state.cover.index(tile)

    def step_targets(self, state: TreasureState, seat: Seat) -> dict[str, int]:
        """Directions the figure of ``seat`` may step in -> the square it reaches."""
        if state.figures[seat] < 0:
            return {}
        here = self._tile_cell(state, state.figures[seat])
        out: dict[str, int] = {}
        for d in DIRECTIONS:
            nxt = self._neighbour(state, here, d)
            if nxt is not None and state.cover[nxt] >= 0 and state.green[state.cover[nxt]]:
                out[d] = nxt
        return out

    def _step_optional(self, state: TreasureState) -> bool:
        return not state.found

    def legal_actions(self, state: TreasureState, seat: Seat) -> list[Action]:
        if state.result is not None or seat != state.turn:
            return []
        if state.stage == "slide":
            actions: list[Action] = []
            for cell in range(state.rows * state.cols):
                if state.cover[cell] < 0:
                    continue
                for d in DIRECTIONS:
                    if self._line(state, cell, d)[1] == "open":
                        r, c = divmod(cell, state.cols)
                        actions.append(Slide(row=r, col=c, direction=d))
            if state.slides >= 1 or state.endgame:
                actions.append(StopSliding())
            return actions
        if state.stage == "green":
            return [
                TurnGreen(row=cell // state.cols, col=cell % state.cols)
                for cell in range(state.rows * state.cols)
                if state.cover[cell] >= 0 and not state.green[state.cover[cell]]
            ]
        if state.stage == "step":
            steps: list[Action] = [Step(direction=d) for d in self.step_targets(state, seat)]
            if self._step_optional(state):
                steps.append(Stay())
            return steps
        return []

    def explain_illegal(self, state: TreasureState, seat: Seat, action: Action) -> str:
        cols = state.cols
        if isinstance(action, (Slide, TurnGreen)) and not (
            0 <= action.row < state.rows and 0 <= action.col < cols
        ):
            return (f"There is no square at row {action.row + 1}, column {action.col + 1}: "
                    f"the box is {state.rows} by {cols}.")
        if isinstance(action, (Slide, StopSliding)) and state.stage != "slide":
            return self._stage_hint(state)
        if isinstance(action, Slide):
            cell = action.row * cols + action.col
            where = square_name(cell, cols)
            if state.cover[cell] < 0:
                return f"There is no meadow tile on {where} to slide: that square is open."
            line, ahead = self._line(state, cell, action.direction)
            if ahead == "wall" and len(line) == 1:
                return (f"That tile can't move {action.direction}: it's already against "
                        "the wall.")
            if ahead == "wall":
                return (f"That tile can't move {action.direction}: the tiles in front of it "
                        "reach all the way to the wall.")
        if isinstance(action, StopSliding):
            return "You need to slide at least once on your turn."
        if isinstance(action, TurnGreen):
            if state.stage != "green":
                return self._stage_hint(state)
            cell = action.row * cols + action.col
            where = square_name(cell, cols)
            if state.cover[cell] < 0:
                return f"There is no meadow tile on {where}: pick a grey meadow tile."
            return f"The meadow tile on {where} is already green: pick a grey one."
        if isinstance(action, (Step, Stay)):
            if state.stage != "step":
                return self._stage_hint(state)
            if state.figures[seat] < 0:
                return "Your figure has already left the garden."
            if isinstance(action, Stay):
                return "You found a page, so your figure must take a step onto a green tile."
            here = self._tile_cell(state, state.figures[seat])
            nxt = self._neighbour(state, here, action.direction)
            if nxt is None:
                return f"Your figure can't step {action.direction}: that's the wall."
            if state.cover[nxt] < 0:
                return (f"Your figure can't step {action.direction}: there's no meadow tile "
                        "there to stand on.")
            return (f"Your figure can't step {action.direction}: you may only step onto "
                    "green meadow tiles.")
        return "That move is not allowed right now."

    def _stage_hint(self, state: TreasureState) -> str:
        if state.stage == "slide":
            return "It's time to slide a meadow tile."
        if state.stage == "green":
            return "First choose a grey meadow tile to turn green."
        return "Your sliding is done: now move your figure, or let it stay."

    # -- applying -------------------------------------------------------------

    def _apply(self, state: TreasureState, seat: Seat, action: Action) -> list[Event]:
        events: list[Event] = []
        if isinstance(action, Slide):
            self._slide(state, seat, action, events)
        elif isinstance(action, StopSliding):
            self._enter_step(state, seat, events)
        elif isinstance(action, TurnGreen):
            cell = action.row * state.cols + action.col
            state.green[state.cover[cell]] = True
            events.append(TurnedGreen(seat=seat, square=square_name(cell, state.cols)))
            self._enter_step(state, seat, events)
        elif isinstance(action, Step):
            target = self.step_targets(state, seat)[action.direction]
            state.figures[seat] = state.cover[target]
            events.append(Stepped(seat=seat, direction=action.direction,
                                  square=square_name(target, state.cols)))
            self._leave(state, events)
            if state.result is None:
                self._end_turn(state, events)
        elif isinstance(action, Stay):
            events.append(Stayed(seat=seat, reason="chose"))
            self._end_turn(state, events)
        return events

    def _slide(self, state: TreasureState, seat: Seat, action: Slide,
               events: list[Event]) -> None:
        cols = state.cols
        start = action.row * cols + action.col
        line, _ = self._line(state, start, action.direction)
        tiles = len(line)
        riders = sorted(s for s, t in enumerate(state.figures)
                        if t >= 0 and self._tile_cell(state, t) in line)
        distance = 0
        stopped: Literal["pair", "tile", "wall"] = "wall"
        while True:
            # One square forward: front first, so no tile lands on another.
            for cell in reversed(line):
                nxt = self._neighbour(state, cell, action.direction)
                assert nxt is not None
                state.cover[nxt] = state.cover[cell]
                state.cover[cell] = -1
            state.seen[line[0]] = state.faces[line[0]]  # the square the line's back left
            state.seen_at[line[0]] = state.ply
            line = [self._neighbour(state, c, action.direction) for c in line]  # type: ignore[misc]
            distance += 1
            if self.visible_pair(state) is not None:
                stopped = "pair"
                break
            nxt = self._neighbour(state, line[-1], action.direction)
            if nxt is None:
                stopped = "wall"
                break
            if state.cover[nxt] >= 0:
                stopped = "tile"
                break
        state.slides += 1
        events.append(Slid(seat=seat, square=square_name(start, cols),
                           direction=action.direction, tiles=tiles, distance=distance,
                           stopped=stopped, riders=riders))
        if state.endgame:
            self._leave(state, events)
            if state.result is not None:
                return
        tale = self.visible_pair(state)
        if tale is not None:
            self._take_page(state, seat, tale, events)
        elif state.slides >= 2:
            self._enter_step(state, seat, events)

    def _take_page(self, state: TreasureState, seat: Seat, tale: int,
                   events: list[Event]) -> None:
        data = load_data()
        for cell, face in enumerate(state.faces):
            if face >= 0 and face // 2 == tale:
                state.faces[cell] = -1
                state.seen[cell] = -1
        state.pages.append(tale)
        state.found = True
        events.append(PageFound(seat=seat, tale=data.tales[tale].name,
                                pages=len(state.pages), total=len(data.tales)))
        if len(state.pages) == len(data.tales):
            state.green = [True] * len(state.green)
            state.endgame = True
            events.append(GardenBlossoms())
            self._leave(state, events)
            if state.result is None:
                self._enter_step(state, seat, events)
        else:
            state.stage = "green"

    def _enter_step(self, state: TreasureState, seat: Seat, events: list[Event]) -> None:
        state.stage = "step"
        if state.figures[seat] < 0:
            events.append(Stayed(seat=seat, reason="gone"))
            self._end_turn(state, events)
        elif not self.step_targets(state, seat):
            events.append(Stayed(seat=seat, reason="blocked"))
            self._end_turn(state, events)

    def _leave(self, state: TreasureState, events: list[Event]) -> None:
        """In the end phase, figures on the gate square's meadow tile leave the garden."""
        if not state.endgame:
            return
        tile = state.cover[state.gate]
        if tile < 0:
            return
        for s, t in enumerate(state.figures):
            if t == tile:
                state.figures[s] = -1
                events.append(LeftGarden(seat=s))
        if all(t < 0 for t in state.figures):
            state.result = "won"
            state.stage = "over"
            events.append(GameEnded(won=True))

    def king_walking(self, state: TreasureState) -> bool:
        return state.variant or state.endgame or bool(state.pages)

    def _end_turn(self, state: TreasureState, events: list[Event]) -> None:
        if not state.found and self.king_walking(state):
            state.king += 1
            events.append(KingWalked(position=state.king,
                                     remaining=state.path_length - state.king))
            if state.king >= state.path_length:
                state.result = "lost"
                state.stage = "over"
                events.append(GameEnded(won=False))
                return
        state.turn = (state.turn + 1) % state.players
        state.stage = "slide"
        state.slides = 0
        state.found = False

    # -- views and secrets ----------------------------------------------------

    def view(self, state: TreasureState, seat: Seat | None) -> TreasureView:
        data = load_data()
        cols = state.cols
        on_tile: dict[int, list[Seat]] = {}
        for s, t in enumerate(state.figures):
            if t >= 0:
                on_tile.setdefault(t, []).append(s)
        cells = []
        for cell in range(state.rows * cols):
            tile = state.cover[cell]
            face = None
            if tile < 0:
                f = state.faces[cell]
                face = Face() if f < 0 else Face(tale=data.tales[f // 2].id,
                                                 name=data.tales[f // 2].name, half=f % 2)
            cells.append(CellView(
                square=square_name(cell, cols), row=cell // cols, col=cell % cols,
                meadow=None if tile < 0 else ("green" if state.green[tile] else "grey"),
                face=face, figures=on_tile.get(tile, []) if tile >= 0 else [],
            ))
        return TreasureView(
            seat=seat, players=state.players, rows=state.rows, cols=cols,
            apple_tree=square_name(state.apple, cols), gate=square_name(state.gate, cols),
            cells=cells, pages=[data.tales[t].id for t in state.pages],
            page_names=[data.tales[t].name for t in state.pages],
            total_pages=len(data.tales), king=state.king, path_length=state.path_length,
            variant=state.variant, king_walking=self.king_walking(state), turn=state.turn,
            stage=state.stage, slides=state.slides, found=state.found,
            endgame=state.endgame, figures_out=[s for s, t in enumerate(state.figures) if t < 0],
            result=state.result, prompt=self._prompt(state),
        )

    def _prompt(self, state: TreasureState) -> str:
        if state.result == "won":
            return "Everyone is out of the garden: the Treasure of Fairy Tales is saved!"
        if state.result == "lost":
            return "The king is back at his crown: the king wins this time."
        if state.stage == "green":
            return "A page is found! Pick a grey meadow tile to turn green."
        if state.stage == "step":
            if state.found:
                return "Step your figure onto a green tile next to it."
            return "Step your figure onto a green tile next to it, or stay."
        if state.endgame:
            return ("The garden is green! Slide up to twice, then step toward the gate "
                    f"(slide {state.slides + 1} of 2).")
        if state.slides == 0:
            return "Slide a meadow tile to look for two halves of the same fairy tale."
        return "No pair yet: slide a second time, or stop."

    def determinize(self, state: TreasureState, seat: Seat | None, rng: Rng) -> TreasureState:
        """Shuffle what lies under the meadow tiles (nobody can see it), keeping the
        visible squares and the blank apple-tree corner (known from setup) fixed."""
        other = self.copy_state(state)
        hidden = [c for c in range(state.rows * state.cols)
                  if state.cover[c] >= 0 and c != state.apple]
        faces = [state.faces[c] for c in hidden]
        rng.shuffle(faces)
        for cell, face in zip(hidden, faces, strict=True):
            other.faces[cell] = face
        return other

    # -- helpers for agents, renderers and the UI -----------------------------

    def slide_preview(self, state: TreasureState, row: int, col: int,
                      direction: str) -> list[int]:
        """The squares (back to front) a legal slide from (row, col) would push."""
        return self._line(state, row * state.cols + col, direction)[0]


register(GameSpec(
    engine=SaveTheTreasure,
    agents="engines.agents.treasure",
    board="renderers.treasure:render",
    text_board="renderers.treasure:text_board",
    ui="bot.core.choices.treasure:TreasureUI",
    cog="bot.messages.cogs.treasure",
    rules="rules/treasure.json",
    conformance=(
        *(ConformanceCase(p, seeds=8) for p in (1, 2, 3, 4)),
        ConformanceCase(2, {"variant": True}, seeds=8),
        ConformanceCase(1, {"king_path_length": 99}, seeds=4),
        # Random play never finds twelve pages; the team does, so the end phase is
        # checked too.
        ConformanceCase(2, seeds=3, agent="team"),
        ConformanceCase(3, {"variant": True}, seeds=2, agent="team"),
    ),
))
