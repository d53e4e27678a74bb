"""History and ratings: ``/stats``, ``/leaderboard`` and the channel's history text,
through the REAL command tree (tests/discord_fakes.py) on games really played through
the service (the toy game, with people and AI seats), per server."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from bot.core.store import ResultRecord, TableRecord, utcnow
from bot.core.tables import NoTable, TableStatus
from bot.core.tables.ratings import rate_results
from bot.messages.cogs.history import history_text
from engines.core import Outcome
from tests.discord_fakes import (
    ANN,
    BOB,
    CAROL,
    CHANNEL_ID,
    GUILD_ID,
    Harness,
    Sent,
    answer,
    close_harness,
    make_harness,
    only,
)
from tests.toy_game import TOY_ID, ToyNim, ToyState, toy_registered

OTHER_GUILD = GUILD_ID + 1
DAN = 444000000000000004
COOP_ID = "toy-coop"
# A pile of four stones (values 1, 1, 2, 3 in some order), at most three a turn: whoever
# takes three holds at least 4 of the 7 points, so a seat that always takes the most
# wins against one that always takes one, whoever starts.
DUEL = {"pile": 4, "max_take": 3}


class CoopNim(ToyNim):
    """The toy played together: the team wins if one seat took three stones."""

    id = COOP_ID
    name = "Toy Nim Together"
    cooperative = True

    def outcome(self, state: ToyState) -> Outcome | None:
        if state.pile:
            return None
        won = any(len(t) >= 3 for t in state.taken)
        seats = list(range(state.players))
        return Outcome(winners=seats if won else [], scores={s: int(won) for s in seats},
                       reason="The pile is empty.")


@pytest.fixture
def games() -> Iterator[None]:
    with toy_registered(), toy_registered(engine=CoopNim, conformance=()):
        yield


@pytest.fixture
async def h(tmp_path: Path, games: None) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


_channels = iter(range(CHANNEL_ID + 100, CHANNEL_ID + 10_000))


async def play(h: Harness, players: dict[int, str], *, greedy: set[int] = frozenset(),
               game: str = TOY_ID, channel: int | None = None, guild: int = GUILD_ID,
               ai: str | None = None) -> int:
    """Play one game through the service: ``players`` (host first) sit down, a bot seat
    of level ``ai`` joins if given; a person in ``greedy`` takes the most stones each
    turn, the others one. Returns the channel."""
    channel = channel or next(_channels)
    (host, host_name), *rest = players.items()
    service = h.service
    await service.create(channel, guild, host, host_name, game, DUEL, seed=11)
    for user, name in rest:
        await service.join(channel, user, name)
    if ai is not None:
        await service.add_ai(channel, host, ai)
    await service.start(channel, host)
    for _ in range(20):
        await service.wait_idle()  # the bot's moves
        try:
            info = await service.status(channel)
        except NoTable:  # finished: the channel holds no live table any more
            break
        user = info.to_act_users[0]
        legal = await service.legal_actions(channel, user)
        await service.act(channel, user, legal[-1] if user in greedy else legal[0])
    assert (await service.last_table(channel)).status is TableStatus.FINISHED
    return channel


async def leaderboard(h: Harness, game: str, user: int = ANN) -> Sent:
    """The board /leaderboard posts in the channel (its asker gets a private link)."""
    sent = await h.slash("leaderboard", user, game=game)
    link = answer(sent)
    assert link.ephemeral and "The leaderboard is posted" in link.content
    return only(sent, "channel_message")


async def record(h: Harness, result: ResultRecord) -> None:
    """Record a finished game as if it was played (its table row first: a result
    belongs to a table): for games too long to play out in a test."""
    store = h.service.store
    await store.create_table(TableRecord(
        id=result.table_id, channel_id=result.channel_id, guild_id=result.guild_id,
        game_id=result.game_id, options=result.options, seed=1, status="finished",
        host_id=int(result.seats[0]["user_id"]), seats=result.seats, version=result.moves,
        created_at=result.started_at, updated_at=result.finished_at))
    assert await store.record_result(result)


def board_names(text: str) -> list[str]:
    """The names of a leaderboard's rows, in order."""
    return re.findall(r"^\d+\. \**([^*:]+?)\**:", text, re.MULTILINE)


# --------------------------------------------------------------------------- /stats


