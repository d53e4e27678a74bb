"""One table seen from several places, against the REAL server (the bot process with
WEB_PORT on the Discord emulator): two people in the Activity (two browsers) and a third
on Discord's message buttons; a board that loses its socket or is reloaded mid-game; a
spectator. Every state each browser received is checked against the table's replay, and
the emulator's messages by the shared leak check."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.e2e.hidden import assert_no_hidden_information, assert_web_views_hidden
from tests.emulator import Person
from tests.web.conftest import DESKTOP, PHONE
from tests.web.live import Board, Live, discord_turn, wait_until

pytestmark = pytest.mark.e2e


def to_act(live: Live) -> int | None:
    """The user id of the one person the table waits for (None: an AI, several, or the
    end)."""
    from engines import get_game

    row = live.row()
    if row.finished:
        return None
    game = get_game(row.game_id)
    seats = game.to_act(game.load_state(row.state))
    if len(seats) != 1:
        return None
    seat = next(s for s in row.seats if s["index"] == seats[0])
    user: int | None = seat.get("user_id")
    return user


def board_turn(live: Live, board: Board) -> None:
    """One choice of ``board``'s person, once their board shows the table's version."""
    version = live.row().version
    snap = wait_until(lambda: (s := board.wait_version(version)) and board.has_choice(s)
                      and s, 20, f"{board.person.name}'s choices at v{version}")
    board.play_one(snap)


def on_discord(live: Live, person: Person, rng: random.Random) -> int:
    """One decision of ``person`` on Discord; returns the version it made."""
    before = live.row().version
    live.run(discord_turn(live, person, rng, before), 60)
    live.run(live.emu.wait_for(lambda: live.row().version > before, 20, "the Discord move"))
    return live.row().version


def channel_text(live: Live) -> str:
    return live.call(lambda: "\n".join(
        f"{m.text}\n{m.raw_json()}" for m in live.emu.channel.messages))


def test_two_in_the_activity_and_one_on_discord_see_each_others_moves(
        browser: Any, live: Live) -> None:
    started = time.monotonic()
    ann, bob, carol = (live.call(lambda n=n: live.emu.user(n)) for n in ("ann", "bob", "carol"))
    live.open_table("treasure", [ann, bob, carol], options="king_path_length=4", seed=3)
    boards = {ann.id: live.board(browser(DESKTOP), ann, seed=1),
              bob.id: live.board(browser(PHONE), bob, seed=2)}
    rng = random.Random(3)
    discord_moves: list[int] = []
    activity_moves: list[int] = []
    for _ in range(300):
        if live.row().finished:
            break
        user = to_act(live)
        if user == carol.id:
            version = on_discord(live, carol, rng)
            discord_moves.append(version)
        elif user in boards:
            before = live.row().version
            board_turn(live, boards[user])
            if live.row().version > before:
                activity_moves.append(live.row().version)
        else:
            time.sleep(0.05)
            continue
        # Both boards follow every move, whoever made it and wherever.
        version = live.row().version
        for board in boards.values():
            board.wait_version(version)
    row = live.row()
    assert row.status == "finished"
    assert discord_moves and activity_moves
    assert {p.where for b in boards.values() for p in b.played} >= {"board"}

    # Each board got every state of the game in version order (its hello's, then one per
    # commit), so it saw each of carol's Discord moves as it was made.
    for board in boards.values():
        versions = [s["version"] for s in board.states()]
        assert versions == sorted(versions)
        assert set(discord_moves) <= set(versions), f"{board.person.name} missed a move"
        assert board.snapshot()["status"] == "finished"  # type: ignore[index]
    # The channel's messages tell the Activity people's moves: each such commit's news.
    text = channel_text(live).replace("**", "")
    told = 0
    for state in boards[ann.id].states():
        if state["version"] in activity_moves:
            for line in state["lines"]:
                assert line.replace("**", "").strip() in text, (
                    f"the channel does not tell {line!r}")
                told += 1
    assert told > 0
    live.run(live.emu.settle(quiet=0.5))
    assert_no_hidden_information(live.emu, live.db, live.emu.channel.id)
    checked = assert_web_views_hidden(live.db, live.emu.channel.id,
                                      {b.person.id: b.all_received() for b in boards.values()})
    assert checked >= 2 * len(discord_moves)
    assert live.bot is not None
    live.bot.assert_log_clean()
    print(f"three seats: {len(activity_moves)} Activity moves, {len(discord_moves)} Discord "
          f"moves, v{row.version}, {time.monotonic() - started:.1f}s")


def test_a_board_that_was_away_resyncs_and_a_spectator_watches(browser: Any,
                                                               live: Live) -> None:
    started = time.monotonic()
    ann, bob, carol = (live.call(lambda n=n: live.emu.user(n)) for n in ("ann", "bob", "carol"))
    live.open_table("fairy-tale-inn", [ann, bob], seed=5)
    board = live.board(browser(DESKTOP), ann, seed=1)
    watcher = live.board(browser(PHONE), carol, seed=2)
    rng = random.Random(5)

    def until(user: int) -> None:
        """Play (ann on the board, bob on Discord) until ``user`` is to act."""
        for _ in range(40):
            now = to_act(live)
            assert now is not None, "the game ended before the test did"
            if now == user:
                return
            if now == ann.id:
                board_turn(live, board)
            else:
                on_discord(live, bob, rng)
        raise AssertionError("the turn never came")

    # 1. The socket drops (a network cut) while bob moves on Discord.
    until(bob.id)
    shown = board.wait_version(live.row().version)["version"]
    live.cut()
    wait_until(lambda: board.snapshot()["conn"] != "live", 10,  # type: ignore[index]
               "ann's board to notice the cut")
    until(ann.id)
    missed = live.row().version
    assert missed > shown
    assert board.snapshot()["version"] == shown  # type: ignore[index]
    live.restore()
    back = board.wait_version(missed)
    assert back["conn"] == "live" and back["version"] == missed
    assert board.has_choice(back), "ann's turn shows her choices again"
    hellos = [m for m in board.all_sent() if m["type"] == "hello"]
    assert len(hellos) >= 2 and hellos[-1]["version"] == shown  # said what it had shown
    watcher.wait_version(missed)

    # 2. The page is reloaded (signed in again) after bob moved while it was away.
    board_turn(live, board)
    until(bob.id)
    board.away()
    shown = board.states()[-1]["version"] if board.states() else -1
    until(ann.id)
    missed = live.row().version
    assert missed > shown
    board.open()
    again = board.wait_version(missed)
    assert again["version"] == missed and board.has_choice(again)
    board_turn(live, board)  # and it plays on
    watcher.wait_version(live.row().version)

    # 3. The spectator saw it all: the public view, no choices, nothing sent but hellos.
    snap = watcher.snapshot()
    assert snap is not None and snap["banner"] and snap["seat"] is None
    assert snap["menus"] == [] and snap["targets"] == [] and snap["step"] == []
    states = watcher.states()
    assert states and all(s["seat"] is None and s["menus"] == [] for s in states)
    assert {m["type"] for m in watcher.all_sent()} == {"hello"}
    assert [s["version"] for s in states] == sorted(s["version"] for s in states)

    live.run(live.emu.settle(quiet=0.5))
    assert_no_hidden_information(live.emu, live.db, live.emu.channel.id)
    checked = assert_web_views_hidden(live.db, live.emu.channel.id,
                                      {ann.id: board.all_received(),
                                       carol.id: watcher.all_received()})
    assert checked == len(board.states()) + len(states)
    assert live.bot is not None
    live.bot.assert_log_clean()
    print(f"away and back: v{live.row().version}, {time.monotonic() - started:.1f}s")


def test_a_spectator_sees_no_private_part(browser: Any, live: Live) -> None:
    """Winter Tales has hands: the seat's own view shows its Story cards, the public view
    (all a spectator gets) does not."""
    from engines import get_game

    started = time.monotonic()
    ann, carol = (live.call(lambda n=n: live.emu.user(n)) for n in ("ann", "carol"))
    live.open_table("winter-tales", [ann], ais=2, seed=1)
    board = live.board(browser(DESKTOP), ann, seed=1)
    watcher = live.board(browser(PHONE), carol, seed=2)
    for _ in range(6):
        if live.row().finished:
            break
        wait_until(lambda: board.has_choice(board.wait_version(live.row().version)), 20,
                   "ann's choices")
        board.play_one()
    version = live.row().version
    mine = board.wait_version(version)
    theirs = watcher.wait_version(version)
    assert mine["seat"] is not None and theirs["seat"] is None and theirs["banner"]
    assert theirs["menus"] == [] and theirs["targets"] == []
    game = get_game("winter-tales")
    state = game.load_state(live.row().state)
    own = board.states()[-1]["view"]
    public = watcher.states()[-1]["view"]
    assert public == game.view(state, None).model_dump(mode="json")
    assert own == game.view(state, mine["seat"]).model_dump(mode="json")
    private = [k for k in own if k != "seat" and own[k] != public.get(k)]
    assert private, "the seat's own view has a private part"
    assert {m["type"] for m in watcher.all_sent()} == {"hello"}
    checked = assert_web_views_hidden(live.db, live.emu.channel.id,
                                      {ann.id: board.all_received(),
                                       carol.id: watcher.all_received()})
    assert checked == len(board.states()) + len(watcher.states())
    assert live.bot is not None
    live.bot.assert_log_clean()
    print(f"a spectator of Winter Tales: v{version}, {time.monotonic() - started:.1f}s")
