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
import ctypes
import ctypes.util
import gc
import logging
import re
import secrets
import signal
import socket
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import discord
import discord.http
import yarl
from discord import app_commands
from discord.ext import commands
from discord.gateway import DiscordWebSocket

from bot.core.collector import Collector
from bot.core.settings import Settings
from bot.core.store import StoreUnwritable
from bot.core.tables import Outbox, TableService, UserError
from bot.messages import gateway_turns
from bot.messages.clicks import TurnController
from bot.messages.delivery import Delivery, Renderer
from bot.messages.render_pool import RenderPool
from bot.messages.replies import UNSAVED, apology, expired, private, unsaved
from bot.messages.ui import activity
from bot.messages.ui.forms import FORM_TEMPLATE, form_text
from bot.messages.ui.ids import BUTTON_TEMPLATE, SELECT_TEMPLATE
from bot.messages.ui.items import GameButton, GameSelect
from engines.catalog import specs

__all__ = [
    "CORE_COGS",
    "Companion",
    "FabletopBot",
    "FabletopTree",
    "ShardedFabletopBot",
    "apology",
    "cogs",
    "create_bot",
    "run_bot",
    "sync_commands_once",
]

log = logging.getLogger(__name__)

CORE_COGS = ("bot.messages.cogs.lobby", "bot.messages.cogs.admin", "bot.messages.cogs.history")
"""The cogs every bot has; each game adds its own (``GameSpec.cog``)."""

OUTBOX_LEASE = 30.0
"""Seconds a process holds an undelivered outbox it claimed before another may (short:
a process killed while delivering holds its claims this long, and a second delivery is
harmless, its messages carry nonces)."""
UNKNOWN_COMPONENT = "I do not understand this button or menu; nothing was changed."
UNKNOWN_FORM = "I do not know this form; nothing was changed."

CANNOT_REMOVE_ENTRY_POINT = 50240
"""Discord's refusal of a bulk overwrite of the global commands that leaves out the
app's Entry Point command."""

Companion = Callable[[TableService, "FabletopBot"], Awaitable[Callable[[], Awaitable[None]]]]
"""Another front-end started beside the bot on its table service, in its event loop (the
Activity's web server, wired by ``bot.cli``): called once the service is open and the
bot's delivery listens; returns what stops it (called when the bot closes)."""

_BUTTON = re.compile(BUTTON_TEMPLATE)
_SELECT = re.compile(SELECT_TEMPLATE)


def cogs() -> tuple[str, ...]:
    """The extensions to load: the core ones, then each declared game's."""
    return (*CORE_COGS, *(s.cog for s in specs() if s.cog))


def intents() -> discord.Intents:
    out = discord.Intents.none()
    out.guilds = True  # channel and thread metadata; not privileged
    return out


def user_message(error: BaseException) -> str | None:
    """The plain-English message of an expected error, else ``None``.

    Only a :class:`~engines.core.UserError` (the service's and the engine's errors, a
    cog's refusal) carries text written for players; any other error is ours."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, UserError) and str(error):
        return str(error)[:2000]
    if isinstance(error, app_commands.NoPrivateMessage):
        return "Tables live in server channels; use this command in a server."
    if isinstance(error, app_commands.CheckFailure):
        return str(error) or "You cannot use this command."
    if isinstance(error, app_commands.CommandNotFound):
        return ("That command is not one of mine any more (Discord may still be updating "
                "its list): type / to see the commands there are.")
    if isinstance(error, app_commands.TransformerError | app_commands.CommandSignatureMismatch):
        return "I could not understand that command; try again (Discord may be updating it)."
    return None


class FabletopTree(app_commands.CommandTree):
    """A command tree whose errors always end in a private, specific answer."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        if expired(error):
            name = interaction.command.qualified_name if interaction.command else "?"
            log.warning("/%s: the interaction expired before it was answered", name)
            return
        message = UNSAVED if unsaved(error) else user_message(error)
        if message is None:
            command = interaction.command.qualified_name if interaction.command else "?"
            original = getattr(error, "original", error)
            message = apology(original, f"command /{command}")
        await private(interaction, message)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        """Every option must be of the type its command declares: a client may send
        anything (a number for a text option, say), and a command must never see it.
        Then a command whose answer is private is acknowledged privately at once."""
        problem = wrong_option(interaction)
        if problem is not None:
            raise app_commands.CheckFailure(problem)
        command = interaction.command
        if (interaction.type is discord.InteractionType.application_command
                and isinstance(command, app_commands.Command)
                and command.extras.get("answer") != "at once"):
            # Acknowledged before the command reads a table: a busy store or table lock
            # must never eat Discord's 3 seconds (see bot.messages.replies.AT_ONCE).
            try:
                await interaction.response.defer(ephemeral=True, thinking=True)
            except discord.NotFound as error:
                if not expired(error):
                    raise
                # Too late to answer at all: discord.py's invoker only routes an
                # AppCommandError to on_error, so this would end as "Task exception
                # was never retrieved". Nothing ran and nobody can be told: a warning,
                # as for a click in the same state (TurnController.fail).
                log.warning("/%s: the interaction expired before it was answered",
                            command.qualified_name)
                return False
        return True


