"""The emulator's rate limits answer as Discord documents them (topics/rate-limits).

The requests here are raw HTTP (aiohttp), so every header and body is seen exactly as a
client would see it; ``emu.advance_time`` closes windows and bans without waiting.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from tests.emulator import Emulator
from tests.emulator.models import MESSAGE_COMPONENT
from tests.emulator.ratelimits import (
    BAN_MESSAGE,
    DISCORD_LIMITS,
    MACHINE_SPEED_LIMITS,
    RateLimitPolicy,
    Window,
)

ROUTE_HEADERS = (
    "X-RateLimit-Limit",
    "X-RateLimit-Remaining",
    "X-RateLimit-Reset",
    "X-RateLimit-Reset-After",
    "X-RateLimit-Bucket",
)


class Http:
    """A raw client of one emulator: the bot's token unless told otherwise."""

    def __init__(self, emu: Emulator, session: aiohttp.ClientSession) -> None:
        self.emu, self.session = emu, session

    async def call(
        self, method: str, path: str, body: Any = None, *, token: str | None = "bot"
    ) -> tuple[int, dict[str, str], Any]:
        headers = {"Content-Type": "application/json"}
        if token == "bot":
            headers["Authorization"] = f"Bot {self.emu.token}"
        elif token is not None:
            headers["Authorization"] = f"Bot {token}"
        data = json.dumps(body).encode() if body is not None else None
        async with self.session.request(
            method, self.emu.api_base + path, data=data, headers=headers
        ) as resp:
            text = await resp.text()
            parsed = json.loads(text) if text else None
            return resp.status, dict(resp.headers), parsed

    async def send(self, channel_id: int, content: str = "hi") -> tuple[int, dict[str, str], Any]:
        return await self.call("POST", f"/channels/{channel_id}/messages", {"content": content})


@pytest.fixture
async def http(request: pytest.FixtureRequest) -> AsyncIterator[Http]:
    policy = getattr(request, "param", DISCORD_LIMITS)
    async with Emulator(rate_limits=policy) as emu, aiohttp.ClientSession() as session:
        yield Http(emu, session)


def policy(**kw: Any) -> pytest.MarkDecorator:
    """Run a test on an emulator with these limits instead of Discord's."""
    return pytest.mark.parametrize("http", [RateLimitPolicy(**kw)], indirect=True, ids=[""])


def assert_route_headers(headers: dict[str, str], limit: int, remaining: int, per: float) -> None:
    assert all(h in headers for h in ROUTE_HEADERS), headers
    assert headers["X-RateLimit-Limit"] == str(limit)
    assert headers["X-RateLimit-Remaining"] == str(remaining)
    assert 0 < float(headers["X-RateLimit-Reset-After"]) <= per
    assert headers["Via"]  # discord.py takes a 429 without it for a Cloudflare ban


def test_the_defaults_are_discords_numbers() -> None:
    assert DISCORD_LIMITS.global_limit == Window(50, 1.0)
    assert DISCORD_LIMITS.message_create == Window(5, 5.0)
    assert DISCORD_LIMITS.message_edit == Window(5, 5.0)
    assert DISCORD_LIMITS.interaction_webhook == Window(5, 2.0)
    assert (DISCORD_LIMITS.invalid_limit, DISCORD_LIMITS.invalid_window) == (10_000, 600.0)
    with pytest.raises(ValueError):
        Window(0, 1.0)


def test_machine_speed_shortens_the_route_windows_only() -> None:
    fast = DISCORD_LIMITS.sped_up(5)
    assert (fast.message_create, fast.message_edit) == (Window(5, 1.0), Window(5, 1.0))
    assert fast.interaction_webhook == Window(5, 0.4)
    # What no speed changes: the bot token's global limit and the ban.
    assert fast.global_limit == DISCORD_LIMITS.global_limit == Window(50, 1.0)
    assert (fast.invalid_limit, fast.invalid_window, fast.ban_for) == (10_000, 600.0, 3600.0)
    assert fast == MACHINE_SPEED_LIMITS
    with pytest.raises(ValueError, match="at least 1"):
        DISCORD_LIMITS.sped_up(0.5)


