"""Save the Treasure AIs: "team", a sensible team of children who together remember the
twelve covered halves they saw last (about half the box), and "sharp", the same
players with a perfect memory.

What they may use: the table as it is now (the public view's facts) and the state's
``seen`` record, the halves anyone at the table has seen uncovered and when (that is
what a child remembers; the view never shows it). It never reads the faces under the meadow
tiles: a slide's outcome is judged from memory and from the odds over unknown squares.

How it plays:

* Sliding for pages: a slide that surely shows a remembered pair comes first; then a
  slide that sets up a sure pair for the second slide; then the slide with the best
  chance of uncovering the partner of a visible half, plus a little for learning new
  squares and for leaving remembered partners within reach of the next player.
* Green tiles and steps: it turns green the grey tile that shortens the figures' way
  to the gate most, and steps along that way (it stays put when a step would not help).
* The end phase: it looks at every pair of slides (or fewer) followed by its best step
  and keeps the one that brings the figures closest to the gate, riding figures along.

>>> from engines import get_game
>>> from engines.agents import get_agent
>>> from engines.core import Rng
>>> game = get_game("treasure")
>>> state = game.setup(2, game.Options(), seed=4)
>>> agent = get_agent("treasure", "team")
>>> agent.choose(game, state, 0, Rng.from_seed(1)) in game.legal_actions(state, 0)
True
"""

from __future__ import annotations

import functools
from collections import deque
from typing import Any

from engines.agents import register_agent
from engines.core import Action, Rng, Seat
from engines.treasure import (
    SaveTheTreasure,
    Slide,
    Stay,
    Step,
    StopSliding,
    TreasureState,
    TurnGreen,
)

_DELTA = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
_UNKNOWN = -2
_GREY_COST = 3  # a grey square on the way must first be turned green
_HOLE_COST = 4  # an open square must first be filled by a slide


@functools.cache
def _table(rows: int, cols: int) -> tuple[dict[str, tuple[int, ...]], tuple[tuple[int, ...], ...]]:
    """Per direction, each square's neighbour (-1 off the board); and each square's
    neighbours in all directions."""
    by_dir: dict[str, tuple[int, ...]] = {}
    for d, (dr, dc) in _DELTA.items():
        row = []
        for cell in range(rows * cols):
            r, c = divmod(cell, cols)
            r, c = r + dr, c + dc
            row.append(r * cols + c if 0 <= r < rows and 0 <= c < cols else -1)
        by_dir[d] = tuple(row)
    around = tuple(tuple(by_dir[d][cell] for d in _DELTA if by_dir[d][cell] >= 0)
                   for cell in range(rows * cols))
    return by_dir, around


class _Board:
    """A light copy of the public table for quick what-ifs (plain lists)."""

    __slots__ = ("around", "cols", "cover", "gate", "green", "nb", "rows")

    def __init__(self, state: TreasureState) -> None:
        self.rows, self.cols, self.gate = state.rows, state.cols, state.gate
        self.nb, self.around = _table(state.rows, state.cols)
        self.cover = list(state.cover)
        self.green = list(state.green)

    def copy(self) -> _Board:
        other = object.__new__(_Board)
        other.rows, other.cols, other.gate = self.rows, self.cols, self.gate
        other.nb, other.around = self.nb, self.around
        other.cover, other.green = list(self.cover), self.green
        return other

    def neighbour(self, cell: int, direction: str) -> int | None:
        n = self.nb[direction][cell]
        return None if n < 0 else n

    def slide(self, cell: int, direction: str) -> list[tuple[int, int]]:
        """Push like the engine but never stop for a pair; returns, per square moved,
        (the square uncovered at the back, the square covered at the front)."""
        nb, cover = self.nb[direction], self.cover
        line = [cell]
        nxt = nb[cell]
        while nxt >= 0 and cover[nxt] >= 0:
            line.append(nxt)
            nxt = nb[nxt]
        moves: list[tuple[int, int]] = []
        while nxt >= 0 and cover[nxt] < 0:
            for c in reversed(line):
                cover[nb[c]] = cover[c]
                cover[c] = -1
            moves.append((line[0], nxt))
            line = [nb[c] for c in line]
            nxt = nb[line[-1]]
        return moves

    def distances(self, green_only: bool) -> list[int]:
        """Weighted steps from every square to the gate: walking into a green tile costs
        1, a grey one (to be turned green first) or an open square (to be filled) more."""
        cover, green, around = self.cover, self.green, self.around
        cost = []
        for t in cover:
            if t < 0:
                cost.append(_HOLE_COST)
            elif green_only and not green[t]:
                cost.append(_GREY_COST)
            else:
                cost.append(1)
        dist = [10**6] * len(cover)
        dist[self.gate] = 0
        queue = deque([self.gate])
        # Costs are small integers: label-correcting BFS converges quickly on 5x5.
        while queue:
            c = queue.popleft()
            nd = dist[c] + cost[c]  # walking from a neighbour into c
            for n in around[c]:
                if nd < dist[n]:
                    dist[n] = nd
                    queue.append(n)
        return dist


