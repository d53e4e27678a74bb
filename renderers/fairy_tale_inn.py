"""Fairy Tale Inn: the inn, the players' gold, the Guest List and the characters in play
as one PNG.

Layout (1200 px wide, for phones that show it ~400 px wide, so no text is under 27 px
here, 9 px there): a status banner on top; one card per player (marker, name, gold);
the inn (7 x 6, row 1 at the bottom, big column numbers above the columns where tokens
are dropped in) on the left, the Guest List, bag count and the key of the special rooms
on the right; the characters in play with their abilities below. A token shows its
character's pictogram only: the character cards below are its legend (pictogram, name,
ability), the Rat and the Beanstalk are drawn on the cards of the Pied Piper and Jack.

Owners are told apart by colour *and* token shape (seat A round, seat B square) *and*
the letter on the player cards; Rats and Beanstalks are grey hexagons that belong to
nobody. Money is never a flat disc like a token: gold is a stack of coins seen from the
side, and a gold room says "+1" or "+2" over its coins. The winner is shown by their own
seat marker under a crown, and a tie on gold is said in words. The image is drawn only
from the view, and never from the bag's order (only its size is shown).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

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
    NEUTRAL,
    PANEL,
    PANEL_HI,
    TEXT,
    WARN,
    Box,
    Color,
    Point,
    draw_shape,
    ellipsize,
    fit_font,
    font,
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
GAP = 14  # between the banner, the players, the inn and the characters
CELL = 104
ROW_LABEL_W = 34
PLAYER_H = 128
PLAYER_GAP = 16
GUEST_SLOT_H = 108
KEY_ROW_H = 44

# The smallest text drawn: 27 px is 9 px once the picture is shown 400 px wide.
MIN_TEXT = 27
BODY = 27  # ability texts, statuses, the room key
TITLE = 30  # section titles, names

# Short labels of tokens (the pictogram's stand-in when a kind has no glyph).
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
# each picture then draws its own text and highlights on top (a companion's count stays
# inside its card). Where two pieces overlap they keep their drawing order, so the
# pixels are those of drawing everything straight onto the board. Each cached piece is
# drawn at the place it is pasted to, except token cells: they are drawn once and pasted
# a whole number of pixels away (which gave the same pixels in every room, for every
# token and kind of room). Filled up, the caches hold about 25 MB (Pillow keeps RGB at 4
# bytes a pixel): the frame 8.9, character cards 7 (three games), token cells 2.8,
# banners 2.8, player cards 1.8, the rest 1.6.

BANNER_H = 100
HEAD_H = 76  # the strip of column numbers above the inn
TOKEN = CELL - 16  # a token's size in its room

Rooms = tuple[tuple[tuple[int, int], str], ...]  # ((col, row), kind), sorted: a cache key


def _short(pic: Picture, kind: str) -> str:
    return _short_of(kind, pic.char_name(kind))


def _short_of(kind: str, name: str) -> str:
    """A token's short label (what stands in for a pictogram a kind lacks)."""
    return SHORT.get(kind) or (name.split() or [kind])[-1][:6]


def draw_coins(d: ImageDraw.ImageDraw, center: Point, width: float, count: int = 1) -> None:
    """Money: a stack of ``count`` gold coins seen from the side, ``width`` wide and
    centred on ``center`` (``width * (0.42 + 0.2 * count)`` high). No token has this
    shape, so coins never pass for seat A's round tokens, whatever the colours."""
    cx, cy = center
    r = width / 2
    face = width * 0.42  # a coin's face, seen at a slant
    thick = width * 0.2
    lw = max(1, round(width / 16))
    bottom = cy + (face + count * thick) / 2
    top = bottom
    for i in range(count):
        top = bottom - face - (i + 1) * thick  # the top of this coin's face
        d.ellipse((cx - r, top + thick, cx + r, top + thick + face), fill=GOLD_DARK,
                  outline=INK, width=lw)
        d.rectangle((cx - r, top + face / 2, cx + r, top + thick + face / 2), fill=GOLD_DARK)
        for x in (cx - r + lw / 2, cx + r - lw / 2):
            d.line((x, top + face / 2, x, top + thick + face / 2), fill=INK, width=lw)
        d.ellipse((cx - r, top, cx + r, top + face), fill=GOLD, outline=INK, width=lw)
    k = 0.6  # the rim of the top coin's face
    d.ellipse((cx - r * k, top + face * (1 - k) / 2, cx + r * k, top + face * (1 + k) / 2),
              outline=GOLD_DARK, width=lw)


