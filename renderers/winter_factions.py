"""Winter Tales: each Faction's colour, glyph and label, shared by the board and the hand.

A module of its own so that both pictures draw a Faction alike without importing each
other (the hand took these from the board, and the board the hand's card art). Bright
enough on dark grey, and never the only cue: each Faction also has its glyph (a flower
for Spring, a snowflake for Winter, a pen for the Writer).

>>> FACTION_COLOR["spring"] == SPRING and GLYPH["winter"] == "❄"
True
"""

from __future__ import annotations

from renderers.common import Color

__all__ = ["FACTION_COLOR", "FACTION_LABEL", "GLYPH", "NEUTRAL_MEM", "SPRING", "WINTER", "WRITER"]

SPRING: Color = (0x8B, 0xD8, 0x6E)
WINTER: Color = (0x9C, 0xCB, 0xFF)
WRITER: Color = (0xB8, 0x98, 0xFA)  # deeper than Winter's ice blue: they merge when pale
NEUTRAL_MEM: Color = (0xB8, 0xBB, 0xC2)  # a Memory that favours no Faction
GLYPH = {"spring": "✿", "winter": "❄", "writer": "✎", None: "◇"}
FACTION_COLOR: dict[str | None, Color] = {
    "spring": SPRING,
    "winter": WINTER,
    "writer": WRITER,
    None: NEUTRAL_MEM,
}
FACTION_LABEL = {"spring": "Spring", "winter": "Winter", "writer": "Writer"}
