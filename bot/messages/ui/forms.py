"""The text form (a Discord modal) for actions told in the player's own words.

A game's adapter says which click codes open a form (``GameUI.form_title``) and how the
words become an action (``GameUI.with_text``). The form's custom_id carries the table,
the version and the code (``fm:<table>:<version>:<code>``), so its submission needs
nothing kept in memory: the client answers every form submission from its custom_id
(:meth:`bot.messages.clicks.TurnController.handle_form`), restarts included.

>>> FormId.parse("fm:t1a2b:12:tell")
FormId(table_id='t1a2b', version=12, code='tell')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import discord

from bot.messages.ui.ids import CODE_RE

__all__ = ["FORM_TEMPLATE", "MAX_TEXT", "FormId", "TextForm", "form_text"]

MAX_TEXT = 1800
FORM_TEMPLATE = re.compile(
    r"fm:(?P<table>[A-Za-z0-9_-]{1,40}):(?P<version>\d{1,9}):(?P<code>[A-Za-z0-9_.=+-]{1,40})")
TEXT_FIELD = "text"


@dataclass(frozen=True)
class FormId:
    table_id: str
    version: int
    code: str

    @property
    def custom_id(self) -> str:
        if not CODE_RE.fullmatch(self.code):
            raise ValueError(f"bad action code for a form: {self.code!r}")
        return f"fm:{self.table_id}:{self.version}:{self.code}"

    @classmethod
    def parse(cls, custom_id: str) -> FormId:
        m = FORM_TEMPLATE.fullmatch(custom_id)
        if m is None:
            raise ValueError(f"not a Fabletop form: {custom_id!r}")
        return cls(m["table"], int(m["version"]), m["code"])


class TextForm(discord.ui.Modal):
    """The form itself. Its submission is answered by the client from the custom_id
    (this object may be gone by then: a restart), so it never handles one itself."""

    def __init__(self, table_id: str, version: int, code: str, title: str) -> None:
        super().__init__(title=title[:45], timeout=900,
                         custom_id=FormId(table_id, version, code).custom_id)
        self.add_item(discord.ui.TextInput(
            label="Your passage", style=discord.TextStyle.paragraph, min_length=1,
            max_length=MAX_TEXT, custom_id=TEXT_FIELD,
            placeholder="Tell this moment of the story in your own words…"))

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        return False


def form_text(data: Any) -> str:
    """The words of a submitted form (the ``text`` input), or an empty string. The input
    may come in an action row or, from newer clients, inside a label component.

    >>> form_text({"components": [{"type": 1, "components": [
    ...     {"type": 4, "custom_id": "text", "value": "Snow fell."}]}]})
    'Snow fell.'
    >>> form_text({"components": [{"type": 18, "component":
    ...     {"type": 4, "custom_id": "text", "value": "Ice."}}]})
    'Ice.'
    """
    stack: list[Any] = list((data or {}).get("components") or [])
    while stack:
        item = stack.pop(0)
        if not isinstance(item, dict):
            continue
        if item.get("custom_id") == TEXT_FIELD and "value" in item:
            return str(item.get("value") or "")[:MAX_TEXT]
        stack.extend(item.get("components") or [])
        if isinstance(item.get("component"), dict):
            stack.append(item["component"])
    return ""
