"""The Fairy Tale in My Pocket picture and text board: drawn from views only."""

from __future__ import annotations

import io
import time

from PIL import Image, ImageChops, ImageStat

from engines.agents.pocket import careful_action
from engines.core import Rng
from engines.pocket.game import Pocket
from engines.pocket.state import Explore, PocketOptions, PocketState
from renderers.pocket import W, draw, render, text_board
from tests.picture_checks import flat_error, seen_on_a_phone

G = Pocket()
PNG = b"\x89PNG\r\n\x1a\n"


def _size(png: bytes) -> tuple[int, int]:
    assert png[:8] == PNG
    return Image.open(io.BytesIO(png)).size


def _game(seed: int, players: int = 1, special: str = "random") -> list[PocketState]:
    """Every state of a game played by the careful player (copies)."""
    s = G.setup(players, PocketOptions(special=special), seed)  # type: ignore[arg-type]
    out = [G.copy_state(s)]
    while G.outcome(s) is None:
        G.apply(s, s.turn_seat, careful_action(G, s))
        out.append(G.copy_state(s))
    return out


def test_a_whole_game_renders_from_views_and_dicts() -> None:
    kinds: set[str] = set()
    slowest = 0.0
    for seed, players in ((7, 1), (3, 3)):
        for s in _game(seed, players):
            view = G.view(s, None)
            kind = view.decision.kind if view.decision else "over"
            if kind in kinds and view.result is None:
                continue
            kinds.add(kind)
            start = time.perf_counter()
            png = render(view, names=["Ann", "Ben", "Cleo"][:players])
            slowest = max(slowest, time.perf_counter() - start)
            w, h = _size(png)
            assert w == W and 900 < h < 4000
    assert {"move", "place", "villain", "rest", "over"} <= kinds
    assert _size(render(G.view(s, 1).model_dump(mode="json")))[0] == W  # a dict, no names
    assert slowest < 3.0


def test_different_tables_make_different_pictures() -> None:
    states = _game(5)
    first, later = G.view(states[0], None), G.view(states[len(states) // 2], None)
    assert render(first) != render(later)
    assert render(first) == render(first)  # the same view, the same bytes


def test_the_picture_shows_no_secret() -> None:
    """A table with its deck, set-aside cards and tile stacks reshuffled has the same
    view, so the same picture and text."""
    for s in _game(6)[::6]:
        other = G.determinize(s, None, Rng.from_seed(s.ply))
        assert render(G.view(other, None)) == render(G.view(s, None))
        assert text_board(G.view(other, None)) == text_board(G.view(s, None))


def test_the_placing_squares_and_the_mirror_are_shown() -> None:
    s = G.setup(1, PocketOptions(special="mirror"), 11)
    plain = render(G.view(s, None))
    G.apply(s, 0, Explore(mirror=True))
    mirror = G.view(s, None)
    assert mirror.decision is not None and mirror.decision.kind == "mirror"
    G.apply(s, 0, G.legal_actions(s, 0)[0])
    placing = G.view(s, None)
    assert placing.decision is not None and placing.decision.kind == "place"
    sizes = {_size(plain), _size(render(mirror)), _size(render(placing))}
    assert _size(render(placing))[1] > _size(plain)[1]  # room for the dashed squares
    assert len(sizes) >= 2






def test_the_picture_keeps_what_was_drawn() -> None:
    """Stored in the palette of its time of day: the flat colours come back (the sky's
    bands within 4 levels), the text's edges within a few levels."""
    by_time: dict[int, PocketState] = {}
    for s in _game(7) + _game(3, players=3):
        by_time.setdefault(G.view(s, None).time, s)
        if G.outcome(s) is not None:
            by_time[-1] = s
    assert len(by_time) >= 4  # the three times of day and an end
    for s in by_time.values():
        view = G.view(s, None)
        drawing = draw(view)
        back = Image.open(io.BytesIO(render(view))).convert("RGB")
        assert flat_error(drawing, back) <= 4
        seen = ImageStat.Stat(ImageChops.difference(seen_on_a_phone(drawing),
                                                    seen_on_a_phone(back)))
        assert max(seen.mean) < 0.25, seen.mean


def test_text_board() -> None:
    states = _game(7, players=2)
    mid = G.view(states[len(states) // 2], None)
    text = text_board(mid, lambda seat: ["Ann", "Ben"][seat])
    lines = text.splitlines()
    assert lines[0].startswith("Fairy Tale in My Pocket · turn ")
    assert f"Health {mid.health}/{mid.max_health}" in text and f"Gold {mid.gold}/" in text
    assert "@" in text and "You are at the " in text
    assert any(line.startswith("> ") for line in lines) or mid.result is not None
    assert sum(line.count("[") for line in lines) == len(mid.map)
    end = text_board(G.view(states[-1], None))
    assert "WON: " in end or "LOST: " in end
