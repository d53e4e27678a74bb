"""Fairy Tale in My Pocket (game id ``pocket``): a solitaire or co-operative adventure.

One peasant (shared by 1 to 4 players, who take turns controlling it) explores a map of
area tiles to find the Rose Garden, wake the sleeping princess at the Cottage with the
rose, take the Forest Path into the Kingdom and reach the Castle before the sun sets (the
third pass through the ten development cards). Villains, good deeds, peddlers and events
come from the cards; every choice is an action of :meth:`Pocket.legal_actions`.

>>> game = Pocket()
>>> state = game.setup(1, PocketOptions(special="boots"), seed=3)
>>> state.health, state.gold, state.special, state.pawn, len(state.deck)
(6, 1, 'boots', 'lake', 7)
>>> game.legal_actions(state, 0)
[<Explore mirror=False>]
>>> events = game.apply(state, 0, Explore())
>>> events[0].text(lambda seat: "Ann")
'Ann explored and found the Rose Garden.'
>>> game.legal_actions(state, 0)
[<Place side='n'>, <Place side='e'>, <Place side='s'>, <Place side='w'>]
>>> events = game.apply(state, 0, Place(side="n"))
>>> state.pawn, game.view(state, None).pawn_y
('rose_garden', -1)
>>> view = game.view(state, None)
>>> view.decision.kind in ("villain", "good_deed", "peddler", "rest") and bool(view.decision.prompt)
True

Readings of the rulebook where it is silent or loose (the project's, named here):

* **The map.** Tiles keep their printed orientation (north up) on a square grid; a tile
  whose edge toward the tile it is attached to would be rose bushes is turned a quarter
  turn clockwise until it is not (the garden gate faces the visitor). Two tiles next to
  each other on the grid share a border, whichever was placed first: the border is rose
  bushes if either edge is, else dense trees if either edge is, else open. Rose-bush
  borders cannot be crossed; a new tile cannot be attached across the current tile's rose
  bushes.
* **Exploring.** The Forest stack is used, from Forest tiles, until the princess is awake
  and the Kingdom Path is on the map; then the Kingdom stack, from Kingdom tiles only (the
  Forest Path is the only entrance to the Kingdom). "Once you find it, attach the Kingdom
  Path to it": the moment the Forest Path is placed, the Kingdom Path is taken from the top
  of the Kingdom stack and attached to a free side of the Forest Path (the player picks the
  side). The Forest Path is therefore placed on a square with a free neighbour when one of
  the offered sides has one; if none has (a hole in the map), the Kingdom Path goes on the
  first free square next to a tile next to the Forest Path.
* **Returning.** "Return to a previous tile" goes to any tile on the map reachable through
  revealed tiles without crossing rose bushes; each dense-tree border passed on the way
  costs one card (the cheapest way is taken), none with the Candle.
* **Running away.** "Adjacent" means next to the current tile on the grid across a border
  that is not rose bushes (dense trees cost their card). The Seven-League Boots make any
  tile on the map adjacent, for 1 gold, with no border crossed. A runner pays the Boots
  first, then the robbers take their gold. Running away from the Cottage's or the
  Castle's second card ends the turn there (no instruction of the tile run into).
* **Boots and the Lamp's move** cross no border: no dense trees, no rose bushes. The
  Boots are offered only where walking is impossible or costs cards. A wish of the Lamp
  replaces the turn's card; the tile's instruction still applies at the end of the turn,
  except the Cottage's and the Castle's, which need a card resolved on the tile.
* **Fighting.** "If you have one or more items that can help you against that villain,
  you may choose whether or not you want to use them": every item is the player's choice
  wherever the choice changes something. The Wand (1 gold, once per fight) and one helping
  item: the Cloak (robbers, troll: evaded), the Bucket (witch: beaten), the Shield
  (dragon: no damage; used up unless coated), or the Lamp's wish in the item's place (the
  item kept for later). The Dagger and (against dragons) the Flame Repellant cost nothing
  and are not used up: they are used unless the player keeps them out (``Fight.spare``),
  which is offered only where it changes the fight's harm or the robbers' take (never
  for the better, so the Discord menu puts it behind one button). "Items may be used
  together", but not the Wand or a free item with a helping item, which wins alone (they
  would change nothing). The princess is not an item: awake, she always adds her 1. The
  fight offered first is the sensible default: the least harm, nothing stolen, then the
  least spent (no gold and no item used up when they are not needed, the Wand's gold
  before an item used up, never the Lamp's wish). Robbers
  whose strength is not below the Defense take ``rules.robbers_fight_steal`` gold (the
  project's: all of it) and the Magic Pouch, and still deal their damage. The knight (from
  an event or the Watchtower) fights the next villain drawn, whenever it comes, and cannot
  be saved for later: no damage, nothing stolen. A second knight before the first fought
  changes nothing.
* **Items.** The Elixir may be drunk at the start of a turn or at the rest, never during a
  fight. The Magic Lamp holds one wish, then is gone: a move, or one use of the Elixir, the
  Cloak, the Bucket or the plain Shield that leaves the item as it was (even an empty
  goblet or bucket works once more). The Flame Repellant may be put on the Shield at the
  start of a turn, at the rest, or when a fourth item comes. An empty goblet or bucket is
  still that item: no second one can be got while it is carried. The Magic Pouch keeps
  gold at 6: paying with it costs nothing; when it goes, gold starts from 6. The Messenger
  Bird's cards are picked one at a time (at least one); everyone then knows they are in the
  deck, not among the set-aside cards, until drawn or until Time Passes. The setup's
  "Attack (1)" is the Defense level.
* **The peddler.** The items offered are those on the discard pile (the peddler's own card
  included) that the peasant does not carry. A trade gives one or more carried items and
  the gold still missing (never more); items go first, so a traded Pouch leaves gold at 6
  minus the gold paid. A peddler with nothing that can be got is passed by.
* **Tile instructions** apply at the end of every turn on the tile, unless marked "only
  once" in the data. The Cave offers the item on the top card of the discard pile, if the
  peasant does not carry it (its once is used when the offer is made). The Market Square
  is a peddler. The Cottage asks for a second card when the rose is carried, the princess
  sleeps and this turn's card was resolved there; the Castle when the princess is awake.
* **Time.** A card drawn goes face up onto the discard pile. Time Passes reshuffles all
  ten cards (discard pile, the set-aside ones and the deck); a discard still owed is made
  from the new deck. When a card is needed at dusk and none is left, the sun has set.
* **Turns.** Resting is allowed once, after the tile's instruction, even at full health.
  When no exploring and no walking is possible, the peasant may stay (and draws a card on
  the tile). In a game of several players, control passes to the next seat after the rest.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

from engines.catalog import ConformanceCase, GameSpec, register
from engines.core import Action, Event, Game, IllegalAction, Outcome, Rng, Seat
from engines.pocket.content import (
    SIDE_NAMES,
    SIDES,
    SPECIAL_IDS,
    EventLine,
    GoodDeedLine,
    PeddlerLine,
    PocketContent,
    Tile,
    VillainLine,
    load_content,
)
from engines.pocket.state import (
    FREE_FIGHT_ITEMS,
    Back,
    CardView,
    ChoiceView,
    Coat,
    DecisionView,
    DefenseView,
    Drink,
    Drop,
    EdgesView,
    Explore,
    Fight,
    Find,
    Go,
    GoalsView,
    GoodDeed,
    Happened,
    Held,
    ItemView,
    Leave,
    LineView,
    Pay,
    PickTile,
    Place,
    Placed,
    PocketAction,
    PocketOptions,
    PocketState,
    PocketView,
    Rest,
    Run,
    Send,
    SendDone,
    Shop,
    Stay,
    TileView,
    Wish,
)

__all__ = ["SPEC", "Pocket", "label", "words"]

DELTA: dict[str, tuple[int, int]] = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}
OPPOSITE: dict[str, str] = {"n": "s", "e": "w", "s": "n", "w": "e"}
DISCARD_WHY: dict[str, str] = {
    "trees": "The dense trees slow you down",
    "deed": "Helping takes time",
    "rest": "Resting takes time",
    "fog": "Time slips away",
}


def content() -> PocketContent:
    return load_content()


# --------------------------------------------------------------------------- the map


def edge(p: Placed, side: str) -> str:
    """The edge of a placed tile facing ``side``, after its quarter turns clockwise.

    >>> edge(Placed(tile="rose_garden", x=0, y=0), "n"), edge(Placed(tile="rose_garden",
    ...     x=0, y=0, turns=1), "s")
    ('roses', 'roses')
    """
    printed = SIDES[(SIDES.index(side) - p.turns) % 4]  # type: ignore[arg-type]
    return content().tile(p.tile).edges[printed]


def _grid(state: PocketState) -> dict[tuple[int, int], Placed]:
    return {(p.x, p.y): p for p in state.placed}


def _placed(state: PocketState, tile: str) -> Placed:
    return next(p for p in state.placed if p.tile == tile)


def _on_map(state: PocketState, tile: str) -> bool:
    return any(p.tile == tile for p in state.placed)


def _border(a: Placed, b: Placed, side: str) -> str:
    """The border between ``a`` and ``b`` (``b`` lies on ``side`` of ``a``)."""
    ea, eb = edge(a, side), edge(b, OPPOSITE[side])
    if "roses" in (ea, eb):
        return "roses"
    if "trees" in (ea, eb):
        return "trees"
    return "open"


def neighbours(state: PocketState, tile: str) -> list[tuple[str, Placed, str]]:
    """``(side, neighbour, border)`` for every tile next to ``tile`` on the grid."""
    grid = _grid(state)
    p = _placed(state, tile)
    out = []
    for side in SIDES:
        dx, dy = DELTA[side]
        q = grid.get((p.x + dx, p.y + dy))
        if q is not None:
            out.append((side, q, _border(p, q, side)))
    return out


def _has(state: PocketState, item: str) -> bool:
    return any(h.item == item for h in state.items)


def _held(state: PocketState, item: str) -> Held | None:
    return next((h for h in state.items if h.item == item), None)


def _tree_cost(state: PocketState) -> int:
    return 0 if _has(state, "candle") else 1


def walk_costs(state: PocketState, start: str) -> dict[str, int]:
    """Every tile reachable from ``start`` through the map (rose bushes block), with the
    fewest dense-tree cards to pay on the way."""
    per_tree = _tree_cost(state)
    best = {start: 0}
    todo: deque[str] = deque([start])
    while todo:
        here = todo.popleft()
        for _, q, border in neighbours(state, here):
            if border == "roses":
                continue
            cost = best[here] + (per_tree if border == "trees" else 0)
            if cost < best.get(q.tile, 1 << 30):
                best[q.tile] = cost
                if cost == best[here]:
                    todo.appendleft(q.tile)
                else:
                    todo.append(q.tile)
    return best


def free_sides(state: PocketState, tile: str) -> list[str]:
    """Sides of ``tile`` a new tile may be attached to: an empty square, not across the
    tile's own rose bushes."""
    grid = _grid(state)
    p = _placed(state, tile)
    return [s for s in SIDES if (p.x + DELTA[s][0], p.y + DELTA[s][1]) not in grid
            and edge(p, s) != "roses"]


