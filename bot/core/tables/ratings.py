"""History and ratings: a server's finished games read back as statistics.

Everything here is computed from the recorded results (:meth:`bot.core.store.Store.results`),
one server at a time, so nothing is ever shared across servers: a member's rating and
stats in one server know nothing of their games in another.

- **Competitive games** are rated with openskill's Plackett-Luce model, replaying the
  server's results of one game in the order they finished. Winners rank first (tied
  with each other); the other seats follow by score (equal scores tie). A seat played by
  the bot is rated as its level: one identity per (game, level), "AI (expert)", so the
  board shows how people fare against each level.
- **Team games** (Winter Tales: Spring against Winter, and a Writer in odd counts) are
  rated with openskill teams: the winning seats form one team, ranked first; the losing
  seats are grouped into teams by their shared score (the engine gives every seat its
  faction's final score), ranked by it.
- **Co-operative games** (every seat wins or loses together against the game) have no
  opponents to rate against, so they show team win rates: per player, and the server's
  per player count and option set.

Cost: every call reads the server's whole history of the games it looks at and replays
it (one store read, then O(results x seats) work; the openskill update of one game is
microseconds). That is fine for a server's history (thousands of games); a server with
far more would want the ratings kept incrementally as results are recorded.

>>> from datetime import UTC, datetime
>>> t = datetime(2026, 1, 1, tzinfo=UTC)
>>> def game(n, winner):
...     seats = [{"index": 0, "name": "Ann", "user_id": 1, "ai_level": None},
...              {"index": 1, "name": "Bot", "user_id": None, "ai_level": "easy"}]
...     return ResultRecord(table_id=str(n), guild_id=9, channel_id=5, game_id="x",
...                         options={}, seats=seats, winners=[winner],
...                         scores={0: 1.0, 1: 0.0}, reason=None, cooperative=False,
...                         moves=3, started_at=t, finished_at=t)
>>> rows = rate_results([game(1, 0), game(2, 0), game(3, 1)])
>>> [(r.name, r.games, r.wins) for r in rows]
[('Ann', 3, 2), ('AI (easy)', 3, 1)]
>>> rows[0].ai, rows[1].ai
(False, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from openskill.models import PlackettLuce

from bot.core.store import ResultRecord, Store
from engines import get_game
from engines.catalog import spec

__all__ = [
    "CoopBoard",
    "CoopRow",
    "GameCount",
    "Leaderboard",
    "MemberStats",
    "RatingRow",
    "channel_history",
    "coop_board",
    "game_name",
    "leaderboard",
    "member_stats",
    "rate_results",
    "seat_identity",
]

def _team_play(game_id: str) -> bool:
    """Whether the game's seats play side against side (its declaration says so): the
    seats that share a result and a score are then one team. A game no longer installed
    is rated seat by seat."""
    try:
        return spec(game_id).team_play
    except KeyError:
        return False


MODEL = PlackettLuce()
"""Default parameters (mu 25, sigma 25/3): the scale every openskill user knows."""

Key = tuple[str, int | str]
"""A rated identity: ``("user", user_id)`` or ``("ai", level)``."""


def game_name(game_id: str) -> str:
    """A game's name, or its id if the game is no longer installed (its history stays)."""
    try:
        return get_game(game_id).name
    except Exception:
        return game_id


def seat_identity(seat: dict[str, Any]) -> tuple[Key, str]:
    """Who a recorded seat is for ratings, and the name to show.

    A person is their user id (their newest seat name is shown); a bot seat is its
    level, so every "expert" seat of a game is the same opponent."""
    if seat.get("user_id") is not None:
        return ("user", int(seat["user_id"])), str(seat.get("name") or "?")
    level = str(seat.get("ai_level") or "bot")
    return ("ai", level), f"AI ({level})"


def _ranked_groups(result: ResultRecord, teams: bool) -> list[tuple[int, list[int]]]:
    """The result as ``(rank, seat indexes)`` groups, rank 1 best.

    Winners are one group ranked first; the rest follow by score, highest first, equal
    scores sharing a rank. In an individual game every seat is its own group (tied seats
    share the rank); in a team game the seats of one rank are one team."""
    indexes = [int(s["index"]) for s in result.seats]
    winners = [i for i in indexes if i in result.winners]
    others = [i for i in indexes if i not in result.winners]
    scores = sorted({result.scores.get(i, 0.0) for i in others}, reverse=True)
    tiers: list[list[int]] = [winners] if winners else []
    tiers += [[i for i in others if result.scores.get(i, 0.0) == s] for s in scores]
    out: list[tuple[int, list[int]]] = []
    for rank, tier in enumerate(tiers, 1):
        if teams:
            out.append((rank, tier))
        else:
            out += [(rank, [i]) for i in tier]
    return out


