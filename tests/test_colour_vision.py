"""Colour is never the only cue, and where it is a cue it survives colour blindness.

Every seat is drawn as colour + shape + letter (:func:`renderers.common.owner_style`);
this file checks the colour part for each game: the colours that sit side by side on
its pictures with different meanings must stay apart for normal vision and for the
three dichromacies simulated by :mod:`renderers.vision` (Machado et al. 2009 at full
severity, the hardest case: about 2 % of men lack L or M cones entirely, some 6 % more
see a milder form of the same; tritanopia is rare), and every marker must stand out from
Discord's dark surfaces.

Thresholds (CIEDE2000, :func:`renderers.vision.delta_e`):

* ``SEAT``: seat against seat, and gold coins against seats (a coin is a circle, like
  seat A's marker, and sits beside the tokens): **15** in normal vision, **8** under
  each simulation. ΔE00 ≈ 1 is a just noticeable difference for large patches side by
  side; a token is 10-20 px on a phone (Discord shows 400 px wide), where small-field
  colour discrimination is several times coarser, and it must be *recognised* on a
  busy board, not only told apart from its neighbour. Players reported seats B and G
  (sky blue 56B4E9 and blue 4D8FE0, ΔE00 12.8) as looking alike on a 7-player Winter
  board, so normal vision needs more than that. Under a dichromacy only lightness and
  one hue axis are left, so whole families merge (orange, yellow, red and green all
  become yellows for a deuteranope); 8 asks for a lightness step of about 8-10 L*
  between any two of them, clearly visible on a token. Players reported A and F
  (orange E69F00 and vermillion E86A1A, 7.9 under deuteranopia) as alike.
* ``OTHER``: everything else that sits beside a seat or another meaning (Winter's
  faction chips, Crossroads' gossip pills, ownerless grey pieces, room marks, the king,
  Pocket's pawn and crowns): **12** normal, **7** simulated. These differ from seat tokens
  in shape and size as well (a pill with a glyph, a hexagon counter, a crossed disc),
  so colour is a weaker second cue there, but Spring's chips, for one, must not turn
  into seat A's yellow. Crossroads' Inn Tiles (by category, each with its name on it)
  are held to the same numbers among themselves.
* ``MIN_CONTRAST``: **3:1** WCAG contrast against ``BG`` and ``PANEL`` for every marker
  colour drawn on the dark surfaces, under every simulation too (protanopes see reds
  darker): the WCAG 2.1 minimum for graphical objects (SC 1.4.11). Letters and labels
  drawn on a seat, a coin or a chip need **4.5:1** (text, SC 1.4.3).

A search over sRGB chose today's palettes against these numbers, close to the previous
colours (A orange, B sky blue); the tightest pairs pass by about 4 %, so a new colour
beside the seats will likely need the others moved. ``_report`` prints the worst pair
of each game under each vision when a test fails.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from engines import get_game
from renderers import common, pocket, treasure, vision
from renderers import crossroads_inn as xr
from renderers import fairy_tale_inn as fti
from renderers import winter_tales as wt
from renderers.common import BG, INK, PANEL, Color
from renderers.vision import DEFICIENCIES, VISIONS, Vision

SEAT: dict[Vision, float] = {"normal": 15.0, **dict.fromkeys(DEFICIENCIES, 8.0)}
OTHER: dict[Vision, float] = {"normal": 12.0, **dict.fromkeys(DEFICIENCIES, 7.0)}
MIN_CONTRAST = 3.0
MIN_TEXT_CONTRAST = 4.5

GAMES = ("fairy-tale-inn", "winter-tales", "crossroads-inn", "treasure", "pocket")
SEATED = ("fairy-tale-inn", "winter-tales", "crossroads-inn", "treasure")
"""Games that draw seats in their colours (Pocket is cooperative: one peasant pawn)."""


def seats(game_id: str) -> dict[str, Color]:
    """The seat colours of the game's largest table, by seat letter."""
    n = get_game(game_id).max_players if game_id in SEATED else 0
    return {f"seat {common.owner_style(s).letter}": common.owner_style(s).color
            for s in range(n)}


