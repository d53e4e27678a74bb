"""The Player's Inn Board: its geometry and the Kingdom Cards that restrict building.

Pure functions over an inn (``space id -> Built``), so the engine, the AI and the UI ask
the same questions: may this tile go on this space, and if not, why not.

>>> from engines.crossroads_inn.content import load_content
>>> c = load_content()
>>> neighbours("r1c1")
['r0c1', 'r2c1', 'r1c0', 'r1c2']
>>> ring("r1c1"), ring("r0c1"), is_corner("r3c4")
('inner', 'outer', True)
>>> print(placement_problem(c, {}, c.tile("oak_bar_counter"), "r0c1", [10]))
Kingdom Card #10 (...So they won't steal it): Furnishings tiles go on the inner ring only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

from engines.crossroads_inn.content import CrossroadsContent, InnTile, load_content

COLUMNS = 5
ROWS = 4


def space_id(row: int, column: int) -> str:
    return f"r{row}c{column}"


def space_name(space: str, short: bool = False) -> str:
    """A space as players count it, from 1: ``"row 2, column 3 (inner)"``.

    >>> space_name("r1c2"), space_name("r0c0", short=True)
    ('row 2, column 3 (inner)', 'R1 C1')
    """
    row, column = coords(space)
    if short:
        return f"R{row + 1} C{column + 1}"
    return f"row {row + 1}, column {column + 1} ({ring(space)})"


def coords(space: str) -> tuple[int, int]:
    """``(row, column)`` of a space id."""
    row, column = space[1:].split("c")
    return int(row), int(column)


@lru_cache(maxsize=1)
def _board() -> dict[str, Any]:
    board = load_content().boards.inn_board
    return {s.id: s for s in board.spaces}


SPACES: tuple[str, ...] = tuple(space_id(r, c) for r in range(ROWS) for c in range(COLUMNS))


def is_space(space: str) -> bool:
    return space in _board()


def is_corner(space: str) -> bool:
    return bool(_board()[space].basic)


def ring(space: str) -> str:
    return str(_board()[space].ring)


CORNERS: tuple[str, ...] = tuple(s for s in SPACES if is_corner(s))
MAIN_SPACES: tuple[str, ...] = tuple(s for s in SPACES if not is_corner(s))
"""The 16 spaces whose covering ends the game."""


@cache
def neighbours(space: str) -> list[str]:
    """Orthogonal neighbours (CONTENT.md: "next to" is orthogonal)."""
    row, column = coords(space)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        r, c = row + dr, column + dc
        if 0 <= r < ROWS and 0 <= c < COLUMNS:
            out.append(space_id(r, c))
    return out


def category_of(content: CrossroadsContent, built: Any) -> str | None:
    """The category of a built tile; Basic Inn Tiles have none."""
    if built is None or built.basic:
        return None
    return content.tile(built.tile).category


def covered(inn: Mapping[str, Any]) -> int:
    """How many of the 16 main spaces hold a tile."""
    return sum(1 for s in MAIN_SPACES if s in inn)


def _card_name(content: CrossroadsContent, number: int) -> str:
    return f"Kingdom Card #{number} ({content.kingdom_card(number).title})"


def placement_problem(content: CrossroadsContent, inn: Mapping[str, Any], tile: InnTile,
                      space: str, kingdom: Sequence[int],
                      built_this_turn: Sequence[str] = (),
                      ignore: str | None = None) -> str | None:
    """Why ``tile`` may not go on ``space`` under the Kingdom Cards in play, or None.

    Occupancy is the caller's business (Basic Inn Tiles may be covered). ``ignore`` is a
    space whose tile does not count (the tile a swap takes away)."""
    cat = tile.category

    def cat_at(s: str) -> str | None:
        return None if s == ignore else category_of(content, inn.get(s))

    for number in kingdom:
        rule = content.kingdom_card(number).rule
        kind = rule.kind
        name = _card_name(content, number)
        if kind == "adjacent_to" and cat == rule.category:
            if not any(cat_at(n) == rule.to for n in neighbours(space)):
                return (f"{name}: {content.category(cat).name} must be placed next to "
                        f"{content.category(rule.to).name}.")
        elif kind == "ring_only":
            applies = (rule.category is None or rule.category == cat) and (
                not rule.with_ingredient or tile.ingredient is not None)
            if applies and ring(space) != rule.ring:
                what = ("Tiles with ingredients" if rule.with_ingredient
                        else f"{content.category(cat).name} tiles")
                return f"{name}: {what} go on the {rule.ring} ring only."
        elif kind == "max_per_category":
            count = sum(1 for s, b in inn.items()
                        if s != space and cat_at(s) == cat)
            if count >= rule.limit:
                return (f"{name}: an inn may hold at most {rule.limit} "
                        f"{content.category(cat).name} tiles.")
        elif kind == "single_line" and cat == rule.category:
            others = [coords(s) for s in inn if s != space and cat_at(s) == cat]
            if others:
                row, column = coords(space)
                rows = {r for r, _ in others} | {row}
                columns = {c for _, c in others} | {column}
                if len(rows) > 1 and len(columns) > 1:
                    return (f"{name}: {content.category(cat).name} must all stand in one "
                            "row or one column.")
        elif kind == "not_adjacent_same" and cat == rule.category:
            if any(cat_at(n) == cat for n in neighbours(space)):
                return f"{name}: {content.category(cat).name} tiles may not touch each other."
        elif kind == "same_turn_not_adjacent" and any(
                n in built_this_turn for n in neighbours(space)):
            return f"{name}: tiles bought in the same turn may not touch each other."
    return None


def inn_problem(content: CrossroadsContent, inn: Mapping[str, Any],
                kingdom: Sequence[int], spaces: Sequence[str]) -> str | None:
    """Whether the tiles on ``spaces`` (just moved there by a swap) and the tiles next to
    them break a Kingdom Card, judged on the inn as it now stands."""
    to_check = set(spaces)
    for s in spaces:
        to_check.update(n for n in neighbours(s) if n in inn)
    for s in sorted(to_check):
        built = inn.get(s)
        if built is None or built.basic:
            continue
        problem = placement_problem(content, inn, content.tile(built.tile), s, kingdom)
        if problem:
            return problem
    return None


def new_lines(content: CrossroadsContent, inn: Mapping[str, Any], space: str,
              length: int) -> list[list[str]]:
    """Kingdom Card #8: runs of ``length`` same-category tiles in a row or column through
    ``space`` whose tiles have not yet paid a bonus. Rows come before columns."""
    cat = category_of(content, inn.get(space))
    if cat is None:
        return []
    row, column = coords(space)
    found: list[list[str]] = []
    for dr, dc in ((0, 1), (1, 0)):
        for start in range(-(length - 1), 1):
            cells = [space_id(row + dr * (start + i), column + dc * (start + i))
                     for i in range(length)]
            if not all(is_space_rc(c) for c in cells):
                continue
            if all(category_of(content, inn.get(c)) == cat and not inn[c].in_line
                   for c in cells):
                found.append(cells)
    return found


def is_space_rc(space: str) -> bool:
    row, column = coords(space)
    return 0 <= row < ROWS and 0 <= column < COLUMNS
