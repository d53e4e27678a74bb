"""Winter Tales: one player's PRIVATE hand as a PNG (for a DM or an ephemeral reply only).

The player's secret Objective(s) come first, under the header (on a phone the picture's
top is what shows), then the Story cards in two columns, each card under the column that
ends highest (13 cards and two Objectives: about 1200x2700 px, not a 1:3 strip). Every
text is at least :data:`MIN_FONT` (27 px: 9 px on a phone, where Discord shows the
picture 400 px wide). Each card is a panel: a small illustration of its image concept
(drawn with Pillow primitives: a night sky, snow, and a motif picked from the concept's
words), beside it its number (``#7`` = ``story_07``, what the play command takes) and
its title, then its Spring captions on a green band and its Winter captions on a blue
band, across the card. The picture
comes from a SEAT's view through :func:`hand_from_view` (the only place that knows the
view's field names); a public view has no hand and draws an empty-hand notice.

>>> png = render({"seat": 0, "players": 3, "factions": ["spring", "winter", "writer"],
...               "hand": [{"id": "story_01", "title": "The Paper Lantern",
...                         "image": "A paper lantern", "spring": "A light", "winter": "A lamp"}]})
>>> png[:4] == b"\\x89PNG"
True
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageDraw

from renderers.common import (
    BG,
    DIM,
    GOLD,
    GRID,
    INK,
    MUTED,
    OWNER_COLORS,
    PANEL,
    TEXT,
    Color,
    FixedPalette,
    ellipsize,
    fit_font,
    font,
    mix,
    new_canvas,
    owner_marker,
    owner_style,
    rounded_panel,
    stable_seed,
    text_center,
    text_left,
    to_png,
    view_get,
    wrap_text,
)

# The faction colours are the board's, so a hand and the board always agree.
from renderers.winter_factions import SPRING, WINTER, WRITER

WIDTH = 1200
MARGIN = 16
COLS = 2
CARD_GAP = 12
ART_W, ART_H = 172, 96  # a card's art, beside its number and title

SPRING_BAND: Color = (0x2C, 0x4A, 0x2A)
WINTER_BAND: Color = (0x22, 0x36, 0x55)
SNOW: Color = (0xEE, 0xF3, 0xFA)

# --------------------------------------------------------------------------- card art

SKIES: dict[str | None, tuple[Color, Color]] = {
    "spring": ((0x2B, 0x3F, 0x5E), (0xE9, 0xA9, 0x8E)),  # dusk turning warm
    "winter": ((0x0E, 0x14, 0x2B), (0x3D, 0x5A, 0x8A)),  # deep cold night
    None: ((0x1F, 0x25, 0x3C), (0x6A, 0x6F, 0x96)),
}

TINTS: tuple[Color, ...] = (
    (0xE0, 0x9A, 0x3A), (0x7F, 0xC4, 0x6A), (0xC9, 0x6F, 0xD0), (0x5F, 0xB8, 0xC8),
    (0xE0, 0x5F, 0x6F), (0xE8, 0xD0, 0x5A),
)

NAMED_COLOURS: tuple[tuple[str, Color], ...] = (
    ("red", (0xD9, 0x3B, 0x3B)), ("orange", (0xF0, 0x8A, 0x24)),
    ("golden", (0xE8, 0xB8, 0x3A)), ("gold", (0xE8, 0xB8, 0x3A)),
    ("yellow", (0xF2, 0xD2, 0x4B)), ("green", (0x5F, 0xB8, 0x5A)),
    ("purple", (0x9B, 0x6B, 0xD0)), ("pink", (0xE8, 0x8A, 0xB0)),
)

Pt = tuple[float, float]


@dataclass(frozen=True)
class Pen:
    """Draws in unit coordinates around the motif's centre: (0, 0) is the centre,
    1 is the motif's half-size; y grows downwards like Pillow's."""

    d: ImageDraw.ImageDraw
    cx: float
    cy: float
    s: float
    main: Color
    accent: Color

    def p(self, x: float, y: float) -> Pt:
        return (self.cx + x * self.s, self.cy + y * self.s)

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
        return (*self.p(x0, y0), *self.p(x1, y1))

    def w(self, k: float) -> int:
        return max(1, round(self.s * k))

    def ellipse(self, x0: float, y0: float, x1: float, y1: float, fill: Color | None,
                outline: Color | None = INK, width: float = 0.05) -> None:
        self.d.ellipse(self.box(x0, y0, x1, y1), fill=fill, outline=outline,
                       width=self.w(width) if outline else 0)

    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: Color | None,
             outline: Color | None = INK, width: float = 0.05, r: float = 0.0) -> None:
        self.d.rounded_rectangle(self.box(x0, y0, x1, y1), radius=self.s * r, fill=fill,
                                 outline=outline, width=self.w(width) if outline else 0)

    def poly(self, pts: Sequence[Pt], fill: Color | None, outline: Color | None = INK,
             width: float = 0.05) -> None:
        self.d.polygon([self.p(x, y) for x, y in pts], fill=fill, outline=outline,
                       width=self.w(width) if outline else 0)

    def line(self, pts: Sequence[Pt], fill: Color = INK, width: float = 0.06) -> None:
        self.d.line([self.p(x, y) for x, y in pts], fill=fill, width=self.w(width),
                    joint="curve")

    def arc(self, x0: float, y0: float, x1: float, y1: float, a0: float, a1: float,
            fill: Color = INK, width: float = 0.06) -> None:
        self.d.arc(self.box(x0, y0, x1, y1), a0, a1, fill=fill, width=self.w(width))


WOOD: Color = (0x9A, 0x6A, 0x3C)
IRON: Color = (0x3A, 0x3D, 0x45)
FLAME: Color = (0xFF, 0xB1, 0x3B)
RED: Color = (0xD9, 0x3B, 0x3B)
GLOW: Color = (0xFF, 0xE0, 0x8A)
BRASS: Color = (0xD8, 0xA8, 0x3E)
STEEL: Color = (0x9A, 0xA3, 0xB5)  # light metal: visible on a night sky
PAW: Color = (0x5A, 0x4A, 0x6A)


def m_lantern(p: Pen) -> None:
    p.line([(0, 1.0), (0, -0.2)], WOOD, 0.08)
    p.ellipse(-0.75, -0.95, 0.75, 0.35, mix(GLOW, BG, 0.75), None)
    p.ellipse(-0.42, -0.75, 0.42, 0.15, p.accent)
    for x in (-0.2, 0.0, 0.2):
        p.line([(x, -0.72), (x, 0.12)], mix(p.accent, INK, 0.4), 0.03)
    p.poly([(0, -0.5), (0.08, -0.3), (0, -0.22), (-0.08, -0.3)], FLAME, None)


def m_key(p: Pen) -> None:
    p.poly([(-0.55, -0.1), (-0.3, -0.45), (-0.05, -0.1), (-0.3, 0.25)], None, STEEL, 0.14)
    p.line([(-0.05, -0.1), (0.85, -0.1)], STEEL, 0.14)
    p.line([(0.6, -0.1), (0.6, 0.15)], STEEL, 0.12)
    p.line([(0.8, -0.1), (0.8, 0.2)], STEEL, 0.12)


def m_paws(p: Pen) -> None:
    for k in range(5):
        x = -0.9 + k * 0.42
        y = 0.55 - k * 0.22 + (0.12 if k % 2 else 0)
        p.ellipse(x - 0.09, y - 0.07, x + 0.09, y + 0.09, PAW, None)
        for dx in (-0.09, 0.0, 0.09):
            p.ellipse(x + dx - 0.035, y - 0.17, x + dx + 0.035, y - 0.1, PAW, None)


def m_clock(p: Pen) -> None:
    p.rect(-0.45, -0.95, 0.45, 1.0, mix(WOOD, INK, 0.2), r=0.08)
    p.ellipse(-0.36, -0.8, 0.36, -0.08, SNOW)
    p.line([(0, -0.44), (0, -0.68)], INK, 0.05)
    p.line([(0, -0.44), (0.2, -0.36)], INK, 0.05)
    for x in (-0.3, -0.1, 0.12, 0.3):
        p.poly([(x - 0.05, -0.08), (x + 0.05, -0.08), (x, 0.14)], SNOW, None)
    p.ellipse(-0.12, 0.3, 0.12, 0.54, BRASS)


def m_hourglass(p: Pen) -> None:
    p.rect(-0.55, -0.95, 0.55, -0.82, WOOD)
    p.rect(-0.55, 0.82, 0.55, 0.95, WOOD)
    p.poly([(-0.45, -0.82), (0.45, -0.82), (0.06, 0), (0.45, 0.82), (-0.45, 0.82),
            (-0.06, 0)], mix(SNOW, BG, 0.2))
    p.poly([(-0.15, -0.28), (0.15, -0.28), (0.03, -0.02), (-0.03, -0.02)], GOLD, None)
    p.poly([(-0.4, 0.8), (0.4, 0.8), (0, 0.45)], GOLD, None)


def m_mitten(p: Pen) -> None:
    p.line([(-1.0, -0.8), (1.0, -0.55)], IRON, 0.08)
    p.poly([(-0.3, -0.65), (0.3, -0.62), (0.35, 0.3), (0.1, 0.7), (-0.35, 0.6), (-0.38, 0.2),
            (-0.62, 0.05), (-0.5, -0.15), (-0.32, -0.05)], p.accent)
    p.rect(-0.34, -0.7, 0.34, -0.45, SNOW)


def m_box(p: Pen) -> None:
    p.rect(-0.75, 0.0, 0.75, 0.8, WOOD, r=0.06)
    p.poly([(-0.75, 0.0), (0.75, 0.0), (0.9, -0.55), (-0.6, -0.55)], mix(WOOD, SNOW, 0.2))
    p.rect(-0.12, 0.25, 0.12, 0.45, BRASS)
    p.line([(0, 0.0), (0, -0.5)], BRASS, 0.04)
    p.ellipse(-0.1, -0.85, 0.1, -0.65, p.accent)
    p.poly([(0, -0.65), (-0.2, -0.35), (0.2, -0.35)], p.accent)


def m_lake(p: Pen) -> None:
    p.ellipse(-1.0, 0.05, 1.0, 0.85, mix(p.main, SNOW, 0.45))
    p.line([(-0.7, 0.45), (-0.3, 0.35), (-0.05, 0.6), (0.3, 0.4), (0.7, 0.55)], INK, 0.05)
    for x, y in ((-0.5, -0.5), (0.1, -0.8), (0.6, -0.4)):
        _star(p, x, y, 0.09)


def m_bird(p: Pen) -> None:
    p.line([(-1.0, 0.35), (1.0, 0.2)], IRON, 0.05)
    p.ellipse(-0.45, -0.4, 0.35, 0.3, IRON)
    p.ellipse(0.1, -0.72, 0.55, -0.28, IRON)
    p.poly([(0.52, -0.55), (0.85, -0.45), (0.52, -0.4)], BRASS)
    p.ellipse(0.3, -0.6, 0.4, -0.5, GLOW, None)
    p.poly([(-0.42, -0.1), (-0.95, 0.05), (-0.4, 0.15)], IRON)


def m_owl(p: Pen) -> None:
    p.rect(-0.95, -1.0, -0.45, 1.0, WOOD, width=0.04)
    p.ellipse(-0.45, -0.75, 0.65, 0.85, mix(WOOD, SNOW, 0.15))
    p.ellipse(-0.3, -0.5, 0.05, -0.15, GLOW)
    p.ellipse(0.15, -0.5, 0.5, -0.15, GLOW)
    p.ellipse(-0.17, -0.38, -0.08, -0.28, INK, None)
    p.ellipse(0.28, -0.38, 0.37, -0.28, INK, None)
    p.poly([(0.05, -0.15), (0.15, -0.15), (0.1, 0.0)], BRASS)


def m_candle(p: Pen) -> None:
    p.ellipse(-0.9, -1.0, 0.9, 0.6, mix(GLOW, BG, 0.8), None)
    p.rect(-0.3, -0.1, 0.3, 0.95, mix(p.main, SNOW, 0.5), r=0.1)
    p.rect(-0.22, -0.55, 0.22, -0.05, SNOW)
    p.line([(0, -0.55), (0, -0.65)], INK, 0.03)
    p.poly([(0, -0.95), (0.12, -0.7), (0, -0.6), (-0.12, -0.7)], FLAME, None)
    p.line([(-0.2, -0.3), (-0.2, -0.12)], mix(SNOW, BG, 0.2), 0.05)


def m_boots(p: Pen) -> None:
    for dx in (-0.5, 0.15):
        p.poly([(dx - 0.15, -0.7), (dx + 0.25, -0.7), (dx + 0.25, 0.45), (dx + 0.6, 0.55),
                (dx + 0.6, 0.8), (dx - 0.15, 0.8)], IRON)
        p.line([(dx - 0.15, -0.55), (dx + 0.25, -0.55)], mix(IRON, SNOW, 0.4), 0.04)


def m_bowl(p: Pen) -> None:
    for x in (-0.3, 0.0, 0.3):
        p.arc(x - 0.1, -0.9, x + 0.1, -0.4, 100, 260, mix(SNOW, BG, 0.3), 0.04)
    p.rect(-1.0, 0.55, 1.0, 0.7, WOOD)
    p.poly([(-0.75, -0.2), (0.75, -0.2), (0.5, 0.5), (-0.5, 0.5)], p.accent)
    p.ellipse(-0.75, -0.32, 0.75, -0.08, mix(FLAME, WOOD, 0.3))


def m_snowman(p: Pen) -> None:
    p.ellipse(-0.6, -0.05, 0.6, 0.95, SNOW)
    p.ellipse(-0.38, -0.75, 0.38, 0.0, SNOW)
    p.ellipse(-0.2, -0.5, -0.1, -0.4, INK, None)
    p.ellipse(0.1, -0.5, 0.2, -0.4, INK, None)
    p.poly([(0, -0.35), (0.35, -0.3), (0, -0.25)], FLAME, None)
    p.rect(-0.3, -1.0, 0.3, -0.72, IRON)


def m_ladder(p: Pen) -> None:
    p.rect(0.1, -1.0, 1.0, 1.0, mix(p.main, INK, 0.3), None)
    p.line([(-0.55, 1.0), (0.05, -0.95)], WOOD, 0.08)
    p.line([(-0.2, 1.0), (0.4, -0.95)], WOOD, 0.08)
    for k in range(1, 7):
        t = k / 7
        p.line([(-0.55 + 0.6 * t, 1.0 - 1.95 * t), (-0.2 + 0.6 * t, 1.0 - 1.95 * t)], WOOD, 0.05)
    p.arc(-0.95, -1.0, -0.55, -0.6, 60, 300, GLOW, 0.08)


def m_stairs(p: Pen) -> None:
    for k in range(6):
        y = -0.8 + k * 0.3
        x = 0.6 - k * 0.25
        p.rect(x - 0.6, y, x + 0.3, y + 0.2, mix(SNOW, INK, 0.25 + 0.1 * k), width=0.03)
    p.ellipse(-0.9, 0.7, 0.0, 1.0, INK, None)


def m_letter(p: Pen) -> None:
    p.rect(-0.85, -0.55, 0.85, 0.55, (0xF3, 0xE9, 0xD2))
    p.line([(-0.85, -0.55), (0, 0.1), (0.85, -0.55)], INK, 0.04)
    p.ellipse(-0.18, -0.05, 0.18, 0.28, p.accent)


def m_book(p: Pen) -> None:
    p.rect(-0.75, -0.7, 0.75, 0.7, mix(RED, INK, 0.4), r=0.06)
    p.rect(0.55, -0.7, 0.75, 0.7, (0xF3, 0xE9, 0xD2))
    p.rect(-0.25, -0.2, 0.25, 0.25, BRASS)
    p.ellipse(-0.06, -0.08, 0.06, 0.04, INK, None)
    p.line([(0, 0.02), (0, 0.15)], INK, 0.04)


def m_map(p: Pen) -> None:
    p.poly([(-0.9, -0.6), (-0.3, -0.7), (0.3, -0.6), (0.9, -0.7), (0.9, 0.6), (0.3, 0.7),
            (-0.3, 0.6), (-0.9, 0.7)], (0xF0, 0xE2, 0xC0))
    p.line([(-0.6, 0.3), (-0.2, -0.2), (0.3, 0.1), (0.6, -0.3)], mix(WOOD, INK, 0.3), 0.04)
    for x, y in ((-0.5, -0.3), (0.2, 0.35), (0.55, 0.05)):
        p.line([(x - 0.1, y - 0.1), (x + 0.1, y + 0.1)], RED, 0.06)
        p.line([(x - 0.1, y + 0.1), (x + 0.1, y - 0.1)], RED, 0.06)


def m_fire(p: Pen) -> None:
    p.rect(-0.9, -0.3, 0.9, 1.0, mix(IRON, WOOD, 0.3))
    p.rect(-0.6, 0.0, 0.6, 1.0, INK)
    p.poly([(-0.45, 0.95), (-0.3, 0.3), (-0.1, 0.6), (0.05, 0.1), (0.25, 0.55), (0.4, 0.35),
            (0.45, 0.95)], FLAME, None)
    p.poly([(-0.25, 0.95), (-0.1, 0.55), (0.05, 0.75), (0.2, 0.5), (0.3, 0.95)], GLOW, None)
    p.rect(-0.25, 0.45, 0.2, 0.7, (0xF3, 0xE9, 0xD2), width=0.03)


def m_boat(p: Pen) -> None:
    p.rect(-1.0, 0.45, 1.0, 0.8, mix(p.main, SNOW, 0.5), None)
    p.poly([(-0.7, 0.2), (0.7, 0.2), (0.45, 0.55), (-0.45, 0.55)], WOOD)
    p.line([(0, 0.2), (0, -0.85)], WOOD, 0.05)
    p.poly([(0.03, -0.8), (0.6, 0.1), (0.03, 0.1)], SNOW)


def m_person(p: Pen) -> None:
    p.ellipse(-0.22, -0.95, 0.22, -0.5, (0xF1, 0xC7, 0xA5))
    p.poly([(-0.4, -0.45), (0.4, -0.45), (0.55, 0.65), (-0.55, 0.65)], p.accent)
    p.line([(-0.4, -0.35), (-0.8, 0.1)], p.accent, 0.12)
    p.line([(0.4, -0.35), (0.8, 0.1)], p.accent, 0.12)
    p.line([(-0.2, 0.65), (-0.2, 0.98)], IRON, 0.1)
    p.line([(0.2, 0.65), (0.2, 0.98)], IRON, 0.1)
    p.rect(-0.3, -1.02, 0.3, -0.85, IRON, None)


def m_scarecrow(p: Pen) -> None:
    p.line([(0, -0.5), (0, 1.0)], WOOD, 0.1)
    p.line([(-0.95, -0.3), (0.95, -0.3)], WOOD, 0.1)
    p.ellipse(-0.22, -0.85, 0.22, -0.42, (0xE8, 0xCF, 0x8A))
    p.poly([(-0.45, -0.8), (0.45, -0.8), (0.2, -1.05), (-0.2, -1.05)], (0xD9, 0xB8, 0x5C))
    p.poly([(-0.35, -0.35), (0.35, -0.35), (0.3, 0.4), (-0.3, 0.4)], p.accent)
    for x in (-0.85, 0.75):
        p.poly([(x, -0.42), (x + 0.12, -0.52), (x + 0.2, -0.42)], INK, None)


def m_wheel(p: Pen) -> None:
    p.ellipse(-0.8, -0.8, 0.8, 0.8, None, WOOD, 0.1)
    for k in range(8):
        a = k * math.pi / 4
        p.line([(0, 0), (0.75 * math.cos(a), 0.75 * math.sin(a))], WOOD, 0.05)
    p.ellipse(-0.15, -0.15, 0.15, 0.15, BRASS)
    p.line([(0.8, 0), (1.0, -0.9)], GLOW, 0.04)


def m_carousel(p: Pen) -> None:
    p.poly([(-0.95, -0.4), (0, -1.0), (0.95, -0.4)], p.accent)
    p.rect(-0.9, 0.7, 0.9, 0.85, WOOD)
    for x in (-0.6, 0.0, 0.6):
        p.line([(x, -0.4), (x, 0.7)], BRASS, 0.04)
    for x in (-0.6, 0.6):
        p.ellipse(x - 0.25, 0.0, x + 0.25, 0.3, SNOW)
        p.ellipse(x + 0.12, -0.12, x + 0.32, 0.08, SNOW)


def m_cart(p: Pen) -> None:
    p.rect(-0.85, -0.3, 0.7, 0.35, p.accent, r=0.05)
    p.ellipse(-0.7, 0.2, -0.25, 0.65, WOOD)
    p.ellipse(0.2, 0.2, 0.65, 0.65, WOOD)
    p.line([(0.7, 0.0), (1.0, -0.2)], WOOD, 0.06)
    for x in (-0.55, -0.25, 0.05, 0.35):
        p.ellipse(x - 0.14, -0.55, x + 0.14, -0.27, RED)


def m_mask(p: Pen) -> None:
    p.poly([(-0.8, -0.5), (0.8, -0.5), (0.7, 0.2), (0, 0.6), (-0.7, 0.2)], SNOW)
    p.ellipse(-0.55, -0.3, -0.15, -0.05, INK, None)
    p.ellipse(0.15, -0.3, 0.55, -0.05, INK, None)
    p.poly([(-0.35, 0.0), (-0.28, 0.25), (-0.42, 0.25)], (0x4D, 0x8F, 0xE0), None)


def m_fruit(p: Pen) -> None:
    p.ellipse(-0.95, 0.45, 0.95, 0.9, SNOW)
    p.ellipse(-0.6, -0.55, 0.6, 0.6, p.accent)
    p.ellipse(-0.35, -0.35, -0.15, -0.1, mix(p.accent, SNOW, 0.6), None)
    p.line([(0, -0.5), (0.08, -0.85)], WOOD, 0.07)
    p.poly([(0.08, -0.7), (0.45, -0.85), (0.15, -0.6)], (0x4C, 0xA0, 0x4A))


def m_tower(p: Pen) -> None:
    p.rect(-0.3, -0.6, 0.3, 1.0, mix(IRON, SNOW, 0.15))
    p.rect(-0.4, -0.75, 0.4, -0.55, IRON)
    for y in (-0.3, 0.1, 0.5):
        p.rect(-0.08, y, 0.08, y + 0.18, GLOW, None)
    for k in range(3):
        r = 0.25 + 0.22 * k
        p.arc(-r, -0.75 - r, r, -0.75 + r, 200, 340, INK if k % 2 else mix(SNOW, BG, 0.3),
              0.04)


def m_lighthouse(p: Pen) -> None:
    p.poly([(0.1, -0.45), (1.0, -0.75), (1.0, -0.15)], mix(GLOW, BG, 0.5), None)
    p.poly([(-0.25, -0.45), (0.25, -0.45), (0.35, 0.8), (-0.35, 0.8)], SNOW)
    p.rect(-0.3, 0.0, 0.3, 0.2, RED, None)
    p.rect(-0.2, -0.7, 0.2, -0.45, GLOW)
    p.poly([(-0.28, -0.7), (0.28, -0.7), (0, -0.95)], RED)
    p.ellipse(-0.9, 0.7, 0.9, 1.0, IRON, None)


def m_wind(p: Pen) -> None:
    p.ellipse(-0.95, -0.6, -0.15, 0.2, mix(SNOW, BG, 0.2))
    p.ellipse(-0.65, -0.35, -0.55, -0.25, INK, None)
    p.ellipse(-0.3, -0.2, -0.12, -0.08, INK, None)
    for k, y in enumerate((-0.5, -0.2, 0.1)):
        p.arc(-0.3 + 0.1 * k, y - 0.2, 0.9, y + 0.2, 200, 340, SNOW, 0.05)
    for x, y in ((0.3, 0.45), (0.7, 0.3), (0.55, 0.7)):
        p.ellipse(x - 0.05, y - 0.05, x + 0.05, y + 0.05, SNOW, None)


def m_slipper(p: Pen) -> None:
    for k in range(3):
        p.rect(-0.95 + 0.1 * k, 0.3 + 0.22 * k, 0.95 - 0.1 * k, 0.52 + 0.22 * k,
               mix(IRON, SNOW, 0.3), width=0.03)
    p.poly([(-0.6, 0.25), (0.45, 0.25), (0.6, 0.0), (0.5, -0.3), (-0.05, -0.05), (-0.6, -0.1)],
           mix(SNOW, (0x9C, 0xCB, 0xFF), 0.4))


def m_well(p: Pen) -> None:
    p.rect(-0.7, 0.0, 0.7, 0.9, mix(IRON, SNOW, 0.35), r=0.05)
    for y in (0.3, 0.6):
        p.line([(-0.7, y), (0.7, y)], INK, 0.03)
    p.line([(-0.6, 0.0), (-0.6, -0.85)], WOOD, 0.07)
    p.line([(0.6, 0.0), (0.6, -0.85)], WOOD, 0.07)
    p.poly([(-0.85, -0.75), (0, -1.05), (0.85, -0.75)], p.accent)
    p.line([(0, -0.8), (0, -0.3)], INK, 0.03)
    p.rect(-0.1, -0.3, 0.1, -0.1, WOOD)


def m_barrel(p: Pen) -> None:
    p.ellipse(-0.8, -0.55, 0.8, 0.6, WOOD)
    for x in (-0.4, 0.0, 0.4):
        p.line([(x, -0.5), (x, 0.55)], mix(WOOD, INK, 0.4), 0.04)
    p.ellipse(0.55, -0.45, 0.95, 0.5, mix(WOOD, SNOW, 0.2))


def m_house(p: Pen) -> None:
    p.rect(-0.7, -0.2, 0.7, 0.85, p.accent)
    p.poly([(-0.9, -0.15), (0, -0.95), (0.9, -0.15)], mix(SNOW, BG, 0.1))
    p.rect(-0.5, 0.05, -0.1, 0.4, GLOW)
    p.rect(0.15, 0.25, 0.45, 0.85, WOOD)
    p.line([(-0.3, 0.05), (-0.3, 0.4)], INK, 0.03)


def m_mirror(p: Pen) -> None:
    p.line([(0, 0.45), (0, 1.0)], BRASS, 0.14)
    p.ellipse(-0.55, -0.95, 0.55, 0.5, BRASS)
    p.ellipse(-0.42, -0.82, 0.42, 0.37, mix(SNOW, (0x9C, 0xCB, 0xFF), 0.5))
    p.line([(-0.35, -0.6), (-0.05, -0.2), (0.1, -0.35), (0.35, 0.15)], INK, 0.03)


def m_globe(p: Pen) -> None:
    p.rect(-0.55, 0.55, 0.55, 0.9, WOOD, r=0.05)
    p.ellipse(-0.75, -0.9, 0.75, 0.6, mix(SNOW, p.main, 0.25))
    p.rect(-0.3, 0.1, 0.3, 0.5, p.accent, width=0.03)
    p.poly([(-0.35, 0.1), (0, -0.2), (0.35, 0.1)], RED, width=0.03)
    for x, y in ((-0.4, -0.4), (0.2, -0.6), (0.4, -0.2), (-0.1, -0.3)):
        p.ellipse(x - 0.05, y - 0.05, x + 0.05, y + 0.05, SNOW, None)


def m_bars(p: Pen) -> None:
    p.rect(-0.85, -0.85, 0.85, 0.9, None, IRON, 0.08)
    for x in (-0.5, -0.17, 0.17, 0.5):
        p.line([(x, -0.85), (x, 0.9)], IRON, 0.08)
        p.poly([(x - 0.08, -0.85), (x + 0.08, -0.85), (x, -1.05)], IRON, None)
    p.rect(-0.2, -0.05, 0.2, 0.35, BRASS)


def m_chains(p: Pen) -> None:
    for k in range(4):
        x = -0.9 + k * 0.3
        p.ellipse(x, -0.15, x + 0.4, 0.15, None, STEEL, 0.08)
    for k in range(3):
        x = 0.2 + k * 0.28
        p.ellipse(x, 0.05, x + 0.38, 0.33, None, STEEL, 0.08)


def m_balloon(p: Pen) -> None:
    p.ellipse(-0.6, -1.0, 0.6, 0.3, p.accent)
    p.rect(-0.15, -0.75, 0.15, -0.45, mix(p.accent, SNOW, 0.5), width=0.03)
    p.line([(-0.45, 0.15), (-0.2, 0.6)], INK, 0.03)
    p.line([(0.45, 0.15), (0.2, 0.6)], INK, 0.03)
    p.rect(-0.22, 0.55, 0.22, 0.8, WOOD)


def m_kite(p: Pen) -> None:
    p.poly([(0.1, -0.95), (0.6, -0.35), (0.1, 0.2), (-0.4, -0.35)], p.accent)
    p.line([(0.1, 0.2), (-0.1, 0.45), (-0.4, 0.55), (-0.6, 0.85)], INK, 0.03)
    p.ellipse(0.0, -0.7, 0.12, -0.58, GLOW, None)


def m_telescope(p: Pen) -> None:
    p.line([(-0.6, 0.7), (-0.1, 0.15)], WOOD, 0.06)
    p.line([(0.2, 0.7), (-0.1, 0.15)], WOOD, 0.06)
    p.poly([(-0.6, 0.2), (0.55, -0.45), (0.65, -0.28), (-0.5, 0.37)], BRASS)
    for x, y in ((0.8, -0.85), (0.45, -0.9), (0.95, -0.55)):
        _star(p, x, y, 0.09)


def m_bell(p: Pen) -> None:
    p.line([(-0.95, -0.9), (0.95, -0.9)], WOOD, 0.1)
    p.poly([(-0.25, -0.75), (0.25, -0.75), (0.35, -0.2), (0.7, 0.35), (-0.7, 0.35),
            (-0.35, -0.2)], BRASS)
    p.ellipse(-0.12, 0.3, 0.12, 0.52, mix(BRASS, INK, 0.3))
    p.line([(0, 0.5), (0, 1.0)], WOOD, 0.04)


def m_violin(p: Pen) -> None:
    p.ellipse(-0.45, -0.25, 0.45, 0.45, WOOD)
    p.ellipse(-0.35, 0.25, 0.35, 0.9, WOOD)
    p.line([(0, 0.3), (0, -1.0)], INK, 0.1)
    p.line([(0.1, -0.2), (0.45, -0.55)], mix(SNOW, BG, 0.2), 0.02)


def m_radio(p: Pen) -> None:
    p.rect(-0.85, -0.5, 0.85, 0.7, WOOD, r=0.12)
    p.ellipse(-0.7, -0.35, 0.05, 0.4, mix(IRON, WOOD, 0.4))
    for y in (-0.2, 0.0, 0.2):
        p.line([(-0.6, y + 0.02), (-0.05, y + 0.02)], INK, 0.02)
    p.ellipse(0.2, -0.3, 0.65, 0.15, GLOW)
    p.line([(0.42, -0.08), (0.55, -0.2)], RED, 0.03)


def m_bridge(p: Pen) -> None:
    p.rect(-1.0, 0.35, 1.0, 0.85, mix(SNOW, (0x9C, 0xCB, 0xFF), 0.4), None)
    p.poly([(-1.0, 0.0), (1.0, 0.0), (1.0, 0.35), (0.5, 0.35), (0.4, 0.2), (0, 0.15),
            (-0.4, 0.2), (-0.5, 0.35), (-1.0, 0.35)], mix(IRON, SNOW, 0.3))
    p.line([(0, 0.0), (0, -0.6)], IRON, 0.05)
    p.ellipse(-0.12, -0.8, 0.12, -0.55, GLOW)


def m_tree(p: Pen) -> None:
    p.line([(0, 1.0), (0, -0.6)], mix(WOOD, INK, 0.5), 0.12)
    for a, b in (((0, 0.2), (-0.6, -0.4)), ((0, -0.1), (0.55, -0.7)),
                 ((-0.3, -0.1), (-0.5, -0.85)), ((0.25, -0.4), (0.2, -0.95))):
        p.line([a, b], mix(WOOD, INK, 0.5), 0.06)
    p.ellipse(0.12, -1.03, 0.28, -0.88, (0x6F, 0xD0, 0x6A))


def m_pines(p: Pen) -> None:
    for x, sc in ((-0.6, 0.8), (0.55, 0.9), (0.0, 1.0)):
        for k in range(3):
            w = (0.5 - 0.12 * k) * sc
            y = 0.7 - 0.45 * k * sc
            p.poly([(x - w, y), (x + w, y), (x, y - 0.55 * sc)], (0x1F, 0x4A, 0x3A))
            p.poly([(x - w * 0.4, y - 0.35 * sc), (x + w * 0.4, y - 0.35 * sc),
                    (x, y - 0.55 * sc)], SNOW, None)
        p.rect(x - 0.06, 0.7, x + 0.06, 0.95, WOOD, None)


def m_mushrooms(p: Pen) -> None:
    p.ellipse(-1.0, -0.3, 1.0, 1.0, mix((0x6F, 0xD0, 0x6A), BG, 0.7), None)
    for x, y in ((-0.6, 0.4), (-0.2, 0.6), (0.25, 0.55), (0.6, 0.35), (0.0, 0.25)):
        p.line([(x, y), (x, y + 0.25)], SNOW, 0.06)
        p.poly([(x - 0.18, y), (x + 0.18, y), (x, y - 0.2)], (0x8B, 0xF0, 0x8A))


def m_eyes(p: Pen) -> None:
    m_pines(p)
    for x in (-0.22, 0.22):
        p.ellipse(x - 0.14, -0.15, x + 0.14, 0.05, GLOW, None)
        p.ellipse(x - 0.03, -0.13, x + 0.03, 0.03, INK, None)


def m_crown(p: Pen) -> None:
    p.ellipse(-0.9, 0.25, 0.9, 0.85, mix(RED, INK, 0.45))
    p.poly([(-0.65, 0.4), (0.65, 0.4), (0.75, -0.6), (0.35, -0.1), (0.0, -0.85), (-0.35, -0.1),
            (-0.75, -0.6)], mix(SNOW, (0x9C, 0xCB, 0xFF), 0.5))


def m_chess(p: Pen) -> None:
    p.rect(-0.95, 0.55, 0.95, 0.9, SNOW)
    for k in range(6):
        if k % 2:
            p.rect(-0.95 + k * 0.317, 0.55, -0.95 + (k + 1) * 0.317, 0.9, INK, None)
    p.poly([(-0.3, 0.55), (0.3, 0.55), (0.15, -0.3), (-0.15, -0.3)], INK, SNOW, 0.03)
    p.ellipse(-0.2, -0.5, 0.2, -0.2, INK, SNOW, 0.03)
    p.line([(0, -0.5), (0, -0.85)], INK, 0.07)
    p.line([(-0.12, -0.72), (0.12, -0.72)], INK, 0.07)


def m_sword(p: Pen) -> None:
    p.ellipse(-0.95, 0.4, 0.95, 1.0, SNOW)
    p.poly([(-0.08, 0.6), (0.08, 0.6), (0.08, -0.6), (0, -0.8), (-0.08, -0.6)],
           mix(IRON, (0xB0, 0x5A, 0x2A), 0.35))
    p.rect(-0.35, -0.62, 0.35, -0.52, BRASS)
    p.rect(-0.06, -0.95, 0.06, -0.62, WOOD)


def m_hammer(p: Pen) -> None:
    p.rect(-1.0, 0.4, 1.0, 0.7, WOOD)
    p.line([(-0.5, 0.3), (0.3, -0.5)], WOOD, 0.1)
    p.poly([(0.05, -0.75), (0.35, -0.45), (0.6, -0.7), (0.3, -1.0)], IRON)
    for x in (0.3, 0.5, 0.7):
        p.line([(x, 0.35), (x + 0.05, 0.05)], mix(IRON, SNOW, 0.4), 0.04)


def m_needle(p: Pen) -> None:
    _heart(p, 0, 0.25, 0.7, RED)
    p.line([(0.1, 0.1), (0.7, -0.8)], mix(IRON, SNOW, 0.5), 0.05)
    p.line([(0.7, -0.8), (0.9, -0.3), (0.6, 0.2)], RED, 0.03)


def m_umbrella(p: Pen) -> None:
    p.poly([(-0.9, -0.1), (-0.6, -0.6), (0, -0.85), (0.6, -0.6), (0.9, -0.1), (0.45, -0.2),
            (0, -0.1), (-0.45, -0.2)], IRON)
    p.line([(0, -0.1), (0, 0.7)], INK, 0.05)
    p.arc(0, 0.55, 0.3, 0.85, 0, 180, INK, 0.05)


def m_cat(p: Pen) -> None:
    p.rect(-1.0, 0.55, 1.0, 0.95, mix(IRON, (0xB0, 0x5A, 0x2A), 0.3))
    p.ellipse(-0.4, -0.25, 0.35, 0.6, INK, None)
    p.ellipse(-0.3, -0.7, 0.2, -0.2, INK, None)
    p.poly([(-0.28, -0.55), (-0.22, -0.85), (-0.08, -0.62)], INK, None)
    p.poly([(0.18, -0.55), (0.12, -0.85), (-0.02, -0.62)], INK, None)
    p.ellipse(-0.2, -0.5, -0.1, -0.4, GLOW, None)
    p.ellipse(0.02, -0.5, 0.12, -0.4, GLOW, None)
    p.arc(0.2, 0.1, 0.8, 0.6, 180, 330, INK, 0.07)


def m_dog(p: Pen) -> None:
    p.ellipse(-0.5, -0.1, 0.4, 0.5, (0xB9, 0x8A, 0x5A))
    p.ellipse(0.2, -0.55, 0.7, -0.05, (0xB9, 0x8A, 0x5A))
    p.ellipse(0.22, -0.5, 0.38, -0.15, mix((0xB9, 0x8A, 0x5A), INK, 0.4), None)
    p.ellipse(0.5, -0.4, 0.58, -0.32, INK, None)
    for x in (-0.35, 0.25):
        p.line([(x, 0.4), (x, 0.75)], (0xB9, 0x8A, 0x5A), 0.1)
    p.line([(-0.9, 0.85), (-0.6, 0.85)], SNOW, 0.08)


def m_teddy(p: Pen) -> None:
    bear = (0xB9, 0x8A, 0x5A)
    p.ellipse(-0.55, -0.1, 0.55, 0.9, bear)
    p.ellipse(-0.4, -0.85, 0.4, -0.1, bear)
    p.ellipse(-0.48, -0.95, -0.22, -0.7, bear)
    p.ellipse(0.22, -0.95, 0.48, -0.7, bear)
    p.ellipse(-0.2, -0.6, -0.1, -0.5, INK, None)
    p.ellipse(0.08, -0.62, 0.22, -0.48, (0x4D, 0x8F, 0xE0))
    p.rect(-0.2, 0.2, 0.1, 0.45, mix(bear, RED, 0.5), width=0.03)


def m_heart(p: Pen) -> None:
    _heart(p, 0, 0.1, 0.85, p.accent)


def m_rose(p: Pen) -> None:
    p.ellipse(-0.7, -0.95, 0.7, 0.8, mix(SNOW, BG, 0.7), mix(SNOW, BG, 0.2), 0.04)
    p.line([(0, 0.75), (0, -0.1)], (0x3C, 0x8A, 0x3A), 0.06)
    p.ellipse(-0.28, -0.5, 0.28, 0.0, RED)
    p.arc(-0.15, -0.4, 0.15, -0.1, 180, 360, INK, 0.03)
    p.ellipse(0.3, 0.55, 0.45, 0.68, RED, None)
    p.rect(-0.8, 0.75, 0.8, 0.9, WOOD)


def m_snowflake(p: Pen) -> None:
    for k in range(6):
        a = k * math.pi / 3
        ex, ey = 0.9 * math.cos(a), 0.9 * math.sin(a)
        p.line([(0, 0), (ex, ey)], SNOW, 0.07)
        for t in (0.45, 0.7):
            bx, by = t * ex, t * ey
            for da in (0.6, -0.6):
                p.line([(bx, by), (bx + 0.22 * math.cos(a + da), by + 0.22 * math.sin(a + da))],
                       SNOW, 0.05)


def m_sun(p: Pen) -> None:
    p.ellipse(-0.55, -0.3, 0.55, 0.8, GLOW, None)
    for k in range(9):
        a = math.pi + k * math.pi / 8
        p.line([(0.7 * math.cos(a), 0.25 + 0.7 * math.sin(a)),
                (0.95 * math.cos(a), 0.25 + 0.95 * math.sin(a))], GLOW, 0.05)
    p.ellipse(-1.3, 0.35, 1.3, 1.6, SNOW, None)


def m_cake(p: Pen) -> None:
    for k, w in enumerate((0.75, 0.55, 0.35)):
        y = 0.9 - k * 0.45
        p.rect(-w, y - 0.45, w, y, SNOW, width=0.04)
        p.line([(-w, y - 0.35), (w, y - 0.35)], mix(SNOW, RED, 0.4), 0.03)
    for x in (-0.1, 0.1):
        p.ellipse(x - 0.06, -0.6, x + 0.06, -0.48, INK, None)
        p.line([(x, -0.48), (x, -0.3)], INK, 0.06)


def m_chair(p: Pen) -> None:
    p.rect(-1.0, 0.1, 0.3, 0.25, WOOD)
    p.line([(-0.9, 0.25), (-0.9, 0.8)], WOOD, 0.06)
    p.line([(0.2, 0.25), (0.2, 0.8)], WOOD, 0.06)
    p.rect(0.45, -0.7, 0.55, 0.8, mix(WOOD, INK, 0.3), width=0.03)
    p.rect(0.45, 0.05, 0.95, 0.15, mix(WOOD, INK, 0.3), width=0.03)
    p.line([(0.9, 0.15), (0.9, 0.8)], mix(WOOD, INK, 0.3), 0.06)
    p.rect(-0.5, -0.3, -0.4, 0.1, SNOW, width=0.02)
    p.poly([(-0.45, -0.48), (-0.4, -0.32), (-0.5, -0.32)], FLAME, None)


def m_bed(p: Pen) -> None:
    p.rect(-0.95, -0.4, -0.8, 0.8, WOOD)
    p.rect(0.8, -0.1, 0.95, 0.8, WOOD)
    p.ellipse(-0.85, -0.25, 0.85, 0.6, SNOW)
    p.ellipse(-0.75, -0.3, -0.45, -0.05, (0xF1, 0xC7, 0xA5))


def m_puppet(p: Pen) -> None:
    p.rect(-0.8, -1.0, 0.8, -0.9, WOOD)
    for x0, x1 in ((-0.6, -0.45), (0.6, 0.45), (0.0, 0.0)):
        p.line([(x0, -0.9), (x1, -0.2 if x0 else -0.65)], mix(SNOW, BG, 0.3), 0.02)
    p.ellipse(-0.17, -0.65, 0.17, -0.32, WOOD)
    p.rect(-0.25, -0.3, 0.25, 0.35, p.accent)
    p.line([(-0.25, -0.25), (-0.45, -0.2)], WOOD, 0.08)
    p.line([(0.25, -0.25), (0.45, -0.2)], WOOD, 0.08)
    p.line([(-0.12, 0.35), (-0.2, 0.8)], WOOD, 0.08)
    p.line([(0.12, 0.35), (0.25, 0.75)], WOOD, 0.08)


def m_flag(p: Pen) -> None:
    p.line([(-0.6, 1.0), (-0.55, -0.9)], WOOD, 0.07)
    p.poly([(-0.55, -0.9), (0.8, -0.75), (0.4, -0.45), (0.75, -0.15), (-0.55, -0.2)], p.accent)
    p.ellipse(-0.15, -0.7, 0.2, -0.35, GLOW, None)


def m_horse(p: Pen) -> None:
    p.arc(-0.9, 0.3, 0.9, 1.1, 200, 340, WOOD, 0.08)
    p.ellipse(-0.55, -0.2, 0.45, 0.35, p.accent)
    p.poly([(0.25, -0.1), (0.45, -0.8), (0.85, -0.65), (0.55, -0.05)], p.accent)
    p.line([(-0.4, 0.3), (-0.45, 0.65)], p.accent, 0.1)
    p.line([(0.3, 0.3), (0.35, 0.65)], p.accent, 0.1)
    p.rect(-0.25, -0.25, 0.15, 0.0, RED, width=0.03)


def m_sack(p: Pen) -> None:
    p.poly([(-0.5, -0.5), (0.5, -0.5), (0.7, 0.7), (-0.7, 0.7)], IRON)
    p.line([(-0.4, -0.4), (0.4, -0.4)], mix(IRON, SNOW, 0.4), 0.05)
    for x, y in ((0.8, 0.75), (0.55, 0.85), (0.95, 0.9)):
        p.ellipse(x - 0.08, y - 0.06, x + 0.08, y + 0.06, INK, None)


def m_stars(p: Pen) -> None:
    p.ellipse(-0.9, 0.2, 0.9, 0.9, mix(p.main, INK, 0.2))
    for x, y, r in ((-0.6, -0.6, 0.12), (0.0, -0.85, 0.09), (0.5, -0.5, 0.14),
                    (-0.3, 0.45, 0.07), (0.3, 0.6, 0.08)):
        _star(p, x, y, r)


def m_trapdoor(p: Pen) -> None:
    for k in range(5):
        p.line([(-1.0, -0.9 + k * 0.45), (1.0, -0.9 + k * 0.45)], mix(WOOD, INK, 0.5), 0.03)
    p.rect(-0.55, -0.45, 0.55, 0.5, WOOD)
    for x in (-0.2, 0.2):
        p.line([(x, -0.45), (x, 0.5)], GLOW, 0.04)
    p.ellipse(0.3, -0.05, 0.45, 0.1, IRON, None)


def m_medal(p: Pen) -> None:
    p.rect(-0.9, -1.0, 0.9, 1.0, INK, None)
    p.poly([(-0.25, -0.9), (0.25, -0.9), (0.12, -0.2), (-0.12, -0.2)], RED)
    p.ellipse(-0.4, -0.3, 0.4, 0.5, BRASS)
    _mini_flake(p, 0, 0.1, 0.25)


def m_glove(p: Pen) -> None:
    for k in range(3):
        p.rect(-0.95 + 0.12 * k, 0.4 + 0.18 * k, 0.95, 0.58 + 0.18 * k, mix(IRON, SNOW, 0.3),
               width=0.03)
    p.poly([(-0.6, 0.3), (0.2, 0.3), (0.75, 0.15), (0.75, 0.05), (0.2, 0.05), (-0.6, 0.05)],
           SNOW)


def m_mug(p: Pen) -> None:
    p.rect(-1.0, 0.6, 1.0, 0.8, WOOD)
    for x in (-0.45, 0.4):
        p.rect(x - 0.3, -0.1, x + 0.3, 0.6, p.accent, r=0.05)
        p.arc(x + 0.15, 0.05, x + 0.5, 0.4, 270, 90, p.accent, 0.07)
        p.arc(x - 0.15, -0.7, x + 0.05, -0.15, 100, 260, mix(SNOW, BG, 0.3), 0.04)


def m_teapot(p: Pen) -> None:
    p.ellipse(-0.6, -0.3, 0.6, 0.7, p.accent)
    p.poly([(0.5, 0.1), (1.0, -0.3), (0.55, 0.35)], p.accent)
    p.arc(-0.95, -0.1, -0.45, 0.45, 90, 270, p.accent, 0.08)
    p.rect(-0.15, -0.45, 0.15, -0.3, p.accent)
    p.arc(0.75, -0.95, 1.05, -0.55, 180, 90, mix(SNOW, BG, 0.2), 0.05)


def _heart(p: Pen, x: float, y: float, r: float, fill: Color) -> None:
    p.ellipse(x - r, y - r * 0.8, x, y + r * 0.1, fill, None)
    p.ellipse(x, y - r * 0.8, x + r, y + r * 0.1, fill, None)
    p.poly([(x - r * 0.97, y - r * 0.25), (x + r * 0.97, y - r * 0.25), (x, y + r)], fill, None)


def _star(p: Pen, x: float, y: float, r: float) -> None:
    pts = []
    for k in range(10):
        rr = r if k % 2 == 0 else r * 0.45
        a = -math.pi / 2 + k * math.pi / 5
        pts.append((x + rr * math.cos(a), y + rr * math.sin(a)))
    p.poly(pts, GLOW, None)


def _mini_flake(p: Pen, x: float, y: float, r: float) -> None:
    for k in range(3):
        a = k * math.pi / 3
        p.line([(x - r * math.cos(a), y - r * math.sin(a)),
                (x + r * math.cos(a), y + r * math.sin(a))], SNOW, 0.04)


Motif = Callable[[Pen], None]
# Words of a card's title (looked at first) and image concept -> the motif drawn for it.
# Order matters: the first rule with a matching word wins.
MOTIF_RULES: tuple[tuple[tuple[str, ...], Motif], ...] = (
    (("lighthouse",), m_lighthouse),
    (("snowflake",), m_snowflake),
    (("snowman",), m_snowman),
    (("snow globe",), m_globe),
    (("lantern", "lamp"), m_lantern),
    (("hourglass",), m_hourglass),
    (("clock", "watch"), m_clock),
    (("key",), m_key),
    (("tracks", "paw"), m_paws),
    (("mitten", "scarf"), m_mitten),
    (("glove",), m_glove),
    (("music box", "matchbox"), m_box),
    (("lake", "pond"), m_lake),
    (("owl",), m_owl),
    (("cage",), m_bars),
    (("crow", "bird", "cuckoo"), m_bird),
    (("candle",), m_candle),
    (("boots",), m_boots),
    (("slipper",), m_slipper),
    (("hot chocolate", "mugs"), m_mug),
    (("teapot",), m_teapot),
    (("soup", "bowl"), m_bowl),
    (("ladder",), m_ladder),
    (("staircase",), m_stairs),
    (("burning", "fireplace"), m_fire),
    (("map",), m_map),
    (("book",), m_book),
    (("letter", "ink"), m_letter),
    (("boat",), m_boat),
    (("scarecrow",), m_scarecrow),
    (("puppet",), m_puppet),
    (("spinning wheel",), m_wheel),
    (("carousel",), m_carousel),
    (("sleigh", "cart", "wagon"), m_cart),
    (("mask",), m_mask),
    (("apple", "pumpkin"), m_fruit),
    (("chimney", "factory", "tower"), m_tower),
    (("wind",), m_wind),
    (("well",), m_well),
    (("barrel",), m_barrel),
    (("sack", "coal"), m_sack),
    (("house", "bakery", "window"), m_house),
    (("mirror",), m_mirror),
    (("cage", "gate", "hole"), m_bars),
    (("chains",), m_chains),
    (("balloon",), m_balloon),
    (("kite",), m_kite),
    (("telescope",), m_telescope),
    (("bell",), m_bell),
    (("violin",), m_violin),
    (("radio",), m_radio),
    (("bridge",), m_bridge),
    (("wolf's eyes", "eyes"), m_eyes),
    (("mushroom",), m_mushrooms),
    (("pine", "forest"), m_pines),
    (("tree", "oak"), m_tree),
    (("crown",), m_crown),
    (("chess",), m_chess),
    (("sword",), m_sword),
    (("hammer",), m_hammer),
    (("needle",), m_needle),
    (("umbrella",), m_umbrella),
    (("cat",), m_cat),
    (("dog",), m_dog),
    (("teddy",), m_teddy),
    (("horse",), m_horse),
    (("rose",), m_rose),
    (("medal",), m_medal),
    (("trapdoor",), m_trapdoor),
    (("cake",), m_cake),
    (("chair",), m_chair),
    (("bed",), m_bed),
    (("flag",), m_flag),
    (("dawn", "sun"), m_sun),
    (("stars", "star"), m_stars),
    (("soldier", "princess", "girl", "boy", "watchman"), m_person),
    (("heart",), m_heart),
)


@lru_cache(maxsize=512)
def motif_for(title: str, image: str) -> Motif:
    """The motif of a card: the first rule matching its title, else its image concept."""
    for text in (title.lower(), image.lower()):
        for words, motif in MOTIF_RULES:
            # whole words (a plural too): "window" is no "wind", "crown" no "crow"
            if any(re.search(rf"\b{re.escape(w)}(e?s)?\b", text) for w in words):
                return motif
    return m_stars


@lru_cache(maxsize=1)
def _story_cards() -> dict[str, Any]:
    from engines.winter_tales.content import load_content

    return {c.id: c for c in load_content().story_cards}


@lru_cache(maxsize=64)
def card_art(card_id: str, width: int, height: int, side: str | None = None,
             title: str = "", image: str = "") -> Image.Image:
    """A small illustration of a Story card's image concept (RGB, ``width`` x ``height``).

    The sky takes the side's colours (warm dusk for Spring, deep night for Winter);
    the motif comes from the card's words. The same arguments always give the same pixels.
    Cached for the board's Memory cards (up to 64, ~30 KB each at their size); callers
    only paste it. The hand's cards are cached whole instead (:func:`_card_tile`).
    """
    return _draw_card_art(card_id, width, height, side, title, image)


def _art_words(card_id: str, title: str, image: str) -> tuple[str, str]:
    """The title and image concept a card's art is drawn from (the content's, when the
    caller has none)."""
    card = _story_cards().get(card_id)
    if card is not None:
        title = title or card.title
        image = image or card.image
    return title, image


def _art_inks(card_id: str, side: str | None, title: str, image: str
              ) -> tuple[Color, Color, Color]:
    """The sky's top and bottom colours and the motif's accent of a card's art."""
    top, bottom = SKIES.get(side, SKIES[None])
    accent = {"spring": (0xE8, 0x6A, 0x6A), "winter": (0x5E, 0x8E, 0xD8)}.get(
        side or "", (0xC8, 0x7A, 0xB0))
    # a colour the concept names wins ("a single red mitten"); otherwise cards sharing a
    # motif still differ, each tinting it with its own hue
    words = f"{title} {image}".lower()
    named = next((col for word, col in NAMED_COLOURS
                  if re.search(rf"\b{word}\b", words)), None)
    accent = named or mix(accent, TINTS[stable_seed(card_id or title) % len(TINTS)], 0.45)
    return top, bottom, accent


