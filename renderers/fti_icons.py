"""Fairy Tale Inn character glyphs, drawn with Pillow primitives (the project's own
simple pictograms, not the published art).

Each glyph draws inside a square of side ``size`` centred on ``center`` in
``ink``; ``paper`` is the colour under it, used to cut holes (eyes, snout). A kind
without a glyph shows its first two letters instead, never under 27 px.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from PIL import ImageDraw

from renderers.common import Color, Point, font, text_center

Glyph = Callable[[ImageDraw.ImageDraw, Point, float, Color, Color], None]


class _Pen:
    """Maps a 100x100 design grid onto the target square."""

    def __init__(self, center: Point, size: float) -> None:
        self.x0 = center[0] - size / 2
        self.y0 = center[1] - size / 2
        self.u = size / 100

    def p(self, x: float, y: float) -> Point:
        return (self.x0 + x * self.u, self.y0 + y * self.u)

    def pts(self, *xy: tuple[float, float]) -> list[Point]:
        return [self.p(x, y) for x, y in xy]

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, ...]:
        a, b = self.p(x0, y0), self.p(x1, y1)
        return (a[0], a[1], b[0], b[1])

    def w(self, v: float) -> int:
        return max(1, round(v * self.u))


def pinocchio(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A wooden head in profile with a long nose and a pointed cap."""
    p = _Pen(c, s)
    d.ellipse(p.box(12, 30, 58, 76), fill=ink)
    d.polygon(p.pts((52, 44), (97, 54), (52, 62)), fill=ink)  # the nose
    d.polygon(p.pts((10, 36), (60, 36), (30, 2)), fill=ink)  # the cap
    d.ellipse(p.box(38, 44, 47, 53), fill=paper)  # eye
    d.line(p.pts((22, 84), (48, 84)), fill=ink, width=p.w(8))  # collar


