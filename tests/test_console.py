"""The console table driven with scripted stdin (it uses the real TableService)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from bot.console import main
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
    assert "Ann, your move:" in out and "Take " in out  # named, numbered moves
    assert "AI (greedy) took" in out  # AI moves arrive through the listener
    assert "Game over" in out and out.count("Board image:") > 5
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
    code, out, _ = run(args, "1\n1\nq\n")
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
        "abc\n999\n0\nh\nb\nl\n1\nl\nq\n",
    )
    assert code == 0
    assert out.count("Please type a move number from 1 to") == 3
    assert "b  show the board again" in out
    assert "(nothing yet)" in out  # the log before any move
    assert "Saved." in out


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