MOON: Color = (0xF4, 0xEE, 0xD0)


@lru_cache(maxsize=8)
def _sky(top: Color, bottom: Color, width: int, height: int) -> Image.Image:
    """The sky's gradient behind a card's art (read-only: copied)."""
    img = Image.new("RGB", (width, height), top)
    d = ImageDraw.Draw(img)
    for y in range(height):
        d.line((0, y, width, y), fill=mix(top, bottom, (y / height) ** 1.4))
    return img


def _draw_card_art(card_id: str, width: int, height: int, side: str | None = None,
                   title: str = "", image: str = "") -> Image.Image:
    title, image = _art_words(card_id, title, image)
    width, height = max(8, int(width)), max(8, int(height))
    top, bottom, accent = _art_inks(card_id, side, title, image)
    img = _sky(top, bottom, width, height).copy()
    d = ImageDraw.Draw(img)
    rnd = stable_seed(card_id or title)
    for _ in range(max(6, width * height // 2500)):
        rnd = (rnd * 6364136223846793005 + 1442695040888963407) % 2**64
        x = (rnd >> 16) % width
        y = (rnd >> 32) % max(1, int(height * 0.7))
        r = 0.6 + ((rnd >> 50) % 3) * max(0.5, width / 400)
        d.ellipse((x - r, y - r, x + r, y + r), fill=mix(top, SNOW, 0.6))
    words = f"{title} {image}".lower()
    if "moon" in words or "night" in words:
        mr = height * 0.11
        mx, my = width * 0.84, height * 0.2
        d.ellipse((mx - mr, my - mr, mx + mr, my + mr), fill=MOON)
        d.ellipse((mx - mr * 0.45, my - mr * 1.05, mx + mr * 1.45, my + mr * 0.85), fill=top)
    # the snowy ground
    d.ellipse((-width * 0.2, height * 0.78, width * 0.7, height * 1.4), fill=mix(SNOW, top, 0.12))
    d.ellipse((width * 0.35, height * 0.82, width * 1.25, height * 1.45),
              fill=mix(SNOW, top, 0.22))
    s = min(width * 0.45, height * 0.42)
    pen = Pen(d, width / 2, height * 0.5, s, bottom, accent)
    motif_for(title, image)(pen)
    return img


class _Inks:
    """Stands in for the ImageDraw of a :class:`Pen` to list the colours a motif draws
    in, drawing nothing."""

    def __init__(self) -> None:
        self.colours: set[Color] = set()

    def _note(self, *_: Any, fill: Any = None, outline: Any = None, **__: Any) -> None:
        for c in (fill, outline):
            if isinstance(c, tuple):
                self.colours.add(c)

    ellipse = rounded_rectangle = polygon = line = arc = _note


def _art_colours(side: str | None) -> list[Color]:
    """Every flat colour the art of a Story card draws in on ``side``'s sky (its stars,
    moon, ground and motif), in a fixed order; the sky's gradient is not among them."""
    top = SKIES.get(side, SKIES[None])[0]
    inks = _Inks()
    for card in _story_cards().values():
        title, image = _art_words(card.id, card.title, card.image)
        _, bottom, accent = _art_inks(card.id, side, title, image)
        motif_for(title, image)(Pen(inks, 0, 0, 1, bottom, accent))  # type: ignore[arg-type]
    ground = [mix(top, SNOW, 0.6), MOON, mix(SNOW, top, 0.12), mix(SNOW, top, 0.22)]
    return ground + sorted(inks.colours - set(ground))


# --------------------------------------------------------------------------- the hand model


@dataclass(frozen=True)
class HandCard:
    id: str
    title: str
    image: str
    spring: str
    winter: str

    @property
    def number(self) -> str:
        """What a player types or picks to play it: ``story_07`` -> ``7``."""
        tail = self.id.rsplit("_", 1)[-1]
        return str(int(tail)) if tail.isdigit() else self.id


@dataclass(frozen=True)
class HandObjective:
    title: str
    faction: str
    text: str
    places: str
    state: str  # secret | revealed | completed


@dataclass
class Hand:
    seat: int | None
    name: str
    faction: str
    cards: list[HandCard] = field(default_factory=list)
    objectives: list[HandObjective] = field(default_factory=list)
    limit: int = 7
    note: str = ""


# --------------------------------------------------------------------------- drawing
# The picture is put together in its palette (mode P): the cards, the header and the
# Objectives are drawn once in RGB, stored in the palette and kept; a picture pastes
# them on a canvas that is already in its palette, so storing it costs zlib alone.

MIN_FONT = math.ceil(9 * WIDTH / 400)
"""The smallest text drawn (27 px): 9 px once Discord shows the picture 400 px wide on a
phone (tests/test_phone_pictures.py). Every caption, note and label is at least this."""
CARD_PAD = 10
"""The card's content (a tile) starts this far inside its panel, clear of its corners."""
ART_AT = 14
"""The art's top left corner inside the card's panel."""
BAND_INSET = 12
"""The caption bands' sides inside the panel (inside the tile: at least ``CARD_PAD``)."""
BAND_TEXT = 38
"""A caption's left edge inside its band, after the side's mark."""
CAPTION_LINES = 5  # no card's caption needs more at this width (the longest take 3)
TITLE_FONT, CAPTION_FONT, NUMBER_FONT = 29, MIN_FONT, 28
TITLE_LH, CAPTION_LH = 35, 32
TITLE_X = ART_AT + ART_W + 14
"""Where the number and the title start, right of the art (panel coordinates)."""


def _side(faction: str) -> str | None:
    """The side whose sky a faction's cards show (a Writer's: neither)."""
    return faction if faction in ("spring", "winter") else None


@lru_cache(maxsize=4)
def _palette(faction: str) -> FixedPalette:
    """Every colour a hand of ``faction`` draws in: the panels and their text, the art of
    every Story card on the faction's sky (:func:`_art_colours`, exact) and stops along
    the sky's gradient (the art is dithered to them, as the whole hand was before). Made
    once per faction and process: 10-50 ms (the first walks every card's motif rules)."""
    side = _side(faction)
    top, bottom = SKIES.get(side, SKIES[None])
    owners = [owner_style(s) for s in range(len(OWNER_COLORS))]
    ui = [BG, PANEL, GRID, TEXT, MUTED, DIM, GOLD, INK, SPRING, WINTER, WRITER, SPRING_BAND,
          WINTER_BAND, *(o.color for o in owners)]
    sky = [mix(top, bottom, k / 15) for k in range(16)]
    blends = [(PANEL, TEXT, 14), (PANEL, MUTED, 10), (SPRING_BAND, TEXT, 8),
              (WINTER_BAND, TEXT, 8), (SPRING_BAND, SPRING, 4), (WINTER_BAND, WINTER, 4),
              (GOLD, INK, 6), (BG, TEXT, 6), (BG, DIM, 4), (PANEL, GOLD, 4),
              (PANEL, SPRING, 3), (PANEL, WINTER, 3), *((o.color, o.ink, 2) for o in owners)]
    return FixedPalette([*ui, *_art_colours(side), *sky], blends)


def _card_width() -> int:
    return (WIDTH - 2 * MARGIN - CARD_GAP * (COLS - 1)) // COLS


def _wrap_after(text: str, fnt: Any, first: float, rest: float) -> list[str]:
    """Greedy word wrap whose first line is ``first`` px wide (it follows the number)
    and the others ``rest``; the first line is empty when its first word is too long."""
    words = text.split()
    line = ""
    while words and fnt.getlength(f"{line} {words[0]}".strip()) <= first:
        line = f"{line} {words.pop(0)}".strip()
    return [line, *wrap_text(" ".join(words), fnt, rest)] if words else [line]


def _number_width(card: HandCard) -> float:
    return font(NUMBER_FONT, bold=True).getlength(f"#{card.number}") + 20


def _title_lines(card: HandCard, w: int) -> list[str]:
    """The title beside the art: its first line after the card's number."""
    tw = w - TITLE_X - 14
    return _wrap_after(card.title, font(TITLE_FONT, bold=True),
                       tw - _number_width(card) - 10, tw)[:3]


def _caption_width(w: int) -> int:
    return w - 2 * BAND_INSET - BAND_TEXT - 8


def _caption_lines(text: str, w: int) -> list[str]:
    """A side's captions wrapped to the band: a ``·`` between two captions ends a line,
    never starts one."""
    words: list[str] = []
    for word in text.split():
        if word == "·" and words:
            words[-1] += " ·"
        else:
            words.append(word)
    fnt, width = font(CAPTION_FONT), _caption_width(w)
    lines: list[str] = []
    for word in words:
        if lines and lines[-1] and fnt.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] += f" {word}"
        else:
            lines.extend(wrap_text(word, fnt, width))  # an over-long word is split
    if len(lines) > CAPTION_LINES:
        lines = [*lines[:CAPTION_LINES - 1],
                 ellipsize(" ".join(lines[CAPTION_LINES - 1:]), fnt, width)]
    return lines or [""]


def _head_height(card: HandCard, w: int) -> int:
    """The height of the card's first part: the art, the number and the title."""
    return max(ART_H, len(_title_lines(card, w)) * TITLE_LH + 4)


@lru_cache(maxsize=256)
def _card_height(card: HandCard, w: int) -> int:
    """The height of the card's panel (its content and a margin below)."""
    bands = sum(len(_caption_lines(text, w)) * CAPTION_LH + 14 + 6
                for text in (card.spring, card.winter))
    return ART_AT + _head_height(card, w) + 10 + bands - 6 + 12


def _draw_card(img: Image.Image, d: ImageDraw.ImageDraw, card: HandCard, x0: float,
               y0: float, w: int, art: Image.Image) -> None:
    """The content of a card whose panel has its top left corner at (x0, y0): the art
    (``ART_W`` by ``ART_H``), beside it the number and the title, then the two captions
    across the card."""
    x1 = x0 + w
    img.paste(art, (int(x0 + ART_AT), int(y0 + ART_AT)))
    d.rounded_rectangle((x0 + ART_AT, y0 + ART_AT, x0 + ART_AT + art.width,
                         y0 + ART_AT + ART_H), radius=10, outline=GRID, width=2)
    head = _head_height(card, w)
    lines = _title_lines(card, w)
    tx = x0 + TITLE_X
    ty = y0 + ART_AT + (head - len(lines) * TITLE_LH) / 2  # the title block, centred
    # the number (what the play command takes) first, on the title's first line
    nw = _number_width(card)
    cy = ty + TITLE_LH / 2
    d.rounded_rectangle((tx, cy - 19, tx + nw, cy + 19), radius=12, fill=GOLD, outline=INK,
                        width=2)
    text_center(d, (tx + nw / 2, cy), f"#{card.number}", font(NUMBER_FONT, bold=True), INK)
    tf = font(TITLE_FONT, bold=True)
    for k, line in enumerate(lines):
        if line:
            d.text((tx + (nw + 10 if k == 0 else 0), cy + k * TITLE_LH), line, font=tf,
                   fill=TEXT, anchor="lm")
    y = y0 + ART_AT + head + 10
    cf = font(CAPTION_FONT)
    for label, text, band, col in (("✿", card.spring, SPRING_BAND, SPRING),
                                   ("❄", card.winter, WINTER_BAND, WINTER)):
        h = len(_caption_lines(text, w)) * CAPTION_LH + 14
        d.rounded_rectangle((x0 + BAND_INSET, y, x1 - BAND_INSET, y + h), radius=10,
                            fill=band, outline=col, width=2)
        text_center(d, (x0 + BAND_INSET + 20, y + 7 + CAPTION_LH / 2), label,
                    font(CAPTION_FONT, bold=True), col)
        for k, line in enumerate(_caption_lines(text, w)):
            d.text((x0 + BAND_INSET + BAND_TEXT, y + 7 + k * CAPTION_LH), line, font=cf,
                   fill=TEXT, anchor="la")
        y += h + 6


def _card_rgb(card: HandCard, w: int, faction: str) -> tuple[Image.Image, Image.Image]:
    """The content of one card drawn in RGB (see :func:`_card_tile`), and its art."""
    rgb = new_canvas(w - 2 * CARD_PAD, _card_height(card, w) - CARD_PAD - 6, PANEL)
    art = _draw_card_art(card.id, ART_W, ART_H, _side(faction), card.title, card.image)
    _draw_card(rgb, ImageDraw.Draw(rgb), card, -CARD_PAD, -CARD_PAD, w, art)
    return rgb, art


@lru_cache(maxsize=48)
def _card_tile(card: HandCard, w: int, faction: str) -> Image.Image:
    """The content of one card in the hand's palette (mode P), to paste at
    (``CARD_PAD``, ``CARD_PAD``) inside its panel. The art is dithered to the palette's
    sky (its flat colours are in the palette: they stay), the rest keeps the nearest.
    Cached: a hand keeps its cards from one picture to the next, and a card costs a few
    ms to draw and store (the most when its text is new to the glyph cache); up to 48
    tiles of ~0.17 MB (13 cards in three hands). Callers only paste it."""
    pal = _palette(faction)
    rgb, art = _card_rgb(card, w, faction)
    tile = pal.quantize(rgb)
    at = (ART_AT - CARD_PAD, ART_AT - CARD_PAD)
    shown = ImageChops.difference(rgb.crop((*at, at[0] + art.width, at[1] + art.height)), art)
    # where the art shows (not under its frame): its dithered pixels
    tile.paste(pal.quantize(art, dither=True), at, shown.convert("L").point(
        lambda v: 255 if v == 0 else 0))
    return tile


def _layout(heights: Sequence[int]) -> tuple[list[tuple[int, int]], int]:
    """Where each card goes, (column, y below the top part), and the cards' height: each
    card in hand order goes under the column that ends highest (the left on a tie), so
    the columns stay even however the cards' captions differ in length."""
    ends = [0] * COLS
    spots = []
    for h in heights:
        k = min(range(COLS), key=lambda c: (ends[c], c))
        spots.append((k, ends[k]))
        ends[k] += h + CARD_GAP
    return spots, max(ends) - CARD_GAP if heights else 0


LINE = round(MIN_FONT * 1.2)  # the line height of the header's and the Objectives' text
SUBTITLE = ("Private: only you see this. Play a card by its number; "
            "✿ Spring side helps the Fairy Tales, ❄ Winter side the Soldiers.")


def _objective_lines(o: HandObjective, w: float) -> tuple[list[str], list[str]]:
    """The condition's lines and the places' lines of an Objective panel ``w`` wide."""
    places = wrap_text(o.places, font(MIN_FONT, bold=True), w - 36) if o.places else []
    return wrap_text(o.text, font(MIN_FONT), w - 36), places


def _objective_height(o: HandObjective, w: float) -> int:
    text, places = _objective_lines(o, w)
    return 50 + (len(text) + len(places)) * LINE + 12


def _header_lines(note: str) -> tuple[list[str], list[str]]:
    """The note's lines (over the hand limit) and the subtitle's lines of the header."""
    text_w = WIDTH - 2 * MARGIN - 48
    note_lines = wrap_text(note, font(MIN_FONT, bold=True), text_w) if note else []
    return note_lines, wrap_text(SUBTITLE, font(MIN_FONT), text_w)


def _header_title(seat: int | None, name: str, cards: int, width: float) -> tuple[str, Any]:
    """Whose hand and how many cards, in a bold font that fits ``width`` (as large as it
    fits from 32 px down to :data:`MIN_FONT`, then the name cut short)."""
    rest = f" hand · {cards} Story card" + ("" if cards == 1 else "s")
    who = "Your" if seat is None else f"{name}'s"
    tf = fit_font(who + rest, width, 32, MIN_FONT, bold=True)
    if tf.getlength(who + rest) > width:
        who = ellipsize(name, tf, width - tf.getlength("'s" + rest)) + "'s"
    return who + rest, tf


@lru_cache(maxsize=32)
def _top(seat: int | None, name: str, faction: str, cards: int, note: str,
         objectives: tuple[HandObjective, ...]) -> Image.Image:
    """The picture's top in its palette (mode P), all its width: whose hand it is, that
    it is private, the Objectives (the part that matters most, so above the cards) and,
    for no cards, a notice. Cached by all it shows."""
    obj_w = WIDTH - 2 * MARGIN
    note_lines, sub_lines = _header_lines(note)
    header_h = 70 + (len(note_lines) + len(sub_lines)) * LINE + 10
    obj_h = sum(_objective_height(o, obj_w) + 10 for o in objectives)
    height = MARGIN + header_h + 12 + (44 + obj_h if objectives else 0) + (
        0 if cards else 70)
    img = new_canvas(WIDTH, height, BG)
    d = ImageDraw.Draw(img)
    box = (MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + header_h)
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=16)
    fcol = {"spring": SPRING, "winter": WINTER}.get(faction, WRITER)
    d.rounded_rectangle((MARGIN, MARGIN, MARGIN + 12, MARGIN + header_h), radius=6, fill=fcol)
    if seat is not None:
        # radius 26: its letter is MIN_FONT px
        owner_marker(d, owner_style(seat), (MARGIN + 50, MARGIN + 36), 26)
    title, tf = _header_title(seat, name, cards, WIDTH - 2 * MARGIN - 108)
    text_left(d, (MARGIN + 90, MARGIN + 36), title, tf, TEXT)
    y = MARGIN + 70
    for line in note_lines:  # over the hand limit: what to do, before the rest
        d.text((MARGIN + 30, y), line, font=font(MIN_FONT, bold=True), fill=GOLD, anchor="la")
        y += LINE
    for line in sub_lines:
        d.text((MARGIN + 30, y), line, font=font(MIN_FONT), fill=MUTED, anchor="la")
        y += LINE
    y = MARGIN + header_h + 12
    if objectives:
        text_left(d, (MARGIN + 4, y + 20), "Your Objective" +
                  ("s" if len(objectives) > 1 else ""), font(30, bold=True), TEXT)
        y += 44
        state_of = {"secret": "secret", "revealed": "revealed", "completed": "completed ✓"}
        sf = font(MIN_FONT, bold=True)
        for o in objectives:
            oh = _objective_height(o, obj_w)
            col = {"spring": SPRING, "winter": WINTER}.get(o.faction, GOLD)
            rounded_panel(d, (MARGIN, y, WIDTH - MARGIN, y + oh), fill=PANEL, outline=col,
                          radius=14, width=3)
            state = state_of.get(o.state, o.state)
            sx = WIDTH - MARGIN - 18 - sf.getlength(state)
            text_left(d, (sx, y + 28), state, sf, col)
            of = font(28, bold=True)
            text_left(d, (MARGIN + 18, y + 28), ellipsize(o.title, of, sx - MARGIN - 42), of,
                      TEXT)
            text, places = _objective_lines(o, obj_w)
            yy = y + 50
            for line in text:
                d.text((MARGIN + 18, yy), line, font=font(MIN_FONT), fill=MUTED, anchor="la")
                yy += LINE
            for line in places:
                d.text((MARGIN + 18, yy), line, font=sf, fill=GOLD, anchor="la")
                yy += LINE
            y += oh + 10
    if not cards:
        text_center(d, (WIDTH / 2, y + 30), "No Story cards in hand.", font(28), DIM)
    return _palette(faction).quantize(img)


