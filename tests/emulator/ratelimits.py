"""Discord's rate limits, enforced by the emulator as Discord documents them.

Sources (``topics/rate-limits`` is https://discord.com/developers/docs/topics/rate-limits):

- **Global limit** (``topics/rate-limits#global-rate-limit``): "All bots can make up to 50
  requests per second to our API. If no authorization header is provided, then the limit
  is applied to the IP address." "Interaction endpoints are not bound to the bot's Global
  Rate Limit": the callback ``POST /interactions/{id}/{token}/callback`` and the webhook
  routes of an interaction token, ``/webhooks/{application_id}/{token}...``
  (``interactions/receiving-and-responding#endpoints``).
- **Per-route buckets** (``topics/rate-limits``): keyed by the route and its top-level
  resource (``channel_id``, ``guild_id``, ``webhook_id`` or ``webhook_id + webhook_token``),
  announced in ``X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket`` headers; when
  exceeded, a 429 whose JSON body is ``{message, retry_after (float seconds), global}``
  with ``Retry-After`` and ``X-RateLimit-Scope`` (``user``, ``global`` or ``shared``; a
  global one also carries ``X-RateLimit-Global: true``). Discord publishes no numbers for
  the buckets; the defaults below are the observed ones, each cited where it is set.
- **Invalid requests** (``topics/rate-limits#invalid-request-limit-aka-cloudflare-bans``):
  "10,000 per 10 minutes. An invalid request is one that results in 401, 403, or 429
  statuses", "429 errors returned with X-RateLimit-Scope: shared are not counted". Past
  it the IP is banned by Cloudflare "temporarily": every request is answered with a 429
  that carries no rate-limit headers and no ``Via`` header (a static Cloudflare answer,
  discord/discord-api-docs#5810), which discord.py raises at once as an ``HTTPException``
  ("Banned by Cloudflare more than likely", ``discord/http.py``).

Everything runs on the emulator's clock (:meth:`Emulator.now`), so ``advance_time`` ends a
window, a ban or an interaction token without waiting.

>>> policy = RateLimitPolicy(message_create=Window(1, 5.0))
>>> policy.message_create, policy.global_limit
(Window(limit=1, per=5.0), Window(limit=50, per=1.0))
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from tests.emulator.server import Emulator

VIA = "1.1 google"
"""Discord's API answers come through Google's front end; discord.py takes a 429 without
this header for a Cloudflare ban and does not retry it."""

GLOBAL, USER, SHARED = "global", "user", "shared"
"""The values of ``X-RateLimit-Scope``."""

BAN_MESSAGE = (
    "You are being blocked from accessing our API temporarily due to exceeding our rate "
    "limits frequently. Please read our docs at "
    "https://discord.com/developers/docs/topics/rate-limits to prevent this moving forward."
)
"""The body Discord's Cloudflare ban answers with (discord/discord-api-docs#5810)."""


_CHANNEL_IN_PATH = re.compile(r"/channels/(\d+)")

@dataclass(frozen=True)
class Window:
    """At most ``limit`` requests in a window of ``per`` seconds, which opens at the
    first request and closes ``per`` seconds later (Discord's ``X-RateLimit-Reset-After``
    counts down from the first request of a bucket)."""

    limit: int
    per: float

    def __post_init__(self) -> None:
        if self.limit < 1 or self.per <= 0:
            raise ValueError(f"a rate-limit window needs limit >= 1 and per > 0: {self}")


