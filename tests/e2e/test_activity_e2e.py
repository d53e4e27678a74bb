"""The Activity end to end: ``fabletop run`` with WEB_PORT against the emulator declares
the Entry Point command, puts "Open the board" on the turn message and answers it with
LAUNCH_ACTIVITY, and serves the board (OAuth2 through the emulator, the channel check
over REST, the socket) from the same process and table service."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import aiohttp
import pytest

from tests.e2e.harness import BotProcess, latest_with_buttons, stop_quietly
from tests.e2e.hidden import (
    CUSTOM_ID,
    assert_no_hidden_information,
    assert_web_views_hidden,
)
from tests.emulator import Emulator
from tests.emulator.ratelimits import MACHINE_SPEED_LIMITS
from tests.emulator.server import LAUNCH_ACTIVITY, PRIMARY_ENTRY_POINT

pytestmark = pytest.mark.e2e

ORIGIN = "https://activity-e2e.example"


def activity_bot(emu: Emulator, workdir: Path, port: int) -> BotProcess:
    """``fabletop run`` serving the Activity on ``port``, its OAuth2 through ``emu``."""
    return BotProcess(emu, workdir, WEB_PORT=str(port), WEB_HOST="127.0.0.1",
                      DISCORD_CLIENT_ID=str(emu.application_id),
                      DISCORD_CLIENT_SECRET=emu.client_secret, WEB_ORIGINS=ORIGIN,
                      WEB_SESSION_SECRET="")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_open_the_board_launches_the_activity_and_the_board_plays(
        tmp_path: Path) -> None:
    async with Emulator(rate_limits=MACHINE_SPEED_LIMITS) as emu:
        port = free_port()
        bot = activity_bot(emu, tmp_path, port)
        try:
            await bot.start()
            # The Entry Point command went out in the same bulk overwrite as the others.
            entry = [c for c in emu.commands() if c["type"] == PRIMARY_ENTRY_POINT]
            assert len(entry) == 1 and entry[0]["handler"] == 2
            assert entry[0]["name"] == "launch"
            assert {"table", "hand", "rules"} <= {c["name"] for c in emu.commands()}
            alice, bob = emu.user("alice"), emu.user("bob")
            await alice.slash("/table new", game="fairy-tale-inn")
            await bob.slash("/table join")
            await alice.slash("/table start")
            turn = await emu.wait_for(lambda: latest_with_buttons(emu), 10, "a turn message")
            board_button = turn.button("Open the board")
            assert board_button.custom_id is not None
            assert CUSTOM_ID.fullmatch(board_button.custom_id)  # table, version, code only
            assert board_button.custom_id.endswith(":activity")
            click = await bob.click(turn, "Open the board")
            assert click.response_type == LAUNCH_ACTIVITY and click.launched is not None
            assert click.replies == []  # the Activity opens; no message is sent

            # The board, served by the same process: sign in, then the socket.
            base = f"http://127.0.0.1:{port}"
            headers = {"Origin": ORIGIN}
            async with aiohttp.ClientSession() as http:
                async with http.post(base + "/api/token", headers=headers,
                                     json={"code": emu.authorization_code(bob)}) as resp:
                    assert resp.status == 200
                    token = (await resp.json())["access_token"]
                async with http.post(base + "/api/session",
                                     headers={**headers, "Authorization": f"Bearer {token}"},
                                     json={"channel_id": str(emu.channel.id),
                                           "guild_id": str(emu.guild.id)}) as resp:
                    assert resp.status == 200, await resp.text()
                    session = (await resp.json())["session"]
                async with http.ws_connect(base + "/api/ws", headers=headers) as ws:
                    await ws.send_str(json.dumps({"type": "hello", "session": session,
                                                  "channel_id": str(emu.channel.id),
                                                  "version": None}))
                    state = json.loads((await ws.receive(timeout=5)).data)
                    assert state["type"] == "state" and state["game"] == "fairy-tale-inn"
                    assert state["seat"] is not None and state["view"] is not None
                    mine = [s for s in state["table"]["seats"] if s["you"]]
                    assert [s["index"] for s in mine] == [state["seat"]]
                # A channel Discord does not show them gets no session.
                async with http.post(base + "/api/session",
                                     headers={**headers, "Authorization": f"Bearer {token}"},
                                     json={"channel_id": str(emu.channel.id + 999),
                                           "guild_id": str(emu.guild.id)}) as resp:
                    assert resp.status == 403
            await emu.settle()
            emu.take_errors()  # the unknown channel's 404 was the check's own question
            assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
            assert assert_web_views_hidden(bot.db_path, emu.channel.id, {bob.id: [state]}) == 1
            bot.assert_log_clean()
            assert emu.client_secret not in bot.log()
        except BaseException:
            print(f"--- bot log ---\n{bot.log()[-6000:]}")
            raise
        finally:
            await stop_quietly(bot)


async def _board(http: aiohttp.ClientSession, base: str, emu: Emulator, person: object
                 ) -> aiohttp.ClientWebSocketResponse:
    """``person``'s board of the emulator's channel, signed in as the page does."""
    headers = {"Origin": ORIGIN}
    async with http.post(base + "/api/token", headers=headers,
                         json={"code": emu.authorization_code(person)}) as resp:
        token = (await resp.json())["access_token"]
    async with http.post(base + "/api/session",
                         headers={**headers, "Authorization": f"Bearer {token}"},
                         json={"channel_id": str(emu.channel.id),
                               "guild_id": str(emu.guild.id)}) as resp:
        assert resp.status == 200, await resp.text()
        session = (await resp.json())["session"]
    ws = await http.ws_connect(base + "/api/ws", headers=headers)
    await ws.send_str(json.dumps({"type": "hello", "session": session,
                                  "channel_id": str(emu.channel.id), "version": None}))
    return ws


async def _next_state(ws: aiohttp.ClientWebSocketResponse, newer_than: int
                      ) -> dict[str, object]:
    while True:
        msg = json.loads((await ws.receive(timeout=10)).data)
        if msg["type"] == "state" and int(msg["version"]) > newer_than:
            return msg  # type: ignore[no-any-return]


async def _touch(ws: aiohttp.ClientWebSocketResponse, state: dict[str, object]
                 ) -> dict[str, object]:
    """Play the first enabled choice of ``state`` on the board, through its steps; the
    state it leads to."""
    menus: list[dict[str, object]] = state["menus"]  # type: ignore[assignment]
    version = state["version"]
    choices = [c for m in menus for c in m["choices"] if not c["disabled"]]  # type: ignore[attr-defined]
    code = choices[0]["code"]
    for request in range(1, 9):
        await ws.send_str(json.dumps({"type": "choose", "id": request, "version": version,
                                      "code": code}))
        while True:
            msg = json.loads((await ws.receive(timeout=10)).data)
            if msg["type"] in ("menu", "state", "refused"):
                break
        if msg["type"] == "state":
            return msg  # type: ignore[no-any-return]
        assert msg["type"] == "menu", msg
        code = next(c["code"] for c in msg["menu"]["choices"] if not c["disabled"])
    raise AssertionError("no move after eight steps")


def _board_uploads(emu: Emulator) -> int:
    return sum(1 for a in emu.uploaded if a.filename == "board.png")


async def test_moves_seen_in_the_activity_draw_no_channel_picture_until_someone_leaves(
        tmp_path: Path) -> None:
    """Both people at the table have the board open: their moves still reach the channel
    in words, with no picture (nobody outside the Activity would see it); once one of them
    closes the board, the next move brings the picture back."""
    async with Emulator(rate_limits=MACHINE_SPEED_LIMITS) as emu:
        port = free_port()
        bot = activity_bot(emu, tmp_path, port)
        try:
            await bot.start()
            alice, bob = emu.user("alice"), emu.user("bob")
            await alice.slash("/table new", game="fairy-tale-inn")
            await bob.slash("/table join")
            await alice.slash("/table start")
            await emu.wait_for(lambda: latest_with_buttons(emu), 10, "a turn message")
            await emu.settle()
            assert _board_uploads(emu) >= 1  # the start, before anyone opened the board
            base = f"http://127.0.0.1:{port}"
            async with aiohttp.ClientSession() as http:
                boards = [await _board(http, base, emu, p) for p in (alice, bob)]
                states = [await _next_state(ws, -1) for ws in boards]
                before, messages_before = _board_uploads(emu), len(emu.channel.visible)
                version = int(states[0]["version"])  # type: ignore[arg-type]
                for _ in range(4):
                    mover = next(i for i, s in enumerate(states) if s["menus"])
                    moved = await _touch(boards[mover], states[mover])
                    states = [moved if i == mover else await _next_state(ws, version)
                              for i, ws in enumerate(boards)]
                    version = int(states[0]["version"])  # type: ignore[arg-type]
                await emu.settle()
                assert _board_uploads(emu) == before  # four moves, no picture drawn
                # The channel still tells the moves, in words, for anyone reading along:
                # in one message edited in place (not a post and a strip per move).
                assert len(emu.channel.visible) == messages_before
                turn = emu.channel.visible[-1]
                assert turn.edits >= 1
                told = turn.content
                # The one not to act closes the board; the mover plays on in the Activity.
                mover = next(i for i, s in enumerate(states) if s["menus"])
                await boards[1 - mover].close()
                await emu.wait_for(lambda: "web board closed" in bot.log() or None, 10,
                                   "the server to see the board closed")
                await _touch(boards[mover], states[mover])
                await emu.wait_for(lambda: _board_uploads(emu) > before or None, 10,
                                   "the picture back in the channel")
                await emu.settle()
                # The moves the log had not told yet come with it, in order.
                last = emu.channel.visible[-1]
                assert last.attachments and last.content != told
                assert len(emu.channel.visible) == messages_before + 1
                await boards[mover].close()
            await emu.settle()
            assert_no_hidden_information(emu, bot.db_path, emu.channel.id)
            bot.assert_log_clean()
        except BaseException:
            print(f"--- bot log ---\n{bot.log()[-6000:]}")
            raise
        finally:
            await stop_quietly(bot)
