"""The offline console table: play a Fabletop game in a terminal.

It drives the very same :class:`bot.core.tables.TableService` as the Discord bot (SQLite
file, versions, AI seats, outboxes), so a console game is a real table: quit with
``q`` and run the command again to resume it. ::

    fabletop play fairy-tale-inn                 # you against the strongest AI
    fabletop play fairy-tale-inn --hotseat       # two people sharing the keyboard
    fabletop play fairy-tale-inn --ai-level greedy --names Ann --seed 7
    fabletop play treasure --players 3           # you and two AI teammates
    fabletop play                                # pick a game and a mode from menus
    fabletop play --help                         # every game, its AI levels and options

Each move prints the text board (with its key) and writes the board image
(``board.png`` in the data directory, from the public view), then asks for the move in
short numbered menus, the same grouping as the Discord buttons, cut shorter where a
screen needs it (:mod:`bot.console.menus`).

Hot seat in a game with secrets (Crossroads Inn's draft packs and Recipes, Winter Tales'
Story cards and Objectives): every turn starts with a "pass the keyboard to <name>,
press Enter" screen, and only then shows that player's own board, menus and the private
news kept for them; before the next player's turn the screen is cleared (a terminal,
scrollback too; other output is pushed away with blank lines) and what happened in
public is said again. Another seat's private news is never printed on someone else's
turn. Hot seat in a game without secrets shows the public table only.
At any prompt of a move: ``board``, ``log``, ``rules``, ``hand``, ``help`` and ``quit``
(:data:`bot.console.texts.TABLE_HELP`). Bad input is explained in one line and asked
again; the end of input (or Ctrl-C) saves and quits. At the end the result is printed
once, and the console offers another game with the same settings and a new seed.

The parts: :mod:`bot.console.terminal` (the prompts), :mod:`bot.console.menus` (a move through
the game's UI adapter), :mod:`bot.console.texts` (the words: help, rules, the result) and
:mod:`bot.console.help` (the games listed by ``--help``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from bot.console.menus import choose_action
from bot.console.terminal import EndOfInput, Terminal, normalise
from bot.console.texts import (
    COMMANDS,
    TABLE_HELP,
    cooperative,
    result_text,
    rules_text,
    team_result,
)
from bot.core.choices import get_ui
from bot.core.tables import (
    EngineAgents,
    OptionGivenTwice,
    Outbox,
    TableError,
    TableInfo,
    TableService,
    TableStatus,
    UserError,
)
from engines.catalog import has_hands
from engines.core import Action
from renderers.text import text_board

__all__ = ["build_parser", "main"]

CONSOLE_CHANNEL = 1
"""The console's one "channel": at most one unfinished console table per data dir."""
CONSOLE_GUILD = None
HOST = 1
"""The user id of the first person at the keyboard (the others follow: 2, 3, ...)."""
SECRET_CHANGED = "Your secret information has changed"
"""The service's private line for "your hand changed" (it names Discord's /hand)."""
_START = "Type the number of a choice and press Enter; type help for the other commands."
QUIT_WORDS = ("q", "quit", "exit")
"""Typed at a "press Enter" prompt: save and quit."""
MAX_RECENT = 12
"""Public lines said again after the screen is cleared for the next player."""


class Quit(Exception):
    """The player asked to save and quit."""


