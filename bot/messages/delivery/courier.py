"""How each of the bot's messages reaches Discord, within Discord's limits.

Discord allows an application 50 requests a second on its bot token, for all its
processes together; interaction callbacks and the webhooks of interaction tokens are
exempt, and an interaction's token lasts 15 minutes. So a message goes out on an
interaction's token whenever one is at hand (:class:`Tokens`): the follow-up that posts
the next turn message in the channel the click came from (a follow-up is a new message:
it pings), the edit of the message a component sat on, the edit of a follow-up posted
with the same token. The bot token is used only when no token is at hand (an AI's move
long after the last click, a timer, a DM), and then within this process's share of the
application's budget (:class:`Budget`): messages that ask someone first, the tidying of
older messages next, private records last. An edit overtaken by a newer edit of the same
message while it waited is never sent, and an edit identical to the last one is never
sent at all.

Messages posted with an interaction's token stay the bot's own messages: after the token
has expired they are edited with the bot token like any other (Discord: a bot may edit
the messages it authored; an interaction's response and follow-ups in a channel are
authored by the application's bot user). Ephemeral messages are never kept for later.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
import heapq
import io
import itertools
import json
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.core.tables import Outbox
from bot.messages.replies import answered
from bot.messages.ui.texts import clip

__all__ = [
    "ASK",
    "CANNOT_POST",
    "RECORD",
    "TIDY",
    "Budget",
    "Courier",
    "Edit",
    "Tokens",
    "digest",
    "mentions_allowed",
    "nonce_for",
]

log = logging.getLogger(__name__)

CANNOT_POST = (
    "I could not post in this channel, so nobody saw that. Please give me View Channel, "
    "Send Messages (in Threads too), Attach Files and Read Message History here, then "
    "use the game's `board` command to bring the board back."
)

ASK, TIDY, RECORD = 0, 1, 2
"""Priorities of bot-token requests: a message that asks someone to act (a turn
message, a nudge, a first hand), then the tidying of older messages (buttons taken off,
a turn message brought up to date), then private records (a hand message kept current
for when its player looks)."""

TOKEN_MARGIN = 60.0
"""Seconds before an interaction token's 15 minutes are up when it is no longer started
on: a request begun on it must not meet the expiry halfway (a retry after a 429)."""

_USABLE = {
    discord.InteractionResponseType.deferred_message_update,
    discord.InteractionResponseType.message_update,
    discord.InteractionResponseType.channel_message,
}
"""Answers after which a follow-up is a message of its own. After a deferred "thinking"
answer the first follow-up would replace the placeholder instead (and keep its
visibility), so such an interaction is used only once it has been answered
(:func:`answered`)."""


_EDITS_ITS_MESSAGE = {
    discord.InteractionResponseType.deferred_message_update,
    discord.InteractionResponseType.message_update,
}
"""Answers of a click after which its @original is the message its component sat on."""


def digest(data: Any) -> str:
    """A short stable fingerprint of JSON-able data (what a message shows), to tell
    whether an edit would change anything."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:24]


def nonce_for(outbox: Outbox, part: str) -> str | None:
    """A message's nonce (at most 25 characters): the same for a repeat delivery of the
    same durable outbox, so Discord returns the first message instead of a second."""
    if outbox.id is None:
        return None
    return f"ft{outbox.id}{part}"[:25]


def mentions_allowed(users: tuple[int, ...] | list[int]) -> discord.AllowedMentions:
    """Only these users may be pinged by a message; never everyone or a role."""
    return discord.AllowedMentions(everyone=False, roles=False,
                                   users=[discord.Object(u) for u in users])


def follows_up(interaction: discord.Interaction) -> bool:
    """Whether a follow-up of ``interaction`` would be a new message of its own."""
    kind = interaction.response.type
    if kind in _USABLE:
        return True
    return kind is discord.InteractionResponseType.deferred_channel_message and answered(
        interaction)


# --------------------------------------------------------------------------- tokens


@dataclass
class _Noted:
    interaction: discord.Interaction
    expires: float
    """``time.time()`` at which the token expires (15 minutes after the interaction)."""