def colours(game_id: str) -> dict[str, Color]:
    """What must be told apart on the game's pictures: its seats and what sits beside
    them (or beside each other) with another meaning."""
    out = seats(game_id)
    if game_id in SEATED:
        out["gold"] = common.GOLD  # coins, +1/+2 rooms, to-act and prestige accents
    if game_id == "fairy-tale-inn":
        out |= {"ownerless token": common.NEUTRAL, "no-ability room": fti.NO_ABILITY_RED,
                "extra-turn room": fti.EXTRA_TEAL}
    elif game_id == "winter-tales":  # faction chips and counters lie among the figures
        out |= {f"{fac} chip": wt.FACTION_COLOR[fac] for fac in ("spring", "winter", "writer")}
        out |= {"neutral memory": wt.NEUTRAL_MEM, "ownerless figure": common.DIM}
    elif game_id == "crossroads-inn":  # gossip pills stand beside the seat markers
        out |= {f"{kind} gossip": fill for kind, fill in xr.GOSSIP_FILL.items()}
    elif game_id == "treasure":  # the king walks the path in a circle, like seat A
        out["king"] = treasure.KING
    elif game_id == "pocket":  # the peasant among the kingdom tiles' gold crowns
        out |= {"pawn": pocket.PAWN, "gold": common.GOLD}
    return out


ON_LIGHT = {"king", "pawn"}
"""Drawn on light ground (the king's path, the pawn's white halo): not on BG or PANEL."""


def _strict(a: str, b: str) -> bool:
    return all(n.startswith("seat ") or n == "gold" for n in (a, b)) and (
        a.startswith("seat ") or b.startswith("seat "))


def _pairs(game_id: str) -> Iterator[tuple[str, str, dict[Vision, float]]]:
    cols = colours(game_id)
    for a, b in itertools.combinations(cols, 2):
        yield a, b, SEAT if _strict(a, b) else OTHER


def _report(game_id: str) -> str:
    return "; ".join(str(p) for p in vision.worst_pairs(colours(game_id)).values())


# --------------------------------------------------------------------------- the palettes


@pytest.mark.parametrize("vision_name", VISIONS)
@pytest.mark.parametrize("game_id", GAMES)
def test_colours_side_by_side_stay_apart(game_id: str, vision_name: Vision) -> None:
    cols = colours(game_id)
    close = []
    for a, b, need in _pairs(game_id):
        d = vision.delta_e(cols[a], cols[b], vision_name)
        if d < need[vision_name]:
            close.append(f"{a} ~ {b}: {d:.1f} < {need[vision_name]:g}")
    assert not close, f"{game_id}, {vision_name}: {close} (worst: {_report(game_id)})"


def side_by_side() -> dict[str, dict[str, Color]]:
    """Colour families that sit beside each other away from the seats: Crossroads' Inn
    Tiles by category (the content names their colours, so only lightness may move;
    each tile also shows its category's name)."""
    return {"crossroads tiles": {f"{k} tile": c for k, c in xr.CATEGORY_FILL.items()}}


@pytest.mark.parametrize("vision_name", VISIONS)
@pytest.mark.parametrize("group", list(side_by_side()))
def test_other_families_stay_apart(group: str, vision_name: Vision) -> None:
    cols = side_by_side()[group]
    close = [f"{a} ~ {b}: {vision.delta_e(cols[a], cols[b], vision_name):.1f}"
             for a, b in itertools.combinations(cols, 2)
             if vision.delta_e(cols[a], cols[b], vision_name) < OTHER[vision_name]]
    assert not close, f"{group}, {vision_name}: {close}"
    low = [f"{n}: {common.contrast(c, common.readable_on(c)):.2f}" for n, c in cols.items()
           if common.contrast(c, common.readable_on(c)) < MIN_TEXT_CONTRAST]
    assert not low, f"{group}: text on the fill: {low}"


@pytest.mark.parametrize("game_id", GAMES)
def test_markers_stand_out_on_the_dark_surfaces(game_id: str) -> None:
    low = []
    for name, c in colours(game_id).items():
        if name in ON_LIGHT:
            continue
        for v in VISIONS:
            seen = vision.simulate(c, v)
            for surface, ground in (("BG", BG), ("PANEL", PANEL)):
                ratio = common.contrast(seen, ground)
                if ratio < MIN_CONTRAST:
                    low.append(f"{name} on {surface} ({v}): {ratio:.2f}")
    assert not low, low