def default_data_dir() -> Path:
    """``$FABLETOP_DATA_DIR``, else ``$XDG_DATA_HOME/fabletop``, else ~/.local/share/fabletop."""
    env = os.environ.get("FABLETOP_DATA_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "fabletop"


def build_parser(*, catalogue: str | None = None) -> argparse.ArgumentParser:
    """The ``fabletop play`` arguments; ``catalogue`` (the games, for ``--help`` only:
    listing them imports every game) goes before the table commands in the epilog."""
    epilog = "\n\n".join(p for p in (catalogue, "at the table:\n" + TABLE_HELP) if p)
    parser = argparse.ArgumentParser(
        prog="fabletop play",
        description="Play a Fabletop game at the offline console table.",
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", nargs="?", help="game id (omit to choose from a menu)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--ai", dest="mode", action="store_const", const="ai",
                      help="you, and AI players in the other seats (rivals, or teammates "
                           "in a team game)")
    mode.add_argument("--hotseat", dest="mode", action="store_const", const="hotseat",
                      help="every seat is a person at this keyboard")
    parser.add_argument("--players", type=int, default=None,
                        help="number of seats (default: the game's smallest table, at least "
                             "2; a team game asks whether you play alone)")
    parser.add_argument("--ai-level", default=None,
                        help="AI level (default: the game's strongest; see the games below)")
    parser.add_argument("--ai-budget", type=int, default=None,
                        help="search budget of the strongest AI (MCTS iterations)")
    parser.add_argument("--names", default=None,
                        help="comma-separated names of the human players")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed (default: random); another game after it uses seed+1")
    parser.add_argument("--option", "-o", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option (repeatable; see the games below)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, default=None,
                       help=f"where the SQLite file and board.png live "
                            f"(default: {default_data_dir()})")
    where.add_argument("--temp", action="store_true",
                       help="use a throw-away temporary directory (nothing is kept)")
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
        if key.strip().lower() in {k.lower() for k in options}:
            raise OptionGivenTwice(key.strip())  # the last value would win unsaid
        options[key.strip()] = _parse_value(value.strip())
    return options


@dataclass(frozen=True)
class Plan:
    """Who sits at a new table and with what options: what "play again" repeats."""

    game_id: str
    options: dict[str, Any]
    humans: tuple[str, ...]
    ai_levels: tuple[str | None, ...] = ()
    seed: int | None = None

    @classmethod
    def of(cls, info: TableInfo, seed: int | None) -> Plan:
        """The plan of a finished table (resumed ones too): its game, options and table
        settings, its people (the host first) and its AI levels; a new seed."""
        people = sorted((s for s in info.seats if not s.is_ai), key=lambda s: s.user_id or 0)
        levels = tuple(s.ai_level for s in sorted(info.seats, key=lambda s: s.index)
                       if s.is_ai)
        return cls(game_id=info.game_id, options={**info.options, **info.settings},
                   humans=tuple(s.name for s in people), ai_levels=levels, seed=seed)


class Console:
    """One console session over a service: set a table up, play it, offer another."""

    def __init__(self, service: TableService, args: argparse.Namespace, data_dir: Path,
                 term: Terminal) -> None:
        self.service = service
        self.args = args
        self.data_dir = data_dir
        self.term = term
        self.png_problem: str | None = "disabled" if args.no_png else None
        self.png_told = False
        self.table_id: str | None = None
        self.solo_user: int | None = None
        """The one human at the table, if only one: the screen is theirs (private news
        and their own view are shown), else the screen is shared."""
        self.private_turns = False
        """Hot seat in a game with secrets (a hand, a draft pack, Objectives, Recipes):
        each turn is played behind a "pass the keyboard" screen, the screen is cleared
        after it, and a seat's private news waits for its own turn."""
        self.screen_user: int | None = None
        """Whose screen it is now: the solo player; in hot seat with secrets the player
        who took the keyboard (``None`` between turns); in other hot seat games nobody
        (the screen shows public things only)."""
        self.news: dict[int, list[str]] = {}
        """Private lines for a seat that did not have the screen, kept for its turn."""
        self.unread = False
        """Private lines were printed after the screen user's last answer."""
        self.recent: list[str] = []
        """The public lines printed since the screen was last cleared (said again after
        the clearing, so the next player reads what happened)."""
        self.last_board: str | None = None
        self.last_key: str | None = None

    def say(self, text: str = "") -> None:
        self.term.say(text)

    # -- output of the service --------------------------------------------------

    def show_outbox(self, outbox: Outbox, *, for_user: int | None = None) -> None:
        public = outbox.public
        if public is not None:
            for line in public.text.splitlines():
                # The result is printed once, at the end, in the console's own words.
                if public.finished and public.outcome_text and line == public.outcome_text:
                    continue
                self.say(f"  {line}")
                if self.private_turns:
                    self.recent.append(f"  {line}")
        for update in outbox.private:
            # Private news is printed for the player whose screen it is (hot seat with
            # secrets: kept for the others' own turns); in other hot seat games, the
            # acting player's own, right after their move, while they still look.
            shown = update.user_id == self.screen_user or (
                not self.private_turns and update.user_id == for_user)
            for line in update.lines:
                if line.startswith(SECRET_CHANGED):
                    if self.screen_user is not None or not shown:
                        continue  # the board shows their own view anyway
                    line = "Your own view changed: type hand to see it."
                if shown:
                    self.say(f"  (only you) {line}")
                    self.unread = self.private_turns
                elif self.private_turns and update.user_id is not None:
                    self.news.setdefault(update.user_id, []).append(line)

    def on_outbox(self, outbox: Outbox) -> None:
        """Listener: AI moves made in the background."""
        if outbox.table_id == self.table_id:
            self.show_outbox(outbox)

    async def show_board(self, info: TableInfo, user_id: int | None, *,
                         force: bool = False, private: bool | None = None) -> str:
        """The text board (the user's own view when the screen is theirs) and the
        picture; a board the same as the last one shown is not printed again. Returns
        what was printed."""
        names = {s.index: s.name for s in info.seats}

        def name(seat: int) -> str:
            return names.get(seat, f"Seat {seat + 1}")

        own = private if private is not None else (
            user_id is not None and user_id == self.screen_user)
        if own and user_id is not None:
            view = await self.service.private_view(info.id, user_id)
        else:
            view = await self.service.public_view(info.id)
        board = text_board(info.game_id, view, name)
        if info.status is TableStatus.FINISHED and info.outcome is not None:
            board = _without(board, info.outcome.reason)
        printed = ""
        if force or board != self.last_board:
            body, key = _split_key(board)
            # The key is printed when it says something new (or on request): the same
            # three lines under every move would bury the board.
            shown = board if force or key != self.last_key else body
            self.say()
            self.say(shown)
            self.last_board, self.last_key, printed = board, key, shown
        await self.write_png(info)
        return printed

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
        if not self.png_told:  # once: the same file is rewritten after every move
            self.say(f"Board image: {path} (updated after every move)")
            self.png_told = True

    # -- setup -----------------------------------------------------------------

    async def pick_game(self) -> str:
        if self.args.game:
            return str(self.args.game)
        games = self.service.games()
        items = [f"{name} ({gid})" for gid, name in games]
        answer = await self.term.pick("Which game?", items, commands={"q": "quit",
                                                                      "quit": "quit"})
        if isinstance(answer, str):
            raise Quit
        return games[answer][0]

    async def resume_or_clear(self) -> TableInfo | None:
        """The unfinished console table to resume, if that is what the user wants."""
        service, args = self.service, self.args
        try:
            existing = await service.status(CONSOLE_CHANNEL)
        except TableError:
            return None
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
        return None

    async def first_plan(self) -> Plan:
        """The table the arguments (and the setup menus) ask for; checks everything
        typed before asking anything else. Raises UserError, Quit."""
        service, args = self.service, self.args
        game_id = await self.pick_game()
        game_names = dict(service.games())
        if game_id not in game_names:
            raise TableError(f"There is no game called '{game_id}'. Games: "
                             f"{', '.join(game_names)}.")
        from engines import get_game

        game = get_game(game_id)
        team = cooperative(game_id)
        players = args.players
        if players is not None and not game.min_players <= players <= game.max_players:
            raise TableError(f"{game.name} takes {game.min_players} to {game.max_players} "
                             f"players, not {players}.")
        options = get_ui(game_id).table_options(_parse_options(args.option))
        service.check_options(game_id, service.split_settings(game_id, options)[0])
        levels = service.ai_levels(game_id)
        if args.mode != "hotseat" and levels:
            service.check_ai_level(game_id, args.ai_level)
        # Naming an AI level says who plays: you, and AI players in the other seats.
        mode = args.mode or ("ai" if args.ai_level and levels else None)
        if players is None:
            players = max(game.min_players, min(2, game.max_players))
            if team and game.min_players == 1 and mode is None:
                players, mode = await self.ask_team(players, bool(levels))
        if mode is None and players > 1 and levels:
            mode = await self.ask_mode(players, team, levels)
        if mode is None or not levels or players == 1:
            mode = "hotseat"
        humans = 1 if mode == "ai" else players
        given = [n.strip() for n in (args.names or "").split(",") if n.strip()]
        default = ["Player"] if humans == 1 else [f"Player {i}" for i in range(1, humans + 1)]
        names = tuple(given[i] if i < len(given) else default[i] for i in range(humans))
        return Plan(game_id=game_id, options=options, humans=names,
                    ai_levels=(args.ai_level,) * (players - humans), seed=args.seed)

    async def ask_team(self, players: int, has_ai: bool) -> tuple[int, str | None]:
        """A team game that can be played alone: alone, with AI teammates, or hot seat."""
        items = ["Just you (solitaire)"]
        if has_ai:
            items.append("You and an AI teammate")
        items.append(f"Hot seat: {players} people at this keyboard, one team")
        answer = await self.term.pick("Who plays?", items, commands={"q": "quit",
                                                                     "quit": "quit"})
        if isinstance(answer, str):
            raise Quit
        if answer == 0:
            return 1, "hotseat"
        if has_ai and answer == 1:
            return players, "ai"
        return players, "hotseat"

    async def ask_mode(self, players: int, team: bool, levels: list[str]) -> str:
        level = self.args.ai_level or levels[-1]
        others = players - 1
        if team:
            mates = "an AI teammate" if others == 1 else f"{others} AI teammates"
            first = f"You and {mates} ({level}), one team"
        else:
            rivals = "the computer" if others == 1 else f"{others} computer players"
            first = f"You against {rivals} ({level})"
        second = f"Hot seat: {players} people at this keyboard" + (", one team" if team else "")
        answer = await self.term.pick("Who plays?", [first, second],
                                      commands={"q": "quit", "quit": "quit"})
        if isinstance(answer, str):
            raise Quit
        return "ai" if answer == 0 else "hotseat"

    async def open_table(self, plan: Plan) -> TableInfo:
        """A new table for ``plan``, started. Raises UserError (nothing left behind)."""
        service = self.service
        await service.create(CONSOLE_CHANNEL, CONSOLE_GUILD, HOST, plan.humans[0],
                             plan.game_id, plan.options, seed=plan.seed, reminder_minutes=0)
        try:
            for i, person in enumerate(plan.humans[1:], 1):
                await service.join(CONSOLE_CHANNEL, HOST + i, person)
            for level in plan.ai_levels:
                await service.add_ai(CONSOLE_CHANNEL, HOST, level)
            outbox = await service.start(CONSOLE_CHANNEL, HOST)
        except BaseException:
            await service.abort(CONSOLE_CHANNEL, HOST)
            raise
        info = outbox.table
        self.adopt(info)
        team = cooperative(info.game_id) and len(info.seats) > 1
        self.say(f"New {info.game_name} table {outbox.table_id} (seed {info.seed})"
                 + (": one team, you all win or lose together." if team else "."))
        self.show_outbox(outbox)
        return info

    def adopt(self, info: TableInfo) -> None:
        self.table_id = info.id
        humans = [s for s in info.seats if not s.is_ai]
        self.solo_user = humans[0].user_id if len(humans) == 1 else None
        self.private_turns = self.solo_user is None and has_hands(info.game_id)
        self.screen_user = self.solo_user
        self.news, self.unread, self.recent = {}, False, []
        self.last_board = self.last_key = None

    # -- play ------------------------------------------------------------------

    async def run(self) -> int:
        """Set up (or resume) a table, play it, show the result, offer another."""
        self.service.subscribe(self.on_outbox)
        try:
            info = await self.resume_or_clear()
            if info is not None:
                self.adopt(info)
            else:
                info = await self.open_table(await self.first_plan())
        except (Quit, EndOfInput):
            self.say("Nothing to play. Bye!")
            return 0
        seed_step = 0
        while True:
            self.say(_START)
            try:
                final = await self.play(info)
            except (Quit, EndOfInput):
                self.say(self.goodbye())
                return 0
            if final is None:
                return 1
            if final.status is not TableStatus.FINISHED:
                self.say("The table was closed.")
                return 0
            # hot seat: the last player's cards go before everyone reads the result
            with contextlib.suppress(EndOfInput, Quit):
                await self.hide_screen(final)
            self.hide_now()
            await self.show_result(final)
            try:
                again = await self.term.confirm("Play again?")
            except EndOfInput:
                again = False
            if not again:
                self.say("Thanks for playing!")
                return 0
            seed_step += 1
            seed = None if self.args.seed is None else self.args.seed + seed_step
            try:
                info = await self.open_table(Plan.of(final, seed))
            except UserError as exc:
                self.say(f"Could not start another game: {exc}")
                return 2

    def goodbye(self) -> str:
        if self.args.temp:
            return "Bye! (A --temp game is not kept.)"
        again = "the same command without --new" if self.args.new else "the same command"
        return f"Saved. Run {again} to resume (table {self.table_id})."

    async def play(self, info: TableInfo) -> TableInfo | None:
        """Play until the table is no longer playing; its final info (None: stuck)."""
        service = self.service
        idle_polls = 0
        last_user: int | None = None
        while True:
            await service.wait_idle()
            info = await service.status(info.id)
            if info.status is not TableStatus.PLAYING:
                return info
            # The first person to act who has something to decide (a seat may be asked
            # while it has no choice, e.g. waiting on another seat's decision).
            user, legal = None, []
            for candidate in info.to_act_users:
                legal = await service.legal_actions(info.id, candidate)
                if legal:
                    user = candidate
                    break
            if user is None:  # only AI seats to act and no AI running: give it a moment
                idle_polls += 1
                if idle_polls > 500:
                    self.say("Nobody at this keyboard can move and the AI players do not "
                             "(see the log); the table is saved.")
                    return None
                await asyncio.sleep(0.01)
                continue
            idle_polls = 0
            if self.private_turns and user != self.screen_user:
                await self.hand_over(info, user)
            elif self.solo_user is None and user != last_user:
                # Hot seat in a game without secrets: the screen shows the public table.
                self.say(f"\n--- {self.name_of(info, user)}'s turn ---")
            last_user = user
            self.unread = False
            await self.take_turn(info, user, legal)

    @staticmethod
    def name_of(info: TableInfo, user: int) -> str:
        seat = info.seat_of(user)
        return seat.name if seat is not None else "the next player"

    async def hide_screen(self, info: TableInfo) -> None:
        """Hot seat with secrets: clear the screen of the player who had it (once they
        have read what their last move told only them), then say again what happened
        at the table, which everyone may read. Raises EndOfInput, Quit."""
        user = self.screen_user
        if not self.private_turns or user is None:
            return
        if self.unread:
            answer = await self.term.ask(f"{self.name_of(info, user)}, press Enter to hide "
                                         "your cards. ")
            if normalise(answer) in QUIT_WORDS:
                raise Quit
        self.hide_now()

    def hide_now(self) -> None:
        """Clear the screen of its player now (hot seat with secrets)."""
        if not self.private_turns or self.screen_user is None:
            return
        self.term.clear()
        self.screen_user, self.unread = None, False
        self.last_board = self.last_key = None  # the next board is printed whole
        if self.recent:
            self.say("The last moves at the table:")
            for line in self.recent[-MAX_RECENT:]:
                self.say(line)
        self.recent = []

    async def hand_over(self, info: TableInfo, user: int) -> None:
        """Hot seat with secrets: the screen is cleared and the keyboard goes to
        ``user``; only when they say they have it is anything of theirs shown (their own
        board, then the private news kept for them). Raises EndOfInput, Quit."""
        await self.hide_screen(info)
        name = self.name_of(info, user)
        self.say(f"\n--- {name}'s turn ---")
        answer = await self.term.ask(f"Pass the keyboard to {name}, then press Enter "
                                     f"(only {name} should look now). ")
        if normalise(answer) in QUIT_WORDS:
            raise Quit
        self.screen_user, self.recent = user, []
        kept = self.news.pop(user, [])
        if kept:
            self.say("While you were away:")
            for line in kept:
                self.say(f"  (only you) {line}")

    async def take_turn(self, info: TableInfo, user: int, legal: list[Action]) -> None:
        """Show the board, ask for one of the ``legal`` moves, play it."""
        service = self.service
        me = info.seat_of(user)
        assert me is not None
        board = await self.show_board(info, user)
        view = await service.private_view(info.id, user)
        ui = get_ui(info.game_id)

        async def command(name: str) -> None:
            await self.command(name, info, user)

        action = await choose_action(self.term, ui, view, legal, commands=COMMANDS,
                                     on_command=command, heading=f"\n{me.name}, your move:",
                                     said=board)
        try:
            outbox = await service.act(info.id, user, action, expected_version=info.version)
        except UserError as exc:  # TableError or the engine's GameError
            self.say(f"Not accepted: {exc}")
            return
        self.show_outbox(outbox, for_user=user)

    async def command(self, name: str, info: TableInfo, user: int) -> None:
        """A table command typed at a prompt of the move."""
        if name == "quit":
            raise Quit
        if name == "board":
            await self.show_board(info, user, force=True)
        elif name == "help":
            self.say(TABLE_HELP)
        elif name == "rules":
            self.say(rules_text(info.game_id))
        elif name == "log":
            # the seat's own lines too only when the screen is theirs
            lines = await self.service.history(
                info.id, user if user == self.screen_user else None)
            self.say("The latest moves:" if lines else "Nothing has happened yet.")
            for line in lines[-20:]:
                self.say(f"  {line}")
        elif name == "hand":
            if user != self.screen_user:
                self.say("(Your own view: the others look away.)")
            await self.show_board(info, user, force=True, private=True)

    async def show_result(self, final: TableInfo) -> None:
        """The final board, then the result: once."""
        self.last_board = None
        await self.show_board(final, None, private=False)
        names = {s.index: s.name for s in final.seats}
        outcome = final.outcome
        team = cooperative(final.game_id) or (
            outcome is not None and team_result(outcome, len(final.seats)))
        text = result_text(outcome, lambda s: names.get(s, f"Seat {s + 1}"),
                           len(final.seats), team=team,
                           solo_human=len(final.seats) == 1)
        self.say()
        self.say(f"Game over. {text}")


def _split_key(board: str) -> tuple[str, str]:
    r"""A text board's body and its key (from its last ``Key:`` line to the end).

    >>> _split_key("A1 ::\nKey: :: grey\n  tiles")
    ('A1 ::', 'Key: :: grey\n  tiles')
    """
    lines = board.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Key:")]
    if not starts:
        return board, ""
    return "\n".join(lines[:starts[-1]]), "\n".join(lines[starts[-1]:])


def _without(board: str, reason: str) -> str:
    """The final board without the lines that restate why the game ended (the result
    line says it, once)."""
    said = " ".join(reason.split()).rstrip(".!").lower()
    if len(said) < 12:  # too short to tell a restatement from a coincidence
        return board
    keep = [line for line in board.splitlines() if said not in " ".join(line.split()).lower()]
    return "\n".join(keep)


@dataclass
class _Session:
    """What ``main`` needs to say after Ctrl-C: whether a table is kept."""

    console: Console | None = None


async def _run(args: argparse.Namespace, term: Terminal, err: TextIO,
               session: _Session) -> int:
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
            session.console = Console(service, args, data_dir, term)
            return await session.console.run()
        except UserError as exc:  # a refused setup: one line, and where to look
            print(f"fabletop play: {exc}\n(fabletop play --help lists the games, their AI "
                  "levels and their options.)", file=err)
            return 2
        finally:
            await service.close()


def _catalogue(argv: Sequence[str]) -> str:
    """The games part of ``--help`` (one game's, if one is named)."""
    from bot.console.help import catalogue
    from engines.catalog import game_ids

    named = next((a for a in argv if a in game_ids()), None)
    return catalogue(named)


def main(argv: Sequence[str] | None = None, *, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Entry point of ``fabletop play`` (and of ``make run`` without a token)."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    out, err = stdout or sys.stdout, stderr or sys.stderr
    wants_help = any(a in ("-h", "--help") for a in args_list)
    parser = build_parser(catalogue=_catalogue(args_list) if wants_help else None)
    try:  # argparse prints --help and usage errors itself: to this call's streams
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(args_list)
    except SystemExit as exc:  # --help or a usage error
        return int(exc.code or 0)
    if args.ai_budget is not None and args.ai_budget < 1:
        print("fabletop play: --ai-budget must be at least 1", file=err)
        return 2
    session = _Session()
    term = Terminal(stdin or sys.stdin, out)
    try:
        return asyncio.run(_run(args, term, err, session))
    except KeyboardInterrupt:
        console = session.console
        kept = console is not None and console.table_id is not None and not args.temp
        print("\nInterrupted. " + (f"{console.goodbye()}" if kept and console else "Bye!"),
              file=out)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
