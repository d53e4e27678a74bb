"""The service's value objects: what a table looks like from outside, and what one
operation leaves to deliver (:class:`Outbox`). Nothing here holds a raw game state."""

from __future__ import annotations

import enum
import json
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from engines.core import Action, Outcome, View

__all__ = [
    "ChannelOrTable",
    "Clock",
    "Listener",
    "Outbox",
    "PrivateUpdate",
    "PublicUpdate",
    "SeatInfo",
    "SeatNews",
    "TableInfo",
    "TableStatus",
    "Watcher",
]

class TableStatus(enum.StrEnum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    ABORTED = "aborted"

    @property
    def live(self) -> bool:
        """Lobby and playing tables hold their channel."""
        return self in (TableStatus.LOBBY, TableStatus.PLAYING)


@dataclass(frozen=True)
class SeatInfo:
    """One seat. Before the start ``index`` is the join order; after the start it is
    the engine seat number (seating is shuffled at the start)."""

    index: int
    name: str
    user_id: int | None = None
    """The human holding the seat; ``None`` for an AI seat."""
    ai_level: str | None = None

    @property
    def is_ai(self) -> bool:
        return self.user_id is None

    def __repr__(self) -> str:
        who = f"AI:{self.ai_level}" if self.is_ai else f"user={self.user_id}"
        return f"<Seat {self.index} {self.name!r} {who}>"


@dataclass(frozen=True)
class TableInfo:
    """A read-only snapshot of a table (no game state: use the views for that)."""

    id: str
    channel_id: int
    guild_id: int | None
    game_id: str
    game_name: str
    options: dict[str, Any]
    seed: int
    status: TableStatus
    host_id: int
    seats: tuple[SeatInfo, ...]
    version: int
    min_players: int
    max_players: int
    reminder_minutes: float
    to_act: tuple[int, ...] = ()
    """Seats that may act now (empty unless playing)."""
    outcome: Outcome | None = None
    outcome_text: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    text: str = ""
    """A plain-English status summary (what /table status shows)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """Table settings that are not rules (``interrupt_timeout`` seconds)."""

    def seat_of(self, user_id: int) -> SeatInfo | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    @property
    def to_act_users(self) -> tuple[int, ...]:
        """Human user ids among the seats to act."""
        return tuple(
            s.user_id for s in self.seats if s.index in self.to_act and s.user_id is not None
        )

    def __repr__(self) -> str:
        return (
            f"<Table {self.id} {self.game_id} {self.status.value} v{self.version} "
            f"channel={self.channel_id} seats={len(self.seats)}>"
        )


@dataclass(frozen=True)
class PublicUpdate:
    """What the channel should see after something happened at a table."""

    table_id: str
    channel_id: int
    game_id: str
    version: int
    """The table version after the change: buttons built now must carry it."""
    kind: str
    """``start``, ``move``, ``reminder``, ``seat``, ``abort``, ``board`` (a re-post)."""
    lines: tuple[str, ...]
    """Plain-English lines (public events only, seats replaced by names)."""
    mentions: tuple[int, ...] = ()
    """User ids to mention (the humans whose turn it now is)."""
    render_board: bool = False
    """True when the board changed: render ``public_view`` (never a private one)."""
    to_act: tuple[int, ...] = ()
    finished: bool = False
    outcome_text: str | None = None
    actor: int | None = None
    """The seat whose move this is (``None``: no move, or a timer's)."""
    turn_line: str | None = None
    """Whose turn it is now ("It is Ann's turn."), kept apart from the news lines so a
    message that gathers the steps of one turn shows it once, last."""

    @property
    def text(self) -> str:
        return "\n".join([*self.lines, *([self.turn_line] if self.turn_line else [])])


@dataclass(frozen=True)
class PrivateUpdate:
    """Something only one seat may see (a private event, or its secret view changed)."""

    table_id: str
    channel_id: int
    user_id: int
    seat: int
    version: int
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


@dataclass(frozen=True)
class SeatNews:
    """One human seat's part of an outbox: what its private message needs, read under
    the table lock at the outbox's version (delivery never asks the service again)."""

    seat: int
    user_id: int
    view: View | None = None
    """The seat's own view (games whose seats see more than the public)."""
    legal: tuple[Action, ...] = ()
    """Its legal turn actions now (empty unless it is to act)."""
    changed: bool = False
    """Whether its secret view changed with this update."""


@dataclass(frozen=True)
class Outbox:
    """Everything to deliver after one service operation, self-contained: the views and
    choices are those of ``table.version``, read under the lock at commit. Delivery (DM
    or ephemeral, images) is the front end's job.

    ``id`` is the durable outbox row (written in the same transaction as the change and
    marked delivered once sent), ``None`` for an outbox nobody stored (a board re-post).
    """

    table: TableInfo
    public: PublicUpdate | None = None
    private: tuple[PrivateUpdate, ...] = field(default_factory=tuple)
    public_view: View | None = None
    seats: tuple[SeatNews, ...] = field(default_factory=tuple)
    id: int | None = None

    @property
    def version(self) -> int:
        return self.table.version

    @property
    def table_id(self) -> str:
        return self.table.id

    def seat_news(self, user_id: int) -> SeatNews | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def legal_of(self, user_id: int) -> tuple[Action, ...]:
        news = self.seat_news(user_id)
        return news.legal if news is not None else ()

    # -- the durable form ----------------------------------------------------------

    def to_json(self) -> str:
        """The stored form: the news, not the views (a restarted bot reads those again
        from the table, :meth:`TableService.rehydrate`)."""
        return json.dumps({
            "table": _info_data(self.table),
            "public": asdict(self.public) if self.public is not None else None,
            "private": [asdict(p) for p in self.private],
        })

    @classmethod
    def from_json(cls, data: str, outbox_id: int | None = None) -> Outbox:
        raw = json.loads(data)
        public = raw.get("public")
        return cls(
            table=_info_from(raw["table"]),
            public=PublicUpdate(**{k: tuple(v) if isinstance(v, list) else v
                                   for k, v in public.items()}) if public else None,
            private=tuple(PrivateUpdate(**{k: tuple(v) if isinstance(v, list) else v
                                           for k, v in p.items()}) for p in raw["private"]),
            id=outbox_id,
        )


def _info_data(info: TableInfo) -> dict[str, Any]:
    data = asdict(info)
    data["status"] = info.status.value
    data["outcome"] = info.outcome.model_dump(mode="json") if info.outcome else None
    for key in ("created_at", "updated_at"):
        value = getattr(info, key)
        data[key] = value.isoformat() if value is not None else None
    return data


def _info_from(data: dict[str, Any]) -> TableInfo:
    data = dict(data)
    data["status"] = TableStatus(data["status"])
    data["seats"] = tuple(SeatInfo(**s) for s in data["seats"])
    data["to_act"] = tuple(data["to_act"])
    if data.get("outcome") is not None:
        data["outcome"] = Outcome.model_validate(data["outcome"])
    for key in ("created_at", "updated_at"):
        if data.get(key) is not None:
            data[key] = datetime.fromisoformat(data[key])
    return TableInfo(**data)


Listener = Callable[[Outbox], Awaitable[None] | None]
"""A front-end callback for outboxes produced outside a request (AI moves, reminders)."""

Watcher = Callable[[Outbox], None]
"""A front-end callback for every commit, made under the table's lock (must not wait)."""

Clock = Callable[[], datetime]
ChannelOrTable = int | str
"""An ``int`` is a channel id (the live table there); a ``str`` is a table id."""
