"""Fairy Tale Inn: the inn, the Guest List, gold and the characters in play as one PNG.

Layout (1200 px wide, for phones that show it ~400 px wide): a status banner on
top; the inn (7 x 6, row 1 at the bottom, big column numbers above the columns
where tokens are dropped in) on the left; players, Guest List and bag count on
the right; the characters in play with their abilities below.

Owners are told apart by colour *and* token shape (seat A round, seat B
square) *and* the letter on the player legend; Rats and Beanstalks are grey
hexagons that belong to nobody. The image is drawn only from the view, and
never from the bag's order (only its size is shown).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from renderers.common import (
    BG,
    DIM,
    GOLD,
    GOOD,
    GRID,
    HIGHLIGHT,
    INK,
    MUTED,
    NEUTRAL,
    PANEL,
    PANEL_HI,
    TEXT,
    WARN,
    Box,
    Color,
    Point,
    badge,
    coin,
    draw_shape,
    draw_wrapped,
    ellipsize,
    fit_font,
    font,
    line_height,
    mix,
    new_canvas,
    owner_marker,
    owner_style,
    rounded_panel,
    text_center,
    text_left,
    to_png,
    view_get,
    wrap_text,
)
from renderers.fti_icons import draw_glyph

WIDTH = 1200
MARGIN = 24
CELL = 108
ROW_LABEL_W = 34
PLAYER_ROW_H = 110
GUEST_SLOT_H = 92
LEGEND_H = 48

# Short labels that fit on a token; anything else is shortened from its name.
SHORT = {
    "pinocchio": "Pino",
    "evil_queen": "Queen",
    "princess": "Princess",
    "little_pig": "Pig",
    "big_bad_wolf": "Wolf",
    "red_riding_hood": "Red",
    "jack": "Jack",
    "pied_piper": "Piper",
    "rat": "Rat",
    "beanstalk": "Bean",
}
COMPANIONS = ("rat", "beanstalk")

ROOM_TINT: dict[str, Color] = {
    "gold1": (0x4A, 0x40, 0x24),
    "gold2": (0x5A, 0x48, 0x1A),
    "no_ability": (0x4E, 0x2C, 0x30),
    "extra_turn": (0x1E, 0x45, 0x4A),
}
NO_ABILITY_RED: Color = (0xF2, 0x6D, 0x6D)
EXTRA_TEAL: Color = (0x4F, 0xD1, 0xC5)
ROOM_LEGEND = (
    ("gold1", "+1 gold"),
    ("gold2", "+2 gold"),
    ("no_ability", "no ability"),
    ("extra_turn", "extra turn for 1"),
)
KIND_LABEL = {"when_played": "When Played", "ongoing": "Ongoing", "end_of_game": "End of Game"}
KIND_COLOR: dict[str, Color] = {
    "when_played": (0x7D, 0xD8, 0x8F),
    "ongoing": (0x8E, 0xC5, 0xF5),
    "end_of_game": (0xE0, 0xA8, 0xE8),
}


# --------------------------------------------------------------------------- the picture model


@dataclass(frozen=True)
class Piece:
    kind: str  # a character id, "rat" or "beanstalk"
    owner: int | None


@dataclass(frozen=True)
class Character:
    id: str
    name: str
    kind: str  # when_played | ongoing | end_of_game | ""
    text: str
    companion: str | None = None


@dataclass
class Picture:
    """Everything the image shows, taken from a view (see :func:`picture_from_view`)."""

    columns: int = 7
    rows: int = 6
    cells: dict[tuple[int, int], Piece] = field(default_factory=dict)  # (col, row), 1-based
    rooms: dict[tuple[int, int], str] = field(default_factory=dict)  # gold1/gold2/no_ability/...
    guests: list[str | None] = field(default_factory=list)  # top slot first
    costs: list[int] = field(default_factory=lambda: [2, 1, 0, 0])
    gold: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    to_act: list[int] = field(default_factory=list)
    starter: int | None = None
    viewer: int | None = None
    characters: list[Character] = field(default_factory=list)
    token_names: dict[str, str] = field(default_factory=dict)
    bag: int = 0
    last_drop: list[tuple[int, int]] = field(default_factory=list)
    pending: str = ""
    phase: str = ""
    rat_columns: list[int] = field(default_factory=list)
    over: bool = False
    winners: list[int] = field(default_factory=list)
    reason: str = ""
    end_preview: list[int] = field(default_factory=list)
    end_bonus: list[int] = field(default_factory=list)
    companions_left: dict[str, int] = field(default_factory=dict)

    def full_columns(self) -> set[int]:
        return {c for c in range(1, self.columns + 1)
                if all((c, r) in self.cells for r in range(1, self.rows + 1))}

    def name(self, seat: int) -> str:
        if seat < len(self.names) and self.names[seat]:
            return self.names[seat]
        return f"Player {owner_style(seat).letter}"

    def char_name(self, kind: str) -> str:
        for ch in self.characters:
            if ch.id == kind:
                return ch.name
        return self.token_names.get(kind) or kind.replace("_", " ").title()


# --------------------------------------------------------------------------- drawing
# A render worker draws many pictures of few layouts. What only the layout, the content
# file or one token decides is drawn once (the small cached functions below) and pasted;
# each picture then draws its own text and highlights on top. Where two pieces overlap
# they keep their drawing order (a companion count that would run into the next card
# has the cards drawn anew), so the pixels are those of drawing everything straight onto
# the board. Each cached piece is drawn at the place it is pasted to, except token cells:
# they are drawn once and pasted a whole number of pixels away (which gave the same
# pixels in every room, for every token and kind of room). Filled up, the caches hold
# about 20 MB (Pillow keeps RGB at 4 bytes a pixel): the frame 7.7, character cards 5.7
# (three games), token cells 3, banners 1.7, the rest 2.3.

BANNER_H = 92
HEAD_H = 64  # the strip of column numbers above the inn

Rooms = tuple[tuple[tuple[int, int], str], ...]  # ((col, row), kind), sorted: a cache key


def _short(pic: Picture, kind: str) -> str:
    return SHORT.get(kind) or pic.char_name(kind).split()[-1][:6]


def draw_token(d: ImageDraw.ImageDraw, pic: Picture, piece: Piece, center: Point,
               size: float, label: bool = True) -> None:
    """One token: owner colour and shape (grey hexagon if ownerless), glyph, short name."""
    _draw_token(d, piece, _short(pic, piece.kind), center, size, label)


def _draw_token(d: ImageDraw.ImageDraw, piece: Piece, short: str, center: Point,
                size: float, label: bool = True) -> None:
    r = size / 2
    if piece.owner is None:
        fill, shape = NEUTRAL, "hexagon"
    else:
        style = owner_style(piece.owner)
        fill, shape = style.color, style.shape
    draw_shape(d, shape, center, r, fill=fill, outline=INK, width=3)
    cx, cy = center
    if label:
        draw_glyph(d, piece.kind, (cx, cy - size * 0.12), size * 0.5, INK, fill, fallback=short)
        fnt = fit_font(short, size * 0.74, max(12, round(size * 0.2)), bold=True)
        text_center(d, (cx, cy + size * 0.27), short, fnt, INK)
    else:
        draw_glyph(d, piece.kind, center, size * 0.6, INK, fill, fallback=short)


def draw_room_mark(d: ImageDraw.ImageDraw, kind: str, center: Point, radius: float) -> None:
    """The symbol of a special room: coin +1, coin +2, a crossed circle, a turn arrow."""
    cx, cy = center
    if kind == "gold1":
        coin(d, center, radius, "+1")
    elif kind == "gold2":
        coin(d, center, radius, "+2")
    elif kind == "no_ability":
        w = max(3, round(radius * 0.28))
        d.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=INK,
                  outline=NO_ABILITY_RED, width=w)
        k = radius * 0.62
        d.line((cx - k, cy - k, cx + k, cy + k), fill=NO_ABILITY_RED, width=w)
    elif kind == "extra_turn":
        w = max(3, round(radius * 0.26))
        d.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=INK)
        k = radius * 0.62
        d.arc((cx - k, cy - k, cx + k, cy + k), start=-60, end=220, fill=EXTRA_TEAL, width=w)
        # arrow head at the arc's start (pointing clockwise)
        a = math.radians(-60)
        hx, hy = cx + k * math.cos(a), cy + k * math.sin(a)
        h = radius * 0.5
        d.polygon([(hx - h * 0.7, hy - h * 0.55), (hx + h * 0.6, hy - h * 0.35),
                   (hx + h * 0.05, hy + h * 0.75)], fill=EXTRA_TEAL)


def _drawn_at(box: tuple[int, int, int, int],
              paint: Callable[[ImageDraw.ImageDraw], object]) -> Image.Image:
    """What ``paint`` draws on the background inside ``box``, cut out of a scratch canvas
    where it was drawn at its true place on the board: every shape and glyph is then
    rasterised exactly as if drawn straight onto the board."""
    img = new_canvas(box[2], box[3], BG)
    paint(ImageDraw.Draw(img))
    return img.crop(box)


def _status_lines(pic: Picture) -> tuple[str, str, Color]:
    """Banner headline, detail line and headline colour."""
    if pic.over:
        if pic.winners:
            who = " & ".join(pic.name(s) for s in pic.winners)
            head = "You win!" if pic.viewer in pic.winners else f"{who} wins!"
        else:
            head = "Game over"
        detail = "Game over"
        if pic.reason:
            detail += f": {pic.reason}"
        return head, detail + ".", GOOD
    if pic.to_act:
        seat = pic.to_act[0]
        head = f"Your turn, {pic.name(seat)}" if seat == pic.viewer else (
            f"{pic.name(seat)} to play")
        return head, pic.pending, TEXT
    return "Fairy Tale Inn", pic.pending, TEXT


BannerMarker = int | str | None  # the seat to act, "over" or nothing


def _draw_banner_frame(d: ImageDraw.ImageDraw, box: Box, accent: Color,
                       marker: BannerMarker) -> None:
    x0, y0, _, y1 = box
    rounded_panel(d, box, fill=PANEL, outline=accent, radius=14, width=4)
    cy = (y0 + y1) / 2
    if isinstance(marker, int):
        owner_marker(d, owner_style(marker), (x0 + 22 + 22, cy), 24)
    elif marker == "over":
        coin(d, (x0 + 22 + 22, cy), 24, "★")


@lru_cache(maxsize=4)
def _banner_frame(box: tuple[int, int, int, int], accent: Color,
                  marker: BannerMarker) -> Image.Image:
    """The banner's panel and marker (430 KB): one per seat to act, game over, or none."""
    x0, y0, x1, y1 = box
    return _drawn_at((x0, y0, x1 + 1, y1 + 1),
                     lambda d: _draw_banner_frame(d, box, accent, marker))


