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

from collections.abc import Sequence
from dataclasses import dataclass, field
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


def _short(pic: Picture, kind: str) -> str:
    return SHORT.get(kind) or pic.char_name(kind).split()[-1][:6]


def draw_token(d: ImageDraw.ImageDraw, pic: Picture, piece: Piece, center: Point,
               size: float, label: bool = True) -> None:
    """One token: owner colour and shape (grey hexagon if ownerless), glyph, short name."""
    r = size / 2
    if piece.owner is None:
        fill, shape = NEUTRAL, "hexagon"
    else:
        style = owner_style(piece.owner)
        fill, shape = style.color, style.shape
    draw_shape(d, shape, center, r, fill=fill, outline=INK, width=3)
    cx, cy = center
    if label:
        draw_glyph(d, piece.kind, (cx, cy - size * 0.12), size * 0.5, INK, fill,
                   fallback=_short(pic, piece.kind))
        text = _short(pic, piece.kind)
        fnt = fit_font(text, size * 0.74, max(12, round(size * 0.2)), bold=True)
        text_center(d, (cx, cy + size * 0.27), text, fnt, INK)
    else:
        draw_glyph(d, piece.kind, center, size * 0.6, INK, fill, fallback=_short(pic, piece.kind))


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
        import math

        a = math.radians(-60)
        hx, hy = cx + k * math.cos(a), cy + k * math.sin(a)
        h = radius * 0.5
        d.polygon([(hx - h * 0.7, hy - h * 0.55), (hx + h * 0.6, hy - h * 0.35),
                   (hx + h * 0.05, hy + h * 0.75)], fill=EXTRA_TEAL)


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


def _draw_banner(d: ImageDraw.ImageDraw, pic: Picture, box: Box) -> None:
    head, detail, color = _status_lines(pic)
    x0, y0, x1, y1 = box
    active = bool(pic.to_act) and not pic.over
    accent = owner_style(pic.to_act[0]).color if active else (GOOD if pic.over else GRID)
    rounded_panel(d, box, fill=PANEL, outline=accent, radius=14, width=4)
    x = x0 + 22
    cy = (y0 + y1) / 2
    if active:
        owner_marker(d, owner_style(pic.to_act[0]), (x + 22, cy), 24)
        x += 62
    elif pic.over:
        coin(d, (x + 22, cy), 24, "★")
        x += 62
    avail = x1 - x - 20
    head_font = fit_font(head, avail, 32, min_size=22, bold=True)
    if detail:
        text_left(d, (x, cy - 17), ellipsize(head, head_font, avail), head_font, color)
        det_font = fit_font(detail, avail, 24, min_size=20)
        text_left(d, (x, cy + 20), ellipsize(detail, det_font, avail), det_font, MUTED)
    else:
        text_left(d, (x, cy), ellipsize(head, head_font, avail), head_font, color)