def draw(hand: Hand) -> Image.Image:
    """The hand in its palette (mode P): the header, the Objectives, then the cards in
    ``COLS`` columns (:func:`_layout`)."""
    pal = _palette(hand.faction)
    w = _card_width()
    top = _top(hand.seat, hand.name, hand.faction, len(hand.cards), hand.note,
               tuple(hand.objectives))
    heights = [_card_height(c, w) for c in hand.cards]
    spots, cards_h = _layout(heights)
    img = pal.canvas(WIDTH, top.height + cards_h + MARGIN, BG)
    img.paste(top, (0, 0))
    d = ImageDraw.Draw(img)
    panel, grid = pal.index(PANEL), pal.index(GRID)
    for card, h, (k, dy) in zip(hand.cards, heights, spots, strict=True):
        x, y = MARGIN + k * (w + CARD_GAP), top.height + dy
        d.rounded_rectangle((x, y, x + w, y + h), radius=16, fill=panel, outline=grid, width=2)
        img.paste(_card_tile(card, w, hand.faction), (x + CARD_PAD, y + CARD_PAD))
    return img


def render_hand(hand: Hand) -> bytes:
    """PNG bytes of a hand (drawn in its palette: :func:`draw`)."""
    return to_png(draw(hand))


# --------------------------------------------------------------------------- from the view


