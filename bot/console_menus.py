"""A move at the console, chosen through the game's own UI adapter.

The Discord buttons already group a long list of moves into a first menu and a
follow-up (Fairy Tale Inn: a Guest List slot, then a column; Save the Treasure: a tile,
then a direction; Crossroads Inn: a gossip, then whose Reputation...). The console
walks the very same menus (:meth:`GameUI.private_menu` and :meth:`GameUI.resolve`, pure
functions of the seat's view and legal actions) as short numbered lists, so there is
one grouping logic, not two. A choice told in the player's own words (a Winter Tales
passage) asks for the words, as Discord opens a text form.

A game without an adapter of its own (the generic one caps a menu at Discord's 25) gets
every legal action in one numbered list, as does any game whose adapter fails: the game
stays playable either way.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from bot.console_io import Terminal
from bot.ui.adapter import GameUI, Menu, Resolution, UnknownChoice
from engines.core import Action, View

__all__ = ["BACK", "Entry", "Step", "choose_action", "clean", "first_step", "step_of"]

log = logging.getLogger(__name__)

BACK = ("0", "back")
"""What may be typed to go back to the first menu of a move."""
MAX_SKIPPED = 3
"""Menus of one choice passed over in a row, at most (an adapter whose one choice opens
itself must not loop)."""
MAX_GREYED = 5
"""Choices that cannot be taken now are listed (greyed, as on Discord, with a dash
instead of a number, so the numbers typed are always 1 to N) up to this many; more (the
Crossroads Inn build grid) are left out so the list stays short."""


@dataclass(frozen=True)
class Entry:
    """One numbered line: an adapter code to resolve, or (generic list) an action."""

    label: str
    code: str | None = None
    action: Action | None = None
    disabled: bool = False


@dataclass(frozen=True)
class Step:
    """One numbered menu of a move."""

    prompt: str
    entries: tuple[Entry, ...]

    @property
    def open(self) -> list[Entry]:
        return [e for e in self.entries if not e.disabled]


def clean(text: str) -> str:
    """Discord's markup out of a prompt or label.

    >>> clean("Drop **Jack** (`free`) into which column?")
    'Drop Jack (free) into which column?'
    """
    return re.sub(r"\*\*|__|`", "", text).strip()


def step_of(menu: Menu) -> Step:
    """A Discord menu (its select's options, then the buttons under it) as a step."""
    choices = [*menu.choices, *menu.buttons]
    greyed = [c for c in choices if c.disabled]
    if len(greyed) > MAX_GREYED:
        choices = [c for c in choices if not c.disabled]
    entries = []
    for choice in choices:
        # "2. Little Pig · 1 gold" numbers a Discord button; the console numbers lines
        label = re.sub(r"^\d+\.\s+", "", clean(choice.label))
        entries.append(Entry(label=label, code=choice.code, disabled=choice.disabled))
    return Step(prompt=clean(menu.prompt), entries=tuple(entries))


def _flat(ui: GameUI, view: View, legal: Sequence[Action]) -> Step:
    return Step(prompt="", entries=tuple(Entry(label=ui.label(a, view), action=a)
                                         for a in legal))


def _own_menus(ui: GameUI) -> bool:
    """Whether the adapter builds menus of its own (the generic one only enumerates,
    and stops at Discord's 25)."""
    kind = type(ui)
    return kind.private_menu is not GameUI.private_menu or kind.resolve is not GameUI.resolve


def first_step(ui: GameUI, view: View, legal: Sequence[Action]) -> Step:
    """The first menu of a move: the adapter's own, else every legal action."""
    if not _own_menus(ui):
        return _flat(ui, view, legal)
    try:
        step = step_of(ui.private_menu(view, legal))
    except Exception:  # a broken adapter: play on with the plain list
        log.exception("the %s adapter could not build a menu", ui.game_id)
        return _flat(ui, view, legal)
    return step if step.open else _flat(ui, view, legal)


Command = Callable[[str], Awaitable[None]]
"""Runs a table command (board, rules, ...) typed at a prompt of the move."""


async def _words(term: Terminal, title: str) -> str | None:
    term.say(f"{clean(title)}: tell it in your own words, on one line (or just press "
             "Enter to play it untold).")
    text = await term.ask("words> ")
    return text or None


async def choose_action(term: Terminal, ui: GameUI, view: View, legal: Sequence[Action], *,
                        commands: dict[str, str], on_command: Command,
                        heading: str = "", said: str = "") -> Action:
    """Ask for a move, one short menu at a time, and return the legal action chosen.

    ``commands`` maps what may be typed to a command name, which ``on_command`` runs
    (it raises to leave, e.g. on ``quit``); after it the same menu is asked again.
    ``0``/``back`` returns to the first menu. ``said``: the text just shown (the
    board), so a prompt it already asks is not asked twice."""
    first = first_step(ui, view, legal)
    step, trail = first, 0
    typed = {**commands, **{word: "back" for word in BACK}}
    show = True  # print the menu: a new one, or after a command printed something else
    skipped = 0
    while True:
        # A menu whose one open choice only opens another (a group of one) asks
        # nothing: its follow-up takes its place (and "back" comes back to that).
        only = step.entries
        if len(only) == 1 and not only[0].disabled and only[0].code is not None and \
                skipped < MAX_SKIPPED:
            follow = _resolve(ui, only[0], view, legal)
            if follow is not None and follow.menu is not None:
                step, skipped = step_of(follow.menu), skipped + 1
                if not trail:
                    first = step
                continue
        if show:
            shown = step if trail or not step.prompt or step.prompt not in said else \
                Step(prompt="", entries=step.entries)
            _show(term, ui, shown, view, legal, heading=heading, back=trail > 0)
        # The heading and the board's words are said once per move; after a command
        # the whole menu is shown again.
        show, said, heading = False, "", ""
        answer = await term.pick_number(len(step.open), commands=typed,
                                        hint=" (help lists the commands)")
        if answer == "back":
            if trail:
                step, trail, show = first, 0, True
            else:
                term.say("This is the first menu of your move.")
            continue
        if isinstance(answer, str):
            await on_command(answer)
            show = True
            continue
        entry = step.open[answer]
        if entry.action is not None:
            return entry.action
        try:
            resolution = ui.resolve(entry.code or "", view, legal)
        except UnknownChoice as exc:
            term.say(f"Not now: {exc}")
            continue
        if resolution.menu is not None:
            step, trail, show = step_of(resolution.menu), trail + 1, True
            continue
        if resolution.form is not None:
            # the form's title is cut for Discord; the choice's own label is whole
            words = await _words(term, entry.label or resolution.form)
            try:
                action = ui.with_text(entry.code or "", view, legal, words or "")
            except UnknownChoice as exc:
                term.say(f"Not now: {exc}")
                continue
            if words is None and "text" in type(action).model_fields:
                action = action.model_copy(update={"text": None})  # as listed: untold
            return action
        assert resolution.action is not None
        return resolution.action


def _show(term: Terminal, ui: GameUI, step: Step, view: View, legal: Sequence[Action], *,
          heading: str, back: bool) -> None:
    if heading:
        term.say(heading)
    if step.prompt:
        term.say(step.prompt)
    number = 0
    for entry in step.entries:
        if entry.disabled:
            # a greyed choice is worth a line when it says why (you cannot pay, say)
            why = _why(ui, entry, view, legal)
            if why is not None:
                term.say(f"   -  {entry.label}  (not now: {why})")
        else:
            number += 1
            term.say(f"  {number:>2}. {entry.label}")
    if back:
        term.say("   0. Back")


def _why(ui: GameUI, entry: Entry, view: View, legal: Sequence[Action]) -> str | None:
    """Why a greyed choice cannot be taken, if the adapter says (``None``: it does not,
    or only in Discord's terms, which point at a message the console does not have)."""
    try:
        ui.resolve(entry.code or "", view, legal)
    except UnknownChoice as exc:
        reason = str(exc)
        if reason == str(UnknownChoice()) or "message" in reason:
            return None
        return reason
    return None


def _resolve(ui: GameUI, entry: Entry, view: View,
             legal: Sequence[Action]) -> Resolution | None:
    try:
        return ui.resolve(entry.code or "", view, legal)
    except UnknownChoice:
        return None
