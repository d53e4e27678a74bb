"""The ``e2e`` fixture: an emulator, the bot as a subprocess on a real SQLite file, people.

A later game's end-to-end test needs only::

    pytestmark = pytest.mark.e2e

    async def test_my_game(e2e):
        emu, bot, (alice, bob, carol) = e2e
        await alice.slash("/table new", game="my-game")
        ...
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Generator
from pathlib import Path

import pytest

from tests.e2e.harness import (
    E2E,
    BotProcess,
    record_request_costs,
    report_rate_limits,
    stop_quietly,
)
from tests.emulator import Emulator
from tests.emulator.ratelimits import MACHINE_SPEED_LIMITS

logging.getLogger("emulator").setLevel(logging.ERROR)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "bot_env(**env): environment overrides for the bot "
        "process of the e2e fixture (e.g. AI_DELAY='1')",
    )
    config.addinivalue_line(
        "markers",
        "rate_limits(policy): the emulator's RateLimitPolicy for the e2e fixture "
        "(None: off; default: Discord's)",
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember each phase's report on the item, so the fixture knows the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
async def e2e(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[E2E]:
    """(emu, bot process, (alice, bob, carol)); the bot is connected and its commands
    synced. On teardown the bot must have sent nothing Discord would refuse (tests that
    provoke refusals take them with ``emu.take_errors()``) and met no global 429 nor a
    ban (route 429s are reported). ``@pytest.mark.bot_env(...)`` sets extra environment
    variables for the bot process, ``@pytest.mark.rate_limits(policy)`` the emulator's
    rate limits (default: Discord's buckets with 5x shorter windows,
    ``MACHINE_SPEED_LIMITS``, since the simulated people answer in milliseconds)."""
    marker = request.node.get_closest_marker("bot_env")
    env = {k: str(v) for k, v in (marker.kwargs if marker else {}).items()}
    limits = request.node.get_closest_marker("rate_limits")
    async with Emulator(rate_limits=limits.args[0] if limits else MACHINE_SPEED_LIMITS) as emu:
        bot = BotProcess(emu, tmp_path, **env)
        try:
            await bot.start()
            users = (emu.user("alice"), emu.user("bob"), emu.user("carol"))
            yield E2E(emu, bot, users)
            report_rate_limits(emu)
            record_request_costs(request.node.nodeid, emu, bot.db_path)
            call = getattr(request.node, "report_call", None)
            if call is not None and call.failed:
                print(f"--- bot log ({bot.log_path}) ---\n{bot.log()[-6000:]}")
                # What the emulator refused explains many a timeout (a move Discord refused).
                refused = [f"{m} {p}: {e}" for m, p, e in emu.api_errors]
                print("--- refused by the emulator ---", *refused[-20:], sep="\n  ")
            else:
                emu.assert_clean()
                bot.assert_log_clean()
        except BaseException:
            print(f"--- bot log ({bot.log_path}) ---\n{bot.log()[-6000:]}")
            raise
        finally:
            await stop_quietly(bot)
