"""Save the Treasure of Fairy Tales buttons.

A slide is two clicks: the public turn message shows one button per meadow tile that
can slide right now (square name, green or grey), and a click answers privately with
the directions that tile can go; the direction click plays the slide. The choices
after a found page (which grey tile turns green) and the figure's step are single
clicks on the public message. Only legal moves ever get a button.

Codes (all public facts: the table is in plain sight of everyone; squares use the
map names of the board image, rows A-E and columns 1-5):

==========  =====================================================
``tB3``     the tile on B3 chosen: show its directions
``sB3l``    slide the tile on B3 left (``u`` ``d`` ``l`` ``r``)
``x``       stop sliding (no second slide)
``gB3``     turn the grey tile on B3 green
``wu``      step up (``u`` ``d`` ``l`` ``r``)
``y``       stay where you are
==========  =====================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from bot.core.choices.adapter import Choice, GameUI, Menu, Resolution, UnknownChoice
from engines.core import Action, View

__all__ = ["TreasureUI"]

_SQ = r"([A-I])([1-9])"
_TILE = re.compile(rf"t{_SQ}")
_SLIDE = re.compile(rf"s{_SQ}([udlr])")
_GREEN = re.compile(rf"g{_SQ}")
_STEP = re.compile(r"w([udlr])")

_LETTER = {"up": "u", "down": "d", "left": "l", "right": "r"}
_WORD = {v: k for k, v in _LETTER.items()}
_ARROW = {"up": "⬆️", "down": "⬇️", "left": "⬅️", "right": "➡️"}


def _square(row: int, col: int) -> str:
    return f"{chr(ord('A') + row)}{col + 1}"


def _rc(letter: str, digit: str) -> tuple[int, int]:
    return ord(letter) - ord("A"), int(digit) - 1


class TreasureUI(GameUI):
    game_id: ClassVar[str] = "treasure"

    def label(self, action: Action, view: View | None = None) -> str:
        """A short label for buttons and menus.

        >>> from engines.treasure import Slide
        >>> TreasureUI().label(Slide(row=1, col=2, direction="left"))
        'Slide the tile on B3 left'
        """
        a: Any = action
        kind = getattr(a, "kind", None)
        if kind == "slide":
            return f"Slide the tile on {_square(a.row, a.col)} {a.direction}"
        if kind == "green":
            return f"Turn the tile on {_square(a.row, a.col)} green"
        if kind == "step":
            return f"Step {a.direction}"
        if kind == "stay":
            return "Stay where you are"
        if kind == "stop":
            return "Stop sliding"
        return super().label(action, view)

    # -- helpers ---------------------------------------------------------------

    @staticmethod
    def _of(legal: Sequence[Action], kind: str) -> list[Any]:
        return [a for a in legal if getattr(a, "kind", None) == kind]

    @staticmethod
    def _meadow(view: View, row: int, col: int) -> str | None:
        for cell in getattr(view, "cells", []) or []:
            if cell.row == row and cell.col == col:
                return cell.meadow
        return None

    @staticmethod
    def _line_length(view: View, row: int, col: int, direction: str) -> int:
        """How many meadow tiles a push from (row, col) moves (the tile and the ones
        touching it in front), from the public view."""
        covered = {(c.row, c.col) for c in getattr(view, "cells", []) or [] if c.meadow}
        dr, dc = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}[direction]
        n, r, c = 1, row + dr, col + dc
        while (r, c) in covered:
            n, r, c = n + 1, r + dr, c + dc
        return n

    # -- menus -----------------------------------------------------------------

    def public_menu(self, view: View, legal: Sequence[Action]) -> Menu | None:
        if not legal:
            return None
        kinds = {getattr(a, "kind", None) for a in legal}
        if "green" in kinds:
            greens = sorted(self._of(legal, "green"), key=lambda a: (a.row, a.col))
            return Menu(
                prompt="You found a page! Pick a grey meadow tile to turn green.",
                choices=tuple(Choice(f"g{_square(a.row, a.col)}", _square(a.row, a.col),
                                     style="success", emoji="🌱") for a in greens),
            )
        if kinds & {"step", "stay"}:
            choices = [Choice(f"w{_LETTER[a.direction]}", f"Step {a.direction}",
                              style="primary", emoji=_ARROW[a.direction])
                       for a in self._of(legal, "step")]
            if "stay" in kinds:
                choices.append(Choice("y", "Stay here", style="secondary", emoji="✋"))
            must = "stay" not in kinds
            prompt = ("Move your figure one step onto a green tile." if must else
                      "Move your figure one step onto a green tile, or stay where it is.")
            return Menu(prompt=prompt, choices=tuple(choices))
        tiles = sorted({(a.row, a.col) for a in self._of(legal, "slide")})
        choices = []
        for row, col in tiles:
            green = self._meadow(view, row, col) == "green"
            choices.append(Choice(f"t{_square(row, col)}", _square(row, col),
                                  style="success" if green else "secondary",
                                  emoji="🟩" if green else "⬜"))
        if "stop" in kinds:
            choices.append(Choice("x", "Stop sliding", style="danger", emoji="🛑"))
        slides = getattr(view, "slides", 0)
        if getattr(view, "endgame", False):
            prompt = "Slide a meadow tile (up to 2 slides), or stop and step toward the gate."
        elif slides:
            prompt = "No pair yet. Slide a second time, or stop."
        else:
            prompt = "Pick a meadow tile to slide, then a direction."
        return Menu(prompt=prompt, choices=tuple(choices), as_select=len(choices) > 25)

    def private_menu(self, view: View, legal: Sequence[Action]) -> Menu:
        menu = self.public_menu(view, legal)
        if menu is None:
            return Menu(prompt="You have nothing to do right now.", choices=())
        return menu

    def direction_menu(self, view: View, row: int, col: int,
                       directions: Sequence[str]) -> Menu:
        sq = _square(row, col)
        choices = []
        for d in ("up", "down", "left", "right"):
            if d not in directions:
                continue
            n = self._line_length(view, row, col, d)
            extra = "" if n == 1 else f" ({n} tiles)"
            choices.append(Choice(f"s{sq}{_LETTER[d]}", f"{d.capitalize()}{extra}",
                                  style="primary", emoji=_ARROW[d]))
        return Menu(prompt=f"Which way should the tile on **{sq}** slide?",
                    choices=tuple(choices))

    # -- clicks ----------------------------------------------------------------

    def resolve(self, code: str, view: View, legal: Sequence[Action]) -> Resolution:
        if code == self.turn_code:
            return Resolution(menu=self.private_menu(view, legal))
        if m := _TILE.fullmatch(code):
            row, col = _rc(m[1], m[2])
            directions = [a.direction for a in self._of(legal, "slide")
                          if (a.row, a.col) == (row, col)]
            if not directions:
                raise UnknownChoice(self._tile_problem(view, legal, row, col))
            return Resolution(menu=self.direction_menu(view, row, col, directions))
        if m := _SLIDE.fullmatch(code):
            row, col = _rc(m[1], m[2])
            direction = _WORD[m[3]]
            action = next((a for a in self._of(legal, "slide")
                           if (a.row, a.col, a.direction) == (row, col, direction)), None)
            if action is None:
                raise UnknownChoice(
                    f"The tile on {_square(row, col)} can't slide {direction} right now.")
            return Resolution(action=action,
                              done_text=f"You slid the tile on {_square(row, col)} {direction}.")
        if code == "x":
            action = next(iter(self._of(legal, "stop")), None)
            if action is None:
                raise UnknownChoice("You can't stop sliding yet: slide a tile first.")
            return Resolution(action=action, done_text="You stopped sliding.")
        if m := _GREEN.fullmatch(code):
            row, col = _rc(m[1], m[2])
            action = next((a for a in self._of(legal, "green") if (a.row, a.col) == (row, col)),
                          None)
            if action is None:
                raise UnknownChoice(f"The tile on {_square(row, col)} can't be turned green now.")
            return Resolution(action=action,
                              done_text=f"The tile on {_square(row, col)} is green now.")
        if m := _STEP.fullmatch(code):
            direction = _WORD[m[1]]
            action = next((a for a in self._of(legal, "step") if a.direction == direction),
                          None)
            if action is None:
                raise UnknownChoice(f"Your figure can't step {direction} right now.")
            return Resolution(action=action, done_text=f"Your figure stepped {direction}.")
        if code == "y":
            action = next(iter(self._of(legal, "stay")), None)
            if action is None:
                raise UnknownChoice("Your figure has to take a step now.")
            return Resolution(action=action, done_text="Your figure stays where it is.")
        raise UnknownChoice()

    def _tile_problem(self, view: View, legal: Sequence[Action], row: int, col: int) -> str:
        if not self._of(legal, "slide"):
            return "It's not time to slide a tile now."
        meadow = self._meadow(view, row, col)
        if meadow is None:
            return f"There is no meadow tile on {_square(row, col)} to slide."
        return f"The tile on {_square(row, col)} can't slide anywhere: it's stuck."
