"""The table service's errors: each one a :class:`engines.core.UserError` whose text is
written for the person who caused it."""

from __future__ import annotations

from engines import core
from engines.core import UserError

__all__ = [
    "AlreadyHasTable",
    "AlreadySeated",
    "BadOptions",
    "BadSeat",
    "ConcurrentChange",
    "NoTable",
    "NotEnoughPlayers",
    "NotHost",
    "NotInLobby",
    "NotPlaying",
    "NotSeated",
    "NotYourTurn",
    "OptionGivenTwice",
    "StaleVersion",
    "StorageUnavailable",
    "TableChanged",
    "TableError",
    "TableFull",
    "UnknownAILevel",
    "UnknownGame",
    "UserError",
]


class TableError(UserError):
    """Base of every service error; ``str(exc)`` is a plain-English message for the user.

    Engine errors (:class:`engines.core.GameError`: IllegalAction, GameOver, ...) raised
    by the game pass through unchanged; both are :class:`engines.core.UserError` s, the
    one kind of error a front end shows to the user as it is.
    """

    default_message = "That cannot be done at this table."

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.default_message)


class NoTable(TableError):
    default_message = "There is no table in this channel. Start one with /table new."


class AlreadyHasTable(TableError):
    default_message = (
        "This channel already has a table. Join it with /table join, or ask the host "
        "to abort it first."
    )


class UnknownGame(TableError):
    default_message = "There is no game by that name."


class BadOptions(TableError):
    default_message = "Those table options are not valid."


class OptionGivenTwice(BadOptions):
    """One option named twice when a table is opened: the second value would silently
    win, so neither is taken. ``shown`` is the name as the front end shows it (escaped
    for its markup)."""

    def __init__(self, shown: str) -> None:
        super().__init__(f"The option '{shown}' is given twice: give it once.")


class NotSeated(TableError):
    default_message = "You do not have a seat at this table."


class AlreadySeated(TableError):
    default_message = "You already have a seat at this table."


class NotHost(TableError):
    default_message = "Only the host of this table can do that."


class TableFull(TableError):
    default_message = "This table is full."


class NotInLobby(TableError):
    default_message = "The game at this table has already started."


class NotPlaying(TableError):
    default_message = "There is no game in progress at this table."


class NotEnoughPlayers(TableError):
    default_message = "There are not enough players to start."


class BadSeat(TableError):
    default_message = "There is no such seat at this table."


class UnknownAILevel(TableError):
    default_message = "There is no AI player of that level for this game."


class NotYourTurn(TableError, core.NotYourTurn):
    """Both a TableError and the engine's NotYourTurn (catch either)."""

    default_message = "It is not your turn."


class StaleVersion(TableError, core.StaleVersion):
    """Both a TableError and the engine's StaleVersion (catch either)."""

    default_message = (
        "This button is from an older turn; the table has moved on. "
        "Use the latest message in the channel."
    )


class TableChanged(StaleVersion):
    """Another change to the table was written between the read and the write (in
    another process): nothing was done. A :class:`StaleVersion`, so whoever retries on
    a stale version (the AI, the timers) retries on this too."""

    default_message = (
        "Someone else changed this table at the same moment (a seat, a setting or the "
        "lobby), so nothing was done. Have a look at the table and try again."
    )


class ConcurrentChange(TableChanged):
    """The race was lost to another lobby change (a seat, a setting) that left the table
    where it was: still in its status, at its version. A join, a leave or an AI seat is
    tried again on the new revision (checked there from the start); anything else says
    so."""


class StorageUnavailable(TableError):
    """The database cannot be written now (its disk is full, say): nothing was done,
    and the table is as it was. The store has told the operator (one log line)."""

    default_message = (
        "I cannot save anything at the moment (my storage is full or failing), so "
        "nothing was done and the table is as it was. Please try again in a few minutes."
    )
