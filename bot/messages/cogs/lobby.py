"""``/table ...`` (open, join, start, hand over seats), ``/hand``, ``/rules`` and ``/help``.

Thin by design: each command parses its options, calls the table service and hands
the outbox to delivery. Service and engine errors are UserErrors with a message for
the player; the command tree's error handler shows them privately.
"""

from __future__ import annotations

import io
import logging
import math
import re
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.choices import get_ui
from bot.core.tables import NoTable, TableInfo, TableService, TableStatus, UnknownGame, UserError
from bot.core.tables.lobby import MAX_REMINDER_MINUTES
from bot.messages.clicks import ANNOUNCE_FAILED
from bot.messages.cogs.common import (
    Cooldown,
    delivery_of,
    display_name,
    game_autocomplete,
    match_game,
    parse_options,
    service_of,
)
from bot.messages.cogs.history import history_text
from bot.messages.delivery import CANNOT_POST
from bot.messages.lobby_clicks import lobby_text, lobby_view
from bot.messages.replays import channel_replay
from bot.messages.replies import AT_ONCE, acknowledge, log_fault, private
from bot.messages.threads import can_hold_threads, close_starter, missing_permissions, open_thread
from bot.messages.ui.items import build_view
from bot.messages.ui.texts import literal, quote
from engines import get_game
from engines.catalog import RulesSummary, has_hands, specs

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

__all__ = ["Guide", "Lobby", "load_rules", "rules_text", "setup"]

log = logging.getLogger(__name__)



# --------------------------------------------------------------------------- rules


def load_rules() -> dict[str, RulesSummary]:
    """The ``/rules`` summary of every game that can be played here (each from its
    game's declaration): a game that is not playable is not listed."""
    playable = {game_id for game_id, _name in TableService.games()}
    out = {}
    for declared in specs():
        if declared.id not in playable:
            continue
        try:
            summary = declared.rules_summary()
        except Exception:
            log.exception("the rules summary of %s does not load", declared.id)
            continue
        if summary is not None:
            out[declared.id] = summary
    return out


def rules_text(game_id: str) -> str:
    rules = load_rules().get(game_id)
    if rules is None:
        known = ", ".join(r.name for r in load_rules().values())
        raise UnknownGame(f"I have no rules summary for '{quote(game_id, 40)}'. Games: {known}.")
    steps = "\n".join(f"{i}. {step}" for i, step in enumerate(rules.turn, 1))
    return (
        f"## {rules.name}\n"
        f"**Players:** {rules.players}\n"
        f"**Goal:** {rules.goal}\n"
        f"**A turn:**\n{steps}\n"
        f"**Playing here:** {rules.play_here}\n"
        f"**Full rules:** {rules.full_rules}"
    )


# --------------------------------------------------------------------------- autocomplete


REPLAY_COOLDOWN = 60.0
"""Seconds between two replays one member asks for in one channel."""

CANNOT_LOBBY = (
    "I could not post the lobby message in this channel, so nobody can see its Join and "
    "Start buttons. Please give me View Channel, Send Messages and Read Message History "
    "here; `/table join` and `/table start` work meanwhile."
)


async def rules_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    low = str(current).lower()
    return [
        app_commands.Choice(name=r.name, value=game_id)
        for game_id, r in load_rules().items()
        if low in r.name.lower() or low in game_id
    ][:25]


_OPTION_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=")


def option_suggestions(game_id: str, current: str) -> list[str]:
    """``current`` plus one more ``name=value`` per option of the game not yet given
    (booleans suggested flipped from their default, numbers at their default)."""
    from engines import get_game

    try:
        fields = get_game(game_id).Options.model_fields
    except Exception:
        return []
    base = current.strip()
    given = set(_OPTION_KEY.findall(base))
    out = [base] if base else []
    for name, field in fields.items():
        if name in given:
            continue
        default = field.get_default(call_default_factory=True)
        if isinstance(default, bool):
            pair = f"{name}={'false' if default else 'true'}"
        elif isinstance(default, int | float):
            pair = f"{name}={default}"
        elif default is None:
            pair = f"{name}="
        else:
            continue  # lists and the like are not typed on one line
        out.append(f"{base} {pair}".strip())
    return [s for s in out if len(s) <= 100][:25]


