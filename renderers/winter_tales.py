"""Winter Tales: the Wintertown board as one PNG, drawn from the PUBLIC view.

Layout (1200 px wide; phones show it ~400 px wide, so type is 18-26 px): a
banner (chapter, length, who acts and what is being decided); the map of
Wintertown (8 Locations as boxes with their Quest and Power slots, the Squares
as haloed circles joined by streets, the statue of Mangiafuoco in the middle);
a strip with the Quests on the board and the running counts; the Memory Track
(7 spaces, the Epilogue tile, the Objective icon on 2/4/6, each Memory in its
Faction's colour, the Bookmark ribbon); then one row per player (faction,
card and Objective COUNTS, characters ready / activated / incapacitated).

Figures are tokens in their owner's colour with the owner's shape and letter
(never colour alone), on a black base for Fairy Tales and a white base for
Soldiers as in the box; an incapacitated figure is greyed and tipped over.
The expensive part of the map (night sky, snow, streets, Squares, statue) is
drawn once and cached. The picture is built by :func:`picture_from_view`, the
one adapter between the engine's view and this module; nothing here reads a
hand or an Objective face, so a seat's private view draws the same as the public.

>>> pic = picture_from_view({"players": 3, "chapter": 1, "length": 3,
...                          "factions": ["spring", "winter", "writer"]})
>>> len(render_picture(pic)) > 10_000
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from engines.winter_tales.content import WinterContent, load_content
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

WIDTH = 1200
MARGIN = 24
BANNER_H = 108
MAP_H = 900
MAP_TOP = MARGIN + BANNER_H + 14
MAP_PAD_X = 132
MAP_PAD_Y = 84
LOC_W = 264
LOC_HEAD = 36
ITEM_W = 120
ITEM_H = 38
ITEM_GAP = 6
SQUARE_R = 26
STATUE_R = 40
TRACK_H = 196
SEAT_ROW_H = 96

# Faction colours: Memories, Quest counters, faction pills. Bright enough on dark grey,
# and never the only cue (each also has its glyph: a flower for Spring, a snowflake for Winter).
SPRING: Color = (0x8B, 0xD8, 0x6E)
WINTER: Color = (0x9C, 0xCB, 0xFF)
WRITER: Color = (0xD9, 0xB8, 0xFF)
NEUTRAL_MEM: Color = (0xB8, 0xBB, 0xC2)
GLYPH = {"spring": "✿", "winter": "❄", "writer": "✎", None: "◇"}
FACTION_COLOR: dict[str | None, Color] = {
    "spring": SPRING, "winter": WINTER, "writer": WRITER, None: NEUTRAL_MEM,
}
FACTION_LABEL = {"spring": "Spring", "winter": "Winter", "writer": "Writer"}

NIGHT: Color = (0x21, 0x28, 0x3D)
STREET: Color = (0x6B, 0x74, 0x8C)
STREET_EDGE: Color = (0x3A, 0x40, 0x52)
SQUARE_FILL: Color = (0x45, 0x4D, 0x63)
LOC_FILL: Color = (0x33, 0x3A, 0x50)
LOC_EDGE: Color = (0x8A, 0x93, 0xAD)
SNOW: Color = (0xE8, 0xEE, 0xF8)
BOOKMARK: Color = (0xE0, 0x4F, 0x5F)

# Short figure labels that fit a token at a readable size (display only).
SHORT = {
    "alice": "Alice", "pinocchio": "Pinocchio", "scarecrow": "Scarecrow",
    "grandma_dorothy": "Dorothy", "tin_man": "Tin Man", "grumpy": "Grumpy",
    "little_match_girl": "Match Girl", "mangiafuoco": "Mangiaf.", "wolf": "Wolf",
    "fox_and_cat": "Fox & Cat", "snow_white": "Snow White", "white_rabbit": "W. Rabbit",
    "candlewick": "Candlewick", "mad_hatter": "Mad Hatter",
}
QUEST_SHORT = {
    "a_new_hope": "New Hope", "love_that_melts_the_snow": "Love", "the_safe_house": "Safe House",
    "the_great_artefact": "Artefact", "freezing_horror": "Horror",
    "winter_propaganda": "Propaganda", "armed_retaliation": "Retaliation",
}


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
    label = font(17, bold=True)
    for s in m.squares:
        x, y = pos[s.id]
        r = STATUE_R if s.statue else SQUARE_R
        d.ellipse((x - r - 7, y - r - 7, x + r + 7, y + r + 7), fill=mix(STREET, SNOW, 0.35))
        d.ellipse((x - r - 3, y - r - 3, x + r + 3, y + r + 3), fill=STREET_EDGE)
        d.ellipse((x - r, y - r, x + r, y + r), fill=SQUARE_FILL)
        if s.statue:
            _draw_statue(d, (x, y), r)
        name = s.name.replace(" Square", "").replace("'", "’")
        ly = y + r + 18
        text_center(d, (x, ly), name, label, mix(MUTED, SNOW, 0.3), stroke=3,
                    stroke_fill=NIGHT)
    text_center(d, (w - 150, h - 24), "Wintertown", font(24, bold=True),
                mix(NIGHT, SNOW, 0.35))
    return img


# --------------------------------------------------------------------------- pieces


def _short(fig_id: str) -> str:
    if fig_id in SHORT:
        return SHORT[fig_id]
    try:
        return _content().character(fig_id).name
    except ValueError:
        return fig_id


@lru_cache(maxsize=64)
def _token_image(fig_id: str, owner: int | None, faction: str, incapacitated: bool,
                 powered: bool) -> Image.Image:
    """One figure token on a transparent tile (so it can be tipped over when down).

    Cached: a table shows the same dozen figures at every move, and the rotation of a
    tipped-over token is the dearest thing on the map. Up to 64 tiles of 24-37 KB.
    Callers only paste it (never draw on it)."""
    tile = Image.new("RGBA", (ITEM_W + 8, ITEM_H + 8), (0, 0, 0, 0))
    d = ImageDraw.Draw(tile)
    style = owner_style(owner if owner is not None else 0)
    fill = style.color if owner is not None else DIM
    if incapacitated:
        fill = mix(fill, BG, 0.55)
    box = (4, 4, 4 + ITEM_W, 4 + ITEM_H)
    base = INK if faction == "spring" else SNOW  # black base: Fairy Tale; white: Soldier
    d.rounded_rectangle(box, radius=10, fill=fill, outline=base, width=3)
    d.rectangle((12, 4 + ITEM_H - 7, 4 + ITEM_W - 8, 4 + ITEM_H - 3), fill=base)
    if owner is not None:
        owner_marker(d, style, (21, 4 + ITEM_H / 2 - 2), 11)
    ink = TEXT if incapacitated else style.ink
    label = _short(fig_id)
    fnt = fit_font(label, ITEM_W - 34, 18, 12, bold=True)
    text_left(d, (35, 4 + ITEM_H / 2 - 2), label, fnt, ink)
    if powered:
        draw_shape(d, "star", (ITEM_W - 2, 10), 8, fill=GOLD, outline=INK, width=1)
    if incapacitated:
        tile = tile.rotate(10, resample=Image.Resampling.BICUBIC, expand=True)
        d = ImageDraw.Draw(tile)
        # bottom right: the corner the tipped token leaves free (the name stays readable)
        cx, cy = tile.width - 14, tile.height - 12
        d.ellipse((cx - 12, cy - 12, cx + 12, cy + 12), fill=WARN, outline=INK, width=2)
        text_center(d, (cx, cy), "✕", font(15, bold=True), TEXT)
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
    edge), cached by its place: the owner markers of the seats' rows and the Bookmark of
    the track's legend, whose places change only with the number of Quests on the board.
    Up to 64 of ~6 KB."""
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
    x0, y0, x1, y1 = box
    d.rounded_rectangle(box, radius=(y1 - y0) / 2, fill=col,
                        outline=GOLD if ongoing else INK, width=4 if ongoing else 2)
    fnt = fit_font(text, x1 - x0 - 14 - (22 if ongoing else 0), 17, 11, bold=True)
    tx = x0 + 9
    text_left(d, (tx, (y0 + y1) / 2), text, fnt, INK)


