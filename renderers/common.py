"""The drawing toolkit every Fabletop renderer shares (Pillow only, no discord).

Images are drawn for Discord's dark theme (background ``#313338``) and for
phones, where Discord shrinks an image to roughly 400 px wide: renderers draw at
about 1100-1200 px wide with body text of at least 22 px, and never tell owners
apart by colour alone (each seat also has a shape and a letter).

>>> img = new_canvas(200, 100)
>>> d = ImageDraw.Draw(img)
>>> box = text_center(d, (100, 50), "Hi", font(24, bold=True), TEXT)
>>> to_png(img)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> wrap_text("the quick brown fox jumps", font(22), 120)
['the quick', 'brown fox', 'jumps']
"""

from __future__ import annotations

import hashlib
import io
import math
import sys
import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path(__file__).resolve().parent / "fonts"

Color = tuple[int, int, int]
Point = tuple[float, float]
Box = tuple[float, float, float, float]

# --------------------------------------------------------------------------- palette
# Discord dark theme surfaces, then text and accents chosen for contrast on them.

BG: Color = (0x31, 0x33, 0x38)  # Discord chat background
PANEL: Color = (0x2B, 0x2D, 0x31)  # a shade darker: panels read as "inset"
PANEL_HI: Color = (0x3F, 0x42, 0x48)  # a shade lighter: raised cells, empty slots
GRID: Color = (0x56, 0x5A, 0x62)  # lines and outlines
TEXT: Color = (0xF2, 0xF3, 0xF5)  # main text (contrast ~12:1 on BG)
MUTED: Color = (0xB5, 0xBA, 0xC1)  # secondary text (contrast ~7:1 on BG)
DIM: Color = (0x80, 0x84, 0x8E)  # hints, empty markers
INK: Color = (0x1E, 0x1F, 0x22)  # dark ink drawn on light token faces
# Coins and money: a bright golden yellow, lighter and yellower than seat A's orange and
# darker and deeper than seat C's lemon, so a coin beside a token is told apart by colour
# too, also under protanopia, deuteranopia and tritanopia (tests/test_colour_vision.py).
GOLD: Color = (0xFF, 0xCC, 0x08)
GOLD_DARK: Color = (0x9E, 0x77, 0x00)  # a coin's rim, crowns' outlines
HIGHLIGHT: Color = (0xFF, 0xFF, 0xFF)  # "just happened" outline
WARN: Color = (0xF2, 0x3F, 0x43)  # full / blocked
GOOD: Color = (0x23, 0xA5, 0x5A)  # ok / winner
NEUTRAL: Color = (0x9A, 0x9E, 0xA6)  # ownerless pieces

# Seat colours, after Okabe-Ito's colour-blind-safe hues (A stays orange, B sky blue).
# Each seat also gets its own shape and letter (owners never differ by colour alone); the
# colour is the second cue, so it must survive colour blindness too. A dichromat keeps only
# lightness and one hue axis: for deuteranopes and protanopes orange, yellow, green and red
# all turn yellowish (blue, pink and sky blue bluish), so these differ in *lightness* where
# the hue is lost: C is a pale lemon, A a mid orange, F a light red, D a lighter green than
# Okabe-Ito's; G is a deeper blue than sky-blue B. Chosen by a search over sRGB, staying
# close to the previous colours, that keeps the seats of each game's largest table and the
# coins at CIEDE2000 >= 15 apart in normal vision and >= 8 under simulated protanopia,
# deuteranopia and tritanopia (Machado 2009), what else sits beside them (Winter's faction
# chips, Crossroads' gossip pills, grey ownerless pieces) at >= 12 and >= 7, every seat at
# >= 3:1 on BG and PANEL with a letter ink of >= 4.5:1 (tests/test_colour_vision.py has the
# thresholds and why, renderers/vision.py the maths).
OWNER_COLORS: tuple[Color, ...] = (
    (0xE9, 0x97, 0x00),  # orange
    (0x55, 0xAA, 0xCC),  # sky blue
    (0xFE, 0xFF, 0x6B),  # yellow (pale lemon: far lighter than A, F and the coins)
    (0x00, 0xCC, 0x89),  # green (bluish)
    (0xCC, 0x79, 0xA7),  # pink (reddish purple)
    (0xE8, 0x64, 0x5A),  # red (light: protanopes see reds darker)
    (0x48, 0x87, 0xE4),  # blue
)
OWNER_SHAPES: tuple[str, ...] = (
    "circle", "square", "diamond", "triangle", "hexagon", "star", "pentagon",
)
OWNER_COLOR_NAMES: tuple[str, ...] = (
    "orange", "sky blue", "yellow", "green", "pink", "red", "blue",
)


