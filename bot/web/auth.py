"""Who is at the board: Discord's OAuth2 code exchange, and the server's own sessions.

The Activity asks Discord for an authorization code (``authorize``, scope ``identify``);
the server exchanges it at Discord's OAuth2 token endpoint with the client secret
(:meth:`DiscordOAuth.exchange`), the browser authenticates the Embedded App SDK with the
access token, and the server reads the person from ``/users/@me`` with it
(:meth:`DiscordOAuth.user`). From then on the browser holds a session of the server's
own (:class:`Sessions`): the user id, their name and the channel, with an expiry, signed
with HMAC-SHA256. Nothing of it lives in memory, so any process with the same key
accepts it, and a restart logs nobody out.

Nothing secret is logged: not the code, the token, the client secret nor a session
(the log says which user and which step, and Discord's HTTP status).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

__all__ = ["DiscordOAuth", "OAuthError", "Session", "SessionError", "Sessions"]

log = logging.getLogger("fabletop.web")

SESSION_SECONDS = 12 * 3600.0
"""How long a session lasts: an evening's game; the Activity asks again after that."""
DISCORD_API = "https://discord.com/api/v10"
HTTP_TIMEOUT = aiohttp.ClientTimeout(total=10)
RETRY_AT_MOST = 2.0
"""The longest 429 wait the sign-in sits out before it asks the person to try again."""


class SessionError(ValueError):
    """A session that is not ours, was changed, or has expired (words for a person)."""


class OAuthError(Exception):
    """Discord refused or failed the exchange; ``status`` is what the browser gets
    (400: the code or token is bad; 502: Discord did not answer as it should;
    503: Discord asked us to wait longer than a sign-in should)."""

    def __init__(self, text: str, status: int) -> None:
        super().__init__(text)
        self.text = text
        self.status = status


