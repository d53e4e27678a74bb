"""The gateway: websocket sessions, zlib-stream frames, heartbeats, READY, RESUME, shards.

One :class:`Session` per IDENTIFY. Dispatches get a sequence number and are kept in the
session's history, so a client that RESUMEs after a dropped connection receives what it
missed, as on Discord. A session's frames leave through one sender task in order; the
optional network latency is applied there.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from tests.emulator.server import Emulator

log = logging.getLogger("emulator.gateway")

DISPATCH, HEARTBEAT, IDENTIFY, PRESENCE, RESUME, RECONNECT = 0, 1, 2, 3, 6, 7
REQUEST_MEMBERS, INVALID_SESSION, HELLO, HEARTBEAT_ACK = 8, 9, 10, 11
HEARTBEAT_INTERVAL_MS = 41250

# Intents that gate the events the emulator sends.
GUILD_MESSAGES = 1 << 9
DIRECT_MESSAGES = 1 << 12


class Connection:
    """One websocket: its own zlib compressor (shared across frames, Z_SYNC_FLUSH each)."""

    def __init__(self, emu: Emulator, ws: web.WebSocketResponse, compress: bool) -> None:
        self.emu = emu
        self.ws = ws
        self.compressor = zlib.compressobj() if compress else None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue()
        self.session: Session | None = None
        self.sender = asyncio.create_task(self._send_loop())

    def send(self, payload: dict[str, Any] | str) -> None:
        self.queue.put_nowait(payload if isinstance(payload, str) else json.dumps(payload))

    async def _send_loop(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None or self.ws.closed:
                return
            if self.emu.faults.latency:
                await asyncio.sleep(self.emu.faults.latency)
            try:
                if self.compressor is not None:
                    data = self.compressor.compress(text.encode())
                    data += self.compressor.flush(zlib.Z_SYNC_FLUSH)
                    await self.ws.send_bytes(data)
                else:
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def close(self, code: int = 4000, abrupt: bool = False) -> None:
        self.queue.put_nowait(None)
        if abrupt and self.ws._req is not None and self.ws._req.transport is not None:
            self.ws._req.transport.abort()  # a network drop: no close frame at all
        else:
            await self.ws.close(code=code)


@dataclass
class Session:
    id: str
    shard_id: int
    shard_count: int
    intents: int
    seq: int = 0
    history: list[tuple[int, str]] = field(default_factory=list)
    conn: Connection | None = None
    resumes: int = 0

    def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        text = json.dumps({"op": DISPATCH, "t": event, "s": self.seq, "d": data})
        self.history.append((self.seq, text))
        if self.conn is not None:
            self.conn.send(text)


class Gateway:
    def __init__(self, emu: Emulator) -> None:
        self.emu = emu
        self.sessions: dict[str, Session] = {}
        self.by_shard: dict[int, Session] = {}  # the live session of each shard
        self.connections: set[Connection] = set()
        self.identifies = 0

    def shard_for(self, guild_id: int | None) -> int:
        """Discord's routing: (guild_id >> 22) % shard_count; DMs go to shard 0."""
        if guild_id is None:
            return 0
        return (guild_id >> 22) % self.emu.shard_count

    def dispatch(
        self, event: str, data: dict[str, Any], guild_id: int | None, intent: int | None = None
    ) -> bool:
        session = self.by_shard.get(self.shard_for(guild_id))
        if session is None:
            say = log.warning if self.sessions else log.debug
            say("no session for shard %s; %s not delivered", self.shard_for(guild_id), event)
            return False
        if intent is not None and not session.intents & intent:
            return False
        session.dispatch(event, data)
        return True

    @property
    def ready_shards(self) -> set[int]:
        return {s for s, sess in self.by_shard.items() if sess.conn is not None}

    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        compress = request.query.get("compress") == "zlib-stream"
        conn = Connection(self.emu, ws, compress)
        self.connections.add(conn)
        conn.send(
            {"op": HELLO, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}, "s": None, "t": None}
        )
        try:
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    await self._on_message(conn, json.loads(msg.data))
                elif msg.type is WSMsgType.BINARY:
                    await self._on_message(conn, json.loads(zlib.decompress(msg.data)))
                else:
                    break
        finally:
            self.connections.discard(conn)
            conn.queue.put_nowait(None)
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
        return ws

    async def _on_message(self, conn: Connection, msg: dict[str, Any]) -> None:
        op, d = msg.get("op"), msg.get("d")
        if op == HEARTBEAT:
            conn.send({"op": HEARTBEAT_ACK, "d": None, "s": None, "t": None})
        elif op == IDENTIFY:
            await self._identify(conn, d)
        elif op == RESUME:
            await self._resume(conn, d)
        elif op == REQUEST_MEMBERS:
            self._members(conn, d)
        elif op == PRESENCE:
            pass
        else:
            log.warning("unhandled gateway op %s: %s", op, msg)

    async def _identify(self, conn: Connection, d: dict[str, Any]) -> None:
        emu = self.emu
        if d.get("token") != emu.token:
            await conn.close(4004)  # Authentication failed
            return
        shard_id, shard_count = d.get("shard") or [0, 1]
        if shard_count != emu.shard_count or not 0 <= shard_id < shard_count:
            await conn.close(4010)  # Invalid shard
            return
        self.identifies += 1
        old = self.by_shard.get(shard_id)
        if old is not None and old.conn is not None and old.conn is not conn:
            await old.conn.close(4000)
        session = Session(secrets.token_hex(16), shard_id, shard_count, d.get("intents", 0))
        session.conn = conn
        conn.session = session
        self.sessions[session.id] = session
        self.by_shard[shard_id] = session
        guilds = [g for g in emu.guilds.values() if self.shard_for(g.id) == shard_id]
        session.dispatch(
            "READY",
            {
                "v": 10,
                "user": emu.bot.to_api(),
                "session_id": session.id,
                "resume_gateway_url": emu.gateway_url,
                "shard": [shard_id, shard_count],
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "application": {"id": str(emu.application_id), "flags": 0},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "geo_ordered_rtc_regions": [],
                "guild_join_requests": [],
                "user_settings": {},
            },
        )
        for guild in guilds:
            session.dispatch("GUILD_CREATE", guild.to_api(emu.bot))
        emu._changed()

    async def _resume(self, conn: Connection, d: dict[str, Any]) -> None:
        session = self.sessions.get(d.get("session_id", ""))
        if (
            d.get("token") != self.emu.token
            or session is None
            or (self.by_shard.get(session.shard_id) is not session)
        ):
            conn.send({"op": INVALID_SESSION, "d": False, "s": None, "t": None})
            return
        if session.conn is not None and session.conn is not conn:
            await session.conn.close(4000)
        session.conn = conn
        conn.session = session
        session.resumes += 1
        last = d.get("seq") or 0
        for seq, text in session.history:
            if seq > last:
                conn.send(text)
        session.dispatch("RESUMED", {})
        self.emu._changed()

    def _members(self, conn: Connection, d: dict[str, Any]) -> None:
        ids = d.get("guild_id")
        for gid in ids if isinstance(ids, list) else [ids]:
            guild = self.emu.guilds.get(int(gid))
            if guild is None or conn.session is None:
                continue
            members = [
                self.emu.bot,
                *[m for m in guild.members.values() if m.id != self.emu.bot.id],
            ]
            payload: dict[str, Any] = {
                "guild_id": str(guild.id),
                "members": [m.member_api(guild) for m in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [],
                "presences": [],
            }
            if d.get("nonce"):
                payload["nonce"] = d["nonce"]
            conn.session.dispatch("GUILD_MEMBERS_CHUNK", payload)

    async def drop(
        self, shard_id: int | None = None, *, abrupt: bool = True, code: int = 4000
    ) -> None:
        """Cut the gateway connection(s); the client is expected to RESUME."""
        for sid, session in list(self.by_shard.items()):
            if shard_id is not None and sid != shard_id:
                continue
            if session.conn is not None:
                conn, session.conn = session.conn, None
                await conn.close(code=code, abrupt=abrupt)

    async def reconnect_request(self, shard_id: int = 0) -> None:
        """Send op 7 RECONNECT, as Discord does before moving a session."""
        session = self.by_shard.get(shard_id)
        if session is not None and session.conn is not None:
            session.conn.send({"op": RECONNECT, "d": None, "s": None, "t": None})

    async def close_all(self) -> None:
        for conn in list(self.connections):
            await conn.close(1001)
            conn.sender.cancel()