class Tokens:
    """The interaction tokens this process holds, by channel and person, and by message.

    Only clicks (component interactions, and the forms they open) carry later messages:
    a follow-up shows who made the interaction it follows (``interaction_metadata``), and
    a slash command's would name the command too (``/winter xcard`` is anonymous).

    >>> Tokens().for_channel(1) is None
    True
    """

    SIZE = 20_000
    """Messages remembered at most (the oldest go first): a token outlives 15 minutes
    nowhere, so this only bounds memory under a very large load."""

    CARRIERS = (discord.InteractionType.component, discord.InteractionType.modal_submit)

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._channels: dict[int, dict[int, _Noted]] = {}
        """channel id -> user id -> that person's freshest click there."""
        self._messages: OrderedDict[int, tuple[_Noted, bool]] = OrderedDict()
        """message id -> (the interaction that may edit it, whether it is that
        interaction's @original: the message its component sat on; else a follow-up
        posted with its token)."""

    def note(self, interaction: discord.Interaction) -> None:
        """An interaction has arrived: a click's token may carry later messages of its
        channel (once answered), and any token edits the message its component sat on."""
        if interaction.type is discord.InteractionType.autocomplete:
            return
        noted = _Noted(interaction, interaction.expires_at.timestamp())
        if interaction.type in self.CARRIERS and interaction.channel_id is not None:
            people = self._channels.setdefault(interaction.channel_id, {})
            people[interaction.user.id] = noted
        message = interaction.message
        if message is not None and not message.flags.ephemeral:
            self._remember(message.id, noted, True)

    def posted(self, message_id: int, interaction: discord.Interaction) -> None:
        """A follow-up was posted with ``interaction``'s token: it can edit it."""
        self._remember(message_id, _Noted(interaction, interaction.expires_at.timestamp()),
                       False)

    def _remember(self, message_id: int, noted: _Noted, original: bool) -> None:
        self._messages[message_id] = (noted, original)
        self._messages.move_to_end(message_id)
        while len(self._messages) > self.SIZE:
            self._messages.popitem(last=False)

    def _fresh(self, noted: _Noted) -> bool:
        return noted.expires - self.clock() > TOKEN_MARGIN

    def for_channel(self, channel_id: int, user_id: int | None = None
                    ) -> discord.Interaction | None:
        """A click whose follow-up is a new message in ``channel_id``: ``user_id``'s own
        (the person whose move it tells), else anyone's (an AI's move), or ``None``."""
        people = self._channels.get(channel_id)
        if not people:
            return None
        for user, noted in list(people.items()):
            if not self._fresh(noted):
                del people[user]
        if not people:
            del self._channels[channel_id]
            return None
        if user_id is not None:
            candidates = [people[user_id]] if user_id in people else []
        else:
            candidates = sorted(people.values(), key=lambda n: n.expires, reverse=True)
        for noted in candidates:
            if follows_up(noted.interaction):
                return noted.interaction
        return None

    def for_message(self, message_id: int) -> tuple[discord.Interaction, bool] | None:
        """The interaction that may edit ``message_id`` (and whether the message is its
        @original), or ``None``."""
        found = self._messages.get(message_id)
        if found is None:
            return None
        noted, original = found
        if not self._fresh(noted):
            del self._messages[message_id]
            return None
        response = noted.interaction.response
        if not response.is_done() or response.type is discord.InteractionResponseType.modal:
            return None  # not answered yet, or a form was the answer: it edits nothing
        if original and response.type not in _EDITS_ITS_MESSAGE:
            # Answered with a message of its own (a menu, a refusal): @original is that
            # answer now, not the message the component sat on.
            return None
        return noted.interaction, original

    def forget_message(self, message_id: int) -> None:
        self._messages.pop(message_id, None)


# --------------------------------------------------------------------------- budget


class Budget:
    """This process's share of the application's bot-token requests, per second.

    A token bucket (``per_second``, holding at most ``burst``) whose waiters are served
    by priority, then in order of arrival.

    >>> async def demo() -> list[int]:
    ...     budget, order = Budget(1000.0), []
    ...     async def one(p: int) -> None:
    ...         await budget.take(p)
    ...         order.append(p)
    ...     await asyncio.gather(one(RECORD), one(ASK), one(TIDY))
    ...     return order
    >>> asyncio.run(demo())
    [2, 0, 1]
    """

    def __init__(self, per_second: float, *, burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if per_second <= 0:
            raise ValueError("a budget needs a positive rate")
        self.per_second = per_second
        self.burst = burst if burst is not None else max(1.0, per_second / 5)
        self.clock = clock
        self._level = self.burst
        self._at = clock()
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._task: asyncio.Task[None] | None = None
        self.spent: Counter[int] = Counter()
        """Requests let through, by priority."""

    def _refill(self) -> None:
        now = self.clock()
        self._level = min(self.burst, self._level + (now - self._at) * self.per_second)
        self._at = now

    async def take(self, priority: int) -> None:
        """Wait until a request of ``priority`` may go out."""
        self._refill()
        if not self._waiting and self._level >= 1:
            self._level -= 1
            self.spent[priority] += 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), future))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._serve(), name="fabletop-budget")
        await future

    async def _serve(self) -> None:
        while self._waiting:
            self._refill()
            if self._level < 1:
                await asyncio.sleep((1 - self._level) / self.per_second)
                continue
            priority, _, future = heapq.heappop(self._waiting)
            if future.done():
                continue  # its caller gave up (cancelled)
            self._level -= 1
            self.spent[priority] += 1
            future.set_result(None)

    @property
    def waiting(self) -> int:
        return sum(1 for *_, f in self._waiting if not f.done())


