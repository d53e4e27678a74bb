"""No import cycle among the modules of bot/, engines/, renderers/ and data/.

Every import counts, wherever it is written (``tests/import_cycles.py`` reads the source):

- at a module's top: the plain case;
- inside a function: a lazy import only moves the cycle to the first call, where a
  half-initialised module can still be met, and the two modules stay one unit that
  cannot be read, tested or moved apart;
- under ``if TYPE_CHECKING:``: the two modules still know each other, and the import
  becomes a real one as soon as the annotations are resolved (pydantic, typing's
  ``get_type_hints``);
- ``importlib.import_module("a.literal")``: an import under another name.

``from pkg import name`` depends on ``pkg`` (its ``__init__`` may re-export ``name``)
and on ``pkg.name`` when that is a module. Only names computed at run time (the game
registry's dotted paths) cannot be read and do not count.

import-linter's contracts check the layers between packages; this check covers every
module inside them, including imports the contracts are told to skip.
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest

from tests.import_cycles import cycles, format_cycle, read_graph

REPO = Path(__file__).resolve().parent.parent


def test_no_import_cycle_in_our_packages() -> None:
    graph = read_graph(REPO)
    found = cycles(graph)
    chains = "\n\n".join(format_cycle(graph, c, REPO) for c in found)
    assert not found, f"{len(found)} import cycles:\n\n{chains}"


def test_the_real_graph_is_read_with_its_lazy_imports() -> None:
    """Guards the check above against reading nothing: known imports of each kind."""
    graph = read_graph(REPO)
    assert {"bot.cli", "engines.winter_tales.game", "renderers.winter_tales"} <= set(graph.modules)
    assert "engines.winter_tales.state" in graph.targets("engines.winter_tales.game")
    # bot/cli.py imports the Discord client only inside the command that runs it.
    assert graph.edge("bot.cli", "bot.messages.client").where == "function"
    assert graph.edge("bot.messages.cogs.lobby", "bot.messages.client").where == ("type-checking")


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text), encoding="utf-8")
    return tmp_path


def _cycles_of(tmp_path: Path, files: dict[str, str]) -> list[list[str]]:
    return cycles(read_graph(_tree(tmp_path, files), roots=("pkg",)))


def test_a_cycle_through_a_function_is_found_and_printed_as_a_chain(tmp_path: Path) -> None:
    base = _tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg import b\n",
            "pkg/b.py": "import pkg.c\n",
            "pkg/c.py": "def later():\n    from pkg.a import x\n",
        },
    )
    graph = read_graph(base, roots=("pkg",))
    found = cycles(graph)
    assert found == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]
    assert format_cycle(graph, found[0], base).splitlines() == [
        "pkg.a",
        "  -> pkg.b   (pkg/a.py:1)",
        "  -> pkg.c   (pkg/b.py:1)",
        "  -> pkg.a   (pkg/c.py:2, inside a function)",
    ]


def test_a_type_checking_import_is_an_edge(tmp_path: Path) -> None:
    found = _cycles_of(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "from pkg.b import B\n",
            "pkg/b.py": dedent(
                """\
                from typing import TYPE_CHECKING
                if TYPE_CHECKING:
                    from pkg.a import A
                else:
                    A = None
                """
            ),
        },
    )
    assert found == [["pkg.a", "pkg.b", "pkg.a"]]


def test_a_literal_importlib_call_is_an_edge(tmp_path: Path) -> None:
    found = _cycles_of(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import importlib\nimportlib.import_module('pkg.b')\n",
            "pkg/b.py": "from pkg import a\n",
        },
    )
    assert found == [["pkg.a", "pkg.b", "pkg.a"]]


def test_from_a_package_depends_on_its_init_and_on_the_submodule(tmp_path: Path) -> None:
    graph = read_graph(
        _tree(
            tmp_path,
            {
                "pkg/__init__.py": "from pkg.a import run\nfrom pkg import sub\n",
                "pkg/a.py": "def run():\n    pass\n",
                "pkg/b.py": "from pkg import a, run\n",
                "pkg/sub/__init__.py": "from . import c\n",
                "pkg/sub/c.py": "from .. import b\nfrom ..a import run\n",
            },
        ),
        roots=("pkg",),
    )
    assert graph.targets("pkg.b") == {"pkg", "pkg.a"}
    # Relative imports resolve against the package; the package's own ``from . import``
    # names itself, which is no edge.
    assert graph.targets("pkg.sub") == {"pkg.sub.c"}
    assert graph.targets("pkg.sub.c") == {"pkg", "pkg.b", "pkg.a"}
    assert graph.targets("pkg") == {"pkg.a", "pkg.sub"}
    # The re-exports make real cycles: a submodule reading its package's __init__
    # (directly, or through pkg.b), which imports that submodule's package.
    assert cycles(graph) == [
        ["pkg", "pkg.sub", "pkg.sub.c", "pkg"],
        ["pkg", "pkg.sub", "pkg.sub.c", "pkg.b", "pkg"],
    ]


def test_a_package_importing_its_submodules_is_no_cycle_by_itself(tmp_path: Path) -> None:
    """Python runs a package before its submodules; a submodule that does not name its
    package does not depend on it (else every re-exporting package were a cycle)."""
    found = _cycles_of(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import A\nfrom pkg.b import B\n",
            "pkg/a.py": "class A: ...\n",
            "pkg/b.py": "from pkg.a import A\nclass B(A): ...\n",
        },
    )
    assert found == []


@pytest.mark.parametrize("outside", ["import json\n", "from collections import deque\n"])
def test_imports_outside_the_scanned_packages_are_no_edges(tmp_path: Path, outside: str) -> None:
    graph = read_graph(
        _tree(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": outside}), roots=("pkg",)
    )
    assert graph.edges == ()