def _figure_cells(state: TreasureState, board: _Board) -> list[int | None]:
    where = {t: c for c, t in enumerate(board.cover) if t >= 0}
    return [where[t] if t >= 0 else None for t in state.figures]


class TeamAgent:
    """The "team" level: see the module docstring. Keeps no per-game memory of its own
    (the state's ``seen`` record is the team's memory), so a restart loses nothing."""

    def __init__(self, memory: int | None = 12, **_: Any) -> None:
        self.memory = memory
        """How many covered squares it remembers (the most recently seen); None: all."""

    def __repr__(self) -> str:
        return f"<TeamAgent memory={self.memory}>"

    # -- entry point ----------------------------------------------------------

    def choose(self, game: SaveTheTreasure, state: TreasureState, seat: Seat,
               rng: Rng) -> Action:
        legal = game.legal_actions(state, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        if state.stage == "slide":
            if state.endgame:
                return self._end_slide(state, seat, legal)
            return self._page_slide(state, legal, rng)
        if state.stage == "green":
            return self._green(state, legal)
        return self._step(state, seat, legal)

    # -- sliding for pages ----------------------------------------------------

    def _knowledge(self, state: TreasureState) -> tuple[list[int], int]:
        """Remembered face per square (``_UNKNOWN`` if never seen), and how many
        covered squares are unknown."""
        known = list(state.seen)
        if self.memory is not None:
            covered = sorted((c for c, t in enumerate(state.cover)
                              if t >= 0 and known[c] != _UNKNOWN and c != state.apple),
                             key=lambda c: state.seen_at[c], reverse=True)
            for c in covered[self.memory:]:
                known[c] = _UNKNOWN  # forgotten
        unknown = sum(1 for c, t in enumerate(state.cover) if t >= 0 and known[c] == _UNKNOWN)
        return known, unknown

    def _judge(self, before: _Board, known: list[int], unknown: int,
               moves: list[tuple[int, int]]) -> tuple[bool, float, int]:
        """(sure pair?, chance of a pair, unknown squares learnt) for a slide that made
        ``moves`` (uncovered, covered) starting from the table ``before``."""
        visible = {c: known[c] for c, t in enumerate(before.cover) if t < 0}
        located = {f for f in known if f >= 0}
        miss = 1.0
        learnt = 0
        for uncovered, covered in moves:
            visible.pop(covered, None)
            f = known[uncovered]
            faces = set(visible.values())
            if f >= 0 and f ^ 1 in faces:
                return True, 1.0, learnt
            if f == _UNKNOWN and unknown > 0:
                # A visible half whose partner was never seen could be matched here.
                hopeful = sum(1 for v in faces if v >= 0 and v ^ 1 not in located)
                miss *= 1.0 - min(1.0, hopeful / unknown)
                learnt += 1
            visible[uncovered] = f
        return False, 1.0 - miss, learnt

    def _page_slide(self, state: TreasureState, legal: list[Action], rng: Rng) -> Action:
        known, unknown = self._knowledge(state)
        base = _Board(state)
        best = -1.0
        choice: Action = legal[0]
        for action in legal:
            if not isinstance(action, Slide):
                continue
            board = base.copy()
            moves = board.slide(action.row * board.cols + action.col, action.direction)
            sure, chance, learnt = self._judge(base, known, unknown, moves)
            if sure:
                score = 1000.0
            else:
                score = 100.0 * chance + 4.0 * learnt
                score += self._promise(board, known, second=state.slides == 0)
            score += rng.random() * 0.01  # break ties without a fixed bias
            if score > best:
                best, choice = score, action
        # A second slide that only spoils a promising table is worse than none.
        if state.slides >= 1 and best < self._promise(base, known, second=False):
            return StopSliding()
        return choice

    def _promise(self, board: _Board, known: list[int], second: bool) -> float:
        """What a table offers next: a sure pair for our own second slide, or
        remembered partners of visible halves for the next player."""
        where = {known[c]: c for c, t in enumerate(board.cover) if t < 0}
        partners = [c for c, t in enumerate(board.cover)
                    if t >= 0 and known[c] >= 0 and known[c] ^ 1 in where]
        score = 15.0 * len(partners)
        if second:
            # Pushing the partner's own tile uncovers it at once; the pair shows unless
            # that push covers the visible half in the same move.
            for p in partners:
                for d in _DELTA:
                    c: int | None = p
                    while c is not None and board.cover[c] >= 0:
                        c = board.neighbour(c, d)
                    if c is not None and c != where[known[p] ^ 1]:
                        return score + 300.0
        return score

    # -- green tiles and steps ------------------------------------------------

    def _route_cost(self, state: TreasureState, board: _Board, seat: Seat | None) -> int:
        dist = board.distances(green_only=True)
        cells = _figure_cells(state, board)
        total = 0
        for s, c in enumerate(cells):
            if c is not None:
                total += dist[c] * (3 if s == seat else 1)
        return total

    def _green(self, state: TreasureState, legal: list[Action]) -> Action:
        base = _Board(state)
        best: tuple[int, int] | None = None
        choice = legal[0]
        for action in legal:
            assert isinstance(action, TurnGreen)
            cell = action.row * base.cols + action.col
            board = base.copy()
            board.green = list(base.green)
            board.green[board.cover[cell]] = True
            key = (self._route_cost(state, board, state.turn), abs(cell - state.gate))
            if best is None or key < best:
                best, choice = key, action
        return choice

    def _step(self, state: TreasureState, seat: Seat, legal: list[Action]) -> Action:
        board = _Board(state)
        dist = board.distances(green_only=not state.endgame)
        here = _figure_cells(state, board)[seat]
        best: tuple[int, Action] | None = None
        for action in legal:
            if isinstance(action, Step) and here is not None:
                n = board.neighbour(here, action.direction)
                assert n is not None
                value = dist[n]
            else:
                value = dist[here] if here is not None else 0
            if best is None or value < best[0]:
                best = (value, action)
        assert best is not None
        if Stay() in legal and best[0] >= (dist[here] if here is not None else 0):
            return Stay()
        return best[1]

    # -- the end phase --------------------------------------------------------

    def _end_value(self, state: TreasureState, board: _Board, seat: Seat) -> float:
        dist = board.distances(green_only=False)
        total = 0.0
        tile_at_gate = board.cover[board.gate]
        for s, c in enumerate(_figure_cells(state, board)):
            if c is None or (tile_at_gate >= 0 and board.cover[c] == tile_at_gate):
                continue  # out, or leaving now
            d = dist[c]
            if s == seat:
                steps = [dist[n] for dd in _DELTA
                         if (n := board.neighbour(c, dd)) is not None and board.cover[n] >= 0]
                d = min([d, *steps])
            total += d
        return total

    def _end_slide(self, state: TreasureState, seat: Seat, legal: list[Action]) -> Action:
        base = _Board(state)
        options: list[Action] = [a for a in legal if isinstance(a, Slide)]
        best_value = self._end_value(state, base, seat)
        choice: Action = StopSliding()
        for action in options:
            board = base.copy()
            board.slide(action.row * board.cols + action.col, action.direction)
            value = self._end_value(state, board, seat)
            if state.slides == 0:
                for cell, t in enumerate(board.cover):
                    if t < 0:
                        continue
                    for d in _DELTA:
                        second = board.copy()
                        if second.slide(cell, d):
                            value = min(value, self._end_value(state, second, seat))
            if value < best_value - 1e-9:
                best_value, choice = value, action
        return choice


register_agent("treasure", "team", TeamAgent, selfplay_default=True)
register_agent("treasure", "sharp", functools.partial(TeamAgent, memory=None))