@dataclass
class _Player:
    name: str
    rating: Any = field(default_factory=MODEL.rating)
    games: int = 0
    wins: int = 0


@dataclass(frozen=True)
class RatingRow:
    """One line of a competitive leaderboard. ``rating`` is openskill's ordinal
    (mu - 3 sigma): a cautious estimate that rises as a player proves themselves."""

    rank: int
    name: str
    rating: float
    mu: float
    sigma: float
    games: int
    wins: int
    ai: bool
    user_id: int | None


def rate_results(results: Iterable[ResultRecord]) -> list[RatingRow]:
    """Openskill ratings from the results of ONE game, in any order (they are replayed
    in finish order), best first. Results of a co-operative game are skipped."""
    players: dict[Key, _Player] = {}
    for result in sorted(results, key=lambda r: (r.finished_at, r.table_id)):
        if result.cooperative:
            continue
        by_index = {int(s["index"]): seat_identity(s) for s in result.seats}
        won: set[Key] = set()
        for index, (key, name) in by_index.items():
            # Replayed oldest first: the name kept is the newest one the person used.
            players.setdefault(key, _Player(name)).name = name
            if index in result.winners:
                won.add(key)
        for key in {k for k, _ in by_index.values()}:
            players[key].games += 1
            players[key].wins += key in won
        groups = _ranked_groups(result, _team_play(result.game_id))
        if len(groups) < 2:
            continue  # a solo game, or everyone tied as one: nothing to compare
        teams = [[players[by_index[i][0]].rating for i in group] for _, group in groups]
        rated = MODEL.rate(teams, ranks=[rank for rank, _ in groups])
        # One identity may hold several seats (two bots of one level): its new rating
        # is the mean of its seats' updates, so a game never counts twice for it.
        updates: dict[Key, list[Any]] = {}
        for (_, group), team in zip(groups, rated, strict=True):
            for i, new in zip(group, team, strict=True):
                updates.setdefault(by_index[i][0], []).append(new)
        for key, news in updates.items():
            players[key].rating = MODEL.rating(
                mu=sum(r.mu for r in news) / len(news),
                sigma=sum(r.sigma for r in news) / len(news))
    ordered = sorted(players.items(),
                     key=lambda kv: (-kv[1].rating.ordinal(), -kv[1].wins, kv[1].name))
    return [RatingRow(rank=n, name=p.name, rating=p.rating.ordinal(), mu=p.rating.mu,
                      sigma=p.rating.sigma, games=p.games, wins=p.wins, ai=key[0] == "ai",
                      user_id=int(key[1]) if key[0] == "user" else None)
            for n, (key, p) in enumerate(ordered, 1)]


# --------------------------------------------------------------------------- co-op


@dataclass(frozen=True)
class CoopRow:
    """Games and wins of one player, or of one player count or option set."""

    name: str
    games: int
    wins: int

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass(frozen=True)
class CoopBoard:
    """Team win rates of a co-operative game in one server."""

    overall: CoopRow
    players: list[CoopRow]
    """People (bot seats are left out: they are helpers, not the team's members to
    rank), most wins first."""
    by_count: list[CoopRow]
    """Per number of seats (``name`` "2 players")."""
    by_options: list[CoopRow]
    """Per option set (``name`` "k=v, ..." or "standard"), most played first."""


def _options_label(options: dict[str, Any]) -> str:
    if not options:
        return "standard"
    return ", ".join(f"{k}={v}" for k, v in sorted(options.items()))


def _tally(tally: dict[Any, list[int]], key: Any, won: int) -> None:
    entry = tally.setdefault(key, [0, 0])
    entry[0] += 1
    entry[1] += won