def _quest_chip(img: Image.Image, d: ImageDraw.ImageDraw, q: QuestMark, box: Box,
                ongoing: bool, label: str | None = None) -> None:
    col = FACTION_COLOR.get(q.faction, NEUTRAL_MEM)
    _, y0, x1, y1 = box
    text = label or QUEST_SHORT.get(q.quest, q.quest)
    _put(img, d, _quest_chip_face, box, box, col, ongoing,
         f"{GLYPH.get(q.faction, '')} {text}")
    if ongoing:
        _pawn(d, (x1 - 14, (y0 + y1) / 2 + 1), 13)


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


def _draw_item(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, item: Any,
               top_left: Point, powered: set[str]) -> None:
    x, y = top_left
    if isinstance(item, QuestMark):
        label = None
        if item.carrier is not None:
            label = f"{QUEST_SHORT.get(item.quest, item.quest)} ▲"
        _quest_chip(img, d, item, (x, y + 2, x + ITEM_W, y + ITEM_H - 2),
                    item.counter == pic.ongoing, label)
        return
    tile = _token_image(item.id, item.owner, item.faction, item.incapacitated,
                        item.id in powered)
    ox = x - 4 - (tile.width - ITEM_W - 8) / 2
    oy = y - 4 - (tile.height - ITEM_H - 8) / 2
    img.paste(tile, (round(ox), round(oy)), tile)


