"""Board pictures -> one animated GIF under a byte budget (a replay). Pillow only.

Why GIF: every Discord client shows a GIF attachment inline and animates it; APNG is shown
as a still and animated WebP only by recent clients.

A frame is one board picture, scaled (never up) to the animation's width, padded to one
canvas (boards may grow between states) and given a caption strip below: a progress bar,
the step's title in bold and up to two lines of text, sized to stay readable when a phone
shows the GIF 400 px wide. The first frame is held a little longer, the last one much
longer. Every frame is mapped, without dithering, to ONE palette shared by the whole
animation (the boards' most frequent colours plus the caption's), so what did not change
between two frames keeps its palette indices and the GIF stores only the changed area:
a 40-frame replay of a 1200 px board is 0.8-4.4 MB at 720 px, where a palette of its own
per frame takes 6-9 MB.

The budget (:func:`animate`'s ``max_bytes``): if the GIF is too big it drops frames
(keeping the first and the last, the rest evenly spread), then narrows the frames, then
uses fewer colours, then drops frames again down to the first and the last, and at worst
gives the final board alone, as small as it must be.

Checking a replay: the GIF's comment holds what it was drawn from (:func:`read_meta`: the
width, colours, steps and captions of its frames), so a check that has the pictures of
those steps redraws the exact frames (:func:`redraw`) and compares them with the decoded
ones (:func:`frames_of`); a frame that matches is its picture and its caption, nothing
else.

>>> from PIL import Image
>>> boards = [Image.new("RGB", (300, 200 + 20 * i), (40 * i, 90, 120)) for i in range(3)]
>>> stills = [Still(b, f"Move {i} of 2: a step", step=i) for i, b in enumerate(boards)]
>>> anim = animate(stills, width=240)
>>> anim.frames, anim.size, anim.data[:6]
(3, (240, 247), b'GIF89a')
>>> [f.size for f in frames_of(anim.data)] == [anim.size] * 3
True
>>> meta = read_meta(anim.data)
>>> meta["steps"], meta["captions"][0]
([0, 1, 2], 'Move 0 of 2: a step')
>>> all(a.tobytes() == b.tobytes() for a, b in zip(redraw(boards, meta), frames_of(anim.data)))
True
"""

from __future__ import annotations

import io
import json
import math
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image, ImageDraw

from renderers.common import GOLD, GRID, TEXT, ellipsize, font, line_height, mix, wrap_text

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DISCORD_LIMIT",
    "Animation",
    "Still",
    "animate",
    "caption_height",
    "draw_frame",
    "frames_of",
    "read_meta",
    "redraw",
]

Color = tuple[int, int, int]

DISCORD_LIMIT = 10 * 1024 * 1024
"""Discord's upload limit for a bot's message without a boosted server (10 MiB)."""
DEFAULT_MAX_BYTES = 8 * 1024 * 1024
"""What :func:`animate` aims under by default: 2 MiB below Discord's limit, so the
message's other parts and a later lower limit leave room."""

META_KIND = "fabletop-animation/1"
"""The ``kind`` of the JSON in the GIF's comment (see :func:`read_meta`)."""

STRIP: Color = (0x1E, 0x1F, 0x22)
"""The caption strip: darker than Discord's dark theme, so it reads as the frame's own
edge in both themes."""

_SHADES = 4
"""Antialiasing shades kept in the palette between the strip and each text colour (fewer
make the captions' edges ragged, more take colours from the boards)."""

_MIN_WIDTH_FALLBACK = 16
"""Below this the final board alone is no picture at all: :func:`animate` gives up."""


@dataclass(frozen=True)
class Still:
    """One frame to be: a board picture (PNG bytes or an image), its caption (``"Title:
    text"``: the part before the first ``": "`` is drawn in bold on a line of its own), and
    its step in the whole story (for the progress bar: ``step / total``)."""

    picture: bytes | Image.Image
    caption: str
    step: int = 0


@dataclass(frozen=True)
class Animation:
    """An animated GIF and how it was made."""

    data: bytes
    kept: tuple[int, ...]
    """Indices (into the stills given) of the frames it shows, in order."""
    size: tuple[int, int]
    colors: int
    attempts: int
    """How many encodings the budget took (1 when the first fitted)."""
    seconds: float
    """Wall time of :func:`animate` (decoding, drawing, encoding, every attempt)."""

    @property
    def frames(self) -> int:
        return len(self.kept)


# --------------------------------------------------------------------------- one frame


def _open(picture: bytes | Image.Image) -> Image.Image:
    return picture if isinstance(picture, Image.Image) else Image.open(io.BytesIO(picture))


