"""The emulator's in-memory world: users, guilds, channels, messages, interactions.

Objects here are live: a :class:`Message` a test holds is the very record the emulator edits,
so ``msg.content`` after the bot edits the message shows the new content. Each object renders
itself to the JSON shape Discord sends (``to_api``) and offers a few conveniences for tests
(``msg.buttons``, ``msg.image``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import itertools
import json
import time
from dataclasses import dataclass, field
from typing import Any

from tests.emulator import limits

DISCORD_EPOCH_MS = 1420070400000

# Channel types.
GUILD_TEXT = 0
DM = 1
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12

# Interaction types.
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5

# Permission bits a plain member has in the test guilds (view, send, threads, history...).
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_CHANNELS = 1 << 4
ADMINISTRATOR = 1 << 3
MEMBER_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | (1 << 14)
    | (1 << 15)
    | (1 << 16)
    | (1 << 6)
    | (1 << 31)
    | (1 << 35)
    | (1 << 36)
    | (1 << 38)
    | (1 << 0)
)
ALL_PERMISSIONS = (1 << 50) - 1


class Snowflakes:
    """Virtual snowflakes: a real timestamp part (so discord.py's age checks make sense) and
    an increasing counter, unique in this emulator. Guild ids can be aimed at a shard."""

    def __init__(self) -> None:
        self._counter = itertools.count(1)

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        return (ms << 22) | (1 << 17) | (next(self._counter) & 0x1FFFF)

    def for_shard(self, shard_id: int, shard_count: int) -> int:
        """An id whose ``(id >> 22) % shard_count == shard_id`` (Discord's guild routing)."""
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        ms -= (ms - shard_id) % shard_count
        return (ms << 22) | (1 << 17) | (next(self._counter) & 0x1FFFF)


def iso(ts: float | None = None) -> str:
    when = dt.datetime.fromtimestamp(time.time() if ts is None else ts, dt.UTC)
    return when.isoformat()


@dataclass
class User:
    id: int
    name: str
    bot: bool = False
    dms_open: bool = True
    permissions: int = MEMBER_PERMISSIONS
    joined: str = field(default_factory=iso)

    def to_api(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.name.title(),
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }

    def member_api(self, guild: Guild) -> dict[str, Any]:
        perms = ALL_PERMISSIONS if self.id == guild.owner_id else self.permissions
        return {
            "user": self.to_api(),
            "roles": [],
            "nick": None,
            "avatar": None,
            "joined_at": self.joined,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "permissions": str(perms),
            "communication_disabled_until": None,
        }


@dataclass
class Attachment:
    id: int
    filename: str
    data: bytes
    description: str | None = None

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def content_type(self) -> str:
        if self.data.startswith(b"\x89PNG"):
            return "image/png"
        if self.data[:3] == b"\xff\xd8\xff":
            return "image/jpeg"
        if self.data[:6] in (b"GIF87a", b"GIF89a"):
            return "image/gif"
        if self.data.lstrip()[:1] in (b"{", b"["):
            return "application/json"
        return "application/octet-stream"

    @property
    def image(self) -> Any:
        """The attachment decoded with Pillow (raises if it is not an image)."""
        from PIL import Image

        img = Image.open(io.BytesIO(self.data))
        img.load()
        return img

    def to_api(self, base_url: str, channel_id: int) -> dict[str, Any]:
        url = f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}"
        out: dict[str, Any] = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
        }
        if self.description:
            out["description"] = self.description
        if self.content_type.startswith("image/"):
            try:
                w, h = self.image.size
                out["width"], out["height"] = w, h
            except Exception:  # a corrupt image still uploads; Discord just omits its size
                pass
        return out


@dataclass
class Button:
    """One button as a person sees it."""

    label: str | None
    custom_id: str | None
    style: int
    disabled: bool
    emoji: str | None
    url: str | None
    row: int

    def __repr__(self) -> str:
        state = " disabled" if self.disabled else ""
        return f"<Button {self.label or self.emoji!r} id={self.custom_id!r}{state}>"


@dataclass
class Select:
    custom_id: str
    type: int
    placeholder: str | None
    options: list[dict[str, Any]]
    min_values: int
    max_values: int
    disabled: bool

    @property
    def labels(self) -> list[str]:
        return [o["label"] for o in self.options]

    @property
    def values(self) -> list[str]:
        return [o["value"] for o in self.options]