def _location_name(d: ImageDraw.ImageDraw, name: str, left_middle: Point, width: float) -> None:
    """A Location's name on its header: one line when it fits at 19 px or more, else the
    name split over two lines (never cut: players type these names)."""
    fnt = fit_font(name, width, 22, 19, bold=True)
    if fnt.getlength(name) <= width:
        text_left(d, left_middle, name, fnt, TEXT)
        return
    words = name.split()
    best = (1e9, name, "")
    for k in range(1, len(words)):
        a, b = " ".join(words[:k]), " ".join(words[k:])
        f = font(17, bold=True)
        w = max(f.getlength(a), f.getlength(b))
        if w < best[0]:
            best = (w, a, b)
    x, y = left_middle
    f = fit_font(max(best[1], best[2], key=len), width, 17, 12, bold=True)
    text_left(d, (x, y - 9), best[1], f, TEXT)
    text_left(d, (x, y + 10), best[2], f, TEXT)


def _location_boxes(items: dict[str, list[Any]]) -> dict[str, Box]:
    """Each Location's box (map coordinates): two columns of pieces, taller when crowded.
    Boxes in the lower half grow upwards, away from the map's edge."""
    pos = node_positions()
    base_h = LOC_HEAD + 2 * (ITEM_H + ITEM_GAP) + 8
    boxes: dict[str, Box] = {}
    for loc in _content().map.locations:
        cx, cy = pos[loc.id]
        rows = max(2, math.ceil(len(items.get(loc.id, [])) / 2))
        h = LOC_HEAD + rows * (ITEM_H + ITEM_GAP) + 8
        top = cy - base_h / 2
        if cy > MAP_H / 2 + 10:
            top = top + base_h - h
        boxes[loc.id] = (cx - LOC_W / 2, top, cx + LOC_W / 2, top + h)
    return boxes


def _draw_location_box(d: ImageDraw.ImageDraw, name: str, map_box: Box, ox: float,
                       oy: float, hot: bool, power: PowerMark | None) -> None:
    """A Location's box, header, name and Power slot (``map_box`` in map coordinates)."""
    bx0, by0, bx1, by1 = map_box
    box = (bx0 + ox, by0 + oy, bx1 + ox, by1 + oy)
    rounded_panel(d, box, fill=LOC_FILL, outline=GOLD if hot else LOC_EDGE, radius=14,
                  width=4 if hot else 3)
    d.rounded_rectangle((box[0] + 3, box[1] + 3, box[2] - 3, box[1] + LOC_HEAD),
                        radius=11, fill=mix(LOC_FILL, SNOW, 0.12))
    _location_name(d, name, (box[0] + 12, box[1] + LOC_HEAD / 2 + 2), LOC_W - 50)
    _power_slot(d, (box[2] - 22, box[1] + LOC_HEAD / 2 + 2), power)


@lru_cache(maxsize=1)
def _empty_location_boxes() -> dict[str, Box]:
    """Each Location's box when it holds at most 4 pieces (its smallest): the boxes drawn
    into :func:`board_top`."""
    return _location_boxes({})


