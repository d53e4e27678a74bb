"""The Activity in a real browser against the REAL server: the bot process (``fabletop
run`` with WEB_PORT, :class:`tests.e2e.harness.BotProcess`) on the Discord emulator,
signing in through the emulator's OAuth2 token endpoint and ``/users/@me``.

The browser tests are synchronous (selenium), the emulator and the bot's process are
asyncio: :class:`Live` runs them on a loop of its own, on a thread, and the tests hand
it coroutines (:meth:`Live.run`) and plain reads (:meth:`Live.call`). It also serves the
fake Discord host page (``tests/web/host/``) and, on the same origin, passes every other
request and the socket on to the bot's server, as Discord's proxy
(``<client id>.discordsays.com``) does for a real Activity: the Embedded App SDK takes
the host's messages only from Discord's origins or its own, so the host page and the
frame share the proxy's origin (WEB_ORIGINS and WEB_FRAME_ANCESTORS name it). The proxy
can also cut every board's socket and keep them away (:meth:`Live.cut`,
:meth:`Live.restore`).

:class:`Board` is one person's Activity in one browser: signed in as an emulator user,
it reads what the page shows (:meth:`Board.snapshot`), records every socket message the
page got and sent (a script the browser runs in the frame before the page's own, through
the DevTools protocol, so the page's CSP does not apply to it), and plays: a choice
that has a touch target on the board is clicked there, any other on the shell's button,
the guided steps in the step panel and the words in the form's text box
(:meth:`Board.play_one`).
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from aiohttp import ClientConnectionError, ClientSession, WSMsgType, WSServerHandshakeError, web

from tests.e2e.harness import BotProcess, stop_quietly
from tests.e2e.play import TableRow, table_row
from tests.emulator import Emulator, Person
from tests.emulator.ratelimits import MACHINE_SPEED_LIMITS

HOST = Path(__file__).resolve().parent / "host"
T = TypeVar("T")

RECORDER = """
(() => {
  if (location.pathname !== '/' || window.__ws) return;
  const got = [];
  const sent = [];
  const sockets = [];
  window.__ws = got;
  window.__wsSent = sent;
  window.__wsSockets = sockets;
  window.__wsBlocked = false;
  const Native = window.WebSocket;
  class Recording extends Native {
    constructor(...args) {
      if (window.__wsBlocked) throw new Error('the test keeps this board offline');
      super(...args);
      sockets.push(this);
      this.addEventListener('message', (event) => {
        try { got.push(JSON.parse(event.data)); } catch (err) { got.push({type: '?'}); }
      });
    }
    send(data) {
      try { sent.push(JSON.parse(data)); } catch (err) { sent.push({type: '?'}); }
      return super.send(data);
    }
  }
  window.WebSocket = Recording;
})();
"""

SNAPSHOT = """
const doc = document;
const win = window;
if (!win.__ws) return null;
const root = doc.getElementById('app');
const vis = (el) => !!el && !el.closest('[hidden]');
const buttons = (sel) => [...doc.querySelectorAll(sel)].filter(vis).map((b) => ({
  code: b.dataset.code, label: b.getAttribute('aria-label') || b.textContent.trim(),
  disabled: b.disabled}));