def _caption_font_size(width: int) -> int:
    # 14 px when shown 400 px wide (a phone), never under 11 px in the file itself
    return max(11, round(width * 14 / 400))


def caption_height(width: int) -> int:
    """Height of the caption strip of a frame ``width`` wide (bar, title, two lines).

    >>> caption_height(720), caption_height(400)
    (121, 71)
    """
    size = _caption_font_size(width)
    return _bar_height(width) + 2 * _pad(size) + 3 * line_height(font(size))


def _bar_height(width: int) -> int:
    return max(3, width // 160)


def _pad(size: int) -> int:
    return max(4, size // 2)


def _board_size(size: tuple[int, int], scale: float) -> tuple[int, int]:
    return max(1, round(size[0] * scale)), max(1, round(size[1] * scale))


@dataclass(frozen=True)
class _Layout:
    width: int
    board_height: int
    scale: float
    colors: int
    total: int


def _size(picture: bytes | Image.Image) -> tuple[int, int]:
    if isinstance(picture, Image.Image):
        return picture.size
    with Image.open(io.BytesIO(picture)) as image:  # the PNG's header: nothing decoded
        return image.size


def _layout(sizes: Sequence[tuple[int, int]], width: int, colors: int, total: int) -> _Layout:
    """Scale every board by one factor (the widest fills ``width``; never enlarged) and
    make the canvas as tall as the tallest."""
    widest = max(w for w, _ in sizes)
    width = min(width, widest)
    scale = width / widest
    height = max(_board_size(size, scale)[1] for size in sizes)
    return _Layout(width, height, scale, colors, total)


def draw_frame(picture: bytes | Image.Image, caption: str, step: int, *, width: int,
               board_height: int, scale: float, total: int) -> Image.Image:
    """The RGB frame of one still: the board scaled by ``scale`` at the top of a
    ``width`` x ``board_height`` area padded in the board's own background (its corner
    pixel), then the caption strip. The palette comes later (:func:`animate`)."""
    board = _open(picture).convert("RGB")
    w, h = _board_size(board.size, scale)
    if (w, h) != board.size:
        # BOX: the mean of the covered pixels, sharp enough for text at these factors
        # and several times faster than LANCZOS on a 1200 x 2400 board
        board = board.resize((w, h), Image.Resampling.BOX)
    strip = caption_height(width)
    frame = Image.new("RGB", (width, board_height + strip), board.getpixel((0, 0)))  # type: ignore[arg-type]
    frame.paste(board, ((width - w) // 2, 0))
    _draw_caption(ImageDraw.Draw(frame), caption, step, total, width, board_height)
    return frame


def _draw_caption(draw: ImageDraw.ImageDraw, caption: str, step: int, total: int,
                  width: int, top: int) -> None:
    size = _caption_font_size(width)
    bar = _bar_height(width)
    pad = _pad(size)
    draw.rectangle((0, top, width, top + caption_height(width)), fill=STRIP)
    draw.rectangle((0, top, width, top + bar - 1), fill=GRID)
    done = round(width * min(1.0, max(0.0, step / total))) if total > 0 else width
    if done > 0:
        draw.rectangle((0, top, done - 1, top + bar - 1), fill=GOLD)
    head, sep, body = caption.partition(": ")
    if not sep:
        head, body = caption, ""
    bold, regular = font(size, bold=True), font(size)
    room = width - 2 * pad
    step_y = line_height(regular)
    y = top + bar + pad
    draw.text((pad, y), ellipsize(" ".join(head.split()), bold, room), font=bold, fill=GOLD,
              anchor="la")
    lines = wrap_text(" ".join(body.split()), regular, room) if body.strip() else []
    if len(lines) > 2:
        lines = [lines[0], ellipsize(lines[1] + " …", regular, room)]
    for i, line in enumerate(lines):
        draw.text((pad, y + (i + 1) * step_y), line, font=regular, fill=TEXT, anchor="la")


# --------------------------------------------------------------------------- the palette


def _caption_colours() -> list[Color]:
    shades = [mix(STRIP, c, (i + 1) / (_SHADES + 1)) for c in (TEXT, GOLD)
              for i in range(_SHADES)]
    return [STRIP, TEXT, GOLD, GRID, *shades]


def _colour_counts(picture: Image.Image) -> Counter[Color]:
    """How many pixels of each colour ``picture`` has (a palette picture, what the game
    renderers give, costs one histogram; anything else is reduced to 256 colours first)."""
    if picture.mode != "P":
        picture = picture.convert("RGB")
        found = picture.getcolors(1 << 16)
        if found is not None:
            return Counter({rgb: n for n, rgb in found})  # type: ignore[misc]
        picture = picture.quantize(256, method=Image.Quantize.FASTOCTREE,
                                   dither=Image.Dither.NONE)
    flat = picture.getpalette() or []
    counts: Counter[Color] = Counter()
    for index, n in enumerate(picture.histogram()):
        if n and 3 * index + 2 < len(flat):
            counts[(flat[3 * index], flat[3 * index + 1], flat[3 * index + 2])] += n
    return counts


def _palette(pictures: Sequence[bytes | Image.Image], colors: int) -> Image.Image:
    """One palette for every frame: the caption's colours, then the boards' most frequent
    ones (over all the pictures) up to ``colors``."""
    fixed = _caption_colours()
    counts: Counter[Color] = Counter()
    for picture in pictures:
        # decoded one at a time: 40 boards of 1200 x 2400 would be 120 MB at once
        counts.update(_colour_counts(_open(picture)))
    chosen = list(fixed)
    for rgb, _ in counts.most_common():
        if len(chosen) >= colors:
            break
        if rgb not in fixed:
            chosen.append(rgb)
    flat = [v for rgb in chosen for v in rgb]
    image = Image.new("P", (1, 1))
    # pad with the first colour, not black: every entry is a candidate when mapping
    image.putpalette(flat + flat[:3] * (256 - len(chosen)))
    return image


# --------------------------------------------------------------------------- the GIF


def _frames(stills: Sequence[Still], layout: _Layout) -> list[Image.Image]:
    palette = _palette([s.picture for s in stills], layout.colors)
    return [
        draw_frame(s.picture, s.caption, s.step, width=layout.width,
                   board_height=layout.board_height, scale=layout.scale, total=layout.total)
        .quantize(palette=palette, dither=Image.Dither.NONE)
        for s in stills
    ]


def _encode(frames: list[Image.Image], durations: list[int], meta: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    frames[0].save(
        out, "GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
        optimize=True, comment=json.dumps(meta, ensure_ascii=False).encode(),
    )
    return out.getvalue()


def _spread(indices: Sequence[int], k: int) -> list[int]:
    """``k`` of ``indices``: the first, the last and an even spread between.

    >>> _spread(list(range(10)), 4)
    [0, 3, 6, 9]
    """
    n = len(indices)
    if k >= n:
        return list(indices)
    if k <= 1:
        return [indices[-1]]
    return [indices[round(i * (n - 1) / (k - 1))] for i in range(k)]


def _durations(n: int, frame_ms: int, first_ms: int, last_ms: int) -> list[int]:
    if n == 1:
        return [last_ms]
    return [first_ms, *[frame_ms] * (n - 2), last_ms]


@dataclass(frozen=True)
class _Plan:
    frames: int
    width: int
    colors: int


def _smaller(plan: _Plan, ratio: float, *, min_frames: int, min_width: int,
             min_colors: int) -> _Plan:
    """The plan whose GIF should be about ``ratio`` (< 1) times the size of ``plan``'s:
    fewer frames first, then narrower, then fewer colours; when all three are at their
    least, fewer frames still (the first and the last stay), and at last the final frame
    alone. Every call changes something (the budget loop
    ends) and goes in one step as far as the estimate says, not one notch at a time.

    >>> _smaller(_Plan(40, 720, 256), 0.5, min_frames=8, min_width=400, min_colors=32)
    _Plan(frames=20, width=720, colors=256)
    >>> _smaller(_Plan(8, 720, 256), 0.5, min_frames=8, min_width=400, min_colors=32)
    _Plan(frames=8, width=509, colors=256)
    >>> _smaller(_Plan(8, 400, 32), 0.5, min_frames=8, min_width=400, min_colors=32)
    _Plan(frames=4, width=400, colors=32)
    >>> _smaller(_Plan(2, 400, 32), 0.5, min_frames=8, min_width=400, min_colors=32)
    _Plan(frames=1, width=400, colors=32)
    """
    need = ratio
    frames, width, colors = plan.frames, plan.width, plan.colors
    if frames > min_frames:
        frames = max(min_frames, min(frames - 1, math.floor(frames * need)))
        need *= plan.frames / frames
    if need < 1 and width > min_width:
        width = max(min_width, min(width - 1, math.floor(width * math.sqrt(need))))
        need *= (plan.width / width) ** 2
    if need < 1 and colors > min_colors:
        # LZW codes are about as long as a pixel's bits: log2 of the colours
        bits = max(math.log2(min_colors), math.floor(math.log2(colors) * need))
        colors = max(min_colors, min(colors // 2, 2 ** int(bits)))
        need *= math.log2(plan.colors) / math.log2(colors)
    if (frames, width, colors) != (plan.frames, plan.width, plan.colors):
        return _Plan(frames, width, colors)
    if frames > 2:  # every knob at its least: fewer frames still, the setup and the end
        return _Plan(max(2, min(frames - 1, math.floor(frames * ratio))), width, colors)
    if frames > 1:
        return _Plan(1, width, colors)  # the last resort: the final board alone
    if width > _MIN_WIDTH_FALLBACK:
        narrower = math.floor(width * math.sqrt(ratio))
        return _Plan(1, max(_MIN_WIDTH_FALLBACK, min(width - 1, narrower)), colors)
    if colors > 2:
        return _Plan(1, width, colors // 2)
    raise ValueError("the smallest picture there is does not fit")


def animate(
    stills: Sequence[Still],
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    width: int = 720,
    total: int | None = None,
    frame_ms: int = 1000,
    first_ms: int = 1500,
    last_ms: int = 6000,
    min_frames: int = 8,
    min_width: int = 400,
    colors: int = 256,
    min_colors: int = 32,
) -> Animation:
    """An animated GIF of ``stills`` of at most ``max_bytes``.

    ``width`` is the widest frame (boards are never enlarged); ``total`` the step the
    progress bar counts to (default: the last still's). When the GIF is too big, in this
    order: fewer frames (down to ``min_frames``; the first and last stay), then narrower
    (down to ``min_width``), then fewer colours (down to ``min_colors``), then fewer
    frames again (down to the first and the last), and at last the final still alone,
    narrowed until it fits. Raises ValueError for no stills, or a
    budget not even a tiny single frame fits.

    Each attempt after the first is sized from the last one's bytes (:func:`_smaller`),
    so a budget a tenth of the first GIF takes two or three encodings, not one per notch
    of each knob.
    """
    if not stills:
        raise ValueError("an animation needs at least one picture")
    started = time.perf_counter()
    sizes = [_size(s.picture) for s in stills]
    total = total if total is not None else stills[-1].step
    every = list(range(len(stills)))
    plan = _Plan(len(stills), min(width, max(w for w, _ in sizes)), colors)
    attempts = 0
    while True:
        attempts += 1
        kept = _spread(every, plan.frames)
        layout = _layout([sizes[i] for i in kept], plan.width, plan.colors, total)
        frames = _frames([stills[i] for i in kept], layout)
        meta = {
            "kind": META_KIND, "width": layout.width, "colors": plan.colors, "total": total,
            "steps": [stills[i].step for i in kept],
            "captions": [stills[i].caption for i in kept],
        }
        data = _encode(frames, _durations(len(frames), frame_ms, first_ms, last_ms), meta)
        if len(data) <= max_bytes:
            return Animation(data, tuple(kept), frames[0].size, plan.colors, attempts,
                             time.perf_counter() - started)
        # 0.9: sizes do not fall quite in proportion (the first frame is a fixed cost)
        try:
            plan = _smaller(_Plan(len(kept), layout.width, plan.colors),
                            max_bytes / len(data) * 0.9, min_frames=min_frames,
                            min_width=min_width, min_colors=min_colors)
        except ValueError:
            raise ValueError(f"not even the final picture fits in {max_bytes} bytes") from None


# --------------------------------------------------------------------------- checking


def read_meta(data: bytes) -> dict[str, Any] | None:
    """What an animation made here was drawn from: ``{"kind", "width", "colors",
    "total", "steps": [...], "captions": [...]}`` (one step and caption per frame), or
    ``None`` for any other GIF."""
    with Image.open(io.BytesIO(data)) as image:
        comment = image.info.get("comment")
    if not comment:
        return None
    try:
        meta = json.loads(comment)
    except ValueError:
        return None
    return meta if isinstance(meta, dict) and meta.get("kind") == META_KIND else None


def frames_of(data: bytes) -> list[Image.Image]:
    """Every frame of a GIF as a full RGB image (as a viewer shows it)."""
    out = []
    with Image.open(io.BytesIO(data)) as image:
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            out.append(image.convert("RGB"))
    return out


def redraw(pictures: Sequence[bytes | Image.Image], meta: dict[str, Any]) -> list[Image.Image]:
    """The RGB frames an animation with ``meta`` (:func:`read_meta`) shows when drawn from
    ``pictures`` (one per frame, in order): exactly :func:`frames_of` of it, pixel for
    pixel, if and only if those are the pictures it was made from."""
    steps, captions = meta["steps"], meta["captions"]
    if not len(pictures) == len(steps) == len(captions):
        raise ValueError("one picture per frame of the animation is needed")
    layout = _layout([_size(p) for p in pictures], int(meta["width"]), int(meta["colors"]),
                     int(meta["total"]))
    stills = [Still(p, c, s) for p, c, s in zip(pictures, captions, steps, strict=True)]
    return [f.convert("RGB") for f in _frames(stills, layout)]
