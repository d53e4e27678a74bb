"""bot.selfplay: JSON lines per game, a summary line, clear refusals of bad arguments."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from bot.selfplay import main, parse_options


def run(*argv: str) -> tuple[int, list[dict[str, Any]]]:
    out = io.StringIO()
    code = main(list(argv), out=out)
    return code, [json.loads(line) for line in out.getvalue().splitlines()]


def test_one_line_per_game_and_a_summary() -> None:
    code, lines = run("--game", "fairy-tale-inn", "--games", "3", "--seed", "4")
    assert code == 0 and len(lines) == 4
    games, summary = lines[:3], lines[3]
    assert [g["game"] for g in games] == [0, 1, 2]
    assert [g["seed"] for g in games] == [4, 5, 6]
    for g in games:
        assert set(g) >= {"game", "seed", "winners", "scores", "moves", "reason", "agents"}
        assert len(g["winners"]) == 1 and g["winners"][0] in (0, 1)
        assert g["moves"] > 15 and g["reason"]
        assert set(g["scores"]) == {"0", "1"}
    assert summary["summary"] is True and summary["games"] == 3
    assert summary["moves"] == sum(g["moves"] for g in games)
    assert sum(summary["wins_by_seat"].values()) == 3
    assert summary["games_per_sec"] > 0 and summary["moves_per_sec"] > 0


def test_same_seed_same_games() -> None:
    _, a = run("--game", "fairy-tale-inn", "--games", "4", "--seed", "9", "--agents", "greedy")
    _, b = run("--game", "fairy-tale-inn", "--games", "4", "--seed", "9", "--agents", "greedy")
    assert a[:4] == b[:4]


def test_rotate_and_counts_by_agent() -> None:
    code, lines = run("--game", "fairy-tale-inn", "--games", "6", "--agents", "greedy,random",
                      "--rotate", "--quiet")
    assert code == 0 and len(lines) == 1
    summary = lines[0]
    assert summary["games_by_agent"] == {"greedy": 6, "random": 6}
    assert sum(summary["wins_by_agent"].values()) == 6
    assert summary["wins_by_agent"].get("greedy", 0) >= 5
    _, lines = run("--game", "fairy-tale-inn", "--games", "2", "--agents", "greedy,random",
                   "--rotate")
    assert [g["agents"] for g in lines[:2]] == [["greedy", "random"], ["random", "greedy"]]


def test_pocket_plays_whole_games_by_player_level() -> None:
    """``--player LEVEL`` is one level for the peasant; each game ends won or lost."""
    for level in ("random", "hint"):
        code, lines = run("--game", "pocket", "--games", "2", "--seed", "3",
                          "--player", level)
        assert code == 0 and len(lines) == 3
        for g in lines[:2]:
            assert g["agents"] == [level] and g["moves"] > 10
            assert "won" in g["reason"] or "lost" in g["reason"] or "happily" in g["reason"]
        assert lines[2]["games_by_agent"] == {level: 2}


def test_move_cap_stops_a_game() -> None:
    code, lines = run("--game", "fairy-tale-inn", "--games", "1", "--max-moves", "5")
    assert code == 0
    assert lines[0]["moves"] == 5 and lines[0]["winners"] == []
    assert lines[0]["reason"] == "stopped after 5 moves"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "chess"], "Unknown game"),
        (["--game", "fairy-tale-inn", "--players", "3"], "takes 2-2 players"),
        (["--game", "fairy-tale-inn", "--agents", "random,random,random"], "3 levels"),
        (["--game", "fairy-tale-inn", "--agents", "wizard"], "No 'wizard' AI"),
        (["--game", "fairy-tale-inn", "--option", "colour=red"], "Invalid options"),
        (["--game", "fairy-tale-inn", "--option", "oops"], "key=value"),
        (["--game", "pocket", "--option", "special=wand", "--option", "special=boots"],
         "The option 'special' is given twice: give it once."),
        (["--game", "fairy-tale-inn", "--games", "-1"], "0 or more"),
        (["--game", "pocket", "--player", "random,hint"], "one AI level"),
        (["--game", "pocket", "--player", "hint", "--agents", "random"], "not both"),
        (["--game", "pocket", "--player", "wizard"], "No 'wizard' AI"),
    ],
)
def test_bad_arguments_are_refused(argv: list[str], message: str,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, lines = run(*argv)
    assert code == 2 and lines == []
    assert message in capsys.readouterr().err


def test_parse_options() -> None:
    assert parse_options(["n=2", "name=bob", "on=true", "xs=[1,2]"]) == {
        "n": 2, "name": "bob", "on": True, "xs": [1, 2]}
    with pytest.raises(ValueError):
        parse_options(["=3"])
