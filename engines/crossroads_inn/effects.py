"""Crossroads Inn effects: gaining and losing, the limits, Special Actions, the die.

Every effect of a tile, a Recipe, a die face or a Special Action goes through the job
queue here: :func:`run` resolves jobs in order until one needs a decision, which it
leaves as ``state.pending`` for :func:`choose` to answer. A Special Action triggered on
a Reputation track jumps the queue (it happens "at any moment", so before the rest of
the effect that moved the token).

The limits of the rulebook's ATTENTION boxes are all here: Prestige never below 1,
revenue 1..10 with the single overflow gulden, Reputation 0..12 with Prestige lost below
0 and one Special Action above 12, 20 guldens in the Chest, 3 gossips of a kind (and the
36 tokens of the supply), Debts without limit.
"""

from __future__ import annotations

from typing import Any

from engines.core import Event, Rng, Seat
from engines.crossroads_inn.content import GOSSIP_TYPES, GROUPS, CrossroadsContent
from engines.crossroads_inn.state import CrossroadsState, Job, Pending, Player


class Note(Event):
    """A line of the game log. ``message`` names seats as ``{0}`` (the actor) and
    ``{1}``, ``{2}``... (``others``)."""

    kind: str = "note"
    message: str
    others: tuple[int, ...] = ()

    def text(self, name: Any) -> str:
        names = [name(self.seat) if self.seat is not None else "",
                 *(name(s) for s in self.others)]
        return self.message.format(*names)


def note(events: list[Event], seat: Seat | None, message: str, *others: int,
         private: tuple[int, ...] | None = None) -> None:
    events.append(Note(seat=seat, message=message, others=tuple(others), visible_to=private))


GOSSIP_NAME = {"economic": "economic", "political": "political", "travellers": "traveller's"}


# --------------------------------------------------------------------------- limits


def supply_gossips(c: CrossroadsContent, st: CrossroadsState, kind: str) -> int:
    total = next(g.tokens for g in c.resources.gossips if g.id == kind)
    held = sum(p.gossips.get(kind, 0) for p in st.seats)
    return total - held - st.line_pool.get(kind, 0)


def supply_ingredient(c: CrossroadsContent, st: CrossroadsState, ingredient: str) -> int:
    total = c.ingredient(ingredient).tokens
    used = sum(b.ingredients.count(ingredient) for p in st.seats for b in p.inn.values())
    return total - used


def gossip_room(c: CrossroadsContent, st: CrossroadsState, p: Player, kind: str) -> int:
    limit = c.boards.inn_board.gossip_spaces_per_type
    return max(0, min(limit - p.gossips.get(kind, 0), supply_gossips(c, st, kind)))


def add_prestige(p: Player, amount: int) -> None:
    p.prestige = max(1, p.prestige + amount)


def add_revenue(c: CrossroadsContent, p: Player, amount: int) -> None:
    track = c.boards.inn_board.revenue_track
    new = p.revenue + amount
    if new > track.max:
        p.revenue = track.max
        add_chest(c, p, track.above_max_guldens)
    else:
        p.revenue = max(track.min, new)


def add_chest(c: CrossroadsContent, p: Player, amount: int) -> None:
    p.chest = min(c.boards.inn_board.chest_gulden_limit, p.chest + amount)


def add_guldens(c: CrossroadsContent, p: Player, amount: int, to: str = "chest") -> None:
    """Positive: guldens (the Chest keeps at most 20); negative: that many Debt Tokens."""
    if amount < 0:
        p.debts += -amount
    elif to == "pouch":
        p.pouch += amount
    else:
        add_chest(c, p, amount)


def add_gossip(c: CrossroadsContent, st: CrossroadsState, p: Player, kind: str,
               amount: int) -> int:
    """Gain (up to the limit of 3 and the supply) or lose gossips; the change made."""
    if amount >= 0:
        gained = min(amount, gossip_room(c, st, p, kind))
        p.gossips[kind] = p.gossips.get(kind, 0) + gained
        return gained
    lost = min(-amount, p.gossips.get(kind, 0))
    p.gossips[kind] = p.gossips.get(kind, 0) - lost
    return -lost


