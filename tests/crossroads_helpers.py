"""Scenario builders for the Crossroads Inn rule tests: a game right after setup, then a
table arranged by hand (tracks, inns, purses, whose step it is), and small checks."""

from __future__ import annotations

from typing import Any

import pytest

from engines import get_game
from engines.core import GameError, IllegalAction, Rng
from engines.crossroads_inn import effects as fx
from engines.crossroads_inn.content import CrossroadsContent
from engines.crossroads_inn.game import CrossroadsInn
from engines.crossroads_inn.state import Built, CrossroadsState, Turn

G: CrossroadsInn = get_game("crossroads-inn")  # type: ignore[assignment]
C: CrossroadsContent = G.content
GROUPS = ("distressed", "outlaws", "travellers", "townsfolk", "nobles")
GOSSIPS = ("economic", "political", "travellers")


def new(players: int = 2, seed: int = 1, **opts: Any) -> CrossroadsState:
    """A game at the first turn (seat 0, Guest Impression). Default: no Basic Inn Tiles."""
    opts.setdefault("basic_tiles", "none")
    return G.setup(players, G.parse_options(opts), seed)


def fresh(st: CrossroadsState) -> CrossroadsState:
    """Make the hand-arranged table the take-back point (as if the turn began so)."""
    st.pending = None
    st.jobs = []
    st.revealed = False
    G._checkpoint(st)
    return st


def turn(st: CrossroadsState, step: str = "impression", seat: int = 0,
         **fields: Any) -> CrossroadsState:
    """``seat`` is active at ``step`` (other Turn fields as given)."""
    st.turn = Turn(seat=seat, step=step, **fields)
    return fresh(st)


def put(st: CrossroadsState, seat: int, space: str, tile: str, ingredients: list[str]
        | None = None, *, basic: bool = False, covers: str | None = None,
        in_line: bool = False) -> Built:
    """Place a tile on an inn space without any effect. Ingredient tiles get their token
    unless ``ingredients`` says otherwise."""
    if ingredients is None:
        ingredients = [] if basic or C.tile(tile).ingredient is None else [
            C.tile(tile).ingredient]
    built = Built(tile=tile, basic=basic, ingredients=list(ingredients), covers=covers,
                  in_line=in_line)
    st.seats[seat].inn[space] = built
    return built


def basics(st: CrossroadsState, seat: int, tiles: dict[str, str]) -> None:
    """Basic Inn Tiles on corners (no effect): ``{space: basic tile id}``."""
    for space, tile in tiles.items():
        put(st, seat, space, tile, basic=True)


def action(kind: str, **kw: Any) -> Any:
    return G.parse_action({"kind": kind, **kw})


def act(st: CrossroadsState, seat: int, kind: str, **kw: Any) -> list[Any]:
    return G.apply(st, seat, action(kind, **kw))


def choose(st: CrossroadsState, option: str) -> list[Any]:
    assert st.pending is not None, "no decision is pending"
    return G.apply(st, st.pending.seat, action("choose", option=option))


def refused(st: CrossroadsState, seat: int, kind: str, *, exc: type[GameError] = IllegalAction,
            **kw: Any) -> str:
    """The action is refused (IllegalAction unless ``exc`` says otherwise) and leaves the
    state exactly as it was; returns the reason given."""
    before = G.dump_state(st)
    a = action(kind, **kw)
    assert a not in G.legal_actions(st, seat)
    with pytest.raises(exc) as info:
        G.apply(st, seat, a)
    assert G.dump_state(st) == before
    return str(info.value)


def legal(st: CrossroadsState, seat: int, kind: str, **kw: Any) -> bool:
    return action(kind, **kw) in G.legal_actions(st, seat)


def kinds(st: CrossroadsState, seat: int) -> set[str]:
    return {a.kind for a in G.legal_actions(st, seat)}


def rng_for(*faces: int) -> Rng:
    """A generator whose next rolls of the die (randrange(6) + 1) are ``faces``."""
    for k in range(100000):
        r = Rng.from_seed(k)
        probe = r.model_copy()
        if all(probe.randrange(6) + 1 == f for f in faces):
            return r
    raise AssertionError(f"no seed rolls {faces}")


def rng_where(n: int, *picks: int) -> Rng:
    """A generator whose next randrange(n) calls give ``picks``."""
    for k in range(100000):
        r = Rng.from_seed(k)
        probe = r.model_copy()
        if all(probe.randrange(n) == p for p in picks):
            return r
    raise AssertionError(f"no seed gives {picks} of {n}")


def resolve(st: CrossroadsState, seat: int, effects: list[dict[str, Any]],
            source: str = "test", space: str | None = None) -> list[Any]:
    """Queue effects for ``seat`` and resolve them (stops at a decision)."""
    events: list[Any] = []
    fx.queue(st, seat, effects, source, space)
    fx.run(C, st, events)
    return events


def answer(st: CrossroadsState, option: str) -> list[Any]:
    """Answer a decision left by :func:`resolve` straight through the effects module."""
    assert st.pending is not None
    assert option in st.pending.options, (option, st.pending.options)
    events: list[Any] = []
    fx.choose(C, st, events, option)
    fx.run(C, st, events)
    return events


def purse(st: CrossroadsState, seat: int, *, pouch: int | None = None,
          chest: int | None = None, debts: int | None = None,
          gossips: dict[str, int] | None = None, **rep: int) -> None:
    p = st.seats[seat]
    if pouch is not None:
        p.pouch = pouch
    if chest is not None:
        p.chest = chest
    if debts is not None:
        p.debts = debts
    if gossips is not None:
        p.gossips = {g: gossips.get(g, 0) for g in GOSSIPS}
    for group, value in rep.items():
        p.reputation[group] = value


def track(st: CrossroadsState, tier: int, tiles: list[str | None],
          pouch: list[str] | None = None) -> None:
    """Set an Investment Track (index 0 far left) and optionally its pouch."""
    st.tracks[tier - 1] = list(tiles)
    if pouch is not None:
        st.pouches[tier - 1] = sorted(pouch)


def ids(category: str, tier: int | None = None, ingredient: bool | None = None) -> list[str]:
    return [t.id for t in C.tiles_in(category, tier)
            if ingredient is None or (t.ingredient is not None) == ingredient]