def walk_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component in a tree of rows / v2 layouts, depth first."""
    out: list[dict[str, Any]] = []
    for comp in components or []:
        out.append(comp)
        for key in ("components", "items"):
            if isinstance(comp.get(key), list):
                out.extend(walk_components(comp[key]))
        for key in ("accessory", "component"):
            if isinstance(comp.get(key), dict):
                out.extend(walk_components([comp[key]]))
    return out


@dataclass
class Message:
    """A message as stored by the emulator (live: edits update this object)."""

    id: int
    channel_id: int
    author: User
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    guild_id: int | None = None
    ephemeral_for: int | None = None  # user id: visible to that user only
    interaction_id: int | None = None
    interaction_user: User | None = None
    interaction_name: str | None = None
    webhook_id: int | None = None
    edits: int = 0
    deleted: bool = False
    created: float = field(default_factory=time.time)
    edited_at: float | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # earlier versions
    pinged: frozenset[int] = frozenset()
    """The users this message notified when it was created (Discord notifies on a
    created message only, never on an edit): mentioned in its content and allowed by
    its ``allowed_mentions``."""

    def __repr__(self) -> str:
        where = f" ephemeral for {self.ephemeral_for}" if self.ephemeral_for else ""
        text = self.content if len(self.content) < 60 else self.content[:57] + "..."
        files = f" files={[a.filename for a in self.attachments]}" if self.attachments else ""
        return f"<Message {self.id}{where} {text!r} embeds={len(self.embeds)}{files}>"

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & limits.FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred "thinking..." response not yet filled in."""
        return bool(self.flags & limits.FLAG_LOADING)

    @property
    def buttons(self) -> list[Button]:
        out, row = [], -1
        for comp in walk_components(self.components):
            if comp.get("type") == 1:
                row += 1
            if comp.get("type") == limits.BUTTON:
                emoji = comp.get("emoji") or {}
                out.append(
                    Button(
                        comp.get("label"),
                        comp.get("custom_id"),
                        comp.get("style", 1),
                        bool(comp.get("disabled")),
                        emoji.get("name"),
                        comp.get("url"),
                        row,
                    )
                )
        return out

    @property
    def selects(self) -> list[Select]:
        return [
            Select(
                c["custom_id"],
                c["type"],
                c.get("placeholder"),
                c.get("options") or [],
                c.get("min_values", 1),
                c.get("max_values", 1),
                bool(c.get("disabled")),
            )
            for c in walk_components(self.components)
            if c.get("type") in limits.SELECT_TYPES
        ]

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in walk_components(self.components) if "custom_id" in c]

    def button(self, label: str | None = None, *, custom_id: str | None = None) -> Button:
        for b in self.buttons:
            if (label is None or b.label == label or b.emoji == label) and (
                custom_id is None or b.custom_id == custom_id
            ):
                return b
        raise LookupError(f"no button {label or custom_id!r} on {self!r}; has {self.buttons}")

    @property
    def images(self) -> list[Any]:
        return [a.image for a in self.attachments if a.content_type.startswith("image/")]

    @property
    def image(self) -> Any:
        """The first image attachment, decoded with Pillow (None if there is none)."""
        imgs = self.images
        return imgs[0] if imgs else None

    @property
    def text(self) -> str:
        """Everything a person can read: content, embed texts, button and select labels."""
        parts = [self.content]
        for e in self.embeds:
            parts += [e.get("title") or "", e.get("description") or ""]
            parts += [f"{f['name']}\n{f['value']}" for f in e.get("fields") or []]
            parts += [
                (e.get("footer") or {}).get("text") or "",
                (e.get("author") or {}).get("name") or "",
            ]
        for comp in walk_components(self.components):
            parts += [
                comp.get("label") or "",
                comp.get("placeholder") or "",
                comp.get("content") or "",
            ]
            parts += [
                o.get("label", "") + " " + (o.get("description") or "")
                for o in comp.get("options") or []
            ]
        return "\n".join(p for p in parts if p)

    def raw_json(self) -> str:
        """Content, embeds and components as JSON text (what a leak scan reads)."""
        return json.dumps(
            {
                "content": self.content,
                "embeds": self.embeds,
                "components": self.components,
                "files": [a.filename for a in self.attachments],
            },
            sort_keys=True,
        )

    def to_api(self, base_url: str) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "type": self.type,
            "author": self.author.to_api(),
            "content": self.content,
            "timestamp": iso(self.created),
            "edited_timestamp": iso(self.edited_at) if self.edited_at else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.to_api(base_url, self.channel_id) for a in self.attachments],
            "embeds": self.embeds,
            "pinned": False,
            "flags": self.flags,
            "components": self.components,
            "reactions": [],
        }
        if self.guild_id is not None:
            data["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_id is not None and self.interaction_user is not None:
            data["interaction_metadata"] = {
                "id": str(self.interaction_id),
                "type": APPLICATION_COMMAND if self.type == 20 else MESSAGE_COMPONENT,
                "user": self.interaction_user.to_api(),
                "authorizing_integration_owners": {},
            }
            data["interaction"] = {
                "id": str(self.interaction_id),
                "type": data["interaction_metadata"]["type"],
                "name": self.interaction_name or "",
                "user": self.interaction_user.to_api(),
            }
        return data


@dataclass
class Channel:
    id: int
    type: int
    name: str
    guild_id: int | None = None
    parent_id: int | None = None
    recipient: User | None = None  # DM channels
    owner_id: int | None = None  # threads
    position: int = 0
    messages: list[Message] = field(default_factory=list)  # visible to everyone, live
    bot_can_send: bool = True
    archived: bool = False

    def __repr__(self) -> str:
        kind = {GUILD_TEXT: "#", DM: "@", PUBLIC_THREAD: "thread ", PRIVATE_THREAD: "thread "}
        return f"<Channel {kind.get(self.type, '')}{self.name} {self.id}>"

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def is_thread(self) -> bool:
        return self.type in (PUBLIC_THREAD, PRIVATE_THREAD)

    @property
    def visible(self) -> list[Message]:
        return [m for m in self.messages if not m.deleted]

    def to_api(self, me: User | None = None) -> dict[str, Any]:
        if self.type == DM:
            assert self.recipient is not None
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": None,
                "flags": 0,
                "recipients": [self.recipient.to_api()],
            }
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "name": self.name,
            "guild_id": str(self.guild_id),
            "position": self.position,
            "flags": 0,
            "permission_overwrites": [],
            "nsfw": False,
            "parent_id": None,
            "topic": None,
            "last_message_id": None,
            "rate_limit_per_user": 0,
        }
        if self.is_thread:
            data.update(
                {
                    "parent_id": str(self.parent_id),
                    "owner_id": str(self.owner_id or 0),
                    "message_count": len(self.messages),
                    "member_count": 1,
                    "total_message_sent": len(self.messages),
                    "thread_metadata": {
                        "archived": self.archived,
                        "auto_archive_duration": 1440,
                        "archive_timestamp": iso(),
                        "locked": False,
                        "invitable": True,
                        "create_timestamp": iso(),
                    },
                }
            )
        return data


