"""Winter Tales: the Wintertown board as one PNG, drawn from the PUBLIC view.

Phones show it ~400 px wide (a third of its 1200 px), so every word on it is drawn at
27 px or more (9 px on a phone: ``tests/test_phone_pictures.py``), and no name is ever
shortened. From the top, in the order a turn needs them:

- a banner: chapter, length, who acts and what is being decided;
- the map of Wintertown: the 8 Locations as boxes (name, Power slot, what stands there),
  the Squares as haloed circles joined by streets, the statue of Mangiafuoco in the
  middle. A figure is a token in its owner's colour with the owner's shape and letter
  (never colour alone) on a black base for a Fairy Tale and a white base for a Soldier,
  as in the box; an incapacitated figure is greyed and tipped over. A Quest counter is a
  hexagon in its Faction's colour with its Faction's glyph;
- the Quests on the board, by their full names, with where each counter lies: the key
  to the hexagons of the map;
- one row per player (faction, card and Objective COUNTS), with each character by its
  full printed name, ready / activated / incapacitated, and the space it stands in: the
  key to the letters of the map;
- the Memory Track up to the Epilogue tile (rows of 4 spaces; the Objective icon on
  2/4/6, each Memory in its Faction's colour, the Bookmark ribbon).

The expensive part of the map (night sky, snow, streets, Squares, statue, the Locations'
boxes) is drawn once and cached, and so are the tokens, the pills and the track's cells.
The picture is built by :func:`picture_from_view`, the one adapter between the engine's
view and this module; nothing here reads a hand or an Objective face, so a seat's
private view draws the same as the public.

>>> pic = picture_from_view({"players": 3, "chapter": 1, "length": 3,
...                          "factions": ["spring", "winter", "writer"]})
>>> len(render_picture(pic)) > 10_000
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from engines.winter_tales.content import WinterContent, load_content, printed_name
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
    PANEL,
    PANEL_HI,
    TEXT,
    WARN,
    Box,
    Color,
    Point,
    badge,
    draw_shape,
    ellipsize,
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

# Faction colours (Memories, Quest counters, faction pills), shared with the hand.
from renderers.winter_factions import FACTION_COLOR, FACTION_LABEL, GLYPH, NEUTRAL_MEM
from renderers.winter_hand import card_art

WIDTH = 1200
MARGIN = 24
# The smallest type on the board: 27 px is 9 px at a phone's 400 px (the picture checks'
# floor). Every word is drawn at TYPE or at one of the larger sizes below.
TYPE = 27
TITLE = 30
BANNER_H = 132
MAP_H = 930
MAP_TOP = MARGIN + BANNER_H + 14
MAP_PAD_X = 142
MAP_PAD_Y = 86
LOC_W = 264
LOC_HEAD = 74
TOKEN_R = 26  # a figure's marker: its seat letter is drawn at round(1.05 * r) = 27 px
ITEM_W = 62  # one figure or Quest counter on the map: its cell
ITEM_H = 64
ITEM_GAP = 4
PER_ROW = 4  # pieces side by side in a row of a Location's box
FAN_MAX = 5  # pieces in a row of a Location's box, overlapping when more than PER_ROW
WIDE_EXTRA = 84  # how much a crowded Location's box widens where there is room
FAN_WIDE = 7  # pieces in a row of a widened box, overlapping when more than PER_ROW + 1
SQUARE_R = 26
STATUE_R = 40
GAP = 12  # between the picture's panels
LINE = 46  # one line of pills (a Quest, a character) in the panels below the map
CELLS_PER_ROW = 4  # the Memory Track's spaces per row
CELL_H = 200

NIGHT: Color = (0x21, 0x28, 0x3D)
STREET: Color = (0x6B, 0x74, 0x8C)
STREET_EDGE: Color = (0x3A, 0x40, 0x52)
SQUARE_FILL: Color = (0x45, 0x4D, 0x63)
LOC_FILL: Color = (0x33, 0x3A, 0x50)
LOC_EDGE: Color = (0x8A, 0x93, 0xAD)
SNOW: Color = (0xE8, 0xEE, 0xF8)
BOOKMARK: Color = (0xE0, 0x4F, 0x5F)


# --------------------------------------------------------------------------- the picture model


@dataclass(frozen=True)
class Fig:
    """A character as the board shows it."""

    id: str
    name: str
    faction: str
    owner: int | None
    space: str | None
    ready: bool = True
    incapacitated: bool = False
    removed: bool = False


@dataclass(frozen=True)
class QuestMark:
    counter: str
    quest: str
    faction: str
    space: str | None
    carrier: str | None = None


@dataclass(frozen=True)
class PowerMark:
    counter: str
    quest: str
    faction: str
    holder: int
    characters: tuple[str, ...] = ()
    location: str | None = None


@dataclass(frozen=True)
class MemoryCell:
    slot: int
    source: str  # quest | objective
    title: str
    faction: str | None
    card: str
    counter: str | None = None
    counter_faction: str | None = None


@dataclass
class Picture:
    """Everything the board shows, already taken out of the view."""

    players: int
    names: list[str]
    factions: list[str]
    chapter: int = 0
    length: int = 3
    epilogue_space: int = 4
    phase: str = ""
    decision: str = ""
    acting: int | None = None
    to_act: list[int] = field(default_factory=list)
    arbiter: int | None = None
    figures: list[Fig] = field(default_factory=list)
    quests: list[QuestMark] = field(default_factory=list)
    ongoing: str | None = None
    ongoing_count: dict[str, int] | None = None
    memories: list[MemoryCell] = field(default_factory=list)
    bookmark: int | None = None
    powers: list[PowerMark] = field(default_factory=list)
    hand_counts: list[int] = field(default_factory=list)
    objective_counts: list[int] = field(default_factory=list)
    revealed_objectives: list[tuple[int, str]] = field(default_factory=list)
    deck_count: int = 0
    discard_count: int = 0
    trap_hidden_count: int | None = None
    epilogue_count: dict[str, int] | None = None
    winner: str | None = None
    final: dict[str, int] | None = None

    def name(self, seat: int | None) -> str:
        if seat is None:
            return "nobody"
        if 0 <= seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"Player {owner_style(seat).letter}"


# --------------------------------------------------------------------------- geometry


def _faction_of(pic: Picture, seat: int) -> str:
    return pic.factions[seat] if 0 <= seat < len(pic.factions) else ""


@lru_cache(maxsize=1)
def _content() -> WinterContent:
    return load_content()


@lru_cache(maxsize=1)
def node_positions() -> dict[str, Point]:
    """Pixel centre of every space inside the map box (origin at the map's top-left)."""
    spaces = _content().map.spaces
    xs = [s.x for s in spaces]
    ys = [s.y for s in spaces]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    w = WIDTH - 2 * MARGIN - 2 * MAP_PAD_X
    h = MAP_H - 2 * MAP_PAD_Y
    return {
        s.id: (MAP_PAD_X + (s.x - x0) / max(1e-9, x1 - x0) * w,
               MAP_PAD_Y + (s.y - y0) / max(1e-9, y1 - y0) * h)
        for s in spaces
    }


def _draw_statue(d: ImageDraw.ImageDraw, c: Point, r: float) -> None:
    """Mangiafuoco's statue: a pedestal and a heavy silhouette with a raised arm."""
    x, y = c
    stone = (0xC9, 0xCE, 0xD9)
    shade = (0x8D, 0x93, 0xA3)
    d.rectangle((x - r * 0.5, y + r * 0.38, x + r * 0.5, y + r * 0.62), fill=shade)
    d.rectangle((x - r * 0.36, y + r * 0.1, x + r * 0.36, y + r * 0.4), fill=stone)
    d.polygon([(x - r * 0.26, y + r * 0.1), (x + r * 0.26, y + r * 0.1),
               (x + r * 0.2, y - r * 0.34), (x - r * 0.2, y - r * 0.34)], fill=stone)
    d.ellipse((x - r * 0.15, y - r * 0.62, x + r * 0.15, y - r * 0.32), fill=stone)
    d.line((x + r * 0.18, y - r * 0.28, x + r * 0.42, y - r * 0.7), fill=stone,
           width=max(3, round(r * 0.12)))
    d.polygon([(x - r * 0.2, y - r * 0.3), (x - r * 0.02, y - r * 0.02),
               (x - r * 0.16, y - r * 0.02)], fill=shade)  # the beard


def _square_label(name: str) -> str:
    return name.replace(" Square", "").replace("'", "’")


@lru_cache(maxsize=1)
def square_labels() -> dict[str, tuple[Point, Box]]:
    """Where each Square's name goes (map coordinates): its centre and its box, clear of
    the Locations' smallest boxes (:func:`_place_labels`)."""
    return _place_labels(_smallest_boxes())[0]


def _title_box() -> tuple[Point, Box]:
    """Where the map's title ("Wintertown") goes: its top left corner, clear of all."""
    w, h = font(TITLE, bold=True).getlength("Wintertown"), TITLE + 8
    return (16 + w / 2, 14 + h / 2), (16, 14, 16 + w, 14 + h)


# Where a Square's name may go, best first: under it, above it, then round the clock.
_LABEL_ANGLES = (math.pi / 2, -math.pi / 2, *sorted(
    (k * math.pi / 8 for k in range(16) if k not in (4, 12)),
    key=lambda a: (abs(math.sin(a)) < 0.5, -abs(math.sin(a)))))


def _place_labels(loc_boxes: dict[str, Box]) -> tuple[dict[str, tuple[Point, Box]], int]:
    """Each Square's name under the Square when there is room, else above, beside or at a
    corner of it: clear of ``loc_boxes``, the other Squares and the names already placed,
    the map's title, and inside the map. Also how many found no such room (those go
    under their Square)."""
    pos = node_positions()
    fnt = font(TYPE, bold=True)
    w_map, h_map = WIDTH - 2 * MARGIN, MAP_H
    squares = _content().map.squares
    taken: list[Box] = [(b[0] - 4, b[1] - 4, b[2] + 4, b[3] + 4) for b in loc_boxes.values()]
    taken.append(_title_box()[1])
    for sq in squares:
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 8
        taken.append((x - r, y - r, x + r, y + r))
    out: dict[str, tuple[Point, Box]] = {}
    misses = 0
    for sq in squares:
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 8
        w, h = fnt.getlength(_square_label(sq.name)) + 6, TYPE + 8
        chosen = None
        for extra in (2, 12, 24, 40):
            for a in _LABEL_ANGLES:
                ux, uy = math.cos(a), math.sin(a)
                reach = r + extra + abs(ux) * w / 2 + abs(uy) * h / 2
                c = (x + ux * reach, y + uy * reach)
                box = (c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2)
                if box[0] < 6 or box[1] < 6 or box[2] > w_map - 6 or box[3] > h_map - 6:
                    continue
                if not any(_overlaps(box, t) for t in taken):
                    chosen = (c, box)
                    break
            if chosen is not None:
                break
        if chosen is None:  # nowhere clear: under the Square
            misses += 1
            c = (x, y + r + h / 2 + 2)
            chosen = (c, (c[0] - w / 2, c[1] - h / 2, c[0] + w / 2, c[1] + h / 2))
        taken.append(chosen[1])
        out[sq.id] = chosen
    return out, misses


@lru_cache(maxsize=1)
def static_map() -> Image.Image:
    """The unchanging map: night sky, falling snow, streets, Squares and the statue.

    Drawn once per process (it is the same for every table); each render pastes a copy.
    """
    w, h = WIDTH - 2 * MARGIN, MAP_H
    # one flat night colour: a gradient would band in the 256-colour PNG
    img = Image.new("RGB", (w, h), NIGHT)
    d = ImageDraw.Draw(img)
    rnd = stable_seed("wintertown")
    for _ in range(260):  # snowflakes and stars, fixed by a seed so the map never flickers
        rnd = (rnd * 6364136223846793005 + 1442695040888963407) % 2**64
        x = (rnd >> 16) % w
        y = (rnd >> 32) % h
        s = 1 + (rnd >> 48) % 3
        col = mix(NIGHT, SNOW, 0.25 + 0.12 * s)
        d.ellipse((x - s, y - s, x + s, y + s), fill=col)
    pos = node_positions()
    m = _content().map
    for a, b in m.edges:
        d.line((pos[a], pos[b]), fill=STREET_EDGE, width=16)
    for a, b in m.edges:
        d.line((pos[a], pos[b]), fill=STREET, width=8)
        # cobbles: a dotted centre line
        (ax, ay), (bx, by) = pos[a], pos[b]
        n = max(2, int(math.dist(pos[a], pos[b]) // 22))
        for i in range(1, n):
            t = i / n
            cx, cy = ax + (bx - ax) * t, ay + (by - ay) * t
            d.ellipse((cx - 1.5, cy - 1.5, cx + 1.5, cy + 1.5), fill=STREET_EDGE)
    label = font(TYPE, bold=True)
    labels = square_labels()
    for s in m.squares:
        x, y = pos[s.id]
        r = STATUE_R if s.statue else SQUARE_R
        d.ellipse((x - r - 7, y - r - 7, x + r + 7, y + r + 7), fill=mix(STREET, SNOW, 0.35))
        d.ellipse((x - r - 3, y - r - 3, x + r + 3, y + r + 3), fill=STREET_EDGE)
        d.ellipse((x - r, y - r, x + r, y + r), fill=SQUARE_FILL)
        if s.statue:
            _draw_statue(d, (x, y), r)
        text_center(d, labels[s.id][0], _square_label(s.name), label, mix(MUTED, SNOW, 0.3),
                    stroke=3, stroke_fill=NIGHT)
    text_center(d, _title_box()[0], "Wintertown", font(TITLE, bold=True),
                mix(NIGHT, SNOW, 0.35))
    return img


# --------------------------------------------------------------------------- pieces


def _name(ident: str | None) -> str:
    """The printed name of a character, space or Quest, in full (players type these)."""
    return printed_name(ident)


def _token_center() -> Point:
    """The centre of a figure's marker on its tile (the base stands below it)."""
    return (ITEM_W / 2 + 4, TOKEN_R + 8)


@lru_cache(maxsize=64)
def _token_image(owner: int | None, faction: str, incapacitated: bool,
                 powered: bool) -> Image.Image:
    """One figure token on a transparent tile (so it can be tipped over when down): the
    owner's marker (colour, shape and letter) standing on its base, black for a Fairy
    Tale and white for a Soldier.

    Cached: a table shows the same dozen figures at every move, and the rotation of a
    tipped-over token is the dearest thing on the map. Up to 64 tiles of ~20 KB.
    Callers only paste it (never draw on it)."""
    tile = Image.new("RGBA", (ITEM_W + 8, ITEM_H + 8), (0, 0, 0, 0))
    d = ImageDraw.Draw(tile)
    style = owner_style(owner if owner is not None else 0)
    fill = style.color if owner is not None else DIM
    if incapacitated:
        fill = mix(fill, BG, 0.55)
    cx, cy = _token_center()
    spring = faction == "spring"
    base = INK if spring else SNOW  # black base: Fairy Tale; white: Soldier
    d.ellipse((cx - 30, cy + 4, cx + 30, cy + 32), fill=base,
              outline=MUTED if spring else INK, width=2)
    owner_marker(d, replace(style, color=fill), (cx, cy), TOKEN_R,
                 with_letter=owner is not None)
    if powered:  # top left: a crowd covers the right side of a token (_location_places)
        draw_shape(d, "star", (cx - TOKEN_R + 1, cy - TOKEN_R + 5), 10, fill=GOLD,
                   outline=INK, width=1)
    if incapacitated:
        tile = tile.rotate(32, resample=Image.Resampling.BICUBIC, expand=True)
        d = ImageDraw.Draw(tile)
        # at the bottom left of the marker (its letter, in the middle, stays readable;
        # a crowd covers the right side of a token: _location_places)
        bx, by = tile.width / 2 - 19, tile.height / 2 + 17
        d.ellipse((bx - 17, by - 17, bx + 17, by + 17), fill=WARN, outline=INK, width=2)
        text_center(d, (bx, by + 1), "✕", font(TYPE, bold=True), TEXT)
    return tile


# A sprite is a small piece (a pill with its words) drawn once on a transparent tile and
# pasted with its own alpha. That gives the pixels of drawing it in place when
#  - the piece covers every pixel it touches (text anti-aliased only over its own fill):
#    :func:`_sprite` checks it and refuses the piece otherwise, and
#  - the tile sits a whole, even number of pixels from the canvas: rounded rectangles
#    round their corners half to even, text keeps its fraction of a pixel.
# Polygons (stars, pawns, hexagons) rasterise differently when moved (their corner
# coordinates carry float noise), so they are always drawn in place, never in a sprite.
Piece = Callable[..., Any]
_SPRITE_PAD = 4


def _even_floor(v: float) -> int:
    return 2 * math.floor(v / 2)


@lru_cache(maxsize=160)
def _sprite(piece: Piece, xy: tuple[float, ...], size: tuple[int, int],
            args: tuple[Any, ...]) -> tuple[Image.Image, int, int] | None:
    """``piece(d, xy, *args)`` drawn alone on a transparent ``size`` tile, cropped to the
    pixels it covers, with where that crop lies in the tile; ``None`` when the piece
    leaves a pixel partly covered or reaches the tile's edge (then it is drawn in place).

    Cached: the board repeats its pills (characters, Quests, badges, card backs) at every
    move, and a pill costs ten times its paste to draw. Up to 160 sprites of ~15-30 KB.
    Callers only paste it."""
    tile = Image.new("RGBA", size, (0, 0, 0, 0))
    piece(ImageDraw.Draw(tile), xy, *args)
    alpha = tile.getchannel("A")
    if alpha.point(_PARTLY).getbbox() is not None:
        return None
    box = alpha.getbbox()
    if box is None or box[0] == 0 or box[1] == 0 or box[2] == size[0] or box[3] == size[1]:
        return None
    return tile.crop(box), box[0], box[1]


_PARTLY = [0] + [255] * 254 + [0]  # alpha -> 255 where a pixel is only partly covered


@lru_cache(maxsize=64)
def _sprite_in_place(piece: Piece, xy: tuple[float, ...], area: Box,
                     args: tuple[Any, ...]) -> tuple[Image.Image, int, int] | None:
    """Like :func:`_sprite` for a piece with polygons, drawn where it goes (on a tile from
    the canvas' origin to the far corner of ``area``: meant for pieces near the left
    edge), cached by its place: the owner markers of the seats' rows (on the row's own
    tile, :func:`_seat_row_image`). Up to 64 of ~6 KB."""
    x1, y1 = math.ceil(area[2]) + _SPRITE_PAD, math.ceil(area[3]) + _SPRITE_PAD
    tile = Image.new("RGBA", (x1, y1), (0, 0, 0, 0))
    piece(ImageDraw.Draw(tile), xy, *args)
    alpha = tile.getchannel("A")
    box = alpha.getbbox()
    if (alpha.point(_PARTLY).getbbox() is not None or box is None
            or box[2] == x1 or box[3] == y1):
        return None
    return tile.crop(box), box[0], box[1]


def _put_in_place(img: Image.Image, d: ImageDraw.ImageDraw, piece: Piece,
                  xy: tuple[float, ...], area: Box, *args: Any) -> None:
    """Draw ``piece(d, xy, *args)`` from :func:`_sprite_in_place` when it has one."""
    hit = _sprite_in_place(piece, xy, area, args)
    if hit is None:
        piece(d, xy, *args)
        return
    tile, x, y = hit
    img.paste(tile, (x, y), tile)


def _put(img: Image.Image, d: ImageDraw.ImageDraw, piece: Piece, xy: tuple[float, ...],
         area: Box, *args: Any) -> None:
    """Draw ``piece(d, xy, *args)`` from its sprite when it has one, else in place.
    ``xy``: the piece's coordinates (x, y, x, y...); ``area``: a box it stays inside."""
    ox = _even_floor(area[0]) - _SPRITE_PAD
    oy = _even_floor(area[1]) - _SPRITE_PAD
    if ox < 0 or oy < 0:
        piece(d, xy, *args)
        return
    local = tuple(v - (oy if i % 2 else ox) for i, v in enumerate(xy))
    size = (math.ceil(area[2] - ox) + _SPRITE_PAD, math.ceil(area[3] - oy) + _SPRITE_PAD)
    hit = _sprite(piece, local, size, args)
    if hit is None:
        piece(d, xy, *args)
        return
    tile, bx, by = hit
    img.paste(tile, (ox + bx, oy + by), tile)


def _quest_chip_face(d: ImageDraw.ImageDraw, box: tuple[float, ...], col: Color,
                     ongoing: bool, text: str) -> None:
    x0, y0, _, y1 = box
    d.rounded_rectangle(box, radius=(y1 - y0) / 2, fill=col,
                        outline=GOLD if ongoing else INK, width=4 if ongoing else 2)
    text_left(d, (x0 + 12, (y0 + y1) / 2), text, font(TYPE, bold=True), INK)


def _quest_chip_width(q: QuestMark, ongoing: bool) -> float:
    return (font(TYPE, bold=True).getlength(_quest_chip_text(q)) + 24
            + (30 if ongoing else 0))


def _quest_chip_text(q: QuestMark) -> str:
    return f"{GLYPH.get(q.faction, '')} {_quest_name(q.quest)}"


def _quest_chip(img: Image.Image, d: ImageDraw.ImageDraw, q: QuestMark, x: float, y: float,
                ongoing: bool) -> float:
    """The Quest's pill, left-middle at (x, y), by its full name; returns its right edge."""
    col = FACTION_COLOR.get(q.faction, NEUTRAL_MEM)
    box = (x, y - 20, x + _quest_chip_width(q, ongoing), y + 20)
    _put(img, d, _quest_chip_face, box, box, col, ongoing, _quest_chip_text(q))
    if ongoing:
        _pawn(d, (box[2] - 18, y + 1), 14)
    return box[2]


COUNTER_TILE = 2 * TOKEN_R + 28  # a Quest counter's tile: room for its notch and pawn


@lru_cache(maxsize=16)
def _counter_image(faction: str, ongoing: bool, carried: bool) -> Image.Image:
    """A Quest counter on a transparent tile, centred on it: a hexagon in its Faction's
    colour with the Faction's glyph; the Ongoing Quest's in gold with the pawn on it; one
    carried under a figure with a notch pointing at its carrier (the piece before it).

    Cached, and always pasted (an outlined polygon drawn on the whole picture costs a
    mask the size of the picture). Up to 16 of ~10 KB. Callers only paste it."""
    tile = Image.new("RGBA", (COUNTER_TILE, COUNTER_TILE), (0, 0, 0, 0))
    d = ImageDraw.Draw(tile)
    x = y = COUNTER_TILE / 2
    col = FACTION_COLOR.get(faction, NEUTRAL_MEM)
    if carried:
        d.polygon([(x - 31, y), (x - 22, y - 9), (x - 22, y + 9)], fill=col, outline=INK)
    draw_shape(d, "hexagon", (x, y), TOKEN_R, fill=col, outline=GOLD if ongoing else INK,
               width=5 if ongoing else 2)
    text_center(d, (x, y + 1), GLYPH.get(faction, ""), font(TYPE, bold=True), INK)
    if ongoing:
        _pawn(d, (x + TOKEN_R - 4, y - TOKEN_R + 8), 12)
    return tile


def _paste_centred(img: Image.Image, tile: Image.Image, c: Point) -> None:
    img.paste(tile, (round(c[0] - tile.width / 2), round(c[1] - tile.height / 2)), tile)


def _pawn(d: ImageDraw.ImageDraw, c: Point, r: float) -> None:
    """The Ongoing Quest pawn: a gold pawn with a dark outline."""
    x, y = c
    d.polygon([(x - r * 0.8, y + r), (x + r * 0.8, y + r), (x + r * 0.35, y - r * 0.1),
               (x - r * 0.35, y - r * 0.1)], fill=GOLD, outline=INK)
    d.ellipse((x - r * 0.5, y - r * 1.0, x + r * 0.5, y), fill=GOLD, outline=INK, width=2)


def _power_slot(d: ImageDraw.ImageDraw, c: Point, power: PowerMark | None) -> None:
    x, y = c
    r = 14
    if power is None:
        d.ellipse((x - r, y - r, x + r, y + r), outline=mix(LOC_EDGE, LOC_FILL, 0.3), width=2)
        return
    col = FACTION_COLOR.get(power.faction, GOLD)
    d.ellipse((x - r - 2, y - r - 2, x + r + 2, y + r + 2), fill=col, outline=INK, width=2)
    draw_shape(d, "star", (x, y), r * 0.72, fill=INK)


# --------------------------------------------------------------------------- the map


def _space_items(pic: Picture) -> dict[str, list[Any]]:
    """What stands in each space, in drawing order: Quest counters first, then figures."""
    items: dict[str, list[Any]] = {}
    figs = {f.id: f for f in pic.figures}
    for q in pic.quests:
        if q.carrier is None and q.space is not None:
            items.setdefault(q.space, []).append(q)
    for f in sorted(pic.figures, key=lambda f: (f.owner if f.owner is not None else 99, f.id)):
        if f.space is not None and not f.removed:
            items.setdefault(f.space, []).append(f)
    # a carried Quest counter sits right after its carrier figure
    for q in pic.quests:
        if q.carrier is not None and q.carrier in figs and figs[q.carrier].space is not None:
            lst = items.setdefault(figs[q.carrier].space or "", [])
            idx = next((i for i, it in enumerate(lst) if getattr(it, "id", None) == q.carrier),
                       len(lst) - 1)
            lst.insert(idx + 1, q)
    return items


def _draw_item(img: Image.Image, pic: Picture, item: Any, top_left: Point,
               powered: set[str]) -> None:
    """A piece in its cell (``top_left``: the cell's corner): a figure's token or a Quest
    counter, pasted from its tile."""
    x, y = top_left
    cx, cy = _token_center()
    if isinstance(item, QuestMark):
        _paste_centred(img, _counter_image(item.faction, item.counter == pic.ongoing,
                                           item.carrier is not None), (x + cx - 4, y + cy - 4))
        return
    tile = _token_image(item.owner, item.faction, item.incapacitated, item.id in powered)
    ox = x - 4 - (tile.width - ITEM_W - 8) / 2
    oy = y - 4 - (tile.height - ITEM_H - 8) / 2
    img.paste(tile, (round(ox), round(oy)), tile)


def _location_lines(name: str, width: float) -> tuple[str, ...]:
    """A Location's name as it fits its header at the board's type size: one line, or two
    split where the longer line is shortest (never cut: players type these names)."""
    fnt = font(TYPE, bold=True)
    if fnt.getlength(name) <= width:
        return (name,)
    words = name.split()
    splits = [(" ".join(words[:k]), " ".join(words[k:])) for k in range(1, len(words))]
    if not splits:
        return (name,)
    return min(splits, key=lambda ab: max(fnt.getlength(ab[0]), fnt.getlength(ab[1])))


def _location_name(d: ImageDraw.ImageDraw, name: str, left_middle: Point, width: float) -> None:
    x, y = left_middle
    lines = _location_lines(name, width)
    fnt = font(TYPE, bold=True)
    for k, line in enumerate(lines):
        text_left(d, (x, y + (k - (len(lines) - 1) / 2) * 31), line, fnt, TEXT)


LOC_BASE_H = LOC_HEAD + ITEM_H + ITEM_GAP + 8  # a Location's box with one row of pieces


@dataclass(frozen=True)
class LocLayout:
    """How a Location's box holds its pieces: its width, rows, pieces to a row and their
    pitch (narrower than a piece when a row overlaps them like a crowd)."""

    width: float
    rows: int
    per_row: int
    pitch: float


def _location_layout(loc: str, n: int) -> LocLayout:
    """Up to :data:`PER_ROW` pieces sit side by side in a row. A crowd widens the box
    towards the map's edge where there is room (:func:`_wide_side`: :data:`PER_ROW` + 1
    side by side, up to :data:`FAN_WIDE` overlapping), else overlaps up to
    :data:`FAN_MAX` in a row; past that, rows of them."""
    wide = _wide_side()[loc] != 0
    fan = FAN_WIDE if wide else FAN_MAX
    rows = max(1, math.ceil(n / fan))
    per_row = max(1, math.ceil(n / rows))
    width = LOC_W + WIDE_EXTRA if wide and per_row > PER_ROW else LOC_W
    side = math.floor((width - 16) / ITEM_W)
    pitch = ITEM_W if per_row <= side else (width - 16 - ITEM_W) / (per_row - 1)
    return LocLayout(width, rows, per_row, pitch)


def _location_places(layout: LocLayout, n: int) -> list[Point]:
    """The cells of ``n`` pieces in a Location's box laid out as ``layout`` (from the box's
    top-left corner). In an overlapping row each piece lies over the right side of the
    one before, which keeps the middle of every marker (its letter) and its left side
    (the ✕ of a figure down, the star of a Power) in sight."""
    x0 = (LOC_W - PER_ROW * ITEM_W) / 2
    return [(x0 + (i % layout.per_row) * layout.pitch,
             LOC_HEAD + 2 + (i // layout.per_row) * (ITEM_H + ITEM_GAP)) for i in range(n)]


def _location_boxes(items: dict[str, list[Any]]) -> dict[str, Box]:
    """Each Location's box (map coordinates): rows of pieces, wider or taller when crowded
    (:func:`_location_layout`), growing the way :func:`_grows_down` chose (and kept
    inside the map)."""
    pos = node_positions()
    boxes: dict[str, Box] = {}
    down = _grows_down()
    sides = _wide_side()
    for loc in _content().map.locations:
        cx, cy = pos[loc.id]
        lay = _location_layout(loc.id, len(items.get(loc.id, [])))
        h = LOC_HEAD + lay.rows * (ITEM_H + ITEM_GAP) + 8
        top = cy - LOC_BASE_H / 2
        if not down[loc.id]:
            top = top + LOC_BASE_H - h
        top = max(8, min(top, MAP_H - 8 - h))
        x0, x1 = cx - LOC_W / 2, cx + LOC_W / 2
        if lay.width > LOC_W:
            x0, x1 = (x0 - WIDE_EXTRA, x1) if sides[loc.id] < 0 else (x0, x1 + WIDE_EXTRA)
        boxes[loc.id] = (x0, top, x1, top + h)
    return boxes


@lru_cache(maxsize=1)
def _wide_side() -> dict[str, int]:
    """Which way each Location's box may widen for a crowd: towards the nearer edge of the
    map (-1: left, 1: right) when the wider box stays inside it, clear of the other
    Locations, the Squares, their names and the map's title; else 0 (it never widens)."""
    pos = node_positions()
    smallest = _smallest_boxes()
    keep_clear = [_title_box()[1]] + [box for _, box in square_labels().values()]
    for sq in _content().map.squares:
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 8
        keep_clear.append((x - r, y - r, x + r, y + r))
    w_map = WIDTH - 2 * MARGIN
    out: dict[str, int] = {}
    for loc, (x0, y0, x1, y1) in smallest.items():
        out[loc] = 0
        for side in sorted((-1, 1), key=lambda s: s * (w_map / 2 - (x0 + x1) / 2)):
            box = (x0 - WIDE_EXTRA, y0, x1, y1) if side < 0 else (x0, y0, x1 + WIDE_EXTRA, y1)
            others = [(b[0] - 16, b[1] - 16, b[2] + 16, b[3] + 16)
                      for k, b in smallest.items() if k != loc]
            if (box[0] >= 8 and box[2] <= w_map - 8
                    and not any(_overlaps(box, o) for o in keep_clear + others)):
                out[loc] = side
                break
    return out


def _smallest_boxes() -> dict[str, Box]:
    """Each Location's box with one row of side-by-side pieces: its smallest."""
    pos = node_positions()
    return {loc.id: (pos[loc.id][0] - LOC_W / 2, pos[loc.id][1] - LOC_BASE_H / 2,
                     pos[loc.id][0] + LOC_W / 2, pos[loc.id][1] + LOC_BASE_H / 2)
            for loc in _content().map.locations}


@lru_cache(maxsize=1)
def _grows_down() -> dict[str, bool]:
    """Whether each Location's box grows downwards (else upwards) when it needs a second
    row of pieces (:func:`_location_layout`): the way where that row covers the
    least of the Squares and of their names (a name weighs four times its area) and
    stays inside the map."""
    pos = node_positions()
    keep_clear = []
    for sq in _content().map.squares:
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 8
        keep_clear.append(((x - r, y - r, x + r, y + r), 1))
    keep_clear += [(box, 4) for _, box in square_labels().values()]
    row = ITEM_H + ITEM_GAP

    def cost(box: Box) -> float:
        out = 1e9 if box[1] < 8 or box[3] > MAP_H - 8 else 0.0
        for c, weight in keep_clear:
            w = min(box[2], c[2]) - max(box[0], c[0])
            h = min(box[3], c[3]) - max(box[1], c[1])
            out += weight * max(0.0, w) * max(0.0, h)
        return out

    grows: dict[str, bool] = {}
    for loc, (x0, top, x1, bottom) in _smallest_boxes().items():
        down = cost((x0, top, x1, bottom + row))
        up = cost((x0, top - row, x1, bottom))
        grows[loc] = down < up or (down == up and top < MAP_H / 2)
    return grows


def _draw_location_box(d: ImageDraw.ImageDraw, name: str, map_box: Box, ox: float,
                       oy: float, hot: bool, power: PowerMark | None) -> None:
    """A Location's box, header, name and Power slot (``map_box`` in map coordinates)."""
    bx0, by0, bx1, by1 = map_box
    box = (bx0 + ox, by0 + oy, bx1 + ox, by1 + oy)
    rounded_panel(d, box, fill=LOC_FILL, outline=GOLD if hot else LOC_EDGE, radius=14,
                  width=4 if hot else 3)
    d.rounded_rectangle((box[0] + 3, box[1] + 3, box[2] - 3, box[1] + LOC_HEAD),
                        radius=11, fill=mix(LOC_FILL, SNOW, 0.12))
    _location_name(d, name, (box[0] + 12, box[1] + LOC_HEAD / 2 + 2), LOC_W - 52)
    _power_slot(d, (box[2] - 24, box[1] + LOC_HEAD / 2 + 2), power)


@lru_cache(maxsize=1)
def _empty_location_boxes() -> dict[str, Box]:
    """Each Location's box when it holds one row of pieces (its smallest): the boxes drawn
    into :func:`board_top`."""
    return _location_boxes({})


def _boxes_apart(boxes: dict[str, Box]) -> bool:
    """Whether every Location's box, with room for a tipped-over token hanging out of
    it, stays clear of every other Location's box, as drawn now and as drawn into
    :func:`board_top`. Then the order the boxes are drawn in changes no pixel, and a
    Location whose box is the empty one of the top needs no redrawing."""
    empty = _empty_location_boxes()
    m = 16
    for a, (x0, y0, x1, y1) in boxes.items():
        grown = (x0 - m, y0 - m, x1 + m, y1 + m)
        if any(b != a and (_overlaps(grown, boxes[b]) or _overlaps(grown, empty[b]))
               for b in boxes):
            return False
    return True


def _draw_locations(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, ox: float,
                    oy: float, items: dict[str, list[Any]], powered: set[str],
                    boxes: dict[str, Box], redraw_all: bool) -> None:
    """The Locations and their pieces. The map of :func:`board_top` holds every box at its
    smallest: unless ``redraw_all``, only a box that differs (taller, the Ongoing Quest's,
    a Power in its slot) is drawn again, over the smaller one it covers."""
    powers_at = {p.location: p for p in pic.powers if p.location}
    active_space = _quest_space(pic, pic.ongoing) if pic.ongoing else None
    empty = _empty_location_boxes()
    for loc in _content().map.locations:
        hot = active_space == loc.id
        power = powers_at.get(loc.id)
        if redraw_all or hot or power is not None or boxes[loc.id] != empty[loc.id]:
            _draw_location_box(d, loc.name, boxes[loc.id], ox, oy, hot, power)
        box = (boxes[loc.id][0] + ox, boxes[loc.id][1] + oy)
        here = items.get(loc.id, [])
        places = _location_places(_location_layout(loc.id, len(here)), len(here))
        for it, (x, y) in zip(here, places, strict=True):
            _draw_item(img, pic, it, (box[0] + x, box[1] + y), powered)


def _overlaps(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _square_trays(items: dict[str, list[Any]],
                  loc_boxes: dict[str, Box]) -> dict[str, tuple[Box, list[Point]]]:
    """Where each Square's pieces go (map coordinates): a tray beside the Square, in the
    free direction closest to "towards the middle of town", clear of Locations, other
    Squares and their names, and the other trays."""
    counts = tuple(len(items.get(sq.id, [])) for sq in _content().map.squares)
    return {sq: (tray, list(places))
            for sq, tray, places in _trays_for(counts, tuple(loc_boxes.values()))}


@lru_cache(maxsize=64)
def _trays_for(counts: tuple[int, ...], loc_boxes: tuple[Box, ...]
               ) -> tuple[tuple[str, Box, tuple[Point, ...]], ...]:
    """:func:`_square_trays` by the number of pieces in each Square and the Locations'
    boxes, the only things it depends on; cached (a few hundred bytes each) because the
    search tries up to a thousand placements, and a table's crowds change slowly."""
    pos = node_positions()
    mw, mh = WIDTH - 2 * MARGIN, MAP_H
    squares = _content().map.squares
    obstacles: list[Box] = [(b[0] - 6, b[1] - 6, b[2] + 6, b[3] + 6) for b in loc_boxes]
    labels = square_labels()
    for sq in squares:
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 8
        obstacles.append((x - r, y - r, x + r, y + r))
        obstacles.append(labels[sq.id][1])  # its name
    obstacles.append(_title_box()[1])
    out: list[tuple[str, Box, tuple[Point, ...]]] = []
    for sq, n in zip(squares, counts, strict=True):
        if not n:
            continue
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 10
        toward = math.atan2(mh / 2 - y, mw / 2 - x) if not sq.statue else 0.0
        angles = sorted((k * math.pi / 8 for k in range(16)),
                        key=lambda a: abs(math.remainder(a - toward, 2 * math.pi)))
        # a row of up to 3 first, then a column, then rows of 2
        layouts = list(dict.fromkeys([min(n, 3), 1] + ([2] if n > 1 else [])))
        chosen: Box | None = None
        cols = layouts[0]
        for extra in (0, 18, 36, 60, 90, 120):
            for cols in layouts:
                rows = math.ceil(n / cols)
                tw = cols * ITEM_W + 10
                th = rows * (ITEM_H + ITEM_GAP) - ITEM_GAP + 10
                for a in angles:
                    ux, uy = math.cos(a), math.sin(a)
                    reach = r + extra + abs(ux) * tw / 2 + abs(uy) * th / 2
                    cx, cy = x + ux * reach, y + uy * reach
                    tray = (cx - tw / 2, cy - th / 2, cx + tw / 2, cy + th / 2)
                    if tray[0] < 6 or tray[1] < 6 or tray[2] > mw - 6 or tray[3] > mh - 6:
                        continue
                    if any(_overlaps(tray, o) for o in obstacles):
                        continue
                    chosen = tray
                    break
                if chosen is not None:
                    break
            if chosen is not None:
                break
        if chosen is None:  # crowded beyond help: beside the Square, towards the middle
            cols = layouts[0]
            tw = cols * ITEM_W + 10
            th = math.ceil(n / cols) * (ITEM_H + ITEM_GAP) - ITEM_GAP + 10
            side = 1 if x < mw / 2 else -1
            cx = x + side * (r + tw / 2)
            chosen = (cx - tw / 2, y - th / 2, cx + tw / 2, y + th / 2)
        obstacles.append(chosen)
        places = tuple((chosen[0] + 5 + (k % cols) * ITEM_W,
                        chosen[1] + 5 + (k // cols) * (ITEM_H + ITEM_GAP)) for k in range(n))
        out.append((sq.id, chosen, places))
    return tuple(out)


def _draw_square_items(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, ox: float,
                       oy: float, items: dict[str, list[Any]], powered: set[str],
                       trays: dict[str, tuple[Box, list[Point]]]) -> None:
    pos = node_positions()
    for sq_id, (tray, places) in trays.items():
        x0, y0, x1, y1 = tray
        # a faint tray and a tie to its Square, so the group reads as "in this Square"
        sx, sy = pos[sq_id]
        cx, cy = min(max(sx, x0), x1), min(max(sy, y0), y1)
        d.line((sx + ox, sy + oy, cx + ox, cy + oy), fill=STREET, width=3)
        d.rounded_rectangle((x0 + ox, y0 + oy, x1 + ox, y1 + oy), radius=10,
                            fill=mix(NIGHT, SQUARE_FILL, 0.6), outline=STREET, width=2)
        for it, (px, py) in zip(items[sq_id], places, strict=True):
            _draw_item(img, pic, it, (px + ox, py + oy), powered)


def _quest_space(pic: Picture, counter: str | None) -> str | None:
    for q in pic.quests:
        if q.counter == counter:
            if q.carrier is not None:
                f = next((f for f in pic.figures if f.id == q.carrier), None)
                return f.space if f else None
            return q.space
    return None


def _draw_map_frame(img: Image.Image, d: ImageDraw.ImageDraw, top: float) -> None:
    img.paste(static_map(), (MARGIN, round(top)))
    d.rounded_rectangle((MARGIN, top, WIDTH - MARGIN, top + MAP_H), radius=18, outline=GRID,
                        width=3)


@lru_cache(maxsize=1)
def board_top() -> Image.Image:
    """The top of every board, the same for every table: the banner's panel, and the map
    in its frame with every Location's box at its smallest (one row of pieces), down
    to the frame's bottom edge (drawn in the order :func:`draw` would draw them, so the
    pixels are those of drawing them anew). About 5 MB, drawn once per process; each
    render pastes it (never draws on it)."""
    img = new_canvas(WIDTH, MAP_TOP + MAP_H + 1, BG)
    d = ImageDraw.Draw(img)
    rounded_panel(d, (MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + BANNER_H), fill=PANEL,
                  outline=GRID, radius=16)
    _draw_map_frame(img, d, MAP_TOP)
    boxes = _empty_location_boxes()
    for loc in _content().map.locations:
        _draw_location_box(d, loc.name, boxes[loc.id], MARGIN, MAP_TOP, False, None)
    return img


def _draw_map(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, top: float) -> float:
    """The pieces on the map of :func:`board_top` (already on ``img``)."""
    items = _space_items(pic)
    powered = {c for p in pic.powers for c in p.characters}
    boxes = _location_boxes(items)
    trays = _square_trays(items, boxes)
    redraw_all = not _boxes_apart(boxes)
    if redraw_all:  # a crowded Location reaches another: draw them all in order, afresh
        _draw_map_frame(img, d, top)
    _draw_locations(img, d, pic, MARGIN, top, items, powered, boxes, redraw_all)
    _draw_square_items(img, d, pic, MARGIN, top, items, powered, trays)
    return top + MAP_H


# --------------------------------------------------------------------------- banner & strips


def _status(pic: Picture) -> tuple[str, str, Color]:
    made = sum(1 for m in pic.memories if m.slot < pic.epilogue_space)
    if pic.chapter <= 0:
        head = f"Winter Tales · Setup · a story of {pic.length} Memories"
    else:
        head = f"Winter Tales · Chapter {pic.chapter} · Memories {made}/{pic.length}"
    if pic.winner is not None:
        score = ""
        if pic.final:
            score = " · " + " · ".join(f"{FACTION_LABEL.get(k, k.title())} {v}"
                                       for k, v in pic.final.items())
        who = {"spring": "Spring wins", "winter": "Winter wins", "writer": "The Writer wins",
               "none": "Nobody wins"}.get(pic.winner, f"{pic.winner} wins")
        return f"The story is told: {who}", head.replace("Winter Tales · ", "") + score, GOOD
    if pic.phase == "epilogue" or pic.epilogue_count is not None:
        return head, "The Epilogue: " + _counts_text(pic.epilogue_count or {}), GOLD
    acting = ""
    if pic.acting is not None:
        fac = FACTION_LABEL.get(_faction_of(pic, pic.acting), "?")
        acting = f"Acting: {pic.name(pic.acting)} ({fac})"
    waiting = ""
    if pic.to_act and pic.to_act != [pic.acting]:
        waiting = "Waiting for " + ", ".join(pic.name(s) for s in pic.to_act[:3])
        if len(pic.to_act) > 3:
            waiting += f" +{len(pic.to_act) - 3}"
    second = " · ".join(p for p in (acting, waiting) if p) or pic.decision or pic.phase
    return head, second, GOLD


def _counts_text(counts: dict[str, int]) -> str:
    return (f"Spring {counts.get('spring', 0)} · Winter {counts.get('winter', 0)}")


def _banner_lines(pic: Picture, width: float) -> list[str]:
    """The banner's lines under its head: who acts (and who is awaited), and what is being
    decided when the first line does not say it."""
    _, second, _ = _status(pic)
    fnt = font(TYPE)
    lines = wrap_text(second, fnt, width) if second else []
    if pic.decision and pic.winner is None and pic.decision not in second:
        lines = lines[:1] + wrap_text(pic.decision, fnt, width)[:1]
    return [ellipsize(line, fnt, width) for line in lines[:2]]


def _draw_banner(d: ImageDraw.ImageDraw, pic: Picture, box: Box) -> None:
    """The banner's words and accent, on its panel (in :func:`board_top`)."""
    x0, y0, x1, y1 = box
    head, _, accent = _status(pic)
    d.rounded_rectangle((x0, y0, x0 + 12, y1), radius=6, fill=accent)
    fnt = font(TITLE, bold=True)
    text_left(d, (x0 + 30, y0 + 32), ellipsize(head, fnt, x1 - x0 - 60), fnt, TEXT)
    y = y0 + 72
    for line in _banner_lines(pic, x1 - x0 - 60):
        text_left(d, (x0 + 30, y), line, font(TYPE), MUTED)
        y += 34


def _quest_where(pic: Picture, q: QuestMark) -> str:
    where_id = _quest_space(pic, q.counter)
    where = _space_name(where_id) if where_id else "off the map"
    if q.carrier is not None:
        where = f"under {_name(q.carrier)}, {where}"
    return where


def _quest_name(quest: str) -> str:
    try:
        return _content().quest(quest).name
    except ValueError:
        return quest


def _space_name(space: str) -> str:
    try:
        return _content().map.space(space).name
    except ValueError:
        return space


def _panel(d: ImageDraw.ImageDraw, top: float, h: float, title: str) -> None:
    """A full-width panel with its title at the top left."""
    rounded_panel(d, (MARGIN, top, WIDTH - MARGIN, top + h), fill=PANEL, outline=GRID,
                  radius=14)
    text_left(d, (MARGIN + 18, top + 28), title, font(TYPE, bold=True), TEXT)


@dataclass(frozen=True)
class QuestRow:
    """A Quest on the strip: its pill, and where its counter lies, beside the pill when
    it fits there, else on lines of their own under it."""

    quest: QuestMark
    ongoing: bool
    where: tuple[str, ...]
    beside: bool

    @property
    def lines(self) -> int:
        return 1 if self.beside else 1 + len(self.where)


STRIP_HEAD = 58
STRIP_X = MARGIN + 18
STRIP_W = WIDTH - 2 * MARGIN - 36


def _quest_rows(pic: Picture) -> list[QuestRow]:
    fnt = font(TYPE)
    rows = []
    for q in pic.quests:
        ongoing = q.counter == pic.ongoing
        where = _quest_where(pic, q) + ("  (the Ongoing Quest)" if ongoing else "")
        chip = _quest_chip_width(q, ongoing)
        if chip + 16 + fnt.getlength(where) <= STRIP_W:
            rows.append(QuestRow(q, ongoing, (where,), True))
        else:
            rows.append(QuestRow(q, ongoing, tuple(wrap_text(where, fnt, STRIP_W - 40)), False))
    return rows


def _strip_notes(pic: Picture) -> list[str]:
    bits = []
    if pic.ongoing and pic.ongoing_count:
        bits.append(f"Ongoing Quest count: {_counts_text(pic.ongoing_count)}")
    if pic.trap_hidden_count is not None:
        bits.append(f"Trap: {pic.trap_hidden_count} card(s) hidden under the character")
    fnt = font(TYPE, bold=True)
    return [line for bit in bits for line in wrap_text(bit, fnt, STRIP_W)]


def _quest_strip_height(pic: Picture) -> int:
    return _strip_height(tuple(_quest_rows(pic)), tuple(_strip_notes(pic)))


def _strip_height(rows: tuple[QuestRow, ...], notes: tuple[str, ...]) -> int:
    return STRIP_HEAD + ((sum(r.lines for r in rows) or 1) + len(notes)) * LINE + 6


def _draw_quest_strip(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture,
                      top: float) -> float:
    strip = _strip_image(tuple(_quest_rows(pic)), tuple(_strip_notes(pic)))
    img.paste(strip, (0, round(top)))
    text_left(d, (STRIP_X + font(TYPE, bold=True).getlength("Quests on the board") + 30,
                  top + 28), f"Story deck {pic.deck_count} · discard {pic.discard_count}",
              font(TYPE), MUTED)
    return top + strip.height - 1


@lru_cache(maxsize=4)
def _strip_image(rows: tuple[QuestRow, ...], notes: tuple[str, ...]) -> Image.Image:
    """The Quest strip (but its deck and discard counts): a full-width strip drawn at top
    0, down to the panel's bottom edge. Cached: the Quests on the board change a few
    times a chapter. Up to 4 of ~1 MB. Callers only paste it."""
    h = _strip_height(rows, notes)
    img = new_canvas(WIDTH, h + 1, BG)
    d = ImageDraw.Draw(img)
    _panel(d, 0, h, "Quests on the board")
    y = STRIP_HEAD + LINE / 2
    if not rows:
        text_left(d, (STRIP_X, y), "No Quest counter on the board.", font(TYPE), DIM)
        y += LINE
    for row in rows:
        right = _quest_chip(img, d, row.quest, STRIP_X, y, row.ongoing)
        if row.beside:
            text_left(d, (right + 16, y), row.where[0], font(TYPE), TEXT)
            y += LINE
            continue
        for line in row.where:
            y += LINE
            text_left(d, (STRIP_X + 40, y), line, font(TYPE), TEXT)
        y += LINE
    for line in notes:
        text_left(d, (STRIP_X, y), line, font(TYPE, bold=True), GOLD)
        y += LINE
    return img


def _objective_icon(d: ImageDraw.ImageDraw, c: Point, r: float, fill: Color = GOLD) -> None:
    """The Objective icon of the Memory Track: a small target."""
    x, y = c
    d.ellipse((x - r, y - r, x + r, y + r), fill=INK, outline=fill, width=max(2, round(r / 4)))
    d.ellipse((x - r * 0.45, y - r * 0.45, x + r * 0.45, y + r * 0.45), fill=fill)


def _bookmark(d: ImageDraw.ImageDraw, x: float, y: float, h: float = 46) -> None:
    """The Bookmark: a red ribbon hanging down with a notched tail."""
    w = 22
    d.polygon([(x, y), (x + w, y), (x + w, y + h), (x + w / 2, y + h - 9), (x, y + h)],
              fill=BOOKMARK, outline=INK)


TRACK_HEAD = 56
CELL_GAP = 10


def _track_cells() -> tuple[float, float, float]:
    """The Memory Track's cells: the first one's left edge, their width and the gap
    between them (:data:`CELLS_PER_ROW` to a row)."""
    n = CELLS_PER_ROW
    return MARGIN + 14, (WIDTH - 2 * MARGIN - 28 - CELL_GAP * (n - 1)) / n, CELL_GAP


def _track_count(pic: Picture) -> int:
    """How many spaces the track shows: up to the Epilogue tile (and any Memory or the
    Bookmark beyond it), in whole rows; a 3-Memory story needs one row of 4."""
    last = max([pic.epilogue_space, pic.bookmark or 0] + [m.slot for m in pic.memories])
    return max(1, math.ceil(last / CELLS_PER_ROW)) * CELLS_PER_ROW


def _track_height(pic: Picture) -> int:
    return _track_panel_height(_track_count(pic) // CELLS_PER_ROW)


def _track_panel_height(rows: int) -> int:
    return TRACK_HEAD + rows * (CELL_H + CELL_GAP) + 4


def _cell_origin(i: int, top: float) -> Point:
    x0, cw, gap = _track_cells()
    col, row = (i - 1) % CELLS_PER_ROW, (i - 1) // CELLS_PER_ROW
    return x0 + col * (cw + gap), top + TRACK_HEAD + row * (CELL_H + CELL_GAP)


def _draw_track(d: ImageDraw.ImageDraw, img: Image.Image, pic: Picture, top: float) -> float:
    n = _track_count(pic)
    img.paste(_track_panel(n // CELLS_PER_ROW), (0, round(top)))
    _, cw, _ = _track_cells()
    by_slot = {m.slot: m for m in pic.memories}
    for i in range(1, n + 1):
        cx, cy0 = _cell_origin(i, top)
        cy1 = cy0 + CELL_H
        mem = by_slot.get(i)
        kind = "memory" if mem is not None else (
            "epilogue" if i == pic.epilogue_space else
            "beyond" if i > pic.epilogue_space else "empty")
        # a cell's tile reaches 2-4 px past it, into the gap of bare panel around it
        ox = _even_floor(cx) - 2
        img.paste(_track_cell(i, kind, mem), (ox, round(cy0) - 2))
        # then the Quest counter on its Memory (a tile) and the Bookmark (a polygon)
        if mem is not None and mem.counter_faction is not None:
            _memory_counter(img, mem.counter_faction, (cx, cy0, cx + cw, cy1))
        if pic.bookmark == i:
            _bookmark(d, cx + cw / 2 - 11, cy0 - 8, 44)
    return top + _track_height(pic)


def _track_legend() -> tuple[float, float]:
    """Where the track's legend puts its Objective icon and its Bookmark (x)."""
    objective = MARGIN + 18 + font(TYPE, bold=True).getlength("Memory Track") + 40
    return objective, objective + 22 + font(TYPE).getlength("Objective space") + 36


@lru_cache(maxsize=2)
def _track_panel(rows: int) -> Image.Image:
    """The Memory Track's bare panel of ``rows`` rows with its title and legend: a
    full-width strip drawn at top 0 (always pasted, never drawn in place), down to the
    panel's bottom edge. ~1-2 MB, drawn once per height."""
    h = _track_panel_height(rows)
    img = new_canvas(WIDTH, h + 1, BG)
    d = ImageDraw.Draw(img)
    _panel(d, 0, h, "Memory Track")
    objective, bookmark = _track_legend()
    _objective_icon(d, (objective, 28), 12)
    text_left(d, (objective + 22, 28), "Objective space", font(TYPE), MUTED)
    _bookmark(d, bookmark, 14, 28)
    text_left(d, (bookmark + 32, 28), "Bookmark", font(TYPE), MUTED)
    return img


@lru_cache(maxsize=24)
def _track_cell(i: int, kind: str, mem: MemoryCell | None) -> Image.Image:
    """Cell ``i`` of the Memory Track on its bit of bare panel, as ``kind`` (empty, the
    Epilogue's, beyond the Epilogue, or holding ``mem``) without the Quest counter on
    it, 2 px above and 2-4 px left of the cell (even offsets: see _sprite).

    Cached: a cell changes a few times a game. Up to 24 of ~200 KB. Callers only paste it."""
    cx, _ = _cell_origin(i, 0)
    _, cw, _ = _track_cells()
    cx -= _even_floor(cx) - 2
    cy0, cy1 = 2, 2 + CELL_H
    img = new_canvas(math.ceil(cx + cw) + 4, cy1 + 3, PANEL)
    d = ImageDraw.Draw(img)
    cell = (cx, cy0, cx + cw, cy1)
    mid = ((cell[0] + cell[2]) / 2, (cell[1] + cell[3]) / 2)
    if kind == "epilogue":
        _epilogue_tile(d, cell)
    elif kind == "beyond":
        rounded_panel(d, cell, fill=mix(PANEL, BG, 0.5), outline=mix(GRID, PANEL, 0.5),
                      radius=10, width=2)
        text_center(d, mid, "—", font(TYPE), DIM)
    elif mem is None:
        rounded_panel(d, cell, fill=PANEL_HI, outline=GRID, radius=10, width=2)
        text_center(d, (mid[0], mid[1] + 12), "empty", font(TYPE), DIM)
    else:
        _memory_card(d, img, mem, cell)
    text_left(d, (cx + 12, cy0 + 24), str(i), font(TYPE, bold=True),
              INK if kind in ("memory", "epilogue") else MUTED)
    if i in set(_content().memory_track.objective_spaces):
        _objective_icon(d, (cx + cw - 22, cy0 + 22), 13)
    return img


def _epilogue_tile(d: ImageDraw.ImageDraw, cell: Box) -> None:
    rounded_panel(d, cell, fill=GOLD, outline=HIGHLIGHT, radius=10, width=3)
    cx = (cell[0] + cell[2]) / 2
    cy = (cell[1] + cell[3]) / 2
    text_center(d, (cx, cy - 2), "Epilogue", font(TITLE, bold=True), INK)
    text_center(d, (cx, cy + 46), "❦", font(36, bold=True), GOLD_DARK)


def _memory_card(d: ImageDraw.ImageDraw, img: Image.Image, mem: MemoryCell, cell: Box) -> None:
    """A Memory card in its cell, without the Quest counter on it (:func:`_memory_counter`)."""
    col = FACTION_COLOR.get(mem.faction, NEUTRAL_MEM)
    rounded_panel(d, cell, fill=col, outline=HIGHLIGHT, radius=10, width=2)
    x0, _, x1, _ = cell
    art_box = _memory_art_box(cell)
    if mem.source == "quest" and mem.card.startswith("story"):
        art = card_art(mem.card, art_box[2] - art_box[0], art_box[3] - art_box[1],
                       mem.faction)
        img.paste(art, art_box[:2])
    else:  # neutral and Objective Memories carry no picture
        d.rectangle(art_box, fill=mix(col, INK, 0.25))
        text_center(d, ((art_box[0] + art_box[2]) / 2, (art_box[1] + art_box[3]) / 2),
                    "◎" if mem.source == "objective" else "◇", font(40, bold=True),
                    mix(col, TEXT, 0.5))
    fnt = font(TYPE, bold=True)
    lines = wrap_text(mem.title, fnt, x1 - x0 - 14)
    if len(lines) > 2:
        lines = [lines[0], ellipsize(" ".join(lines[1:]), fnt, x1 - x0 - 14)]
    y = art_box[3] + 22
    for line in lines:
        text_center(d, ((x0 + x1) / 2, y), line, fnt, INK)
        y += 31


def _memory_art_box(cell: Box) -> tuple[int, int, int, int]:
    x0, y0, x1, _ = cell
    return (round(x0 + 8), round(y0 + 42), round(x1 - 8), round(y0 + 130))


def _memory_counter(img: Image.Image, faction: str, cell: Box) -> None:
    """The Quest counter lying on a Memory card (pasted after the card)."""
    _paste_centred(img, _memory_counter_image(faction),
                   (cell[2] - 30, _memory_art_box(cell)[3] - 8))


@lru_cache(maxsize=4)
def _memory_counter_image(faction: str) -> Image.Image:
    """A Quest counter lying on a Memory: a hexagon with its Faction's glyph, on a
    transparent tile (always pasted, like :func:`_counter_image`). Callers only paste it."""
    tile = Image.new("RGBA", (60, 60), (0, 0, 0, 0))
    d = ImageDraw.Draw(tile)
    draw_shape(d, "hexagon", (30, 30), 23, fill=FACTION_COLOR.get(faction, NEUTRAL_MEM),
               outline=INK, width=2)
    text_center(d, (30, 31), GLYPH.get(faction, ""), font(TYPE, bold=True), INK)
    return tile


# --------------------------------------------------------------------------- players


SEATS_HEAD = 58
ROW_X0, ROW_X1 = MARGIN + 10, WIDTH - MARGIN - 10
# in a row, from its left edge:
NAME_X = 70  # the seat's name, right of its marker
ITEMS_X = 16  # its characters, on the lines under its name
COUNTS_X = ROW_X1 - ROW_X0 - 224  # its card and Objective counts
ITEMS_END = ROW_X1 - ROW_X0 - 16
ROW_FIRST = 32  # the middle of a row's first line (name, badges, counts), from its top
ROW_STEP = 48  # from the first line to the first line of characters


@dataclass(frozen=True)
class SeatRow:
    """A seat's row laid out: each character's pill (and the space it stands in) on lines
    under the seat's name, then its Powers and face-up Objectives, in gold."""

    seat: int
    chips: tuple[tuple[Fig, float, int, bool], ...]  # figure, left x (in the row), line, powered
    places: tuple[tuple[str, float, int], ...]  # the space's name, left x, line
    notes: tuple[str, ...]
    lines: int  # lines of characters (1 when there is none: "no characters yet")

    @property
    def height(self) -> int:
        return ROW_FIRST + ROW_STEP + (self.lines + len(self.notes) - 1) * LINE + 28

    def line_y(self, top: float, line: int) -> float:
        return top + ROW_FIRST + ROW_STEP + line * LINE


def _chip_text(f: Fig) -> str:
    state = " †" if f.removed else " ✕" if f.incapacitated else ""
    return f"{GLYPH.get(f.faction, '')} {_name(f.id)}{state}"


def _chip_width(f: Fig, powered: bool) -> float:
    return font(TYPE, bold=True).getlength(_chip_text(f)) + 24 + (24 if powered else 0)


def _seat_rows(pic: Picture) -> list[SeatRow]:
    powered = {c for p in pic.powers for c in p.characters}
    figs_by_owner: dict[int, list[Fig]] = {}
    for f in pic.figures:
        if f.owner is not None:
            figs_by_owner.setdefault(f.owner, []).append(f)
    place_font = font(TYPE)
    rows = []
    for seat in range(pic.players):
        chips, places = [], []
        x, line = float(ITEMS_X), 0
        for f in sorted(figs_by_owner.get(seat, []), key=lambda f: (f.faction, f.id)):
            w = _chip_width(f, f.id in powered)
            place = _space_name(f.space) if f.space is not None and not f.removed else ""
            full = w + (10 + place_font.getlength(place) if place else 0)
            if x > ITEMS_X and x + full > ITEMS_END:
                x, line = float(ITEMS_X), line + 1
            chips.append((f, x, line, f.id in powered))
            if place:
                places.append((place, x + w + 10, line))
            x += full + 26
        held = [p for p in pic.powers if p.holder == seat]
        face_up = [t.split(":", 1)[0] for s_, t in pic.revealed_objectives if s_ == seat]
        note = "   ".join(([("★ " + ", ".join(_quest_name(p.quest) for p in held))]
                           if held else []) + [f"◎ {t} (face up)" for t in face_up])
        notes = wrap_text(note, font(TYPE, bold=True), ITEMS_END - ITEMS_X) if note else []
        rows.append(SeatRow(seat, tuple(chips), tuple(places), tuple(notes), line + 1))
    return rows


def _seats_height(rows: Sequence[SeatRow]) -> int:
    return SEATS_HEAD + sum(r.height + 6 for r in rows) + 4


def _card_stack(d: ImageDraw.ImageDraw, c: tuple[float, ...], count: int) -> None:
    x, y = c
    for k in (2, 1, 0):
        off = k * 4
        d.rounded_rectangle((x - 20 + off, y - 25 - off, x + 20 + off, y + 25 - off), radius=6,
                            fill=mix((0x4B, 0x3F, 0x72), TEXT, 0.08 * k), outline=INK, width=2)
    text_center(d, (x, y), str(count), font(TYPE, bold=True), TEXT)


def _card_back(img: Image.Image, d: ImageDraw.ImageDraw, c: Point, count: int) -> None:
    x, y = c
    _put(img, d, _card_stack, c, (x - 20, y - 33, x + 28, y + 25), count)


def _badge(img: Image.Image, d: ImageDraw.ImageDraw, anchor: Point, text: str,
           fnt: ImageFont.FreeTypeFont, fill: Color, text_fill: Color | None = None,
           outline: Color | None = None) -> float:
    """:func:`badge` (left-aligned, default padding) from its sprite; returns the badge's
    right edge, where common.badge puts it (its text's length and 10 px each side)."""
    x, y = anchor
    w = fnt.getlength(text) + 20
    _put(img, d, badge, anchor, (x, y - fnt.size, x + w, y + fnt.size), text, fnt, fill,
         text_fill, (10, 4), "left", outline)
    return x + w


def _seat_marker(d: ImageDraw.ImageDraw, c: tuple[float, ...], seat: int) -> None:
    owner_marker(d, owner_style(seat), (c[0], c[1]), TOKEN_R)


def _seat_badges(pic: Picture, seat: int) -> list[tuple[str, Color, Color | None, bool]]:
    """The pills after a seat's name: (text, fill, text colour, outlined)."""
    out: list[tuple[str, Color, Color | None, bool]] = []
    fac = _faction_of(pic, seat)
    if fac:
        out.append((f"{GLYPH.get(fac, '')} {FACTION_LABEL.get(fac, fac)}",
                    FACTION_COLOR.get(fac, NEUTRAL_MEM), None, False))
    if seat == pic.arbiter:
        out.append(("⚖ Arbiter", GOLD, None, False))
    if seat == pic.acting:
        out.append(("▶ acting", HIGHLIGHT, None, False))
    elif seat in pic.to_act:
        out.append(("to act", PANEL, GOLD, True))
    return out


def _draw_seats(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, top: float) -> float:
    rows = _seat_rows(pic)
    h = _seats_height(rows)
    _panel(d, top, h, "Players")
    text_left(d, (MARGIN + 18 + font(TYPE, bold=True).getlength("Players") + 30, top + 28),
              "ready = bright · activated = dim, flipped · ✕ = incapacitated", font(TYPE),
              MUTED)
    y = round(top) + SEATS_HEAD
    for row in rows:
        seat = row.seat
        hc = pic.hand_counts[seat] if seat < len(pic.hand_counts) else 0
        oc = pic.objective_counts[seat] if seat < len(pic.objective_counts) else 0
        img.paste(_seat_row_image(row, pic.name(seat), tuple(_seat_badges(pic, seat)), hc, oc,
                                  seat == pic.acting, seat in pic.to_act), (ROW_X0, y))
        y += row.height + 6
    return top + h


@lru_cache(maxsize=24)
def _seat_row_image(row: SeatRow, name: str, badges: tuple[tuple[str, Color, Color | None,
                                                                   bool], ...],
                    hand: int, objectives: int, acting: bool, waiting: bool) -> Image.Image:
    """A seat's row on its bit of the players' panel: its marker, name and pills, its card
    and Objective counts (never their faces), its characters and where they stand, its
    Powers. Always drawn on its own tile and pasted (so a cached row is the row drawn).

    Cached: between two pictures of a table most rows stay as they were. Up to 24 of
    ~350 KB. Callers only paste it."""
    tile = new_canvas(ROW_X1 - ROW_X0 + 1, row.height + 1, PANEL)
    d = ImageDraw.Draw(tile)
    rounded_panel(d, (0, 0, ROW_X1 - ROW_X0, row.height),
                  fill=PANEL_HI if acting else mix(PANEL, PANEL_HI, 0.4),
                  outline=GOLD if waiting else None, radius=12, width=3)
    bold = font(TYPE, bold=True)
    ly = ROW_FIRST
    _put_in_place(tile, d, _seat_marker, (36, ly), (4, ly - 32, 68, ly + 32), row.seat)
    room = COUNTS_X - 16 - NAME_X - sum(bold.getlength(b[0]) + 30 for b in badges)
    name_font = font(TITLE, bold=True)
    nb = text_left(d, (NAME_X, ly), ellipsize(name, name_font, max(90, room)), name_font, TEXT)
    x = nb[2] + 14
    for text, fill, ink, outlined in badges:
        x = _badge(tile, d, (x, ly), text, bold, fill, ink, GOLD if outlined else None) + 10
    _card_back(tile, d, (COUNTS_X + 22, ly + 2), hand)
    text_left(d, (COUNTS_X + 56, ly), "cards", font(TYPE), MUTED)
    if objectives:
        _objective_icon(d, (COUNTS_X + 160, ly), 13)
        text_left(d, (COUNTS_X + 178, ly), f"×{objectives}", bold, TEXT)
    if not row.chips:
        text_left(d, (ITEMS_X, row.line_y(0, 0)), "no characters yet", font(TYPE), DIM)
    for f, cx, line, powered in row.chips:
        _char_chip(tile, d, f, cx, row.line_y(0, line), powered)
    for place, px, line in row.places:
        text_left(d, (px, row.line_y(0, line)), place, font(TYPE), MUTED)
    for k, note in enumerate(row.notes):
        text_left(d, (ITEMS_X, row.line_y(0, row.lines + k)), note, bold, GOLD)
    return tile


def _char_chip_face(d: ImageDraw.ImageDraw, c: tuple[float, ...], w: float, fill: Color,
                    outline: Color, ink: Color, text: str) -> None:
    x, y = c
    d.rounded_rectangle((x, y - 20, x + w, y + 20), radius=20, fill=fill, outline=outline,
                        width=2)
    text_left(d, (x + 12, y), text, font(TYPE, bold=True), ink)


def _char_chip(img: Image.Image, d: ImageDraw.ImageDraw, f: Fig, x: float, y: float,
               powered: bool) -> None:
    """A character's pill: its Faction's glyph and its full printed name, bright when
    ready, dim when activated, outlined in red with ✕ when incapacitated, struck with †
    when out of the story."""
    text = _chip_text(f)
    w = _chip_width(f, powered)
    col = FACTION_COLOR.get(f.faction, NEUTRAL_MEM)
    box = (x, y - 20, x + w, y + 20)
    if f.removed:
        face = (PANEL, DIM, DIM)
    elif f.ready and not f.incapacitated:
        face = (col, INK, INK)
    else:  # activated (the card flipped) or down: a dim, outlined chip
        face = (mix(PANEL, col, 0.18), WARN if f.incapacitated else mix(col, PANEL, 0.4),
                mix(col, MUTED, 0.5))
    _put(img, d, _char_chip_face, (x, y), box, w, *face, text)
    if f.removed:  # a wide line is a polygon: in place
        d.line((x + 8, y, x + w - 8, y), fill=DIM, width=2)
    if powered:
        draw_shape(d, "star", (x + w - 20, y), 10, fill=GOLD, outline=INK, width=1)


# --------------------------------------------------------------------------- whole picture


def draw(pic: Picture) -> Image.Image:
    """The board: banner and map (the top every table shares), the Quests, the players,
    the Memory Track."""
    strip_top = MAP_TOP + MAP_H + GAP
    seats_top = strip_top + _quest_strip_height(pic) + GAP
    track_top = seats_top + _seats_height(_seat_rows(pic)) + GAP
    height = track_top + _track_height(pic) + MARGIN
    img = new_canvas(WIDTH, height, BG)
    img.paste(board_top(), (0, 0))
    d = ImageDraw.Draw(img)
    _draw_banner(d, pic, (MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + BANNER_H))
    _draw_map(img, d, pic, MAP_TOP)
    _draw_quest_strip(img, d, pic, strip_top)
    _draw_seats(img, d, pic, seats_top)
    _draw_track(d, img, pic, track_top)
    return img


def render_picture(pic: Picture) -> bytes:
    return to_png(draw(pic))


# --------------------------------------------------------------------------- from the view


def _memory_title(mem: Any) -> str:
    c = _content()
    card = str(view_get(mem, "card", ""))
    if view_get(mem, "source") == "objective" or view_get(mem, "objective"):
        oid = view_get(mem, "objective") or card
        try:
            return c.objective_card(str(oid)).title.split(":", 1)[-1].strip()
        except ValueError:
            return "Objective"
    try:
        return c.story_card(card).title
    except ValueError:
        pass
    try:
        c.neutral_card(card)
        return "Neutral Memory"
    except ValueError:
        return card


# The engine names the open decision "frame[:stage][:offer]"; players read this instead.
DECISIONS = {
    "draft": "choosing characters and placing figures",
    "place_quest": "placing a starting Quest counter",
    "tell": "telling the story",
    "turn": "choosing a character to activate",
    "activation": "moving and acting with the activated character",
    "activation:discard": "discarding down to the hand limit",
    "discard": "discarding down to the hand limit",
    "pay": "paying Story cards",
    "offer": "an optional choice",
    "offer:new_hope": "A New Hope: ready the character again?",
    "offer:objective": "an Objective may be revealed",
    "offer:relocate": "the winner may move the defeated character",
    "offer:epilogue_bookmark": "moving the Epilogue Bookmark",
    "interrupt": "a Battle or a Trap may interrupt the movement",
    "battle": "a Battle",
    "trap": "a Trap",
    "trap:card": "a Trap: choosing the Trap card",
    "trap:hide": "a Trap: hiding cards under the character card",
    "trap:defend": "a Trap: the Soldier defends",
    "quest": "facing a Quest",
    "quest:intro": "a Quest begins: the link to the Bookmark",
    "quest:join": "a Quest: others may activate and join",
    "quest:plot": "a Quest: the Acting Player's plot",
    "quest:step_in": "a Quest: others may step in",
    "quest:step_play": "a Quest: a player steps in",
    "quest:last": "a Quest: the Acting Player's last card",
    "quest:end": "a Quest: the ending",
    "quest:memory": "a Quest: choosing the Memory card",
    "quest:power": "a Quest: the Power",
    "power": "placing a Power",
    "epilogue": "the Epilogue",
    "epilogue:parts": "the Epilogue: each player tells a part",
    "epilogue:bookmark": "the Epilogue: the Bookmark",
    "epilogue:conclusion": "the Epilogue: the conclusion",
    "over": "the story is over",
}


def decision_text(code: str) -> str:
    """Plain English for the engine's decision code ("quest:plot" -> "a Quest: ...").

    >>> decision_text("trap:defend")
    'a Trap: the Soldier defends'
    >>> decision_text("quest:brand_new_stage")
    'facing a Quest'
    """
    parts = code.split(":")
    for k in range(len(parts), 0, -1):
        hit = DECISIONS.get(":".join(parts[:k]))
        if hit:
            return hit
    return code.replace("_", " ")


def picture_from_view(view: Any, names: Sequence[str] | None = None) -> Picture:
    """The :class:`Picture` of a Winter Tales view (``engines.winter_tales.state.WinterView``
    or its ``model_dump()``); ``names`` are the seats' display names.

    The only place that knows the view's field names: when the view changes, this changes.
    Only public fields are read (hand and Objective faces are never looked at).
    """
    c = _content()
    players = int(view_get(view, "players", 0) or 0)
    factions = [str(f) for f in (view_get(view, "factions", []) or [])]
    players = max(players, len(factions))
    figures = []
    for f in view_get(view, "figures", []) or []:
        fid = str(view_get(f, "id"))
        try:
            name = c.character(fid).name
        except ValueError:
            name = fid
        owner = view_get(f, "owner")
        figures.append(Fig(
            id=fid, name=name, faction=str(view_get(f, "faction", "spring")),
            owner=None if owner is None else int(owner),
            space=view_get(f, "space"), ready=bool(view_get(f, "ready", True)),
            incapacitated=bool(view_get(f, "incapacitated", False)),
            removed=bool(view_get(f, "removed", False)),
        ))
    # Unowned figures (unused characters, not yet chosen) are not on the board.
    figures = [f for f in figures if f.owner is not None or f.space is not None]
    quests = [QuestMark(counter=str(view_get(q, "counter")), quest=str(view_get(q, "quest")),
                        faction=str(view_get(q, "faction")), space=view_get(q, "space"),
                        carrier=view_get(q, "carrier"))
              for q in view_get(view, "quests", []) or []]
    memories = []
    for m in view_get(view, "memories", []) or []:
        counter = view_get(m, "counter")
        cf = None
        if counter:
            try:
                cf = c.quest_counter(str(counter)).faction
            except ValueError:
                cf = None
        memories.append(MemoryCell(
            slot=int(view_get(m, "slot")), source=str(view_get(m, "source", "quest")),
            title=_memory_title(m), faction=view_get(m, "faction"),
            card=str(view_get(m, "card", "")),
            counter=counter, counter_faction=cf,
        ))
    powers = []
    for p in view_get(view, "powers", []) or []:
        counter = str(view_get(p, "counter"))
        try:
            pf = c.quest_counter(counter).faction
        except ValueError:
            pf = "spring"
        powers.append(PowerMark(counter=counter, quest=str(view_get(p, "quest")), faction=pf,
                                holder=int(view_get(p, "holder", 0)),
                                characters=tuple(view_get(p, "characters", []) or ()),
                                location=view_get(p, "location")))
    # Objectives lying face up in front of a player (the Spy, the Connection): public.
    # Secret ones (the viewer's own in a seat view) are never drawn.
    revealed = [(int(view_get(o, "seat")), str(view_get(o, "title")))
                for o in view_get(view, "objectives", []) or []
                if view_get(o, "revealed") and not view_get(o, "completed")]
    length = int(view_get(view, "length", 3) or 3)
    arb = view_get(view, "arbiter")
    acting = view_get(view, "acting")
    if view_get(view, "winner") is not None:
        acting = None  # the story is over: nobody is acting any more
    return Picture(
        players=players,
        names=list(names or []),
        factions=factions,
        chapter=int(view_get(view, "chapter", 0) or 0),
        length=length,
        epilogue_space=int(view_get(view, "epilogue_space", None) or length + 1),
        phase=str(view_get(view, "phase", "") or ""),
        decision=decision_text(str(view_get(view, "decision", "") or "")),
        acting=None if acting is None else int(acting),
        to_act=[int(s) for s in view_get(view, "to_act", []) or []],
        arbiter=None if arb is None else int(arb),
        figures=figures,
        quests=quests,
        ongoing=view_get(view, "ongoing"),
        ongoing_count=view_get(view, "ongoing_count"),
        memories=memories,
        bookmark=view_get(view, "bookmark"),
        powers=powers,
        hand_counts=[int(n) for n in view_get(view, "hand_counts", []) or []],
        objective_counts=[int(n) for n in view_get(view, "objective_counts", []) or []],
        revealed_objectives=revealed,
        deck_count=int(view_get(view, "deck_count", 0) or 0),
        discard_count=int(view_get(view, "discard_count", 0) or 0),
        trap_hidden_count=view_get(view, "trap_hidden_count"),
        epilogue_count=view_get(view, "epilogue_count"),
        winner=view_get(view, "winner"),
        final=view_get(view, "final"),
    )


def render(view: Any, names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of a Winter Tales view; ``names`` are the seats' display names."""
    return render_picture(picture_from_view(view, names))