def _boxes_apart(boxes: dict[str, Box]) -> bool:
    """Whether every Location's box, with room for a tipped-over token hanging ~8 px out of
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
    active_space = next((_quest_space(pic, q) for q in pic.quests if q.counter == pic.ongoing),
                        None)
    empty = _empty_location_boxes()
    for loc in _content().map.locations:
        hot = active_space == loc.id
        power = powers_at.get(loc.id)
        if redraw_all or hot or power is not None or boxes[loc.id] != empty[loc.id]:
            _draw_location_box(d, loc.name, boxes[loc.id], ox, oy, hot, power)
        box = (boxes[loc.id][0] + ox, boxes[loc.id][1] + oy)
        for i, it in enumerate(items.get(loc.id, [])):
            col, row = i % 2, i // 2
            x = box[0] + 8 + col * (ITEM_W + 8)
            y = box[1] + LOC_HEAD + 6 + row * (ITEM_H + ITEM_GAP)
            _draw_item(img, d, pic, it, (x, y), powered)


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
    for sq in squares:
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 8
        obstacles.append((x - r, y - r, x + r, y + r))
        obstacles.append((x - 60, y + r - 4, x + 60, y + r + 24))  # its name
    out: list[tuple[str, Box, tuple[Point, ...]]] = []
    for sq, n in zip(squares, counts, strict=True):
        if not n:
            continue
        x, y = pos[sq.id]
        r = (STATUE_R if sq.statue else SQUARE_R) + 10
        toward = math.atan2(mh / 2 - y, mw / 2 - x) if not sq.statue else 0.0
        angles = sorted((k * math.pi / 8 for k in range(16)),
                        key=lambda a: abs(math.remainder(a - toward, 2 * math.pi)))
        layouts = [1 if n <= 3 else 2] + ([2] if 1 < n <= 3 else []) + ([n] if n <= 3 else [])
        chosen: Box | None = None
        cols = layouts[0]
        for extra in (0, 18, 36, 60, 90, 120):
            for cols in layouts:
                rows = math.ceil(n / cols)
                tw = cols * ITEM_W + (cols - 1) * 6 + 10
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
            tw = cols * ITEM_W + (cols - 1) * 6 + 10
            th = math.ceil(n / cols) * (ITEM_H + ITEM_GAP) - ITEM_GAP + 10
            side = 1 if x < mw / 2 else -1
            cx = x + side * (r + tw / 2)
            chosen = (cx - tw / 2, y - th / 2, cx + tw / 2, y + th / 2)
        obstacles.append(chosen)
        places = tuple((chosen[0] + 5 + (k % cols) * (ITEM_W + 6),
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
            _draw_item(img, d, pic, it, (px + ox, py + oy), powered)


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
    in its frame with every Location's box as it is when it holds at most 4 pieces, down
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


def _draw_banner(d: ImageDraw.ImageDraw, pic: Picture, box: Box) -> None:
    """The banner's words and accent, on its panel (in :func:`board_top`)."""
    x0, y0, x1, y1 = box
    head, second, accent = _status(pic)
    d.rounded_rectangle((x0, y0, x0 + 12, y1), radius=6, fill=accent)
    text_left(d, (x0 + 30, y0 + 32), ellipsize(head, font(28, bold=True), x1 - x0 - 60),
              font(28, bold=True), TEXT)
    f2 = font(23)
    lines = wrap_text(second, f2, x1 - x0 - 60)[:1]
    if pic.decision and pic.winner is None and pic.decision not in second:
        lines += wrap_text(pic.decision, font(21), x1 - x0 - 60)[:1]
    y = y0 + 66
    for i, line in enumerate(lines):
        text_left(d, (x0 + 30, y), ellipsize(line, f2 if i == 0 else font(21), x1 - x0 - 60),
                  f2 if i == 0 else font(21), MUTED)
        y += 28


def _quest_line(pic: Picture, q: QuestMark) -> str:
    name = _quest_name(q.quest)
    where_id = _quest_space(pic, q.counter)
    where = _space_name(where_id) if where_id else "off the map"
    if q.carrier is not None:
        where = f"under {_short(q.carrier)}, {where}"
    return f"{name}: {where}"


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


def _quest_strip_height(pic: Picture) -> int:
    rows = max(1, len(pic.quests))
    extra = 1 if (pic.ongoing and pic.ongoing_count) or pic.trap_hidden_count is not None else 0
    return 52 + (rows + extra) * 40


# A panel whose height grows by a fixed step (one more Quest, one more seat) is pasted
# from three full-width pieces cut from one drawing of it: its head, one step, and its
# foot (the bottom corners, pasted last over the end of the last step). The pieces are
# cut from a panel two steps tall, where no step reaches a corner; the panel only moves
# down the picture by whole, even pixels, so the pixels are those of drawing it there.
PanelPieces = tuple[Image.Image, Image.Image, Image.Image]


def _cut_panel(img: Image.Image, head: int, step: int) -> PanelPieces:
    foot = img.height - 2 * 14 - 1  # the radius-14 corners, and the bottom edge
    return (img.crop((0, 0, WIDTH, head)), img.crop((0, head, WIDTH, head + step)),
            img.crop((0, foot, WIDTH, img.height)))


def _paste_panel(img: Image.Image, pieces: PanelPieces, top: float, steps: int) -> None:
    head, step, foot = pieces
    y = round(top)
    img.paste(head, (0, y))
    for k in range(steps):
        img.paste(step, (0, y + head.height + k * step.height))
    img.paste(foot, (0, y + head.height + steps * step.height + 1 - foot.height))


