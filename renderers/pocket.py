"""Fairy Tale in My Pocket: the peasant's table as one picture, and as text.

Drawn only from a :class:`engines.pocket.state.PocketView` (or its JSON dict): the time of
day (the sun on its way down, the pass through the deck), health, Defense and its parts,
gold, the special and regular items (an empty goblet or bucket greyed out), the goals,
the explored map with every border (open, dense trees, rose bushes) and the pawn, the
card just read, the card piles and tile stacks by their sizes only, and the decision the
rules wait for. The deck order and the stacks' order are not in the view, so they cannot
be in the picture.

Discord shows an image about 400 px wide on a phone: the picture is 900 px wide, its
text 26 to 30 px (about 12 px once scaled down), the numbers 44 px; no text is under
:data:`TEXT_MIN` (21 px: 9.3 px on the phone), not the small labels either (badges, the
"used" mark, the names on a map of many rows or columns). A map tile is as wide as the
picture allows (at most 190 px) and square when the map is short enough, else as tall as
its rows allow (at least 136 px); a tile too narrow for every name in two lines (a map
of six columns or more) is made taller for more, a long word broken with a hyphen.
Nothing is told by colour alone: borders have their own patterns and a legend, Forest
and Kingdom tiles a tree or a crown, goals a tick or their number, an empty goblet or
bucket its name.

>>> from engines.pocket.game import Pocket
>>> game = Pocket()
>>> view = game.view(game.setup(1, game.Options(special="wand"), 3), None)
>>> render(view)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> print(text_board(view).splitlines()[0])
Fairy Tale in My Pocket · turn 1 · High sun (1 of 3)
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from functools import lru_cache, partial
from itertools import pairwise
from typing import Any

from PIL import Image, ImageDraw

from engines.pocket.content import load_content
from engines.pocket.state import PocketView, TileView
from renderers.common import (
    BG,
    DIM,
    GOLD,
    GOLD_DARK,
    GOOD,
    GRID,
    INK,
    MUTED,
    PANEL,
    PANEL_HI,
    TEXT,
    WARN,
    Color,
    FixedPalette,
    badge,
    coin,
    ellipsize,
    fit_font,
    font,
    line_height,
    mix,
    new_canvas,
    readable_on,
    rounded_panel,
    text_center,
    text_left,
    to_png,
    wrap_text,
)

__all__ = ["draw", "render", "text_board"]

W = 900
PAD = 22
F_MIN = 26
TEXT_MIN = 21  # the smallest text: 9 px or more at 400 px wide (tests/test_phone_pictures)
MAP_ROOM = W - 2 * PAD + 8  # the map's cells across (the tiles' edges: the panels' ones)

FOREST: Color = (0x3A, 0x7D, 0x44)
FOREST_DARK: Color = (0x1F, 0x4D, 0x26)
KINGDOM: Color = (0x8C, 0x6A, 0xB8)
KINGDOM_DARK: Color = (0x55, 0x3C, 0x78)
TREES: Color = (0x14, 0x3A, 0x1A)
TREE_TOP: Color = (0x5D, 0xB8, 0x5F)
ROSES: Color = (0x7A, 0x1C, 0x2E)
ROSE: Color = (0xFF, 0x5C, 0x8A)
PATH: Color = (0xE0, 0xC4, 0x8C)
WATER: Color = (0x4F, 0xC3, 0xF7)
WOOD: Color = (0x8B, 0x5E, 0x3C)
STONE: Color = (0xC9, 0xC4, 0xBA)
HEART: Color = (0xF2, 0x4E, 0x5E)
SHIELD: Color = (0x7E, 0xA8, 0xD8)
SPECIAL: Color = (0xA8, 0x6B, 0xD8)
ITEM: Color = (0x3D, 0x7E, 0xC9)
PAWN: Color = (0xE6, 0x9F, 0x00)
WHITE: Color = (255, 255, 255)
LOSS: Color = (0xFF, 0x8A, 0x80)  # light red on the dark panels: cards running out, costs
SKY_BLUE: Color = (0x56, 0xB4, 0xE9)  # events and the knight
ROSE_HEART: Color = (0xC2, 0x18, 0x5B)
ROSE_EDGE: Color = (0xFF, 0xD0, 0xDC)
ROOF: Color = (0xC6, 0x28, 0x28)
ROOF_PURPLE: Color = (0x8E, 0x24, 0xAA)
SLATE: Color = (0x4D, 0x8F, 0xE0)  # the castle's roofs
ROCK: Color = (0x8D, 0x87, 0x7E)
APPLE: Color = (0xE5, 0x39, 0x35)  # apples and the stall's awning
FOREST_MARK: Color = (0xB9, 0xF6, 0xCA)
SUN: Color = (0xFF, 0xD5, 0x4F)
SUN_LOW: Color = (0xFF, 0x8A, 0x3D)  # the sun of the last time of day
SUN_RAY: Color = (0xFF, 0xE0, 0x66)
SUN_RIM: Color = (0xFF, 0xF3, 0xC4)
SKIES: tuple[tuple[Color, Color], ...] = (
    ((0x5E, 0xA8, 0xE8), (0xB8, 0xDD, 0xF8)),  # high sun
    ((0x3F, 0x78, 0xC0), (0xF2, 0xC0, 0x7A)),  # afternoon
    ((0x3A, 0x2F, 0x6B), (0xF0, 0x7A, 0x3A)),  # dusk
)
KIND_STYLE: dict[str, tuple[str, Color]] = {
    "villain": ("VILLAIN", WARN),
    "good_deed": ("GOOD DEED", GOOD),
    "peddler": ("PEDDLER", GOLD),
    "event": ("EVENT", SKY_BLUE),
}


def _special_cost(v: PocketView) -> int:
    """The special item's cost per use (static content, like the names)."""
    try:
        return int(load_content().special(v.special).cost)
    except StopIteration:
        return 1


def _tile_name(tile_id: str) -> str:
    try:
        return str(load_content().tile(tile_id).name)
    except KeyError:
        return tile_id.replace("_", " ").title()


def _as_view(view: Any) -> PocketView:
    return view if isinstance(view, PocketView) else PocketView.model_validate(view)


def _names(v: PocketView, names: Sequence[str] | None) -> list[str]:
    out = list(names or [])
    out += [f"Player {chr(ord('A') + s)}" for s in range(len(out), v.players)]
    return out


class _Regions:
    """Parts of the picture whose pixels a key fixes (the sky by the time of day, a stat
    box by its numbers, a map tile by its face, borders and place): the first picture
    draws a part as before and keeps a copy of its pixels, later pictures paste the copy
    (a board repeats most of them from one move to the next). The copy is of the
    picture's own pixels, never of the part drawn elsewhere and moved, so no rounding
    can differ. A key holds everything that reaches its region, what lies under the part
    too; nothing drawn before the part may reach into the region. The least recently
    used go first once the parts hold over ``limit`` pixels (4 bytes each in Pillow); a
    lock guards the bookkeeping for render threads (two may both draw a missing part:
    harmless). Parts are read-only: only pasted."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pixels = 0
        self.parts: OrderedDict[Hashable, Image.Image] = OrderedDict()
        self.lock = threading.Lock()

    def clear(self) -> None:
        with self.lock:
            self.parts.clear()
            self.pixels = 0

    def draw(self, img: Image.Image, key: Hashable, region: tuple[int, int, int, int],
             paint: Callable[[], object]) -> None:
        """Paste the part kept under ``key`` at ``region``, or ``paint`` it on ``img``
        and keep the region's pixels."""
        with self.lock:
            part = self.parts.get(key)
            if part is not None:
                self.parts.move_to_end(key)
        if part is not None:
            img.paste(part, region[:2])
            return
        paint()
        x0, y0, x1, y1 = region
        if x0 < 0 or y0 < 0 or x1 > img.width or y1 > img.height:
            return  # cut by the picture's edge: its copy would not hold the whole part
        part = img.crop(region)
        with self.lock:
            if key not in self.parts:
                self.parts[key] = part
                self.pixels += part.width * part.height
                while self.pixels > self.limit and self.parts:
                    _, old = self.parts.popitem(last=False)
                    self.pixels -= old.width * old.height


