"""Discord's OAuth2 for the Activity: the token endpoint and bearer tokens.

An Activity's browser asks Discord for an authorization code (``authorize``, scope
``identify``); the test stands in for that step with ``emu.authorization_code(person)``.
The bot's web server then POSTs the code to ``/api/v10/oauth2/token`` with the client id
and secret (a form, ``application/x-www-form-urlencoded``, as the OAuth2 documentation
says; the endpoint is not in Discord's OpenAPI description, so it is checked here by the
documentation's rules: RFC 6749's error answers), and reads the person from
``GET /users/@me`` with ``Authorization: Bearer <access token>``.

A code is good once and for ten minutes; a token until the emulator stops.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import web

from tests.emulator.models import User

if TYPE_CHECKING:
    from tests.emulator.server import Emulator

__all__ = ["CODE_SECONDS", "OAuth"]

CODE_SECONDS = 600.0
FORM = "application/x-www-form-urlencoded"


@dataclass
class Exchange:
    """One call of the token endpoint, as the emulator saw it (for tests)."""

    status: int
    error: str | None
    fields: tuple[str, ...]


@dataclass
class OAuth:
    emu: Emulator
    client_secret: str = field(default_factory=lambda: "emu-secret-" + secrets.token_hex(8))
    codes: dict[str, tuple[User, float]] = field(default_factory=dict)
    tokens: dict[str, User] = field(default_factory=dict)
    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def client_id(self) -> str:
        return str(self.emu.application_id)

    def authorization_code(self, user: User) -> str:
        """What Discord's ``authorize`` would hand the Activity for ``user``."""
        code = secrets.token_urlsafe(24)
        self.codes[code] = (user, self.emu.now() + CODE_SECONDS)
        return code

    def user_of(self, access_token: str) -> User | None:
        return self.tokens.get(access_token)

    @staticmethod
    def _oauth_error(status: int, error: str, description: str) -> web.Response:
        return web.json_response({"error": error, "error_description": description},
                                 status=status)

    async def token(self, request: web.Request) -> web.Response:
        answer = await self._token(request)
        form = await request.post() if request.content_type == FORM else {}
        error = None
        if answer.status != 200:
            import json

            error = json.loads(answer.body)["error"]  # type: ignore[arg-type]
        self.exchanges.append(Exchange(answer.status, error, tuple(sorted(form))))
        self.emu._changed()
        return answer

    async def _token(self, request: web.Request) -> web.Response:
        if request.content_type != FORM:
            return self._oauth_error(400, "invalid_request",
                                     f"expected {FORM}, got {request.content_type!r}")
        form: Any = await request.post()
        if form.get("client_id") != self.client_id or form.get("client_secret") != \
                self.client_secret:
            return self._oauth_error(401, "invalid_client", "Invalid client")
        if form.get("grant_type") != "authorization_code":
            return self._oauth_error(400, "unsupported_grant_type",
                                     "Unsupported grant type")
        code = form.get("code")
        found = self.codes.pop(code, None) if isinstance(code, str) else None
        if found is None or found[1] < self.emu.now():
            return self._oauth_error(400, "invalid_grant",
                                     'Invalid "code" in request.')
        user = found[0]
        token = "emu-bearer-" + secrets.token_urlsafe(24)
        self.tokens[token] = user
        return web.json_response({"access_token": token, "token_type": "Bearer",
                                  "expires_in": 604800,
                                  "refresh_token": secrets.token_urlsafe(24),
                                  "scope": "identify"})