def draw_crown(d: ImageDraw.ImageDraw, base: Point, half_width: float) -> None:
    """A three-pointed crown standing on ``base`` (the middle of its bottom edge)."""
    cx, by = base
    w, h = half_width, half_width * 1.1
    d.polygon([(cx - w, by), (cx - w, by - h), (cx - w / 2, by - h * 0.45), (cx, by - h),
               (cx + w / 2, by - h * 0.45), (cx + w, by - h), (cx + w, by)],
              fill=GOLD, outline=INK, width=2)


def draw_token(d: ImageDraw.ImageDraw, pic: Picture, piece: Piece, center: Point,
               size: float) -> None:
    """One token: owner colour and shape (grey hexagon if ownerless) and the pictogram
    of its character (whose card, below the inn, names it)."""
    _draw_token(d, piece, _short(pic, piece.kind), center, size)


def _draw_token(d: ImageDraw.ImageDraw, piece: Piece, short: str, center: Point,
                size: float) -> None:
    if piece.owner is None:
        fill, shape = NEUTRAL, "hexagon"
    else:
        style = owner_style(piece.owner)
        fill, shape = style.color, style.shape
    draw_shape(d, shape, center, size / 2, fill=fill, outline=INK, width=3)
    draw_glyph(d, piece.kind, center, size * 0.62, INK, fill, fallback=short)


def draw_room_mark(d: ImageDraw.ImageDraw, kind: str, center: Point, radius: float,
                   value: bool = False) -> None:
    """The symbol of a special room: one or two coins (under "+1" or "+2" with
    ``value``), a crossed circle, a turn arrow."""
    cx, cy = center
    if kind in ("gold1", "gold2"):
        count = 1 if kind == "gold1" else 2
        if value:
            size = max(MIN_TEXT, round(radius * 1.25))
            text_center(d, (cx, cy - radius * 0.62), f"+{count}", font(size, bold=True), TEXT)
            draw_coins(d, (cx, cy + radius * 0.72), radius * 1.7, count)
        else:
            draw_coins(d, center, radius * 2, count)
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


def _fit_line(text: str, fnt: ImageFont.FreeTypeFont, max_width: float,
              names: Sequence[str] = ()) -> str:
    """``text`` made to fit ``max_width``: the longest of ``names`` in it shortened first
    (so "… wins!" stays), then the whole line, with an ellipsis."""
    for name in sorted({n for n in names if n and n in text}, key=len, reverse=True):
        over = fnt.getlength(text) - max_width
        if over <= 0:
            break
        text = text.replace(name, ellipsize(name, fnt, max(0, fnt.getlength(name) - over)))
    return ellipsize(text, fnt, max_width)


def _tied(pic: Picture) -> bool:
    """Whether every player has the same gold (the game is then decided by who started)."""
    return len(pic.gold) > 1 and len(set(pic.gold)) == 1


def _status_lines(pic: Picture) -> tuple[str, str, Color]:
    """Banner headline, detail line and headline colour."""
    if pic.over:
        detail = f"Game over: {pic.reason}." if pic.reason else "Game over."
        if len(pic.winners) == 1:
            seat = pic.winners[0]
            you = seat == pic.viewer
            who = f"{pic.name(seat)} wins!"
            if _tied(pic):
                return (f"Tie on gold: {'you win!' if you else who}",
                        f"Game over, tied at {pic.gold[0]} gold: the player who did not "
                        "start wins.", GOOD)
            return "You win!" if you else who, detail, GOOD
        if pic.winners:
            who = " & ".join(pic.name(s) for s in pic.winners)
            return f"A draw: {who} share the win", detail, GOOD
        return "A draw: nobody wins", detail, GOOD
    if pic.to_act:
        seat = pic.to_act[0]
        head = f"Your turn, {pic.name(seat)}" if seat == pic.viewer else (
            f"{pic.name(seat)} to play")
        return head, pic.pending, TEXT
    return "Fairy Tale Inn", pic.pending, TEXT