async def options_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    try:
        game_id = match_game(str(getattr(interaction.namespace, "game", "") or ""))
    except ValueError:
        return []
    own = get_ui(game_id).option_suggestions(str(current))
    if own is not None:
        return [app_commands.Choice(name=label[:100], value=value[:100])
                for label, value in own[:25]]
    return [app_commands.Choice(name=s, value=s) for s in option_suggestions(game_id, current)]


async def level_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    service = getattr(interaction.client, "service", None)
    if service is None or interaction.channel_id is None:
        return []
    try:
        info = await service.status(interaction.channel_id)
    except ValueError:
        return []
    return [
        app_commands.Choice(name=level, value=level)
        for level in service.ai_levels(info.game_id)
        if current.lower() in level.lower()
    ][:25]


def _public_top_level(tree: app_commands.CommandTree) -> list[Any]:
    return sorted(
        (c for c in tree.get_commands() if c.name != "admin"), key=lambda c: c.name
    )


async def help_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    tree = interaction.client.tree  # type: ignore[attr-defined]
    return [
        app_commands.Choice(name=c.name, value=c.name)
        for c in _public_top_level(tree)
        if isinstance(c, app_commands.Group) and current.lower() in c.name
    ][:25]


# --------------------------------------------------------------------------- helpers


def _channel(interaction: discord.Interaction) -> int:
    if interaction.channel_id is None:  # pragma: no cover - Discord always sends it
        raise NoTable()
    return interaction.channel_id


def _can_manage(interaction: discord.Interaction) -> bool:
    return bool(interaction.permissions.manage_channels)


async def _deliver_outbox(interaction: discord.Interaction, outbox: Any, ack: str) -> None:
    """Post the outbox's public news in the channel and answer the caller privately."""
    try:
        posted = await delivery_of(interaction).deliver(outbox, interaction=interaction)
        answer = ack if posted else CANNOT_POST
    except Exception as exc:  # the change is committed: never answer "nothing was changed"
        ref = log_fault(exc, f"announcing table {outbox.table_id}")
        answer = f"Done. {ANNOUNCE_FAILED} (Reference {ref}.)"
    await interaction.followup.send(answer, ephemeral=True)


# --------------------------------------------------------------------------- /table