def _empty_around(state: PocketState, x: int, y: int) -> list[str]:
    grid = _grid(state)
    return [s for s in SIDES if (x + DELTA[s][0], y + DELTA[s][1]) not in grid]


# --------------------------------------------------------------------------- the game


class Pocket(Game[PocketState, Any]):
    """Fairy Tale in My Pocket (rules/fairy_tale_in_my_pocket.txt)."""

    id = "pocket"
    name = "Fairy Tale in My Pocket"
    min_players = 1
    max_players = 4
    cooperative = True
    has_secrets = True  # the deck order, the set-aside cards, the tile stacks
    Options = PocketOptions
    State = PocketState
    ViewType = PocketView
    ActionType = PocketAction

    # ------------------------------------------------------------------ setup

    def setup(self, players: int, options: Any, seed: int) -> PocketState:
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction(f"{self.name} is for 1 to 4 players.")
        opts = options if isinstance(options, PocketOptions) else self.parse_options(
            options.model_dump() if options is not None else None)
        assert isinstance(opts, PocketOptions)
        c = content()
        rng = Rng.from_seed(seed)
        start = c.role("start").id
        path = c.role("kingdom_path").id
        forest = c.stack_tiles("forest")
        rng.shuffle(forest)
        kingdom = [t for t in c.stack_tiles("kingdom") if t != path]
        rng.shuffle(kingdom)
        kingdom.insert(0, path)
        cards = [k.id for k in c.cards]
        rng.shuffle(cards)
        aside = c.rules.set_aside
        special = opts.special if opts.special != "random" else rng.choice(SPECIAL_IDS)
        return PocketState(
            players=players, seed=seed, rng=rng, special=special,
            health=c.rules.start_health, gold=c.rules.start_gold,
            deck=cards[aside:], set_aside=cards[:aside], forest=forest, kingdom=kingdom,
            placed=[Placed(tile=start, x=0, y=0)], pawn=start,
        )

    # ------------------------------------------------------------------ small rules

    def gold(self, state: PocketState) -> int:
        """The gold level (6 while the Magic Pouch is carried)."""
        return content().rules.max_gold if _has(state, "pouch") else state.gold

    def _set_gold(self, state: PocketState, value: int) -> None:
        state.gold = max(0, min(content().rules.max_gold, value))
        if _has(state, "pouch"):
            state.gold = content().rules.max_gold

    def _can_use_special(self, state: PocketState, special: str) -> bool:
        return state.special == special and self.gold(state) >= content().rules.special_cost

    def defense(self, state: PocketState, villain: str | None = None) -> int:
        """The Defense level against ``villain`` (without the Wand)."""
        r = content().rules
        total = r.start_defense
        total += r.dagger_defense if _has(state, "dagger") else 0
        total += r.princess_defense if state.princess else 0
        if villain == "dragon" and _has(state, "repellant"):
            total += r.repellant_defense
        return total

    def item_value(self, held: Held) -> int:
        """What an item is worth in a trade (an empty goblet or bucket: nothing)."""
        if held.empty:
            return 0
        if held.coated:
            return content().rules.coated_shield_value
        return content().item(held.item).price

    def explore_stack(self, state: PocketState) -> str | None:
        """The stack the peasant may explore from here, or None."""
        c = content()
        here = c.tile(state.pawn)
        open_kingdom = state.princess and _on_map(state, c.role("kingdom_path").id)
        stack = ("kingdom" if here.stack == "kingdom" else None) if open_kingdom else (
            "forest" if here.stack == "forest" else None)
        if stack is None or not getattr(state, stack) or not free_sides(state, state.pawn):
            return None
        return stack

    def place_sides(self, state: PocketState) -> list[str]:
        """The sides the tile in hand may be attached to (stage place / kingdom_path)."""
        c = content()
        if state.placing is None:
            return []
        if state.stage == "kingdom_path":
            fp = _placed(state, c.role("forest_path").id)
            return _empty_around(state, fp.x, fp.y)
        sides = free_sides(state, state.pawn)
        if c.tile(state.placing).role == "forest_path":
            here = _placed(state, state.pawn)
            roomy = []
            for s in sides:
                x, y = here.x + DELTA[s][0], here.y + DELTA[s][1]
                if [e for e in _empty_around(state, x, y) if e != OPPOSITE[s]]:
                    roomy.append(s)
            sides = roomy or sides
        return sides

    def current_line(self, state: PocketState) -> VillainLine | GoodDeedLine | PeddlerLine | \
            EventLine | None:
        if state.current_card is None:
            return None
        return content().card(state.current_card).lines[state.time]

    def shop_items(self, state: PocketState) -> list[str]:
        """Items the peddler offers that can be got now."""
        out: list[str] = []
        for card in state.discard:
            item = content().card(card).item
            if item not in out and not _has(state, item) and self.payments(state, item):
                out.append(item)
        return out

    def payments(self, state: PocketState, item: str) -> list[Pay]:
        """Every way to pay for ``item``: gold alone, or carried items plus the gold
        still missing."""
        price = content().item(item).price
        gold = self.gold(state)
        out: list[Pay] = []
        for n in range(len(state.items) + 1):
            for combo in itertools.combinations(state.items, n):
                need = max(0, price - sum(self.item_value(h) for h in combo))
                if need <= gold:
                    out.append(Pay(items=tuple(h.item for h in combo), gold=need))  # type: ignore[arg-type]
        return out

    # ------------------------------------------------------------------ legality

    def to_act(self, state: PocketState) -> list[Seat]:
        return [] if state.result is not None else [state.turn_seat]

    def legal_actions(self, state: PocketState, seat: Seat) -> list[Any]:
        if state.result is not None or seat != state.turn_seat:
            return []
        return self._legal(state)

    def move_actions(self, state: PocketState, costs: dict[str, int]) -> list[Action]:
        """The legal actions of the move stage, given the walking costs from the pawn
        (:func:`walk_costs`; a search passes the ones it remembers)."""
        acts: list[Action] = []
        stack = self.explore_stack(state)
        if stack is not None:
            acts.append(Explore())
            if self._can_use_special(state, "mirror") and len(getattr(state, stack)) >= 2:
                acts.append(Explore(mirror=True))
        walks = [Go(tile=p.tile) for p in state.placed
                 if p.tile != state.pawn and p.tile in costs]
        acts.extend(walks)
        if self._can_use_special(state, "boots"):
            acts.extend(Go(tile=p.tile, boots=True) for p in state.placed
                        if p.tile != state.pawn and costs.get(p.tile, 1) > 0)
        if _has(state, "lamp"):
            acts.extend(Wish(tile=p.tile) for p in state.placed if p.tile != state.pawn)
        if stack is None and not walks:
            acts.append(Stay())
        acts.extend(self._care(state))
        return acts

    def _legal(self, state: PocketState) -> list[Any]:
        c = content()
        stage = state.stage
        acts: list[Action] = []
        if stage == "move":
            acts = self.move_actions(state, walk_costs(state, state.pawn))
        elif stage == "mirror":
            acts = [PickTile(tile=t) for t in state.mirror_tiles]
        elif stage in ("place", "kingdom_path"):
            acts = [Place(side=s) for s in self.place_sides(state)]  # type: ignore[arg-type]
        elif stage == "villain":
            acts = self._fight_options(state) + self._run_options(state)
        elif stage == "good_deed":
            acts = [GoodDeed(help=True), GoodDeed(help=False)]
        elif stage == "peddler":
            acts = [Shop(item=i) for i in self.shop_items(state)]  # type: ignore[arg-type]
            acts.append(Leave())
        elif stage == "pay":
            assert state.shop_item is not None
            acts = [*self.payments(state, state.shop_item), Back()]
        elif stage == "drop":
            acts = [Drop(item=h.item) for h in state.items]  # type: ignore[arg-type]
            if self._can_coat(state):
                acts.append(Coat())
        elif stage == "bird":
            if len(state.bird_sent) < c.rules.bird_cards:
                acts = [Send(card=k) for k in state.discard if k not in state.bird_sent]
            if state.bird_sent:
                acts.append(SendDone())
        elif stage == "find":
            acts = [Find(take=True), Find(take=False)]
        elif stage == "rest":
            acts = [Rest(rest=True), Rest(rest=False), *self._care(state)]
        return acts

    def _can_coat(self, state: PocketState) -> bool:
        shield = _held(state, "shield")
        return shield is not None and not shield.coated and _has(state, "repellant")

    def _care(self, state: PocketState) -> list[Action]:
        """Drinking and coating, offered at the start of a turn and at the rest."""
        out: list[Action] = []
        elixir = _held(state, "elixir")
        if elixir is not None and state.health < content().rules.max_health:
            if not elixir.empty:
                out.append(Drink())
            if _has(state, "lamp"):
                out.append(Drink(lamp=True))
        if self._can_coat(state):
            out.append(Coat())
        return out

    def _villain(self, state: PocketState) -> VillainLine:
        line = self.current_line(state)
        assert isinstance(line, VillainLine)
        return line

    # -- fights: which items the player uses ------------------------------------

    def free_fight_items(self, state: PocketState) -> list[str]:
        """The items carried that add to the Defense against this villain at no cost and
        are not used up (the Dagger; the Flame Repellant against a dragon)."""
        villain = self._villain(state).villain
        return [k for k in FREE_FIGHT_ITEMS if _has(state, k)
                and (k != "repellant" or villain == "dragon")]

    def fight_defense(self, state: PocketState, fight: Fight) -> int:
        """The Defense in ``fight`` (one without a winning item): the level against this
        villain, less the items kept out, plus the Wand if used."""
        r = content().rules
        line = self._villain(state)
        worth = {"dagger": r.dagger_defense, "repellant": r.repellant_defense}
        kept = sum(worth[k] for k in fight.spare if k in self.free_fight_items(state))
        return self.defense(state, line.villain) - kept + (r.wand_defense if fight.wand else 0)

    def fight_result(self, state: PocketState, fight: Fight) -> tuple[int, bool]:
        """What ``fight`` costs in health, and whether the robbers take the gold (and
        the Pouch) in it. A winning item (``fight.item``) costs neither."""
        if fight.item is not None:
            return 0, False
        line = self._villain(state)
        defense = self.fight_defense(state, fight)
        return (max(0, line.strength - defense),
                line.villain == "robbers" and defense <= line.strength)

    def _fight_options(self, state: PocketState) -> list[Action]:
        """Every way to fight that changes something, the sensible default first
        (:meth:`_default_fight`): with or without the Wand (it costs gold), the helping
        item or not (it is used up, or kept for later), the Lamp's wish instead of the
        item, and keeping a free item out where that changes the fight (the rulebook:
        "you may choose whether or not you want to use them")."""
        line = self._villain(state)
        fights: list[Fight] = [Fight()]
        if self._can_use_special(state, "wand"):
            fights.append(Fight(wand=True))
        helper = content().villain(line.villain).helper
        held = _held(state, helper)
        if held is not None:
            if not held.empty:
                fights.append(Fight(item=helper))  # type: ignore[arg-type]
            if _has(state, "lamp") and not held.coated:
                fights.append(Fight(item=helper, lamp=True))  # type: ignore[arg-type]
        fights += self._sparing_fights(state, [f.wand for f in fights if f.item is None])
        first = self._default_fight(state, fights)
        return [first, *(f for f in fights if f != first)]

    def _sparing_fights(self, state: PocketState, wands: list[bool]) -> list[Fight]:
        """The fights that keep free items out, one per result not already reached with
        more of them (keeping out something that changes nothing is no choice)."""
        free = self.free_fight_items(state)
        out: list[Fight] = []
        for wand in wands:
            seen = {self.fight_result(state, Fight(wand=wand))}
            for n in range(1, len(free) + 1):
                for spare in itertools.combinations(free, n):
                    fight = Fight(wand=wand, spare=spare)  # type: ignore[arg-type]
                    result = self.fight_result(state, fight)
                    if result not in seen:
                        seen.add(result)
                        out.append(fight)
        return out

    def _default_fight(self, state: PocketState, fights: list[Fight]) -> Fight:
        """The fight offered first: the best result (least harm, nothing stolen) for the
        least spent, every free item used: no gold and no item used up when they are
        not needed; then the Wand's gold before an item that is used up; the Lamp's
        wish is never spent unasked."""
        something = self.gold(state) > 0 or _has(state, "pouch")

        def cost(f: Fight) -> tuple[int, bool, int, int]:
            hurt, robbed = self.fight_result(state, f)
            held = _held(state, f.item) if f.item is not None else None
            used_up = held is not None and not held.coated
            return hurt, robbed and something, int(used_up) + int(f.wand), len(f.spare)

        return min((f for f in fights if not f.lamp), key=cost)

    def _run_options(self, state: PocketState) -> list[Action]:
        near = {q.tile: border for _, q, border in neighbours(state, state.pawn)
                if border != "roses"}
        out: list[Action] = [Run(tile=t) for t in near]
        if self._can_use_special(state, "boots"):
            free = {t for t, b in near.items() if b == "open" or _has(state, "candle")}
            out.extend(Run(tile=p.tile, boots=True) for p in state.placed
                       if p.tile != state.pawn and p.tile not in free)
        return out

    def explain_illegal(self, state: PocketState, seat: Seat, action: Any) -> str:
        c = content()
        kind = getattr(action, "kind", None)
        wanted = {
            "move": {"explore", "go", "wish", "stay", "drink", "coat"},
            "mirror": {"pick_tile"}, "place": {"place"}, "kingdom_path": {"place"},
            "villain": {"fight", "run"}, "good_deed": {"good_deed"},
            "peddler": {"shop", "leave"}, "pay": {"pay", "back"}, "drop": {"drop", "coat"},
            "bird": {"send", "send_done"}, "find": {"find"},
            "rest": {"rest", "drink", "coat"},
        }.get(state.stage, set())
        if kind not in wanted:
            return f"Not now. {self._prompt(state)}"
        tile = getattr(action, "tile", None)
        if tile is not None and kind in ("go", "wish", "run") and not _on_map(state, tile):
            return "That place is not on the map yet."
        if tile == state.pawn and kind in ("go", "wish", "run"):
            return "You are already there."
        for flag, special in (("mirror", "mirror"), ("wand", "wand"), ("boots", "boots")):
            if getattr(action, flag, False) and state.special != special:
                return f"You don't have the {c.special(special).name}."
        if (getattr(action, "boots", False) or getattr(action, "wand", False)
                or getattr(action, "mirror", False)) and self.gold(state) < c.rules.special_cost:
            return "You need 1 gold for that."
        if getattr(action, "lamp", False) and not _has(state, "lamp"):
            return "You don't have the Magic Lamp."
        if kind == "explore":
            return self._why_no_explore(state)
        if kind == "go":
            if action.boots and tile in walk_costs(state, state.pawn):
                return "You can walk there without losing time: the Boots are not needed."
            return "You can't walk there from here: rose bushes are in the way."
        if kind == "wish":
            return "You don't have the Magic Lamp."
        if kind == "stay":
            return "You can still go somewhere, so you can't stay."
        if kind == "run":
            if action.boots:
                return "You can run there on foot: the Boots are not needed."
            return "You can only run to a place right next to this one (not through rose " \
                   "bushes)."
        if kind == "fight":
            return self._why_no_fight(state, action)
        if kind == "drink":
            elixir = _held(state, "elixir")
            if elixir is None:
                return "You don't have the Elixir of Life."
            if state.health >= c.rules.max_health:
                return "Your health is already full."
            return "The goblet is empty: rest at the Fountain of Youth to fill it."
        if kind == "place":
            return "A tile can't go on that side: the square is taken or blocked."
        if kind == "pay":
            return self._why_no_pay(state, action)
        if kind == "shop":
            item = c.item(action.item)
            if _has(state, action.item):
                return f"You already have the {item.name}: only one of each."
            if action.item in {c.card(k).item for k in state.discard}:
                return f"You can't pay for the {item.name} ({item.price} gold)."
            return "The peddler doesn't have that item for you."
        if kind == "coat":
            return "You need both the Shield and the Flame Repellant for that."
        if kind == "drop":
            return "You don't have that item."
        if kind == "send":
            return "That card is not in the discard pile (or already chosen)."
        return "That move is not allowed right now."

    def _why_no_explore(self, state: PocketState) -> str:
        c = content()
        path = _on_map(state, c.role("kingdom_path").id)
        here = c.tile(state.pawn).stack
        if here == "kingdom" and not state.princess:
            return "The Kingdom waits: wake the princess first."
        if here == "forest" and state.princess and path:
            return "The forest is explored: go on to the Kingdom through the Kingdom Path."
        stack = self.explore_stack(state)
        if stack is None:
            return "You can't explore from here: there is no free side, or no tile left."
        return "The Mirror needs two tiles in the stack."

    def _why_no_fight(self, state: PocketState, action: Fight) -> str:
        c = content()
        line = self._villain(state)
        if action.spare:
            return self._why_no_sparing(state, action)
        if action.item is None:
            return "Say which item the Lamp's wish uses again."
        item = c.item(action.item)
        if c.villain(line.villain).helper != action.item:
            return f"The {item.name} doesn't help against the " \
                   f"{c.villain(line.villain).name.lower()}."
        held = _held(state, action.item)
        if held is None:
            return f"You don't have the {item.name}."
        if action.wand:
            return f"The {item.name} wins the fight alone: the Wand is not needed."
        if held.coated:
            return "The Shield with Repellant stops every dragon: no wish needed."
        return f"The {item.name} is used up ({item.empty_name}): only the Lamp's wish " \
               "could use it again."

    def _why_no_sparing(self, state: PocketState, action: Fight) -> str:
        """Why keeping ``action.spare`` out of the fight is not a choice now."""
        c = content()
        villain = c.villain(self._villain(state).villain).name.lower()
        for k in action.spare:
            name = c.item(k).name
            if k not in FREE_FIGHT_ITEMS:
                return (f"Only the Dagger and the Flame Repellant can be kept out of a fight; "
                        f"the {name} is used only when you choose it.")
            if not _has(state, k):
                return f"You don't have the {name}."
            if k not in self.free_fight_items(state):
                return f"The {name} doesn't help against the {villain}: nothing to keep out."
        if len(set(action.spare)) != len(action.spare):
            return "Name each item kept out once."
        if action.item is not None:
            return (f"The {c.item(action.item).name} wins the fight alone: nothing else is "
                    "used.")
        order = [k for k in FREE_FIGHT_ITEMS if k in action.spare]
        if list(action.spare) != order:
            return f"Name the items kept out in this order: {', '.join(order)}."
        return ("Keeping that out changes nothing in this fight: fight with it (the same "
                "fight is already a choice).")

    def _why_no_pay(self, state: PocketState, pay: Pay) -> str:
        c = content()
        for given in pay.items:
            if not _has(state, given):
                return f"You don't have the {c.item(given).name}."
        if len(set(pay.items)) != len(pay.items):
            return "Each thing can be given only once."
        gold = self.gold(state)
        if pay.gold > gold:
            return f"You have only {gold} gold."
        item = c.item(state.shop_item or "elixir")
        value = sum(self.item_value(h) for h in state.items if h.item in pay.items)
        if value + pay.gold < item.price:
            return f"That is worth {value + pay.gold} gold; the {item.name} costs " \
                   f"{item.price}."
        need = max(0, item.price - value)
        same = [p for p in self.payments(state, item.id)
                if sorted(p.items) == sorted(pay.items) and p.gold == pay.gold]
        if same:
            return "Name the things in the order you carry them: " \
                   f"{', '.join(same[0].items)}."
        if not pay.items:
            return f"The {item.name} costs {item.price} gold: pay just that."
        return f"With those things, pay only the gold still missing: {need}."

    # ------------------------------------------------------------------ applying

    def _apply(self, state: PocketState, seat: Seat, action: Any) -> list[Event]:
        ev: list[Event] = []
        c = content()
        if isinstance(action, Explore):
            self._explore(state, action.mirror, ev)
        elif isinstance(action, Go):
            self._go(state, action, ev)
        elif isinstance(action, Wish):
            self._remove(state, "lamp")
            state.pawn = action.tile
            self._say(state, ev, "wished", "{who} made a wish on the Magic Lamp and flew to "
                      f"the {c.tile(action.tile).name}.", tile=action.tile)
            state.card_tile = None
            self._tile_step(state, ev)
        elif isinstance(action, Stay):
            self._say(state, ev, "stayed", "{who} stays at the "
                      f"{c.tile(state.pawn).name} for a while.")
            self._arrive(state, 0, ev)
        elif isinstance(action, Drink):
            self._drink(state, action.lamp, ev)
        elif isinstance(action, Coat):
            self._coat(state, ev)
            if state.stage == "drop" and len(state.items) <= c.rules.item_limit:
                self._resume(state, ev)
        elif isinstance(action, PickTile):
            self._mirror_pick(state, action.tile, ev)
        elif isinstance(action, Place):
            if state.stage == "kingdom_path":
                self._place_kingdom_path(state, action.side, ev)
            else:
                self._place(state, action.side, ev)
        elif isinstance(action, Fight):
            self._fight(state, action, ev)
        elif isinstance(action, Run):
            self._run(state, action, ev)
        elif isinstance(action, GoodDeed):
            self._good_deed(state, action.help, ev)
        elif isinstance(action, Shop):
            state.shop_item = action.item
            state.stage = "pay"
        elif isinstance(action, Back):
            state.shop_item = None
            state.stage = "peddler"
        elif isinstance(action, Leave):
            self._say(state, ev, "bought", "{who} waved goodbye to the peddler.", item=None)
            self._close_shop(state)
            self._resume(state, ev)
        elif isinstance(action, Pay):
            self._pay(state, action, ev)
        elif isinstance(action, Drop):
            self._remove(state, action.item)
            self._say(state, ev, "dropped", "{who} dropped the "
                      f"{c.item(action.item).name}.", item=action.item)
            self._resume(state, ev)
        elif isinstance(action, Send):
            state.bird_sent.append(action.card)
            if len(state.bird_sent) >= c.rules.bird_cards or \
                    len(state.bird_sent) >= len(state.discard):
                self._send_bird(state, ev)
        elif isinstance(action, SendDone):
            self._send_bird(state, ev)
        elif isinstance(action, Find):
            item = state.find_item
            assert item is not None
            state.find_item = None
            if action.take:
                self._say(state, ev, "found", "{who} took the "
                          f"{c.item(item).name} from the cave.", item=item)
                self._gain(state, item, ev)
            else:
                self._say(state, ev, "found", "{who} left the "
                          f"{c.item(item).name} in the cave.", item=None)
                self._tile_done(state, ev)
        elif isinstance(action, Rest):
            self._rest(state, action.rest, ev)
        return ev

    # -- telling -------------------------------------------------------------

    def _say(self, state: PocketState, ev: list[Event], kind: str, words: str,
             **data: Any) -> None:
        ev.append(Happened(kind=kind, seat=state.turn_seat, words=words,  # type: ignore[arg-type]
                           data=data))

    def _end(self, state: PocketState, result: str, reason: str, ev: list[Event]) -> None:
        state.result = result  # type: ignore[assignment]
        state.reason = reason
        state.phase = "over"
        state.stage = "over"
        self._say(state, ev, "won" if result == "won" else "lost", reason)

    # -- cards and time -------------------------------------------------------

    def _take_card(self, state: PocketState, ev: list[Event]) -> str | None:
        """The top card, face up onto the discard pile; Time Passes first if none is
        left. None: the sun has set (the game is lost)."""
        if not state.deck and not self._time_passes(state, ev):
            return None
        card = state.deck.pop(0)
        state.discard.append(card)
        if card in state.known_in_deck:
            state.known_in_deck.remove(card)
        return card

    def _time_passes(self, state: PocketState, ev: list[Event]) -> bool:
        c = content()
        if state.time + 1 >= len(c.times):
            self._end(state, "lost", "The sun has set before the prince and princess "
                      "were together. The wedding goes on... The game is lost.", ev)
            return False
        state.time += 1
        pool = state.discard + state.set_aside + state.deck
        state.rng.shuffle(pool)
        k = c.rules.set_aside
        state.set_aside, state.deck, state.discard = pool[:k], pool[k:], []
        state.known_in_deck = []
        self._say(state, ev, "time_passes", f"Time passes! {c.times[state.time].words} "
                  "The cards are shuffled and three are set aside again.", time=state.time)
        return True

    def _discard(self, state: PocketState, n: int, ev: list[Event], why: str) -> bool:
        """Discard ``n`` cards without resolving them; False if the game was lost."""
        for _ in range(n):
            card = self._take_card(state, ev)
            if card is None:
                return False
            c = content()
            name = c.item(c.card(card).item).name
            self._say(state, ev, "trees" if why == "trees" else "card",
                      f"{DISCARD_WHY[why]}: the {name} card is discarded.", card=card, why=why)
        return True

    # -- moving ---------------------------------------------------------------

    def _explore(self, state: PocketState, mirror: bool, ev: list[Event]) -> None:
        stack_name = self.explore_stack(state)
        assert stack_name is not None
        stack: list[str] = getattr(state, stack_name)
        c = content()
        if mirror:
            self._spend(state, c.rules.special_cost)
            state.mirror_tiles = [stack.pop(0), stack.pop(0)]
            self._clip_known(state, stack_name)
            names = " and the ".join(c.tile(t).name for t in state.mirror_tiles)
            self._say(state, ev, "explored", f"{{who}} looked in the Magic Mirror: the {names}.",
                      tiles=list(state.mirror_tiles))
            state.stage = "mirror"
            return
        tile = stack.pop(0)
        self._clip_known(state, stack_name)
        self._say(state, ev, "explored", f"{{who}} explored and found the {c.tile(tile).name}.",
                  tile=tile)
        self._begin_place(state, tile, ev)

    def _clip_known(self, state: PocketState, stack_name: str) -> None:
        state.known_bottom[stack_name] = min(state.known_bottom[stack_name],
                                             len(getattr(state, stack_name)))

    def _mirror_pick(self, state: PocketState, tile: str, ev: list[Event]) -> None:
        c = content()
        other = next(t for t in state.mirror_tiles if t != tile)
        stack_name = c.tile(other).stack
        getattr(state, stack_name).append(other)
        state.known_bottom[stack_name] += 1
        state.mirror_tiles = []
        self._say(state, ev, "explored", f"{{who}} chose the {c.tile(tile).name}; the "
                  f"{c.tile(other).name} goes to the bottom of the pile.", tile=tile,
                  bottom=other)
        self._begin_place(state, tile, ev)

    def _begin_place(self, state: PocketState, tile: str, ev: list[Event]) -> None:
        state.placing = tile
        state.stage = "place"
        sides = self.place_sides(state)
        if len(sides) == 1:
            self._place(state, sides[0], ev)

    def attached(self, state: PocketState, side: str) -> Placed:
        """Where the tile in hand would lie if attached on ``side`` of the current tile
        (turned so that no rose bushes face the current tile)."""
        assert state.placing is not None
        here = _placed(state, state.pawn)
        new = Placed(tile=state.placing, x=here.x + DELTA[side][0], y=here.y + DELTA[side][1])
        while edge(new, OPPOSITE[side]) == "roses":
            new.turns += 1
        return new

    def _place(self, state: PocketState, side: str, ev: list[Event]) -> None:
        c = content()
        tile = state.placing
        assert tile is not None
        here = _placed(state, state.pawn)
        new = self.attached(state, side)
        state.placed.append(new)
        state.placing = None
        border = _border(here, new, side)
        state.pawn = tile
        self._say(state, ev, "placed", f"{{who}} put the {c.tile(tile).name} to the "
                  f"{SIDE_NAMES[side]} and walked in.", tile=tile, x=new.x, y=new.y,
                  turns=new.turns)
        toll = _tree_cost(state) if border == "trees" else 0
        if c.tile(tile).role == "forest_path":
            self._say(state, ev, "kingdom_path", "The Forest Path! The Kingdom Path begins "
                      "here.")
            state.toll = toll
            state.placing = state.kingdom.pop(0)
            self._clip_known(state, "kingdom")
            state.stage = "kingdom_path"
            sides = self.place_sides(state)
            if len(sides) == 1:
                self._place_kingdom_path(state, sides[0], ev)
            elif not sides:
                self._place_kingdom_path(state, None, ev)
            return
        self._arrive(state, toll, ev)

    def _place_kingdom_path(self, state: PocketState, side: str | None,
                            ev: list[Event]) -> None:
        c = content()
        tile = state.placing
        assert tile is not None
        fp = _placed(state, c.role("forest_path").id)
        if side is not None:
            x, y = fp.x + DELTA[side][0], fp.y + DELTA[side][1]
        else:  # a hole in the map: the first free square next to a neighbour
            near = [q for _, q, _ in neighbours(state, fp.tile)] + state.placed
            x, y = next((q.x + DELTA[s][0], q.y + DELTA[s][1]) for q in near
                        for s in _empty_around(state, q.x, q.y))
        state.placed.append(Placed(tile=tile, x=x, y=y))
        state.placing = None
        where = f" to the {SIDE_NAMES[side]} of the Forest Path" if side else ""
        self._say(state, ev, "placed", f"{{who}} put the {c.tile(tile).name}{where}.",
                  tile=tile, x=x, y=y, turns=0)
        toll, state.toll = state.toll, 0
        self._arrive(state, toll, ev)

    def _go(self, state: PocketState, action: Go, ev: list[Event]) -> None:
        c = content()
        if action.boots:
            self._spend(state, c.rules.special_cost)
            toll = 0
            how = "put on the Seven-League Boots and strode"
        else:
            toll = walk_costs(state, state.pawn)[action.tile]
            how = "walked back"
        state.pawn = action.tile
        self._say(state, ev, "moved", f"{{who}} {how} to the {c.tile(action.tile).name}.",
                  tile=action.tile, boots=action.boots)
        self._arrive(state, toll, ev)

    def _arrive(self, state: PocketState, toll: int, ev: list[Event]) -> None:
        """Pay the dense trees, then draw the turn's card on the new tile."""
        if toll and not self._discard(state, toll, ev, "trees"):
            return
        state.phase = "card"
        state.card_tile = state.pawn
        self._resolve_card(state, ev)

    # -- resolving a card -----------------------------------------------------

    def _resolve_card(self, state: PocketState, ev: list[Event]) -> None:
        c = content()
        card = self._take_card(state, ev)
        if card is None:
            return
        state.current_card = card
        line = c.card(card).lines[state.time]
        self._say(state, ev, "card", line.text, card=card, line=line.kind, time=state.time)
        if isinstance(line, VillainLine):
            if state.knight:
                state.knight = False
                self._say(state, ev, "knight", "The knight fights the "
                          f"{c.villain(line.villain).name.lower()} and wins! Nothing is lost.",
                          villain=line.villain)
                self._resume(state, ev)
            else:
                state.stage = "villain"
        elif isinstance(line, GoodDeedLine):
            state.stage = "good_deed"
        elif isinstance(line, PeddlerLine):
            self._open_shop(state, "card", ev)
        else:
            self._event(state, line, ev)

    def _event(self, state: PocketState, line: EventLine, ev: list[Event]) -> None:
        effect = line.effect
        if effect.kind == "knight":
            state.knight = True
        elif effect.kind == "health":
            if effect.amount >= 0:
                self._heal(state, effect.amount)
            elif not self._hurt(state, -effect.amount, ev, "an event"):
                return
        elif effect.kind == "gold":
            self._set_gold(state, state.gold + effect.amount)
        elif effect.kind == "discard" and not self._discard(state, effect.amount, ev,
                                                              "fog"):
            return
        self._resume(state, ev)

    def _resume(self, state: PocketState, ev: list[Event]) -> None:
        """Go on with the turn once a card (or a tile's peddler or find) is done."""
        if state.result is not None:
            return
        if state.phase == "card":
            self._tile_step(state, ev)
        elif state.phase == "second":
            self._second_done(state, ev)
        elif state.phase == "tile":
            self._tile_done(state, ev)

    def _hurt(self, state: PocketState, n: int, ev: list[Event], why: str) -> bool:
        if n <= 0:
            return True
        state.health = max(0, state.health - n)
        self._say(state, ev, "health", f"-{n} health ({why}): {state.health} left.",
                  change=-n, health=state.health)
        if state.health == 0:
            self._end(state, "lost", "The peasant is too hurt to go on. The game is lost.",
                      ev)
            return False
        return True

    def _heal(self, state: PocketState, n: int) -> None:
        state.health = min(content().rules.max_health, state.health + n)

    def _spend(self, state: PocketState, n: int) -> None:
        self._set_gold(state, state.gold - n)

    def _remove(self, state: PocketState, item: str) -> None:
        if item == "pouch" and _has(state, "pouch"):
            state.gold = content().rules.max_gold  # gold goes on from 6
        state.items = [h for h in state.items if h.item != item]

    def _fight(self, state: PocketState, action: Fight, ev: list[Event]) -> None:
        c = content()
        r = c.rules
        line = self._villain(state)
        name = c.villain(line.villain).name.lower()
        state.stage = "busy"  # no decision open while the fight resolves
        if action.wand:
            self._spend(state, r.special_cost)
        if action.item is not None:
            held = _held(state, action.item)
            assert held is not None
            if action.lamp:
                self._remove(state, "lamp")
            elif action.item == "bucket":
                held.empty = True
            elif action.item in ("cloak", "shield") and not held.coated:
                self._remove(state, action.item)
            what = {"cloak": f"hid under the Cloak and the {name} went by",
                    "bucket": f"threw the water and the {name} melted away",
                    "shield": f"held up the Shield against the {name}'s fire"}[action.item]
            lamp = " (the Lamp's wish)" if action.lamp else ""
            self._say(state, ev, "fought", f"{{who}} {what}{lamp}. No harm done!",
                      villain=line.villain, item=action.item, damage=0)
            self._resume(state, ev)
            return
        defense = self.fight_defense(state, action)
        damage, robbed = self.fight_result(state, action)
        wand = " with the Wand" if action.wand else ""
        kept = (", without the " + " and the ".join(c.item(k).name for k in action.spare)
                if action.spare else "")
        self._say(state, ev, "fought", f"{{who}} fought the {name}{wand}{kept}: Defense "
                  f"{defense} against strength {line.strength}.", villain=line.villain,
                  defense=defense, strength=line.strength, damage=damage,
                  spare=list(action.spare))
        if robbed:
            self._rob(state, r.robbers_fight_steal, ev)
        if self._hurt(state, damage, ev, f"the {name}"):
            self._resume(state, ev)

    def _rob(self, state: PocketState, amount: int | str, ev: list[Event]) -> None:
        had_pouch = _has(state, "pouch")
        self._remove(state, "pouch")
        before = state.gold
        self._set_gold(state, 0 if amount == "all" else state.gold - int(amount))
        taken = before - state.gold
        pouch = " and the Magic Pouch" if had_pouch else ""
        words = (f"The robbers took {taken} gold{pouch}." if taken or had_pouch
                 else "The robbers found no gold to take.")
        self._say(state, ev, "stolen", words, gold=taken, pouch=had_pouch)

    def _run(self, state: PocketState, action: Run, ev: list[Event]) -> None:
        c = content()
        r = c.rules
        line = self._villain(state)
        state.stage = "busy"
        toll = 0
        if action.boots:
            self._spend(state, r.special_cost)
        else:
            border = next(b for _, q, b in neighbours(state, state.pawn) if q.tile == action.tile)
            toll = _tree_cost(state) if border == "trees" else 0
        state.pawn = action.tile
        self._say(state, ev, "ran", f"{{who}} ran away from the "
                  f"{c.villain(line.villain).name.lower()} to the {c.tile(action.tile).name}.",
                  tile=action.tile, boots=action.boots)
        if line.villain == "robbers":
            self._rob(state, r.run_robbers_gold, ev)
        if not self._hurt(state, r.run_health, ev, "running away"):
            return
        if toll and not self._discard(state, toll, ev, "trees"):
            return
        self._resume(state, ev)

    def _good_deed(self, state: PocketState, help_: bool, ev: list[Event]) -> None:
        line = self.current_line(state)
        assert isinstance(line, GoodDeedLine)
        state.stage = "busy"
        if help_:
            self._set_gold(state, state.gold + line.gold)
            self._say(state, ev, "good_deed", f"{{who}} helped: +{line.gold} gold. It took "
                      "some time.", gold=line.gold, helped=True)
            if not self._discard(state, 1, ev, "deed"):
                return
        else:
            self._say(state, ev, "good_deed", "{who} hurried on.", gold=0, helped=False)
        self._resume(state, ev)

    # -- the peddler, items ----------------------------------------------------

    def _open_shop(self, state: PocketState, source: str, ev: list[Event]) -> None:
        state.shop_source = source  # type: ignore[assignment]
        if not self.shop_items(state):
            self._say(state, ev, "bought", "The peddler has nothing you can get today.",
                      item=None)
            self._close_shop(state)
            self._resume(state, ev)
            return
        state.stage = "peddler"

    def _close_shop(self, state: PocketState) -> None:
        state.shop_item = None
        state.shop_source = None

    def _pay(self, state: PocketState, pay: Pay, ev: list[Event]) -> None:
        c = content()
        item = state.shop_item
        assert item is not None
        for given in pay.items:
            self._remove(state, given)
        self._spend(state, pay.gold)
        self._close_shop(state)
        parts = [c.item(g).name for g in pay.items] + ([f"{pay.gold} gold"] if pay.gold else [])
        how = "traded " + " and ".join(parts) if pay.items else f"paid {pay.gold} gold"
        self._say(state, ev, "bought", f"{{who}} {how} for the {c.item(item).name}.",
                  item=item, gave=list(pay.items), gold=pay.gold)
        self._gain(state, item, ev)

    def _gain(self, state: PocketState, item: str, ev: list[Event]) -> None:
        if item == "bird":
            state.stage = "bird"
            state.bird_sent = []
            return
        state.items.append(Held(item=item))
        if item == "pouch":
            self._set_gold(state, state.gold)
        if len(state.items) > content().rules.item_limit:
            state.stage = "drop"
            return
        self._resume(state, ev)

    def _send_bird(self, state: PocketState, ev: list[Event]) -> None:
        c = content()
        sent = list(state.bird_sent)
        for card in sent:
            state.discard.remove(card)
        state.deck.extend(sent)
        state.rng.shuffle(state.deck)
        state.known_in_deck.extend(sent)
        state.bird_sent = []
        names = " and ".join(f"the {c.item(c.card(k).item).name} card" for k in sent)
        self._say(state, ev, "bird", "The Messenger Bird flew to the king: the wedding "
                  f"waits! {names} went back into the deck.", cards=sent)
        self._resume(state, ev)

    def _drink(self, state: PocketState, lamp: bool, ev: list[Event]) -> None:
        elixir = _held(state, "elixir")
        assert elixir is not None
        if lamp:
            self._remove(state, "lamp")
        else:
            elixir.empty = True
        self._heal(state, content().rules.elixir_health)
        how = "wished the goblet full and drank" if lamp else "drank the Elixir of Life"
        self._say(state, ev, "item_used", f"{{who}} {how}: health {state.health}.",
                  item="elixir", lamp=lamp)

    def _coat(self, state: PocketState, ev: list[Event]) -> None:
        shield = _held(state, "shield")
        assert shield is not None
        shield.coated = True
        self._remove(state, "repellant")
        self._say(state, ev, "item_used", "{who} put the Flame Repellant on the Shield: now "
                  "it stops every dragon.", item="repellant")

    # -- the tile --------------------------------------------------------------

    def _tile_step(self, state: PocketState, ev: list[Event]) -> None:
        c = content()
        state.phase = "tile"
        state.stage = "busy"
        tile = c.tile(state.pawn)
        ins = tile.instruction
        if ins.once and tile.id in state.used_once:
            self._tile_done(state, ev)
            return
        kind = ins.kind
        if kind in ("gold", "health", "knight") and ins.once:
            state.used_once.append(tile.id)
        if kind == "gold":
            self._set_gold(state, state.gold + ins.amount)
            self._say(state, ev, "tile", f"{tile.name}: {ins.text}", tile=tile.id)
        elif kind == "health":
            self._say(state, ev, "tile", f"{tile.name}: {ins.text}", tile=tile.id)
            if ins.amount >= 0:
                self._heal(state, ins.amount)
            elif not self._hurt(state, -ins.amount, ev, tile.name):
                return
        elif kind == "knight":
            state.knight = True
            self._say(state, ev, "tile", f"{tile.name}: {ins.text}", tile=tile.id)
        elif kind == "rose" and not state.rose:
            state.rose = True
            self._say(state, ev, "rose", "{who} picked a red rose for the princess!")
        elif self._needs_second_card(state, tile):
            self._second_card(state, tile, ev)
            return
        elif kind == "find_item":
            item = c.card(state.discard[-1]).item if state.discard else None
            if item is not None and not _has(state, item):
                state.used_once.append(tile.id)
                state.find_item = item
                state.stage = "find"
                self._say(state, ev, "tile", f"{tile.name}: you find the "
                          f"{c.item(item).name}!", tile=tile.id, item=item)
                return
        elif kind == "peddler":
            self._say(state, ev, "tile", f"{tile.name}: {ins.text}", tile=tile.id)
            self._open_shop(state, "tile", ev)
            return
        self._tile_done(state, ev)

    def _needs_second_card(self, state: PocketState, tile: Tile) -> bool:
        """The Cottage (rose carried, princess asleep) or the Castle (princess awake),
        when this turn's card was resolved on the tile."""
        if state.card_tile != tile.id:
            return False
        kind = tile.instruction.kind
        return (kind == "wake" and state.rose and not state.princess) or (
            kind == "reunite" and state.princess)

    def _second_card(self, state: PocketState, tile: Tile, ev: list[Event]) -> None:
        state.phase = "second"
        who = "the princess" if tile.instruction.kind == "wake" else "the prince"
        self._say(state, ev, "tile", f"{tile.name}: {{who}} stays with {who} for one more "
                  "card...", tile=tile.id)
        self._resolve_card(state, ev)

    def _second_done(self, state: PocketState, ev: list[Event]) -> None:
        c = content()
        tile = c.tile(state.card_tile) if state.card_tile else None
        if tile is not None and state.pawn == tile.id:
            if tile.instruction.kind == "wake":
                state.princess = True
                self._say(state, ev, "princess", "The princess wakes up! She comes along "
                          "and helps you fight (+1 Defense).")
            elif tile.instruction.kind == "reunite":
                self._end(state, "won", "The prince and princess are together again! The "
                          "kingdom is saved and everyone lives happily ever after.", ev)
                return
        self._tile_done(state, ev)

    def _tile_done(self, state: PocketState, ev: list[Event]) -> None:
        state.phase = "rest"
        state.stage = "rest"

    def _rest(self, state: PocketState, rest: bool, ev: list[Event]) -> None:
        c = content()
        if rest:
            tile = c.tile(state.pawn)
            self._heal(state, c.rules.rest_health)
            refill = tile.rest_refill
            held = _held(state, refill) if refill else None
            refilled = ""
            if held is not None and held.empty:
                held.empty = False
                refilled = f" and refilled the {c.item(held.item).name}"
            self._say(state, ev, "rested", f"{{who}} rested{refilled}: health {state.health}.",
                      health=state.health, refilled=held.item if refilled and held else None)
            if not self._discard(state, 1, ev, "rest"):
                return
        self._next_turn(state, ev)

    def _next_turn(self, state: PocketState, ev: list[Event]) -> None:
        state.turn_seat = (state.turn_seat + 1) % state.players
        state.turn += 1
        state.phase = "move"
        state.stage = "move"
        state.card_tile = None
        state.current_card = None
        if state.players > 1:
            self._say(state, ev, "turn", "{who} leads the peasant now.")

    # ------------------------------------------------------------------ the end

    def outcome(self, state: PocketState) -> Outcome | None:
        if state.result is None:
            return None
        won = state.result == "won"
        seats = list(range(state.players))
        return Outcome(winners=seats if won else [], scores={s: int(won) for s in seats},
                       reason=state.reason)

    # ------------------------------------------------------------------ secrets

    def determinize(self, state: PocketState, seat: Seat | None, rng: Rng) -> PocketState:
        """Reshuffle what nobody can see: the deck with the set-aside cards (the cards the
        Messenger Bird sent back stay in the deck), each tile stack except the Kingdom
        Path on top and the tiles the Mirror put at the bottom, and the generator. The
        discard pile and the map are known."""
        other = self.copy_state(state)
        known = set(other.known_in_deck)
        pool = [k for k in other.deck if k not in known] + other.set_aside
        rng.shuffle(pool)
        aside = len(other.set_aside)
        other.set_aside = pool[:aside]
        other.deck = pool[aside:] + sorted(known)
        rng.shuffle(other.deck)
        path = content().role("kingdom_path").id
        for name in ("forest", "kingdom"):
            tiles: list[str] = getattr(other, name)
            top = 1 if tiles and tiles[0] == path else 0
            bottom = min(other.known_bottom[name], len(tiles) - top)
            middle = tiles[top:len(tiles) - bottom]
            rng.shuffle(middle)
            setattr(other, name, tiles[:top] + middle + tiles[len(tiles) - bottom:])
        other.rng = Rng(state=rng.next_u64())
        return other

    # ------------------------------------------------------------------ views

    def view(self, state: PocketState, seat: Seat | None) -> PocketView:
        c = content()
        r = c.rules
        pawn = _placed(state, state.pawn)
        tiles = []
        for p in state.placed:
            t = c.tile(p.tile)
            tiles.append(TileView(
                id=t.id, name=t.name, stack=t.stack, role=t.role, x=p.x, y=p.y, turns=p.turns,
                edges=EdgesView(**{s: edge(p, s) for s in SIDES}),
                instruction=t.instruction.text,
                used=t.instruction.once and t.id in state.used_once))
        line = self.current_line(state)
        defense = DefenseView(
            base=r.start_defense, dagger=r.dagger_defense if _has(state, "dagger") else 0,
            princess=r.princess_defense if state.princess else 0,
            total=self.defense(state),
            against_dragons=r.repellant_defense if _has(state, "repellant") else 0,
            wand=r.wand_defense if state.special == "wand" else 0)
        items = []
        for h in state.items:
            it = c.item(h.item)
            name = (it.empty_name if h.empty and it.empty_name else
                    it.coated_name if h.coated and it.coated_name else it.name)
            items.append(ItemView(id=h.item, name=name, empty=h.empty, coated=h.coated,
                                  value=self.item_value(h)))
        path = c.role("kingdom_path").id
        known = {}
        for name in ("forest", "kingdom"):
            stack: list[str] = getattr(state, name)
            k = state.known_bottom[name]
            known[name] = stack[len(stack) - k:] if k else []
        decision = self._decision(state)
        return PocketView(
            seat=seat, players=state.players,
            map=tiles, pawn=state.pawn, pawn_x=pawn.x, pawn_y=pawn.y,
            time=state.time, time_name=c.times[state.time].name,
            times=[t.name for t in c.times],
            line=self._line_view(state.current_card, line) if line else None,
            current_card=self._card_view(state.current_card) if state.current_card else None,
            health=state.health, max_health=r.max_health, defense=defense,
            gold=self.gold(state), max_gold=r.max_gold,
            special=state.special, special_name=c.special(state.special).name,
            items=items, item_limit=r.item_limit,
            goals=GoalsView(rose=state.rose, princess=state.princess,
                            forest_path=_on_map(state, c.role("forest_path").id),
                            kingdom_path=_on_map(state, path),
                            castle=_on_map(state, c.role("castle").id)),
            knight=state.knight, deck=len(state.deck), set_aside=len(state.set_aside),
            discard=[self._card_view(k) for k in state.discard],
            forest_stack=len(state.forest), kingdom_stack=len(state.kingdom),
            kingdom_path_on_top=bool(state.kingdom) and state.kingdom[0] == path,
            known_bottom=known, known_in_deck=list(state.known_in_deck),
            turn=state.turn, turn_seat=state.turn_seat,
            phase=state.phase, decision=decision, result=state.result,
            reason=state.reason, prompt=decision.prompt if decision else state.reason,
        )

    def _card_view(self, card: str) -> CardView:
        c = content()
        item = c.item(c.card(card).item)
        return CardView(id=card, item=item.id, item_name=item.name, price=item.price)

    def _line_view(self, card: str | None, line: Any) -> LineView:
        return LineView(card=card or "", kind=line.kind, text=line.text,
                        villain=getattr(line, "villain", None),
                        strength=getattr(line, "strength", None),
                        gold=getattr(line, "gold", None))

    def _decision(self, state: PocketState) -> DecisionView | None:
        if state.result is not None:
            return None
        line = self.current_line(state)
        return DecisionView(
            kind=state.stage, seat=state.turn_seat, prompt=self._prompt(state),
            choices=[ChoiceView(action=a.model_dump(mode="json"), label=label(self, state, a))
                     for a in self._legal(state)],
            mirror_tiles=list(state.mirror_tiles), placing=state.placing,
            villain=self._line_view(state.current_card, line)
            if state.stage == "villain" and line else None,
            shop_item=state.shop_item, bird_sent=list(state.bird_sent),
            find_item=state.find_item)

    def _prompt(self, state: PocketState) -> str:
        c = content()
        stage = state.stage
        if stage == "move":
            return "Where to? Explore a new place, or go back to one you know."
        if stage == "mirror":
            return "The Mirror shows two places. Which one do you take?"
        if stage == "place":
            return f"Where does the {c.tile(state.placing or '').name} go? Pick a side."
        if stage == "kingdom_path":
            return "You found the Forest Path! Where does the Kingdom Path go?"
        if stage == "villain":
            line = self._villain(state)
            return (f"{c.villain(line.villain).name}, strength {line.strength}! Your Defense "
                    f"is {self.defense(state, line.villain)}. Fight or run away?")
        if stage == "good_deed":
            line = self.current_line(state)
            gold = line.gold if isinstance(line, GoodDeedLine) else 0
            return f"Help? You get {gold} gold, but it takes a card of time."
        if stage == "peddler":
            return "A peddler! Pick one thing to get, or leave."
        if stage == "pay":
            item = c.item(state.shop_item or "elixir")
            return f"How do you pay for the {item.name}? It costs {item.price} gold."
        if stage == "drop":
            return f"You can carry only {c.rules.item_limit} things. Drop one."
        if stage == "bird":
            return "Pick a card for the bird to take back to the deck (1 or 2 cards)."
        if stage == "find":
            return f"You found the {c.item(state.find_item or 'elixir').name}! Take it?"
        if stage == "rest":
            return f"Rest here? +{c.rules.rest_health} health, but it takes a card of time."
        return "The game is over."


