"""How the bot answers a person privately, and what it says when the fault is ours.

Only a :class:`~engines.core.UserError` carries words written for players; any other
exception is a fault of ours: it is logged with a short reference, and the person gets
a plain apology quoting that reference (no internal detail ever reaches them).
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from typing import Any

import discord

from bot.core.store import StoreUnwritable

__all__ = [
    "AT_ONCE",
    "INTERNAL_ERROR",
    "UNSAVED",
    "acknowledge",
    "answered",
    "apology",
    "display_name",
    "expired",
    "log_fault",
    "private",
    "unsaved",
]

log = logging.getLogger("fabletop.errors")

INTERNAL_ERROR = "Something went wrong on my side; nothing was changed. Please try again."

# Every slash command is acknowledged privately before it reads a table (the command
# tree defers it: FabletopTree.interaction_check), and what it makes public it posts in
# the channel (Discord fixes whether a deferred answer is public when it is deferred,
# and refusals must stay private), unless its ``extras`` say otherwise:
AT_ONCE = {"answer": "at once"}
"""Its answer needs no table and no waiting (rules, help texts): it answers itself."""


def log_fault(error: BaseException, what: str) -> str:
    """Log a fault of ours with its traceback; returns the short reference to quote."""
    ref = secrets.token_hex(3)
    log.error("%s failed [ref %s]", what, ref, exc_info=error)
    return ref


def apology(error: BaseException, what: str) -> str:
    """Log a fault of ours with a short reference, and the plain apology quoting it
    (the user sees no internal detail, the operator finds the traceback)."""
    return f"{INTERNAL_ERROR} (Reference {log_fault(error, what)}.)"


UNSAVED = ("I could not save everything just now (my storage is full or failing). "
           "Have a look at the table, and try again in a few minutes if something is "
           "missing.")
"""For a write refused outside a table operation (those say "nothing was done"): what
went through before it is not known here."""


def unsaved(error: BaseException) -> bool:
    """Whether ``error`` is the database refusing a write (a full disk): the store has
    logged it once, so it is answered with :data:`UNSAVED` and not logged again."""
    return isinstance(getattr(error, "original", error), StoreUnwritable)


UNKNOWN_INTERACTION = 10062


def expired(error: BaseException) -> bool:
    """Whether ``error`` says the interaction can no longer be answered (Discord's
    "Unknown interaction": its 3 seconds, or 15 minutes after a deferral, are over).
    Nothing can be told to the person then; it is logged as a warning, not a fault."""
    original = getattr(error, "original", error)
    return isinstance(original, discord.NotFound) and original.code == UNKNOWN_INTERACTION


async def acknowledge(interaction: discord.Interaction) -> None:
    """Defer privately ("thinking"), unless the interaction was answered already (the
    command tree defers private-answer commands before they run)."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)


ANSWERED = "fabletop_answered"
"""The key in ``Interaction.extras`` saying a deferred answer has been given."""


def answered(interaction: discord.Interaction) -> bool:
    """Whether a deferred "thinking" answer has been replaced by the real one: from then
    on a follow-up of this interaction is a message of its own (before, the first
    follow-up would replace the placeholder, and keep its privacy)."""
    return bool(getattr(interaction, "extras", {}).get(ANSWERED))


async def private(interaction: discord.Interaction, text: str, **kwargs: Any) -> None:
    """An ephemeral answer whether or not the interaction was answered already."""
    # RuntimeError: the HTTP session closed under a reply while the bot shuts down.
    with contextlib.suppress(discord.HTTPException, RuntimeError):
        if interaction.response.is_done():
            await interaction.followup.send(text[:2000], ephemeral=True, **kwargs)
        else:
            await interaction.response.send_message(text[:2000], ephemeral=True, **kwargs)
        extras = getattr(interaction, "extras", None)
        if isinstance(extras, dict):
            extras[ANSWERED] = True


def display_name(user: discord.abc.User) -> str:
    """A readable seat name (mentions and markdown stripped: names end up in images)."""
    name = getattr(user, "display_name", None) or user.name
    name = discord.utils.escape_mentions(discord.utils.remove_markdown(name)).strip()
    return name[:32] or f"Player {str(user.id)[-4:]}"
