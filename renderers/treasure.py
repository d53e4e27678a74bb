"""Save the Treasure of Fairy Tales: the box, its meadow tiles and the king's walk.

Drawn only from a :class:`engines.treasure.TreasureView` (or its JSON dict): covered
squares show their meadow tile (grey or green), open squares show the fairy-tale
tile lying there (its picture and name, or a blank side). Around the box runs the
king's path, the crown space in front of the garden gate; the apple tree stands on
the opposite corner. Squares carry map names (rows A-E, columns 1-5) because the
buttons use them.

>>> from engines import get_game
>>> game = get_game("treasure")
>>> png = render(game.view(game.setup(2, game.Options(), 1), None), names=["Ann", "Ben"])
>>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from engines.treasure import Picture, TreasureView, load_data
from renderers.common import (
    BG,
    GOLD,
    GOLD_DARK,
    GRID,
    INK,
    MUTED,
    PANEL,
    TEXT,
    Color,
    badge,
    ellipsize,
    fit_font,
    font,
    new_canvas,
    owner_marker,
    owner_style,
    rounded_panel,
    text_center,
    text_left,
    to_png,
    wrap_text,
)

W = 1100
MIN_FONT = math.ceil(9 * W / 400)
"""The smallest text drawn (25 px): 9 px once Discord shows the board 400 px wide on a
phone (tests/test_phone_pictures.py)."""
CELL = 168  # a square: wide enough for a tale's name in two lines of MIN_FONT
GAP = 6
BOX = 5 * CELL + 4 * GAP  # the inner box for a 5x5 grid
RING = 60  # width of the king's path band
LABEL = 32  # the row/column labels between box and path
TOP = 118  # title band (one more status line: STATUS_LH more)
STATUS_LH = 34

GREEN: Color = (0x5C, 0xC8, 0x4E)
GREEN_DARK: Color = (0x2E, 0x8B, 0x3A)
GREY: Color = (0xA3, 0xA8, 0xB0)
GREY_DARK: Color = (0x74, 0x79, 0x82)
WOOD: Color = (0x8B, 0x5E, 0x3C)
WOOD_DARK: Color = (0x5A, 0x3B, 0x22)
CREAM: Color = (0xFB, 0xF3, 0xE0)
PATH: Color = (0xE8, 0xD2, 0xA8)
PATH_WALKED: Color = (0x8E, 0x7A, 0x5A)
KING: Color = (0x9B, 0x59, 0xD6)
WALL: Color = (0x3E, 0x6B, 0x3A)


def _hex(value: str) -> Color:
    return (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))


# --------------------------------------------------------------------------- tale pictures


def _slipper(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.polygon([(x + .12 * s, y + .62 * s), (x + .55 * s, y + .48 * s), (x + .86 * s, y + .62 * s),
               (x + .86 * s, y + .72 * s), (x + .12 * s, y + .72 * s)], fill=c, outline=a, width=3)
    d.polygon([(x + .74 * s, y + .66 * s), (x + .82 * s, y + .30 * s), (x + .88 * s, y + .30 * s),
               (x + .84 * s, y + .68 * s)], fill=a)
    for k, (sx, sy) in enumerate([(.30, .30), (.45, .20), (.20, .42)]):
        r = s * (.05 if k else .07)
        cx, cy = x + sx * s, y + sy * s
        d.polygon([(cx, cy - r * 2), (cx + r * .6, cy), (cx, cy + r * 2), (cx - r * .6, cy)],
                  fill=a)


def _apple(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.ellipse((x + .18 * s, y + .30 * s, x + .56 * s, y + .84 * s), fill=c)
    d.ellipse((x + .44 * s, y + .30 * s, x + .82 * s, y + .84 * s), fill=c)
    d.ellipse((x + .28 * s, y + .40 * s, x + .38 * s, y + .52 * s), fill=(255, 200, 200))
    d.line((x + .5 * s, y + .34 * s, x + .54 * s, y + .16 * s), fill=WOOD_DARK, width=5)
    d.ellipse((x + .54 * s, y + .12 * s, x + .78 * s, y + .26 * s), fill=a)


def _hood(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.polygon([(x + .5 * s, y + .08 * s), (x + .84 * s, y + .78 * s), (x + .16 * s, y + .78 * s)],
              fill=c)
    d.ellipse((x + .36 * s, y + .24 * s, x + .64 * s, y + .50 * s), fill=(255, 224, 189))
    d.ellipse((x + .42 * s, y + .34 * s, x + .46 * s, y + .38 * s), fill=INK)
    d.ellipse((x + .54 * s, y + .34 * s, x + .58 * s, y + .38 * s), fill=INK)
    d.rectangle((x + .56 * s, y + .64 * s, x + .86 * s, y + .84 * s), fill=a)
    d.arc((x + .58 * s, y + .50 * s, x + .84 * s, y + .78 * s), 180, 360, fill=a, width=4)


def _house(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.rectangle((x + .22 * s, y + .46 * s, x + .78 * s, y + .84 * s), fill=c)
    d.polygon([(x + .12 * s, y + .50 * s), (x + .5 * s, y + .14 * s), (x + .88 * s, y + .50 * s)],
              fill=a)
    for k in range(4):
        cx = x + (.26 + k * .16) * s
        d.ellipse((cx - .04 * s, y + .46 * s, cx + .04 * s, y + .56 * s), fill=(255, 255, 255))
    d.rounded_rectangle((x + .42 * s, y + .62 * s, x + .58 * s, y + .84 * s), radius=6,
                        fill=WOOD_DARK)
    d.ellipse((x + .26 * s, y + .60 * s, x + .36 * s, y + .70 * s), fill=(255, 80, 80))
    d.ellipse((x + .64 * s, y + .60 * s, x + .74 * s, y + .70 * s), fill=(80, 170, 255))


def _rose(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.line((x + .5 * s, y + .46 * s, x + .5 * s, y + .88 * s), fill=a, width=6)
    d.ellipse((x + .52 * s, y + .60 * s, x + .72 * s, y + .70 * s), fill=a)
    d.ellipse((x + .28 * s, y + .68 * s, x + .48 * s, y + .78 * s), fill=a)
    for k in range(5):
        ang = k * 2 * math.pi / 5 - math.pi / 2
        cx, cy = x + .5 * s + math.cos(ang) * .14 * s, y + .32 * s + math.sin(ang) * .14 * s
        d.ellipse((cx - .12 * s, cy - .12 * s, cx + .12 * s, cy + .12 * s), fill=c)
    dark = tuple(max(0, v - 60) for v in c)
    d.ellipse((x + .42 * s, y + .24 * s, x + .58 * s, y + .40 * s), fill=dark)


def _tower(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.rectangle((x + .34 * s, y + .28 * s, x + .66 * s, y + .90 * s), fill=c)
    d.polygon([(x + .28 * s, y + .30 * s), (x + .5 * s, y + .04 * s), (x + .72 * s, y + .30 * s)],
              fill=(0xC6, 0x28, 0x28))
    d.rounded_rectangle((x + .44 * s, y + .36 * s, x + .56 * s, y + .48 * s), radius=5,
                        fill=INK)
    for k in range(7):  # the braid
        cy = y + (.44 + k * .065) * s
        d.ellipse((x + .50 * s, cy, x + .60 * s, cy + .08 * s), fill=a, outline=GOLD_DARK)


def _frog(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.ellipse((x + .16 * s, y + .42 * s, x + .84 * s, y + .86 * s), fill=c)
    for ex in (.24, .56):
        d.ellipse((x + ex * s, y + .30 * s, x + (ex + .20) * s, y + .50 * s), fill=c)
        d.ellipse((x + (ex + .05) * s, y + .35 * s, x + (ex + .15) * s, y + .45 * s),
                  fill=(255, 255, 255))
        d.ellipse((x + (ex + .08) * s, y + .38 * s, x + (ex + .13) * s, y + .43 * s), fill=INK)
    d.arc((x + .32 * s, y + .52 * s, x + .68 * s, y + .74 * s), 20, 160, fill=INK, width=4)
    d.polygon([(x + .34 * s, y + .28 * s), (x + .34 * s, y + .12 * s), (x + .42 * s, y + .20 * s),
               (x + .5 * s, y + .08 * s), (x + .58 * s, y + .20 * s), (x + .66 * s, y + .12 * s),
               (x + .66 * s, y + .28 * s)], fill=a, outline=GOLD_DARK)


def _boot(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.polygon([(x + .30 * s, y + .12 * s), (x + .58 * s, y + .12 * s), (x + .58 * s, y + .64 * s),
               (x + .84 * s, y + .70 * s), (x + .84 * s, y + .86 * s), (x + .30 * s, y + .86 * s)],
              fill=c)
    d.rectangle((x + .26 * s, y + .10 * s, x + .62 * s, y + .22 * s), fill=c)
    d.rectangle((x + .30 * s, y + .46 * s, x + .58 * s, y + .54 * s), fill=INK)
    d.rectangle((x + .38 * s, y + .43 * s, x + .50 * s, y + .57 * s), outline=a, width=4)


def _beanstalk(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    for cx, cy, r in ((.38, .18, .12), (.56, .14, .14), (.70, .22, .10)):
        d.ellipse((x + (cx - r) * s, y + (cy - r) * s, x + (cx + r) * s, y + (cy + r) * s),
                  fill=a, outline=(0xB0, 0xBE, 0xC5))
    pts = [(x + (.5 + .12 * math.sin(t / 3)) * s, y + (.92 - t * .03) * s) for t in range(24)]
    d.line(pts, fill=c, width=8, joint="curve")
    for k in (4, 10, 16):
        lx, ly = pts[k]
        side = 1 if k % 4 else -1
        d.ellipse((lx + side * .02 * s - (.14 * s if side < 0 else 0), ly - .05 * s,
                   lx + side * .02 * s + (.14 * s if side > 0 else 0), ly + .05 * s), fill=c)


def _bricks(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.rectangle((x + .18 * s, y + .42 * s, x + .82 * s, y + .88 * s), fill=c)
    for row in range(4):
        yy = y + (.42 + row * .115) * s
        d.line((x + .18 * s, yy, x + .82 * s, yy), fill=(0xF5, 0xD0, 0xC0), width=2)
        off = .08 if row % 2 else 0
        for k in range(4):
            xx = x + (.18 + off + k * .16) * s
            if xx < x + .82 * s:
                d.line((xx, yy, xx, yy + .115 * s), fill=(0xF5, 0xD0, 0xC0), width=2)
    d.polygon([(x + .10 * s, y + .44 * s), (x + .5 * s, y + .12 * s), (x + .90 * s, y + .44 * s)],
              fill=WOOD_DARK)
    d.ellipse((x + .38 * s, y + .52 * s, x + .62 * s, y + .72 * s), fill=a, outline=INK, width=2)
    d.ellipse((x + .44 * s, y + .59 * s, x + .48 * s, y + .65 * s), fill=INK)
    d.ellipse((x + .52 * s, y + .59 * s, x + .56 * s, y + .65 * s), fill=INK)


def _bowls(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    for cx, w, top in ((.24, .18, .42), (.52, .14, .50), (.76, .10, .58)):
        d.chord((x + (cx - w) * s, y + (top - .10) * s, x + (cx + w) * s, y + (top + .22) * s),
                0, 180, fill=c, outline=INK, width=2)
        d.ellipse((x + (cx - w) * s, y + (top - .02) * s, x + (cx + w) * s, y + (top + .04) * s),
                  fill=(0xF5, 0xE6, 0xC8), outline=a, width=2)
    d.line((x + .62 * s, y + .22 * s, x + .68 * s, y + .48 * s), fill=(0x9E, 0x9E, 0x9E), width=4)


def _duckling(d: ImageDraw.ImageDraw, x: float, y: float, s: float, p: Picture) -> None:
    c, a = _hex(p.color), _hex(p.accent)
    d.ellipse((x + .10 * s, y + .80 * s, x + .90 * s, y + .94 * s), fill=(0x4F, 0xC3, 0xF7))
    d.ellipse((x + .18 * s, y + .50 * s, x + .80 * s, y + .86 * s), fill=c, outline=GRID, width=2)
    d.line([(x + .66 * s, y + .58 * s), (x + .70 * s, y + .36 * s), (x + .62 * s, y + .22 * s)],
           fill=c, width=int(.10 * s), joint="curve")
    d.ellipse((x + .54 * s, y + .12 * s, x + .74 * s, y + .30 * s), fill=c, outline=GRID, width=2)
    d.polygon([(x + .54 * s, y + .20 * s), (x + .42 * s, y + .24 * s), (x + .55 * s, y + .26 * s)],
              fill=a)
    d.ellipse((x + .60 * s, y + .17 * s, x + .64 * s, y + .21 * s), fill=INK)


GLYPHS: dict[str, Callable[[ImageDraw.ImageDraw, float, float, float, Picture], None]] = {
    "slipper": _slipper, "apple": _apple, "hood": _hood, "house": _house, "rose": _rose,
    "tower": _tower, "frog": _frog, "boot": _boot, "beanstalk": _beanstalk,
    "bricks": _bricks, "bowls": _bowls, "duckling": _duckling,
}


NAME_LH = 28  # a tale's name: MIN_FONT px lines


@lru_cache(maxsize=32)
def _tale_name(name: str, width: float) -> tuple[list[str], ImageFont.FreeTypeFont]:
    """A tale's name in lines ``width`` wide, at :data:`MIN_FONT` px: bold in one or two
    lines where it fits, else regular (narrower) in two, else in three (the longest
    names: "Goldilocks and the Three Bears"); never cut but for an over-long word."""
    for bold in (True, False):
        fnt = font(MIN_FONT, bold=bold)
        lines = wrap_text(name, fnt, width)
        if len(lines) <= 2:
            return lines, fnt
    if len(lines) > 3:
        lines = [*lines[:2], ellipsize(" ".join(lines[2:]), fnt, width)]
    return lines, fnt


def draw_tale(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], tale_id: str,
              half: int) -> None:
    """A visible fairy-tale half: its tale's colours, picture and name."""
    tale = next(t for t in load_data().tales if t.id == tale_id)
    x0, y0, x1, y1 = box
    d.rounded_rectangle(box, radius=14, fill=_hex(tale.picture.background), outline=GOLD,
                        width=4)
    lines, fnt = _tale_name(tale.name, x1 - x0 - 10)
    top = y1 - 6 - NAME_LH * len(lines) - 4
    # the picture above the name, as large as the tile's width and the name leave room
    s = min((x1 - x0) * 0.62, (top - y0 - 4) / 0.94)
    GLYPHS[tale.picture.glyph](d, x0 + (x1 - x0 - s) / 2, y0 + 4, s, tale.picture)
    d.rounded_rectangle((x0 + 4, top, x1 - 4, y1 - 4), radius=10, fill=(255, 255, 255))
    for k, line in enumerate(lines):
        text_center(d, ((x0 + x1) / 2, top + 4 + NAME_LH / 2 + NAME_LH * k), line, fnt, INK)
    # Which half of the tale this is: a half-filled circle, left or right.
    cx, cy, r = x1 - 18, y0 + 18, 9
    d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 255, 255), outline=GOLD_DARK, width=2)
    d.pieslice((cx - r, cy - r, cx + r, cy + r), 90 if half == 0 else 270,
               270 if half == 0 else 90, fill=GOLD_DARK)


