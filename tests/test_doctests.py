"""Run the docstring examples of every module in the pure layers (engines, renderers),
and of the bot's modules whose examples document its texts, ids and adapters.

Docstring examples are documentation that must stay true; collecting them here
(rather than with --doctest-modules over the whole tree) keeps test-support code
such as the Discord emulator, whose examples are illustrative, out of it.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import engines
import renderers

BOT_MODULES = [
    "bot.messages.cogs.common",
    "bot.messages.delivery.turn_message",
    "bot.core.tables.texts",
    "bot.core.choices.adapter",
    "bot.messages.ui.forms",
    "bot.core.choices.pocket",
    "bot.core.choices.treasure",
    "bot.core.choices.winter_tales",
    "bot.messages.ui.ids",
    "bot.messages.ui.texts",
    "bot.messages.cogs.pocket",
    "bot.core.tables.ratings",
    "bot.core.tables.history",
    "bot.messages.threads",
    "bot.core.store.factory",
    "bot.core.settings",
    "bot.core.loop_turns",
    "bot.messages.delivery.overtake",
    "bot.messages.render_pool",
]


def _modules() -> list[str]:
    names: list[str] = list(BOT_MODULES)
    for package in (engines, renderers):
        names.append(package.__name__)
        for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
            names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
