"""The offline console table: play a Fabletop game in a terminal.

It drives the very same :class:`bot.tables.TableService` as the Discord bot (SQLite
file, versions, AI seats, outboxes), so a console game is a real table: quit with
``q`` and run the command again to resume it. ::

    fabletop play fairy-tale-inn                 # you against the strongest AI
    fabletop play fairy-tale-inn --hotseat       # two people sharing the keyboard
    fabletop play fairy-tale-inn --ai-level greedy --names Ann --seed 7
    fabletop play                                # pick a game and a mode from menus

Each turn prints a text board and writes the board image (``board.png`` in the data
directory, from the public view), lists the legal moves numbered, and reads the number
of a move from stdin (``b`` board, ``l`` log, ``h`` help, ``q`` save and quit). Works
with piped stdin: end of input saves and quits.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from bot.tables import (
    EngineAgents,
    Outbox,
    TableError,
    TableInfo,
    TableService,
    TableStatus,
    UserError,
)
from bot.ui.games import get_ui
from renderers.text import text_board

__all__ = ["main"]

CONSOLE_CHANNEL = 1
"""The console's one "channel": at most one unfinished console table per data dir."""
CONSOLE_GUILD = None
_HELP = (
    "Type the number of a move and press Enter.\n"
    "  b  show the board again    l  show the game log\n"
    "  h  this help               q  save and quit (run the same command to resume)"
)


def default_data_dir() -> Path:
    """``$FABLETOP_DATA_DIR``, else ``$XDG_DATA_HOME/fabletop``, else ~/.local/share/fabletop."""
    env = os.environ.get("FABLETOP_DATA_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "fabletop"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fabletop play",
        description="Play a Fabletop game at the offline console table.",
        epilog=_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", nargs="?", help="game id (omit to choose from a menu)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--ai", dest="mode", action="store_const", const="ai",
                      help="play against AI seats (default when not asked)")
    mode.add_argument("--hotseat", dest="mode", action="store_const", const="hotseat",
                      help="every seat is a person at this keyboard")
    parser.add_argument("--players", type=int, default=None,
                        help="number of seats (default: the game's smallest table, at least 2)")
    parser.add_argument("--ai-level", default=None, help="AI level (default: the strongest)")
    parser.add_argument("--ai-budget", type=int, default=None,
                        help="search budget of the strongest AI (MCTS iterations)")
    parser.add_argument("--names", default=None,
                        help="comma-separated names of the human players")
    parser.add_argument("--seed", type=int, default=None, help="seed (default: random)")
    parser.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option (repeatable)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, default=None,
                       help=f"where the SQLite file and board.png live "
                            f"(default: {default_data_dir()})")
    where.add_argument("--temp", action="store_true",
                       help="use a throw-away temporary directory")
    parser.add_argument("--new", action="store_true",
                        help="abandon an unfinished console game instead of resuming it")
    parser.add_argument("--no-png", action="store_true", help="do not write board images")
    return parser


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UserError(f"Options look like name=value, not {pair!r}.")
        options[key.strip()] = _parse_value(value.strip())
    return options


