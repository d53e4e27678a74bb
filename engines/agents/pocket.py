"""Fairy Tale in My Pocket AIs: "careful", a simple heuristic, and "hint", a search over
what the player knows that also says why, in words a child can follow.

What they may use: what the table shows (the map, the pawn, health, gold, items, goals,
the discard pile, the sizes of the deck and the stacks, the cards the Messenger Bird put
back, the tiles the Mirror put at the bottom). Neither reads the deck order, the three
cards set aside or the order of the tile stacks.

* **careful** heads for the next goal (the Rose Garden, the Cottage, the Forest Path and
  the Kingdom Path, the Castle), explores otherwise, takes the least harmful answer to a
  villain, buys useful items and rests only when badly hurt. It is the heuristic the
  engine's tests used for their play statistics, moved here.
* **hint** samples worlds the player cannot tell apart (``game.determinize`` of the table
  with its secrets first put in a fixed order, so the samples depend on what is visible
  and the generator only) and plays every legal action in each of them to the end with
  the careful policy. Every action gets ``first`` worlds; the few that did better there
  than the careful choice get ``samples`` in all, and one of them replaces the careful
  choice only if it wins more often over the same worlds by a clear margin (``z``
  standard errors of the paired difference). :func:`hint` gives the chosen action and a
  one-line reason for it.

Speed: playouts use a quick copy of the state (:func:`fast_copy`), remembered walking
costs (:func:`costs_from`) and apply the careful policy's actions without the engine's
legality check. One move takes about 30-60 ms (median) on one core, a few hundred ms at
most; see ``bench/pocket_tuning.py``.

>>> from engines.core import Rng
>>> from engines.pocket.game import Pocket
>>> game = Pocket()
>>> state = game.setup(1, game.Options(special="wand"), seed=3)
>>> action, why = hint(game, state, 0, Rng.from_seed(1))
>>> action in game.legal_actions(state, 0), why
(True, 'Explore the forest: the Rose Garden is still hidden somewhere.')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from engines.agents import register_agent
from engines.core import Action, Rng, Seat
from engines.pocket import game as engine
from engines.pocket.content import SIDE_NAMES, GoodDeedLine, VillainLine
from engines.pocket.game import Pocket, walk_costs
from engines.pocket.state import (
    Back,
    Coat,
    Drink,
    Drop,
    Explore,
    Fight,
    Find,
    Go,
    GoodDeed,
    Leave,
    Pay,
    PickTile,
    Place,
    PocketState,
    Rest,
    Run,
    Send,
    SendDone,
    Shop,
    Stay,
    Wish,
)

__all__ = ["CarefulAgent", "HintAgent", "careful_action", "explain", "hint", "next_goal"]

PRIORITY = ["candle", "bird", "dagger", "cloak", "shield", "bucket", "elixir", "repellant",
            "lamp", "pouch"]
"""The careful player's shopping list, most wanted first."""


def _c() -> Any:
    return engine.content()  # looked up on the module: a bench may swap the data


def _has(s: PocketState, item: str) -> bool:
    return any(h.item == item for h in s.items)


def _held(s: PocketState, item: str) -> Any:
    return next(h for h in s.items if h.item == item)


def _on_map(s: PocketState, tile: str) -> bool:
    return any(p.tile == tile for p in s.placed)


def next_goal(s: PocketState) -> str:
    """The tile the peasant needs next: the Rose Garden, the Cottage, the Forest Path
    (until the Kingdom Path is on the map), then the Castle."""
    c = _c()
    if not s.rose:
        return c.role("rose").id
    if not s.princess:
        return c.role("cottage").id
    if not _on_map(s, c.role("kingdom_path").id):
        return c.role("forest_path").id
    return c.role("castle").id


# --------------------------------------------------------------------------- careful


def _can_explore_from(game: Pocket, s: PocketState, tile: str) -> bool:
    """Whether the peasant could explore from ``tile`` (the pawn moved there)."""
    return game.explore_stack(s.model_copy(update={"pawn": tile})) is not None


def fast_copy(s: PocketState) -> PocketState:
    """A copy of ``s`` for playouts, about five times quicker than the deep copy: the
    lists and dicts are new, the carried items and the generator copied; the placed
    tiles are shared (the engine never changes a tile once it is on the map)."""
    out = s.model_copy()
    fields = out.__dict__
    for k, v in fields.items():
        if type(v) is list:
            fields[k] = list(v)
        elif type(v) is dict:
            fields[k] = dict(v)
    out.items = [h.model_copy() for h in s.items]
    out.rng = s.rng.model_copy()
    return out



