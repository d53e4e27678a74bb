"""The ``fabletop`` command line, the settings it reads, and the bot's construction."""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord
import pytest
import yarl
from discord.gateway import DiscordWebSocket
from pydantic import ValidationError

from bot import cli
from bot.core.settings import Settings
from bot.messages.client import (
    FabletopBot,
    ShardedFabletopBot,
    apply_discord_endpoints,
    create_bot,
    intents,
    sync_commands_once,
)
from tests.discord_fakes import GUILD_ID, FakeDiscord

ROOT = Path(__file__).resolve().parents[1]
ENV_NAMES = [f.alias for f in Settings.model_fields.values()]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No real .env and no inherited settings leak into these tests."""
    monkeypatch.chdir(tmp_path)
    for name in ENV_NAMES:
        monkeypatch.delenv(name, raising=False)


def fake_module(monkeypatch: pytest.MonkeyPatch, name: str, calls: list[Any]) -> None:
    module = types.ModuleType(name)

    def main(argv: list[str]) -> int:
        calls.append((name, argv))
        return 0

    module.main = main  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, name, module)


# --------------------------------------------------------------------------- settings


def test_env_example_lists_every_setting_with_a_comment() -> None:
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    keys = re.findall(r"^([A-Z_]+)=", text, flags=re.M)
    assert sorted(keys) == sorted(ENV_NAMES)
    lines = text.splitlines()
    for key in keys:
        index = next(i for i, line in enumerate(lines) if line.startswith(f"{key}="))
        while re.match(r"^[A-Z_]+=", lines[index - 1]):  # a group of keys under one comment
            index -= 1
        assert lines[index - 1].startswith("#"), f"{key} has no comment above it"
    # the example file loads as it is
    Settings(_env_file=ROOT / ".env.example")


def test_settings_defaults_and_parsing() -> None:
    s = Settings(_env_file=None)
    # A relative database path is anchored at the .env's folder or the bot's home.
    assert s.offline and s.database_path.name == "fabletop.db" and s.database_path.is_absolute()
    assert s.owner_ids == [] and s.shard_ids == [] and not s.sharded
    s = Settings(_env_file=None, DISCORD_TOKEN=" abc ", OWNER_IDS="1, 2;3", DEV_GUILD_ID="",
                 SHARD_COUNT="4", SHARD_IDS="0 2", LOG_LEVEL="debug", AI_BUDGET="50")
    assert not s.offline and s.token.strip() == "abc"
    assert s.owner_ids == [1, 2, 3] and s.dev_guild_id is None
    assert s.shard_ids == [0, 2] and s.sharded and s.log_level == "DEBUG"
    assert s.ai_budget == 50
    assert "abc" not in repr(s)  # the token is a secret
    assert Settings(_env_file=None).render_workers is None  # one per core
    assert Settings(_env_file=None, RENDER_WORKERS="").render_workers is None
    assert Settings(_env_file=None, RENDER_WORKERS="0").render_workers == 0


def test_settings_come_from_the_env_file(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=tok\nREMINDER_MINUTES=3\nOWNER_IDS=7\n")
    s = Settings()
    assert s.token == "tok" and s.reminder_minutes == 3 and s.owner_ids == [7]


@pytest.mark.parametrize(
    "bad",
    [
        {"SHARD_IDS": "1"},
        {"SHARD_COUNT": "2", "SHARD_IDS": "5"},
        {"LOG_LEVEL": "LOUD"},
        {"REMINDER_MINUTES": "-1"},
        {"AI_BUDGET": "0"},
        {"OWNER_IDS": "me"},
        {"RENDER_WORKERS": "-1"},
    ],
)
def test_bad_settings_are_refused(bad: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        Settings(_env_file=None, **bad)


def test_discord_endpoints_can_be_redirected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(DiscordWebSocket, "DEFAULT_GATEWAY", DiscordWebSocket.DEFAULT_GATEWAY)
    apply_discord_endpoints(Settings(_env_file=None))
    assert discord.http.Route.BASE == "https://discord.com/api/v10"
    apply_discord_endpoints(Settings(
        _env_file=None,
        DISCORD_API_BASE="http://127.0.0.1:8787/api/v10/",
        DISCORD_GATEWAY_URL="ws://127.0.0.1:8787/gateway",
    ))
    assert discord.http.Route.BASE == "http://127.0.0.1:8787/api/v10"
    assert discord.http.Route("GET", "/users/@me").url == "http://127.0.0.1:8787/api/v10/users/@me"
    assert yarl.URL("ws://127.0.0.1:8787/gateway") == DiscordWebSocket.DEFAULT_GATEWAY


# --------------------------------------------------------------------------- the bot


def test_intents_are_minimal_and_unprivileged() -> None:
    i = intents()
    assert i.guilds
    assert not (i.members or i.presences or i.message_content or i.messages)


def test_sharding_picks_the_bot_class() -> None:
    plain = create_bot(Settings(_env_file=None))
    assert type(plain) is FabletopBot and plain.shard_count is None
    one = create_bot(Settings(_env_file=None, SHARD_COUNT="4", SHARD_IDS="2"))
    assert type(one) is FabletopBot and (one.shard_id, one.shard_count) == (2, 4)
    many = create_bot(Settings(_env_file=None, SHARD_COUNT="4", SHARD_IDS="0,1"))
    assert isinstance(many, ShardedFabletopBot)
    assert (many.shard_ids, many.shard_count) == ([0, 1], 4)


async def test_sync_once_publishes_every_command(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeDiscord()
    monkeypatch.setattr(discord.http.HTTPClient, "request",
                        lambda self, route, **kw: fake.http_request(route, **kw))
    settings = Settings(_env_file=None, DISCORD_TOKEN="tok", DATABASE_PATH="sync.db")
    assert await sync_commands_once(settings, guild_id=GUILD_ID) == 0
    syncs = [s for s in fake.sent if s.kind == "sync"]
    assert len(syncs) == 1 and f"/guilds/{GUILD_ID}/commands" in syncs[0].path
    names = {c["name"] for c in syncs[0].payload["commands"]}
    assert {"table", "hand", "rules", "help", "inn", "admin"} <= names


async def test_sync_once_reports_a_bad_token(monkeypatch: pytest.MonkeyPatch) -> None:
    async def refuse(self: Any, route: Any, **kw: Any) -> Any:
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(discord.http.HTTPClient, "request", refuse)
    settings = Settings(_env_file=None, DISCORD_TOKEN="bad")
    assert await sync_commands_once(settings, guild_id=None) == 1


# --------------------------------------------------------------------------- the CLI


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2
    assert "run" in capsys.readouterr().out


def test_help_lists_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for word in ("run", "sync", "play", "selfplay"):
        assert word in out


def test_help_lists_the_data_commands_quickly(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["backup", "--help"], ["export-db", "--help"],
                 ["import-db", "--help"]):
        with pytest.raises(SystemExit) as exc:
            cli.main(argv)
        assert exc.value.code == 0
    out = capsys.readouterr().out
    for word in ("backup", "export-db", "import-db", "--to TARGET", "--from SOURCE",
                 "--drop-undelivered", "pg_dump"):
        assert word in out, word
    # The data commands import their modules only when they run.
    import subprocess

    code = ("import sys, bot.cli; sys.exit(any(m in sys.modules for m in "
            "('bot.core.store', 'bot.core.store.transfer', 'bot.core.tables', 'sqlite3', "
            "'asyncpg')))")
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_play_and_selfplay_forward_their_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    fake_module(monkeypatch, "bot.console.table", calls)
    fake_module(monkeypatch, "bot.selfplay", calls)
    assert cli.main(["play", "fairy-tale-inn", "--ai", "mcts"]) == 0
    assert cli.main(["selfplay", "--help"]) == 0
    assert calls == [
        ("bot.console.table", ["fairy-tale-inn", "--ai", "mcts"]),
        ("bot.selfplay", ["--help"]),
    ]


def test_run_without_a_token_starts_the_console(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[Any] = []
    fake_module(monkeypatch, "bot.console.table", calls)
    assert cli.main(["run"]) == 0
    assert calls == [("bot.console.table", [])]
    assert "offline console" in capsys.readouterr().err


def test_run_with_a_token_runs_the_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []

    async def fake_run(settings: Settings, *, sync: bool = False) -> int:
        seen.append((settings.token, sync))
        return 0

    monkeypatch.setattr("bot.messages.client.run_bot", fake_run)
    monkeypatch.setenv("DISCORD_TOKEN", "tok")
    assert cli.main(["run", "--sync"]) == 0
    assert cli.main(["run"]) == 0
    assert seen == [("tok", True), ("tok", False)]


def test_sync_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int | None] = []

    async def fake_sync(settings: Settings, *, guild_id: int | None) -> int:
        seen.append(guild_id)
        return 0

    monkeypatch.setattr("bot.messages.client.sync_commands_once", fake_sync)
    monkeypatch.setenv("DISCORD_TOKEN", "tok")
    monkeypatch.setenv("DEV_GUILD_ID", "42")
    assert cli.main(["sync"]) == 0
    assert cli.main(["sync", "--guild", "7"]) == 0
    assert cli.main(["sync", "--global"]) == 0
    assert seen == [42, 7, None]


def test_sync_needs_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sync"]) == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err


def test_bad_settings_exit_cleanly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LOG_LEVEL", "LOUD")
    assert cli.main(["run"]) == 2
    assert "LOG_LEVEL" in capsys.readouterr().err


async def test_every_command_fits_discords_limits() -> None:
    """Discord refuses a whole sync if one command breaks a limit: check them all."""
    from bot.messages.client import cogs

    bot = create_bot(Settings(_env_file=None), commands_only=True)
    for cog in cogs():
        await bot.load_extension(cog)
    payloads = [c.to_dict(bot.tree) for c in bot.tree.get_commands()]
    assert len(payloads) <= 100

    def check(item: dict[str, Any], depth: int) -> None:
        assert re.fullmatch(r"[-_a-z0-9]{1,32}", item["name"]), item["name"]
        assert 1 <= len(item.get("description", "x")) <= 100, item["name"]
        options = item.get("options") or []
        assert len(options) <= 25
        for choice in item.get("choices") or []:
            assert 1 <= len(choice["name"]) <= 100
        for option in options:
            check(option, depth + 1)
        assert depth <= 3

    for payload in payloads:
        check(payload, 0)
        total = len(str(payload))
        assert total < 8000, payload["name"]


def test_doctests_of_the_bot_modules() -> None:
    import doctest

    import bot.core.settings
    import bot.messages.cogs.common
    import bot.messages.ui.ids

    for module in (bot.core.settings, bot.messages.ui.ids, bot.messages.cogs.common):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__


async def test_a_broken_cog_does_not_stop_the_others(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.messages.client

    client = bot.messages.client
    monkeypatch.setattr(client, "CORE_COGS", ("bot.messages.cogs.no_such_cog", *client.CORE_COGS))
    b = create_bot(Settings(_env_file=None), commands_only=True)
    await b.load_cogs()
    assert b.tree.get_command("table") is not None and b.tree.get_command("inn") is not None


def test_env_and_database_are_found_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.core.settings import env_file, home, load_settings

    project = tmp_path / "bot-home"
    project.mkdir()
    (project / ".env").write_text("DATABASE_PATH=games.db\nREMINDER_MINUTES=7\n")
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    monkeypatch.delenv("DATABASE_PATH", raising=False)
    monkeypatch.delenv("REMINDER_MINUTES", raising=False)
    # Started in the bot's folder: its .env, and the database beside it.
    monkeypatch.chdir(project)
    s = load_settings()
    assert env_file() == project / ".env"
    assert s.database_path == project / "games.db" and s.reminder_minutes == 7
    # Started anywhere else with FABLETOP_ENV naming it: the same file, the same database.
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("FABLETOP_ENV", str(project / ".env"))
    assert load_settings().database_path == project / "games.db"
    # No .env anywhere: the default database is in the bot's home, not in the cwd.
    monkeypatch.delenv("FABLETOP_ENV")
    if not (home() / ".env").is_file():
        assert load_settings().database_path == home() / "fabletop.db"


@pytest.fixture
def process_wide_state() -> Iterator[None]:
    """run_bot sets process-wide things (discord.py's endpoints, the collector's
    thresholds and callbacks, voice warnings): put them back for the tests after."""
    import gc

    import discord.http
    from discord.gateway import DiscordWebSocket

    saved = (discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY, gc.get_threshold(),
             list(gc.callbacks))
    yield
    discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved[0], saved[1]
    gc.set_threshold(*saved[2])
    gc.callbacks[:] = saved[3]


@pytest.mark.usefixtures("process_wide_state")
async def test_an_unreachable_discord_or_a_refused_token_is_one_plain_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.messages.client import run_bot
    from tests.emulator import Emulator

    # Nothing listens on port 9 of this machine: the connection is refused at once.
    down = Settings(_env_file=None, DISCORD_TOKEN="a.b.c", DATABASE_PATH=tmp_path / "a.db",
                    DISCORD_API_BASE="http://127.0.0.1:9/api/v10",
                    DISCORD_GATEWAY_URL="ws://127.0.0.1:9/gateway", RENDER_WORKERS=0)
    assert await run_bot(down) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fabletop: cannot reach Discord at")
    assert "DISCORD_API_BASE" in err[0] and "Traceback" not in err[0]
    async with Emulator() as emu:
        wrong = Settings(_env_file=None, DISCORD_TOKEN="not-" + emu.token,
                         DATABASE_PATH=tmp_path / "b.db", DISCORD_API_BASE=emu.api_base,
                         DISCORD_GATEWAY_URL=emu.gateway_url, RENDER_WORKERS=0)
        assert await run_bot(wrong) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "fabletop: Discord refused the token. Reset it in the developer portal (your "
        "application -> Bot -> Reset Token) and paste it after DISCORD_TOKEN= in your .env."
    ]


# --------------------------------------------------------------------------- --version


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_package_version(flag: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exc:
        cli.main([flag])
    assert exc.value.code == 0
    assert capsys.readouterr().out == f"fabletop {version('fabletop')}\n"


def test_version_of_a_checkout_that_was_never_installed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata
    import tomllib

    def not_installed(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert cli.version() == declared


def test_version_and_help_stay_fast() -> None:
    """--version answers without the bot, the games or Discord."""
    import subprocess

    code = ("import sys, bot.cli\n"
            "try:\n    bot.cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
            "sys.exit(any(m in sys.modules for m in ('bot.core.tables', 'engines', 'discord', "
            "'bot.console.table')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0 and done.stdout.startswith("fabletop ")


def test_play_help_is_forwarded_and_lists_the_games(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play", "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: fabletop play")
    for game_id in ("fairy-tale-inn", "treasure", "winter-tales", "crossroads-inn", "pocket"):
        assert f"\n  {game_id} " in out
    assert "AI levels: random, greedy, mcts" in out and "examples:" in out