@dataclass(frozen=True)
class OwnerStyle:
    """How one seat is drawn: colour, shape and letter together."""

    seat: int
    color: Color
    shape: str
    letter: str
    color_name: str

    @property
    def ink(self) -> Color:
        """Text colour to draw on top of ``color``."""
        return readable_on(self.color)


def owner_style(seat: int) -> OwnerStyle:
    """The style of seat ``seat`` (0-based); wraps around for very large tables.

    >>> owner_style(0).shape, owner_style(1).shape, owner_style(1).letter
    ('circle', 'square', 'B')
    """
    i = seat % len(OWNER_COLORS)
    return OwnerStyle(
        seat=seat,
        color=OWNER_COLORS[i],
        shape=OWNER_SHAPES[i],
        letter=chr(ord("A") + seat % 26),
        color_name=OWNER_COLOR_NAMES[i],
    )


def luminance(c: Color) -> float:
    """WCAG relative luminance of an sRGB colour."""

    def chan(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (chan(v) for v in c)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Color, b: Color) -> float:
    """WCAG contrast ratio between two colours (1..21).

    >>> round(contrast((0, 0, 0), (255, 255, 255)))
    21
    """
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def readable_on(c: Color) -> Color:
    """Dark ink or white text, whichever contrasts more with ``c``."""
    return INK if contrast(c, INK) >= contrast(c, TEXT) else TEXT


def mix(a: Color, b: Color, t: float) -> Color:
    """Blend ``a`` towards ``b`` by ``t`` (0 = a, 1 = b)."""
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


# --------------------------------------------------------------------------- fonts


class _GlyphCache:
    """Rendered text masks shared by every :class:`CachedFont`, least recently used
    dropped first once they hold over ``limit`` pixels (a board repeats most of its
    labels from one picture to the next: a render pool worker draws them once)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.pixels = 0
        self.masks: OrderedDict[tuple[Any, ...], tuple[Any, tuple[int, int], int]] = (
            OrderedDict())

    def get(self, key: tuple[Any, ...]) -> tuple[Any, tuple[int, int]] | None:
        hit = self.masks.get(key)
        if hit is None:
            return None
        self.masks.move_to_end(key)
        return hit[0], hit[1]

    def clear(self) -> None:
        self.masks.clear()
        self.pixels = 0

    def put(self, key: tuple[Any, ...], mask: Any, offset: tuple[int, int]) -> None:
        w, h = mask.size
        self.masks[key] = (mask, offset, w * h)
        self.pixels += w * h
        while self.pixels > self.limit and self.masks:
            _, (_, _, n) = self.masks.popitem(last=False)
            self.pixels -= n


_GLYPHS = _GlyphCache(limit=24_000_000)  # about 24 MB of 8-bit masks per process


class CachedFont(ImageFont.FreeTypeFont):
    """A FreeType font that remembers text lengths, boxes and rendered masks.

    Pillow measures and rasterises a string anew on every call; a board asks for the
    same few hundred labels at every move. Only plain calls are cached (no OpenType
    features, no colour glyphs); everything else goes to Pillow unchanged, so a cached
    answer is always the one Pillow would give.

    >>> f = font(22)
    >>> f.getlength("Inn") == f.getlength("Inn") > 0
    True
    """

    def __init__(self, path: str, size: int) -> None:
        super().__init__(path, size)
        self._lengths: dict[tuple[Any, ...], float] = {}
        self._boxes: dict[tuple[Any, ...], tuple[float, float, float, float]] = {}

    def getlength(self, text: str | bytes, mode: str = "", direction: str | None = None,
                  features: list[str] | None = None, language: str | None = None) -> float:
        if features is not None or len(self._lengths) > 20_000:
            return super().getlength(text, mode, direction, features, language)
        key = (text, mode, direction, language)
        hit = self._lengths.get(key)
        if hit is None:
            hit = self._lengths[key] = super().getlength(text, mode, direction, None,
                                                         language)
        return hit

    def getbbox(self, text: str | bytes | bytearray, mode: str = "",
                direction: str | None = None, features: list[str] | None = None,
                language: str | None = None, stroke_width: float = 0,
                anchor: str | None = None) -> tuple[float, float, float, float]:
        if features is not None or isinstance(text, bytearray) or len(self._boxes) > 20_000:
            return super().getbbox(text, mode, direction, features, language,
                                   stroke_width, anchor)
        key = (text, mode, direction, language, stroke_width, anchor)
        hit = self._boxes.get(key)
        if hit is None:
            hit = self._boxes[key] = super().getbbox(text, mode, direction, None, language,
                                                     stroke_width, anchor)
        return hit

    def getmask2(self, text: str | bytes, mode: str = "", direction: str | None = None,
                 features: list[str] | None = None, language: str | None = None,
                 stroke_width: float = 0, anchor: str | None = None, ink: int = 0,
                 start: tuple[float, float] | None = None, *args: Any,
                 **kwargs: Any) -> tuple[Any, tuple[int, int]]:
        log = _TEXT_LOG.get()
        if log is not None:
            log.append(DrawnText(self.size, str(text)))
        # Colour glyphs (mode RGBA) are edited in place by ImageDraw: never shared.
        if features is not None or args or mode == "RGBA" or set(kwargs) - {"stroke_filled"}:
            return super().getmask2(text, mode, direction, features, language, stroke_width,
                                    anchor, ink, start, *args, **kwargs)
        # An 8-bit mask does not depend on the ink: only its coverage is drawn.
        key = (self.path, self.size, text, mode, direction, language, stroke_width, anchor,
               ink if mode not in ("L", "") else 0, start, kwargs.get("stroke_filled", False))
        hit = _GLYPHS.get(key)
        if hit is None:
            mask, offset = super().getmask2(text, mode, direction, None, language,
                                            stroke_width, anchor, ink, start, **kwargs)
            _GLYPHS.put(key, mask, offset)
            return mask, offset
        return hit


@dataclass(frozen=True)
class DrawnText:
    """One string a picture drew: its font size in the picture's pixels."""

    size: int
    text: str