_OPTION_TYPES = {
    discord.AppCommandOptionType.string: (str,),
    discord.AppCommandOptionType.integer: (int,),
    discord.AppCommandOptionType.number: (int, float),
    discord.AppCommandOptionType.boolean: (bool,),
}


def wrong_option(interaction: discord.Interaction) -> str | None:
    """Why an option of this command invocation cannot be read, or ``None``."""
    command = interaction.command
    if interaction.type is not discord.InteractionType.application_command or not isinstance(
            command, app_commands.Command):
        return None  # autocomplete reads what is typed so far, whatever its type
    declared = {p.name: p.type for p in command.parameters}
    data: Any = interaction.data or {}
    options = list(data.get("options") or [])
    while options and options[0].get("type") in (1, 2):  # subcommand (group)
        options = list(options[0].get("options") or [])
    for option in options:
        name = str(option.get("name", ""))
        kind = declared.get(name)
        if kind is None:
            continue
        wanted = _OPTION_TYPES.get(kind)
        value = option.get("value")
        if option.get("focused"):
            continue
        if wanted is not None and (not isinstance(value, wanted)
                                   or (bool not in wanted and isinstance(value, bool))):
            return f"I could not read the option `{name[:32]}`: it should be {_WORDS[kind]}."
    return None


_WORDS = {
    discord.AppCommandOptionType.string: "text",
    discord.AppCommandOptionType.integer: "a whole number",
    discord.AppCommandOptionType.number: "a number",
    discord.AppCommandOptionType.boolean: "true or false",
}


def apply_discord_endpoints(settings: Settings) -> None:
    """Point discord.py at another REST base and gateway (the loopback Discord
    emulator of the end-to-end tests uses this). Process-wide: discord.py keeps both
    as class attributes. Does nothing when neither is set."""
    if settings.discord_api_base:
        discord.http.Route.BASE = settings.discord_api_base
    if settings.discord_gateway_url:
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


def instance_identity(settings: Settings) -> str:
    """Which bot instance this is, the same across its restarts: the machine and the
    shards it runs (two instances of a cluster never share both)."""
    shards = ",".join(str(i) for i in settings.shard_ids) or "all"
    return f"{socket.gethostname()}/{shards}of{settings.shard_count or 1}"


