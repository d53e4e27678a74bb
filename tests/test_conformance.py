"""Every declared game through random playouts under the engine contract (see
conformance.py). A game joins by listing its cases in its declaration
(``GameSpec.conformance``)."""

import pytest

from engines.catalog import specs
from tests.conformance import Case

CASES: list[Case] = [Case.of(s.id, c) for s in specs() for c in s.conformance]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_random_playouts(case: Case) -> None:
    from tests.conformance import play_random_game

    for seed in range(case.seeds):
        play_random_game(case, seed)