def _draw_banner(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture,
                 box: tuple[int, int, int, int]) -> None:
    head, detail, color = _status_lines(pic)
    x0, y0, x1, y1 = box
    active = bool(pic.to_act) and not pic.over
    accent = owner_style(pic.to_act[0]).color if active else (GOOD if pic.over else GRID)
    marker: BannerMarker = pic.to_act[0] if active else ("over" if pic.over else None)
    img.paste(_banner_frame(box, accent, marker), (x0, y0))
    x = x0 + 22
    cy = (y0 + y1) / 2
    if marker is not None:
        x += 62
    avail = x1 - x - 20
    head_font = fit_font(head, avail, 32, min_size=22, bold=True)
    if detail:
        text_left(d, (x, cy - 17), ellipsize(head, head_font, avail), head_font, color)
        det_font = fit_font(detail, avail, 24, min_size=20)
        text_left(d, (x, cy + 20), ellipsize(detail, det_font, avail), det_font, MUTED)
    else:
        text_left(d, (x, cy), ellipsize(head, head_font, avail), head_font, color)


def _column_state(pic: Picture, c: int, full: set[int]) -> str:
    """How column ``c``'s number is drawn: rat (the Rat may go there), piper (the Pied
    Piper's own column), full or open."""
    if pic.rat_columns and c in pic.rat_columns:
        return "rat"
    if pic.rat_columns and c not in full:
        return "piper"
    if c in full:
        return "full"
    return "open"


