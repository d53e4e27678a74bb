"""The web front-end's routes (the contract is in :mod:`bot.web.protocol`).

The page and its files are served from ``bot/web/static/`` only: a path is resolved
and must stay inside that folder (no ``..``, no link out of it, no hidden file). The
API answers JSON, checks the Origin of every POST and of the socket, and keeps each
request small. Errors are ``{"error": "<words for a person>"}``.
"""

from __future__ import annotations

import json
import logging
import mimetypes
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ValidationError

from bot.core.tables import TableService
from bot.web.auth import DiscordOAuth, OAuthError, Sessions
from bot.web.protocol import SessionRequest, TokenRequest
from bot.web.security import Bucket, Guard, Headers
from bot.web.sockets import SocketHandler
from bot.web.viewers import Viewers

__all__ = ["STATIC", "Access", "WebApp"]

log = logging.getLogger("fabletop.web")

STATIC = Path(__file__).resolve().parent / "static"
MAX_REQUEST_BYTES = 16 * 1024
NOT_BUILT = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fabletop</title></head>
<body><h1>Fabletop</h1>
<p>The board's page is not built yet: run <code>npm run build</code> in
<code>bot/web/client/</code> (README, "The Activity").</p></body></html>
"""
CONTENT_TYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
                 ".html": "text/html", ".json": "application/json", ".svg": "image/svg+xml",
                 ".png": "image/png", ".webp": "image/webp", ".woff2": "font/woff2",
                 ".map": "application/json", ".ico": "image/x-icon", ".txt": "text/plain"}

Access = Callable[[int, int, int | None], Awaitable[bool]]
"""``access(user_id, channel_id, guild_id)``: whether the person may see that channel
(the Discord front-end answers it; ``None`` given to :class:`WebApp`: not checked)."""


def _error(text: str, status: int) -> web.Response:
    return web.json_response({"error": text}, status=status)


class WebApp:
    """The aiohttp application of the Activity, on a table service."""

    def __init__(self, service: TableService, *, client_id: str, oauth: DiscordOAuth,
                 sessions: Sessions, origins: Sequence[str],
                 frame_ancestors: Sequence[str] = (),
                 access: Access | None = None, static_dir: Path = STATIC,
                 viewers: Viewers | None = None, behind_proxy: bool = False) -> None:
        self.service = service
        self.behind_proxy = behind_proxy
        """Whether the caller is the last ``X-Forwarded-For`` entry (WEB_BEHIND_PROXY)."""
        self.client_id = client_id
        self.oauth = oauth
        self.sessions = sessions
        self.guard = Guard(origins)
        self.headers = Headers(list(origins), list(frame_ancestors))
        self.access = access
        self.static_dir = static_dir.resolve()
        self.viewers = viewers or Viewers(service)
        self.sockets = SocketHandler(service, self.viewers, sessions, self.guard, self.headers)
        self._buckets: dict[str, Bucket] = {}
        """Sign-ins per remote address: each costs a request to Discord."""

    def build(self) -> web.Application:
        app = web.Application(middlewares=[self.headers.middleware],
                              client_max_size=MAX_REQUEST_BYTES)
        app.router.add_get("/", self.index)
        app.router.add_get("/static/{path:.+}", self.static)
        app.router.add_get("/api/config", self.config)
        app.router.add_post("/api/token", self.token)
        app.router.add_post("/api/session", self.session)
        app.router.add_get("/api/ws", self.sockets.handle)
        app.on_startup.append(self._start)
        app.on_shutdown.append(self._going_away)
        app.on_cleanup.append(self._stop)
        return app

    async def _start(self, app: web.Application) -> None:
        self.viewers.start()

    async def _going_away(self, app: web.Application) -> None:
        await self.sockets.close_all()

    async def _stop(self, app: web.Application) -> None:
        await self.viewers.close()
        await self.oauth.close()

    # -- the page ---------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.StreamResponse:
        page = self.static_dir / "index.html"
        if page.is_file():
            return web.Response(body=page.read_bytes(), content_type="text/html",
                                charset="utf-8")
        return web.Response(text=NOT_BUILT, content_type="text/html", charset="utf-8")

    def _static_file(self, raw: str) -> Path | None:
        parts = raw.split("/")
        if any(not p or p.startswith(".") or "\\" in p or "\0" in p for p in parts):
            return None
        path = (self.static_dir / raw).resolve()
        if not path.is_relative_to(self.static_dir) or not path.is_file():
            return None
        return path

    async def static(self, request: web.Request) -> web.StreamResponse:
        path = self._static_file(request.match_info["path"])
        if path is None:
            return _error("There is no such file.", 404)
        kind = CONTENT_TYPES.get(path.suffix.lower()) or mimetypes.guess_type(path.name)[0]
        response = web.Response(body=path.read_bytes(),
                                content_type=kind or "application/octet-stream")
        return response

    # -- the API ----------------------------------------------------------------------

    async def config(self, request: web.Request) -> web.Response:
        return web.json_response({"client_id": self.client_id})

    def caller(self, request: web.Request) -> str:
        """Who is calling, for the per-caller limit: the connection's address, or behind
        a trusted proxy the address it forwarded (the last entry: earlier ones are the
        caller's own words)."""
        if self.behind_proxy:
            forwarded = request.headers.get("X-Forwarded-For", "")
            last = forwarded.rsplit(",", 1)[-1].strip()
            if last:
                return last[:64]
        return request.remote or "?"

    def _busy(self, request: web.Request) -> bool:
        remote = self.caller(request)
        bucket = self._buckets.get(remote)
        if bucket is None:
            if len(self._buckets) > 10_000:
                self._buckets.clear()  # a bound on memory; a forgotten bucket is a full one
            bucket = self._buckets[remote] = Bucket(5.0, 20.0)
        return not bucket.take()

    async def _body(self, request: web.Request, model: type[BaseModel]) -> Any:
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            raise _Refused("That request is too large.", 413) from None
        try:
            return model.model_validate(json.loads(raw or b"null"))
        except (ValueError, ValidationError):
            raise _Refused("That request is not what the board sends.", 400) from None

    async def token(self, request: web.Request) -> web.Response:
        if not self.guard.origin_ok(request):
            return _error("This page may not sign in to the board.", 403)
        if self._busy(request):
            return _error("Too many sign-ins from here; wait a moment.", 429)
        try:
            body: TokenRequest = await self._body(request, TokenRequest)
            token = await self.oauth.exchange(body.code)
        except _Refused as exc:
            return _error(exc.text, exc.status)
        except OAuthError as exc:
            return _error(exc.text, exc.status)
        return web.json_response({"access_token": token})

    async def session(self, request: web.Request) -> web.Response:
        if not self.guard.origin_ok(request):
            return _error("This page may not sign in to the board.", 403)
        if self._busy(request):
            return _error("Too many sign-ins from here; wait a moment.", 429)
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return _error("Sign in with Discord first (no access token was sent).", 401)
        try:
            body: SessionRequest = await self._body(request, SessionRequest)
            user = await self.oauth.user(token.strip())
        except _Refused as exc:
            return _error(exc.text, exc.status)
        except OAuthError as exc:
            return _error(exc.text, exc.status)
        channel_id = int(body.channel_id)
        guild_id = int(body.guild_id) if body.guild_id is not None else None
        if self.access is not None:
            try:
                allowed = await self.access(user.id, channel_id, guild_id)
            except Exception:
                log.exception("web sign-in: the channel check failed (user %s, channel %s)",
                              user.id, channel_id)
                return _error("Discord did not say whether you can see this channel; try "
                              "again.", 502)
            if not allowed:
                log.info("web sign-in refused: user %s cannot see channel %s", user.id,
                         channel_id)
                return _error("You cannot see this channel, so you cannot see its table.", 403)
        session = self.sessions.issue(user.id, user.name, channel_id)
        log.info("web sign-in: user %s, channel %s", user.id, channel_id)
        return web.json_response({"session": session,
                                  "user": {"id": str(user.id), "name": user.name}})


class _Refused(Exception):
    def __init__(self, text: str, status: int) -> None:
        super().__init__(text)
        self.text = text
        self.status = status