def lowest_prestige(c: CrossroadsContent, p: Player, effects: list[Any]) -> int:
    """The lowest Prestige ``p`` reaches while ``effects`` apply in order (ignoring what
    they trigger), with no floor: below 1 means the player may not take the action that
    causes it. The lowest point, not the end: covering a Basic Inn Tile gives its bonus
    back before the new tile's effects come ("first they reduce the bonuses ... next they
    receive effects of the new tile"), so a later gain cannot pay for a loss the floor
    would have swallowed."""
    prestige = lowest = p.prestige
    rep = dict(p.reputation)
    low = c.boards.reputation.min
    for e in effects:
        kind = e["kind"] if isinstance(e, dict) else e.kind
        amount = (e.get("amount", 0) if isinstance(e, dict) else getattr(e, "amount", 0))
        if kind == "prestige":
            prestige += amount
        elif kind == "reputation":
            group = e["group"] if isinstance(e, dict) else e.group
            new = rep[group] + amount
            if new < low:
                prestige += below_min_prestige(c, new)
                new = low
            rep[group] = min(c.boards.reputation.max, new)
        lowest = min(lowest, prestige)
    return lowest


def below_min_prestige(c: CrossroadsContent, target: int) -> int:
    """The Prestige change of a Reputation token sent to ``target`` below 0: "they lose
    the amount of Prestige points equal to the amount of spaces by which they would fall
    below the limit" (0 when ``target`` is on the track)."""
    board = c.boards.reputation
    return min(0, target - board.min) * -board.below_min_prestige_per_space


# --------------------------------------------------------------------------- reputation


def move_reputation(c: CrossroadsContent, st: CrossroadsState, events: list[Event],
                    seat: Seat, group: str, amount: int, performer: Seat | None = None,
                    source: str = "") -> None:
    """Move ``seat``'s token; a Special Action space landed on or passed (either way)
    and a climb past 12 queue that group's Special Action for ``performer`` (the active
    player when a political gossip moved another player's token)."""
    board = c.boards.reputation
    p = st.seats[seat]
    start = p.reputation[group]
    target = start + amount
    end = max(board.min, min(board.max, target))
    p.reputation[group] = end
    if target < board.min:
        add_prestige(p, below_min_prestige(c, target))
        note(events, seat, f"{{0}} would fall below 0 with the {c.group(group).name}: "
             f"loses {board.min - target} Prestige")
    space = c.group(group).special_action_space
    triggered: list[Job] = []
    doer = seat if performer is None else performer
    if start != space and min(start, end) <= space <= max(start, end):
        triggered.append(Job(seat=doer, effect={"kind": "special", "group": group},
                             source=source))
    if target > board.max and board.above_max_special_action:
        triggered.append(Job(seat=doer, effect={"kind": "special", "group": group},
                             source=source))
    st.jobs[0:0] = triggered


# --------------------------------------------------------------------------- drawing


def roll(st: CrossroadsState) -> int:
    st.revealed = True
    st.last_roll = st.rng.randrange(6) + 1
    return st.last_roll


def draw_recipe(st: CrossroadsState) -> str | None:
    """A random Recipe from the deck (the discard pile is shuffled in when it is empty)."""
    if not st.deck and st.recipe_discard:
        st.deck = sorted(st.recipe_discard)
        st.recipe_discard = []
    if not st.deck:
        return None
    st.revealed = True
    return st.deck.pop(st.rng.randrange(len(st.deck)))


def draw_tile(st: CrossroadsState, tier: int) -> str | None:
    """A tile for an empty space of a track: never a second copy of a tile already on that
    track (drawing again is the same as drawing among the others); an empty pouch takes
    back the discard pile; with neither, the space stays empty."""
    pouch = st.pouches[tier - 1]
    if not pouch and st.discards[tier - 1]:
        pouch.extend(st.discards[tier - 1])
        pouch.sort()
        st.discards[tier - 1] = []
    track = st.tracks[tier - 1]
    candidates = [i for i, t in enumerate(pouch) if t not in track]
    if not candidates:
        return None
    st.revealed = True
    return pouch.pop(candidates[st.rng.randrange(len(candidates))])


