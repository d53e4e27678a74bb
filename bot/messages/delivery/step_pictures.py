"""Which update of a table gets a new board picture.

A turn message shows the board when it is posted: the turn passes to someone else, a
round or the game ends, a reminder, a board brought back. While it is edited for the
steps of one turn, a new picture is drawn only for a step a person decides on the board:

* an AI's step needs none (nobody is choosing on it; the AI's next step, or the next
  turn message, is right behind);
* a person's step needs one when what its choice is made on changed since the picture
  the message shows: the fields the game's choice adapter names for that step
  (``GameUI.step_board_fields``; by default every field the board shows).

Otherwise the edit keeps the picture the message has (an edit without ``attachments``
leaves a message's files as they are), and the step's lines and buttons say the rest.

What the shown picture was drawn from is remembered per table as one digest per field
(:class:`ShownBoards`), tied to the board key the turn message records: after a restart,
or when another process drew the picture, it is unknown, and a step that reads the board
draws it anew.

>>> from pydantic import BaseModel
>>> class V(BaseModel):
...     tracks: list[int]
...     coins: int
>>> shown = ShownBoards()
>>> before, after = Board.of(None, V(tracks=[1], coins=3)), Board.of(None, V(tracks=[1], coins=5))
>>> shown.remember("t", before)
>>> shown.changed("t", before.key, after, ("tracks",)), shown.changed("t", before.key, after, None)
(False, True)
>>> shown.changed("t", "another picture", after, ("tracks",))
True
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from bot.core.choices import get_ui
from bot.messages.delivery.courier import digest
from engines.catalog import spec

__all__ = ["Board", "ShownBoards", "step_fields"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Board:
    """What a board picture of a view would show: its key (the digest of the fields the
    game's declaration names, ``GameSpec.board_fields``) and each field's own digest."""

    key: str
    parts: dict[str, str]

    @classmethod
    def of(cls, game_id: str | None, view: Any) -> Board:
        data = view.model_dump(mode="json") if hasattr(view, "model_dump") else dict(view)
        fields: Iterable[str] | None
        try:
            fields = spec(game_id).board_fields if game_id is not None else None
        except KeyError:
            fields = None
        if fields:
            key = digest([data.get(k) for k in fields])
        else:
            fields, key = list(data), digest(data)
        return cls(key, {k: digest(data.get(k)) for k in fields})


class ShownBoards:
    """Per table, the fields of the board picture its turn message shows (this
    process's memory: a picture it drew and sent)."""

    def __init__(self) -> None:
        self._shown: dict[str, Board] = {}

    def remember(self, table_id: str, board: Board) -> None:
        self._shown[table_id] = board

    def forget(self, table_id: str) -> None:
        self._shown.pop(table_id, None)

    def changed(self, table_id: str, shown_key: str | None, board: Board,
                fields: tuple[str, ...] | None) -> bool:
        """Whether ``fields`` of ``board`` (``None``: every field) differ from the
        picture shown now, whose key the turn message records as ``shown_key``. Unknown
        (another picture than the one remembered): changed, unless no field is read."""
        if fields is None:
            return board.key != shown_key
        if not fields:
            return False
        known = self._shown.get(table_id)
        if known is None or known.key != shown_key:
            return True
        return any(board.parts.get(f) != known.parts.get(f) for f in fields)


def step_fields(game_id: str, view: Any) -> tuple[str, ...] | None:
    """The fields a person's step of ``view`` decides on, from the game's adapter (a
    broken adapter costs a picture, never the step)."""
    try:
        return get_ui(game_id).step_board_fields(view)
    except Exception:
        log.exception("step_board_fields of %s failed; drawing the board", game_id)
        return None