# --------------------------------------------------------------------------- courier


class Edit(enum.Enum):
    """How an edit went: true only when the message shows what was asked."""

    DONE = "done"
    GONE = "gone"
    """The message no longer exists (deleted): post a new one if it matters."""
    FAILED = "failed"

    def __bool__(self) -> bool:
        return self is Edit.DONE


_Shown = tuple[str | None, str, str | None]
"""What a message shows, in parts: its text, its components and its picture (a part
``None`` is not known, or, in an edit, left as it is)."""


def _shown(content: str | None, view: discord.ui.View | None, png: bytes | None) -> _Shown:
    components = view.to_components() if view is not None else []
    return (digest(content) if content is not None else None, digest(components),
            hashlib.sha256(png).hexdigest() if png is not None else None)


def _unchanged(before: _Shown | None, edit: _Shown) -> bool:
    """Whether ``edit`` would leave a message showing ``before`` exactly as it is."""
    if before is None:
        return False
    return all(new is None or new == old for new, old in zip(edit, before, strict=True))


def _merge(before: _Shown | None, edit: _Shown) -> _Shown:
    if before is None:
        return edit
    return tuple(old if new is None else new  # type: ignore[return-value]
                 for new, old in zip(edit, before, strict=True))


class Courier:
    """Every channel message and edit of the bot, on the cheapest way Discord allows."""

    SHOWN = 20_000
    """Messages whose last edit is remembered (to drop an identical one)."""
    SHOWN_FOR = 30.0
    """Seconds what a message shows is trusted: another process may edit the same
    message (a DM click served by shard 0), so an old memory must not stop an edit."""

    def __init__(self, client: discord.Client, budget: Budget, tokens: Tokens) -> None:
        self.client = client
        self.budget = budget
        self.tokens = tokens
        self._shown: OrderedDict[int, tuple[float, _Shown]] = OrderedDict()
        self._latest: dict[int, object] = {}
        """message id -> the newest edit waiting for the budget (older ones are dropped)."""
        self.sent: Counter[str] = Counter()
        """Requests made, by way (``token`` or ``bot``) and kind, for the benchmarks."""

    def message(self, channel_id: int, message_id: int) -> discord.PartialMessage:
        """A message of ours by its ids, to edit without fetching it."""
        return self.client.get_partial_messageable(channel_id).get_partial_message(message_id)

    def _remember_shown(self, message_id: int, shown: _Shown) -> None:
        self._shown[message_id] = (time.monotonic(), _merge(self._showing(message_id), shown))
        self._shown.move_to_end(message_id)
        while len(self._shown) > self.SHOWN:
            self._shown.popitem(last=False)

    def _showing(self, message_id: int) -> _Shown | None:
        known = self._shown.get(message_id)
        if known is None or time.monotonic() - known[0] > self.SHOWN_FOR:
            return None
        return known[1]

    # -- new messages -----------------------------------------------------------------

    async def send(self, channel_id: int, *, content: str, pings: tuple[int, ...] = (),
                   png: bytes | None = None, view: discord.ui.View | None = None,
                   nonce: str | None = None, carrier: discord.Interaction | None = None,
                   priority: int = ASK) -> discord.Message | None:
        """A new message in a channel (``None`` if Discord refused it: no permission,
        say): a follow-up of ``carrier`` (a click in that channel, see
        :meth:`TurnMessages.carrier`), else on the bot token within the budget. A 5xx on
        the bot token is raised: the outbox stays undelivered and goes out at the next
        sweep or start (its nonce makes a repeat harmless)."""
        text = clip(content or "…")
        kwargs: dict[str, Any] = {"content": text, "allowed_mentions": mentions_allowed(pings)}
        if png is not None:
            kwargs["file"] = discord.File(io.BytesIO(png), filename="board.png")
        if view is not None:
            kwargs["view"] = view
        interaction = carrier
        if interaction is not None:
            try:
                sent = await interaction.followup.send(wait=True, **kwargs)
            except discord.HTTPException as exc:
                # An expired or unknown token (a long pause, a restart of Discord's
                # side): the bot token still works.
                log.info("a follow-up in channel %s was refused (%s); posting instead",
                         channel_id, exc.status)
                if png is not None:
                    kwargs["file"] = discord.File(io.BytesIO(png), filename="board.png")
            else:
                self.sent["token send"] += 1
                self.tokens.posted(sent.id, interaction)
                self._remember_shown(sent.id, _shown(text, view, png))
                return sent
        if nonce is not None:
            kwargs["nonce"] = nonce
        await self.budget.take(priority)
        self.sent["bot send"] += 1
        channel = self.client.get_partial_messageable(channel_id)
        try:
            sent = await channel.send(**kwargs)
        except discord.DiscordServerError:
            raise  # Discord's trouble, not ours
        except discord.HTTPException:
            log.exception("could not post to channel %s", channel_id)
            return None
        self._remember_shown(sent.id, _shown(text, view, png))
        return sent  # type: ignore[no-any-return]

    # -- edits ------------------------------------------------------------------------

    async def edit(self, channel_id: int, message_id: int, *, content: str | None,
                   view: discord.ui.View | None, png: bytes | None = None,
                   filename: str = "board.png", no_picture: bool = False,
                   priority: int = TIDY, private: bool = False) -> Edit:
        """Bring a message of ours to ``content`` (``None``: as it is) and ``view``
        (``None``: no buttons) and, with ``png``, a new picture (without: the picture it
        has stays; ``no_picture``: it goes). An edit pings nobody. ``private``: a DM."""
        text = clip(content) if content is not None else None
        shown = _shown(text, view, png)
        if _unchanged(self._showing(message_id), shown) and not no_picture:
            return Edit.DONE  # it shows exactly this already: nothing to send
        kwargs: dict[str, Any] = {"view": view,
                                  "allowed_mentions": discord.AllowedMentions.none()}
        if text is not None:
            kwargs["content"] = text
        if png is not None:
            kwargs["attachments"] = [discord.File(io.BytesIO(png), filename=filename)]
        elif no_picture:
            kwargs["attachments"] = []
        holder = self.tokens.for_message(message_id)
        if holder is not None:
            interaction, original = holder
            try:
                if original:
                    await interaction.edit_original_response(**kwargs)
                else:
                    await interaction.followup.edit_message(message_id, **kwargs)
            except discord.HTTPException as exc:
                log.info("editing message %s on its token was refused (%s); using the "
                         "bot token", message_id, exc.status)
                self.tokens.forget_message(message_id)
                if png is not None:
                    kwargs["attachments"] = [discord.File(io.BytesIO(png), filename=filename)]
            else:
                self.sent["token edit"] += 1
                self._remember_shown(message_id, shown)
                return Edit.DONE
        ticket = object()
        self._latest[message_id] = ticket
        try:
            await self.budget.take(priority)
        finally:
            superseded = self._latest.get(message_id) is not ticket
            if not superseded:
                del self._latest[message_id]
        if superseded:
            return Edit.DONE  # a newer edit of the same message is on its way: it says more
        if _unchanged(self._showing(message_id), shown) and not no_picture:
            return Edit.DONE
        self.sent["bot edit"] += 1
        partial = (self.client.get_partial_messageable(channel_id,
                                                       type=discord.ChannelType.private)
                   if private else self.client.get_partial_messageable(channel_id))
        try:
            await partial.get_partial_message(message_id).edit(**kwargs)
        except discord.NotFound:
            self._shown.pop(message_id, None)
            return Edit.GONE
        except discord.HTTPException:
            log.info("could not edit message %s", message_id)
            return Edit.FAILED
        self._remember_shown(message_id, shown)
        return Edit.DONE

    async def strip_buttons(self, channel_id: int, message_id: int) -> None:
        """Old buttons would only earn a "that is from an older turn" reply; removing
        them keeps the channel tidy. Best effort: the version check is the real guard."""
        await self.edit(channel_id, message_id, content=None, view=None)

    def forget(self, message_id: int) -> None:
        """What a message showed is no longer known (edited elsewhere)."""
        self._shown.pop(message_id, None)

    async def wait_idle(self, timeout: float = 30.0) -> None:
        """Until no bot-token request waits for the budget (tests, a clean stop)."""
        deadline = time.monotonic() + timeout
        while self.budget.waiting and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
