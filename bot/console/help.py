"""What ``fabletop play --help`` lists: every game, its AI levels and its options.

All of it is read from each game's declaration (:mod:`engines.catalog`): the players
from the engine, the AI levels from :mod:`engines.agents`, the options from the
engine's ``Options`` model (the allowed values from its types and bounds, the defaults
as the table fills them in, the words from the model's docstrings) and the table
settings from the :class:`~engines.catalog.GameSpec`. A new game is listed with no
line here naming it. Only built for ``--help``: it imports every game.

>>> rows = option_rows("treasure")
>>> [(r.name, r.values, r.default) for r in rows]
[('variant', 'true|false', 'false'), ('king_path_length', '4..99', '23')]
"""

from __future__ import annotations

import ast
import inspect
import itertools
import re
import textwrap
import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from engines.catalog import spec, specs

__all__ = ["OptionRow", "catalogue", "examples", "option_rows"]

WIDTH = 88


@dataclass(frozen=True)
class OptionRow:
    """One ``-o name=value`` a game takes."""

    name: str
    values: str
    """The allowed values: ``a|b|c``, ``3..7``, ``true|false``, ``TEXT``."""
    default: str | None
    """As the table fills it in (``None``: worked out by the game, see the words)."""
    words: str = ""


# --------------------------------------------------------------------------- options


def _field_docs(model: type) -> dict[str, str]:
    """The words of each option: an attribute docstring under the field, or a
    ````name``: words`` paragraph of the model's own docstring."""
    docs: dict[str, str] = {}
    text = inspect.getdoc(model) or ""
    for m in re.finditer(r"``(\w+)``\s*:\s*(.+?)(?=\s*``\w+``\s*:|\Z)", text, flags=re.S):
        docs[m[1]] = " ".join(m[2].replace("``", "").split())
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(model)))
    except (OSError, TypeError, SyntaxError):  # no source at hand (a frozen build)
        return docs
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    for field, after in itertools.pairwise(body):
        if (isinstance(field, ast.AnnAssign) and isinstance(field.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[field.target.id] = " ".join(after.value.value.split())
    return docs


def _bounds(metadata: list[Any]) -> tuple[Any, Any]:
    low = next((m.ge for m in metadata if hasattr(m, "ge")), None)
    high = next((m.le for m in metadata if hasattr(m, "le")), None)
    return low, high


def _values(annotation: Any, metadata: list[Any]) -> str:
    """The allowed values of a field, from its type."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        return _values(inner[0], metadata) if len(inner) == 1 else "VALUE"
    if origin is Literal:
        return "|".join(str(a) for a in get_args(annotation))
    if annotation is bool:
        return "true|false"
    if annotation in (int, float):
        low, high = _bounds(metadata)
        if low is not None and high is not None:
            return f"{low}..{high}"
        return "NUMBER"
    if origin is list:
        return "'TEXT; TEXT; ...'"
    return "TEXT"


def _shown(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list):
        if not value:
            return "none"
        text = "; ".join(str(v) for v in value)
        return f"'{text}'" if len(text) <= 40 else f"a list of {len(value)}"
    return str(value)


def option_rows(game_id: str) -> list[OptionRow]:
    """Every option and table setting of ``game_id``, with values and defaults."""
    from bot.core.choices import get_ui

    declared = spec(game_id)
    model = declared.engine.Options
    docs = _field_docs(model)
    try:  # the defaults the table fills in (a house list, say), else the model's own
        filled = get_ui(game_id).table_options({})
    except Exception:  # an adapter that insists on options: the model's defaults
        filled = {}
    rows = []
    for name, field in model.model_fields.items():
        default = filled.get(name, field.get_default(call_default_factory=True))
        rows.append(OptionRow(name, _values(field.annotation, list(field.metadata)),
                              _shown(default), docs.get(name, "")))
    if declared.interrupt_timeout is not None:
        rows.append(OptionRow(
            "interrupt_timeout", "SECONDS", f"{declared.interrupt_timeout:g}",
            "a table setting: an optional decision nobody makes passes after this many "
            "seconds (0 = wait for ever)."))
    return rows


# --------------------------------------------------------------------------- the list


def _levels(game_id: str) -> list[str]:
    from engines.agents import agent_levels

    try:
        return list(agent_levels(game_id))
    except (KeyError, ValueError, ImportError):
        return []


def _game_block(game_id: str) -> list[str]:
    from bot.console.texts import cooperative

    declared = spec(game_id)
    low, high = declared.players
    players = f"{low} player{'s' if low > 1 else ''}" if low == high else f"{low}-{high} players"
    team = cooperative(game_id)
    lines = [f"  {game_id:<16} {declared.name} ({players}{', one team' if team else ''})"]
    pad = " " * 19
    levels = _levels(game_id)
    if levels:
        who = "AI teammates" if team else "AI levels"
        lines.append(f"{pad}{who}: {', '.join(levels)} (default {levels[-1]}, the strongest)")
    rows = option_rows(game_id)
    if not rows:
        lines.append(f"{pad}no options")
    for row in rows:
        default = f" (default {row.default})" if row.default is not None else ""
        text = f"-o {row.name}={row.values}{default}" + (f": {row.words}" if row.words else "")
        lines.append(textwrap.fill(text, WIDTH, initial_indent=pad,
                                   subsequent_indent=pad + "    "))
    return lines


def examples(game_ids: list[str]) -> list[str]:
    """One example command line per game (an AI level or AI teammates, and an option
    set to something other than its default), then a hot-seat game with a seed."""
    from bot.console.texts import cooperative

    out = []
    for game_id in game_ids:
        declared = spec(game_id)
        levels = _levels(game_id)
        high = declared.players[1]
        parts = [f"fabletop play {game_id}"]
        if cooperative(game_id) and high > 1:
            parts.append("--players 2")
        elif len(levels) > 1:
            parts.append(f"--ai-level {levels[1]}")
        for row in option_rows(game_id):
            others = [v for v in row.values.split("|") if v != row.default]
            if "|" in row.values and others:
                parts.append(f"-o {row.name}={others[-1]}")
                break
        out.append(" ".join(parts))
    two = next((g for g in game_ids if spec(g).players[1] >= 2), None)
    if two is not None:
        count = max(2, spec(two).players[0])
        names = ",".join(["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus"][:count])
        out.append(f"fabletop play {two} --hotseat --players {count} --names {names} --seed 7")
    return out


def catalogue(only: str | None = None) -> str:
    """The games part of ``fabletop play --help`` (``only``: one game's block)."""
    game_ids = [s.id for s in specs() if only in (None, s.id)]
    lines = ["games (the GAME argument):"]
    for game_id in game_ids:
        try:
            lines += _game_block(game_id)
        except Exception as exc:  # one broken game must not hide the others
            lines.append(f"  {game_id:<16} (does not load: {type(exc).__name__})")
    lines += ["", "examples:"]
    lines += [f"  {line}" for line in examples(game_ids)]
    return "\n".join(lines)
