"""Per-game choice adapters: how a game's legal actions become choices, and back.

Every front-end shows a table's choices through these: Discord turns each :class:`Menu`
into buttons and selects (ONE button class and ONE select class,
:mod:`bot.messages.ui.items`), the console into numbered menus, the web front-end into
touches on the board. A game plugs in by registering a :class:`GameUI` in
:mod:`bot.core.choices`. An adapter is pure (no front-end import): it turns ``(view,
legal actions)`` into a :class:`Menu` of :class:`Choice` s, each with a short ``code``,
and turns a chosen ``code`` back into either an action to play or a follow-up menu (a
two-step choice such as "slot, then column"). Codes travel in Discord custom_ids and web
messages, which anyone can read, so an adapter must only put public facts in them; codes
never index a secret list.

The default adapter, :class:`GenericUI`, works for any game whose actions can be
enumerated: the public message carries one "Take your turn" button and the player
gets their legal actions privately (so a secret hand never shows on a public
message). A game's own adapter can do better (Fairy Tale Inn shows its public Guest
List as buttons directly).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel

from engines.core import Action, UserError, View

__all__ = [
    "Choice",
    "GameUI",
    "GenericUI",
    "Menu",
    "Resolution",
    "UnknownChoice",
    "generic_label",
    "waiting_line",
]

Style = Literal["primary", "secondary", "success", "danger"]


class UnknownChoice(UserError):
    """A clicked code does not match any legal action any more."""

    def __init__(self, message: str = "That choice is not available any more.") -> None:
        super().__init__(message)


@dataclass(frozen=True)
class Choice:
    """One button (or select option)."""

    code: str
    label: str
    style: Style = "secondary"
    emoji: str | None = None
    disabled: bool = False
    row: int | None = None
    description: str | None = None
    """Shown under the label when the menu is a select."""


@dataclass(frozen=True)
class Menu:
    """A set of choices with a prompt. ``as_select`` renders them as a select menu
    (needed past 25 buttons); otherwise as buttons, five per row."""

    prompt: str
    choices: tuple[Choice, ...]
    as_select: bool = False
    placeholder: str = "Choose…"
    select_code: str = "pick"
    """The code carried by a select's own custom_id (options carry action codes)."""
    buttons: tuple[Choice, ...] = ()
    """Buttons under a select (``as_select``), on the rows below it: the one-click
    choices (a "Skip", a "Take back") that share a message with a long list."""

    def __post_init__(self) -> None:
        limit = 25
        if len(self.choices) > limit:
            raise ValueError(f"a menu holds at most {limit} choices, got {len(self.choices)}")
        if self.buttons and (not self.as_select or len(self.buttons) > 20):
            raise ValueError("a menu's extra buttons go under a select, at most 20 of them")
        codes = [c.code for c in (*self.choices, *self.buttons)]
        if len(set(codes)) != len(codes):
            raise ValueError("menu choice codes must be unique")


@dataclass(frozen=True)
class Resolution:
    """What a clicked code means: play ``action``, show ``menu`` to the clicker, or open
    a text form titled ``form`` (the player's own words for the clicked code)."""

    action: Action | None = None
    menu: Menu | None = None
    form: str | None = None
    done_text: str | None = None
    """A short private confirmation once the action is played ("You dropped...")."""

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.action, self.menu, self.form)) != 1:
            raise ValueError("a Resolution is an action, a menu or a form")


