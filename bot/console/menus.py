"""A move at the console, chosen through the game's own UI adapter.

The Discord buttons already group a long list of moves into a first menu and a
follow-up (Fairy Tale Inn: a Guest List slot, then a column; Save the Treasure: a tile,
then a direction; Crossroads Inn: a gossip, then whose Reputation...). The console
walks the very same menus (:meth:`GameUI.private_menu` and :meth:`GameUI.resolve`, pure
functions of the seat's view and legal actions) as short numbered lists, so there is
one grouping logic, not two. A choice told in the player's own words (a Winter Tales
passage) asks for the words, as Discord opens a text form.

A Discord select holds 25 choices, a screen far fewer: a menu with more than
:data:`MAX_CHOICES` choices is cut into a first menu of groups and a follow-up per group
(:func:`shorten`), grouped on what the choices share: the action they play (a Guest
Impression by the group behind the closed door, a move by its destination, a first
character by who it is), the words of their labels (a Building space by its row) or
the adapter's codes. Every choice stays reachable, through one group each, and
nothing is added; where nothing is shared the list is cut into pages ("More choices").
``0``/``back`` goes back one menu.

A game without an adapter of its own (the generic one caps a menu at Discord's 25) gets
every legal action in one numbered list (shortened the same way), as does any game
whose adapter fails: the game stays playable either way.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from bot.console.terminal import Terminal
from bot.core.choices.adapter import GameUI, Menu, Resolution, UnknownChoice
from engines.core import Action, View

__all__ = ["BACK", "MAX_CHOICES", "Entry", "Step", "choose_action", "clean", "first_step",
           "shorten", "step_of"]

log = logging.getLogger(__name__)

BACK = ("0", "back")
"""What may be typed to go back to the previous menu of a move."""
MAX_CHOICES = 10
"""Numbered choices in one menu, at most: with its prompt and "0. Back" a menu takes
12 lines or fewer. A longer one is grouped (:func:`shorten`)."""
MAX_SKIPPED = 3
"""Menus of one choice passed over in a row, at most (an adapter whose one choice opens
itself must not loop)."""
MAX_GREYED = 5
"""Choices that cannot be taken now are listed (greyed, as on Discord, with a dash
instead of a number, so the numbers typed are always 1 to N) up to this many; more (the
Crossroads Inn build grid) are left out so the list stays short."""
MAX_JOINED = 40
"""A group whose labels have nothing in common is named by its labels themselves
("A3, A5") when they fit in this many characters."""
_DEPTH = 2
"""How deep a choice that opens a follow-up is looked into to know what it plays."""


@dataclass(frozen=True)
class Entry:
    """One numbered line: an adapter code to resolve, an action (generic list), or a
    group of entries (``group``, made by :func:`shorten`) that opens as the next menu."""

    label: str
    code: str | None = None
    action: Action | None = None
    disabled: bool = False
    group: Step | None = None
    full: str | None = None
    """The whole label when ``label`` is cut short inside a group (``discarding The
    Wind`` under ``Move to Lantern Square, …``)."""


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
    """The first menu of a move: the adapter's own, else every legal action (not yet
    shortened: see :func:`shorten`)."""
    if not _own_menus(ui):
        return _flat(ui, view, legal)
    try:
        step = step_of(ui.private_menu(view, legal))
    except Exception:  # a broken adapter: play on with the plain list
        log.exception("the %s adapter could not build a menu", ui.game_id)
        return _flat(ui, view, legal)
    return step if step.open else _flat(ui, view, legal)


# --------------------------------------------------------------------------- shortening


def _actions_of(entry: Entry, ui: GameUI, view: View, legal: Sequence[Action],
                depth: int = 0) -> list[Action]:
    """The actions a choice plays, or may lead to (through its follow-up menus)."""
    if entry.action is not None:
        return [entry.action]
    if entry.group is not None:
        return [a for e in entry.group.open for a in _actions_of(e, ui, view, legal, depth)]
    if entry.code is None:
        return []
    try:
        resolution = ui.resolve(entry.code, view, legal)
        if resolution.action is not None:
            return [resolution.action]
        if resolution.form is not None:
            return [ui.with_text(entry.code, view, legal, "")]
    except UnknownChoice:
        return []
    if resolution.menu is None or depth >= _DEPTH:
        return []
    return [a for e in step_of(resolution.menu).open
            for a in _actions_of(e, ui, view, legal, depth + 1)]


def _frozen(value: Any) -> Hashable:
    try:
        hash(value)
    except TypeError:
        return json.dumps(value, sort_keys=True, default=str)
    return value  # type: ignore[no-any-return]


def _kind(action: Action) -> str:
    return str(getattr(action, "kind", type(action).__name__))


Key = Callable[[Entry], Hashable | None]
"""A way to group choices: the key of a choice's group (``None``: it stays alone)."""


MIXED = object()
"""The key of a choice whose actions differ in the field grouped on: that field does
not group these choices (a tile that may slide two ways is no "tile that slides down")."""