_COSTS: dict[tuple[Any, ...], dict[str, int]] = {}
_COSTS_OF: list[Any] = [None]
"""The content the remembered costs were found with (other data, other borders)."""


def costs_from(s: PocketState, start: str | None = None) -> dict[str, int]:
    """:func:`engines.pocket.game.walk_costs` from ``start`` (the pawn), remembered per map
    (playouts ask for the same few maps again and again)."""
    start = start or s.pawn
    key = (start, _has(s, "candle"), *((p.tile, p.x, p.y, p.turns) for p in s.placed))
    if _COSTS_OF[0] is not _c():
        _COSTS.clear()
        _COSTS_OF[0] = _c()
    found = _COSTS.get(key)
    if found is None:
        if len(_COSTS) > 50_000:
            _COSTS.clear()
        found = _COSTS[key] = walk_costs(s, start)
    return found


def move_actions(game: Pocket, s: PocketState) -> list[Action]:
    """The legal actions of the move stage with the walking costs remembered
    (:func:`costs_from`)."""
    return game.move_actions(s, costs_from(s))


def legal_for(game: Pocket, s: PocketState) -> list[Action]:
    """The legal actions of the seat to act (the move stage by :func:`move_actions`)."""
    if s.result is not None:
        return []
    return move_actions(game, s) if s.stage == "move" else game.legal_actions(s, s.turn_seat)


def careful_action(game: Pocket, s: PocketState) -> Action:
    """A simple careful player: head for the next goal, explore otherwise, take the least
    harmful answer to a villain, buy useful items, rest only when hurt."""
    c = _c()
    legal = legal_for(game, s)
    stage = s.stage
    if stage == "move":
        for a in legal:
            if (isinstance(a, Drink) and s.health <= 4) or isinstance(a, Coat):
                return a
        goal = next_goal(s)
        costs = costs_from(s)
        go = [a for a in legal if isinstance(a, Go | Wish) and a.tile == goal]
        if go:
            free = [a for a in go if isinstance(a, Go) and not a.boots and costs[goal] == 0]
            boots = [a for a in go if isinstance(a, Go) and a.boots]
            return (free or boots or go)[0]
        kp = c.role("kingdom_path").id
        if s.princess and c.tile(s.pawn).stack == "forest":
            to_kp = [a for a in legal if isinstance(a, Go) and a.tile == kp]
            if to_kp:
                return to_kp[0]
        explore = [a for a in legal if isinstance(a, Explore)]
        if explore:
            return explore[-1]
        best: tuple[int, Action] | None = None
        for a in legal:
            if isinstance(a, Go) and not a.boots and _can_explore_from(game, s, a.tile) \
                    and (best is None or costs[a.tile] < best[0]):
                best = (costs[a.tile], a)
        return best[1] if best else legal[0]
    if stage == "mirror":
        goal = next_goal(s)
        return next((a for a in legal if a.tile == goal), legal[0])  # type: ignore[attr-defined]
    if stage == "villain":
        ln = game.current_line(s)
        assert isinstance(ln, VillainLine)
        scored: list[tuple[float, Action]] = []
        for a in legal:
            if isinstance(a, Fight):
                if a.item:
                    # an item used up is kept for later when the Wand's gold does as well;
                    # the coated Shield is never used up
                    coated = _held(s, a.item).coated
                    cost = (0.0 if coated and not a.lamp else 0.5) + (0.3 if a.lamp else 0)
                else:
                    hurt, robbed = game.fight_result(s, a)
                    cost = hurt + (0.4 if a.wand else 0) + (100 if hurt >= s.health else 0)
                    if robbed:
                        cost += 0.5 * game.gold(s) + (2 if _has(s, "pouch") else 0)
            else:
                assert isinstance(a, Run)
                cost = 1.0 + (0.4 if a.boots else 0) + (100 if s.health <= 1 else 0)
                cost += 3 if s.phase == "second" else 0
                if ln.villain == "robbers":
                    cost += 0.5 + (2 if _has(s, "pouch") else 0)
            scored.append((cost, a))
        return min(scored, key=lambda p: p[0])[1]
    if stage == "good_deed":
        return GoodDeed(help=game.gold(s) < 2 and s.time == 0)
    if stage == "peddler":
        shops = {a.item: a for a in legal if isinstance(a, Shop)}
        for item in PRIORITY:
            if item in shops and game.gold(s) >= c.item(item).price:
                return shops[item]
        return Leave()
    if stage == "pay":
        return next((a for a in legal if isinstance(a, Pay) and not a.items), Back())
    if stage == "drop":
        coat = [a for a in legal if isinstance(a, Coat)]
        if coat:
            return coat[0]
        drops = [a for a in legal if isinstance(a, Drop)]
        return min(drops, key=lambda a: (not _held(s, a.item).empty, -PRIORITY.index(a.item)))
    if stage == "bird":
        return next((a for a in legal if isinstance(a, Send)), SendDone())
    if stage == "find":
        return Find(take=True)
    if stage == "rest":
        for a in legal:
            if (isinstance(a, Drink) and s.health <= 3) or isinstance(a, Coat):
                return a
        return Rest(rest=s.health <= 2)
    return legal[0]