@pytest.mark.parametrize("game_id", GAMES)
def test_labels_on_markers_are_readable(game_id: str) -> None:
    """Seat letters (in the seat's ``ink``), coin values and chip texts (dark ink) and
    gossip counts (``readable_on``) reach text contrast on their fill."""
    low = []
    for name, c in colours(game_id).items():
        if name.startswith("seat "):
            ink = common.owner_style(ord(name[-1]) - ord("A")).ink
        elif name == "gold" or name.endswith(" chip"):
            ink = INK
        elif name.endswith(" gossip"):
            ink = common.readable_on(c)
        else:
            continue
        if common.contrast(c, ink) < MIN_TEXT_CONTRAST:
            low.append(f"{name}: {common.contrast(c, ink):.2f}")
    assert not low, low


@pytest.mark.parametrize("game_id", SEATED)
def test_owners_never_differ_by_colour_alone(game_id: str) -> None:
    n = get_game(game_id).max_players
    styles = [common.owner_style(s) for s in range(n)]
    assert len({s.shape for s in styles}) == n, "two seats share a shape"
    assert len({s.letter for s in styles}) == n, "two seats share a letter"
    assert len({s.color for s in styles}) == n, "two seats share a colour"


def test_there_is_a_colour_a_shape_and_a_name_per_seat_of_the_largest_table() -> None:
    largest = max(get_game(g).max_players for g in GAMES)
    assert len(common.OWNER_COLORS) >= largest
    assert len(common.OWNER_SHAPES) == len(common.OWNER_COLORS)
    assert len(common.OWNER_COLOR_NAMES) == len(common.OWNER_COLORS)
    assert len(set(common.OWNER_COLOR_NAMES)) == len(common.OWNER_COLOR_NAMES)


# --------------------------------------------------------------------------- the maths

# Sharma, Wu and Dalal (2005), Table 1: all 34 pairs (L*, a*, b*) and their ΔE00.
SHARMA_2005 = [
    ((50.0000, 2.6772, -79.7751), (50.0000, 0.0000, -82.7485), 2.0425),
    ((50.0000, 3.1571, -77.2803), (50.0000, 0.0000, -82.7485), 2.8615),
    ((50.0000, 2.8361, -74.0200), (50.0000, 0.0000, -82.7485), 3.4412),
    ((50.0000, -1.3802, -84.2814), (50.0000, 0.0000, -82.7485), 1.0000),
    ((50.0000, -1.1848, -84.8006), (50.0000, 0.0000, -82.7485), 1.0000),
    ((50.0000, -0.9009, -85.5211), (50.0000, 0.0000, -82.7485), 1.0000),
    ((50.0000, 0.0000, 0.0000), (50.0000, -1.0000, 2.0000), 2.3669),
    ((50.0000, -1.0000, 2.0000), (50.0000, 0.0000, 0.0000), 2.3669),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0009), 7.1792),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0010), 7.1792),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0011), 7.2195),
    ((50.0000, 2.4900, -0.0010), (50.0000, -2.4900, 0.0012), 7.2195),
    ((50.0000, -0.0010, 2.4900), (50.0000, 0.0009, -2.4900), 4.8045),
    ((50.0000, -0.0010, 2.4900), (50.0000, 0.0010, -2.4900), 4.8045),
    ((50.0000, -0.0010, 2.4900), (50.0000, 0.0011, -2.4900), 4.7461),
    ((50.0000, 2.5000, 0.0000), (50.0000, 0.0000, -2.5000), 4.3065),
    ((50.0000, 2.5000, 0.0000), (73.0000, 25.0000, -18.0000), 27.1492),
    ((50.0000, 2.5000, 0.0000), (61.0000, -5.0000, 29.0000), 22.8977),
    ((50.0000, 2.5000, 0.0000), (56.0000, -27.0000, -3.0000), 31.9030),
    ((50.0000, 2.5000, 0.0000), (58.0000, 24.0000, 15.0000), 19.4535),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.1736, 0.5854), 1.0000),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.2972, 0.0000), 1.0000),
    ((50.0000, 2.5000, 0.0000), (50.0000, 1.8634, 0.5757), 1.0000),
    ((50.0000, 2.5000, 0.0000), (50.0000, 3.2592, 0.3350), 1.0000),
    ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
    ((63.0109, -31.0961, -5.8663), (62.8187, -29.7946, -4.0864), 1.2630),
    ((61.2901, 3.7196, -5.3901), (61.4292, 2.2480, -4.9620), 1.8731),
    ((35.0831, -44.1164, 3.7933), (35.0232, -40.0716, 1.5901), 1.8645),
    ((22.7233, 20.0904, -46.6940), (23.0331, 14.9730, -42.5619), 2.0373),
    ((36.4612, 47.8580, 18.3852), (36.2715, 50.5065, 21.2231), 1.4146),
    ((90.8027, -2.0831, 1.4410), (91.1528, -1.6435, 0.0447), 1.4441),
    ((90.9257, -0.5406, -0.9208), (88.6381, -0.8985, -0.7239), 1.5381),
    ((6.7747, -0.2908, -2.4247), (5.8714, -0.0985, -2.2286), 0.6377),
    ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
]