def evil_queen(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A hand mirror."""
    p = _Pen(c, s)
    d.ellipse(p.box(22, 2, 78, 66), fill=ink)
    d.ellipse(p.box(31, 11, 69, 57), fill=paper)
    d.polygon(p.pts((40, 30), (46, 18), (52, 30), (46, 42)), fill=ink)  # glint
    d.rounded_rectangle(p.box(43, 62, 57, 98), radius=p.w(5), fill=ink)
    d.ellipse(p.box(38, 62, 62, 74), fill=ink)


def princess(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A tiara with three points and gems."""
    p = _Pen(c, s)
    d.polygon(p.pts((8, 78), (8, 34), (30, 58), (50, 18), (70, 58), (92, 34), (92, 78)), fill=ink)
    for x, y in ((8, 30), (50, 14), (92, 30)):
        d.ellipse(p.box(x - 8, y - 8, x + 8, y + 8), fill=ink)
    d.ellipse(p.box(42, 54, 58, 70), fill=paper)  # centre gem
    d.rectangle(p.box(8, 82, 92, 92), fill=ink)


def little_pig(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A pig's face: ears, round head, snout with nostrils."""
    p = _Pen(c, s)
    d.polygon(p.pts((14, 40), (16, 6), (44, 24)), fill=ink)
    d.polygon(p.pts((86, 40), (84, 6), (56, 24)), fill=ink)
    d.ellipse(p.box(10, 16, 90, 96), fill=ink)
    d.ellipse(p.box(30, 30, 40, 40), fill=paper)
    d.ellipse(p.box(60, 30, 70, 40), fill=paper)
    d.ellipse(p.box(30, 52, 70, 82), fill=paper)  # snout
    d.ellipse(p.box(38, 61, 47, 73), fill=ink)
    d.ellipse(p.box(53, 61, 62, 73), fill=ink)


def big_bad_wolf(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A wolf's head: tall ears, narrow muzzle, slanted eyes."""
    p = _Pen(c, s)
    d.polygon(p.pts((14, 2), (40, 30), (60, 30), (86, 2), (92, 48), (72, 66), (50, 98),
                    (28, 66), (8, 48)), fill=ink)
    d.polygon(p.pts((26, 42), (44, 48), (30, 54)), fill=paper)
    d.polygon(p.pts((74, 42), (56, 48), (70, 54)), fill=paper)
    d.ellipse(p.box(43, 80, 57, 92), fill=paper)  # nose tip


def red_riding_hood(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A hooded cape with a face inside the hood."""
    p = _Pen(c, s)
    d.polygon(p.pts((50, 2), (80, 30), (86, 60), (96, 98), (4, 98), (14, 60), (20, 30)), fill=ink)
    d.ellipse(p.box(30, 30, 70, 70), fill=paper)
    d.ellipse(p.box(40, 45, 46, 51), fill=ink)
    d.ellipse(p.box(54, 45, 60, 51), fill=ink)


def jack(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """Jack's axe (and a magic bean)."""
    p = _Pen(c, s)
    d.line(p.pts((22, 96), (64, 10)), fill=ink, width=p.w(11))
    d.polygon(p.pts((52, 6), (92, 14), (94, 46), (62, 36)), fill=ink)
    d.ellipse(p.box(70, 66, 96, 94), fill=ink)  # the bean
    d.ellipse(p.box(78, 72, 86, 80), fill=paper)


def pied_piper(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A pipe with finger holes and a musical note."""
    p = _Pen(c, s)
    d.line(p.pts((8, 92), (62, 38)), fill=ink, width=p.w(16))
    d.ellipse(p.box(56, 30, 72, 46), fill=ink)
    for t in (0.3, 0.5, 0.7):
        x, y = 8 + 54 * t, 92 - 54 * t
        d.ellipse(p.box(x - 3.5, y - 3.5, x + 3.5, y + 3.5), fill=paper)
    d.ellipse(p.box(66, 58, 86, 74), fill=ink)  # note head
    d.line(p.pts((84, 66), (84, 8)), fill=ink, width=p.w(6))
    d.polygon(p.pts((84, 6), (98, 18), (98, 30), (84, 20)), fill=ink)


def rat(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A rat in profile with a long curling tail."""
    p = _Pen(c, s)
    tail = [(24, 66), (12, 70), (4, 62), (4, 50), (12, 40), (22, 36)]
    d.line(p.pts(*tail), fill=ink, width=p.w(6), joint="curve")
    d.ellipse(p.box(18, 40, 74, 82), fill=ink)
    d.polygon(p.pts((60, 46), (98, 66), (60, 80)), fill=ink)
    d.ellipse(p.box(54, 30, 74, 52), fill=ink)  # ear
    d.ellipse(p.box(59, 36, 69, 46), fill=paper)
    d.ellipse(p.box(74, 56, 81, 63), fill=paper)  # eye


def beanstalk(d: ImageDraw.ImageDraw, c: Point, s: float, ink: Color, paper: Color) -> None:
    """A climbing stalk with alternating leaves."""
    p = _Pen(c, s)
    pts = [(50 + 10 * math.sin(y / 14), 100 - y) for y in range(0, 101, 5)]
    d.line(p.pts(*pts), fill=ink, width=p.w(9), joint="curve")
    for y, side in ((22, -1), (44, 1), (66, -1), (86, 1)):
        x = 50 + 10 * math.sin(y / 14)
        tip = x + side * 40
        d.polygon(p.pts((x, 100 - y), ((x + tip) / 2, 100 - y - 14), (tip, 100 - y - 6),
                        ((x + tip) / 2, 100 - y + 6)), fill=ink)


GLYPHS: dict[str, Glyph] = {
    "pinocchio": pinocchio,
    "evil_queen": evil_queen,
    "princess": princess,
    "little_pig": little_pig,
    "big_bad_wolf": big_bad_wolf,
    "red_riding_hood": red_riding_hood,
    "jack": jack,
    "pied_piper": pied_piper,
    "rat": rat,
    "beanstalk": beanstalk,
}


def draw_glyph(d: ImageDraw.ImageDraw, kind: str, center: Point, size: float, ink: Color,
               paper: Color, fallback: str = "?") -> None:
    """The glyph of ``kind``; an unknown kind shows ``fallback`` initials instead."""
    glyph = GLYPHS.get(kind)
    if glyph is None:  # never under 27 px: 9 px on a phone, the smallest text it reads
        text_center(d, center, fallback[:2], font(max(27, round(size * 0.6)), bold=True), ink)
        return
    glyph(d, center, size, ink, paper)
