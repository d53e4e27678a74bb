"""Whether the database can be written, and one log line each time that changes.

A full disk refuses every write until space returns; logged per refused write, that
was hundreds of tracebacks saying the same thing (issue 23). A store keeps one
:class:`WriteHealth`: the first refused write logs one error line saying what is wrong
and what the bot does meanwhile, the refusals after it log nothing, and the first write
that succeeds again logs one line saying so (with how long and how many).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["WriteHealth"]

log = logging.getLogger("fabletop.store")


class WriteHealth:
    """The writable/unwritable state of one database, as its writes last found it."""

    def __init__(self, where: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.where = where
        self.clock = clock
        self.failing: str | None = None
        """Why the last write was refused (``None``: the database can be written)."""
        self.since = 0.0
        self.refused = 0
        """Writes refused since the database stopped being writable."""

    def failed(self, reason: str) -> bool:
        """A write was refused for ``reason``; true if the database could be written
        until now (the line is logged then, and only then)."""
        self.refused += 1
        if self.failing is not None:
            return False
        self.failing, self.since = reason, self.clock()
        log.error(
            "the database %s cannot be written (%s): every move and table change is "
            "refused, with a word to the player, until it can; free space on its disk "
            "(or make it writable) and the bot carries on by itself",
            self.where,
            reason,
        )
        return True

    def succeeded(self) -> bool:
        """A write went through; true if the database could not be written until now
        (the line saying it can again is logged then, and only then)."""
        if self.failing is None:
            return False
        log.warning(
            "the database %s can be written again (after %.0f s and %d refused writes)",
            self.where,
            self.clock() - self.since,
            self.refused,
        )
        self.failing, self.refused = None, 0
        return True