const step = doc.querySelector('section.step');
const form = doc.querySelector('form.form-panel');
const states = win.__ws.filter((m) => m.type === 'state');
const last = states.length ? states[states.length - 1] : null;
return {
  phase: root ? root.dataset.phase : null,
  version: root && root.dataset.version ? Number(root.dataset.version) : null,
  conn: root ? root.dataset.conn : null,
  status: last ? last.table.status : null,
  seat: last ? last.seat : null,
  lastVersion: last ? last.version : null,
  menus: buttons('.menus button.choice'),
  step: vis(step) ? buttons('section.step .choice-grid button.choice') : [],
  form: vis(form),
  targets: [...doc.querySelectorAll('#board [role="button"][data-code], '
    + '#board [role="button"][data-codes]')].flatMap(
    (g) => (g.dataset.code ? [g.dataset.code] : g.dataset.codes.split(' ')).filter((c) => c)),
  got: win.__ws.length,
  sent: win.__wsSent.length,
  banner: vis(doc.querySelector('.banner')),
  refusals: [...doc.querySelectorAll('.refusal')].filter(vis).map(
    (p) => p.textContent).filter((t) => t),
};
"""

FORWARDED = ("origin", "authorization", "content-type", "accept", "user-agent", "host")
"""The request headers the proxy passes on (the Host too: the CSP names the page's host)."""

BACK = ("take back", "undo")
"""Labels of choices that undo a step: a random player taking them may never finish."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(check: Callable[[], T], timeout: float = 20.0, what: str = "it",
               interval: float = 0.05) -> T:
    """Poll ``check`` until it returns something true; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = check()
        except Exception as exc:  # a stale element while the page updates: try again
            last = exc
        else:
            if last:
                return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} "
                                 f"(last: {last!r})")
        time.sleep(interval)


