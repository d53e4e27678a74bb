"""A table service, the Discord emulator (for OAuth2) and the Activity's web server on
loopback, with a browser's part played by an aiohttp client: the fixture of the web tests.

    async def test_something(web: WebHarness) -> None:
        alice = web.emu.user("alice")
        session = await web.sign_in(alice, CHANNEL)
        board = await web.open(session, CHANNEL)
        state = await board.next("state")
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.core.settings import Settings
from bot.core.tables import TableService
from bot.web.server import WebServer
from tests.emulator import Emulator

ORIGIN = "https://web-tests.example"
GUILD = 4242
CHANNEL = 5151


@dataclass
class Board:
    """One open socket, as the browser holds it."""

    ws: aiohttp.ClientWebSocketResponse
    received: list[dict[str, Any]] = field(default_factory=list)
    raw: list[str] = field(default_factory=list)

    async def send(self, message: dict[str, Any] | str) -> None:
        await self.ws.send_str(message if isinstance(message, str) else json.dumps(message))

    async def next(self, kind: str | None = None, timeout: float = 3.0) -> dict[str, Any]:
        """The next message (of ``kind``, skipping others); AssertionError on timeout."""
        async def wait() -> dict[str, Any]:
            while True:
                msg = await self.ws.receive()
                if msg.type is not aiohttp.WSMsgType.TEXT:
                    raise AssertionError(f"the socket ended: {msg.type} {msg.data!r}")
                self.raw.append(msg.data)
                data = json.loads(msg.data)
                self.received.append(data)
                if kind is None or data["type"] == kind:
                    return data

        try:
            return await asyncio.wait_for(wait(), timeout)
        except TimeoutError:
            raise AssertionError(f"no {kind or 'message'} within {timeout}s; got "
                                 f"{[m['type'] for m in self.received]}") from None

    async def state_at(self, version: int, timeout: float = 3.0) -> dict[str, Any]:
        while True:
            state = await self.next("state", timeout)
            if state["version"] >= version:
                return state

    async def quiet(self, seconds: float = 0.2) -> list[dict[str, Any]]:
        """Whatever arrives within ``seconds`` (nothing, usually)."""
        got: list[dict[str, Any]] = []
        while True:
            try:
                got.append(await self.next(timeout=seconds))
            except AssertionError:
                return got

    async def close(self) -> None:
        await self.ws.close()


@dataclass
class WebHarness:
    emu: Emulator
    service: TableService
    server: WebServer
    http: aiohttp.ClientSession
    db: Path
    boards: list[Board] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.server.url

    async def post(self, path: str, body: Any, *, origin: str | None = ORIGIN,
                   bearer: str | None = None) -> tuple[int, dict[str, Any]]:
        headers = {"Origin": origin} if origin else {}
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        async with self.http.post(self.url + path, json=body, headers=headers) as resp:
            return resp.status, await resp.json(content_type=None)

    async def sign_in(self, person: Any, channel: int = CHANNEL) -> str:
        """The Activity's sign-in: authorize (the emulator's code), the token exchange,
        then the session."""
        status, token = await self.post("/api/token",
                                        {"code": self.emu.authorization_code(person)})
        assert status == 200, token
        status, session = await self.post("/api/session",
                                          {"channel_id": str(channel), "guild_id": str(GUILD)},
                                          bearer=token["access_token"])
        assert status == 200, session
        assert session["user"]["id"] == str(person.id)
        return str(session["session"])

    async def open(self, session: str, channel: int = CHANNEL, version: int | None = None,
                   *, origin: str = ORIGIN) -> Board:
        ws = await self.http.ws_connect(self.url + "/api/ws", headers={"Origin": origin})
        board = Board(ws)
        self.boards.append(board)
        await board.send({"type": "hello", "session": session, "channel_id": str(channel),
                          "version": version})
        return board


def web_settings(emu: Emulator, **extra: str) -> Settings:
    values = {"WEB_PORT": "8080", "DISCORD_CLIENT_ID": str(emu.application_id),
              "DISCORD_CLIENT_SECRET": emu.client_secret, "DISCORD_API_BASE": emu.api_base,
              "WEB_ORIGINS": ORIGIN, **extra}
    return Settings(_env_file=None, **values)  # type: ignore[arg-type]


@pytest.fixture
async def web(tmp_path: Path) -> AsyncIterator[WebHarness]:
    async with Emulator() as emu:
        service = await TableService.open_sqlite(tmp_path / "web.db", ai_delay=0)
        static = tmp_path / "static"
        static.mkdir()
        server = WebServer.from_settings(web_settings(emu), service, static_dir=static, port=0)
        await server.start()
        http = aiohttp.ClientSession()
        harness = WebHarness(emu, service, server, http, tmp_path / "web.db")
        try:
            yield harness
        finally:
            for board in harness.boards:
                await board.close()
            await http.close()
            await server.stop()
            await service.wait_idle()
            await service.close()