_REGIONS = _Regions(limit=4_000_000)  # at most 16 MB per process


# --------------------------------------------------------------------------- small art


def _heart(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color | None,
           outline: Color = HEART) -> None:
    """A heart about ``2r`` wide (filled, or an outline for a missing health point)."""
    pts = []
    for k in range(40):
        t = 2 * math.pi * k / 40
        x = 16 * math.sin(t) ** 3
        y = -(13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t))
        pts.append((cx + x * r / 16, cy + y * r / 16))
    d.polygon(pts, fill=fill, outline=outline, width=3)


def _shield(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color) -> None:
    d.polygon([(cx - r, cy - r * .8), (cx, cy - r), (cx + r, cy - r * .8), (cx + r, cy),
               (cx, cy + r), (cx - r, cy)], fill=fill, outline=INK, width=2)


def _tree(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color = TREE_TOP,
          trunk: Color = WOOD) -> None:
    d.rectangle((cx - r * .15, cy + r * .3, cx + r * .15, cy + r), fill=trunk)
    d.polygon([(cx, cy - r), (cx + r * .8, cy + r * .45), (cx - r * .8, cy + r * .45)],
              fill=fill)


def _crown(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color = GOLD) -> None:
    d.polygon([(cx - r, cy + r * .6), (cx - r, cy - r * .4), (cx - r * .5, cy + r * .1),
               (cx, cy - r * .7), (cx + r * .5, cy + r * .1), (cx + r, cy - r * .4),
               (cx + r, cy + r * .6)], fill=fill, outline=GOLD_DARK)


def _rose(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.line((cx, cy, cx, cy + r * 1.1), fill=TREE_TOP, width=max(2, int(r * .18)))
    d.ellipse((cx - r * .2, cy + r * .45, cx + r * .35, cy + r * .75), fill=TREE_TOP)
    for k in range(5):
        a = 2 * math.pi * k / 5
        px, py = cx + r * .32 * math.cos(a), cy - r * .25 + r * .32 * math.sin(a)
        d.ellipse((px - r * .32, py - r * .32, px + r * .32, py + r * .32), fill=ROSE)
    d.ellipse((cx - r * .2, cy - r * .45, cx + r * .2, cy - r * .05), fill=ROSE_HEART)


def _house(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, wall: Color = STONE,
           roof: Color = ROOF) -> None:
    d.rectangle((cx - r * .7, cy - r * .1, cx + r * .7, cy + r * .8), fill=wall)
    d.polygon([(cx - r * .95, cy), (cx, cy - r * .8), (cx + r * .95, cy)], fill=roof)
    d.rectangle((cx - r * .18, cy + r * .3, cx + r * .18, cy + r * .8), fill=WOOD)


def _castle(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r * .8, cy - r * .2, cx + r * .8, cy + r * .8), fill=STONE)
    for k in (-1, 1):
        x = cx + k * r * .65
        d.rectangle((x - r * .25, cy - r * .75, x + r * .25, cy + r * .8), fill=STONE)
        d.polygon([(x - r * .32, cy - r * .7), (x, cy - r * 1.1), (x + r * .32, cy - r * .7)],
                  fill=SLATE)
    d.pieslice((cx - r * .25, cy + r * .25, cx + r * .25, cy + r * 1.0), 180, 360, fill=WOOD)
    d.rectangle((cx - r * .25, cy + r * .6, cx + r * .25, cy + r * .8), fill=WOOD)


def _water(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.ellipse((cx - r, cy - r * .55, cx + r, cy + r * .55), fill=WATER)
    for k in (-1, 1):
        y = cy + k * r * .18
        d.arc((cx - r * .6, y - r * .2, cx, y + r * .2), 200, 340, fill=WHITE, width=3)
        d.arc((cx, y - r * .2, cx + r * .6, y + r * .2), 200, 340, fill=WHITE, width=3)


def _fountain(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.ellipse((cx - r, cy + r * .2, cx + r, cy + r * .8), fill=STONE)
    d.ellipse((cx - r * .8, cy + r * .25, cx + r * .8, cy + r * .6), fill=WATER)
    d.rectangle((cx - r * .1, cy - r * .5, cx + r * .1, cy + r * .4), fill=STONE)
    for k in (-1, 1):
        d.arc((cx - r * .1 + (k - 1) * r * .35, cy - r * .7, cx + r * .1 + (k + 1) * r * .35,
               cy + r * .3), 180 if k < 0 else 270, 270 if k < 0 else 360, fill=WATER, width=4)


def _well(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r * .7, cy, cx + r * .7, cy + r * .8), fill=STONE, outline=INK)
    d.line((cx - r * .6, cy, cx - r * .6, cy - r * .7), fill=WOOD, width=4)
    d.line((cx + r * .6, cy, cx + r * .6, cy - r * .7), fill=WOOD, width=4)
    d.polygon([(cx - r * .9, cy - r * .6), (cx, cy - r * 1.05), (cx + r * .9, cy - r * .6)],
              fill=ROOF)
    d.ellipse((cx - r * .5, cy - r * .1, cx + r * .5, cy + r * .15), fill=WATER)


def _cave(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.pieslice((cx - r, cy - r * .7, cx + r, cy + r * 1.3), 180, 360, fill=ROCK)
    d.rectangle((cx - r, cy + r * .3, cx + r, cy + r * .8), fill=ROCK)
    d.pieslice((cx - r * .5, cy - r * .1, cx + r * .5, cy + r * 1.1), 180, 360, fill=INK)
    d.rectangle((cx - r * .5, cy + r * .5, cx + r * .5, cy + r * .8), fill=INK)
    d.ellipse((cx - r * .1, cy + r * .3, cx + r * .1, cy + r * .5), fill=GOLD)


def _oak(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r * .3, cy, cx + r * .3, cy + r), fill=WOOD)
    d.ellipse((cx - r, cy - r, cx + r, cy + r * .3), fill=TREE_TOP)
    d.ellipse((cx - r * .15, cy + r * .35, cx + r * .15, cy + r * .7), fill=INK)


def _signpost(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.polygon([(cx - r * .4, cy + r), (cx - r * .1, cy - r * .2), (cx + r * .1, cy - r * .2),
               (cx + r * .4, cy + r)], fill=PATH)
    d.line((cx, cy - r, cx, cy + r * .6), fill=WOOD, width=5)
    d.polygon([(cx - r * .7, cy - r * .85), (cx + r * .5, cy - r * .85),
               (cx + r * .8, cy - r * .6), (cx + r * .5, cy - r * .35),
               (cx - r * .7, cy - r * .35)], fill=WOOD)


def _road(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.polygon([(cx - r * .8, cy + r), (cx - r * .15, cy - r * .3), (cx + r * .15, cy - r * .3),
               (cx + r * .8, cy + r)], fill=PATH)
    _crown(d, cx, cy - r * .65, r * .45)


def _stall(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r * .8, cy, cx + r * .8, cy + r * .8), fill=WOOD)
    for k in range(4):
        x0 = cx - r * .9 + k * r * .45
        d.rectangle((x0, cy - r * .6, x0 + r * .45, cy), fill=APPLE if k % 2
                    else WHITE)
    coin(d, (cx, cy + r * .4), r * .25)


def _bridge(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r, cy + r * .4, cx + r, cy + r * .9), fill=WATER)
    d.pieslice((cx - r, cy - r * .4, cx + r, cy + r * 1.4), 180, 360, fill=STONE)
    d.pieslice((cx - r * .55, cy + r * .1, cx + r * .55, cy + r * 1.2), 180, 360, fill=WATER)


def _tower(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r * .35, cy - r * .6, cx + r * .35, cy + r), fill=STONE)
    for k in range(3):
        x = cx - r * .45 + k * r * .35
        d.rectangle((x, cy - r * .85, x + r * .2, cy - r * .6), fill=STONE)
    d.rectangle((cx - r * .1, cy - r * .3, cx + r * .1, cy), fill=INK)


