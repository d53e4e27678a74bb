"""Per-game UI adapters: how a game's legal actions become buttons, and back.

The Discord layer owns ONE button class and ONE select class (:mod:`bot.ui.items`);
a game plugs in by registering a :class:`GameUI` in :mod:`bot.ui.games`. An adapter
is pure (no discord import): it turns ``(view, legal actions)`` into a :class:`Menu`
of :class:`Choice` s, each with a short ``code``, and turns a clicked ``code`` back
into either an action to play or a follow-up menu (a two-step choice such as "slot,
then column"). Codes travel in custom_ids, which anyone can read, so an adapter
must only put public facts in them; codes never index a secret list.

The default adapter, :class:`GenericUI`, works for any game whose actions can be
enumerated: the public message carries one "Take your turn" button and the player
gets their legal actions privately (so a secret hand never shows on a public
message). A game's own adapter can do better (Fairy Tale Inn shows its public Guest
List as buttons directly).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from engines.core import Action, View

__all__ = [
    "Choice",
    "GameUI",
    "GenericUI",
    "Menu",
    "Resolution",
    "UnknownChoice",
]

Style = Literal["primary", "secondary", "success", "danger"]
Describe = Callable[[Action], str]


class UnknownChoice(ValueError):
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

    def __post_init__(self) -> None:
        limit = 25
        if len(self.choices) > limit:
            raise ValueError(f"a menu holds at most {limit} choices, got {len(self.choices)}")
        codes = [c.code for c in self.choices]
        if len(set(codes)) != len(codes):
            raise ValueError("menu choice codes must be unique")


@dataclass(frozen=True)
class Resolution:
    """What a clicked code means: play ``action``, or show ``menu`` to the clicker."""

    action: Action | None = None
    menu: Menu | None = None
    done_text: str | None = None
    """A short private confirmation once the action is played ("You dropped...")."""

    def __post_init__(self) -> None:
        if (self.action is None) == (self.menu is None):
            raise ValueError("a Resolution is either an action or a menu")


@dataclass
class GameUI:
    """Base adapter. Subclasses set ``game_id`` and override :meth:`public_menu` and
    :meth:`resolve`; the defaults are the generic private-menu flow."""

    game_id: ClassVar[str] = "*"
    turn_code: ClassVar[str] = "turn"
    describe: Describe = field(default=repr)
    """Short labels for actions (the service's ``describe_action``)."""

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
        return _enumerated_menu("Your move:", legal, self.describe)

    def resolve(self, code: str, view: View, legal: Sequence[Action]) -> Resolution:
        """Map a clicked ``code`` (from either menu) to an action or a follow-up menu.
        ``view`` is the clicker's private view. Raises :class:`UnknownChoice`."""
        if code == self.turn_code:
            return Resolution(menu=self.private_menu(view, legal))
        return _enumerated_resolve(code, legal, self.describe)


class GenericUI(GameUI):
    """The fallback adapter for games without their own."""


def _enumerated_menu(prompt: str, legal: Sequence[Action], describe: Describe) -> Menu:
    # Indexes into the legal list are safe to publish: the clicker's own legal list is
    # only shown to them, and the version in the custom_id pins the list they saw.
    choices = tuple(
        Choice(f"a{i}", _clip(describe(action), 100), description=None)
        for i, action in enumerate(legal[:25])
    )
    return Menu(prompt=prompt, choices=choices, as_select=len(choices) > 5)


def _enumerated_resolve(code: str, legal: Sequence[Action], describe: Describe) -> Resolution:
    if code.startswith("a") and code[1:].isdigit():
        index = int(code[1:])
        if index < len(legal):
            action = legal[index]
            return Resolution(action=action, done_text=f"You played: {describe(action)}.")
    raise UnknownChoice()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