def _draw_inn(d: ImageDraw.ImageDraw, pic: Picture, x0: float, y0: float) -> float:
    """The inn with column numbers above; returns the y below it."""
    full = pic.full_columns()
    gx = x0 + ROW_LABEL_W
    # column numbers: big, where tokens are dropped in
    head_h = 64
    num_font = font(38, bold=True)
    for c in range(1, pic.columns + 1):
        cx = gx + (c - 0.5) * CELL
        cy = y0 + head_h / 2
        if pic.rat_columns and c in pic.rat_columns:  # where the Rat may go: lit up
            d.ellipse((cx - 30, cy - 30, cx + 30, cy + 30), fill=TEXT, outline=GOLD, width=4)
            text_center(d, (cx, cy + 1), str(c), num_font, INK)
        elif pic.rat_columns and c not in full:  # the Pied Piper's own column
            d.ellipse((cx - 26, cy - 26, cx + 26, cy + 26), fill=PANEL, outline=GRID, width=2)
            text_center(d, (cx, cy + 1), str(c), font(30, bold=True), DIM)
        elif c in full:
            rounded_panel(d, (cx - 44, cy - 28, cx + 44, cy + 28), fill=PANEL, outline=WARN,
                          radius=12, width=3)
            text_center(d, (cx, cy - 8), str(c), font(26, bold=True), MUTED)
            text_center(d, (cx, cy + 15), "FULL", font(18, bold=True), WARN)
        else:
            d.ellipse((cx - 28, cy - 28, cx + 28, cy + 28), fill=PANEL_HI, outline=MUTED, width=2)
            text_center(d, (cx, cy + 1), str(c), num_font, TEXT)
    gy = y0 + head_h + 6
    grid_box = (gx - 6, gy - 6, gx + pic.columns * CELL + 6, gy + pic.rows * CELL + 6)
    rounded_panel(d, grid_box, fill=PANEL, outline=GRID, radius=14, width=3)
    row_font = font(22, bold=True)
    for r in range(1, pic.rows + 1):
        cy = gy + (pic.rows - r + 0.5) * CELL
        text_center(d, (x0 + ROW_LABEL_W / 2 - 4, cy), str(r), row_font, DIM)
    for c in range(1, pic.columns + 1):
        for r in range(1, pic.rows + 1):
            cell = (gx + (c - 1) * CELL, gy + (pic.rows - r) * CELL)
            _draw_cell(d, pic, (c, r), cell, c in full)
    for c, r in pic.last_drop:  # on top of everything, so neighbours don't cover it
        bx, by = gx + (c - 1) * CELL, gy + (pic.rows - r) * CELL
        d.rounded_rectangle((bx + 1, by + 1, bx + CELL - 1, by + CELL - 1), radius=12,
                            outline=HIGHLIGHT, width=5)
    return grid_box[3]


def _draw_cell(d: ImageDraw.ImageDraw, pic: Picture, pos: tuple[int, int], top_left: Point,
               column_full: bool) -> None:
    x, y = top_left
    inner = (x + 4, y + 4, x + CELL - 4, y + CELL - 4)
    room = pic.rooms.get(pos)
    fill = ROOM_TINT.get(room, PANEL_HI) if room else PANEL_HI
    if column_full and not room:
        fill = mix(PANEL_HI, PANEL, 0.5)
    d.rounded_rectangle(inner, radius=10, fill=fill)
    piece = pic.cells.get(pos)
    center = (x + CELL / 2, y + CELL / 2)
    if piece is not None:
        draw_token(d, pic, piece, (center[0] + 2, center[1] + 3), CELL - 22)
        if room:  # keep the room's symbol visible: a badge in the corner
            draw_room_mark(d, room, (x + 20, y + 20), 15)
    elif room:
        draw_room_mark(d, room, center, 26)


def _draw_players(d: ImageDraw.ImageDraw, pic: Picture, box: Box) -> float:
    """One card per seat: marker, name, status, gold (and End-of-Game gold)."""
    x0, y0, x1, _ = box
    y = y0
    row_h = PLAYER_ROW_H
    for seat in range(len(pic.gold)):
        style = owner_style(seat)
        active = seat in pic.to_act and not pic.over
        winner = pic.over and seat in pic.winners
        outline = style.color if active else (GOOD if winner else GRID)
        rounded_panel(d, (x0, y, x1, y + row_h), fill=PANEL, outline=outline, radius=14,
                      width=4 if (active or winner) else 2)
        top = y + 26
        owner_marker(d, style, (x0 + 32, top + 4), 21)
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