@app_commands.guild_only()
class Lobby(commands.GroupCog, group_name="table", group_description="Open and run a game table"):
    """The lobby: one table per channel or thread."""

    def __init__(self, bot: FabletopBot) -> None:
        self.bot = bot
        # A replay costs seconds of drawing: one per member and channel a minute.
        self.replays = Cooldown(REPLAY_COOLDOWN)
        super().__init__()

    @app_commands.command(name="new", description="Open a game table in this channel")
    @app_commands.describe(
        game="Which game to play",
        options="Game options as name=value pairs (see /rules)",
        reminder_minutes="Ping the player after this many idle minutes (0 = never)",
        thread="Play in a new thread of this channel (default: the server's choice, "
               "/table threads)",
    )
    @app_commands.autocomplete(game=game_autocomplete, options=options_autocomplete)
    async def new(
        self,
        interaction: discord.Interaction,
        game: str,
        options: str | None = None,
        reminder_minutes: app_commands.Range[float, 0.0, MAX_REMINDER_MINUTES] | None = None,
        thread: bool | None = None,
    ) -> None:
        service = service_of(interaction)
        game_id = match_game(game)
        ui = get_ui(game_id)
        opts = ui.table_options(parse_options(options))
        host = display_name(interaction.user)
        if thread is None:
            thread = await self._threads_by_default(interaction)
        place, note = _channel(interaction), ""
        opened: discord.Thread | None = None
        if thread:
            opened, note = await self._open_thread(interaction, game_id, host)
            if opened is not None:
                place = opened.id
        try:
            info = await service.create(
                place,
                interaction.guild_id,
                interaction.user.id,
                host,
                game_id,
                opts,
                reminder_minutes=reminder_minutes,
            )
        except UserError as exc:
            if opened is not None:  # refused (a limit, an option): no empty thread stays
                await close_starter(opened, str(exc))
            raise
        chosen = ui.options_text(info.options)
        posted = await delivery_of(interaction).lobbies.post(
            info,
            f"{literal(display_name(interaction.user))} opened a **{info.game_name}** table.\n"
            + (f"{chosen}\n" if chosen else "") + literal(info.text),
            lobby_view(info, service.ai_levels(info.game_id)),
        )
        if posted is None:
            await private(interaction, f"Your {info.game_name} table is open, but {CANNOT_LOBBY}")
            return
        link = (f"https://discord.com/channels/{interaction.guild_id or '@me'}/"
                f"{info.channel_id}/{posted.id}")
        where = f" in the thread <#{info.channel_id}>" if opened is not None else ""
        await private(interaction, f"Your **{info.game_name}** table is open{where}: {link}\n"
                      + (f"{note}\n" if note else "")
                      + (f"{chosen}\n" if chosen else "")
                      + "Others join with its Join button or `/table join`; Start when "
                      "everyone is seated.")

    async def _threads_by_default(self, interaction: discord.Interaction) -> bool:
        """The server's choice for ``/table new`` without ``thread``."""
        if interaction.guild_id is None:
            return False
        return await service_of(interaction).guild_threads(interaction.guild_id)

    async def _open_thread(self, interaction: discord.Interaction, game_id: str, host: str
                           ) -> tuple[discord.Thread | None, str]:
        """A thread for the table, or ``None`` and why the table plays in the channel."""
        channel = interaction.channel
        if not can_hold_threads(channel):
            return None, ("A thread can only be opened from a text channel, so the table "
                          "is right here.")
        missing = missing_permissions(interaction)
        if missing:
            return None, (f"I cannot open a thread here (I need {' and '.join(missing)} "
                          "in this channel), so the table is right here.")
        assert isinstance(channel, discord.TextChannel)
        try:
            return await open_thread(channel, get_game(game_id).name, host), ""
        except discord.HTTPException as exc:
            log.info("could not open a table thread in %s: %s", channel.id, exc)
            return None, "Discord did not let me open a thread, so the table is right here."

    async def _lobby_changed(self, interaction: discord.Interaction, info: TableInfo,
                             headline: str) -> None:
        """Bring the lobby message (its seats, its Start button) up to date as a click
        on it would, with what changed as its headline; tell the caller privately."""
        shown = await delivery_of(interaction).lobbies.refresh(
            info, lobby_text(info, headline),
            lobby_view(info, service_of(interaction).ai_levels(info.game_id)))
        await private(interaction, headline if shown else f"{headline} But {CANNOT_LOBBY}")

    @app_commands.command(name="join", description="Take a seat at this channel's table")
    async def join(self, interaction: discord.Interaction) -> None:
        info = await service_of(interaction).join(
            _channel(interaction), interaction.user.id, display_name(interaction.user)
        )
        await self._lobby_changed(interaction, info,
                                  f"{literal(display_name(interaction.user))} sat down.")

    @app_commands.command(name="leave", description="Give up your seat before the game starts")
    async def leave(self, interaction: discord.Interaction) -> None:
        info = await service_of(interaction).leave(_channel(interaction), interaction.user.id)
        text = f"{literal(display_name(interaction.user))} left the table."
        if info.status is TableStatus.ABORTED:
            text += " Nobody is left, so the table is closed."
            await delivery_of(interaction).lobbies.close(info.id, lobby_text(info, text))
            await private(interaction, text)
            return
        await self._lobby_changed(interaction, info, text)

    @app_commands.command(name="addbot", description="Host: add an AI player")
    @app_commands.describe(level="How strong (default: the strongest)")
    @app_commands.autocomplete(level=level_autocomplete)
    async def addbot(self, interaction: discord.Interaction, level: str | None = None) -> None:
        info = await service_of(interaction).add_ai(
            _channel(interaction), interaction.user.id, level
        )
        await self._lobby_changed(interaction, info, "An AI player joined.")

    @app_commands.command(name="kick", description="Host: remove a seat before the game starts")
    @app_commands.describe(seat="Seat number as shown by /table status")
    async def kick(
        self, interaction: discord.Interaction, seat: app_commands.Range[int, 1, 99]
    ) -> None:
        info = await service_of(interaction).remove_seat(
            _channel(interaction), interaction.user.id, seat - 1
        )
        await self._lobby_changed(interaction, info, f"Seat {seat} was removed.")

    @app_commands.command(name="start", description="Host: start the game")
    async def start(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        await acknowledge(interaction)
        outbox = await service.start(_channel(interaction), interaction.user.id)
        await _deliver_outbox(interaction, outbox, "The game is on: the board is in the channel.")

    @app_commands.command(name="threads",
                          description="Manage Server: open new tables in threads by default")
    @app_commands.describe(on="True: /table new opens a thread per table; false: in the "
                              "channel (a table's own thread option still decides)")
    async def threads(self, interaction: discord.Interaction, on: bool | None = None) -> None:
        service = service_of(interaction)
        guild = interaction.guild_id
        if guild is None:  # pragma: no cover - the group is guild_only
            raise NoTable()
        if on is None:
            now = await service.guild_threads(guild)
            await private(interaction, "New tables open in " + (
                "a thread of their channel" if now else "their channel itself")
                + " here by default. Change it with `/table threads on:`"
                + ("false" if now else "true") + " (Manage Server).")
            return
        if not interaction.permissions.manage_guild:
            raise UserError("Only members with Manage Server choose where new tables open.")
        await service.set_guild_threads(guild, on)
        missing = missing_permissions(interaction) if on else []
        await private(interaction, (
            "From now on `/table new` opens each table in a thread of its channel, named "
            "after the game and the host, archived when the game ends."
            if on else "From now on `/table new` opens tables in the channel itself.")
            + (f" Note: I lack {' and '.join(missing)} here, so in this channel tables "
               "will still open in the channel." if missing else ""))

    @app_commands.command(name="replay",
                          description="An animation of this channel's last finished game")
    @app_commands.describe(game="The game (or a table id) to replay; default: the last one")
    async def replay(self, interaction: discord.Interaction, game: str | None = None) -> None:
        # The command tree has deferred privately: refusals stay private, and the
        # replay itself is posted as a channel message of its own (a deferred answer's
        # visibility is fixed when it is deferred).
        channel = _channel(interaction)
        key = f"replay:{channel}"
        wait = self.replays.take(interaction.user.id, key)
        if wait:
            await private(interaction,
                          f"You can ask for another replay here in {math.ceil(wait)} s.")
            return
        try:
            anim = await channel_replay(service_of(interaction), channel, game,
                                        renderer=delivery_of(interaction).pictures.draw)
            sent = await interaction.client.get_partial_messageable(channel).send(
                literal(anim.summary), file=discord.File(io.BytesIO(anim.data), anim.filename),
                allowed_mentions=discord.AllowedMentions.none())
        except BaseException:
            self.replays.give_back(interaction.user.id, key)
            raise
        await private(interaction, f"The replay is posted: {sent.jump_url}")

    @app_commands.command(name="history", description="The recent games of this channel")
    async def history(self, interaction: discord.Interaction) -> None:
        await private(interaction, await history_text(service_of(interaction),
                                                      _channel(interaction)))

    @app_commands.command(name="status", description="Who sits where and whose turn it is")
    async def status(self, interaction: discord.Interaction) -> None:
        # After the end, the last game's result stays readable until a new table opens.
        info = await service_of(interaction).last_table(_channel(interaction))
        await private(interaction, literal(info.text))

    @app_commands.command(name="abort", description="Host or Manage Channels: close the table")
    async def abort(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        await acknowledge(interaction)
        outbox = await service.abort(
            _channel(interaction), interaction.user.id, can_manage_channel=_can_manage(interaction)
        )
        await _deliver_outbox(interaction, outbox, "The table is closed.")

    @app_commands.command(
        name="handover", description="Host: give a gone player's seat to a member or an AI"
    )
    @app_commands.describe(
        seat="Seat number as shown by /table status",
        member="The member who takes the seat (leave empty for an AI)",
        level="AI level when no member is given (default: the strongest)",
    )
    @app_commands.autocomplete(level=level_autocomplete)
    async def handover(
        self,
        interaction: discord.Interaction,
        seat: app_commands.Range[int, 1, 99],
        member: discord.Member | None = None,
        level: str | None = None,
    ) -> None:
        if member is not None and level is not None:
            raise UserError("Give the seat either to a member or to an AI level, not both.")
        if member is not None and member.bot:
            raise UserError("Bots cannot hold a seat; leave `member` empty for an AI player.")
        service = service_of(interaction)
        await acknowledge(interaction)
        outbox = await service.replace_seat(
            _channel(interaction),
            interaction.user.id,
            seat - 1,
            new_user_id=member.id if member is not None else None,
            new_name=display_name(member) if member is not None else None,
            ai_level=level,
            can_manage_channel=_can_manage(interaction),
        )
        who = literal(display_name(member)) if member is not None else "an AI player"
        await _deliver_outbox(interaction, outbox, f"Seat {seat} now belongs to {who}.")

    @app_commands.command(name="log", description="The last moves at this table (only you see it)")
    async def log(self, interaction: discord.Interaction) -> None:
        service = service_of(interaction)
        lines = await service.history(_channel(interaction), interaction.user.id)
        # The log's lines are the service's plain text (names, rulings' notes): literal.
        text = "\n".join(literal(x) for x in lines[-25:]) if lines else \
            "Nothing has happened yet."
        await private(interaction, text[-2000:])


# --------------------------------------------------------------------------- /hand /rules /help


class Guide(commands.Cog):
    """Commands outside the /table group."""

    def __init__(self, bot: FabletopBot) -> None:
        self.bot = bot

    async def _table_for_hand(self, interaction: discord.Interaction) -> TableInfo:
        service = service_of(interaction)
        if interaction.channel_id is not None:
            try:
                info = await service.status(interaction.channel_id)
                if info.seat_of(interaction.user.id) is not None:
                    return info
            except NoTable:
                pass
        mine = await service.tables_of_user(interaction.user.id)
        if len(mine) == 1:
            return mine[0]
        if not mine:
            raise UserError("You have no seat at any table right now.")
        where = ", ".join(f"<#{t.channel_id}> ({t.game_name})" for t in mine)
        raise UserError(f"You sit at several tables: use /hand in its channel: {where}.")

    @app_commands.command(
        name="hand", description="Your private view of your table (only you see it)"
    )
    @app_commands.describe(retry_dm="Try sending private news by DM again (after opening DMs)")
    async def hand(self, interaction: discord.Interaction, retry_dm: bool = False) -> None:
        service = service_of(interaction)
        delivery = delivery_of(interaction)
        await acknowledge(interaction)
        info = await self._table_for_hand(interaction)
        if retry_dm:
            await delivery.dms.retry(interaction.user.id)
        snapshot = await service.seat_snapshot(info.id, interaction.user.id)
        # A game with a hand message answers with the same hand: the history below would
        # list cards drawn, including ones played since.
        if has_hands(info.game_id):
            await delivery.hands.send_ephemeral(interaction, snapshot)
            return
        info = snapshot.table
        news = snapshot.seat_news(interaction.user.id)
        seat = info.seat_of(interaction.user.id)
        assert seat is not None and news is not None
        view = news.view
        lines = [f"**{info.game_name}** — you are seat {seat.index + 1} "
                 f"({literal(seat.name)})."]
        prompt = getattr(view, "prompt", None)
        if prompt:
            lines.append(literal(prompt))
        private = await service.history(info.id, interaction.user.id)
        public = set(await service.history(info.id, None))
        secret_lines = [line for line in private if line not in public]
        if secret_lines:
            lines.append("**Only you know:**")
            lines.extend(literal(x) for x in secret_lines[-10:])
        if retry_dm:
            lines.append("I will try to DM you again.")
        kwargs: dict[str, Any] = {}
        png = await delivery.pictures.render_png(info.game_id, view, info)
        if png is not None:
            kwargs["file"] = discord.File(io.BytesIO(png), filename="hand.png")
        if info.status is TableStatus.PLAYING and news.legal and view is not None:
            menu = get_ui(info.game_id).private_menu(view, list(news.legal))
            components = build_view(menu, info.id, info.version)
            if components is not None:
                kwargs["view"] = components
                # a game whose view's prompt is the menu's (Pocket) says it once
                if (menu.prompt or "Your move:") != prompt:
                    lines.append(menu.prompt or "Your move:")
        await interaction.followup.send("\n".join(lines)[:2000], ephemeral=True, **kwargs)

    @app_commands.command(name="rules", description="A summary of a game's rules",
                          extras=AT_ONCE)
    @app_commands.describe(game="Which game")
    @app_commands.autocomplete(game=rules_autocomplete)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        game_id = game if game in load_rules() else _match_rules(game)
        await interaction.response.send_message(rules_text(game_id), ephemeral=True)

    @app_commands.command(name="help", description="How to play with Fabletop",
                          extras=AT_ONCE)
    @app_commands.describe(command="A command group to explain in full (e.g. table, inn)")
    @app_commands.autocomplete(command=help_autocomplete)
    async def help(self, interaction: discord.Interaction, command: str | None = None) -> None:
        text = help_text(self.bot.tree) if command is None else group_help(self.bot.tree, command)
        await interaction.response.send_message(text, ephemeral=True)


def _match_rules(text: str) -> str:
    low = text.strip().lower()
    hits = [gid for gid, r in load_rules().items() if low and low in r.name.lower()]
    if len(hits) == 1:
        return hits[0]
    return text  # rules_text explains what is known


def help_text(tree: app_commands.CommandTree) -> str:
    """An overview built from the command tree: the lobby in full, then one line per
    command group (``/help command:<group>`` explains a group)."""
    lines = [
        "**Fabletop** runs fairy-tale board games in this channel.",
        "Open a table with `/table new`, friends `/table join` (or the host adds an AI "
        "with `/table addbot`), the host runs `/table start`, then play with the buttons "
        "under the board. Secret information comes by DM or `/hand`.",
        "",
    ]
    groups = []
    for command in _public_top_level(tree):
        if isinstance(command, app_commands.Group):
            if command.name == "table":
                lines.extend(_group_lines(command))
            else:
                subs = ", ".join(f"`{c.name}`" for c in command.commands)
                groups.append(f"`/{command.name}` — {command.description}: {subs}")
        else:
            lines.append(f"`/{command.name}` — {command.description}")
    if groups:
        lines += ["", "**Game commands** (`/help command:<name>` for details)", *groups]
    return "\n".join(lines)[:2000]


def _group_lines(group: app_commands.Group) -> list[str]:
    out = []
    for command in group.walk_commands():
        if isinstance(command, app_commands.Group):
            continue
        out.append(f"`/{command.qualified_name}` — {command.description}")
    return out


def group_help(tree: app_commands.CommandTree, name: str) -> str:
    command = tree.get_command(name.strip().lstrip("/").split()[0] if name.strip() else "")
    if command is None or command.name == "admin":
        known = ", ".join(c.name for c in _public_top_level(tree))
        return f"There is no command group '{quote(name, 40)}'. Try one of: {known}."
    if not isinstance(command, app_commands.Group):
        return f"`/{command.name}` — {command.description}"
    lines = [f"**/{command.name}** — {command.description}", *_group_lines(command)]
    return "\n".join(lines)[:2000]


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(Lobby(bot))
    await bot.add_cog(Guide(bot))
