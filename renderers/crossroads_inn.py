"""Crossroads Inn pictures: the shared table, one inn, every inn, a seat's hand, and text.

Why this shape: Discord shows an image about 400 px wide on a phone, so every picture here
is drawn 1200 px wide with no text under 28 px (9 px once scaled down). One picture cannot
hold the two boards *and* four inns at that size, so the channel picture (``part="table"``)
carries the shared boards (Reputation, Progress with both Investment Tracks, the Kingdom
Cards, the prompt) plus one summary per innkeeper, and each inn is a picture of its own
(``part="inn:<seat>"``, seats counted from 0 like the engine); ``part="inns"`` stacks all
inns small. :func:`render_hand` draws a seat's secrets (Recipes, drafted Basic Inn Tiles)
for a DM or an ephemeral reply only.

Every picture is drawn from a :class:`~engines.crossroads_inn.state.CrossroadsView` (or its
JSON dict) and the static content (names, costs and texts of tiles, cards and tracks): an
image never shows more than its view. Tiles wear their category colour (Furnishings yellow,
Services brown, Workers blue, Special Guests red) *and* name their category in words, and
gossips carry a letter beside their ribbon colour, so nothing is told by colour alone.

>>> from engines.crossroads_inn.state import CrossroadsView
>>> v = CrossroadsView.model_validate(_example_view())
>>> render(v)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> render(v, part="inn:1")[:4] == b"\\x89PNG"
True
>>> render(v, part="hand")
Traceback (most recent call last):
...
ValueError: part must be 'table', 'inns' or 'inn:<seat>' (seat 0..1), not 'hand'
>>> print(text_board(v).splitlines()[0])
Crossroads Inn · Player A's turn · step: Invest
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageChops, ImageDraw

from engines.crossroads_inn.content import CrossroadsContent, load_content
from engines.crossroads_inn.inn import space_name
from engines.crossroads_inn.state import BuiltView, CrossroadsView, PlayerView
from renderers.common import (
    BG,
    DIM,
    GOLD,
    GOLD_DARK,
    GOOD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    OWNER_COLORS,
    PANEL,
    PANEL_HI,
    TEXT,
    Color,
    FixedPalette,
    coin,
    ellipsize,
    font,
    mix,
    new_canvas,
    owner_marker,
    owner_style,
    readable_on,
    regular_polygon_points,
    star_points,
    text_center,
    text_left,
    to_png,
    wrap_text,
)

__all__ = ["PARTS", "render", "render_hand", "text_board"]

# --------------------------------------------------------------------------- geometry
# 1200 px wide, seen at ~400 px on a phone: 28 px is the smallest text (≈9 px there).

W: int = 1200
PAD: int = 20
"""Margin between the picture's edge and its panels."""
INNER: int = W - 2 * PAD
"""Width of a panel."""
SP: int = 16
"""Padding inside a panel."""
CW: int = INNER - 2 * SP
"""Width of a panel's content."""
GAP: int = 14
"""Vertical gap between panels."""

F_MIN: int = 28
F_BODY: int = 30
F_HEAD: int = 36
F_TITLE: int = 44
LH_MIN: int = 35
"""Line height of F_MIN text."""
MARKER_R: int = 27
"""Radius of a seat's marker that carries its letter: ``owner_marker`` draws the letter
at 1.05 times the radius, so 28 px (F_MIN). A smaller marker draws its shape alone."""

PARTS: tuple[str, ...] = ("table", "inns", "inn:<seat>")
"""The pictures :func:`render` draws (``inn:<seat>`` with a seat number from 0)."""

# --------------------------------------------------------------------------- colours

CATEGORY_FILL: dict[str, Color] = {
    "yellow": (0xF2, 0xC9, 0x4C),
    "brown": (0x8B, 0x5A, 0x2E),
    "blue": (0x2F, 0x6B, 0xC4),
    "red": (0xE0, 0x6A, 0x60),  # light red: a dark red and the brown merge when red-blind
}
"""Tile colours by the category's colour name (content: furnishings yellow, services
brown, workers blue, special guests red); text on them is chosen by ``readable_on``."""

GOSSIP_FILL: dict[str, Color] = {
    "economic": (0x2E, 0xA0, 0x5A),  # green ribbon
    "political": (0x4B, 0x84, 0xE6),  # blue ribbon (light enough for 4.5:1 text on it)
    "travellers": (0xF2, 0x63, 0x60),  # red ribbon (light: protanopes see reds darker)
}
GOSSIP_WORD: dict[str, str] = {"economic": "economic", "political": "political",
                               "travellers": "traveller's"}
GOSSIP_LETTER: dict[str, str] = {"economic": "E", "political": "P", "travellers": "T"}

INGREDIENT_FILL: dict[str, Color] = {
    "honey": (0xF0, 0xB4, 0x29),
    "berries": (0xA2, 0x4C, 0xC2),
    "root_spices": (0xB8, 0x73, 0x33),
    "venison": (0x9E, 0x36, 0x36),
    "citrus": (0xFF, 0x9F, 0x1C),
    "black_tears": (0x1E, 0x1F, 0x22),
    "pumpkin": (0xE8, 0x6A, 0x17),
    "herbal_spices": (0x4C, 0xAF, 0x50),
    "epic_cheese": (0xFF, 0xE0, 0x66),
    "fish": (0x4F, 0xB3, 0xC9),
}
GEM: Color = (0x9A, 0xE6, 0xFF)
"""Rarity diamonds."""
BASIC_FILL: Color = (0xE4, 0xDA, 0xC2)
"""Basic Inn Tiles: stone-coloured, none of the four category colours."""
RECIPE_FILL: Color = (0xF3, 0xE3, 0xC0)
BODY_FILL: Color = PANEL_HI
SPECIAL_FILL: Color = mix(PANEL_HI, GOLD, 0.38)
LOSS: Color = (0xFF, 0x8A, 0x80)
"""Drawbacks, debts and missing ingredients (light red, readable on the dark panels)."""
INNER_RING: Color = (0x8E, 0x96, 0xA6)
"""The band framing the six inner-ring spaces of an inn."""

STEP_LABEL: dict[str, str] = {
    "impression": "Impression", "gossip": "Gossips", "invest": "Invest",
    "reserve": "Reserve", "build": "Build", "recipes": "Recipes", "confirm": "Confirm",
}
STEP_ORDER: tuple[str, ...] = tuple(STEP_LABEL)
PHASE_LABEL: dict[str, str] = {
    "draft": "Draft of the Basic Inn Tiles",
    "place_basics": "Placing the Basic Inn Tiles",
    "turn": "",
    "over": "Game over",
}
TIER: dict[int, str] = {1: "I", 2: "II"}

_ink_on: Callable[[Color], Color] = lru_cache(maxsize=128)(readable_on)
"""The readable text colour on a fill (remembered: a few fills, asked at every token)."""

# --------------------------------------------------------------------------- view helpers


def _content() -> CrossroadsContent:
    return load_content()


def _as_view(view: Any) -> CrossroadsView:
    """Renderers take the pydantic view or its JSON dict (as stored by the bot)."""
    return view if isinstance(view, CrossroadsView) else CrossroadsView.model_validate(view)


def _names(v: CrossroadsView, names: Sequence[str] | None) -> list[str]:
    out = [str(n) for n in (names or [])][: v.players]
    out += [f"Player {chr(ord('A') + s)}" for s in range(len(out), v.players)]
    return out


def _space(row: int, col: int) -> str:
    return f"r{row}c{col}"


def _space_label(sid: str) -> str:
    """The space as players count it (from 1), as the buttons name it."""
    return space_name(sid, short=True)


def _grid() -> tuple[int, int]:
    board = _content().boards.inn_board
    return board.columns, board.rows


def _is_corner(row: int, col: int) -> bool:
    cols, rows = _grid()
    return row in (0, rows - 1) and col in (0, cols - 1)


def _is_inner(row: int, col: int) -> bool:
    cols, rows = _grid()
    return 0 < row < rows - 1 and 0 < col < cols - 1


def _basics_unavailable(v: CrossroadsView) -> bool:
    """The view has no table options, so the no-Basic-tiles variant is read off the table:
    in play (or over) and no seat has, or ever had, a Basic Inn Tile on a corner."""
    if v.phase not in ("turn", "over"):
        return False
    cols, rows = _grid()
    corners = [_space(r, c) for r in (0, rows - 1) for c in (0, cols - 1)]
    for p in v.seats:
        for s in corners:
            b = p.inn.get(s)
            if b is not None and (b.basic or b.covers is not None):
                return False
    return all(p.basics_face_down == 0 for p in v.seats)


def owned_ingredients(player: PlayerView) -> Counter[str]:
    """The ingredient tokens lying on a player's tiles (public: they are on the table)."""
    got: Counter[str] = Counter()
    for b in player.inn.values():
        got.update(b.ingredients)
    return got


def _tile_colour(tile_id: str) -> Color:
    c = _content()
    return CATEGORY_FILL[c.colour(c.tile(tile_id))]


def _ingredient_fill(ing: str) -> Color:
    return INGREDIENT_FILL.get(ing, (0xC0, 0xC0, 0xC0))


def _ingredient_name(ing: str) -> str:
    try:
        return _content().ingredient(ing).name
    except ValueError:
        return ing.replace("_", " ")


def _tile_name(tile_id: str) -> str:
    c = _content()
    try:
        return c.tile(tile_id).name
    except ValueError:
        return c.basic_tile(tile_id).name


def _group_name(group: str | None) -> str:
    if group is None:
        return "-"
    try:
        return _content().group(group).name
    except ValueError:
        return group


# --------------------------------------------------------------------------- drawing bits


def _f(size: int = F_MIN, bold: bool = False) -> Any:
    return font(size, bold=bold)


@dataclass(frozen=True)
class _Item:
    """One inline piece of a flowing row (a chip, a token, a marker): its width and how
    to draw it with its left edge at x and its middle at y."""

    width: float
    draw: Callable[[ImageDraw.ImageDraw, float, float], None]
    key: Hashable | None = None
    """What the item looks like, when it draws only in its box (``width`` by ``height``
    about its middle): then a flow on plain panel pastes it (:func:`_paste_item`)."""
    height: float = 0


BREAK: _Item = _Item(-1, lambda d, x, y: None)
"""A forced line break inside a flowing row."""


def _flow_rows(items: Iterable[_Item], width: float, gap: float = 10
               ) -> list[list[tuple[float, _Item]]]:
    """Items placed left to right, wrapped when one does not fit: rows of (x, item)."""
    rows: list[list[tuple[float, _Item]]] = [[]]
    x = 0.0
    for it in items:
        if it.width < 0:
            if rows[-1]:
                rows.append([])
            x = 0.0
            continue
        if rows[-1] and x + it.width > width:
            rows.append([])
            x = 0.0
        rows[-1].append((x, it))
        x += it.width + gap
    return [r for r in rows if r] or [[]]


def _flow_height(items: Iterable[_Item], width: float, row_h: float = 44,
                 gap: float = 10) -> float:
    n = len(_flow_rows(items, width, gap))
    return n * row_h + (n - 1) * 6


def _flow(d: ImageDraw.ImageDraw, x0: float, y0: float, width: float, items: Iterable[_Item],
          row_h: float = 44, gap: float = 10, on: Color | None = None) -> float:
    """Lay items left to right, wrapping to a new row when one does not fit (or at a
    BREAK); returns the y below the last row. ``on``: the flow lies on untouched canvas
    of that colour (a panel's), so its items may be pasted from sprites."""
    y = y0
    canvas = d if on is not None and isinstance(d, _Canvas) else None
    for row in _flow_rows(items, width, gap):
        for x, it in row:
            at = (x0 + x, y + row_h / 2)
            if canvas is None or on is None or not _paste_item(canvas, it, at, on):
                it.draw(d, *at)
        y += row_h + 6
    return y - 6


class _Canvas(ImageDraw.ImageDraw):
    """A panel's ImageDraw, knowing its image (to paste sprites on it)."""

    def __init__(self, img: Image.Image) -> None:
        super().__init__(img)
        self.img = img