def _column_center(x0: float, y0: float, c: int) -> Point:
    return x0 + ROW_LABEL_W + (c - 0.5) * CELL, y0 + HEAD_H / 2


def _draw_column_number(d: ImageDraw.ImageDraw, c: int, state: str, center: Point) -> None:
    """Column ``c``'s number, big, where tokens are dropped in."""
    cx, cy = center
    if state == "rat":  # where the Rat may go: lit up
        d.ellipse((cx - 30, cy - 30, cx + 30, cy + 30), fill=TEXT, outline=GOLD, width=4)
        text_center(d, (cx, cy + 1), str(c), font(38, bold=True), INK)
    elif state == "piper":
        d.ellipse((cx - 26, cy - 26, cx + 26, cy + 26), fill=PANEL, outline=GRID, width=2)
        text_center(d, (cx, cy + 1), str(c), font(30, bold=True), DIM)
    elif state == "full":
        rounded_panel(d, (cx - 44, cy - 28, cx + 44, cy + 28), fill=PANEL, outline=WARN,
                      radius=12, width=3)
        text_center(d, (cx, cy - 8), str(c), font(26, bold=True), MUTED)
        text_center(d, (cx, cy + 15), "FULL", font(18, bold=True), WARN)
    else:
        d.ellipse((cx - 28, cy - 28, cx + 28, cy + 28), fill=PANEL_HI, outline=MUTED, width=2)
        text_center(d, (cx, cy + 1), str(c), font(38, bold=True), TEXT)


