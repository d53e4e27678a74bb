"""Starting and stopping the Activity's web server, in the bot's own event loop.

``fabletop run`` starts it beside the Discord front-end when ``WEB_PORT`` is set
(:mod:`bot.cli` wires the two on one :class:`~bot.core.tables.TableService`): one
process, one event loop, one store, so a move made on a board and one made on Discord
are the same kind of commit, seen by both at once.
"""

from __future__ import annotations

import logging
from pathlib import Path

from aiohttp import web

from bot.core.settings import Settings
from bot.core.tables import TableService
from bot.web.app import STATIC, Access, WebApp
from bot.web.auth import DiscordOAuth, Sessions
from bot.web.viewers import Viewers

__all__ = ["WebServer"]

log = logging.getLogger("fabletop.web")


class WebServer:
    """The aiohttp server of one :class:`~bot.web.app.WebApp`."""

    def __init__(self, app: WebApp, host: str, port: int) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._runner: web.AppRunner | None = None

    @classmethod
    def from_settings(cls, settings: Settings, service: TableService, *,
                      access: Access | None = None, static_dir: Path = STATIC,
                      port: int | None = None) -> WebServer:
        """The server the settings describe (``port``: another, 0 for any free one)."""
        if settings.discord_client_id is None or settings.discord_client_secret is None:
            raise ValueError("the Activity needs DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET")
        oauth = DiscordOAuth(settings.discord_client_id,
                             settings.discord_client_secret.get_secret_value(),
                             settings.discord_api_base)
        app = WebApp(service, client_id=settings.discord_client_id, oauth=oauth,
                     sessions=Sessions(settings.session_key()),
                     origins=settings.allowed_origins,
                     frame_ancestors=settings.web_frame_ancestors, access=access,
                     static_dir=static_dir, viewers=Viewers(service),
                     behind_proxy=settings.web_behind_proxy)
        chosen = port if port is not None else settings.web_port
        assert chosen is not None
        return cls(app, settings.web_host, chosen)

    @property
    def viewers(self) -> Viewers:
        return self.app.viewers

    async def start(self) -> None:
        # No access log: a request's line would be the only place a path is written,
        # and nothing secret travels in a path anyway (the session goes in the socket).
        self._runner = web.AppRunner(self.app.build(), access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = site._server
        if server is not None and getattr(server, "sockets", None):
            self.port = server.sockets[0].getsockname()[1]
        log.info("the Activity's web server listens on http://%s:%s", self.host, self.port)

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
            log.info("the Activity's web server stopped")

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"
