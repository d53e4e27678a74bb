"""Every game through random playouts under the engine contract (see conformance.py)."""

import pytest

from tests.conformance import Case, play_random_game

CASES: list[Case] = [
    Case("fairy-tale-inn", 2, seeds=25),
    *(Case("treasure", p, seeds=8) for p in (1, 2, 3, 4)),
    Case("treasure", 2, {"variant": True}, seeds=8),
    Case("treasure", 1, {"king_path_length": 99}, seeds=4),
    # Winter Tales: every player count, then every module combination. Its games run to
    # hundreds of plies, each checked for every seat, so one seed per case keeps this fast.
    *(Case("winter-tales", p, seeds=1, max_plies=5000) for p in (3, 4, 5, 6, 7)),
    *(Case("winter-tales", p, opts, seeds=1, max_plies=8000) for p, opts in (
        (3, {"power": True}),
        (4, {"objective": True}),
        (5, {"skill": True}),
        (3, {"power": True, "objective": True}),
        (7, {"power": True, "skill": True}),
        (3, {"objective": True, "skill": True}),
        (4, {"power": True, "objective": True, "skill": True, "epilogue_bookmark": True}),
    )),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_playouts(case: Case) -> None:
    for seed in range(case.seeds):
        play_random_game(case, seed)