@dataclass
class Guild:
    id: int
    name: str
    owner_id: int
    channels: dict[int, Channel] = field(default_factory=dict)
    members: dict[int, User] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"<Guild {self.name} {self.id}>"

    def to_api(self, bot: User) -> dict[str, Any]:
        everyone = {
            "id": str(self.id),
            "name": "@everyone",
            "permissions": str(MEMBER_PERMISSIONS),
            "position": 0,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        plain = [c for c in self.channels.values() if not c.is_thread]
        threads = [c for c in self.channels.values() if c.is_thread]
        members = [bot, *[m for m in self.members.values() if m.id != bot.id]]
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [everyone],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "unavailable": False,
            "large": False,
            "member_count": len(members),
            "joined_at": iso(),
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
            "members": [m.member_api(self) for m in members],
            "channels": [c.to_api() for c in plain],
            "threads": [c.to_api() for c in threads],
        }


@dataclass
class Interaction:
    """One interaction a simulated user started, and everything the bot answered."""

    id: int
    token: str
    type: int
    user: User
    channel: Channel
    guild: Guild | None
    data: dict[str, Any]
    created: float  # emulator clock (monotonic + advanced time)
    message: Message | None = None  # the message a component sits on
    name: str = ""
    dispatched_at: float = 0.0  # perf_counter when sent on the gateway
    responded_at: float | None = None  # perf_counter of the first callback
    response_type: int | None = None
    original: Message | None = None
    followups: list[Message] = field(default_factory=list)
    modal: dict[str, Any] | None = None
    choices: list[dict[str, Any]] | None = None
    launched: str | None = None
    """The Activity instance a LAUNCH_ACTIVITY answer opened (``None``: none)."""
    responded: asyncio.Event = field(default_factory=asyncio.Event)
    timed_out: bool = False  # no callback in the window: the user saw "interaction failed"
    # What the person saw when clicking, to tell a deferred update's effect from what was
    # there before: the newest message id of the channel, and the clicked message's edit.
    seen_last_id: int = 0
    seen_edit: float | None = None

    def __repr__(self) -> str:
        return f"<Interaction {self.id} type={self.type} {self.name!r} by {self.user.name}>"

    @property
    def acknowledged(self) -> bool:
        return self.response_type is not None

    @property
    def latency(self) -> float | None:
        """Seconds from dispatch on the gateway to the bot's first callback."""
        return None if self.responded_at is None else self.responded_at - self.dispatched_at

    @property
    def failed(self) -> bool:
        """True when no callback arrived in the window: the user sees "interaction failed"."""
        return self.timed_out

    @property
    def loading(self) -> bool:
        return self.original is not None and self.original.loading

    @property
    def replies(self) -> list[Message]:
        """What the bot answered: the response message (new or updated) and any followups."""
        first = (
            [self.original] if self.original is not None and self.response_type in (4, 5, 7) else []
        )
        return [m for m in first + self.followups if not m.deleted]

    @property
    def reply(self) -> Message | None:
        """The first answer the user sees (None for a modal, autocomplete or silent ack)."""
        replies = self.replies
        return replies[0] if replies else None