async def test_message_create_bucket_per_channel_with_headers_and_a_user_429(http: Http) -> None:
    emu = http.emu
    general, games = emu.channel, emu.channel_named("games")
    for i in range(5):
        status, headers, _ = await http.send(general.id, f"m{i}")
        assert status == 200
        assert_route_headers(headers, 5, 4 - i, 5.0)
        assert "X-RateLimit-Scope" not in headers and "X-RateLimit-Global" not in headers
    bucket = headers["X-RateLimit-Bucket"]
    status, headers, body = await http.send(general.id, "one too many")
    assert status == 429
    assert set(body) == {"message", "retry_after", "global"}
    assert body["message"] == "You are being rate limited." and body["global"] is False
    assert isinstance(body["retry_after"], float) and 0 < body["retry_after"] <= 5.0
    assert headers["X-RateLimit-Scope"] == "user" and "X-RateLimit-Global" not in headers
    assert int(headers["Retry-After"]) >= body["retry_after"]  # whole seconds, rounded up
    assert_route_headers(headers, 5, 0, 5.0)  # "normal route headers will also be sent"
    assert headers["X-RateLimit-Bucket"] == bucket
    assert [m.content for m in general.messages] == [f"m{i}" for i in range(5)]
    # Another channel is another top-level resource: its own window, the same bucket id.
    status, headers, _ = await http.send(games.id)
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    assert headers["X-RateLimit-Bucket"] == bucket
    # Edits in the same channel count against a bucket of their own.
    first = general.messages[0]
    status, headers, _ = await http.call(
        "PATCH", f"/channels/{general.id}/messages/{first.id}", {"content": "edited"}
    )
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    assert headers["X-RateLimit-Bucket"] != bucket
    # The window closes 5 s after its first request.
    emu.advance_time(5.0)
    status, headers, _ = await http.send(general.id, "later")
    assert status == 200 and headers["X-RateLimit-Remaining"] == "4"
    rl = emu.ratelimits
    assert rl.limited == {"user": 1} and rl.invalid == 1
    assert rl.limited_routes == {"POST /channels/{channel_id}/messages": 1}
    assert rl.requests["POST /channels/{channel_id}/messages"] == 8
    assert not rl.problems()  # a route 429 is reported, not a failure
    emu.assert_clean()
    assert "route 1" in rl.summary()


async def test_edits_bucket_is_five_per_five_seconds_per_channel(http: Http) -> None:
    emu = http.emu
    await http.send(emu.channel.id, "to edit")
    mid = emu.channel.messages[0].id
    statuses = []
    for i in range(6):
        status, headers, _ = await http.call(
            "PATCH", f"/channels/{emu.channel.id}/messages/{mid}", {"content": f"e{i}"}
        )
        statuses.append(status)
    assert statuses == [200] * 5 + [429]
    assert headers["X-RateLimit-Scope"] == "user"
    assert emu.channel.messages[0].content == "e4"


@policy(global_limit=Window(8, 1.0))
async def test_the_global_limit_per_bot_token_and_its_429(http: Http) -> None:
    emu = http.emu
    channels = [emu.channel, emu.channel_named("games")]
    statuses = [(await http.call("GET", f"/channels/{channels[i % 2].id}"))[0] for i in range(8)]
    assert statuses == [200] * 8
    status, headers, body = await http.call("GET", "/users/@me")
    assert status == 429
    assert body == {
        "message": "You are being rate limited.",
        "retry_after": body["retry_after"],
        "global": True,
    }
    assert 0 < body["retry_after"] <= 1.0
    assert headers["X-RateLimit-Global"] == "true" and headers["X-RateLimit-Scope"] == "global"
    assert "X-RateLimit-Bucket" not in headers  # the documented global answer has none
    assert emu.ratelimits.global_peak == 8 and emu.ratelimits.limited == {"global": 1}
    # Another token (or none: then the IP) is another global window.
    status, _, _ = await http.call("GET", "/users/@me", token=None)
    assert status == 401
    emu.advance_time(1.0)
    assert (await http.call("GET", "/users/@me"))[0] == 200
    # A global 429 means the bot went past 50 a second: assert_clean fails on it.
    with pytest.raises(AssertionError, match="global rate limit exceeded"):
        emu.assert_clean()