@pytest.mark.parametrize(("lab1", "lab2", "expected"), SHARMA_2005)
def test_ciede2000_matches_sharma_wu_dalal(lab1: vision.Lab, lab2: vision.Lab,
                                           expected: float) -> None:
    assert vision.ciede2000(lab1, lab2) == pytest.approx(expected, abs=1e-4)
    assert vision.ciede2000(lab2, lab1) == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(("rgb", "expected"), [
    ((255, 0, 0), (53.2408, 80.0925, 67.2032)),
    ((0, 255, 0), (87.7347, -86.1827, 83.1793)),
    ((0, 0, 255), (32.2970, 79.1875, -107.8602)),
    ((255, 255, 255), (100.0, 0.0, 0.0)),
    ((0, 0, 0), (0.0, 0.0, 0.0)),
    ((128, 128, 128), (53.5850, 0.0, 0.0)),
])
def test_cielab_of_srgb_colours(rgb: Color, expected: vision.Lab) -> None:
    """Published sRGB (D65) CIELAB values, e.g. Lindbloom's calculator."""
    assert vision.lab(rgb) == pytest.approx(expected, abs=2e-3)


def test_machado_matrices_keep_greys_grey() -> None:
    for name, m in vision.MACHADO_2009.items():
        for row in m:
            assert sum(row) == pytest.approx(1.0, abs=1e-4), name
        for v in (0, 51, 128, 200, 255):
            assert vision.simulate((v, v, v), name) == (v, v, v)


def test_machado_matrices_are_applied_in_linear_rgb() -> None:
    """Pure primaries go through the matrix columns (linear), then back to sRGB."""
    for name, m in vision.MACHADO_2009.items():
        for k, primary in enumerate(((255, 0, 0), (0, 255, 0), (0, 0, 255))):
            expected = tuple(round(vision.to_srgb(row[k])) for row in m)
            assert vision.simulate(primary, name) == expected
    # deuteranopia's green column, written out: 0.860646, 0.672501, 0.042940
    assert vision.simulate((0, 255, 0), "deuteranopia") == (239, 214, 58)


def test_simulations_merge_what_each_deficiency_confuses() -> None:
    red, green = (0xD5, 0x5E, 0x00), (0x00, 0x9E, 0x73)
    blue, green2 = (0x00, 0x72, 0xB2), (0x00, 0x9E, 0x73)
    assert vision.delta_e(red, green, "deuteranopia") < vision.delta_e(red, green) / 2
    assert vision.delta_e(red, green, "protanopia") < vision.delta_e(red, green) / 2
    assert vision.delta_e(blue, green2, "tritanopia") < vision.delta_e(blue, green2) / 2
    assert vision.simulate(red, "normal") == red


def test_worst_pair_finds_the_closest_two() -> None:
    cols = {"a": (200, 50, 50), "b": (205, 50, 50), "c": (50, 50, 200)}
    p = vision.worst_pair(cols)
    assert p.names == ("a", "b") and p.delta_e < 3
    assert set(vision.worst_pairs(cols)) == set(VISIONS)
    with pytest.raises(ValueError):
        vision.worst_pair([(0, 0, 0)])
    with pytest.raises(ValueError):
        vision.delta_e((0, 0, 0), (1, 1, 1), "achromatopsia")  # type: ignore[arg-type]


def test_simulate_image_is_simulate_per_pixel() -> None:
    from PIL import Image

    samples = [*common.OWNER_COLORS, common.GOLD, BG, PANEL, (12, 200, 77), (250, 3, 140)]
    img = Image.new("RGB", (len(samples), 1))
    for x, c in enumerate(samples):
        img.putpixel((x, 0), c)
    for v in VISIONS:
        out = vision.simulate_image(img, v)
        for x, c in enumerate(samples):
            got, want = out.getpixel((x, 0)), vision.simulate(c, v)
            assert max(abs(g - w) for g, w in zip(got, want, strict=True)) <= 3, (v, c)