_TEXT_LOG: ContextVar[list[DrawnText] | None] = ContextVar("fabletop_text_log", default=None)


@contextmanager
def recording_text() -> Iterator[list[DrawnText]]:
    """Every string drawn with a :func:`font` inside the block, for the picture checks
    (the smallest text a phone shows). Cached parts of pictures hide what they drew:
    call :func:`clear_caches` first.

    >>> img = new_canvas(100, 40)
    >>> with recording_text() as drawn:
    ...     _ = text_center(ImageDraw.Draw(img), (50, 20), "Hi", font(24), TEXT)
    >>> drawn
    [DrawnText(size=24, text='Hi')]
    """
    log: list[DrawnText] = []
    token = _TEXT_LOG.set(log)
    try:
        yield log
    finally:
        _TEXT_LOG.reset(token)


def clear_caches() -> None:
    """Empty every cache of every loaded renderer (functools caches, and the objects
    with a ``clear`` method the renderers keep at module level), so the next picture
    draws everything anew. For the picture checks; the bot never needs it."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "renderers" or name.startswith("renderers.")):
            continue
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()
            elif (type(value).__module__.startswith("renderers")
                  and callable(getattr(value, "clear", None))
                  and not isinstance(value, type)):
                value.clear()


@lru_cache(maxsize=64)
def font(size: int, bold: bool = False, mono: bool = False) -> ImageFont.FreeTypeFont:
    """A DejaVu font shipped in ``renderers/fonts`` (cached per size and style, and
    remembering what it measured and drew: :class:`CachedFont`)."""
    name = "DejaVuSansMono.ttf" if mono else ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    return CachedFont(str(FONT_DIR / name), size)


def text_width(text: str, fnt: ImageFont.FreeTypeFont) -> float:
    return fnt.getlength(text)


def fit_font(text: str, max_width: float, size: int, min_size: int = 12,
             bold: bool = False) -> ImageFont.FreeTypeFont:
    """The largest font not above ``size`` in which ``text`` fits ``max_width``."""
    while size > min_size and font(size, bold).getlength(text) > max_width:
        size -= 1
    return font(size, bold)


def ellipsize(text: str, fnt: ImageFont.FreeTypeFont, max_width: float) -> str:
    """``text`` cut with an ellipsis so it fits ``max_width``.

    >>> ellipsize("Rumpelstiltskin", font(22), 90)
    'Rump…'
    """
    if fnt.getlength(text) <= max_width:
        return text
    while text and fnt.getlength(text + "…") > max_width:
        text = text[:-1]
    return text.rstrip() + "…"


# --------------------------------------------------------------------------- canvas & output


def new_canvas(width: int, height: int, color: Color = BG) -> Image.Image:
    return Image.new("RGB", (int(width), int(height)), color)


PNG_LEVEL = 3
"""zlib level of every picture: measured on a Fairy Tale Inn board (1200x1560, 256
colours), level 3 encodes in 5.8 ms to 97 KiB, level 6 (Pillow's default) in 12.7 ms to
77 KiB and level 9 in 100 ms to 70 KiB; level 1 saves nothing more (5.5 ms) for 117 KiB."""

_FREQUENT_COLOURS_LIMIT = 1 << 14


def _palette_image(colours: Sequence[Color]) -> Image.Image:
    flat = [v for rgb in colours for v in rgb]
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat + flat[:3] * (256 - len(colours)))
    return pal


def _mapped(colours: Sequence[Color], pal: Image.Image) -> list[Color]:
    probe = Image.new("RGB", (len(colours), 1))
    probe.putdata(list(colours))
    return list(probe.quantize(palette=pal, dither=Image.Dither.NONE).convert("RGB")
                .get_flattened_data())  # type: ignore[arg-type]


def palette_of(img: Image.Image, colors: int = 256) -> Image.Image | None:
    """A palette image for ``img`` (RGB) that keeps its flat colours exact, or ``None``
    when it has too many colours (over 16,384) for this to pay.

    Board art is flat colours plus the anti-aliased edges between them (1,500-4,000
    colours in all). The palette takes the most frequent colours first. Pillow maps a
    pixel to the palette entry nearest to the pixel rounded down to a multiple of 4 in
    each channel (its colour cache), so one colour per such cell is kept, and a rarer
    entry that would capture a more frequent one is dropped: the background and every
    flat area stay exact, and the rare edge blends (and any detail thinner than two
    pixels, which the count samples) go to their nearest kept colour. Seen at 400 px
    wide this differs from the drawing by 0.02-0.2 levels on average (an octree
    palette: 0.1-2.1) in about a third of the octree's time. The order (frequency, then
    colour) makes the same pixels always give the same palette.
    """
    w, h = img.size
    # Colours are counted on every other pixel of every other row: any area of 2x2
    # pixels or more is seen, in under half the time of counting them all.
    sample = (img.resize((max(1, w // 2), max(1, h // 2)), Image.Resampling.NEAREST)
              if w * h > 40_000 else img)
    counts = sample.getcolors(_FREQUENT_COLOURS_LIMIT)
    if counts is None:
        return None
    counts.sort(reverse=True)
    kept: list[Color] = []
    cells: set[tuple[int, int, int]] = set()
    for _, rgb in counts:
        cell = (rgb[0] >> 2, rgb[1] >> 2, rgb[2] >> 2)
        if cell not in cells:
            cells.add(cell)
            kept.append(rgb)
            if len(kept) == colors:
                break
    frequency = {rgb: n for n, rgb in counts}
    pal = _palette_image(kept)
    # Dropping an entry changes only where the colours it captured go, so after the
    # first look at every kept colour only those are looked at again (each look builds
    # Pillow's colour cache: the costly part).
    suspects = kept
    for _ in range(3):
        mapped = _mapped(suspects, pal)
        thieves = {got for rgb, got in zip(suspects, mapped, strict=True)
                   if got != rgb and frequency[got] < frequency[rgb]}
        if not thieves:
            break
        kept = [rgb for rgb in kept if rgb not in thieves]
        pal = _palette_image(kept)
        suspects = [rgb for rgb, got in zip(suspects, mapped, strict=True)
                    if got in thieves and rgb not in thieves]
        if not suspects:
            break
    return pal


class FixedPalette:
    """A palette made once for pictures whose colours are known: their flat colours (every
    shape Pillow fills is one colour, unblended) and the anti-aliased edges of text, which
    blend a text colour into the surface under it.

    ``colours`` are kept exact, in priority order; each ``(surface, ink, steps)`` of
    ``blends`` adds ``steps`` colours evenly between the two, for the text's edges to go
    to the nearest. Pillow maps a pixel to the entry nearest to the pixel rounded down to
    a multiple of 4 (:func:`palette_of`), so an entry that would take the pixels of an
    earlier one is left out, and an entry that an earlier one would take (two close steps
    of a gradient: no pixel could keep it) gives way to its colour rounded down, where its
    pixels go, within 3 levels. Quantizing to the palette skips :func:`palette_of` (3-10 ms
    a picture), and Pillow keeps the colour cache it builds on the palette image, so only
    the first picture pays for it: encoding costs the pixel mapping and zlib. A picture
    drawn in colours the palette lacks gets their nearest entry: :meth:`exact` tells which
    colours stay.

    >>> pal = FixedPalette([BG, TEXT], [(BG, TEXT, 3)])
    >>> len(pal.colours), pal.index(TEXT)
    (5, 1)
    >>> img = new_canvas(40, 20)
    >>> _ = text_center(ImageDraw.Draw(img), (20, 10), "Hi", font(14), TEXT)
    >>> max(pal.quantize(img).getcolors())[1] == pal.index(BG)  # (count, entry)
    True
    """

    def __init__(self, colours: Iterable[Color],
                 blends: Iterable[tuple[Color, Color, int]] = ()) -> None:
        entries: list[Color] = []
        seen: set[Color] = set()
        for c in [*colours, *(mix(a, b, k / (n + 1)) for a, b, n in blends
                              for k in range(1, n + 1))]:
            c = (int(c[0]), int(c[1]), int(c[2]))
            if c not in seen:
                seen.add(c)
                entries.append(c)
        pal = _palette_image(entries[:256])
        tried: set[Color] = set()
        for _ in range(12):
            rank = {c: i for i, c in enumerate(entries)}
            swap: dict[Color, Color | None] = {}
            for c, got in zip(entries, _mapped(entries[:256], pal), strict=False):
                if got == c:
                    continue
                if rank[got] > rank[c]:
                    swap[got] = None  # a later entry takes an earlier one's pixels
                    continue
                # Taken by an earlier entry: the cell's corner (the colour rounded down to
                # a multiple of 4) is where Pillow looks it up, so its pixels go to the
                # corner, within 3 levels, unless that takes an earlier entry in turn.
                corner = (c[0] & ~3, c[1] & ~3, c[2] & ~3)
                swap[c] = corner if corner not in seen and corner not in tried else None
                tried.add(corner)
            if not swap:
                break
            entries = [r for c in entries if (r := swap.get(c, c)) is not None]
            seen.update(entries)
            pal = _palette_image(entries[:256])
        if len(entries) > 256:
            raise ValueError(f"{len(entries)} colours: a palette holds 256")
        self.colours: tuple[Color, ...] = tuple(entries)
        self._index = {c: i for i, c in enumerate(self.colours)}
        self._exact = {c for c, got in zip(self.colours, _mapped(self.colours, pal),
                                           strict=True) if got == c}
        self._image = pal  # read-only but for the colour cache Pillow keeps on it
        self._lock = threading.Lock()

    def index(self, colour: Color) -> int:
        """The entry of ``colour`` (KeyError if it is not one), to draw with on a
        :meth:`canvas`."""
        return self._index[tuple(colour)]  # type: ignore[index]

    def exact(self, colour: Color) -> bool:
        """Whether pixels of ``colour`` keep it when quantized."""
        return tuple(colour) in self._exact

    def canvas(self, width: int, height: int, colour: Color = BG) -> Image.Image:
        """A picture in this palette (mode P) filled with ``colour`` (an entry): drawn on
        with :meth:`index` and pasted on with :meth:`quantize`'s images."""
        img = Image.new("P", (int(width), int(height)), self.index(colour))
        img.putpalette(self._image.getpalette() or [])
        return img

    def quantize(self, img: Image.Image, dither: bool = False) -> Image.Image:
        """``img`` (RGB) in this palette (mode P); Floyd-Steinberg dithered if ``dither``
        (for gradients: a flat colour of the palette has no error to spread)."""
        rgb = img if img.mode == "RGB" else img.convert("RGB")
        with self._lock:  # Pillow fills the palette's colour cache as it maps
            return rgb.quantize(palette=self._image, dither=(
                Image.Dither.FLOYDSTEINBERG if dither else Image.Dither.NONE))