def coop_board(results: Iterable[ResultRecord]) -> CoopBoard:
    """Team win rates from the results of ONE co-operative game. A game counts as won
    when its seats are the winners (the team wins or loses together)."""
    people: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    counts: dict[int, list[int]] = {}
    options: dict[str, list[int]] = {}
    total: dict[str, list[int]] = {}
    for result in sorted(results, key=lambda r: r.finished_at, reverse=True):
        won = int(bool(result.winners))
        _tally(total, "everyone", won)
        for seat in result.seats:
            if seat.get("user_id") is not None:
                # Newest first: the first name seen is the member's current one.
                names.setdefault(int(seat["user_id"]), str(seat.get("name") or "?"))
        for user in {int(s["user_id"]) for s in result.seats if s.get("user_id") is not None}:
            _tally(people, user, won)
        _tally(counts, len(result.seats), won)
        _tally(options, _options_label(result.options), won)
    players = sorted((CoopRow(names[u], g, w) for u, (g, w) in people.items()),
                     key=lambda r: (-r.wins, -r.rate, r.name))
    games, wins = total.get("everyone", [0, 0])
    return CoopBoard(
        overall=CoopRow("everyone", games, wins), players=players,
        by_count=[CoopRow(f"{n} player{'s' if n != 1 else ''}", g, w)
                  for n, (g, w) in sorted(counts.items())],
        by_options=sorted((CoopRow(label, g, w) for label, (g, w) in options.items()),
                          key=lambda r: (-r.games, r.name)))


# --------------------------------------------------------------------------- services


@dataclass(frozen=True)
class Leaderboard:
    """A server's board for one game: ``ratings`` for a competitive game, ``coop`` for
    a co-operative one; both empty when nobody has finished a game of it there."""

    game_id: str
    game_name: str
    games: int
    cooperative: bool
    ratings: list[RatingRow]
    coop: CoopBoard | None


async def leaderboard(store: Store, guild_id: int, game_id: str) -> Leaderboard:
    """The server's leaderboard of ``game_id`` (one store read of its results there)."""
    results = await store.results(guild_id=guild_id, game_id=game_id)
    try:
        cooperative = get_game(game_id).cooperative
    except Exception:  # an uninstalled game: its records still say how it was played
        cooperative = any(r.cooperative for r in results)
    return Leaderboard(
        game_id=game_id, game_name=game_name(game_id), games=len(results),
        cooperative=cooperative,
        ratings=[] if cooperative else rate_results(results),
        coop=coop_board(results) if cooperative and results else None)


@dataclass(frozen=True)
class GameCount:
    """A member's games and wins of one game."""

    game_id: str
    name: str
    games: int
    wins: int
    last_played: datetime


@dataclass(frozen=True)
class MemberStats:
    """A member's finished games in one server."""

    user_id: int
    games: int
    wins: int
    last_played: datetime | None
    per_game: list[GameCount]
    """Most played first (ties: the most recently played first)."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def favourite(self) -> GameCount | None:
        """The most played game (ties: the one played most recently)."""
        return self.per_game[0] if self.per_game else None


def stats_of(results: Sequence[ResultRecord], user_id: int) -> MemberStats:
    """A member's stats from a server's results. A member holding two seats of one
    game (a handed-over seat) played it once, and won it if either seat won."""
    per: dict[str, list[Any]] = {}
    games = wins = 0
    last: datetime | None = None
    for result in results:
        mine = [int(s["index"]) for s in result.seats if s.get("user_id") == user_id]
        if not mine:
            continue
        won = any(i in result.winners for i in mine)
        games += 1
        wins += won
        last = result.finished_at if last is None else max(last, result.finished_at)
        entry = per.setdefault(result.game_id, [0, 0, result.finished_at])
        entry[0] += 1
        entry[1] += won
        entry[2] = max(entry[2], result.finished_at)
    counts = [GameCount(gid, game_name(gid), g, w, at) for gid, (g, w, at) in per.items()]
    counts.sort(key=lambda c: (-c.games, -c.last_played.timestamp(), c.name))
    return MemberStats(user_id=user_id, games=games, wins=wins, last_played=last,
                       per_game=counts)


async def member_stats(store: Store, guild_id: int, user_id: int) -> MemberStats:
    """A member's games, wins and favourite game in one server (one store read of the
    server's whole history)."""
    return stats_of(await store.results(guild_id=guild_id), user_id)


async def channel_history(store: Store, channel_id: int, limit: int = 10
                          ) -> list[ResultRecord]:
    """The channel's most recent finished games, newest first."""
    return await store.results(channel_id=channel_id, limit=limit)

