"""Crossroads Inn: The Innkeeper's Creed, for 2 to 4 innkeepers.

Each player builds an inn of 16 tiles around four Basic Inn Tiles, courting five social
groups on the Reputation Board, spending gossips, buying and reserving tiles from two
Investment Tracks and cooking secret Recipes. A turn is the rulebook's nine steps, each
a few small decisions, so a front end can walk a player through it and offer only legal
choices; until the turn is confirmed each step can be taken back, except a step that
revealed something (a draw or a roll), which is final with everything before it.

>>> from engines import get_game
>>> game = get_game("crossroads-inn")
>>> state = game.setup(2, game.Options(basic_tiles="none"), seed=1)
>>> game.to_act(state), state.turn.step
([0], 'impression')
>>> state.seats[0].chest, state.seats[0].pouch, len(state.seats[0].recipes)
(0, 4, 2)
>>> view = game.view(state, 1)
>>> view.seats[0].recipes, view.my_recipes == state.seats[1].recipes
(2, True)

Readings of the rulebook where it is silent or loose (the project's, named here):

* Step 8 of setup (the Investment Tracks) is done before the Basic Inn Tiles are placed,
  so a tile that reserves from a track (Investment Track pick) has a track to pick from.
* The Guest Impression may not put either group on the door it stood on before ("cannot
  put the same Guest Tiles on the same spaces"); swapping the two is allowed.
* A tile may be bought only if some space of the inn could take it now. If, at
  Building, no space can take it (an earlier tile of the turn took the only one), it
  goes to its discard pile.
* At the end of Reserving every tile moves one space right: the tile pushed off the far
  right space is discarded; the space left by a reserved tile moves right with the rest.
* Guldens stolen with economic gossips come from the victim's Chest (where guldens lie
  between turns) and go to the thief's Pouch; gulden effects of gossips go to the Pouch,
  every other gulden gain to the Chest.
* When every player has covered the 16 spaces (or, without Basic Inn Tiles, when the
  first one has), the game ends at the end of that turn.
* The Recipe discard pile is face down and is shuffled back when the deck runs out.
* Covering a Basic Inn Tile that gave Reputation is allowed below that bonus: the token
  stops at 0 and the rest is lost in Prestige, as for any Reputation loss ("If the
  player's level on the track was to fall to less than 0, they lose the amount of
  Prestige points equal to the amount of spaces by which they would fall below the
  limit"). It is refused, as "incapable of reducing a bonus", only when that Prestige
  would take the player below 1 ("If the player was to lower it by performing an action
  (changing the guest's impression, building tiles), they may not perform the given
  action"). Prestige is checked at its lowest point while the effects apply in order,
  so the new tile's gain cannot pay for the bonus given back before it ("first they
  reduce the bonuses given by the now-covered tile; next they receive effects of the new
  tile"). Inn's Revenue (1 to 10) and gossips have no such rule below their limits, so a
  Revenue or gossip bonus that cannot be given back in full keeps its tile uncovered.
* The 2-player political gossip may lower the active player's own token: it "decreases
  by 1 Reputation of any player", where the 3-4 player one names "2 of their opponents".
  It is the player's own action, so it may not take their own Prestige below 1.
* A completed Recipe stays with the player, face up and out of the hand, and never goes
  to the Recipe discard pile: the rulebook discards only its ingredients ("Once used, the
  given ingredients are discarded"), and Scoring counts "Each uncompleted recipe". The
  pile takes only what the rulebook sends there (the Travellers' draws and discards,
  the hand cards lost when a Recipe draw tile is covered).
* The final score is the final Prestige, never below 1 ("The player can never have less
  Prestige than 1"; the Reputation bonuses "update the player's score on the Prestige
  track"). The Scoring list is a count, so the floor applies to its sum, not after each
  item; totals on the floor tie like any others.
"""

from __future__ import annotations

import itertools
from typing import Any

from engines.catalog import ConformanceCase, GameSpec, register
from engines.core import Event, Game, IllegalAction, Outcome, Rng, Seat
from engines.crossroads_inn import effects as fx
from engines.crossroads_inn import inn as board
from engines.crossroads_inn.content import GOSSIP_TYPES, GROUPS, CrossroadsContent, load_content
from engines.crossroads_inn.effects import GOSSIP_NAME, note
from engines.crossroads_inn.state import (
    STEPS,
    Build,
    Built,
    Buy,
    Choose,
    Complete,
    CrossroadsAction,
    CrossroadsOptions,
    CrossroadsState,
    CrossroadsView,
    DraftPick,
    EndTurn,
    Impression,
    Job,
    Next,
    PendingView,
    PlaceBasic,
    Player,
    PlayerView,
    Reserve,
    SetAside,
    TakeBack,
    Turn,
    Undo,
    UseGossip,
)

__all__ = ["CrossroadsInn"]


def parse_kingdom(text: str) -> tuple[str, list[int]]:
    """``"none"``, ``"random"`` or two distinct card numbers ``"a+b"``.

    >>> parse_kingdom("3+7"), parse_kingdom("random")
    (('chosen', [3, 7]), ('random', []))
    """
    text = text.strip().lower()
    if text in ("none", "random"):
        return text, []
    parts = text.replace(",", "+").replace(" ", "+").split("+")
    numbers = [int(x) for x in parts if x.isdigit()]
    if len(numbers) != 2 or len([x for x in parts if x]) != 2 or numbers[0] == numbers[1] \
            or not all(1 <= n <= 10 for n in numbers):
        raise IllegalAction("Kingdom Cards: give 'none', 'random' or two different card "
                            "numbers from 1 to 10, like '1+5'.")
    return "chosen", sorted(numbers)


