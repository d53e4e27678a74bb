"""The agents API and the Fairy Tale Inn AIs (behaviour, not strength: see bench/)."""

from __future__ import annotations

import pytest

from engines import get_game
from engines.agents import Agent, RandomAgent, agent_levels, get_agent, register_agent
from engines.core import Rng
from engines.fairy_tale_inn import Drop, EndTurn, ExtraTurn, FairyTaleInn, InnState
from tests.test_fairy_tale_inn import full, make

G: FairyTaleInn = get_game("fairy-tale-inn")  # type: ignore[assignment]


def test_levels_and_registry() -> None:
    assert agent_levels("fairy-tale-inn") == ["random", "greedy", "mcts"]
    assert agent_levels("no-such-game-yet") == ["random"]
    assert isinstance(get_agent("no-such-game-yet"), RandomAgent)
    with pytest.raises(KeyError, match="No 'genius' AI for fairy-tale-inn"):
        get_agent("fairy-tale-inn", "genius")
    for level in agent_levels("fairy-tale-inn"):
        assert isinstance(get_agent("fairy-tale-inn", level), Agent)


def test_register_agent_passes_keywords() -> None:
    class Fixed:
        def __init__(self, column: int = 1) -> None:
            self.column = column

        def choose(self, game, state, seat, rng):  # type: ignore[no-untyped-def]
            return Drop(slot=4, column=self.column)

    register_agent("test-only-game", "fixed", Fixed)
    agent = get_agent("test-only-game", "fixed", column=5)
    assert agent_levels("test-only-game") == ["random", "fixed"]
    assert agent.choose(G, make(), 0, Rng.from_seed(1)) == Drop(slot=4, column=5)


def test_random_agent_is_legal_and_reproducible() -> None:
    s = G.setup(2, G.Options(), 3)
    a = RandomAgent()
    picks = [a.choose(G, s, 0, Rng.from_seed(k)) for k in range(20)]
    assert all(p in G.legal_actions(s, 0) for p in picks)
    assert picks == [a.choose(G, s, 0, Rng.from_seed(k)) for k in range(20)]
    assert len(set(picks)) > 5


def test_greedy_takes_the_double_gold_room() -> None:
    s = make({4: ["RT", "RT"]}, gold=(0, 0))
    before = G.dump_state(s)
    choice = get_agent("fairy-tale-inn", "greedy").choose(G, s, 0, Rng.from_seed(1))
    assert choice == Drop(slot=4, column=4)
    assert G.dump_state(s) == before


def test_greedy_values_an_extra_turn_by_what_it_allows() -> None:
    # After paying 1 gold, the extra turn reaches the double-gold room: worth it.
    s = make({2: ["RT"] * 4, 4: ["RT", "RT"]}, gold=(1, 0))
    s.phase = "extra_turn"
    s.drop_cell = (1, 3)
    greedy = get_agent("fairy-tale-inn", "greedy")
    assert greedy.choose(G, s, 0, Rng.from_seed(1)) == ExtraTurn()
    # With depth 1 it only sees the gold it pays, so it declines.
    shallow = get_agent("fairy-tale-inn", "greedy", depth=1)
    assert shallow.choose(G, s, 0, Rng.from_seed(1)) == EndTurn()


def _with_bag_reversed(s: InnState) -> InnState:
    t = G.copy_state(s)
    t.bag.reverse()
    assert t.bag != s.bag
    return t


@pytest.mark.parametrize("level, kw", [("greedy", {}), ("mcts", {"iterations": 60})])
def test_agents_do_not_peek_at_the_bag(level: str, kw: dict[str, int]) -> None:
    agent = get_agent("fairy-tale-inn", level, **kw)
    for seed in range(4):
        s = G.setup(2, G.Options(), seed)
        t = _with_bag_reversed(s)
        assert agent.choose(G, s, 0, Rng.from_seed(9)) == agent.choose(G, t, 0, Rng.from_seed(9))


def test_mcts_is_legal_and_leaves_the_state_alone() -> None:
    s = G.setup(2, G.Options(), 11)
    before = G.dump_state(s)
    for leaf in ("eval", "rollout"):
        agent = get_agent("fairy-tale-inn", "mcts", iterations=40, leaf=leaf)
        assert agent.choose(G, s, 0, Rng.from_seed(2)) in G.legal_actions(s, 0)
    assert G.dump_state(s) == before
    with pytest.raises(ValueError, match="leaf must be"):
        get_agent("fairy-tale-inn", "mcts", leaf="dream")


def test_mcts_does_not_end_the_game_in_a_lost_tie() -> None:
    # Filling column 3 ends the game 4-4, and the tie goes to Bo, who did not start.
    s = make({1: full(), 2: full(), 3: ["RT"] * 5}, gold=(4, 4))
    agent = get_agent("fairy-tale-inn", "mcts", iterations=150)
    assert agent.choose(G, s, 0, Rng.from_seed(3)).column != 3


def test_mcts_respects_a_time_budget_and_finishes_a_game() -> None:
    agents = [get_agent("fairy-tale-inn", "mcts", iterations=25, seconds=10.0),
              get_agent("fairy-tale-inn", "random")]
    s = G.setup(2, G.Options(), 21)
    rng = Rng.from_seed(5)
    while not G.is_over(s):
        seat = G.to_act(s)[0]
        G.apply(s, seat, agents[seat].choose(G, s, seat, rng))
    assert G.outcome(s) is not None