def _orchard(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    _oak(d, cx, cy, r)
    d.ellipse((cx - r * .15, cy + r * .35, cx + r * .15, cy + r * .7), fill=WOOD)
    for ox, oy in ((-.5, -.4), (.4, -.5), (.05, -.1), (.55, 0), (-.45, .05)):
        d.ellipse((cx + (ox - .13) * r, cy + (oy - .13) * r, cx + (ox + .13) * r,
                   cy + (oy + .13) * r), fill=APPLE)


def _windmill(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.polygon([(cx - r * .35, cy + r), (cx - r * .2, cy - r * .2), (cx + r * .2, cy - r * .2),
               (cx + r * .35, cy + r)], fill=STONE)
    for k in range(4):
        a = math.pi / 4 + k * math.pi / 2
        d.line((cx, cy - r * .2, cx + r * .95 * math.cos(a), cy - r * .2 + r * .95 * math.sin(a)),
               fill=WHITE, width=max(3, int(r * .16)))
    d.ellipse((cx - r * .1, cy - r * .3, cx + r * .1, cy - r * .1), fill=INK)


def _village(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    _house(d, cx - r * .45, cy + r * .1, r * .6)
    _house(d, cx + r * .45, cy - r * .05, r * .7, roof=ROOF_PURPLE)


ICONS: dict[str, Callable[[ImageDraw.ImageDraw, float, float, float], None]] = {
    "lake": _water, "rose_garden": _rose, "cottage": _house, "forest_path": _signpost,
    "cave": _cave, "fountain": _fountain, "well": _well, "hollow_oak": _oak,
    "kingdom_path": _road, "castle": _castle, "village": _village, "market": _stall,
    "bridge": _bridge, "watchtower": _tower, "orchard": _orchard, "windmill": _windmill,
}
ROLE_ICONS: dict[str, Callable[[ImageDraw.ImageDraw, float, float, float], None]] = {
    "start": _water, "rose": _rose, "cottage": _house, "forest_path": _signpost,
    "kingdom_path": _road, "castle": _castle,
}


def _icon(d: ImageDraw.ImageDraw, t: TileView, cx: float, cy: float, r: float) -> None:
    art = ICONS.get(t.id) or (ROLE_ICONS.get(t.role) if t.role else None)
    if art is not None:
        art(d, cx, cy, r)
    elif t.stack == "kingdom":
        _crown(d, cx, cy, r * .8)
    else:
        _tree(d, cx, cy, r * .9)


def _pawn(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """The peasant: a head and a body, orange with a dark outline and a white halo."""
    d.ellipse((cx - r * 1.15, cy - r * 1.25, cx + r * 1.15, cy + r * 1.15), fill=WHITE)
    d.polygon([(cx - r * .75, cy + r * .95), (cx, cy - r * .2), (cx + r * .75, cy + r * .95)],
              fill=PAWN, outline=INK, width=3)
    d.ellipse((cx - r * .38, cy - r * .95, cx + r * .38, cy - r * .2), fill=PAWN, outline=INK,
              width=3)


# --------------------------------------------------------------------------- the map

SEVERITY = {"open": 0, "trees": 1, "roses": 2}
OPPOSITE = {"n": "s", "e": "w", "s": "n", "w": "e"}
DELTA = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0)}


def _border(a: TileView, side: str, grid: dict[tuple[int, int], TileView]) -> tuple[str, bool]:
    """The border on ``side`` of ``a`` (as the rules read it: the worse of the two edges
    when a tile lies there) and whether a tile lies there."""
    own = getattr(a.edges, side)
    dx, dy = DELTA[side]
    b = grid.get((a.x + dx, a.y + dy))
    if b is None:
        return own, False
    other = getattr(b.edges, OPPOSITE[side])
    return max(own, other, key=lambda e: SEVERITY.get(e, 0)), True


def _ghosts(v: PocketView) -> list[tuple[int, int, str, bool]]:
    """Squares the tile in hand may go to (the decision's Place choices): x, y, side, and
    whether its button warns of dense trees on the way in."""
    dec = v.decision
    if dec is None or dec.kind not in ("place", "kingdom_path"):
        return []
    anchor_id = v.pawn
    if dec.kind == "kingdom_path":
        anchor_id = next((t.id for t in v.map if t.role == "forest_path"), v.pawn)
    anchor = next((t for t in v.map if t.id == anchor_id), None)
    if anchor is None:
        return []
    out = []
    for ch in dec.choices:
        side = ch.action.get("side")
        if ch.action.get("kind") == "place" and side in DELTA:
            dx, dy = DELTA[side]
            out.append((anchor.x + dx, anchor.y + dy, side, "trees" in ch.label))
    return out


def _band(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], side: str,
          kind: str, t: float) -> None:
    """A border band of thickness ``t`` inside ``box`` on ``side``: dense trees (dark green
    with little trees) or rose bushes (dark red with roses); open borders have none."""
    x0, y0, x1, y1 = box
    if kind == "open":
        return
    band = {"n": (x0, y0, x1, y0 + t), "s": (x0, y1 - t, x1, y1),
            "w": (x0, y0, x0 + t, y1), "e": (x1 - t, y0, x1, y1)}[side]
    d.rectangle(band, fill=TREES if kind == "trees" else ROSES)
    bx0, by0, bx1, by1 = band
    horizontal = side in ("n", "s")
    length = (bx1 - bx0) if horizontal else (by1 - by0)
    n = max(2, int(length / (t * 1.25)))
    for k in range(n):
        f = (k + .5) / n
        cx = bx0 + f * (bx1 - bx0) if horizontal else (bx0 + bx1) / 2
        cy = (by0 + by1) / 2 if horizontal else by0 + f * (by1 - by0)
        if kind == "trees":
            r = t * .42
            d.polygon([(cx, cy - r), (cx + r * .85, cy + r * .8), (cx - r * .85, cy + r * .8)],
                      fill=TREE_TOP)
        else:
            r = t * .28
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ROSE, outline=ROSE_EDGE)


def _pieces(word: str, fnt: Any, width: float) -> list[str]:
    """``word`` whole if it fits ``width``, else cut in the fewest near-equal pieces that
    fit, each but the last ending with a hyphen."""
    parts = [word]
    for k in range(1, len(word) + 1):
        cuts = [round(len(word) * i / k) for i in range(k + 1)]
        parts = [word[a:b] + ("-" if b < len(word) else "") for a, b in pairwise(cuts)]
        if all(fnt.getlength(p) <= width for p in parts):
            break
    return parts


def _hyphenated(name: str, fnt: Any, width: float) -> list[str]:
    """``name`` wrapped to ``width``, a word too long for a line in :func:`_pieces`, each
    piece but the last ending its line."""
    lines: list[str] = []
    line = ""
    for word in name.split():
        parts = _pieces(word, fnt, width)
        for k, part in enumerate(parts):
            joined = f"{line} {part}" if line else part
            if line and fnt.getlength(joined) > width:
                lines.append(line)
                joined = part
            line = joined
            if k < len(parts) - 1:
                lines.append(line)
                line = ""
    if line:
        lines.append(line)
    return [ellipsize(x, fnt, width) for x in lines]


def _tile_name_lines(name: str, width: float, size: int) -> tuple[list[str], Any]:
    """The name in at most two lines, as large as it fits (down to :data:`TEXT_MIN`):
    without splitting a word if it can, else with a long word broken with a hyphen; in
    :data:`TEXT_MIN` and three lines or more on a tile too narrow (made taller)."""
    words = " ".join(name.split())
    for s in range(size, TEXT_MIN - 1, -1):
        lines = wrap_text(name, font(s, bold=True), width)
        if len(lines) <= 2 and " ".join(lines) == words:
            return lines, font(s, bold=True)
    for s in range(size, TEXT_MIN, -1):
        lines = _hyphenated(name, font(s, bold=True), width)
        if len(lines) <= 2:
            return lines, font(s, bold=True)
    return _hyphenated(name, font(TEXT_MIN, bold=True), width), font(TEXT_MIN, bold=True)


