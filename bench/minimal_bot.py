"""The smallest discord.py bot that answers interactions: the baseline of bench/load.

It does no work at all: a component click is acknowledged with ``defer()`` (a deferred
update, the same first answer the real bot gives a move) and the one slash command,
``/ping``, answers ``ok`` ephemerally. Whatever first-response latency it shows under a
load is the cost of discord.py, the loopback emulator and the machine, not of Fabletop.

Configured like the real bot (tests/e2e/harness.py), only through its environment::

    DISCORD_TOKEN=... DISCORD_API_BASE=http://127.0.0.1:PORT/api/v10 \\
    DISCORD_GATEWAY_URL=ws://127.0.0.1:PORT/ .venv/bin/python -m bench.minimal_bot

bench/load.py starts it (MinimalProcess) against an emulator of its own.
"""

from __future__ import annotations

import logging
import os

import discord
import yarl
from discord import app_commands
from discord.gateway import DiscordWebSocket


def point_at_emulator() -> None:
    """The same two class attributes the real bot sets
    (bot.messages.client.apply_discord_endpoints)."""
    base, gateway = os.environ.get("DISCORD_API_BASE"), os.environ.get("DISCORD_GATEWAY_URL")
    if base:
        discord.http.Route.BASE = base  # type: ignore[misc]
    if gateway:
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)


class MinimalBot(discord.Client):
    def __init__(self) -> None:
        intents = discord.Intents.none()
        # as the real bot (bot.messages.client.intents): channels, no messages
        intents.guilds = True
        super().__init__(intents=intents)
        self.tree = app_commands.CommandTree(self)

        @self.tree.command(name="ping", description="Answer ok (only you see it)")
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("ok", ephemeral=True)

    async def setup_hook(self) -> None:
        # bench/load waits for a synced command before it starts the people, as BotProcess.
        await self.tree.sync()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        # Application commands are the tree's; every component click is acknowledged here,
        # whatever message it sits on (bench/load puts one button in each channel).
        if interaction.type is discord.InteractionType.component:
            await interaction.response.defer()


def main() -> int:
    point_at_emulator()
    MinimalBot().run(os.environ["DISCORD_TOKEN"], log_level=logging.INFO)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