def _paste_item(canvas: _Canvas, it: _Item, at: tuple[float, float], bg: Color) -> bool:
    """Paste ``it``, drawn with its left edge and middle at ``at`` on ``bg``, from a sprite;
    False if it has none (then draw it).

    The stat chips of every innkeeper, the turn's steps and the tokens are the same from
    move to move, and each is a rounded box and a text or two. Glyphs are placed to the
    fraction of a pixel and Pillow rounds half to even, so the key holds where in its
    first pixel the item starts and that pixel's parity; the sprite is drawn an even
    number of pixels away."""
    if it.key is None:
        return False
    x, y = at
    left, top = math.floor(x), math.floor(y - it.height / 2)
    dx, dy = x - left, y - top
    key = (it.key, it.width, it.height, dx, dy, left % 2, top % 2, bg)
    hit = _ITEMS.get(key)
    if hit is None:
        m = 2
        ox, oy = m + left % 2, m + top % 2  # the item's first pixel on the sprite's canvas
        box = (ox, oy, ox + math.ceil(dx + it.width) + 1, oy + math.ceil(dy + it.height / 2) + 1)
        sprite = new_canvas(box[2] + m, box[3] + m, bg)
        it.draw(ImageDraw.Draw(sprite), ox + dx, oy + dy)
        hit = _Sprite(sprite.crop(box) if _solid_outside(sprite, box, bg) else None)
        _ITEMS.put(key, hit)
    if hit.img is None:
        return False
    canvas.img.paste(hit.img, (left, top))
    return True


def _pill(text: str, fill: Color, ink: Color | None = None, size: int = F_MIN,
          bold: bool = False, outline: Color | None = None, pad: int = 12) -> _Item:
    fnt = _f(size, bold)
    w = fnt.getlength(text) + 2 * pad

    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        h = size + 12
        d.rounded_rectangle((x, y - h / 2, x + w, y + h / 2), radius=h / 2, fill=fill,
                            outline=outline, width=2 if outline else 0)
        text_center(d, (x + w / 2, y), text, fnt, ink or _ink_on(fill))

    return _Item(w, draw, ("pill", text, fill, ink, size, bold, outline, pad), size + 12)


def _stat(label: str, value: str, value_fill: Color = TEXT) -> _Item:
    """``label value`` on a raised chip: the label muted, the value bold."""
    lf, vf = _f(F_MIN), _f(F_BODY, True)
    w = lf.getlength(label) + 10 + vf.getlength(value) + 24

    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        h = F_BODY + 10
        d.rounded_rectangle((x, y - h / 2, x + w, y + h / 2), radius=10, fill=PANEL_HI)
        tx = x + 12
        text_left(d, (tx, y), label, lf, MUTED)
        text_left(d, (tx + lf.getlength(label) + 10, y), value, vf, value_fill)

    return _Item(w, draw, ("stat", label, value, value_fill), F_BODY + 10)


def _gossip_chip(kind: str, count: int) -> _Item:
    """A gossip count: the ribbon colour *and* its letter (E, P, T)."""
    return _pill(f"{GOSSIP_LETTER[kind]} {count}", GOSSIP_FILL[kind], size=F_MIN, bold=True)


def _lettered(radius: float) -> bool:
    """Whether a marker of ``radius`` is big enough for its letter to read on a phone
    (the letter of ``owner_marker`` is ``round(radius * 1.05)`` px)."""
    return round(radius * 1.05) >= F_MIN


def _marker_item(seat: int, radius: float = MARKER_R) -> _Item:
    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        owner_marker(d, owner_style(seat), (x + radius, y), radius,
                     with_letter=_lettered(radius))

    return _Item(2 * radius, draw, ("marker", seat, radius), 2 * radius)


def _gem(d: ImageDraw.ImageDraw, cx: float, cy: float, r: float = 8) -> None:
    d.polygon(regular_polygon_points((cx, cy), r, 4), fill=GEM, outline=INK)


def _gems_item(rarity: int, r: float = 8) -> _Item:
    w = rarity * (2 * r + 3)

    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        for k in range(rarity):
            _gem(d, x + r + k * (2 * r + 3), y, r)

    return _Item(w, draw)


@lru_cache(maxsize=512)
def _ingredient_items(ing: str, count: int = 1, max_width: float | None = None,
                      bold: bool = True, ink: Color = TEXT, badge: bool = False
                      ) -> tuple[_Item, ...]:
    """An ingredient token: a pill in the ingredient's colour with its name, then ``×n``
    when several lie together (in ``ink``, the text colour of what they lie on). A name
    too wide for ``max_width`` first gets a narrower pill, then is cut (it is never drawn
    under 28 px: it must read on a phone). Remembered: every tile and hand shows tokens
    (the items draw wherever they are put).

    With ``badge``, a pill and its ``×n`` too wide for ``max_width`` side by side (they
    would take two rows) become one: the count is a dark badge over the pill's end (for a
    tile that has no room for a second row)."""
    name = _ingredient_name(ing)
    fill = _ingredient_fill(ing)
    outline = GRID if fill == INGREDIENT_FILL["black_tears"] else INK
    fnt = _f(F_MIN, bold)
    pad = 12
    if max_width is not None:
        if fnt.getlength(name) + 2 * pad > max_width:
            pad = 6
        name = ellipsize(name, fnt, max_width - 2 * pad)
    pill = _pill(name, fill, size=F_MIN, bold=bold, pad=pad, outline=outline)
    if count == 1:
        return (pill,)
    tail = _text_item(f"×{count}", ink, F_MIN, True)
    if not badge or max_width is None or pill.width + 6 + tail.width <= max_width:
        return pill, tail
    badge_f = _f(F_MIN, True)
    digits = str(count)
    r = 16
    bw = max(2 * r, badge_f.getlength(digits) + 12)
    overlap = 5
    room = max_width - bw + overlap
    name = ellipsize(_ingredient_name(ing), fnt, room - 12)
    pill = _pill(name, fill, size=F_MIN, bold=bold, pad=6, outline=outline)

    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        pill.draw(d, x, y)
        bx = x + pill.width - overlap
        d.rounded_rectangle((bx, y - r, bx + bw, y + r), radius=r, fill=INK, outline=TEXT,
                            width=2)
        text_center(d, (bx + bw / 2, y), digits, badge_f, TEXT)

    return (_Item(pill.width - overlap + bw, draw),)


def _coin_item(value: int, r: float = 21) -> _Item:
    """A gold coin with its value in 28 px figures (costs must read on a phone); two
    figures do not fit a coin of that size, so from 10 the coin is drawn as a gold
    lozenge as wide as its figures."""
    fnt = _f(F_MIN, True)
    text = str(value)
    w = 2 * r if value < 10 else fnt.getlength(text) + 20

    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        if value < 10:
            coin(d, (x + r, y), r)
        else:
            d.rounded_rectangle((x, y - r, x + w, y + r), radius=r, fill=GOLD,
                                outline=GOLD_DARK, width=max(2, round(r * 0.12)))
        text_center(d, (x + w / 2, y), text, fnt, INK)

    return _Item(w, draw, ("coin", value, r), 2 * r)


def _gossip_token_item(kind: str, count: int, r: float = 21) -> _Item:
    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        fill = GOSSIP_FILL[kind]
        d.ellipse((x, y - r, x + 2 * r, y + r), fill=fill, outline=INK, width=2)
        text_center(d, (x + r, y), str(count), _f(F_MIN, True), _ink_on(fill))

    return _Item(2 * r, draw)


def _text_item(text: str, fill: Color = MUTED, size: int = F_MIN, bold: bool = False) -> _Item:
    fnt = _f(size, bold)

    def draw(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
        text_left(d, (x, y), text, fnt, fill)

    return _Item(fnt.getlength(text), draw)


@lru_cache(maxsize=1024)
def _wrap(text: str, fnt: Any, width: float, max_lines: int | None = None
          ) -> tuple[str, ...]:
    """``text`` wrapped to ``width`` (remembered: the same names, effects and prompts
    are wrapped at every move)."""
    lines = wrap_text(text, fnt, width)
    if max_lines is not None and len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = ellipsize(lines[-1] + " …", fnt, width)
    return tuple(lines)


def _lines(d: ImageDraw.ImageDraw, x: float, y: float, lines: Sequence[str], fnt: Any,
           fill: Color, lh: float) -> float:
    for line in lines:
        d.text((x, y), line, font=fnt, fill=fill, anchor="la")
        y += lh
    return y


def _door(d: ImageDraw.ImageDraw, x: float, y: float, open_: bool, h: float = 44) -> float:
    """A small door icon with its top-left at (x, y); returns its width."""
    w = h * 0.68
    wood, dark = (0xA0, 0x6A, 0x3A), (0x5A, 0x3B, 0x22)
    d.rectangle((x, y, x + w, y + h), fill=INK if open_ else wood, outline=dark, width=3)
    if open_:
        d.polygon([(x, y), (x + w * 0.55, y + h * 0.12), (x + w * 0.55, y + h * 0.98),
                   (x, y + h)], fill=wood, outline=dark)
    else:
        d.ellipse((x + w * 0.66, y + h * 0.5, x + w * 0.84, y + h * 0.62), fill=GOLD)
    return w


def _name_with(name: str, suffixes: Sequence[str], fnt: Any, room: float,
               keep: int = 16) -> str:
    """``name`` followed by the first of ``suffixes`` (longest first) that leaves room
    for at least ``keep`` characters of the name (or all of it), the name cut to fit:
    a long display name is cut, never the words after it, unless they would leave
    too little of the name (then the last, shortest suffix is used).

    >>> _name_with("Ada", ["'s inn · winner", "'s inn"], font(44, bold=True), 900)
    "Ada's inn · winner"
    >>> _name_with("Rumpelstiltskin of the Deep Wood", ["'s inn · winner", "'s inn"],
    ...            font(44, bold=True), 700)
    "Rumpelstiltskin of th…'s inn"
    """
    for suffix in suffixes:
        cut = ellipsize(name, fnt, room - fnt.getlength(suffix))
        if cut == name or len(cut) - 1 >= min(keep, len(name)):
            return cut + suffix
    suffix = suffixes[-1]
    return ellipsize(name, fnt, room - fnt.getlength(suffix)) + suffix


def _panel_title(d: ImageDraw.ImageDraw, y: float, title: str, right: str = "") -> float:
    text_left(d, (SP, y + F_HEAD * 0.65), title, _f(F_HEAD, True), TEXT)
    if right:
        fnt = _f(F_MIN)
        room = CW - _f(F_HEAD, True).getlength(title) - 30
        text = ellipsize(right, fnt, room)
        d.text((SP + CW, y + F_HEAD * 0.65), text, font=fnt, fill=MUTED, anchor="rm")
    return y + F_HEAD * 1.45


class _Outgrown(Exception):
    """A panel's content went past its trial canvas (see :class:`_Panel`)."""


_TALLEST: dict[tuple[int, int], int] = {}
"""The most rows a panel of each (width, height bound) has used in this process."""
_TRIAL_ROOM: int = 48
"""Rows a trial canvas has beyond the tallest panel of its bound seen so far."""


@dataclass(frozen=True)
class _PanelImage:
    """A drawn section: its canvas, of which the top ``height`` rows count (the rest is
    spare room, never shown)."""

    img: Image.Image
    height: int

    @property
    def width(self) -> int:
        return self.img.width

    def image(self) -> Image.Image:
        """The rows that count, on an image of their own."""
        if self.img.height == self.height:
            return self.img
        return self.img.crop((0, 0, self.img.width, self.height))


class _Panel:
    """A section drawn on its own canvas (PANEL-coloured), cut to what it used and
    pasted with rounded corners: sections can grow without a measuring pass.

    ``height`` bounds the section (it is cut there). Filling the whole bound costs more
    than drawing, and sections use a fraction of it, so the canvas is only as tall as the
    tallest section of that bound seen so far (plus room); a section that outgrows it
    raises :class:`_Outgrown` from :meth:`done` and :func:`_drawn` draws it again on a
    taller canvas. The rows kept are the same either way: those above the cut."""

    def __init__(self, height: int = 2400, width: int = INNER) -> None:
        self.bound = height
        self.key = (width, height)
        tallest = _TALLEST.get(self.key)
        rows = height if tallest is None else min(height, tallest + _TRIAL_ROOM)
        self.img = new_canvas(width, rows, PANEL)
        self.d = _Canvas(self.img)
        self.width = width

    def done(self, y: float) -> _PanelImage:
        h = max(1, min(self.bound, int(y + SP)))
        if h > _TALLEST.get(self.key, 0):
            _TALLEST[self.key] = h
        if h > self.img.height:
            raise _Outgrown
        return _PanelImage(self.img, h)


def _drawn(build: Callable[[], list[_PanelImage]]) -> list[_PanelImage]:
    """The panels ``build`` draws, drawn again while one outgrows its trial canvas (each
    retry has learnt a taller one, up to the panel's bound, so this ends)."""
    while True:
        with contextlib.suppress(_Outgrown):
            return build()


PANEL_RADIUS: int = 18
"""Corner radius of a panel pasted on the picture."""


def _panel_mask(size: tuple[int, int]) -> Image.Image:
    """The rounded shape of a panel: 255 inside, 0 outside (no antialiasing)."""
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, size[0] - 1, size[1] - 1),
                                           radius=PANEL_RADIUS, fill=255)
    return mask


