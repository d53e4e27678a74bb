"""Every game through random playouts under the engine contract (see conformance.py)."""

import pytest

from tests.conformance import Case, play_random_game

CASES: list[Case] = [
    Case("fairy-tale-inn", 2, seeds=25),
    *(Case("treasure", p, seeds=8) for p in (1, 2, 3, 4)),
    Case("treasure", 2, {"variant": True}, seeds=8),
    Case("treasure", 1, {"king_path_length": 99}, seeds=4),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_playouts(case: Case) -> None:
    for seed in range(case.seeds):
        play_random_game(case, seed)
