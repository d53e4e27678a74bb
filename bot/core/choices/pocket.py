"""Fairy Tale in My Pocket buttons and selects (pure: no discord import).

The game is played open: one peasant, shared by everyone at the table, and nothing a
seat sees that the others do not. So the PUBLIC turn message carries every legal
choice of the moment, for the one person who leads the peasant this turn: buttons when
there are few (up to :data:`FEW`), else a select of the places to go (or the cards,
the items, the ways to pay) with the other choices as buttons under it. When the Lamp
and the Boots make more ways to go than a select holds, the places are listed once
each and a place with several ways opens a short follow-up menu (walk, Boots, wish).

Labels are the engine's own (:func:`engines.pocket.game.label`, which the view carries
in ``decision.choices``); without a current view they are worded from the action alone,
the same way. The prompt is the view's ``decision.prompt``.

Codes (they travel in custom_ids, which anyone can read, so they name public facts
only: tiles on the map or shown by the Mirror, items carried or on the face-up discard
pile, sides of the current tile; never a place in the deck or a stack):

=================  ===================================================
``x`` / ``xm``     explore (with the Mirror)
``g.<tile>``       walk back to a tile on the map (``gb.<tile>``: the Boots)
``w.<tile>``       the Lamp's wish: fly to a tile
``to.<tile>``      the ways to go to a tile (a follow-up menu)
``st``             stay here (nowhere else to go)
``dr`` / ``drl``   drink the Elixir (the Lamp's wish fills the goblet)
``coat``           put the Flame Repellant on the Shield
``t.<tile>``       the Mirror: take this one of the two tiles shown
``pn`` ... ``pw``  put the new tile north, east, south or west
``f`` / ``fw``     fight (with the Wand)
``f.<item>``       fight using an item (``fl.<item>``: the Lamp's wish)
``f-<item>…``      fight keeping free items out (``fw-dagger``: with the Wand)
``fk``             the fights that keep a free item out (a follow-up menu)
``r.<tile>``       run away to a tile (``rb.<tile>``: with the Boots)
``dh`` / ``dn``    do the good deed, or not
``s.<item>``       at the peddler: look at getting an item
``y<gold>.<item>…``  pay: this much gold, and these items traded
``back``/``leave`` back to the peddler's items; leave the peddler
``d.<item>``       drop an item (one too many)
``b.<item>``       the Messenger Bird takes back the discard card showing this item
``bgo``            the bird flies off
``ky`` / ``kn``    the Cave: take the item found, or leave it
``rest`` / ``on``  rest, or go on
=================  ===================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, ClassVar

from bot.core.choices.adapter import Choice, GameUI, Menu, Resolution, Style, UnknownChoice
from engines.core import Action, UserError, View

__all__ = ["FEW", "PocketUI", "action_code", "options_line", "parse_table_options"]

FEW = 10
"""Up to this many choices show as plain buttons; more become a select plus buttons."""
LIMIT = 25
"""Options in one select (Discord's limit)."""

SIDE_WORDS = {"n": "north", "e": "east", "s": "south", "w": "west"}
SIDE_EMOJI = {"n": "⬆️", "e": "➡️", "s": "⬇️", "w": "⬅️"}
FIGHT_EMOJI = {"cloak": "🧥", "bucket": "🪣", "shield": "🛡️"}
LISTED = frozenset({"go", "wish", "run", "send", "shop", "pay"})
"""Kinds that go into the select when there are too many choices for buttons (the
rest stay buttons under it)."""

SPECIALS = ("random", "mirror", "wand", "boots")
SPECIAL_WORDS = {
    "random": "chosen at random when the game starts",
    "mirror": "the Magic Mirror: see two tiles when you explore, keep one (1 gold)",
    "wand": "the Wand: +2 Defense in a fight (1 gold)",
    "boots": "the Seven-League Boots: go to any tile on the map (1 gold)",
}
OPTIONS_HELP = "`special=random|mirror|wand|boots` (the fairy godmother's gift)"
_SPECIAL_KEYS = ("special", "gift")


@cache
def _content() -> Any:
    from engines.pocket.content import load_content

    return load_content()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tile_name(tile: str) -> str:
    """A tile's name (every tile's name is printed on the rules card: public)."""
    try:
        return str(_content().tile(tile).name)
    except KeyError:
        return tile


def item_name(item: str) -> str:
    try:
        return str(_content().item(item).name)
    except StopIteration:
        return item


def card_item(card: str) -> str:
    """The item printed on a development card (the mapping is the same in every box)."""
    return str(_content().card(card).item)


# --------------------------------------------------------------------------- options


def parse_table_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options typed at ``/table new`` in the engine's terms; clear errors.

    >>> parse_table_options({"special": "Seven-League Boots"})
    {'special': 'boots'}
    >>> parse_table_options({"gift": "magic mirror"}), parse_table_options({})
    ({'special': 'mirror'}, {})
    """
    unknown = [k for k in options if k not in _SPECIAL_KEYS]
    if unknown:
        raise UserError(f"Fairy Tale in My Pocket has no option '{str(unknown[0])[:30]}'. "
                        f"Its option: {OPTIONS_HELP}.")
    given = [k for k in _SPECIAL_KEYS if k in options]
    if len(given) > 1:
        raise UserError("Give `special` once.")
    if not given:
        return {}
    text = str(options[given[0]]).strip().lower()
    hits = [s for s in SPECIALS if s in text]
    if len(hits) != 1:
        raise UserError(f"special: '{text[:30]}' is not one of random, mirror (the Magic "
                        "Mirror), wand (the Wand) or boots (the Seven-League Boots).")
    return {"special": hits[0]}


def options_line(options: dict[str, Any]) -> str:
    """What a table's gift option means, in one line.

    >>> options_line({"special": "wand"})
    "The fairy godmother's gift: the Wand: +2 Defense in a fight (1 gold)."
    """
    special = str(options.get("special", "random"))
    return f"The fairy godmother's gift: {SPECIAL_WORDS.get(special, special)}."


def option_suggestions(current: str) -> list[tuple[str, str]]:
    """``/table new options:`` suggestions: each gift, with what it does (those that fit
    what is typed so far, or the one typed in full).

    >>> [value for _label, value in option_suggestions("special=w")]
    ['special=wand']
    >>> [value for _label, value in option_suggestions("special=boots ")]
    ['special=boots']
    """
    typed = current.strip().lower()
    out = []
    for special in SPECIALS:
        value = f"special={special}"
        if typed and not (value.startswith(typed) or typed in value
                          or typed.startswith(value)):
            continue
        out.append((_clip(f"{value} — {SPECIAL_WORDS[special]}", 100), value))
    return out


# --------------------------------------------------------------------------- codes


def action_code(action: Any) -> str:
    """The code of a legal action (public facts only, see the module's table).

    >>> from engines.pocket.state import Fight, Go, Pay, Place, Send
    >>> action_code(Go(tile="well", boots=True)), action_code(Place(side="n"))
    ('gb.well', 'pn')
    >>> action_code(Fight(item="cloak", lamp=True)), action_code(Pay(items=("cloak",), gold=1))
    ('fl.cloak', 'y1.cloak')
    >>> action_code(Send(card="card_6")), action_code(Fight(wand=True, spare=("dagger",)))
    ('b.candle', 'fw-dagger')
    """
    a = action
    kind = getattr(a, "kind", None)
    if kind == "explore":
        return "xm" if a.mirror else "x"
    if kind == "go":
        return f"{'gb' if a.boots else 'g'}.{a.tile}"
    if kind == "wish":
        return f"w.{a.tile}"
    if kind == "stay":
        return "st"
    if kind == "drink":
        return "drl" if a.lamp else "dr"
    if kind == "coat":
        return "coat"
    if kind == "pick_tile":
        return f"t.{a.tile}"
    if kind == "place":
        return f"p{a.side}"
    if kind == "fight":
        head = "f" + ("w" if a.wand else "") + ("l" if a.lamp else "")
        return head + (f".{a.item}" if a.item else "") + "".join(f"-{k}" for k in a.spare)
    if kind == "run":
        return f"{'rb' if a.boots else 'r'}.{a.tile}"
    if kind == "good_deed":
        return "dh" if a.help else "dn"
    if kind == "shop":
        return f"s.{a.item}"
    if kind == "pay":
        return f"y{a.gold}" + "".join(f".{i}" for i in a.items)
    if kind == "back":
        return "back"
    if kind == "leave":
        return "leave"
    if kind == "drop":
        return f"d.{a.item}"
    if kind == "send":
        # by the item the face-up card shows: a card id would read like a deck position
        return f"b.{card_item(a.card)}"
    if kind == "send_done":
        return "bgo"
    if kind == "find":
        return "ky" if a.take else "kn"
    if kind == "rest":
        return "rest" if a.rest else "on"
    raise ValueError(f"no code for {action!r}")


def _codes(legal: Sequence[Action]) -> dict[str, Any]:
    return {action_code(a): a for a in legal}


SPARING_CODE = "fk"


def _after_fights(choices: Sequence[Choice], more: Choice) -> tuple[Choice, ...]:
    """``choices`` with ``more`` right after the last fight (before the ways to run)."""
    last = max((i for i, c in enumerate(choices) if c.code.startswith("f")), default=-1)
    return (*choices[:last + 1], more, *choices[last + 1:])


def _sparing(legal: Sequence[Any]) -> list[Any]:
    """The fights that keep a free item out of the fight."""
    return [a for a in legal if getattr(a, "kind", None) == "fight" and a.spare]


# --------------------------------------------------------------------------- words


def action_label(action: Any, view: Any | None = None) -> str:
    """The label of ``action``: the engine's (the view carries it for each legal
    action), else worded from the action and the view the same way."""
    decision = getattr(view, "decision", None) if view is not None else None
    if decision is not None:
        wanted = action.model_dump(mode="json")
        for choice in decision.choices:
            if choice.action == wanted:
                return str(choice.label)
    return _words(action, view)


def _words(a: Any, view: Any | None) -> str:
    """The engine's words for ``a`` without the state (no tree costs, no fight damage:
    those need the map's borders and the villain); an Explore names the stack of the
    tile the pawn is on."""
    from engines.pocket.game import words

    here = getattr(view, "pawn", None)
    stack = next((t.stack for t in getattr(view, "map", []) if t.id == here), "forest")
    return words(a, stack)


def _look(a: Any) -> tuple[Style, str | None]:
    """A choice's style and emoji: green for what helps, red for what hurts or is lost."""
    kind = getattr(a, "kind", None)
    if kind == "explore":
        return "primary", "🪞" if a.mirror else "🧭"
    if kind == "go":
        return "secondary", "👢" if a.boots else "🚶"
    if kind == "wish":
        return "secondary", "🪔"
    if kind == "stay":
        return "secondary", "⏸️"
    if kind == "drink":
        return "success", "🪔" if a.lamp else "🧪"
    if kind == "coat":
        return "success", "🛡️"
    if kind == "pick_tile":
        return "primary", "🗺️"
    if kind == "place":
        return "primary", SIDE_EMOJI[a.side]
    if kind == "fight":
        if a.item is not None:
            return "success", "🪔" if a.lamp else FIGHT_EMOJI.get(a.item, "✨")
        return "danger", "🪄" if a.wand else "⚔️"
    if kind == "run":
        return "secondary", "👢" if a.boots else "🏃"
    if kind == "good_deed":
        return ("success", "🤝") if a.help else ("secondary", "➡️")
    if kind == "shop":
        return "primary", "🛒"
    if kind == "pay":
        return "success", "🔁" if a.items else "🪙"
    if kind == "back":
        return "secondary", "↩️"
    if kind == "leave":
        return "secondary", "👋"
    if kind == "drop":
        return "danger", "🗑️"
    if kind == "send":
        return "primary", "🐦"
    if kind == "send_done":
        return "success", "✅"
    if kind == "find":
        return ("success", "✋") if a.take else ("secondary", "➡️")
    if kind == "rest":
        return ("success", "💤") if a.rest else ("primary", "▶️")
    return "secondary", None


def _description(a: Any, view: Any | None) -> str | None:
    """The line under a select option: what the place does, or what the item does."""
    tile = getattr(a, "tile", None)
    if tile is not None:
        shown = next((t for t in getattr(view, "map", []) or [] if t.id == tile), None)
        if shown is not None and shown.instruction:
            used = "(already used) " if shown.used else ""
            return _clip(used + str(shown.instruction), 100)
        return None
    if getattr(a, "kind", None) == "shop":
        return _clip(str(_content().item(a.item).text), 100)
    return None


def _placeholder(kinds: set[str]) -> str:
    for kind, words in (("go", "Go to a place you know…"), ("wish", "Go to a place you know…"),
                        ("run", "Run away to…"), ("shop", "Get an item…"),
                        ("pay", "Pay with…"), ("send", "Send back a card…")):
        if kind in kinds:
            return words
    return "Choose…"


# --------------------------------------------------------------------------- the adapter


class PocketUI(GameUI):
    game_id: ClassVar[str] = "pocket"

    def label(self, action: Action, view: View | None = None) -> str:
        """A short label for buttons and menus (the engine's words).

        >>> from engines.pocket.state import Go, Place
        >>> PocketUI().label(Go(tile="well")), PocketUI().label(Place(side="e"))
        ('Go to the Well', 'Put it east')
        """
        return action_label(action, view)

    # -- menus -----------------------------------------------------------------

    def _choice(self, action: Any, view: Any, *, listed: bool = False) -> Choice:
        style, emoji = _look(action)
        return Choice(action_code(action), _clip(self.label(action, view), 80), style=style,
                      emoji=emoji, description=_description(action, view) if listed else None)

    def prompt(self, view: Any, legal: Sequence[Action]) -> str:
        """What to decide now, from the view's decision (the engine's words)."""
        if not legal:
            return "Nothing to decide right now."
        decision = getattr(view, "decision", None)
        return str(decision.prompt) if decision is not None else "Your move:"

    def public_menu(self, view: View, legal: Sequence[Action]) -> Menu | None:
        if not legal:
            return None
        v: Any = view
        prompt = self.prompt(v, legal)
        sparing = _sparing(legal)
        if sparing:  # a rare choice (it only adds harm): one button opens them
            first = [a for a in legal if a not in sparing]
            menu = self.public_menu(view, first)
            assert menu is not None
            more = Choice(SPARING_CODE, f"Keep an item out of the fight ({len(sparing)}) ›",
                          style="secondary", emoji="🎒")
            if menu.as_select:
                return Menu(prompt=menu.prompt, choices=menu.choices, as_select=True,
                            placeholder=menu.placeholder, buttons=_after_fights(menu.buttons,
                                                                                more))
            return Menu(prompt=prompt, choices=_after_fights(menu.choices, more))
        if len(legal) <= FEW:
            return Menu(prompt=prompt, choices=tuple(self._choice(a, v) for a in legal))
        listed = [a for a in legal if a.kind in LISTED]  # type: ignore[attr-defined]
        buttons = [a for a in legal if a.kind not in LISTED]  # type: ignore[attr-defined]
        if not listed or len(buttons) > 20:
            return Menu(prompt=prompt, choices=tuple(self._choice(a, v) for a in legal))
        if len(listed) <= LIMIT:
            options = [self._choice(a, v, listed=True) for a in listed]
        else:
            options = self._places(v, listed)
        kinds = {a.kind for a in listed}  # type: ignore[attr-defined]
        return Menu(prompt=prompt, choices=tuple(options), as_select=True,
                    placeholder=_placeholder(kinds),
                    buttons=tuple(self._choice(a, v) for a in buttons))

    def _places(self, view: Any, listed: Sequence[Any]) -> list[Choice]:
        """One option per place (more ways to go than a select holds: the Lamp and the
        Boots): a place with one way plays it, one with several opens them."""
        by_tile: dict[str, list[Any]] = {}
        for a in listed:
            by_tile.setdefault(a.tile, []).append(a)
        out = []
        for tile, ways in by_tile.items():
            if len(ways) == 1:
                out.append(self._choice(ways[0], view, listed=True))
                continue
            words = [self._way_word(a) for a in ways]
            how = ", ".join(words[:-1]) + " or " + words[-1]
            out.append(Choice(f"to.{tile}", _clip(f"{tile_name(tile)}: {how} ›", 80),
                              emoji="🗺️", description=_description(ways[0], view)))
        if len(out) > LIMIT:  # the map has 16 tiles: never
            raise ValueError(f"{len(out)} places do not fit in one select")
        return out

    @staticmethod
    def _way_word(a: Any) -> str:
        if a.kind == "wish":
            return "wish"
        return "Boots" if a.boots else ("run" if a.kind == "run" else "walk")

    def sparing_menu(self, view: Any, fights: Sequence[Any]) -> Menu:
        """The follow-up of ``fk``: the fights that keep the Dagger or the Flame
        Repellant out (the rulebook lets a player choose not to use an item)."""
        return Menu(prompt="Fight without which item? (Each one left out adds harm.)",
                    choices=tuple(self._choice(a, view) for a in fights))

    def ways_menu(self, view: Any, tile: str, ways: Sequence[Any]) -> Menu:
        """The follow-up of ``to.<tile>``: every way to get there."""
        return Menu(prompt=f"How do you go to the **{tile_name(tile)}**?",
                    choices=tuple(self._choice(a, view) for a in ways))

    def private_menu(self, view: View, legal: Sequence[Action]) -> Menu:
        menu = self.public_menu(view, legal)
        if menu is None:
            return Menu(prompt="Nothing to decide right now.", choices=())
        return menu

    # -- clicks ----------------------------------------------------------------

    def resolve(self, code: str, view: View, legal: Sequence[Action]) -> Resolution:
        v: Any = view
        if code == self.turn_code:
            return Resolution(menu=self.private_menu(view, legal))
        action = _codes(legal).get(code)
        if action is not None:
            return Resolution(action=action,
                              done_text=f"Done: {_clip(self.label(action, v), 150)}.")
        if code == SPARING_CODE and _sparing(legal):
            return Resolution(menu=self.sparing_menu(v, _sparing(legal)))
        if code.startswith("to."):
            tile = code[3:]
            ways = [a for a in legal if getattr(a, "tile", None) == tile
                    and a.kind in ("go", "wish", "run")]  # type: ignore[attr-defined]
            if ways:
                return Resolution(menu=self.ways_menu(v, tile, ways))
        raise UnknownChoice(self._refusal(legal))

    @staticmethod
    def _refusal(legal: Sequence[Action]) -> str:
        if not legal:
            return "It is not your move right now."
        return ("That choice is not open now; the newest turn message has the choices "
                "of the moment.")

    # -- table options -----------------------------------------------------------

    def table_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return parse_table_options(options)

    def options_text(self, options: dict[str, Any]) -> str | None:
        return options_line(options)

    def option_suggestions(self, current: str) -> list[tuple[str, str]] | None:
        return option_suggestions(current)