def _tile_metrics(small: float) -> tuple[float, float, float]:
    """(gap between tiles, border band, stack's mark's half-size) for cells whose shorter
    side is ``small``."""
    return max(6, small * .07), max(8, small * .1), max(8, small * .075)


def _name_size(small: float) -> int:
    """The largest size of the names on tiles whose shorter side is ``small``."""
    return 26 if small >= 150 else 24


Circle = tuple[float, float, float]  # centre x, centre y, radius


def _top_rows(width: float, band: float, mark: float, used: bool
              ) -> tuple[float, float, list[tuple[float, float, float]]]:
    """Down from a tile's top, ``width`` wide: the middle of the stack's mark, the middle
    of the "used" badge, and the places the picture may take (left, top, right; down to
    the name). The badge goes top right beside the mark, or under it on a tile too
    narrow for both; the picture goes under the badge's row, or between the mark and the
    badge (on a tile wider than tall it has more room there). A tile not used has its
    picture from the top, beside the mark."""
    top = band + 3
    if not used:
        return top + mark, 0.0, [(top, top + 1, width - top)]
    fnt = font(TEXT_MIN, bold=True)
    ascent, descent = fnt.getmetrics()
    uh, uw = ascent + descent + 2, fnt.getlength("used") + 12  # badge's pad=(6, 1)
    if width - 2 * top - 2 * mark - 6 < uw:
        return top + mark, top + 2 * mark + 3 + uh / 2, [
            (top, top + 2 * mark + uh + 6, width - top)]
    h = max(2 * mark, uh)
    return top + h / 2, top + h / 2, [(top, top + h + 3, width - top),
                                      (top + 2 * mark + 4, top + 1, width - top - uw - 4)]


def _pictures(places: Sequence[tuple[float, float, float]], bottom: float, here: bool
              ) -> tuple[Circle, Circle | None]:
    """The tile's picture and, on the pawn's tile, the pawn beside it, in whichever of
    the ``places`` (down to ``bottom``) makes them the largest: a place too narrow for
    both (under 70 px) has the pawn alone (radius 0 for the picture)."""
    def size(option: tuple[Circle, Circle | None]) -> float:
        picture, pawn = option
        return picture[2] if pawn is None else min(pawn[2], max(picture[2], 12))

    options: list[tuple[Circle, Circle | None]] = []
    for left, top, right in places:
        w, h = right - left, bottom - top
        mid = top + h / 2
        if not here:
            options.append((((left + right) / 2, mid, min(h * .42, w * .3)), None))
        elif w >= 70:
            pr = max(min(12, h / 2.4), min(h * .4, w * .2))
            options.append(((left + w * .25, mid, min(h * .42, w * .22)),
                            (left + w * .775, mid + pr * .1, pr)))
        else:
            pr = min(h * .4, w * .4)
            options.append(((0, 0, 0), ((left + right) / 2, mid + pr * .1, pr)))
    return max(options, key=size)


@lru_cache(maxsize=32)
def _height_for_names(cw: int) -> int:
    """How tall a tile ``cw`` wide (and at least as tall) must be for every name of the
    content, a "used" badge and a picture of 40 px: more than ``cw`` only for a narrow
    tile, whose longer names take three lines."""
    gap, band, mark = _tile_metrics(cw)
    bw = cw - gap
    worst = 0
    for tile in load_content().tiles:
        lines, fnt = _tile_name_lines(tile.name, bw - 2 * band - 8, _name_size(cw))
        worst = max(worst, line_height(fnt, 1.08) * len(lines))
    under = _top_rows(bw, band, mark, True)[2][0][1]
    return math.ceil(gap + under + 40 + worst + 4 + band)


def _map_size(v: PocketView) -> tuple[int, int, int, int, int, int]:
    """(min x, min y, columns, rows, cell width, cell height) of the map with the placing
    squares."""
    pts = [(t.x, t.y) for t in v.map] + [(g[0], g[1]) for g in _ghosts(v)]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    cols, rows = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    # As wide as the picture allows; a long strip of a map keeps its cells tall enough
    # for a name a phone can read (the picture grows taller instead), a wide one (six
    # columns or more) makes them taller than wide for names in three lines.
    cw = int(min(190, MAP_ROOM / cols))
    ch = int(min(cw, max(136, 1100 / rows)))
    if ch >= cw:
        ch = max(ch, _height_for_names(cw))
    return min(xs), min(ys), cols, rows, cw, ch


def _stroke(base: Color) -> Color:
    """The outline of the names on a tile of colour ``base``."""
    return mix(base, INK, .55)


def _goal_done() -> Color:
    """A goal reached."""
    return mix(GOOD, BG, .25)


def _tile(d: ImageDraw.ImageDraw, t: TileView, box: tuple[float, float, float, float],
          kinds: Sequence[str], small: float, here: bool) -> None:
    """One map tile in ``box``: its colour, its borders (``kinds`` n, e, s, w), name,
    picture, stack's mark and "used", and for the pawn's tile the pawn and a white ring
    (``small``: the shorter side of the map's cells)."""
    x0, y0, x1, y1 = box
    _, band, mark = _tile_metrics(small)
    base = FOREST if t.stack == "forest" else KINGDOM
    d.rounded_rectangle(box, radius=10, fill=base)
    for side, kind in zip(("n", "e", "s", "w"), kinds, strict=True):
        _band(d, box, side, kind, band)
    # the name at the bottom, the picture above it, the stack's mark (a tree or a
    # crown) top left, "used" top right (or under the mark), the pawn beside the picture
    lines, fnt = _tile_name_lines(t.name, x1 - x0 - 2 * band - 8, _name_size(small))
    lh = line_height(fnt, 1.08)
    name_top = y1 - band - 4 - lh * len(lines)
    for k, line in enumerate(lines):
        text_center(d, ((x0 + x1) / 2, name_top + lh * k + lh / 2), line, fnt, TEXT,
                    stroke=3, stroke_fill=_stroke(base))
    mark_y, used_y, places = _top_rows(x1 - x0, band, mark, t.used)
    mx, my = x0 + band + mark + 3, y0 + mark_y
    if t.stack == "forest":
        _tree(d, mx, my, mark, fill=FOREST_MARK, trunk=FOREST_MARK)
    else:
        _crown(d, mx, my, mark)
    if t.used:
        badge(d, (x1 - band - 3, y0 + used_y), "used", font(TEXT_MIN, bold=True), PANEL_HI,
              MUTED, pad=(6, 1), align="right")
    (ix, iy, ir), pawn = _pictures(places, name_top - y0, here)
    if ir > 6:
        _icon(d, t, x0 + ix, y0 + iy, ir)
    if here:
        d.rounded_rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), radius=12,
                            outline=WHITE, width=5)
    if pawn is not None:
        px, py, pr = pawn
        _pawn(d, x0 + px, y0 + py, pr)