class Console:
    """One console session over a service; reads ``stdin``, writes ``out``."""

    def __init__(self, service: TableService, args: argparse.Namespace, data_dir: Path,
                 stdin: TextIO, out: TextIO) -> None:
        self.service = service
        self.args = args
        self.data_dir = data_dir
        self.stdin = stdin
        self.out = out
        self.png_problem: str | None = "disabled" if args.no_png else None
        self.table_id: str | None = None

    # -- io --------------------------------------------------------------------

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    async def ask(self, prompt: str) -> str | None:
        """One line of input, or None at end of input."""
        self.out.write(prompt)
        self.out.flush()
        line = await asyncio.to_thread(self.stdin.readline)
        if line == "":
            self.say()
            return None
        if not self.stdin.isatty():
            self.out.write(line if line.endswith("\n") else line + "\n")  # readable transcripts
        return line.strip()

    async def choose(self, title: str, items: list[str]) -> int | None:
        """Index of a numbered menu choice (re-asks on bad input; None at end of input)."""
        self.say(title)
        for i, item in enumerate(items, 1):
            self.say(f"  {i:>2}. {item}")
        while True:
            answer = await self.ask("> ")
            if answer is None or answer.lower() in ("q", "quit"):
                return None
            if answer.isdigit() and 1 <= int(answer) <= len(items):
                return int(answer) - 1
            self.say(f"Please type a number from 1 to {len(items)}.")

    # -- output of the service --------------------------------------------------

    def show_outbox(self, outbox: Outbox, *, for_user: int | None = None) -> None:
        if outbox.public is not None:
            for line in outbox.public.text.splitlines():
                self.say(f"  {line}")
        for update in outbox.private:
            # Hot seat: everyone shares the screen, so only the acting player's own
            # private news is printed (right after their move, while they still look).
            if for_user is not None and update.user_id == for_user:
                for line in update.lines:
                    self.say(f"  (only you) {line}")

    def on_outbox(self, outbox: Outbox) -> None:
        """Listener: AI moves made in the background."""
        if outbox.table_id == self.table_id:
            self.show_outbox(outbox)

    async def show_board(self, info: TableInfo, user_id: int | None) -> None:
        service = self.service
        names = {s.index: s.name for s in info.seats}

        def name(seat: int) -> str:
            return names.get(seat, f"Seat {seat + 1}")

        humans = [s for s in info.seats if not s.is_ai]
        # With one human the screen is theirs; in hot seat everyone sees it: public only.
        if user_id is not None and len(humans) == 1:
            view = await service.private_view(info.id, user_id)
        else:
            view = await service.public_view(info.id)
        self.say()
        self.say(text_board(info.game_id, view, name))
        await self.write_png(info)

    async def write_png(self, info: TableInfo) -> None:
        if self.png_problem is not None:
            return
        try:
            import renderers

            if not renderers.has_renderer(info.game_id):
                self.png_problem = f"there is no board image for {info.game_name} yet"
                self.say(f"(No board image: {self.png_problem}.)")
                return
            view = await self.service.public_view(info.id)
            names = [s.name for s in sorted(info.seats, key=lambda s: s.index)]
            png = await asyncio.to_thread(renderers.render, info.game_id, view, names=names)
        except Exception as exc:  # the renderer is optional for the console
            self.png_problem = f"{type(exc).__name__}: {exc}"
            self.say(f"(No board image: {self.png_problem}. Playing on with text only.)")
            return
        path = self.data_dir / "board.png"
        tmp = path.with_suffix(".png.tmp")
        tmp.write_bytes(png)
        tmp.replace(path)
        self.say(f"Board image: {path}")

    # -- setup -----------------------------------------------------------------

    async def pick_game(self) -> str | None:
        games = self.service.games()
        if self.args.game:
            return str(self.args.game)
        index = await self.choose("Which game?", [f"{name} ({gid})" for gid, name in games])
        return None if index is None else games[index][0]

    async def setup_table(self) -> TableInfo | None:
        service, args = self.service, self.args
        try:
            existing = await service.status(CONSOLE_CHANNEL)
        except TableError:
            existing = None
        if existing is not None:
            wanted = args.game
            if args.new or (wanted and wanted != existing.game_id):
                await service.abort(CONSOLE_CHANNEL, existing.host_id)
                self.say(f"Abandoned the unfinished {existing.game_name} table.")
            elif existing.status is TableStatus.PLAYING:
                self.say(f"Resuming your unfinished {existing.game_name} game "
                         f"(move {existing.version}). Use --new to start over.")
                return existing
            else:
                await service.abort(CONSOLE_CHANNEL, existing.host_id)

        game_id = await self.pick_game()
        if game_id is None:
            return None
        options = _parse_options(args.option)
        game_names = dict(service.games())
        if game_id not in game_names:
            raise TableError(f"There is no game called '{game_id}'. Games: "
                             f"{', '.join(game_names)}.")
        from engines import get_game

        game = get_game(game_id)
        players = args.players or max(game.min_players, min(2, game.max_players))
        if not game.min_players <= players <= game.max_players:
            raise TableError(f"{game.name} takes {game.min_players} to {game.max_players} "
                             f"players, not {players}.")
        # Check everything the user typed before asking anything else.
        options = get_ui(game_id).table_options(options)
        service.check_options(game_id, service.split_settings(game_id, options)[0])
        mode = args.mode
        levels = service.ai_levels(game_id)
        if mode != "hotseat" and levels and players > 1:
            service.check_ai_level(game_id, args.ai_level)
        if mode is None and players > 1 and levels:
            choice = await self.choose(
                "Who plays?", ["You against the computer", "Hot seat: people at this keyboard"]
            )
            if choice is None:
                return None
            mode = "ai" if choice == 0 else "hotseat"
        if mode is None or not levels or players == 1:
            mode = "hotseat"
        humans = 1 if mode == "ai" else players
        given = [n.strip() for n in (args.names or "").split(",") if n.strip()]
        default = ["Player"] if humans == 1 else [f"Player {i}" for i in range(1, humans + 1)]
        names = [given[i] if i < len(given) else default[i] for i in range(humans)]

        host = 1
        await service.create(CONSOLE_CHANNEL, CONSOLE_GUILD, host, names[0], game_id, options,
                             seed=args.seed, reminder_minutes=0)
        try:
            for i in range(1, humans):
                await service.join(CONSOLE_CHANNEL, host + i, names[i])
            for _ in range(players - humans):
                await service.add_ai(CONSOLE_CHANNEL, host, args.ai_level)
            outbox = await service.start(CONSOLE_CHANNEL, host)
        except BaseException:
            await service.abort(CONSOLE_CHANNEL, host)
            raise
        self.say(f"New {game.name} table {outbox.table_id} (seed {outbox.table.seed}).")
        self.show_outbox(outbox)
        return outbox.table

    # -- play ------------------------------------------------------------------

    async def play(self) -> int:
        service = self.service
        service.subscribe(self.on_outbox)
        info = await self.setup_table()
        if info is None:
            self.say("Nothing to play. Bye!")
            return 0
        self.table_id = info.id
        self.say(_HELP)
        shown_version = -1
        idle_polls = 0
        while True:
            await service.wait_idle()
            info = await service.status(info.id)
            if info.status is not TableStatus.PLAYING:
                break
            users = info.to_act_users
            if not users:  # only AI seats to act and no AI running: give it a moment
                idle_polls += 1
                if idle_polls > 500:
                    self.say("The AI player is stuck (see the log); the table is saved.")
                    return 1
                await asyncio.sleep(0.01)
                continue
            idle_polls = 0
            user = users[0]
            me = info.seat_of(user)
            assert me is not None
            if shown_version != info.version:
                await self.show_board(info, user)
                shown_version = info.version
            legal = await service.legal_actions(info.id, user)
            my_view = await service.private_view(info.id, user)
            self.say(f"\n{me.name}, your move:")
            for i, action in enumerate(legal, 1):
                label = get_ui(info.game_id).label(action, my_view)
                self.say(f"  {i:>2}. {label}")
            answer = await self.ask("> ")
            if answer is None or answer.lower() in ("q", "quit", "exit"):
                self.say(f"Saved. Run the same command to resume (table {info.id}).")
                return 0
            low = answer.lower()
            if low in ("b", "board"):
                shown_version = -1
                continue
            if low in ("h", "help", "?"):
                self.say(_HELP)
                continue
            if low in ("l", "log"):
                lines = await service.history(info.id, user if len(info.to_act) else None)
                for line in lines[-20:] or ["(nothing yet)"]:
                    self.say(f"  {line}")
                continue
            if not answer.isdigit() or not 1 <= int(answer) <= len(legal):
                self.say(f"Please type a move number from 1 to {len(legal)} (h for help).")
                continue
            try:
                outbox = await service.act(info.id, user, legal[int(answer) - 1],
                                           expected_version=info.version)
            except UserError as exc:  # TableError or the engine's GameError
                self.say(f"Not accepted: {exc}")
                continue
            self.show_outbox(outbox, for_user=user)

        final = await service.status(info.id)
        await self.show_board(final, None)
        self.say()
        if final.status is TableStatus.FINISHED:
            self.say(final.outcome_text or "The game is over.")
        else:
            self.say("The table was closed.")
        return 0


