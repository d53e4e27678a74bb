"""A test-only stand-in for bot/web's server: the Activity's HTTP and WebSocket contract
with canned data, so the browser tests check the client on its own.

It serves the committed bundle (``bot/web/static``) at ``/`` and ``/static/``, the fake
Discord host page (``tests/web/host``) at ``/_test/host/``, and plays a small table: two
seats (Ada, the viewer, and Grimm, an AI), a Fairy Tale Inn view made by the engine, and
two menus. It runs on a thread of its own (the tests drive a synchronous browser) and
records every call and every WebSocket message it gets.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "bot" / "web" / "static"
HOST = Path(__file__).resolve().parent / "host"

CLIENT_ID = "123456789012345678"
CODE = "code-from-the-fake-discord"
ACCESS_TOKEN = "access-token-42"
SESSION = "session-1"
"""The first session the fake server opens (each POST /api/session opens the next)."""
CHANNEL_ID = "300000000000000003"
GUILD_ID = "200000000000000002"

STEP_TITLE = "Drop Jack into which column?"
PASS_REFUSAL = "You cannot pass while guests wait on the Guest List."
FORM_TITLE = "What is your inn called?"


def csp(host: str) -> str:
    """The real server's Content-Security-Policy (the brief of bot/web)."""
    return (f"default-src 'self'; script-src 'self'; connect-src 'self' ws://{host} "
            f"wss://{host}; img-src 'self' data:")


def inn_view() -> dict[str, Any]:
    """A real view: Fairy Tale Inn at its start, as seat 0 sees it."""
    from engines.catalog import spec

    game = spec("fairy-tale-inn").engine()
    state = game.setup(2, game.Options(), 7)
    return game.view(state, 0).model_dump(mode="json")


def table_menus() -> list[dict[str, Any]]:
    return [
        {
            "title": "Take a guest from the Guest List",
            "choices": [
                {"label": "Little Red Riding Hood · 2 gold", "code": "slot1", "style": "primary",
                 "disabled": False},
                {"label": "Little Red Riding Hood · 1 gold", "code": "slot2", "style": "primary",
                 "disabled": False},
                {"label": "Little Red Riding Hood · free", "code": "slot3", "style": "primary",
                 "disabled": False},
                {"label": "Jack · free", "code": "slot4", "style": "primary", "disabled": False},
            ],
        },
        {
            "title": "Or",
            "choices": [
                {"label": "Pass", "code": "pass", "style": "danger", "disabled": False},
                {"label": "Name your inn", "code": "name", "style": "success", "disabled": False},
                {"label": "Look at the rules", "code": "rules", "style": "secondary",
                 "disabled": True},
            ],
        },
    ]


def step_menu() -> dict[str, Any]:
    choices = [{"label": f"Column {c}", "code": f"col{c}", "style": "primary", "disabled": c == 4}
               for c in range(1, 8)]
    choices.append({"label": "Take back", "code": "back", "style": "secondary",
                    "disabled": False})
    return {"title": STEP_TITLE, "choices": choices}


