"""Every picture read as a phone shows it: 400 px wide in Discord.

Each game with a renderer is played by its self-play AI at its largest and smallest
table, with long display names; its board, its other channel pictures and seat 0's
private picture are rendered at the start, in the middle and at the end, and every
string they draw must be at least :data:`tests.picture_checks.MIN_TEXT_AT_PHONE` pixels
(its font's em, computed from the fonts the renderer used, at 400 px wide).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from engines import get_game
from engines.agents import get_agent, selfplay_level
from engines.core import Rng
from renderers import get_renderer, has_private_picture, renderer_ids
from tests.picture_checks import MIN_TEXT_AT_PHONE, text_at_phone

LONG_NAMES = ["Rumpelstiltskin of the Deep Wood", "Ada", "Little Red Riding Hood",
              "Bartholomew Cobblepot", "Zed", "The Snow Queen's Envoy", "Gretel Grimm"]


@cache
def views(game_id: str, players: int) -> tuple[tuple[Any, Any], ...]:
    """(public view, seat 0's view) at the start, twice in the middle and at the end of a
    seeded self-play game."""
    game = get_game(game_id)
    agent = get_agent(game_id, selfplay_level(game_id))
    state = game.setup(players, game.parse_options({}), 11)
    rng = Rng.from_seed(11)
    seen = []
    ply = 0
    while not game.is_over(state) and ply < 3000:
        seen.append((game.view(state, None), game.view(state, 0)))
        seat = game.to_act(state)[0]
        game.apply(state, seat, agent.choose(game, state, seat, rng.spawn()))
        ply += 1
    seen.append((game.view(state, None), game.view(state, 0)))
    picks = sorted({0, len(seen) // 3, 2 * len(seen) // 3, len(seen) - 1})
    return tuple(seen[i] for i in picks)


def pictures(game_id: str) -> list[tuple[str, Callable[[Any, Any, list[str]], bytes]]]:
    board = get_renderer(game_id)
    out: list[tuple[str, Callable[[Any, Any, list[str]], bytes]]] = [
        ("board", lambda pub, _own, names: board(pub, names=names))]
    if game_id == "crossroads-inn":
        out.append(("inn", lambda pub, _own, names: board(pub, names=names, part="inn:0")))
        out.append(("inns", lambda pub, _own, names: board(pub, names=names, part="inns")))
    if has_private_picture(game_id):
        private = get_renderer(game_id, private=True)
        out.append(("private", lambda _pub, own, names: private(own, names=names)))
    return out


CASES = [
    pytest.param(gid, players, label, id=f"{gid}-{label}-{players}p")
    for gid in renderer_ids()
    for players in sorted({get_game(gid).min_players, get_game(gid).max_players})
    for label, _ in pictures(gid)
]


@pytest.mark.parametrize(("game_id", "players", "label"), CASES)
def test_every_text_is_readable_at_phone_width(game_id: str, players: int, label: str
                                               ) -> None:
    draw = dict(pictures(game_id))[label]
    names = LONG_NAMES[:players]
    too_small: set[tuple[float, str]] = set()
    for public, own in views(game_id, players):
        drawn = text_at_phone(lambda p=public, o=own: draw(p, o, names))
        assert drawn, "the picture draws no text at all"
        too_small |= {(size, text) for size, text in drawn if size < MIN_TEXT_AT_PHONE}
    assert not too_small, (
        f"{len(too_small)} strings under {MIN_TEXT_AT_PHONE} px at 400 px wide, smallest: "
        + "; ".join(f"{size} px {text!r}" for size, text in sorted(too_small)[:12]))