@lru_cache(maxsize=28)
def _column_number_tile(c: int, state: str, center: Point) -> Image.Image:
    """Column ``c``'s number when it is not open (open ones are in :func:`_board_frame`):
    a 108 x 64 tile (28 KB), at most 4 states x 7 columns per layout."""
    x, y = round(center[0]), round(center[1])
    box = (x - CELL // 2, y - HEAD_H // 2, x + CELL // 2, y + HEAD_H // 2)
    return _drawn_at(box, lambda d: _draw_column_number(d, c, state, center))


def _cell_origin(x0: int, y0: int, rows: int, c: int, r: int) -> tuple[int, int]:
    """Top left of room (c, r) of an inn whose column numbers start at (x0, y0)."""
    return x0 + ROW_LABEL_W + (c - 1) * CELL, y0 + HEAD_H + 6 + (rows - r) * CELL


def _room_inner(x: float, y: float) -> Box:
    return (x + 4, y + 4, x + CELL - 4, y + CELL - 4)


def _draw_cell(d: ImageDraw.ImageDraw, top_left: Point, room: str | None, column_full: bool,
               piece: Piece | None, short: str) -> None:
    x, y = top_left
    fill = ROOM_TINT.get(room, PANEL_HI) if room else PANEL_HI
    if column_full and not room:
        fill = mix(PANEL_HI, PANEL, 0.5)
    d.rounded_rectangle(_room_inner(x, y), radius=10, fill=fill)
    center = (x + CELL / 2, y + CELL / 2)
    if piece is not None:
        _draw_token(d, piece, short, (center[0] + 2, center[1] + 3), CELL - 22)
        if room:  # keep the room's symbol visible: a badge in the corner
            draw_room_mark(d, room, (x + 20, y + 20), 15)
    elif room:
        draw_room_mark(d, room, center, 26)


@lru_cache(maxsize=1)
def _cell_mask() -> Image.Image:
    """The pixels of a cell tile that are the room itself (its rounded corners show the
    inn's frame, which the tile must leave alone)."""
    mask = Image.new("L", (CELL, CELL), 0)
    ImageDraw.Draw(mask).rounded_rectangle(_room_inner(0, 0), radius=10, fill=255)
    return mask


@lru_cache(maxsize=64)
def _token_cell(piece: Piece, short: str, room: str | None, column_full: bool) -> Image.Image:
    """A room with a token in it on the inn's panel, drawn once per (token, owner, room)
    into a CELL x CELL tile (47 KB) and pasted wherever it stands, instead of ~20 shapes
    and a label per token per picture. A game shows about 30 of them."""
    img = new_canvas(CELL, CELL, PANEL)
    _draw_cell(ImageDraw.Draw(img), (0, 0), room, column_full, piece, short)
    return img


def _draw_inn_frame(d: ImageDraw.ImageDraw, columns: int, rows: int,
                    rooms: dict[tuple[int, int], str], x0: int, y0: int) -> float:
    """The inn with every column open and every room empty; returns the y below it."""
    for c in range(1, columns + 1):
        _draw_column_number(d, c, "open", _column_center(x0, y0, c))
    gx, gy = _cell_origin(x0, y0, rows, 1, rows)
    grid_box = (gx - 6, gy - 6, gx + columns * CELL + 6, gy + rows * CELL + 6)
    rounded_panel(d, grid_box, fill=PANEL, outline=GRID, radius=14, width=3)
    row_font = font(22, bold=True)
    for r in range(1, rows + 1):
        cy = gy + (rows - r + 0.5) * CELL
        text_center(d, (x0 + ROW_LABEL_W / 2 - 4, cy), str(r), row_font, DIM)
    for c in range(1, columns + 1):
        for r in range(1, rows + 1):
            _draw_cell(d, _cell_origin(x0, y0, rows, c, r), rooms.get((c, r)), False, None, "")
    return grid_box[3]


def _draw_inn(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, x0: int, y0: int,
              masked: frozenset[tuple[int, int]]) -> None:
    """What changes in the inn (over :func:`_draw_inn_frame`): column states, tokens and
    the rooms filled in the latest turn; ``masked`` rooms are pasted through the mask."""
    full = pic.full_columns()
    for c in range(1, pic.columns + 1):
        state = _column_state(pic, c, full)
        if state != "open":
            center = _column_center(x0, y0, c)
            tile = _column_number_tile(c, state, center)
            img.paste(tile, (round(center[0]) - CELL // 2, round(center[1]) - HEAD_H // 2))
    mask = _cell_mask()
    for (c, r), piece in pic.cells.items():
        if 1 <= c <= pic.columns and 1 <= r <= pic.rows:
            tile = _token_cell(piece, _short(pic, piece.kind), pic.rooms.get((c, r)),
                               c in full)
            img.paste(tile, _cell_origin(x0, y0, pic.rows, c, r),
                      mask if (c, r) in masked else None)
    for c, r in pic.last_drop:  # on top of everything, so neighbours don't cover it
        bx, by = _cell_origin(x0, y0, pic.rows, c, r)
        d.rounded_rectangle((bx + 1, by + 1, bx + CELL - 1, by + CELL - 1), radius=12,
                            outline=HIGHLIGHT, width=5)


def _draw_player_frame(d: ImageDraw.ImageDraw, seat: int, box: Box, outline: Color,
                       width: int) -> None:
    rounded_panel(d, box, fill=PANEL, outline=outline, radius=14, width=width)
    owner_marker(d, owner_style(seat), (box[0] + 32, box[1] + 26 + 4), 21)


@lru_cache(maxsize=6)
def _player_frame(seat: int, box: tuple[int, int, int, int], outline: Color,
                  width: int) -> Image.Image:
    """A player card's panel and marker (150 KB): per seat, plain, to play or winner."""
    x0, y0, x1, y1 = box
    return _drawn_at((x0, y0, x1 + 1, y1 + 1),
                     lambda d: _draw_player_frame(d, seat, box, outline, width))


def _draw_players(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture,
                  box: tuple[int, int, int, int]) -> int:
    """One card per seat: marker, name, status, gold (and End-of-Game gold)."""
    x0, y0, x1, _ = box
    y = y0
    row_h = PLAYER_ROW_H
    for seat in range(len(pic.gold)):
        style = owner_style(seat)
        active = seat in pic.to_act and not pic.over
        winner = pic.over and seat in pic.winners
        outline = style.color if active else (GOOD if winner else GRID)
        width = 4 if (active or winner) else 2
        img.paste(_player_frame(seat, (x0, y, x1, y + row_h), outline, width), (x0, y))
        top = y + 26
        gold_font = font(38, bold=True)
        gold = str(pic.gold[seat])
        gx = x1 - 14 - gold_font.getlength(gold)
        text_left(d, (gx, top + 6), gold, gold_font, GOLD)
        coin(d, (gx - 24, top + 6), 17)
        name = pic.name(seat)
        name_w = gx - 44 - (x0 + 62)
        name_font = fit_font(name, name_w, 26, min_size=20, bold=True)
        text_left(d, (x0 + 62, top), ellipsize(name, name_font, name_w), name_font, TEXT)
        status = []
        if active:
            status.append("to play")
        if winner:
            status.append("winner")
        if seat == pic.viewer:
            status.append("you")
        if seat == pic.starter:
            status.append("went first")
        small = font(20)
        if status:
            text_left(d, (x0 + 62, top + 33), " · ".join(status), small,
                      style.color if active else (GOOD if winner else MUTED))
        extra = ""
        if pic.over and seat < len(pic.end_bonus) and pic.end_bonus[seat]:
            extra = f"incl. +{pic.end_bonus[seat]} at game end"
        elif not pic.over and seat < len(pic.end_preview) and pic.end_preview[seat]:
            extra = f"+{pic.end_preview[seat]} at game end (so far)"
        if extra:
            text_left(d, (x0 + 16, top + 62), ellipsize(extra, small, x1 - x0 - 30), small,
                      MUTED)
        y += row_h + 10
    return y


def _draw_guest_title(d: ImageDraw.ImageDraw, x0: float, y0: float) -> None:
    text_left(d, (x0 + 4, y0 + 18), "Guest List", font(28, bold=True), TEXT)


def _guest_slot_boxes(x0: int, y0: int, x1: int, slots: int) -> list[tuple[int, int, int, int]]:
    """The slots of a Guest List whose title starts at ``y0``."""
    return [(x0, y0 + 44 + i * GUEST_SLOT_H, x1, y0 + 44 + i * GUEST_SLOT_H + GUEST_SLOT_H - 8)
            for i in range(slots)]


def _guest_face_center(box: Box) -> Point:
    return box[0] + 72 + 36, (box[1] + box[3]) / 2


def _draw_guest_slot_frame(d: ImageDraw.ImageDraw, box: Box, cost: int) -> None:
    """A Guest List slot without its guest: the panel and the cost."""
    x0 = box[0]
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=14, width=2)
    cy = (box[1] + box[3]) / 2
    if cost:
        coin(d, (x0 + 34, cy), 22, str(cost))
    else:
        text_center(d, (x0 + 34, cy), "free", font(20, bold=True), GOOD)


def _draw_guest_face(d: ImageDraw.ImageDraw, box: Box, guest: str | None,
                     short: str) -> None:
    """The circle of a slot: the guest's glyph, or an empty ring."""
    tx, cy = _guest_face_center(box)
    if guest is None:
        d.ellipse((tx - 34, cy - 34, tx + 34, cy + 34), outline=DIM, width=3)
    else:
        d.ellipse((tx - 34, cy - 34, tx + 34, cy + 34), fill=PANEL_HI, outline=MUTED, width=2)
        draw_glyph(d, guest, (tx, cy), 44, TEXT, PANEL_HI, fallback=short)


def _guest_face_box(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    tx, cy = _guest_face_center(box)
    return int(tx) - 35, int(cy) - 35, int(tx) + 36, int(cy) + 36


@lru_cache(maxsize=32)
def _guest_face(box: tuple[int, int, int, int], cost: int, guest: str | None,
                short: str) -> Image.Image:
    """A slot's circle with its guest (20 KB), cut from the whole slot drawn in place: a
    game shows about 8."""

    def paint(d: ImageDraw.ImageDraw) -> None:
        _draw_guest_slot_frame(d, box, cost)
        _draw_guest_face(d, box, guest, short)

    return _drawn_at(_guest_face_box(box), paint)


def _draw_guest_list(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture,
                     box: tuple[int, int, int, int]) -> None:
    """The bag count and the guests (the title and the slots are in :func:`_board_frame`)."""
    x0, y0, x1, _ = box
    bag = f"bag: {pic.bag}"
    bag_font = font(22, bold=True)
    text_left(d, (x1 - 4 - bag_font.getlength(bag), y0 + 20), bag, bag_font, MUTED)
    for i, slot in enumerate(_guest_slot_boxes(x0, y0, x1, len(pic.costs))):
        guest = pic.guests[i] if i < len(pic.guests) else None
        short = "" if guest is None else _short(pic, guest)
        face = _guest_face_box(slot)
        img.paste(_guest_face(slot, pic.costs[i], guest, short), face[:2])
        tx, cy = _guest_face_center(slot)
        if guest is None:
            text_left(d, (tx + 50, cy), "empty", font(24), DIM)
        else:
            name_font = font(24, bold=True)
            lines = wrap_text(pic.char_name(guest), name_font, x1 - tx - 54)[:2]
            ly = cy - (len(lines) - 1) * 14
            for line in lines:
                text_left(d, (tx + 50, ly), line, name_font, TEXT)
                ly += 28


def _draw_legend(d: ImageDraw.ImageDraw, x0: float, y: float, x1: float) -> None:
    """The special-room key, in one row under the inn."""
    fnt = font(22)
    items = [(kind, label, 40 + fnt.getlength(label)) for kind, label in ROOM_LEGEND]
    gap = (x1 - x0 - sum(w for _, _, w in items)) / max(1, len(items) - 1)
    x = x0
    for kind, label, w in items:
        draw_room_mark(d, kind, (x + 16, y), 16)
        text_left(d, (x + 38, y), label, fnt, MUTED)
        x += w + gap


def _companion_line(pic: Picture, ch: Character) -> str:
    if not ch.companion:
        return ""
    left = pic.companions_left.get(ch.companion, 0)
    name = pic.char_name(ch.companion)
    return f"{name}s left on the card: {left}" if left != 1 else f"{name}s left on the card: 1"


def _ability_text(ch: Character) -> str:
    """The ability without its timing prefix (the timing is drawn as a tag)."""
    text = ch.text.strip()
    for label in (*KIND_LABEL.values(), "When Dropped"):
        if text.lower().startswith(label.lower() + ":"):
            text = text[len(label) + 1:].strip()
            return text[:1].upper() + text[1:]
    return text


def _character_card_height(ch: Character, w: float) -> int:
    body = font(22)
    lines = len(wrap_text(_ability_text(ch), body, w - 108)) + (1 if ch.companion else 0)
    return max(108, 56 + lines * line_height(body) + 12)


CHAR_COLS = 2
CHAR_GAP = 16
CHAR_W = (WIDTH - 2 * MARGIN - CHAR_GAP * (CHAR_COLS - 1)) / CHAR_COLS

Card = tuple[float, float, float, int]  # a character card's x, y, width and height


@lru_cache(maxsize=16)
def _character_cards(characters: tuple[Character, ...], y0: int
                     ) -> tuple[tuple[Card, float], ...]:
    """Each character's card (two a row, a row as tall as its tallest card) under the
    title at ``y0``, and the x where the next card in its row starts (inf if none).
    Measuring wraps every ability text; the characters stay the same for a whole game."""
    cards: list[tuple[Card, float]] = []
    y = y0 + 44
    for i in range(0, len(characters), CHAR_COLS):
        row = characters[i:i + CHAR_COLS]
        h = max(_character_card_height(ch, CHAR_W) for ch in row)
        for j in range(len(row)):
            bx = MARGIN + j * (CHAR_W + CHAR_GAP)
            next_x = bx + CHAR_W + CHAR_GAP if j + 1 < len(row) else math.inf
            cards.append(((bx, y, CHAR_W, h), next_x))
        y += h + CHAR_GAP
    return tuple(cards)


def _characters_height(characters: tuple[Character, ...]) -> int:
    """Height of the characters block: its title and its rows of cards."""
    cards = _character_cards(characters, 0)
    return cards[-1][0][1] + cards[-1][0][3] + CHAR_GAP if cards else 44


def _draw_characters_title(d: ImageDraw.ImageDraw, y0: float) -> None:
    text_left(d, (MARGIN + 4, y0 + 18), "Characters in play", font(28, bold=True), TEXT)


def _draw_character_card(d: ImageDraw.ImageDraw, ch: Character, card: Card,
                         companion_line: str | None = None) -> Point | None:
    """One character's card; without ``companion_line``, but for its companion's count
    (it changes during a game): returns where that goes, if it has a companion."""
    bx, y, w, h = card
    rounded_panel(d, (bx, y, bx + w, y + h), fill=PANEL, outline=GRID, radius=14)
    draw_shape(d, "circle", (bx + 48, y + 50), 36, fill=PANEL_HI, outline=GRID, width=2)
    draw_glyph(d, ch.id, (bx + 48, y + 50), 46, TEXT, PANEL_HI, fallback=ch.name)
    tx = bx + 96
    tag = KIND_LABEL.get(ch.kind, "")
    tag_font = font(18, bold=True)
    tag_w = tag_font.getlength(tag) + 20 if tag else 0
    name_w = w - 110 - tag_w - 10
    name_font = fit_font(ch.name, name_w, 24, min_size=19, bold=True)
    name = ellipsize(ch.name, name_font, name_w)
    text_left(d, (tx, y + 24), name, name_font, TEXT)
    if tag:
        badge(d, (tx + name_font.getlength(name) + 10, y + 25), tag, tag_font,
              KIND_COLOR.get(ch.kind, MUTED), INK, pad=(10, 2))
    ty = draw_wrapped(d, (tx, y + 46), _ability_text(ch), font(22), MUTED, w - 108)
    if not ch.companion:
        return None
    draw_shape(d, "hexagon", (tx + 12, ty + 14), 12, fill=NEUTRAL, outline=INK, width=2)
    if companion_line is not None:
        text_left(d, (tx + 32, ty + 14), companion_line, font(22, bold=True), TEXT)
    return tx + 32, ty + 14


def _card_box(card: Card) -> tuple[int, int, int, int]:
    bx, y, w, h = card
    return int(bx), int(y), int(bx + w) + 1, int(y + h) + 1


@lru_cache(maxsize=15)
def _character_card(ch: Character, card: Card) -> tuple[Image.Image, Point | None]:
    """A character's card (350-410 KB) and where its companion's count goes: a game's
    five cards stay the same all game long (and games share the cards they have alike)."""
    spot: list[Point | None] = []
    tile = _drawn_at(_card_box(card), lambda d: spot.append(_draw_character_card(d, ch, card)))
    return tile, spot[0]


# Where a card's companion count is written, and the x where the next card starts.
CompanionSpot = tuple[Point, float, Character]


def _draw_character_cards(img: Image.Image, characters: tuple[Character, ...], y0: int
                          ) -> list[CompanionSpot]:
    """The cached cards under the title at ``y0``; returns where the counts go."""
    spots: list[CompanionSpot] = []
    for ch, (card, next_x) in zip(characters, _character_cards(characters, y0), strict=True):
        tile, spot = _character_card(ch, card)
        img.paste(tile, _card_box(card)[:2])
        if spot is not None:
            spots.append((spot, next_x, ch))
    return spots


def _draw_companion_counts(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture,
                           spots: Sequence[CompanionSpot], y0: int) -> None:
    """The companions' counts over the cached cards. A count so long that it reaches the
    next card would be drawn over by that card: then the cards are drawn anew, in order."""
    fnt = font(22, bold=True)
    lines = [(pos, _companion_line(pic, ch)) for pos, _, ch in spots]
    if all(d.textbbox(pos, line, font=fnt, anchor="lm")[2] < next_x
           for (pos, line), (_, next_x, _) in zip(lines, spots, strict=True)):
        for pos, line in lines:
            text_left(d, pos, line, fnt, TEXT)
        return
    img.paste(BG, (0, y0, img.width, img.height))
    _draw_characters_title(d, y0)
    characters = tuple(pic.characters)
    for ch, (card, _) in zip(characters, _character_cards(characters, y0), strict=True):
        _draw_character_card(d, ch, card, _companion_line(pic, ch))


def _side_x0(columns: int) -> int:
    return MARGIN + ROW_LABEL_W + columns * CELL + 6 + 24


def _players_height(seats: int) -> int:
    return seats * (PLAYER_ROW_H + 10)


# Rows of background the cached frame keeps under the body for the characters' cards,
# whatever the game's five are (the shipped ones need 580-660); a taller picture gets
# the rest filled in.
CHARACTERS_ROOM = 704


@lru_cache(maxsize=1)
def _board_frame(columns: int, rows: int, rooms: Rooms, seats: int, costs: tuple[int, ...],
                 body_bottom: int, characters_title: bool
                 ) -> tuple[Image.Image, frozenset[tuple[int, int]]]:
    """What the layout alone decides (1200 x 1608: 7.7 MB): background, the inn with every
    room empty and every column open, the room key, the Guest List's title and slots,
    the characters' title, and room under them for any game's cards. Rooms, sizes and
    costs come from the content file: a worker holds one.

    Also the rooms whose token tiles must be pasted through :func:`_cell_mask`: those
    whose square shows more than the inn's plain panel around the room (the frame's
    rounded corners); the others take a plain paste, ten times quicker."""
    img = new_canvas(WIDTH, body_bottom + CHARACTERS_ROOM, BG)
    d = ImageDraw.Draw(img)
    top = MARGIN + BANNER_H + 16
    inn_bottom = _draw_inn_frame(d, columns, rows, dict(rooms), MARGIN, top)
    inn_w = ROW_LABEL_W + columns * CELL + 6
    _draw_legend(d, MARGIN + ROW_LABEL_W, inn_bottom + LEGEND_H / 2 + 4, MARGIN + inn_w)
    guests_y0 = top + _players_height(seats) + 4
    _draw_guest_title(d, _side_x0(columns), guests_y0)
    for slot, cost in zip(_guest_slot_boxes(_side_x0(columns), guests_y0, WIDTH - MARGIN,
                                            len(costs)), costs, strict=True):
        _draw_guest_slot_frame(d, slot, cost)
    if characters_title:
        _draw_characters_title(d, body_bottom + 16)
    masked: set[tuple[int, int]] = set()
    for c in range(1, columns + 1):
        for r in range(1, rows + 1):
            x, y = _cell_origin(MARGIN, top, rows, c, r)
            square = img.crop((x, y, x + CELL, y + CELL))
            plain = new_canvas(CELL, CELL, PANEL)
            plain.paste(square, (0, 0), _cell_mask())
            if plain.tobytes() != square.tobytes():
                masked.add((c, r))
    return img, frozenset(masked)


def draw(pic: Picture) -> Image.Image:
    """The whole picture as a Pillow image."""
    inn_h = HEAD_H + 6 + pic.rows * CELL + 6 + LEGEND_H
    side_x0 = _side_x0(pic.columns)
    side_x1 = WIDTH - MARGIN
    # Measure the characters block first so the canvas is tall enough.
    characters = tuple(pic.characters)
    char_h = _characters_height(characters)
    top = MARGIN + BANNER_H + 16
    side_h = _players_height(len(pic.gold)) + 4 + 44 + len(pic.costs) * GUEST_SLOT_H
    body_h = max(inn_h, side_h)
    height = top + body_h + 16 + (char_h if characters else 0) + MARGIN - 16
    rooms = tuple(sorted(pic.rooms.items()))
    frame, masked = _board_frame(pic.columns, pic.rows, rooms, len(pic.gold), tuple(pic.costs),
                                 top + body_h, bool(characters))
    img = frame.crop((0, 0, WIDTH, height))
    if height > frame.height:  # an unusually tall block of cards: the rest is background
        img.paste(BG, (0, frame.height, WIDTH, height))
    companions = _draw_character_cards(img, characters, top + body_h + 16)
    d = ImageDraw.Draw(img)
    _draw_banner(img, d, pic, (MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + BANNER_H))
    _draw_inn(img, d, pic, MARGIN, top, masked)
    y = _draw_players(img, d, pic, (side_x0, top, side_x1, top + body_h))
    _draw_guest_list(img, d, pic, (side_x0, y + 4, side_x1, top + body_h))
    _draw_companion_counts(img, d, pic, companions, top + body_h + 16)
    return img


def render_picture(pic: Picture) -> bytes:
    return to_png(draw(pic))


# --------------------------------------------------------------------------- from the view


def _room_kind(kind: str, amount: int) -> str:
    return f"gold{amount}" if kind == "gold" else kind


def picture_from_view(view: Any, names: Sequence[str] | None = None) -> Picture:
    """The :class:`Picture` of a Fairy Tale Inn view (``engines.fairy_tale_inn.InnView``
    or its ``model_dump()``); ``names`` are the seats' display names."""
    columns = int(view_get(view, "columns", 7))
    rows = int(view_get(view, "rows", 6))
    cells: dict[tuple[int, int], Piece] = {}
    for c, col in enumerate(view_get(view, "grid", []) or []):
        for r, cell in enumerate(col):
            cells[(c + 1, r + 1)] = Piece(str(view_get(cell, "token")), view_get(cell, "owner"))
    rooms = {
        (int(view_get(rm, "column")), int(view_get(rm, "row"))):
            _room_kind(str(view_get(rm, "kind")), int(view_get(rm, "amount", 0)))
        for rm in view_get(view, "rooms", []) or []
    }
    slots = sorted(view_get(view, "guest_list", []) or [], key=lambda s: int(view_get(s, "slot")))
    characters = [
        # A content file may give a shorter caption for images; else the full text.
        Character(str(view_get(ch, "id")), str(view_get(ch, "name")),
                  str(view_get(ch, "ability", "")),
                  str(view_get(ch, "short", None) or view_get(ch, "text", "")),
                  view_get(ch, "companion"))
        for ch in view_get(view, "characters", []) or []
    ]
    extra_names = {}
    for col in view_get(view, "grid", []) or []:
        for cell in col:
            extra_names[str(view_get(cell, "token"))] = str(view_get(cell, "name"))
    for slot in slots:
        if view_get(slot, "token") is not None:
            extra_names[str(view_get(slot, "token"))] = str(view_get(slot, "name"))
    to_act = view_get(view, "to_act")
    winners = view_get(view, "winners")
    gold = [int(g) for g in view_get(view, "gold", []) or []]
    return Picture(
        columns=columns,
        rows=rows,
        cells=cells,
        rooms=rooms,
        guests=[view_get(s, "token") for s in slots],
        costs=[int(view_get(s, "cost", 0)) for s in slots],
        gold=gold,
        names=list(names or []),
        to_act=[] if to_act is None else [int(to_act)],
        starter=view_get(view, "starter"),
        viewer=view_get(view, "seat"),
        characters=characters,
        token_names=extra_names,
        bag=int(view_get(view, "bag_count", 0)),
        last_drop=[(int(c), int(r)) for c, r in view_get(view, "last_cells", []) or []],
        pending=str(view_get(view, "prompt", "") or ""),
        phase=str(view_get(view, "phase", "") or ""),
        rat_columns=[int(c) for c in view_get(view, "rat_columns", []) or []],
        over=winners is not None,
        winners=[int(w) for w in winners or []],
        reason=str(view_get(view, "reason", "") or ""),
        end_preview=[int(g) for g in view_get(view, "end_preview", []) or []],
        end_bonus=[int(g) for g in view_get(view, "end_bonus", []) or []],
        companions_left={str(k): int(v)
                         for k, v in (view_get(view, "companions_left", {}) or {}).items()},
    )


def render(view: Any, names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of a Fairy Tale Inn view; ``names`` are the seats' display names."""
    return render_picture(picture_from_view(view, names))