@lru_cache(maxsize=256)
def _panel_corners(size: tuple[int, int]) -> tuple[tuple[tuple[int, int], Image.Image], ...] | None:
    """The four corners of a panel's mask, inverted (255 where the background shows), at
    their offsets in the panel; None when the mask is not solid outside its corners.

    Pasting a whole panel through its mask costs a blend of every pixel, yet the mask is
    only 0 or 255 and only its corners hold any 0: a plain paste and four small pastes of
    the background through the corners give the same pixels. Checked on the real mask, so
    the shortcut never trusts how Pillow draws a rounded rectangle; ~2 KiB an entry."""
    w, h = size
    c = PANEL_RADIUS + 1
    if w < 2 * c or h < 2 * c:
        return None
    mask = _panel_mask(size)
    solid = [(c, 0, w - c, h), (0, c, c, h - c), (w - c, c, w, h - c)]
    if any(mask.crop(box).getextrema() != (255, 255) for box in solid):
        return None
    corners = ((0, 0), (w - c, 0), (0, h - c), (w - c, h - c))
    return tuple(((x, y), mask.crop((x, y, x + c, y + c)).point(lambda v: 255 - v))
                 for x, y in corners)


def _stack(panels: Sequence[_PanelImage], width: int = W) -> Image.Image:
    """The panels one below the other on the background, with rounded corners.

    Painted top to bottom without a first fill of the whole picture and without cutting
    each panel off its canvas: a panel's spare rows land below it, where the gap, the
    next panel or the bottom margin is painted afterwards (pastes are clipped to the
    picture)."""
    total = PAD + sum(p.height + GAP for p in panels) - GAP + PAD
    out = Image.new("RGB", (width, total))  # every pixel is painted below
    out.paste(BG, (0, 0, width, PAD))
    y = PAD
    for p in panels:
        x = (width - p.width) // 2
        size = (p.width, p.height)
        corners = _panel_corners(size)
        if corners is None:
            out.paste(BG, (x, y, x + p.width, y + p.height))
            out.paste(p.image(), (x, y), _panel_mask(size))
        else:
            out.paste(p.img, (x, y))
            for (cx, cy), inverse in corners:
                out.paste(BG, (x + cx, y + cy, x + cx + inverse.width, y + cy + inverse.height),
                          inverse)
        out.paste(BG, (0, y, x, y + p.height))
        out.paste(BG, (x + p.width, y, width, y + p.height))
        y += p.height
        out.paste(BG, (0, y, width, min(total, y + GAP)))
        y += GAP
    out.paste(BG, (0, total - PAD, width, total))
    return out


# --------------------------------------------------------------------------- cards


@dataclass
class _CardText:
    """A card's text laid out for one width: a coloured band (title and subtitle) and a
    body of rows. Measured first so a row of cards can share the tallest height."""

    band_fill: Color
    title: Sequence[str]
    subtitle: str
    body: list[tuple[str, Any]]
    """(kind, payload): ``("text", (lines, colour))``, ``("items", [_Item])``."""

    width: float = 0
    key: tuple[Any, ...] = ()
    """What the card was laid out from: equal keys, equal cards (see :func:`_card_sprite`)."""

    def subtitle_lines(self) -> tuple[Any, tuple[str, ...]]:
        """The subtitle's font and lines: one line, or two when it has a line break
        (``"Special Guests\ntier II"``) or does not fit one, cut below that."""
        return _fit_lines(self.subtitle, self.width - 24, 2, (F_MIN,), bold=False)

    def band_height(self) -> float:
        subtitle = len(self.subtitle_lines()[1]) * LH_MIN if self.subtitle else 0
        return 10 + len(self.title) * 36 + subtitle + 8

    def height(self) -> float:
        h = self.band_height() + 6
        for kind, payload in self.body:
            if kind == "text":
                h += len(payload[0]) * LH_MIN + 4
            else:
                h += _flow_height(payload, self.width - 24, 44, 8) + 6
        return h + 8


def _tile_card_text(tile_id: str, w: float) -> _CardText:
    c = _content()
    t = c.tile(tile_id)
    inner = w - 24
    band = CATEGORY_FILL[c.colour(t)]
    title = _wrap(t.name, _f(F_BODY, True), inner, 2)
    category = c.category(t.category).name
    sub = f"{category} · tier {TIER[t.tier]}"
    if _f(F_MIN).getlength(sub) > inner:
        sub = f"{category} · {TIER[t.tier]}"
    if _f(F_MIN).getlength(sub) > inner:  # Special Guests on a narrow card: two lines
        sub = f"{category}\ntier {TIER[t.tier]}"
    body: list[tuple[str, Any]] = []
    cost: list[_Item] = [_coin_item(t.cost.guldens)]
    if t.cost.or_gossips is not None:
        alt = t.cost.or_gossips
        rest = [_gossip_token_item(alt.gossip, alt.count),
                _text_item(GOSSIP_WORD[alt.gossip], TEXT)]
        cost.append(_text_item("or", MUTED))
        if sum(i.width for i in cost + rest) + 8 * len(cost + rest) > inner:
            cost.append(BREAK)  # "3 or" / "(2) traveller's": the word is never cut
        cost += rest
    body.append(("items", cost))
    body.append(("text", (_wrap(t.effect.text, _f(F_MIN), inner), TEXT)))
    if t.ingredient:
        rarity = c.ingredient(t.ingredient).rarity
        pills = _ingredient_items(t.ingredient, max_width=inner, bold=False)
        body.append(("items", [*pills, _gems_item(rarity, 7)]))
    if t.drawback is not None:
        body.append(("text", (_wrap("Drawback: " + t.drawback.text, _f(F_MIN), inner), LOSS)))
    return _CardText(band, title, sub, body, w, ("tile", tile_id, w))


def _basic_card_text(tile_id: str, w: float) -> _CardText:
    b = _content().basic_tile(tile_id)
    inner = w - 24
    fnt = _f(F_MIN)
    gain = b.on_build.text if b.on_build else "nothing"
    body: list[tuple[str, Any]] = [
        ("text", (_wrap("When placed: " + gain, fnt, inner), TEXT)),
        ("text", (_wrap("If covered: " + b.on_cover.text, fnt, inner), MUTED)),
    ]
    return _CardText(BASIC_FILL, _wrap(b.name, _f(F_BODY, True), inner, 2), "Basic Inn Tile",
                     body, w, ("basic", tile_id, w))


def _recipe_card_text(recipe_id: str, w: float, owned: Counter[str] | None) -> _CardText:
    c = _content()
    r = c.recipe(recipe_id)
    inner = w - 24
    body: list[tuple[str, Any]] = []
    for ing in r.ingredients:
        rarity = c.ingredient(ing).rarity
        row: list[_Item] = [_gems_item(rarity, 10),
                            *_ingredient_items(ing, max_width=inner - 200)]
        if owned is not None:
            have = owned.get(ing, 0) > 0
            row.append(_text_item("✓ have" if have else "✗ missing", GOOD if have else LOSS,
                                  bold=have))
        body.append(("items", row))
    body.append(("text", (_wrap("Reward: " + r.reward.text, _f(F_MIN), inner), GOLD)))
    ready = owned is not None and all(owned.get(i, 0) > 0 for i in r.ingredients)
    sub = ("Advanced Recipe" if r.advanced else "Recipe") + (" · ready to cook!" if ready
                                                             else "")
    have = None if owned is None else tuple(owned.get(i, 0) > 0 for i in r.ingredients)
    return _CardText(RECIPE_FILL, _wrap(r.name, _f(F_BODY, True), inner, 2), sub, body, w,
                     ("recipe", recipe_id, w, have))


def _draw_card(d: ImageDraw.ImageDraw, x: float, y: float, w: float, h: float,
               card: _CardText, outline: Color | None = None, tag: str = "") -> None:
    """Draw a measured card in the box (x, y, x + w, y + h)."""
    band_h = card.band_height()
    d.rounded_rectangle((x, y, x + w, y + h), radius=14, fill=BODY_FILL,
                        outline=outline or GRID, width=4 if outline else 2)
    d.rounded_rectangle((x, y, x + w, y + band_h), radius=14, fill=card.band_fill)
    d.rectangle((x, y + band_h - 14, x + w, y + band_h), fill=card.band_fill)
    ink = _ink_on(card.band_fill)
    ty = _lines(d, x + 12, y + 10, card.title, _f(F_BODY, True), ink, 36)
    if card.subtitle:
        sf, sl = card.subtitle_lines()
        _lines(d, x + 12, ty, sl, sf, mix(ink, card.band_fill, 0.2), LH_MIN)
    if tag:
        badge_f = _f(F_MIN, True)
        tw = badge_f.getlength(tag) + 20
        d.rounded_rectangle((x + w - tw - 8, y + 8, x + w - 8, y + 46), radius=12, fill=INK)
        text_center(d, (x + w - tw / 2 - 8, y + 27), tag, badge_f, TEXT)
    by = y + band_h + 6
    for kind, payload in card.body:
        if kind == "text":
            lines, colour = payload
            by = _lines(d, x + 12, by, lines, _f(F_MIN), colour, LH_MIN) + 4
        else:
            by = _flow(d, x + 12, by, w - 24, payload, row_h=44, gap=8) + 6
    if outline:
        d.rounded_rectangle((x, y, x + w, y + h), radius=14, outline=outline, width=4)


_CARD_MARGIN: int = 8
"""Blank rows and columns around a card sprite while it is drawn: proof nothing spills."""


@dataclass(frozen=True)
class _Sprite:
    """A piece drawn once: its pixels, or None when it draws outside its box (then it is
    drawn in place every time), and the box of all it draws, in pixels from the piece's
    top left pixel (end exclusive)."""

    img: Image.Image | None
    reach: tuple[int, int, int, int] = (0, 0, 0, 0)

    def nbytes(self) -> int:
        if self.img is None:
            return 512  # the key and the entry
        return self.img.width * self.img.height * (1 if self.img.mode in ("L", "P") else 4)


class _SpriteCache:
    """A thread-safe LRU of sprites bounded by the bytes Pillow holds for their images.
    Cached images are only ever pasted from, never drawn on."""

    def __init__(self, max_bytes: int) -> None:
        self._items: OrderedDict[Hashable, _Sprite] = OrderedDict()
        self._bytes = 0
        self._max = max_bytes
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0

    def get(self, key: Hashable) -> _Sprite | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
            return hit

    def put(self, key: Hashable, sprite: _Sprite) -> None:
        with self._lock:
            if key in self._items:
                return
            self._items[key] = sprite
            self._bytes += sprite.nbytes()
            while self._bytes > self._max and len(self._items) > 1:
                _, old = self._items.popitem(last=False)
                self._bytes -= old.nbytes()


def _compact(img: Image.Image) -> Image.Image:
    """``img`` in a palette of its own colours when it has at most 256 (a quarter of the
    memory, the same pixels once pasted on RGB), else ``img``."""
    if img.getcolors(256) is None:
        return img
    # Median cut gives each colour a palette entry of its own when there are few enough
    # (a given palette would be matched through a coarser colour cube): checked anyway.
    small = img.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    return small if small.convert("RGB").tobytes() == img.tobytes() else img


_ITEMS = _SpriteCache(3 << 20)
"""Chips, pills and tokens of flows (:func:`_paste_item`): 10-40 KB each."""
_CARDS = _SpriteCache(6 << 20)
"""Drawn cards (:func:`_card_sprite`): 0.3-0.7 MB each, a track shows eight."""


def _solid_outside(img: Image.Image, box: tuple[int, int, int, int], colour: Color) -> bool:
    """Whether every pixel of ``img`` outside ``box`` is ``colour``."""
    x0, y0, x1, y1 = box
    w, h = img.size
    strips = [(0, 0, w, y0), (0, y1, w, h), (0, y0, x0, y1), (x1, y0, w, y1)]
    for strip in strips:
        if strip[0] < strip[2] and strip[1] < strip[3]:
            colours = img.crop(strip).getcolors(1)
            if colours is None or colours[0][1] != colour:
                return False
    return True


def _card_sprite(card: _CardText, w: float, h: float, outline: Color | None, tag: str,
                 at: tuple[int, int], dy: float) -> Image.Image | None:
    """The card drawn in the box (0, dy, w, dy + h) on the PANEL colour, to paste with its
    top left at the pixel ``at``; None if it draws outside its box (then it is drawn in
    place).

    Cards are the most text of a picture and the same tiles stay on the track (shifting
    along it) and in the inns from move to move. The sprite is drawn an even number of
    pixels away from where the card goes (Pillow rounds some coordinates half to even),
    so the parity of ``at`` is part of the key, and so is ``dy``, the fraction of a pixel
    of the card's top (glyphs are placed to the fraction)."""
    px, py = at[0] % 2, at[1] % 2
    key = (card.key, w, h, outline, tag, px, py, dy)
    hit = _CARDS.get(key)
    if hit is None:
        m = _CARD_MARGIN
        box = (m + px, m + py, m + px + math.ceil(w) + 1, m + py + math.ceil(dy + h) + 1)
        canvas = new_canvas(box[2] + m, box[3] + m, PANEL)
        _draw_card(ImageDraw.Draw(canvas), box[0], box[1] + dy, w, h, card, outline, tag)
        hit = _Sprite(canvas.crop(box) if _solid_outside(canvas, box, PANEL) else None)
        _CARDS.put(key, hit)
    return hit.img