async def _run(args: argparse.Namespace, stdin: TextIO, out: TextIO, err: TextIO) -> int:
    with tempfile.TemporaryDirectory(prefix="fabletop-") as tmp:
        data_dir = Path(tmp) if args.temp else (args.data_dir or default_data_dir())
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            print(f"fabletop play: cannot use the data directory {data_dir}: {exc}", file=err)
            return 2
        agents = (EngineAgents(iterations=args.ai_budget) if args.ai_budget
                  else EngineAgents())
        service = await TableService.open_sqlite(data_dir / "console.db", agents=agents)
        try:
            console = Console(service, args, data_dir, stdin, out)
            return await console.play()
        except UserError as exc:
            print(f"fabletop play: {exc}", file=err)
            return 2
        finally:
            await service.close()


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of ``fabletop play`` (and of ``make run`` without a token)."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exc:  # --help or a usage error
        return int(exc.code or 0)
    if args.ai_budget is not None and args.ai_budget < 1:
        print("fabletop play: --ai-budget must be at least 1", file=stderr or sys.stderr)
        return 2
    try:
        return asyncio.run(_run(args, stdin or sys.stdin, stdout or sys.stdout,
                                stderr or sys.stderr))
    except KeyboardInterrupt:
        print("\nInterrupted; the table is saved.", file=stdout or sys.stdout)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