# --------------------------------------------------------------------------- board parts


def _meadow(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], green: bool) -> None:
    x0, y0, x1, y1 = box
    base, dark = (GREEN, GREEN_DARK) if green else (GREY, GREY_DARK)
    d.rounded_rectangle(box, radius=14, fill=base, outline=dark, width=4)
    # little tufts of grass (flowers on green tiles)
    for k, (fx, fy) in enumerate(((.22, .30), (.70, .24), (.40, .62), (.78, .70), (.18, .80))):
        cx, cy = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
        for dx in (-6, 0, 6):
            d.line((cx + dx * .6, cy, cx + dx, cy - 12), fill=dark, width=3)
        if green and k % 2 == 0:
            d.ellipse((cx - 5, cy - 20, cx + 5, cy - 10), fill=(255, 235, 59))


def _blank(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float]) -> None:
    d.rounded_rectangle(box, radius=14, fill=CREAM, outline=(0xC8, 0xB8, 0x90), width=3)


@lru_cache(maxsize=64)
def _square(meadow: str | None, tale: str | None, half: int,
            figures: tuple[int, ...]) -> Image.Image:
    """A square as the board shows it (a meadow tile, a tale half or a blank side, and the
    figures standing on it) on the wall's green, drawn once and pasted on every board:
    there are 27 faces and a few sets of figures, each a few dozen primitives. Its
    corner pixels are the wall's, as under a square on the board; squares sit on whole
    pixels, so the paste is the drawing (checked pixel for pixel for every face and set
    of figures on every square of every box size). Read-only (paste it, never draw on
    it); 169x169 is 114 KB in Pillow, so at most 7.3 MB."""
    img = new_canvas(CELL + 1, CELL + 1, WALL)
    d = ImageDraw.Draw(img)
    box = (0, 0, CELL, CELL)
    if meadow is not None:
        _meadow(d, box, meadow == "green")
    elif tale is not None:
        draw_tale(d, box, tale, half)
    else:
        _blank(d, box)
    if figures:
        n = len(figures)
        rad = 30 if n == 1 else (26 if n == 2 else 24)  # 24: a letter of MIN_FONT px
        spots = {1: [(.5, .5)], 2: [(.3, .5), (.7, .5)], 3: [(.3, .32), (.7, .32), (.5, .7)],
                 4: [(.3, .3), (.7, .3), (.3, .7), (.7, .7)]}[min(n, 4)]
        for seat, (fx, fy) in zip(figures, spots, strict=False):
            cx, cy = fx * CELL, fy * CELL
            d.ellipse((cx - rad - 5, cy - rad - 5, cx + rad + 5, cy + rad + 5),
                      fill=(255, 255, 255))
            owner_marker(d, owner_style(seat), (cx, cy), rad)
    return img


