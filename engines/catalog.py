"""The one declaration of each game, and the registry every layer reads it from.

After OpenSpiel's ``pyspiel.register_game``: a game's module declares its metadata up
front and registers one :class:`GameSpec` at its end. Everything else finds the game
through that declaration: the engine registry (:func:`engines.get_game`), the AI levels
(:mod:`engines.agents`), the pictures (:mod:`renderers`), the console board
(:mod:`renderers.text`), the Discord adapter and cog (:mod:`bot.core.choices`,
:mod:`bot.messages.client`), ``/rules``, the conformance suite and the leak check (``tests/``).

Parts that live in a higher layer (a renderer, a UI adapter, a cog) are named by dotted
path and imported only by that layer, so this module, like all of ``engines``, imports
nothing above it.

Adding a game: write its modules, end the engine module with ``register(GameSpec(...))``
and add the module to :data:`BUILTIN` (the one shared line). A test can declare a game
of its own with :func:`registered`, for the duration of the test.

>>> spec("fairy-tale-inn").name
'Fairy Tale Inn'
>>> spec("fairy-tale-inn").players
(2, 2)
>>> "treasure" in game_ids()
True
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from engines.core import Game

__all__ = [
    "BUILTIN",
    "ConformanceCase",
    "GameSpec",
    "RulesSummary",
    "game_ids",
    "has_hands",
    "register",
    "registered",
    "resolve",
    "spec",
    "specs",
    "unregister",
]

log = logging.getLogger(__name__)

BUILTIN: tuple[str, ...] = (
    "engines.fairy_tale_inn",
    "engines.treasure",
    "engines.winter_tales.game",
    "engines.crossroads_inn.game",
    "engines.pocket.game",
)
"""The modules that declare the games shipped with Fabletop, in menu order."""

DATA_DIR = Path(__file__).resolve().parent.parent / "data"

SecretFragments = Callable[[Any, Any], list[list[str]]]
"""``(game, true state) -> runs of words`` that no public message may contain in order
(the next draws of a bag, say): the leak check searches every message for them."""


class RulesSummary(BaseModel):
    """What ``/rules`` shows: the project's own summary of the rulebook."""

    model_config = {"populate_by_name": True}

    about: dict[str, Any] | None = Field(default=None, alias="_about")
    """Which parts come from the rulebook and which are the project's own words."""
    name: str
    players: str
    goal: str
    turn: list[str] = Field(min_length=1)
    play_here: str
    full_rules: str


@dataclass(frozen=True)
class ConformanceCase:
    """One line of the shared conformance suite: random (or agent) playouts."""

    players: int
    options: Mapping[str, Any] = field(default_factory=dict)
    seeds: int = 20
    max_plies: int = 5000
    legal_sample: int = 6
    agent: str | None = None
    """Play by this AI level instead of at random (to reach an end phase random play
    never finds)."""


@dataclass(frozen=True)
class GameSpec:
    """Everything the rest of Fabletop needs to know about one game.

    Id, name and player counts come from the engine class, where they are declared."""

    engine: type[Game[Any, Any]]
    agents: str | None = None
    """Module that registers the game's AI levels when imported (``random`` is free)."""
    board: str | None = None
    """``module:function`` drawing a view as PNG bytes (``render(view, names=[...])``)."""
    private_picture: str | None = None
    """``module:function`` drawing ONE seat's private view (a hand); ``None`` when the
    game has no private picture."""
    text_board: str | None = None
    """``module:function(view, name) -> str`` for the console; default: every field."""
    ui: str | None = None
    """``module:Class``, the game's choice adapter (a ``bot.core.choices.adapter.GameUI``),
    which every front-end shows."""
    cog: str | None = None
    """Discord extension with the game's own slash commands, if any."""
    rules: str | None = None
    """JSON file with the :class:`RulesSummary`: relative to ``data/``, or absolute."""
    conformance: tuple[ConformanceCase, ...] = ()
    secret_fragments: SecretFragments | None = None
    board_fields: tuple[str, ...] | None = None
    """The public view fields the board picture shows: a change elsewhere (a story
    passage) is news, not a new picture. ``None``: every field."""
    interrupt_timeout: float | None = None
    """Default seconds after which an open optional decision passes (a table setting the
    host may change at ``/table new``); ``None``: the game has no such setting."""
    team_play: bool = False
    """Seats play side against side: the seats that share a result and a score are one
    team, rated as one (Winter Tales' factions). ``False``: every seat for itself (or,
    for a cooperative game, everyone together against the game)."""

    @property
    def id(self) -> str:
        return self.engine.id

    @property
    def name(self) -> str:
        return self.engine.name

    @property
    def players(self) -> tuple[int, int]:
        return self.engine.min_players, self.engine.max_players

    @property
    def has_private_view(self) -> bool:
        """Whether seats see more than the public (a hand of their own)."""
        return bool(self.engine.has_secrets and self.private_picture is not None)

    def rules_summary(self) -> RulesSummary | None:
        if self.rules is None:
            return None
        path = Path(self.rules)
        if not path.is_absolute():
            path = DATA_DIR / path
        return RulesSummary.model_validate(json.loads(path.read_text(encoding="utf-8")))

    def __repr__(self) -> str:
        low, high = self.players
        return f"<GameSpec {self.id} {self.name!r} {low}-{high} players>"


_SPECS: dict[str, GameSpec] = {}
_builtin_loaded = False


def register(game: GameSpec) -> GameSpec:
    """Declare a game. Registering the same id again replaces the declaration only if it
    names the same engine class (module reloads); anything else is a programming error."""
    old = _SPECS.get(game.id)
    if old is not None and old.engine.__qualname__ != game.engine.__qualname__:
        raise ValueError(f"two games declare the id {game.id!r}")
    _SPECS[game.id] = game
    return game


def unregister(game_id: str) -> None:
    _SPECS.pop(game_id, None)


@contextlib.contextmanager
def registered(game: GameSpec) -> Iterator[GameSpec]:
    """Declare ``game`` inside the block only (tests)."""
    register(game)
    try:
        yield game
    finally:
        unregister(game.id)


def _load_builtin() -> None:
    global _builtin_loaded
    if _builtin_loaded:
        return
    _builtin_loaded = True
    for module in BUILTIN:
        try:
            importlib.import_module(module)
        except Exception:
            # One broken game must not keep the others (and the lobby) from loading.
            log.exception("game module %s does not load", module)


def specs() -> list[GameSpec]:
    """Every declared game, shipped ones first in menu order."""
    _load_builtin()
    order = {module: i for i, module in enumerate(BUILTIN)}
    return sorted(_SPECS.values(), key=lambda s: order.get(s.engine.__module__, len(order)))


def game_ids() -> list[str]:
    return [s.id for s in specs()]


def spec(game_id: str) -> GameSpec:
    """The declaration of ``game_id``; KeyError for an unknown id."""
    _load_builtin()
    try:
        return _SPECS[game_id]
    except KeyError:
        known = ", ".join(_SPECS) or "none"
        raise KeyError(f"Unknown game {game_id!r}. Known games: {known}.") from None


def has_hands(game_id: str) -> bool:
    """Whether the game keeps a private hand per seat (its seats see more than the
    public, and it names a picture of that)."""
    try:
        return spec(game_id).has_private_view
    except KeyError:
        return False


def resolve(target: str) -> Any:
    """The object a ``module:attribute`` path names (imported on first use)."""
    module_name, _, attribute = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        obj = getattr(obj, part)
    return obj
