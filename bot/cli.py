"""The ``fabletop`` command line (declared in pyproject as ``fabletop = bot.cli:main``).

::

    fabletop run [--sync]          # the Discord bot; with no DISCORD_TOKEN, the console table
    fabletop run --shard-ids 0-3 --shard-count 8   # one process of a cluster
    fabletop sync [--guild ID]     # publish the slash commands, then exit
    fabletop play <game> [...]     # the offline console table (bot.console.table)
    fabletop selfplay ...          # AI-vs-AI games with statistics (bot.selfplay)
    fabletop backup [FILE]         # a consistent copy of the SQLite database, bot running
    fabletop export-db --to TARGET # copy every table to PostgreSQL (or another SQLite file)
    fabletop import-db --from SRC  # copy every table of SRC into the configured database
    fabletop --version             # fabletop 0.1.0

Every import that is not needed to parse the arguments happens in the command that
needs it, so ``fabletop --help`` answers at once.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

if TYPE_CHECKING:  # the store is imported by the commands that use it (fast --help)
    from bot.core.store import Store

__all__ = ["build_parser", "main", "version"]

log = logging.getLogger("fabletop")


def version() -> str:
    """The installed package's version; from a checkout that was never installed, the
    version pyproject.toml declares (``unknown`` if neither can be read)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("fabletop")
    except PackageNotFoundError:
        pass
    import tomllib

    try:
        data = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml")
                             .read_text(encoding="utf-8"))
        return str(data["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fabletop",
        description="Fabletop: fairy-tale tabletop games in Discord channels.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"fabletop {version()}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    run = sub.add_parser(
        "run",
        help="start the Discord bot (the offline console table when DISCORD_TOKEN is unset)",
    )
    run.add_argument(
        "--sync",
        action="store_true",
        help="publish the slash commands once connected (to DEV_GUILD_ID if set); in a "
        "cluster only the process running shard 0 does",
    )
    run.add_argument(
        "--shard-count",
        type=int,
        default=None,
        metavar="N",
        help="cluster mode: the total number of shards across every process (SHARD_COUNT)",
    )
    run.add_argument(
        "--shard-ids",
        default=None,
        metavar="IDS",
        help="cluster mode: the shards this process runs, e.g. 0-3 or 0,2 (SHARD_IDS; "
        "needs --shard-count); the processes share one PostgreSQL database (DATABASE_URL)",
    )

    sync = sub.add_parser("sync", help="publish the slash commands to Discord, then exit")
    sync.add_argument(
        "--guild",
        type=int,
        default=None,
        metavar="ID",
        help="a guild to sync to (instant); default DEV_GUILD_ID, else global",
    )
    sync.add_argument(
        "--global",
        dest="global_",
        action="store_true",
        help="sync globally even if DEV_GUILD_ID is set",
    )

    backup = sub.add_parser(
        "backup",
        help="copy the SQLite database to a file, safely while the bot runs",
        description="A consistent copy of DATABASE_PATH through SQLite's online backup "
        "(the bot may keep running). With DATABASE_URL set, prints the pg_dump command.",
    )
    backup.add_argument(
        "file", nargs="?", default=None, metavar="FILE",
        help="where to write it (default backups/fabletop-YYYYmmdd-HHMMSS.db)",
    )

    drop_help = ("leave behind announcements not yet delivered to Discord (else the copy "
                 "is refused while there are any)")
    export = sub.add_parser(
        "export-db",
        help="copy every table to another database (PostgreSQL or SQLite), then check it",
        description="Copy every table, action, event, hand and turn message of the "
        "configured database into the empty TARGET, then replay every copied table. "
        "Stop the bot first: moves made after the copy stay behind.",
    )
    export.add_argument("--to", dest="target", required=True, metavar="TARGET",
                        help="a postgresql:// URL or a SQLite file path")
    export.add_argument("--drop-undelivered", action="store_true", help=drop_help)
    import_ = sub.add_parser(
        "import-db",
        help="copy every table of another database into the configured one, then check it",
        description="Copy every table of SOURCE into the configured (empty) database "
        "(DATABASE_URL, else DATABASE_PATH), then replay every copied table.",
    )
    import_.add_argument("--from", dest="source", required=True, metavar="SOURCE",
                         help="a postgresql:// URL or a SQLite file path")
    import_.add_argument("--drop-undelivered", action="store_true", help=drop_help)

    # These two forward their arguments untouched to the modules that own them.
    sub.add_parser("play", help="play a game at the offline console table", add_help=False)
    sub.add_parser("selfplay", help="AI-vs-AI games with statistics", add_help=False)
    return parser


def _forward(module_name: str, argv: list[str]) -> int:
    module = importlib.import_module(module_name)
    result = module.main(argv)
    return int(result or 0)


def _configure_logging(level: int) -> None:
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)-7s %(name)s: %(message)s",
    )
    # discord.py's gateway chatter at DEBUG is rarely what an operator wants.
    logging.getLogger("discord").setLevel(max(level, logging.INFO))


