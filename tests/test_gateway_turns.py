"""bot/messages/gateway_turns.py: a burst of gateway events read without suspending still gives
the event loop a turn every SLICE seconds."""

from __future__ import annotations

import asyncio
import time

import pytest
from discord.gateway import DiscordWebSocket

from bot.messages import gateway_turns


async def test_a_burst_of_events_gives_the_loop_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[str] = []

    async def poll(self: object) -> None:  # an event already buffered: no suspension
        time.sleep(0.005)  # parsing it
        parsed.append("event")

    monkeypatch.setattr(DiscordWebSocket, "poll_event", poll)
    monkeypatch.setattr(gateway_turns, "_last_turn", 0.0)
    gateway_turns.install()
    assert gateway_turns.installed()

    seen_at: list[int] = []

    async def acknowledgement() -> None:
        seen_at.append(len(parsed))

    async def read(n: int) -> None:
        for _ in range(n):
            await DiscordWebSocket.poll_event(None)  # type: ignore[arg-type]

    reader = asyncio.ensure_future(read(40))  # 40 events of 5 ms: 200 ms of reading
    await asyncio.sleep(0)
    ack = asyncio.ensure_future(acknowledgement())  # ready while the burst is read
    await asyncio.gather(reader, ack)
    assert len(parsed) == 40
    # It ran after a slice of the burst (about four events), not after all forty.
    assert seen_at and seen_at[0] < 20


def test_the_reading_loop_is_wrapped_only_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(DiscordWebSocket, "poll_event", DiscordWebSocket.poll_event)
    gateway_turns.install()
    first = DiscordWebSocket.poll_event
    gateway_turns.install()  # once per process: not wrapped twice
    assert DiscordWebSocket.poll_event is first and gateway_turns.installed()