@policy(global_limit=Window(2, 1.0))
async def test_interaction_endpoints_are_exempt_from_the_global_limit(http: Http) -> None:
    emu = http.emu
    alice = emu.user("alice")
    await http.send(emu.channel.id, "with a button")  # the message the button sits on
    inter = emu.start_interaction(
        alice.user,
        emu.channel,
        MESSAGE_COMPONENT,
        {"custom_id": "x", "component_type": 2},
        message=emu.channel.messages[0],
    )
    assert (await http.call("GET", "/users/@me"))[0] == 200
    assert (await http.call("GET", "/users/@me"))[0] == 429  # the bot token is spent
    status, headers, _ = await http.call(
        "POST",
        f"/interactions/{inter.id}/{inter.token}/callback",
        {"type": 7, "data": {"content": "clicked"}},
        token=None,
    )
    assert status == 200 and "X-RateLimit-Bucket" in headers
    hook = f"/webhooks/{emu.application_id}/{inter.token}"
    for i in range(3):
        status, headers, _ = await http.call("POST", hook, {"content": f"f{i}"}, token=None)
        assert status == 200, (i, status)
    # ... but they have their own bucket: 5 per 2 s per interaction token, shared by its
    # follow-ups and edits.
    assert_route_headers(headers, 5, 2, 2.0)
    status, _, _ = await http.call(
        "PATCH", f"{hook}/messages/@original", {"content": "again"}, token=None
    )
    assert status == 200
    assert (await http.call("POST", hook, {"content": "f3"}, token=None))[0] == 200
    status, headers, body = await http.call("POST", hook, {"content": "f4"}, token=None)
    assert status == 429 and body["global"] is False and headers["X-RateLimit-Scope"] == "user"
    rl = emu.ratelimits
    assert rl.kinds["interaction"] == 7 and rl.kinds["bot"] == 3
    assert rl.limited == {"global": 1, "user": 1}


@policy(other=Window(3, 1.0), global_limit=Window(4, 1.0))
async def test_a_persons_bearer_token_has_limits_of_its_own(http: Http) -> None:
    """Discord counts buckets and the global limit per token: a crowd signing in to the
    Activity (each with their own ``/users/@me``) spends neither the bot's buckets nor
    each other's, and is not counted as the bot's requests."""
    emu = http.emu
    tokens = [f"bearer-{i}" for i in range(5)]
    for i, token in enumerate(tokens):
        emu.oauth.tokens[token] = emu.user(f"p{i}").user

    async def me(token: str) -> int:
        async with http.session.get(emu.api_base + "/users/@me",
                                    headers={"Authorization": f"Bearer {token}"}) as resp:
            return resp.status

    assert [await me(t) for t in tokens for _ in range(3)] == [200] * 15
    assert await me(tokens[0]) == 429  # that one person's bucket is spent
    assert (await http.call("GET", "/users/@me"))[0] == 200  # the bot's is untouched
    rl = emu.ratelimits
    assert rl.kinds["bearer"] == 16 and rl.kinds["bot"] == 1
    assert rl.limited == {"user": 1}


