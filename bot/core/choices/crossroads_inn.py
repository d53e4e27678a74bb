"""Crossroads Inn buttons and selects (pure: no discord import).

The active innkeeper is walked through the nine steps of a turn: each step's message
offers only the engine's legal actions, each labelled with what it costs and does
("Buy Steel cages — 3 economic gossips", "Build on row 2, column 3 (inner)"), a one-click
**Skip** (the engine's Next), a **Take back** when the engine allows one, and at the end
the confirmation (End my turn, or end it and announce the end of the game).

Where the choices are:

* The PUBLIC turn message carries every choice built from public facts (the Guest
  Impression, gossips, buying, reserving, building, the confirmation, and decisions
  whose options everyone can see). A choice built from a secret (a Recipe to cook, a
  Basic Inn Tile of the draft, one of two Recipes drawn) is never there: the message
  has a button that opens the player's own hand instead.
* The DM hand message (and ``/hand``) carries ALL of the seat's choices, secret ones
  included, under the Recipes and Basic Inn Tiles only that seat may see.

Large lists are grouped so no menu holds more than 25 choices: a step's actions share
one select (the small groups listed in full, a big one as one entry that opens a
follow-up menu: Political gossip -> whose Reputation -> which groups; a swap of
ingredient tiles -> your tile -> theirs); Building is a 5 x 4 grid of buttons laid out
like the inn.

Codes (they travel in custom_ids, which anyone can read, so they carry public facts
only; a secret choice is an index into the clicker's OWN legal list, which the table
version in the custom_id pins and which means nothing to anyone else):

=======================  ===================================================
``n``                    Next: skip the step, or done with it
``u``                    take back the last step
``end`` / ``end.ann``    end the turn (and announce the end of the game)
``i.<closed>.<open>``    Guest Impression: group behind the closed / open door
``g.<act>....``          a gossip action and its targets (``g.pb.1`` opens the
                         follow-up of political gossip against seat 2)
``b.<1|2|r>.<slot>.<gu|go>``  buy from a track (or reserved), pay guldens / gossips
``r.<tier>.<slot>``      reserve a tile
``k.<space>`` / ``k.x``  build on a space / set the tile aside (no space can take it)
``p<i>.<space>``         put revealed Basic Inn Tile ``i`` (of those still to place) on
                         a corner
``o.<option>``           a decision whose options are public (``:`` written ``.``)
``d<i>`` ``c<i>`` ``s<i>``  secret: draft pick, cook a Recipe, keep or discard a Recipe
                         (indexes into the clicker's own legal list)
=======================  ===================================================
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from bot.core.choices.adapter import Choice, GameUI, Menu, Resolution, UnknownChoice, waiting_line
from engines.core import Action, UserError, View

__all__ = ["CrossroadsUI", "chart_text", "kingdom_line", "parse_table_options",
           "space_label"]

LIMIT = 25
"""Choices in one select (Discord's limit)."""

ROW_WORDS = ("1", "2", "3", "4")
GOSSIP_WORD = {"economic": "economic", "political": "political", "travellers": "traveller's"}
SECRET_KINDS = frozenset({"keep_recipe", "discard_recipe"})
TRACK_FIELDS = ("tracks",)
"""The public view's field holding the tiles on the Investment Tracks."""
TRACK_STEPS = frozenset({"invest", "reserve"})
"""Steps whose choices are tiles on the tracks."""
TRACK_DECISIONS = frozenset({"investment_pick", "townsfolk"})
"""Pending decisions whose options include tiles on the tracks."""
"""Pending decisions whose options are the seat's own secret Recipes."""
FAMILY = {"ea": "economic_a", "eb": "economic_b", "ec": "economic_c", "pa": "political_a",
          "pb": "political_b", "pc": "political_c", "ta": "travellers_a",
          "tb": "travellers_b"}
SHORT = {v: k for k, v in FAMILY.items()}
FAMILY_WORDS = {"ea": "Economic gossip: +2 guldens",
                "eb": "Economic ×2: steal a gulden and a gossip",
                "ec": "Economic ×2: steal a gulden from two opponents",
                "pa": "Political gossip: +1 Reputation with a group",
                "pb": "Political ×2: lower a Reputation, then +1 for you",
                "pc": "Political ×2: lower two opponents' Reputation",
                "ta": "Traveller's gossip: deal a track anew",
                "tb": "Traveller's ×2: swap ingredient tiles"}
TIER = {1: "I", 2: "II"}
MODES = {"draft": "drafted (the rulebook's steps 1-4)",
         "random": "four each, placed at random (first game)",
         "none": "none: the corners stay empty (first game)"}
KIND_WORDS = {"interesting": "interesting and simple", "neutral": "neutral",
              "difficult": "difficult and challenging"}


@cache
def _content() -> Any:
    from engines.crossroads_inn.content import load_content

    return load_content()


# --------------------------------------------------------------------------- words


def letter(seat: int) -> str:
    """The seat's marker on the pictures: A, B, C, D."""
    return chr(ord("A") + seat)


def who(seat: int, me: int | None) -> str:
    return "you" if seat == me else f"player {letter(seat)}"


def whose(seat: int, me: int | None) -> str:
    return "your" if seat == me else f"{letter(seat)}'s"


def group_name(group: str | None) -> str:
    if group is None:
        return "—"
    return str(_content().group(group).name)


def tile_name(tile: str | None) -> str:
    if tile is None:
        return "—"
    c = _content()
    try:
        return str(c.tile(tile).name)
    except ValueError:
        return str(c.basic_tile(tile).name)


def recipe_name(recipe: str) -> str:
    return str(_content().recipe(recipe).name)


def ingredient_name(ingredient: str) -> str:
    return str(_content().ingredient(ingredient).name)


def space_label(space: str) -> str:
    """``r1c2`` -> ``row 2, column 3 (inner)`` (rows and columns counted from 1, as on
    the inn picture's rows from the top and columns from the left).

    >>> space_label("r1c2"), space_label("r0c0")
    ('row 2, column 3 (inner)', 'row 1, column 1 (corner)')
    """
    from engines.crossroads_inn import inn as board

    row, column = board.coords(space)
    where = "corner" if board.is_corner(space) else board.ring(space)
    return f"row {row + 1}, column {column + 1} ({where})"


def _short_space(space: str) -> str:
    from engines.crossroads_inn import inn as board

    row, column = board.coords(space)
    return f"{row + 1}·{column + 1}"


def tile_text(tile: str, with_cost: bool = True) -> str:
    """``Services · tier II · 10 guldens or 3 economic gossips · Outlaws +3, ...``
    (without the cost: ``Services · Outlaws +3, ...``)."""
    c = _content()
    t = c.tile(tile)
    parts = [str(c.category(t.category).name)]
    if with_cost:
        parts += [f"tier {TIER[t.tier]}", str(t.cost_text)]
    effect = str(t.effect.text)
    if t.ingredient:
        effect += f", {ingredient_name(t.ingredient)}"
    if t.drawback is not None:
        effect += f"; drawback: {t.drawback.text}"
    parts.append(effect)
    return " · ".join(parts)


def basic_text(tile: str) -> str:
    b = _content().basic_tile(tile)
    gives = b.on_build.text if b.on_build is not None else "no bonus"
    return f"{gives} (covered: {b.on_cover.text})"


def recipe_text(recipe: str, owned: Counter[str] | None = None) -> str:
    r = _content().recipe(recipe)
    needs = []
    for i in r.ingredients:
        mark = "" if owned is None else (" ✓" if owned.get(i, 0) else " ✗")
        needs.append(f"{ingredient_name(i)}{mark}")
    return f"needs {', '.join(needs)} → {r.reward.text}"


def _cost_way(tile: str, pay: str) -> str:
    t = _content().tile(tile)
    if pay == "gossips" and t.cost.or_gossips is not None:
        alt = t.cost.or_gossips
        return f"{alt.count} {GOSSIP_WORD[alt.gossip]} gossip{'s' if alt.count > 1 else ''}"
    return f"{t.cost.guldens} gulden{'s' if t.cost.guldens != 1 else ''}"


def _a(word: str) -> str:
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def owned_ingredients(player: Any) -> Counter[str]:
    out: Counter[str] = Counter()
    for b in player.inn.values():
        out.update(b.ingredients)
    return out


def kingdom_line(numbers: Sequence[int]) -> str:
    """The Kingdom Cards in play and their chart kind.

    >>> kingdom_line([1, 5])
    'Kingdom Cards #1 I wanna see you! + #5 Make some room! (interesting and simple)'
    >>> kingdom_line([])
    'no Kingdom Cards'
    """
    c = _content()
    if not numbers:
        return "no Kingdom Cards"
    cards = " + ".join(f"#{n} {c.kingdom_card(n).title}" for n in numbers)
    kind = ""
    if len(numbers) == 2:
        kind = f" ({KIND_WORDS[c.combination(numbers[0], numbers[1])]})"
    return f"Kingdom Cards {cards}{kind}"


def chart_text() -> str:
    """The combinations chart as text (every pair not listed is neutral)."""
    c = _content()
    kinds: dict[str, list[str]] = {"interesting": [], "difficult": []}
    for p in c.kingdom.chart.pairs:
        if p.kind in kinds:
            kinds[p.kind].append(f"{p.a}+{p.b}")
    return (f"**Interesting and simple:** {', '.join(kinds['interesting'])}\n"
            f"**Difficult and challenging:** {', '.join(kinds['difficult'])}\n"
            "**Neutral:** every other pair.")


# --------------------------------------------------------------------------- options


_BASIC_KEYS = ("basic_tiles", "basics", "basic", "tiles")
_KINGDOM_KEYS = ("kingdom", "kingdom_cards", "cards")
_ADVANCED_KEYS = ("advanced_recipes", "advanced")
OPTIONS_HELP = ("`basic_tiles=draft|random|none` · `kingdom=none|random|1+5` (two card "
                "numbers 1-10) · `advanced_recipes=auto|include|remove`")


def _pick(options: dict[str, Any], keys: tuple[str, ...]) -> tuple[bool, Any]:
    given = [k for k in keys if k in options]
    if len(given) > 1:
        raise UserError(f"Give `{keys[0]}` once (you wrote {', '.join(given)}).")
    return (True, options[given[0]]) if given else (False, None)


def parse_kingdom_text(value: Any) -> str:
    """What may be typed for the Kingdom Cards: ``none``, ``random`` or two different
    numbers from 1 to 10 (``1+5``, ``1/5``, ``'1 5'``, ``1&5``, ``1-5``).

    >>> parse_kingdom_text("5+1"), parse_kingdom_text(False), parse_kingdom_text("Random")
    ('1+5', 'none', 'random')
    """
    if value is False or value is None or (isinstance(value, int | float) and value == 0):
        return "none"
    if value is True:
        return "random"
    text = str(value).strip().lower()
    if text in ("none", "no", "off", ""):
        return "none"
    if text in ("random", "yes", "on"):
        return "random"
    for sep in ("/", "&", "-", " and ", ",", " "):
        text = text.replace(sep, "+")
    parts = [p for p in text.split("+") if p]
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise UserError(f"Kingdom Cards: '{str(value)[:30]}' is not 'none', 'random' or two "
                        "card numbers from 1 to 10 such as `kingdom=1+5`.")
    a, b = sorted(int(p) for p in parts)
    if a == b or not (1 <= a <= 10 and 1 <= b <= 10):
        raise UserError("Kingdom Cards: give two DIFFERENT card numbers from 1 to 10, "
                        "such as `kingdom=1+5`.")
    return f"{a}+{b}"


def parse_table_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options typed at ``/table new`` in the engine's terms; clear errors.

    >>> parse_table_options({"basics": "Random", "kingdom": "10+7", "advanced": False})
    {'basic_tiles': 'random', 'kingdom': '7+10', 'advanced_recipes': 'remove'}
    >>> parse_table_options({})
    {}
    """
    known = set(_BASIC_KEYS + _KINGDOM_KEYS + _ADVANCED_KEYS)
    unknown = [k for k in options if k not in known]
    if unknown:
        raise UserError(f"Crossroads Inn has no option '{str(unknown[0])[:30]}'. Its options: "
                        f"{OPTIONS_HELP}.")
    out: dict[str, Any] = {}
    given, value = _pick(options, _BASIC_KEYS)
    if given:
        text = "none" if value is False else str(value).strip().lower()
        if text not in MODES:
            raise UserError(f"basic_tiles: '{str(value)[:30]}' is not one of draft (the "
                            "rulebook's draft), random (placed at random) or none (no Basic "
                            "Inn Tiles).")
        out["basic_tiles"] = text
    given, value = _pick(options, _KINGDOM_KEYS)
    if given:
        out["kingdom"] = parse_kingdom_text(value)
    given, value = _pick(options, _ADVANCED_KEYS)
    if given:
        if isinstance(value, bool):
            text = "include" if value else "remove"
        else:
            text = str(value).strip().lower()
            text = {"in": "include", "out": "remove"}.get(text, text)
        if text not in ("auto", "include", "remove"):
            raise UserError(f"advanced_recipes: '{str(value)[:30]}' is not one of auto (removed "
                            "with 2 players, as the rulebook recommends), include or remove.")
        out["advanced_recipes"] = text
    return out


_KEY = re.compile(r"([A-Za-z_]+)\s*=\s*(\S*)")


def option_suggestions(current: str) -> list[tuple[str, str]]:
    """What ``/table new options:`` suggests: what is typed, then one more option at a
    time with what each value means (the Kingdom Card pairs with their chart kind).

    >>> for label, _value in option_suggestions("basic_tiles=random kingdom=")[:3]:
    ...     print(label)
    basic_tiles=random kingdom=random — two Kingdom Cards at random
    basic_tiles=random kingdom=none — no Kingdom Cards
    basic_tiles=random kingdom=1+5 — interesting and simple: I wanna see you! + Make some room!
    """
    text = current.strip()
    partial = ""
    if text and not current.endswith(" "):
        head, _, last = text.rpartition(" ")
        unfinished = "=" not in last or last.endswith("=") or (
            last.split("=", 1)[0] in _KINGDOM_KEYS and "+" not in last)
        if unfinished:
            partial, text = last, head.strip()
    given = {k for k, _v in _KEY.findall(text)}
    out: list[tuple[str, str]] = []
    if text and not partial:
        try:
            out.append((f"{text} — {options_line(parse_table_options(_parse(text)))}", text))
        except UserError as exc:
            out.append((f"{text} — {exc}", text))
    c = _content()
    values: list[tuple[str, str]] = []
    if not given & set(_KINGDOM_KEYS):
        values += [("kingdom=random", "two Kingdom Cards at random"),
                   ("kingdom=none", "no Kingdom Cards")]
        order = {"interesting": 0, "difficult": 1, "neutral": 2}
        pairs = sorted(c.kingdom.chart.pairs, key=lambda p: (order[p.kind], p.a, p.b))
        values += [(f"kingdom={p.a}+{p.b}", f"{KIND_WORDS[p.kind]}: "
                    f"{c.kingdom_card(p.a).title} + {c.kingdom_card(p.b).title}")
                   for p in pairs]
    if not given & set(_BASIC_KEYS):
        values += [(f"basic_tiles={k}", v) for k, v in MODES.items()]
    if not given & set(_ADVANCED_KEYS):
        values += [("advanced_recipes=include", "the four advanced Recipes in"),
                   ("advanced_recipes=remove", "the four advanced Recipes out")]
    for value, meaning in values:
        if partial and not value.startswith(partial):
            continue
        full = f"{text} {value}".strip()
        out.append((f"{full} — {meaning}", full))
    return out[:25]


def _parse(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in _KEY.findall(text):
        out[key] = value
    return out


def options_line(options: dict[str, Any], players: int | None = None) -> str:
    """What a table's options mean, in one line (the chart kind of the Kingdom Cards)."""
    mode = str(options.get("basic_tiles", "draft"))
    kingdom = str(options.get("kingdom", "none"))
    if kingdom == "none":
        cards = "no Kingdom Cards"
    elif kingdom == "random":
        cards = "two Kingdom Cards at random (drawn at the start)"
    else:
        cards = kingdom_line([int(x) for x in kingdom.split("+")])
    advanced = str(options.get("advanced_recipes", "auto"))
    adv = {"auto": "advanced Recipes out with 2 players", "include": "advanced Recipes in",
           "remove": "advanced Recipes out"}.get(advanced, advanced)
    return f"Basic Inn Tiles: {MODES.get(mode, mode)} · {cards} · {adv}."


# --------------------------------------------------------------------------- codes


def _seat_acting(view: Any) -> int | None:
    if view.pending is not None:
        return int(view.pending.seat)
    if view.active is not None:
        return int(view.active)
    return view.seat


def action_code(action: Any, legal: Sequence[Action]) -> str:
    """The code of one legal action (public facts, or an index for a secret one)."""
    kind = action.kind
    if kind == "next":
        return "n"
    if kind == "undo":
        return "u"
    if kind == "end_turn":
        return "end.ann" if action.announce else "end"
    if kind == "impression":
        return f"i.{action.closed}.{action.open}"
    if kind == "gossip":
        short = SHORT[action.action]
        players = "-".join(str(p) for p in action.players)
        if short == "ea":
            return "g.ea"
        if short == "eb":
            return f"g.eb.{players}.{action.gossip or 'none'}"
        if short == "ec":
            return f"g.ec.{players}"
        if short == "pa":
            return f"g.pa.{action.groups[0]}"
        if short in ("pb", "pc"):
            return f"g.{short}.{players}.{action.groups[0]}.{action.groups[1]}"
        if short == "ta":
            return f"g.ta.{action.tier}"
        return f"g.tb.{action.mine}.{players}.{action.theirs}"
    if kind == "buy":
        source = "r" if action.tier is None else str(action.tier)
        return f"b.{source}.{action.slot}.{'go' if action.pay == 'gossips' else 'gu'}"
    if kind == "reserve":
        return f"r.{action.tier}.{action.slot}"
    if kind == "build":
        return f"k.{action.space}"
    if kind == "set_aside":
        return "k.x"
    if kind == "choose":
        if action.option in _recipe_ids():  # one of the seat's own Recipes: an index
            return f"s{_index(action, legal)}"
        return f"o.{action.option.replace(':', '.')}"
    if kind == "draft":
        return f"d{_index(action, legal)}"
    if kind == "place_basic":
        tiles = list(dict.fromkeys(a.tile for a in legal if a.kind == "place_basic"))
        return f"p{tiles.index(action.tile)}.{action.space}"
    if kind == "complete":
        return f"c{_index(action, legal)}"
    raise ValueError(f"no code for {kind!r}")


@cache
def _recipe_ids() -> frozenset[str]:
    return frozenset(r.id for r in _content().recipes)


def _index(action: Any, legal: Sequence[Action]) -> int:
    same = [a for a in legal if a.kind == action.kind]
    return same.index(action)


def secret_choice(view: Any, action: Any) -> bool:
    """Whether a choice is built from a secret (it never goes on a public message)."""
    kind = action.kind
    if kind in ("draft", "complete"):
        return True
    if kind == "choose":
        return view.pending is not None and view.pending.kind in SECRET_KINDS
    return False


def needs_hand(view: Any) -> bool:
    """Whether this moment's choices are built from the actor's secrets (told by the
    PUBLIC view alone, so the public message shows the same whatever the hands hold)."""
    pend = view.pending
    if pend is not None:
        return pend.kind in SECRET_KINDS
    return view.phase == "draft" or (view.phase == "turn" and view.step == "recipes")


def _codes(legal: Sequence[Action]) -> dict[str, Any]:
    return {action_code(a, legal): a for a in legal}


# --------------------------------------------------------------------------- labels


def action_label(action: Any, view: Any | None) -> str:
    """The full label of an action (what it costs and does), from the actor's view."""
    kind = action.kind
    me = _seat_acting(view) if view is not None else None
    if kind == "next":
        return next_label(view)
    if kind == "undo":
        return "Take back the last step"
    if kind == "end_turn":
        return ("End my turn and announce the end of the game" if action.announce
                else "End my turn")
    if kind == "impression":
        return (f"{group_name(action.closed)} −3 (closed door), "
                f"{group_name(action.open)} +1 (open door)")
    if kind == "gossip":
        return gossip_label(action, view, me)
    if kind == "buy":
        tile = _source_tile(view, action.tier, action.slot, me) if view is not None else None
        where = "your reserved " if action.tier is None else ""
        return f"Buy {where}{tile_name(tile)} — {_cost_way(tile, action.pay)}" if tile \
            else "Buy a tile"
    if kind == "reserve":
        tile = view.tracks[action.tier - 1][action.slot] if view is not None else None
        return f"Reserve {tile_name(tile)} (tier {TIER[action.tier]}, slot {action.slot + 1})"
    if kind == "build":
        tile = view.bought[0] if view is not None and view.bought else None
        here = None
        if view is not None and me is not None:
            here = view.seats[me].inn.get(action.space)
        what = tile_name(tile) if tile else "the tile"
        if here is not None and here.basic:
            return f"Build {what} over {tile_name(here.tile)}, {space_label(action.space)}"
        return f"Build {what} on {space_label(action.space)}"
    if kind == "set_aside":
        tile = view.bought[0] if view is not None and view.bought else None
        return f"Discard {tile_name(tile)}: no space of your inn can take it"
    if kind == "complete":
        r = _content().recipe(action.recipe)
        return f"Cook {r.name} ({r.reward.text})"
    if kind == "draft":
        return f"Keep {tile_name(action.tile)}"
    if kind == "place_basic":
        return f"Put {tile_name(action.tile)} on the {corner_name(action.space)} corner"
    if kind == "choose":
        return choose_label(action.option, view, me)
    return kind.replace("_", " ").capitalize()


def corner_name(space: str) -> str:
    from engines.crossroads_inn import inn as board

    row, column = board.coords(space)
    return f"{'top' if row == 0 else 'bottom'}-{'left' if column == 0 else 'right'}"


def next_label(view: Any | None) -> str:
    step = getattr(view, "step", None)
    if step == "impression":
        return "Skip the Guest Impression"
    if step == "gossip":
        return "Done with gossips" if view.gossips_used else "Skip the gossips"
    if step == "invest":
        return "Done buying" if view.buys_left < 2 else "Skip Investing"
    if step == "reserve":
        return "Skip Reserving (new tiles come out)"
    if step == "recipes":
        return "Done with the Recipes"
    return "Go on"


def _source_tile(view: Any, tier: int | None, slot: int, me: int | None) -> str | None:
    if tier is None:
        reserved = view.seats[me].reserved if me is not None else []
        return reserved[slot] if 0 <= slot < len(reserved) else None
    return view.tracks[tier - 1][slot]


def gossip_label(a: Any, view: Any | None, me: int | None) -> str:
    short = SHORT[a.action]
    if short == "ea":
        return "Economic gossip: +2 guldens (spend 1)"
    if short == "eb":
        o = a.players[0]
        what = f"a gulden and a {GOSSIP_WORD[a.gossip]} gossip" if a.gossip else "a gulden"
        return f"Economic ×2: steal {what} from {who(o, me)}"
    if short == "ec":
        x, y = a.players
        return f"Economic ×2: steal a gulden each from {who(x, me)} and {who(y, me)}"
    if short == "pa":
        return f"Political gossip: {group_name(a.groups[0])} +1 (spend 1)"
    if short == "pb":
        o = a.players[0]
        return (f"Political ×2: {whose(o, me)} {group_name(a.groups[0])} −1, "
                f"your {group_name(a.groups[1])} +1")
    if short == "pc":
        x, y = a.players
        return (f"Political ×2: {whose(x, me)} {group_name(a.groups[0])} −1, "
                f"{whose(y, me)} {group_name(a.groups[1])} −1")
    if short == "ta":
        return f"Traveller's gossip: deal the tier {TIER[a.tier]} track anew (spend 1)"
    o = a.players[0]
    mine = theirs = None
    if view is not None and me is not None:
        mine = view.seats[me].inn.get(a.mine)
        theirs = view.seats[o].inn.get(a.theirs)
    return (f"Traveller's ×2: your {tile_name(mine.tile if mine else None)} "
            f"({_short_space(a.mine)}) for {whose(o, me)} "
            f"{tile_name(theirs.tile if theirs else None)} ({_short_space(a.theirs)})")


def choose_label(option: str, view: Any | None, me: int | None) -> str:
    pend = getattr(view, "pending", None)
    kind = pend.kind if pend is not None else ""
    parts = option.split(":")
    if kind == "gossip_gain":
        return f"Take {_a(GOSSIP_WORD.get(option, option))} gossip"
    if kind == "gossip_lose":
        return f"Give up {_a(GOSSIP_WORD.get(option, option))} gossip"
    if kind == "reputation_any":
        now = view.seats[me].reputation.get(option) if me is not None else None
        return f"{group_name(option)} {pend.amount:+d}" + (
            f" (now {now})" if now is not None else "")
    if kind == "investment_pick":
        tier, slot = int(parts[0]), int(parts[1])
        tile = view.tracks[tier - 1][slot]
        return f"Reserve {tile_name(tile)} (tier {TIER[tier]}, slot {slot + 1})"
    if kind == "reserved_discard":
        reserved = view.seats[me].reserved if me is not None else []
        tile = reserved[int(option)] if int(option) < len(reserved) else None
        return f"Discard your reserved {tile_name(tile)}"
    if kind == "travellers":
        if option == "draw2":
            return "Draw two Recipes and keep one"
        if option == "discard":
            return "Discard one of your Recipes"
        if parts[0] == "steal":
            return f"Take a random Recipe from {who(int(parts[1]), me)}"
        return "Pass (no Special Action)"
    if kind == "townsfolk":
        return townsfolk_label(parts, view, me)
    if kind == "keep_recipe":
        return f"Keep {recipe_name(option)}"
    if kind == "discard_recipe":
        return f"Discard {recipe_name(option)}"
    if kind == "victim_draw":
        return "Draw a new Recipe" if option == "draw" else "Do not draw"
    return option.replace(":", " ")


def townsfolk_label(parts: list[str], view: Any, me: int | None) -> str:
    if parts[0] == "pass":
        return "Pass (no Special Action)"
    reserved = view.seats[me].reserved if me is not None else []
    index = int(parts[1])
    mine = tile_name(reserved[index] if index < len(reserved) else None)
    if parts[0] == "return":
        return f"Put your reserved {mine} back in its pouch: +2 guldens"
    if parts[0] == "swap":
        other, j = int(parts[2]), int(parts[3])
        theirs = view.seats[other].reserved
        return (f"Swap your reserved {mine} for {whose(other, me)} reserved "
                f"{tile_name(theirs[j] if j < len(theirs) else None)}")
    tier = _content().tile(reserved[index]).tier if index < len(reserved) else 1
    if parts[2] == "discard":
        pile = view.discards[tier - 1]
        return (f"Exchange your reserved {mine} for {tile_name(pile[-1] if pile else None)} "
                "(top of the discard pile)")
    slot = int(parts[3])
    return (f"Exchange your reserved {mine} for "
            f"{tile_name(view.tracks[tier - 1][slot])} (tier {TIER[tier]}, slot {slot + 1})")


def action_description(action: Any, view: Any | None) -> str | None:
    """The line under a select option: what a tile or Recipe does, where it lies."""
    kind = action.kind
    me = _seat_acting(view) if view is not None else None
    if kind == "buy" and view is not None:
        tile = _source_tile(view, action.tier, action.slot, me)
        where = "Reserved" if action.tier is None else \
            f"Tier {TIER[action.tier]} track, slot {action.slot + 1}"
        return f"{where} · {tile_text(tile, with_cost=False)}" if tile else None
    if kind == "reserve" and view is not None:
        tile = view.tracks[action.tier - 1][action.slot]
        return tile_text(tile) if tile else None
    if kind == "impression" and view is not None and me is not None:
        rep = view.seats[me].reputation
        return (f"{_move(action.closed, rep[action.closed], -3)}, "
                f"{_move(action.open, rep[action.open], 1)}")
    if kind == "complete":
        return recipe_text(action.recipe)
    if kind == "draft" or kind == "place_basic":
        return basic_text(action.tile)
    if kind == "choose" and view is not None and view.pending is not None:
        pk = view.pending.kind
        if pk in ("keep_recipe", "discard_recipe"):
            owned = owned_ingredients(view.seats[me]) if me is not None else None
            return recipe_text(action.option, owned)
        if pk == "investment_pick":
            tier, slot = (int(x) for x in action.option.split(":"))
            tile = view.tracks[tier - 1][slot]
            return tile_text(tile) if tile else None
    return None


def _move(group: str, now: int, by: int) -> str:
    """``Outlaws 6 → 7 (Special Action)``, ``Nobles 1 → 0 (−2 Prestige)``."""
    g = _content().group(group)
    target = now + by
    end = max(0, min(12, target))
    notes = []
    if target < 0:
        notes.append(f"−{-target} Prestige")
    if (now != g.special_action_space and min(now, end) <= g.special_action_space <= max(
            now, end)) or target > 12:
        notes.append("Special Action")
    return f"{g.name} {now} → {end}" + (f" ({', '.join(notes)})" if notes else "")


# --------------------------------------------------------------------------- grouping


def _group_label(prefix: tuple[str, ...], actions: list[Any], view: Any, me: int | None
                 ) -> str:
    """The label of a select entry that opens the actions under ``prefix``."""
    head = prefix[0]
    if head == "g":
        short = prefix[1]
        if len(prefix) == 2:
            return FAMILY_WORDS[short] + " ›"
        if short in ("eb", "ec") and len(prefix) == 3:
            seats = [int(x) for x in prefix[2].split("-")]
            return f"Steal from {' and '.join(who(s, me) for s in seats)} ›"
        if short in ("pb", "pc") and len(prefix) == 3:
            seats = [int(x) for x in prefix[2].split("-")]
            return f"Lower {' and '.join(whose(s, me) for s in seats)} Reputation ›"
        if short == "tb":
            if len(prefix) == 3:
                built = view.seats[me].inn.get(prefix[2]) if me is not None else None
                return (f"Give your {tile_name(built.tile if built else None)} "
                        f"({space_label(prefix[2])}) ›")
            if len(prefix) == 4:
                return f"…for a tile of {who(int(prefix[3]), me)} ›"
    if head == "b" and len(prefix) >= 2:
        if len(prefix) == 2:
            return ("Buy one of your reserved tiles ›" if prefix[1] == "r"
                    else f"Buy from the tier {TIER[int(prefix[1])]} track ›")
        tier = None if prefix[1] == "r" else int(prefix[1])
        tile = _source_tile(view, tier, int(prefix[2]), me)
        return f"Buy {tile_name(tile)} ›"
    if head == "i" and len(prefix) == 2:
        return f"{group_name(prefix[1])} behind the closed door (−3) ›"
    if head == "o" and len(prefix) >= 2:
        words = {"exchange": "Exchange a reserved tile", "swap": "Swap a reserved tile",
                 "return": "Put a reserved tile back"}
        return words.get(prefix[1], " ".join(prefix[1:])) + " ›"
    if head == "r" and len(prefix) == 2:
        return f"Reserve from the tier {TIER[int(prefix[1])]} track ›"
    return " ".join(prefix) + " ›"


@dataclass
class _Entry:
    code: str
    label: str
    description: str | None = None
    count: int = 1
    members: list[tuple[str, Any]] = field(default_factory=list)


def grouped(items: list[tuple[str, Any]], view: Any, depth: int = 0,
            limit: int = LIMIT) -> list[_Entry]:
    """At most ``limit`` entries for ``(code, action)`` items: every item when they fit,
    else groups by the code's next segment, the smallest groups listed in full while
    there is room (a group of one is its action)."""
    me = _seat_acting(view)

    def leaf(code: str, action: Any) -> _Entry:
        return _Entry(code, _clip(action_label(action, view), 100),
                      _clip_opt(action_description(action, view), 100))

    if len(items) <= limit:
        return [leaf(c, a) for c, a in items]
    buckets: dict[tuple[str, ...], list[tuple[str, Any]]] = {}
    for code, action in items:
        parts = tuple(code.split("."))
        key = parts[:depth + 1] if len(parts) > depth + 1 else parts
        buckets.setdefault(key, []).append((code, action))
    if len(buckets) == 1:  # one common prefix here: look one segment deeper
        return grouped(items, view, depth + 1, limit)
    order = sorted(buckets, key=lambda k: len(buckets[k]))
    expanded: set[tuple[str, ...]] = set()
    total = len(buckets)
    for key in order:
        extra = len(buckets[key]) - 1
        if total + extra <= limit:
            expanded.add(key)
            total += extra
    out: list[_Entry] = []
    for key, members in buckets.items():
        if key in expanded or len(members) == 1:
            out.extend(leaf(c, a) for c, a in members)
        else:
            label = _group_label(key, [a for _c, a in members], view, me)
            out.append(_Entry(".".join(key), _clip(label, 100),
                              f"{len(members)} choices", len(members), members))
    if len(out) > limit:  # pragma: no cover - the segments below keep fan-out small
        raise ValueError(f"cannot group {len(items)} choices into {limit}")
    return out


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _clip_opt(text: str | None, limit: int) -> str | None:
    return None if text is None else _clip(text, limit)


# --------------------------------------------------------------------------- panels


@dataclass
class Panel:
    """One moment's choices: the main list (a select, or buttons when few), the
    one-click controls (Skip, Take back, End my turn), or the Build grid."""

    prompt: str
    main: list[Choice] = field(default_factory=list)
    controls: list[Choice] = field(default_factory=list)
    grid: list[Choice] | None = None
    as_select: bool = False
    placeholder: str = "Choose…"

    def menu(self) -> Menu:
        """One message's components (the public turn message, an ephemeral menu)."""
        if self.grid is not None:
            return Menu(prompt=self.prompt, choices=(*self.grid, *[
                Choice(c.code, c.label, c.style, c.emoji, c.disabled, 4) for c in self.controls]))
        if self.as_select:
            return Menu(prompt=self.prompt, choices=tuple(self.main), as_select=True,
                        placeholder=self.placeholder, buttons=tuple(self.controls))
        return Menu(prompt=self.prompt, choices=(*self.main, *self.controls))

    def rows(self) -> list[Menu]:
        """The same choices as rows of a hand message (five rows of five at most)."""
        if self.grid is not None:
            rows = [Menu(prompt="", choices=tuple(self.grid[k:k + 5]))
                    for k in range(0, len(self.grid), 5)]
            return rows + ([Menu(prompt="", choices=tuple(self.controls))]
                           if self.controls else [])
        out = []
        if self.as_select:
            out.append(Menu(prompt=self.prompt, choices=tuple(self.main), as_select=True,
                            placeholder=self.placeholder))
            buttons = list(self.controls)
        else:
            buttons = [*self.main, *self.controls]
        out += [Menu(prompt="", choices=tuple(buttons[k:k + 5]))
                for k in range(0, len(buttons), 5)]
        return out[:5]


def _control(code: str, label: str, style: str = "secondary", emoji: str | None = None
             ) -> Choice:
    return Choice(code, _clip(label, 80), style=style, emoji=emoji)  # type: ignore[arg-type]


class CrossroadsUI(GameUI):
    game_id: ClassVar[str] = "crossroads-inn"
    hand_code: ClassVar[str] = "turn"
    """The button that opens the hand (the core shows it ephemerally)."""

    def label(self, action: Action, view: View | None = None) -> str:
        return action_label(action, view)

    def step_board_fields(self, view: View) -> tuple[str, ...] | None:
        """The table picture shows the boards and each innkeeper's summary, drawn when
        the turn passes. Within a turn the innkeeper's own steps change their own
        coins, gossips and Reputation, which the step's lines tell; what they did not
        choose and must read off the picture is the tiles on the tracks (refilled after
        a buy or a reservation, dealt anew by a Traveller's gossip), and only while a
        choice is made from them: buying, reserving, a tile picked from the tracks, the
        Townsfolk exchange with a track. The rest of a turn (the Guest Impression, the
        gossips, building in the inn, which this picture does not show, cooking from the
        secret Recipes, the confirmation) keeps the picture it has."""
        v: Any = view
        if v.phase != "turn":
            return ()  # the draft and the corners: secret tiles and the inn, not the table
        if v.pending is not None:
            return TRACK_FIELDS if v.pending.kind in TRACK_DECISIONS else ()
        return TRACK_FIELDS if v.step in TRACK_STEPS else ()

    # -- building the choices --------------------------------------------------------

    def panel(self, view: Any, legal: Sequence[Action], *, public: bool) -> Panel:
        """The choices of this moment. ``public``: from the public view, for the
        channel (secret choices become a button that opens the hand)."""
        codes = _codes(legal)
        secret = [c for c, a in codes.items() if secret_choice(view, a)]
        controls: list[Choice] = []
        main_items: list[tuple[str, Any]] = []
        grid: list[Choice] | None = None
        by_kind: dict[str, list[tuple[str, Any]]] = {}
        for code, a in codes.items():
            by_kind.setdefault(a.kind, []).append((code, a))
        prompt = self.prompt(view, legal)
        if public and needs_hand(view):
            controls.append(_control(self.hand_code, self._hand_button(view, legal),
                                     "primary", "🔒"))
        for code, a in codes.items():
            kind = a.kind
            if public and code in secret:
                continue
            if kind == "next":
                controls.append(_control(code, next_label(view), "secondary", "⏭"))
            elif kind == "undo":
                continue  # last, below
            elif kind == "end_turn":
                controls.append(_control(code, action_label(a, view),
                                         "danger" if a.announce else "success",
                                         "📯" if a.announce else "✅"))
            elif kind == "set_aside":
                controls.append(_control(code, action_label(a, view), "danger", "🗑"))
            elif kind == "build":
                continue
            else:
                main_items.append((code, a))
        if "build" in by_kind:
            grid = self._grid(view, [a.space for _c, a in by_kind["build"]])
        if "u" in codes:
            controls.append(_control("u", "Take back", "secondary", "↩️"))
        entries = grouped(main_items, view) if main_items else []
        few = len(entries) + len(controls) <= 5 and not any(e.description for e in entries)
        main = [Choice(e.code, _clip(e.label, 80 if few else 100),
                       style="primary" if few else "secondary",
                       description=e.description) for e in entries]
        return Panel(prompt=prompt, main=main, controls=controls, grid=grid,
                     as_select=bool(main) and not few and grid is None,
                     placeholder=self._placeholder(view, legal))

    def _hand_button(self, view: Any, legal: Sequence[Action]) -> str:
        """From the public view only (the button must not say what the hand holds)."""
        if view.pending is not None:
            return "Choose in your hand"
        if view.phase == "draft":
            return "Pick a Basic Inn Tile (in your hand)"
        if view.step == "recipes":
            return "Cook a Recipe (in your hand)"
        return "Choose in your hand"

    def _grid(self, view: Any, spaces: list[str]) -> list[Choice]:
        """The inn as 4 rows of 5 buttons: the spaces the bought tile may go on are
        green; the others show what is there, greyed."""
        from engines.crossroads_inn import inn as board

        me = _seat_acting(view)
        inn = view.seats[me].inn if me is not None else {}
        out = []
        for space in board.SPACES:
            row, column = board.coords(space)
            here = inn.get(space)
            legal = space in spaces
            if here is not None:
                label = ("Cover " if legal else "") + tile_name(here.tile)
            elif legal:
                label = f"Row {row + 1}, col {column + 1}" + (
                    " inner" if board.ring(space) == "inner" else "")
            else:
                label = f"✗ {row + 1}·{column + 1}"
            out.append(Choice(f"k.{space}", _clip(label, 80),
                              style="success" if legal else "secondary",
                              disabled=not legal, row=row))
        return out

    def _placeholder(self, view: Any, legal: Sequence[Action]) -> str:
        kinds = {a.kind for a in legal}
        for kind, words in (("impression", "Which group behind which door?"),
                            ("gossip", "Use a gossip…"), ("buy", "Buy a tile…"),
                            ("reserve", "Reserve a tile…"), ("complete", "Cook a Recipe…"),
                            ("draft", "Keep a Basic Inn Tile…"),
                            ("place_basic", "Place a Basic Inn Tile…"),
                            ("choose", "Choose…")):
            if kind in kinds:
                return words
        return "Choose…"

    def prompt(self, view: Any, legal: Sequence[Action]) -> str:
        """One line: what this seat decides now (from public facts: the step, the
        public legal actions)."""
        if not legal:
            return "Nothing to decide right now."
        pend = view.pending
        if pend is not None:
            return pend.prompt[:1].upper() + pend.prompt[1:] + "."
        if view.phase == "draft":
            return "The draft: keep one Basic Inn Tile (face down); the rest pass left."
        if view.phase == "place_basics":
            return "Place your Basic Inn Tiles on the corners of your inn."
        kinds = {a.kind for a in legal}
        step = view.step
        if step == "build":
            tile = view.bought[0] if view.bought else None
            left = len(view.bought) - 1
            more = f" ({left} more to place after it)" if left > 0 else ""
            if "build" not in kinds:
                return f"No space of your inn can take {tile_name(tile)}: it is discarded."
            return f"Building: where does {tile_name(tile)} go?{more}"
        if step == "impression":
            return ("The Guest Impression: one group behind the closed door (−3), another "
                    "behind the open door (+1). Or skip.")
        if step == "gossip":
            return "Gossips: each kind once per turn. Or go on."
        if step == "invest":
            return (f"Investing: buy up to {view.buys_left} more tile(s), paid from your "
                    "Pouch or in gossips. Or go on.")
        if step == "reserve":
            return ("Reserving: reserve one tile for a later turn, or skip. Either way the "
                    "tracks move on and new tiles come out, which makes your turn so far "
                    "final (no take-back past it).")
        if step == "recipes":
            return "The Recipes: cook any you have the ingredients for (in your hand). Or go on."
        if step == "confirm":
            return ("Confirm the turn: your revenue goes to the Chest, debts are paid."
                    + (" All 16 spaces are covered: you may announce the end of the game."
                       if any(getattr(a, "announce", False) for a in legal) else ""))
        return str(view.prompt)

    # -- menus -------------------------------------------------------------------------

    def public_menu(self, view: View, legal: Sequence[Action]) -> Menu | None:
        if not legal:
            return None
        menu = self.panel(view, legal, public=True).menu()
        return menu if menu.choices or menu.buttons else self.turn_button_menu()

    def turn_button_menu(self) -> Menu:
        return Menu(prompt="", choices=(
            Choice(self.turn_code, "Take your turn (your hand)", style="primary", emoji="🔒"),))

    def private_menu(self, view: View, legal: Sequence[Action]) -> Menu:
        if not legal:
            return Menu(prompt="Nothing to decide right now.", choices=())
        return self.panel(view, legal, public=False).menu()

    def hand_menus(self, view: View, legal: Sequence[Action]) -> list[Menu]:
        if not legal:
            return []
        return self.panel(view, legal, public=False).rows()

    def submenu(self, prefix: str, view: Any, legal: Sequence[Action]) -> Menu | None:
        """The follow-up menu of a group entry (``prefix`` of its actions' codes)."""
        codes = _codes(legal)
        items = [(c, a) for c, a in codes.items() if c.startswith(prefix + ".")]
        if not items:
            return None
        depth = len(prefix.split("."))
        entries = grouped(items, view, depth)
        me = _seat_acting(view)
        title = _group_label(tuple(prefix.split(".")), [a for _c, a in items], view, me)
        few = len(entries) <= 5 and not any(e.description for e in entries)
        choices = tuple(Choice(e.code, _clip(e.label, 80 if few else 100),
                               style="primary" if few else "secondary",
                               description=e.description) for e in entries)
        return Menu(prompt=f"**{title.rstrip(' ›')}**: choose.", choices=choices,
                    as_select=not few, placeholder="Choose…")

    # -- clicks --------------------------------------------------------------------------

    def resolve(self, code: str, view: View, legal: Sequence[Action]) -> Resolution:
        v: Any = view
        if code == self.turn_code:
            return Resolution(menu=self.private_menu(view, legal))
        codes = _codes(legal)
        action = codes.get(code)
        if action is not None:
            return Resolution(action=action,
                              done_text=f"Done: {_clip(action_label(action, v), 150)}.")
        menu = self.submenu(code, v, legal)
        if menu is not None:
            return Resolution(menu=menu)
        raise UnknownChoice(self._refusal(code, v, legal))

    def _refusal(self, code: str, view: Any, legal: Sequence[Action]) -> str:
        if not legal:
            return "It is not your move right now."
        head = code.split(".")[0]
        step_of = {"i": "the Guest Impression", "g": "the gossips", "b": "Investing",
                   "r": "Reserving", "k": "Building", "end": "the end of the turn"}
        if head == "u":
            return "There is nothing to take back: a draw or a roll made the earlier steps final."
        if head in step_of:
            return (f"That choice is not open now ({step_of[head]}); the message with the "
                    "current choices is the newest one.")
        return "That choice is not available any more."

    # -- the hand message ------------------------------------------------------------------

    def hand_text(self, info: Any, view: View, legal: Sequence[Action],
                  news: Sequence[str], *, live: bool = True) -> str:
        return hand_text(info, view, legal, news, self.prompt(view, legal), live=live)

    def hand_picture_key(self, view: View) -> Any:
        """What render_hand draws: the seat's own decision, the draft, the Recipes and
        the seat's ingredients (not the table's prompt, which changes every step)."""
        v: Any = view
        mine = v.pending is not None and v.pending.seat == v.seat
        me = v.seats[v.seat] if v.seat is not None else None
        return [v.pending.prompt if mine else None,
                v.pending.model_dump(mode="json") if mine else None, v.phase,
                v.my_pack, v.my_kept, v.my_recipes,
                sorted(owned_ingredients(me).items()) if me is not None else None]

    def table_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return parse_table_options(options)

    def options_text(self, options: dict[str, Any]) -> str | None:
        return options_line(options)

    def option_suggestions(self, current: str) -> list[tuple[str, str]] | None:
        return option_suggestions(current)


# --------------------------------------------------------------------------- hand text


def hand_text(info: Any, view: Any, legal: Sequence[Action], news: Sequence[str],
              prompt: str, *, live: bool = True) -> str:
    """The words of a seat's hand message, from its OWN view only."""
    seat = view.seat
    name = next((s.name for s in info.seats if s.index == seat), f"Seat {seat + 1}")
    me = view.seats[seat]
    owned = owned_ingredients(me)
    lines = [f"**Crossroads Inn — {name}'s hand** (table in <#{info.channel_id}>) · "
             f"player {letter(seat)}"]
    gossips = ", ".join(f"{me.gossips.get(g, 0)} {GOSSIP_WORD[g]}" for g in GOSSIP_WORD)
    lines.append(f"Prestige {me.prestige} · Pouch {me.pouch} · Chest {me.chest}"
                 + (f" · Debts {me.debts}" if me.debts else "")
                 + f" · Revenue {me.revenue} · Gossips: {gossips}")
    pend = view.pending
    if pend is not None and pend.seat == seat and pend.kind in SECRET_KINDS and pend.options:
        word = "keep" if pend.kind == "keep_recipe" else "discard"
        lines.append(f"**Choose the Recipe to {word}:**")
        lines += [f"• **{recipe_name(r)}** — {recipe_text(r, owned)}" for r in pend.options]
    if view.my_pack and live:
        lines.append("**Your pack (pick one to keep):** " + "; ".join(
            f"**{tile_name(t)}** — {basic_text(t)}" for t in view.my_pack))
    elif view.my_pack:
        # A pack is passed on once a tile is kept: a record would soon show another
        # player's pack. It is on the panel, with the pick.
        lines.append("**Your pack:** on your panel (**Take your turn**) or with **Refresh**.")
    if view.my_kept:
        lines.append("**Basic Inn Tiles you hold (face down until the draft ends):** "
                     if view.phase == "draft" else "**Basic Inn Tiles to place:** ")
        lines[-1] += "; ".join(f"**{tile_name(t)}** — {basic_text(t)}" for t in view.my_kept)
    recipes = view.my_recipes or []
    if recipes:
        lines.append(f"**Your Recipes ({len(recipes)})** (each one not cooked: −2 Prestige "
                     "at the end):")
        lines += [f"• **{recipe_name(r)}** — {recipe_text(r, owned)}" for r in recipes]
    elif view.phase not in ("draft", "place_basics"):
        lines.append("**No Recipes in hand.**")
    if owned:
        lines.append("**Your ingredients:** " + ", ".join(
            f"{ingredient_name(i)} ×{n}" for i, n in sorted(owned.items())))
    if me.reserved:
        lines.append("**Reserved:** " + ", ".join(tile_name(t) for t in me.reserved))
    if news:
        lines.append("**Latest:** " + " ".join(news[-3:]))
    status = getattr(info, "status", None)
    if status is not None and status.value == "finished":
        lines.append(f"**The game is over.** {info.outcome_text or ''}")
    elif status is not None and status.value == "aborted":
        lines.append("**This table was closed.**")
    elif legal:
        lines.append(f"**Your move:** {prompt}")
    else:
        lines.append(waiting_line(live, info.version))
    return _clip("\n".join(lines), 2000)
