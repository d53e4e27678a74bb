"""The table service, the discord-free application core (see :mod:`bot.tables.service`).

Its parts, one responsibility each: :mod:`~bot.tables.errors`, the value objects in
:mod:`~bot.tables.models`, the live cache and locks in :mod:`~bot.tables.live`, the
:mod:`~bot.tables.lobby`, :mod:`~bot.tables.play`, the AI runner :mod:`~bot.tables.ai`,
:mod:`~bot.tables.timers` and the status :mod:`~bot.tables.texts`.
"""

from bot.tables.agents import Agent, AgentProvider, EngineAgents
from bot.tables.errors import (
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
    StaleVersion,
    TableError,
    TableFull,
    UnknownAILevel,
    UnknownGame,
    UserError,
)
from bot.tables.models import (
    ChannelOrTable,
    Listener,
    Outbox,
    PrivateUpdate,
    PublicUpdate,
    SeatInfo,
    SeatNews,
    TableInfo,
    TableStatus,
)
from bot.tables.play import STALE
from bot.tables.service import TableService
from bot.tables.timers import interrupt_timeout

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
    "interrupt_timeout",
]