@dataclass(frozen=True)
class Session:
    user_id: int
    name: str
    channel_id: int
    expires: float


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Signs and checks sessions: ``<payload>.<signature>``, both base64url."""

    def __init__(self, key: bytes, *, lifetime: float = SESSION_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        if len(key) < 32:
            raise ValueError("a session key has at least 32 bytes")
        self._key = key
        self.lifetime = lifetime
        self.clock = clock

    def _sign(self, payload: bytes) -> str:
        return _b64(hmac.new(self._key, payload, hashlib.sha256).digest())

    def issue(self, user_id: int, name: str, channel_id: int) -> str:
        payload = json.dumps({"u": str(user_id), "n": name[:100], "c": str(channel_id),
                              "e": int(self.clock() + self.lifetime)},
                             separators=(",", ":")).encode()
        return f"{_b64(payload)}.{self._sign(payload)}"

    def check(self, token: str) -> Session:
        """The session ``token`` holds; raises :class:`SessionError`."""
        head, dot, signature = token.partition(".")
        if not dot or not head or not signature:
            raise SessionError("That is not a session of this board; open the Activity again.")
        try:
            payload = _unb64(head)
        except (ValueError, TypeError):
            raise SessionError("That is not a session of this board; open the Activity "
                               "again.") from None
        # Compared in constant time, before anything of the payload is believed.
        if not hmac.compare_digest(self._sign(payload), signature):
            raise SessionError("That session was not signed by this board; open the "
                               "Activity again.")
        try:
            data = json.loads(payload)
            session = Session(int(data["u"]), str(data["n"]), int(data["c"]), float(data["e"]))
        except (ValueError, KeyError, TypeError):
            raise SessionError("That session cannot be read; open the Activity again.") from None
        if session.expires <= self.clock():
            raise SessionError("Your session has expired; open the Activity again.")
        return session


@dataclass(frozen=True)
class DiscordUser:
    id: int
    name: str


class DiscordOAuth:
    """The two calls to Discord the Activity needs, on one HTTP session."""

    def __init__(self, client_id: str, client_secret: str, api_base: str | None = None) -> None:
        self.client_id = client_id
        self._secret = client_secret
        self.api_base = (api_base or DISCORD_API).rstrip("/")
        self._http: aiohttp.ClientSession | None = None

    def __repr__(self) -> str:  # never the secret, whatever prints this object
        return f"<DiscordOAuth client_id={self.client_id} api={self.api_base}>"

    def _session(self) -> aiohttp.ClientSession:
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(timeout=HTTP_TIMEOUT)
        return self._http

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
            self._http = None

    async def exchange(self, code: str) -> str:
        """The access token for an authorization code; raises :class:`OAuthError`."""
        form = {"client_id": self.client_id, "client_secret": self._secret,
                "grant_type": "authorization_code", "code": code}
        try:
            async with self._session().post(f"{self.api_base}/oauth2/token", data=form,
                                            headers={"Accept": "application/json"}) as resp:
                status = resp.status
                data = await resp.json(content_type=None) if status < 500 else None
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("oauth2 token exchange: Discord did not answer (%s)",
                        type(exc).__name__)
            raise OAuthError("Discord did not answer; try opening the board again.",
                             502) from None
        if status in (400, 401) and isinstance(data, dict):
            # invalid_grant (a used or expired code) is the person's to retry;
            # invalid_client is ours (a wrong secret) and said so in the log.
            log.warning("oauth2 token exchange refused: %s", str(data.get("error"))[:40])
            if data.get("error") == "invalid_client":
                raise OAuthError("The board's server is not set up right (its client "
                                 "secret); tell the bot's owner.", 502)
            raise OAuthError("Discord did not accept that sign-in (it may have expired); "
                             "open the board again.", 400)
        token = data.get("access_token") if isinstance(data, dict) else None
        if status != 200 or not isinstance(token, str) or not token:
            log.warning("oauth2 token exchange: unexpected answer (HTTP %s)", status)
            raise OAuthError("Discord did not answer as expected; try again.", 502)
        return token

    async def user(self, access_token: str) -> DiscordUser:
        """The person an access token belongs to; raises :class:`OAuthError`.

        A 429 that asks for a short wait is waited out once (the person is at the
        loading screen); a longer one is said in words."""
        for attempt in range(2):
            status, data, wait = await self._me(access_token)
            if status != 429:
                break
            if attempt or wait is None or wait > RETRY_AT_MOST:
                log.warning("users/@me: rate limited (retry after %s s)", wait)
                raise OAuthError("Discord is busy; open the board again in a few seconds.",
                                 503)
            await asyncio.sleep(wait)
        if status == 401:
            raise OAuthError("Discord did not accept that access token; open the board "
                             "again.", 401)
        if status != 200 or not isinstance(data, dict):
            log.warning("users/@me: unexpected answer (HTTP %s)", status)
            raise OAuthError("Discord did not answer as expected; try again.", 502)
        try:
            user_id = int(data["id"])
        except (KeyError, ValueError, TypeError):
            raise OAuthError("Discord did not say who you are; try again.", 502) from None
        name = data.get("global_name") or data.get("username") or f"Player {user_id}"
        return DiscordUser(user_id, " ".join(str(name).split())[:64] or f"Player {user_id}")

    async def _me(self, access_token: str) -> tuple[int, Any, float | None]:
        """One ``GET /users/@me``: the status, the JSON of a 200, and a 429's wait."""
        try:
            async with self._session().get(
                    f"{self.api_base}/users/@me",
                    headers={"Authorization": f"Bearer {access_token}"}) as resp:
                data = await resp.json(content_type=None) if resp.status in (200, 429) \
                    else None
        except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
            log.warning("users/@me: Discord did not answer (%s)", type(exc).__name__)
            raise OAuthError("Discord did not answer; try opening the board again.",
                             502) from None
        if resp.status == 429:
            wait = data.get("retry_after") if isinstance(data, dict) else None
            return 429, None, float(wait) if isinstance(wait, int | float) else None
        return resp.status, data, None
