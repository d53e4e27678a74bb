"""Every slash command the bot tells people to use must exist in its command tree.

Messages are written in several places (the service's lobby texts, cogs, help,
rules data); a renamed command left behind in a sentence sends a player to a
dead end, which no other test notices.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import pytest

from tests.discord_fakes import Harness, close_harness, make_harness

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*ROOT.glob("bot/**/*.py"), *ROOT.glob("bot/**/*.json"), *ROOT.glob("engines/**/*.py"),
           *ROOT.glob("README.md")]
MENTION = re.compile(r"(?<![\w/<])/([a-z]+)(?: ([a-z]+))?")
PROSE = {"group", "groups", "command", "commands"}  # "the /table group", "/admin commands"


@pytest.fixture
async def h(tmp_path: Path) -> AsyncIterator[Harness]:
    harness = await make_harness(tmp_path / "bot.db")
    yield harness
    await close_harness(harness)


def _known(h: Harness) -> tuple[set[str], set[str]]:
    top: set[str] = set()
    full: set[str] = set()
    for command in h.bot.tree.walk_commands():
        full.add(command.qualified_name)
        top.add(command.qualified_name.split()[0])
    return top, full


def _mentions() -> set[tuple[str, str | None, str]]:
    found: set[tuple[str, str | None, str]] = set()
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        for line in text.splitlines():
            # Only sentences that show a command in backticks or quotes to a person.
            for match in MENTION.finditer(line):
                found.add((match.group(1), match.group(2), f"{path.name}: {line.strip()[:90]}"))
    return found


async def test_every_command_named_in_a_message_exists(h: Harness) -> None:
    top, full = _known(h)
    assert "table new" in full and "hand" in top  # the walk sees the real tree
    groups = {name for name in top
              if isinstance(h.bot.tree.get_command(name), discord.app_commands.Group)}
    missing = []
    for group, sub, where in _mentions():
        if group not in top:
            continue  # a path or a URL, not a command of ours
        if group in groups and sub not in (None, *PROSE) and f"{group} {sub}" not in full:
            missing.append(f"/{group} {sub} ({where})")
    assert not missing, "commands named in texts but not in the tree:\n" + "\n".join(missing)
