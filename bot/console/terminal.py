"""The console table's terminal: printing, reading a line, and the prompts built on it.

Everything a person types at the console goes through :class:`Terminal`, so every prompt
behaves the same way: bad input gets one plain line and the same prompt again (never a
traceback), and the end of input (Ctrl-D, or the end of a piped script) raises
:class:`EndOfInput`, which the console turns into "saved, bye". A line is read on a
daemon thread: the event loop stays free for the AI players, and Ctrl-C at a prompt
does not leave the interpreter waiting for a thread blocked in ``readline``.

>>> import io
>>> out = io.StringIO()
>>> term = Terminal(io.StringIO("7\\n2\\n"), out)
>>> import asyncio
>>> asyncio.run(term.pick("Which one?", ["red", "blue"]))
1
>>> print(out.getvalue().strip())
Which one?
   1. red
   2. blue
> 7
Please type a number from 1 to 2.
> 2
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import TextIO

__all__ = ["CLEAR_LINES", "EndOfInput", "Terminal", "normalise"]

CLEAR_LINES = 60
"""Blank lines that "clear" an output that is not a terminal (a pipe, a file)."""


class EndOfInput(Exception):
    """The input ended (Ctrl-D, or the end of a piped script)."""


def normalise(answer: str) -> str:
    """What a typed answer means, compared case- and space-insensitively.

    >>> normalise("  Board ")
    'board'
    """
    return " ".join(answer.split()).lower()


class Terminal:
    """Writes to ``out`` and reads lines from ``stdin`` (a tty, a pipe, a StringIO)."""

    def __init__(self, stdin: TextIO, out: TextIO) -> None:
        self.stdin = stdin
        self.out = out
        try:
            self.echo = not stdin.isatty()
        except (AttributeError, ValueError):  # a closed or odd stream: echo, harmless
            self.echo = True

    # -- output ----------------------------------------------------------------

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def clear(self) -> None:
        """Wipe what is on the screen (hot seat: one player's cards before the next
        player looks): a terminal is cleared with its scrollback; any other output gets
        :data:`CLEAR_LINES` blank lines, which push it out of sight."""
        try:
            tty = self.out.isatty()
        except (AttributeError, ValueError):
            tty = False
        if tty:
            # home, clear the screen, clear the scrollback (where the terminal has one)
            self.out.write("\x1b[H\x1b[2J\x1b[3J")
            self.out.flush()
        else:
            self.say("\n" * (CLEAR_LINES - 1))

    # -- input -----------------------------------------------------------------

    async def _readline(self) -> str:
        """One raw line ('' at end of input), read on a daemon thread."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[str] = loop.create_future()

        def deliver(line: str | None, error: BaseException | None) -> None:
            if done.done():
                return
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(line or "")

        def work() -> None:
            try:
                line, error = self.stdin.readline(), None
            except (OSError, ValueError) as exc:  # a bad byte sequence, a closed stream
                line, error = None, exc
            # the loop may have closed meanwhile (Ctrl-C): then nobody is waiting
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(deliver, line, error)

        threading.Thread(target=work, name="console-input", daemon=True).start()
        return await done

    async def ask(self, prompt: str = "> ") -> str:
        """One line, stripped. Raises :class:`EndOfInput` at the end of input; a line
        that cannot be read (not valid text) is refused and asked again."""
        while True:
            self.out.write(prompt)
            self.out.flush()
            try:
                line = await self._readline()
            except UnicodeDecodeError:
                self.say("\nThat line could not be read as text; please type it again.")
                continue
            except (OSError, ValueError) as exc:
                self.say()
                raise EndOfInput from exc
            if line == "":
                self.say()
                raise EndOfInput
            if self.echo:  # a piped script: show what was "typed", so transcripts read well
                self.out.write(line if line.endswith("\n") else line + "\n")
            return line.strip()

    async def pick(self, title: str, items: Sequence[str], *,
                   commands: Mapping[str, str] | None = None,
                   hint: str = "") -> int | str:
        """A numbered menu: the index of the item chosen, or the name of a command
        (``commands`` maps what may be typed, e.g. ``"b"``, to a command name). Anything
        else gets one line saying what is expected, and the prompt again."""
        if title:
            self.say(title)
        for i, item in enumerate(items, 1):
            self.say(f"  {i:>2}. {item}")
        return await self.pick_number(len(items), commands=commands, hint=hint)

    async def pick_number(self, count: int, *, commands: Mapping[str, str] | None = None,
                          hint: str = "") -> int | str:
        """The answer to a menu already printed: see :meth:`pick`."""
        commands = commands or {}
        while True:
            answer = normalise(await self.ask("> "))
            if answer in commands:
                return commands[answer]
            if answer.isdigit() and 1 <= int(answer) <= count:
                return int(answer) - 1
            expected = "Please type 1" if count == 1 else \
                f"Please type a number from 1 to {count}"
            self.say(f"{expected}{hint}.")

    async def confirm(self, question: str, *, default: bool = False) -> bool:
        """A yes/no question: ``[y/N]`` (Enter takes the default)."""
        choices = "[Y/n]" if default else "[y/N]"
        while True:
            answer = normalise(await self.ask(f"{question} {choices} "))
            if answer == "":
                return default
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no", "q", "quit"):
                return False
            self.say("Please answer y or n.")
