r"""Discord's text limits, clipping that keeps every reply within them whatever a
user typed, and :func:`literal`: text a person typed, shown as text.

>>> clip("x" * 2500)[:3], len(clip("x" * 2500))
('…xx', 2000)
>>> quote("a" * 300, 10)
'aaaaaaaaa…'
>>> clip_start(["one", "two", "three"], 10)
['…', 'three']

What a person types (a seat name, a passage, an Arbiter's note, lines and veils) and
the service's plain-English lines that carry it are shown literally: Discord would
otherwise read them as markdown, mentions and masked links. The bot's own markup goes
around them, after they are made literal:

>>> print(f"**{literal('*Ann*')}** joined.")
**\*Ann\*** joined.
>>> literal("@everyone, [my page](https://evil.example) [two](https://x.example)")
'@\u200beveryone, \\[my page\\](https://evil.example) \\[two\\](https://x.example)'
>>> quote("<@123456789012345678> `x`", 60)
'<@\u200b123456789012345678> \\`x\\`'
"""

from __future__ import annotations

import re

import discord

from bot.core.tables.texts import quote as cut

__all__ = ["MAX_CONTENT", "clip", "clip_start", "literal", "quote"]

MAX_CONTENT = 2000
"""Characters in one message's content."""

_URL = re.compile(r"<?https?://[^\s<>]+>?")
"""A link as Discord shows one: left as it is (escaping would break it), so it stays a
plain, visible link."""
_INLINE = re.compile(r"([\\*_~|`\[\]])")
"""Inline markup, escaped wherever it stands: bold, italics, underline, strike-through,
spoilers, code, and the brackets of a masked link ``[text](url)``; and the backslash,
so the user's part can never escape the bot's markup that follows it."""
_BLOCK = re.compile(r"^(\s*)([>#+-])", re.MULTILINE)
"""What starts a block at the start of a line: a quote, a heading, a list, small text."""


def literal(text: object) -> str:
    """``text`` made to show as itself in a Discord message: markdown escaped (every
    mark, paired or not: escaped text reads the same in Discord), masked links broken
    (the URL stays visible, as a plain link) and mentions (``@everyone``, ``@here``,
    ``<@id>``, ``<@&role>``) neutralised. Use it on the user's part of a line, before
    the bot's own markup is put around it. Messages also limit their mentions: this is
    the second guard, and the one that keeps a mention from showing as a ping.

    Not ``discord.utils.escape_markdown`` alone: its masked-link pattern takes the rest
    of the line as the link, leaving the marks inside it unescaped (a backtick after a
    link still opened code), and it escapes only the first link of a line.

    >>> literal("[a](https://x.example) `b` [c](https://y.example)")
    '\\\\[a\\\\](https://x.example) \\\\`b\\\\` \\\\[c\\\\](https://y.example)'
    >>> literal("# big\\n> quoted\\n-# small")
    '\\\\# big\\n\\\\> quoted\\n\\\\-# small'
    """
    raw = str(text)
    parts: list[str] = []
    done = 0
    for link in _URL.finditer(raw):
        parts.append(_INLINE.sub(r"\\\1", raw[done:link.start()]))
        parts.append(link.group())
        done = link.end()
    parts.append(_INLINE.sub(r"\\\1", raw[done:]))
    shown = _BLOCK.sub(r"\1\\\2", "".join(parts))
    return discord.utils.escape_mentions(shown)


def quote(text: object, limit: int = 60) -> str:
    """A user's own words inside an answer: cut so the answer always fits (on one
    line), then made :func:`literal` (so the cut never splits an escape)."""
    return literal(cut(text, limit))


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