def _field_key(field: str | None, actions: dict[int, list[Action]]) -> Key:
    """By the kind of action, then (``field``) by a field all the choice's actions share;
    a choice of a kind without that field is grouped with the others of its kind."""

    def key(entry: Entry) -> Hashable | None:
        acts = actions.get(id(entry)) or []
        kinds = {_kind(a) for a in acts}
        if len(kinds) != 1:
            return None
        kind = kinds.pop()
        if field is None:
            return ("kind", kind)
        has = [field in type(a).model_fields for a in acts]
        if not any(has):
            return ("kind", kind)
        values = {_frozen(getattr(a, field, None)) for a in acts}
        if not all(has) or len(values) != 1:
            return MIXED
        value = values.pop()
        # nothing (no card, no players) is not something the choices share
        return None if value in (None, "", "[]", "{}") else ("field", kind, field, value)

    return key


def _split_top(label: str) -> list[str]:
    """A label's parts between the commas outside brackets.

    >>> _split_top("Build on row 2, column 3 (inner, lit)")
    ['Build on row 2', 'column 3 (inner, lit)']
    """
    parts, depth, start = [], 0, 0
    for i, char in enumerate(label):
        if char in "([":
            depth += 1
        elif char in ")]":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0 and label[i + 1:i + 2] == " ":
            parts.append(label[start:i])
            start = i + 2
    parts.append(label[start:])
    return parts


def _head_key(last: bool) -> Key:
    """By the words of the label before its first (or last) comma."""

    def key(entry: Entry) -> Hashable | None:
        parts = _split_top(entry.label)
        if len(parts) < 2:
            return None
        return ("head", ", ".join(parts[:-1]) if last else parts[0])

    return key


def _code_key(segments: int) -> Key:
    """By the first ``segments`` parts of the adapter's dotted code (``i.nobles.x``)."""

    def key(entry: Entry) -> Hashable | None:
        parts = (entry.code or "").split(".")
        return ("code", *parts[:segments]) if len(parts) > segments else None

    return key


_TOKEN = re.compile(r"[^\s,:;]+|[,:;]")
_COUNT = re.compile(r" \(\d+ choices\)$")


def _common_words(labels: Sequence[str]) -> int:
    """The length of the words all ``labels`` start with, cut after the last comma or
    colon in them, else before a trailing capitalised word (the start of a name), so a
    label is cut between whole phrases.

    >>> labels = ["Move to Oaks Park, discarding The Wind",
    ...           "Move to Oaks Park, discarding The Dawn"]
    >>> labels[0][:_common_words(labels)]
    'Move to Oaks Park,'
    >>> labels = ["Play The Wind", "Play The Dawn"]
    >>> labels[0][:_common_words(labels)]
    'Play'
    """
    tokens = [list(_TOKEN.finditer(label)) for label in labels]
    shared = 0
    while all(len(t) > shared for t in tokens) and \
            len({t[shared].group() for t in tokens}) == 1:
        shared += 1
    if shared == 0:
        return 0
    first = tokens[0][:shared]
    cuts = [i for i, t in enumerate(first) if t.group() in ",:;"]
    if cuts:
        return first[cuts[-1]].end()
    keep = shared
    while keep > 1 and first[keep - 1].group()[:1].isupper():
        keep -= 1
    return first[keep - 1].end()


def _group(members: list[Entry], actions: dict[int, list[Action]], asked: str) -> Entry:
    """One line for ``members``: what they share, and a follow-up menu of what differs
    (``asked``: the prompt of the menu they were in, asked again when nothing is shared)."""
    labels = [e.label for e in members]
    cut = _common_words(labels)
    prefix = labels[0][:cut].strip() if cut else ""
    count = f"({len(members)} choices)"
    if prefix:
        label, prompt = f"{prefix} … {count}", f"{prefix} …"
        inner = []
        for e in members:
            rest = e.label[cut:].strip(" ,:;")
            inner.append(Entry(label=rest or e.label, code=e.code, action=e.action,
                               group=e.group, full=e.full or e.label))
        entries = tuple(inner)
    else:
        joined = ", ".join(labels)
        if len(joined) <= MAX_JOINED:
            label = joined
        else:
            kinds = {_kind(a) for e in members for a in actions.get(id(e)) or []}
            word = kinds.pop().replace("_", " ").capitalize() if len(kinds) == 1 else \
                f"{labels[0]} … {labels[-1]}"
            label = f"{word} … {count}"
        prompt, entries = asked, tuple(members)
    return Entry(label=label, group=Step(prompt=prompt, entries=entries))


def _partition(entries: Sequence[Entry], key: Key) -> list[list[Entry]]:
    """The entries in groups (in the order of their first member); a greyed entry, or
    one without a key, alone. None at all if a key says :data:`MIXED`."""
    groups: dict[Hashable, list[Entry]] = {}
    out: list[list[Entry]] = []
    for entry in entries:
        k = None if entry.disabled else key(entry)
        if k is MIXED:
            return []
        if k is None:
            out.append([entry])
        elif k in groups:
            groups[k].append(entry)
        else:
            groups[k] = [entry]
            out.append(groups[k])
    return out