@lru_cache(maxsize=1)
def _strip_pieces() -> PanelPieces:
    """The Quest strip's panel and title, in pieces (~0.5 MB, drawn once)."""
    h = 52 + 2 * 40
    img = new_canvas(WIDTH, h + 1, BG)
    d = ImageDraw.Draw(img)
    rounded_panel(d, (MARGIN, 0, WIDTH - MARGIN, h), fill=PANEL, outline=GRID, radius=14)
    text_left(d, (MARGIN + 18, 26), "Quests on the board", font(22, bold=True), TEXT)
    return _cut_panel(img, 52, 40)


def _draw_quest_strip(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture,
                      top: float) -> float:
    h = _quest_strip_height(pic)
    _paste_panel(img, _strip_pieces(), top, (h - 52) // 40)
    text_left(d, (MARGIN + 300, top + 26),
              f"Story deck {pic.deck_count} · discard {pic.discard_count}", font(19), MUTED)
    y = top + 62
    if not pic.quests:
        text_left(d, (MARGIN + 18, y), "No Quest counter on the board.", font(20), DIM)
    for i, q in enumerate(pic.quests):
        x = MARGIN + 18
        yy = y + i * 40
        ongoing = q.counter == pic.ongoing
        _quest_chip(img, d, q, (x, yy - 17, x + 150, yy + 17), ongoing)
        line = _quest_line(pic, q) + ("  (the Ongoing Quest)" if ongoing else "")
        text_left(d, (x + 164, yy), ellipsize(line, font(21), WIDTH - 2 * MARGIN - 200),
                  font(21), TEXT)
    yy = y + max(1, len(pic.quests)) * 40
    bits = []
    if pic.ongoing and pic.ongoing_count:
        bits.append(f"Ongoing Quest count: {_counts_text(pic.ongoing_count)}")
    if pic.trap_hidden_count is not None:
        bits.append(f"Trap: {pic.trap_hidden_count} card(s) hidden under the character")
    if bits:
        text_left(d, (MARGIN + 18, yy), ellipsize("   ·   ".join(bits), font(21, bold=True),
                                                  WIDTH - 2 * MARGIN - 36),
                  font(21, bold=True), GOLD)
    return top + h


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


def _bookmark_at(d: ImageDraw.ImageDraw, xy: tuple[float, ...], h: float) -> None:
    _bookmark(d, xy[0], xy[1], h)


def _track_cells() -> tuple[int, float, float, float]:
    """The Memory Track's cells: their count (7 spaces and the Epilogue's place beyond
    them), the first one's left edge, their width and the gap between them."""
    n = len(_content().memory_track.spaces) + 1
    gap = 8
    return n, MARGIN + 14, (WIDTH - 2 * MARGIN - 28 - gap * (n - 1)) / n, gap


def _draw_track(d: ImageDraw.ImageDraw, img: Image.Image, pic: Picture, top: float) -> float:
    img.paste(_track_panel(), (0, round(top)))
    bx, by = MARGIN + 210 + 190, top + 12  # the legend's Bookmark: a polygon, in place
    _put_in_place(img, d, _bookmark_at, (bx, by), (bx, by, bx + 22, by + 24), 24)
    n, x0, cw, gap = _track_cells()
    cy0 = top + 46
    cy1 = top + TRACK_H - 14
    by_slot = {m.slot: m for m in pic.memories}
    for i in range(1, n + 1):
        cx = x0 + (i - 1) * (cw + gap)
        mem = by_slot.get(i)
        kind = "memory" if mem is not None else (
            "epilogue" if i == pic.epilogue_space else
            "beyond" if i > pic.epilogue_space else "empty")
        # a cell's tile reaches 2-4 px past it, into the gap of bare panel around it
        ox = _even_floor(cx) - 2
        img.paste(_track_cell(i, kind, mem), (ox, round(cy0) - 2))
        # nothing drawn later in a cell reaches under the Quest counter on its Memory,
        # nor under the Bookmark (and no other cell reaches either): polygons, in place
        if mem is not None and mem.counter_faction is not None:
            _memory_counter(d, mem.counter_faction, (cx, cy0, cx + cw, cy1))
        if pic.bookmark == i:
            _bookmark(d, cx + cw / 2 - 11, cy0 - 8, 40)
    return top + TRACK_H


@lru_cache(maxsize=1)
def _track_panel() -> Image.Image:
    """The Memory Track's bare panel with its title and legend (but the Bookmark's, a
    polygon): a full-width strip drawn at top 0 (the track only moves down by whole,
    even pixels), down to the panel's bottom edge. ~0.9 MB, drawn once."""
    img = new_canvas(WIDTH, TRACK_H + 1, BG)
    d = ImageDraw.Draw(img)
    top = 0
    box = (MARGIN, top, WIDTH - MARGIN, top + TRACK_H)
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=14)
    text_left(d, (MARGIN + 18, top + 24), "Memory Track", font(22, bold=True), TEXT)
    legend_x = MARGIN + 210
    _objective_icon(d, (legend_x, top + 24), 9)
    text_left(d, (legend_x + 16, top + 24), "Objective space", font(18), MUTED)
    text_left(d, (legend_x + 220, top + 24), "Bookmark", font(18), MUTED)
    return img


