"""Process settings, read from the environment and an optional ``.env`` file.

Every setting is listed with a comment in ``.env.example``; the names below are the
environment variable names (case-insensitive).

>>> s = Settings(_env_file=None, DISCORD_TOKEN="", OWNER_IDS="1, 2")
>>> s.offline, s.owner_ids
(True, [1, 2])
>>> Settings(_env_file=None, SHARD_IDS="0,1", SHARD_COUNT="2").shard_ids
[0, 1]
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import re
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

__all__ = ["Settings", "env_file", "home", "load_settings"]

_LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _int_list(value: Any) -> Any:
    """Accept ``"1,2 3"`` and ranges ``"0-3"`` (what people type in .env files and on
    the command line) as well as real lists.

    >>> _int_list("0-3, 6")
    [0, 1, 2, 3, 6]
    """
    if value is None:
        return []
    if isinstance(value, int):
        return [value]
    if isinstance(value, str):
        parts = value.replace(";", ",").replace(" ", ",").split(",")
        out: list[int] = []
        for part in (p.strip() for p in parts):
            if not part:
                continue
            low, dash, high = part.partition("-")
            if dash and low:
                first, last = int(low), int(high)
                if last < first:
                    raise ValueError(f"the range {part!r} runs backwards")
                out.extend(range(first, last + 1))
            else:
                out.append(int(part))
        return list(dict.fromkeys(out))
    return value


def home() -> Path:
    """The bot's own folder, where its ``.env`` and database live (README, "Settings"):
    the checkout it runs from (the folder with ``pyproject.toml``), or, for an installed
    package (a Docker image), the working directory."""
    checkout = Path(__file__).resolve().parents[2]
    return checkout if (checkout / "pyproject.toml").is_file() else Path.cwd()


def env_file() -> Path | None:
    """The ``.env`` to read: ``FABLETOP_ENV`` if set, else ``./.env`` if there is one,
    else the one in :func:`home` (so ``fabletop run`` finds it from any folder)."""
    named = os.environ.get("FABLETOP_ENV")
    if named:
        return Path(named)
    for candidate in (Path.cwd() / ".env", home() / ".env"):
        if candidate.is_file():
            return candidate
    return None


class Settings(BaseSettings):
    """Everything the bot process can be told. Nothing here is required: with no
    ``DISCORD_TOKEN`` the bot runs the offline console table instead."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        case_sensitive=False,
        extra="ignore",
        populate_by_name=True,
    )

    discord_token: SecretStr | None = Field(default=None, alias="DISCORD_TOKEN")
    """The bot token from the Discord developer portal; empty/absent = offline console."""

    database_path: Path = Field(default=Path("fabletop.db"), alias="DATABASE_PATH")
    """The SQLite file holding every table (created if missing)."""

    database_url: str | None = Field(default=None, alias="DATABASE_URL")
    """``postgresql://user:password@host:port/database``: every table in PostgreSQL,
    shared by several processes on several machines. Unset: the SQLite file
    ``DATABASE_PATH``."""

    max_tables_per_member: int = Field(default=3, alias="MAX_TABLES_PER_MEMBER", ge=0)
    """Open (lobby or playing) tables one member may host in one server (0 = no limit)."""

    max_tables_per_guild: int = Field(default=50, alias="MAX_TABLES_PER_GUILD", ge=0)
    """Open tables one server may have at once (0 = no limit)."""

    idle_seconds: float = Field(default=600.0, alias="IDLE_SECONDS", ge=0)
    """Seconds after which a table nobody uses drops its game state from memory (it is
    read again from the database on its next click)."""

    repost_cooldown: float = Field(default=10.0, alias="REPOST_COOLDOWN", ge=0)
    """Seconds before a member may have the bot post a table's board again (0 = none)."""

    discord_api_base: str | None = Field(default=None, alias="DISCORD_API_BASE")
    """REST base URL (e.g. ``http://127.0.0.1:8787/api/v10``); default: Discord's."""

    discord_gateway_url: str | None = Field(default=None, alias="DISCORD_GATEWAY_URL")
    """Gateway websocket URL (e.g. ``ws://127.0.0.1:8787/gateway``); default: Discord's."""

    owner_ids: Annotated[list[int], NoDecode] = Field(default_factory=list, alias="OWNER_IDS")
    """User ids allowed to run owner commands (/admin ...). Empty: the application owner."""

    dev_guild_id: int | None = Field(default=None, alias="DEV_GUILD_ID")
    """Guild that ``--sync`` and ``/admin sync`` target by default (instant); unset: global."""

    reminder_minutes: float = Field(default=10.0, alias="REMINDER_MINUTES", ge=0)
    """Minutes a turn may wait before the bot pings the player again (0 = never)."""

    ai_budget: int = Field(default=400, alias="AI_BUDGET", ge=1)
    """Search budget of the strongest AI players (MCTS iterations per move)."""

    ai_delay: float = Field(default=1.0, alias="AI_DELAY", ge=0)
    """Seconds an AI waits before moving, so humans can follow the table."""

    render_workers: int | None = Field(default=None, alias="RENDER_WORKERS", ge=0)
    """Worker processes drawing the pictures (unset: one per core; 0: a thread of the
    bot's own process, as on a machine too small for more processes)."""

    shard_count: int | None = Field(default=None, alias="SHARD_COUNT", ge=1)
    """Total number of shards across all processes (unset: one process, no sharding)."""

    shard_ids: Annotated[list[int], NoDecode] = Field(default_factory=list, alias="SHARD_IDS")
    """The shards this process runs (needs SHARD_COUNT); empty: all of them."""

    discord_requests_per_second: float = Field(default=40.0, alias="DISCORD_REQUESTS_PER_SECOND",
                                               gt=0, le=50)
    """Requests a second on the bot token for the whole application, all processes
    together (Discord allows 50; what is left is headroom). Each process of a cluster
    takes its share, by the shards it runs. Answers to clicks and the messages that ride
    on them are not counted: Discord does not count them either."""

    log_level: str = Field(default="INFO", alias="LOG_LEVEL")
    """DEBUG, INFO, WARNING, ERROR or CRITICAL."""

    # -- the Activity (the web front-end, bot/web) ------------------------------------

    web_port: int | None = Field(default=None, alias="WEB_PORT", ge=1, le=65535)
    """The port the Activity's web server listens on; unset: no web server (and no
    "Open the board" button nor Entry Point command)."""

    web_host: str = Field(default="127.0.0.1", alias="WEB_HOST")
    """The address it binds: loopback by default, for the HTTPS reverse proxy or tunnel
    in front of it (Discord only loads an Activity over HTTPS)."""

    discord_client_id: str | None = Field(default=None, alias="DISCORD_CLIENT_ID")
    """The application's OAuth2 client id (the developer portal's OAuth2 page; the
    application id)."""

    discord_client_secret: SecretStr | None = Field(default=None, alias="DISCORD_CLIENT_SECRET")
    """The OAuth2 client secret: used only by the server to exchange the Activity's
    authorization code, never logged, never sent to a browser."""

    web_origins: Annotated[list[str], NoDecode] = Field(default_factory=list,
                                                        alias="WEB_ORIGINS")
    """The Origin values allowed to call the API and open the socket (comma
    separated); empty: ``https://<client id>.discordsays.com``, the Activity's frame."""

    web_frame_ancestors: Annotated[list[str], NoDecode] = Field(
        default_factory=list, alias="WEB_FRAME_ANCESTORS")
    """Pages allowed to frame the Activity besides Discord's own (comma separated; the
    browser tests' page). Discord's are always allowed."""

    web_behind_proxy: bool = Field(default=False, alias="WEB_BEHIND_PROXY")
    """Whether the reverse proxy or tunnel in front of the web server says who is calling
    in ``X-Forwarded-For`` (its last entry, the one the proxy added). The sign-ins are
    limited per caller; behind a proxy every caller's connection comes from the proxy,
    so without this the whole crowd shares one caller's limit. Set it only when the
    server is reachable through that proxy alone (otherwise anyone may write the
    header)."""

    web_session_secret: SecretStr | None = Field(default=None, alias="WEB_SESSION_SECRET")
    """The HMAC key of the web sessions (at least 32 characters); empty: derived from the
    client secret. Every process of a cluster must use the same one."""

    @field_validator("discord_token", mode="before")
    @classmethod
    def _blank_token(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("discord_api_base", "discord_gateway_url", "dev_guild_id",
                     "database_url", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("web_port", "discord_client_id", "discord_client_secret",
                     "web_session_secret", mode="before")
    @classmethod
    def _blank_web(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value.strip() if isinstance(value, str) else value

    @field_validator("web_origins", "web_frame_ancestors", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if value is None:
            return []
        if isinstance(value, str):
            return [p.strip().rstrip("/") for p in value.replace(" ", ",").split(",")
                    if p.strip()]
        return value

    @field_validator("web_origins", "web_frame_ancestors")
    @classmethod
    def _origins_are_origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            # An origin is a scheme and a host (and a port): nothing after it, or the
            # browser's Origin header (which never has a path) could never match.
            if not re.fullmatch(r"https?://[A-Za-z0-9*.-]+(:\d{1,5})?", origin):
                raise ValueError(f"{origin[:80]!r} is not an origin like "
                                 "https://example.com (no path, no trailing slash)")
        return value

    @field_validator("discord_client_id")
    @classmethod
    def _client_id(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d{15,21}", value):
            raise ValueError("DISCORD_CLIENT_ID is the application's numeric id "
                             "(the developer portal, OAuth2 -> Client ID)")
        return value

    @field_validator("shard_count", "render_workers", mode="before")
    @classmethod
    def _blank_count(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value

    @field_validator("owner_ids", "shard_ids", mode="before")
    @classmethod
    def _split_ids(cls, value: Any) -> Any:
        return _int_list(value)

    @field_validator("discord_api_base")
    @classmethod
    def _strip_slash(cls, value: str | None) -> str | None:
        return value.rstrip("/") if value else value

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: Any) -> str:
        level = str(value or "INFO").strip().upper()
        if level not in _LOG_LEVELS:
            raise ValueError(f"LOG_LEVEL must be one of {', '.join(_LOG_LEVELS)}")
        return level

    @model_validator(mode="after")
    def _anchor_database(self) -> Settings:
        # A relative DATABASE_PATH is relative to the folder of the .env that was read
        # (else the bot's home), never to wherever the command happens to be started.
        if not self.database_path.is_absolute() and str(self.database_path) != ":memory:":
            used = env_file()
            base = used.resolve().parent if used is not None else home()
            self.database_path = base / self.database_path
        return self

    @model_validator(mode="after")
    def _shards(self) -> Settings:
        if self.shard_ids and self.shard_count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT (the total number of shards)")
        if self.shard_count is not None:
            bad = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
            if bad:
                raise ValueError(f"SHARD_IDS {bad} are outside 0..{self.shard_count - 1}")
        return self

    @model_validator(mode="after")
    def _activity(self) -> Settings:
        if self.web_port is None:
            return self
        missing = [name for name, value in (("DISCORD_CLIENT_ID", self.discord_client_id),
                                            ("DISCORD_CLIENT_SECRET",
                                             self.discord_client_secret)) if value is None]
        if missing:
            raise ValueError(f"WEB_PORT serves the Activity, which needs {' and '.join(missing)}"
                             " (the developer portal, OAuth2); or leave WEB_PORT empty")
        secret = self.web_session_secret
        if secret is not None and len(secret.get_secret_value()) < 32:
            raise ValueError("WEB_SESSION_SECRET must be at least 32 characters (or leave it "
                             "empty to derive it from DISCORD_CLIENT_SECRET)")
        return self

    @property
    def activity(self) -> bool:
        """Whether the Activity is served: the web server runs, the turn message has an
        "Open the board" button and the Entry Point command is declared."""
        return self.web_port is not None

    @property
    def allowed_origins(self) -> list[str]:
        """WEB_ORIGINS, else the Activity's own frame origin."""
        if self.web_origins:
            return list(self.web_origins)
        if self.discord_client_id is None:
            return []
        return [f"https://{self.discord_client_id}.discordsays.com"]

    def session_key(self) -> bytes:
        """The HMAC key of the web sessions: WEB_SESSION_SECRET, else one derived from the
        client secret (an HMAC of a fixed label, so the secret itself never signs
        anything and the same secret gives every process the same key)."""
        if self.web_session_secret is not None:
            return self.web_session_secret.get_secret_value().encode()
        if self.discord_client_secret is None:
            raise RuntimeError("no DISCORD_CLIENT_SECRET to derive the session key from")
        return hmac.new(self.discord_client_secret.get_secret_value().encode(),
                        b"fabletop web sessions v1", hashlib.sha256).digest()

    @property
    def offline(self) -> bool:
        """True when there is no token: the CLI starts the console table instead."""
        return self.discord_token is None

    @property
    def token(self) -> str:
        if self.discord_token is None:
            raise RuntimeError("DISCORD_TOKEN is not set")
        return self.discord_token.get_secret_value()

    @field_validator("database_url")
    @classmethod
    def _postgres_only(cls, value: str | None) -> str | None:
        if value and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("DATABASE_URL must start with postgresql:// (for SQLite, set "
                             "DATABASE_PATH instead)")
        return value

    @property
    def database(self) -> str:
        """Where the tables live: the PostgreSQL URL if set, else the SQLite path."""
        return self.database_url or str(self.database_path)

    @property
    def sharded(self) -> bool:
        return self.shard_count is not None

    @property
    def requests_share(self) -> float:
        """This process's share of :attr:`discord_requests_per_second`: in a cluster, in
        proportion to the shards it runs (``SHARD_IDS`` of ``SHARD_COUNT``)."""
        if not self.sharded or not self.shard_ids or not self.shard_count:
            return self.discord_requests_per_second
        return self.discord_requests_per_second * len(self.shard_ids) / self.shard_count

    @property
    def syncs_commands(self) -> bool:
        """Whether this process may publish the slash commands: in a cluster only the
        one that runs shard 0 does, so several processes started with ``--sync`` sync
        once, not once each (Discord rate-limits syncing)."""
        return not self.sharded or not self.shard_ids or 0 in self.shard_ids

    @property
    def log_level_number(self) -> int:
        return logging.getLevelNamesMapping()[self.log_level]


def load_settings(**overrides: Any) -> Settings:
    """Settings from the environment and :func:`env_file`; ``overrides`` win (CLI
    flags)."""
    return Settings(_env_file=env_file(), **overrides)  # type: ignore[call-arg]