# What the banner's marker shows: ("turn", (seat,)), ("win", (seat,)), ("draw", seats)
# (the seats that share the win, maybe none), or nothing.
BannerMarker = tuple[str, tuple[int, ...]] | None
MARKER_R = 27
MARKER_STEP = 62  # between two markers side by side (a shared win)


def _banner_marker(pic: Picture) -> BannerMarker:
    if pic.over:
        if len(pic.winners) == 1:
            return "win", (pic.winners[0],)
        return "draw", tuple(pic.winners)
    if pic.to_act:
        return "turn", (pic.to_act[0],)
    return None


def _draw_banner_frame(d: ImageDraw.ImageDraw, box: Box, accent: Color,
                       marker: BannerMarker) -> None:
    x0, y0, _, y1 = box
    rounded_panel(d, box, fill=PANEL, outline=accent, radius=14, width=4)
    if marker is None:
        return
    kind, seats = marker
    x, cy = x0 + 22 + MARKER_R, (y0 + y1) / 2
    if kind == "turn":
        owner_marker(d, owner_style(seats[0]), (x, cy), MARKER_R)
    elif kind == "win":  # the winner's own marker, crowned
        draw_crown(d, (x, cy - 12), 23)
        owner_marker(d, owner_style(seats[0]), (x, cy + 12), MARKER_R)
    elif seats:  # a shared win: every winner's marker
        for i, seat in enumerate(seats):
            owner_marker(d, owner_style(seat), (x + i * MARKER_STEP, cy), MARKER_R)
    else:  # nobody wins: an equals sign
        d.ellipse((x - MARKER_R, cy - MARKER_R, x + MARKER_R, cy + MARKER_R), fill=PANEL_HI,
                  outline=MUTED, width=2)
        text_center(d, (x, cy), "=", font(36, bold=True), TEXT)


@lru_cache(maxsize=6)
def _banner_frame(box: tuple[int, int, int, int], accent: Color,
                  marker: BannerMarker) -> Image.Image:
    """The banner's panel and marker (470 KB): one per seat to act, result, or none."""
    x0, y0, x1, y1 = box
    return _drawn_at((x0, y0, x1 + 1, y1 + 1),
                     lambda d: _draw_banner_frame(d, box, accent, marker))


def _draw_banner(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture,
                 box: tuple[int, int, int, int]) -> None:
    head, detail, color = _status_lines(pic)
    x0, y0, x1, y1 = box
    marker = _banner_marker(pic)
    active = marker is not None and marker[0] == "turn"
    accent = owner_style(pic.to_act[0]).color if active else (GOOD if pic.over else GRID)
    img.paste(_banner_frame(box, accent, marker), (x0, y0))
    x = x0 + 22
    cy = (y0 + y1) / 2
    if marker is not None:
        x += 2 * MARKER_R + MARKER_STEP * max(0, len(marker[1]) - 1) + 18
    avail = x1 - x - 20
    names = [pic.name(s) for s in range(max(len(pic.gold), len(pic.names)))]
    head_font = fit_font(head, avail, 40, min_size=32, bold=True)
    head = _fit_line(head, head_font, avail, names)
    if detail:
        text_left(d, (x, cy - 20), head, head_font, color)
        det_font = fit_font(detail, avail, 28, min_size=MIN_TEXT)
        text_left(d, (x, cy + 24), _fit_line(detail, det_font, avail, names), det_font, MUTED)
    else:
        text_left(d, (x, cy), head, head_font, color)


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
        d.ellipse((cx - 32, cy - 32, cx + 32, cy + 32), fill=TEXT, outline=GOLD, width=4)
        text_center(d, (cx, cy + 1), str(c), font(40, bold=True), INK)
    elif state == "piper":
        d.ellipse((cx - 27, cy - 27, cx + 27, cy + 27), fill=PANEL, outline=GRID, width=2)
        text_center(d, (cx, cy + 1), str(c), font(32, bold=True), DIM)
    elif state == "full":
        rounded_panel(d, (cx - 46, cy - 35, cx + 46, cy + 35), fill=PANEL, outline=WARN,
                      radius=12, width=3)
        text_center(d, (cx, cy - 13), str(c), font(30, bold=True), MUTED)
        text_center(d, (cx, cy + 17), "FULL", font(MIN_TEXT, bold=True), WARN)
    else:
        d.ellipse((cx - 30, cy - 30, cx + 30, cy + 30), fill=PANEL_HI, outline=MUTED, width=2)
        text_center(d, (cx, cy + 1), str(c), font(40, bold=True), TEXT)