@dataclass(frozen=True)
class RateLimitPolicy:
    """The numbers the emulator enforces; each default is Discord's, from where noted."""

    global_limit: Window = Window(50, 1.0)
    """Per bot token (or per IP without one): "All bots can make up to 50 requests per
    second" (topics/rate-limits#global-rate-limit)."""
    message_create: Window = Window(5, 5.0)
    """``POST /channels/{channel_id}/messages``, per channel: 5 per 5 s, announced by
    Discord staff when bot message limits launched (discord/discord-api-docs#20: "5/5 ...
    applies to message creation and editing") and still what the headers say
    (``X-RateLimit-Limit: 5`` on that route, alexemanuelol/rustplusplus#475, 2025)."""
    message_edit: Window = Window(5, 5.0)
    """``PATCH /channels/{channel_id}/messages/{message_id}``, per channel: 5 per 5 s, the
    same observation (discord/discord-api-docs#20), a bucket of its own."""
    interaction_webhook: Window = Window(5, 2.0)
    """Every webhook route of one interaction token (follow-ups, @original and follow-up
    edits), shared: "5/2s per interaction", measured by a library author and confirmed by
    Discord ("identical to webhook rate limits", discord/discord-api-docs#2701)."""
    interaction_callback: Window = Window(5, 2.0)
    """``POST /interactions/{id}/{token}/callback``, per interaction: undocumented, and
    never met (Discord accepts one callback per interaction; a second is 40060)."""
    other: Window = Window(50, 1.0)
    """Every other route, per route and top-level resource: Discord publishes no numbers,
    so these buckets only carry the headers; the global limit is what binds them."""
    invalid_limit: int = 10_000
    """Invalid answers (401, 403, 429 but a shared 429) allowed per ``invalid_window``
    before the ban (topics/rate-limits#invalid-request-limit-aka-cloudflare-bans)."""
    invalid_window: float = 600.0
    """"10,000 per 10 minutes" (the same section)."""
    ban_for: float = 3600.0
    """How long a ban lasts: "temporarily" in the documentation; "typically ... an hour
    or a day" (a Discord community moderator, discord/discord-api-docs#4395)."""


    def sped_up(self, factor: float) -> RateLimitPolicy:
        """The same buckets with every per-route window ``factor`` times shorter; the
        global limit and the invalid-request ban stay Discord's.

        For games played at machine speed: a simulated person answers in milliseconds,
        not the 20 s a person thinks, so Discord's 5 messages per 5 s in a channel would
        make the channel's bucket, not the bot, what an end-to-end test measures. The
        headers, the 429s and the pacing they drive stay the same in kind.

        >>> DISCORD_LIMITS.sped_up(5).message_create
        Window(limit=5, per=1.0)
        >>> DISCORD_LIMITS.sped_up(5).global_limit == DISCORD_LIMITS.global_limit
        True
        """
        if factor < 1:
            raise ValueError(f"a speed-up is at least 1, not {factor}")

        def fast(window: Window) -> Window:
            return Window(window.limit, window.per / factor)

        return replace(self, message_create=fast(self.message_create),
                       message_edit=fast(self.message_edit),
                       interaction_webhook=fast(self.interaction_webhook),
                       interaction_callback=fast(self.interaction_callback),
                       other=fast(self.other))


DISCORD_LIMITS = RateLimitPolicy()
"""Discord's own numbers: what every emulator enforces unless told otherwise."""

MACHINE_SPEED_LIMITS = DISCORD_LIMITS.sped_up(5)
"""What the end-to-end games run under (:meth:`RateLimitPolicy.sped_up`): a seven-player
Winter game took 170 s under Discord's own per-channel windows and 31 s with no limits
at all (2 cores). The tests of rate limiting itself, the crash test and the benchmarks
keep :data:`DISCORD_LIMITS`."""

INTERACTION_CALLBACK = "/interactions/"
INTERACTION_WEBHOOK = "/webhooks/{application_id}/{token}"


def is_interaction_endpoint(template: str) -> bool:
    """Whether a route is exempt from the global limit: the interaction callback and the
    webhook routes of an interaction token (the emulator has no other webhooks)."""
    return template.startswith(INTERACTION_CALLBACK) or template.startswith(INTERACTION_WEBHOOK)


@dataclass(frozen=True)
class Route:
    """Which bucket a request counts against: the bucket's name (the same for every
    top-level resource, as ``X-RateLimit-Bucket`` is), its top-level resource, its window."""

    name: str
    major: str
    window: Window

    @property
    def bucket_hash(self) -> str:
        """What ``X-RateLimit-Bucket`` says: a stable opaque id of the bucket."""
        return _bucket_hash(self.name)


@functools.lru_cache(maxsize=256)
def _bucket_hash(name: str) -> str:
    # Cached: every answer carries it, and a benchmark sends thousands a second.
    return hashlib.md5(name.encode(), usedforsecurity=False).hexdigest()


def _holder(request: web.Request) -> str:
    """Whose buckets a request spends: an OAuth2 bearer token's own, else the bot's ("")."""
    auth = request.headers.get("Authorization") or ""
    return auth if auth.startswith("Bearer ") else ""