# --------------------------------------------------------------------------- labels


def words(action: Action, stack: str = "forest") -> str:
    """The words of ``action`` that need no state (``stack``: the one an Explore draws
    from); :func:`label` adds what does: a walk's or a side's dense trees, a fight's harm.
    A front end holding only a view words an action with this.

    >>> words(Fight(wand=True)), words(Shop(item="candle")), words(Explore(), "kingdom")
    ('Fight with the Wand (1 gold)', 'Candle (2 gold)', 'Explore the Kingdom')
    """
    c = content()
    cost = c.rules.special_cost
    if isinstance(action, Explore):
        if action.mirror:
            return f"Explore with the Mirror ({cost} gold)"
        return f"Explore the {stack.title()}"
    if isinstance(action, Go):
        name = c.tile(action.tile).name
        return f"Boots to the {name} ({cost} gold)" if action.boots else f"Go to the {name}"
    if isinstance(action, Wish):
        return f"Wish to be at the {c.tile(action.tile).name}"
    if isinstance(action, Stay):
        return "Stay here"
    if isinstance(action, Drink):
        return f"{'Wish and drink' if action.lamp else 'Drink'} the Elixir " \
               f"(+{c.rules.elixir_health})"
    if isinstance(action, Coat):
        return "Put the Repellant on the Shield"
    if isinstance(action, PickTile):
        return f"Take the {c.tile(action.tile).name}"
    if isinstance(action, Place):
        return f"Put it {SIDE_NAMES[action.side]}"
    if isinstance(action, Fight):
        if action.item is not None:
            verb = _FIGHT_VERBS.get(action.item, f"Use the {c.item(action.item).name}")
            return verb + (" (Lamp wish)" if action.lamp else "")
        kept = [_SHORT.get(k, c.item(k).name) for k in action.spare]
        if action.spare and action.wand:
            return f"Wand ({cost} gold) but no {' or '.join(kept)}"
        if action.spare:
            return f"Fight without the {' or the '.join(kept)}"
        return f"Fight with the Wand ({cost} gold)" if action.wand else "Fight"
    if isinstance(action, Run):
        return f"Run to the {c.tile(action.tile).name}" + (" (Boots)" if action.boots else "")
    if isinstance(action, GoodDeed):
        return "Help" if action.help else "Don't help"
    if isinstance(action, Shop):
        item = c.item(action.item)
        return f"{item.name} ({item.price} gold)"
    if isinstance(action, Pay):
        if not action.items:
            return f"Pay {action.gold} gold"
        parts = [c.item(i).name for i in action.items]
        return "Trade " + " + ".join(parts) + (f" + {action.gold} gold" if action.gold else "")
    if isinstance(action, Back):
        return "Back"
    if isinstance(action, Leave):
        return "Leave"
    if isinstance(action, Drop):
        return f"Drop the {c.item(action.item).name}"
    if isinstance(action, Send):
        return f"Send back the {c.item(c.card(action.card).item).name} card"
    if isinstance(action, SendDone):
        return "Done"
    if isinstance(action, Find):
        return "Take it" if action.take else "Leave it"
    if isinstance(action, Rest):
        return f"Rest (+{c.rules.rest_health} health)" if action.rest else "Go on"
    return str(getattr(action, "kind", type(action).__name__))