def _draw_map(img: Image.Image, d: ImageDraw.ImageDraw, v: PocketView, top: float) -> float:
    """The explored map from ``top``; returns the y below it."""
    x_min, y_min, cols, rows, cw, ch = _map_size(v)
    left = (W - cols * cw) / 2
    grid = {(t.x, t.y): t for t in v.map}
    small = min(cw, ch)
    gap, band, _ = _tile_metrics(small)

    def box_of(x: int, y: int) -> tuple[float, float, float, float]:
        bx = left + (x - x_min) * cw
        by = top + (y - y_min) * ch
        return bx + gap / 2, by + gap / 2, bx + cw - gap / 2, by + ch - gap / 2

    # open borders between two tiles: a path across the gap
    for t in v.map:
        for side in ("e", "s"):
            kind, shared = _border(t, side, grid)
            if shared and kind == "open":
                x0, y0, x1, y1 = box_of(t.x, t.y)
                w = small * .22
                if side == "e":
                    cy = (y0 + y1) / 2
                    d.rectangle((x1 - band, cy - w / 2, x1 + gap + band, cy + w / 2), fill=PATH)
                else:
                    cx = (x0 + x1) / 2
                    d.rectangle((cx - w / 2, y1 - band, cx + w / 2, y1 + gap + band), fill=PATH)
    for t in v.map:
        box = box_of(t.x, t.y)
        sides = tuple(_border(t, side, grid) for side in ("n", "e", "s", "w"))
        here = t.id == v.pawn
        # The tile's pixels and a pixel round them, four for the pawn's tile with its
        # white ring: the gap (6 px or more) keeps the neighbours' regions out, and the
        # paths under the edges are fixed by ``sides``. A tile looks the same wherever
        # the map puts it, but for where its box falls inside its first pixel and (as
        # Pillow rounds halves to even) that pixel's parity: the key holds these, not
        # the place, so a tile the growing map moves is pasted, not drawn again.
        m = 4 if here else 1
        x0, y0, x1, y1 = box
        ox, oy = math.floor(x0) - m, math.floor(y0) - m
        region = (ox, oy, math.ceil(x1) + m, math.ceil(y1) + m)
        key = ("tile", (x0 - ox, y0 - oy, x1 - ox, y1 - oy), ox % 2, oy % 2, small, t.id,
               t.role, t.stack, t.name, t.used, sides, here)
        _REGIONS.draw(img, key, region, partial(_tile, d, t, box, [k for k, _ in sides],
                                                small, here))
    for x, y, side, trees in _ghosts(v):
        x0, y0, x1, y1 = box_of(x, y)
        _dashed_box(d, (x0 + 4, y0 + 4, x1 - 4, y1 - 4), WHITE)
        text_center(d, ((x0 + x1) / 2, (y0 + y1) / 2 - 14), side.upper(),
                    font(min(54, int(small * .3)), bold=True), TEXT)
        text_center(d, ((x0 + x1) / 2, (y0 + y1) / 2 + small * .22),
                    "-1 card" if trees else "here?",
                    font(22 if small < 150 else 26, bold=True), LOSS if trees else MUTED)
    return top + rows * ch


def _dashed_box(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float],
                fill: Color, dash: float = 16, width: int = 4) -> None:
    x0, y0, x1, y1 = box
    for (ax, ay), (bx, by) in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)),
                               ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        length = math.hypot(bx - ax, by - ay)
        n = max(1, int(length / (2 * dash)))
        for k in range(n):
            f0, f1 = (2 * k) / (2 * n), (2 * k + 1) / (2 * n)
            d.line((ax + (bx - ax) * f0, ay + (by - ay) * f0, ax + (bx - ax) * f1,
                    ay + (by - ay) * f1), fill=fill, width=width)


def _legend(d: ImageDraw.ImageDraw, y: float) -> float:
    fnt = font(F_MIN)
    x = PAD + 8
    for kind, words in (("trees", "trees: 1 card"), ("roses", "roses: no way"),
                        ("open", "open")):
        box = (x, y - 16, x + 56, y + 16)
        if kind == "open":
            d.rectangle(box, fill=FOREST)
            d.rectangle((x + 14, y - 16, x + 42, y + 16), fill=PATH)
        else:
            d.rectangle(box, fill=FOREST)
            _band(d, box, "n", kind, 32)
        text_left(d, (x + 66, y), words, fnt, MUTED)
        x += 66 + fnt.getlength(words) + 30
    return y + 26


# --------------------------------------------------------------------------- panels


def _sky(time: int) -> list[Color]:
    """The sky's bands at this time of day, top to bottom."""
    top_c, low_c = SKIES[min(time, len(SKIES) - 1)]
    steps = 24
    return [mix(top_c, low_c, k / (steps - 1)) for k in range(steps)]


def _sun_panel(d: ImageDraw.ImageDraw, v: PocketView, box: tuple[float, float, float, float]
               ) -> None:
    """The sky with the sun at this time of day, the three times marked on its way."""
    x0, y0, x1, y1 = box
    n = max(1, len(v.times))
    sky = _sky(v.time)
    steps = len(sky)
    for k, c in enumerate(sky):
        d.rectangle((x0, y0 + (y1 - y0) * k / steps, x1, y0 + (y1 - y0) * (k + 1) / steps + 1),
                    fill=c)
    horizon = y1 - 22
    d.rectangle((x0, horizon, x1, y1), fill=FOREST_DARK)
    for k in range(7):
        _tree(d, x0 + 20 + k * (x1 - x0 - 40) / 6, horizon - 8, 14, fill=FOREST, trunk=WOOD)
    cx, rx, ry = (x0 + x1) / 2, (x1 - x0) / 2 - 34, horizon - y0 - 30
    d.arc((cx - rx, horizon - ry, cx + rx, horizon + ry), 180, 360, fill=WHITE,
          width=2)

    def at(i: int) -> tuple[float, float]:
        a = math.radians(90 - 80 * i / max(1, n - 1)) if n > 1 else math.radians(90)
        return cx + rx * math.cos(a), horizon - ry * math.sin(a)

    for i in range(n):
        px, py = at(i)
        d.ellipse((px - 6, py - 6, px + 6, py + 6), fill=WHITE)
    sx, sy = at(min(v.time, n - 1))
    r = 26
    for k in range(12):
        a = 2 * math.pi * k / 12
        d.line((sx + (r + 4) * math.cos(a), sy + (r + 4) * math.sin(a),
                sx + (r + 14) * math.cos(a), sy + (r + 14) * math.sin(a)),
               fill=SUN_RAY, width=4)
    sun = SUN if v.time < n - 1 else SUN_LOW
    d.ellipse((sx - r, sy - r, sx + r, sy + r), fill=sun, outline=SUN_RIM, width=3)
    d.rectangle((x0, y0, x1, y1), outline=GRID, width=2)


def _stat(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], label: str,
          value: str, icon: Callable[[float, float], None]) -> None:
    x0, y0, _x1, _y1 = box
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=14)
    icon(x0 + 40, y0 + 52)
    text_left(d, (x0 + 78, y0 + 30), label, font(F_MIN, bold=True), MUTED)
    text_left(d, (x0 + 78, y0 + 72), value, font(44, bold=True), TEXT)


def _chip_width(text: str, size: int = F_MIN) -> float:
    return font(size, bold=True).getlength(text) + 24


def _chip(d: ImageDraw.ImageDraw, x: float, y: float, text: str, fill: Color,
          ink: Color | None = None, size: int = F_MIN, outline: Color | None = None) -> float:
    """A pill from ``(x, y middle)``; returns its right end."""
    box = badge(d, (x, y), text, font(size, bold=True), fill, ink, pad=(12, 6),
                outline=outline)
    return box[2]


Chip = tuple[str, Color, Color, Color | None]  # text, fill, ink, outline


def _flow_layout(x0: float, y: float, chips: Sequence[Chip], right: float,
                 row: float = 54) -> list[tuple[float, float, Chip]]:
    """Where :func:`_flow` puts each chip: (left, middle y, the chip as shown)."""
    out: list[tuple[float, float, Chip]] = []
    x = x0
    for text, fill, ink, outline in chips:
        w = _chip_width(text)
        if x > x0 and x + w > right:
            x, y = x0, y + row
        if w > right - x:
            text = ellipsize(text, font(F_MIN, bold=True), right - x - 24)
        out.append((x, y, (text, fill, ink, outline)))
        x = x + _chip_width(text) + 10  # the pill's right end (badge's width), then a gap
    return out