def _card_row(img: Image.Image, x: float, y: float, width: float,
              cards: Sequence[_CardText | None], per_row: int, gap: float = 12,
              outlines: Sequence[Color | None] | None = None,
              tags: Sequence[str] | None = None, empty_h: float = 120,
              empty_label: str = "empty") -> float:
    """Cards ``per_row`` to a row (None: an empty slot); returns the y below. Each card
    sits on untouched panel, so a sprite of it drawn on the panel colour is the same."""
    d = ImageDraw.Draw(img)
    w = (width - gap * (per_row - 1)) / per_row
    for start in range(0, len(cards), per_row):
        row = cards[start:start + per_row]
        h = max([c.height() for c in row if c is not None] or [empty_h])
        for k, card in enumerate(row):
            cx = x + k * (w + gap)
            if card is None:
                d.rounded_rectangle((cx, y, cx + w, y + h), radius=14, fill=PANEL,
                                    outline=GRID, width=2)
                text_center(d, (cx + w / 2, y + h / 2), empty_label, _f(F_MIN), DIM)
                continue
            i = start + k
            outline = outlines[i] if outlines else None
            tag = tags[i] if tags else ""
            at = (int(cx), math.floor(y))
            sprite = (_card_sprite(card, w, h, outline, tag, at, y - at[1])
                      if float(cx).is_integer() else None)
            if sprite is None:
                _draw_card(d, cx, y, w, h, card, outline=outline, tag=tag)
            else:
                img.paste(sprite, at)
        y += h + gap
    return y - gap


# --------------------------------------------------------------------------- table panels


def _status_panel(v: CrossroadsView, names: list[str]) -> _PanelImage:
    p = _Panel(1400)
    d = p.d
    y = 12.0
    text_left(d, (SP, y + 26), "Crossroads Inn", _f(F_TITLE, True), TEXT)
    phase = PHASE_LABEL.get(v.phase, v.phase)
    if v.phase == "draft" and v.draft_round:
        phase += f" · round {v.draft_round}"  # the engine counts rounds from 1
    if phase:
        fnt = _f(F_BODY, True)
        room = CW - _f(F_TITLE, True).getlength("Crossroads Inn") - 40
        d.text((SP + CW, y + 26), ellipsize(phase, fnt, room), font=fnt, fill=GOLD, anchor="rm")
    y += 66
    if v.active is not None and v.phase == "turn":
        st = owner_style(v.active)
        owner_marker(d, st, (SP + MARKER_R, y + MARKER_R), MARKER_R)
        who = f"{names[v.active]}'s turn"
        turn_no = v.seats[v.active].turns + 1
        tx = SP + 2 * MARKER_R + 12
        text_left(d, (tx, y + MARKER_R), ellipsize(f"{who} (turn {turn_no})", _f(F_BODY, True),
                                                   SP + CW - tx), _f(F_BODY, True), TEXT)
        y += 2 * MARKER_R + 8
        cur = STEP_ORDER.index(v.step) if v.step in STEP_ORDER else -1
        items = []
        for k, step in enumerate(STEP_ORDER):
            label = STEP_LABEL[step]
            if k == cur:
                items.append(_pill(label, GOLD, INK, bold=True))
            elif k < cur:
                items.append(_pill(label, PANEL, DIM, outline=GRID))
            else:
                items.append(_pill(label, PANEL_HI, MUTED))
        y = _flow(d, SP, y, CW, items, row_h=42, gap=8, on=PANEL) + 8
        facts: list[_Item] = [_stat("Buys left", str(v.buys_left))]
        facts.append(_stat("Impression", "done" if v.impression_done else "open"))
        facts.append(_stat("Reserved", "yes" if v.reserved_this_turn else "no"))
        if v.gossips_used:
            used = ", ".join(GOSSIP_LETTER.get(g, g) for g in v.gossips_used)
            facts.append(_stat("Gossips used", used))
        y = _flow(d, SP, y, CW, facts, row_h=42, gap=10, on=PANEL) + 10
    y = _lines(d, SP, y, _wrap(v.prompt, _f(F_BODY), CW), _f(F_BODY), TEXT, 38) + 4
    if v.pending is not None and v.pending.prompt and v.pending.prompt != v.prompt:
        line = f"Waiting for {names[v.pending.seat]}: {v.pending.prompt}"
        y = _lines(d, SP, y, _wrap(line, _f(F_MIN), CW), _f(F_MIN), GOLD, LH_MIN) + 4
    if v.last_roll is not None:
        text = f"Last die roll: {v.last_roll}"
        with contextlib.suppress(ValueError):
            text += f" ({_content().die_face(v.last_roll).text})"
        y = _lines(d, SP, y, _wrap(text, _f(F_MIN), CW), _f(F_MIN), MUTED, LH_MIN) + 4
    if v.announced_by is not None:
        text = _announced(v, names)
        y = _lines(d, SP, y, _wrap(text, _f(F_MIN), CW), _f(F_MIN), GOLD, LH_MIN) + 4
    if v.phase == "over" and v.winners:
        text = "Winner: " + " and ".join(names[s] for s in v.winners)
        y = _lines(d, SP, y, _wrap(text, _f(F_BODY, True), CW), _f(F_BODY, True), GOOD, 38)
    return p.done(y)


def _announced(v: CrossroadsView, names: Sequence[str]) -> str:
    """Who announced the end, and while the game goes on, who still plays a last turn
    (once it is over, nobody does: saying so would read as if somebody were waiting)."""
    who = names[v.announced_by] if v.announced_by is not None else ""
    if v.phase == "over" or not v.last_turns:
        return f"{who} announced the end of the game."
    return f"{who} announced the end. Last turns: {', '.join(names[s] for s in v.last_turns)}."


def _player_items(v: CrossroadsView, pv: PlayerView) -> list[_Item]:
    items = [_stat("Revenue", str(pv.revenue)), _stat("Chest", str(pv.chest)),
             _stat("Pouch", str(pv.pouch)),
             _stat("Debts", str(pv.debts), LOSS if pv.debts else TEXT)]
    items += [_gossip_chip(g, pv.gossips.get(g, 0)) for g in GOSSIP_FILL]
    items += [_stat("Reserved", str(len(pv.reserved))),
              _stat("Inn", f"{pv.covered}/16"),
              _stat("Recipes", str(pv.recipes)), _stat("Cooked", str(len(pv.completed)))]
    if v.phase in ("draft", "place_basics"):
        items.append(_stat("Basic tiles held", str(pv.basics_face_down)))
    return items


def _players_panel(v: CrossroadsView, names: list[str]) -> _PanelImage:
    p = _Panel(300 * v.players + 200)
    d = p.d
    y = _panel_title(d, 10, "Innkeepers", "E economic · P political · T traveller's gossips")
    for pv in v.seats:
        s = pv.seat
        active = s == v.active and v.phase == "turn"
        top = y
        mid = y + 26
        owner_marker(d, owner_style(s), (SP + MARKER_R, mid), MARKER_R)
        indent = 2 * MARKER_R + 10
        nf = _f(F_HEAD if active else F_BODY + 2, True)
        right = f"Prestige {pv.prestige}"
        if pv.score is not None:
            right = f"Score {pv.score}"
        rf = _f(F_HEAD, True)
        rw = rf.getlength(right) + 28
        suffix = ("  ◀ turn" if active else "") + ("  (winner)" if s in v.winners else "")
        label = _name_with(names[s], [suffix], nf, CW - indent - 14 - rw)
        text_left(d, (SP + indent, mid), label, nf, GOLD if active else TEXT)
        d.rounded_rectangle((SP + CW - rw, mid - 22, SP + CW, mid + 22), radius=22, fill=GOLD)
        text_center(d, (SP + CW - rw / 2, mid), right, rf, INK)
        y += 58
        y = _flow(d, SP + indent, y, CW - indent, _player_items(v, pv), row_h=42, gap=8,
                  on=PANEL) + 12
        if active:
            d.rounded_rectangle((SP - 8, top - 6, SP + CW + 8, y - 4), radius=14,
                                outline=GOLD, width=3)
        y += 8
    return p.done(y - 8)


@dataclass(frozen=True)
class _RepSpace:
    """Where one space of a Reputation track takes its tokens."""

    group: str
    space: int
    special: bool
    star: tuple[float, float]
    """The centre of the star an empty gold space shows."""
    tokens: tuple[float, float, float, float]
    """The box the players' tokens share."""


@lru_cache(maxsize=1)
def _reputation_board() -> tuple[Image.Image, tuple[_RepSpace, ...]]:
    """The Reputation Board without its tokens, and where they go. It depends on the
    content only, so it is drawn once (~3 MB); each picture draws its tokens (and the
    stars of the empty gold spaces) on a copy. Every token stays inside its own space, so
    drawing them after all spaces gives the pixels of drawing them space by space."""
    c = _content()
    rep = c.boards.reputation
    spaces = list(range(rep.min, rep.max + 1))
    groups = c.groups
    uniform = len({tuple(s.prestige for s in g.track) for g in groups}) == 1
    p = _Panel(300 + 140 * len(groups))
    d = p.d
    y = _panel_title(d, 10, "Reputation Board")
    label_w = 176
    cell_gap = 4
    cell_w = (CW - label_w - cell_gap * (len(spaces) - 1)) / len(spaces)
    row_h = 74 if uniform else 104

    def cx(i: int) -> float:
        return SP + label_w + i * (cell_w + cell_gap)

    # The header: space numbers, and the Prestige each space scores when all agree.
    text_left(d, (SP, y + 16), "Space", _f(F_MIN), MUTED)
    for i, s in enumerate(spaces):
        text_center(d, (cx(i) + cell_w / 2, y + 16), str(s), _f(F_MIN, True), TEXT)
    y += 38
    if uniform:
        text_left(d, (SP, y + 16), "Prestige", _f(F_MIN), GOLD)
        for i, sp in enumerate(groups[0].track):
            text_center(d, (cx(i) + cell_w / 2, y + 16), _signed(sp.prestige),
                        _f(F_MIN, True), GOLD)
        y += 40
    where: list[_RepSpace] = []
    for g in groups:
        text_left(d, (SP, y + row_h / 2), ellipsize(g.name, _f(F_MIN, True), label_w - 6),
                  _f(F_MIN, True), TEXT)
        for i, s in enumerate(spaces):
            box = (cx(i), y, cx(i) + cell_w, y + row_h)
            special = s == g.special_action_space
            d.rounded_rectangle(box, radius=8, fill=SPECIAL_FILL if special else PANEL_HI,
                                outline=GOLD if special else GRID, width=3 if special else 1)
            top = y
            if not uniform:
                text_center(d, (box[0] + cell_w / 2, y + 16), _signed(g.prestige_at(s)),
                            _f(F_MIN, True), GOLD)
                top = y + 30
            mid_y = (top + y + row_h) / 2
            where.append(_RepSpace(g.id, s, special, (box[0] + cell_w / 2, mid_y),
                                   (box[0] + 3, top + 2, box[2] - 3, y + row_h - 2)))
        y += row_h + 6
    # The legend: what the gold spaces and the ends of the tracks do.
    items = [_Item(36, lambda dd, x, yy: dd.polygon(star_points((x + 18, yy), 17),
                                                      fill=GOLD)),
             _text_item("gold space: Special Action", TEXT),
             _text_item("· below 0: −1 Prestige a space · past 12: Special Action", MUTED)]
    y = _flow(d, SP, y + 4, CW, items, row_h=40, gap=10)
    return p.done(y).image(), tuple(where)


def _reputation_panel(v: CrossroadsView) -> _PanelImage:
    c = _content()
    rep = c.boards.reputation
    board, where = _reputation_board()
    img = board.copy()
    d = ImageDraw.Draw(img)
    here: dict[tuple[str, int], list[int]] = {}
    for g in c.groups:
        for pv in v.seats:
            at = max(rep.min, min(rep.max, pv.reputation.get(g.id, g.start)))
            here.setdefault((g.id, at), []).append(pv.seat)
    for sp in where:
        seats = here.get((sp.group, sp.space), [])
        if sp.special and not seats:
            d.polygon(star_points(sp.star, 18), fill=GOLD)
        _markers(d, seats, sp.tokens)
    return _PanelImage(img, img.height)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else ("−" + str(-n) if n < 0 else "0")


