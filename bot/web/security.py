"""The web front-end's guards: security headers, origins, and per-person rate limits.

* **Headers on every response** (:class:`Headers`): a Content-Security-Policy
  that lets the page load only its own scripts, styles and images (and ``data:``
  pictures), talk only to its own origin (HTTP and WebSocket), and be framed only by
  Discord (and, for the browser tests, ``WEB_FRAME_ANCESTORS``); no inline script or
  style; ``X-Content-Type-Options: nosniff``; ``Referrer-Policy: no-referrer``.
* **Origins** (:meth:`Guard.origin_ok`): the API and the socket answer only a browser
  page of an allowed origin (the Activity's frame, ``https://<client id>.discordsays.com``),
  so another site cannot make a visitor's browser use them.
* **Rates** (:class:`Bucket`): a token bucket per person, shared by their sockets.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable

from aiohttp import web

__all__ = ["DISCORD_FRAMES", "Bucket", "Guard", "Headers", "content_security_policy"]

DISCORD_FRAMES = ("https://discord.com", "https://*.discord.com", "https://*.discordsays.com")
"""Where Discord shows an Activity: its web client (and canary, ptb) and the frame."""


def content_security_policy(origins: Iterable[str], frame_ancestors: Iterable[str],
                            host: str | None = None) -> str:
    """The policy. ``connect-src`` names the WebSocket form of each allowed origin and of
    the request's own host besides ``'self'``: older browsers do not count ``wss:`` of the
    page's own host as ``'self'``."""
    sockets = []
    for origin in origins:
        scheme, _, rest = origin.partition("://")
        sockets.append(("wss://" if scheme == "https" else "ws://") + rest)
    if host and all(c.isalnum() or c in ".-:[]" for c in host):
        sockets += [f"wss://{host}", f"ws://{host}"]
    frames = " ".join(dict.fromkeys([*DISCORD_FRAMES, *frame_ancestors]))
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src " + " ".join(dict.fromkeys(["'self'", *sockets])),
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        f"frame-ancestors {frames}",
    ])


class Headers:
    """The security headers, on every response (:meth:`middleware`; a WebSocket's
    handshake stamps its own, :meth:`stamp`, before it is prepared)."""

    def __init__(self, origins: list[str], frame_ancestors: list[str]) -> None:
        self.origins = origins
        self.frame_ancestors = frame_ancestors

    def stamp(self, request: web.Request, response: web.StreamResponse) -> None:
        response.headers["Content-Security-Policy"] = content_security_policy(
            self.origins, self.frame_ancestors, request.host)
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        # Nothing the board serves is worth caching for another person.
        response.headers.setdefault("Cache-Control", "no-store")

    @web.middleware
    async def middleware(self, request: web.Request,
                         handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                         ) -> web.StreamResponse:
        try:
            response = await handler(request)
        except web.HTTPException as exc:
            self.stamp(request, exc)
            raise
        if not response.prepared:
            self.stamp(request, response)
        return response


class Guard:
    """The allowed origins."""

    def __init__(self, origins: Iterable[str]) -> None:
        self.origins = frozenset(o.rstrip("/").lower() for o in origins)

    def origin_ok(self, request: web.Request) -> bool:
        """Whether the request comes from a page of an allowed origin. A request with no
        Origin is refused too: every browser sends one with a POST and a WebSocket."""
        origin = request.headers.get("Origin")
        return origin is not None and origin.rstrip("/").lower() in self.origins


class Bucket:
    """A token bucket: ``rate`` a second, bursts of ``burst``."""

    def __init__(self, rate: float, burst: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst if burst is not None else rate
        self.clock = clock
        self.tokens = self.burst
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