def refill(st: CrossroadsState, tier: int) -> None:
    track = st.tracks[tier - 1]
    for i in range(len(track)):
        if track[i] is None:
            track[i] = draw_tile(st, tier)


def take_from_track(st: CrossroadsState, tier: int, slot: int) -> str:
    """Take a tile off a track: the tiles to its left slide right, a new one comes in at
    the far left (after a purchase or an Investment Track pick)."""
    track = st.tracks[tier - 1]
    tile = track[slot]
    assert tile is not None
    track[1:slot + 1] = track[0:slot]
    track[0] = None
    refill(st, tier)
    return tile


def end_of_reserving(st: CrossroadsState) -> None:
    """Every tile moves one space right, the one pushed off the far right is discarded,
    and the free spaces are refilled."""
    for tier in (1, 2):
        track = st.tracks[tier - 1]
        if track[-1] is not None:
            st.discards[tier - 1].append(track[-1])
        st.tracks[tier - 1] = [None, *track[:-1]]
        refill(st, tier)


# --------------------------------------------------------------------------- jobs


def queue(st: CrossroadsState, seat: Seat, effects: list[Any], source: str = "",
          space: str | None = None, front: bool = False) -> None:
    jobs = [Job(seat=seat, effect=e if isinstance(e, dict) else e.model_dump(),
                source=source, space=space) for e in effects]
    if front:
        st.jobs[0:0] = jobs
    else:
        st.jobs.extend(jobs)


def run(c: CrossroadsContent, st: CrossroadsState, events: list[Event]) -> None:
    """Resolve queued effects until one waits for a decision or none are left."""
    while st.pending is None and st.jobs:
        job = st.jobs.pop(0)
        _resolve(c, st, events, job)


def _ask(st: CrossroadsState, seat: Seat, kind: str, options: list[str], job: Job,
         amount: int = 1, other: int | None = None) -> None:
    st.pending = Pending(seat=seat, kind=kind, options=options, amount=amount,
                         source=job.source, space=job.space, other=other)