def _pages(step: Step, limit: int) -> Step:
    """The first choices, then "More choices" for the rest (paged the same way)."""
    keep: list[Entry] = []
    numbered = 0
    entries = list(step.entries)
    while entries and numbered < limit - 1:
        entry = entries.pop(0)
        keep.append(entry)
        numbered += not entry.disabled
    if entries:
        rest = Step(prompt="More choices:", entries=tuple(entries))
        keep.append(Entry(label=f"More choices ({sum(not e.disabled for e in entries)}) ›",
                          group=rest))
    return Step(prompt=step.prompt, entries=tuple(keep))


def shorten(step: Step, ui: GameUI, view: View, legal: Sequence[Action], *,
            limit: int = MAX_CHOICES) -> Step:
    """``step`` with at most ``limit`` numbered choices: unchanged when it fits, else
    the choices grouped (each group a line that opens a follow-up menu of its members).

    The groupings tried: by kind of action, by each field of the actions (all the
    actions a choice leads to sharing its value), by the words of the labels before a
    comma, by the adapter's dotted codes. The one kept leaves at most ``limit`` lines,
    names its groups apart, and best has groups of at most ``limit`` too; of those, the
    one whose longest menu (the first, or a group's) is the shortest. A group still too
    long is grouped again when it is opened. Where no grouping helps: pages."""
    open_entries = step.open
    if len(open_entries) <= limit:
        return step
    actions = {id(e): _actions_of(e, ui, view, legal) for e in open_entries}
    fields: list[str] = []
    for acts in actions.values():
        for a in acts:
            for name in type(a).model_fields:
                if name not in ("kind", "text") and name not in fields:
                    fields.append(name)
    keys: list[Key] = [_field_key(None, actions), *(_field_key(f, actions) for f in fields),
                       _head_key(last=False), _head_key(last=True)]
    deepest = max(len((e.code or "").split(".")) for e in open_entries)
    keys += [_code_key(n) for n in range(1, deepest)]
    best: tuple[tuple[int, ...], tuple[Entry, ...]] | None = None
    for order, key in enumerate(keys):
        parts = _partition(step.entries, key)
        if not parts:
            continue
        sizes = [sum(not e.disabled for e in p) for p in parts]
        lines, biggest = sum(size > 0 for size in sizes), max(sizes)
        if biggest < 2 or lines > limit or lines < 2:
            continue
        score = (0, max(lines, biggest), lines, order) if biggest <= limit else \
            (1, biggest, lines, order)
        if best is not None and score >= best[0]:
            continue
        entries = tuple(p[0] if len(p) == 1 else _group(p, actions, step.prompt)
                        for p in parts)
        labels = [_COUNT.sub("", e.label) for e in entries if not e.disabled]
        if len(set(labels)) == len(labels):  # two groups named alike tell nothing
            best = (score, entries)
    if best is None:
        return _pages(step, limit)
    return Step(prompt=step.prompt, entries=best[1])


# --------------------------------------------------------------------------- asking


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
    ``0``/``back`` returns to the previous menu. ``said``: the text just shown (the
    board), so a prompt it already asks is not asked twice."""

    def short(step: Step) -> Step:
        return shorten(step, ui, view, legal)

    step = short(first_step(ui, view, legal))
    earlier: list[Step] = []  # the menus before this one, for "back"
    typed = {**commands, **{word: "back" for word in BACK}}
    show = True  # print the menu: a new one, or after a command printed something else
    skipped = 0
    while True:
        # A menu whose one open choice only opens another (a group of one) asks
        # nothing: its follow-up takes its place (and "back" goes before it).
        only = step.entries
        if len(only) == 1 and not only[0].disabled and only[0].code is not None and \
                skipped < MAX_SKIPPED:
            follow = _resolve(ui, only[0], view, legal)
            if follow is not None and follow.menu is not None:
                step, skipped = short(step_of(follow.menu)), skipped + 1
                continue
        if show:
            shown = step if earlier or not step.prompt or step.prompt not in said else \
                Step(prompt="", entries=step.entries)
            _show(term, ui, shown, view, legal, heading=heading, back=bool(earlier))
        # The heading and the board's words are said once per move; after a command
        # the whole menu is shown again.
        show, said, heading = False, "", ""
        answer = await term.pick_number(len(step.open), commands=typed,
                                        hint=" (help lists the commands)")
        if answer == "back":
            if earlier:
                step, show = earlier.pop(), True
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
        if entry.group is not None:
            earlier.append(step)
            step, show = short(entry.group), True
            continue
        try:
            resolution = ui.resolve(entry.code or "", view, legal)
        except UnknownChoice as exc:
            term.say(f"Not now: {exc}")
            continue
        if resolution.menu is not None:
            earlier.append(step)
            step, show = short(step_of(resolution.menu)), True
            continue
        if resolution.form is not None:
            # the form's title is cut for Discord; the choice's own label is whole
            words = await _words(term, entry.full or entry.label or resolution.form)
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
