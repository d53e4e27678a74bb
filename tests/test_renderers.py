"""Renderers: every Fairy Tale Inn state draws, the image hides what the view hides,
and the same view always gives the same bytes."""

from __future__ import annotations

import doctest
import io
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

import renderers
from engines import get_game
from engines.core import Rng
from renderers import common
from renderers import fairy_tale_inn as fti

GAME = get_game("fairy-tale-inn")
MAX_BYTES = 400_000
MAX_HEIGHT = 2000


def random_state(seed: int, plies: int | None = None, empty_bag: bool = False):
    """A state after ``plies`` random legal moves (``None`` = to the end)."""
    state = GAME.setup(2, GAME.Options(), seed)
    if empty_bag:
        state.bag.clear()  # the Guest List then empties slot by slot
    rng = Rng.from_seed(seed * 7 + 1)
    n = 0
    while not GAME.is_over(state) and (plies is None or n < plies):
        seat = GAME.to_act(state)[0]
        GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
        n += 1
    return state


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


def tokens_on_board(state) -> set[str]:
    return {tok for col in state.columns for tok, _ in col}


# --------------------------------------------------------------------------- toolkit


def test_fonts_ship_with_the_package() -> None:
    for name in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "LICENSE"):
        assert (common.FONT_DIR / name).is_file(), name
    f = common.font(22, bold=True)
    assert Path(f.path).parent == common.FONT_DIR
    assert common.font(22, bold=True) is f  # cached


def test_owner_styles_differ_by_more_than_colour() -> None:
    styles = [common.owner_style(s) for s in range(len(common.OWNER_COLORS))]
    assert len({s.color for s in styles}) == len(styles)
    assert len({s.shape for s in styles}) == len(styles)
    assert len({s.letter for s in styles}) == len(styles)
    for s in styles:
        # Visible on the dark background, and its ink readable on the colour itself.
        assert common.contrast(s.color, common.BG) >= 2.5, s
        assert common.contrast(s.color, s.ink) >= 4.5, s


def test_text_colours_have_strong_contrast_on_discord_dark() -> None:
    assert common.contrast(common.TEXT, common.BG) >= 10
    assert common.contrast(common.MUTED, common.BG) >= 5
    assert common.contrast(common.TEXT, common.PANEL) >= 10


@pytest.mark.parametrize("width", [60, 150, 400])
def test_wrap_text_respects_the_width(width: int) -> None:
    fnt = common.font(22)
    text = "Gain 1 gold for each of your characters next to Little Red Riding Hood " * 2
    lines = common.wrap_text(text, fnt, width)
    assert all(fnt.getlength(line) <= width for line in lines)
    assert "".join("".join(lines).split()) == "".join(text.split())


def test_ellipsize_and_fit_font() -> None:
    fnt = common.font(22)
    assert common.ellipsize("short", fnt, 500) == "short"
    cut = common.ellipsize("a much longer name than fits", fnt, 120)
    assert cut.endswith("…") and fnt.getlength(cut) <= 120
    small = common.fit_font("Bartholomew the Great", 150, 26, min_size=12)
    assert small.size < 26 and small.getlength("Bartholomew the Great") <= 150


def test_shapes_and_pieces_draw() -> None:
    img = common.new_canvas(400, 200)
    d = ImageDraw.Draw(img)
    for i, shape in enumerate((*common.OWNER_SHAPES, "octagon")):
        common.draw_shape(d, shape, (30 + i * 45, 40), 18, fill=common.GOLD)
    with pytest.raises(ValueError):
        common.draw_shape(d, "blob", (10, 10), 5, fill=common.GOLD)
    boxes = common.draw_track(d, (10, 100, 390, 140), ["1", "2", "3", "4"], current=2,
                              marked=[1])
    assert len(boxes) == 4 and boxes[0][0] == 10 and abs(boxes[-1][2] - 390) < 1
    common.draw_edge(d, (20, 170), (200, 170))
    common.draw_node(d, (200, 170), 12, "Square")
    y = common.draw_card(d, (220, 150, 395, 199), "Card", "a caption")
    assert y > 150
    box = common.badge(d, (300, 20), "+2", common.font(22, bold=True), common.GOLD)
    assert box[2] > box[0]
    assert img.getpixel((0, 0)) == common.BG