class FakeServer:
    """The contract with canned answers. Tests read ``calls`` and ``received`` and steer
    it with :meth:`push`, :meth:`drop` and the attributes below."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, host_only: bool = False,
                 send_csp: bool = True) -> None:
        self.bind = host
        self.port = port
        self.host_only = host_only
        self.send_csp = send_csp
        self.calls: list[dict[str, Any]] = []
        """Every /api call: {"path", "auth", "json"}."""
        self.received: list[dict[str, Any]] = []
        """Every WebSocket message from the client, in order."""
        self.version = 7
        self.view = inn_view() if not host_only else {}
        self.seat: int | None = 0
        self.menus = table_menus()
        self.news: list[str] = []
        """Every news line so far (a state carries those of its own commit only)."""
        self.no_table: str | None = None
        self.sessions_opened = 0
        self.valid_sessions: set[str] = set()
        self.renew_sessions = True
        """Whether a new POST /api/session gives a session the socket takes."""
        self.token_error: str | None = None
        self.on_choose: Callable[[dict[str, Any]], list[dict[str, Any]]] = self.play
        self.loop: asyncio.AbstractEventLoop | None = None
        self.sockets: list[web.WebSocketResponse] = []
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._started = threading.Event()
        self._lock = threading.Lock()

    # -- the table --------------------------------------------------------------------

    def seats(self) -> list[dict[str, Any]]:
        return [
            {"index": 0, "name": "Ada", "ai": False, "you": self.seat == 0},
            {"index": 1, "name": "Grimm", "ai": True, "you": self.seat == 1},
        ]

    def state(self, lines: list[str] | None = None) -> dict[str, Any]:
        """The state as the viewer gets it; ``lines`` are the news of the commit that made
        it (none in a state sent on hello or resync)."""
        return {
            "type": "state",
            "game": "fairy-tale-inn",
            "table": {"id": 17, "status": "playing", "seats": self.seats()},
            "version": self.version,
            "seat": self.seat,
            "view": copy.deepcopy(self.view),
            "menus": copy.deepcopy(self.menus) if self.seat is not None else [],
            "lines": list(lines or []),
        }

    def commit(self, *lines: str) -> dict[str, Any]:
        """A new version with these news lines: the state every viewer is sent."""
        self.version += 1
        self.news.extend(lines)
        return self.state(list(lines))

    def play(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        """The default answers to a choice."""
        code = msg.get("code")
        if isinstance(code, str) and code.startswith("slot"):
            return [{"type": "menu", "id": msg["id"], "menu": step_menu()}]
        if isinstance(code, str) and code.startswith("col"):
            self.view["gold"] = [self.view["gold"][0] + 1, self.view["gold"][1]]
            self.view["bag_count"] -= 1
            return [self.commit(f"Ada dropped Jack into column {code[3:]}.")]
        if code == "name" and "text" not in msg:
            return [{"type": "form", "id": msg["id"], "code": "name", "title": FORM_TITLE}]
        if code == "name":
            return [self.commit(f"Ada named the inn “{msg['text']}”.")]
        if code == "back":
            return [self.state()]
        if code == "pass":
            return [{"type": "refused", "id": msg["id"], "text": PASS_REFUSAL}]
        return [{"type": "error", "text": f"unknown code {code!r}"}]

    # -- the app ----------------------------------------------------------------------

    def _headers(self, request: web.Request) -> dict[str, str]:
        headers = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
        if self.send_csp:
            headers["Content-Security-Policy"] = csp(request.host)
        return headers

    async def index(self, request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers=self._headers(request))

    async def static(self, request: web.Request) -> web.StreamResponse:
        path = (STATIC / request.match_info["path"]).resolve()
        if not path.is_relative_to(STATIC) or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers=self._headers(request))

    async def host(self, request: web.Request) -> web.StreamResponse:
        path = (HOST / request.match_info["path"]).resolve()
        if not path.is_relative_to(HOST) or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-store"})

    async def no_icon(self, request: web.Request) -> web.Response:
        """The host page's favicon request (a 404 would be an error in the browser log)."""
        return web.Response(status=204)

    async def _record(self, request: web.Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except Exception:
            body = None
        with self._lock:
            self.calls.append({"path": request.path, "auth": request.headers.get("Authorization"),
                               "json": body})
        return body if isinstance(body, dict) else {}

    async def config(self, request: web.Request) -> web.Response:
        with self._lock:
            self.calls.append({"path": request.path, "auth": None, "json": None})
        return web.json_response({"client_id": CLIENT_ID}, headers=self._headers(request))

    async def token(self, request: web.Request) -> web.Response:
        body = await self._record(request)
        if self.token_error:
            return web.json_response({"error": self.token_error}, status=403)
        if body.get("code") != CODE:
            return web.json_response({"error": "That sign-in code is not one Discord gave."},
                                     status=400)
        return web.json_response({"access_token": ACCESS_TOKEN})

    async def session(self, request: web.Request) -> web.Response:
        body = await self._record(request)
        if request.headers.get("Authorization") != f"Bearer {ACCESS_TOKEN}":
            return web.json_response({"error": "Not signed in."}, status=401)
        if not body.get("channel_id"):
            return web.json_response({"error": "Which channel?"}, status=400)
        self.sessions_opened += 1
        session = f"session-{self.sessions_opened}"
        if self.renew_sessions:
            self.valid_sessions.add(session)
        return web.json_response({"session": session, "user": {"id": "1", "name": "Ada"}})

    async def ws(self, request: web.Request) -> web.WebSocketResponse:
        sock = web.WebSocketResponse(heartbeat=None)
        await sock.prepare(request)
        self.sockets.append(sock)
        try:
            async for frame in sock:
                if frame.type != WSMsgType.TEXT:
                    continue
                msg = frame.json()
                with self._lock:
                    self.received.append(msg)
                if msg.get("type") == "hello" and msg.get("session") not in self.valid_sessions:
                    # As bot/web does: the words, then close code 4403.
                    await sock.send_json({"type": "error", "text": "Your session has ended."})
                    await sock.close(code=4403, message=b"refused")
                    break
                for answer in self.answer(msg):
                    await sock.send_json(answer)
        finally:
            with contextlib.suppress(ValueError):
                self.sockets.remove(sock)
        return sock

    def answer(self, msg: dict[str, Any]) -> list[dict[str, Any]]:
        kind = msg.get("type")
        if kind in ("hello", "resync"):
            if self.no_table is not None:
                return [{"type": "no_table", "text": self.no_table}]
            return [self.state()]
        if kind == "choose":
            return self.on_choose(msg)
        return []

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/_test/host/{path:.+}", self.host)
        app.router.add_get("/favicon.ico", self.no_icon)
        if not self.host_only:
            app.router.add_get("/", self.index)
            app.router.add_get("/static/{path:.+}", self.static)
            app.router.add_get("/api/config", self.config)
            app.router.add_post("/api/token", self.token)
            app.router.add_post("/api/session", self.session)
            app.router.add_get("/api/ws", self.ws)
        return app

    # -- running it on a thread ----------------------------------------------------------

    def start(self) -> FakeServer:
        self._thread = threading.Thread(target=self._run, name="fake-activity-server",
                                        daemon=True)
        self._thread.start()
        if not self._started.wait(10):
            raise RuntimeError("the fake server did not start")
        if self._error is not None:
            raise self._error
        return self

    _error: BaseException | None = None

    def _run(self) -> None:
        self.loop = asyncio.new_event_loop()
        try:
            self.loop.run_until_complete(self._serve())
        except BaseException as exc:  # tell start() why
            self._error = exc
            self._started.set()
            return
        self._started.set()
        self.loop.run_forever()

    async def _serve(self) -> None:
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.bind, self.port)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self.port = server.sockets[0].getsockname()[1]

    def stop(self) -> None:
        if self.loop is None:
            return

        async def shutdown() -> None:
            for sock in list(self.sockets):
                await sock.close()
            if self._runner is not None:
                await self._runner.cleanup()

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        if self._thread is not None:
            self._thread.join(10)

    @property
    def origin(self) -> str:
        return f"http://{self.bind}:{self.port}"

    def host_url(self, activity: str | None = None, **params: str) -> str:
        """The fake Discord page that frames the Activity (by default this server's)."""
        from urllib.parse import urlencode

        query = {"activity": activity or f"{self.origin}/", "code": CODE,
                 "channel_id": CHANNEL_ID, "guild_id": GUILD_ID, **params}
        return f"{self.origin}/_test/host/host.html?{urlencode(query)}"

    # -- steering from the test's thread --------------------------------------------------

    def _call(self, coro_fn: Callable[[], Any]) -> Any:
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro_fn(), self.loop).result(10)

    def push(self, msg: dict[str, Any]) -> None:
        """Send ``msg`` to every open socket."""

        async def go() -> None:
            for sock in list(self.sockets):
                await sock.send_json(msg)

        self._call(go)

    def revoke(self) -> None:
        """Forget every session, as a restart with a new key would."""
        self.valid_sessions.clear()

    def drop(self) -> None:
        """Close every open socket, as a server restart or a network cut would."""

        async def go() -> None:
            for sock in list(self.sockets):
                await sock.close(code=1012, message=b"restarting")

        self._call(go)

    def messages(self, kind: str) -> list[dict[str, Any]]:
        with self._lock:
            return [m for m in self.received if m.get("type") == kind]

    def api_calls(self, path: str) -> list[dict[str, Any]]:
        with self._lock:
            return [c for c in self.calls if c["path"] == path]


def wait_until(check: Callable[[], Any], timeout: float = 10.0, what: str = "it") -> Any:
    """Poll ``check`` until it returns something true; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = check()
        except Exception as exc:  # a stale element while the page updates: try again
            last = exc
        else:
            if last:
                return last
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
