"""Where the service's AI players come from."""

from __future__ import annotations

from typing import Any, Protocol

from engines.core import Action, Game, GameState, Rng, Seat

__all__ = ["Agent", "AgentProvider", "EngineAgents"]

class Agent(Protocol):
    def choose(self, game: Game, state: GameState, seat: Seat, rng: Rng) -> Action: ...


class AgentProvider(Protocol):
    """Where AI players come from (the default wraps :mod:`engines.agents`)."""

    def levels(self, game_id: str) -> list[str]:
        """Level names, weakest first."""
        ...

    def get(self, game_id: str, level: str) -> Agent: ...


class EngineAgents:
    """The real agents registry, :mod:`engines.agents` (imported lazily).

    ``agent_kwargs`` (e.g. ``iterations=400`` from the AI_BUDGET setting) are passed to
    every agent factory; an agent that does not take them is built without them."""

    def __init__(self, **agent_kwargs: Any) -> None:
        self.agent_kwargs = agent_kwargs

    def levels(self, game_id: str) -> list[str]:
        try:
            from engines.agents import agent_levels
        except ImportError:
            return []
        try:
            return [str(level) for level in agent_levels(game_id)]
        except (KeyError, ValueError):
            return []

    def get(self, game_id: str, level: str) -> Agent:
        from engines.agents import get_agent

        kwargs = getattr(self, "agent_kwargs", {})  # subclasses may skip __init__
        if kwargs:
            try:
                return get_agent(game_id, level, **kwargs)
            except TypeError:
                pass
        return get_agent(game_id, level)