def _flow(d: ImageDraw.ImageDraw, layout: Sequence[tuple[float, float, Chip]]) -> None:
    """The chips of a :func:`_flow_layout`."""
    for x, y, (text, fill, ink, outline) in layout:
        _chip(d, x, y, text, fill, ink, outline=outline)


def _defense_note(v: PocketView) -> str:
    parts = []
    if v.defense.dagger:
        parts.append(f"Dagger +{v.defense.dagger}")
    if v.defense.princess:
        parts.append(f"Princess +{v.defense.princess}")
    return ", ".join(parts) if parts else "just you"


def _status(v: PocketView, names: Sequence[str]) -> tuple[str, Color]:
    if v.result == "won":
        return "You won!", GOOD
    if v.result == "lost":
        return "The game is lost.", WARN
    if v.players > 1:  # a display name of 32 wide letters is cut to fit the line
        tail, fnt = " leads the peasant", font(F_MIN, bold=True)
        name = ellipsize(names[v.turn_seat], fnt, W - 2 * PAD - 40 - fnt.getlength(tail))
        return name + tail, TEXT
    return "", TEXT


def _card_lines(v: PocketView, width: float) -> list[tuple[str, Any, Color]]:
    out: list[tuple[str, Any, Color]] = []
    if v.line is None or v.current_card is None:
        out.append(("No card read yet this turn.", font(F_MIN), MUTED))
        return out
    fnt = font(28)
    for line in wrap_text(v.line.text, fnt, width):
        out.append((line, fnt, TEXT))
    facts = ""
    if v.line.kind == "villain" and v.line.villain:
        facts = f"{v.line.villain.title()}: strength {v.line.strength}"
    elif v.line.kind == "good_deed":
        facts = f"Helping gives +{v.line.gold} gold, and costs a card of time"
    elif v.line.kind == "peddler":
        facts = "Buy or trade one item from the discard pile"
    if facts:
        out.append((facts, font(26, bold=True), GOLD if v.line.kind != "villain" else
                    LOSS))
    out.append((f"On this card: {v.current_card.item_name} ({v.current_card.price} gold)",
                font(F_MIN), MUTED))
    return out


def _wrap_items(head: str, items: Sequence[str], fnt: Any, width: float) -> list[str]:
    """``head`` then the items, comma-separated, a line broken only between items."""
    lines: list[str] = []
    line = head
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        if fnt.getlength(f"{line} {piece}") <= width or not line:
            line = f"{line} {piece}".strip()
        else:
            lines.append(line)
            line = piece
    lines.append(line)
    return lines


def _here_lines(v: PocketView, width: float) -> list[tuple[str, Any, Color]]:
    here = next((t for t in v.map if t.id == v.pawn), None)
    if here is None:
        return []
    text = f"You are at the {here.name}: {here.instruction}"
    if here.used:
        text += " (used already)"
    fnt = font(F_MIN)
    return [("", font(12), MUTED)] + [(line, fnt, MUTED) for line in wrap_text(text, fnt, width)]


def _prompt_lines(v: PocketView, width: float) -> list[tuple[str, Any, Color]]:
    out: list[tuple[str, Any, Color]] = []
    if v.result is not None:
        for line in wrap_text(v.reason, font(28), width):
            out.append((line, font(28), TEXT))
        return out
    dec = v.decision
    if dec is None:
        return out
    fnt = font(30, bold=True)
    for line in wrap_text(dec.prompt, fnt, width):
        out.append((line, fnt, TEXT))
    extra = ""
    if dec.kind == "mirror" and dec.mirror_tiles:
        extra = "The Mirror shows: the " + " or the ".join(
            _tile_name(t) for t in dec.mirror_tiles)
    elif dec.kind in ("place", "kingdom_path") and dec.placing:
        extra = "The dashed squares show where it can go."
    elif dec.kind == "bird" and dec.bird_sent:
        extra = f"Chosen so far: {len(dec.bird_sent)} card(s)."
    if extra:
        for line in wrap_text(extra, font(26), width):
            out.append((line, font(26), MUTED))
    return out


def _paint_sky(d: ImageDraw.ImageDraw, v: PocketView) -> None:
    """The sky panel and the time of day beside it (the cards left are drawn apart)."""
    y = PAD
    _sun_panel(d, v, (PAD, y, PAD + 380, y + 170))
    tx = PAD + 400
    room = W - PAD - tx
    text_left(d, (tx, y + 20), "Fairy Tale in My Pocket", fit_font(
        "Fairy Tale in My Pocket", room, F_MIN, min_size=TEXT_MIN, bold=True), MUTED)
    text_left(d, (tx, y + 64), v.time_name, fit_font(v.time_name, room, 44,
                                                     min_size=TEXT_MIN, bold=True), TEXT)
    passes = f"time {v.time + 1} of {len(v.times)}"
    if v.time + 1 == len(v.times):
        passes += ": the last!"
    text_left(d, (tx, y + 106), passes, fit_font(passes, room, 28, min_size=F_MIN), MUTED)


def _paint_health(d: ImageDraw.ImageDraw, v: PocketView, box: tuple[float, float, float, float]
                  ) -> None:
    _stat(d, box, "Health", f"{v.health}/{v.max_health}",
          lambda cx, cy: _heart(d, cx, cy, 26, HEART))
    hx0, _, hx1, hy1 = box
    hr = min(14, (hx1 - hx0 - 30) / (2.6 * v.max_health))
    for k in range(v.max_health):
        cx = hx0 + 16 + hr + k * hr * 2.6
        _heart(d, cx, hy1 - 28, hr, HEART if k < v.health else None, HEART if k < v.health
               else DIM)


def _paint_defense(d: ImageDraw.ImageDraw, v: PocketView,
                   box: tuple[float, float, float, float]) -> None:
    """The total, what it holds against dragons beside it, its parts under it (the box is
    wider than the others for them: :data:`STAT_WIDTHS`)."""
    _stat(d, box, "Defense", str(v.defense.total),
          lambda cx, cy: _shield(d, cx, cy, 24, SHIELD))
    dx0, _, dx1, dy1 = box
    if v.defense.against_dragons:
        x = dx0 + 78 + font(44, bold=True).getlength(str(v.defense.total)) + 14
        text = f"+{v.defense.against_dragons} vs dragons"
        fnt = fit_font(text, dx1 - 14 - x, F_MIN, min_size=TEXT_MIN, bold=True)
        text_left(d, (x, dy1 - 78), ellipsize(text, fnt, dx1 - 14 - x), fnt, GOLD)
    note = _defense_note(v)
    fnt = fit_font(note, dx1 - dx0 - 28, F_MIN, min_size=TEXT_MIN)
    text_left(d, (dx0 + 14, dy1 - 28), ellipsize(note, fnt, dx1 - dx0 - 28), fnt, MUTED)


def _paint_gold(d: ImageDraw.ImageDraw, v: PocketView, box: tuple[float, float, float, float]
                ) -> None:
    gx0, _, gx1, gy1 = box
    _stat(d, box, "Gold", f"{v.gold}/{v.max_gold}", lambda cx, cy: coin(d, (cx, cy), 24))
    cr = min(13, (gx1 - gx0 - 30) / (2.5 * v.max_gold))
    for k in range(v.max_gold):
        cx = gx0 + 16 + cr + k * cr * 2.5
        if k < v.gold:
            coin(d, (cx, gy1 - 28), cr)
        else:
            d.ellipse((cx - cr, gy1 - 28 - cr, cx + cr, gy1 - 28 + cr), outline=DIM, width=2)