@lru_cache(maxsize=24)
def _track_cell(i: int, kind: str, mem: MemoryCell | None) -> Image.Image:
    """Cell ``i`` of the Memory Track on its bit of bare panel, as ``kind`` (empty, the
    Epilogue's, beyond the Epilogue, or holding ``mem``) without the Quest counter on
    it, 2 px above and 2-4 px left of the cell (even offsets: see _sprite).

    Cached: a cell changes a few times a game. Up to 24 of ~75 KB. Callers only paste it."""
    _, x0, cw, gap = _track_cells()
    cx = x0 + (i - 1) * (cw + gap)
    cx -= _even_floor(cx) - 2
    cy0, cy1 = 2, 2 + TRACK_H - 14 - 46
    img = new_canvas(math.ceil(cx + cw) + 4, cy1 + 3, PANEL)
    d = ImageDraw.Draw(img)
    cell = (cx, cy0, cx + cw, cy1)
    if kind == "epilogue":
        _epilogue_tile(d, cell)
    elif kind == "beyond":
        rounded_panel(d, cell, fill=mix(PANEL, BG, 0.5), outline=mix(GRID, PANEL, 0.5),
                      radius=10, width=2)
        text_center(d, ((cell[0] + cell[2]) / 2, (cell[1] + cell[3]) / 2), "—",
                    font(22), DIM)
    elif mem is None:
        rounded_panel(d, cell, fill=PANEL_HI, outline=GRID, radius=10, width=2)
        text_center(d, ((cell[0] + cell[2]) / 2, (cell[1] + cell[3]) / 2 + 8), "empty",
                    font(17), DIM)
    else:
        _memory_card(d, img, mem, cell)
    text_left(d, (cx + 8, cy0 + 15), str(i), font(18, bold=True),
              INK if kind in ("memory", "epilogue") else MUTED)
    if i in set(_content().memory_track.objective_spaces):
        _objective_icon(d, (cx + cw - 16, cy0 + 16), 10)
    return img


def _epilogue_tile(d: ImageDraw.ImageDraw, cell: Box) -> None:
    rounded_panel(d, cell, fill=GOLD, outline=HIGHLIGHT, radius=10, width=3)
    cx = (cell[0] + cell[2]) / 2
    cy = (cell[1] + cell[3]) / 2
    fnt = fit_font("Epilogue", cell[2] - cell[0] - 12, 22, 12, bold=True)
    text_center(d, (cx, cy - 4), "Epilogue", fnt, INK)
    text_center(d, (cx, cy + 26), "❦", font(26, bold=True), GOLD_DARK)


def _memory_card(d: ImageDraw.ImageDraw, img: Image.Image, mem: MemoryCell, cell: Box) -> None:
    """A Memory card in its cell, without the Quest counter on it (:func:`_memory_counter`)."""
    from renderers.winter_hand import card_art  # a late import: the art lives with the hand

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
                    "◎" if mem.source == "objective" else "◇", font(30, bold=True),
                    mix(col, TEXT, 0.5))
    fnt = font(15, bold=True)
    lines = wrap_text(mem.title, fnt, x1 - x0 - 10)[:2]
    y = art_box[3] + 13
    for line in lines:
        text_center(d, ((x0 + x1) / 2, y), ellipsize(line, fnt, x1 - x0 - 10), fnt, INK)
        y += 18


def _memory_art_box(cell: Box) -> tuple[int, int, int, int]:
    x0, y0, x1, y1 = cell
    return (round(x0 + 6), round(y0 + 30), round(x1 - 6), round(y0 + 30 + (y1 - y0) * 0.42))


