"""The Activity's web server: signing in (OAuth2 against the emulator), its sessions, its
origins and headers, and the files it serves."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.core.settings import Settings
from bot.web.auth import DiscordOAuth, OAuthError, SessionError, Sessions
from bot.web.security import content_security_policy
from tests.web_helpers import CHANNEL, ORIGIN, WebHarness, web, web_settings  # noqa: F401

KEY = b"k" * 32


async def test_a_good_code_signs_in_and_the_secret_stays_on_the_server(
        web: WebHarness, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    caplog.set_level(logging.DEBUG)
    alice = web.emu.user("alice")
    code = web.emu.authorization_code(alice)
    status, token = await web.post("/api/token", {"code": code})
    assert status == 200 and set(token) == {"access_token"}
    assert web.emu.oauth.user_of(token["access_token"]) is alice.user
    # The exchange was a form with the client's credentials, as Discord wants it.
    exchange = web.emu.oauth.exchanges[-1]
    assert exchange.status == 200
    assert exchange.fields == ("client_id", "client_secret", "code", "grant_type")
    status, session = await web.post("/api/session", {"channel_id": str(CHANNEL),
                                                      "guild_id": None},
                                     bearer=token["access_token"])
    assert status == 200
    assert session["user"] == {"id": str(alice.id), "name": "alice"}
    assert Sessions(web_settings(web.emu).session_key()).check(session["session"]).user_id \
        == alice.id
    secret = web.emu.client_secret
    assert secret not in str(token) + str(session)
    # Nothing secret in the server's log: no client secret, code, token or session.
    for text in (secret, code, token["access_token"], session["session"]):
        assert text not in caplog.text
    async with web.http.get(web.url + "/api/config") as resp:
        config = await resp.json()
    assert config == {"client_id": str(web.emu.application_id)}


async def test_a_bad_or_used_code_is_refused_in_words(
        web: WebHarness, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    alice = web.emu.user("alice")
    code = web.emu.authorization_code(alice)
    assert (await web.post("/api/token", {"code": code}))[0] == 200
    status, again = await web.post("/api/token", {"code": code})  # a code is good once
    assert status == 400 and "open the board again" in again["error"]
    status, bad = await web.post("/api/token", {"code": "made-up"})
    assert status == 400 and set(bad) == {"error"}
    assert web.emu.oauth.exchanges[-1].error == "invalid_grant"
    status, shape = await web.post("/api/token", {"code": "", "extra": 1})
    assert status == 400 and "not what the board sends" in shape["error"]
    assert web.emu.client_secret not in caplog.text


async def test_a_wrong_client_secret_is_the_servers_fault_not_the_players(
        web: WebHarness, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    oauth = DiscordOAuth(str(web.emu.application_id), "not-the-secret", web.emu.api_base)
    try:
        with pytest.raises(OAuthError) as refused:
            await oauth.exchange(web.emu.authorization_code(web.emu.user("alice")))
    finally:
        await oauth.close()
    assert refused.value.status == 502 and "client secret" in refused.value.text
    assert web.emu.oauth.exchanges[-1].error == "invalid_client"
    assert "not-the-secret" not in caplog.text and "not-the-secret" not in repr(oauth)


async def test_a_session_needs_a_token_discord_knows(web: WebHarness) -> None:  # noqa: F811
    body = {"channel_id": str(CHANNEL), "guild_id": None}
    status, none = await web.post("/api/session", body)
    assert status == 401 and "Sign in" in none["error"]
    status, fake = await web.post("/api/session", body, bearer="emu-bearer-forged")
    assert status == 401 and "access token" in fake["error"]
    token = (await web.post("/api/token",
                            {"code": web.emu.authorization_code(web.emu.user("bob"))}))[1]
    status, _bad = await web.post("/api/session", {"channel_id": "general"},
                                 bearer=token["access_token"])
    assert status == 400


async def test_a_rate_limited_users_me_is_waited_out_once_or_said_in_words(
        web: WebHarness) -> None:  # noqa: F811
    body = {"channel_id": str(CHANNEL), "guild_id": None}

    async def token() -> str:
        code = web.emu.authorization_code(web.emu.user("carol"))
        return (await web.post("/api/token", {"code": code}))[1]["access_token"]

    short = web.emu.faults.rate_limit("GET /users/@me", retry_after=0.05)
    status, session = await web.post("/api/session", body, bearer=await token())
    assert status == 200 and short.hits == 1 and session["user"]["name"] == "carol"
    long = web.emu.faults.rate_limit("GET /users/@me", retry_after=30.0)
    status, busy = await web.post("/api/session", body, bearer=await token())
    assert status == 503 and "busy" in busy["error"] and long.hits == 1


def test_sessions_are_signed_expire_and_resist_tampering() -> None:
    now = [1000.0]
    sessions = Sessions(KEY, lifetime=60, clock=lambda: now[0])
    token = sessions.issue(42, "Ann", 7)
    who = sessions.check(token)
    assert (who.user_id, who.name, who.channel_id) == (42, "Ann", 7)
    # Another process with the same key accepts it; one with another key does not.
    assert Sessions(KEY, clock=lambda: now[0]).check(token).user_id == 42
    with pytest.raises(SessionError, match="not signed"):
        Sessions(b"x" * 32, clock=lambda: now[0]).check(token)
    head, _, signature = token.partition(".")
    import base64
    import json

    payload = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    payload["u"] = "43"  # someone else's seat
    forged = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    with pytest.raises(SessionError, match="not signed"):
        sessions.check(f"{forged}.{signature}")
    for junk in ("", "abc", ".", "a.b", token + "x"):
        with pytest.raises(SessionError):
            sessions.check(junk)
    now[0] += 61
    with pytest.raises(SessionError, match="expired"):
        sessions.check(token)
    with pytest.raises(ValueError):
        Sessions(b"short")


def test_the_session_key_is_derived_or_given_and_validated() -> None:
    base = {"_env_file": None, "WEB_PORT": "8080", "DISCORD_CLIENT_ID": "123456789012345678"}
    one = Settings(**base, DISCORD_CLIENT_SECRET="s1")  # type: ignore[arg-type]
    two = Settings(**base, DISCORD_CLIENT_SECRET="s2")  # type: ignore[arg-type]
    assert one.session_key() != two.session_key() and len(one.session_key()) == 32
    assert b"s1" not in one.session_key()
    given = Settings(**base, DISCORD_CLIENT_SECRET="s1",  # type: ignore[arg-type]
                     WEB_SESSION_SECRET="z" * 40)
    assert given.session_key() == b"z" * 40
    assert one.allowed_origins == ["https://123456789012345678.discordsays.com"]
    assert "s1" not in repr(one)
    from pydantic import ValidationError

    for bad in ({"WEB_SESSION_SECRET": "short"}, {"DISCORD_CLIENT_SECRET": ""},
                {"WEB_ORIGINS": "https://a.example/path"}, {"DISCORD_CLIENT_ID": "app"},
                {"WEB_PORT": "70000"}):
        with pytest.raises(ValidationError):
            Settings(**{**base, "DISCORD_CLIENT_SECRET": "s1", **bad})  # type: ignore[arg-type]
    off = Settings(_env_file=None)
    assert not off.activity and off.web_host == "127.0.0.1"


async def test_other_origins_are_refused(web: WebHarness) -> None:  # noqa: F811
    code = web.emu.authorization_code(web.emu.user("alice"))
    for origin in ("https://evil.example", None):
        status, body = await web.post("/api/token", {"code": code}, origin=origin)
        assert status == 403 and "may not" in body["error"]
    assert not web.emu.oauth.exchanges  # refused before Discord was asked
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await web.http.ws_connect(web.url + "/api/ws",
                                  headers={"Origin": "https://evil.example"})
    assert refused.value.status == 403


async def test_every_response_has_the_security_headers(web: WebHarness) -> None:  # noqa: F811
    for path in ("/", "/api/config", "/static/missing.js", "/nowhere"):
        async with web.http.get(web.url + path) as resp:
            csp = resp.headers["Content-Security-Policy"]
            assert resp.headers["X-Content-Type-Options"] == "nosniff"
            assert resp.headers["Referrer-Policy"] == "no-referrer"
        assert "default-src 'self'" in csp and "script-src 'self'" in csp
        assert "img-src 'self' data:" in csp
        assert ("frame-ancestors https://discord.com https://*.discord.com "
                "https://*.discordsays.com") in csp
        assert "wss://web-tests.example" in csp and "unsafe" not in csp
    async with web.http.post(web.url + "/api/token", json={}) as resp:
        assert resp.status == 403 and "Content-Security-Policy" in resp.headers


def test_the_policy_adds_the_test_pages_frame_and_the_hosts_socket() -> None:
    csp = content_security_policy(["https://1.discordsays.com"], ["http://127.0.0.1:9000"],
                                  "board.example:8443")
    assert "frame-ancestors https://discord.com https://*.discord.com " \
           "https://*.discordsays.com http://127.0.0.1:9000" in csp
    assert "connect-src 'self' wss://1.discordsays.com wss://board.example:8443" in csp
    assert "evil" not in content_security_policy([], [], "evil\"; script-src *")


async def test_the_page_and_its_files_and_nothing_else(web: WebHarness,  # noqa: F811
                                                       tmp_path: Path) -> None:
    async with web.http.get(web.url + "/") as resp:
        assert resp.status == 200 and "not built yet" in await resp.text()
    static = web.server.app.static_dir
    (static / "index.html").write_text("<!doctype html><title>Board</title>")
    (static / "app.js").write_text("console.log('board')")
    (static / ".secret").write_text("no")
    (tmp_path / "outside.txt").write_text("outside")
    async with web.http.get(web.url + "/") as resp:
        assert "<title>Board</title>" in await resp.text()
    async with web.http.get(web.url + "/static/app.js") as resp:
        assert resp.status == 200 and resp.content_type == "text/javascript"
    for path in ("/static/../outside.txt", "/static/%2e%2e/outside.txt",
                 "/static/..%2Foutside.txt", "/static/.secret", "/static//etc/passwd"):
        async with web.http.get(web.url + path) as resp:
            assert resp.status == 404, path
            assert "outside" not in await resp.text()


def test_fabletop_run_serves_the_activity_only_with_web_port(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from bot import cli

    seen: list[tuple[Any, ...]] = []

    async def fake_run(settings: Settings, *, sync: bool = False,
                       alongside: tuple[Any, ...] = ()) -> int:
        seen.append(tuple(alongside))
        return 0

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("bot.messages.client.run_bot", fake_run)
    monkeypatch.setenv("DISCORD_TOKEN", "tok")
    for name in ("WEB_PORT", "DISCORD_CLIENT_ID", "DISCORD_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    assert cli.main(["run"]) == 0
    monkeypatch.setenv("WEB_PORT", "8099")
    assert cli.main(["run"]) == 2  # the Activity's settings are missing: said, not run
    monkeypatch.setenv("DISCORD_CLIENT_ID", "123456789012345678")
    monkeypatch.setenv("DISCORD_CLIENT_SECRET", "s")
    assert cli.main(["run"]) == 0
    assert [len(a) for a in seen] == [0, 1]  # the web server's starter, only with WEB_PORT


async def test_a_taken_port_is_said_in_one_line(web: WebHarness) -> None:  # noqa: F811
    from bot import cli

    settings = web_settings(web.emu, WEB_PORT=str(web.server.port))
    start = cli._web_companion(settings)

    class Bot:
        async def can_view_channel(self, *args: Any) -> bool:
            return True

    with pytest.raises(cli._WebRefused, match=r"cannot listen on 127\.0\.0\.1"):
        await start(web.service, Bot())


def test_behind_a_trusted_proxy_the_caller_is_the_address_it_forwarded() -> None:
    """The sign-in limit is per caller: behind a proxy the connection is the proxy's,
    so with WEB_BEHIND_PROXY the last X-Forwarded-For entry (the proxy's own) counts,
    and without it the header is nobody's word."""
    from aiohttp.test_utils import make_mocked_request

    from bot.web.app import WebApp

    request = make_mocked_request("POST", "/api/token", headers={
        "X-Forwarded-For": "203.0.113.9, 198.51.100.7"})
    proxied = WebApp.__new__(WebApp)
    proxied.behind_proxy = True
    direct = WebApp.__new__(WebApp)
    direct.behind_proxy = False
    assert proxied.caller(request) == "198.51.100.7"
    assert direct.caller(request) != "198.51.100.7"
    assert proxied.caller(make_mocked_request("POST", "/api/token")) == direct.caller(
        make_mocked_request("POST", "/api/token"))
