"""The Activity's Entry Point command: declared with the other commands in one bulk
overwrite, checked by the emulator against Discord's OpenAPI description and rules
(one per app, global only, a handler; an overwrite may not drop it: 50240)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.core.settings import Settings
from bot.messages.client import sync_commands_once
from bot.messages.ui import activity
from tests.emulator import Emulator, discord_pointed_at
from tests.emulator.server import CANNOT_REMOVE_ENTRY_POINT, PRIMARY_ENTRY_POINT


def settings(emu: Emulator, tmp_path: Path, *, web: bool) -> Settings:
    extra = {"WEB_PORT": "8080", "DISCORD_CLIENT_ID": str(emu.application_id),
             "DISCORD_CLIENT_SECRET": emu.client_secret} if web else {}
    return Settings(_env_file=None, DISCORD_TOKEN=emu.token,  # type: ignore[arg-type]
                    DATABASE_PATH=str(tmp_path / "c.db"), **extra)


def entry_points(emu: Emulator) -> list[dict[str, Any]]:
    return [c for c in emu.global_commands.values() if c["type"] == PRIMARY_ENTRY_POINT]


async def put(emu: Emulator, path: str, body: Any) -> int:
    async with aiohttp.ClientSession() as http, http.put(
            f"{emu.api_base}{path}", json=body,
            headers={"Authorization": f"Bot {emu.token}"}) as resp:
        return resp.status


async def test_the_entry_point_goes_out_with_the_commands_and_is_kept(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    try:
        async with Emulator(rate_limits=None) as emu:
            with discord_pointed_at(emu):
                assert await sync_commands_once(settings(emu, tmp_path, web=True),
                                                guild_id=None) == 0
                assert entry_points(emu) == [
                    {**entry_points(emu)[0], "name": "launch", "handler": 2}]
                assert "table" in {c["name"] for c in emu.global_commands.values()}
                emu.assert_clean()  # every body passed the OpenAPI description
                # Without WEB_PORT the bot would drop it; Discord refuses that (50240),
                # so the bot keeps the one there is, and says so.
                caplog.set_level(logging.WARNING)
                assert await sync_commands_once(settings(emu, tmp_path, web=False),
                                                guild_id=None) == 0
                assert [e.code for e in emu.take_errors()] == [CANNOT_REMOVE_ENTRY_POINT]
                assert len(entry_points(emu)) == 1 and "Entry Point" in caplog.text
                assert "table" in {c["name"] for c in emu.global_commands.values()}
    finally:
        activity.configure(False)


async def test_the_emulator_holds_entry_points_to_discords_rules(tmp_path: Path) -> None:
    async with Emulator(rate_limits=None) as emu:
        app, guild = emu.application_id, emu.guild.id
        entry = activity.entry_point_command()
        chat = {"name": "hello", "description": "Say hello", "type": 1}
        assert await put(emu, f"/applications/{app}/commands", [chat, entry]) == 200
        assert len(entry_points(emu)) == 1
        assert await put(emu, f"/applications/{app}/commands", [chat]) == 400
        errors = emu.take_errors()
        assert [e.code for e in errors] == [CANNOT_REMOVE_ENTRY_POINT]
        assert len(entry_points(emu)) == 1  # nothing of the refused overwrite happened
        refused = [
            (f"/applications/{app}/guilds/{guild}/commands", [entry]),  # global only
            (f"/applications/{app}/commands", [chat, {**entry, "handler": None}]),
            (f"/applications/{app}/commands", [{**chat, "handler": 2}, entry]),
            (f"/applications/{app}/commands", [entry, {**entry, "name": "other"}]),
            (f"/applications/{app}/commands", [chat, {**entry, "handler": 7}]),  # the spec
        ]
        for path, body in refused:
            assert await put(emu, path, body) == 400, body
        assert len(emu.take_errors()) == len(refused)
        assert entry_points(emu)[0]["handler"] == 2


async def test_the_board_button_only_when_served_and_where_there_is_room() -> None:
    import discord

    from bot.messages.ui.items import GameButton

    activity.configure(False)
    assert activity.with_board_button(None, "t1", 3) is None
    activity.configure(True)
    try:
        view = activity.with_board_button(None, "t1", 3)
        assert view is not None
        assert [getattr(c, "custom_id", None) for c in view.children] == ["ft:t1:3:activity"]
        full = discord.ui.View(timeout=None)
        for i in range(25):
            full.add_item(GameButton("t1", 3, f"a{i}", label=str(i)))
        same = activity.with_board_button(full, "t1", 3)
        assert same is full and len(full.children) == 25  # the game's choices come first
    finally:
        activity.configure(False)