@policy(invalid_limit=5, ban_for=60.0)
async def test_invalid_requests_lead_to_a_ban_and_the_ban_ends(http: Http) -> None:
    emu = http.emu
    for _ in range(4):
        assert (await http.call("GET", "/users/@me", token="wrong"))[0] == 401
    # A shared 429 is not counted against the bot ("not counted against you").
    emu.faults.rate_limit("GET /users/@me", shared=True)
    status, headers, _ = await http.call("GET", "/users/@me")
    assert status == 429 and headers["X-RateLimit-Scope"] == "shared"
    assert not emu.ratelimits.banned()
    # Ten minutes on, the four old ones no longer count either.
    emu.advance_time(600.0)
    for _ in range(4):
        assert (await http.call("GET", "/users/@me", token="wrong"))[0] == 401
    assert not emu.ratelimits.banned()
    # The fifth within ten minutes: banned. Every request of the IP, even a valid one
    # and even on an interaction route, gets Cloudflare's static answer.
    dm = await http.call("POST", "/users/@me/channels", {"recipient_id": "1"})
    assert dm[0] == 400  # not an invalid request: 400 is not counted
    assert (await http.call("GET", "/users/@me", token="wrong"))[0] == 401
    assert emu.ratelimits.banned() and emu.ratelimits.bans == 1
    status, headers, body = await http.call("GET", "/users/@me")
    assert status == 429
    assert body == {"code": 0, "message": BAN_MESSAGE}
    assert "Via" not in headers and not any(h.startswith("X-RateLimit") for h in headers)
    assert (await http.call("POST", "/interactions/1/tok/callback", {"type": 6}, token=None))[
        0
    ] == 429
    assert emu.ratelimits.banned_requests == 2
    with pytest.raises(AssertionError, match="banned 1 time"):
        emu.assert_clean()
    emu.take_errors()
    emu.advance_time(60.0)
    assert (await http.call("GET", "/users/@me"))[0] == 200
    assert not emu.ratelimits.banned()


@pytest.mark.parametrize("http", [None], indirect=True, ids=["off"])
async def test_limits_can_be_turned_off_for_raw_speed(http: Http) -> None:
    emu = http.emu
    statuses = [(await http.send(emu.channel.id, f"m{i}"))[0] for i in range(12)]
    assert statuses == [200] * 12
    _, headers, _ = await http.send(emu.channel.id)
    assert not any(h.startswith("X-RateLimit") for h in headers)
    assert not emu.ratelimits.enabled and not emu.ratelimits.met()


async def test_an_interaction_token_lasts_fifteen_minutes_on_the_emulators_clock(
    http: Http,
) -> None:
    """Discord: "Interaction tokens are valid for 15 minutes"; past that the webhook
    routes of the token answer 401 Invalid Webhook Token (50027)."""
    emu = http.emu
    await http.send(emu.channel.id, "with a button")
    inter = emu.start_interaction(
        emu.user("alice").user,
        emu.channel,
        MESSAGE_COMPONENT,
        {"custom_id": "x", "component_type": 2},
        message=emu.channel.messages[0],
    )
    callback = f"/interactions/{inter.id}/{inter.token}/callback"
    assert (await http.call("POST", callback, {"type": 6}, token=None))[0] == 200
    hook = f"/webhooks/{emu.application_id}/{inter.token}"
    status, _, posted = await http.call("POST", hook, {"content": "early"}, token=None)
    assert status == 200
    emu.advance_time(15 * 60 - 1.0)
    edit = f"{hook}/messages/{posted['id']}"
    assert (await http.call("PATCH", edit, {"content": "still mine"}, token=None))[0] == 200
    emu.advance_time(2.0)
    for method, path, body in (
        ("POST", hook, {"content": "late"}),
        ("PATCH", edit, {"content": "too late"}),
        ("PATCH", f"{hook}/messages/@original", {"content": "too late"}),
    ):
        status, _, answer = await http.call(method, path, body, token=None)
        assert status == 401 and answer == {"code": 50027, "message": "Invalid Webhook Token"}
    # The bot token still edits the message: the bot authored it.
    status, _, _ = await http.call(
        "PATCH", f"/channels/{emu.channel.id}/messages/{posted['id']}", {"content": "bot"}
    )
    assert status == 200 and emu.messages[int(posted["id"])].content == "bot"
    assert emu.ratelimits.invalid == 3  # 401s are invalid requests
    assert [e.code for e in emu.take_errors()] == [50027] * 3