def to_png(img: Image.Image, max_colors: int | None = 256, optimize: bool = False,
           palette: FixedPalette | None = None) -> bytes:
    """PNG bytes of ``img``, small and quick to make.

    With ``max_colors`` (the default) the picture is stored with a palette of its most
    frequent colours (:func:`palette_of`; an octree palette if it has over 16,384
    colours), no dithering: about 2.5x smaller than RGB. ``max_colors=None`` keeps full
    RGB (for photo-like art). The zlib level is :data:`PNG_LEVEL`; ``optimize=True``
    spends ~100 ms more for ~3% fewer bytes. The output has no timestamps or metadata,
    so the same pixels always give the same bytes. With ``palette`` (a
    :class:`FixedPalette`) the picture is stored in that palette instead.
    """
    if palette is not None and img.mode != "P":
        img = palette.quantize(img)
    if max_colors is not None and img.mode != "P":
        rgb = img if img.mode == "RGB" else img.convert("RGB")
        pal = palette_of(rgb, max_colors)
        if pal is not None:
            img = rgb.quantize(palette=pal, dither=Image.Dither.NONE)
        else:
            img = rgb.quantize(colors=max_colors, method=Image.Quantize.FASTOCTREE,
                               dither=Image.Dither.NONE)
    buf = io.BytesIO()
    if optimize:
        img.save(buf, format="PNG", optimize=True)
    else:
        img.save(buf, format="PNG", compress_level=PNG_LEVEL)
    return buf.getvalue()


