"""The Crossroads Inn AIs: legal, side-effect free, blind to hidden information, and
stronger than random (behaviour, not strength figures: see bench/ai_crossroads.py)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pytest

from engines import get_game
from engines.agents import agent_levels, get_agent, selfplay_level
from engines.core import Rng
from engines.crossroads_inn.game import CrossroadsInn
from engines.crossroads_inn.state import Built, CrossroadsState, EndTurn

G: CrossroadsInn = get_game("crossroads-inn")  # type: ignore[assignment]
GAME = "crossroads-inn"


def _key(st: CrossroadsState) -> str:
    if st.pending is not None:
        return f"pending:{st.pending.kind}"
    if st.phase != "turn":
        return st.phase
    return st.turn.step


@lru_cache(maxsize=1)
def _snapshots() -> dict[str, tuple[str, int]]:
    """The first state of each kind of decision met in a few seeded games (2-4 players,
    with and without Kingdom Cards): kind -> (state JSON, seat to act)."""
    found: dict[str, tuple[str, int]] = {}
    plans: list[tuple[int, dict[str, Any], int]] = [
        (2, {}, 1), (3, {"kingdom": "1+5"}, 2), (4, {"basic_tiles": "random"}, 3),
        (2, {"kingdom": "6+8"}, 4)]
    for players, options, seed in plans:
        st = G.setup(players, G.Options(**options), seed)
        agents = [get_agent(GAME, "heuristic"), get_agent(GAME, "random")] * 2
        rng = Rng.from_seed(seed)
        moves = 0
        while not G.is_over(st) and moves < 700:
            seat = G.to_act(st)[0]
            legal = [a for a in G.legal_actions(st, seat) if a.kind != "undo"]
            kind = f"{_key(st)}/{players}p" if _key(st) in ("gossip", "build") else _key(st)
            if len(legal) > 1 and kind not in found:
                found[kind] = (G.dump_state(st), seat)
            action = agents[seat % len(agents)].choose(G, st, seat, rng.spawn())
            if action.kind == "undo":  # the random agent may take back; keep moving on
                action = legal[0]
            G.apply(st, seat, action)
            moves += 1
    return found


def _states(kinds: tuple[str, ...] | None = None) -> list[tuple[str, CrossroadsState, int]]:
    out = []
    for kind, (raw, seat) in sorted(_snapshots().items()):
        if kinds is None or kind.split("/")[0] in kinds:
            out.append((kind, G.load_state(raw), seat))
    return out


def _search(**kw: Any) -> Any:
    return get_agent(GAME, "search", samples=kw.pop("samples", 2), width=kw.pop("width", 3),
                     **kw)


def test_levels_are_registered() -> None:
    assert agent_levels(GAME) == ["random", "heuristic", "search"]
    assert selfplay_level(GAME) == "heuristic"


def test_the_snapshots_cover_the_decisions() -> None:
    kinds = {k.split("/")[0] for k in _snapshots()}
    for wanted in ("draft", "place_basics", "impression", "gossip", "invest", "reserve",
                   "build", "confirm"):
        assert wanted in kinds, wanted
    assert any(k.startswith("pending:") for k in kinds)


@pytest.mark.parametrize("level", ["heuristic", "search"])
def test_legal_no_takeback_no_mutation(level: str) -> None:
    agent = get_agent(GAME, "heuristic") if level == "heuristic" else _search()
    states = _states()
    if level == "search":  # the searched steps and a pending decision, to stay quick
        states = [x for x in states if x[0].split("/")[0] in (
            "impression", "gossip", "invest", "reserve", "build", "confirm")
            or x[0].startswith("pending:")][:9]
    for kind, st, seat in states:
        before = G.dump_state(st)
        action = agent.choose(G, st, seat, Rng.from_seed(5))
        assert action in G.legal_actions(st, seat), (kind, action)
        assert action.kind != "undo", kind
        assert G.dump_state(st) == before, kind


@pytest.mark.parametrize("level", ["heuristic", "search"])
def test_choices_do_not_depend_on_hidden_information(level: str) -> None:
    """Resampling what the seat cannot see (other hands, the deck and discards, face-down
    draft tiles, the generator) leaves the choice unchanged, for the same agent rng."""
    agent = get_agent(GAME, "heuristic") if level == "heuristic" else _search()
    kinds = None if level == "heuristic" else ("draft", "invest", "build", "gossip",
                                                "confirm")
    checked = 0
    for kind, st, seat in _states(kinds):
        if level == "search" and checked >= 5:
            break
        mine = agent.choose(G, st, seat, Rng.from_seed(11))
        for k in range(2):
            other = G.determinize(st, seat, Rng.from_seed(100 + k))
            assert other.rng != st.rng
            assert agent.choose(G, other, seat, Rng.from_seed(11)) == mine, kind
        checked += 1
    assert checked >= 5


def test_determinize_really_hides_something() -> None:
    """Guard for the test above: the resampled states differ in the secrets."""
    _kind, st, seat = next(x for x in _states(("invest",)))
    differs = False
    for k in range(6):
        other = G.determinize(st, seat, Rng.from_seed(200 + k))
        hidden = [s for s in range(st.players) if s != seat]
        differs |= any(other.seats[s].recipes != st.seats[s].recipes for s in hidden)
        differs |= other.deck != st.deck
        assert other.seats[seat].recipes == st.seats[seat].recipes
    assert differs


def test_heuristic_beats_random() -> None:
    wins = 0
    for i in range(4):
        st = G.setup(2, G.Options(), 40 + i)
        me = i % 2
        agents = [get_agent(GAME, "random"), get_agent(GAME, "random")]
        agents[me] = get_agent(GAME, "heuristic")
        rng = Rng.from_seed(i)
        while not G.is_over(st):
            seat = G.to_act(st)[0]
            G.apply(st, seat, agents[seat].choose(G, st, seat, rng.spawn()))
        out = G.outcome(st)
        assert out is not None
        wins += me in out.winners
        assert out.scores[me] > out.scores[1 - me] + 10
    assert wins == 4


def _turn_state(seed: int = 2, basic_tiles: str = "none") -> CrossroadsState:
    st = G.setup(2, G.Options(basic_tiles=basic_tiles), seed)
    while st.phase != "turn" or st.pending is not None:  # settle setup choices
        seat = G.to_act(st)[0]
        G.apply(st, seat, G.legal_actions(st, seat)[0])
    assert st.turn.step == "impression"
    return st


def test_heuristic_cooks_a_recipe_it_can() -> None:
    st = _turn_state()
    p = st.seats[0]
    recipe = p.recipes[0]
    ingredients = G.content.recipe(recipe).ingredients
    for n, ing in enumerate(ingredients):
        p.inn[f"r1c{n + 1}"] = Built(tile="honey_jar_shelf", ingredients=[ing])
    st.turn.step = "recipes"
    action = get_agent(GAME, "heuristic").choose(G, st, 0, Rng.from_seed(1))
    assert action.kind == "complete"


def _full_inn(st: CrossroadsState, seat: int, spaces: int = 16) -> None:
    from engines.crossroads_inn import inn as board
    for s in board.MAIN_SPACES[:spaces]:
        st.seats[seat].inn[s] = Built(tile="long_table")


@pytest.mark.parametrize("level", ["heuristic", "search"])
def test_announces_the_end_only_when_ahead(level: str) -> None:
    agent = get_agent(GAME, "heuristic") if level == "heuristic" else _search()
    st = _turn_state(basic_tiles="random")  # without Basic Inn Tiles there is no choice
    _full_inn(st, 0)
    _full_inn(st, 1, 15)
    st.turn.step = "confirm"
    st.seats[0].prestige = 40
    legal = G.legal_actions(st, 0)
    assert EndTurn(announce=True) in legal
    assert agent.choose(G, st, 0, Rng.from_seed(3)) == EndTurn(announce=True)
    # A few points behind: ending now loses for sure, playing on keeps a chance.
    st.seats[0].prestige = 20
    scores = G.scores(st)
    st.seats[1].prestige += scores[0]["total"] + 4 - scores[1]["total"]
    assert G.scores(st)[1]["total"] == G.scores(st)[0]["total"] + 4
    assert agent.choose(G, st, 0, Rng.from_seed(3)) == EndTurn(announce=False)


def test_heuristic_never_takes_a_prestige_losing_impression() -> None:
    st = _turn_state()
    assert st.turn.step == "impression"
    # every group at 1: closing a door costs Prestige and Reputation; nothing to gain
    action = get_agent(GAME, "heuristic").choose(G, st, 0, Rng.from_seed(1))
    assert action.kind == "next"


@pytest.mark.parametrize(("prestige", "debts", "chest"), [(1, 9, 0), (1, 2, 1), (20, 3, 5)])
def test_the_projected_final_score_is_the_engines_total(prestige: int, debts: int,
                                                         chest: int) -> None:
    """What the heuristic expects a seat to score once it ends its turn is what the engine
    scores then, floored at 1 Prestige like the engine's total."""
    from engines.agents.crossroads_inn import Weights, _Ctx, _final_score

    st = _turn_state()
    p = st.seats[0]
    p.prestige, p.debts, p.chest, p.pouch = prestige, debts, chest, 0
    p.reputation = {**p.reputation, "nobles": 0, "outlaws": 0}
    st.turn.step = "confirm"
    expected = G.copy_state(st)
    G.apply(expected, 0, EndTurn())
    projected = _final_score(_Ctx(G, st, 0, Weights()), 0)
    assert projected == G.scores(expected)[0]["total"]