@lru_cache(maxsize=28)
def _column_number_tile(c: int, state: str, center: Point) -> Image.Image:
    """Column ``c``'s number when it is not open (open ones are in :func:`_board_frame`):
    a CELL x HEAD_H tile (32 KB), at most 4 states x 7 columns per layout."""
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
        _draw_token(d, piece, short, center, TOKEN)
        if room:  # keep the room's symbol visible: a badge in the corner
            draw_room_mark(d, room, (x + 20, y + 20), 16)
    elif room:
        draw_room_mark(d, room, center, 28, value=True)


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
    into a CELL x CELL tile (43 KB) and pasted wherever it stands, instead of ~20 shapes
    per token per picture. A game shows about 30 of them."""
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
    row_font = font(MIN_TEXT, bold=True)
    for r in range(1, rows + 1):
        cy = gy + (rows - r + 0.5) * CELL
        text_center(d, (x0 + ROW_LABEL_W / 2 - 4, cy), str(r), row_font, MUTED)
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


# --------------------------------------------------------------------------- players


def _player_boxes(seats: int, y0: int) -> list[tuple[int, int, int, int]]:
    """One card per seat, side by side across the picture under the banner."""
    w = (WIDTH - 2 * MARGIN - PLAYER_GAP * (seats - 1)) / max(1, seats)
    return [(round(MARGIN + i * (w + PLAYER_GAP)), y0,
             round(MARGIN + i * (w + PLAYER_GAP) + w), y0 + PLAYER_H) for i in range(seats)]


def _draw_player_frame(d: ImageDraw.ImageDraw, seat: int, box: Box, outline: Color,
                       width: int) -> None:
    rounded_panel(d, box, fill=PANEL, outline=outline, radius=14, width=width)
    owner_marker(d, owner_style(seat), (box[0] + 44, box[1] + 40), 28)


@lru_cache(maxsize=6)
def _player_frame(seat: int, box: tuple[int, int, int, int], outline: Color,
                  width: int) -> Image.Image:
    """A player card's panel and marker (300 KB): per seat, plain, to play or winner."""
    x0, y0, x1, y1 = box
    return _drawn_at((x0, y0, x1 + 1, y1 + 1),
                     lambda d: _draw_player_frame(d, seat, box, outline, width))


def _player_status(pic: Picture, seat: int) -> list[str]:
    status = []
    if seat in pic.to_act and not pic.over:
        status.append("to play")
    if pic.over and seat in pic.winners:
        status.append("wins the tie" if _tied(pic) and len(pic.winners) == 1 else "winner")
    if seat == pic.viewer:
        status.append("you")
    if seat == pic.starter:
        status.append("went first")
    return status


def _draw_players(img: Image.Image, d: ImageDraw.ImageDraw, pic: Picture, y0: int) -> None:
    """One card per seat: marker, name, status, gold (and End-of-Game gold)."""
    gold_font, name_font, small = font(48, bold=True), font(TITLE, bold=True), font(BODY)
    for seat, box in enumerate(_player_boxes(len(pic.gold), y0)):
        x0, y, x1, _ = box
        style = owner_style(seat)
        active = seat in pic.to_act and not pic.over
        winner = pic.over and seat in pic.winners
        outline = style.color if active else (GOOD if winner else GRID)
        width = 4 if (active or winner) else 2
        img.paste(_player_frame(seat, box, outline, width), (x0, y))
        gold = str(pic.gold[seat])
        gx = x1 - 20 - gold_font.getlength(gold)
        text_left(d, (gx, y + 50), gold, gold_font, GOLD)
        draw_coins(d, (gx - 32, y + 52), 40, 3)
        tx = x0 + 86
        tw = gx - 52 - 14 - tx
        name = pic.name(seat)
        fnt = fit_font(name, tw, TITLE, min_size=MIN_TEXT, bold=True) if (
            name_font.getlength(name) > tw) else name_font
        text_left(d, (tx, y + 36), ellipsize(name, fnt, tw), fnt, TEXT)
        status = _player_status(pic, seat)
        if status:
            text_left(d, (tx, y + 72), ellipsize(" · ".join(status), small, tw), small,
                      style.color if active else (GOOD if winner else MUTED))
        extra = ""
        if pic.over and seat < len(pic.end_bonus) and pic.end_bonus[seat]:
            extra = f"incl. +{pic.end_bonus[seat]} at game end"
        elif not pic.over and seat < len(pic.end_preview) and pic.end_preview[seat]:
            extra = f"+{pic.end_preview[seat]} at game end (so far)"
        if extra:
            text_left(d, (tx, y + 106), ellipsize(extra, small, x1 - 20 - tx), small, MUTED)


