"""The conformance suite every engine must pass (after OpenSpiel's basic_tests).

It plays random games and checks the engine contract at every step. A game
joins by adding a :class:`Case` to ``CASES`` in ``tests/test_conformance.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engines import get_game
from engines.agents import get_agent
from engines.catalog import ConformanceCase
from engines.core import (
    Action,
    Game,
    GameError,
    GameOver,
    GameState,
    IllegalAction,
    NotYourTurn,
    Rng,
)


@dataclass(frozen=True)
class Case:
    game_id: str
    players: int
    options: dict[str, Any] = field(default_factory=dict)
    seeds: int = 20
    max_plies: int = 5000
    legal_sample: int = 6
    """How many legal actions per state are applied to a copy to prove they apply."""
    agent: str | None = None
    """Choose moves with this agent level instead of at random, to reach the parts of a
    game random play never gets to (a co-op game's end phase, say). Checks stay the same."""

    @classmethod
    def of(cls, game_id: str, case: ConformanceCase) -> Case:
        """A case of the suite from a line of a game's declaration."""
        return cls(game_id, case.players, dict(case.options), seeds=case.seeds,
                   max_plies=case.max_plies, legal_sample=case.legal_sample, agent=case.agent)

    def __str__(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        by = f"-by-{self.agent}" if self.agent else ""
        return f"{self.game_id}-{self.players}p" + (f"-{opts}" if opts else "") + by


def _snapshot(game: Game, state: GameState) -> str:
    return game.dump_state(state)


def check_illegal_leaves_state(game: Game, state: GameState, seat: int, action: Any,
                               expected: type[GameError]) -> None:
    before = _snapshot(game, state)
    try:
        game.apply(state, seat, action)
    except expected as exc:
        assert str(exc), "a GameError must carry a plain-English message"
    except GameError as exc:  # pragma: no cover - message for the failing assert
        raise AssertionError(
            f"expected {expected.__name__}, got {type(exc).__name__}: {exc}"
        ) from exc
    else:
        raise AssertionError(f"{action!r} by seat {seat} should raise {expected.__name__}")
    assert _snapshot(game, state) == before, "a refused action changed the state"


def play_random_game(case: Case, seed: int) -> GameState:
    """Play one random game under every check; return the final state."""
    game = get_game(case.game_id)
    options = game.parse_options(case.options)
    state = game.setup(case.players, options, seed)
    chooser = Rng.from_seed(seed ^ 0x5EED)
    agent = get_agent(case.game_id, case.agent) if case.agent else None
    log: list[tuple[int, Action]] = []
    seen: list[tuple[int, Action]] = []

    for _ in range(case.max_plies):
        outcome = game.outcome(state)
        to_act = game.to_act(state)
        assert (outcome is None) == bool(to_act), "to_act must be empty exactly at the end"
        if outcome is not None:
            break
        assert len(set(to_act)) == len(to_act)
        assert all(0 <= s < case.players for s in to_act)

        # Only the seats in to_act have legal actions; each of them has some.
        for seat in range(case.players):
            legal = game.legal_actions(state, seat)
            if seat in to_act:
                assert legal, f"seat {seat} must act but has no legal action"
                for action in legal[:3]:
                    assert game.parse_action(game.dump_action(action)) == action
            else:
                assert not legal, f"seat {seat} is not to act but has legal actions"

        # Views: JSON-clean, and blind to secrets the seat cannot see.
        for seat in [None, *range(case.players)]:
            v = game.view(state, seat)
            v.model_dump_json()
            other = game.determinize(state, seat, chooser.spawn())
            assert game.view(other, seat) == v, f"view of seat {seat} depends on hidden info"
            assert _snapshot(game, other) != "" and game.to_act(other) == to_act

        seat = chooser.choice(to_act)
        legal = game.legal_actions(state, seat)

        # A sample of legal actions must apply cleanly to a copy.
        for action in chooser.sample(legal, min(case.legal_sample, len(legal))):
            game.apply(game.copy_state(state), seat, action)

        # Illegal actions are refused with a typed error and leave no trace.
        idle = [s for s in range(case.players) if s not in to_act]
        if idle:
            check_illegal_leaves_state(game, state, chooser.choice(idle), legal[0], NotYourTurn)
        stale = [a for s, a in seen[-40:] if s == seat and a not in legal]
        if stale:
            check_illegal_leaves_state(game, state, seat, chooser.choice(stale), IllegalAction)

        if agent is not None:
            action = agent.choose(game, game.copy_state(state), seat, chooser.spawn())
        else:
            action = chooser.choice(legal)
        events = game.apply(state, seat, action)
        assert isinstance(events, list)
        for event in events:
            event.model_dump_json()
            assert event.text(lambda s: f"P{s}")
        log.append((seat, action))
        seen.append((seat, action))

        # JSON round trip is exact.
        dumped = game.dump_state(state)
        assert game.dump_state(game.load_state(dumped)) == dumped
    else:
        raise AssertionError(f"game did not end within {case.max_plies} plies")

    outcome = game.outcome(state)
    assert outcome is not None
    assert set(outcome.winners) <= set(range(case.players))
    assert outcome.reason
    # After the end every action is refused with GameOver.
    for seat, action in seen[-3:]:
        check_illegal_leaves_state(game, state, seat, action, GameOver)

    # Replay from (seed, options, log) reproduces the state exactly.
    replayed = game.replay(case.players, options, seed, log)
    assert game.dump_state(replayed) == game.dump_state(state)
    return state