@dataclass
class GameUI:
    """Base adapter. Subclasses set ``game_id`` and override :meth:`public_menu` and
    :meth:`resolve`; the defaults are the generic private-menu flow."""

    game_id: ClassVar[str] = "*"
    turn_code: ClassVar[str] = "turn"
    text_kinds: ClassVar[frozenset[str]] = frozenset()
    """Action kinds told in the player's own words: choosing one opens a text form (a
    modal) whose text goes into the action's ``text`` field."""
    unpinned_forms: ClassVar[frozenset[str]] = frozenset()
    """Form codes whose text counts whatever the table's version (words added to a
    story out of turn)."""

    def form_title(self, code: str) -> str | None:
        """The title of the text form ``code`` opens, if it opens one. Known from the
        code alone: Discord takes a form only as the very first answer to a click. By
        default a choice of one of :attr:`text_kinds` has the code ``t<i>`` and opens
        one."""
        if self.text_kinds and code[:1] == "t" and code[1:].isdigit():
            return "In your own words"
        return None

    def label(self, action: Action, view: View | None = None) -> str:
        """The short label of an action on a button, a select or a console menu; the one
        place a game words its actions. With the actor's ``view`` a game can name things
        ("Take Jack (slot 3, free) -> column 2")."""
        return generic_label(action)

    def public_menu(self, view: View, legal: Sequence[Action]) -> Menu | None:
        """Components for the public turn message, built from the PUBLIC view and the
        legal actions of the single human to act. Must not reveal anything the
        public view does not show. ``None``: no components."""
        if not legal:
            return None
        return self.turn_button_menu()

    def turn_button_menu(self) -> Menu:
        """One "Take your turn" button: each clicker gets their own private menu.
        Used when several seats may act at once, and by games with secret hands."""
        return Menu(
            prompt="",
            choices=(Choice(self.turn_code, "Take your turn", style="primary", emoji="🎲"),),
        )

    def private_menu(self, view: View, legal: Sequence[Action]) -> Menu:
        """The acting player's own menu (sent ephemerally), from their private view."""
        return _enumerated_menu("Your move:", legal, lambda a: self.label(a, view),
                                self.text_kinds)

    def resolve(self, code: str, view: View, legal: Sequence[Action]) -> Resolution:
        """Map a clicked ``code`` (from either menu) to an action or a follow-up menu.
        ``view`` is the clicker's private view. Raises :class:`UnknownChoice`."""
        if code == self.turn_code:
            return Resolution(menu=self.private_menu(view, legal))
        return _enumerated_resolve(code, legal, lambda a: self.label(a, view))

    def with_text(self, code: str, view: View, legal: Sequence[Action], text: str) -> Action:
        """The action a text form (a modal opened for ``code``) plays with the words the
        player wrote. Raises :class:`UnknownChoice`."""
        if code[:1] == "t" and code[1:].isdigit() and int(code[1:]) < len(legal):
            return legal[int(code[1:])].model_copy(update={"text": text})
        resolution = self.resolve(code, view, legal)
        if resolution.action is None:
            raise UnknownChoice()
        return resolution.action.model_copy(update={"text": text})

    # -- the private hand message (games whose seats see more than the public) --------

    def hand_text(self, info: Any, view: View, legal: Sequence[Action],
                  news: Sequence[str], *, live: bool = True) -> str:
        """The words of a seat's hand message, from its OWN view only. ``info`` is the
        table (:class:`bot.core.tables.TableInfo`); ``news`` the seat's latest private
        lines; ``live``: the message shows the seat's choices of the moment (a panel the
        player opened), else it is the hand's record, kept for when they look."""
        from renderers.text import generic_board

        seat = view.seat if view.seat is not None else -1
        name = next((s.name for s in info.seats if s.index == seat), f"Seat {seat + 1}")
        lines = [f"**{info.game_name} — {name}'s hand** (table in <#{info.channel_id}>)",
                 generic_board(view)[:1200]]
        if news:
            lines.append("**Latest:** " + " ".join(news[-3:]))
        if getattr(info, "status", None) is not None and info.status.value != "playing":
            lines.append(info.outcome_text or "This table is closed.")
        elif legal:
            lines.append("**Your move:** choose below.")
        else:
            lines.append(waiting_line(live, getattr(info, "version", None)))
        return "\n".join(lines)

    def hand_menus(self, view: View, legal: Sequence[Action]) -> list[Menu]:
        """The seat's own choices on its hand message: up to five rows."""
        if not legal:
            return []
        return [self.private_menu(view, legal)]

    def step_board_fields(self, view: View) -> tuple[str, ...] | None:
        """For one more step of the same person's turn (the turn message is edited,
        not posted anew): the public view's fields that the choice ``view`` asks for is
        made on. The board picture is drawn again only when one of them changed since
        the picture the message shows; otherwise the edit keeps that picture, and the
        step's words and buttons say the rest. ``()``: the step needs no new picture at
        all. ``None`` (the default): every field the board shows (any change of the
        board is drawn). A turn that passes to someone else, and the end of the game,
        always show the board as it is."""
        return None

    def hand_picture_key(self, view: View) -> Any:
        """What the private picture shows: it is drawn again only when this changes."""
        return view.model_dump(mode="json")

    def table_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The options typed at ``/table new``, in the game's terms (lists written on
        one line, the house defaults filled in). Raises UserError."""
        return options

    def option_suggestions(self, current: str) -> list[tuple[str, str]] | None:
        """``/table new`` option autocomplete: (what the suggestion shows, the options
        text it fills in), from what is typed so far; ``None``: the generic suggestions
        (one more ``name=value`` per option not given yet)."""
        return None

    def options_text(self, options: dict[str, Any]) -> str | None:
        """A line for the ``/table new`` confirmation saying what the chosen options
        mean (``options``: the new table's, defaults filled in); ``None``: nothing."""
        return None

    def is_alert(self, line: str) -> bool:
        """Whether a private line must be noticed (a new DM rather than an edit)."""
        return False


class GenericUI(GameUI):
    """The fallback adapter for games without their own."""


def waiting_line(live: bool, version: int | None = None) -> str:
    """The last line of a hand that shows no choices: where the seat's choices are. A
    record (not ``live``) says which move it shows: it is not edited for its player's
    own moves, which they made on their panel.

    >>> waiting_line(True)
    'Not your move right now: your choices appear here when it is.'
    >>> waiting_line(False, 12)[:40]
    'Your hand after move 12. Play on the tab'
    """
    if live:
        return "Not your move right now: your choices appear here when it is."
    after = f"Your hand after move {version}. " if version is not None else ""
    return (f"{after}Play on the table's turn message (**Take your turn**), or tap "
            "**Refresh** here to see your hand and choices now.")


def _enumerated_menu(prompt: str, legal: Sequence[Action],
                     describe: Callable[[Action], str],
                     text_kinds: frozenset[str] = frozenset()) -> Menu:
    # Indexes into the legal list are safe to publish: the clicker's own legal list is
    # only shown to them, and the version in the custom_id pins the list they saw.
    choices = tuple(
        Choice(f"{'t' if getattr(action, 'kind', None) in text_kinds else 'a'}{i}",
               _clip(describe(action), 100), description=None)
        for i, action in enumerate(legal[:25])
    )
    return Menu(prompt=prompt, choices=choices, as_select=len(choices) > 5)


def _enumerated_resolve(code: str, legal: Sequence[Action],
                        describe: Callable[[Action], str]) -> Resolution:
    if code.startswith("t") and code[1:].isdigit() and int(code[1:]) < len(legal):
        return Resolution(form=_clip(describe(legal[int(code[1:])]), 45))
    if code.startswith("a") and code[1:].isdigit():
        index = int(code[1:])
        if index < len(legal):
            action = legal[index]
            return Resolution(action=action, done_text=f"You played: {describe(action)}.")
    raise UnknownChoice()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def generic_label(action: BaseModel) -> str:
    """``take n=2``: the action's kind and fields (a game without labels of its own).

    >>> from engines.core import Action
    >>> class Take(Action):
    ...     kind: str = "take_stones"
    ...     n: int = 2
    >>> generic_label(Take())
    'take stones n=2'
    """
    data = action.model_dump(mode="json")
    kind = str(data.pop("kind", type(action).__name__)).replace("_", " ")
    return (kind + " " + " ".join(f"{k}={v}" for k, v in data.items() if v is not None)).strip()
