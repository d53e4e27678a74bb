"""Rule tests for Save the Treasure of Fairy Tales (rules/save_the_treasure.txt)."""

from __future__ import annotations

import pytest

from engines import get_game
from engines.core import GameOver, IllegalAction, NotYourTurn, Rng
from engines.treasure import (
    GameEnded,
    GardenBlossoms,
    KingWalked,
    LeftGarden,
    PageFound,
    SaveTheTreasure,
    Slid,
    Slide,
    Stay,
    Stayed,
    Step,
    StopSliding,
    TreasureState,
    TurnGreen,
    load_data,
    square_name,
)

GAME: SaveTheTreasure = get_game("treasure")  # type: ignore[assignment]
N = 5


def cell(name: str) -> int:
    return (ord(name[0]) - ord("A")) * N + int(name[1:]) - 1


# Partners never share a row or column, and the open squares of the pictures below
# never show a pair: a slide uncovers a pair only where a test puts one on purpose.
DEFAULT_FACES = (-1, 2, 14, 8, 21, 15, 23, 6, 4, 0, 5, 7, 3, 1, 19, 10, 9, 13, 20, 17, 12, 18,
                 11, 16, 22)


def build(rows: list[str], shown: dict[str, int] | None = None, players: int = 1,
          figures: dict[int, str] | None = None, **fields: object) -> TreasureState:
    """A state from a picture of the box: ``G`` green tile, ``g`` grey tile, ``_`` open.

    ``shown`` puts fairy-tale faces (``tale * 2 + half``, -1 blank) on squares; the rest
    of the 24 halves lie as in DEFAULT_FACES; the apple-tree corner A1 is blank.
    ``figures`` puts seats' figures on the tile lying on a square (default: on A1).
    """
    state = GAME.setup(players, GAME.Options(), seed=0)
    tokens = [t for row in rows for t in row.split()]
    assert len(tokens) == N * N
    cover, green = [-1] * (N * N), []
    for c, tok in enumerate(tokens):
        if tok in "Gg":
            cover[c] = len(green)
            green.append(tok == "G")
    faces = list(DEFAULT_FACES)
    for name, face in (shown or {}).items():
        c = cell(name)
        if face >= 0 and face in faces:
            other = faces.index(face)
            faces[other], faces[c] = faces[c], face
        else:
            faces[c] = face
    state.cover, state.green, state.faces = cover, green, faces
    figures = figures or {}
    state.figures = [cover[cell(figures.get(s, "A1"))] for s in range(players)]
    for key, value in fields.items():
        setattr(state, key, value)
    return state