_FIGHT_VERBS = {"cloak": "Hide under the Cloak", "bucket": "Throw the water",
                "shield": "Hold up the Shield"}
_SHORT = {"cloak": "Cloak", "bucket": "Bucket", "repellant": "Repellant"}
"""Short names for fight labels (a button holds 80 characters)."""


def label(game: Pocket, state: PocketState, action: Action) -> str:
    """A short button label for a legal ``action`` in ``state``: its :func:`words` and
    what they cost here.

    >>> g = Pocket()
    >>> s = g.setup(1, PocketOptions(special="mirror"), seed=1)
    >>> label(g, s, Explore()), label(g, s, Explore(mirror=True))
    ('Explore the Forest', 'Explore with the Mirror (1 gold)')
    """
    base = words(action, game.explore_stack(state) or "forest")
    if isinstance(action, Go) and not action.boots:
        trees = walk_costs(state, state.pawn).get(action.tile, 0)
        cards = "card" if trees == 1 else "cards"
        return base + (f" (trees: -{trees} {cards})" if trees else "")
    if isinstance(action, Place) and state.stage == "place" and state.placing is not None:
        here = _placed(state, state.pawn)
        border = _border(here, game.attached(state, action.side), action.side)
        return base + (" (trees: -1 card)" if border == "trees" and _tree_cost(state) else "")
    if isinstance(action, Fight):
        return _fight_label(game, state, action, base)
    return base


