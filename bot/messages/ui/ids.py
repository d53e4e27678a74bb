"""Button and select custom_ids: ``ft:<table>:<version>:<code>``.

A custom_id is visible to anyone who inspects the message, so it carries only what
is already public: the table id, the table version the message was built for, and
a short action code defined by the game's UI adapter (a Guest List slot, a column).
Never a bag order, a hand, or a card someone else holds.

>>> cid = ButtonId("t1a2b", 12, "s2c5").custom_id
>>> cid
'ft:t1a2b:12:s2c5'
>>> ButtonId.parse(cid)
ButtonId(table_id='t1a2b', version=12, code='s2c5')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["BUTTON_TEMPLATE", "CODE_RE", "SELECT_TEMPLATE", "ButtonId", "SelectId"]

MAX_CUSTOM_ID = 100
_TABLE = r"[A-Za-z0-9_-]{1,40}"
_CODE = r"[A-Za-z0-9_.=+-]{1,40}"
CODE_RE = re.compile(_CODE)

BUTTON_TEMPLATE = rf"ft:(?P<table>{_TABLE}):(?P<version>\d{{1,9}}):(?P<code>{_CODE})"
"""The DynamicItem template of every game button."""

SELECT_TEMPLATE = rf"fs:(?P<table>{_TABLE}):(?P<version>\d{{1,9}}):(?P<code>{_CODE})"
"""The DynamicItem template of every game select (the code names the menu; the
chosen option's value is itself an action code)."""


@dataclass(frozen=True)
class ButtonId:
    table_id: str
    version: int
    code: str

    prefix = "ft"

    def __post_init__(self) -> None:
        if not re.fullmatch(_TABLE, self.table_id):
            raise ValueError(f"bad table id for a custom_id: {self.table_id!r}")
        if not CODE_RE.fullmatch(self.code):
            raise ValueError(f"bad action code for a custom_id: {self.code!r}")
        if self.version < 0:
            raise ValueError("version must be >= 0")

    @property
    def custom_id(self) -> str:
        cid = f"{self.prefix}:{self.table_id}:{self.version}:{self.code}"
        if len(cid) > MAX_CUSTOM_ID:  # impossible with the patterns above; keep the guard
            raise ValueError("custom_id longer than Discord allows")
        return cid

    @classmethod
    def parse(cls, custom_id: str) -> ButtonId:
        template = BUTTON_TEMPLATE if cls.prefix == "ft" else SELECT_TEMPLATE
        m = re.fullmatch(template, custom_id)
        if m is None:
            raise ValueError(f"not a Fabletop custom_id: {custom_id!r}")
        return cls(m["table"], int(m["version"]), m["code"])


@dataclass(frozen=True)
class SelectId(ButtonId):
    prefix = "fs"
