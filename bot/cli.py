"""The ``fabletop`` command line (declared in pyproject as ``fabletop = bot.cli:main``).

::

    fabletop run [--sync]          # the Discord bot; with no DISCORD_TOKEN, the console table
    fabletop run --shard-ids 0-3 --shard-count 8   # one process of a cluster
    fabletop sync [--guild ID]     # publish the slash commands, then exit
    fabletop play <game> [...]     # the offline console table (bot.console)
    fabletop selfplay ...          # AI-vs-AI games with statistics (bot.selfplay)
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import sys
from collections.abc import Sequence

from pydantic import ValidationError

__all__ = ["build_parser", "main"]

log = logging.getLogger("fabletop")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fabletop",
        description="Fabletop: fairy-tale tabletop games in Discord channels.",
    )
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
    from bot.settings import load_settings

    return load_settings(**overrides)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    # play/selfplay own their whole argument list (including --help).
    if args_list and args_list[0] in ("play", "selfplay"):
        target = "bot.console" if args_list[0] == "play" else "bot.selfplay"
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
            return _forward("bot.console", [])
        from bot.client import run_bot

        try:
            return asyncio.run(run_bot(settings, sync=args.sync))
        except KeyboardInterrupt:  # Ctrl-C: the database is consistent after every move
            return 0

    if args.command == "sync":
        if settings.offline:
            print("fabletop sync needs DISCORD_TOKEN (see .env.example).", file=sys.stderr)
            return 2
        from bot.client import sync_commands_once

        guild = None if args.global_ else (args.guild or settings.dev_guild_id)
        return asyncio.run(sync_commands_once(settings, guild_id=guild))

    parser.print_help()  # unreachable: argparse rejects unknown commands
    return 2


if __name__ == "__main__":  # pragma: no cover - `python -m bot.cli`
    raise SystemExit(main())
