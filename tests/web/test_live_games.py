"""A whole game of each game, played to its end by clicks in the Activity, in headless
Chromium inside the fake Discord host, against the REAL server (the bot process with
WEB_PORT on the Discord emulator, signed in through the emulator's OAuth2).

A choice that has a touch target on the board is played by clicking the board; any other
by the shell's button, the guided steps in the step panel, Winter Tales' passages typed
in the form's text box. The extra seats are AI seats (short, real games). Every state
the page received is checked against the table's replay (each the viewer's own view at
its version, a view that does not move when the others' secrets are resampled).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest

from tests.e2e.hidden import assert_web_views_hidden
from tests.web.conftest import DESKTOP
from tests.web.live import Board, Live, play_to_the_end

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class Setup:
    game: str
    options: str = ""
    ais: int = 0
    seed: int = 1
    level: str | None = None


SETUPS = {
    "fairy-tale-inn": Setup("fairy-tale-inn", ais=1),  # two seats: the game's only count
    "pocket": Setup("pocket", "special=boots"),  # solo, as the rulebook allows
    "treasure": Setup("treasure", "king_path_length=4"),  # solo, the shortest king's path
    "crossroads-inn": Setup("crossroads-inn", "basic_tiles=random", ais=1),
    "winter-tales": Setup("winter-tales", ais=2),  # three seats at least; 3 Memories
}

WINTER_PREFER = {"start_quest": 200.0, "generate_quest": 60.0, "complete_objective": 5.0,
                 "play_card": 3.0, "pass": 3.0, "done": 2.0, "take_part": 2.0,
                 "relocate": 1.0, "step_in": 1.0, "move": 0.5, "save": 0.3, "battle": 0.2,
                 "trap": 0.2, "use_power": 0.2, "free_round": 0.2,
                 "attack_objective": 0.2, "swap_objective": 0.1}
"""The weights of tests/e2e/test_winter_e2e.py: random Winter Tales may wander for
hundreds of moves; a storyteller who starts Quests ends the three Memories soon."""


def winter_weight(board: Board, choice: dict[str, Any]) -> float:
    """A choice's kind from its code (``a<i>``: action i of the seat's legal list now,
    ``k<kind>``/``g<kind>.<j>``: a menu of one kind), weighted as the e2e test does."""
    from engines import get_game

    code = choice["code"]
    kind = ""
    if code.startswith("a") and code[1:].isdigit():
        row = board.live.row()
        game = get_game("winter-tales")
        seat = next(s["index"] for s in row.seats if s.get("user_id") == board.person.id)
        legal = game.legal_actions(game.load_state(row.state), seat)
        index = int(code[1:])
        kind = legal[index].kind if index < len(legal) else ""
    elif code.startswith("g"):
        kind = code[1:].rpartition(".")[0]
    elif code.startswith("k"):
        kind = code[1:]
    return WINTER_PREFER.get(kind, 1.0)


def passage(n: int) -> str:
    return f"The lantern swayed in the snow, and the {n}th bell answered softly."


@pytest.mark.parametrize("game", list(SETUPS))
def test_a_whole_game_by_clicks_in_the_activity(browser: Any, live: Live, game: str) -> None:
    setup = SETUPS[game]
    started = time.monotonic()
    ann = live.call(lambda: live.emu.user("ann"))
    live.open_table(game, [ann], options=setup.options, ais=setup.ais, seed=setup.seed,
                    level=setup.level)
    board = live.board(browser(DESKTOP), ann, seed=setup.seed, words=passage,
                       weigh=winter_weight if game == "winter-tales" else None)
    first = board.snapshot()
    assert first is not None and first["seat"] is not None and not first["banner"]

    made = play_to_the_end(live, [board], max_choices=600, timeout=150)

    row = live.row()
    assert row.status == "finished"
    shown = board.wait_version(row.version)
    assert shown["status"] == "finished" and shown["menus"] == [] and shown["targets"] == []
    states = board.states()
    final = states[-1]
    assert final["version"] == row.version and final["table"]["status"] == "finished"
    assert final["view"] is not None

    # Every choice with a touch target was played on the board, and the board's click
    # sent that very choice (Board.play_one checks the code the page sent).
    assert made == len(board.played) > 0
    assert [p for p in board.played if p.had_target and p.where != "board"] == []
    kinds = Counter(p.where for p in board.played)
    drawn = board.js("return document.getElementById('board').dataset.board")
    if drawn != "facts":  # the game has a board: it offered its choices on it
        assert drawn == f"game:{game}"
        assert kinds["board"] > 0, f"{game}: no choice was played on the board ({kinds})"
    if game == "winter-tales":
        assert kinds["form"] > 0, "no passage was typed in the form"

    # What the browser received: each state the seat's own view at its version.
    checked = assert_web_views_hidden(live.db, live.emu.channel.id,
                                      {ann.id: board.all_received()})
    assert checked == len(states) > 0
    assert live.bot is not None
    live.bot.assert_log_clean()
    print(f"{game}: {made} choices ({dict(kinds)}), v{row.version}, "
          f"{time.monotonic() - started:.1f}s")
