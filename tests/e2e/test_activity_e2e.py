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


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_open_the_board_launches_the_activity_and_the_board_plays(
        tmp_path: Path) -> None:
    async with Emulator(rate_limits=MACHINE_SPEED_LIMITS) as emu:
        port = free_port()
        bot = BotProcess(emu, tmp_path, WEB_PORT=str(port), WEB_HOST="127.0.0.1",
                         DISCORD_CLIENT_ID=str(emu.application_id),
                         DISCORD_CLIENT_SECRET=emu.client_secret, WEB_ORIGINS=ORIGIN,
                         WEB_SESSION_SECRET="")
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
