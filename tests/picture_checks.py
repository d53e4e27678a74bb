"""Checks the picture tests share: how much a stored picture moved from its drawing in
its flat areas, and the picture as a phone shows it (400 px wide)."""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image, ImageChops, ImageFilter

__all__ = ["MIN_TEXT_AT_PHONE", "flat_error", "seen_on_a_phone", "text_at_phone"]


def flat_error(drawing: Image.Image, back: Image.Image) -> int:
    """The most a pixel inside a flat area of ``drawing`` (its 3x3 neighbourhood all one
    colour) changed in ``back``, in levels of a channel."""
    spread = None
    for band in drawing.split():
        d = ImageChops.difference(band.filter(ImageFilter.MaxFilter(3)),
                                  band.filter(ImageFilter.MinFilter(3)))
        spread = d if spread is None else ImageChops.lighter(spread, d)
    assert spread is not None
    flat = spread.point(lambda v: 255 if v == 0 else 0)
    diff = Image.composite(ImageChops.difference(drawing, back),
                           Image.new("RGB", drawing.size), flat)
    return max(hi for _, hi in diff.getextrema())


def seen_on_a_phone(img: Image.Image) -> Image.Image:
    """``img`` scaled to 400 px wide, as Discord shows it on a phone."""
    return img.convert("RGB").resize((400, round(img.height * 400 / img.width)),
                                     Image.Resampling.LANCZOS)


# The smallest text a picture may draw, as its font's em in pixels once the picture is
# shown 400 px wide (Discord's width on a phone). DejaVu Sans at 9 px has an x-height of
# about 5 px, close to the x-height of the smallest text Discord itself shows there (its
# 12 px timestamps); below it, letters blur into each other without zooming.
MIN_TEXT_AT_PHONE = 9.0


def text_at_phone(render: Callable[[], bytes]) -> list[tuple[float, str]]:
    """(size at 400 px wide, text) of every string a picture draws, smallest first,
    computed from the fonts the renderer used (every cache emptied first, so nothing
    drawn earlier hides)."""
    import io

    from renderers import common

    common.clear_caches()
    with common.recording_text() as drawn:
        png = render()
    width = Image.open(io.BytesIO(png)).width
    sized = {(round(d.size * 400 / width, 2), d.text) for d in drawn if d.text.strip()}
    return sorted(sized)