def _paint_goals(d: ImageDraw.ImageDraw, done: Sequence[bool], y: float) -> None:
    """The four goals in a row from ``y``: done ones ticked, the next one outlined."""
    labels = ("Rose", "Princess", "Forest Path", "Castle")
    nxt = next((k for k, ok in enumerate(done) if not ok), None)
    gw = (W - 2 * PAD - 3 * 10) / 4
    x = PAD
    for k, (label, ok) in enumerate(zip(labels, done, strict=True)):
        box = (x, y, x + gw, y + 56)
        fill = _goal_done() if ok else (PANEL_HI if k == nxt else PANEL)
        rounded_panel(d, box, fill=fill, outline=GOLD if k == nxt else GRID, radius=26,
                      width=3 if k == nxt else 2)
        cx, cy = x + 28, y + 28
        if ok:
            d.ellipse((cx - 14, cy - 14, cx + 14, cy + 14), fill=WHITE)
            d.line([(cx - 7, cy), (cx - 2, cy + 6), (cx + 8, cy - 6)], fill=GOOD, width=4)
        else:
            text_center(d, (cx, cy), str(k + 1), font(22, bold=True), MUTED)
            d.ellipse((cx - 14, cy - 14, cx + 14, cy + 14), outline=MUTED, width=3)
        fnt = fit_font(label, gw - 60, F_MIN, min_size=TEXT_MIN, bold=True)
        text_left(d, (x + 50, cy), label, fnt, TEXT)
        x += gw + 10


def _chips(v: PocketView) -> list[Chip]:
    """The special item, the items (an empty one greyed), free slots and the knight."""
    chips: list[Chip] = [
        (f"{v.special_name}: {_special_cost(v)} gold a use", SPECIAL, TEXT, None)]
    for it in v.items:
        if it.empty:
            chips.append((it.name, PANEL_HI, MUTED, DIM))
        else:
            chips.append((it.name, ITEM, TEXT, None))
    chips += [("free", PANEL, DIM, GRID)] * max(0, v.item_limit - len(v.items))
    if v.knight:
        chips.append(("Knight: fights the next villain", SKY_BLUE, INK, None))
    return chips


# The rows of the picture's top, fixed: sky, stat boxes, goals, then the items.
# Health, Defense and Gold side by side: Health for 8 hearts, Gold for 6 coins, Defense
# for "+2 vs dragons" beside its number and "Dagger +1, Princess +1" under it in 22 px.
STAT_WIDTHS = (276, 316, W - 2 * PAD - 2 * 14 - 276 - 316)
SKY_BOTTOM = PAD + 170 + 16
STATS_BOTTOM = SKY_BOTTOM + 150 + 14
GOALS_BOTTOM = STATS_BOTTOM + 56 + 14


def draw(view: Any, names: Sequence[str] | None = None) -> Image.Image:
    v = _as_view(view)
    who = _names(v, names)
    inner = W - 2 * PAD
    status, status_fill = _status(v, who)

    # heights first, to size the canvas
    card_lines = _card_lines(v, inner - 40) + _here_lines(v, inner - 40)
    prompt_lines = _prompt_lines(v, inner - 40)
    discard_names = [f"{c.item_name} {c.price}" for c in v.discard]
    *_, rows, _, cell_h = _map_size(v)
    map_h = rows * cell_h
    card_h = 70 + sum(line_height(f, 1.2) for _, f, _ in card_lines)
    prompt_h = 40 + sum(line_height(f, 1.2) for _, f, _ in prompt_lines) if prompt_lines else 0
    status_h = 44 if status else 0
    piles = (f"Deck {v.deck} · set aside {v.set_aside} · discard {len(v.discard)} · "
             f"tiles: forest {v.forest_stack}, kingdom {v.kingdom_stack}")
    gfnt = font(F_MIN)
    glines = _wrap_items("Peddler's goods (discard):", discard_names or ["none yet"], gfnt,
                         inner - 40)
    if len(glines) > 3:
        glines = [*glines[:2], ellipsize(" ".join(glines[2:]), gfnt, inner - 40)]
    piles_h = 52 + 32 * len(glines)
    height = int(PAD + 170 + 16 + 150 + 16 + 64 + 12 + 124 + 56 + 20 + map_h + 50 + 16
                 + card_h + 16 + piles_h + 16 + prompt_h + status_h + PAD)
    chips = _chips(v)
    layout = _flow_layout(PAD, GOALS_BOTTOM + 26, chips, W - PAD)
    map_top = (layout[-1][1] if layout else GOALS_BOTTOM + 26) + 26 + 22
    legend_y = map_top + map_h + 30
    card_top = legend_y + 26 + 16
    end = card_top + card_h + 16 + piles_h + 16 + (prompt_h + status_h if prompt_lines else 0)
    # The picture ends below what is drawn, and no further than the estimate above.
    img = new_canvas(W, min(height, int(end + PAD)), BG)
    d = ImageDraw.Draw(img)

    # --- the sky and the piles (the parts' keys hold all they draw; each lies on the
    # background, and the cards left are drawn over the sky's region afterwards)
    _REGIONS.draw(img, ("sky", v.time, tuple(v.times), v.time_name), (0, 0, W, SKY_BOTTOM),
                  partial(_paint_sky, d, v))
    tx = PAD + 400
    room = W - PAD - tx
    left_cards = f"{v.deck} card{'s' if v.deck != 1 else ''} until time passes"
    if v.time + 1 == len(v.times):
        left_cards = f"{v.deck} card{'s' if v.deck != 1 else ''} until sunset"
    fnt = fit_font(left_cards, room, 30, min_size=F_MIN, bold=True)
    text_left(d, (tx, PAD + 148), left_cards, fnt, GOLD if v.deck > 2 else LOSS)

    # --- health, defense, gold
    y = SKY_BOTTOM
    lefts = [PAD + sum(STAT_WIDTHS[:k]) + 14 * k for k in range(3)]
    boxes = [(x, y, x + w, y + 150) for x, w in zip(lefts, STAT_WIDTHS, strict=True)]
    # The row cut in three at the Health box's right edge and the Gold box's left edge.
    cuts = (0, int(boxes[0][2]) + 1, int(boxes[2][0]), W)
    regions = [(cuts[k], y, cuts[k + 1], y + 151) for k in range(3)]
    _REGIONS.draw(img, ("health", v.health, v.max_health), regions[0],
                  partial(_paint_health, d, v, boxes[0]))
    _REGIONS.draw(img, ("defense", v.defense.total, v.defense.against_dragons,
                        _defense_note(v)), regions[1], partial(_paint_defense, d, v, boxes[1]))
    _REGIONS.draw(img, ("gold", v.gold, v.max_gold), regions[2],
                  partial(_paint_gold, d, v, boxes[2]))

    # --- goals
    done = (v.goals.rose, v.goals.princess, v.goals.forest_path, v.result == "won")
    _REGIONS.draw(img, ("goals", done), (0, STATS_BOTTOM, W, STATS_BOTTOM + 57),
                  partial(_paint_goals, d, done, STATS_BOTTOM))

    # --- items
    _REGIONS.draw(img, ("items", tuple(chips)), (0, GOALS_BOTTOM, W, map_top),
                  partial(_flow, d, layout))

    # --- the map (its tiles are parts too: see _draw_map)
    _draw_map(img, d, v, map_top)
    _REGIONS.draw(img, ("legend", legend_y), (0, legend_y - 16, W, legend_y + 17),
                  partial(_legend, d, legend_y))
    y = card_top

    # --- the card
    box = (PAD, y, W - PAD, y + card_h)
    accent = KIND_STYLE.get(v.line.kind, ("", GRID))[1] if v.line else GRID
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=14)
    d.rounded_rectangle((PAD, y, PAD + 10, y + card_h), radius=5, fill=accent)
    title = "This turn's card"
    if v.line is not None:
        title += f" · {v.times[v.time].lower()} line" if v.times else ""
    text_left(d, (PAD + 24, y + 30), title, font(F_MIN, bold=True), MUTED)
    if v.line is not None:
        kind, fill = KIND_STYLE.get(v.line.kind, (v.line.kind.upper(), GRID))
        badge(d, (W - PAD - 16, y + 30), kind, font(22, bold=True), fill, align="right",
              pad=(10, 3))
    cy = y + 60
    for text, fnt, fill in card_lines:
        lh = line_height(fnt, 1.2)
        text_left(d, (PAD + 24, cy + lh / 2), text, fnt, fill)
        cy += lh
    y += card_h + 16

    # --- the piles and stacks
    box = (PAD, y, W - PAD, y + piles_h)
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=14)
    fnt = fit_font(piles, inner - 40, F_MIN, min_size=TEXT_MIN, bold=True)
    text_left(d, (PAD + 20, y + 30), ellipsize(piles, fnt, inner - 40), fnt, TEXT)
    for k, line in enumerate(glines):
        text_left(d, (PAD + 20, y + 66 + 32 * k), line, gfnt, MUTED)
    y += piles_h + 16

    # --- the decision (or the end)
    if prompt_lines:
        outline = status_fill if v.result else GOLD
        box = (PAD, y, W - PAD, y + prompt_h + status_h)
        rounded_panel(d, box, fill=PANEL_HI, outline=outline, radius=14, width=3)
        cy = y + 20
        if status:
            fnt = fit_font(status, inner - 40, 30, min_size=F_MIN, bold=True)
            text_left(d, (PAD + 20, cy + 20), status, fnt, status_fill)
            cy += status_h
        for text, fnt, fill in prompt_lines:
            lh = line_height(fnt, 1.2)
            text_left(d, (PAD + 20, cy + lh / 2), text, fnt, fill)
            cy += lh
        y += prompt_h + status_h
    return img


