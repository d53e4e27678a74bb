"""A slash command whose interaction expired before the bot deferred it (issue 23).

The command tree defers every private-answer command in ``interaction_check``; when
Discord no longer knows the interaction (10062 Unknown interaction: its 3 seconds were
over), the deferral raised out of discord.py's invoker task, and asyncio logged it as
"Task exception was never retrieved" with a traceback. It is handled as a click in that
state is: one warning saying the interaction expired, no traceback, the command not run.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.core.tables.errors import NoTable
from tests.discord_fakes import ANN, CHANNEL_ID, Harness, close_harness, make_harness


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


async def test_an_expired_slash_command_is_a_warning_and_runs_nothing(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    loop = asyncio.get_running_loop()
    unhandled: list[dict[str, Any]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _loop, context: unhandled.append(context))
    try:
        payload = h.fake.slash_payload(h.bot, "table new", user_id=ANN, name="Ann", game="treasure")
        h.fake.expired.add(int(payload["id"]))
        with caplog.at_level(logging.WARNING):
            sent = await h.fake.dispatch(h.bot, payload)
            # An exception nobody retrieved is reported when its task is collected.
            gc.collect()
            await asyncio.sleep(0)
    finally:
        loop.set_exception_handler(previous)

    assert unhandled == [], [c.get("message") for c in unhandled]
    assert sent == []  # nothing reached Discord: not a table, not an apology
    warnings = [r for r in caplog.records if "expired" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING
    assert "/table new" in warnings[0].getMessage()
    assert not any(r.exc_info for r in caplog.records)
    # The command did not run: the channel has no table.
    with pytest.raises(NoTable):
        await h.service.status(CHANNEL_ID)


async def test_a_live_slash_command_is_still_deferred_and_answered(h: Harness) -> None:
    sent = await h.slash("table new", ANN, uname="Ann", game="treasure")
    assert sent[0].kind == "callback" and sent[0].response_type == 5
    assert (await h.service.status(CHANNEL_ID)).game_id == "treasure"