class CarefulAgent:
    """The "careful" level (:func:`careful_action`); it keeps nothing between moves."""

    def __init__(self, **_: Any) -> None:
        pass

    def __repr__(self) -> str:
        return "<pocket CarefulAgent>"

    def choose(self, game: Pocket, state: PocketState, seat: Seat, rng: Rng) -> Action:
        if seat != state.turn_seat or state.result is not None:
            raise ValueError(f"seat {seat} has no legal action")
        return careful_action(game, state)


# --------------------------------------------------------------------------- the search


def canonical(game: Pocket, state: PocketState) -> PocketState:
    """A copy whose secrets are laid out in a fixed order: the cards not known to be in
    the deck sorted over the set-aside three and the deck, the hidden middle of each
    tile stack sorted, a fixed generator. Two tables that look the same give the same
    copy, so what :meth:`Pocket.determinize` then samples from it depends on the view and
    the sampling generator only."""
    out = game.copy_state(state)
    known = [k for k in out.deck if k in set(out.known_in_deck)]
    hidden = sorted([k for k in out.deck if k not in set(known)] + list(out.set_aside))
    n = len(out.set_aside)
    out.set_aside = hidden[:n]
    out.deck = hidden[n:] + sorted(known)
    path = _c().role("kingdom_path").id
    for name in ("forest", "kingdom"):
        tiles: list[str] = getattr(out, name)
        top = 1 if tiles and tiles[0] == path else 0
        bottom = min(out.known_bottom[name], len(tiles) - top)
        middle = sorted(tiles[top:len(tiles) - bottom])
        setattr(out, name, tiles[:top] + middle + tiles[len(tiles) - bottom:])
    out.rng = Rng(state=0)
    return out


def progress(s: PocketState) -> int:
    """Goals reached, 0 to 4 (the rose, the princess, the Kingdom Path, the Castle on the
    map); 5 once the game is won."""
    if s.result == "won":
        return 5
    c = _c()
    return (int(s.rose) + int(s.princess) + int(_on_map(s, c.role("kingdom_path").id))
            + int(_on_map(s, c.role("castle").id)))


def _fast_apply(game: Pocket, s: PocketState, action: Action) -> None:
    """Apply an action the careful policy picked among the legal ones, without the
    engine's check (it would list every legal action a second time)."""
    game._apply(s, s.turn_seat, action)
    s.ply += 1


def playout(game: Pocket, s: PocketState, horizon: int | None = None) -> float:
    """Play ``s`` on with the careful policy (to the end, or ``horizon`` decisions);
    the value: 1 for a win, else a little for each goal reached."""
    steps = 0
    while s.result is None and (horizon is None or steps < horizon):
        _fast_apply(game, s, careful_action(game, s))
        steps += 1
    return 1.0 if s.result == "won" else PROGRESS_WEIGHT * progress(s) / 4


PROGRESS_WEIGHT = 0.1
"""What reaching every goal but the last is worth next to a win (it only separates
actions that win equally often, the lost causes above all)."""


class Stats:
    """What the search found for one action: its values over the sampled worlds."""

    __slots__ = ("action", "values")

    def __init__(self, action: Action) -> None:
        self.action = action
        self.values: list[float] = []

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values) if self.values else 0.0

    @property
    def wins(self) -> float:
        """The share of sampled worlds won."""
        return sum(1 for v in self.values if v >= 1.0) / len(self.values) if self.values \
            else 0.0

    def __repr__(self) -> str:
        return f"<{self.action!r} mean={self.mean:.3f} n={self.n}>"


