"""Checks the picture tests share: how much a stored picture moved from its drawing in
its flat areas, and the picture as a phone shows it (400 px wide)."""

from __future__ import annotations

from PIL import Image, ImageChops, ImageFilter

__all__ = ["flat_error", "seen_on_a_phone"]


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
