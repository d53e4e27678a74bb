"""AI players for every game, behind one small protocol.

An agent picks an action for a seat. It may only use what that seat may see:
an agent that looks at hidden parts of the state (search agents do) must first
call ``game.determinize(state, seat, rng)`` and work on that copy.

>>> from engines import get_game
>>> from engines.core import Rng
>>> game = get_game("fairy-tale-inn")
>>> state = game.setup(2, game.Options(), seed=3)
>>> "random" in agent_levels("fairy-tale-inn")
True
>>> agent = get_agent("fairy-tale-inn", "random")
>>> agent.choose(game, state, 0, Rng.from_seed(1)) in game.legal_actions(state, 0)
True

Levels are registered per game with :func:`register_agent`; a game's AI module
(named by ``agents`` in its declaration, :class:`engines.catalog.GameSpec`) is imported
lazily on first use. Every game gets the ``"random"`` level for free.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from engines.catalog import spec
from engines.core import Action, Game, GameState, Rng, Seat

__all__ = [
    "Agent",
    "RandomAgent",
    "agent_levels",
    "get_agent",
    "register_agent",
    "selfplay_level",
]


@runtime_checkable
class Agent(Protocol):
    """Anything with ``choose``; agents may keep settings but no per-game memory
    that a restart would lose (the service rebuilds them freely)."""

    def choose(self, game: Game, state: GameState, seat: Seat, rng: Rng) -> Action:
        """A legal action for ``seat``; must not mutate ``state``."""
        ...


AgentFactory = Callable[..., Agent]

_REGISTRY: dict[str, dict[str, AgentFactory]] = {}
_SELFPLAY_DEFAULT: dict[str, str] = {}
_loaded: set[str] = set()


class RandomAgent:
    """Uniformly random among the legal actions (sees nothing hidden: it only
    asks which actions are legal)."""

    def __init__(self, **_: Any) -> None:
        pass

    def choose(self, game: Game, state: GameState, seat: Seat, rng: Rng) -> Action:
        legal = game.legal_actions(state, seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action")
        return rng.choice(legal)

    def __repr__(self) -> str:
        return "<RandomAgent>"


def register_agent(game_id: str, level: str, factory: AgentFactory,
                   selfplay_default: bool = False) -> None:
    """Make ``get_agent(game_id, level, **kw)`` return ``factory(**kw)``.
    ``selfplay_default``: self-play uses this level when no ``--agents`` are given (a
    co-operative game's sensible team; otherwise "random")."""
    _REGISTRY.setdefault(game_id, {})[level] = factory
    if selfplay_default:
        _SELFPLAY_DEFAULT[game_id] = level


def selfplay_level(game_id: str) -> str:
    """The level self-play gives every seat when none is asked for."""
    _load(game_id)
    return _SELFPLAY_DEFAULT.get(game_id, "random")


def _load(game_id: str) -> dict[str, AgentFactory]:
    """The levels of a game: its declaration's AI module is imported on first use (a
    game without one, or not declared, has the levels registered by hand, and random)."""
    try:
        module = spec(game_id).agents
    except KeyError:
        module = None
    if module is not None and module not in _loaded:
        _loaded.add(module)
        importlib.import_module(module)
    levels = _REGISTRY.setdefault(game_id, {})
    levels.setdefault("random", RandomAgent)
    return levels


def agent_levels(game_id: str) -> list[str]:
    """The AI levels available for ``game_id``, "random" first, then by strength."""
    levels = list(_load(game_id))
    levels.remove("random")
    return ["random", *levels]


def get_agent(game_id: str, level: str = "random", **kw: Any) -> Agent:
    """A new agent of ``level`` for ``game_id``; raises KeyError for an unknown level."""
    levels = _load(game_id)
    if level not in levels:
        raise KeyError(
            f"No {level!r} AI for {game_id}. Levels: {', '.join(agent_levels(game_id))}."
        )
    return levels[level](**kw)