def _memory_counter(d: ImageDraw.ImageDraw, faction: str, cell: Box) -> None:
    """The Quest counter lying on a Memory card (drawn after the card)."""
    ccol = FACTION_COLOR.get(faction, NEUTRAL_MEM)
    c = (cell[2] - 20, _memory_art_box(cell)[3] - 6)
    draw_shape(d, "hexagon", c, 14, fill=ccol, outline=INK, width=2)
    text_center(d, c, GLYPH.get(faction, ""), font(14, bold=True), INK)


# --------------------------------------------------------------------------- players


def _seat_rows_height(pic: Picture) -> int:
    return 50 + pic.players * (SEAT_ROW_H + 8)


def _card_stack(d: ImageDraw.ImageDraw, c: tuple[float, ...], count: int) -> None:
    x, y = c
    for k in (2, 1, 0):
        off = k * 4
        d.rounded_rectangle((x - 15 + off, y - 20 - off, x + 15 + off, y + 20 - off), radius=5,
                            fill=mix((0x4B, 0x3F, 0x72), TEXT, 0.08 * k), outline=INK, width=2)
    text_center(d, (x, y), str(count), font(20, bold=True), TEXT)


def _card_back(img: Image.Image, d: ImageDraw.ImageDraw, c: Point, count: int,
               label: str = "") -> None:
    x, y = c
    _put(img, d, _card_stack, c, (x - 15, y - 28, x + 23, y + 20), count)
    if label:
        text_left(d, (x + 30, y), label, font(18), MUTED)


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


def _row_box(top: float, seat: int) -> Box:
    y = top + 50 + seat * (SEAT_ROW_H + 8)
    return (MARGIN + 10, y, WIDTH - MARGIN - 10, y + SEAT_ROW_H)


@lru_cache(maxsize=1)
def _seats_pieces() -> PanelPieces:
    """The players' panel and legend, and a seat's row as it is when the seat neither
    acts nor is awaited, in pieces (~0.9 MB, drawn once)."""
    h = 50 + 2 * (SEAT_ROW_H + 8)
    img = new_canvas(WIDTH, h + 1, BG)
    d = ImageDraw.Draw(img)
    _seats_panel(d, 0, h)
    for seat in range(2):
        _seat_row(d, _row_box(0, seat), acting=False, waiting=False)
    return _cut_panel(img, 50, SEAT_ROW_H + 8)


def _seats_panel(d: ImageDraw.ImageDraw, top: float, h: float) -> None:
    box = (MARGIN, top, WIDTH - MARGIN, top + h)
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=14)
    text_left(d, (MARGIN + 18, top + 25), "Players", font(22, bold=True), TEXT)
    text_left(d, (MARGIN + 130, top + 25),
              "ready = bright · activated = dim, flipped · ✕ = incapacitated", font(18), MUTED)


def _seat_marker(d: ImageDraw.ImageDraw, c: tuple[float, ...], seat: int) -> None:
    owner_marker(d, owner_style(seat), (c[0], c[1]), 18)


def _seat_row(d: ImageDraw.ImageDraw, row: Box, acting: bool, waiting: bool) -> None:
    """A seat's row and the label of its card count (nothing else in the row comes near
    the label: the name and badges stop ~200 px short of it)."""
    rounded_panel(d, row, fill=PANEL_HI if acting else mix(PANEL, PANEL_HI, 0.4),
                  outline=GOLD if waiting else None, radius=12, width=3)
    text_left(d, (row[2] - 190 + 30, row[1] + 30), "cards", font(18), MUTED)