class CrossroadsInn(Game[CrossroadsState, Any]):
    id = "crossroads-inn"
    name = "Crossroads Inn: The Innkeeper's Creed"
    min_players = 2
    max_players = 4
    has_secrets = True
    Options = CrossroadsOptions
    State = CrossroadsState
    ViewType = CrossroadsView
    ActionType = CrossroadsAction

    @property
    def content(self) -> CrossroadsContent:
        return load_content()

    def copy_state(self, state: CrossroadsState) -> CrossroadsState:
        """A deep copy by a JSON round trip: exact for this state and faster than
        pydantic's deep copy (0.2 ms against 0.56 ms for a 4-player game)."""
        return self.load_state(self.dump_state(state))

    # ------------------------------------------------------------------ setup

    def parse_options(self, data: dict[str, Any] | None) -> CrossroadsOptions:
        options = super().parse_options(data)
        assert isinstance(options, CrossroadsOptions)
        parse_kingdom(options.kingdom)
        return options

    def setup(self, players: int, options: Any, seed: int) -> CrossroadsState:
        c = self.content
        if not self.min_players <= players <= self.max_players:
            raise IllegalAction("Crossroads Inn is for 2 to 4 players.")
        options = options if isinstance(options, CrossroadsOptions) else \
            self.parse_options(dict(options or {}))
        mode, chosen = parse_kingdom(options.kingdom)
        rng = Rng.from_seed(seed)
        seats = [Player(prestige=c.boards.prestige_track.start,
                        revenue=c.boards.inn_board.revenue_track.start,
                        gossips={g: 0 for g in GOSSIP_TYPES},
                        reputation={g.id: g.start for g in c.groups}) for _ in range(players)]
        remove_advanced = options.advanced_recipes == "remove" or (
            options.advanced_recipes == "auto" and players == 2)
        deck = sorted(r.id for r in c.recipes if not (remove_advanced and r.advanced))
        pouches = [sorted(c.pouch(1)), sorted(c.pouch(2))]
        kingdom = chosen if mode == "chosen" else (
            sorted(rng.sample([k.number for k in c.kingdom_cards], 2)) if mode == "random"
            else [])
        st = CrossroadsState(players=players, seed=seed, rng=rng, options=options, seats=seats,
                             kingdom=kingdom, tracks=[[None] * 4, [None] * 4],
                             pouches=pouches, discards=[[], []], deck=deck)
        for number in kingdom:
            rule = c.kingdom_card(number).rule
            if rule.kind == "line_bonus":
                supply = rule.supply_for(players)
                st.line_pool = {g: supply.gossips_each for g in GOSSIP_TYPES}
                st.line_pool["guldens"] = supply.guldens
        for tier in (1, 2):
            fx.refill(st, tier)
        events: list[Event] = []
        if options.basic_tiles == "none":
            self._finish_setup(st, events)
        else:
            basics = [b.id for b in c.basic_tiles]
            rng.shuffle(basics)
            per = c.game.setup.basic_tiles_per_player
            for s, p in enumerate(st.seats):
                p.pack = sorted(basics[s * per:(s + 1) * per])
            st.unused_basics = sorted(basics[players * per:])
            if options.basic_tiles == "draft":
                st.phase = "draft"
                st.draft_round = 1
            else:
                st.phase = "place_basics"
                for s, p in enumerate(st.seats):
                    corners = list(board.CORNERS)
                    rng.shuffle(corners)
                    for tile, space in zip(p.pack, corners, strict=True):
                        self._place_basic(st, s, tile, space)
                    p.pack = []
                self._settle_setup(st, events)
        st.revealed = False
        self._checkpoint(st)
        return st

    def _place_basic(self, st: CrossroadsState, seat: Seat, tile: str, space: str) -> None:
        st.seats[seat].inn[space] = Built(tile=tile, basic=True)
        b = self.content.basic_tile(tile)
        if b.on_build is not None:
            fx.queue(st, seat, list(b.on_build.effects), b.name, space)

    def _settle_setup(self, st: CrossroadsState, events: list[Event]) -> None:
        """Resolve the Basic Inn Tiles' effects; once every choice is made, finish setup."""
        fx.run(self.content, st, events)
        if st.pending is None and not st.jobs and not any(p.kept for p in st.seats):
            self._finish_setup(st, events)

    def _finish_setup(self, st: CrossroadsState, events: list[Event]) -> None:
        c = self.content
        for s, p in enumerate(st.seats):
            fx.add_chest(c, p, p.revenue)
            for g in GOSSIP_TYPES:
                fx.add_gossip(c, st, p, g, c.game.setup.starting_gossips_per_type)
            for _ in range(c.game.setup.starting_recipes):
                recipe = fx.draw_recipe(st)
                if recipe is not None:
                    p.recipes.append(recipe)
            note(events, s, f"{{0}} starts with {p.chest} guldens and {len(p.recipes)} Recipes")
        st.phase = "turn"
        self._start_turn(st, 0, events)

    def _start_turn(self, st: CrossroadsState, seat: Seat, events: list[Event]) -> None:
        p = st.seats[seat]
        st.turn = Turn(seat=seat)
        p.pouch += p.chest
        p.chest = 0
        note(events, seat, f"{{0}}'s turn: {p.pouch} guldens move from the Chest to the Pouch")
        self._advance(st, events)

    # ------------------------------------------------------------------ whose move

    def to_act(self, st: CrossroadsState) -> list[Seat]:
        if st.finished:
            return []
        if st.pending is not None:
            return [st.pending.seat]
        if st.phase == "draft":
            return [s for s, p in enumerate(st.seats) if not p.picked]
        if st.phase == "place_basics":
            return [next(s for s, p in enumerate(st.seats) if p.kept)]
        return [st.turn.seat]

    # ------------------------------------------------------------------ legal actions

    def legal_actions(self, st: CrossroadsState, seat: Seat) -> list[Any]:
        if seat not in self.to_act(st):
            return []
        c = self.content
        takeback: list[Any] = [TakeBack()] if self._can_take_back(st, seat) else []
        if st.pending is not None:
            return [Choose(option=o) for o in self.pending_options(st)] + takeback
        p = st.seats[seat]
        if st.phase == "draft":
            return [DraftPick(tile=t) for t in sorted(set(p.pack))]
        if st.phase == "place_basics":
            free = [s for s in board.CORNERS if s not in p.inn]
            return [PlaceBasic(tile=t, space=s) for t in sorted(set(p.kept)) for s in free]
        step = st.turn.step
        out: list[Any] = []
        if step == "impression":
            out = [*self._impressions(st, seat), Next()]
        elif step == "gossip":
            out = [*self._gossip_actions(st, seat), Next()]
        elif step == "invest":
            out = [*self._buys(st, seat), Next()]
        elif step == "reserve":
            out = [*self._reserves(st, seat), Next()]
        elif step == "build":
            spaces = self.build_spaces(st, seat)
            out = [Build(space=s) for s in spaces] or [SetAside()]
        elif step == "recipes":
            out = [Complete(recipe=r) for r in sorted(set(p.recipes))
                   if self.can_complete(st, seat, r)] + [Next()]
        elif step == "confirm":
            out = [EndTurn()]
            # Without Basic Inn Tiles the game ends anyway at the first full inn.
            if board.covered(p.inn) >= c.game.end.spaces_to_cover and st.announced_by is None \
                    and st.options.basic_tiles != "none":
                out.append(EndTurn(announce=True))
        return out + takeback

    def _can_take_back(self, st: CrossroadsState, seat: Seat) -> bool:
        return (st.phase == "turn" and seat == st.turn.seat and st.undo is not None
                and bool(st.undo.since))

    def pending_options(self, st: CrossroadsState) -> list[str]:
        pend = st.pending
        assert pend is not None
        return list(dict.fromkeys(pend.options))

    def _impressions(self, st: CrossroadsState, seat: Seat) -> list[Impression]:
        if st.turn.impression_done:
            return []
        c = self.content
        p = st.seats[seat]
        doors = c.boards.inn_board.doors
        out = []
        for closed, opened in itertools.permutations(GROUPS, 2):
            if closed == p.closed_door or opened == p.open_door:
                continue
            effects = [{"kind": "reputation", "group": closed, "amount": doors.closed},
                       {"kind": "reputation", "group": opened, "amount": doors.open}]
            if fx.lowest_prestige(c, p, effects) < c.boards.prestige_track.min:
                continue
            out.append(Impression(closed=closed, open=opened))
        return out

    def _gossip_actions(self, st: CrossroadsState, seat: Seat) -> list[UseGossip]:
        c = self.content
        p = st.seats[seat]
        n = st.players
        others = [s for s in range(n) if s != seat]
        out: list[UseGossip] = []
        for a in c.resources.gossip_actions:
            if a.gossip in st.turn.gossips_used or n not in a.players \
                    or p.gossips.get(a.gossip, 0) < a.spend:
                continue
            if a.id == "economic_a":
                out.append(UseGossip(action=a.id))
            elif a.id == "economic_b":
                for o in others:
                    q = st.seats[o]
                    kinds = [g for g in GOSSIP_TYPES if q.gossips.get(g, 0) > 0]
                    if kinds:
                        out += [UseGossip(action=a.id, players=(o,), gossip=g) for g in kinds]
                    elif q.chest > 0:
                        out.append(UseGossip(action=a.id, players=(o,)))
            elif a.id == "economic_c":
                out += [UseGossip(action=a.id, players=pair)
                        for pair in itertools.combinations(others, 2)
                        if any(st.seats[o].chest > 0 for o in pair)]
            elif a.id == "political_a":
                out += [UseGossip(action=a.id, groups=(g,)) for g in GROUPS]
            elif a.id == "political_b":
                for o in range(n):
                    for low, high in itertools.product(GROUPS, GROUPS):
                        if o == seat and fx.lowest_prestige(c, p, [
                                {"kind": "reputation", "group": low, "amount": -1}]) \
                                < c.boards.prestige_track.min:
                            continue
                        out.append(UseGossip(action=a.id, players=(o,), groups=(low, high)))
            elif a.id == "political_c":
                for pair in itertools.combinations(others, 2):
                    out += [UseGossip(action=a.id, players=pair, groups=gs)
                            for gs in itertools.product(GROUPS, GROUPS)]
            elif a.id == "travellers_a":
                out += [UseGossip(action=a.id, tier=t) for t in (1, 2)
                        if any(st.tracks[t - 1]) or st.pouches[t - 1]]
            elif a.id == "travellers_b":
                out += [UseGossip(action=a.id, players=(o,), mine=m, theirs=t)
                        for m, o, t in self.swap_options(st, seat)]
        return out

    def swap_options(self, st: CrossroadsState, seat: Seat) -> list[tuple[str, int, str]]:
        """Traveller's gossip b: (my space, other seat, their space) of ingredient tiles whose
        exchange breaks no Kingdom Card in either inn."""
        c = self.content
        mine = [s for s, b in st.seats[seat].inn.items()
                if not b.basic and c.tile(b.tile).ingredient]
        out = []
        for o in range(st.players):
            if o == seat:
                continue
            q = st.seats[o]
            theirs = [s for s, b in q.inn.items() if not b.basic and c.tile(b.tile).ingredient]
            for m in sorted(mine):
                for t in sorted(theirs):
                    if not st.kingdom or self._swap_ok(st, seat, m, o, t):
                        out.append((m, o, t))
        return out

    def _swap_ok(self, st: CrossroadsState, seat: Seat, m: str, o: int, t: str) -> bool:
        return self._swap_problem(st, seat, m, o, t) is None

    def _swap_problem(self, st: CrossroadsState, seat: Seat, m: str, o: int,
                      t: str) -> str | None:
        """Why exchanging the tiles on ``m`` (mine) and ``t`` (seat ``o``'s) is refused."""
        c = self.content
        if not (0 <= o < st.players) or o == seat:
            return "Choose another player's tile."
        a = dict(st.seats[seat].inn)
        b = dict(st.seats[o].inn)
        for inn, space in ((a, m), (b, t)):
            built = inn.get(space)
            if built is None or built.basic or not c.tile(built.tile).ingredient:
                return "Only two ingredient-giving Inn Tiles can be exchanged."
        a[m], b[t] = b[t], a[m]
        return (board.inn_problem(c, a, st.kingdom, [m])
                or board.inn_problem(c, b, st.kingdom, [t]))

    def buy_cost(self, st: CrossroadsState, seat: Seat, tile_id: str) -> list[str]:
        """The ways ``seat`` can pay for ``tile_id`` now: ``guldens`` and/or ``gossips``."""
        c = self.content
        p = st.seats[seat]
        tile = c.tile(tile_id)
        ways = []
        if p.pouch >= tile.cost.guldens:
            ways.append("guldens")
        alt = tile.cost.or_gossips
        if alt is not None and p.gossips.get(alt.gossip, 0) >= alt.count:
            ways.append("gossips")
        return ways

    def _buys(self, st: CrossroadsState, seat: Seat) -> list[Buy]:
        if st.turn.buys >= self.content.game.turn.tiles_bought_per_turn:
            return []
        p = st.seats[seat]
        out = []
        sources: list[tuple[int | None, int, str]] = [
            (tier, slot, t) for tier in (1, 2)
            for slot, t in enumerate(st.tracks[tier - 1]) if t is not None]
        sources += [(None, i, t) for i, t in enumerate(p.reserved)]
        for tier, slot, tile in sources:
            if not self._placeable(st, seat, tile):
                continue
            out += [Buy(tier=tier, slot=slot, pay=w) for w in self.buy_cost(st, seat, tile)]
        return out

    def _reserves(self, st: CrossroadsState, seat: Seat) -> list[Reserve]:
        p = st.seats[seat]
        if st.turn.reserved or len(p.reserved) >= self.content.boards.inn_board.reserved_spaces:
            return []
        return [Reserve(tier=tier, slot=slot) for tier in (1, 2)
                for slot, t in enumerate(st.tracks[tier - 1]) if t is not None]

    # ------------------------------------------------------------------ building

    def _free_spaces(self, st: CrossroadsState, seat: Seat) -> list[str]:
        inn = st.seats[seat].inn
        out = [s for s in board.MAIN_SPACES if s not in inn]
        out += [s for s in board.CORNERS if s in inn and inn[s].basic]
        return out

    def space_problem(self, st: CrossroadsState, seat: Seat, tile_id: str,
                      space: str) -> str | None:
        """Why ``tile_id`` may not be built on ``space`` now, or None."""
        c = self.content
        p = st.seats[seat]
        if not board.is_space(space):
            return f"There is no space {space} in an inn."
        here = p.inn.get(space)
        if here is not None and not here.basic:
            return "That space already holds a tile."
        if here is None and board.is_corner(space):
            return "The corner spaces are for Basic Inn Tiles only (unavailable in this game)."
        tile = c.tile(tile_id)
        problem = board.placement_problem(c, p.inn, tile, space, st.kingdom, st.turn.built)
        if problem:
            return problem
        reversal: list[Any] = []
        if here is not None:
            reason = self.cover_problem(st, seat, here.tile)
            if reason:
                return reason
            reversal = list(c.basic_tile(here.tile).on_cover.effects)
        effects = [*reversal, *tile.on_build, *self._ring_effects(st, space)]
        if fx.lowest_prestige(c, p, [e for e in effects if e.kind in ("prestige", "reputation")]) \
                < c.boards.prestige_track.min:
            return "Building it there would bring your Prestige below 1."
        return None

    def cover_problem(self, st: CrossroadsState, seat: Seat, basic_id: str) -> str | None:
        """Why the Basic Inn Tile cannot be covered (a bonus that cannot be reduced), by
        whatever tile: its bonus is given back before the new tile's effects come.

        Every reversal is checked against its own limit. Inn's Revenue stops at 1 and
        gossips at 0 with no rule for going further, so those bonuses cannot be given back
        below them; a Reputation token that would fall below 0 "ends on the space 0, and
        they lose" the difference in Prestige, so that bonus can always be given back,
        unless the Prestige it costs (or a Prestige bonus given back) would bring the
        player below 1 ("If the player was to lower it by performing an action (...
        building tiles), they may not perform the given action")."""
        c = self.content
        p = st.seats[seat]
        b = c.basic_tile(basic_id)
        for e in b.on_cover.effects:
            k = e.kind
            amount = getattr(e, "amount", 0)
            ok = True
            if k == "revenue":
                ok = p.revenue + amount >= c.boards.inn_board.revenue_track.min
            elif k == "gossip":
                ok = p.gossips.get(e.gossip, 0) + amount >= 0
            elif k == "gossip_any":
                ok = sum(p.gossips.values()) + amount >= 0
            elif k == "recipe_discard":
                ok = len(p.recipes) >= amount
            elif k == "reserved_discard":
                ok = len(p.reserved) >= amount
            if not ok:
                return f"You cannot cover {b.name}: you cannot give back \"{b.on_cover.text}\"."
        floor = c.boards.prestige_track.min
        lowest = fx.lowest_prestige(c, p, list(b.on_cover.effects))
        if lowest < floor:
            giving = f"giving back \"{b.on_cover.text}\""
            falls = [f"{c.group(e.group).name} at {p.reputation[e.group]}"
                     for e in b.on_cover.effects if e.kind == "reputation"
                     and fx.below_min_prestige(c, p.reputation[e.group] + e.amount)]
            if falls:
                return (f"You cannot cover {b.name}: {giving} with {' and '.join(falls)} "
                        f"would cost {p.prestige - lowest} Prestige, and your Prestige "
                        f"({p.prestige}) cannot go below {floor}.")
            return (f"You cannot cover {b.name}: {giving} would bring your Prestige "
                    f"({p.prestige}) below {floor}.")
        return None

    def _ring_effects(self, st: CrossroadsState, space: str) -> list[Any]:
        out: list[Any] = []
        for number in st.kingdom:
            rule = self.content.kingdom_card(number).rule
            if rule.kind == "ring_effects":
                out += list(rule.inner if board.ring(space) == "inner" else rule.outer)
        return out

    def build_spaces(self, st: CrossroadsState, seat: Seat) -> list[str]:
        if not st.turn.bought:
            return []
        tile = st.turn.bought[0]
        return [s for s in self._free_spaces(st, seat)
                if self.space_problem(st, seat, tile, s) is None]

    def _placeable(self, st: CrossroadsState, seat: Seat, tile: str) -> bool:
        return any(self.space_problem(st, seat, tile, s) is None
                   for s in self._free_spaces(st, seat))

    def can_complete(self, st: CrossroadsState, seat: Seat, recipe: str) -> bool:
        have = self.ingredients(st.seats[seat])
        return all(have.get(i, 0) > 0 for i in self.content.recipe(recipe).ingredients)

    @staticmethod
    def ingredients(p: Player) -> dict[str, int]:
        out: dict[str, int] = {}
        for b in p.inn.values():
            for i in b.ingredients:
                out[i] = out.get(i, 0) + 1
        return out

    # ------------------------------------------------------------------ applying

    def explain_illegal(self, st: CrossroadsState, seat: Seat, action: Any) -> str:
        c = self.content
        p = st.seats[seat]
        kind = getattr(action, "kind", "")
        if st.pending is not None and kind != "undo":
            return f"First decide: {self._pending_prompt(st)}"
        if kind == "undo":
            return "There is nothing to take back: a draw or a roll made the earlier steps final."
        if st.phase == "turn" and kind in {"impression", "gossip", "buy", "reserve", "build",
                                           "complete", "end_turn", "set_aside"}:
            wanted = {"impression": "impression", "gossip": "gossip", "buy": "invest",
                      "reserve": "reserve", "build": "build", "set_aside": "build",
                      "complete": "recipes", "end_turn": "confirm"}[kind]
            if STEPS.index(st.turn.step) > STEPS.index(wanted):
                return f"That step is over: you are at {self.step_name(st.turn.step)}."
            if STEPS.index(st.turn.step) < STEPS.index(wanted):
                return (f"Steps go in order: finish {self.step_name(st.turn.step)} first "
                        "(or skip it).")
        if kind == "impression":
            if st.turn.impression_done:
                return "You changed the Guest Impression already this turn."
            if action.closed == action.open:
                return "Put two different groups behind the two doors."
            if action.closed == p.closed_door or action.open == p.open_door:
                return "A Guest Tile may not go back on the door it stood on before."
            return "That would bring your Prestige below 1."
        if kind == "gossip":
            if action.action.split("_")[0] in st.turn.gossips_used:
                return "You used an action of that gossip already this turn."
            try:
                a = c.gossip_action(action.action)
            except Exception:
                return "There is no such gossip action."
            if st.players not in a.players:
                return f"That gossip action is for {'2' if 2 in a.players else '3-4'} players."
            if p.gossips.get(a.gossip, 0) < a.spend:
                return f"You need {a.spend} {GOSSIP_NAME[a.gossip]} gossip(s) for that."
            if a.id == "travellers_b" and action.players and action.mine and action.theirs:
                problem = self._swap_problem(st, seat, action.mine, action.players[0],
                                             action.theirs)
                if problem:
                    return problem
            return "Those targets are not allowed for that gossip action."
        if kind == "buy":
            if st.turn.buys >= c.game.turn.tiles_bought_per_turn:
                return "You bought two tiles already this turn."
            tile = self._source_tile(st, seat, action)
            if tile is None:
                return "There is no tile there."
            if not self._placeable(st, seat, tile):
                reasons = {self.space_problem(st, seat, tile, s)
                           for s in self._free_spaces(st, seat)}
                if len(reasons) == 1:
                    return f"No space of your inn can take {c.tile(tile).name} now: " \
                        f"{reasons.pop()}"
                return f"No space of your inn can take {c.tile(tile).name} now."
            return f"You cannot pay {c.tile(tile).cost_text} for {c.tile(tile).name}."
        if kind == "reserve":
            if st.turn.reserved:
                return "You may reserve one tile per turn."
            if len(p.reserved) >= c.boards.inn_board.reserved_spaces:
                return "You have two reserved tiles: buy one before reserving another."
            return "There is no tile there."
        if kind == "build" and st.turn.bought:
            return self.space_problem(st, seat, st.turn.bought[0], action.space) or \
                "You cannot build there."
        if kind == "complete":
            if action.recipe not in p.recipes:
                return "That Recipe is not in your hand."
            return "You do not have every ingredient of that Recipe."
        if kind == "end_turn" and action.announce:
            return "You may end the game only once all 16 spaces of your inn are covered."
        if kind == "draft":
            return "Pick one of the tiles in your pack." if not p.picked else \
                "You picked already: wait for the others."
        return "That move is not allowed right now."

    def _source_tile(self, st: CrossroadsState, seat: Seat, action: Buy) -> str | None:
        if action.tier is None:
            r = st.seats[seat].reserved
            return r[action.slot] if 0 <= action.slot < len(r) else None
        if action.tier not in (1, 2) or not 0 <= action.slot < 4:
            return None
        return st.tracks[action.tier - 1][action.slot]

    def apply(self, st: CrossroadsState, seat: Seat, action: Any) -> list[Event]:
        events = super().apply(st, seat, action)
        self._after(st, seat, action)
        return events

    def _after(self, st: CrossroadsState, seat: Seat, action: Any) -> None:
        """Keep the take-back point: a step that revealed something, a decision of another
        seat, the start of a turn, and setup are final."""
        final = (st.revealed or st.phase != "turn" or st.finished or st.undo is None
                 or action.kind == "end_turn" or seat != st.turn.seat)
        st.revealed = False
        if action.kind == "undo":
            return
        if final:
            self._checkpoint(st)
        else:
            st.undo.since.append(self.dump_action(action))

    def _checkpoint(self, st: CrossroadsState) -> None:
        st.undo = None
        if st.phase == "turn" and not st.finished:
            st.undo = Undo(checkpoint=self.dump_state(st))

    def _apply(self, st: CrossroadsState, seat: Seat, action: Any) -> list[Event]:
        events: list[Event] = []
        c = self.content
        kind = action.kind
        if kind == "undo":
            assert st.undo is not None
            since = st.undo.since[:-1]
            saved = st.undo.checkpoint
            checkpoint = self.load_state(saved)
            for field in type(st).model_fields:
                setattr(st, field, getattr(checkpoint, field))
            for raw in since:
                self._apply(st, seat, self.parse_action(raw))
            st.undo = Undo(checkpoint=saved, since=since)
            st.ply = self.load_state(saved).ply + len(since)
            note(events, seat, "{0} takes back the last step")
            st.revealed = False
            return events
        if kind == "choose":
            fx.choose(c, st, events, action.option)
        elif kind == "draft":
            self._draft(st, seat, action.tile, events)
        elif kind == "place_basic":
            p = st.seats[seat]
            p.kept.remove(action.tile)
            self._place_basic(st, seat, action.tile, action.space)
            note(events, seat, f"{{0}} places {c.basic_tile(action.tile).name} on a corner")
            if len(p.kept) == 1:
                last = next(s for s in board.CORNERS if s not in p.inn)
                tile = p.kept.pop()
                self._place_basic(st, seat, tile, last)
                note(events, seat, f"{{0}} places {c.basic_tile(tile).name} on the last "
                     "corner")
        elif kind == "impression":
            self._impression(st, seat, action, events)
        elif kind == "gossip":
            self._use_gossip(st, seat, action, events)
        elif kind == "buy":
            self._buy(st, seat, action, events)
        elif kind == "reserve":
            tile = st.tracks[action.tier - 1][action.slot]
            assert tile is not None
            st.tracks[action.tier - 1][action.slot] = None
            st.seats[seat].reserved.append(tile)
            st.turn.reserved = True
            note(events, seat, f"{{0}} reserves {c.tile(tile).name}")
            self._end_reserving(st, events)
        elif kind == "build":
            self._build(st, seat, action.space, events)
        elif kind == "set_aside":
            tile = st.turn.bought.pop(0)
            st.discards[c.tile(tile).tier - 1].append(tile)
            st.turn.set_aside.append(tile)
            note(events, seat, f"No space can take {c.tile(tile).name}: it is discarded")
        elif kind == "complete":
            self._complete(st, seat, action.recipe, events)
        elif kind == "next":
            self._next(st, seat, events)
        elif kind == "end_turn":
            self._end_turn(st, seat, action.announce, events)
            return events
        if st.phase == "turn":
            fx.run(c, st, events)
            self._advance(st, events)
        elif st.phase == "place_basics":
            self._settle_setup(st, events)
        return events

    def _draft(self, st: CrossroadsState, seat: Seat, tile: str, events: list[Event]) -> None:
        p = st.seats[seat]
        p.pack.remove(tile)
        p.kept.append(tile)
        p.picked = True
        note(events, seat, "{0} keeps a Basic Inn Tile face down")
        if not all(q.picked for q in st.seats):
            return
        packs = [q.pack for q in st.seats]
        n = st.players
        for s, q in enumerate(st.seats):
            q.pack = packs[(s - 1) % n]  # passed on by the player to the right
            q.picked = False
        st.draft_round += 1
        if all(len(q.pack) == 1 for q in st.seats):
            for q in st.seats:
                q.kept.append(q.pack.pop())
            st.phase = "place_basics"
            note(events, None, "The Basic Inn Tiles are revealed")

    def _impression(self, st: CrossroadsState, seat: Seat, action: Impression,
                    events: list[Event]) -> None:
        c = self.content
        p = st.seats[seat]
        doors = c.boards.inn_board.doors
        p.closed_door, p.open_door = action.closed, action.open
        st.turn.impression_done = True
        note(events, seat, f"{{0}} changes the Guest Impression: {c.group(action.closed).name} "
             f"behind the closed door ({doors.closed:+d}), {c.group(action.open).name} behind "
             f"the open door ({doors.open:+d})")
        fx.queue(st, seat, [
            {"kind": "reputation", "group": action.closed, "amount": doors.closed},
            {"kind": "reputation", "group": action.open, "amount": doors.open}],
            "Guest Impression")
        st.turn.step = "gossip"

    def _use_gossip(self, st: CrossroadsState, seat: Seat, action: UseGossip,
                    events: list[Event]) -> None:
        c = self.content
        a = c.gossip_action(action.action)
        p = st.seats[seat]
        fx.add_gossip(c, st, p, a.gossip, -a.spend)
        st.turn.gossips_used.append(a.gossip)
        spent = f"spends {a.spend} {GOSSIP_NAME[a.gossip]} gossip{'s' if a.spend > 1 else ''}"
        if a.id == "economic_a":
            note(events, seat, f"{{0}} {spent}: +2 guldens in the Pouch")
            fx.queue(st, seat, list(a.effects), "economic gossip")
        elif a.id in ("economic_b", "economic_c"):
            for o in action.players:
                q = st.seats[o]
                took = min(1, q.chest)
                q.chest -= took
                p.pouch += took
                what = f"{took} gulden"
                if a.id == "economic_b" and action.gossip:
                    fx.add_gossip(c, st, q, action.gossip, -1)
                    fx.add_gossip(c, st, p, action.gossip, 1)
                    article = "an" if GOSSIP_NAME[action.gossip][0] in "aeiou" else "a"
                    what += f" and {article} {GOSSIP_NAME[action.gossip]} gossip"
                note(events, seat, f"{{0}} {spent}: steals {what} from {{1}}", o)
        elif a.id == "political_a":
            note(events, seat, f"{{0}} {spent}")
            fx.queue(st, seat, [{"kind": "reputation", "group": action.groups[0],
                                 "amount": 1}], "political gossip")
        elif a.id in ("political_b", "political_c"):
            note(events, seat, f"{{0}} {spent}")
            for o, g in zip(action.players, action.groups, strict=False):
                note(events, seat, f"{{0}} lowers {{1}}'s {c.group(g).name} Reputation by 1", o)
                st.jobs.append(Job(seat=o, effect={"kind": "reputation", "group": g,
                                                   "amount": -1, "performer": seat},
                                   source="political gossip"))
            if a.id == "political_b":
                fx.queue(st, seat, [{"kind": "reputation", "group": action.groups[1],
                                     "amount": 1}], "political gossip")
        elif a.id == "travellers_a":
            tier = action.tier
            assert tier is not None
            track = st.tracks[tier - 1]
            st.discards[tier - 1].extend(t for t in track if t is not None)
            st.tracks[tier - 1] = [None] * len(track)
            fx.refill(st, tier)
            note(events, seat, f"{{0}} {spent}: the tier {tier} track is dealt anew")
        elif a.id == "travellers_b":
            o = action.players[0]
            assert action.mine and action.theirs
            self._swap(st, seat, action.mine, o, action.theirs, events, spent)

    def _swap(self, st: CrossroadsState, seat: Seat, mine: str, o: int, theirs: str,
              events: list[Event], spent: str) -> None:
        c = self.content
        p, q = st.seats[seat], st.seats[o]
        a, b = p.inn[mine], q.inn[theirs]
        a_cover, b_cover = a.covers, b.covers
        p.inn[mine], q.inn[theirs] = b, a
        b.covers, a.covers = a_cover, b_cover
        for owner, space, built in ((p, mine, b), (q, theirs, a)):
            if not built.ingredients:
                self._place_ingredients(st, st.seats.index(owner), space, built)
        note(events, seat, f"{{0}} {spent}: swaps {c.tile(a.tile).name} for {{1}}'s "
             f"{c.tile(b.tile).name}", o)

    def _place_ingredients(self, st: CrossroadsState, seat: Seat, space: str,
                           built: Built) -> None:
        """Put the ingredient tokens of a tile just placed: one, plus the Garden Patch's
        extra one when it covers that, plus Kingdom Card #9's on a corner."""
        c = self.content
        ingredient = c.tile(built.tile).ingredient
        if ingredient is None:
            return
        count = 1
        if built.covers is not None:
            for e in c.basic_tile(built.covers).on_cover.effects:
                if e.kind == "extra_ingredient":
                    count += e.amount
        if board.is_corner(space):
            for number in st.kingdom:
                rule = c.kingdom_card(number).rule
                if rule.kind == "corner_extra_ingredient":
                    count += rule.amount
        count = min(count, fx.supply_ingredient(c, st, ingredient))
        built.ingredients.extend([ingredient] * count)

    def _buy(self, st: CrossroadsState, seat: Seat, action: Buy, events: list[Event]) -> None:
        c = self.content
        p = st.seats[seat]
        if action.tier is None:
            tile = p.reserved.pop(action.slot)
            where = "reserved"
        else:
            tile = fx.take_from_track(st, action.tier, action.slot)
            where = f"tier {action.tier} track"
        t = c.tile(tile)
        if action.pay == "gossips":
            alt = t.cost.or_gossips
            assert alt is not None
            fx.add_gossip(c, st, p, alt.gossip, -alt.count)
            paid = f"{alt.count} {GOSSIP_NAME[alt.gossip]} gossips"
        else:
            p.pouch -= t.cost.guldens
            paid = f"{t.cost.guldens} guldens"
        st.turn.bought.append(tile)
        st.turn.buys += 1
        note(events, seat, f"{{0}} buys {t.name} ({where}) for {paid}")
        if st.turn.buys >= c.game.turn.tiles_bought_per_turn:
            st.turn.step = "reserve"

    def _end_reserving(self, st: CrossroadsState, events: list[Event]) -> None:
        fx.end_of_reserving(st)
        note(events, None, "The Investment Tracks move right and are refilled")
        st.turn.step = "build"

    def _build(self, st: CrossroadsState, seat: Seat, space: str, events: list[Event]) -> None:
        c = self.content
        p = st.seats[seat]
        tile_id = st.turn.bought.pop(0)
        tile = c.tile(tile_id)
        under = p.inn.get(space)
        built = Built(tile=tile_id, turn=p.turns + 1, covers=under.tile if under else None)
        jobs: list[Any] = []
        if under is not None:
            b = c.basic_tile(under.tile)
            note(events, seat, f"{{0}} covers {b.name}: {b.on_cover.text}")
            jobs += [e for e in b.on_cover.effects if e.kind != "extra_ingredient"]
        p.inn[space] = built
        st.turn.built.append(space)
        note(events, seat, f"{{0}} builds {tile.name} on {board.space_name(space)}: "
             f"{tile.effect.text}"
             + (f"; {tile.drawback.text}" if tile.drawback else ""))
        self._place_ingredients(st, seat, space, built)
        jobs += [e for e in tile.on_build if e.kind != "ingredient"]
        jobs += self._ring_effects(st, space)
        fx.queue(st, seat, jobs, tile.name, space)
        self._line_bonus(st, seat, space, events)

    def _line_bonus(self, st: CrossroadsState, seat: Seat, space: str,
                    events: list[Event]) -> None:
        c = self.content
        for number in st.kingdom:
            rule = c.kingdom_card(number).rule
            if rule.kind != "line_bonus":
                continue
            p = st.seats[seat]
            lines = board.new_lines(c, p.inn, space, rule.length)
            if not lines:
                return
            for s in lines[0]:
                p.inn[s].in_line = True
            cat = c.tile(p.inn[space].tile).category
            bonus = next(b for b in rule.bonuses if b.category == cat)
            for e in bonus.effects:
                if e.kind == "guldens":
                    paid = min(e.amount, st.line_pool.get("guldens", 0))
                    st.line_pool["guldens"] -= paid
                    fx.add_guldens(c, p, paid)
                    got = f"{paid} guldens"
                else:
                    room = min(e.amount, st.line_pool.get(e.gossip, 0))
                    st.line_pool[e.gossip] -= room  # back to the supply, then to the player
                    made = fx.add_gossip(c, st, p, e.gossip, room)
                    st.line_pool[e.gossip] += room - made
                    got = f"{made} {GOSSIP_NAME[e.gossip]} gossip"
            note(events, seat, f"{{0}} completes a line of three {c.category(cat).name}: "
                 f"{got} from Kingdom Card #{number}")

    def _complete(self, st: CrossroadsState, seat: Seat, recipe_id: str,
                  events: list[Event]) -> None:
        c = self.content
        p = st.seats[seat]
        recipe = c.recipe(recipe_id)
        for ingredient in recipe.ingredients:
            holders = [b for _, b in sorted(p.inn.items()) if ingredient in b.ingredients]
            holder = max(holders, key=lambda b: b.ingredients.count(ingredient))
            holder.ingredients.remove(ingredient)
        p.recipes.remove(recipe_id)
        p.completed.append(recipe_id)
        note(events, seat, f"{{0}} cooks {recipe.name}: {recipe.reward.text}")
        fx.queue(st, seat, list(recipe.reward.effects), recipe.name)

    def _next(self, st: CrossroadsState, seat: Seat, events: list[Event]) -> None:
        step = st.turn.step
        # A public line for every Skip, so a take-back always undoes a step the log shows.
        note(events, seat, self._skip_line(st, step))
        if step == "reserve":
            self._end_reserving(st, events)
        elif step == "recipes":
            st.turn.step = "confirm"
        else:
            st.turn.step = STEPS[STEPS.index(step) + 1]

    def _skip_line(self, st: CrossroadsState, step: str) -> str:
        """The log line of going on from ``step`` (public facts only: the Recipes step is
        "done" whether or not a secret Recipe could have been cooked)."""
        t = st.turn
        if step == "gossip" and t.gossips_used:
            return "{0} is done with the gossip actions"
        if step == "invest" and t.buys:
            return "{0} is done buying"
        if step == "reserve":
            return "{0} reserves no tile"
        if step == "recipes":
            return "{0} is done with the Recipes"
        return f"{{0}} skips {self.step_name(step)}"

    def _advance(self, st: CrossroadsState, events: list[Event]) -> None:
        """Skip the steps that offer nothing but "go on", so a turn takes few clicks. The
        end of Reserving is never skipped on its own: it reveals new tiles, which makes
        the turn so far final, so the player decides when."""
        if st.pending is not None or st.jobs or st.finished:
            return
        seat = st.turn.seat
        for _ in range(len(STEPS)):
            step = st.turn.step
            if step == "impression" and st.turn.impression_done:
                st.turn.step = "gossip"
            elif step == "gossip" and not self._gossip_actions(st, seat):
                st.turn.step = "invest"
            elif step == "invest" and not self._buys(st, seat):
                st.turn.step = "reserve"
            elif step == "build" and not st.turn.bought:
                st.turn.step = "recipes"
            # Skipped on public facts only: whether a secret Recipe could be cooked must
            # not show in the public step.
            elif step == "recipes" and (not st.seats[seat].recipes
                                        or not self.ingredients(st.seats[seat])):
                st.turn.step = "confirm"
            else:
                return

    def _end_turn(self, st: CrossroadsState, seat: Seat, announce: bool,
                  events: list[Event]) -> None:
        c = self.content
        p = st.seats[seat]
        income = p.revenue
        fx.add_chest(c, p, income)
        fx.add_chest(c, p, p.pouch)
        unused = p.pouch
        p.pouch = 0
        paid = min(p.debts, p.chest)
        p.chest -= paid
        p.debts -= paid
        p.turns += 1
        note(events, seat, f"{{0}} ends the turn: +{income} revenue and {unused} unused "
             f"guldens into the Chest" + (f", pays {paid} Debt" if paid else "")
             + (f", {p.debts} Debt left" if p.debts else ""))
        target = c.game.end.spaces_to_cover
        if announce:
            st.announced_by = seat
            st.last_turns = [s for s in range(seat + 1, st.players)]
            note(events, seat, "{0} announces the end of the game"
                 + (": the others with fewer turns play a last turn" if st.last_turns else ""))
        elif seat in st.last_turns:
            st.last_turns.remove(seat)
        everyone = all(board.covered(q.inn) >= target for q in st.seats)
        first_done = st.options.basic_tiles == "none" and board.covered(p.inn) >= target
        if (st.announced_by is not None and not st.last_turns) or (
                st.announced_by is None and (everyone or first_done)):
            self._finish(st, events)
            return
        self._start_turn(st, (seat + 1) % st.players, events)
        fx.run(c, st, events)

    # ------------------------------------------------------------------ the end

    def scores(self, st: CrossroadsState) -> list[dict[str, int]]:
        """Each seat's score in parts (the rulebook's Scoring list) and its total.

        The total is the final Prestige, so it is never below 1 ("The player can never
        have less Prestige than 1"; the Reputation bonuses "update the player's score on
        the Prestige track"): parts that add up to less give 1, and such totals tie, to
        be broken by the Nobles and the Townsfolk like any other tie. The parts are a
        count, summed once (the list is no order of moves on the track), so the floor
        applies to the sum."""
        c = self.content
        s = c.game.scoring
        floor = c.boards.prestige_track.min
        out = []
        for p in st.seats:
            parts = {
                "prestige": p.prestige,
                "reputation": sum(c.group(g).prestige_at(v) for g, v in p.reputation.items()),
                "guldens": (p.chest + p.pouch) // s.guldens_per_prestige,
                "gossips": sum(p.gossips.values()) * s.per_gossip,
                "ingredients": sum(len(b.ingredients) for b in p.inn.values()) * s.per_ingredient,
                "debts": p.debts * s.per_debt_token,
                "recipes": len(p.recipes) * s.per_uncompleted_recipe,
            }
            parts["total"] = max(floor, sum(parts.values()))
            out.append(parts)
        return out

    def _finish(self, st: CrossroadsState, events: list[Event]) -> None:
        st.finished = True
        st.phase = "over"
        st.pending = None
        st.jobs = []
        outcome = self.outcome(st)
        assert outcome is not None
        note(events, None, outcome.reason)

    def outcome(self, st: CrossroadsState) -> Outcome | None:
        if not st.finished:
            return None
        scores = self.scores(st)
        tie = self.content.game.scoring.tie_breaks

        def key(s: int) -> tuple[int, ...]:
            return (scores[s]["total"], *(st.seats[s].reputation[g] for g in tie))

        best = max(key(s) for s in range(st.players))
        winners = [s for s in range(st.players) if key(s) == best]
        totals = {s: scores[s]["total"] for s in range(st.players)}
        top = [s for s in range(st.players) if totals[s] == best[0]]
        if len(top) > 1 and len(winners) < len(top):
            reason = (f"The game is over: {best[0]} Prestige; the tie is broken by the "
                      "Nobles, then the Townsfolk.")
        else:
            reason = f"The game is over: the best inn has {best[0]} Prestige."
        return Outcome(winners=winners, scores=totals, reason=reason)

    # ------------------------------------------------------------------ views

    def step_name(self, step: str) -> str:
        return {"impression": "the Guest Impression", "gossip": "the gossip actions",
                "invest": "Investing", "reserve": "Reserving", "build": "Building",
                "recipes": "the Recipes", "confirm": "the end of the turn"}.get(step, step)

    def _pending_prompt(self, st: CrossroadsState) -> str:
        pend = st.pending
        assert pend is not None
        c = self.content
        src = f" ({pend.source})" if pend.source else ""
        return {
            "gossip_gain": f"choose the kind of gossip to receive{src}",
            "gossip_lose": f"choose the kind of gossip to give up{src}",
            "reputation_any": f"choose the group for {pend.amount:+d} Reputation{src}",
            "investment_pick": f"choose a tile of the Investment Tracks to reserve{src}",
            "reserved_discard": f"choose the reserved tile to discard{src}",
            "travellers": "choose the Travellers Special Action (or pass)",
            "townsfolk": "choose the Townsfolk Special Action (or pass)",
            "keep_recipe": "choose which of the two Recipes drawn to keep",
            "discard_recipe": "choose the Recipe to discard",
            "victim_draw": "a Recipe was taken from you: draw a new one?",
        }.get(pend.kind, c.game.name)

    def prompt(self, st: CrossroadsState) -> str:
        if st.finished:
            return self.outcome(st).reason  # type: ignore[union-attr]
        if st.pending is not None:
            return f"Seat {st.pending.seat + 1}: {self._pending_prompt(st)}."
        if st.phase == "draft":
            return (f"Basic Inn Tile draft, round {st.draft_round} of 3: each innkeeper keeps "
                    "one tile face down and passes the rest left.")
        if st.phase == "place_basics":
            return "Place your Basic Inn Tiles on the corners of your inn."
        step = st.turn.step
        return {
            "impression": "Change the Guest Impression, or skip.",
            "gossip": "Use gossips (each kind once per turn), or go on.",
            "invest": f"Buy up to {2 - st.turn.buys} more tile(s), or go on.",
            "reserve": "Reserve one tile, or go on.",
            "build": "Place the tiles you bought, in the order bought.",
            "recipes": "Cook any Recipes you have the ingredients for, or go on.",
            "confirm": "Confirm the turn (or take a step back).",
        }[step]

    def view(self, st: CrossroadsState, seat: Seat | None) -> CrossroadsView:
        c = self.content
        over = st.finished
        scores = self.scores(st) if over else None
        seats = []
        for s, p in enumerate(st.seats):
            seats.append(PlayerView(
                seat=s, prestige=p.prestige, revenue=p.revenue, chest=p.chest, pouch=p.pouch,
                debts=p.debts, gossips=dict(p.gossips), reputation=dict(p.reputation),
                closed_door=p.closed_door, open_door=p.open_door, recipes=len(p.recipes),
                completed=list(p.completed), reserved=list(p.reserved),
                inn={k: b.model_dump(exclude={"turn"}) for k, b in sorted(p.inn.items())},
                covered=board.covered(p.inn), turns=p.turns,
                basics_face_down=len(p.kept) + len(p.pack) if st.phase == "draft" else 0,
                basics_to_place=sorted(p.kept) if st.phase == "place_basics" else [],
                score=scores[s]["total"] if scores else None,
                score_parts=scores[s] if scores else None,
                picked=p.picked if st.phase == "draft" else False))
        pend = st.pending
        pending = None
        if pend is not None:
            public = pend.kind not in ("keep_recipe", "discard_recipe")
            pending = PendingView(seat=pend.seat, kind=pend.kind,
                                  prompt=self._pending_prompt(st), amount=pend.amount,
                                  source=pend.source,
                                  options=list(pend.options)
                                  if seat == pend.seat or public else [])
        me = st.seats[seat] if seat is not None else None
        outcome = self.outcome(st)
        return CrossroadsView(
            seat=seat, players=st.players, phase=st.phase,
            step=st.turn.step if st.phase == "turn" else None,
            active=st.turn.seat if st.phase == "turn" else None, kingdom=list(st.kingdom),
            seats=seats, tracks=[list(t) for t in st.tracks],
            pouches=[len(x) for x in st.pouches], discards=[list(d) for d in st.discards],
            deck=len(st.deck), recipe_discard=len(st.recipe_discard),
            line_pool=dict(st.line_pool), bought=list(st.turn.bought),
            built=list(st.turn.built), set_aside=list(st.turn.set_aside),
            corners_available=st.options.basic_tiles != "none",
            impression_done=st.turn.impression_done,
            gossips_used=list(st.turn.gossips_used),
            buys_left=c.game.turn.tiles_bought_per_turn - st.turn.buys,
            reserved_this_turn=st.turn.reserved, announced_by=st.announced_by,
            last_turns=list(st.last_turns), last_roll=st.last_roll,
            draft_round=st.draft_round, pending=pending, prompt=self.prompt(st),
            winners=outcome.winners if outcome else [],
            my_recipes=sorted(me.recipes) if me is not None else None,
            my_pack=sorted(me.pack) if me is not None else None,
            my_kept=sorted(me.kept) if me is not None else None,
        )

    # ------------------------------------------------------------------ hidden info

    def determinize(self, st: CrossroadsState, seat: Seat | None, rng: Rng) -> CrossroadsState:
        """Resample what ``seat`` cannot see: the other hands, the deck and discard pile
        of Recipes, the Basic Inn Tiles others hold face down, and every future draw and
        roll. The take-back point (a true earlier state) is dropped: a search must not
        learn from it, and take-backs are no move of the game."""
        other = self.copy_state(st)
        other.undo = None
        other.rng = rng.spawn()
        hidden_hands = [s for s in range(st.players) if s != seat]
        pool = list(other.deck) + list(other.recipe_discard)
        for s in hidden_hands:
            pool += other.seats[s].recipes
        secret_pending = (other.pending is not None and other.pending.kind == "keep_recipe"
                          and other.pending.seat != seat)
        if secret_pending:
            pool += other.pending.options  # type: ignore[union-attr]
        rng.shuffle(pool)
        for s in hidden_hands:
            n = len(other.seats[s].recipes)
            other.seats[s].recipes, pool = pool[:n], pool[n:]
        if secret_pending:
            n = len(other.pending.options)  # type: ignore[union-attr]
            other.pending.options, pool = pool[:n], pool[n:]  # type: ignore[union-attr]
        n = len(other.recipe_discard)
        other.recipe_discard, pool = pool[:n], pool[n:]
        other.deck = sorted(pool)
        if (other.pending is not None and other.pending.kind == "discard_recipe"
                and other.pending.seat != seat):
            other.pending.options = list(other.seats[other.pending.seat].recipes)
        if st.phase == "draft":
            basics = list(other.unused_basics)
            for s in hidden_hands:
                basics += other.seats[s].kept + other.seats[s].pack
            rng.shuffle(basics)
            for s in hidden_hands:
                q = other.seats[s]
                nk, np_ = len(q.kept), len(q.pack)
                q.kept, basics = sorted(basics[:nk]), basics[nk:]
                q.pack, basics = sorted(basics[:np_]), basics[np_:]
            other.unused_basics = sorted(basics)
        return other


