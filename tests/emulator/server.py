"""The emulator: an aiohttp app on 127.0.0.1 serving Discord's REST API and gateway.

>>> emu = Emulator()          # doctest: +SKIP
>>> await emu.start()         # doctest: +SKIP
>>> emu.api_base, emu.gateway_url   # point discord.py's Route.BASE / DEFAULT_GATEWAY here
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.emulator import limits, spec
from tests.emulator.gateway import DIRECT_MESSAGES, GUILD_MESSAGES, Gateway
from tests.emulator.limits import ApiError
from tests.emulator.models import (
    ALL_PERMISSIONS,
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    DM,
    GUILD_TEXT,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    PUBLIC_THREAD,
    Attachment,
    Channel,
    Guild,
    Interaction,
    Message,
    Snowflakes,
    User,
)
from tests.emulator.oauth import OAuth
from tests.emulator.ratelimits import DISCORD_LIMITS, RateLimitPolicy, RateLimits

log = logging.getLogger("emulator")

RESPONSE_WINDOW = 3.0  # seconds for the first interaction callback
TOKEN_LIFETIME = 15 * 60.0  # interaction tokens (followups, edits) expire after 15 minutes

# Callback types (https://discord.com/developers/docs/interactions/receiving-and-responding).
CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE = 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9
LAUNCH_ACTIVITY = 12
"""Open the app's Activity in the interaction's channel (an app with Activities enabled:
the emulator's has them), for a command or a component (Receiving and Responding)."""
ALLOWED_CALLBACKS = {
    APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL, LAUNCH_ACTIVITY},
    MESSAGE_COMPONENT: {
        CHANNEL_MESSAGE,
        DEFERRED_CHANNEL_MESSAGE,
        DEFERRED_UPDATE,
        UPDATE_MESSAGE,
        MODAL,
        LAUNCH_ACTIVITY,
    },
    AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
    MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE},
}


PRIMARY_ENTRY_POINT = 4
"""The command type of an Activity's Entry Point (one per app, global only)."""
ENTRY_POINT_HANDLERS = (1, 2)  # APP_HANDLER, DISCORD_LAUNCH_ACTIVITY
CANNOT_REMOVE_ENTRY_POINT = 50240
"""Bulk-overwriting the global commands without the existing Entry Point command."""
BEARER_ROUTES = frozenset({"/users/@me"})
"""Routes an OAuth2 access token may call (scope identify), as well as the bot token."""

NONCE_WINDOW = 300.0
"""Seconds within which Discord answers a repeated nonce with the earlier message."""


USER_MENTION = re.compile(r"<@!?(\d+)>")


def pinged_by(content: str, allowed: dict[str, Any] | None) -> frozenset[int]:
    """The users a new message notifies: mentioned in ``content`` and allowed by its
    allowed mentions (none given: every mention parsed, as Discord does).

    >>> sorted(pinged_by("<@1> and <@2>", {"parse": [], "users": ["2"]}))
    [2]
    >>> sorted(pinged_by("<@1>", None)), sorted(pinged_by("<@1>", {"parse": ["users"]}))
    ([1], [1])
    """
    mentioned = {int(m) for m in USER_MENTION.findall(content)}
    if allowed is None or "users" in (allowed.get("parse") or []):
        return frozenset(mentioned)
    return frozenset(mentioned & {int(u) for u in allowed.get("users") or []})


class InteractionFailed(AssertionError):
    """The bot did not answer an interaction in time: the user saw "This interaction failed"."""


@dataclass
class Fault:
    """One injected failure: a status (429 or 5xx...) on matching requests, ``times`` times."""

    route: str | None  # "METHOD /template" or "/template" or None for every route
    status: int
    retry_after: float = 0.0
    is_global: bool = False
    times: int | None = 1
    hits: int = 0
    after_apply: bool = False  # 5xx after doing the work: the answer is lost, not the request
    shared: bool = False  # a 429 of a shared resource (X-RateLimit-Scope: shared)
    within: str | None = None  # only requests whose path holds this (a token, a channel id)

    def matches(self, method: str, template: str, path: str = "") -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.within is not None and self.within not in path:
            return False
        if self.route is None:
            return True
        if " " in self.route:
            m, t = self.route.split(" ", 1)
            return m.upper() == method and t == template
        return self.route == template


@dataclass
class Faults:
    """Switches a test flips: latency, 429s, 5xx. (Closed DMs: ``user.close_dms()``;
    a dropped gateway: ``await emu.drop_gateway()``.)"""

    latency: float = 0.0
    rules: list[Fault] = field(default_factory=list)

    def rate_limit(
        self,
        route: str | None = None,
        *,
        retry_after: float = 0.25,
        is_global: bool = False,
        times: int | None = 1,
        shared: bool = False,
        within: str | None = None,
    ) -> Fault:
        fault = Fault(route, 429, retry_after, is_global, times, shared=shared, within=within)
        self.rules.append(fault)
        return fault

    def fail(
        self,
        route: str | None = None,
        *,
        status: int = 500,
        times: int | None = 1,
        after_apply: bool = False,
        within: str | None = None,
    ) -> Fault:
        fault = Fault(route, status, times=times, after_apply=after_apply, within=within)
        self.rules.append(fault)
        return fault

    def clear(self) -> None:
        self.latency = 0.0
        self.rules.clear()

    def match(self, method: str, template: str, path: str = "") -> Fault | None:
        for rule in self.rules:
            if rule.matches(method, template, path):
                return rule
        return None


@dataclass
class RestCall:
    method: str
    template: str
    path: str
    status: int
    at: float


