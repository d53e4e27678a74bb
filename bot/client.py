"""The Discord bot: one :class:`FabletopBot` per process.

On start (``setup_hook``) it opens the table service on the SQLite file, which
resumes every live table; registers the shared DynamicItem button and select so
buttons on old messages keep working; loads the cogs; and subscribes delivery to
the service's later news (AI moves, reminders). Slash commands are published only
when asked (``fabletop run --sync``, ``fabletop sync`` or ``/admin sync``), never on
every start: Discord rate-limits syncing and it is rarely needed.

Intents: only ``guilds`` (not privileged). Slash commands and buttons arrive as
interactions, which need no message-content or member intents.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.delivery import Delivery, DmMemory, Renderer
from bot.settings import Settings, apply_discord_endpoints
from bot.tables import EngineAgents, Outbox, TableService
from bot.ui.items import GameButton, GameSelect
from bot.ui.turns import TurnController

__all__ = [
    "COGS",
    "FabletopBot",
    "FabletopTree",
    "ShardedFabletopBot",
    "create_bot",
    "run_bot",
    "sync_commands_once",
]

log = logging.getLogger(__name__)

COGS = (
    "bot.cogs.lobby", "bot.cogs.inn", "bot.cogs.treasure", "bot.cogs.winter", "bot.cogs.admin",
)

INTERNAL_ERROR = "Something went wrong on my side; nothing was changed. Please try again."


def intents() -> discord.Intents:
    out = discord.Intents.none()
    out.guilds = True  # channel and thread metadata; not privileged
    return out


def user_message(error: BaseException) -> str | None:
    """The plain-English message of an expected error, else ``None``.

    TableError and the engine's GameError are both ValueErrors whose text is
    written for players."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, ValueError) and str(error):
        return str(error)
    if isinstance(error, app_commands.NoPrivateMessage):
        return "Tables live in server channels; use this command in a server."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You cannot use this command."
    if isinstance(error, app_commands.TransformerError | app_commands.CommandSignatureMismatch):
        return "I could not understand that command; try again (Discord may be updating it)."
    return None


async def reply_private(interaction: discord.Interaction, text: str) -> None:
    """An ephemeral answer whether or not the interaction was answered already."""
    with contextlib.suppress(discord.HTTPException):
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)


