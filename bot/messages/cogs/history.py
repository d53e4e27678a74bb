"""``/stats [member]`` and ``/leaderboard game:``: a server's history of finished games,
and :func:`history_text`, the channel's recent games (for the lobby's history command).

Thin like every cog: the numbers come from :mod:`bot.core.tables.ratings` (per server only),
and this module only words them within Discord's limits, names made literal.

Who sees the answer: ``/stats`` answers privately (the command tree's default), since it
is one member's question and would only clutter the channel. ``/leaderboard`` is for
everyone: the tree defers it privately like any command (Discord fixes a deferred
answer's visibility when it is deferred, so a refusal or an apology after a failed read
stays private), and the board is then posted in the channel as a message of its own,
with a private link to it for the one who asked.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.core.store import ResultRecord
from bot.core.tables import TableService, UserError
from bot.core.tables.ratings import (
    CoopBoard,
    CoopRow,
    Leaderboard,
    MemberStats,
    RatingRow,
    channel_history,
    game_name,
    leaderboard,
    member_stats,
    seat_identity,
)
from bot.messages.cogs.common import display_name, game_autocomplete, match_game, service_of
from bot.messages.replies import private
from bot.messages.ui.texts import MAX_CONTENT, literal

if TYPE_CHECKING:
    from bot.messages.client import FabletopBot

__all__ = ["History", "history_text", "leaderboard_text", "setup", "stats_text"]

ROWS = 20
"""Leaderboard lines at most (the rest are counted, not listed)."""

NO_MENTIONS = discord.AllowedMentions.none()


# --------------------------------------------------------------------------- words


def _when(at: datetime, style: str = "d") -> str:
    """A Discord timestamp: every reader sees it in their own time zone and language."""
    return f"<t:{int(at.timestamp())}:{style}>"


def _pct(wins: int, games: int) -> str:
    return f"{round(100 * wins / games)}%" if games else "-"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.1f}"


def _fit(head: list[str], rows: list[str], limit: int = MAX_CONTENT) -> str:
    """``head`` then as many ``rows`` as fit in one message, the rest counted."""
    lines, size = list(head), sum(len(line) + 1 for line in head)
    for n, row in enumerate(rows):
        more = f"…and {len(rows) - n} more."
        if size + len(row) + 1 + len(more) + 1 > limit:
            lines.append(more)
            break
        lines.append(row)
        size += len(row) + 1
    return "\n".join(lines)[:limit]


def stats_text(name: str, stats: MemberStats) -> str:
    """``/stats``: a member's games, wins, favourite and per-game counts in this server."""
    who = f"**{literal(name)}**"
    if not stats.games:
        return f"{who} has not finished a game in this server yet."
    head = [f"{who} in this server: {_plural(stats.games, 'game')}, "
            f"{_plural(stats.wins, 'win')} ({_pct(stats.wins, stats.games)})."]
    fav = stats.favourite
    if fav is not None:
        head.append(f"Favourite game: **{literal(fav.name)}** ({_plural(fav.games, 'game')}).")
    if stats.last_played is not None:
        head.append(f"Last played {_when(stats.last_played, 'R')}.")
    rows = [f"- {literal(c.name)}: {_plural(c.games, 'game')}, {_plural(c.wins, 'win')} "
            f"({_pct(c.wins, c.games)}), last {_when(c.last_played)}"
            for c in stats.per_game]
    return _fit(head, rows)


def _rating_row(row: RatingRow) -> str:
    name = literal(row.name) if row.ai else f"**{literal(row.name)}**"
    return (f"{row.rank}. {name}: {row.rating:.1f} (μ {row.mu:.1f}, σ {row.sigma:.1f}) · "
            f"{_plural(row.games, 'game')}, {_plural(row.wins, 'win')}")


def _coop_part(row: CoopRow) -> str:
    return f"{literal(row.name)} {row.wins}/{row.games} ({_pct(row.wins, row.games)})"


def _coop_lines(board: CoopBoard) -> tuple[list[str], list[str]]:
    head = [f"The team won {board.overall.wins} of {_plural(board.overall.games, 'game')} "
            f"({_pct(board.overall.wins, board.overall.games)}) in this server."]
    if board.by_count:
        head.append("By table size: " + " · ".join(_coop_part(r) for r in board.by_count))
    if len(board.by_options) > 1:  # one option set says nothing the overall line did not
        head.append("By options: " + " · ".join(_coop_part(r) for r in board.by_options[:5]))
    if board.players:
        head.append("Players:")
    rows = [f"{n}. **{literal(r.name)}**: {_plural(r.wins, 'win')} in "
            f"{_plural(r.games, 'game')} ({_pct(r.wins, r.games)})"
            for n, r in enumerate(board.players, 1)]
    return head, rows


