"""The Save the Treasure board image: drawn from views only, for every stage."""

from __future__ import annotations

import io

from PIL import Image

from engines import get_game
from engines.agents import get_agent
from engines.core import Rng
from renderers import has_renderer, render
from renderers.treasure import GLYPHS, path_points

GAME = get_game("treasure")


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(png)).size


def test_registered() -> None:
    assert has_renderer("treasure")


def test_every_tale_has_a_picture() -> None:
    from engines.treasure import load_data

    assert {t.picture.glyph for t in load_data().tales} <= set(GLYPHS)


def test_renders_a_whole_game_from_views_and_dicts() -> None:
    agent = get_agent("treasure", "team")
    state = GAME.setup(4, GAME.parse_options({"king_path_length": 40}), 3)
    rng = Rng.from_seed(1)
    stages: set[str] = set()
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        view = GAME.view(state, None)
        key = f"{view.stage}-{view.endgame}"
        if key not in stages:
            stages.add(key)
            w, h = _png_size(render("treasure", view, names=["Ann", "Ben", "Cleo", "Dan"]))
            assert w == 1100 and h > 1200
        GAME.apply(state, seat, agent.choose(GAME, state, seat, rng.spawn()))
    assert {"slide-False", "green-False", "slide-True"} <= stages
    final = GAME.view(state, 0).model_dump()
    assert _png_size(render("treasure", final))[0] == 1100  # names default to Player A..


def test_path_starts_at_the_gate_corner_and_goes_clockwise() -> None:
    pts = path_points(8, (0, 0, 100, 100), "br")
    assert pts[0] == (100, 100)
    assert pts[2] == (0, 100) and pts[4] == (0, 0) and pts[6] == (100, 0)


def test_console_text_board() -> None:
    from renderers.text import text_board

    state = GAME.setup(2, GAME.Options(), 3)
    text = text_board("treasure", GAME.view(state, None), lambda s: ["Ann", "Ben"][s])
    lines = text.splitlines()
    assert lines[1].startswith("A  ,AB,,,")
    assert len(lines[1:6]) == 5 and all(line[0] in "ABCDE" for line in lines[1:6])
    shown = [c for c in GAME.view(state, None).cells if c.face is not None]
    assert text.count("half)") == len(shown) == 3
    assert "King: waiting" in text and "Pages: 0/12" in text