class HintAgent:
    """The "hint" level: determinised Monte Carlo with careful playouts (see the module
    docstring).

    ``first``: worlds every legal action gets; ``keep``: how many of the actions that did
    better there than the careful choice go on (with it) to ``samples`` worlds in all;
    ``z``: how many standard errors of the paired difference one of them must beat the
    careful choice by; ``horizon``: decisions per playout (None: to the end)."""

    def __init__(self, samples: int = 24, first: int = 8, keep: int = 3, z: float = 1.0,
                 horizon: int | None = None, **_: Any) -> None:
        self.samples = samples
        self.first = min(first, samples)
        self.keep = keep
        self.z = z
        self.horizon = horizon

    def __repr__(self) -> str:
        return f"<pocket HintAgent samples={self.samples}>"

    def choose(self, game: Pocket, state: PocketState, seat: Seat, rng: Rng) -> Action:
        return self.search(game, state, seat, rng)[0]

    def search(self, game: Pocket, state: PocketState, seat: Seat,
               rng: Rng) -> tuple[Action, list[Stats]]:
        """The chosen action and what was found for each action searched (empty when
        there was nothing to weigh)."""
        legal = game.legal_actions(state, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        base = careful_action(game, state)
        if len(legal) == 1:
            return legal[0], []
        canon = canonical(game, state)
        worlds: list[PocketState] = []

        def world(i: int) -> PocketState:
            while len(worlds) <= i:
                worlds.append(game.determinize(canon, seat, rng.spawn()))
            return worlds[i]

        stats = [Stats(a) for a in legal]

        def run(st: Stats, upto: int) -> None:
            for i in range(st.n, upto):
                sim = fast_copy(world(i))
                _fast_apply(game, sim, st.action)
                st.values.append(playout(game, sim, self.horizon))

        for st in stats:
            run(st, self.first)
        base_st = next(st for st in stats if st.action == base)
        # Only actions that did better than the careful choice on the first worlds get
        # more worlds; when none did, the careful choice stands.
        rivals = [st for st in sorted(stats, key=lambda st: -st.mean)
                  if st is not base_st and st.mean > base_st.mean][:self.keep]
        if not rivals:
            return base, stats
        for st in (base_st, *rivals):
            run(st, self.samples)
        return self._pick(base_st, rivals), stats

    def _pick(self, base: Stats, rivals: Sequence[Stats]) -> Action:
        """The careful choice unless another action beats it, world by world, by more
        than ``z`` standard errors of the paired difference (playouts are noisy)."""
        best, best_gain = base.action, 0.0
        for st in rivals:
            diffs = [a - b for a, b in zip(st.values, base.values, strict=False)]
            k = len(diffs)
            gain = sum(diffs) / k
            var = sum((d - gain) ** 2 for d in diffs) / max(1, k - 1)
            se = math.sqrt(var / k)
            if gain > self.z * se and gain > best_gain + 1e-9:
                best, best_gain = st.action, gain
        return best


def hint(game: Pocket, state: PocketState, seat: Seat, rng: Rng,
         **kw: Any) -> tuple[Action, str]:
    """The hint level's action for ``seat`` and a one-line reason for it (``kw``: the
    :class:`HintAgent` settings)."""
    action, stats = HintAgent(**kw).search(game, state, seat, rng)
    return action, explain(game, state, action, stats)


# --------------------------------------------------------------------------- reasons

_GOAL_WHY = {
    "rose": "you need a rose for the princess",
    "cottage": "the rose will wake the princess there",
    "forest_path": "it is the way into the Kingdom",
    "castle": "the prince is waiting there",
}
_SEEK = {
    "rose": "the Rose Garden is still hidden somewhere",
    "cottage": "the princess's Cottage is still hidden somewhere",
    "forest_path": "the Forest Path to the Kingdom is still hidden somewhere",
    "castle": "the Castle is still hidden somewhere",
}
_ITEM_WHY = {
    "elixir": "it gives you {elixir} health when you need it",
    "bucket": "it beats a witch",
    "cloak": "it hides you from robbers and trolls",
    "shield": "it stops a dragon",
    "repellant": "it makes you stronger against dragons",
    "candle": "the dense trees won't cost you time any more",
    "bird": "it gives you more time before the sun sets",
    "lamp": "it gives you one wish",
    "dagger": "it makes you stronger in every fight",
    "pouch": "it keeps your gold at {gold}",
}


def _item_why(item: str) -> str:
    r = _c().rules
    return _ITEM_WHY[item].format(elixir=r.elixir_health, gold=r.max_gold)


def _goal_role(s: PocketState) -> str:
    goal = next_goal(s)
    return _c().tile(goal).role or "castle"


def _name(tile: str) -> str:
    return _c().tile(tile).name


def _chance(stats: Sequence[Stats], action: Action) -> Stats | None:
    return next((st for st in stats if st.action == action and st.n), None)


def explain(game: Pocket, s: PocketState, action: Action,
            stats: Sequence[Stats] = ()) -> str:
    """A one-line reason for ``action`` in ``s``, in words a child can follow (``stats``:
    what the search found, to say when an unusual choice is the safer one)."""
    text = _explain(game, s, action)
    mine = _chance(stats, action)
    if mine is not None and action != careful_action(game, s):
        other = _chance(stats, careful_action(game, s))
        if other is not None and mine.wins > other.wins + 0.05:
            text += " That gives you the best chance to win."
    return text


def _fight_words(game: Pocket, s: PocketState, a: Fight, ln: VillainLine) -> str:
    c = _c()
    name = c.villain(ln.villain).name.lower()
    the = f"the {name}"
    if a.item is not None:
        lamp = " The Lamp's wish lets you keep it." if a.lamp else ""
        return {"cloak": f"Hide under the Cloak: {the} won't see you, so you lose nothing.",
                "bucket": f"Throw the water: it melts {the} away.",
                "shield": f"Hold up the Shield: {the}'s fire can't hurt you."}[a.item] + lamp
    defense = game.fight_defense(s, a)
    hurt, robbed = game.fight_result(s, a)
    robbed = robbed and game.gold(s) > 0
    if a.spare:
        kept = " and the ".join(c.item(k).name for k in a.spare)
        worse = f"you lose {hurt} health" if hurt else "you get no hurt"
        return (f"Fight {the} without the {kept}: {worse}"
                + (" and your gold" if robbed else "") + "; with it you would do better.")
    if hurt == 0 and not robbed:
        helpers = []
        if a.wand:
            helpers.append("your Wand")
        if _has(s, "dagger"):
            helpers.append("your Dagger")
        if s.princess:
            helpers.append("the princess")
        if ln.villain == "dragon" and _has(s, "repellant"):
            helpers.append("the Flame Repellant")
        if helpers:
            who = " and ".join(helpers)
            verb = "make" if len(helpers) > 1 else "makes"
            return f"Fight {the}: {who} {verb} you strong enough."
        return f"Fight {the}: your Defense {defense} is enough against strength {ln.strength}."
    cost = f"you lose {hurt} health" if hurt else "you get no hurt"
    if robbed:
        cost += " and your gold"
    wand = " with the Wand" if a.wand else ""
    if hurt and hurt < s.health:
        return f"Fight {the}{wand}: {cost}, but running away costs time and health too."
    return f"Fight {the}{wand}: {cost}, and running away would be worse."


def _place_facts(game: Pocket, s: PocketState, side: str) -> tuple[bool, int]:
    """For the tile in hand attached on ``side``: whether walking in crosses dense trees
    that cost a card, and how many empty squares it would have around it."""
    new = game.attached(s, side)
    here = next(p for p in s.placed if p.tile == s.pawn)
    trees = engine._border(here, new, side) == "trees" and not _has(s, "candle")
    taken = {(p.x, p.y) for p in s.placed}
    room = sum((new.x + dx, new.y + dy) not in taken for dx, dy in engine.DELTA.values())
    return trees, room


def _explain(game: Pocket, s: PocketState, a: Action) -> str:
    c = _c()
    r = c.rules
    role = _goal_role(s)
    goal = next_goal(s)
    if isinstance(a, Drink):
        return (f"Drink the Elixir: you have only {s.health} health, it gives you "
                f"{r.elixir_health} more.")
    if isinstance(a, Coat):
        return "Put the Repellant on the Shield: then it stops every dragon."
    if isinstance(a, Explore):
        where = "the Kingdom" if game.explore_stack(s) == "kingdom" else "the forest"
        if a.mirror:
            return (f"Explore {where} with the Mirror: you see two places and keep the "
                    "better one.")
        return f"Explore {where}: {_SEEK[role]}."
    if isinstance(a, Go | Wish):
        name = _name(a.tile)
        if a.tile == goal:
            why = _GOAL_WHY[role]
        elif a.tile == c.role("kingdom_path").id and s.princess:
            why = "the road to the Castle starts there"
        else:
            why = ("you can explore new places from there"
                   if _can_explore_from(game, s, a.tile) else "it is a good place to be")
        if isinstance(a, Wish):
            return f"Wish with the Lamp to fly to the {name}: {why}, and no card is drawn."
        if a.boots:
            return f"Put on the Boots to go to the {name}: {why}, and no trees slow you down."
        trees = walk_costs(s, s.pawn).get(a.tile, 0)
        slow = " (the dense trees cost some time)" if trees else ""
        return f"Go to the {name}: {why}{slow}."
    if isinstance(a, Stay):
        return "Stay here: there is nowhere else to go."
    if isinstance(a, PickTile):
        if a.tile == goal:
            return f"Take the {_name(a.tile)}: {_GOAL_WHY[role]}."
        return f"Take the {_name(a.tile)}: the other one can wait at the bottom."
    if isinstance(a, Place):
        side = SIDE_NAMES[a.side]
        if s.stage == "kingdom_path":
            return f"Put the Kingdom Path {side}: there is room for the Kingdom there."
        sides = {p.side: _place_facts(game, s, p.side) for p in game.legal_actions(s, s.turn_seat)
                 if isinstance(p, Place)}
        trees, room = sides.get(a.side, _place_facts(game, s, a.side))
        roomiest = all(room > r for k, (_t, r) in sides.items() if k != a.side)
        if trees:
            if roomiest:
                return (f"Put it {side}: the dense trees cost a card, but there is more room "
                        "to explore from there.")
            return f"Put it {side}: the dense trees cost a card, but the other ways are worse."
        if roomiest and len(sides) > 1:
            return f"Put it {side}: no dense trees in the way, and room to explore further."
        return f"Put it {side}: no dense trees slow you down on the way in."
    if isinstance(a, Fight):
        ln = game.current_line(s)
        assert isinstance(ln, VillainLine)
        return _fight_words(game, s, a, ln)
    if isinstance(a, Run):
        ln = game.current_line(s)
        assert isinstance(ln, VillainLine)
        name = c.villain(ln.villain).name.lower()
        defense = game.defense(s, ln.villain)
        hurt = max(0, ln.strength - defense)
        boots = " with the Boots" if a.boots else ""
        if hurt:
            return (f"Run away{boots} to the {_name(a.tile)}: the {name} would take {hurt} "
                    f"health, running costs only {r.run_health}.")
        return f"Run away{boots} to the {_name(a.tile)}: the {name} would take your gold."
    if isinstance(a, GoodDeed):
        ln = game.current_line(s)
        gold = ln.gold if isinstance(ln, GoodDeedLine) else 0
        if a.help:
            return f"Help: you get {gold} gold for the peddler, and there is still time."
        if game.gold(s) >= r.max_gold:
            return "Don't help: your purse is already full."
        return "Don't help: time is short, save your cards for the way to the Castle."
    if isinstance(a, Shop):
        item = c.item(a.item)
        return f"Get the {item.name}: {_item_why(a.item)}."
    if isinstance(a, Leave):
        return "Leave: nothing here is worth your gold right now."
    if isinstance(a, Pay):
        item = c.item(s.shop_item or "elixir").name
        if not a.items:
            return f"Pay {a.gold} gold for the {item}."
        given = " and the ".join(c.item(i).name for i in a.items)
        return f"Trade the {given} for the {item}: you keep more gold."
    if isinstance(a, Back):
        return "Go back: pick something else from the peddler."
    if isinstance(a, Drop):
        h = _held(s, a.item)
        item = c.item(a.item)
        if h.empty and item.empty_name:
            return f"Drop the {item.empty_name}: it is empty and worth nothing."
        return f"Drop the {item.name}: you need the others more."
    if isinstance(a, Send):
        return "Send the bird: the card goes back into the deck, and that is more time."
    if isinstance(a, SendDone):
        return "Let the bird fly now: the cards go back into the deck."
    if isinstance(a, Find):
        item = c.item(s.find_item or "elixir")
        if a.take:
            return f"Take the {item.name}: {_item_why(item.id)}."
        return f"Leave the {item.name}: you have better things to carry."
    if isinstance(a, Rest):
        if a.rest:
            return (f"Rest: {r.rest_health} more health for the fights ahead (you have "
                    f"{s.health} of {r.max_health}).")
        return "Go on: you are well enough, and resting costs time."
    return "This looks best."


register_agent("pocket", "careful", CarefulAgent)
register_agent("pocket", "hint", HintAgent, selfplay_default=True)