def _settings(**overrides: object):  # -> Settings (imported lazily: fast --help)
    from bot.core.settings import load_settings

    return load_settings(**overrides)


# -- backup and moving the database ----------------------------------------------


def _size(n: int) -> str:
    """``812 bytes``, ``1.4 MB``."""
    if n < 1024:
        return f"{n} bytes"
    value = float(n)
    for unit in ("kB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def _backup(settings: Any, file: str | None) -> int:
    from bot.core.store import StoreError
    from bot.core.store.backup import backup_sqlite, default_backup_path, pg_dump_command

    if settings.database_url:
        dump = Path(file) if file else default_backup_path().with_suffix(".dump")
        print("fabletop backup copies a SQLite database; this one is PostgreSQL "
              "(DATABASE_URL). Back it up with pg_dump:\n"
              f"  {pg_dump_command(settings.database_url, dump)}\n"
              "(restore with pg_restore --clean --dbname=URL FILE)", file=sys.stderr)
        return 2
    target = Path(file) if file else default_backup_path()
    try:
        result = asyncio.run(backup_sqlite(settings.database_path, target))
    except StoreError as exc:
        print(f"fabletop backup: {exc}", file=sys.stderr)
        return 2
    print(f"{result.path} ({_size(result.size)}, {result.tables} table(s))")
    return 0


def _same_database(a: str, b: str) -> bool:
    from bot.core.store.factory import is_postgres

    if is_postgres(a) or is_postgres(b):
        return a.rstrip("/") == b.rstrip("/")
    return Path(a).resolve() == Path(b).resolve()


def _progress(what: str) -> Callable[[int, int, str], None] | None:
    """A progress line on a terminal; nothing in a log or a pipe."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, table_id: str) -> None:
        end = "\n" if done == total else ""
        print(f"\r{what} {done}/{total} table(s)", end=end, file=sys.stderr, flush=True)

    return show


class _Refused(Exception):
    """A transfer that cannot go on; the message is the one line to print."""


# -- the Activity beside the bot ------------------------------------------------------


class _WebRefused(Exception):
    """The Activity's web server could not start; the message is the one line to print."""


def _web_companion(settings: Any) -> Callable[..., Any]:
    """What starts the Activity's web server beside the Discord front-end, on the bot's
    own table service and in its event loop (the bot calls it once the service is open).
    The two front-ends meet only here: bot.web imports nothing of bot.messages, and the
    bot checks who may see a channel for the web server (``can_view_channel``)."""

    async def start(service: Any, bot: Any) -> Callable[[], Any]:
        from bot.web.server import WebServer

        server = WebServer.from_settings(settings, service, access=bot.can_view_channel)
        try:
            await server.start()
        except OSError as exc:
            raise _WebRefused(f"fabletop: the Activity's web server cannot listen on "
                              f"{settings.web_host}:{settings.web_port} ({exc.strerror or exc})."
                              " Pick another WEB_PORT, or stop what uses that one.") from exc
        return server.stop

    return start


async def _open(target: str, role: str) -> Store:
    """The open store at ``target``, or :class:`_Refused` saying why not in one line."""
    from bot.core.store.factory import is_postgres, store_for
    from bot.core.store.transfer import redact_password

    if role == "source" and not is_postgres(target) and not Path(target).is_file():
        raise _Refused(f"no SQLite database at {target}")
    try:
        store = store_for(target)  # inside: a missing driver is a refusal too
        await store.open()
    except Exception as exc:  # any driver's connection error: one line, not a traceback
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise _Refused(f"cannot open the {role} {redact_password(target)}: {reason}") from exc
    return store


async def _transfer(source: str, target: str, *, drop_undelivered: bool) -> int:
    """Copy ``source`` into ``target``, compare them, replay every table of the target;
    print the counts and what is wrong. 0: a good copy; 1: a table differs or does not
    replay; 2: refused (nothing or only whole tables written)."""
    from bot.core.store import StoreError
    from bot.core.store.transfer import compare_stores, copy_store, redact_password
    from bot.core.tables.audit import audit_store

    if _same_database(source, target):
        raise _Refused("the source and the target are the same database")
    src = await _open(source, "source")
    try:
        dst = await _open(target, "target")
        try:
            try:
                copied = await copy_store(src, dst, progress=_progress("copied"),
                                          drop_undelivered=drop_undelivered)
                differences = await compare_stores(src, dst)
                audit = await audit_store(dst, progress=_progress("replayed"))
            except StoreError as exc:
                raise _Refused(" ".join(str(exc).split())) from exc
        finally:
            await dst.close()
    finally:
        await src.close()

    print(f"copied {copied.summary()}\n  from {redact_password(source)}\n"
          f"  to   {redact_password(target)}")
    if differences:
        print("the copy differs from the source:")
        for line in differences:
            print(f"  {line}")
    else:
        print("the copy is identical to the source")
    print(f"replayed every table of the target: {audit.summary()}")
    for m in audit.mismatches:
        print(f"  table {m.table_id}: {m.reason}")
    if audit.mismatches and not differences:
        print("  (the copy is identical: these tables were so in the source already)")
    return 1 if differences or not audit.ok else 0


def _run_transfer(source: str, target: str, *, drop_undelivered: bool, command: str) -> int:
    try:
        return asyncio.run(_transfer(source, target, drop_undelivered=drop_undelivered))
    except _Refused as exc:
        print(f"fabletop {command}: {exc}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    # play/selfplay own their whole argument list (including --help).
    if args_list and args_list[0] in ("play", "selfplay"):
        target = "bot.console.table" if args_list[0] == "play" else "bot.selfplay"
        return _forward(target, args_list[1:])

    parser = build_parser()
    args = parser.parse_args(args_list)
    if args.command is None:
        parser.print_help()
        return 2

    overrides: dict[str, object] = {}
    if args.command == "run":
        if args.shard_count is not None:
            overrides["SHARD_COUNT"] = args.shard_count
        if args.shard_ids is not None:
            overrides["SHARD_IDS"] = args.shard_ids
    try:
        settings = _settings(**overrides)
    except ValidationError as exc:
        print(f"fabletop: bad settings (check your .env):\n{exc}", file=sys.stderr)
        return 2
    _configure_logging(settings.log_level_number)

    if args.command == "run":
        if settings.offline:
            print(
                "DISCORD_TOKEN is not set: starting the offline console table.\n"
                "(Set DISCORD_TOKEN in .env to run the Discord bot; see README.md.)",
                file=sys.stderr,
            )
            return _forward("bot.console.table", [])
        from bot.messages.client import run_bot

        # WEB_PORT set: the Activity's web server runs in this process too; else not.
        extra = {"alongside": (_web_companion(settings),)} if settings.activity else {}
        try:
            return asyncio.run(run_bot(settings, sync=args.sync, **extra))
        except KeyboardInterrupt:  # Ctrl-C: the database is consistent after every move
            return 0
        except _WebRefused as exc:
            print(exc, file=sys.stderr)
            return 2

    if args.command == "sync":
        if settings.offline:
            print("fabletop sync needs DISCORD_TOKEN (see .env.example).", file=sys.stderr)
            return 2
        from bot.messages.client import sync_commands_once

        guild = None if args.global_ else (args.guild or settings.dev_guild_id)
        return asyncio.run(sync_commands_once(settings, guild_id=guild))

    if args.command == "backup":
        return _backup(settings, args.file)

    if args.command == "export-db":
        return _run_transfer(settings.database, args.target, command="export-db",
                             drop_undelivered=args.drop_undelivered)

    if args.command == "import-db":
        return _run_transfer(args.source, settings.database, command="import-db",
                             drop_undelivered=args.drop_undelivered)

    parser.print_help()  # unreachable: argparse rejects unknown commands
    return 2


if __name__ == "__main__":  # pragma: no cover - `python -m bot.cli`
    raise SystemExit(main())