def _trim_heap() -> None:
    """Give the heap's free pages back to the system after the catch-up read every table
    once (glibc's ``malloc_trim``; a no-op where there is none)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


class FabletopBot(commands.Bot):
    """The bot. ``service`` and ``renderer`` can be injected (tests); otherwise the
    service opens ``settings.database`` in :meth:`setup_hook`."""

    def __init__(
        self,
        settings: Settings,
        *,
        service: TableService | None = None,
        renderer: Renderer | None = None,
        sync_on_start: bool = False,
        start_reminders: bool = True,
        commands_only: bool = False,
        alongside: Sequence[Companion] = (),
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
        self._alongside = tuple(alongside)
        self._stops: list[Callable[[], Awaitable[None]]] = []
        # The turn message's "Open the board" button, when this bot serves the Activity.
        activity.configure(settings.activity)
        self.delivery: Delivery | None = None
        self._pool: RenderPool | None = None
        self.turns: TurnController | None = None
        self._unsubscribe: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._identity = instance_identity(settings)
        self._owner = f"{self._identity}:{secrets.token_hex(6)}"
        """This run's name when it claims an outbox or plays a table's AI: its
        instance's identity (a restart keeps it), then a token of this run."""

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
            # DATABASE_URL (PostgreSQL) or DATABASE_PATH (SQLite); AI_BUDGET: MCTS
            # iterations per move (agents without a budget ignore it).
            self.service = await TableService.from_settings(self.settings)
            self._service_to_close = self.service
        else:
            await self.service.open()
        # What a killed earlier run of this instance still held (outbox claims, AI
        # leases) is taken back now rather than when it expires.
        self.service.owner = f"{self._owner}:ai"
        try:
            freed = await self.service.store.release_claims(f"{self._identity}:")
        except StoreUnwritable:
            freed = 0  # the store said why, once; the claims run out by themselves
        except Exception:
            log.exception("could not take back the claims of an earlier run")
        else:
            if freed:
                log.info("took back %d claim(s) an earlier run of this instance held", freed)
        # The limits on open tables are the bot's policy, not the service's (the
        # console and the tests run a bare service without them).
        self.service.max_tables_per_member = self.settings.max_tables_per_member
        self.service.max_tables_per_guild = self.settings.max_tables_per_guild
        if self._renderer is None and self.settings.render_workers != 0:
            # The shipped renderers draw in worker processes, started now so the first
            # picture does not wait for their imports.
            self._pool = RenderPool(self.settings.render_workers)
            self._pool.start()
        self.delivery = Delivery(self, self.service.store, renderer=self._renderer,
                                 pool=self._pool, turns=self.service.turns,
                                 requests_per_second=self.settings.requests_share)
        if self.settings.activity:
            # Who has a board open in the Activity (any process's): their moves need no
            # picture in Discord.
            self.delivery.pictures.watching = self.service.presence.watching
        self.turns = TurnController(self.service, self.delivery)
        # Buttons on any earlier message (even before a restart) find their handler
        # by custom_id pattern; the table itself comes from the store.
        self.add_dynamic_items(GameButton, GameSelect)
        await self.load_cogs()
        self._unsubscribe = self.service.subscribe(self.on_table_news)
        for start in self._alongside:
            self._stops.append(await start(self.service, self))
        if self._start_reminders:
            if self.settings.reminder_minutes > 0:
                self._tasks.append(asyncio.create_task(
                    self.service.run_reminders(), name="fabletop-reminders"))
            self._tasks.append(asyncio.create_task(
                self.service.run_auto_passes(poll_seconds=2.0), name="fabletop-timeouts"))
        self._tasks.append(asyncio.create_task(self.catch_up(), name="fabletop-catch-up"))
        if self._start_reminders:
            self._tasks.append(asyncio.create_task(self.sweep(), name="fabletop-outbox-sweep"))
        if self._sync_on_start and self.settings.syncs_commands:
            await self.sync_commands(self.settings.dev_guild_id)
        elif self._sync_on_start:
            log.info("not syncing commands: in a cluster the process running shard 0 "
                     "does it (this one runs shards %s)", self.settings.shard_ids)

    async def deliver_undelivered(self, older_than: float = 0.0) -> int:
        """Deliver the outboxes committed but not delivered (a process killed between
        the commit and the reply, a Discord outage), oldest first, each claimed so that
        one process delivers it. Returns how many went out."""
        assert self.service is not None and self.delivery is not None
        store = self.service.store
        cutoff = discord.utils.utcnow() - timedelta(seconds=older_than)
        sent = 0
        for record in await store.undelivered_outboxes():
            if record.created_at > cutoff:
                continue  # still on its way through this or another process
            try:
                claimed = await store.claim_outbox(record.id, self._owner, OUTBOX_LEASE)
            except StoreUnwritable:
                # Delivered without its claim it could not be marked done either: it
                # waits, with the rest, for the sweep after the database is writable.
                break
            if not claimed:
                continue
            outbox = Outbox.from_json(record.payload, record.id)
            try:
                await self.delivery.deliver(await self.service.rehydrate(outbox), repeat=True)
                sent += 1
            except StoreUnwritable:
                break  # the store said why, once: the sweep tries again
            except Exception:
                log.exception("delivering outbox %s failed; it will be tried again", record.id)
        return sent

    async def sweep(self, every: float = 30.0) -> None:
        """Background loop: outboxes left undelivered for a minute go out again."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.deliver_undelivered(older_than=OUTBOX_LEASE)
            except Exception:
                log.exception("the outbox sweep failed")

    async def catch_up(self) -> None:
        """After a start: deliver every outbox a previous run committed but did not get
        out; then take stale buttons off turn and hand messages."""
        assert self.service is not None and self.delivery is not None
        # REST is enough to post and edit: no need to wait for the gateway.
        try:
            await self.deliver_undelivered()
            for table_id in await self.service.live_table_ids():
                snapshot = await self.service.table_snapshot(table_id)
                if snapshot is not None:
                    await self.delivery.resync(snapshot)
                    del snapshot
                # One table's state and views at a time: held for all at once, the
                # memory stays with the process (the allocator keeps its arenas).
                self.service.shed_table(table_id)
            _trim_heap()
        except Exception:
            log.exception("catching up after the start failed")
        # Every table has just been read and looked at once; most will wait for somebody
        # for a long while: keep only their small records until then.
        self.service.shed_idle(0)
        # What start-up made (modules, cogs, the command tree, fonts) lives as long as
        # the bot: out of the cyclic collector's sight, a full collection no longer
        # walks it while clicks wait.
        gc.freeze()

    async def load_cogs(self) -> None:
        """Load every cog; one that fails is logged and skipped, so a broken game
        cannot keep the others (and the lobby) offline."""
        for cog in cogs():
            try:
                await self.load_extension(cog)
            except commands.ExtensionError:
                log.exception("cog %s did not load; its commands are unavailable", cog)

    async def close(self) -> None:
        # The other front-ends first: nothing of theirs may call a closed service.
        while self._stops:
            stop = self._stops.pop()
            try:
                await stop()
            except Exception:
                log.exception("stopping a front-end beside the bot failed")
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        service, self._service_to_close = self._service_to_close, None
        if service is not None:
            await service.close()
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        await super().close()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Every form submission is answered here from its custom_id (nothing of it is
        kept in memory, so restarts do not matter), and every component interaction
        no button or select of ours would take gets an answer too."""
        if self.delivery is not None:
            # Its token may carry the messages its move leads to (bot/messages/delivery).
            self.delivery.tokens.note(interaction)
        data: Any = interaction.data or {}
        custom_id = str(data.get("custom_id", ""))
        if interaction.type is discord.InteractionType.modal_submit:
            match = FORM_TEMPLATE.fullmatch(custom_id)
            if match is None or self.turns is None:
                await private(interaction, UNKNOWN_FORM)
                return
            await self.turns.handle_form(interaction, match["table"], int(match["version"]),
                                         match["code"], form_text(data))
        elif interaction.type is discord.InteractionType.component:
            known = (_BUTTON.fullmatch(custom_id) or _SELECT.fullmatch(custom_id)) is not None
            if not known or not _on_message(interaction, custom_id):
                await private(interaction, UNKNOWN_COMPONENT)

    async def on_ready(self) -> None:
        log.info("connected as %s (%s) in %d guild(s)", self.user,
                 self.user.id if self.user else "?", len(self.guilds))

    # -- news from the service -----------------------------------------------------

    def on_table_news(self, outbox: Outbox) -> Awaitable[None] | None:
        """Outboxes made outside any interaction (AI moves, reminders). The outbox
        holds its place in its table's order at once, before anything waits (the
        service may hand over the next one before this one is delivered)."""
        if self.delivery is None:
            return None
        self.delivery.expect(outbox)
        return self._deliver_news(outbox)

    async def _deliver_news(self, outbox: Outbox) -> None:
        assert self.delivery is not None
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
            synced = await self._sync_global()
            log.info("synced %d global commands", len(synced))
        return synced

    async def _sync_global(self) -> list[app_commands.AppCommand]:
        """The global commands, with the Activity's Entry Point command when this bot
        serves the Activity (discord.py's tree does not model its type: it goes in the
        same bulk overwrite). Discord refuses an overwrite that leaves out an Entry
        Point it has (50240): then the one it has is kept, and said so."""
        entry = activity.entry_point_command() if self.settings.activity else None
        if entry is None:
            try:
                return await self.tree.sync()
            except discord.HTTPException as exc:
                if exc.code != CANNOT_REMOVE_ENTRY_POINT:
                    raise
            assert self.application_id is not None
            existing = await self.http.get_global_commands(self.application_id)
            entry = next(({k: v for k, v in c.items() if k in _ENTRY_POINT_FIELDS}
                          for c in existing if c.get("type") == 4), None)
            log.warning("Discord keeps this app's Entry Point command (Activities are on "
                        "in the developer portal) although WEB_PORT is not set: it stays")
            if entry is None:
                raise
        if self.application_id is None:
            raise app_commands.MissingApplicationID
        tree = self.tree
        commands_ = tree._get_all_commands(guild=None)
        translator = tree.translator
        if translator:
            payload = [await c.get_translated_payload(tree, translator) for c in commands_]
        else:
            payload = [c.to_dict(tree) for c in commands_]
        try:
            data = await self.http.bulk_upsert_global_commands(
                self.application_id, payload=[*payload, entry])
        except discord.HTTPException as exc:
            if exc.status == 400 and exc.code == 50035:
                raise app_commands.CommandSyncFailure(exc, commands_) from None
            raise
        return [app_commands.AppCommand(data=d, state=self._connection)
                for d in data if d.get("type") != 4]

    async def can_view_channel(self, user_id: int, channel_id: int,
                               guild_id: int | None) -> bool:
        """Whether ``user_id`` may see ``channel_id`` (a server's channel or thread):
        the Activity shows a channel's table only to those who can read the channel.
        One member read over REST per check (no members intent), at a board's sign-in."""
        try:
            channel = self.get_channel(channel_id) or await self.fetch_channel(channel_id)
        except (discord.NotFound, discord.Forbidden):
            return False
        guild = getattr(channel, "guild", None)
        if guild is None or (guild_id is not None and guild.id != guild_id):
            return False
        try:
            member = guild.get_member(user_id) or await guild.fetch_member(user_id)
        except (discord.NotFound, discord.Forbidden):
            return False
        return bool(channel.permissions_for(member).view_channel)  # type: ignore[union-attr]