# --------------------------------------------------------------------------- Guest List


def _draw_guest_title(d: ImageDraw.ImageDraw, x0: float, y0: float) -> None:
    text_left(d, (x0 + 4, y0 + 20), "Guest List", font(TITLE, bold=True), TEXT)


def _guest_slot_boxes(x0: int, y0: int, x1: int, slots: int) -> list[tuple[int, int, int, int]]:
    """The slots of a Guest List whose title starts at ``y0``."""
    return [(x0, y0 + 44 + i * GUEST_SLOT_H, x1, y0 + 44 + i * GUEST_SLOT_H + GUEST_SLOT_H - 8)
            for i in range(slots)]


GUEST_R = 36  # the radius of a slot's circle


def _guest_face_center(box: Box) -> Point:
    return box[0] + 78 + GUEST_R, (box[1] + box[3]) / 2


def _draw_guest_slot_frame(d: ImageDraw.ImageDraw, box: Box, cost: int) -> None:
    """A Guest List slot without its guest: the panel and the cost (its coins)."""
    x = box[0] + 40
    rounded_panel(d, box, fill=PANEL, outline=GRID, radius=14, width=2)
    cy = (box[1] + box[3]) / 2
    if cost:
        text_center(d, (x, cy - 19), str(cost), font(32, bold=True), TEXT)
        draw_coins(d, (x, cy + 20), 40, min(cost, 3))
    else:
        text_center(d, (x, cy), "free", font(MIN_TEXT, bold=True), GOOD)


def _draw_guest_face(d: ImageDraw.ImageDraw, box: Box, guest: str | None,
                     short: str) -> None:
    """The circle of a slot: the guest's glyph, or an empty ring."""
    tx, cy = _guest_face_center(box)
    r = GUEST_R
    if guest is None:
        d.ellipse((tx - r, cy - r, tx + r, cy + r), outline=DIM, width=3)
    else:
        d.ellipse((tx - r, cy - r, tx + r, cy + r), fill=PANEL_HI, outline=MUTED, width=2)
        draw_glyph(d, guest, (tx, cy), 48, TEXT, PANEL_HI, fallback=short)


