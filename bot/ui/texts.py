"""Discord's text limits, and clipping that keeps every reply within them whatever a
user typed.

>>> clip("x" * 2500)[:3], len(clip("x" * 2500))
('…xx', 2000)
>>> quote("a" * 300, 10)
'aaaaaaaaa…'
>>> clip_start(["one", "two", "three"], 10)
['…', 'three']
"""

from __future__ import annotations

from bot.tables.texts import quote

__all__ = ["MAX_CONTENT", "clip", "clip_start", "quote"]

MAX_CONTENT = 2000
"""Characters in one message's content."""


def clip(text: str, limit: int = MAX_CONTENT) -> str:
    """Keep the end of a long text (the newest news), marked with an ellipsis."""
    if len(text) <= limit:
        return text
    return "…" + text[-(limit - 1):]


def clip_start(lines: list[str], limit: int) -> list[str]:
    """The newest lines that fit in ``limit`` characters (joined by newlines); an
    ellipsis line stands for the older ones left out."""
    out: list[str] = []
    size = 0
    for line in reversed(lines):
        if size + len(line) + 1 > limit - 2:
            out.append("…")
            break
        out.append(line)
        size += len(line) + 1
    return list(reversed(out))
