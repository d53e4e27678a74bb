"""One board's socket: the hello, then choices and resyncs, under the session's limits.

A ``choose`` is one call of ``TableService.choose``, exactly as a Discord click makes it
(:mod:`bot.messages.clicks`): under one lock and one read of the table the chooser's own
view and legal actions go to the game's choice adapter, which turns the code into an
action (played, with the version the board showed: a stale one is refused as a stale
button is), a follow-up menu or a text form. Its outcome reaches every viewer through
the table's feed (:mod:`bot.web.viewers`), the chooser's other tabs included; the
chooser alone gets a refusal, a menu or a form, with the id of the message it answers.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from aiohttp import WSMsgType, web

from bot.core.choices import get_ui
from bot.core.choices.adapter import Resolution
from bot.core.tables import Outbox, TableInfo, TableService, UserError
from bot.web.auth import Session, SessionError, Sessions
from bot.web.protocol import (
    MAX_MESSAGE_BYTES,
    MAX_SOCKETS_PER_USER,
    RATE_PER_SECOND,
    BadMessage,
    ChooseMessage,
    HelloMessage,
    ResyncMessage,
    dumps,
    error,
    form,
    menu_message,
    parse_client,
    refused,
)
from bot.web.security import Bucket, Guard, Headers
from bot.web.viewers import Viewer, Viewers
from engines.core import Action, View

__all__ = ["HELLO_SECONDS", "SocketHandler"]

log = logging.getLogger("fabletop.web")

HELLO_SECONDS = 10.0
"""A socket that has not said hello by then is closed."""
CLOSE_POLICY = 4403
"""The close code of a socket refused for its session or its limits (4000-4999: the
application's own)."""
TRY_AGAIN = "Something went wrong on our side; nothing was changed. Please try again."
NO_GAME = "There is no game on this board to play; nothing was changed."


class SocketHandler:
    """``GET /api/ws``."""

    def __init__(self, service: TableService, viewers: Viewers, sessions: Sessions,
                 guard: Guard, headers: Headers, *, rate: float = RATE_PER_SECOND,
                 max_sockets: int = MAX_SOCKETS_PER_USER) -> None:
        self.service = service
        self.viewers = viewers
        self.sessions = sessions
        self.guard = guard
        self.headers = headers
        self.rate = rate
        self.max_sockets = max_sockets
        self._buckets: dict[int, Bucket] = {}
        """Per person, shared by their sockets (dropped with their last socket)."""
        self.open: set[web.WebSocketResponse] = set()
        """Every socket being served (closed at shutdown, so a stop never waits for
        boards left open)."""

    async def close_all(self) -> None:
        """Going away (1001): the server stops; the boards reconnect to the next one."""
        for ws in list(self.open):
            await ws.close(code=1001, message=b"server stopping")

    async def handle(self, request: web.Request) -> web.StreamResponse:
        if not self.guard.origin_ok(request):
            log.info("web socket refused: origin not allowed")
            raise web.HTTPForbidden(text='{"error": "This page may not open the board."}',
                                    content_type="application/json")
        # aiohttp's own limit only stops what is far too large; the protocol's limit is
        # checked per message below, with words for the client.
        ws = web.WebSocketResponse(max_msg_size=4 * MAX_MESSAGE_BYTES, heartbeat=30.0)
        self.headers.stamp(request, ws)
        await ws.prepare(request)
        self.open.add(ws)
        try:
            return await self._run(ws)
        finally:
            self.open.discard(ws)

    async def _run(self, ws: web.WebSocketResponse) -> web.WebSocketResponse:
        session = await self._hello(ws)
        if session is None:
            return ws
        _hello, who = session
        if self.viewers.open_sockets(who.user_id) >= self.max_sockets:
            await self._close(ws, f"You have {self.max_sockets} boards open already: close "
                                  "one to open another.")
            return ws
        viewer = Viewer(user_id=who.user_id, channel_id=who.channel_id, send=ws.send_str)
        bucket = self._buckets.setdefault(who.user_id, Bucket(self.rate))
        self.viewers.join(viewer)
        # The Discord delivery (maybe another process's) leaves the pictures out while
        # everyone seated at the table has the board open here.
        self.service.presence.enter(who.channel_id, who.user_id)
        log.info("web board opened: user %s, channel %s", who.user_id, who.channel_id)
        try:
            await self._serve(ws, viewer, bucket)
        finally:
            self.service.presence.leave(who.channel_id, who.user_id)
            await self.viewers.leave(viewer)
            if not self.viewers.open_sockets(who.user_id):
                self._buckets.pop(who.user_id, None)
            log.info("web board closed: user %s, channel %s", who.user_id, who.channel_id)
        return ws

    async def _close(self, ws: web.WebSocketResponse, text: str) -> None:
        await ws.send_str(dumps(error(text)))
        await ws.close(code=CLOSE_POLICY, message=b"refused")

    async def _hello(self, ws: web.WebSocketResponse) -> tuple[HelloMessage, Session] | None:
        try:
            msg = await ws.receive(timeout=HELLO_SECONDS)
        except TimeoutError:
            await self._close(ws, "Say hello first: the board needs your session.")
            return None
        if msg.type is not WSMsgType.TEXT:
            await ws.close()
            return None
        if len(msg.data.encode()) > MAX_MESSAGE_BYTES:
            await self._close(ws, "That message is too large; nothing was done.")
            return None
        try:
            hello = parse_client(msg.data)
        except BadMessage as exc:
            await self._close(ws, str(exc))
            return None
        if not isinstance(hello, HelloMessage):
            await self._close(ws, "Say hello first: the board needs your session.")
            return None
        try:
            who = self.sessions.check(hello.session)
        except SessionError as exc:
            log.info("web socket refused: %s", type(exc).__name__)
            await self._close(ws, str(exc))
            return None
        if int(hello.channel_id) != who.channel_id:
            # A session is for the channel it was opened in (whose access was checked).
            await self._close(ws, "This session is for another channel; open the Activity "
                                  "again in this one.")
            return None
        return hello, who

    async def _serve(self, ws: web.WebSocketResponse, viewer: Viewer, bucket: Bucket) -> None:
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                if msg.type is WSMsgType.BINARY:
                    await ws.send_str(dumps(error("The board speaks JSON text; nothing was "
                                                  "done.")))
                continue
            if len(msg.data.encode()) > MAX_MESSAGE_BYTES:
                await ws.send_str(dumps(error(
                    f"That message is too large (at most {MAX_MESSAGE_BYTES} bytes); "
                    "nothing was done.")))
                continue
            if not bucket.take():
                await ws.send_str(dumps(error(
                    f"Too many messages: at most {self.rate:g} a second. Nothing was done; "
                    "wait a moment.")))
                continue
            try:
                message = parse_client(msg.data)
            except BadMessage as exc:
                await ws.send_str(dumps(error(str(exc))))
                continue
            if isinstance(message, ResyncMessage):
                self.viewers.resync(viewer)
            elif isinstance(message, ChooseMessage):
                answer = await self.choose(viewer, message)
                if answer is not None:
                    await ws.send_str(dumps(answer))
            else:
                await ws.send_str(dumps(error("You have said hello already.")))

    async def choose(self, viewer: Viewer, msg: ChooseMessage) -> dict[str, Any] | None:
        """Play one choice for ``viewer``'s person; what only they are told, or None
        (the move: every viewer's state tells it)."""
        table_id, game_id = viewer.table_id, viewer.game_id
        if table_id is None or game_id is None:
            return refused(msg.id, NO_GAME)
        ui = get_ui(game_id)
        code, text = msg.code, msg.text
        title = ui.form_title(code)
        if text is None and title is not None:
            # Known from the code alone, as on Discord: the words come with the next send.
            return form(msg.id, code, title)
        if text is not None:
            text = text.strip()
            if not text:
                return refused(msg.id, "Write the passage to tell: it is empty.")
        pinned = text is None or code not in ui.unpinned_forms

        def decide(info: TableInfo, view: View, legal: list[Action]) -> Action | Resolution:
            game_ui = get_ui(info.game_id)
            if text is not None:
                return game_ui.with_text(code, view, legal, text)
            if code == game_ui.turn_code:
                return Resolution(menu=game_ui.private_menu(view, legal))
            resolution = game_ui.resolve(code, view, legal)
            return resolution.action if resolution.action is not None else resolution

        try:
            result = await self.service.choose(table_id, viewer.user_id,
                                               msg.version if pinned else None, decide,
                                               out_of_turn=not pinned)
        except UserError as exc:
            log.info("web choice refused: user %s, table %s (%s)", viewer.user_id, table_id,
                     type(exc).__name__)
            return refused(msg.id, str(exc))
        except Exception:
            ref = secrets.token_hex(3)
            log.exception("web choice failed: user %s, table %s (reference %s)",
                          viewer.user_id, table_id, ref)
            return refused(msg.id, f"{TRY_AGAIN} (Reference {ref}.)")
        if isinstance(result, Outbox):
            # The board's viewers have it from the watcher; the channel's messages (for
            # the people on Discord) come from the listeners, as for an AI's move.
            self.service.publish(result)
            log.info("web move: user %s, table %s, version %s", viewer.user_id, table_id,
                     result.version)
            return None
        if result.menu is not None:
            return menu_message(msg.id, result.menu)
        if result.form is not None:
            return form(msg.id, code, result.form)
        return refused(msg.id, TRY_AGAIN)