def route_for(policy: RateLimitPolicy, method: str, template: str, params: dict[str, str]) -> Route:
    """The bucket of a request (``template`` as the emulator routes it)."""
    if template.startswith(INTERACTION_CALLBACK):
        major = f"{params.get('interaction_id')}+{params.get('token')}"
        return Route("interaction callback", major, policy.interaction_callback)
    if template.startswith(INTERACTION_WEBHOOK):
        # Keyed by the interaction token, not the application id (discord-api-docs#2701).
        return Route("interaction webhook", params.get("token", ""), policy.interaction_webhook)
    channel = params.get("channel_id")
    if template == "/channels/{channel_id}/messages" and method == "POST":
        return Route("message create", str(channel), policy.message_create)
    if template == "/channels/{channel_id}/messages/{message_id}" and method == "PATCH":
        return Route("message edit", str(channel), policy.message_edit)
    for name in ("channel_id", "guild_id", "webhook_id"):
        if name in params:
            return Route(f"{method} {template}", params[name], policy.other)
    return Route(f"{method} {template}", "", policy.other)


@dataclass
class _Bucket:
    """One window's count: opened at ``start`` (emulator clock)."""

    window: Window
    start: float = -math.inf
    count: int = 0

    def roll(self, now: float) -> None:
        if now >= self.start + self.window.per:
            self.start, self.count = now, 0

    @property
    def remaining(self) -> int:
        return max(0, self.window.limit - self.count)

    def reset_after(self, now: float) -> float:
        return max(0.0, self.start + self.window.per - now)


@dataclass
class Limited:
    """One 429 the emulator answered because a limit was reached."""

    at: float
    method: str
    path: str
    scope: str
    retry_after: float