def _fight_label(game: Pocket, state: PocketState, action: Fight, base: str) -> str:
    """A fight's label: what it uses, what it costs here, and what it keeps for later
    (:func:`words` first: a front end without the view words it the same way)."""
    c = content()
    hurt, robbed = game.fight_result(state, action)
    harm = f"-{hurt} health" if hurt else "no harm"
    if robbed and (game.gold(state) or _has(state, "pouch")):
        harm += ", robbed"
    line = game._villain(state)
    helper = c.villain(line.villain).helper
    held = _held(state, helper)
    kept = []
    if (held is not None and not held.empty and action.item is None) or action.lamp:
        kept.append(_SHORT.get(helper, c.item(helper).name))
    if action.item is None and not action.spare:
        used = [_SHORT.get(k, c.item(k).name) for k in game.free_fight_items(state)]
        if used:  # after the state-free words, which stay the label's beginning
            names = " and ".join(used)
            base += f" and the {names}" if action.wand else f" with the {names}"
    return f"{base}: {harm}" + (f", {' and '.join(kept)} kept" if kept else "")


def _secret_fragments(game: Pocket, st: PocketState) -> list[list[str]]:
    """What nobody may see, as runs of words no message may contain: the next three
    cards of the deck in order (by item and by card id), the set-aside cards in any
    order, and the next three tiles of each stack."""
    c = content()
    out: list[list[str]] = []
    unknown = [k for k in st.deck if k not in set(st.known_in_deck)]
    if len(unknown) >= 3:
        out.append([w for k in unknown[:3] for w in c.item(c.card(k).item).name.split()])
        out.append(unknown[:3])
    if len(st.set_aside) >= 2:
        for order in itertools.permutations(st.set_aside):
            out.append([w for k in order for w in c.item(c.card(k).item).name.split()])
    path = c.role("kingdom_path").id
    for name in ("forest", "kingdom"):
        tiles = [t for t in getattr(st, name) if t != path]
        hidden = tiles[:max(0, len(tiles) - st.known_bottom[name])]
        if len(hidden) >= 3:
            out.append([w for t in hidden[:3] for w in c.tile(t).name.split()])
    return out


SPEC = register(GameSpec(
    engine=Pocket,
    agents="engines.agents.pocket",
    board="renderers.pocket:render",
    text_board="renderers.pocket:text_board",
    ui="bot.core.choices.pocket:PocketUI",
    cog="bot.messages.cogs.pocket",
    rules="rules/pocket.json",
    conformance=(
        *(ConformanceCase(p, seeds=6) for p in (1, 2, 3, 4)),
        ConformanceCase(1, {"special": "mirror"}, seeds=4),
        ConformanceCase(2, {"special": "wand"}, seeds=4),
        ConformanceCase(3, {"special": "boots"}, seeds=4),
        ConformanceCase(1, seeds=3, agent="careful"),
    ),
    secret_fragments=_secret_fragments,
))
"""The game's declaration."""
