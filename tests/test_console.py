"""The console table driven with scripted stdin (it uses the real TableService)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.console.table import main
from tests.toy_game import TOY_ID, toy_registered


def run(argv: list[str], script: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdin=io.StringIO(script), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_full_game_against_the_ai(tmp_path: Path) -> None:
    code, out, err = run(
        ["fairy-tale-inn", "--data-dir", str(tmp_path), "--ai-level", "greedy", "--seed", "5",
         "--names", "Ann"],
        "1\n" * 200,
    )
    assert code == 0, err
    assert "New Fairy Tale Inn table" in out and "(seed 5)" in out
    # named moves in short menus: a Guest List slot, then a column
    assert "Who plays?" not in out  # naming an AI level says who plays
    assert "Ann, your move:" in out and "into which column?" in out
    assert "AI (greedy) took" in out  # AI moves arrive through the listener
    # the picture is rewritten after every move; its path is told once
    assert "Game over" in out and out.count("Board image:") == 1
    png = (tmp_path / "board.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert (tmp_path / "console.db").exists()
    assert "    +-----+" in out  # the text board


def test_hot_seat_game_is_the_same_service(tmp_path: Path) -> None:
    code, out, _ = run(
        ["fairy-tale-inn", "--hotseat", "--names", "Ann,Bob", "--data-dir", str(tmp_path),
         "--seed", "8", "--no-png"],
        "2\n" * 300,
    )
    assert code == 0
    assert "Ann, your move:" in out and "Bob, your move:" in out
    assert "AI" not in out.split("New Fairy Tale Inn table")[1].split("\n")[0]
    assert "Game over" in out and "Board image" not in out


def test_quit_and_resume(tmp_path: Path) -> None:
    args = ["fairy-tale-inn", "--hotseat", "--data-dir", str(tmp_path), "--seed", "3",
            "--no-png"]
    code, out, _ = run(args, "1\n1\n1\n1\nq\n")  # two moves, each a slot and a column
    assert code == 0 and "Saved. Run the same command to resume" in out
    code, out, _ = run(args, "q\n")
    assert code == 0 and "Resuming your unfinished Fairy Tale Inn game (move 2)" in out
    code, out, _ = run(args, "")  # end of input also saves
    assert code == 0 and "Resuming" in out and "Saved." in out
    code, out, _ = run([*args, "--new"], "q\n")
    assert "Abandoned the unfinished Fairy Tale Inn table." in out and "New Fairy" in out


def test_bad_input_is_explained_and_changes_nothing(tmp_path: Path) -> None:
    code, out, _ = run(
        ["fairy-tale-inn", "--hotseat", "--data-dir", str(tmp_path), "--seed", "3",
         "--no-png"],
        "abc\n999\n0\nh\nb\nl\n1\n1\nl\nq\n",
    )
    assert code == 0
    assert out.count("Please type a number from 1 to") == 2  # abc, 999
    assert "This is the first menu of your move." in out  # 0 (back) with nowhere to go
    assert "board (b)    the board again" in out  # h
    assert "Nothing has happened yet." in out  # the log before any move
    assert "The latest moves:" in out  # the log after one
    assert "Saved." in out and "Traceback" not in out


def test_menus_when_arguments_are_missing(tmp_path: Path) -> None:
    script = "9\n1\n7\n2\nq\n"  # bad game number, FTI, bad mode number, hot seat, quit
    code, out, _ = run(["--data-dir", str(tmp_path), "--no-png"], script)
    assert code == 0
    assert "Which game?" in out and "Fairy Tale Inn (fairy-tale-inn)" in out
    assert "Please type a number from 1 to" in out
    assert "Who plays?" in out and "Please type a number from 1 to 2." in out
    assert re.search(r"Player [12], your move:", out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chess"], "no game called 'chess'"),
        (["fairy-tale-inn", "-o", "colour=red"], "unknown option 'colour'"),
        (["fairy-tale-inn", "-o", "nonsense"], "name=value"),
        (["pocket", "-o", "special=wand", "-o", "special=boots"],
         "The option 'special' is given twice: give it once."),
        (["fairy-tale-inn", "--players", "5"], "takes 2 to 2 players"),
        (["fairy-tale-inn", "--ai", "--ai-level", "wizard"], "no AI level 'wizard'"),
        (["fairy-tale-inn", "--ai-budget", "0"], "at least 1"),
    ],
)
def test_bad_arguments_exit_2(tmp_path: Path, argv: list[str], message: str) -> None:
    code, _, err = run([*argv, "--data-dir", str(tmp_path)], "q\n")
    assert code == 2 and message in err
    # A refused setup leaves no half-made table behind.
    code, out, _ = run(["fairy-tale-inn", "--hotseat", "--data-dir", str(tmp_path)], "q\n")
    assert code == 0 and "Resuming" not in out


def test_help_and_usage_errors() -> None:
    assert run(["--help"], "")[0] == 0
    assert run(["--players", "many"], "")[0] == 2


def test_a_game_without_renderer_or_text_board(tmp_path: Path) -> None:
    with toy_registered(board=None, private_picture=None):
        code, out, _ = run([TOY_ID, "--hotseat", "--data-dir", str(tmp_path), "-o", "pile=4"],
                           "1\n" * 10)
    assert code == 0
    assert "No board image: there is no board image for Toy Nim yet" in out
    assert "pile left: 4" in out  # the generic text board
    assert "take n=1" in out and "Game over" in out


# --------------------------------------------------------------------------- scripted play


class Screen(io.StringIO):
    """The console's stdout in a test; remembers its last characters, which is what
    the scripted player reads to know which prompt it is at."""

    def __init__(self) -> None:
        super().__init__()
        self.tail = ""

    def write(self, text: str) -> int:
        self.tail = (self.tail + text)[-400:]
        return super().write(text)


Respond = Callable[[str], "str | None"]
"""A scripted player's own answer to what the console printed since the last answer
(``None``: the usual answer)."""


class Player(io.TextIOBase):
    """Scripted stdin, read through the console's own input: first ``lines``, then one
    answer per prompt: ``respond``'s if it has one, else Enter where the console says
    "press Enter", ``default`` at a move, some words where the console asks for them,
    ``again`` (then "n") at "Play again?". After ``limit`` answers the input ends, so a
    game that does not end cannot hang the test."""

    WORDS = "The snow fell on Wintertown."

    def __init__(self, screen: Screen, lines: Sequence[str] = (), *, default: str = "1",
                 again: Sequence[str] = (), limit: int = 600,
                 respond: Respond | None = None) -> None:
        self.screen, self.lines, self.again = screen, list(lines), list(again)
        self.default, self.limit, self.answers = default, limit, 0
        self.respond, self.read = respond, 0

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        if self.lines:
            return self.lines.pop(0) + "\n"
        tail = self.screen.tail
        if tail.endswith("Play again? [y/N] "):
            return (self.again.pop(0) if self.again else "n") + "\n"
        self.answers += 1
        if self.answers > self.limit:
            return ""
        if self.respond is not None:
            text = self.screen.getvalue()
            answer, self.read = self.respond(text[self.read:]), len(text)
            if answer is not None:
                return answer + "\n"
        if tail.endswith("words> "):
            return self.WORDS + "\n"
        if "press Enter" in tail.rpartition("\n")[2]:
            return "\n"
        return self.default + "\n"


def play(argv: list[str], lines: Sequence[str] = (), **kw: Any) -> tuple[int, str, str]:
    """A whole console session driven by a :class:`Player`."""
    screen, err = Screen(), io.StringIO()
    code = main(argv, stdin=Player(screen, lines, **kw), stdout=screen, stderr=err)
    return code, screen.getvalue(), err.getvalue()


def result_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("Game over")]


def assert_reached_the_end(code: int, out: str, err: str) -> str:
    """The session ended well: one result, then the offer of another game."""
    assert code == 0, err
    assert "Traceback" not in out + err
    results = result_lines(out)
    assert len(results) == 1, results  # the result is printed once
    assert out.index(results[0]) < out.index("Play again? [y/N]")
    assert out.rstrip().endswith("Thanks for playing!")
    return results[0]


def test_walkthrough_fairy_tale_inn_slot_then_column(tmp_path: Path) -> None:
    code, out, err = play(["fairy-tale-inn", "--ai", "--ai-level", "greedy", "--names", "Ann",
                           "--seed", "5", "--data-dir", str(tmp_path), "--no-png"])
    result = assert_reached_the_end(code, out, err)
    assert re.fullmatch(r"Game over\. (Ann|AI \(greedy\)) wins! .*Scores: .*\.", result)
    # A move is two short menus: the Guest List (a slot), then the open columns.
    first = out.index("Pick a guest from the Guest List.")
    menu = out[first:out.index("> ", first)].splitlines()
    assert 2 <= len(menu) <= 5  # the prompt and at most four slots, not 28 moves
    column = out[out.index("into which column?", first):].splitlines()
    assert column[1:3] == ["   1. Column 1", "   2. Column 2"] and "   0. Back" in column
    assert "-> column" not in out  # no "take X -> column N" list of every pair
    assert "You against the computer" not in out  # --ai says who plays
    assert "Key: " in out and "AI (greedy) took" in out


def test_fti_unaffordable_slot_is_shown_with_the_reason(tmp_path: Path) -> None:
    # Seed 3: the first player has 1 gold and slot 1 costs 2.
    code, out, _ = play(["fairy-tale-inn", "--hotseat", "--seed", "3", "--temp", "--no-png"],
                        ["2", "0", "1", "4", "q"])
    assert code == 0
    assert "   -  Little Red Riding Hood · 2 gold  (not now: You have 1 gold; slot 1 costs " \
           "2.)" in out
    # 2 = the third slot; 0 goes back to the slots; 1 (Little Pig), column 4
    assert "Drop Little Red Riding Hood (free) into which column?" in out
    assert "dropped it in column 4" in out and "Little Pig" in out


def test_walkthrough_treasure_as_a_team(tmp_path: Path) -> None:
    # A short king's path, so the walk ends quickly; "2": you and an AI teammate.
    code, out, err = play(["treasure", "-o", "king_path_length=4", "--seed", "3",
                           "--data-dir", str(tmp_path), "--no-png"], ["2"])
    result = assert_reached_the_end(code, out, err)
    assert "You and an AI teammate" in out and "against" not in out
    assert "one team, you all win or lose together" in out
    assert re.fullmatch(r"Game over\. The team (won!|lost\.) .+", result)
    assert "Scores" not in result  # no rival scores for one team
    assert "Which way should the tile on" in out  # a tile, then a direction
    assert "Key: :::::: a grey meadow tile" in out


def test_walkthrough_pocket_solitaire(tmp_path: Path) -> None:
    code, out, err = play(["pocket", "--seed", "3", "--data-dir", str(tmp_path), "--no-png"],
                          ["1"])
    result = assert_reached_the_end(code, out, err)
    assert "Just you (solitaire)" in out and "Seating: 1. Player." in out
    assert re.fullmatch(r"Game over\. You (won!|lost\.) .+", result)
    assert "Scores" not in result and "You against" not in out
    assert "Key: [Name] a place on the map" in out


def test_walkthrough_crossroads_inn(tmp_path: Path) -> None:
    code, out, err = play(["crossroads-inn", "--ai", "--ai-level", "heuristic", "--seed", "5",
                           "--data-dir", str(tmp_path), "--no-png"])
    result = assert_reached_the_end(code, out, err)
    assert re.fullmatch(r"Game over\. .+ wins?! .+ Scores: .+\.", result)
    assert "Keep " in out and "Building: where does" in out  # the draft, the build
    assert "see /hand" not in out  # Discord's words are not the console's
    assert re.search(r"Key: innkeepers A (Player|AI \(heuristic\)), B (Player|AI)", out)


def test_walkthrough_winter_tales_with_words(tmp_path: Path) -> None:
    code, out, err = play(["winter-tales", "--ai", "-o", "memories=3", "--seed", "5",
                           "--data-dir", str(tmp_path), "--no-png"])
    result = assert_reached_the_end(code, out, err)
    assert re.fullmatch(r"Game over\. .+ wins?! .+ Scores: .+\.", result)
    # A choice told in your own words asks for them, and they join the story.
    assert "tell it in your own words, on one line" in out
    assert out.count(Player.WORDS) > 5
    assert "Key: " in out


def test_play_again_same_settings_new_seed(tmp_path: Path) -> None:
    code, out, _ = play(["fairy-tale-inn", "--ai", "--ai-level", "greedy", "--names", "Ann",
                         "--seed", "5", "--data-dir", str(tmp_path), "--no-png"],
                        again=["maybe", "y"], limit=30)  # ~20 answers a game
    assert code == 0
    assert "Please answer y or n." in out  # "maybe" is asked again
    tables = re.findall(r"New Fairy Tale Inn table \w+ \(seed (\d+)\)", out)
    assert tables == ["5", "6"]  # a new game, a new seed
    second = out[out.index("(seed 6)"):]
    assert "Seating: " in second and "Ann" in second and "AI (greedy)" in second
    assert "Saved. Run the same command to resume" in out  # the limit ended the input


def test_play_again_no_ends_the_session(tmp_path: Path) -> None:
    code, out, _ = play(["pocket", "--seed", "3", "--temp", "--no-png"], ["1"], again=["n"])
    assert code == 0 and out.count("New Fairy Tale in My Pocket table") == 1
    assert out.rstrip().endswith("Thanks for playing!")


# --------------------------------------------------------------------------- at the table


def test_rules_help_board_log_and_hand_at_the_table(tmp_path: Path) -> None:
    code, out, _ = run(["fairy-tale-inn", "--hotseat", "--seed", "3", "--temp", "--no-png"],
                       "rules\nr\nhelp\n?\nboard\nlog\nhand\n1\nrules\n0\nq\n")
    assert code == 0
    # rules: the /rules summary (data/rules/fairy_tale_inn.json) as plain text
    assert out.count("Goal: End the game with the most gold.") == 3
    assert "A turn:\n  1. Take a character from the Guest List" in out
    assert "Full rules: The Fairy Tale Inn rulebook" in out
    assert "/inn board" not in out  # its Discord-only line is replaced
    assert out.count("quit (q)     save and quit") == 2
    assert out.count("Guest List: 1)") >= 2  # board again
    assert "Nothing has happened yet." in out
    assert "(Your own view: the others look away.)" in out  # hand in hot seat
    # a command in the follow-up menu keeps the follow-up; 0 goes back to the slots
    assert out.count("into which column?") == 2 and "   0. Back" in out
    assert "Bye! (A --temp game is not kept.)" in out


def test_rules_text_of_every_game_is_its_rules_file() -> None:
    from bot.console.texts import rules_text
    from engines.catalog import specs

    for declared in specs():
        summary = declared.rules_summary()
        assert summary is not None
        text = rules_text(declared.id)
        assert text.splitlines()[0] == summary.name
        assert " ".join(summary.goal.split()[:6]) in " ".join(text.split())
        assert f"{len(summary.turn)}. " in text and "Full rules:" in text


@pytest.mark.parametrize("script", [
    "x\n", "99\n", "-1\n", "1.5\n", " \n", "quit please\n", "\x1b[A\n", "1 2\n",
])
def test_bad_input_at_a_move_is_one_line_and_the_same_prompt(script: str) -> None:
    code, out, err = run(["fairy-tale-inn", "--hotseat", "--seed", "3", "--temp", "--no-png"],
                         script + "1\n1\nq\n")
    assert code == 0 and "Traceback" not in out + err
    assert "Please type a number from 1 to 3 (help lists the commands)." in out
    assert "dropped it in column 1" in out  # the next answer still counts


def test_bad_input_in_the_setup_menus_and_at_the_end(tmp_path: Path) -> None:
    code, out, err = run(["treasure", "--temp", "--no-png"], "0\nteam\n4\n")
    assert code == 0 and "Traceback" not in out + err
    assert out.count("Please type a number from 1 to 3.") == 3
    assert "Nothing to play. Bye!" in out  # the input ended at the menu


def test_end_of_input_and_quit_anywhere_leave_cleanly(tmp_path: Path) -> None:
    base = ["fairy-tale-inn", "--hotseat", "--data-dir", str(tmp_path), "--seed", "3",
            "--no-png"]
    for script in ("", "1\n", "1\nq\n", "rules\n"):  # at the slots, at the columns
        code, out, err = run([*base, "--new"], script)
        assert code == 0 and "Traceback" not in out + err
        assert out.rstrip().endswith("to resume (table " + out.rstrip()[-10:-2] + ").")
        assert "Saved. Run the same command without --new to resume" in out
    code, out, _ = run(["fairy-tale-inn", "--temp", "--no-png"], "q\n")
    assert "Nothing to play. Bye!" in out  # quit at "Who plays?"
    code, out, _ = run(["fairy-tale-inn", "--hotseat", "--temp", "--no-png"], "q\n")
    assert "Bye! (A --temp game is not kept.)" in out


def test_unreadable_input_is_asked_again() -> None:
    class Broken(io.StringIO):
        def __init__(self) -> None:
            super().__init__("1\n1\nq\n")
            self.failed = False

        def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
            if not self.failed:
                self.failed = True
                raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
            return super().readline()

    out, err = io.StringIO(), io.StringIO()
    code = main(["fairy-tale-inn", "--hotseat", "--temp", "--no-png", "--seed", "3"],
                stdin=Broken(), stdout=out, stderr=err)
    assert code == 0 and "could not be read as text" in out.getvalue()
    assert "dropped it in column 1" in out.getvalue()


# --------------------------------------------------------------------------- who plays


def test_a_team_game_never_says_against_the_computer(tmp_path: Path) -> None:
    for game in ("treasure", "pocket"):
        code, out, _ = run([game, "--players", "3", "--temp", "--no-png"], "q\n")
        assert code == 0
        assert "You and 2 AI teammates" in out and "one team" in out
        assert "against the computer" not in out
    code, out, _ = run(["crossroads-inn", "--players", "3", "--temp", "--no-png"], "q\n")
    assert "You against 2 computer players (search)" in out


def test_team_results_read_as_one_team() -> None:
    from bot.console.texts import result_text
    from engines.core import Outcome

    names = ["Ann", "Bob", "Cy"].__getitem__
    won = Outcome(winners=[0, 1, 2], scores={0: 12, 1: 12, 2: 12}, reason="the treasure is safe")
    lost = Outcome(winners=[], scores={0: 5, 1: 5, 2: 5}, reason="the king came home")
    assert result_text(won, names, 3, team=True) == "The team won! The treasure is safe."
    assert result_text(lost, names, 3, team=True) == "The team lost. The king came home."
    # a result shaped like a team's reads as one even if the game is not known as one
    assert result_text(lost, names, 3, team=False) == "The team lost. The king came home."
    rivals = Outcome(winners=[2], scores={0: 5, 1: 6, 2: 9}, reason="the most gold")
    assert result_text(rivals, names, 3, team=False) == \
        "Cy wins! The most gold. Scores: Ann 5, Bob 6, Cy 9."


# --------------------------------------------------------------------------- --help, keys


def test_play_help_lists_games_levels_options_and_an_example() -> None:
    code, out, _ = run(["--help"], "")
    assert code == 0
    from engines.agents import agent_levels
    from engines.catalog import specs

    for declared in specs():
        assert f"  {declared.id:<16} {declared.name} (" in out
        assert ", ".join(agent_levels(declared.id)) in out
        for name in declared.engine.Options.model_fields:
            assert f"-o {name}=" in out, name
    assert "Fairy Tale Inn (2 players)" in out and "no options" in out
    assert "Save the Treasure of Fairy Tales (1-4 players, one team)" in out
    assert "-o king_path_length=4..99 (default 23)" in out
    assert "-o special=random|mirror|wand|boots (default random)" in out
    assert "-o basic_tiles=draft|random|none (default draft)" in out
    assert "-o interrupt_timeout=SECONDS (default 300)" in out  # a table setting
    assert "AI levels: random, greedy, mcts (default mcts, the strongest)" in out
    assert "AI teammates: random, team, sharp" in out
    assert "examples:\n  fabletop play fairy-tale-inn" in out
    assert "at the table:" in out and "rules (r)" in out
    # one game named: its block only
    code, one, _ = run(["pocket", "--help"], "")
    assert "Fairy Tale in My Pocket" in one and "Fairy Tale Inn (" not in one


@pytest.mark.parametrize("game_id", ["fairy-tale-inn", "treasure", "winter-tales",
                                     "crossroads-inn", "pocket"])
def test_every_text_board_ends_with_a_key(game_id: str) -> None:
    from engines import get_game
    from renderers.text import text_board

    game = get_game(game_id)
    players = max(game.min_players, 2)
    state = game.setup(players, game.Options(), 3)
    for seat in (None, 0):
        text = text_board(game_id, game.view(state, seat), lambda s: f"Seat{s}")
        lines = text.splitlines()
        start = max(i for i, line in enumerate(lines) if line.startswith("Key: "))
        assert all(line.startswith("  ") for line in lines[start + 1:])  # the key is last
        assert len(" ".join(lines[start:])) > 40


def test_the_winter_tales_board_and_its_key() -> None:
    from engines import get_game
    from renderers.text_winter import winter_tales_board

    game = get_game("winter-tales")
    state = game.setup(3, game.Options(), 3)
    text = winter_tales_board(game.view(state, 0), ["Ann", "Bob", "Cy"].__getitem__)
    assert "Storytellers, in turn order:" in text and "Story Arbiter" in text
    assert "Not in play yet: Alice (S)" in text
    assert text.splitlines()[-3].startswith("Key: S a Spring character")


def test_a_key_is_printed_when_it_is_new(tmp_path: Path) -> None:
    code, out, _ = run(["treasure", "--hotseat", "--players", "2", "--seed", "3", "--temp",
                        "--no-png"], "1\n1\n1\n1\nboard\nq\n")
    assert code == 0
    boards = out.count("Pages: ")
    keys = out.count("Key: :::::: a grey meadow tile")
    assert boards >= 3 and keys == 2  # the first board, and "board" asked for it


@pytest.mark.parametrize("name", ["bot.console.table", "bot.console.terminal", "bot.console.menus",
                                  "bot.console.texts", "bot.console.help"])
def test_docstring_examples_of_the_console(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0, name


# --------------------------------------------------------------------------- short menus


_MENU_LINE = re.compile(r"^  ( [1-9]|\d\d)\. (.*)$")
_SHOWN_LINE = re.compile(r"^(  ( \d|\d\d)\. |   -  |   0\. Back)")


def last_menu(text: str) -> list[str]:
    """The numbered choices of the menu printed last in ``text`` (a board's own numbered
    lines, "  1. Thug", are not a menu's: a menu numbers in two columns)."""
    lines = text.rstrip().splitlines()[:-1]  # the last line is the prompt
    block: list[str] = []
    for line in reversed(lines):
        if not _SHOWN_LINE.match(line):
            break
        block.append(line)
    return [m[2] for line in reversed(block) if (m := _MENU_LINE.match(line))]


def number_of(menu: list[str], start: str) -> str:
    """The number to type for the choice of ``menu`` that starts with ``start``."""
    return str(next(i for i, label in enumerate(menu, 1) if label.startswith(start)))


def menus_in(out: str) -> list[list[str]]:
    """Every menu shown in a session, in order."""
    return [last_menu(part + "\n> ") for part in out.split("\n> ")[:-1]]


def test_crossroads_guest_impression_in_two_short_menus(tmp_path: Path) -> None:
    asked: list[str] = []

    def respond(text: str) -> str | None:
        menu = last_menu(text)
        if "Outlaws −3 (closed door), …\n" in text:  # its follow-up: go back
            asked.append("back")
            return "0"
        if "Nobles −3 (closed door), …\n" in text:
            asked.append("open door")
            return number_of(menu, "Outlaws +1 (open door)")
        if "The Guest Impression: one group" in text:
            asked.append("closed door")
            return number_of(menu, "Outlaws −3" if len(asked) == 1 else "Nobles −3")
        return "q" if len(asked) >= 4 else None

    code, out, err = play(["crossroads-inn", "--ai", "--ai-level", "random", "--seed", "5",
                           "--data-dir", str(tmp_path), "--no-png"], respond=respond, limit=40)
    assert code == 0 and "Traceback" not in out + err
    assert asked == ["closed door", "back", "closed door", "open door"]
    # The first menu: the group behind the closed door (5 groups and Skip, not 21 lines).
    first = out.index("The Guest Impression: one group")
    menu = last_menu(out[first:out.index("\n> ", first) + 3])
    assert menu == [f"{g} −3 (closed door), … (4 choices)"
                    for g in ("Distressed", "Outlaws", "Travellers", "Townsfolk", "Nobles")] + \
        ["Skip the Guest Impression"]
    # then the open door: the four other groups, and Back (which went back one menu)
    follow = out.index("Nobles −3 (closed door), …\n")
    assert last_menu(out[follow:out.index("\n> ", follow) + 3]) == [
        "Distressed +1 (open door)", "Outlaws +1 (open door)", "Travellers +1 (open door)",
        "Townsfolk +1 (open door)"]
    assert out[follow:].split("\n> ")[0].endswith("   0. Back")
    assert out.count("The Guest Impression: one group") >= 2  # shown again after Back
    assert "Player changes the Guest Impression: Nobles behind the closed door (-3), " \
           "Outlaws behind the open door (+1)" in out
    assert max(len(m) for m in menus_in(out)) <= 10


def _walk_menus(game_id: str, players: int, seed: int, moves: int) -> tuple[int, int]:
    """Random play of ``game_id`` through the console's menus: at every position, every
    menu (and follow-up) is opened. Returns the longest menu and the positions seen;
    asserts every legal action can be reached and nothing else is offered."""
    import random

    from bot.console.menus import MAX_CHOICES, first_step, shorten, step_of
    from bot.core.choices import get_ui
    from bot.core.choices.adapter import UnknownChoice
    from engines import get_game

    game, ui = get_game(game_id), get_ui(game_id)

    def plain(action: Any) -> str:
        if "text" in type(action).model_fields:
            action = action.model_copy(update={"text": None})
        return game.dump_action(action)

    def walk(step: Any, view: Any, legal: Any, depth: int, found: set[str]) -> int:
        step = shorten(step, ui, view, legal)
        longest = len(step.open)
        assert longest <= MAX_CHOICES, (game_id, step.prompt, len(step.open))
        assert depth < 8, (game_id, step.prompt)
        for entry in step.open:
            if entry.action is not None:
                found.add(plain(entry.action))
                continue
            if entry.group is not None:
                longest = max(longest, walk(entry.group, view, legal, depth + 1, found))
                continue
            try:
                resolution = ui.resolve(entry.code or "", view, legal)
            except UnknownChoice:
                continue
            if resolution.menu is not None:
                longest = max(longest, walk(step_of(resolution.menu), view, legal, depth + 1,
                                            found))
            elif resolution.action is not None:
                found.add(plain(resolution.action))
            else:
                found.add(plain(ui.with_text(entry.code or "", view, legal, "")))
        return longest

    rng = random.Random(seed)
    state = game.setup(players, game.Options(), seed)
    longest = positions = 0
    for _ in range(moves):
        if game.is_over(state):
            break
        choices = []
        for seat in game.to_act(state):
            legal = game.legal_actions(state, seat)
            if not legal:
                continue
            view, found = game.view(state, seat), set[str]()
            longest = max(longest, walk(first_step(ui, view, legal), view, legal, 0, found))
            wanted = {plain(a) for a in legal}
            assert found >= wanted, (game_id, wanted - found)
            assert found - wanted <= {'{"kind":"narrate","text":null}'}, found - wanted
            positions += 1
            choices += [(seat, a) for a in legal]
        if not choices:
            break
        seat, action = rng.choice(choices)
        game.apply(state, seat, action)
    return longest, positions


@pytest.mark.parametrize(("game_id", "players", "moves"), [
    ("fairy-tale-inn", 2, 60), ("treasure", 2, 80), ("pocket", 1, 80),
    ("winter-tales", 3, 120), ("crossroads-inn", 2, 150), ("crossroads-inn", 4, 120),
])
def test_every_menu_is_short_and_every_legal_move_in_it(game_id: str, players: int,
                                                        moves: int) -> None:
    longest, positions = _walk_menus(game_id, players, seed=3, moves=moves)
    assert positions > 20 and 2 <= longest <= 10


def test_back_goes_back_one_menu() -> None:
    import asyncio
    from typing import Literal

    from bot.console.menus import choose_action
    from bot.console.terminal import Terminal
    from bot.core.choices.adapter import GenericUI
    from engines.core import Action, View

    class Go(Action):
        kind: Literal["go"] = "go"
        to: str
        card: str

    class Stay(Action):
        kind: Literal["stay"] = "stay"

    class UI(GenericUI):
        def label(self, action: Action, view: View | None = None) -> str:
            a: Any = action
            return f"Go to {a.to}, paying card {a.card}" if a.kind == "go" else "Stay"

    legal: list[Action] = [Go(to=to, card=f"c{n}") for to in ("Ash", "Birch", "Elm")
                           for n in range(1, 13)]
    legal.append(Stay())
    out = io.StringIO()
    # Birch (12 cards: a page of 9, then More), More, back, back, Birch, the 3rd card
    term = Terminal(io.StringIO("2\n10\n0\n0\n2\n3\n"), out)

    async def nothing(name: str) -> None:
        raise AssertionError(name)

    action = asyncio.run(choose_action(term, UI(), View(seat=0, players=1), legal,
                                       commands={}, on_command=nothing, heading="Your move:"))
    assert action == Go(to="Birch", card="c3")
    menus = [text.splitlines() for text in out.getvalue().split("> ")]
    assert menus[0][1:] == ["   1. Go to Ash, … (12 choices)", "   2. Go to Birch, … (12 choices)",
                            "   3. Go to Elm, … (12 choices)", "   4. Stay"]
    assert menus[1][1] == "Go to Birch, …" and menus[1][2] == "   1. paying card c1"
    assert menus[1][-2:] == ["  10. More choices (3) ›", "   0. Back"]
    assert menus[2][1:] == ["More choices:", "   1. paying card c10", "   2. paying card c11",
                            "   3. paying card c12", "   0. Back"]
    assert menus[3][1:] == menus[1][1:]  # back: the page before, not the first menu
    assert menus[0][0] == "Your move:"
    assert menus[4][1:] == menus[0][1:]  # back again: the first menu


# --------------------------------------------------------------------------- hot seat


_PASS = re.compile(r"Pass the keyboard to (.+?), then press Enter")


def turns_of(out: str) -> list[tuple[str, int, int]]:
    """Each hot seat turn: (whose, where its pass-the-keyboard prompt is, where the next
    one is)."""
    starts = [(m[1], m.start()) for m in _PASS.finditer(out)]
    ends = [at for _who, at in starts[1:]] + [len(out)] * bool(starts)
    return [(who, at, end) for (who, at), end in zip(starts, ends, strict=True)]


def crossroads_secrets(board: str) -> set[str]:
    """What a Crossroads Inn text board shows of the seat's own: its draft pack, the
    Basic Inn Tiles it keeps face down, its Recipes."""
    found: set[str] = set()
    lines = board.splitlines()
    for i, line in enumerate(lines):
        for head in ("Your pack: ", "Kept: "):
            if line.startswith(head):
                found |= set(line[len(head):].split(", "))
        if line == "Your Recipes:":
            for recipe in lines[i + 1:]:
                if not recipe.startswith("  "):
                    break
                found.add(recipe.strip().split(":")[0])
    return found


def winter_secrets(board: str) -> set[str]:
    """What a Winter Tales text board shows of the seat's own: its Story cards and its
    Objectives."""
    found: set[str] = set()
    lines = board.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Your Story cards ("):
            for card in lines[i + 1:]:
                if not card.startswith("  "):
                    break
                if ": Spring - " in card:
                    found.add(card.strip().split(": Spring - ")[0])
        if line.startswith("Your Objective ("):
            found.add(line.split("): ", 1)[1].split(", at ")[0])
    return found


def shown(secret: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(secret)}(?!\w)", text) is not None


def assert_each_turn_hides_the_others(out: str, secrets: Callable[[str], set[str]]) -> int:
    """A seat's secrets (read from its own board, on its own turn) never show on another
    seat's turn: what it holds on its turn before and still holds on its next turn was
    secret in between. Each turn's private screen is cleared before the next prompt.
    Returns how many secrets were checked."""
    from bot.console.terminal import CLEAR_LINES

    turns = turns_of(out)
    own = [secrets(out[at:end]) for _who, at, end in turns]
    checked = 0
    for j, (who, at, end) in enumerate(turns):
        text = out[at:end]
        if own[j] and j + 1 < len(turns):  # cleared before the next player's prompt
            assert "\n" * CLEAR_LINES in text, f"{who}'s turn is not cleared"
        for other in {w for w, _a, _e in turns} - {who}:
            before = [k for k in range(j) if turns[k][0] == other]
            after = [k for k in range(j + 1, len(turns)) if turns[k][0] == other]
            if not before:  # not yet shown to them: not to be shown to anyone before
                held = own[after[0]] if after else set()
                text = out[:at] + text
            else:  # (after its last turn: what it held may have been played since)
                held = own[before[-1]] & own[after[0]] if after else set()
            for secret in held:
                assert not shown(secret, text), f"{other}'s {secret!r} shown on {who}'s turn"
                checked += 1
    return checked


def test_hot_seat_crossroads_draft_packs_stay_with_their_seat() -> None:
    code, out, err = play(["crossroads-inn", "--hotseat", "--names", "Ann,Bob", "--seed", "4",
                           "--temp", "--no-png"], limit=30)
    assert code == 0 and "Traceback" not in out + err
    turns = turns_of(out)
    assert [who for who, _a, _e in turns[:4]] == ["Ann", "Bob", "Ann", "Bob"]
    (_, ann, bob), (_, _, ann2) = turns[0][:], turns[1][:]
    ann_pack = crossroads_secrets(out[ann:bob])
    bob_pack = crossroads_secrets(out[bob:ann2])
    assert len(ann_pack) == 4 and len(bob_pack) == 4 and not ann_pack & bob_pack
    # The second seat's pack: nowhere before its pass-the-keyboard prompt ...
    assert not [t for t in bob_pack if shown(t, out[:bob])]
    # ... and the first seat's (its draft menu: "Keep Back door") nowhere after it.
    assert [t for t in ann_pack if shown(f"Keep {t}", out[ann:bob])]
    assert not [t for t in ann_pack if shown(t, out[bob:ann2])]
    assert "Keep " not in out[:ann]
    assert assert_each_turn_hides_the_others(out, crossroads_secrets) > 10
    assert "The last moves at the table:\n  Ann keeps a Basic Inn Tile face down" in out


def test_hot_seat_winter_tales_story_cards_stay_with_their_seat() -> None:
    # Winter Tales takes 3 storytellers: all three at this keyboard.
    code, out, err = play(["winter-tales", "--hotseat", "--names", "Ann,Bob,Cy", "-o",
                           "memories=3", "--seed", "5", "--temp", "--no-png"], limit=90)
    assert code == 0 and "Traceback" not in out + err
    turns = turns_of(out)
    hands = [(who, winter_secrets(out[at:end]), at, end) for who, at, end in turns]
    dealt = [i for i, (_w, cards, _a, _e) in enumerate(hands) if cards]
    first, second = hands[dealt[0]], next(h for h in hands[dealt[0]:] if h[0] != hands[
        dealt[0]][0] and h[1])
    assert len(first[1]) >= 3 and len(second[1]) >= 3
    # The second seat's Story cards: nowhere before its pass-the-keyboard prompt ...
    assert not [c for c in second[1] if shown(c, out[:second[2]])]
    # ... and the first seat's cards (still held on its next turn) nowhere after it.
    later = next((h for h in hands if h[2] > second[2] and h[0] == first[0]), None)
    held = first[1] & later[1] if later else first[1]
    assert held and not [c for c in held if shown(c, out[first[3]:second[3]])]
    assert assert_each_turn_hides_the_others(out, winter_secrets) > 10
    # news for a seat waits for its own turn; the screen owner reads theirs first
    assert "While you were away:\n  (only you) You drew: " in out
    assert re.search(r"\w+, press Enter to hide your cards\.", out)