async def test_stats_counts_games_wins_and_the_favourite(h: Harness) -> None:
    await play(h, {ANN: "Ann", BOB: "Bob"}, greedy={ANN})
    await play(h, {BOB: "Bob", ANN: "Ann"}, greedy={ANN})
    await play(h, {ANN: "Ann", BOB: "Bob"}, greedy={BOB})
    await play(h, {ANN: "Ann", CAROL: "Carol"}, game=COOP_ID, greedy={CAROL})
    results = await h.service.store.results(guild_id=GUILD_ID)
    assert len(results) == 4  # every finished game was recorded

    sent = await h.slash("stats", ANN, uname="Ann")
    reply = answer(sent)
    assert reply.ephemeral  # one member's question: answered privately
    text = reply.content
    assert "**Ann** in this server: 4 games, 3 wins (75%)" in text
    assert "Favourite game: **Toy Nim** (3 games)" in text
    assert "- Toy Nim: 3 games, 2 wins (67%)" in text
    assert "- Toy Nim Together: 1 game, 1 win (100%)" in text

    sent = await h.slash("stats", ANN, uname="Ann", member=(BOB, "Bob"))
    assert "**Bob** in this server: 3 games, 1 win (33%)" in answer(sent).content


async def test_stats_without_history_says_so(h: Harness) -> None:
    sent = await h.slash("stats", CAROL, uname="Carol")
    reply = answer(sent)
    assert reply.ephemeral
    assert reply.content == "**Carol** has not finished a game in this server yet."


# --------------------------------------------------------------------------- /leaderboard


async def test_leaderboard_ranks_the_player_who_always_wins_first(h: Harness) -> None:
    for _ in range(3):
        await play(h, {BOB: "Bob", ANN: "Ann"}, greedy={ANN})
        await play(h, {BOB: "Bob", CAROL: "Carol"}, greedy={BOB})
    await play(h, {CAROL: "Carol", ANN: "Ann"}, greedy={ANN})

    sent = await h.slash("leaderboard", CAROL, game="toy nim")  # a name is enough
    defer = only(sent, "callback")
    # deferred privately at once (a refusal or an apology stays private); the board
    # itself is a channel message of its own
    assert defer.response_type == 5 and defer.ephemeral
    assert answer(sent).ephemeral
    text = only(sent, "channel_message").content
    assert text.startswith("## Toy Nim leaderboard\n7 games in this server.")
    assert board_names(text) == ["Ann", "Bob", "Carol"]
    assert "1. **Ann**: " in text and "· 4 games, 4 wins" in text
    assert "3. **Carol**: " in text and "· 4 games, 0 wins" in text  # lost every game
    ratings = [float(x) for x in re.findall(r"\*\*: (-?\d+\.\d)", text)]
    assert ratings == sorted(ratings, reverse=True) and ratings[0] > ratings[-1]


async def test_ai_seats_are_rated_as_their_level(h: Harness) -> None:
    # The greedy bot always takes the most: it beats Ann, who takes one, and two
    # tables' bots are one opponent; Bob, taking the most too, beats Ann in a duel.
    await play(h, {ANN: "Ann"}, ai="greedy")
    await play(h, {ANN: "Ann"}, ai="greedy")
    await play(h, {BOB: "Bob"}, ai="greedy", greedy={BOB})
    text = (await leaderboard(h, TOY_ID)).content
    names = board_names(text)
    assert names.count("AI (greedy)") == 1
    assert names[0] == "AI (greedy)" and names[-1] == "Ann"
    assert re.search(r"AI \(greedy\): [-\d.]+ \(μ [\d.]+, σ [\d.]+\) · 3 games, [23] wins", text)
    assert "**AI (greedy)**" not in text  # people in bold, bot levels plain


async def test_coop_leaderboard_shows_team_win_rates(h: Harness) -> None:
    await play(h, {ANN: "Ann", BOB: "Bob"}, game=COOP_ID, greedy={ANN})  # won
    await play(h, {ANN: "Ann", BOB: "Bob"}, game=COOP_ID)  # lost: nobody took three
    await play(h, {ANN: "Ann", CAROL: "Carol"}, game=COOP_ID, greedy={CAROL})  # won
    text = (await leaderboard(h, COOP_ID)).content
    assert text.startswith("## Toy Nim Together: team results\n")
    assert "The team won 2 of 3 games (67%) in this server." in text
    assert "By table size: 2 players 2/3 (67%)" in text
    assert "1. **Ann**: 2 wins in 3 games (67%)" in text
    assert "**Carol**: 1 win in 1 game (100%)" in text
    assert "**Bob**: 1 win in 2 games (50%)" in text
    assert "μ" not in text  # no ratings: nobody to rate against