def view_get(obj: Any, name: str, default: Any = None) -> Any:
    """A field of a pydantic view or of its JSON dict form: renderers accept both.

    >>> view_get({"seat": 1}, "seat"), view_get({}, "seat", 0)
    (1, 0)
    """
    if isinstance(obj, dict):
        return obj.get(name, default)
    return getattr(obj, name, default)


def stable_seed(key: str) -> int:
    """A 64-bit number fixed by ``key`` alone (sha256, unlike ``hash`` the same on every
    run), so decorative variation never changes between two renders of one thing."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")


# --------------------------------------------------------------------------- text


def text_center(draw: ImageDraw.ImageDraw, center: Point, text: str,
                fnt: ImageFont.FreeTypeFont, fill: Color,
                stroke: int = 0, stroke_fill: Color | None = None) -> Box:
    """Draw ``text`` centred on ``center`` (both axes); returns its bounding box."""
    draw.text(center, text, font=fnt, fill=fill, anchor="mm",
              stroke_width=stroke, stroke_fill=stroke_fill)
    return draw.textbbox(center, text, font=fnt, anchor="mm", stroke_width=stroke)


def text_left(draw: ImageDraw.ImageDraw, left_middle: Point, text: str,
              fnt: ImageFont.FreeTypeFont, fill: Color) -> Box:
    """Draw ``text`` with its left edge at x and its middle at y; returns its box."""
    draw.text(left_middle, text, font=fnt, fill=fill, anchor="lm")
    return draw.textbbox(left_middle, text, font=fnt, anchor="lm")


def wrap_text(text: str, fnt: ImageFont.FreeTypeFont, max_width: float) -> list[str]:
    """Greedy word wrap to ``max_width`` pixels; over-long words are split."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if fnt.getlength(candidate) <= max_width:
                line = candidate
                continue
            if line:
                lines.append(line)
            while fnt.getlength(word) > max_width and len(word) > 1:
                cut = len(word)
                while cut > 1 and fnt.getlength(word[:cut]) > max_width:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
            line = word
        lines.append(line)
    return lines


