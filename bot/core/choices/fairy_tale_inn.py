"""Fairy Tale Inn buttons.

A turn is two choices, a Guest List slot then a column, and the engine takes them as
one ``Drop(slot, column)`` action. The public turn message shows one button per Guest
List slot (character and cost; slots the player cannot afford are greyed out); a click
answers privately with the columns that are open; the column click plays the move.
The Pied Piper's Rat column and the extra-turn offer are single choices shown on the
public message directly.

Codes (all public facts: the Guest List and the inn are on the table for everyone):

=========  ====================================================
``s2``     slot 2 chosen: show the column menu
``d2c5``   drop the token from slot 2 into column 5
``r3``     the Rat goes into column 3
``x``      pay for the extra turn
``e``      decline it and end the turn
=========  ====================================================
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, ClassVar

from bot.core.choices.adapter import Choice, GameUI, Menu, Resolution, UnknownChoice
from engines.core import Action, View

__all__ = ["FairyTaleInnUI"]

_SLOT = re.compile(r"s(\d)")
_DROP = re.compile(r"d(\d)c(\d{1,2})")
_RAT = re.compile(r"r(\d{1,2})")


def _cost_text(cost: int) -> str:
    return "free" if cost == 0 else f"{cost} gold"


class FairyTaleInnUI(GameUI):
    game_id: ClassVar[str] = "fairy-tale-inn"

    def label(self, action: Action, view: View | None = None) -> str:
        """"Take Jack (slot 3, free) -> column 2" and friends."""
        a: Any = action
        kind = getattr(a, "kind", None)
        if kind == "drop" and view is not None:
            slot = next((s for s in self._slots(view) if s.slot == a.slot), None)
            if slot is not None and slot.name is not None:
                return f"Take {slot.name} (slot {slot.slot}, {_cost_text(slot.cost)}) -> " \
                       f"column {a.column}"
        if kind == "rat":
            return f"Rat → Column {a.column}"
        if kind == "extra_turn":
            return "Pay 1 gold: extra turn"
        if kind == "end_turn":
            return "End my turn"
        return super().label(action, view)

    # -- helpers ---------------------------------------------------------------

    @staticmethod
    def _slots(view: View) -> list[Any]:
        return list(getattr(view, "guest_list", []) or [])

    @staticmethod
    def _drops(legal: Sequence[Action]) -> dict[int, list[int]]:
        """slot -> legal columns."""
        out: dict[int, list[int]] = {}
        for action in legal:
            if getattr(action, "kind", None) == "drop":
                out.setdefault(action.slot, []).append(action.column)  # type: ignore[attr-defined]
        return out

    @staticmethod
    def _find(legal: Sequence[Action], kind: str, **fields: int) -> Action | None:
        for action in legal:
            if getattr(action, "kind", None) == kind and all(
                getattr(action, k, None) == v for k, v in fields.items()
            ):
                return action
        return None

    # -- menus -----------------------------------------------------------------

    def public_menu(self, view: View, legal: Sequence[Action]) -> Menu | None:
        if not legal:
            return None
        kinds = {getattr(a, "kind", None) for a in legal}
        if "rat" in kinds:
            rats = sorted((a for a in legal if getattr(a, "kind", None) == "rat"),
                          key=lambda a: a.column)  # type: ignore[attr-defined]
            return Menu(
                prompt="Choose a column for the Pied Piper's Rat.",
                choices=tuple(Choice(f"r{a.column}", self.label(a, view), style="primary")  # type: ignore[attr-defined]
                              for a in rats),
            )
        if kinds & {"extra_turn", "end_turn"}:
            choices = []
            extra = self._find(legal, "extra_turn")
            if extra is not None:
                choices.append(Choice("x", self.label(extra, view), style="success",
                                      emoji="⏩"))
            end = self._find(legal, "end_turn")
            if end is not None:
                choices.append(Choice("e", self.label(end, view), style="secondary"))
            return Menu(prompt="Take the extra turn?", choices=tuple(choices))
        drops = self._drops(legal)
        choices = []
        for slot in self._slots(view):
            if slot.token is None:
                continue
            choices.append(
                Choice(
                    f"s{slot.slot}",
                    f"{slot.slot}. {slot.name} · {_cost_text(slot.cost)}",
                    style="primary" if slot.slot in drops else "secondary",
                    disabled=slot.slot not in drops,
                    row=0,
                )
            )
        if not choices:
            return None
        return Menu(prompt="Pick a guest from the Guest List.", choices=tuple(choices))

    def private_menu(self, view: View, legal: Sequence[Action]) -> Menu:
        menu = self.public_menu(view, legal)
        if menu is None:
            return Menu(prompt="You have nothing to do right now.", choices=())
        return menu

    def column_menu(self, view: View, slot: int, columns: Sequence[int]) -> Menu:
        info = next((s for s in self._slots(view) if s.slot == slot), None)
        name = info.name if info is not None else f"the guest in slot {slot}"
        cost = f" ({_cost_text(info.cost)})" if info is not None else ""
        choices = tuple(
            Choice(f"d{slot}c{c}", f"Column {c}", style="primary") for c in sorted(columns)
        )
        return Menu(prompt=f"Drop **{name}**{cost} into which column?", choices=choices)

    # -- clicks ----------------------------------------------------------------

    def resolve(self, code: str, view: View, legal: Sequence[Action]) -> Resolution:
        if code == self.turn_code:
            return Resolution(menu=self.private_menu(view, legal))
        if m := _SLOT.fullmatch(code):
            slot = int(m[1])
            columns = self._drops(legal).get(slot)
            if not columns:
                raise UnknownChoice(self._slot_problem(view, slot))
            return Resolution(menu=self.column_menu(view, slot, columns))
        if m := _DROP.fullmatch(code):
            slot, column = int(m[1]), int(m[2])
            action = self._find(legal, "drop", slot=slot, column=column)
            if action is None:
                raise UnknownChoice(f"You cannot drop that guest into column {column} now.")
            info = next((s for s in self._slots(view) if s.slot == slot), None)
            name = info.name if info is not None else "your guest"
            return Resolution(action=action, done_text=f"You dropped {name} into column {column}.")
        if m := _RAT.fullmatch(code):
            column = int(m[1])
            action = self._find(legal, "rat", column=column)
            if action is None:
                raise UnknownChoice(f"The Rat cannot go into column {column}.")
            return Resolution(action=action, done_text=f"The Rat went into column {column}.")
        if code == "x":
            action = self._find(legal, "extra_turn")
            if action is None:
                raise UnknownChoice("No extra turn is on offer (or you cannot pay for it).")
            return Resolution(action=action, done_text="You paid for an extra turn.")
        if code == "e":
            action = self._find(legal, "end_turn")
            if action is None:
                raise UnknownChoice("There is no extra turn to decline right now.")
            return Resolution(action=action, done_text="You ended your turn.")
        raise UnknownChoice()

    def _slot_problem(self, view: View, slot: int) -> str:
        info = next((s for s in self._slots(view) if s.slot == slot), None)
        if info is None or info.token is None:
            return f"Slot {slot} of the Guest List is empty."
        gold = getattr(view, "gold", None)
        seat = getattr(view, "seat", None)
        if gold is not None and seat is not None and gold[seat] < info.cost:
            return f"You have {gold[seat]} gold; slot {slot} costs {info.cost}."
        return "You cannot take a guest right now."