async def test_winter_tales_rates_factions_as_teams(h: Harness) -> None:
    # Spring (Ann, Bob) beats Winter (Carol, Dan) three times; recorded as the engine's
    # outcome records it: the winning Faction's seats, every seat its Faction's score.
    seats = [{"index": i, "name": n, "user_id": u, "ai_level": None}
             for i, (n, u) in enumerate([("Ann", ANN), ("Bob", BOB), ("Carol", CAROL),
                                         ("Dan", DAN)])]
    now = utcnow()
    for n in range(3):
        await record(h, ResultRecord(
            table_id=f"wt{n}", guild_id=GUILD_ID, channel_id=CHANNEL_ID, game_id="winter-tales",
            options={}, seats=seats, winners=[0, 1], scores={0: 9, 1: 9, 2: 6, 3: 6},
            reason="Spring wins the Epilogue.", cooperative=False, moves=80,
            started_at=now - timedelta(hours=2), finished_at=now + timedelta(minutes=n)))
    text = (await leaderboard(h, "winter-tales")).content
    assert set(board_names(text)[:2]) == {"Ann", "Bob"}
    rows = dict(re.findall(r"\*\*(\w+)\*\*: (-?\d+\.\d)", text))
    assert rows["Ann"] == rows["Bob"] and rows["Carol"] == rows["Dan"]  # one team each
    assert float(rows["Ann"]) > float(rows["Carol"])
    sent = await h.slash("stats", DAN, uname="Dan")
    assert "3 games, 0 wins (0%)" in answer(sent).content


async def test_leaderboard_without_history_and_unknown_game(h: Harness) -> None:
    text = (await leaderboard(h, "fairy-tale-inn")).content
    assert text == "Nobody has finished a game of **Fairy Tale Inn** in this server yet."
    sent = await h.slash("leaderboard", ANN, game="chess")
    reply = answer(sent)
    assert reply.ephemeral and "chess" in reply.content  # a refusal stays private
    assert not [s for s in sent if s.kind == "followup" and not s.ephemeral]