def _markers(d: ImageDraw.ImageDraw, seats: Sequence[int], box: tuple[float, ...]) -> None:
    """Player tokens sharing one space: one large, two side by side, three or four 2x2.
    A lone token carries its seat's letter; shared ones are too small for a letter that
    reads on a phone and show their seat's shape and colour alone (the Innkeepers panel
    above is their legend)."""
    if not seats:
        return
    x0, y0, x1, y1 = box
    w, h = x1 - x0, y1 - y0
    n = len(seats)
    # Shared spaces overlap their tokens a little rather than shrink them to dots.
    if n == 1:
        spots, r = [(0.5, 0.5)], min(w, h) * 0.42
    elif n == 2:
        spots, r = [(0.29, 0.5), (0.71, 0.5)], min(w / 3.6, h * 0.36)
    else:
        spots = [(0.29, 0.28), (0.71, 0.28), (0.29, 0.72), (0.71, 0.72)]
        r = min(w / 3.8, h / 3.8)
    for k, seat in enumerate(seats[:4]):
        fx, fy = spots[k % len(spots)]
        owner_marker(d, owner_style(seat), (x0 + fx * w, y0 + fy * h), r,
                     with_letter=_lettered(r))
    if n > 4:
        text_center(d, (x1 - 18, y1 - 16), f"+{n - 4}", _f(F_MIN, True), TEXT,
                    stroke=3, stroke_fill=INK)


def _progress_panel(v: CrossroadsView) -> _PanelImage:
    p = _Panel(2200)
    d = p.d
    y = _panel_title(d, 10, "Progress Board",
                     f"Recipe deck {v.deck} · Recipe discard {v.recipe_discard}")
    items = [_text_item("Prestige:", MUTED)]
    for pv in sorted(v.seats, key=lambda q: (-q.prestige, q.seat)):
        items += [_marker_item(pv.seat), _text_item(str(pv.prestige), TEXT, F_BODY, True)]
    y = _flow(d, SP, y, CW, items, row_h=2 * MARKER_R + 2, gap=10, on=PANEL) + 6
    hint = "New tiles enter on the left; the tile on the far right is discarded."
    y = _lines(d, SP, y, _wrap(hint, _f(F_MIN), CW), _f(F_MIN), MUTED, LH_MIN) + 6
    for tier in (1, 2):
        k = tier - 1
        track = v.tracks[k] if k < len(v.tracks) else []
        pouch = v.pouches[k] if k < len(v.pouches) else 0
        pile = v.discards[k] if k < len(v.discards) else []
        label = f"Tier {TIER[tier]} ({'silver' if tier == 1 else 'gold'})"
        text_left(d, (SP, y + 20), label, _f(F_BODY + 2, True), TEXT)
        info = f"pouch {pouch} · discard {len(pile)}"
        if pile:
            info += f", top: {_tile_name(pile[-1])}"
        lf = _f(F_BODY + 2, True)
        d.text((SP + CW, y + 20), ellipsize(info, _f(F_MIN), CW - lf.getlength(label) - 24),
               font=_f(F_MIN), fill=MUTED, anchor="rm")
        y += 48
        slots = list(track) + [None] * max(0, 4 - len(track))
        w = (CW - 12 * 3) / 4
        cards = [_tile_card_text(t, w) if t else None for t in slots]
        y = _card_row(p.img, SP, y, CW, cards, 4) + 16
    return p.done(y - 10)


def _kingdom_panel(v: CrossroadsView) -> _PanelImage:
    c = _content()
    p = _Panel(300 + 320 * max(1, len(v.kingdom)))
    d = p.d
    y = _panel_title(d, 10, "Kingdom Cards")
    if not v.kingdom:
        text_left(d, (SP, y + 16), "None in play: no extra building rules.", _f(F_MIN), MUTED)
        return p.done(y + 34)
    for n in v.kingdom:
        try:
            k = c.kingdom_card(n)
            title, rule = k.title, k.rule_text
        except ValueError:
            title, rule = "Unknown card", ""
        top = y
        num = f"#{n}"
        nf = _f(F_BODY, True)
        nw = nf.getlength(num) + 24
        d.rounded_rectangle((SP, y, SP + nw, y + 42), radius=21, fill=GOLD)
        text_center(d, (SP + nw / 2, y + 21), num, nf, INK)
        tx = SP + nw + 14
        tl = _wrap(title, _f(F_BODY, True), CW - nw - 14, 2)
        y = _lines(d, tx, y + 3, tl, _f(F_BODY, True), TEXT, 38)
        y = _lines(d, tx, y + 2, _wrap(rule, _f(F_MIN), CW - nw - 14), _f(F_MIN), MUTED,
                   LH_MIN)
        if n == 8 and v.line_pool:
            items = [_text_item("On the card:", MUTED)]
            for g in GOSSIP_FILL:
                if g in v.line_pool:
                    items.append(_gossip_chip(g, v.line_pool[g]))
            if "guldens" in v.line_pool:
                items += [_coin_item(v.line_pool["guldens"]), _text_item("guldens", TEXT)]
            y = _flow(d, tx, y + 4, CW - nw - 14, items, row_h=42, gap=8, on=PANEL)
        y = max(y, top + 46) + 14
    return p.done(y - 14)


# --------------------------------------------------------------------------- inns


@lru_cache(maxsize=1024)
def _fit_lines(text: str, width: float, max_lines: int, sizes: tuple[int, ...] = (30, 28),
               bold: bool = True) -> tuple[Any, tuple[str, ...]]:
    """The largest font of ``sizes`` in which ``text`` wraps into ``max_lines`` lines
    without splitting a word; failing that, the smallest, cut with an ellipsis.
    Remembered: each tile on an inn fits its name and category at every move."""
    for size in sizes:
        fnt = _f(size, bold)
        lines = wrap_text(text, fnt, width)
        if len(lines) <= max_lines and all(fnt.getlength(w) <= width for w in text.split()):
            return fnt, tuple(lines)
    fnt = _f(sizes[-1], bold)
    return fnt, _wrap(text, fnt, width, max_lines)


GRID_GAP: int = 10
"""Gap between the spaces of an inn's grid."""
GRID_X: int = SP - 8
"""Left edge of an inn's grid: it reaches 8 px into the panel's padding on each side."""
GRID_W: int = CW + 16
"""Width of an inn's grid: five spaces of 220.8 px."""
CELL_PAD: int = 6
"""Left and right padding of the text on a tile: the 208.8 px left between them hold
the longest word of a tile's name ("Housekeeper", 207 px in 28 px bold) and the longest
category ("Special Guests", 207 px in 28 px), whole: a tile's text never shrinks under
28 px (9 px on a phone)."""
CELL_H: int = 236
"""Height of a space of one inn's picture: a tile's name (two lines), its category, a
row of tokens, a row of badges ("new", "#8") and the strip of the Basic Inn Tile it
covers, all in 28 px."""
SMALL_CELL_H: int = 156
"""Height of a space in the picture of every inn: a tile's name (two lines), a row of
tokens and the "#8" badge below them."""


def _inn_grid(img: Image.Image, x0: float, y0: float, width: float, pv: PlayerView,
              v: CrossroadsView, cell_h: float, compact: bool) -> float:
    """The 5x4 grid of one inn, the inner ring framed; returns the y below it. Drawn on
    untouched panel from ``y0`` down (the fallback below repaints that).

    Empty spaces are pasted from sprites drawn on the ring alone (:func:`_cell_sprite`):
    the pixels of drawing them in place, as long as nothing drawn before reached into
    their box. Tiles, and spaces that draw outside their box (the hatching of an
    unavailable corner), are drawn in place, in order; if one of them reaches into
    another space's box (tokens running past a tile), the grid is drawn again the plain
    way."""
    rows = _grid()[1]
    bottom = y0 + rows * (cell_h + GRID_GAP) - GRID_GAP
    unavailable = _basics_unavailable(v)
    new_here = set(v.built) if v.active == pv.seat and v.phase == "turn" else set()
    d = ImageDraw.Draw(img)
    _inner_ring(d, x0, y0, width, cell_h)
    if float(y0).is_integer():
        c = _content()
        layout = (x0, width, cell_h, compact, unavailable)
        cells = _cell_boxes(x0, y0, width, cell_h)
        regions = [_cell_region(box) for _, _, box in cells]
        fits = True
        for k, ((r, col, box), region) in enumerate(zip(cells, regions, strict=True)):
            sid = _space(r, col)
            b = pv.inn.get(sid)
            new = sid in new_here
            content: tuple[Any, ...]
            if b is None:
                content = ("empty",)
            else:
                content = (b.tile, b.basic, b.covers, tuple(b.ingredients), b.in_line, new)
            sprite = _cell_sprite(layout, y0, r, col, box, region, content,
                                  lambda dd, bx, b=b, r=r, col=col, new=new:
                                  _draw_cell(dd, bx, r, col, b, c, compact, unavailable, new))
            if sprite.img is not None:
                img.paste(sprite.img, region[:2])
                continue
            _draw_cell(d, box, r, col, b, c, compact, unavailable, new)
            rx, ry = region[0], region[1]
            reach = (rx + sprite.reach[0], ry + sprite.reach[1], rx + sprite.reach[2],
                     ry + sprite.reach[3])
            fits = fits and not any(_overlap(reach, other) for j, other in enumerate(regions)
                                    if j != k)
        if fits:
            return bottom
        img.paste(PANEL, (0, int(y0), img.width, img.height))
        _inner_ring(d, x0, y0, width, cell_h)
    _grid_cells(d, x0, y0, width, cell_h, compact, unavailable, pv.inn, new_here)
    return bottom


def _inner_ring(d: ImageDraw.ImageDraw, x0: float, y0: float, width: float,
                cell_h: float) -> None:
    """The inner ring's frame: under the cells, in the gaps around them (Kingdom Cards
    #2, #7 and #10 speak of the rings)."""
    cols, rows = _grid()
    gap = GRID_GAP
    cw = (width - gap * (cols - 1)) / cols
    ix0, iy0 = x0 + cw + gap / 2, y0 + cell_h + gap / 2
    ix1 = x0 + (cols - 1) * (cw + gap) - gap / 2
    iy1 = y0 + (rows - 1) * (cell_h + gap) - gap / 2
    d.rounded_rectangle((ix0 - 4, iy0 - 4, ix1 + 4, iy1 + 4), radius=14, fill=INNER_RING)


def _cell_boxes(x0: float, y0: float, width: float, cell_h: float
                ) -> list[tuple[int, int, tuple[float, float, float, float]]]:
    """(row, column, box) of every space, row by row."""
    cols, rows = _grid()
    gap = GRID_GAP
    cw = (width - gap * (cols - 1)) / cols
    out = []
    for r in range(rows):
        for col in range(cols):
            x = x0 + col * (cw + gap)
            y = y0 + r * (cell_h + gap)
            out.append((r, col, (x, y, x + cw, y + cell_h)))
    return out


def _cell_region(box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
    """The pixels a space's rounded box covers (Pillow rounds its corners' coordinates
    with ``round``), end exclusive."""
    return (round(box[0]), round(box[1]), round(box[2]) + 1, round(box[3]) + 1)


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _draw_cell(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], r: int,
               col: int, b: BuiltView | None, c: CrossroadsContent, compact: bool,
               unavailable: bool, new: bool) -> None:
    if b is None:
        _empty_cell(d, box, _space(r, col), _is_corner(r, col), _is_inner(r, col),
                    unavailable, compact)
    else:
        _built_cell(d, box, b, c, compact, new)


def _grid_cells(d: ImageDraw.ImageDraw, x0: float, y0: float, width: float, cell_h: float,
                compact: bool, unavailable: bool, inn: dict[str, BuiltView],
                new_here: set[str]) -> None:
    """Draw every space in place, row by row (on the ring)."""
    c = _content()
    for r, col, box in _cell_boxes(x0, y0, width, cell_h):
        sid = _space(r, col)
        _draw_cell(d, box, r, col, inn.get(sid), c, compact, unavailable, sid in new_here)


_CELLS = _SpriteCache(512 << 10)
"""How far the tiles on inn grids draw (:func:`_cell_sprite`): no pictures, ~0.5 KB each."""
_EMPTY_CELLS = _SpriteCache(4 << 20)
"""Empty spaces of inn grids, the same in every inn: twenty per grid layout, 30-50 KB
each in a palette (apart from the tiles, so no change of tiles evicts them)."""