@dataclass
class RateLimits:
    """The limiter of one emulator: global windows, route buckets, invalid requests, bans.

    Counters a test or a benchmark reads: :attr:`requests` (per route), :attr:`kinds`
    (``bot``: counted on a global limit; ``interaction``: exempt), :attr:`limited` (429s
    the emulator decided, by scope), :attr:`limited_routes`, :attr:`injected` (429s of
    ``emu.faults``, by scope), :attr:`invalid`, :attr:`bans`, :attr:`global_peak`.
    """

    emu: Emulator
    policy: RateLimitPolicy | None = field(default_factory=RateLimitPolicy)
    """``None``: no limit is enforced and no header is added (raw speed)."""
    requests: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    dm_requests: Counter[str] = field(default_factory=Counter)
    """The part of :attr:`requests` made to DM channels (hands, nudges)."""
    bot_channels: Counter[int] = field(default_factory=Counter)
    """Bot-token requests (not exempt from the global limit) by the channel in their
    path: what each table (its channel, its people's DMs) spends of the global limit."""
    bot_channel_routes: Counter[tuple[int, str]] = field(default_factory=Counter)
    """The same by channel and route (``"PATCH /channels/{channel_id}/messages/..."``)."""
    limited: Counter[str] = field(default_factory=Counter)
    limited_routes: Counter[str] = field(default_factory=Counter)
    injected: Counter[str] = field(default_factory=Counter)
    events: list[Limited] = field(default_factory=list)
    invalid: int = 0
    """Invalid answers (401, 403, unshared 429) counted in all."""
    bans: int = 0
    banned_requests: int = 0
    """Requests answered with the ban."""
    global_peak: int = 0
    """The most requests one global window let through."""
    _global: dict[str, _Bucket] = field(default_factory=dict)
    _routes: dict[tuple[str, str, str], _Bucket] = field(default_factory=dict)
    """Route buckets by (route, major parameter, holder): Discord counts a bucket per
    token, so every OAuth2 bearer token (a person's ``/users/@me``) has buckets of its
    own; the bot token's holder is ""."""
    _invalid: dict[str, deque[float]] = field(default_factory=dict)
    _banned_until: dict[str, float] = field(default_factory=dict)

    @property
    def enabled(self) -> bool:
        return self.policy is not None

    def reset(self) -> None:
        """Forget every window, count and ban (the counters for reports stay)."""
        self._global.clear()
        self._routes.clear()
        self._invalid.clear()
        self._banned_until.clear()

    def banned(self, ip: str = "127.0.0.1") -> bool:
        return self._banned_until.get(ip, -math.inf) > self.emu.now()

    def spend(self, method: str, template: str, **params: str) -> float:
        """Use up a route's bucket now, as another client of the application would (another
        process of the bot holding the same token or channel): its window opens now with
        nothing left, so the next request on it meets a 429. Returns the window's
        length, the longest a client may be told to wait."""
        assert self.policy is not None, "rate limits are off"
        route = route_for(self.policy, method, template, params)
        bucket = self._routes.setdefault((route.name, route.major, ""), _Bucket(route.window))
        bucket.window = route.window
        bucket.start, bucket.count = self.emu.now(), route.window.limit
        return route.window.per

    def spend_global(self, token: str | None = None) -> float:
        """Use up the global window of ``token`` (the emulator's bot token by default)
        now, as the bot's other processes would; returns the window's length."""
        assert self.policy is not None, "rate limits are off"
        who = f"Bot {token or self.emu.token}"
        bucket = self._global.setdefault(who, _Bucket(self.policy.global_limit))
        bucket.window = self.policy.global_limit
        bucket.start, bucket.count = self.emu.now(), bucket.window.limit
        return bucket.window.per

    def take_limited(self) -> list[Limited]:
        """The 429s the emulator answered since the last call, forgotten for
        ``assert_clean`` (a test that forced them checks them itself); counters stay."""
        events, self.events = self.events, []
        return events

    # -- the hook -------------------------------------------------------------------------

    async def serve(
        self,
        request: web.Request,
        method: str,
        path: str,
        template: str,
        params: dict[str, str],
        handle: Callable[[], Awaitable[web.StreamResponse]],
    ) -> web.StreamResponse:
        """Answer one REST request: refused by a ban or a limit, else ``handle()``'s
        answer with the bucket's headers; then count it if it was invalid."""
        policy = self.policy
        if policy is None:
            return await handle()
        now = self.emu.now()
        ip = request.remote or "?"
        if self._banned_until.get(ip, -math.inf) > now:
            self.banned_requests += 1
            return self._refused(method, template, path, self._ban_answer())
        if self._banned_until.pop(ip, None) is not None:
            self._invalid.pop(ip, None)  # the ban is over: a fresh count
        route = route_for(policy, method, template, params)
        refusal = self._admit(request, method, template, path, route, now, ip)
        if refusal is not None:
            return refusal
        response = await handle()
        bucket = self._routes[(route.name, route.major, _holder(request))]
        response.headers.update(self._route_headers(route, bucket, self.emu.now()))
        response.headers.setdefault("Via", VIA)
        if response.status == 429:
            self.injected[response.headers.get("X-RateLimit-Scope", USER)] += 1
        self._count_invalid(ip, response.status, response.headers.get("X-RateLimit-Scope"))
        return response

    def _admit(
        self,
        request: web.Request,
        method: str,
        template: str,
        path: str,
        route: Route,
        now: float,
        ip: str,
    ) -> web.StreamResponse | None:
        """Count the request on its global window and its bucket, or refuse it (429)."""
        assert self.policy is not None
        self.requests[f"{method} {template}"] += 1
        exempt = is_interaction_endpoint(template)
        if "{channel_id}" in template:
            found = _CHANNEL_IN_PATH.search(path)
            channel = self.emu.channels.get(int(found.group(1))) if found else None
            if channel is not None and channel.is_dm:
                self.dm_requests[f"{method} {template}"] += 1
            if channel is not None and not exempt:
                self.bot_channels[channel.id] += 1
                self.bot_channel_routes[(channel.id, f"{method} {template}")] += 1
        holder = _holder(request)
        # A person's bearer token spends its own limits, not the bot's.
        self.kinds["interaction" if exempt else "bearer" if holder else "bot"] += 1
        gbucket = None
        if not exempt:
            who = request.headers.get("Authorization") or f"ip:{ip}"
            gbucket = self._global.setdefault(who, _Bucket(self.policy.global_limit))
            gbucket.window = self.policy.global_limit
            gbucket.roll(now)
            if gbucket.remaining == 0:
                retry = gbucket.reset_after(now)
                return self._limited(
                    method, template, path, GLOBAL, retry, ip, self._global_answer(retry)
                )
        bucket = self._routes.setdefault((route.name, route.major, holder),
                                         _Bucket(route.window))
        bucket.window = route.window  # the policy may have changed under a live bucket
        bucket.roll(now)
        if bucket.remaining == 0:
            retry = bucket.reset_after(now)
            answer = self._user_answer(retry)
            answer.headers.update(self._route_headers(route, bucket, now))
            return self._limited(method, template, path, USER, retry, ip, answer)
        bucket.count += 1
        if gbucket is not None:
            gbucket.count += 1
            self.global_peak = max(self.global_peak, gbucket.count)
        return None

    # -- answers --------------------------------------------------------------------------

    @staticmethod
    def _route_headers(route: Route, bucket: _Bucket, now: float) -> dict[str, str]:
        after = bucket.reset_after(now)
        return {
            "X-RateLimit-Limit": str(bucket.window.limit),
            "X-RateLimit-Remaining": str(bucket.remaining),
            # Epoch seconds: the emulator's clock may run ahead, the client's does not.
            "X-RateLimit-Reset": f"{time.time() + after:.3f}",
            "X-RateLimit-Reset-After": f"{after:.3f}",
            "X-RateLimit-Bucket": route.bucket_hash,
        }

    @staticmethod
    def _json(body: dict[str, object], headers: dict[str, str]) -> web.Response:
        import json

        return web.Response(
            body=json.dumps(body).encode(),
            status=429,
            headers={"Content-Type": "application/json", **headers},
        )

    def _global_answer(self, retry: float) -> web.Response:
        # The documented global answer carries no route headers.
        return self._json(
            {
                "message": "You are being rate limited.",
                "retry_after": round(retry, 3),
                "global": True,
            },
            {
                "Retry-After": str(math.ceil(retry)),
                "X-RateLimit-Global": "true",
                "X-RateLimit-Scope": GLOBAL,
                "Via": VIA,
            },
        )

    def _user_answer(self, retry: float) -> web.Response:
        return self._json(
            {
                "message": "You are being rate limited.",
                "retry_after": round(retry, 3),
                "global": False,
            },
            {"Retry-After": str(math.ceil(retry)), "X-RateLimit-Scope": USER, "Via": VIA},
        )

    def _ban_answer(self) -> web.Response:
        # A static Cloudflare answer: no rate-limit headers, no Via.
        return self._json({"code": 0, "message": BAN_MESSAGE}, {})

    # -- bookkeeping ----------------------------------------------------------------------

    def _limited(
        self,
        method: str,
        template: str,
        path: str,
        scope: str,
        retry: float,
        ip: str,
        answer: web.Response,
    ) -> web.Response:
        self.limited[scope] += 1
        self.limited_routes[f"{method} {template}"] += 1
        self.events.append(Limited(self.emu.now(), method, path, scope, retry))
        self.emu.note_retry(retry)
        self._count_invalid(ip, 429, scope)
        return self._refused(method, template, path, answer)

    def _refused(self, method: str, template: str, path: str, answer: web.Response) -> web.Response:
        self.emu.note_call(method, template, path, answer.status)
        return answer

    def _count_invalid(self, ip: str, status: int, scope: str | None) -> None:
        assert self.policy is not None
        if status not in (401, 403, 429) or (status == 429 and scope == SHARED):
            return
        self.invalid += 1
        now = self.emu.now()
        seen = self._invalid.setdefault(ip, deque())
        seen.append(now)
        while seen and seen[0] <= now - self.policy.invalid_window:
            seen.popleft()
        if len(seen) >= self.policy.invalid_limit:
            self.bans += 1
            self._banned_until[ip] = now + self.policy.ban_for
            seen.clear()

    # -- reports --------------------------------------------------------------------------

    def met(self) -> bool:
        """Whether any 429 (enforced or injected) or ban was met."""
        return bool(self.limited or self.injected or self.bans or self.banned_requests)

    def summary(self) -> str:
        """One line for a test's or a benchmark's output."""
        routes = ", ".join(f"{r} x{n}" for r, n in self.limited_routes.most_common(4))
        return (
            f"emulator rate limits: {self.kinds['bot']} bot-token and "
            f"{self.kinds['interaction']} interaction requests, "
            f"429s global {self.limited[GLOBAL]}, route {self.limited[USER]}, "
            f"shared {self.limited[SHARED]}, injected {sum(self.injected.values())}; "
            f"invalid {self.invalid}, bans {self.bans}; peak {self.global_peak} "
            f"requests in one global window" + (f"; limited: {routes}" if routes else "")
        )

    def problems(self) -> list[str]:
        """What ``assert_clean`` fails on: a global 429 the emulator had to answer (the
        bot exceeded 50 requests a second) or a ban. A route 429 is reported, not a
        problem: a client that reads the headers can still meet one (several processes
        share a channel's bucket), and discord.py waits and retries it."""
        out = [
            f"global rate limit exceeded: 429 at {e.method} {e.path} "
            f"(retry_after {e.retry_after:.3f} s)"
            for e in self.events
            if e.scope == GLOBAL
        ]
        if self.bans:
            out.append(
                f"banned {self.bans} time(s) for {self.invalid} invalid requests "
                f"(401/403/429); {self.banned_requests} requests refused while banned"
            )
        return out