@lru_cache(maxsize=len(SKIES))
def _palette(time: int) -> FixedPalette:
    """Every colour the picture draws in at this time of day (its sky's), and the text on
    each surface: the stroked names on Forest and Kingdom tiles, the chips, badges and
    panels. Finding a board's colours cost more than the pixel mapping and zlib together
    (8-11 ms of 35); with this palette the flat colours are exact (six close bands of the
    high sun's sky within 3 levels), the text's edges within a few levels: 0.07 levels on
    average at 400 px wide, as with the frequent-colour palette."""
    strokes = {base: _stroke(base) for base in (FOREST, KINGDOM)}
    done = _goal_done()
    badges = [fill for _, fill in KIND_STYLE.values()]
    flats = [BG, PANEL, PANEL_HI, TEXT, MUTED, DIM, GRID, INK, GOLD, GOLD_DARK, GOOD, WARN,
             *_sky(time), FOREST, FOREST_DARK, KINGDOM, KINGDOM_DARK, TREES, TREE_TOP, ROSES,
             ROSE, PATH, WATER, WOOD, STONE, HEART, SHIELD, SPECIAL, ITEM, PAWN, WHITE, LOSS,
             SKY_BLUE, ROSE_HEART, ROSE_EDGE, ROOF, ROOF_PURPLE, SLATE, ROCK, APPLE,
             FOREST_MARK, SUN, SUN_LOW, SUN_RAY, SUN_RIM, *strokes.values(), done, *badges]
    blends = [(PANEL, TEXT, 16), (PANEL, MUTED, 16), (PANEL, GOLD, 8), (PANEL, DIM, 5),
              (PANEL, LOSS, 5), (PANEL_HI, TEXT, 12), (PANEL_HI, MUTED, 8),
              (PANEL_HI, GOOD, 4), (PANEL_HI, WARN, 4), (PANEL_HI, LOSS, 4),
              (PANEL_HI, GOLD, 4), (BG, TEXT, 12), (BG, MUTED, 12), (BG, GOLD, 8),
              (BG, LOSS, 8), (BG, DIM, 4), (done, TEXT, 6), (SPECIAL, TEXT, 6),
              (ITEM, TEXT, 6), *((fill, readable_on(fill), 3) for fill in badges),
              *((s, TEXT, 8) for s in strokes.values()),
              *((base, s, 5) for base, s in strokes.items())]
    return FixedPalette(flats, blends)


def render(view: Any, names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of a Fairy Tale in My Pocket view; ``names`` are the seats' names. Stored
    in the palette of its time of day (:func:`_palette`)."""
    v = _as_view(view)
    return to_png(draw(v, names), palette=_palette(v.time))


# --------------------------------------------------------------------------- text board

_TEXT_BORDER_H = {"open": "-", "trees": "#", "roses": "x"}
_TEXT_BORDER_V = {"open": "|", "trees": "#", "roses": "x"}


def _abbr(name: str) -> str:
    return name.replace(" ", "")[:5]


def text_board(view: Any, name: Callable[[int], str] | None = None) -> str:
    """The table as text for the console: the numbers, then the map (``[Lake ]`` a tile,
    ``@`` the pawn, between tiles ``-``/``|`` open, ``#`` dense trees, ``x`` rose bushes),
    the card and the prompt.

    >>> from engines.pocket.game import Pocket
    >>> game = Pocket()
    >>> text = text_board(game.view(game.setup(1, game.Options(special="boots"), 3), None))
    >>> [line for line in text.splitlines() if line.startswith("  ")]
    ['  [@Lake]']
    """
    v = _as_view(view)
    name = name or (lambda s: f"Player {chr(ord('A') + s)}")
    lines = [f"Fairy Tale in My Pocket · turn {v.turn} · {v.time_name} "
             f"({v.time + 1} of {len(v.times)})"]
    if v.players > 1 and v.result is None:
        lines.append(f"{name(v.turn_seat)} leads the peasant")
    dragons = f" (+{v.defense.against_dragons} vs dragons)" if v.defense.against_dragons else ""
    lines.append(f"Health {v.health}/{v.max_health} · Defense {v.defense.total}{dragons} · "
                 f"Gold {v.gold}/{v.max_gold} · Special: {v.special_name}")
    items = [it.name + (" (empty)" if it.empty else "") for it in v.items]
    items += ["(free)"] * max(0, v.item_limit - len(v.items))
    lines.append("Items: " + ", ".join(items) + (" · a knight is with you" if v.knight else ""))
    goals = [("rose", v.goals.rose), ("princess", v.goals.princess),
             ("forest path", v.goals.forest_path), ("castle", v.goals.castle)]
    lines.append("Goals: " + ", ".join(f"{g} {'yes' if ok else 'no'}" for g, ok in goals))
    goods = ", ".join(f"{c.item_name} {c.price}" for c in v.discard) or "none"
    lines.append(f"Cards: deck {v.deck}, set aside {v.set_aside}, discard {len(v.discard)} "
                 f"(peddler's goods: {goods})")
    top = " (Kingdom Path on top)" if v.kingdom_path_on_top else ""
    lines.append(f"Tiles: forest {v.forest_stack}, kingdom {v.kingdom_stack}{top}")
    grid = {(t.x, t.y): t for t in v.map}
    xs, ys = [t.x for t in v.map], [t.y for t in v.map]
    for y in range(min(ys), max(ys) + 1):
        row, under = "  ", "  "
        for x in range(min(xs), max(xs) + 1):
            t = grid.get((x, y))
            if t is None:
                row += " " * 8
                under += " " * 8
                continue
            mark = "@" if t.id == v.pawn else ""
            row += f"[{(mark + _abbr(t.name))[:5]:<5}]"
            kind, shared = _border(t, "e", grid)
            row += _TEXT_BORDER_H[kind] if shared else " "
            kind, shared = _border(t, "s", grid)
            under += "   " + (_TEXT_BORDER_V[kind] if shared else " ") + "    "
        lines.append(row.rstrip())
        if y < max(ys) and under.strip():
            lines.append(under.rstrip())
    here = next((t for t in v.map if t.id == v.pawn), None)
    if here is not None:
        lines.append(f"You are at the {here.name}: {here.instruction}")
    if v.line is not None:
        facts = f" ({v.line.villain} strength {v.line.strength})" if v.line.villain else ""
        lines.append(f"Card: {v.line.text}{facts}")
    if v.result is not None:
        lines.append(("WON: " if v.result == "won" else "LOST: ") + v.reason)
    elif v.decision is not None:
        lines.append("> " + v.decision.prompt)
    return "\n".join(lines)