def test_to_png_is_deterministic_and_small() -> None:
    img = common.new_canvas(300, 200)
    common.text_center(ImageDraw.Draw(img), (150, 100), "Fabletop", common.font(30), common.TEXT)
    a, b = common.to_png(img), common.to_png(img.copy())
    assert a == b and a.startswith(b"\x89PNG")
    assert decode(a).size == (300, 200)
    assert len(common.to_png(img, max_colors=None)) > 0


def _board_like(size: tuple[int, int]) -> Image.Image:
    """Flat panels in every owner colour, anti-aliased text on them (~1,500 colours)."""
    img = common.new_canvas(*size)
    d = ImageDraw.Draw(img)
    w, h = size
    if min(w, h) < 60:  # too small for panels: a background and a few odd pixels
        for i, colour in enumerate(common.OWNER_COLORS[: w * h - 1]):
            img.putpixel((i % w, i // w), colour)
        return img
    for i, colour in enumerate((*common.OWNER_COLORS, common.PANEL, common.GOLD)):
        x = (i % 3) * w // 3
        y = (i // 3) * h // 3
        d.rectangle((x + 4, y + 4, x + w // 3 - 4, y + h // 3 - 4), fill=colour)
        common.text_center(d, (x + w // 6, y + h // 6), "Fabletop 42", common.font(26),
                           common.INK)
    return img


@pytest.mark.parametrize("size", [(1, 1), (1, 50_000), (7, 3), (301, 199), (1200, 1500)])
def test_to_png_keeps_every_flat_colour_exact(size: tuple[int, int]) -> None:
    img = _board_like(size)
    back = decode(common.to_png(img)).convert("RGB")
    assert back.size == img.size
    present = {rgb for _, rgb in img.getcolors(1 << 16)}
    flat = [c for c in (common.BG, *common.OWNER_COLORS, common.PANEL, common.GOLD)
            if c in present]
    if min(size) < 60:
        flat = [common.BG]  # single odd pixels may be sampled away: only the background
    # Every pixel of a colour that covers an area comes back exactly that colour.
    for colour in flat:
        mask = Image.new("1", img.size)
        mask.putdata([p == colour for p in img.get_flattened_data()])
        got = {p for p, m in zip(back.get_flattened_data(), mask.get_flattened_data(),
                                 strict=True) if m}
        assert got <= {colour}, (colour, sorted(got)[:5])


def test_a_fixed_palette_keeps_its_colours_and_leaves_to_png_as_it_was() -> None:
    img = _board_like((600, 450))
    flat = (common.BG, *common.OWNER_COLORS, common.PANEL, common.GOLD, common.INK)
    pal = common.FixedPalette(flat, [(c, common.INK, 6) for c in flat])
    assert all(pal.exact(c) for c in flat) and len(pal.colours) <= 256
    png = common.to_png(img, palette=pal)
    assert png == common.to_png(img.copy(), palette=pal)  # the colour cache changes nothing
    back = decode(png)
    assert back.mode == "P" and back.getpalette()[:3 * len(pal.colours)] == [
        v for c in pal.colours for v in c]
    rgb = back.convert("RGB")
    for colour in flat:  # every pixel of a flat colour comes back exactly that colour
        got = {p for p, q in zip(rgb.get_flattened_data(), img.get_flattened_data(),
                                 strict=True) if q == colour}
        assert got <= {colour}, (colour, sorted(got)[:5])
    assert common.to_png(img, palette=None) == common.to_png(img)
    # An entry that an earlier one would take (Pillow looks a pixel up rounded down to
    # a multiple of 4) is left out: no pixel could keep it.
    twin = common.FixedPalette([(0, 0, 0), (1, 1, 1)])
    assert twin.colours == ((0, 0, 0),) and not twin.exact((1, 1, 1))
    canvas = pal.canvas(20, 10, common.PANEL)
    assert canvas.mode == "P" and canvas.getpixel((3, 3)) == pal.index(common.PANEL)
    with pytest.raises(ValueError):
        common.FixedPalette([(r, g, 0) for r in range(0, 256, 8) for g in range(0, 256, 8)])


@pytest.mark.parametrize("module", [renderers, common])
def test_doctests(module) -> None:
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_registry_dispatches_lazily() -> None:
    assert "fairy-tale-inn" in renderers.renderer_ids()
    assert renderers.get_renderer("fairy-tale-inn") is fti.render
    with pytest.raises(KeyError, match="No renderer"):
        renderers.render("no-such-game", None)
    view = GAME.view(GAME.setup(2, GAME.Options(), 3), None)
    named = renderers.render("fairy-tale-inn", view, names=["Ada", "Bo"])
    assert named == fti.render(view, names=["Ada", "Bo"])
    assert named != renderers.render("fairy-tale-inn", view)


# --------------------------------------------------------------------------- Fairy Tale Inn


def _check_png(png: bytes) -> Image.Image:
    assert png.startswith(b"\x89PNG")
    assert len(png) < MAX_BYTES
    img = decode(png)
    assert img.width == fti.WIDTH
    assert 1000 < img.height < MAX_HEIGHT
    # Dark-theme background at the corners.
    assert img.convert("RGB").getpixel((2, 2)) == common.BG
    return img


@pytest.mark.parametrize("seed,plies", [(1, 0), (2, 9), (3, 20), (4, 31), (5, None), (6, None)])
def test_random_states_render(seed: int, plies: int | None) -> None:
    state = random_state(seed, plies)
    for seat in (None, 0, 1):
        _check_png(renderers.render("fairy-tale-inn", GAME.view(state, seat)))


def test_states_with_rats_beanstalks_and_empty_guest_slots_render() -> None:
    seen_rat = seen_bean = seen_empty = seen_phase = False
    phases: set[str] = set()
    for seed in range(40):
        state = random_state(seed, None, empty_bag=seed % 2 == 0)
        board = tokens_on_board(state)
        view = GAME.view(state, None)
        has_empty = any(slot.token is None for slot in view.guest_list)
        interesting = (("rat" in board and not seen_rat) or ("beanstalk" in board and not seen_bean)
                       or (has_empty and not seen_empty))
        if interesting:
            pic = fti.picture_from_view(view)
            # Companions are drawn ownerless, empty slots as empty.
            for pos, piece in pic.cells.items():
                if piece.kind in ("rat", "beanstalk"):
                    assert piece.owner is None, pos
            assert len(pic.cells) == sum(len(c) for c in state.columns)
            assert pic.guests == list(state.guest)
            _check_png(fti.render(view, names=["Ada", "Bo"]))
        seen_rat |= "rat" in board
        seen_bean |= "beanstalk" in board
        seen_empty |= has_empty
        phases.add(view.phase)
        if seen_rat and seen_bean and seen_empty:
            break
    assert seen_rat and seen_bean and seen_empty
    # Mid-turn decisions (Rat column, extra turn) draw too.
    for seed in range(60):
        state = GAME.setup(2, GAME.Options(), seed)
        rng = Rng.from_seed(seed)
        while not GAME.is_over(state):
            seat = GAME.to_act(state)[0]
            GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
            if state.phase in ("rat", "extra_turn") and state.phase not in phases:
                phases.add(state.phase)
                view = GAME.view(state, state.turn)
                pic = fti.picture_from_view(view)
                assert pic.pending == view.prompt
                if state.phase == "rat":
                    assert pic.rat_columns and pic.last_drop
                _check_png(fti.render(view))
        if {"rat", "extra_turn"} <= phases:
            seen_phase = True
            break
    assert seen_phase


def test_picture_mirrors_the_view() -> None:
    state = random_state(11, 26)
    view = GAME.view(state, 1)
    pic = fti.picture_from_view(view, names=["Ada", "Bo"])
    assert pic.columns == 7 and pic.rows == 6
    assert pic.gold == view.gold and pic.bag == view.bag_count
    assert pic.costs == [2, 1, 0, 0]
    assert pic.viewer == 1 and pic.name(0) == "Ada" and pic.name(1) == "Bo"
    assert {ch.id for ch in pic.characters} == set(state.characters)
    for c, col in enumerate(state.columns):
        for r, (tok, owner) in enumerate(col):
            piece = pic.cells[(c + 1, r + 1)]
            assert piece.kind == tok
            assert piece.owner == (None if owner < 0 else owner)
    kinds = set(pic.rooms.values())
    assert kinds == {"gold1", "gold2", "no_ability", "extra_turn"}
    assert pic.last_drop == [tuple(x) for x in view.last_cells]
    # The JSON form of the view gives the same picture and the same bytes.
    assert fti.picture_from_view(view.model_dump(mode="json"), ["Ada", "Bo"]) == pic
    assert fti.render(view.model_dump(mode="json")) == fti.render(view)


def test_full_columns_and_game_over_are_shown() -> None:
    state = random_state(5, None)
    assert GAME.is_over(state)
    view = GAME.view(state, None)
    pic = fti.picture_from_view(view)
    assert pic.over and pic.winners == GAME.outcome(state).winners
    full = {c + 1 for c, col in enumerate(state.columns) if len(col) == 6}
    assert pic.full_columns() == full
    head, detail, _ = fti._status_lines(pic)
    assert "wins" in head and detail.startswith("Game over")


def test_last_drop_is_highlighted() -> None:
    state = random_state(8, 12)
    view = GAME.view(state, None)
    pic = fti.picture_from_view(view)
    assert pic.last_drop
    with_hl = fti.draw(pic)
    pic.last_drop = []
    without = fti.draw(pic)
    assert with_hl.tobytes() != without.tobytes()


def test_bag_order_never_reaches_the_image() -> None:
    """Determinizing (reshuffling the bag) must not change any image."""
    for seed, plies in ((21, 0), (22, 10), (23, 25), (24, None)):
        state = random_state(seed, plies)
        rng = Rng.from_seed(seed)
        for seat in (None, 0, 1):
            view = GAME.view(state, seat)
            for _ in range(3):
                other = GAME.view(GAME.determinize(state, seat, rng), seat)
                assert fti.picture_from_view(other) == fti.picture_from_view(view)
            if seat is None:
                assert fti.render(other) == fti.render(view)


def test_bag_order_change_is_really_hidden() -> None:
    """Same check with a bag order that certainly differs (reversed)."""
    state = random_state(31, 6)
    other = GAME.copy_state(state)
    other.bag.reverse()
    assert other.bag != state.bag or len(set(state.bag)) <= 1
    assert fti.render(GAME.view(other, None)) == fti.render(GAME.view(state, None))


def test_same_view_same_bytes_and_different_views_differ() -> None:
    state = random_state(41, 14)
    view = GAME.view(state, 0)
    assert fti.render(view) == fti.render(view.model_copy(deep=True))
    later = GAME.copy_state(state)
    seat = GAME.to_act(later)[0]
    GAME.apply(later, seat, GAME.legal_actions(later, seat)[0])
    assert fti.render(GAME.view(later, 0)) != fti.render(view)
    assert fti.render(view, names=["Ada", "Bo"]) != fti.render(view)


def test_unknown_character_ids_still_draw() -> None:
    """A content file may add characters the glyph set does not know."""
    pic = fti.Picture(
        cells={(1, 1): fti.Piece("snow_queen", 0), (2, 1): fti.Piece("rat", None)},
        guests=["snow_queen", None, None, None],
        gold=[3, 4],
        to_act=[0],
        characters=[fti.Character("snow_queen", "Snow Queen", "ongoing", "Cold.")],
        bag=0,
    )
    _check_png(fti.render_picture(pic))


def test_banner_speaks_to_the_viewer() -> None:
    state = random_state(12, 4)
    seat = GAME.to_act(state)[0]
    mine = fti.picture_from_view(GAME.view(state, seat), names=["Ada", "Bo"])
    head, detail, _ = fti._status_lines(mine)
    assert head == f"Your turn, {['Ada', 'Bo'][seat]}" and detail == GAME.prompt(state)
    theirs = fti.picture_from_view(GAME.view(state, 1 - seat), names=["Ada", "Bo"])
    assert fti._status_lines(theirs)[0] == f"{['Ada', 'Bo'][seat]} to play"
    public = fti.picture_from_view(GAME.view(state, None))
    assert fti._status_lines(public)[0] == f"Player {'AB'[seat]} to play"


def test_ability_timing_becomes_a_tag() -> None:
    ch = fti.Character("jack", "Jack", "when_played", "When Played: gain 1 gold.")
    assert fti._ability_text(ch) == "Gain 1 gold."
    odd = fti.Character("x", "X", "ongoing", "No prefix here.")
    assert fti._ability_text(odd) == "No prefix here."
    view = GAME.view(GAME.setup(2, GAME.Options(), 9), None).model_dump(mode="json")
    view["characters"][0]["short"] = "Short caption."
    assert fti.picture_from_view(view).characters[0].text == "Short caption."


def test_empty_or_partial_views_do_not_crash() -> None:
    """A view missing fields still draws (nothing to show is not an error)."""
    for view in ({}, {"gold": [1, 2], "to_act": 0}, {"winners": [1], "gold": [3, 4]}):
        img = decode(fti.render(view))
        assert img.width == fti.WIDTH