def _draw_guest_list(d: ImageDraw.ImageDraw, pic: Picture, box: Box) -> float:
    x0, y0, x1, _ = box
    text_left(d, (x0 + 4, y0 + 18), "Guest List", font(28, bold=True), TEXT)
    bag = f"bag: {pic.bag}"
    bag_font = font(22, bold=True)
    text_left(d, (x1 - 4 - bag_font.getlength(bag), y0 + 20), bag, bag_font, MUTED)
    y = y0 + 44
    slot_h = GUEST_SLOT_H
    for i in range(len(pic.costs)):
        guest = pic.guests[i] if i < len(pic.guests) else None
        sb = (x0, y, x1, y + slot_h - 8)
        rounded_panel(d, sb, fill=PANEL, outline=GRID, radius=14, width=2)
        cy = (sb[1] + sb[3]) / 2
        cost = pic.costs[i]
        if cost:
            coin(d, (x0 + 34, cy), 22, str(cost))
        else:
            text_center(d, (x0 + 34, cy), "free", font(20, bold=True), GOOD)
        tx = x0 + 72 + 36
        if guest is None:
            d.ellipse((tx - 34, cy - 34, tx + 34, cy + 34), outline=DIM, width=3)
            text_left(d, (tx + 50, cy), "empty", font(24), DIM)
        else:
            d.ellipse((tx - 34, cy - 34, tx + 34, cy + 34), fill=PANEL_HI, outline=MUTED, width=2)
            draw_glyph(d, guest, (tx, cy), 44, TEXT, PANEL_HI, fallback=_short(pic, guest))
            name_font = font(24, bold=True)
            lines = wrap_text(pic.char_name(guest), name_font, x1 - tx - 54)[:2]
            ly = cy - (len(lines) - 1) * 14
            for line in lines:
                text_left(d, (tx + 50, ly), line, name_font, TEXT)
                ly += 28
        y += slot_h
    return y


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


def _character_card_height(pic: Picture, ch: Character, w: float) -> int:
    body = font(22)
    lines = len(wrap_text(_ability_text(ch), body, w - 108)) + (1 if ch.companion else 0)
    return max(108, 56 + lines * line_height(body) + 12)


def _draw_characters(d: ImageDraw.ImageDraw, pic: Picture, x0: float, y0: float,
                     width: float) -> float:
    if not pic.characters:
        return y0
    text_left(d, (x0 + 4, y0 + 18), "Characters in play", font(28, bold=True), TEXT)
    y = y0 + 44
    cols = 2
    gap = 16
    w = (width - gap * (cols - 1)) / cols
    chars = pic.characters
    for i in range(0, len(chars), cols):
        row = chars[i:i + cols]
        h = max(_character_card_height(pic, ch, w) for ch in row)
        for j, ch in enumerate(row):
            bx = x0 + j * (w + gap)
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
            comp = _companion_line(pic, ch)
            if comp:
                draw_shape(d, "hexagon", (tx + 12, ty + 14), 12, fill=NEUTRAL, outline=INK,
                           width=2)
                text_left(d, (tx + 32, ty + 14), comp, font(22, bold=True), TEXT)
        y += h + gap
    return y


def draw(pic: Picture) -> Image.Image:
    """The whole picture as a Pillow image."""
    inn_w = ROW_LABEL_W + pic.columns * CELL + 6
    inn_h = 64 + 6 + pic.rows * CELL + 6 + LEGEND_H
    side_x0 = MARGIN + inn_w + 24
    side_x1 = WIDTH - MARGIN
    # Measure the characters block first so the canvas is tall enough.
    char_w = WIDTH - 2 * MARGIN
    cw = (char_w - 16) / 2
    char_h = 44
    for i in range(0, len(pic.characters), 2):
        row = pic.characters[i:i + 2]
        char_h += max(_character_card_height(pic, ch, cw) for ch in row) + 16
    banner_h = 92
    top = MARGIN + banner_h + 16
    side_h = len(pic.gold) * (PLAYER_ROW_H + 10) + 4 + 44 + len(pic.costs) * GUEST_SLOT_H
    body_h = max(inn_h, side_h)
    height = top + body_h + 16 + (char_h if pic.characters else 0) + MARGIN - 16
    img = new_canvas(WIDTH, height, BG)
    d = ImageDraw.Draw(img)
    _draw_banner(d, pic, (MARGIN, MARGIN, WIDTH - MARGIN, MARGIN + banner_h))
    inn_bottom = _draw_inn(d, pic, MARGIN, top)
    _draw_legend(d, MARGIN + ROW_LABEL_W, inn_bottom + LEGEND_H / 2 + 4, MARGIN + inn_w)
    y = _draw_players(d, pic, (side_x0, top, side_x1, top + body_h))
    _draw_guest_list(d, pic, (side_x0, y + 4, side_x1, top + body_h))
    _draw_characters(d, pic, MARGIN, top + body_h + 16, char_w)
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