def slide(state: TreasureState, square: str, direction: str, seat: int | None = None):
    c = cell(square)
    seat = state.turn if seat is None else seat
    return GAME.apply(state, seat, Slide(row=c // N, col=c % N, direction=direction))


def open_squares(state: TreasureState) -> list[str]:
    return [square_name(c, N) for c in range(N * N) if state.cover[c] < 0]


# Halves of tale t: 2t and 2t+1. These pictures keep every visible half unmatched.
TWO_GAPS_RIGHT = [
    "G g g g g",
    "g g _ _ g",
    "g g g g g",
    "g g g g _",
    "g g g g g",
]


# --------------------------------------------------------------------------- content


def test_content_file_is_valid_and_complete() -> None:
    data = load_data()
    assert len(data.tales) == 12
    assert data.box.rows == data.box.cols == 5
    assert data.meadow_tiles == 22
    assert data.about.startswith("Save the Treasure")
    for tale in data.tales:
        assert tale.name and tale.caption and tale.picture.description


# --------------------------------------------------------------------------- setup


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup_invariants(players: int) -> None:
    for seed in range(40):
        state = GAME.setup(players, GAME.Options(), seed)
        assert state.faces[state.apple] == -1, "the blank tile lies in the apple-tree corner"
        assert sorted(f for f in state.faces if f >= 0) == list(range(24))
        assert sorted(t for t in state.cover if t >= 0) == list(range(22))
        open_ = [c for c in range(25) if state.cover[c] < 0]
        assert len(open_) == 3 and state.apple not in open_
        tales = [state.faces[c] // 2 for c in open_]
        assert all(state.faces[c] >= 0 for c in open_), "three halves are visible"
        assert len(set(tales)) == 3, "no two visible halves belong together"
        assert state.green.count(True) == 1 and state.green[state.cover[state.apple]]
        assert state.figures == [state.cover[state.apple]] * players
        assert state.king == 0 and state.pages == [] and GAME.to_act(state) == [0]
        assert GAME.visible_pair(state) is None


def test_setup_is_seeded_and_varies() -> None:
    a = GAME.setup(2, GAME.Options(), 11)
    assert GAME.dump_state(a) == GAME.dump_state(GAME.setup(2, GAME.Options(), 11))
    assert a.faces != GAME.setup(2, GAME.Options(), 12).faces


def test_gate_is_diagonally_opposite_the_apple_tree() -> None:
    state = GAME.setup(1, GAME.Options(), 0)
    assert square_name(state.apple, N) == "A1" and square_name(state.gate, N) == "E5"


def test_player_count_is_checked() -> None:
    with pytest.raises(IllegalAction):
        GAME.setup(5, GAME.Options(), 0)
    with pytest.raises(IllegalAction):
        GAME.setup(0, GAME.Options(), 0)


# --------------------------------------------------------------------------- sliding


def test_single_tile_slides_until_it_bumps_into_a_tile() -> None:
    state = build(TWO_GAPS_RIGHT)
    tile = state.cover[cell("B2")]
    events = slide(state, "B2", "right")
    # B2 moves over B3 and B4 and stops because B5 holds a tile.
    assert state.cover[cell("B4")] == tile and state.cover[cell("B2")] == -1
    assert open_squares(state) == ["B2", "B3", "D5"]
    ev = events[0]
    assert isinstance(ev, Slid) and ev.distance == 2 and ev.stopped == "tile" and ev.tiles == 1


def test_single_tile_slides_until_the_wall() -> None:
    state = build([
        "G g g g g",
        "g g g _ _",
        "g g g g g",
        "g g g g _",
        "g g g g g",
    ])
    events = slide(state, "B3", "right")
    assert open_squares(state) == ["B3", "B4", "D5"]
    assert events[0].distance == 2 and events[0].stopped == "wall"


def test_a_line_of_tiles_is_pushed_together() -> None:
    state = build([
        "G g g g g",
        "g g g g g",
        "g g g g g",
        "g g g _ _",
        "g g g g _",
    ])
    row = [state.cover[cell(f"D{i}")] for i in (1, 2, 3)]
    events = slide(state, "D1", "right")
    assert [state.cover[cell(f"D{i}")] for i in (3, 4, 5)] == row
    assert open_squares(state) == ["D1", "D2", "E5"]
    assert events[0].tiles == 3 and events[0].distance == 2 and events[0].stopped == "wall"


def test_pushing_from_the_middle_of_a_row_moves_only_the_front_part() -> None:
    state = build([
        "G g g g _",
        "g g g g g",
        "g g g g g",
        "g g g g _",
        "g g g g _",
    ])
    a1, b1 = state.cover[cell("A1")], state.cover[cell("A3")]
    slide(state, "A3", "right")
    assert state.cover[cell("A1")] == a1, "tiles behind the pushed one stay"
    assert state.cover[cell("A4")] == b1 and state.cover[cell("A3")] == -1


def test_vertical_slides() -> None:
    state = build([
        "G g _ g g",
        "g g _ g g",
        "g g g g g",
        "g g g g g",
        "g g _ g g",
    ])
    column = [state.cover[cell(f"{r}3")] for r in "CD"]
    slide(state, "D3", "up")
    assert [state.cover[cell(f"{r}3")] for r in "AB"] == column
    assert open_squares(state) == ["C3", "D3", "E3"]


def test_slide_stops_as_soon_as_a_pair_is_visible() -> None:
    # B3 and B4 are open; the tale-5 halves lie on A2 (hidden) ... put one half visible
    # on D5 and its partner under B2: pushing B2 right uncovers B2 after one square.
    state = build(TWO_GAPS_RIGHT, shown={"D5": 10, "B2": 11, "B3": 0, "B4": 2})
    tile = state.cover[cell("B2")]
    events = slide(state, "B2", "right")
    assert state.cover[cell("B3")] == tile, "the slide stopped after one square"
    slid = events[0]
    assert isinstance(slid, Slid) and slid.distance == 1 and slid.stopped == "pair"
    assert any(isinstance(e, PageFound) and e.tale == load_data().tales[5].name
               for e in events)


def test_figures_ride_along() -> None:
    state = build([
        "G G g g _",
        "g g g g g",
        "g g g g g",
        "g g g g _",
        "g g g g _",
    ], players=2, figures={0: "A1", 1: "A2"})
    tiles = list(state.figures)
    events = slide(state, "A1", "right")
    assert state.figures == tiles, "figures stay on their tiles"
    assert state.cover[cell("A2")] == tiles[0] and state.cover[cell("A3")] == tiles[1]
    assert events[0].riders == [0, 1]
    assert "rode along" in events[0].text(lambda s: f"P{s}")


def test_legal_slides_are_exactly_the_ones_that_move_something() -> None:
    for seed in range(10):
        state = GAME.setup(2, GAME.Options(), seed)
        legal = {a for a in GAME.legal_actions(state, 0) if isinstance(a, Slide)}
        assert legal
        for c in range(25):
            for d in ("up", "down", "left", "right"):
                action = Slide(row=c // N, col=c % N, direction=d)
                copy = GAME.copy_state(state)
                if action in legal:
                    before = list(copy.cover)
                    GAME.apply(copy, 0, action)
                    assert copy.cover != before
                else:
                    with pytest.raises(IllegalAction):
                        GAME.apply(copy, 0, action)
                    assert GAME.dump_state(copy) == GAME.dump_state(state)


def test_illegal_slides_explain_why() -> None:
    state = build(TWO_GAPS_RIGHT)
    with pytest.raises(IllegalAction, match="against the wall"):
        slide(state, "B1", "left")
    with pytest.raises(IllegalAction, match="reach all the way to the wall"):
        slide(state, "A1", "right")
    with pytest.raises(IllegalAction, match="no meadow tile on B3"):
        slide(state, "B3", "left")
    with pytest.raises(IllegalAction, match="no square at row 7"):
        GAME.apply(state, 0, Slide(row=6, col=0, direction="up"))
    with pytest.raises(IllegalAction, match="at least once"):
        GAME.apply(state, 0, StopSliding())
    with pytest.raises(IllegalAction, match="time to slide"):
        GAME.apply(state, 0, Stay())
    with pytest.raises(NotYourTurn):
        GAME.apply(build(TWO_GAPS_RIGHT, players=2), 1, StopSliding())


# --------------------------------------------------------------------------- the turn


def test_second_slide_is_optional_and_the_turn_ends_after_it() -> None:
    state = build(TWO_GAPS_RIGHT, players=2)
    state.green[state.cover[cell("A2")]] = True  # so that a step is possible
    slide(state, "B2", "right")
    assert state.stage == "slide" and state.slides == 1
    assert StopSliding() in GAME.legal_actions(state, 0)
    slide(state, "D4", "right")
    assert state.stage == "step" and state.turn == 0
    assert Stay() in GAME.legal_actions(state, 0), "the step without a page is optional"
    assert StopSliding() not in GAME.legal_actions(state, 0)
    GAME.apply(state, 0, Stay())
    assert state.turn == 1 and state.stage == "slide" and state.slides == 0


def test_stopping_after_one_slide_goes_to_the_step() -> None:
    state = build(TWO_GAPS_RIGHT, players=2)
    slide(state, "B2", "right")
    events = GAME.apply(state, 0, StopSliding())
    # A1's green tile has no green neighbour: the step is skipped, the turn passes.
    assert any(isinstance(e, Stayed) and e.reason == "blocked" for e in events)
    assert state.turn == 1


def test_optional_step_onto_an_adjacent_green_tile() -> None:
    state = build([
        "G G g g g",
        "g g _ _ g",
        "g g g g g",
        "g g g g _",
        "g g g g g",
    ], players=2)
    slide(state, "B2", "right")
    GAME.apply(state, 0, StopSliding())
    assert set(GAME.legal_actions(state, 0)) == {Step(direction="right"), Stay()}
    with pytest.raises(IllegalAction, match="only step onto green"):
        GAME.apply(state, 0, Step(direction="down"))
    with pytest.raises(IllegalAction, match="that's the wall"):
        GAME.apply(state, 0, Step(direction="up"))
    events = GAME.apply(state, 0, Step(direction="right"))
    assert state.figures[0] == state.cover[cell("A2")]
    assert "stepped right to A2" in events[0].text(lambda s: f"P{s}")
    assert state.turn == 1


def test_cannot_step_into_an_open_square() -> None:
    state = build([
        "G _ g g g",
        "g g _ g g",
        "g g g g g",
        "g g g g _",
        "g g g g g",
    ])
    slide(state, "D4", "right")
    GAME.apply(state, 0, StopSliding())
    # figure on A1, A2 open, B1 grey: nothing to step onto -> skipped
    assert state.stage == "slide" and state.slides == 0


# --------------------------------------------------------------------------- a found page


def test_found_page_procedure() -> None:
    state = build(TWO_GAPS_RIGHT, players=2, shown={"D5": 10, "B2": 11, "B3": 0, "B4": 2})
    state.green[state.cover[cell("A2")]] = True
    events = slide(state, "B2", "right")
    assert state.pages == [5]
    assert state.faces[cell("D5")] == -1 and state.faces[cell("B2")] == -1, "halves turn blank"
    assert 10 not in state.faces and 11 not in state.faces
    assert state.stage == "green" and state.found
    assert GAME.legal_actions(state, 0) == [
        TurnGreen(row=c // N, col=c % N) for c in range(25)
        if state.cover[c] >= 0 and not state.green[state.cover[c]]
    ]
    assert "1 of 12 pages" in events[-1].text(lambda s: f"P{s}")
    # no second slide after a page
    with pytest.raises(IllegalAction, match="grey meadow tile"):
        slide(state, "B1", "right")
    with pytest.raises(IllegalAction, match="already green"):
        GAME.apply(state, 0, TurnGreen(row=0, col=0))
    with pytest.raises(IllegalAction, match="no meadow tile on B2"):
        GAME.apply(state, 0, TurnGreen(row=1, col=1))
    GAME.apply(state, 0, TurnGreen(row=1, col=0))  # B1
    assert state.green[state.cover[cell("B1")]]
    assert state.stage == "step"
    # the step after a page is compulsory when possible
    assert set(GAME.legal_actions(state, 0)) == {Step(direction="right"),
                                                 Step(direction="down")}
    with pytest.raises(IllegalAction, match="must take a step"):
        GAME.apply(state, 0, Stay())
    events = GAME.apply(state, 0, Step(direction="down"))
    assert state.figures[0] == state.cover[cell("B1")]
    assert not any(isinstance(e, KingWalked) for e in events), "the king rests after a page"
    assert state.king == 0 and state.turn == 1 and not state.found


def test_found_page_with_no_green_neighbour_skips_the_step() -> None:
    state = build(TWO_GAPS_RIGHT, players=2, shown={"D5": 10, "B2": 11, "B3": 0, "B4": 2})
    slide(state, "B2", "right")
    events = GAME.apply(state, 0, TurnGreen(row=4, col=4))  # far away
    assert any(isinstance(e, Stayed) and e.reason == "blocked" for e in events)
    assert state.turn == 1 and state.king == 0


def test_page_on_second_slide() -> None:
    state = build(TWO_GAPS_RIGHT, players=1, shown={"B4": 10, "C3": 11})
    slide(state, "D4", "right")
    assert state.stage == "slide" and not state.pages
    slide(state, "C3", "up")  # uncovers C3 (tale 5) while B4 shows its partner
    assert state.pages == [5] and state.stage == "green"


# --------------------------------------------------------------------------- the king


def _no_page_turn(state: TreasureState) -> list:
    seat = state.turn
    events = []
    slide_action = next(a for a in GAME.legal_actions(state, seat) if isinstance(a, Slide))
    events += GAME.apply(state, seat, slide_action)
    assert not state.found
    if state.stage == "slide":
        events += GAME.apply(state, seat, StopSliding())
    if state.stage == "step" and state.turn == seat:
        events += GAME.apply(state, seat, Stay())
    return events


def test_king_waits_until_the_first_page_in_the_standard_game() -> None:
    state = build(TWO_GAPS_RIGHT, players=2, shown={"B3": 0, "B4": 2, "D5": 4})
    state.faces = [f if f not in (1, 3, 5) else -1 for f in state.faces]  # no partners left
    for _ in range(4):
        events = _no_page_turn(state)
        assert not any(isinstance(e, KingWalked) for e in events)
    assert state.king == 0
    state.pages = [7]
    events = _no_page_turn(state)
    assert [e.position for e in events if isinstance(e, KingWalked)] == [1]


def test_king_walks_from_the_start_in_the_variant() -> None:
    state = build(TWO_GAPS_RIGHT, players=2, shown={"B3": 0, "B4": 2, "D5": 4}, variant=True)
    state.faces = [f if f not in (1, 3, 5) else -1 for f in state.faces]
    for i in range(3):
        events = _no_page_turn(state)
        assert [e.position for e in events if isinstance(e, KingWalked)] == [i + 1]
    view = GAME.view(state, None)
    assert view.king == 3 and view.king_walking


def test_variant_option_reaches_setup() -> None:
    opts = GAME.parse_options({"variant": True, "king_path_length": 9})
    state = GAME.setup(3, opts, 1)
    assert state.variant and state.path_length == 9
    assert GAME.setup(1, GAME.Options(), 1).path_length == load_data().king_path_length
    with pytest.raises(IllegalAction):
        GAME.parse_options({"king_path_length": 1})
    with pytest.raises(IllegalAction):
        GAME.parse_options({"colour": "red"})


def test_king_back_at_the_crown_loses() -> None:
    state = build(TWO_GAPS_RIGHT, players=2, shown={"B3": 0, "B4": 2, "D5": 4},
                  variant=True, path_length=4, king=3)
    state.faces = [f if f not in (1, 3, 5) else -1 for f in state.faces]
    events = _no_page_turn(state)
    assert state.result == "lost" and GAME.to_act(state) == []
    assert isinstance(events[-1], GameEnded) and not events[-1].won
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [] and "king" in outcome.reason
    with pytest.raises(GameOver):
        GAME.apply(state, 0, StopSliding())


# --------------------------------------------------------------------------- the end phase


def _almost_done(**fields: object) -> TreasureState:
    state = build(TWO_GAPS_RIGHT, players=2, shown={"D5": 10, "B2": 11, "B3": 0, "B4": 2},
                  **fields)
    state.pages = [t for t in range(12) if t != 5]
    state.faces = [f if f in (10, 11) else -1 for f in state.faces]
    return state


def test_twelfth_page_makes_the_garden_blossom() -> None:
    state = _almost_done()
    events = slide(state, "B2", "right")
    assert len(state.pages) == 12 and state.endgame
    assert all(state.green), "every grey tile turns green"
    assert any(isinstance(e, GardenBlossoms) for e in events)
    assert state.stage == "step" and Stay() not in GAME.legal_actions(state, 0)
    GAME.apply(state, 0, Step(direction="right"))
    assert state.turn == 1 and state.king == 0, "no king step on the page's turn"


def _end_phase(**fields: object) -> TreasureState:
    state = _almost_done(**fields)
    state.pages = list(range(12))
    state.faces = [-1] * 25
    state.green = [True] * len(state.green)
    state.endgame = True
    return state


def test_end_phase_turn_two_slides_step_king() -> None:
    state = _end_phase()
    assert StopSliding() in GAME.legal_actions(state, 0), "sliding is optional at the end"
    slide(state, "B2", "right")
    assert state.stage == "slide"
    slide(state, "B5", "down")
    assert state.stage == "step" and Stay() in GAME.legal_actions(state, 0)
    events = GAME.apply(state, 0, Step(direction="down"))
    assert [e.position for e in events if isinstance(e, KingWalked)] == [1]
    assert state.turn == 1


def test_end_phase_no_slides_then_step() -> None:
    state = _end_phase()
    GAME.apply(state, 0, StopSliding())
    assert state.stage == "step"
    GAME.apply(state, 0, Step(direction="right"))
    assert state.king == 1


def test_figures_leave_at_the_gate_and_the_team_wins() -> None:
    state = _end_phase(figures={0: "E4", 1: "E5"})
    # Seat 1's figure already stands on the gate tile; a figure reaches it when any
    # event runs _leave: here seat 0 steps onto the gate tile with seat 1 there.
    GAME.apply(state, 0, StopSliding())
    events = GAME.apply(state, 0, Step(direction="right"))
    left = [e.seat for e in events if isinstance(e, LeftGarden)]
    assert sorted(left) == [0, 1]
    assert state.result == "won" and isinstance(events[-1], GameEnded) and events[-1].won
    assert not any(isinstance(e, KingWalked) for e in events), "the win comes first"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winners == [0, 1]


def test_one_figure_out_others_still_play() -> None:
    state = _end_phase(figures={0: "E4", 1: "A1"})
    GAME.apply(state, 0, StopSliding())
    events = GAME.apply(state, 0, Step(direction="right"))
    assert [e.seat for e in events if isinstance(e, LeftGarden)] == [0]
    assert state.result is None and state.figures[0] == -1 and state.turn == 1
    GAME.apply(state, 1, StopSliding())
    GAME.apply(state, 1, Stay())
    # seat 0 still takes turns (it can slide to help); its step is skipped
    slide(state, "B2", "right")
    events = GAME.apply(state, 0, StopSliding())
    assert any(isinstance(e, Stayed) and e.reason == "gone" for e in events)
    assert state.turn == 1 and state.king == 3


def test_riding_onto_the_gate_leaves_the_garden() -> None:
    state = build([
        "G g g g g",
        "g g g g g",
        "g g g g _",
        "g g g g G",
        "g g g g _",
    ], players=1, figures={0: "D5"}, endgame=True, pages=list(range(12)))
    state.faces = [-1] * 25
    events = slide(state, "D5", "down")
    assert any(isinstance(e, LeftGarden) for e in events)
    assert state.result == "won"


def test_king_back_in_the_end_phase_loses() -> None:
    state = _end_phase(king=19, path_length=20)
    GAME.apply(state, 0, StopSliding())
    events = GAME.apply(state, 0, Stay())
    assert state.result == "lost" and isinstance(events[-1], GameEnded)
    assert "before everyone left" in GAME.outcome(state).reason


# --------------------------------------------------------------------------- views


def test_view_hides_covered_halves() -> None:
    state = GAME.setup(3, GAME.Options(), 5)
    view = GAME.view(state, None)
    for c, cv in zip(range(25), view.cells, strict=True):
        if state.cover[c] >= 0:
            assert cv.face is None and cv.meadow in ("grey", "green")
        else:
            assert cv.face is not None and cv.meadow is None
            assert cv.face.tale == load_data().tales[state.faces[c] // 2].id
    dumped = view.model_dump_json()
    hidden = {load_data().tales[state.faces[c] // 2].id for c in range(25)
              if state.cover[c] >= 0 and state.faces[c] >= 0}
    shown = {cv.face.tale for cv in view.cells if cv.face}
    for tale in hidden - shown:
        assert tale not in dumped
    assert view.cells[0].figures == [0, 1, 2]


def test_determinize_changes_only_hidden_halves() -> None:
    state = GAME.setup(2, GAME.Options(), 8)
    changed = False
    for i in range(5):
        other = GAME.determinize(state, 0, Rng.from_seed(i))
        assert GAME.view(other, 0) == GAME.view(state, 0)
        for c in range(25):
            if state.cover[c] < 0 or c == state.apple:
                assert other.faces[c] == state.faces[c]
        assert sorted(other.faces) == sorted(state.faces)
        changed |= other.faces != state.faces
    assert changed


def test_events_have_friendly_text() -> None:
    state = GAME.setup(2, GAME.Options(), 2)
    rng = Rng.from_seed(2)
    while state.result is None:
        seat = GAME.to_act(state)[0]
        for e in GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat))):
            text = e.text(lambda s: ["Ann", "Ben"][s])
            assert text and text[0].isupper() and "_" not in text


def test_invariants_hold_through_random_games() -> None:
    for players, seed in ((1, 1), (2, 2), (4, 3)):
        state = GAME.setup(players, GAME.parse_options({"king_path_length": 60}), seed)
        rng = Rng.from_seed(seed)
        while state.result is None:
            assert sorted(t for t in state.cover if t >= 0) == list(range(22))
            for t in state.figures:
                assert t < 0 or state.green[t], "figures only ever stand on green tiles"
            if state.stage == "slide":
                assert GAME.visible_pair(state) is None, "a turn never starts with a pair"
            for c in range(25):
                if state.cover[c] < 0:
                    assert state.seen[c] == state.faces[c], "what is visible is remembered"
            assert state.faces.count(-1) == 1 + 2 * len(state.pages)
            assert state.king <= state.path_length
            seat = GAME.to_act(state)[0]
            GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)))
