"""Every game through random playouts under the engine contract (see conformance.py)."""

import pytest

from tests.conformance import Case, play_random_game

CASES: list[Case] = [
    Case("fairy-tale-inn", 2, seeds=25),
    *(Case("treasure", p, seeds=8) for p in (1, 2, 3, 4)),
    Case("treasure", 2, {"variant": True}, seeds=8),
    Case("treasure", 1, {"king_path_length": 99}, seeds=4),
    # Random play never finds twelve pages; the team does, so the end phase is checked too.
    Case("treasure", 2, seeds=3, agent="team"),
    Case("treasure", 3, {"variant": True}, seeds=2, agent="team"),
    # Winter Tales: the full matrix the issue asks for, every player count (3-7) with every
    # combination of the three modules (Power, Objective, Skill): 40 games, one seed each,
    # since a game is hundreds of plies, each checked for every seat (about 3 minutes of CPU;
    # CI has the time). The Epilogue Bookmark rule and a 4-Memory game ride along.
    *(Case("winter-tales", p, {"power": pw, "objective": ob, "skill": sk,
                               **({"epilogue_bookmark": True} if (p + pw + ob + sk) % 3 == 0
                                  else {}),
                               **({"memories": 4} if p == 4 and not ob else {})},
           seeds=1, max_plies=8000)
      for p in (3, 4, 5, 6, 7)
      for pw in (False, True) for ob in (False, True) for sk in (False, True)),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_playouts(case: Case) -> None:
    for seed in range(case.seeds):
        play_random_game(case, seed)