def _draw_seats(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, top: float) -> float:
    h = _seat_rows_height(pic)
    if pic.players:
        _paste_panel(img, _seats_pieces(), top, pic.players)
    else:  # no rows: the panel's bottom corners reach its head
        _seats_panel(d, top, h)
    figs_by_owner: dict[int, list[Fig]] = {}
    for f in pic.figures:
        if f.owner is not None:
            figs_by_owner.setdefault(f.owner, []).append(f)
    powers_by_holder: dict[int, list[PowerMark]] = {}
    for p in pic.powers:
        powers_by_holder.setdefault(p.holder, []).append(p)
    seats = list(range(pic.players))
    y = top + 50
    for seat in seats:
        row = _row_box(top, seat)
        acting = seat == pic.acting
        waiting = seat in pic.to_act
        if acting or waiting:  # the pasted panel has the row as it is otherwise
            _seat_row(d, row, acting, waiting)
        mx, my = row[0] + 30, y + 28
        _put_in_place(img, d, _seat_marker, (mx, my), (mx - 22, my - 22, mx + 22, my + 22), seat)
        fac = _faction_of(pic, seat)
        name_font = font(24, bold=True)
        name = ellipsize(pic.name(seat), name_font, 300)
        nb = text_left(d, (row[0] + 58, y + 28), name, name_font, TEXT)
        x = nb[2] + 12
        if fac:
            x = _badge(img, d, (x, y + 28),
                       f"{GLYPH.get(fac, '')} {FACTION_LABEL.get(fac, fac)}",
                       font(18, bold=True), FACTION_COLOR.get(fac, NEUTRAL_MEM)) + 8
        if seat == pic.arbiter:
            x = _badge(img, d, (x, y + 28), "⚖ Arbiter", font(18, bold=True), GOLD) + 8
        if acting:
            x = _badge(img, d, (x, y + 28), "▶ acting", font(18, bold=True), HIGHLIGHT) + 8
        elif waiting:
            _badge(img, d, (x, y + 28), "to act", font(18, bold=True), PANEL, GOLD,
                   outline=GOLD)
        # counts at the right: Story cards, secret Objectives (never their faces)
        rx = row[2] - 190
        hc = pic.hand_counts[seat] if seat < len(pic.hand_counts) else 0
        _card_back(img, d, (rx, y + 30), hc)  # its label is in the row (_seat_row)
        oc = pic.objective_counts[seat] if seat < len(pic.objective_counts) else 0
        if oc:
            _objective_icon(d, (rx + 110, y + 30), 11)
            text_left(d, (rx + 126, y + 30), f"×{oc}", font(20, bold=True), TEXT)
        # characters: chips
        cx = row[0] + 58
        cy = y + 70
        chips = sorted(figs_by_owner.get(seat, []), key=lambda f: (f.faction, f.id))
        if not chips:
            text_left(d, (cx, cy), "no characters yet", font(18), DIM)
        for f in chips:
            cx = _char_chip(img, d, f, cx, cy, row[2] - 12,
                            f.id in {c for p in pic.powers for c in p.characters})
        held = powers_by_holder.get(seat, [])
        face_up = [t.split(":", 1)[0] for s_, t in pic.revealed_objectives if s_ == seat]
        if held or face_up:
            txt = "   ".join(
                ([("★ " + ", ".join(_quest_name(p.quest) for p in held))] if held else [])
                + [f"◎ {t} (face up)" for t in face_up])
            text_left(d, (max(cx + 8, row[0] + 58), cy), ellipsize(txt, font(17, bold=True),
                                                                    max(40, row[2] - cx - 20)),
                      font(17, bold=True), GOLD)
        y += SEAT_ROW_H + 8
    return top + h


def _char_chip_face(d: ImageDraw.ImageDraw, c: tuple[float, ...], w: float, fill: Color,
                    outline: Color, ink: Color, text: str) -> None:
    x, y = c
    d.rounded_rectangle((x, y - 16, x + w, y + 16), radius=16, fill=fill, outline=outline,
                        width=2)
    text_left(d, (x + 11, y), text, font(18, bold=True), ink)


def _char_chip(img: Image.Image, d: ImageDraw.ImageDraw, f: Fig, x: float, y: float,
               xmax: float, powered: bool) -> float:
    label = _short(f.id)
    state = ""
    if f.removed:
        state = " †"
    elif f.incapacitated:
        state = " ✕"
    fnt = font(18, bold=True)
    text = f"{GLYPH.get(f.faction, '')} {label}{state}"
    w = fnt.getlength(text) + 22 + (16 if powered else 0)
    if x + w > xmax:
        return x
    col = FACTION_COLOR.get(f.faction, NEUTRAL_MEM)
    box = (x, y - 16, x + w, y + 16)
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
        draw_shape(d, "star", (x + w - 16, y), 8, fill=GOLD, outline=INK, width=1)
    return x + w + 8


# --------------------------------------------------------------------------- whole picture


def draw(pic: Picture) -> Image.Image:
    strip_top = MAP_TOP + MAP_H + 14
    track_top = strip_top + _quest_strip_height(pic) + 14
    seats_top = track_top + TRACK_H + 14
    height = seats_top + _seat_rows_height(pic) + MARGIN
    img = new_canvas(WIDTH, height, BG)
    img.paste(board_top(), (0, 0))
    d = ImageDraw.Draw(img)
    _draw_banner(d, pic, (MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + BANNER_H))
    _draw_map(img, d, pic, MAP_TOP)
    _draw_quest_strip(img, d, pic, strip_top)
    _draw_track(d, img, pic, track_top)
    _draw_seats(img, d, pic, seats_top)
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