class Live:
    """The emulator, the bot process with the Activity served, and the host page, on a
    loop of their own (a thread)."""

    def __init__(self, workdir: Path, **env: str) -> None:
        self.workdir = workdir
        self.env = env
        self.web_port = free_port()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="live-activity",
                                       daemon=True)
        self.emu: Emulator
        """Made on the live loop by :meth:`start` (its events belong to that loop)."""
        self.bot: BotProcess | None = None
        self.host_port = 0
        self._host: web.AppRunner | None = None
        self.client: ClientSession | None = None
        self.sockets: set[web.WebSocketResponse] = set()
        self.offline = False

    # -- running things on the loop ------------------------------------------------------

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        """Run ``coro`` on the live loop and return its result."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, fn: Callable[[], T], timeout: float = 10.0) -> T:
        """Run ``fn()`` on the live loop (a read of the emulator's world)."""
        async def go() -> T:
            return fn()

        return self.run(go(), timeout)

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> Live:
        self.thread.start()
        try:
            self.run(self._start(), 90)
        except BaseException:
            self.stop()
            raise
        return self

    async def _start(self) -> None:
        self.emu = Emulator(rate_limits=MACHINE_SPEED_LIMITS)
        await self.emu.start()
        self.client = ClientSession(auto_decompress=False)
        app = web.Application(client_max_size=1024 * 1024)
        app.router.add_get("/_test/host/{path:.+}", self._host_file)
        app.router.add_get("/favicon.ico", self._no_icon)
        app.router.add_get("/api/ws", self._proxy_ws)
        app.router.add_route("*", "/{tail:.*}", self._proxy_http)
        self._host = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._host.setup()
        site = web.TCPSite(self._host, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None and server.sockets
        self.host_port = server.sockets[0].getsockname()[1]
        self.bot = BotProcess(
            self.emu, self.workdir, WEB_PORT=str(self.web_port), WEB_HOST="127.0.0.1",
            DISCORD_CLIENT_ID=str(self.emu.application_id),
            DISCORD_CLIENT_SECRET=self.emu.client_secret, WEB_ORIGINS=self.origin,
            WEB_FRAME_ANCESTORS=self.origin, WEB_SESSION_SECRET="", **self.env)
        await self.bot.start()

    async def _host_file(self, request: web.Request) -> web.StreamResponse:
        path = (HOST / request.match_info["path"]).resolve()
        if not path.is_relative_to(HOST) or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-store"})

    async def _no_icon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    def _upstream_headers(self, request: web.Request) -> dict[str, str]:
        return {k: v for k, v in request.headers.items() if k.lower() in FORWARDED}

    async def _proxy_http(self, request: web.Request) -> web.StreamResponse:
        """Everything but the host page goes to the bot's server, as Discord's proxy
        (``<client id>.discordsays.com``) sends the Activity's requests to the app."""
        url = f"{self.upstream}{request.rel_url}"
        assert self.client is not None
        try:
            async with self.client.request(request.method, url, data=await request.read(),
                                           headers=self._upstream_headers(request),
                                           allow_redirects=False) as resp:
                body = await resp.read()
                headers = {k: v for k, v in resp.headers.items()
                           if k.lower() not in ("content-length", "transfer-encoding",
                                                "connection", "keep-alive")}
                return web.Response(status=resp.status, body=body, headers=headers)
        except ClientConnectionError:
            return web.Response(status=502, text="the bot's server is not there")

    async def _proxy_ws(self, request: web.Request) -> web.StreamResponse:
        if self.offline:
            return web.Response(status=502, text="the test keeps the boards offline")
        assert self.client is not None
        try:
            upstream = await self.client.ws_connect(
                f"{self.upstream.replace('http', 'ws', 1)}/api/ws",
                headers=self._upstream_headers(request), autoping=True)
        except WSServerHandshakeError as exc:
            return web.Response(status=exc.status, text="refused upstream")
        except ClientConnectionError:
            return web.Response(status=502, text="the bot's server is not there")
        down = web.WebSocketResponse(autoping=True)
        await down.prepare(request)
        self.sockets.add(down)

        async def upward() -> None:
            async for msg in down:
                if msg.type is WSMsgType.TEXT:
                    await upstream.send_str(msg.data)
            await upstream.close()

        async def downward() -> None:
            async for msg in upstream:
                if msg.type is WSMsgType.TEXT:
                    await down.send_str(msg.data)
            code = upstream.close_code or 1000
            await down.close(code=code if code != 1006 else 1011)

        try:
            tasks = [asyncio.ensure_future(upward()), asyncio.ensure_future(downward())]
            _done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        finally:
            self.sockets.discard(down)
            await upstream.close()
            if not down.closed:
                await down.close()
        return down

    def cut(self) -> None:
        """Close every board's socket (1012, as a restart would) and refuse new ones
        until :meth:`restore`: the boards are away, trying to reconnect."""
        async def go() -> None:
            self.offline = True
            for ws in list(self.sockets):
                await ws.close(code=1012, message=b"restarting")

        self.run(go(), 10)

    def restore(self) -> None:
        self.offline = False

    def stop(self) -> None:
        async def shutdown() -> None:
            self.offline = True
            if self.bot is not None:
                await stop_quietly(self.bot)
            if self._host is not None:
                for ws in list(self.sockets):
                    await ws.close(code=1001)
                await self._host.cleanup()
            if self.client is not None:
                await self.client.close()
            emu: Emulator | None = getattr(self, "emu", None)
            if emu is not None:
                await emu.stop()

        try:
            if self.thread.is_alive():
                self.run(shutdown(), 30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)

    # -- where things are ----------------------------------------------------------------

    @property
    def upstream(self) -> str:
        """The bot's web server."""
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def origin(self) -> str:
        """The origin of the host page and of the Activity's frame (the proxy)."""
        return f"http://127.0.0.1:{self.host_port}"

    @property
    def db(self) -> Path:
        assert self.bot is not None
        return self.bot.db_path

    def host_url(self, person: Person, code: str) -> str:
        """The fake Discord page framing the Activity for ``person``, whose ``authorize``
        answers ``code``."""
        emu = self.emu
        query = {"activity": f"{self.origin}/", "code": code,
                 "channel_id": str(emu.channel.id), "guild_id": str(emu.guild.id),
                 "user_id": str(person.id), "username": person.name,
                 "global_name": person.name,
                 "location_id": f"gc-{emu.guild.id}-{emu.channel.id}"}
        return f"{self.origin}/_test/host/host.html?{urlencode(query)}"

    def row(self) -> TableRow:
        found = table_row(self.db, self.emu.channel.id)
        assert found is not None, "no table in the channel"
        return found

    # -- a table, through Discord --------------------------------------------------------

    def open_table(self, game: str, people: list[Person], *, options: str = "",
                   ais: int = 0, level: str | None = None, seed: int | None = None) -> None:
        """``/table new`` (with ``options``), the others join, ``ais`` AI seats, the seed
        set (a short game), ``/table start``."""
        from tests.e2e.play import set_table_seed

        async def go() -> None:
            where = self.emu.channel
            kw: dict[str, Any] = {"options": {"options": options}} if options else {}
            opened = await people[0].slash("/table new", game=game, **kw)
            assert opened.reply is not None, f"/table new {game} got no answer"
            for p in people[1:]:
                await p.slash("/table join")
            for _ in range(ais):
                extra = {"level": level} if level else {}
                added = await people[0].slash("/table addbot", **extra)
                assert added.reply is not None
            if seed is not None:
                set_table_seed(self.db, where.id, seed)
            await people[0].slash("/table start")
            await self.emu.wait_for(lambda: (r := table_row(self.db, where.id)) is not None
                                    and r.status == "playing", 20, "the game to start")

        self.run(go(), 90)

    def board(self, driver: Any, person: Person, *, seed: int = 0,
              words: Callable[[int], str] | None = None,
              weigh: Callable[[Board, dict[str, Any]], float] | None = None) -> Board:
        """``person``'s Activity in ``driver``, signed in."""
        board = Board(self, driver, person, random.Random(seed), words, weigh)
        board.open()
        return board


@dataclass
class Played:
    """One choice the test made in a browser."""

    code: str
    label: str
    where: str
    """"board" (its touch target), "menu" (the shell's button), "step", "form"."""
    had_target: bool
    version: int


@dataclass
class Board:
    """One person's Activity in one browser (see the module docstring)."""

    live: Live
    driver: Any
    person: Person
    rng: random.Random
    words: Callable[[int], str] | None = None
    """The words typed into a form (given how many choices were made before)."""
    weigh: Callable[[Board, dict[str, Any]], float] | None = None
    """How likely a choice ({code, label, disabled}) is picked (None: all alike): a
    game whose random play may not end soon prefers its way to the end."""
    played: list[Played] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    """Every socket message of the page loads before the one shown now (a reload
    starts the page's own record again)."""
    sent: list[dict[str, Any]] = field(default_factory=list)
    here: bool = False
    """Whether the driver shows the host page (not away)."""

    # -- signing in ----------------------------------------------------------------------

    def open(self) -> None:
        """Load the host page with a fresh authorization code and wait for the table."""
        code = self.live.call(lambda: self.live.emu.authorization_code(self.person))
        if not getattr(self.driver, "_live_recorder", False):
            self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {
                "source": RECORDER})
            self.driver._live_recorder = True
        self.driver.get(self.live.host_url(self.person, code))
        self.here = True
        wait_until(lambda: (s := self.snapshot()) is not None and s["phase"] == "table"
                   and s["conn"] == "live", 30, f"{self.person.name}'s board")

    def away(self) -> None:
        """Leave the page (the socket closes with it), keeping what it received."""
        self.keep()
        self.here = False
        self.driver.get("about:blank")

    def keep(self) -> None:
        got = self.js("return window.__ws || []") or []
        sent = self.js("return window.__wsSent || []") or []
        self.received.extend(got)
        self.sent.extend(sent)

    def all_received(self) -> list[dict[str, Any]]:
        if not self.here:
            return list(self.received)
        return [*self.received, *(self.js("return window.__ws || []") or [])]

    def all_sent(self) -> list[dict[str, Any]]:
        if not self.here:
            return list(self.sent)
        return [*self.sent, *(self.js("return window.__wsSent || []") or [])]

    # -- reading the page ----------------------------------------------------------------

    def js(self, script: str, *args: Any) -> Any:
        """Run ``script`` inside the Activity's frame."""
        self.driver.switch_to.default_content()
        frame = self.driver.find_element("css selector", "iframe#activity")
        self.driver.switch_to.frame(frame)
        try:
            return self.driver.execute_script(script, *args)
        finally:
            self.driver.switch_to.default_content()

    def snapshot(self) -> dict[str, Any] | None:
        """What the page shows now (None before the frame's page has loaded)."""
        result: dict[str, Any] | None = self.js(SNAPSHOT)
        return result

    def states(self) -> list[dict[str, Any]]:
        return [m for m in self.all_received() if m.get("type") == "state"]

    def wait_version(self, version: int, timeout: float = 20.0) -> dict[str, Any]:
        """Wait until the page shows ``version`` (or a later one)."""
        def shown() -> dict[str, Any] | None:
            s = self.snapshot()
            return s if s is not None and s["version"] is not None \
                and s["version"] >= version else None

        return wait_until(shown, timeout, f"{self.person.name}'s board at v{version}")

    # -- playing -------------------------------------------------------------------------

    def has_choice(self, snap: dict[str, Any] | None = None) -> bool:
        snap = snap or self.snapshot()
        return bool(snap) and snap["status"] == "playing" and bool(
            snap["form"] or [c for c in snap["step"] + snap["menus"] if not c["disabled"]])

    def _pick(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        usable = [c for c in choices if not c["disabled"]]
        forward = [c for c in usable
                   if not any(c["label"].lower().startswith(b) for b in BACK)]
        pool = forward or usable
        if self.weigh is None:
            return self.rng.choice(pool)
        return self.rng.choices(pool, [self.weigh(self, c) for c in pool])[0]

    def _click(self, css: str) -> None:
        from selenium.common.exceptions import (
            ElementClickInterceptedException,
            ElementNotInteractableException,
        )

        self.driver.switch_to.default_content()
        self.driver.switch_to.frame(self.driver.find_element("css selector", "iframe#activity"))
        try:
            element = self.driver.find_element("css selector", css)
            self.driver.execute_script(
                "arguments[0].scrollIntoView({block: 'center', inline: 'center'})", element)
            try:
                element.click()
            except (ElementClickInterceptedException, ElementNotInteractableException) as exc:
                raise AssertionError(f"{self.person.name} could not click {css}: "
                                     f"{exc.msg}") from None
        finally:
            self.driver.switch_to.default_content()

    def play_one(self, snap: dict[str, Any] | None = None) -> Played:
        """Make one choice of those the page offers now and wait for its answer (the
        next state, a step menu, a form or a refusal)."""
        snap = snap or self.snapshot()
        assert snap is not None and self.has_choice(snap), f"{self.person.name}: no choice"
        sent_before = snap["sent"]
        if snap["form"]:
            text = self.words(len(self.played)) if self.words else "Once upon a time."
            self._type(text)
            self._click("form.form-panel button[type=submit]")
            played = Played("form", text, "form", False, snap["version"])
        else:
            step = [c for c in snap["step"] if not c["disabled"]]
            choice = self._pick(snap["step"] if step else snap["menus"])
            code = choice["code"]
            on_board = code in snap["targets"]
            if on_board:
                self._click_target(code)
            elif step:
                self._click(f'section.step .choice-grid button.choice[data-code="{code}"]')
            else:
                self._click(f'.menus button.choice[data-code="{code}"]')
            where = "board" if on_board else "step" if step else "menu"
            played = Played(code, choice["label"], where, on_board, snap["version"])
        self.played.append(played)
        sent = wait_until(lambda: self._sent_since(sent_before), 10,
                          f"{self.person.name}'s choice {played.code} to be sent")
        expected = None if played.where == "form" else played.code
        assert sent["type"] == "choose" and (expected is None or sent["code"] == expected), (
            f"{self.person.name} clicked {played.where} {played.code}; the page sent {sent}")
        wait_until(lambda: self._answered(sent, snap["got"]), 20,
                   f"the answer to {self.person.name}'s {played.code}")
        return played

    def _click_target(self, code: str) -> None:
        """Touch the board's target of ``code``. A target that stands for several choices
        (a Winter Tales place, a Pocket thing) opens them on the board (a list, a tray),
        where ``code`` is then touched."""
        one = f'#board [role="button"][data-code="{code}"]'
        several = f'#board [role="button"][data-codes~="{code}"]'
        if self.js("return !!document.querySelector(arguments[0])", one):
            self._click(one)
            return
        codes = self.js("return document.querySelector(arguments[0]).dataset.codes", several)
        self._click(several)
        if codes.split() == [code]:
            return
        pick = f'#board button[data-wt-code="{code}"], {one}'
        wait_until(lambda: self.js("return !!document.querySelector(arguments[0])", pick),
                   5, f"the board to open the choices with {code}")
        self._click(pick)

    def _type(self, text: str) -> None:
        self.driver.switch_to.frame(self.driver.find_element("css selector", "iframe#activity"))
        try:
            box = self.driver.find_element("css selector", "#form-text")
            box.clear()
            box.send_keys(text)
        finally:
            self.driver.switch_to.default_content()

    def _sent_since(self, count: int) -> dict[str, Any] | None:
        sent = self.js("return window.__wsSent.slice(arguments[0])", count) or []
        chosen = [m for m in sent if m.get("type") == "choose"]
        return chosen[-1] if chosen else None

    def _answered(self, sent: dict[str, Any], since: int) -> bool:
        got = self.js("return window.__ws.slice(arguments[0])", since) or []
        for msg in got:
            if msg.get("id") == sent["id"] and msg.get("type") in ("menu", "form", "refused"):
                return True
            if msg.get("type") == "state" and msg["version"] > sent["version"]:
                return True
            if msg.get("type") == "error":
                raise AssertionError(f"{self.person.name}'s board got an error: {msg}")
        return False

    def on_board(self) -> list[Played]:
        return [p for p in self.played if p.where == "board"]


async def discord_turn(live: Live, person: Person, rng: random.Random,
                       version: int) -> int:
    """One decision of ``person`` on Discord: a game button of the turn message of
    ``version`` (never "Open the board"), then the private steps it answers with.
    Returns the clicks made."""
    from tests.e2e.harness import latest_with_buttons
    from tests.e2e.play import prompt_version

    emu = live.emu

    def prompt() -> Any:
        msg = latest_with_buttons(emu)
        return msg if msg is not None and prompt_version(msg) >= version else None

    msg = await emu.wait_for(prompt, 20, f"the turn message of v{version}")
    for clicks in range(1, 5):
        usable = [b for b in msg.buttons if not b.disabled and b.custom_id
                  and b.custom_id.startswith("ft:") and not b.custom_id.endswith(":activity")]
        assert usable, f"{person.name} has nothing to click on {msg!r}"
        inter = await person.click(msg, custom_id=rng.choice(usable).custom_id, settle=False)
        menu = await emu.answer(inter)
        if menu is None or not menu.ephemeral or not [
                b for b in menu.buttons if not b.disabled and b.custom_id
                and b.custom_id.startswith("ft:")]:
            return clicks
        msg = menu
    raise AssertionError(f"{person.name}'s choice took more than four steps")


def play_to_the_end(live: Live, boards: list[Board], *, max_choices: int = 400,
                    timeout: float = 240.0, before: Callable[[Board], None] | None = None
                    ) -> int:
    """Play with every board until the table is finished: whichever board offers a choice
    makes one; AI seats play on the bot's side. Returns how many choices were made."""
    deadline = time.monotonic() + timeout
    made = 0
    while True:
        if live.row().finished:
            return made
        assert made < max_choices, f"the game did not end in {max_choices} choices"
        assert time.monotonic() < deadline, f"the game did not end in {timeout:.0f}s"
        acted = False
        for board in boards:
            snap = board.snapshot()
            if snap is not None and board.has_choice(snap):
                if before is not None:
                    before(board)
                board.play_one(snap)
                made += 1
                acted = True
                break
        if not acted:
            time.sleep(0.05)