@dataclass
class Req:
    """A parsed REST request handed to a route handler."""

    method: str
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: list[tuple[str, bytes, str]]  # (filename, data, field name)
    bearer: User | None = None  # the person of an OAuth2 access token (BEARER_ROUTES)

    def pid(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise limits.form_error(name, "Value is not snowflake.") from None


Handler = Callable[[Req], Awaitable[Any]]


class Emulator:
    """Discord on loopback. See the package docstring for the test-facing API."""

    def __init__(
        self,
        *,
        token: str = "emulator-token",
        shard_count: int = 1,
        guilds: int = 1,
        response_window: float = RESPONSE_WINDOW,
        rate_limits: RateLimitPolicy | None = DISCORD_LIMITS,
    ) -> None:
        self.token = token
        self.shard_count = shard_count
        self.response_window = response_window
        self.ids = Snowflakes()
        self.application_id = self.ids.next()
        self.bot = User(self.application_id, "Fabletop", bot=True)
        self.owner = User(self.ids.next(), "owner")
        self.users: dict[int, User] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.uploaded: list[Attachment] = []
        """Every file uploaded, in order (a picture re-sent counts again)."""
        self.nonces: dict[tuple[int, str], tuple[Message, float]] = {}
        self.nonce_hits = 0
        """Sends answered with an earlier message because of ``enforce_nonce``."""
        self.ephemerals: dict[int, list[Message]] = {}
        self.interactions: dict[int, Interaction] = {}
        self._by_token: dict[str, Interaction] = {}
        self.global_commands: dict[int, dict[str, Any]] = {}
        self.guild_commands: dict[int, dict[int, dict[str, Any]]] = {}
        self.open_modals: dict[int, Interaction] = {}  # user id -> interaction that opened one
        self.faults = Faults()
        self.oauth = OAuth(self)
        """Discord's OAuth2 for the Activity: the token endpoint and bearer tokens
        (:mod:`tests.emulator.oauth`); ``emu.authorization_code(person)`` stands in for
        the Activity's ``authorize``."""
        self.ratelimits = RateLimits(self, rate_limits)
        """Discord's rate limits (on unless ``rate_limits=None``): see
        :mod:`tests.emulator.ratelimits`."""
        self.spec = spec.description()
        """Discord's OpenAPI description: every REST request is checked against it."""
        self.app_permissions = ALL_PERMISSIONS
        """The bot's permissions as interactions report them (``app_permissions``): a
        test takes some away to see the bot say so."""
        self.gateway = Gateway(self)
        self.requests: list[RestCall] = []
        self.api_errors: list[tuple[str, str, ApiError]] = []
        self.unknown_routes: list[str] = []
        self._clock_offset = 0.0
        self._inflight = 0
        self._last_activity = time.perf_counter()
        self._retry_pending_until = 0.0
        self._changed_event = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self.port = 0
        self._routes: list[tuple[str, re.Pattern[str], str, Handler]] = []
        self._register_routes()
        for i in range(guilds):
            self.add_guild(
                f"Test Guild {i + 1}" if guilds > 1 else "Test Guild", shard=i % shard_count
            )

    # ---- lifecycle -------------------------------------------------------------------------

    async def start(self, port: int = 0) -> Emulator:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_route("GET", "/", self.gateway.handle)
        app.router.add_route("GET", "/gateway-ws", self.gateway.handle)
        app.router.add_route("GET", "/attachments/{cid}/{aid}/{name}", self._attachment)
        # Before the REST catch-all: a form, not JSON, and not in the OpenAPI description.
        app.router.add_route("POST", "/api/v{version:\\d+}/oauth2/token", self.oauth.token)
        app.router.add_route("POST", "/api/oauth2/token", self.oauth.token)
        app.router.add_route("*", "/api/v{version:\\d+}/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Emulator:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What discord.py's ``Route.BASE`` must be set to (env DISCORD_API_BASE)."""
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        """The websocket address (env DISCORD_GATEWAY_URL, DiscordWebSocket.DEFAULT_GATEWAY)."""
        return f"ws://127.0.0.1:{self.port}/"

    def now(self) -> float:
        """The emulator's clock: monotonic time plus whatever ``advance_time`` added."""
        return time.monotonic() + self._clock_offset

    def advance_time(self, seconds: float) -> None:
        """Jump the clock (token expiry, response windows) without waiting."""
        self._clock_offset += seconds

    def _changed(self) -> None:
        self._changed_event.set()

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- the world -------------------------------------------------------------------------

    def add_guild(self, name: str, *, shard: int | None = None) -> Guild:
        gid = self.ids.for_shard(shard, self.shard_count) if shard is not None else self.ids.next()
        guild = Guild(gid, name, self.owner.id)
        for user in self.users.values():
            guild.members[user.id] = user
        self.guilds[gid] = guild
        self.add_channel(guild, "general")
        self.add_channel(guild, "games")
        self.gateway.dispatch("GUILD_CREATE", guild.to_api(self.bot), gid)
        return guild

    def add_channel(self, guild: Guild, name: str) -> Channel:
        channel = Channel(self.ids.next(), GUILD_TEXT, name, guild.id, position=len(guild.channels))
        guild.channels[channel.id] = channel
        self.channels[channel.id] = channel
        self.gateway.dispatch("CHANNEL_CREATE", channel.to_api(), guild.id)
        return channel

    def create_thread(self, parent: Channel, name: str, owner: User | None = None) -> Channel:
        assert parent.guild_id is not None
        guild = self.guilds[parent.guild_id]
        thread = Channel(
            self.ids.next(),
            PUBLIC_THREAD,
            name,
            guild.id,
            parent_id=parent.id,
            owner_id=(owner or self.owner).id,
        )
        guild.channels[thread.id] = thread
        self.channels[thread.id] = thread
        self.gateway.dispatch("THREAD_CREATE", {**thread.to_api(), "newly_created": True}, guild.id)
        return thread

    @property
    def guild(self) -> Guild:
        return next(iter(self.guilds.values()))

    @property
    def channel(self) -> Channel:
        """The default guild's #general."""
        return next(c for c in self.guild.channels.values() if c.name == "general")

    def channel_named(self, name: str, guild: Guild | None = None) -> Channel:
        return next(c for c in (guild or self.guild).channels.values() if c.name == name)

    def user(self, name: str, *, manage_channels: bool = False) -> Any:
        """The simulated person called ``name`` (created and added to every guild once)."""
        from tests.emulator.people import Person

        for u in self.users.values():
            if u.name == name and not u.bot:
                return Person(self, u)
        u = User(self.ids.next(), name)
        if manage_channels:
            u.permissions |= 1 << 4
        self.users[u.id] = u
        for guild in self.guilds.values():
            guild.members[u.id] = u
            self.gateway.dispatch(
                "GUILD_MEMBER_ADD",
                {**u.member_api(guild), "guild_id": str(guild.id)},
                guild.id,
                intent=1 << 1,
            )
        return Person(self, u)

    def dm_channel(self, user: User, create: bool = True) -> Channel | None:
        for ch in self.channels.values():
            if ch.type == DM and ch.recipient is user:
                return ch
        if not create:
            return None
        ch = Channel(self.ids.next(), DM, f"dm-{user.name}", recipient=user)
        self.channels[ch.id] = ch
        return ch

    # ---- observing -------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Every shard has a live, identified gateway session."""
        return self.gateway.ready_shards == set(range(self.shard_count))

    def authorization_code(self, person: Any) -> str:
        """A code Discord's ``authorize`` (scope identify) would give the Activity of
        ``person`` (a Person or a User); the bot's server exchanges it once."""
        return self.oauth.authorization_code(getattr(person, "user", person))

    @property
    def client_secret(self) -> str:
        """The application's OAuth2 client secret (DISCORD_CLIENT_SECRET)."""
        return self.oauth.client_secret

    def commands(self, guild: Guild | None = None) -> list[dict[str, Any]]:
        cmds = list(self.global_commands.values())
        if guild is not None:
            cmds += list(self.guild_commands.get(guild.id, {}).values())
        return cmds

    async def wait_for(
        self, predicate: Callable[[], Any], timeout: float = 5.0, message: str = ""
    ) -> Any:
        """Wait until ``predicate()`` is truthy; return its value (AssertionError on timeout)."""
        deadline = time.perf_counter() + timeout
        while True:
            value = predicate()
            if value:
                return value
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise AssertionError(
                    f"timed out after {timeout}s waiting for "
                    f"{message or getattr(predicate, '__name__', predicate)}"
                )
            self._changed_event.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed_event.wait(), min(remaining, 0.05))

    async def wait_ready(self, timeout: float = 20.0) -> None:
        await self.wait_for(lambda: self.ready, timeout, "every shard to connect")

    async def settle(
        self, interaction: Interaction | None = None, *, quiet: float = 0.15, timeout: float = 10.0
    ) -> None:
        """Wait until the bot has gone quiet: no request in flight, none for ``quiet`` s, no
        client retry pending, and (given an interaction) its deferred answer filled in."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            now = time.perf_counter()
            done = (
                self._inflight == 0
                and now - self._last_activity >= quiet
                and now >= self._retry_pending_until
            )
            if done and interaction is not None and interaction.responded_at is not None:
                if interaction.loading:
                    done = False
                elif (
                    interaction.response_type == DEFERRED_UPDATE
                    and self._last_activity <= interaction.responded_at
                    and now - interaction.responded_at < 2.0
                ):
                    done = False  # a deferred update is normally followed by an edit
            if done:
                return
            await asyncio.sleep(0.02)

    def take_errors(self) -> list[ApiError]:
        """The API errors the emulator answered since the last call (and forget them)."""
        errors = [e for _, _, e in self.api_errors]
        self.api_errors.clear()
        return errors

    def assert_clean(self) -> None:
        """Fail if the bot sent anything Discord would refuse, called an unknown route or
        left an interaction unanswered."""
        problems = [f"{m} {p}: {e}" for m, p, e in self.api_errors]
        problems += [f"unknown route {r}" for r in self.unknown_routes]
        problems += self.ratelimits.problems()
        problems += [
            f"{i!r} failed: no answer within {self.response_window}s"
            for i in self.interactions.values()
            if i.failed
        ]
        if problems:
            raise AssertionError(
                "the bot made requests Discord would refuse:\n  " + "\n  ".join(problems)
            )

    def latencies(self) -> list[float]:
        """Seconds from INTERACTION_CREATE sent to first callback, per answered interaction."""
        return [i.latency for i in self.interactions.values() if i.latency is not None]

    def inject_message(
        self,
        channel: Channel,
        content: str = "",
        *,
        components: list[dict[str, Any]] | None = None,
        files: list[tuple[str, bytes]] | None = None,
    ) -> Message:
        """A message as if the bot had posted it (to test checks that scan messages)."""
        payload = {"content": content, "components": components or []}
        return self._new_message(
            channel,
            payload,
            [(n, d, f"files[{i}]") for i, (n, d) in enumerate(files or [])],
            flags=0,
        )

    def all_messages(self) -> Iterator[Message]:
        for ch in self.channels.values():
            yield from ch.messages
        for msgs in self.ephemerals.values():
            yield from msgs

    # ---- faults ----------------------------------------------------------------------------

    async def drop_gateway(self, shard_id: int | None = None, *, abrupt: bool = True) -> None:
        """Cut the gateway connection (all shards by default); the client should RESUME."""
        await self.gateway.drop(shard_id, abrupt=abrupt)

    # ---- interactions (driven by people.Person) ------------------------------------------

    def start_interaction(
        self,
        user: User,
        channel: Channel,
        itype: int,
        data: dict[str, Any],
        *,
        message: Message | None = None,
        name: str = "",
    ) -> Interaction:
        guild = self.guilds.get(channel.guild_id) if channel.guild_id else None
        inter = Interaction(
            self.ids.next(),
            "tok." + secrets.token_urlsafe(32),
            itype,
            user,
            channel,
            guild,
            data,
            self.now(),
            message=message,
            name=name,
        )
        inter.seen_last_id = channel.messages[-1].id if channel.messages else 0
        inter.seen_edit = message.edited_at if message is not None else None
        self.interactions[inter.id] = inter
        self._by_token[inter.token] = inter
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "token": inter.token,
            "version": 1,
            "channel_id": str(channel.id),
            "channel": channel.to_api(),
            "app_permissions": str(self.app_permissions),
            "locale": "en-US",
            "entitlements": [],
            "attachment_size_limit": limits.ATTACHMENT_MAX_BYTES,
        }
        if guild is not None:
            payload.update(
                {
                    "guild_id": str(guild.id),
                    "member": user.member_api(guild),
                    "guild_locale": "en-US",
                    "context": 0,
                    "guild": {"id": str(guild.id), "locale": "en-US", "features": []},
                    "authorizing_integration_owners": {"0": str(guild.id)},
                }
            )
        else:
            payload.update(
                {
                    "user": user.to_api(),
                    "context": 1,
                    "authorizing_integration_owners": {"1": str(user.id)},
                }
            )
        if message is not None:
            payload["message"] = message.to_api(self.base_url)
        inter.dispatched_at = time.perf_counter()
        self._last_activity = inter.dispatched_at
        self.gateway.dispatch("INTERACTION_CREATE", payload, guild.id if guild else None)
        self._spawn(self._expire(inter))
        return inter

    async def _expire(self, inter: Interaction) -> None:
        await asyncio.sleep(self.response_window + 0.05)
        if not inter.acknowledged:
            inter.timed_out = True
            inter.responded.set()
            self._changed()

    async def finish(
        self,
        inter: Interaction,
        *,
        wait: bool = True,
        expect_response: bool = True,
        settle: bool = True,
    ) -> Interaction:
        """Wait for the first answer (InteractionFailed if none came in the window), then,
        with ``settle``, for the bot to go quiet (see :meth:`settle`)."""
        if not wait:
            return inter
        await inter.responded.wait()
        if inter.timed_out and expect_response:
            raise InteractionFailed(
                f"{inter!r}: no response within {self.response_window}s "
                "(the user sees 'This interaction failed')"
            )
        if settle:
            await self.settle(inter)
        return inter

    async def answer(self, inter: Interaction, timeout: float = 20.0) -> Message | None:
        """What the person sees come back for an interaction they did not settle: the
        response message at once, or after a deferral whatever follows first: a private
        follow-up (returned), or the clicked message edited or a new message in the
        channel (the click was a move: None). A bot that acknowledges before it reads
        the table sends its menus and refusals as follow-ups."""
        await inter.responded.wait()

        def ready() -> tuple[Message | None] | None:
            reply = inter.reply
            if reply is not None and not reply.loading:
                return (reply,)
            if inter.response_type != DEFERRED_UPDATE:
                return None
            msg = inter.message
            if msg is not None and msg.edited_at != inter.seen_edit:
                return (None,)
            if inter.channel.messages and inter.channel.messages[-1].id > inter.seen_last_id:
                return (None,)
            return None

        if inter.response_type is None:
            return None
        found = await self.wait_for(ready, timeout, f"an answer to {inter!r}")
        return found[0]

    # ---- REST plumbing ---------------------------------------------------------------------

    def _route(self, method: str, template: str, handler: Handler) -> None:
        pattern = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template)
        self._routes.append((method, re.compile(f"^{pattern}$"), template, handler))

    async def _attachment(self, request: web.Request) -> web.Response:
        for msg in self.all_messages():
            for a in msg.attachments:
                if str(a.id) == request.match_info["aid"]:
                    return web.Response(body=a.data, content_type=a.content_type)
        return web.Response(status=404)

    @staticmethod
    def _json(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
        # discord.py compares the Content-Type header literally with "application/json".
        hdrs = {"Content-Type": "application/json", **(headers or {})}
        return web.Response(body=json.dumps(data).encode(), status=status, headers=hdrs)

    async def _read(self, request: web.Request) -> tuple[Any, list[tuple[str, bytes, str]]]:
        ctype = request.headers.get("Content-Type", "")
        files: list[tuple[str, bytes, str]] = []
        if ctype.startswith("multipart/"):
            payload: Any = None
            reader = await request.multipart()
            async for part in reader:
                if part is None:
                    break
                name = getattr(part, "name", None) or ""
                if name == "payload_json":
                    payload = json.loads(await part.text())  # type: ignore[union-attr]
                elif getattr(part, "filename", None):
                    data = bytes(await part.read(decode=False))  # type: ignore[union-attr]
                    files.append((part.filename, data, name))  # type: ignore[union-attr]
            return payload or {}, files
        body = await request.read()
        if not body:
            return None, files
        if ctype != "application/json":
            raise limits.form_error("body", f"unexpected content type {ctype!r}")
        return json.loads(body), files

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["tail"]
        method = request.method
        found = None
        for m, pattern, template, handler in self._routes:
            match = pattern.match(path)
            if m == method and match:
                found = (template, handler, match)
                break
        if found is None:
            self.unknown_routes.append(f"{method} {path}")
            log.error("EMULATOR: unknown route %s %s -> 404 (add it to the emulator)", method, path)
            return self._json({"code": 0, "message": "404: Not Found"}, 404)
        self._inflight += 1
        self._last_activity = time.perf_counter()
        template, _handler, match = found
        try:
            return await self.ratelimits.serve(
                request,
                method,
                path,
                template,
                match.groupdict(),
                lambda: self._serve(request, method, path, *found),
            )
        finally:
            self._inflight -= 1
            self._last_activity = time.perf_counter()
            self._changed()

    async def _serve(
        self,
        request: web.Request,
        method: str,
        path: str,
        template: str,
        handler: Handler,
        match: re.Match[str],
    ) -> web.Response:
        if self.faults.latency:
            await asyncio.sleep(self.faults.latency)
        fault = self.faults.match(method, template, path)
        if fault is not None and not fault.after_apply:
            fault.hits += 1
            self.requests.append(
                RestCall(method, template, path, fault.status, time.perf_counter())
            )
            return self._fault_response(fault)
        authless = template.startswith(("/interactions/", "/webhooks/"))
        authorization = request.headers.get("Authorization") or ""
        bearer = None
        if authorization.startswith("Bearer ") and template in BEARER_ROUTES:
            bearer = self.oauth.user_of(authorization[len("Bearer "):])
            if bearer is None:
                self.requests.append(RestCall(method, template, path, 401, time.perf_counter()))
                return self._json({"code": 0, "message": "401: Unauthorized"}, 401)
        elif not authless and authorization != f"Bot {self.token}":
            self.requests.append(RestCall(method, template, path, 401, time.perf_counter()))
            return self._json({"code": 0, "message": "401: Unauthorized"}, 401)
        try:
            body, files = await self._read(request)
            ctype = request.headers.get("Content-Type", "")
            self.spec.check(method, path, request.query, ctype, body, [n for _, _, n in files])
            req = Req(method, dict(match.groupdict()), dict(request.query), body, files,
                      bearer=bearer)
            result = await handler(req)
        except ApiError as exc:
            self.api_errors.append((method, path, exc))
            log.warning("EMULATOR refused %s %s: %s", method, path, exc)
            self.requests.append(RestCall(method, template, path, exc.status, time.perf_counter()))
            return self._json(exc.body(), exc.status)
        if fault is not None:  # after_apply: the work is done but the answer is lost
            fault.hits += 1
            self.requests.append(
                RestCall(method, template, path, fault.status, time.perf_counter())
            )
            return self._fault_response(fault)
        status = 204 if result is None else 200
        self.requests.append(RestCall(method, template, path, status, time.perf_counter()))
        if result is None:
            return web.Response(status=204)
        return self._json(result)

    def note_call(self, method: str, template: str, path: str, status: int) -> None:
        """A REST call answered without reaching its route (a rate limit, a ban)."""
        self.requests.append(RestCall(method, template, path, status, time.perf_counter()))

    def note_retry(self, seconds: float) -> None:
        """A 429 told the client to wait ``seconds``: :meth:`settle` waits for the retry."""
        self._retry_pending_until = max(
            self._retry_pending_until, time.perf_counter() + seconds + 0.5
        )

    def _fault_response(self, fault: Fault) -> web.Response:
        now = time.perf_counter()
        if fault.status == 429:
            self._retry_pending_until = max(
                self._retry_pending_until, now + fault.retry_after + 0.5
            )
            headers = {
                "Via": "1.1 google",
                "Retry-After": str(fault.retry_after),
                "X-RateLimit-Scope": (
                    "global" if fault.is_global else "shared" if fault.shared else "user"
                ),
            }
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            return self._json(
                {
                    "message": "You are being rate limited.",
                    "code": 0,
                    "retry_after": fault.retry_after,
                    "global": fault.is_global,
                },
                429,
                headers,
            )
        # discord.py sleeps 1 + 2*tries seconds before retrying a 5xx.
        self._retry_pending_until = max(self._retry_pending_until, now + 1.6)
        return self._json({"message": "Internal Server Error", "code": 0}, fault.status)

    # ---- REST routes -----------------------------------------------------------------------

    def _register_routes(self) -> None:
        r = self._route
        r("GET", "/gateway", self._get_gateway)
        r("GET", "/gateway/bot", self._get_gateway_bot)
        r("GET", "/users/@me", self._get_me)
        r("GET", "/users/{user_id}", self._get_user)
        r("POST", "/users/@me/channels", self._create_dm)
        r("GET", "/oauth2/applications/@me", self._get_app)
        r("GET", "/applications/@me", self._get_app)
        r("GET", "/applications/{application_id}/commands", self._get_commands)
        r("PUT", "/applications/{application_id}/commands", self._put_commands)
        r("POST", "/applications/{application_id}/commands", self._post_command)
        r("GET", "/applications/{application_id}/commands/{command_id}", self._get_command)
        r("PATCH", "/applications/{application_id}/commands/{command_id}", self._patch_command)
        r("DELETE", "/applications/{application_id}/commands/{command_id}", self._del_command)
        gc = "/applications/{application_id}/guilds/{guild_id}/commands"
        r("GET", gc, self._get_commands)
        r("PUT", gc, self._put_commands)
        r("POST", gc, self._post_command)
        r("GET", gc + "/permissions", self._empty_list)
        r("GET", gc + "/{command_id}", self._get_command)
        r("PATCH", gc + "/{command_id}", self._patch_command)
        r("DELETE", gc + "/{command_id}", self._del_command)
        r("GET", "/applications/{application_id}/emojis", self._empty_items)
        r("GET", "/applications/{application_id}/entitlements", self._empty_list)
        r("POST", "/interactions/{interaction_id}/{token}/callback", self._callback)
        wh = "/webhooks/{application_id}/{token}"
        r("POST", wh, self._followup)
        r("GET", wh + "/messages/{message_id}", self._get_webhook_message)
        r("PATCH", wh + "/messages/{message_id}", self._edit_webhook_message)
        r("DELETE", wh + "/messages/{message_id}", self._delete_webhook_message)
        r("GET", "/channels/{channel_id}", self._get_channel)
        r("PATCH", "/channels/{channel_id}", self._edit_channel)
        r("POST", "/channels/{channel_id}/typing", self._nothing)
        r("GET", "/channels/{channel_id}/messages", self._list_messages)
        r("POST", "/channels/{channel_id}/messages", self._send_message)
        r("POST", "/channels/{channel_id}/messages/bulk-delete", self._bulk_delete)
        r("GET", "/channels/{channel_id}/messages/pins", self._pins)
        r("PUT", "/channels/{channel_id}/messages/pins/{message_id}", self._nothing)
        r("DELETE", "/channels/{channel_id}/messages/pins/{message_id}", self._nothing)
        r("PUT", "/channels/{channel_id}/pins/{message_id}", self._nothing)
        r("DELETE", "/channels/{channel_id}/pins/{message_id}", self._nothing)
        r("GET", "/channels/{channel_id}/messages/{message_id}", self._get_message)
        r("PATCH", "/channels/{channel_id}/messages/{message_id}", self._edit_message)
        r("DELETE", "/channels/{channel_id}/messages/{message_id}", self._delete_message)
        react = "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/{user}"
        r("PUT", react, self._nothing)
        r("DELETE", react, self._nothing)
        r("POST", "/channels/{channel_id}/threads", self._start_thread)
        r("POST", "/channels/{channel_id}/messages/{message_id}/threads", self._start_thread)
        r("PUT", "/channels/{channel_id}/thread-members/{user}", self._nothing)
        r("DELETE", "/channels/{channel_id}/thread-members/{user}", self._nothing)
        r("GET", "/guilds/{guild_id}", self._get_guild)
        r("GET", "/guilds/{guild_id}/channels", self._get_guild_channels)
        r("GET", "/guilds/{guild_id}/members/{user_id}", self._get_member)
        r("GET", "/guilds/{guild_id}/roles", self._get_roles)

    async def _nothing(self, req: Req) -> None:
        return None

    async def _empty_list(self, req: Req) -> list[Any]:
        return []

    async def _empty_items(self, req: Req) -> dict[str, Any]:
        return {"items": []}

    async def _get_gateway(self, req: Req) -> dict[str, Any]:
        return {"url": self.gateway_url}

    async def _get_gateway_bot(self, req: Req) -> dict[str, Any]:
        return {
            "url": self.gateway_url,
            "shards": self.shard_count,
            "session_start_limit": {
                "total": 1000,
                "remaining": 999,
                "reset_after": 86400000,
                "max_concurrency": 1,
            },
        }

    async def _get_me(self, req: Req) -> dict[str, Any]:
        if req.bearer is not None:
            # Scope identify: the user, without their email.
            return {**req.bearer.to_api(), "global_name": req.bearer.name, "verified": True,
                    "mfa_enabled": False, "locale": "en-US"}
        return {
            **self.bot.to_api(),
            "verified": True,
            "mfa_enabled": False,
            "locale": "en-US",
            "email": None,
        }

    async def _get_user(self, req: Req) -> dict[str, Any]:
        user = self.users.get(req.pid("user_id"))
        if user is None:
            raise ApiError(404, limits.UNKNOWN_USER, "Unknown User")
        return user.to_api()

    async def _get_app(self, req: Req) -> dict[str, Any]:
        return {
            "id": str(self.application_id),
            "name": self.bot.name,
            "description": "Fabletop (emulated)",
            "icon": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "owner": self.owner.to_api(),
            "verify_key": "0" * 64,
            "flags": 0,
            "team": None,
            "summary": "",
            "interactions_endpoint_url": None,
            "bot": self.bot.to_api(),
            "approximate_guild_count": len(self.guilds),
            "redirect_uris": [],
            "rpc_origins": [],
            "tags": [],
        }

    def _channel(self, req: Req) -> Channel:
        channel = self.channels.get(req.pid("channel_id"))
        if channel is None:
            raise ApiError(404, limits.UNKNOWN_CHANNEL, "Unknown Channel")
        return channel

    async def _get_channel(self, req: Req) -> dict[str, Any]:
        return self._channel(req).to_api()

    async def _edit_channel(self, req: Req) -> dict[str, Any]:
        channel = self._channel(req)
        body = req.json or {}
        if "name" in body:
            limits._length(body["name"], "name", 100, 1)
            channel.name = body["name"]
        if "archived" in body:
            channel.archived = bool(body["archived"])
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        self.gateway.dispatch(event, channel.to_api(), channel.guild_id)
        return channel.to_api()

    async def _get_guild(self, req: Req) -> dict[str, Any]:
        guild = self.guilds.get(req.pid("guild_id"))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        data = guild.to_api(self.bot)
        for key in ("members", "channels", "threads", "voice_states", "presences"):
            data.pop(key)
        return data

    async def _get_guild_channels(self, req: Req) -> list[dict[str, Any]]:
        guild = self.guilds.get(req.pid("guild_id"))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return [c.to_api() for c in guild.channels.values() if not c.is_thread]

    async def _get_member(self, req: Req) -> dict[str, Any]:
        guild = self.guilds.get(req.pid("guild_id"))
        user = guild.members.get(req.pid("user_id")) if guild else None
        if guild is None or user is None:
            raise ApiError(404, 10007, "Unknown Member")
        return user.member_api(guild)

    async def _get_roles(self, req: Req) -> list[dict[str, Any]]:
        guild = self.guilds.get(req.pid("guild_id"))
        if guild is None:
            raise ApiError(404, 10004, "Unknown Guild")
        return guild.to_api(self.bot)["roles"]

    async def _create_dm(self, req: Req) -> dict[str, Any]:
        body = req.json or {}
        try:
            user = self.users[int(body.get("recipient_id", 0))]
        except (KeyError, ValueError):
            raise ApiError(
                400, limits.INVALID_FORM_BODY, "Invalid Form Body", "recipient_id", "Unknown user"
            ) from None
        channel = self.dm_channel(user)
        assert channel is not None
        return channel.to_api()

    # -- application commands --

    def _command_store(self, req: Req) -> dict[int, dict[str, Any]]:
        if req.pid("application_id") != self.application_id:
            raise ApiError(403, limits.MISSING_ACCESS, "Missing Access")
        if "guild_id" in req.params:
            gid = req.pid("guild_id")
            if gid not in self.guilds:
                raise ApiError(403, limits.MISSING_ACCESS, "Missing Access")
            return self.guild_commands.setdefault(gid, {})
        return self.global_commands

    def _validate_command(self, cmd: dict[str, Any], path: str = "") -> None:
        ctype = cmd.get("type", 1)
        name = cmd.get("name")
        if cmd.get("handler") is not None and ctype != PRIMARY_ENTRY_POINT:
            # Application Commands: handler "is only available for PRIMARY_ENTRY_POINT".
            raise limits.form_error(f"{path}handler", "Only Entry Point commands have a handler")
        if ctype == PRIMARY_ENTRY_POINT:
            if cmd.get("handler") not in ENTRY_POINT_HANDLERS:
                raise limits.form_error(f"{path}handler", "Entry Point commands need a handler")
            if cmd.get("options"):
                raise limits.form_error(f"{path}options", "Entry Point commands take no options")
            if not (isinstance(name, str) and re.fullmatch(r"[-_\w]{1,32}", name)
                    and name == name.lower()):
                raise limits.form_error(f"{path}name", "Command name is invalid")
            limits._length(cmd.get("description"), f"{path}description", 100, 1)
        if ctype == 1 and not (
            isinstance(name, str) and re.fullmatch(r"[-_\w]{1,32}", name) and name == name.lower()
        ):
            raise limits.form_error(f"{path}name", "Command name is invalid")
        if ctype == 1:
            limits._length(cmd.get("description"), f"{path}description", 100, 1)
        options = cmd.get("options") or []
        if len(options) > 25:
            raise limits.form_error(f"{path}options", "Must be 25 or fewer in length.")
        names: set[str] = set()
        seen_optional = False
        for i, opt in enumerate(options):
            p = f"{path}options.{i}."
            if opt.get("name") in names:
                raise limits.form_error(f"{p}name", "Option names must be unique")
            names.add(opt.get("name"))
            if opt.get("type") in (1, 2):
                self._validate_command({**opt, "type": 1}, p)
                continue
            limits._length(opt.get("description"), f"{p}description", 100, 1)
            if not re.fullmatch(r"[-_\w]{1,32}", opt.get("name") or ""):
                raise limits.form_error(f"{p}name", "Option name is invalid")
            if opt.get("required"):
                if seen_optional:
                    raise limits.form_error(
                        p, "Required options must be placed before non-required options"
                    )
            else:
                seen_optional = True
            if len(opt.get("choices") or []) > 25:
                raise limits.form_error(f"{p}choices", "Must be 25 or fewer in length.")
            if opt.get("choices") and opt.get("autocomplete"):
                raise limits.form_error(
                    f"{p}autocomplete", "Autocomplete cannot be set with choices"
                )

    def _store_command(
        self, store: dict[int, dict[str, Any]], body: dict[str, Any], req: Req
    ) -> dict[str, Any]:
        self._validate_command(body)
        if body.get("type") == PRIMARY_ENTRY_POINT:
            if "guild_id" in req.params:
                raise limits.form_error("type", "Entry Point commands can only be global")
            if any(c.get("type") == PRIMARY_ENTRY_POINT and c["name"] != body["name"]
                   for c in store.values()):
                raise limits.form_error("type", "An app has at most one Entry Point command")
        existing = next(
            (
                c
                for c in store.values()
                if c["name"] == body["name"] and c.get("type", 1) == body.get("type", 1)
            ),
            None,
        )
        cid = int(existing["id"]) if existing else self.ids.next()
        cmd = {
            "id": str(cid),
            "application_id": str(self.application_id),
            "version": str(self.ids.next()),
            "type": body.get("type", 1),
            "name": body["name"],
            "description": body.get("description", ""),
            "options": body.get("options") or [],
            "default_member_permissions": body.get("default_member_permissions"),
            "dm_permission": body.get("dm_permission", True),
            "nsfw": body.get("nsfw", False),
            "contexts": body.get("contexts"),
            "integration_types": body.get("integration_types", [0]),
            "name_localizations": body.get("name_localizations"),
            "description_localizations": body.get("description_localizations"),
        }
        if body.get("type") == PRIMARY_ENTRY_POINT:
            cmd["handler"] = body["handler"]
        if "guild_id" in req.params:
            cmd["guild_id"] = req.params["guild_id"]
        store[cid] = cmd
        return cmd

    async def _get_commands(self, req: Req) -> list[dict[str, Any]]:
        return list(self._command_store(req).values())

    async def _put_commands(self, req: Req) -> list[dict[str, Any]]:
        store = self._command_store(req)
        body = req.json or []
        if len(body) > 100:
            raise limits.form_error("", "Must be 100 or fewer in length.")
        old = dict(store)
        entry = next((c for c in old.values() if c.get("type") == PRIMARY_ENTRY_POINT), None)
        if entry is not None and not any(
                isinstance(c, dict) and c.get("type") == PRIMARY_ENTRY_POINT for c in body):
            # Discord keeps an Activity's Entry Point out of reach of a bulk overwrite
            # that forgets it (it would take the App Launcher's button away).
            raise ApiError(400, CANNOT_REMOVE_ENTRY_POINT,
                           "You cannot remove this app's Entry Point command in a bulk "
                           "update operation. Please include the Entry Point command in "
                           "your update request or delete it separately.")
        store.clear()
        try:
            out = [self._store_command(store, c, req) for c in body]
        except ApiError:
            store.clear()
            store.update(old)
            raise
        # Keep ids stable across syncs, like Discord (by name and type).
        self._changed()
        return out

    async def _post_command(self, req: Req) -> dict[str, Any]:
        cmd = self._store_command(self._command_store(req), req.json or {}, req)
        self._changed()
        return cmd

    def _find_command(self, req: Req) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
        store = self._command_store(req)
        cmd = store.get(req.pid("command_id"))
        if cmd is None:
            raise ApiError(404, limits.UNKNOWN_APPLICATION_COMMAND, "Unknown application command")
        return store, cmd

    async def _get_command(self, req: Req) -> dict[str, Any]:
        return self._find_command(req)[1]

    async def _patch_command(self, req: Req) -> dict[str, Any]:
        store, cmd = self._find_command(req)
        merged = {**cmd, **(req.json or {})}
        self._validate_command(merged)
        store[int(cmd["id"])] = merged
        return merged

    async def _del_command(self, req: Req) -> None:
        store, cmd = self._find_command(req)
        del store[int(cmd["id"])]

    # -- messages --

    def _attachments(
        self,
        payload: dict[str, Any],
        files: list[tuple[str, bytes, str]],
        keep: list[Attachment] | None = None,
    ) -> list[Attachment]:
        """New files (matched to payload["attachments"] by index) plus kept attachments."""
        described = {}
        kept: list[Attachment] = []
        for entry in payload.get("attachments") or []:
            described[str(entry.get("id"))] = entry
            if keep is not None:
                kept += [a for a in keep if str(a.id) == str(entry.get("id"))]
        out = list(kept)
        for index, (filename, data, fieldname) in enumerate(files):
            m = re.fullmatch(r"files\[(\d+)\]", fieldname)
            key = m.group(1) if m else str(index)
            entry = described.get(key, {})
            out.append(
                Attachment(
                    self.ids.next(),
                    entry.get("filename") or filename,
                    data,
                    entry.get("description"),
                )
            )
            self.uploaded.append(out[-1])
        return out

    def _new_message(
        self,
        channel: Channel,
        payload: dict[str, Any],
        files: list[tuple[str, bytes, str]],
        *,
        flags: int,
        mtype: int = 0,
        inter: Interaction | None = None,
    ) -> Message:
        msg = Message(
            self.ids.next(),
            channel.id,
            self.bot,
            content=payload.get("content") or "",
            embeds=payload.get("embeds") or [],
            components=payload.get("components") or [],
            attachments=self._attachments(payload, files),
            flags=flags,
            type=mtype,
            guild_id=channel.guild_id,
        )
        if not flags & limits.FLAG_EPHEMERAL:
            msg.pinged = pinged_by(msg.content, payload.get("allowed_mentions"))
        if inter is not None:
            msg.interaction_id, msg.interaction_user = inter.id, inter.user
            msg.interaction_name = inter.name
            msg.webhook_id = self.application_id
        self.messages[msg.id] = msg
        if flags & limits.FLAG_EPHEMERAL:
            assert inter is not None
            msg.ephemeral_for = inter.user.id
            self.ephemerals.setdefault(inter.user.id, []).append(msg)
        else:
            channel.messages.append(msg)
            self.gateway.dispatch(
                "MESSAGE_CREATE",
                msg.to_api(self.base_url),
                channel.guild_id,
                intent=DIRECT_MESSAGES if channel.is_dm else GUILD_MESSAGES,
            )
        self._changed()
        return msg

    def _apply_edit(
        self, msg: Message, payload: dict[str, Any], files: list[tuple[str, bytes, str]], where: str
    ) -> Message:
        payload = payload or {}
        flags = limits.validate_message(
            payload, [(f, d) for f, d, _ in files], where=where, edit=True
        )
        new_attachments = msg.attachments
        if "attachments" in payload or files:
            base = (
                payload
                if "attachments" in payload
                else {"attachments": [{"id": str(a.id)} for a in msg.attachments]}
            )
            new_attachments = self._attachments(base, files, keep=msg.attachments)
        content = payload["content"] or "" if "content" in payload else msg.content
        embeds = payload["embeds"] or [] if "embeds" in payload else msg.embeds
        components = payload["components"] or [] if "components" in payload else msg.components
        if not (content or embeds or components or new_attachments):
            raise ApiError(400, limits.CANNOT_SEND_EMPTY_MESSAGE, "Cannot send an empty message")
        if "components" not in payload and "flags" in payload:
            limits.validate_components(components, flags)
        msg.history.append(
            {
                "content": msg.content,
                "embeds": msg.embeds,
                "components": msg.components,
                "attachments": [a.filename for a in msg.attachments],
                # The files themselves: a picture replaced by an edit was still seen.
                "files": list(msg.attachments),
            }
        )
        msg.content, msg.embeds, msg.components = content, embeds, components
        msg.attachments = new_attachments
        if "flags" in payload:  # ephemeral-ness and loading are not the sender's to change
            keep = msg.flags & (limits.FLAG_EPHEMERAL)
            msg.flags = (flags & ~limits.FLAG_EPHEMERAL) | keep
        msg.flags &= ~limits.FLAG_LOADING
        msg.edits += 1
        msg.edited_at = time.time()
        if not msg.ephemeral:
            channel = self.channels[msg.channel_id]
            self.gateway.dispatch(
                "MESSAGE_UPDATE",
                msg.to_api(self.base_url),
                channel.guild_id,
                intent=DIRECT_MESSAGES if channel.is_dm else GUILD_MESSAGES,
            )
        self._changed()
        return msg

    def _check_can_send(self, channel: Channel) -> None:
        if channel.is_dm:
            assert channel.recipient is not None
            if not channel.recipient.dms_open:
                raise ApiError(403, limits.CANNOT_SEND_TO_USER, "Cannot send messages to this user")
        elif not channel.bot_can_send:
            raise ApiError(403, limits.MISSING_PERMISSIONS, "Missing Permissions")
        if channel.archived:
            channel.archived = False  # sending to an archived thread unarchives it

    async def _send_message(self, req: Req) -> dict[str, Any]:
        channel = self._channel(req)
        payload = req.json or {}
        flags = limits.validate_message(payload, [(f, d) for f, d, _ in req.files], where="channel")
        self._check_can_send(channel)
        nonce = payload.get("nonce")
        if nonce is not None and (not isinstance(nonce, (str, int)) or len(str(nonce)) > 25):
            raise ApiError(400, limits.INVALID_FORM_BODY, "Invalid Form Body (nonce)")
        key = (channel.id, str(nonce))
        if nonce is not None and payload.get("enforce_nonce"):
            # Discord: a nonce seen from the same author in the past few minutes returns
            # that message instead of creating a second one.
            seen = self.nonces.get(key)
            if seen is not None and time.monotonic() - seen[1] < NONCE_WINDOW:
                self.nonce_hits += 1
                return seen[0].to_api(self.base_url)
        msg = self._new_message(channel, payload, req.files, flags=flags)
        if nonce is not None:
            self.nonces[key] = (msg, time.monotonic())
        return msg.to_api(self.base_url)

    def _channel_message(self, req: Req) -> Message:
        channel = self._channel(req)
        msg = self.messages.get(req.pid("message_id"))
        if msg is None or msg.deleted or msg.channel_id != channel.id or msg.ephemeral:
            raise ApiError(404, limits.UNKNOWN_MESSAGE, "Unknown Message")
        return msg

    async def _get_message(self, req: Req) -> dict[str, Any]:
        return self._channel_message(req).to_api(self.base_url)

    async def _list_messages(self, req: Req) -> list[dict[str, Any]]:
        channel = self._channel(req)
        msgs = channel.visible
        if "before" in req.query:
            msgs = [m for m in msgs if m.id < int(req.query["before"])]
        if "after" in req.query:
            msgs = [m for m in msgs if m.id > int(req.query["after"])]
        limit = min(int(req.query.get("limit", 50)), 100)
        newest = list(reversed(msgs))[:limit]
        return [m.to_api(self.base_url) for m in newest]

    async def _edit_message(self, req: Req) -> dict[str, Any]:
        msg = self._channel_message(req)
        if msg.author is not self.bot:
            raise ApiError(
                403,
                limits.CANNOT_EDIT_OTHERS_MESSAGE,
                "Cannot edit a message authored by another user",
            )
        return self._apply_edit(msg, req.json or {}, req.files, "channel").to_api(self.base_url)

    def _delete(self, msg: Message) -> None:
        msg.deleted = True
        channel = self.channels[msg.channel_id]
        if not msg.ephemeral:
            data = {"id": str(msg.id), "channel_id": str(channel.id)}
            if channel.guild_id:
                data["guild_id"] = str(channel.guild_id)
            self.gateway.dispatch(
                "MESSAGE_DELETE",
                data,
                channel.guild_id,
                intent=DIRECT_MESSAGES if channel.is_dm else GUILD_MESSAGES,
            )
        self._changed()

    async def _delete_message(self, req: Req) -> None:
        self._delete(self._channel_message(req))

    async def _bulk_delete(self, req: Req) -> None:
        channel = self._channel(req)
        for mid in (req.json or {}).get("messages", []):
            msg = self.messages.get(int(mid))
            if msg is not None and msg.channel_id == channel.id:
                self._delete(msg)

    async def _pins(self, req: Req) -> dict[str, Any]:
        self._channel(req)
        return {"items": [], "has_more": False}

    async def _start_thread(self, req: Req) -> dict[str, Any]:
        parent = self._channel(req)
        if parent.is_dm or parent.is_thread:
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        body = req.json or {}
        limits._length(body.get("name"), "name", 100, 1)
        thread = self.create_thread(parent, body["name"], owner=self.bot)
        if "message_id" in req.params:
            # A thread started from a message takes that message's id, as on Discord.
            guild = self.guilds[parent.guild_id or 0]
            del guild.channels[thread.id], self.channels[thread.id]
            thread.id = req.pid("message_id")
            guild.channels[thread.id] = thread
            self.channels[thread.id] = thread
        return thread.to_api()

    # -- interactions --

    def _interaction_by_token(self, req: Req) -> Interaction:
        inter = self._by_token.get(req.params["token"])
        if inter is None or req.pid("application_id") != self.application_id:
            raise ApiError(404, limits.UNKNOWN_WEBHOOK, "Unknown Webhook")
        if self.now() - inter.created > TOKEN_LIFETIME:
            raise ApiError(401, limits.INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        return inter

    async def _callback(self, req: Req) -> dict[str, Any]:
        inter = self.interactions.get(req.pid("interaction_id"))
        if inter is None or inter.token != req.params["token"]:
            raise ApiError(404, limits.UNKNOWN_INTERACTION, "Unknown interaction")
        if self.now() - inter.created > self.response_window:
            raise ApiError(404, limits.UNKNOWN_INTERACTION, "Unknown interaction")
        if inter.acknowledged:
            raise ApiError(
                400, limits.ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged."
            )
        body = req.json or {}
        rtype, data = body.get("type"), body.get("data") or {}
        allowed = set(ALLOWED_CALLBACKS.get(inter.type, set()))
        if inter.type == MODAL_SUBMIT and inter.message is None:
            allowed -= {DEFERRED_UPDATE, UPDATE_MESSAGE}
        if rtype not in allowed:
            raise limits.form_error(
                "type",
                f"Interaction callback type {rtype} is not valid "
                f"for an interaction of type {inter.type}",
            )
        files = [(f, d) for f, d, _ in req.files]
        resource: dict[str, Any] = {"type": rtype}
        if rtype == CHANNEL_MESSAGE:
            flags = limits.validate_message(data, files, where="interaction")
            mtype = 20 if inter.type == APPLICATION_COMMAND else 0
            inter.original = self._new_message(
                inter.channel, data, req.files, flags=flags, mtype=mtype, inter=inter
            )
        elif rtype == DEFERRED_CHANNEL_MESSAGE:
            flags = limits.validate_flags(data.get("flags"), "interaction")
            mtype = 20 if inter.type == APPLICATION_COMMAND else 0
            inter.original = self._new_message(
                inter.channel,
                {},
                [],
                flags=(flags & limits.FLAG_EPHEMERAL) | limits.FLAG_LOADING,
                mtype=mtype,
                inter=inter,
            )
        elif rtype == DEFERRED_UPDATE:
            inter.original = inter.message
        elif rtype == UPDATE_MESSAGE:
            assert inter.message is not None
            if inter.message.deleted:
                raise ApiError(404, limits.UNKNOWN_MESSAGE, "Unknown Message")
            inter.original = self._apply_edit(inter.message, data, req.files, "interaction")
        elif rtype == AUTOCOMPLETE_RESULT:
            limits.validate_choices(data)
            inter.choices = data["choices"]
        elif rtype == MODAL:
            limits.validate_modal(data)
            inter.modal = data
            self.open_modals[inter.user.id] = inter
        elif rtype == LAUNCH_ACTIVITY:
            if inter.channel.is_dm:
                raise ApiError(400, limits.INVALID_FORM_BODY,
                               "Activities launch in a server channel here")
            inter.launched = str(self.ids.next())
            resource["activity_instance"] = {"id": inter.launched}
        inter.response_type = rtype
        inter.responded_at = time.perf_counter()
        inter.responded.set()
        self._changed()
        if inter.original is not None and rtype in (
            CHANNEL_MESSAGE,
            DEFERRED_CHANNEL_MESSAGE,
            UPDATE_MESSAGE,
        ):
            resource["message"] = inter.original.to_api(self.base_url)
        info: dict[str, Any] = {"id": str(inter.id), "type": inter.type}
        if inter.launched is not None:
            info["activity_instance_id"] = inter.launched
        if inter.original is not None:
            info["response_message_id"] = str(inter.original.id)
            info["response_message_loading"] = inter.original.loading
            info["response_message_ephemeral"] = inter.original.ephemeral
        return {"interaction": info, "resource": resource}

    async def _followup(self, req: Req) -> dict[str, Any] | None:
        inter = self._interaction_by_token(req)
        if not inter.acknowledged:
            raise ApiError(404, limits.UNKNOWN_WEBHOOK, "Unknown Webhook")
        payload = req.json or {}
        files = [(f, d) for f, d, _ in req.files]
        if inter.loading and inter.original is not None:
            # Discord: the first followup after a deferred response replaces "thinking...".
            limits.validate_message(payload, files, where="interaction")
            msg = self._apply_edit(inter.original, payload, req.files, "interaction")
        else:
            flags = limits.validate_message(payload, files, where="interaction")
            if not flags & limits.FLAG_EPHEMERAL:
                self._check_can_send_followup(inter.channel)
            msg = self._new_message(inter.channel, payload, req.files, flags=flags, inter=inter)
            inter.followups.append(msg)
        if req.query.get("wait") in ("0", "false"):
            return None
        return msg.to_api(self.base_url)

    def _check_can_send_followup(self, channel: Channel) -> None:
        # Interaction webhooks may post where the bot lacks Send Messages, and in DMs.
        if channel.archived:
            channel.archived = False

    def _webhook_message(self, req: Req) -> tuple[Interaction, Message]:
        inter = self._interaction_by_token(req)
        mid = req.params["message_id"]
        msg: Message | None
        if mid == "@original":
            msg = (
                inter.original
                if inter.response_type not in (None, MODAL, AUTOCOMPLETE_RESULT)
                else None
            )
        else:
            msg = next(
                (
                    m
                    for m in [inter.original, *inter.followups]
                    if m is not None and str(m.id) == mid
                ),
                None,
            )
        if msg is None or msg.deleted:
            raise ApiError(404, limits.UNKNOWN_MESSAGE, "Unknown Message")
        return inter, msg

    async def _get_webhook_message(self, req: Req) -> dict[str, Any]:
        return self._webhook_message(req)[1].to_api(self.base_url)

    async def _edit_webhook_message(self, req: Req) -> dict[str, Any]:
        _inter, msg = self._webhook_message(req)
        return self._apply_edit(msg, req.json or {}, req.files, "interaction").to_api(self.base_url)

    async def _delete_webhook_message(self, req: Req) -> None:
        self._delete(self._webhook_message(req)[1])