def _cell_sprite(layout: tuple[Any, ...], y0: float, r: int, col: int,
                 box: tuple[float, float, float, float], region: tuple[int, int, int, int],
                 content: tuple[Any, ...],
                 draw: Callable[[ImageDraw.ImageDraw, tuple[float, float, float, float]], None]
                 ) -> _Sprite:
    """An empty space of a grid drawn on the inner ring alone, cut to its ``region``;
    for a tile, or a space that draws outside its region, no image but how far it
    reaches (it is drawn in place).

    The empty spaces are most of a grid early on and the same in every inn. Tiles are
    not kept as pictures: each inn's differ and change with their tokens, and a worker
    drawing several tables would need more memory than a renderer may hold (they were
    tried: an LRU of them thrashed). The key is the grid's layout, the space and what
    lies on it. Drawn an even number of pixels away from the space (Pillow rounds half to
    even; the spaces' fractional x, fifths of a pixel, stay far from any rounding edge),
    so the parity of the region's corner is part of the key too."""
    key = (layout, r, col, region[0] % 2, region[1] % 2, content)
    empty = content == ("empty",)
    cache = _EMPTY_CELLS if empty else _CELLS
    hit = cache.get(key)
    if hit is None:
        # A narrow margin shows a space that stays in its box; one that goes further is
        # drawn again with room to see how far (or is taken to reach anywhere).
        hit = (_drawn_cell(layout, y0, box, region, draw, 2)
               or _drawn_cell(layout, y0, box, region, draw, 64)
               or _Sprite(None, (-(1 << 20), -(1 << 20), 1 << 20, 1 << 20)))
        if hit.img is not None:
            # Few colours, kept for good: in a palette (a quarter of the memory).
            hit = _Sprite(_compact(hit.img) if empty else None, hit.reach)
        cache.put(key, hit)
    return hit


def _drawn_cell(layout: tuple[Any, ...], y0: float, box: tuple[float, float, float, float],
                region: tuple[int, int, int, int],
                draw: Callable[[ImageDraw.ImageDraw, tuple[float, float, float, float]], None],
                margin: int) -> _Sprite | None:
    """A space drawn on the ring with ``margin`` pixels around its region (see
    :func:`_cell_sprite`); None if its drawing reaches the edge of that canvas."""
    x0, width, cell_h = layout[0], layout[1], layout[2]
    sx = (region[0] - margin) // 2 * 2
    sy = (region[1] - margin) // 2 * 2
    w = region[2] - sx + margin
    h = region[3] - sy + margin
    canvas = new_canvas(w, h, PANEL)
    d = ImageDraw.Draw(canvas)
    _inner_ring(d, x0 - sx, y0 - sy, width, cell_h)
    before = canvas.copy()
    draw(d, (box[0] - sx, box[1] - sy, box[2] - sx, box[3] - sy))
    bbox = ImageChops.difference(canvas, before).getbbox() or (0, 0, 0, 0)
    inside = (region[0] - sx, region[1] - sy, region[2] - sx, region[3] - sy)
    if bbox[0] <= 0 or bbox[1] <= 0 or bbox[2] >= w or bbox[3] >= h:
        return None
    reach = (bbox[0] - inside[0], bbox[1] - inside[1], bbox[2] - inside[0],
             bbox[3] - inside[1])
    fits = (reach[0] >= 0 and reach[1] >= 0 and reach[2] <= region[2] - region[0]
            and reach[3] <= region[3] - region[1])
    return _Sprite(canvas.crop(inside) if fits else None, reach)


def _empty_cell(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], sid: str,
                corner: bool, inner: bool, unavailable: bool, compact: bool) -> None:
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if corner and unavailable:
        d.rounded_rectangle(box, radius=12, fill=(0x24, 0x25, 0x29), outline=GRID, width=2)
        for k in range(-int(y1 - y0), int(x1 - x0), 24):  # hatching
            a = (x0 + max(k, 0), y0 + max(-k, 0))
            n = min(x1 - a[0], y1 - a[1])
            d.line((a, (a[0] + n, a[1] + n)), fill=(0x34, 0x36, 0x3B), width=3)
        text_center(d, (cx, cy), "unavailable", _f(F_MIN), DIM)
        return
    if corner:
        d.rounded_rectangle(box, radius=12, fill=mix(PANEL_HI, BASIC_FILL, 0.12),
                            outline=mix(GRID, BASIC_FILL, 0.5), width=3)
        text_center(d, (cx, cy - (0 if compact else 18)), "Basic", _f(F_BODY, True), MUTED)
        if not compact:
            text_center(d, (cx, cy + 20), _space_label(sid), _f(F_MIN), DIM)
        return
    d.rounded_rectangle(box, radius=12, fill=PANEL_HI, outline=GRID, width=2)
    if inner and not compact:
        text_center(d, (cx, cy - 18), _space_label(sid), _f(F_MIN), DIM)
        text_center(d, (cx, cy + 20), "inner", _f(F_MIN), mix(DIM, INNER_RING, 0.3))
    else:
        text_center(d, (cx, cy), _space_label(sid), _f(F_MIN), DIM)


def _built_cell(d: ImageDraw.ImageDraw, box: tuple[float, float, float, float], b: BuiltView,
                c: CrossroadsContent, compact: bool, new: bool) -> None:
    """A tile on its space: category colour, name, category word, the ingredient tokens
    lying on it, the Basic Inn Tile it covers, and the Kingdom #8 line marker."""
    x0, y0, x1, y1 = box
    px = CELL_PAD
    inner = x1 - x0 - 2 * px
    detail = ""
    if b.basic:
        fill = BASIC_FILL
        name = _tile_name(b.tile)
        kind = "Basic"
        bt = c.basic_tile(b.tile)
        detail = bt.on_build.text if bt.on_build else bt.on_cover.text
    else:
        t = c.tile(b.tile)
        fill = CATEGORY_FILL[c.colour(t)]
        name = t.name
        kind = c.category(t.category).name
    ink = _ink_on(fill)
    d.rounded_rectangle(box, radius=12, fill=fill, outline=HIGHLIGHT if new else INK,
                        width=5 if new else 2)
    nf, lines = _fit_lines(name, inner, 2, (F_MIN,))
    if any(line.endswith("…") for line in lines):  # a word too long in bold: regular
        nf, lines = _fit_lines(name, inner, 2, (F_MIN,), bold=False)
    y = _lines(d, x0 + px, y0 + 6, lines, nf, ink, nf.size + 5)
    sub = _f(F_MIN)
    if not compact:
        kf, kl = _fit_lines(kind, inner, 1, (F_MIN,), bold=False)
        d.text((x0 + px, y), kl[0], font=kf, fill=mix(ink, fill, 0.3), anchor="la")
        y += LH_MIN
    # The bottom of the tile, from below: the strip of the Basic Inn Tile it covers
    # (large spaces), then a row of badges (large: "new" on the left, "#8" on the right;
    # small: the covered tile's square and "#8"); the tokens stay above what they would
    # touch, shown with their count as a badge when a second row does not fit.
    badge_f = _f(F_MIN, True)
    line_w = badge_f.getlength("#8") + 14
    strip_top = y1 - 42 if b.covers and not compact else y1
    line_box: tuple[float, float, float, float] | None = None
    if compact:
        floor = y1 - 36 if b.covers else y1 - 4
        if b.in_line:
            line_box = (x1 - 6 - line_w, y1 - 40, x1 - 6, y1 - 4)
    else:
        badges = new or b.in_line
        floor = strip_top - (42 if badges else 4)
        if b.in_line:
            line_box = (x1 - 6 - line_w, strip_top - 40, x1 - 6, strip_top - 4)
    ty = y + 2

    def fits(row_items: list[_Item]) -> bool:
        rows = _flow_rows(row_items, inner, 6)
        for k, row in enumerate(rows):
            top = ty + k * 46
            if top + 40 > floor and row:
                return False
            right = x0 + px + row[-1][0] + row[-1][1].width if row else x0
            if (line_box is not None and top + 40 > line_box[1] - 2
                    and right > line_box[0] - 4):
                return False
        return True

    counts = Counter(b.ingredients)
    items = [it for i, n in counts.items()
             for it in _ingredient_items(i, n, inner, bold=False, ink=ink)]
    if items and not fits(items):
        items = [it for i, n in counts.items()
                 for it in _ingredient_items(i, n, inner, bold=False, ink=ink, badge=True)]
    if items:
        y = _flow(d, x0 + px, ty, inner, items, row_h=40, gap=6) + 4
    if detail and not compact:
        dl = _wrap(detail, sub, inner, 2)
        _lines(d, x0 + px, y, dl, sub, mix(ink, fill, 0.3), LH_MIN)
    if line_box is not None:  # Kingdom Card #8: part of a line that paid its bonus
        d.rounded_rectangle(line_box, radius=10, fill=INK)
        text_center(d, ((line_box[0] + line_box[2]) / 2, (line_box[1] + line_box[3]) / 2),
                    "#8", badge_f, GOLD)
    if b.covers and not compact:
        # The strip is a little wider than the text column: the longest Basic Inn Tile
        # name (28 px) fits it whole.
        cf, cl = _fit_lines(_tile_name(b.covers), x1 - x0 - 8, 1, (F_MIN,), bold=False)
        d.rounded_rectangle((x0 + 3, strip_top, x1 - 3, y1 - 6), radius=8, fill=BASIC_FILL,
                            outline=INK)
        text_center(d, ((x0 + x1) / 2, (strip_top + y1 - 6) / 2), cl[0], cf, INK)
    elif b.covers:
        d.rounded_rectangle((x0 + 8, y1 - 32, x0 + 32, y1 - 8), radius=5, fill=BASIC_FILL,
                            outline=INK, width=2)
    if new and not compact:
        nw = badge_f.getlength("new") + 18
        ny = strip_top - 22
        nx = x0 + 8
        d.rounded_rectangle((nx, ny - 18, nx + nw, ny + 18), radius=10, fill=HIGHLIGHT)
        text_center(d, (nx + nw / 2, ny), "new", badge_f, INK)


def _inn_header(d: ImageDraw.ImageDraw, y: float, v: CrossroadsView, pv: PlayerView,
                names: list[str], big: bool, mine: bool = False) -> float:
    """The inn's owner and Prestige; ``mine``: the picture is for its owner alone, so it
    speaks to them ("Your inn · your turn")."""
    s = pv.seat
    r = MARKER_R
    owner_marker(d, owner_style(s), (SP + r, y + r + 2), r)
    right = f"Prestige {pv.prestige}" + (f" · Score {pv.score}" if pv.score is not None else "")
    rf = _f(F_BODY + 2 if big else F_BODY, True)
    rw = rf.getlength(right) + 28
    acting = s == v.active and v.phase == "turn"
    tf = _f(F_TITLE if big else F_HEAD, True)
    if mine:
        title = "Your inn" + (" · your turn" if acting else "") + (
            " · you won" if s in v.winners else "")
        title = ellipsize(title, tf, CW - 2 * r - 30 - rw)
    else:
        suffix = "'s inn"
        if acting:
            suffix += " · their turn"
        if s in v.winners:
            suffix += " · winner"
        title = _name_with(names[s], [suffix, "'s inn"], tf, CW - 2 * r - 30 - rw)
    text_left(d, (SP + 2 * r + 12, y + r + 2), title, tf, TEXT)
    d.rounded_rectangle((SP + CW - rw, y + r + 2 - 22, SP + CW, y + r + 2 + 22), radius=22,
                        fill=GOLD)
    text_center(d, (SP + CW - rw / 2, y + r + 2), right, rf, INK)
    return y + 2 * r + (16 if big else 10)


def _revenue_spaces() -> tuple[float, list[tuple[int, float]]]:
    """The width of a space of the Revenue track and each space's (value, left x)."""
    rev = _content().boards.inn_board.revenue_track
    lw = 150
    n = rev.max - rev.min + 1
    g = 6
    sw = (CW - lw - g * (n - 1)) / n
    return sw, [(rev.min + k, SP + lw + k * (sw + g)) for k in range(n)]


def _revenue_space(d: ImageDraw.ImageDraw, bx: float, y: float, sw: float, val: int,
                   cur: bool) -> None:
    d.rounded_rectangle((bx, y, bx + sw, y + 48), radius=10,
                        fill=GOLD if cur else PANEL_HI, outline=HIGHLIGHT if cur else GRID,
                        width=3 if cur else 1)
    text_center(d, (bx + sw / 2, y + 24), str(val), _f(F_BODY, True), INK if cur else MUTED)