class FabletopTree(app_commands.CommandTree):
    """A command tree whose errors always end in a private, specific answer."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        message = user_message(error)
        if message is None:
            command = interaction.command.qualified_name if interaction.command else "?"
            log.error("command /%s failed", command, exc_info=error)
            message = INTERNAL_ERROR
        await reply_private(interaction, message)


class FabletopBot(commands.Bot):
    """The bot. ``service`` and ``renderer`` can be injected (tests); otherwise the
    service opens ``settings.database_path`` in :meth:`setup_hook`."""

    def __init__(
        self,
        settings: Settings,
        *,
        service: TableService | None = None,
        renderer: Renderer | None = None,
        sync_on_start: bool = False,
        start_reminders: bool = True,
        commands_only: bool = False,
    ) -> None:
        super().__init__(
            # No prefix commands: everything is a slash command or a button. A mention
            # prefix needs no message-content intent and is never registered with
            # commands, so it does nothing.
            command_prefix=commands.when_mentioned,
            intents=intents(),
            tree_cls=FabletopTree,
            help_command=None,
            owner_ids=set(settings.owner_ids) or None,
            allowed_mentions=discord.AllowedMentions(everyone=False, roles=False, users=True),
            **self.shard_options(settings),
        )
        self.settings = settings
        self.service: TableService | None = service
        self._owns_service = service is None
        self._service_to_close: TableService | None = None
        self._renderer = renderer
        self._sync_on_start = sync_on_start
        self._start_reminders = start_reminders
        self._commands_only = commands_only
        self.delivery: Delivery | None = None
        self.turns: TurnController | None = None
        self._unsubscribe: Any = None
        self._reminder_task: asyncio.Task[None] | None = None

    # -- lifecycle ---------------------------------------------------------------

    @staticmethod
    def shard_options(settings: Settings) -> dict[str, Any]:
        """One shard id: a plain client on that shard (see :class:`ShardedFabletopBot`
        for several)."""
        if not settings.sharded:
            return {}
        if len(settings.shard_ids) == 1:
            return {"shard_id": settings.shard_ids[0], "shard_count": settings.shard_count}
        return {}

    async def setup_hook(self) -> None:
        if self._commands_only:
            # `fabletop sync`: the command tree is all that is needed.
            await self.load_cogs()
            return
        if self.service is None:
            self.service = await TableService.open_sqlite(
                self.settings.database_path,
                reminder_minutes=self.settings.reminder_minutes,
                ai_delay=self.settings.ai_delay,
                # AI_BUDGET: MCTS iterations per move (agents without a budget ignore it)
                agents=EngineAgents(iterations=self.settings.ai_budget),
            )
            self._service_to_close = self.service
        else:
            await self.service.open()
        self.delivery = Delivery(
            self,
            self.service,
            renderer=self._renderer,
            dm_memory=DmMemory(self.settings.database_path if self._owns_service else None),
        )
        self.turns = TurnController(self.service, self.delivery)
        # Buttons on any earlier message (even before a restart) find their handler
        # by custom_id pattern; the table itself comes from the store.
        self.add_dynamic_items(GameButton, GameSelect)
        await self.load_cogs()
        self._unsubscribe = self.service.subscribe(self.on_table_news)
        if self._start_reminders and self.settings.reminder_minutes > 0:
            self._reminder_task = asyncio.create_task(
                self.service.run_reminders(), name="fabletop-reminders"
            )
        if self._sync_on_start:
            await self.sync_commands(self.settings.dev_guild_id)

    async def load_cogs(self) -> None:
        """Load every cog; one that fails is logged and skipped, so a broken game
        cannot keep the others (and the lobby) offline."""
        for cog in COGS:
            try:
                await self.load_extension(cog)
            except commands.ExtensionError:
                log.exception("cog %s did not load; its commands are unavailable", cog)

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self._reminder_task is not None:
            self._reminder_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reminder_task
            self._reminder_task = None
        service, self._service_to_close = self._service_to_close, None
        if service is not None:
            await service.close()
        await super().close()

    async def on_ready(self) -> None:
        log.info("connected as %s (%s) in %d guild(s)", self.user,
                 self.user.id if self.user else "?", len(self.guilds))

    # -- news from the service -----------------------------------------------------

    async def on_table_news(self, outbox: Outbox) -> None:
        """Outboxes made outside any interaction (AI moves, reminders)."""
        if self.delivery is None:
            return
        try:
            await self.delivery.deliver(outbox)
        except Exception:
            log.exception("delivering news of table %s failed", outbox.table_id)

    # -- commands --------------------------------------------------------------

    async def sync_commands(self, guild_id: int | None) -> list[app_commands.AppCommand]:
        """Publish the slash commands to ``guild_id`` (instant) or globally."""
        if guild_id is not None:
            guild = discord.Object(guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to guild %s", len(synced), guild_id)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))
        return synced


class ShardedFabletopBot(FabletopBot, commands.AutoShardedBot):
    """Several shards in one process (``SHARD_IDS`` lists more than one, or none)."""

    @staticmethod
    def shard_options(settings: Settings) -> dict[str, Any]:
        out: dict[str, Any] = {"shard_count": settings.shard_count}
        if settings.shard_ids:
            out["shard_ids"] = settings.shard_ids
        return out


def create_bot(settings: Settings, **kwargs: Any) -> FabletopBot:
    """The right bot class for the settings' sharding."""
    if settings.sharded and len(settings.shard_ids) != 1:
        return ShardedFabletopBot(settings, **kwargs)
    return FabletopBot(settings, **kwargs)


async def run_bot(settings: Settings, *, sync: bool = False) -> int:
    """Run the bot until interrupted; returns an exit code."""
    apply_discord_endpoints(settings)
    bot = create_bot(settings, sync_on_start=sync)
    loop = asyncio.get_running_loop()
    # SIGTERM (systemd, docker stop) closes the bot cleanly: the gateway, the AI tasks
    # and the database. Every move is already committed when it is accepted.
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
        loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    try:
        async with bot:
            await bot.start(settings.token)
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN in your .env")
        return 1
    except discord.PrivilegedIntentsRequired:
        log.error("the bot asked for an intent that is not enabled in the developer portal")
        return 1
    return 0


async def sync_commands_once(settings: Settings, *, guild_id: int | None) -> int:
    """Log in over REST only, publish the commands, and exit (``fabletop sync``)."""
    apply_discord_endpoints(settings)
    bot = create_bot(settings, start_reminders=False, commands_only=True)
    try:
        async with bot:
            await bot.login(settings.token)
            synced = await bot.sync_commands(guild_id)
            where = f"guild {guild_id}" if guild_id else "globally (may take up to an hour)"
            print(f"Synced {len(synced)} commands {where}.")
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN in your .env")
        return 1
    except discord.HTTPException as exc:
        log.error("syncing failed: %s", exc)
        return 1
    return 0