def hand_from_view(view: Any, names: Sequence[str] | None = None) -> Hand:
    """The :class:`Hand` in a seat's view (``WinterView`` or its dict); the only adapter.

    Objectives are the viewer's own (``seat`` matches); a public view yields no cards.
    """
    from engines.winter_tales.content import load_content

    c = load_content()
    seat = view_get(view, "seat")
    factions = list(view_get(view, "factions", []) or [])
    faction = str(factions[seat]) if seat is not None and seat < len(factions) else ""
    cards = []
    for cf in (view_get(view, "hand") or []) if seat is not None else []:
        cid = str(view_get(cf, "id"))
        spring, winter = str(view_get(cf, "spring", "")), str(view_get(cf, "winter", ""))
        try:  # every caption the card prints, not just the first
            sc = c.story_card(cid)
            spring = " · ".join(sc.spring.captions)
            winter = " · ".join(sc.winter.captions)
        except ValueError:
            pass
        cards.append(HandCard(id=cid, title=str(view_get(cf, "title", "")),
                              image=str(view_get(cf, "image", "")), spring=spring, winter=winter))
    objectives = []
    for o in view_get(view, "objectives", []) or []:
        if seat is None or view_get(o, "seat") != seat:
            continue
        kind = str(view_get(o, "kind", ""))
        try:
            ot = c.objective_type(kind)
            text = ot.condition_text
        except ValueError:
            text = ""
        locs = []
        for loc in view_get(o, "locations", []) or []:
            try:
                locs.append(c.map.space(str(loc)).name)
            except ValueError:
                locs.append(str(loc))
        state = "completed" if view_get(o, "completed") else (
            "revealed" if view_get(o, "revealed") else "secret")
        objectives.append(HandObjective(title=str(view_get(o, "title", kind)),
                                        faction=str(view_get(o, "faction", "")), text=text,
                                        places=("Location: " if len(locs) == 1 else "Locations: ")
                                        + " and ".join(locs) if locs else "", state=state))
    name = "Your"
    if seat is not None:
        name = names[seat] if names and seat < len(names) and names[seat] else \
            f"Player {owner_style(seat).letter}"
    limit = c.setup.hand_limit
    note = ""
    if seat is not None and len(cards) > limit:
        note = f"Over the hand limit: discard down to {limit} at the end of the activation"
    return Hand(seat=seat, name=name, faction=faction, cards=cards, objectives=objectives,
                limit=limit, note=note)


def render(view: Any, names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of the hand in a seat's view (for that seat's DM or ephemeral only)."""
    return render_hand(hand_from_view(view, names))