def leaderboard_text(board: Leaderboard) -> str:
    """``/leaderboard``: ratings for a competitive game, team win rates for a co-op one."""
    name = literal(board.game_name)
    if not board.games:
        return f"Nobody has finished a game of **{name}** in this server yet."
    if board.cooperative and board.coop is not None:
        head, rows = _coop_lines(board.coop)
        return _fit([f"## {name}: team results", *head], rows)
    head = [f"## {name} leaderboard",
            f"{_plural(board.games, 'game')} in this server. Rating: openskill's "
            "μ − 3σ (rises as a player proves themselves); bot seats are rated as "
            "their level."]
    rows = [_rating_row(r) for r in board.ratings]
    if len(rows) > ROWS:
        rows = [*rows[:ROWS], f"…and {len(rows) - ROWS} more."]
    return _fit(head, rows)


def _result_line(result: ResultRecord) -> str:
    """Who won, with the scores: winners first, the rest by score."""
    def who(seat: dict[str, object]) -> str:
        return literal(seat_identity(seat)[1])

    if result.cooperative:
        team = ", ".join(who(s) for s in result.seats)
        return f"The team {'won' if result.winners else 'lost'}: {team}"
    seats = sorted(result.seats, key=lambda s: (int(s["index"]) not in result.winners,
                                                -result.scores.get(int(s["index"]), 0.0)))
    parts = []
    for seat in seats:
        index = int(seat["index"])
        name = f"**{who(seat)}**" if index in result.winners else who(seat)
        score = result.scores.get(index)
        shown = f"{name} {_number(score)}" if score is not None else name
        parts.append(f"{shown} (won)" if index in result.winners else shown)
    return " · ".join(parts)


def _length(result: ResultRecord) -> str:
    # started_at is when the table was opened: the time includes the lobby's wait.
    minutes = max(0, round((result.finished_at - result.started_at).total_seconds() / 60))
    took = ("under a minute" if minutes < 1 else f"{minutes} min" if minutes < 120
            else f"{minutes / 60:.1f} h")
    return f"{_plural(result.moves, 'move')}, {took}"


def history_lines(results: list[ResultRecord]) -> str:
    """The words of a channel's recent games (newest first)."""
    if not results:
        return "No game has finished in this channel yet."
    rows = [f"**{literal(game_name(r.game_id))}** · {_when(r.finished_at)} · {_length(r)}\n"
            f"  {_result_line(r)}" for r in results]
    return _fit([f"**The last {_plural(len(results), 'game')} in this channel**"], rows)


async def history_text(service: TableService, channel_id: int, limit: int = 10) -> str:
    """The channel's recent finished games with their results, dates and lengths, as one
    message (at most 2000 characters; names literal)."""
    return history_lines(await channel_history(service.store, channel_id, limit))


# --------------------------------------------------------------------------- the cog


def _guild(interaction: discord.Interaction) -> int:
    if interaction.guild_id is None:  # pragma: no cover - guild_only commands
        raise UserError("History is kept per server; use this command in a server.")
    return interaction.guild_id


class History(commands.Cog):
    """``/stats`` and ``/leaderboard``: one server's history, never another's."""

    def __init__(self, bot: FabletopBot) -> None:
        self.bot = bot

    @app_commands.command(name="stats", description="A member's games and wins in this server")
    @app_commands.describe(member="Whose stats (default: yours)")
    @app_commands.guild_only()
    async def stats(self, interaction: discord.Interaction,
                    member: discord.Member | None = None) -> None:
        who = member or interaction.user
        service = service_of(interaction)
        found = await member_stats(service.store, _guild(interaction), who.id)
        await interaction.followup.send(stats_text(display_name(who), found), ephemeral=True,
                                        allowed_mentions=NO_MENTIONS)

    @app_commands.command(name="leaderboard", description="This server's best players of a game")
    @app_commands.describe(game="Which game")
    @app_commands.autocomplete(game=game_autocomplete)
    @app_commands.guild_only()
    async def leaderboard(self, interaction: discord.Interaction, game: str) -> None:
        service = service_of(interaction)
        game_id = match_game(game)
        board = await leaderboard(service.store, _guild(interaction), game_id)
        channel = interaction.channel_id
        assert channel is not None  # guild only
        sent = await interaction.client.get_partial_messageable(channel).send(
            leaderboard_text(board), allowed_mentions=NO_MENTIONS)
        await private(interaction, f"The leaderboard is posted: {sent.jump_url}")


async def setup(bot: FabletopBot) -> None:
    await bot.add_cog(History(bot))