_ENTRY_POINT_FIELDS = ("id", "name", "type", "handler", "description", "integration_types",
                       "contexts", "name_localizations", "description_localizations")


def _on_message(interaction: discord.Interaction, custom_id: str) -> bool:
    """Whether the clicked component is on the message (discord.py only dispatches a
    dynamic item it finds there)."""
    message = interaction.message
    if message is None:
        return False
    stack: list[Any] = list(message.components)
    while stack:
        item = stack.pop()
        if getattr(item, "custom_id", None) == custom_id:
            return True
        stack.extend(getattr(item, "children", []) or [])
    return False


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


async def run_bot(settings: Settings, *, sync: bool = False,
                  alongside: Sequence[Companion] = ()) -> int:
    """Run the bot until interrupted; returns an exit code. ``alongside``: front-ends
    started on the bot's table service once it is open (the Activity's web server)."""
    apply_discord_endpoints(settings)
    collector = Collector()  # full collections on the clock: bot/core/collector.py
    collector.install()
    gateway_turns.install()  # a burst of gateway events yields to the acknowledgements
    refresh = asyncio.create_task(collector.run(), name="fabletop-full-collections")
    # Fabletop has no voice: discord.py's warnings about voice libraries are noise at
    # every start.
    discord.VoiceClient.warn_nacl = False
    if hasattr(discord.VoiceClient, "warn_dave"):
        discord.VoiceClient.warn_dave = False
    bot = create_bot(settings, sync_on_start=sync, alongside=alongside)
    loop = asyncio.get_running_loop()
    # SIGTERM (systemd, docker stop) closes the bot cleanly: the gateway, the AI tasks
    # and the database. Every move is already committed when it is accepted.
    with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
        loop.add_signal_handler(signal.SIGTERM, lambda: loop.create_task(bot.close()))
    try:
        async with bot:
            await bot.start(settings.token)
    except discord.LoginFailure:
        return _fail(_REFUSED_TOKEN)
    except discord.PrivilegedIntentsRequired:
        return _fail("fabletop: the bot asked for an intent that is not enabled in the "
                     "developer portal (Bot -> Privileged Gateway Intents).")
    except OSError as exc:  # no network, DNS, a refused connection (aiohttp's are OSErrors)
        return _fail(_unreachable(settings, exc))
    except StoreUnwritable as exc:
        # Only a database without its whole schema stops the start: one that has it
        # opens unwritable, and the store's log line says what is wrong.
        where = "PostgreSQL" if settings.database_url else str(settings.database_path)
        return _fail(f"fabletop: the database {where} cannot be written "
                     f"({exc.reason}), and it must be to set up its tables. Free space on "
                     "its disk (or make it writable) and start again.")
    finally:
        refresh.cancel()
        collector.uninstall()
    return 0


_REFUSED_TOKEN = (
    "fabletop: Discord refused the token. Reset it in the developer portal (your "
    "application -> Bot -> Reset Token) and paste it after DISCORD_TOKEN= in your .env."
)


def _unreachable(settings: Settings, exc: BaseException) -> str:
    where = settings.discord_api_base or "discord.com"
    reason = " ".join(str(exc).split()) or type(exc).__name__
    return (f"fabletop: cannot reach Discord at {where} ({reason[:200]}). Check this "
            "machine's network connection"
            + (" and DISCORD_API_BASE in your .env." if settings.discord_api_base else "."))


def _fail(line: str) -> int:
    """One plain line for the person who started the bot, instead of a traceback."""
    print(line, file=sys.stderr)
    return 1


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
        return _fail(_REFUSED_TOKEN)
    except discord.HTTPException as exc:
        return _fail(f"fabletop: syncing failed: {exc}")
    except OSError as exc:
        return _fail(_unreachable(settings, exc))
    return 0