def _secret_fragments(game: CrossroadsInn, st: CrossroadsState) -> list[list[str]]:
    """Recipe names held in hands and the names of face-down drafted tiles: no public
    message may contain them (they are "interesting" words; generic ones are skipped)."""
    c = game.content
    out: list[list[str]] = []
    for p in st.seats:
        for r in p.recipes:
            out.append(c.recipe(r).name.split())
        if st.phase == "draft":
            for b in p.kept + p.pack:
                out.append(c.basic_tile(b).name.split())
    return out


register(GameSpec(
    engine=CrossroadsInn,
    agents="engines.agents.crossroads_inn",
    board="renderers.crossroads_inn:render",
    private_picture="renderers.crossroads_inn:render_hand",
    text_board="renderers.crossroads_inn:text_board",
    ui="bot.core.choices.crossroads_inn:CrossroadsUI",
    cog="bot.messages.cogs.crossroads_inn",
    rules="rules/crossroads_inn.json",
    conformance=(
        ConformanceCase(2, {"basic_tiles": "none"}, seeds=2, max_plies=20000, agent="heuristic"),
        ConformanceCase(3, {"basic_tiles": "draft", "kingdom": "random"}, seeds=2,
                        max_plies=20000, agent="heuristic"),
        ConformanceCase(4, {"basic_tiles": "random", "kingdom": "8+9"}, seeds=1,
                        max_plies=20000, agent="heuristic"),
        ConformanceCase(2, {"basic_tiles": "draft", "kingdom": "1+5"}, seeds=2,
                        max_plies=2500),
    ),
    secret_fragments=_secret_fragments,
    board_fields=("phase", "step", "active", "kingdom", "seats", "tracks", "pouches",
                  "discards", "line_pool", "bought", "pending", "winners"),
))