def _guest_face_box(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    tx, cy = _guest_face_center(box)
    r = GUEST_R
    return int(tx) - r - 1, int(cy) - r - 1, int(tx) + r + 2, int(cy) + r + 2


@lru_cache(maxsize=32)
def _guest_face(box: tuple[int, int, int, int], cost: int, guest: str | None,
                short: str) -> Image.Image:
    """A slot's circle with its guest (24 KB), cut from the whole slot drawn in place: a
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
    bag_font = font(MIN_TEXT, bold=True)
    text_left(d, (x1 - 4 - bag_font.getlength(bag), y0 + 20), bag, bag_font, MUTED)
    name_font = font(MIN_TEXT, bold=True)
    for i, slot in enumerate(_guest_slot_boxes(x0, y0, x1, len(pic.costs))):
        guest = pic.guests[i] if i < len(pic.guests) else None
        short = "" if guest is None else _short(pic, guest)
        face = _guest_face_box(slot)
        img.paste(_guest_face(slot, pic.costs[i], guest, short), face[:2])
        tx, cy = _guest_face_center(slot)
        nx, nw = tx + GUEST_R + 10, x1 - 10 - (tx + GUEST_R + 10)
        if guest is None:
            text_left(d, (nx, cy), "empty", font(MIN_TEXT), DIM)
            continue
        lines = wrap_text(pic.char_name(guest), name_font, nw)
        if len(lines) > 2:
            lines = [lines[0], ellipsize(" ".join(lines[1:]), name_font, nw)]
        ly = cy - (len(lines) - 1) * 16
        for line in lines:
            text_left(d, (nx, ly), ellipsize(line, name_font, nw), name_font, TEXT)
            ly += 32


KEY_H = len(ROOM_LEGEND) * KEY_ROW_H + 16


def _draw_room_key(d: ImageDraw.ImageDraw, x0: float, y0: float, x1: float) -> None:
    """The special rooms' key, one a row: the symbol a room shows when a token is in it."""
    rounded_panel(d, (x0, y0, x1, y0 + KEY_H), fill=PANEL, outline=GRID, radius=14, width=2)
    fnt = font(BODY)
    for i, (kind, label) in enumerate(ROOM_LEGEND):
        y = y0 + 8 + (i + 0.5) * KEY_ROW_H
        draw_room_mark(d, kind, (x0 + 36, y), 20)
        text_left(d, (x0 + 72, y), label, fnt, MUTED)


# --------------------------------------------------------------------------- characters


def _companion_line(pic: Picture, ch: Character, fnt: ImageFont.FreeTypeFont,
                    max_width: float) -> str:
    """How many of ``ch``'s companions are left on its card, said as fully as fits."""
    if not ch.companion:
        return ""
    left = pic.companions_left.get(ch.companion, 0)
    name = pic.char_name(ch.companion)
    line = f"{name}s left on the card: {left}"
    if fnt.getlength(line) > max_width:
        line = f"{name}s left: {left}"
    return ellipsize(line, fnt, max_width)


def _ability_text(ch: Character) -> str:
    """The ability without its timing prefix (the timing is drawn as a tag)."""
    text = ch.text.strip()
    for label in (*KIND_LABEL.values(), "When Dropped"):
        if text.lower().startswith(label.lower() + ":"):
            text = text[len(label) + 1:].strip()
            return text[:1].upper() + text[1:]
    return text


def _tag(ch: Character) -> str:
    """The ability's timing as it starts the text: "End of Game:" (or nothing)."""
    label = KIND_LABEL.get(ch.kind, "")
    return f"{label}:" if label else ""


def _wrap_lines(text: str, fnt: ImageFont.FreeTypeFont, widths: Sequence[float]) -> list[str]:
    """``text`` wrapped greedily, line ``i`` at most ``widths[i]`` wide (the last width
    for every line after). A word too long for a line goes to a wider one below, or is
    cut if none is wider."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        while word:
            width = widths[min(len(lines), len(widths) - 1)]
            candidate = f"{line} {word}" if line else word
            if fnt.getlength(candidate) <= width:
                line, word = candidate, ""
            elif line:  # the line is full: the word starts the next one
                lines.append(line)
                line = ""
            elif len(lines) + 1 < len(widths) and max(widths[len(lines) + 1:]) > width:
                lines.append("")
            else:
                cut = len(word)
                while cut > 1 and fnt.getlength(word[:cut]) > width:
                    cut -= 1
                lines.append(word[:cut])
                word = word[cut:]
    if line or not lines:
        lines.append(line)
    return lines


CHAR_COLS = 2
CHAR_GAP = 16
CHAR_W = (WIDTH - 2 * MARGIN - CHAR_GAP * (CHAR_COLS - 1)) / CHAR_COLS
CHAR_TITLE_H = 48
CARD_TEXT_X = 96  # where a card's name and text start, from its left edge
LINE = 34  # the ability text's line height
COMPANION_H = 46

Card = tuple[float, float, float, int]  # a character card's x, y, width and height


def _tag_width(ch: Character) -> float:
    tag = _tag(ch)
    return font(BODY, bold=True).getlength(tag + " ") if tag else 0


def _ability_lines(ch: Character, w: float) -> list[str]:
    """The lines of a card ``w`` wide's ability text: the first after the tag, beside the
    pictogram; the others under it, across the card."""
    return _wrap_lines(_ability_text(ch), font(BODY),
                       (w - CARD_TEXT_X - 16 - _tag_width(ch), w - 32))


def _character_card_height(ch: Character, w: float) -> int:
    lines = len(_ability_lines(ch, w))
    return max(104, 54 + lines * LINE + (COMPANION_H if ch.companion else 0) + 12)


@lru_cache(maxsize=16)
def _character_cards(characters: tuple[Character, ...], y0: int) -> tuple[Card, ...]:
    """Each character's card (two a row, a row as tall as its tallest card) under the
    title at ``y0``. Measuring wraps every ability text; the characters stay the same for
    a whole game."""
    cards: list[Card] = []
    y = y0 + CHAR_TITLE_H
    for i in range(0, len(characters), CHAR_COLS):
        row = characters[i:i + CHAR_COLS]
        h = max(_character_card_height(ch, CHAR_W) for ch in row)
        cards += [(MARGIN + j * (CHAR_W + CHAR_GAP), y, CHAR_W, h) for j in range(len(row))]
        y += h + CHAR_GAP
    return tuple(cards)


def _characters_height(characters: tuple[Character, ...]) -> int:
    """Height of the characters block: its title and its rows of cards."""
    cards = _character_cards(characters, 0)
    return cards[-1][1] + cards[-1][3] + CHAR_GAP if cards else CHAR_TITLE_H


def _draw_characters_title(d: ImageDraw.ImageDraw, y0: float) -> None:
    text_left(d, (MARGIN + 4, y0 + 22), "Characters in play", font(TITLE, bold=True), TEXT)


def _draw_character_card(d: ImageDraw.ImageDraw, ch: Character, card: Card) -> Point | None:
    """One character's card: its pictogram (the legend of its tokens), name, and ability
    after its timing, but for its companion's count (it changes during a game): returns
    where that goes, if it has a companion."""
    bx, y, w, h = card
    rounded_panel(d, (bx, y, bx + w, y + h), fill=PANEL, outline=GRID, radius=14)
    draw_shape(d, "circle", (bx + 48, y + 50), 34, fill=PANEL_HI, outline=GRID, width=2)
    draw_glyph(d, ch.id, (bx + 48, y + 50), 46, TEXT, PANEL_HI,
               fallback=_short_of(ch.id, ch.name))
    tx, tw = bx + CARD_TEXT_X, w - CARD_TEXT_X - 16
    name_font = fit_font(ch.name, tw, TITLE, min_size=MIN_TEXT, bold=True)
    text_left(d, (tx, y + 30), ellipsize(ch.name, name_font, tw), name_font, TEXT)
    body, bold = font(BODY), font(BODY, bold=True)
    baseline = y + 54 + body.getmetrics()[0]
    lines = _ability_lines(ch, w)
    tag = _tag(ch)
    if tag:
        d.text((tx, baseline), tag, font=bold, fill=KIND_COLOR.get(ch.kind, MUTED),
               anchor="ls")
    for i, line in enumerate(lines):
        if line:
            lx = tx + _tag_width(ch) if i == 0 else bx + 16
            d.text((lx, baseline), line, font=body, fill=MUTED, anchor="ls")
        baseline += LINE
    if not ch.companion:
        return None
    cy = y + 54 + len(lines) * LINE + COMPANION_H / 2
    cx = bx + 16 + 20
    draw_shape(d, "hexagon", (cx, cy), 20, fill=NEUTRAL, outline=INK, width=2)
    draw_glyph(d, ch.companion, (cx, cy), 26, INK, NEUTRAL,
               fallback=SHORT.get(ch.companion, ch.companion))
    return cx + 30, cy


def _card_box(card: Card) -> tuple[int, int, int, int]:
    bx, y, w, h = card
    return int(bx), int(y), int(bx + w) + 1, int(y + h) + 1


@lru_cache(maxsize=15)
def _character_card(ch: Character, card: Card) -> tuple[Image.Image, Point | None]:
    """A character's card (390-570 KB) and where its companion's count goes: a game's
    five cards stay the same all game long (and games share the cards they have alike)."""
    spot: list[Point | None] = []
    tile = _drawn_at(_card_box(card), lambda d: spot.append(_draw_character_card(d, ch, card)))
    return tile, spot[0]


# Where a card's companion count is written, how far right it may reach, and the card.
CompanionSpot = tuple[Point, float, Character]


def _draw_character_cards(img: Image.Image, characters: tuple[Character, ...], y0: int
                          ) -> list[CompanionSpot]:
    """The cached cards under the title at ``y0``; returns where the counts go."""
    spots: list[CompanionSpot] = []
    for ch, card in zip(characters, _character_cards(characters, y0), strict=True):
        tile, spot = _character_card(ch, card)
        img.paste(tile, _card_box(card)[:2])
        if spot is not None:
            spots.append((spot, card[0] + card[2] - 14, ch))
    return spots


def _draw_companion_counts(d: ImageDraw.ImageDraw, pic: Picture,
                           spots: Sequence[CompanionSpot]) -> None:
    """The companions' counts over the cached cards, each inside its card."""
    fnt = font(BODY, bold=True)
    for pos, right, ch in spots:
        text_left(d, pos, _companion_line(pic, ch, fnt, right - pos[0]), fnt, TEXT)


# --------------------------------------------------------------------------- the board


def _side_x0(columns: int) -> int:
    return MARGIN + ROW_LABEL_W + columns * CELL + 6 + 20


PLAYERS_TOP = MARGIN + BANNER_H + GAP
INN_TOP = PLAYERS_TOP + PLAYER_H + GAP

# Rows of background the cached frame keeps under the body for the characters' title and
# cards, whatever the game's five are (the shipped ones need 690-830); a taller picture
# gets the rest filled in.
CHARACTERS_ROOM = 840


@lru_cache(maxsize=1)
def _board_frame(columns: int, rows: int, rooms: Rooms, seats: int, costs: tuple[int, ...],
                 body_bottom: int, characters_title: bool
                 ) -> tuple[Image.Image, frozenset[tuple[int, int]]]:
    """What the layout alone decides (1200 x 1846: 8.9 MB): background, the inn with every
    room empty and every column open, the Guest List's title and slots, the room key, the
    characters' title, and room under them for any game's cards. Rooms, sizes and costs
    come from the content file: a worker holds one.

    Also the rooms whose token tiles must be pasted through :func:`_cell_mask`: those
    whose square shows more than the inn's plain panel around the room (the frame's
    rounded corners); the others take a plain paste, ten times quicker."""
    del seats  # the player cards are drawn (and cached) each on their own
    img = new_canvas(WIDTH, body_bottom + GAP + CHARACTERS_ROOM, BG)
    d = ImageDraw.Draw(img)
    top = INN_TOP
    _draw_inn_frame(d, columns, rows, dict(rooms), MARGIN, top)
    side_x0 = _side_x0(columns)
    _draw_guest_title(d, side_x0, top)
    for slot, cost in zip(_guest_slot_boxes(side_x0, top, WIDTH - MARGIN, len(costs)), costs,
                          strict=True):
        _draw_guest_slot_frame(d, slot, cost)
    _draw_room_key(d, side_x0, body_bottom - KEY_H, WIDTH - MARGIN)
    if characters_title:
        _draw_characters_title(d, body_bottom + GAP)
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
    top = INN_TOP
    inn_h = HEAD_H + 6 + pic.rows * CELL + 6
    side_h = 44 + len(pic.costs) * GUEST_SLOT_H + 6 + KEY_H
    body_bottom = top + max(inn_h, side_h)
    characters = tuple(pic.characters)
    chars_y0 = body_bottom + GAP
    height = (chars_y0 + _characters_height(characters) - CHAR_GAP if characters
              else body_bottom) + MARGIN
    rooms = tuple(sorted(pic.rooms.items()))
    frame, masked = _board_frame(pic.columns, pic.rows, rooms, len(pic.gold), tuple(pic.costs),
                                 body_bottom, bool(characters))
    img = frame.crop((0, 0, WIDTH, height))
    if height > frame.height:  # an unusually tall block of cards: the rest is background
        img.paste(BG, (0, frame.height, WIDTH, height))
    companions = _draw_character_cards(img, characters, chars_y0)
    d = ImageDraw.Draw(img)
    _draw_banner(img, d, pic, (MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + BANNER_H))
    _draw_players(img, d, pic, PLAYERS_TOP)
    _draw_inn(img, d, pic, MARGIN, top, masked)
    _draw_guest_list(img, d, pic, (_side_x0(pic.columns), top, WIDTH - MARGIN, body_bottom))
    _draw_companion_counts(d, pic, companions)
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