@lru_cache(maxsize=2)
def _revenue_track(parity: int) -> Image.Image | None:
    """The Revenue track with no space marked (its label, its ten spaces), to paste with
    its top at a row of ``parity``; None if a marked space would not cover an unmarked
    one exactly (then it is drawn whole each time). The marked space is drawn on top:
    both are the same rounded shape whatever their outline width, checked here on the
    real masks. Drawn an even number of rows away (Pillow rounds half to even); 230 KB."""
    sw, spaces = _revenue_spaces()
    size = (INNER, parity + 49)
    shapes = []
    for outline_w in (1, 3):
        mask = Image.new("L", size, 0)
        md = ImageDraw.Draw(mask)
        for _, bx in spaces:
            md.rounded_rectangle((bx, parity, bx + sw, parity + 48), radius=10, fill=255,
                                 outline=128, width=outline_w)
        shapes.append(mask.point(lambda v: 255 if v else 0).tobytes())
    if shapes[0] != shapes[1]:
        return None
    img = new_canvas(*size, PANEL)
    d = ImageDraw.Draw(img)
    text_left(d, (SP, parity + 24), "Revenue", _f(F_BODY, True), TEXT)
    for val, bx in spaces:
        _revenue_space(d, bx, parity, sw, val, False)
    return img.crop((0, parity, INNER, parity + 49))


def _inn_panel(v: CrossroadsView, pv: PlayerView, names: list[str],
               mine: bool = False) -> _PanelImage:
    c = _content()
    p = _Panel(3200)
    d = p.d
    y = _inn_header(d, 10, v, pv, names, big=True, mine=mine)
    y = _inn_grid(p.img, GRID_X, y, GRID_W, pv, v, CELL_H, compact=False) + 10
    legend = ("Grey band: the inner ring. Corners: Basic spaces (not among the 16). "
                  "Stone strip: the Basic Inn Tile a tile covers.")
    if _basics_unavailable(v):
        legend = "Grey band: the inner ring. Corners are unavailable in this game."
    y = _lines(d, SP, y, _wrap(legend, _f(F_MIN), CW), _f(F_MIN), MUTED, LH_MIN) + 10

    # Revenue track 1..10.
    sw, spaces = _revenue_spaces()
    track = _revenue_track(int(y) % 2) if float(y).is_integer() else None
    if track is None:
        text_left(d, (SP, y + 24), "Revenue", _f(F_BODY, True), TEXT)
        for val, bx in spaces:
            _revenue_space(d, bx, y, sw, val, val == pv.revenue)
    else:
        p.img.paste(track, (0, int(y)))
        for val, bx in spaces:
            if val == pv.revenue:
                _revenue_space(d, bx, y, sw, val, True)
    y += 62
    items = [_stat("Chest", str(pv.chest)), _stat("Pouch", str(pv.pouch)),
             _stat("Debts", str(pv.debts), LOSS if pv.debts else TEXT),
             _stat("Covered", f"{pv.covered}/16"),
             _stat("Recipes in hand", str(pv.recipes))]
    if v.phase in ("draft", "place_basics"):
        items.append(_stat("Basic tiles held", str(pv.basics_face_down)))
    y = _flow(d, SP, y, CW, items, row_h=44, gap=10, on=PANEL) + 12

    # Gossips: three spaces per type.
    text_left(d, (SP, y + 22), "Gossips", _f(F_BODY, True), TEXT)
    gx = SP + 150
    slots = c.boards.inn_board.gossip_spaces_per_type
    col_w = (CW - 150) / 3
    for k, gtype in enumerate(GOSSIP_FILL):
        x = gx + k * col_w
        have = pv.gossips.get(gtype, 0)
        for s in range(slots):
            cx = x + 18 + s * 40
            fill = GOSSIP_FILL[gtype] if s < have else None
            d.ellipse((cx - 16, y + 6, cx + 16, y + 38), fill=fill,
                      outline=GOSSIP_FILL[gtype], width=3)
        label = f"{have} {GOSSIP_WORD[gtype]}"
        text_left(d, (x + 18 + slots * 40 - 10, y + 22),
                  ellipsize(label, _f(F_MIN), col_w - slots * 40 - 16), _f(F_MIN), TEXT)
    y += 58

    # The Guest Impression doors.
    text_left(d, (SP, y + 24), "Doors", _f(F_BODY, True), TEXT)
    doors = c.boards.inn_board.doors
    x = SP + 150
    half = (CW - 150) / 2
    for open_, group, value in ((False, pv.closed_door, doors.closed),
                                (True, pv.open_door, doors.open)):
        dw = _door(d, x, y + 2, open_)
        who = _group_name(group) if group else "no group yet"
        label = f"{'Open' if open_ else 'Closed'} ({_signed(value)}): {who}"
        text_left(d, (x + dw + 10, y + 24), ellipsize(label, _f(F_MIN), half - dw - 20),
                  _f(F_MIN), TEXT if group else DIM)
        x += half
    y += 62

    # Ingredients on the tiles (public: they lie on the table).
    owned = owned_ingredients(pv)
    items = [_text_item("Ingredients:", TEXT, F_BODY, True)]
    if owned:
        items += [it for i, n in sorted(owned.items()) for it in _ingredient_items(i, n)]
    else:
        items.append(_text_item("none", DIM))
    y = _flow(d, SP, y, CW, items, row_h=44, gap=10, on=PANEL) + 14

    # Reserved tiles, and tiles bought this turn awaiting their space.
    w2 = (CW - 12) / 2
    text_left(d, (SP, y + 20), f"Reserved tiles ({len(pv.reserved)}/"
              f"{c.boards.inn_board.reserved_spaces})", _f(F_BODY, True), TEXT)
    y += 46
    reserved: list[_CardText | None] = [_tile_card_text(t, w2) for t in pv.reserved]
    while len(reserved) < c.boards.inn_board.reserved_spaces:
        reserved.append(None)
    y = _card_row(p.img, SP, y, CW, reserved, 2, empty_h=80, empty_label="free") + 16
    if v.active == pv.seat and v.phase == "turn" and v.bought:
        text_left(d, (SP, y + 20), "Bought, to build in this order", _f(F_BODY, True), GOLD)
        y += 46
        cards = [_tile_card_text(t, w2) for t in v.bought]
        tags = [str(k + 1) for k in range(len(cards))]
        y = _card_row(p.img, SP, y, CW, cards, 2, outlines=[GOLD] * len(cards), tags=tags) + 16

    # Recipes: how many in hand (secret cards), and those completed (public).
    text_left(d, (SP, y + 20), f"Recipes: {pv.recipes} in hand, {len(pv.completed)} completed",
              _f(F_BODY, True), TEXT)
    y += 46
    for rid in pv.completed:
        try:
            r = c.recipe(rid)
            line = f"{r.name}: {r.reward.text}"
        except ValueError:
            line = rid
        y = _lines(d, SP + 20, y, _wrap("✓ " + line, _f(F_MIN), CW - 20), _f(F_MIN), GOOD,
                   LH_MIN)
    return p.done(y)


def _inn_small_panel(v: CrossroadsView, pv: PlayerView, names: list[str]) -> _PanelImage:
    p = _Panel(1400)
    d = p.d
    y = _inn_header(d, 8, v, pv, names, big=False)
    items = _player_items(v, pv)
    doors = (f"−3 {_group_name(pv.closed_door)} / +1 {_group_name(pv.open_door)}"
             if pv.closed_door or pv.open_door else "none yet")
    items.append(_stat("Doors", doors))
    y = _flow(d, SP, y, CW, items, row_h=42, gap=8, on=PANEL) + 12
    y = _inn_grid(p.img, GRID_X, y, GRID_W, pv, v, SMALL_CELL_H, compact=True)
    return p.done(y)


# --------------------------------------------------------------------------- hand