def _resolve(c: CrossroadsContent, st: CrossroadsState, events: list[Event],
             job: Job) -> None:
    e = job.effect
    kind = e["kind"]
    seat = job.seat
    p = st.seats[seat]
    amount = e.get("amount", 0)
    src = f" ({job.source})" if job.source else ""
    if kind == "prestige":
        add_prestige(p, amount)
        note(events, seat, f"{{0}}: Prestige {amount:+d}{src}")
    elif kind == "revenue":
        add_revenue(c, p, amount)
        note(events, seat, f"{{0}}: Inn's Revenue {amount:+d}{src}")
    elif kind == "guldens":
        add_guldens(c, p, amount, e.get("to", "chest"))
        what = f"+{amount} guldens" if amount >= 0 else f"{-amount} Debt Token(s)"
        note(events, seat, f"{{0}}: {what}{src}")
    elif kind == "gossip":
        made = add_gossip(c, st, p, e["gossip"], amount)
        if made:
            note(events, seat, f"{{0}}: {made:+d} {GOSSIP_NAME[e['gossip']]} gossip{src}")
    elif kind == "gossip_any":
        if amount > 0:
            options = [g for g in GOSSIP_TYPES if gossip_room(c, st, p, g) > 0]
            if options:
                _ask(st, seat, "gossip_gain", options, job, amount)
        elif amount < 0:
            options = [g for g in GOSSIP_TYPES if p.gossips.get(g, 0) > 0]
            if len(options) == 1:
                add_gossip(c, st, p, options[0], -1)
                note(events, seat, f"{{0}}: -1 {GOSSIP_NAME[options[0]]} gossip{src}")
                if amount < -1:
                    queue(st, seat, [{"kind": "gossip_any", "amount": amount + 1}],
                          job.source, front=True)
            elif options:
                _ask(st, seat, "gossip_lose", options, job, -amount)
    elif kind == "reputation":
        note(events, seat, f"{{0}}: {c.group(e['group']).name} {amount:+d}{src}")
        move_reputation(c, st, events, seat, e["group"], amount, e.get("performer"),
                        source=job.source)
    elif kind == "reputation_any":
        _ask(st, seat, "reputation_any", list(GROUPS), job, amount)
    elif kind == "ingredient":
        pass  # tokens are put on the tile when it is placed (see place_ingredients)
    elif kind == "recipe_draw":
        got = 0
        for _ in range(amount):
            recipe = draw_recipe(st)
            if recipe is None:
                break
            p.recipes.append(recipe)
            got += 1
            note(events, seat, f"{{0}} draws the Recipe {c.recipe(recipe).name}{src}",
                 private=(seat,))
        note(events, seat, f"{{0}} draws {got} Recipe card(s){src}")
    elif kind == "recipe_discard":
        for _ in range(min(amount, len(p.recipes))):
            st.revealed = True
            recipe = p.recipes.pop(st.rng.randrange(len(p.recipes)))
            st.recipe_discard.append(recipe)
            note(events, seat, f"{{0}} discards the Recipe {c.recipe(recipe).name}",
                 private=(seat,))
        note(events, seat, f"{{0}} discards {amount} random Recipe card(s){src}")
    elif kind == "investment_pick":
        options = invest_pick_options(c, st, p)
        if options:
            _ask(st, seat, "investment_pick", options, job, amount)
        else:
            note(events, seat, f"{{0}} cannot reserve a tile from the tracks{src}")
    elif kind == "reserved_discard":
        if len(p.reserved) == 1:
            tile = p.reserved.pop(0)
            st.discards[c.tile(tile).tier - 1].append(tile)
            note(events, seat, f"{{0}} discards the reserved {c.tile(tile).name}{src}")
        elif p.reserved:
            _ask(st, seat, "reserved_discard", [str(i) for i in range(len(p.reserved))], job)
    elif kind == "dice":
        face = roll(st)
        die = c.die_face(face)
        note(events, seat, f"{{0}} rolls the Random Events Die: {face}. {die.text}")
        queue(st, seat, list(die.effects), f"die {face}", front=True)
    elif kind == "dice_guldens":
        face = roll(st)
        add_guldens(c, p, face)
        note(events, seat, f"{{0}} rolls {face}: +{face} guldens{src}")
    elif kind == "dice_debt":
        face = roll(st)
        p.debts += face
        note(events, seat, f"{{0}} rolls {face}: {face} Debt Token(s){src}")
    elif kind in ("special", "special_action"):
        special_action(c, st, events, seat, e["group"], job)
    else:  # pragma: no cover - content.py admits no other kind here
        raise ValueError(f"unknown effect kind {kind!r}")


# --------------------------------------------------------------------------- specials


def invest_pick_options(c: CrossroadsContent, st: CrossroadsState, p: Player) -> list[str]:
    if len(p.reserved) >= c.boards.inn_board.reserved_spaces:
        return []
    return [f"{tier}:{slot}" for tier in (1, 2)
            for slot, t in enumerate(st.tracks[tier - 1]) if t is not None]


def travellers_options(st: CrossroadsState, seat: Seat) -> list[str]:
    p = st.seats[seat]
    options = []
    if st.deck or st.recipe_discard:
        options.append("draw2")
    if p.recipes:
        options.append("discard")
    options += [f"steal:{s}" for s, q in enumerate(st.seats) if s != seat and q.recipes]
    return options


def townsfolk_options(c: CrossroadsContent, st: CrossroadsState, seat: Seat) -> list[str]:
    p = st.seats[seat]
    options = []
    for i, tile in enumerate(p.reserved):
        tier = c.tile(tile).tier
        # No two identical tiles on a track: the exchange may not put a second copy there.
        track = st.tracks[tier - 1]
        options += [f"exchange:{i}:{tier}:{slot}" for slot, t in enumerate(track)
                    if t is not None and (t == tile or tile not in track)]
        if st.discards[tier - 1]:
            options.append(f"exchange:{i}:discard")
        for s, q in enumerate(st.seats):
            if s != seat:
                options += [f"swap:{i}:{s}:{j}" for j in range(len(q.reserved))]
        options.append(f"return:{i}")
    return options