def line_height(fnt: ImageFont.FreeTypeFont, spacing: float = 1.25) -> int:
    return round(fnt.size * spacing)


def draw_wrapped(draw: ImageDraw.ImageDraw, top_left: Point, text: str,
                 fnt: ImageFont.FreeTypeFont, fill: Color, max_width: float,
                 spacing: float = 1.25, max_lines: int | None = None) -> float:
    """Draw word-wrapped text from ``top_left``; returns the y just below it."""
    x, y = top_left
    lines = wrap_text(text, fnt, max_width)
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = ellipsize(lines[-1] + " …", fnt, max_width)
    step = line_height(fnt, spacing)
    for line in lines:
        draw.text((x, y), line, font=fnt, fill=fill, anchor="la")
        y += step
    return y


def wrapped_height(text: str, fnt: ImageFont.FreeTypeFont, max_width: float,
                   spacing: float = 1.25) -> int:
    return len(wrap_text(text, fnt, max_width)) * line_height(fnt, spacing)


# --------------------------------------------------------------------------- shapes


def rounded_panel(draw: ImageDraw.ImageDraw, box: Box, fill: Color | None = PANEL,
                  outline: Color | None = None, radius: int = 16, width: int = 2) -> None:
    """A rounded rectangle: the basic card/panel of every layout."""
    draw.rounded_rectangle(box, radius=radius, fill=fill, outline=outline,
                           width=width if outline else 0)


