"""Colour-vision deficiency, simulated, and how far apart two colours look.

The pictures tell seats, coins and factions apart by shape and letter first, and by
colour too; this module measures whether the colours still differ for the players
who see fewer of them. Pure Python (Pillow only for :func:`simulate_image`).

* :func:`simulate` shows an sRGB colour as a dichromat sees it: protanopia (no L
  cones), deuteranopia (no M cones) or tritanopia (no S cones), at full severity, with
  the matrices of Machado, Oliveira and Fernandes, "A Physiologically-based Model for
  Simulation of Color Vision Deficiency", IEEE TVCG 15(6), 2009 (their table of
  severity 1.0). The matrices apply to *linear* RGB: the colour is decoded from sRGB,
  multiplied, clipped to the gamut and encoded again.
* :func:`delta_e` is the CIEDE2000 colour difference (CIE 142-2001, as written up by
  Sharma, Wu and Dalal, "The CIEDE2000 Color-Difference Formula: Implementation Notes,
  Supplementary Test Data, and Mathematical Observations", Color Res. Appl. 30(1),
  2005) between the CIELAB values (D65 white) of two sRGB colours, after the
  simulation if one is asked for. About 1 is a just noticeable difference for large
  patches side by side; small tokens on a phone need several times that.
* :func:`worst_pair` finds the two colours of a set that look most alike, and
  :func:`worst_pairs` does so for normal vision and each simulation.

>>> simulate((0xE6, 0x9F, 0x00), "deuteranopia")  # orange turns a dull yellow
(202, 180, 17)
>>> round(delta_e((0xE6, 0x9F, 0x00), (0xF0, 0xE4, 0x42)), 1)  # orange, yellow
21.7
>>> round(delta_e((0xE6, 0x9F, 0x00), (0xF0, 0xE4, 0x42), "deuteranopia"), 1)
11.6
>>> worst_pair({"red": (0xD5, 0x5E, 0x00), "green": (0x00, 0x9E, 0x73),
...             "blue": (0x00, 0x72, 0xB2)}, "protanopia").names
('red', 'green')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Literal

from PIL import Image, ImageFilter

Color = tuple[int, int, int]
"""An sRGB colour, 0..255 a channel (as in :mod:`renderers.common`)."""
Lab = tuple[float, float, float]
"""A CIELAB colour (L* 0..100, a*, b*), D65 white."""
Matrix = tuple[tuple[float, float, float], tuple[float, float, float],
               tuple[float, float, float]]
Vision = Literal["normal", "protanopia", "deuteranopia", "tritanopia"]

VISIONS: tuple[Vision, ...] = ("normal", "protanopia", "deuteranopia", "tritanopia")
"""Normal vision, then each simulated deficiency."""
DEFICIENCIES: tuple[Vision, ...] = VISIONS[1:]

MACHADO_2009: dict[Vision, Matrix] = {
    "protanopia": ((0.152286, 1.052583, -0.204868),
                   (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968),
                     (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779),
                   (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}
"""Machado, Oliveira and Fernandes (2009), severity 1.0, on linear sRGB (rows: R, G, B
out). Each row sums to 1, so greys stay grey."""

# sRGB (D65) linear RGB to CIE XYZ, IEC 61966-2-1, and the D65 white (Y = 1).
_RGB_TO_XYZ: Matrix = ((0.4124564, 0.3575761, 0.1804375),
                       (0.2126729, 0.7151522, 0.0721750),
                       (0.0193339, 0.1191920, 0.9503041))
_D65 = (0.95047, 1.0, 1.08883)


def to_linear(v: float) -> float:
    """An sRGB channel (0..255) as linear light (0..1).

    >>> to_linear(0), round(to_linear(128), 4), to_linear(255)
    (0.0, 0.2159, 1.0)
    """
    s = v / 255
    return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4


def to_srgb(x: float) -> float:
    """Linear light (clipped to 0..1) as an sRGB channel, 0..255 unrounded.

    >>> round(to_srgb(to_linear(200)), 6)
    200.0
    """
    x = min(1.0, max(0.0, x))
    s = x * 12.92 if x <= 0.0031308 else 1.055 * x ** (1 / 2.4) - 0.055
    return s * 255


def _simulated_linear(color: Sequence[float], vision: Vision) -> tuple[float, float, float]:
    lin = [to_linear(v) for v in color]
    if vision == "normal":
        return lin[0], lin[1], lin[2]
    try:
        m = MACHADO_2009[vision]
    except KeyError:
        raise ValueError(f"unknown vision {vision!r}; one of {', '.join(VISIONS)}") from None
    r, g, b = (min(1.0, max(0.0, row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2]))
               for row in m)
    return r, g, b


def simulate(color: Color, vision: Vision) -> Color:
    """``color`` as seen with ``vision`` (rounded to 8 bits a channel).

    Greys do not change; reds and greens merge for protanopes and deuteranopes, blues
    and greens for tritanopes:

    >>> simulate((128, 128, 128), "protanopia")
    (128, 128, 128)
    >>> simulate((255, 0, 0), "protanopia"), simulate((0, 255, 0), "deuteranopia")
    ((109, 95, 0), (239, 214, 58))
    >>> simulate((0, 0, 255), "tritanopia")
    (0, 107, 150)
    """
    r, g, b = (round(to_srgb(x)) for x in _simulated_linear(color, vision))
    return r, g, b


def lab(color: Color, vision: Vision = "normal") -> Lab:
    """The CIELAB value (D65) of ``color``, as seen with ``vision``.

    >>> tuple(round(x, 2) for x in lab((255, 0, 0)))
    (53.24, 80.09, 67.2)
    >>> tuple(round(x, 2) + 0 for x in lab((255, 255, 255)))
    (100.0, 0.0, 0.0)
    """
    rgb = _simulated_linear(color, vision)
    x, y, z = (sum(k * c for k, c in zip(row, rgb, strict=True)) / w
               for row, w in zip(_RGB_TO_XYZ, _D65, strict=True))

    def f(t: float) -> float:
        return t ** (1 / 3) if t > (6 / 29) ** 3 else t / (3 * (6 / 29) ** 2) + 4 / 29

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def ciede2000(lab1: Lab, lab2: Lab) -> float:
    """The CIEDE2000 difference of two CIELAB colours (kL = kC = kH = 1).

    Two of Sharma, Wu and Dalal's (2005) test pairs, one where the hue mean wraps round:

    >>> round(ciede2000((50, 2.6772, -79.7751), (50, 0, -82.7485)), 4)
    2.0425
    >>> round(ciede2000((50, 2.49, -0.001), (50, -2.49, 0.0011)), 4)
    7.2195
    """
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c_mean = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_mean ** 7 / (c_mean ** 7 + 25 ** 7)))
    a1p, a2p = a1 * (1 + g), a2 * (1 + g)
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0

    dl = l2 - l1
    dc = c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    else:
        dh = h2p - h1p
        if dh > 180:
            dh -= 360
        elif dh < -180:
            dh += 360
    d_big_h = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))

    l_mean = (l1 + l2) / 2
    cp_mean = (c1p + c2p) / 2
    if c1p * c2p == 0:
        hp_mean = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hp_mean = (h1p + h2p) / 2
    elif h1p + h2p < 360:
        hp_mean = (h1p + h2p + 360) / 2
    else:
        hp_mean = (h1p + h2p - 360) / 2

    t = (1 - 0.17 * math.cos(math.radians(hp_mean - 30))
         + 0.24 * math.cos(math.radians(2 * hp_mean))
         + 0.32 * math.cos(math.radians(3 * hp_mean + 6))
         - 0.20 * math.cos(math.radians(4 * hp_mean - 63)))
    d_theta = 30 * math.exp(-(((hp_mean - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_mean ** 7 / (cp_mean ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_mean - 50) ** 2 / math.sqrt(20 + (l_mean - 50) ** 2)
    s_c = 1 + 0.045 * cp_mean
    s_h = 1 + 0.015 * cp_mean * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (d_big_h / s_h) ** 2
                     + r_t * (dc / s_c) * (d_big_h / s_h))


def delta_e(a: Color, b: Color, vision: Vision = "normal") -> float:
    """CIEDE2000 between two sRGB colours as seen with ``vision``.

    >>> round(delta_e((0, 0, 0), (255, 255, 255)), 1)
    100.0
    >>> round(delta_e((255, 0, 0), (0, 128, 0)), 1), round(delta_e((255, 0, 0), (0, 128, 0),
    ...                                                          "deuteranopia"), 1)
    (72.2, 15.7)
    """
    return ciede2000(lab(a, vision), lab(b, vision))


@dataclass(frozen=True)
class Pair:
    """The two colours of a set that look most alike with ``vision``."""

    vision: Vision
    names: tuple[str, str]
    colors: tuple[Color, Color]
    delta_e: float

    def __str__(self) -> str:
        a, b = (n if n == _hex(c) else f"{n} {_hex(c)}"
                for n, c in zip(self.names, self.colors, strict=True))
        return f"{self.vision}: {a} ~ {b}, dE00 {self.delta_e:.1f}"


def _hex(c: Color) -> str:
    return "#" + bytes(c).hex().upper()


def _named(colors: Mapping[str, Color] | Iterable[Color]) -> list[tuple[str, Color]]:
    if isinstance(colors, Mapping):
        return list(colors.items())
    return [(_hex(c), c) for c in colors]


def worst_pair(colors: Mapping[str, Color] | Iterable[Color],
               vision: Vision = "normal") -> Pair:
    """The closest pair of ``colors`` (a name-to-colour mapping, or plain colours named by
    their hex) as seen with ``vision``. Needs at least two colours.

    >>> p = worst_pair([(0xE6, 0x9F, 0x00), (0x56, 0xB4, 0xE9), (0xF0, 0xE4, 0x42)])
    >>> p.names, round(p.delta_e, 1)
    (('#E69F00', '#F0E442'), 21.7)
    >>> print(worst_pair({"A": (0xE6, 0x9F, 0x00), "B": (0x56, 0xB4, 0xE9),
    ...                   "C": (0xF0, 0xE4, 0x42)}, "deuteranopia"))
    deuteranopia: A #E69F00 ~ C #F0E442, dE00 11.6
    """
    return _worst(_named(colors), vision)


def _worst(named: list[tuple[str, Color]], vision: Vision) -> Pair:
    if len(named) < 2:
        raise ValueError("worst_pair needs at least two colours")
    labs = [(n, c, lab(c, vision)) for n, c in named]
    best: Pair | None = None
    for (na, ca, la), (nb, cb, lb) in combinations(labs, 2):
        d = ciede2000(la, lb)
        if best is None or d < best.delta_e:
            best = Pair(vision, (na, nb), (ca, cb), d)
    assert best is not None
    return best


def worst_pairs(colors: Mapping[str, Color] | Iterable[Color]) -> dict[Vision, Pair]:
    """:func:`worst_pair` for normal vision and each simulated deficiency.

    >>> okabe_ito = [(0xE6, 0x9F, 0x00), (0x56, 0xB4, 0xE9), (0x00, 0x9E, 0x73),
    ...              (0xF0, 0xE4, 0x42), (0x00, 0x72, 0xB2), (0xD5, 0x5E, 0x00),
    ...              (0xCC, 0x79, 0xA7)]
    >>> {v: round(p.delta_e, 1) for v, p in worst_pairs(okabe_ito).items()}
    {'normal': 21.7, 'protanopia': 12.2, 'deuteranopia': 11.6, 'tritanopia': 10.9}
    """
    named = _named(colors)
    return {v: _worst(named, v) for v in VISIONS}


@lru_cache(maxsize=4)
def _lut(vision: Vision, size: int) -> ImageFilter.Color3DLUT:
    def table(r: float, g: float, b: float) -> tuple[float, float, float]:
        sr, sg, sb = (to_srgb(x) / 255 for x in _simulated_linear((r * 255, g * 255, b * 255),
                                                                   vision))
        return sr, sg, sb

    return ImageFilter.Color3DLUT.generate(size, table)


def simulate_image(img: Image.Image, vision: Vision, size: int = 33) -> Image.Image:
    """A copy of an RGB picture as seen with ``vision``: :func:`simulate` on every pixel,
    through a ``size``-cubed 3D lookup table (Pillow's ``Color3DLUT``, built once a vision
    and size). Between its nodes the table is interpolated in sRGB, where the simulation is
    not linear: at the default size a channel is off by 0.3 levels on average, by up to
    about 13 on a few dark saturated colours (65 nodes: 0.1 and 9, built in ~1.5 s). For
    looking at pictures; measure colours with :func:`simulate` and :func:`delta_e`.

    >>> from PIL import Image
    >>> img = Image.new("RGB", (2, 1), (255, 0, 0))
    >>> simulate_image(img, "protanopia").getpixel((0, 0))  # exact at a node
    (109, 95, 0)
    >>> simulate_image(img, "normal") is not img
    True
    """
    rgb = img.convert("RGB")
    if vision == "normal":
        return rgb.copy()
    return rgb.filter(_lut(vision, size))