def special_action(c: CrossroadsContent, st: CrossroadsState, events: list[Event],
                   seat: Seat, group: str, job: Job) -> None:
    """The group's Special Action for ``seat``; skipped when it cannot be performed."""
    name = c.group(group).name
    if group == "distressed":
        if any(gossip_room(c, st, st.seats[seat], g) for g in GOSSIP_TYPES):
            note(events, seat, f"{{0}} performs the {name} Special Action")
            queue(st, seat, [{"kind": "gossip_any", "amount": 1}], f"{name} Special Action",
                  front=True)
        else:
            note(events, seat, f"{{0}} cannot perform the {name} Special Action (gossips full)")
    elif group == "outlaws":
        note(events, seat, f"{{0}} performs the {name} Special Action")
        queue(st, seat, [{"kind": "dice"}], f"{name} Special Action", front=True)
    elif group == "travellers":
        options = travellers_options(st, seat)
        if options:
            _ask(st, seat, "travellers", [*options, "pass"], job)
        else:
            note(events, seat, f"{{0}} cannot perform the {name} Special Action")
    elif group == "townsfolk":
        options = townsfolk_options(c, st, seat)
        if options:
            _ask(st, seat, "townsfolk", [*options, "pass"], job)
        else:
            note(events, seat, f"{{0}} cannot perform the {name} Special Action "
                 "(no reserved tile)")
    elif group == "nobles":
        note(events, seat, f"{{0}} performs the {name} Special Action")
        effects = c.group(group).special_action.options[0].effects
        queue(st, seat, list(effects), f"{name} Special Action", front=True)


def choose(c: CrossroadsContent, st: CrossroadsState, events: list[Event], option: str,
           rng_free: bool = True) -> None:
    """Answer the pending decision (the option was checked to be one of its options)."""
    pend = st.pending
    assert pend is not None
    st.pending = None
    seat = pend.seat
    p = st.seats[seat]
    job = Job(seat=seat, effect={}, source=pend.source, space=pend.space)
    src = f" ({pend.source})" if pend.source else ""
    kind = pend.kind
    if kind == "gossip_gain":
        add_gossip(c, st, p, option, 1)
        note(events, seat, f"{{0}}: +1 {GOSSIP_NAME[option]} gossip{src}")
        if pend.amount > 1:
            queue(st, seat, [{"kind": "gossip_any", "amount": pend.amount - 1}], pend.source,
                  front=True)
    elif kind == "gossip_lose":
        add_gossip(c, st, p, option, -1)
        note(events, seat, f"{{0}}: -1 {GOSSIP_NAME[option]} gossip{src}")
        if pend.amount > 1:
            queue(st, seat, [{"kind": "gossip_any", "amount": -(pend.amount - 1)}],
                  pend.source, front=True)
    elif kind == "reputation_any":
        note(events, seat, f"{{0}}: {c.group(option).name} {pend.amount:+d}{src}")
        move_reputation(c, st, events, seat, option, pend.amount, source=pend.source)
    elif kind == "investment_pick":
        tier, slot = (int(x) for x in option.split(":"))
        # "Replace the tile you picked with another one" (Legend): no slide, unlike a buy.
        tile = st.tracks[tier - 1][slot]
        assert tile is not None
        st.tracks[tier - 1][slot] = None
        refill(st, tier)
        p.reserved.append(tile)
        note(events, seat, f"{{0}} reserves {c.tile(tile).name} from the tier {tier} track{src}")
    elif kind == "reserved_discard":
        tile = p.reserved.pop(int(option))
        st.discards[c.tile(tile).tier - 1].append(tile)
        note(events, seat, f"{{0}} discards the reserved {c.tile(tile).name}{src}")
    elif kind == "travellers":
        _travellers(c, st, events, seat, option, job)
    elif kind == "keep_recipe":
        kept = option
        rest = list(pend.options)
        rest.remove(kept)
        p.recipes.append(kept)
        st.recipe_discard.extend(rest)
        note(events, seat, f"{{0}} keeps {c.recipe(kept).name}", private=(seat,))
        note(events, seat, "{0} keeps one Recipe and discards the other")
    elif kind == "discard_recipe":
        p.recipes.remove(option)
        st.recipe_discard.append(option)
        note(events, seat, f"{{0}} discards {c.recipe(option).name}", private=(seat,))
        note(events, seat, "{0} discards a Recipe card")
    elif kind == "victim_draw":
        if option == "draw":
            queue(st, seat, [{"kind": "recipe_draw", "amount": 1}], "after losing a Recipe",
                  front=True)
        else:
            note(events, seat, "{0} draws no new Recipe")
    elif kind == "townsfolk":
        _townsfolk(c, st, events, seat, option)
    else:  # pragma: no cover
        raise ValueError(f"unknown decision {kind!r}")