def badge(draw: ImageDraw.ImageDraw, anchor: Point, text: str, fnt: ImageFont.FreeTypeFont,
          fill: Color, text_fill: Color | None = None, pad: tuple[int, int] = (10, 4),
          align: str = "left", outline: Color | None = None) -> Box:
    """A pill with ``text`` inside. ``anchor`` is the pill's left-middle point
    (``align='left'``), centre (``'center'``) or right-middle (``'right'``)."""
    w = fnt.getlength(text) + 2 * pad[0]
    ascent, descent = fnt.getmetrics()
    h = ascent + descent + 2 * pad[1]
    x, y = anchor
    if align == "center":
        x -= w / 2
    elif align == "right":
        x -= w
    box = (x, y - h / 2, x + w, y + h / 2)
    draw.rounded_rectangle(box, radius=h / 2, fill=fill, outline=outline,
                           width=2 if outline else 0)
    text_center(draw, (x + w / 2, y), text, fnt, text_fill or readable_on(fill))
    return box


def regular_polygon_points(center: Point, radius: float, sides: int,
                           rotation: float = 0.0) -> list[Point]:
    """Vertices of a regular polygon; ``rotation`` in degrees, 0 = first vertex up."""
    cx, cy = center
    pts = []
    for k in range(sides):
        a = math.radians(rotation - 90 + 360 * k / sides)
        pts.append((cx + radius * math.cos(a), cy + radius * math.sin(a)))
    return pts


def star_points(center: Point, radius: float, points: int = 5, inner: float = 0.45) -> list[Point]:
    cx, cy = center
    pts = []
    for k in range(points * 2):
        r = radius if k % 2 == 0 else radius * inner
        a = math.radians(-90 + 180 * k / points)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def shape_points(shape: str, center: Point, radius: float) -> list[Point] | None:
    """Polygon vertices for a named shape, or ``None`` for circle/square (drawn natively)."""
    if shape == "diamond":
        return regular_polygon_points(center, radius, 4)
    if shape == "triangle":
        cx, cy = center
        return regular_polygon_points((cx, cy + radius * 0.15), radius * 1.15, 3)
    if shape == "hexagon":
        return regular_polygon_points(center, radius, 6, rotation=30)
    if shape == "pentagon":
        return regular_polygon_points(center, radius * 1.05, 5)
    if shape == "star":
        return star_points(center, radius * 1.15)
    if shape == "octagon":
        return regular_polygon_points(center, radius, 8, rotation=22.5)
    return None


def draw_shape(draw: ImageDraw.ImageDraw, shape: str, center: Point, radius: float,
               fill: Color | None, outline: Color | None = None, width: int = 0) -> None:
    """Draw a named shape (circle, square, diamond, triangle, hexagon, pentagon, star,
    octagon) of about ``radius`` around ``center``."""
    cx, cy = center
    if shape == "circle":
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius),
                     fill=fill, outline=outline, width=width)
        return
    if shape == "square":
        r = radius * 0.92
        draw.rounded_rectangle((cx - r, cy - r, cx + r, cy + r), radius=max(2, r * 0.22),
                               fill=fill, outline=outline, width=width)
        return
    pts = shape_points(shape, center, radius)
    if pts is None:
        raise ValueError(f"unknown shape {shape!r}")
    draw.polygon(pts, fill=fill, outline=outline, width=width)


def owner_marker(draw: ImageDraw.ImageDraw, style: OwnerStyle, center: Point,
                 radius: float, with_letter: bool = True) -> None:
    """The seat's shape in its colour with its letter: the legend of who owns what."""
    draw_shape(draw, style.shape, center, radius, fill=style.color, outline=INK, width=2)
    if with_letter:
        cx, cy = center
        # Triangles hold their letter lower, where the shape is wide.
        dy = radius * 0.18 if style.shape == "triangle" else 0
        text_center(draw, (cx, cy + dy), style.letter,
                    font(max(10, round(radius * 1.05)), bold=True), style.ink)


def coin(draw: ImageDraw.ImageDraw, center: Point, radius: float, label: str = "",
         fill: Color = GOLD) -> None:
    """A gold coin, optionally with a value on it."""
    cx, cy = center
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=fill,
                 outline=GOLD_DARK, width=max(2, round(radius * 0.12)))
    if label:
        text_center(draw, center, label, font(max(10, round(radius * 1.05)), bold=True), INK)