async def test_a_leaderboard_that_cannot_be_read_apologises_privately(
        h: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(h.service.store, "results", broken)
    sent = await h.slash("leaderboard", ANN, game=TOY_ID)
    assert only(sent, "callback").ephemeral
    assert all(s.ephemeral for s in sent if s.kind in ("followup", "edit_original"))
    assert not [s for s in sent if s.kind == "channel_message"]
    assert "database went away" not in answer(sent).content


async def test_leaderboard_offers_games_to_complete(h: Harness) -> None:
    sent = await h.autocomplete("leaderboard", ANN, "game", game="inn")
    assert {"name": "Fairy Tale Inn", "value": "fairy-tale-inn"} in sent.payload["data"]["choices"]


# --------------------------------------------------------------------------- per server


async def test_another_servers_games_never_show(h: Harness) -> None:
    await play(h, {ANN: "Ann", BOB: "Bob"}, greedy={BOB}, guild=OTHER_GUILD)
    await play(h, {ANN: "Ann", BOB: "Bob"}, game=COOP_ID, greedy={ANN}, guild=OTHER_GUILD)
    sent = await h.slash("stats", ANN, uname="Ann")
    assert "has not finished a game in this server yet" in answer(sent).content
    assert "Nobody has finished" in (await leaderboard(h, TOY_ID)).content
    assert "Nobody has finished" in (await leaderboard(h, COOP_ID)).content

    await play(h, {ANN: "Ann", CAROL: "Carol"}, greedy={ANN})
    text = (await leaderboard(h, TOY_ID)).content
    assert board_names(text) == ["Ann", "Carol"]  # Bob played only in the other server
    assert "1 game in this server" in text


# --------------------------------------------------------------------------- history


async def test_history_text_lists_the_channels_games(h: Harness) -> None:
    assert await history_text(h.service, CHANNEL_ID) == (
        "No game has finished in this channel yet.")
    await play(h, {ANN: "Ann", BOB: "Bob"}, greedy={BOB}, channel=CHANNEL_ID)
    await play(h, {ANN: "Ann", CAROL: "Carol"}, game=COOP_ID, greedy={ANN},
               channel=CHANNEL_ID)
    await play(h, {ANN: "Ann", CAROL: "Carol"}, greedy={ANN})  # another channel
    text = await history_text(h.service, CHANNEL_ID)
    lines = text.splitlines()
    assert lines[0] == "**The last 2 games in this channel**"
    assert lines[1].startswith("**Toy Nim Together** · <t:")  # newest first
    assert lines[2] in ("  The team won: Ann, Carol", "  The team won: Carol, Ann")
    assert lines[3].startswith("**Toy Nim** · <t:")
    assert re.search(r"\d moves, (\d+ min|under a minute)$", lines[3])
    assert re.fullmatch(r"  \*\*Bob\*\* \d \(won\) · Ann \d", lines[4])


async def test_history_text_fits_and_shows_names_literally(h: Harness) -> None:
    name = "*@everyone* [x](https://e.example) "[:32]
    seats = [{"index": i, "name": name, "user_id": u, "ai_level": None}
             for i, u in enumerate((ANN, BOB, CAROL, DAN))]
    now = utcnow()
    for n in range(30):
        await record(h, ResultRecord(
            table_id=f"t{n}", guild_id=GUILD_ID, channel_id=CHANNEL_ID, game_id=TOY_ID,
            options={}, seats=seats, winners=[0], scores={0: 3, 1: 2, 2: 1, 3: 0},
            reason=None, cooperative=False, moves=9, started_at=now,
            finished_at=now + timedelta(seconds=n)))
    text = await history_text(h.service, CHANNEL_ID, limit=30)
    assert len(text) <= 2000
    assert text.endswith("more.")  # the older games are counted, not cut mid-line
    assert "@everyone" not in text and "\\*@\u200beveryone\\*" in text
    assert len((await leaderboard(h, TOY_ID)).content) <= 2000


def test_ratings_replay_in_finish_order_and_ties_share_a_rank() -> None:
    now = utcnow()
    seats = [{"index": i, "name": n, "user_id": u, "ai_level": None}
             for i, (n, u) in enumerate([("Ann", ANN), ("Bob", BOB), ("Carol", CAROL)])]

    def game(n: int, scores: dict[int, float]) -> ResultRecord:
        return ResultRecord(table_id=str(n), guild_id=GUILD_ID, channel_id=CHANNEL_ID,
                            game_id=TOY_ID, options={}, seats=seats, winners=[0],
                            scores=scores, reason=None, cooperative=False, moves=1,
                            started_at=now, finished_at=now + timedelta(seconds=n))

    # Bob and Carol tie behind Ann: they are rated alike; a better score ranks higher.
    tied = {r.name: r for r in rate_results([game(1, {0: 5, 1: 2, 2: 2})])}
    assert tied["Bob"].mu == tied["Carol"].mu < tied["Ann"].mu
    ranked = {r.name: r for r in rate_results([game(1, {0: 5, 1: 3, 2: 2})])}
    assert ranked["Ann"].mu > ranked["Bob"].mu > ranked["Carol"].mu
    # The order given does not matter: results are replayed as they finished.
    games = [game(1, {0: 5, 1: 3, 2: 2}), game(2, {0: 5, 1: 2, 2: 3})]
    assert rate_results(games) == rate_results(list(reversed(games)))


def test_a_game_declared_as_team_play_is_rated_side_against_side() -> None:
    """Teams come from the game's declaration (``GameSpec.team_play``), not from a list
    of game ids in shared code: the same result rates the two winners as one team when
    the toy is declared so, and as two rivals who shared first place otherwise."""
    now = utcnow()
    seats = [{"index": i, "name": n, "user_id": u, "ai_level": None}
             for i, (n, u) in enumerate([("Ann", ANN), ("Bob", BOB), ("Carol", CAROL)])]
    result = ResultRecord(table_id="t", guild_id=GUILD_ID, channel_id=CHANNEL_ID,
                          game_id=TOY_ID, options={}, seats=seats, winners=[0, 1],
                          scores={0: 5, 1: 5, 2: 2}, reason=None, cooperative=False,
                          moves=1, started_at=now, finished_at=now)
    with toy_registered(team_play=True):
        teams = {r.name: r for r in rate_results([result])}
    with toy_registered(team_play=False):
        alone = {r.name: r for r in rate_results([result])}
    assert teams["Ann"].mu == teams["Bob"].mu > teams["Carol"].mu
    # Two against one gains each winner less than beating everyone as one's own side.
    assert teams["Ann"].mu != alone["Ann"].mu
