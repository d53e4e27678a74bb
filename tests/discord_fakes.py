"""An in-process stand-in for Discord's REST side, for driving the REAL bot.

The bot (a real :class:`bot.messages.client.FabletopBot`, real command tree, real views and
DynamicItems) logs in against :class:`FakeDiscord`, which replaces exactly two
transport functions: ``HTTPClient.request`` (bot REST calls: channel messages, DMs,
command sync, login) and the interaction webhook adapter (interaction responses and
follow-ups). Interactions are fed the way the gateway would feed them,
``ConnectionState.parse_interaction_create(payload)``, in the spirit of discord.py's
own ``tests/test_app_commands_invoke.py``. Every outgoing call is recorded with its
JSON payload, flags, components and attached files, so tests can check replies,
ephemerality and button custom_ids.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
from discord import app_commands
from discord.webhook.async_ import AsyncWebhookAdapter, async_context

from bot.core.settings import Settings
from bot.core.store import Store
from bot.core.tables import TableService
from bot.messages.client import FabletopBot

APP_ID = 900000000000000001
BOT_ID = APP_ID
GUILD_ID = 500000000000000001
CHANNEL_ID = 600000000000000001
OWNER_ID = 100000000000000009
EPHEMERAL = 64

_snowflakes = itertools.count(1)


def snowflake() -> int:
    """A fresh id whose embedded time is now (interactions expire 15 minutes after
    the time in their id)."""
    return discord.utils.time_snowflake(discord.utils.utcnow()) + next(_snowflakes)


def user_payload(user_id: int, name: str | None = None, *, bot: bool = False) -> dict[str, Any]:
    return {
        "id": str(user_id),
        "username": name or f"user{str(user_id)[-4:]}",
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
    }


def member_payload(user_id: int, name: str | None = None, permissions: int = 0) -> dict[str, Any]:
    return {
        "user": user_payload(user_id, name),
        "roles": [],
        "joined_at": "2026-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "flags": 0,
        "permissions": str(permissions),
    }


def channel_payload(channel_id: int = CHANNEL_ID) -> dict[str, Any]:
    return {
        "id": str(channel_id),
        "type": 0,
        "guild_id": str(GUILD_ID),
        "name": "game-room",
        "position": 0,
        "permission_overwrites": [],
        "nsfw": False,
        "parent_id": None,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
        "flags": 0,
    }


# --------------------------------------------------------------------------- records


@dataclass
class Sent:
    """One outgoing call: a bot REST request or an interaction response/follow-up."""

    kind: str
    """``callback`` (first interaction response), ``followup``, ``edit_original``,
    ``channel_message``, ``edit_message``, ``dm``, ``sync``, ``other``."""
    method: str
    path: str
    payload: dict[str, Any]
    files: list[tuple[str, bytes]] = field(default_factory=list)
    interaction_id: int | None = None
    channel_id: int | None = None
    message_id: int | None = None
    token: bool = False
    """Sent on an interaction's token (a follow-up, an edit of the interaction's own
    messages), which Discord does not count against the bot token's limits."""

    @property
    def data(self) -> dict[str, Any]:
        """The message part (callbacks wrap it in ``data``)."""
        if self.kind == "callback":
            return self.payload.get("data") or {}
        return self.payload

    @property
    def response_type(self) -> int | None:
        return self.payload.get("type") if self.kind == "callback" else None

    @property
    def content(self) -> str:
        return self.data.get("content") or ""

    @property
    def ephemeral(self) -> bool:
        return bool((self.data.get("flags") or 0) & EPHEMERAL)

    @property
    def custom_ids(self) -> list[str]:
        return custom_ids(self.data.get("components") or [])

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.data.get("components") or []

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in walk_components(self.components) if c.get("type") == 2]

    def __repr__(self) -> str:
        flag = " ephemeral" if self.ephemeral else ""
        return f"<Sent {self.kind}{flag} {self.content[:60]!r} ids={self.custom_ids}>"


EDITS = ("edit_message", "edit_original")
"""The kinds of a recorded edit of a message (on the bot token, or on the token of the
click whose component sat on it)."""


def edits_of(sent: list[Sent], message_id: int | None) -> list[Sent]:
    """The recorded edits of one message, whichever token made them."""
    return [s for s in sent if s.kind in EDITS and s.message_id == message_id]


