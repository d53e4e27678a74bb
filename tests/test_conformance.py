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
    # Winter Tales: every player count (3-7) and every combination of the three modules
    # (P)ower, (O)bjective, (S)kill, as a covering design rather than the full 5 x 8 matrix
    # (which took 6.5 minutes on the shared 2-core machine): all 8 combinations appear, each
    # player count meets both settings of every module (a combination and its complement),
    # so every pair of factor values is played. The Epilogue Bookmark rule and a longer
    # game ride along. One seed each: a game is hundreds of plies, each checked for every
    # seat.
    *(Case("winter-tales", p, {"power": "P" in mods, "objective": "O" in mods,
                               "skill": "S" in mods, **extra}, seeds=1, max_plies=8000)
      for p, mods, extra in (
          (3, "", {}), (3, "POS", {"epilogue_bookmark": True}), (3, "OS", {}),
          (4, "S", {"memories": 4}), (4, "PO", {}), (4, "PS", {"epilogue_bookmark": True}),
          (5, "O", {}), (5, "PS", {}), (5, "P", {"epilogue_bookmark": True}),
          (6, "OS", {"epilogue_bookmark": True}), (6, "P", {}), (6, "S", {}),
          (7, "", {"epilogue_bookmark": True}), (7, "POS", {}), (7, "PO", {}),
      )),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_playouts(case: Case) -> None:
    for seed in range(case.seeds):
        play_random_game(case, seed)