def _apple_tree(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r * .14, cy, cx + r * .14, cy + r * .9), fill=WOOD)
    for ox, oy in ((-.45, -.1), (.45, -.1), (0, -.5), (0, .05)):
        d.ellipse((cx + (ox - .5) * r, cy + (oy - .5) * r, cx + (ox + .5) * r,
                   cy + (oy + .5) * r), fill=GREEN_DARK)
    for ox, oy in ((-.5, -.1), (.35, -.3), (.05, -.6), (.4, .15), (-.2, .1)):
        d.ellipse((cx + ox * r - 7, cy + oy * r - 7, cx + ox * r + 7, cy + oy * r + 7),
                  fill=(0xE5, 0x39, 0x35))


def _gate(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    d.rectangle((cx - r, cy - r * .2, cx + r, cy + r), fill=WOOD_DARK)
    d.pieslice((cx - r, cy - r, cx + r, cy + r * .6), 180, 360, fill=WOOD_DARK)
    for k in range(-2, 3):
        d.line((cx + k * r * .35, cy - r * .6 + abs(k) * r * .15, cx + k * r * .35, cy + r),
               fill=GOLD, width=4)
    d.line((cx - r, cy + r * .3, cx + r, cy + r * .3), fill=GOLD, width=4)


def _crown(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float, fill: Color = GOLD) -> None:
    d.polygon([(cx - r, cy + r * .6), (cx - r, cy - r * .4), (cx - r * .5, cy + r * .1),
               (cx, cy - r * .7), (cx + r * .5, cy + r * .1), (cx + r, cy - r * .4),
               (cx + r, cy + r * .6)], fill=fill, outline=GOLD_DARK)


def path_points(n: int, box: tuple[float, float, float, float], gate_corner: str
                ) -> list[tuple[float, float]]:
    """``n`` space centres evenly around ``box`` (a rectangle), clockwise, space 0 (the
    crown) at the gate's corner."""
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    perimeter = 2 * (w + h)
    corners = {"tl": 0.0, "tr": w, "br": w + h, "bl": 2 * w + h}
    start = corners[gate_corner]
    pts = []
    for i in range(n):
        t = (start + perimeter * i / n) % perimeter
        if t < w:
            pts.append((x0 + t, y0))
        elif t < w + h:
            pts.append((x1, y0 + t - w))
        elif t < 2 * w + h:
            pts.append((x1 - (t - w - h), y1))
        else:
            pts.append((x0, y1 - (t - 2 * w - h)))
    return pts


# --------------------------------------------------------------------------- the picture


def _as_view(view: Any) -> TreasureView:
    return view if isinstance(view, TreasureView) else TreasureView.model_validate(view)


def _status(v: TreasureView, names: Sequence[str]) -> str:
    if v.result == "won":
        return "You saved the Treasure of Fairy Tales!"
    if v.result == "lost":
        return "The king is back at his crown: the king wins this time."
    who = names[v.turn]
    if v.stage == "green":
        return f"{who}: pick a grey meadow tile to turn green"
    if v.stage == "step":
        return f"{who}: move your figure onto a green tile (or stay)"
    if v.endgame:
        return f"{who}: slide up to 2 times, then step toward the gate"
    if v.slides == 0:
        return f"{who}: slide a meadow tile"
    return f"{who}: slide once more, or stop"


def _layout(rows: int, cols: int, top: int = TOP) -> tuple[float, float, int, int, float]:
    """(left, top, width, height) of a ``rows`` x ``cols`` box of squares under a title
    band ``top`` high, and the y below the path around it (where the bottom panel
    starts)."""
    box_w = cols * CELL + (cols - 1) * GAP
    box_h = rows * CELL + (rows - 1) * GAP
    margin = RING + LABEL + 20
    bx0 = (W - box_w) / 2
    by0 = top + margin
    return bx0, by0, box_w, box_h, by0 + box_h + margin


def _walls(rows: int, cols: int, top: int = TOP
           ) -> tuple[tuple[float, float, float, float], tuple[float, float, float, float]]:
    """The garden wall's box and the king's path's box around it."""
    bx0, by0, box_w, box_h, _ = _layout(rows, cols, top)
    wall = (bx0 - LABEL - 8, by0 - LABEL - 8, bx0 + box_w + LABEL + 8, by0 + box_h + LABEL + 8)
    ring = (wall[0] - RING / 2, wall[1] - RING / 2, wall[2] + RING / 2, wall[3] + RING / 2)
    return wall, ring


@lru_cache(maxsize=3)
def _backdrop(rows: int, cols: int, top: int, height: int) -> Image.Image:
    """Everything of the board that no view changes: the title, the path band, the
    wall, the row and column names and the bottom panel with the king's sign (none of
    them touches the spaces, the king, a square or the texts drawn over them per view).
    Read-only: each render draws on a ``copy()``. The height grows with the book's lines
    during a game (and the top with a status of two lines); 1100x1500 is 6.6 MB in
    Pillow (4 bytes a pixel), so three are kept."""
    bx0, by0, _, _, bottom = _layout(rows, cols, top)
    img = new_canvas(W, height, BG)
    d = ImageDraw.Draw(img)
    text_left(d, (28, 40), "Save the Treasure of Fairy Tales", font(34, bold=True), TEXT)
    wall, ring = _walls(rows, cols, top)
    d.rounded_rectangle(ring, radius=40, outline=PATH, width=RING - 20)
    d.rounded_rectangle(wall, radius=22, fill=WALL, outline=WOOD_DARK, width=8)
    for c in range(cols):
        x = bx0 + c * (CELL + GAP) + CELL / 2
        text_center(d, (x, by0 - LABEL / 2 - 4), str(c + 1), font(26, bold=True), TEXT)
    for r in range(rows):
        y = by0 + r * (CELL + GAP) + CELL / 2
        text_center(d, (bx0 - LABEL / 2 - 4, y), chr(ord("A") + r), font(26, bold=True), TEXT)
    py0 = bottom + 4
    rounded_panel(d, (20, py0, W - 20, height - 16), fill=PANEL, radius=18)
    x = 44
    d.ellipse((x, py0 + 20, x + 42, py0 + 62), fill=KING, outline=INK, width=2)
    text_center(d, (x + 21, py0 + 41), "K", font(26, bold=True), TEXT)
    return img


def _status_lines(status: str) -> tuple[list[str], ImageFont.FreeTypeFont]:
    """Whose turn and what to do, bold: one line as large as fits from 28 px down to
    :data:`MIN_FONT`, else two lines (a long display name), never cut but past two."""
    fnt = fit_font(status, W - 56, 28, min_size=MIN_FONT, bold=True)
    if fnt.getlength(status) <= W - 56:
        return [status], fnt
    fnt = font(26, bold=True)
    lines = wrap_text(status, fnt, W - 56)
    if len(lines) > 2:
        lines = [lines[0], ellipsize(" ".join(lines[1:]), fnt, W - 56)]
    return lines, fnt


SEAT_ROW = 56  # a row of the children's legend (markers of radius 24: letters of MIN_FONT)
BOOK_LH = 32


def _seat_spots(v: TreasureView, names: Sequence[str]
                ) -> list[tuple[int, int, str, ImageFont.FreeTypeFont]]:
    """(x, row, label, font) of each child in the bottom panel's legend: two to a row
    from three players on, a new row wherever a label would pass the panel's edge."""
    spots = []
    x, row = 44, 0
    for seat in range(v.players):
        out = " (out!)" if seat in v.figures_out else ""
        fnt = font(26, bold=seat == v.turn and v.result is None)
        label = ellipsize(names[seat], fnt, W - 84 - 70 - fnt.getlength(out)) + out
        w = fnt.getlength(label) + 70
        if x > 44 and (x + w > W - 40 or (seat == 2 and v.players > 2)):
            x, row = 44, row + 1
        spots.append((x, row, label, fnt))
        x += int(w) + 16
    return spots


def draw(view: Any, names: Sequence[str] | None = None) -> Image.Image:
    v = _as_view(view)
    names = list(names or [])
    names += [f"Player {chr(ord('A') + s)}" for s in range(len(names), v.players)]
    rows, cols = v.rows, v.cols
    status_lines, status_font = _status_lines(_status(v, names))
    top = TOP + STATUS_LH * (len(status_lines) - 1)
    bx0, by0, _, _, bottom = _layout(rows, cols, top)
    book = "Book: " + (", ".join(v.page_names) if v.page_names else "no pages yet")
    book_font = font(MIN_FONT)
    book_lines = wrap_text(book, book_font, W - 88)
    seats = _seat_spots(v, names)
    seat_rows = 1 + max(row for _, row, _, _ in seats)
    height = int(bottom + 4 + 96 + SEAT_ROW * seat_rows + BOOK_LH * len(book_lines) + 28)
    img = _backdrop(rows, cols, top, height).copy()
    d = ImageDraw.Draw(img)

    # Pages and whose turn.
    badge(d, (W - 28, 40), f"Pages {len(v.pages)}/{v.total_pages}", font(30, bold=True), GOLD,
          align="right")
    colour = GREEN if v.result == "won" else (
        (0xFF, 0x8A, 0x80) if v.result == "lost" else MUTED)
    for k, line in enumerate(status_lines):
        text_left(d, (28, 90 + STATUS_LH * k), line, status_font, colour)

    # The king's path around the garden wall (the wall is in the backdrop).
    wall, ring = _walls(rows, cols, top)

    gate_row = ord(v.gate[0]) - ord("A")
    gate_col = int(v.gate[1:]) - 1
    corner = ("t" if gate_row == 0 else "b") + ("l" if gate_col == 0 else "r")
    pts = path_points(v.path_length, ring, corner)
    r_space = min(22, max(10, math.pi * (ring[2] - ring[0]) * 2 / v.path_length / 2 * 0.42))
    for i, (px, py) in enumerate(pts):
        walked = 0 < i <= v.king
        fill = PATH_WALKED if walked else (0xFF, 0xF4, 0xD6)
        if i == 0:
            d.ellipse((px - r_space - 8, py - r_space - 8, px + r_space + 8, py + r_space + 8),
                      fill=(0xFF, 0xF4, 0xD6), outline=GOLD_DARK, width=4)
            _crown(d, px, py, r_space * .8)
        else:
            d.ellipse((px - r_space, py - r_space, px + r_space, py + r_space), fill=fill,
                      outline=WOOD, width=3)
    kx, ky = pts[v.king % v.path_length]
    kr = max(r_space + 6, 24)
    d.ellipse((kx - kr, ky - kr, kx + kr, ky + kr), fill=KING, outline=INK, width=3)
    text_center(d, (kx, ky + 3), "K", font(max(MIN_FONT, int(kr * 1.1)), bold=True), TEXT)
    _crown(d, kx, ky - kr - 4, kr * .55)

    # The squares.
    for cell in v.cells:
        x = bx0 + cell.col * (CELL + GAP)
        y = by0 + cell.row * (CELL + GAP)
        figures = tuple(cell.figures)
        if cell.meadow is not None:
            face = _square(cell.meadow, None, 0, figures)
        elif cell.face is not None and cell.face.tale is not None:
            face = _square(None, cell.face.tale, cell.face.half, figures)
        else:
            face = _square(None, None, 0, figures)
        img.paste(face, (int(x), int(y)))

    # Apple tree and gate on their corners (outside the wall, on the path band).
    def corner_point(name: str) -> tuple[float, float]:
        r, c = ord(name[0]) - ord("A"), int(name[1:]) - 1
        return (wall[0] if c == 0 else wall[2], wall[1] if r == 0 else wall[3])

    ax, ay = corner_point(v.apple_tree)
    _apple_tree(d, ax + (14 if ax < W / 2 else -14), ay + (10 if ay < height / 2 else -10), 42)
    gx, gy = corner_point(v.gate)
    _gate(d, gx + (-30 if gx > W / 2 else 30), gy + (-28 if gy > height / 2 else 28), 30)

    # Bottom panel: the king, the children, the book.
    py0 = bottom + 4  # the panel and the king's sign are in the backdrop
    left = v.path_length - v.king
    if v.king_walking:
        king_line = f"King: {v.king} of {v.path_length} steps walked, {left} to his crown"
    else:
        king_line = "King: waiting on his crown until the first page is found"
    x = 44
    text_left(d, (x + 56, py0 + 41), king_line,
              fit_font(king_line, W - 140, 26, min_size=MIN_FONT, bold=True), TEXT)
    y0 = py0 + 100
    for seat, (x, row, label, fnt) in enumerate(seats):
        y = y0 + SEAT_ROW * row
        owner_marker(d, owner_style(seat), (x + 24, y), 24)
        text_left(d, (x + 56, y), label, fnt, GREEN if seat in v.figures_out else TEXT)
    y = y0 + SEAT_ROW * seat_rows - 8
    for line in book_lines:
        text_left(d, (44, y), line, book_font, MUTED)
        y += BOOK_LH
    return img


def render(view: Any, names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of a Save the Treasure view; ``names`` are the seats' display names."""
    return to_png(draw(view, names))


# --------------------------------------------------------------------------- text board


def text_board(view: Any, name: Callable[[int], str] | None = None) -> str:
    """The box as text for the console table: ``::`` grey tile, ``,,`` green tile,
    figures as letters, an open square as its tale's first letters and ``<``/``>`` for the
    left/right half, ``..`` a blank side.

    >>> from engines import get_game
    >>> game = get_game("treasure")
    >>> print(text_board(game.view(game.setup(1, game.Options(), 1), None)).splitlines()[1])
    A  ,A,,,,  ::::::  ::::::  ::::::  ::::::
    """
    v = _as_view(view)
    name = name or (lambda s: f"Player {chr(ord('A') + s)}")
    lines = ["   " + "".join(f"{c + 1:^8}" for c in range(v.cols)).rstrip()]
    for r in range(v.rows):
        row = []
        for cell in v.cells[r * v.cols:(r + 1) * v.cols]:
            if cell.meadow is not None:
                fill = "," if cell.meadow == "green" else ":"
                who = "".join(chr(ord("A") + s) for s in cell.figures)
                row.append((fill + who + fill * 6)[:6])
            elif cell.face is not None and cell.face.name is not None:
                row.append(f"{cell.face.name.removeprefix('The ')[:5]}{'<>'[cell.face.half]}")
            else:
                row.append("......")
        lines.append(f"{chr(ord('A') + r)}  " + "  ".join(row))
    shown = [f"{c.square} {c.face.name} ({'left' if c.face.half == 0 else 'right'} half)"
             for c in v.cells if c.face is not None and c.face.name is not None]
    lines.append("Showing: " + ("; ".join(shown) if shown else "no halves"))
    lines.append(f"Pages: {len(v.pages)}/{v.total_pages}"
                 + (f" ({', '.join(v.page_names)})" if v.page_names else ""))
    if v.king_walking:
        lines.append(f"King: {v.king} of {v.path_length} steps, "
                     f"{v.path_length - v.king} to his crown")
    else:
        lines.append("King: waiting on his crown until the first page is found")
    out = [name(s) for s in v.figures_out]
    if out:
        lines.append("Out of the garden: " + ", ".join(out))
    lines.append(v.prompt)
    return "\n".join(lines)