def arrow(draw: ImageDraw.ImageDraw, start: Point, end: Point, fill: Color, width: int = 4,
          head: float = 14) -> None:
    """A straight arrow from ``start`` to ``end``."""
    draw.line((start, end), fill=fill, width=width)
    ang = math.atan2(end[1] - start[1], end[0] - start[0])
    left = (end[0] - head * math.cos(ang - 0.45), end[1] - head * math.sin(ang - 0.45))
    right = (end[0] - head * math.cos(ang + 0.45), end[1] - head * math.sin(ang + 0.45))
    draw.polygon([end, left, right], fill=fill)


# --------------------------------------------------------------------------- general pieces
# Maps (nodes and edges), tracks and cards: shared by the bigger games' renderers.


def draw_edge(draw: ImageDraw.ImageDraw, a: Point, b: Point, fill: Color = GRID,
              width: int = 6) -> None:
    """A map connection between two node centres (round caps)."""
    draw.line((a, b), fill=fill, width=width)
    r = width / 2
    for x, y in (a, b):
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)


def draw_node(draw: ImageDraw.ImageDraw, center: Point, radius: float, label: str,
              fill: Color = PANEL_HI, outline: Color = GRID, label_fill: Color = TEXT,
              label_size: int = 22, label_below: bool = True) -> Box:
    """A map node: a circle with its name below it (or inside it). Returns the label box."""
    cx, cy = center
    draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=fill,
                 outline=outline, width=3)
    fnt = font(label_size, bold=True)
    if label_below:
        pos = (cx, cy + radius + label_size * 0.8)
        return text_center(draw, pos, label, fnt, label_fill, stroke=3, stroke_fill=BG)
    return text_center(draw, center, label, fnt, readable_on(fill))


def draw_track(draw: ImageDraw.ImageDraw, box: Box, spaces: Sequence[str],
               current: int | None = None, marked: Sequence[int] = (),
               fill: Color = PANEL_HI, current_fill: Color = GOLD,
               mark_fill: Color = GOLD) -> list[Box]:
    """A horizontal track of labelled spaces inside ``box``; ``current`` is highlighted,
    ``marked`` spaces get a dot. Returns each space's box (to place pawns on)."""
    x0, y0, x1, y1 = box
    n = max(1, len(spaces))
    gap = 6
    w = (x1 - x0 - gap * (n - 1)) / n
    boxes: list[Box] = []
    fnt = fit_font(max(spaces, key=len) if spaces else "", w - 8, 22, bold=True)
    for i, label in enumerate(spaces):
        bx = x0 + i * (w + gap)
        b = (bx, y0, bx + w, y1)
        is_cur = i == current
        rounded_panel(draw, b, fill=current_fill if is_cur else fill,
                      outline=HIGHLIGHT if is_cur else GRID, radius=10, width=3 if is_cur else 2)
        text_center(draw, (bx + w / 2, (y0 + y1) / 2), label, fnt,
                    INK if is_cur else TEXT)
        if i in marked:
            r = 7
            draw.ellipse((bx + w - 2 * r - 6, y0 + 6, bx + w - 6, y0 + 6 + 2 * r), fill=mark_fill,
                         outline=INK, width=2)
        boxes.append(b)
    return boxes


def draw_card(draw: ImageDraw.ImageDraw, box: Box, title: str, caption: str = "",
              accent: Color = GOLD, fill: Color = PANEL, title_size: int = 24,
              caption_size: int = 22, outline: Color | None = None) -> float:
    """A card: an accent strip, a bold title and a wrapped caption. Returns the y
    below the caption (callers can check it stayed inside ``box``)."""
    x0, y0, x1, y1 = box
    rounded_panel(draw, box, fill=fill, outline=outline or GRID, radius=14)
    draw.rounded_rectangle((x0, y0, x0 + 10, y1), radius=5, fill=accent)
    pad = 18
    tf = font(title_size, bold=True)
    draw.text((x0 + pad, y0 + pad), ellipsize(title, tf, x1 - x0 - 2 * pad), font=tf,
              fill=TEXT, anchor="la")
    y = y0 + pad + line_height(tf)
    if caption:
        y = draw_wrapped(draw, (x0 + pad, y + 2), caption, font(caption_size), MUTED,
                         x1 - x0 - 2 * pad)
    return y
