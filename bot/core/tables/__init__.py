"""The table service, the discord-free application core (see :mod:`bot.core.tables.service`).

Its parts, one responsibility each: :mod:`~bot.core.tables.errors`, the value objects in
:mod:`~bot.core.tables.models`, the live cache and locks in :mod:`~bot.core.tables.live`, the
:mod:`~bot.core.tables.lobby`, :mod:`~bot.core.tables.play`, the AI runner
:mod:`~bot.core.tables.ai`, :mod:`~bot.core.tables.timers` and the status
:mod:`~bot.core.tables.texts`.
"""

from bot.core.tables.agents import Agent, AgentProvider, EngineAgents
from bot.core.tables.errors import (
    AlreadyHasTable,
    AlreadySeated,
    BadOptions,
    BadSeat,
    NoTable,
    NotEnoughPlayers,
    NotHost,
    NotInLobby,
    NotPlaying,
    NotSeated,
    NotYourTurn,
    OptionGivenTwice,
    StaleVersion,
    TableError,
    TableFull,
    UnknownAILevel,
    UnknownGame,
    UserError,
)
from bot.core.tables.models import (
    ChannelOrTable,
    Listener,
    Outbox,
    PrivateUpdate,
    PublicUpdate,
    SeatInfo,
    SeatNews,
    TableInfo,
    TableStatus,
    Watcher,
)
from bot.core.tables.play import STALE
from bot.core.tables.service import TableService
from bot.core.tables.timers import interrupt_timeout

__all__ = [
    "STALE",
    "Agent",
    "AgentProvider",
    "AlreadyHasTable",
    "AlreadySeated",
    "BadOptions",
    "BadSeat",
    "ChannelOrTable",
    "EngineAgents",
    "Listener",
    "NoTable",
    "NotEnoughPlayers",
    "NotHost",
    "NotInLobby",
    "NotPlaying",
    "NotSeated",
    "NotYourTurn",
    "OptionGivenTwice",
    "Outbox",
    "PrivateUpdate",
    "PublicUpdate",
    "SeatInfo",
    "SeatNews",
    "StaleVersion",
    "TableError",
    "TableFull",
    "TableInfo",
    "TableService",
    "TableStatus",
    "UnknownAILevel",
    "UnknownGame",
    "UserError",
    "Watcher",
    "interrupt_timeout",
]