def walk_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for c in components:
        out.append(c)
        out.extend(walk_components(c.get("components") or []))
    return out


def custom_ids(components: list[dict[str, Any]]) -> list[str]:
    return [c["custom_id"] for c in walk_components(components) if "custom_id" in c]


class _FakeResponse:
    def __init__(self, status: int, reason: str) -> None:
        self.status = status
        self.reason = reason


def _split(payload: Any, form: Any, files: Any) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    data: dict[str, Any] = payload if isinstance(payload, dict) else {}
    if form:
        for part in form:
            if part.get("name") == "payload_json":
                data = json.loads(part["value"])
    blobs = []
    for f in files or []:
        f.reset()
        blobs.append((f.filename, f.fp.read()))
    return data, blobs


# --------------------------------------------------------------------------- the fake


class FakeDiscord:
    """Records what the bot sends and answers like Discord would."""

    def __init__(self) -> None:
        self.sent: list[Sent] = []
        self.closed_dms: set[int] = set()
        self.dm_channels: dict[int, int] = {}
        """DM channel id -> user id."""
        self.messages: dict[int, dict[str, Any]] = {}
        self.fail_channel_posts = False
        self.post_latency = 0.0
        """Seconds each channel post takes (network latency lets background work,
        such as an AI's answer, overtake the post)."""
        self.webhook_latency = 0.0
        """Seconds each interaction follow-up or edit takes."""
        self._baseline: set[asyncio.Task[Any]] = set()
        self.interactions: dict[int, dict[str, Any]] = {}
        """interaction id -> its payload (where its follow-ups and edits go)."""
        self.expired: set[int] = set()
        """Interaction ids whose token Discord no longer knows: every response or
        follow-up of them fails with 10062 Unknown interaction (its 3 seconds were over
        before the bot answered)."""

    # -- installing ---------------------------------------------------------------

    async def login(self, bot: discord.Client) -> None:
        """Log ``bot`` in against this fake (runs the real login and setup_hook)."""
        bot.http.request = self.http_request  # type: ignore[method-assign]
        async_context.set(_Adapter(self))
        self._baseline = set(asyncio.all_tasks())
        await bot.login("fake-token")

    # -- message payloads ---------------------------------------------------------

    def message_payload(
        self, channel_id: int, data: dict[str, Any], *, message_id: int | None = None,
        author: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        mid = message_id or snowflake()
        msg = {
            "id": str(mid),
            "channel_id": str(channel_id),
            "type": 0,
            "content": data.get("content") or "",
            "author": author or user_payload(BOT_ID, "Fabletop", bot=True),
            "attachments": [],
            "embeds": data.get("embeds") or [],
            "mentions": [],
            "mention_roles": [],
            "mention_everyone": False,
            "pinned": False,
            "tts": False,
            "timestamp": "2026-01-01T00:00:00+00:00",
            "edited_timestamp": None,
            "flags": data.get("flags") or 0,
            "components": data.get("components") or [],
        }
        self.messages[mid] = msg
        return msg

    # -- bot REST -----------------------------------------------------------------

    async def http_request(
        self, route: discord.http.Route, *, files: Any = None, form: Any = None, **kwargs: Any
    ) -> Any:
        method, path = route.method, route.path
        payload, blobs = _split(kwargs.get("json"), form, files)
        if path == "/users/@me" and method == "GET":
            return user_payload(BOT_ID, "Fabletop", bot=True)
        if path == "/oauth2/applications/@me":
            return {
                "id": str(APP_ID),
                "name": "Fabletop",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": user_payload(OWNER_ID, "owner"),
                "verify_key": "0" * 64,
                "flags": 0,
            }
        if path == "/users/@me/channels" and method == "POST":
            user_id = int(payload["recipient_id"])
            dm_id = snowflake()
            self.dm_channels[dm_id] = user_id
            self.sent.append(Sent("create_dm", method, path, payload, channel_id=user_id))
            return {"id": str(dm_id), "type": 1, "recipients": [user_payload(user_id)],
                    "last_message_id": None}
        if path == "/channels/{channel_id}/messages" and method == "POST":
            channel_id = int(route.channel_id)  # type: ignore[arg-type]
            if channel_id in self.dm_channels:
                user_id = self.dm_channels[channel_id]
                if user_id in self.closed_dms:
                    raise discord.Forbidden(
                        _FakeResponse(403, "Forbidden"),  # type: ignore[arg-type]
                        {"code": 50007, "message": "Cannot send messages to this user"},
                    )
                msg = self.message_payload(channel_id, payload)
                self.sent.append(Sent("dm", method, path, payload, blobs,
                                      channel_id=user_id, message_id=int(msg["id"])))
                return msg
            if self.post_latency:
                await asyncio.sleep(self.post_latency)
            if self.fail_channel_posts:
                raise discord.Forbidden(
                    _FakeResponse(403, "Forbidden"),  # type: ignore[arg-type]
                    {"code": 50013, "message": "Missing Permissions"},
                )
            msg = self.message_payload(channel_id, payload)
            self.sent.append(Sent("channel_message", method, path, payload, blobs,
                                  channel_id=channel_id, message_id=int(msg["id"])))
            return msg
        if path == "/channels/{channel_id}/messages/{message_id}" and method == "PATCH":
            channel_id = int(route.channel_id)  # type: ignore[arg-type]
            message_id = int(route.url.rsplit("/", 1)[-1])
            self.sent.append(Sent("edit_message", method, path, payload, blobs,
                                  channel_id=channel_id, message_id=message_id))
            return self.message_payload(channel_id, payload, message_id=message_id)
        if path.endswith("/commands") and method == "PUT":
            commands = payload if isinstance(payload, list) else kwargs.get("json") or []
            self.sent.append(Sent("sync", method, route.url, {"commands": commands}))
            return [
                {**c, "id": str(snowflake()), "application_id": str(APP_ID), "version": "1"}
                for c in commands
            ]
        self.sent.append(Sent("other", method, route.url, payload, blobs))
        return {}

    # -- feeding interactions -----------------------------------------------------

    def _base(self, itype: int, user_id: int, name: str | None, permissions: int,
              channel_id: int) -> dict[str, Any]:
        iid = snowflake()
        payload = {
            "id": str(iid),
            "application_id": str(APP_ID),
            "type": itype,
            "token": f"token-{iid}",
            "version": 1,
            "guild_id": str(GUILD_ID),
            "channel_id": str(channel_id),
            "channel": channel_payload(channel_id),
            "member": member_payload(user_id, name, permissions),
            "app_permissions": str(discord.Permissions.all().value),
            "locale": "en-US",
            "attachment_size_limit": 8 * 1024 * 1024,
            "authorizing_integration_owners": {"0": str(GUILD_ID)},
            "context": 0,
        }
        # Kept by reference: a DM click drops guild_id from it after this returns.
        self.interactions[iid] = payload
        return payload

    def slash_payload(
        self,
        bot: discord.Client,
        qualified_name: str,
        *,
        user_id: int,
        name: str | None = None,
        permissions: int = 0,
        channel_id: int = CHANNEL_ID,
        focused: str | None = None,
        **options: Any,
    ) -> dict[str, Any]:
        """A chat-input (or, with ``focused``, autocomplete) interaction for the real
        command ``qualified_name`` (e.g. ``"table new"``) with typed options."""
        tree: app_commands.CommandTree = bot.tree  # type: ignore[attr-defined]
        parts = qualified_name.split()
        command: Any = tree.get_command(parts[0])
        if command is None:
            raise KeyError(qualified_name)
        for part in parts[1:]:
            command = command.get_command(part)
        resolved: dict[str, Any] = {}
        opts = []
        for key, value in options.items():
            param = command._params[key]
            opt: dict[str, Any] = {"name": key, "type": param.type.value}
            if param.type is discord.AppCommandOptionType.user:
                uid, uname = value if isinstance(value, tuple) else (value, None)
                opt["value"] = str(uid)
                resolved.setdefault("users", {})[str(uid)] = user_payload(uid, uname)
                m = member_payload(uid, uname)
                m.pop("user")
                resolved.setdefault("members", {})[str(uid)] = m
            else:
                opt["value"] = value
            if focused == key:
                opt["focused"] = True
            opts.append(opt)
        inner: list[dict[str, Any]]
        if len(parts) == 1:
            inner = opts
        elif len(parts) == 2:
            inner = [{"type": 1, "name": parts[1], "options": opts}]
        else:
            inner = [{"type": 2, "name": parts[1],
                      "options": [{"type": 1, "name": parts[2], "options": opts}]}]
        data: dict[str, Any] = {"id": str(snowflake()), "type": 1, "name": parts[0],
                                "options": inner}
        if resolved:
            data["resolved"] = resolved
        payload = self._base(4 if focused else 2, user_id, name, permissions, channel_id)
        payload["data"] = data
        return payload

    def click_payload(
        self,
        custom_id: str,
        *,
        user_id: int,
        name: str | None = None,
        message: Sent | None = None,
        values: list[str] | None = None,
        channel_id: int = CHANNEL_ID,
    ) -> dict[str, Any]:
        """A component interaction: a click on ``custom_id`` on ``message``."""
        payload = self._base(3, user_id, name, 0, channel_id)
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
        if values is not None:
            data["component_type"] = 3
            data["values"] = values
        payload["data"] = data
        src = dict(message.data) if message is not None else {"components": []}
        if custom_id not in custom_ids(src.get("components") or []):
            # Discord only delivers clicks on components the message has: a hand-made
            # custom_id rides on a message that carries it (e.g. an old one).
            kind = 3 if values is not None else 2
            extra: dict[str, Any] = {"type": kind, "custom_id": custom_id}
            if kind == 2:
                extra.update(style=2, label="forged")
            else:
                extra["options"] = [{"label": v, "value": v} for v in values or ["x"]]
            src["components"] = [*(src.get("components") or []),
                                 {"type": 1, "components": [extra]}]
        mid = message.message_id if message is not None and message.message_id else snowflake()
        payload["message"] = self.message_payload(channel_id, src, message_id=mid)
        return payload

    async def dispatch(self, bot: discord.Client, payload: dict[str, Any]) -> list[Sent]:
        """Feed one interaction as the gateway would; return what the bot sent."""
        before = len(self.sent)
        self.interactions.setdefault(int(payload["id"]), payload)
        bot._connection.parse_interaction_create(payload)  # type: ignore[attr-defined]
        await self.settle()
        return self.sent[before:]

    async def settle(self, rounds: int = 50) -> None:
        """Wait until every task the bot started has finished."""
        me = asyncio.current_task()
        for _ in range(rounds):
            await asyncio.sleep(0)
            pending = [t for t in self._bot_tasks() if t is not me]
            if not pending:
                return
            _done, still = await asyncio.wait(pending, timeout=15)
            if still:
                stacks = "\n".join(f"{t.get_name()}: {t.get_stack()}" for t in still)
                raise AssertionError(f"tasks did not finish:\n{stacks}")

    def _bot_tasks(self) -> list[asyncio.Task[Any]]:
        """Unfinished tasks started since login, except long-lived timers: discord.py
        gives ephemeral views a 15-minute expiry task, and the reminder loop."""
        out = []
        for t in asyncio.all_tasks():
            if t.done() or t in self._baseline:
                continue
            name = getattr(t.get_coro(), "__qualname__", "")
            if name.endswith("__timeout_task_impl") or t.get_name().startswith("fabletop-rem"):
                continue
            out.append(t)
        return out

    async def cleanup(self) -> None:
        """Cancel the timers left behind (call after the bot is closed)."""
        me = asyncio.current_task()
        leftovers = [t for t in asyncio.all_tasks()
                     if t is not me and not t.done() and t not in self._baseline]
        for t in leftovers:
            t.cancel()
        if leftovers:
            await asyncio.wait(leftovers, timeout=5)

    # -- queries --------------------------------------------------------------------

    def of_interaction(self, payload: dict[str, Any]) -> list[Sent]:
        iid = int(payload["id"])
        return [s for s in self.sent if s.interaction_id == iid]

    def channel_messages(self) -> list[Sent]:
        """Every public message the bot put in a channel, on its token or a click's."""
        return [s for s in self.sent if s.kind == "channel_message"]

    def bot_token_requests(self) -> list[Sent]:
        """What counts against the bot token's limits (every call but the callbacks and
        the interaction-token webhooks)."""
        return [s for s in self.sent if s.kind != "callback" and not s.token]

    def current(self, message: Sent) -> Sent:
        """A channel message as it reads now: its payload with every later edit applied
        (the bot edits a turn message as the steps of one turn happen)."""
        payload = dict(message.payload)
        files = list(message.files)
        for s in self.sent:
            if s.kind in ("edit_message", "edit_original") \
                    and s.message_id == message.message_id:
                payload.update(s.payload)
                if s.files:
                    files = list(s.files)
        if payload == message.payload:
            return message
        return Sent("channel_message", message.method, message.path, payload, files,
                    channel_id=message.channel_id, message_id=message.message_id)

    def last_prompt(self) -> Sent:
        """The newest channel message carrying buttons now (edits included)."""
        for s in reversed(self.sent):
            if s.kind == "channel_message":
                now = self.current(s)
                if now.custom_ids:
                    return now
        raise AssertionError("no channel message with buttons was sent")


class _Adapter(AsyncWebhookAdapter):
    """Interaction responses and follow-ups (the webhook side of discord.py)."""

    def __init__(self, fake: FakeDiscord) -> None:
        super().__init__()
        self.fake = fake

    async def request(  # type: ignore[override]
        self,
        route: discord.http.Route,
        session: Any,
        *,
        payload: dict[str, Any] | None = None,
        multipart: list[dict[str, Any]] | None = None,
        files: Any = None,
        **_: Any,
    ) -> Any:
        data, blobs = _split(payload, multipart, files)
        path = route.path
        if self.fake.webhook_latency and not path.endswith("/callback"):
            await asyncio.sleep(self.fake.webhook_latency)
        iid = int(route.webhook_id) if route.webhook_id is not None else None
        token = route.webhook_token or ""
        expired_id = iid if path.endswith("/callback") else (
            int(token.split("-", 1)[1]) if token.startswith("token-") else None)
        if expired_id in self.fake.expired:
            raise discord.NotFound(
                _FakeResponse(404, "Not Found"),  # type: ignore[arg-type]
                {"code": 10062, "message": "Unknown interaction"},
            )
        if path.endswith("/callback"):
            self.fake.sent.append(
                Sent("callback", route.method, path, data, blobs, interaction_id=iid,
                     token=True)
            )
            return {"interaction": {"id": str(iid), "type": 2}}
        interaction_id = int(token.split("-", 1)[1]) if token.startswith("token-") else None
        source = self.fake.interactions.get(interaction_id or 0, {})
        channel_id = int(source.get("channel_id") or CHANNEL_ID)
        in_guild = source.get("guild_id") is not None
        clicked = source.get("message") or {}
        ephemeral = bool((data.get("flags") or 0) & EPHEMERAL)
        if path == "/webhooks/{webhook_id}/{webhook_token}" and route.method == "POST":
            msg = self.fake.message_payload(channel_id, data)
            # A public follow-up in a server channel is a message of that channel like
            # any other (it pings, it is edited later), only sent on the click's token.
            kind = "channel_message" if in_guild and not ephemeral else "followup"
            self.fake.sent.append(Sent(kind, route.method, path, data, blobs,
                                       interaction_id=interaction_id,
                                       channel_id=channel_id if kind != "followup" else None,
                                       message_id=int(msg["id"]), token=True))
            return msg
        if path.endswith("/messages/@original") and route.method == "PATCH":
            target = int(clicked["id"]) if clicked else None
            # The message the clicked component sat on (a turn message, a DM hand, an
            # ephemeral panel): ``current`` applies it like any edit of that message.
            self.fake.sent.append(Sent("edit_original", route.method, path, data, blobs,
                                       interaction_id=interaction_id, message_id=target,
                                       channel_id=channel_id, token=True))
            return self.fake.message_payload(channel_id, data, message_id=target)
        if path.endswith("/messages/@original") and route.method == "GET":
            return self.fake.message_payload(channel_id, {})
        if path == "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}" \
                and route.method == "PATCH":
            message_id = int(route.url.rsplit("/", 1)[-1].split("?")[0])
            self.fake.sent.append(Sent("edit_message", route.method, path, data, blobs,
                                       interaction_id=interaction_id, channel_id=channel_id,
                                       message_id=message_id, token=True))
            return self.fake.message_payload(channel_id, data, message_id=message_id)
        self.fake.sent.append(Sent("other", route.method, path, data, blobs,
                                   interaction_id=interaction_id, token=True))
        return {}


# --------------------------------------------------------------------------- harness

ANN, BOB, CAROL = 111000000000000001, 222000000000000002, 333000000000000003
MANAGE_CHANNELS = 1 << 4
PNG = b"\x89PNG\r\n\x1a\nfake"


class Harness:
    def __init__(self, bot: FabletopBot, fake: FakeDiscord, service: TableService) -> None:
        self.bot, self.fake, self.service = bot, fake, service
        self.rendered: list[Any] = []

    async def slash(self, name: str, user: int, *, uname: str | None = None,
                    permissions: int = 0, channel_id: int = CHANNEL_ID,
                    **options: Any) -> list[Sent]:
        payload = self.fake.slash_payload(self.bot, name, user_id=user, name=uname,
                                          permissions=permissions, channel_id=channel_id,
                                          **options)
        return await self.fake.dispatch(self.bot, payload)

    async def autocomplete(self, name: str, user: int, focused: str, **options: Any) -> Sent:
        payload = self.fake.slash_payload(self.bot, name, user_id=user, focused=focused,
                                          **options)
        sent = await self.fake.dispatch(self.bot, payload)
        assert len(sent) == 1 and sent[0].response_type == 8, sent
        return sent[0]

    async def click(self, custom_id: str, user: int, message: Sent | None = None,
                    values: list[str] | None = None, uname: str | None = None) -> list[Sent]:
        payload = self.fake.click_payload(custom_id, user_id=user, message=message,
                                          values=values, name=uname)
        return await self.fake.dispatch(self.bot, payload)


def fake_renderer(rendered: list[Any]):
    def render(game_id: str, view: Any, **options: Any) -> bytes:
        rendered.append((game_id, view, options))
        return PNG

    return render


async def make_harness(db: Path, renderer: Any = None, seed: int | None = 7, *,
                       store: Store | None = None) -> Harness:
    """The real bot on a fake Discord, its service on the SQLite file ``db`` or, given,
    on ``store`` (unopened: any backend; a new one on the same database is a restart)."""
    settings = Settings(_env_file=None, DATABASE_PATH=str(db), OWNER_IDS=str(OWNER_ID),
                        REMINDER_MINUTES="0")
    if store is None:
        service = await TableService.open_sqlite(db, ai_delay=0.0, reminder_minutes=0)
    else:
        service = TableService(store, ai_delay=0.0, reminder_minutes=0)
        await service.open()
    if seed is not None:
        # /table new picks a random seed; tests pin it so every run plays the same game.
        create = service.create

        async def seeded_create(*args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("seed", seed)
            return await create(*args, **kwargs)

        service.create = seeded_create  # type: ignore[method-assign]
    rendered: list[Any] = []
    bot = FabletopBot(settings, service=service,
                      renderer=renderer or fake_renderer(rendered), start_reminders=False)
    fake = FakeDiscord()
    await fake.login(bot)
    h = Harness(bot, fake, service)
    h.rendered = rendered
    return h


async def close_harness(h: Harness) -> None:
    await h.service.wait_idle()
    await h.bot.close()
    await h.service.close()
    await h.fake.cleanup()


def only(sent: list[Sent], kind: str) -> Sent:
    hits = [s for s in sent if s.kind == kind]
    assert len(hits) == 1, sent
    return hits[0]


def answer(sent: list[Sent]) -> Sent:
    """What a person sees in answer to an interaction: the first response when it is a
    message, an update or a form, else the one private follow-up after a deferral
    (clicks are acknowledged before the table is read; a refusal or a menu follows),
    or the clicked message's edit (a lobby change)."""
    first = only(sent, "callback")
    if first.response_type in (4, 7, 9):
        return first
    for kind in ("followup", "edit_original"):  # a private reply, else the edited message
        hits = [s for s in sent if s.kind == kind]
        if hits:
            assert len(hits) == 1, sent
            return hits[0]
    raise AssertionError(f"no answer after the deferral: {sent}")


def reply_text(sent: list[Sent]) -> str:
    """All text the interaction got back (callback + follow-ups)."""
    return "\n".join(s.content for s in sent if s.kind in ("callback", "followup"))


