"""A Discord emulator on loopback, for end-to-end tests of the real bot process.

The unmodified discord.py client connects to it as it would to Discord; only two addresses
differ (``discord.http.Route.BASE`` = ``emu.api_base`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` = ``emu.gateway_url``; the bot reads them
from DISCORD_API_BASE / DISCORD_GATEWAY_URL).

Typical use::

    async with Emulator() as emu:
        ...start the bot (subprocess or in-process client) against emu...
        await emu.wait_ready()
        alice, bob = emu.user("alice"), emu.user("bob")
        reply = (await alice.slash("/table new", game="fairy-tale-inn")).reply
        await bob.click(emu.channel.messages[-1], label="Join")
        emu.channel.messages[-1].image        # the PNG, decoded with Pillow
        alice.dm_messages(), alice.ephemerals()
        await emu.wait_for(lambda: len(emu.channel.messages) > 3, timeout=5)
        emu.faults.rate_limit("POST /channels/{channel_id}/messages", retry_after=0.3)
        emu.faults.fail("POST /interactions/{interaction_id}/{token}/callback", status=500)
        bob.close_dms(); await emu.drop_gateway()
        emu.assert_clean()   # nothing Discord would refuse, no unknown route

Everything lives in memory; snowflakes are virtual. Limits and error codes follow Discord's
documentation (see :mod:`tests.emulator.limits`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from tests.emulator.limits import ApiError
from tests.emulator.models import Attachment, Button, Channel, Guild, Interaction, Message, User
from tests.emulator.people import CannotDoThat, Person
from tests.emulator.server import Emulator, Fault, Faults, InteractionFailed

__all__ = [
    "ApiError",
    "Attachment",
    "Button",
    "CannotDoThat",
    "Channel",
    "Emulator",
    "Fault",
    "Faults",
    "Guild",
    "Interaction",
    "InteractionFailed",
    "Message",
    "Person",
    "User",
    "discord_pointed_at",
]


@contextlib.contextmanager
def discord_pointed_at(emu: Emulator) -> Iterator[None]:
    """Point this process's discord.py at the emulator (for in-process test clients)."""
    import yarl
    from discord.gateway import DiscordWebSocket
    from discord.http import Route

    old_base, old_gateway = Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY
    Route.BASE = emu.api_base  # type: ignore[misc]
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(emu.gateway_url)
    try:
        yield
    finally:
        Route.BASE = old_base  # type: ignore[misc]
        DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