def _travellers(c: CrossroadsContent, st: CrossroadsState, events: list[Event], seat: Seat,
                option: str, job: Job) -> None:
    p = st.seats[seat]
    if option == "pass":
        note(events, seat, "{0} passes on the Travellers Special Action")
    elif option == "draw2":
        drawn = [r for r in (draw_recipe(st), draw_recipe(st)) if r is not None]
        note(events, seat, "{0} draws two Recipes to keep one (Travellers)")
        if len(drawn) == 1:
            p.recipes.append(drawn[0])
        else:
            _ask(st, seat, "keep_recipe", drawn, job)
    elif option == "discard":
        _ask(st, seat, "discard_recipe", list(p.recipes), job)
    elif option.startswith("steal:"):
        victim = int(option.split(":")[1])
        q = st.seats[victim]
        st.revealed = True
        recipe = q.recipes.pop(st.rng.randrange(len(q.recipes)))
        p.recipes.append(recipe)
        note(events, seat, "{0} takes a random Recipe from {1} (Travellers)", victim)
        note(events, seat, f"{{0}} takes {c.recipe(recipe).name} from {{1}}", victim,
             private=(seat, victim))
        if st.deck or st.recipe_discard:
            _ask(st, victim, "victim_draw", ["draw", "pass"], job, other=seat)


def _townsfolk(c: CrossroadsContent, st: CrossroadsState, events: list[Event], seat: Seat,
               option: str) -> None:
    p = st.seats[seat]
    parts = option.split(":")
    if parts[0] == "pass":
        note(events, seat, "{0} passes on the Townsfolk Special Action")
        return
    index = int(parts[1])
    mine = p.reserved[index]
    if parts[0] == "exchange":
        tier = c.tile(mine).tier
        if parts[2] == "discard":
            theirs = st.discards[tier - 1].pop()
            st.discards[tier - 1].append(mine)
        else:
            slot = int(parts[3])
            theirs = st.tracks[tier - 1][slot]
            assert theirs is not None
            st.tracks[tier - 1][slot] = mine
        p.reserved[index] = theirs
        note(events, seat, f"{{0}} exchanges the reserved {c.tile(mine).name} for "
             f"{c.tile(theirs).name} (Townsfolk)")
    elif parts[0] == "swap":
        other, j = int(parts[2]), int(parts[3])
        q = st.seats[other]
        p.reserved[index], q.reserved[j] = q.reserved[j], mine
        note(events, seat, f"{{0}} swaps the reserved {c.tile(mine).name} for {{1}}'s "
             f"{c.tile(p.reserved[index]).name} (Townsfolk)", other)
    elif parts[0] == "return":
        p.reserved.pop(index)
        st.pouches[c.tile(mine).tier - 1].append(mine)
        st.pouches[c.tile(mine).tier - 1].sort()
        add_guldens(c, p, 2)
        note(events, seat, f"{{0}} puts {c.tile(mine).name} back in its pouch: +2 guldens "
             "(Townsfolk)")


def new_rng_for(st: CrossroadsState, rng: Rng) -> None:
    st.rng = rng.spawn()