def _hand_panels(v: CrossroadsView, names: list[str]) -> list[_PanelImage]:
    c = _content()
    panels: list[_PanelImage] = []
    p = _Panel(600)
    d = p.d
    if v.seat is None or v.seat >= len(v.seats):
        y = _panel_title(d, 10, "No hand to show")
        y = _lines(d, SP, y, _wrap("This is the public view of the table: Recipes and "
                                   "drafted tiles are shown only to their owner.",
                                   _f(F_BODY), CW), _f(F_BODY), MUTED, 38)
        return [p.done(y)]
    me = v.seats[v.seat]
    owned = owned_ingredients(me)
    mid = 10 + MARKER_R
    owner_marker(d, owner_style(v.seat), (SP + MARKER_R, mid), MARKER_R)
    tx = 2 * MARKER_R + 12
    tf = _f(F_TITLE, True)
    title = _name_with(names[v.seat], ["'s hand (private)", "'s hand"], tf, CW - tx)
    text_left(d, (SP + tx, mid), title, tf, TEXT)
    y = mid + MARKER_R + 14.0
    mine = v.pending is not None and v.pending.seat == v.seat
    # Only the seat's own decision: the table's prompt changes at every step and would
    # redraw (and upload again) a hand that did not change.
    prompt = (v.pending.prompt if mine and v.pending else
              "Your Recipes and face-down tiles: only you see this.")
    y = _lines(d, SP, y, _wrap(prompt, _f(F_BODY), CW), _f(F_BODY), GOLD if mine else MUTED, 38)
    panels.append(p.done(y))
    w2 = (CW - 12) / 2

    # A decision between secret Recipes (the two drawn, keep one).
    if mine and v.pending is not None:
        recipe_ids = {r.id for r in c.recipes}
        options = [o for o in v.pending.options if o in recipe_ids]
        if options and (v.pending.kind == "keep_recipe" or len(options) == len(
                v.pending.options)):
            p = _Panel(400 + 500 * ((len(options) + 1) // 2))
            y = _panel_title(p.d, 10, "Choose the Recipe to keep")
            cards = [_recipe_card_text(o, w2, owned) for o in options]
            y = _card_row(p.img, SP, y, CW, cards, 2, outlines=[GOLD] * len(cards))
            panels.append(p.done(y))

    draft = _draft_panels(v, w2)
    if v.phase in ("draft", "place_basics"):
        panels += draft  # what the seat must decide now comes first

    # The Recipes in hand.
    recipes = list(v.my_recipes or [])
    p = _Panel(400 + 520 * ((len(recipes) + 1) // 2))
    y = _panel_title(p.d, 10, f"Your Recipes ({len(recipes)})",
                     "each uncompleted Recipe: −2 Prestige at the end")
    if recipes:
        cards = [_recipe_card_text(r, w2, owned) for r in recipes]
        ready = [all(owned.get(i, 0) for i in c.recipe(r).ingredients) for r in recipes]
        y = _card_row(p.img, SP, y, CW, cards, 2, outlines=[GOOD if k else None for k in ready])
    else:
        text_left(p.d, (SP, y + 16), "No Recipe cards in hand.", _f(F_BODY), DIM)
        y += 36
    panels.append(p.done(y))

    # The ingredients on your tiles.
    p = _Panel(500)
    y = _panel_title(p.d, 10, "Your ingredients", "on your inn's tiles")
    items = ([it for i, n in sorted(owned.items()) for it in _ingredient_items(i, n)] if owned
             else [_text_item("None yet: build tiles that give ingredients.", DIM, F_BODY)])
    y = _flow(p.d, SP, y, CW, items, row_h=44, gap=10, on=PANEL)
    panels.append(p.done(y))

    if v.phase not in ("draft", "place_basics"):
        panels += draft
    return panels


def _draft_panels(v: CrossroadsView, w2: float) -> list[_PanelImage]:
    """The Basic Inn Tiles of the draft (face down, secret): the pack to pick from and
    the tiles kept."""
    panels: list[_PanelImage] = []
    pack = list(v.my_pack or [])
    kept = list(v.my_kept or [])
    if pack:
        p = _Panel(400 + 400 * ((len(pack) + 1) // 2))
        y = _panel_title(p.d, 10, "Pick one Basic Inn Tile", "the rest pass to your left")
        cards = [_basic_card_text(t, w2) for t in pack]
        y = _card_row(p.img, SP, y, CW, cards, 2, outlines=[GOLD] * len(cards))
        panels.append(p.done(y))
    if kept:
        title = ("Your Basic Inn Tiles: place each on a corner" if v.phase == "place_basics"
                 else "Basic Inn Tiles you kept (face down)")
        p = _Panel(400 + 400 * ((len(kept) + 1) // 2))
        y = _panel_title(p.d, 10, title)
        y = _card_row(p.img, SP, y, CW, [_basic_card_text(t, w2) for t in kept], 2)
        panels.append(p.done(y))
    return panels


# --------------------------------------------------------------------------- public API


def _parse_part(part: str, players: int) -> tuple[str, int | None]:
    if part in ("table", "inns"):
        return part, None
    m = re.fullmatch(r"inn:(\d+)", part or "")
    if m and int(m.group(1)) < players:
        return "inn", int(m.group(1))
    raise ValueError(f"part must be 'table', 'inns' or 'inn:<seat>' (seat 0..{players - 1}), "
                     f"not {part!r}")


def draw(view: Any, names: Sequence[str] | None = None, part: str = "table",
         viewer: int | None = None) -> Image.Image:
    """The picture of ``part`` as a Pillow image (see :func:`render`)."""
    v = _as_view(view)
    kind, seat = _parse_part(part, v.players)
    nm = _names(v, names)
    if kind == "table":
        return _stack(_drawn(lambda: [_status_panel(v, nm), _players_panel(v, nm),
                                      _reputation_panel(v), _progress_panel(v),
                                      _kingdom_panel(v)]))
    if kind == "inns":
        return _stack(_drawn(lambda: [_inn_small_panel(v, pv, nm) for pv in v.seats]))
    assert seat is not None
    pv = v.seats[seat]
    return _stack(_drawn(lambda: [_inn_panel(v, pv, nm, mine=viewer == seat)]))


def render(view: Any, names: Sequence[str] | None = None, part: str = "table",
           viewer: int | None = None) -> bytes:
    """PNG bytes of a Crossroads Inn view.

    ``part``: ``"table"`` (the channel picture: Reputation and Progress Boards, Kingdom
    Cards, the prompt and one summary per innkeeper), ``"inn:<seat>"`` (one inn, large;
    seats from 0) or ``"inns"`` (every inn, small). Anything else raises ValueError.
    ``names`` are the seats' display names, by seat number. ``viewer``: the seat of the
    one person the picture is for (none for a picture in the channel); their own inn
    is titled "Your inn"."""
    return to_png(draw(view, names, part, viewer))


def draw_hand(view: Any, names: Sequence[str] | None = None) -> Image.Image:
    v = _as_view(view)
    nm = _names(v, names)
    return _stack(_drawn(lambda: _hand_panels(v, nm)))


@lru_cache(maxsize=1)
def _hand_palette() -> FixedPalette:
    """Every colour a hand picture draws in (:func:`_hand_panels`), and the text on each
    surface: its Recipe and Basic Inn Tile cards, ingredient pills, the seat's marker.

    The hand is small and mostly text, so finding its colours cost more than drawing it
    (6-8 ms of 20); with this palette its flat colours stay exact and the text's edges
    within a few levels (0.08 levels on average at 400 px wide, the frequent-colour
    palette 0.06), in 5% fewer bytes."""
    surfaces = (RECIPE_FILL, BASIC_FILL)
    pills = (*INGREDIENT_FILL.values(), _ingredient_fill(""))
    flats = [BG, PANEL, BODY_FILL, *surfaces, TEXT, MUTED, DIM, INK, GRID, GOLD, GOLD_DARK,
             GOOD, LOSS, GEM, HIGHLIGHT, *pills,
             *(mix(_ink_on(f), f, 0.2) for f in surfaces),  # the cards' subtitles
             *(owner_style(s).color for s in range(len(OWNER_COLORS))),
             *CATEGORY_FILL.values(), *GOSSIP_FILL.values(), SPECIAL_FILL, INNER_RING]
    blends = [(PANEL, TEXT, 20), (PANEL, MUTED, 20), (PANEL, DIM, 8), (PANEL, GOLD, 6),
              (BODY_FILL, TEXT, 12), (BODY_FILL, MUTED, 12), (BODY_FILL, GOLD, 8),
              (BODY_FILL, LOSS, 8), (BODY_FILL, GOOD, 4),
              *((f, _ink_on(f), 14) for f in surfaces),
              *((f, mix(_ink_on(f), f, 0.2), 4) for f in surfaces),
              *((f, _ink_on(f), 4) for f in pills),
              *((owner_style(s).color, owner_style(s).ink, 3) for s in range(len(OWNER_COLORS)))]
    return FixedPalette(flats, blends)


def render_hand(view: Any, names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of a seat's private picture: its Recipes (which ingredients it owns now),
    its ingredients, the drafted Basic Inn Tiles and a pending choice of Recipes. Drawn
    from the seat's own view only; a public view draws a notice that there is no hand.
    Stored in the hand's own palette (:func:`_hand_palette`)."""
    return to_png(draw_hand(view, names), palette=_hand_palette())


# --------------------------------------------------------------------------- text board


def _cell_text(b: BuiltView | None, corner: bool, unavailable: bool) -> str:
    if b is None:
        return "(corner)" if corner and not unavailable else ("  xx  " if corner else ".")
    name = _tile_name(b.tile)
    if b.basic:
        name = "B:" + name
    tail = "*" * len(b.ingredients)
    return name[: 12 - len(tail)] + tail


def text_board(view: Any, name: Callable[[int], str] | None = None) -> str:
    """The public table as text for the console: prompt, innkeepers, Reputation tracks,
    Investment Tracks, Kingdom Cards and each inn as a 5x4 grid (``B:`` a Basic Inn Tile,
    ``*`` an ingredient token on the tile). A seat's own view adds its Recipes and draft."""
    v = _as_view(view)
    c = _content()
    nm = name or (lambda s: f"Player {chr(ord('A') + s)}")
    lines: list[str] = []
    head = "Crossroads Inn"
    if v.phase == "turn" and v.active is not None:
        head += f" · {nm(v.active)}'s turn"
        if v.step:
            head += f" · step: {STEP_LABEL.get(v.step, v.step)}"
        head_tail = f"buys left {v.buys_left}"
    else:
        head += f" · {PHASE_LABEL.get(v.phase, v.phase)}"
        head_tail = ""
        if v.phase == "draft" and v.draft_round:
            head += f" (round {v.draft_round})"
    lines.append(head)
    lines.append(v.prompt)
    if v.pending is not None and v.pending.prompt and v.pending.prompt != v.prompt:
        lines.append(f"Waiting for {nm(v.pending.seat)}: {v.pending.prompt}")
    if head_tail:
        used = ", ".join(GOSSIP_WORD.get(g, g) for g in v.gossips_used) or "none"
        lines.append(f"This turn: {head_tail}; impression {'done' if v.impression_done else 'open'}"
                     f"; reserved {'yes' if v.reserved_this_turn else 'no'}; gossips used {used}")
    if v.last_roll is not None:
        face = ""
        with contextlib.suppress(ValueError):
            face = f" ({c.die_face(v.last_roll).text})"
        lines.append(f"Last die roll: {v.last_roll}{face}")
    if v.announced_by is not None:
        lines.append(_announced(v, [nm(s) for s in range(v.players)]))
    if v.winners:
        lines.append("Winner: " + " and ".join(nm(s) for s in v.winners))
    lines.append("")
    lines.append("Innkeepers:")
    for pv in v.seats:
        g = " ".join(f"{GOSSIP_LETTER[k]}{pv.gossips.get(k, 0)}" for k in GOSSIP_FILL)
        score = f", score {pv.score}" if pv.score is not None else ""
        mark = ">" if pv.seat == v.active else " "
        lines.append(
            f"{mark}{owner_style(pv.seat).letter} {nm(pv.seat)}: prestige {pv.prestige}{score}, "
            f"revenue {pv.revenue}, chest {pv.chest}, pouch {pv.pouch}, debts {pv.debts}, "
            f"gossips {g}, reserved {len(pv.reserved)}, inn {pv.covered}/16, "
            f"recipes {pv.recipes} (+{len(pv.completed)} done)"
            + (f", basics held {pv.basics_face_down}" if v.phase in ("draft", "place_basics")
               else ""))
    lines.append("")
    rep = c.boards.reputation
    lines.append(f"Reputation (0..{rep.max}; Prestige per space: "
                 + " ".join(_signed(s.prestige) for s in c.groups[0].track) + "):")
    for grp in c.groups:
        at = " ".join(f"{owner_style(pv.seat).letter}{pv.reputation.get(grp.id, grp.start)}"
                      for pv in v.seats)
        lines.append(f"  {grp.name:<11} {at}   (Special Action on {grp.special_action_space})")
    lines.append("")
    for k, tier in enumerate((1, 2)):
        pile = v.discards[k] if k < len(v.discards) else []
        top = f", top {_tile_name(pile[-1])}" if pile else ""
        pouch = v.pouches[k] if k < len(v.pouches) else 0
        lines.append(f"Tier {TIER[tier]} track (pouch {pouch}, discard {len(pile)}{top}):")
        track = v.tracks[k] if k < len(v.tracks) else []
        for slot, t in enumerate(track):
            if t is None:
                lines.append(f"  {slot + 1}. (empty)")
                continue
            tile = c.tile(t)
            extra = f"; ingredient {_ingredient_name(tile.ingredient)}" if tile.ingredient else ""
            extra += f"; drawback {tile.drawback.text}" if tile.drawback else ""
            lines.append(f"  {slot + 1}. {tile.name} [{c.category(tile.category).name}] "
                         f"{tile.cost_text}: {tile.effect.text}{extra}")
    lines.append(f"Recipe deck {v.deck}, discard {v.recipe_discard}")
    if v.kingdom:
        lines.append("Kingdom Cards:")
        for n in v.kingdom:
            k_ = c.kingdom_card(n)
            lines.append(f"  #{n} {k_.title}: {k_.rule_text}")
        if v.line_pool:
            pool = ", ".join(f"{GOSSIP_WORD.get(a, a)} {b}" for a, b in v.line_pool.items())
            lines.append(f"  On card #8: {pool}")
    unavailable = _basics_unavailable(v)
    cols, rows = _grid()
    for pv in v.seats:
        lines.append("")
        doors = (f" doors: closed {_group_name(pv.closed_door)}, open "
                 f"{_group_name(pv.open_door)}" if pv.closed_door or pv.open_door else "")
        lines.append(f"{nm(pv.seat)}'s inn ({pv.covered}/16){doors}:")
        for r in range(rows):
            cells = [_cell_text(pv.inn.get(_space(r, col)), _is_corner(r, col), unavailable)
                     for col in range(cols)]
            lines.append("  " + " | ".join(f"{x:<12}" for x in cells).rstrip())
        over = [f"{s} {_tile_name(b.tile)} over {_tile_name(b.covers)}"
                for s, b in sorted(pv.inn.items()) if b.covers]
        if over:
            lines.append("  covering Basic tiles: " + "; ".join(over))
        if pv.reserved:
            lines.append("  reserved: " + ", ".join(
                f"{c.tile(t).name} ({c.tile(t).cost_text})" for t in pv.reserved))
        if pv.completed:
            lines.append("  completed: " + ", ".join(c.recipe(r).name for r in pv.completed))
        if pv.seat == v.active and v.bought:
            lines.append("  to build: " + ", ".join(c.tile(t).name for t in v.bought))
    if v.seat is not None and v.seat < len(v.seats):
        owned = owned_ingredients(v.seats[v.seat])
        lines.append("")
        if v.my_recipes is not None:
            lines.append("Your Recipes:")
            for rid in v.my_recipes:
                r = c.recipe(rid)
                need = ", ".join(_ingredient_name(i) + (" (have)" if owned.get(i) else "")
                                 for i in r.ingredients)
                lines.append(f"  {r.name}: {need} -> {r.reward.text}")
        if v.my_pack:
            lines.append("Your pack: " + ", ".join(_tile_name(t) for t in v.my_pack))
        if v.my_kept:
            lines.append("Kept: " + ", ".join(_tile_name(t) for t in v.my_kept))
        if v.pending is not None and v.pending.seat == v.seat and v.pending.options:
            lines.append("Options: " + ", ".join(v.pending.options))
    return "\n".join(lines)


# --------------------------------------------------------------------------- doctest data


def _example_view() -> dict[str, Any]:
    """A small two-player view in the middle of a turn (for the doctests)."""
    seat = {"prestige": 6, "revenue": 4, "chest": 0, "pouch": 4, "debts": 0,
            "gossips": {"economic": 1, "political": 1, "travellers": 1},
            "reputation": {g: 1 for g in ("distressed", "outlaws", "travellers", "townsfolk",
                                          "nobles")},
            "closed_door": None, "open_door": None, "recipes": 2, "completed": [],
            "reserved": [], "inn": {}, "covered": 0, "turns": 0, "basics_face_down": 0}
    return {
        "seat": None, "players": 2, "phase": "turn", "step": "invest", "active": 0,
        "kingdom": [], "seats": [dict(seat, seat=0), dict(seat, seat=1)],
        "tracks": [["long_table", "crook", "kobi", "laundry"],
                   ["chandelier", "cook", "iduna", "pawnshop"]],
        "pouches": [60, 52], "discards": [[], []], "deck": 9, "recipe_discard": 0,
        "line_pool": {}, "bought": [], "built": [], "impression_done": True,
        "gossips_used": [], "buys_left": 2, "reserved_this_turn": False,
        "announced_by": None, "last_turns": [], "last_roll": None, "draft_round": 0,
        "pending": None, "prompt": "Buy up to two tiles, or go on.",
    }

