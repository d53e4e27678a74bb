"""Crossroads Inn pictures: the table, the inns, the private hand and the text board.

Views are built directly (CrossroadsView / PlayerView with real content ids) for 2 and 4
players, empty and full inns, the draft and a seat with Recipes; when the engine is
registered, views of random games are drawn too. The tests check what a reader relies on:
PNG bytes of a phone-friendly width, a picture per seat that really differs, a hand drawn
from its own view alone, and refusals of unknown parts."""

from __future__ import annotations

import io
import itertools
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

from engines.crossroads_inn.content import load_content
from engines.crossroads_inn.state import BuiltView, CrossroadsView, PendingView, PlayerView
from renderers import crossroads_inn as cr
from tests.picture_checks import flat_error, seen_on_a_phone

C = load_content()
NAMES = ["Ann", "Bruno", "Chiara", "Dmitri"]
PNG = b"\x89PNG\r\n\x1a\n"
GROUPS = [g.id for g in C.groups]
TIER1 = [t.id for t in C.inn_tiles if t.tier == 1]
TIER2 = [t.id for t in C.inn_tiles if t.tier == 2]
INGREDIENT_TILES = [t.id for t in C.inn_tiles if t.ingredient]
CORNERS = ["r0c0", "r0c4", "r3c0", "r3c4"]
MAIN = [f"r{r}c{c}" for r in range(4) for c in range(5) if f"r{r}c{c}" not in CORNERS]


# --------------------------------------------------------------------------- builders


def player(seat: int, **kw: Any) -> PlayerView:
    data: dict[str, Any] = {
        "seat": seat, "prestige": 6, "revenue": 4, "chest": 0, "pouch": 4, "debts": 0,
        "gossips": {"economic": 1, "political": 1, "travellers": 1},
        "reputation": dict.fromkeys(GROUPS, 1), "closed_door": None, "open_door": None,
        "recipes": 2, "completed": [], "reserved": [], "inn": {}, "covered": 0, "turns": 0,
        "basics_face_down": 0,
    }
    data.update(kw)
    inn = data["inn"]
    data["covered"] = sum(1 for s in inn if s in MAIN)
    return PlayerView(**data)


def view(players: int, seats: list[PlayerView] | None = None, **kw: Any) -> CrossroadsView:
    data: dict[str, Any] = {
        "seat": None, "players": players, "phase": "turn", "step": "impression", "active": 0,
        "kingdom": [], "seats": seats or [player(s) for s in range(players)],
        "tracks": [TIER1[:4], TIER2[:4]], "pouches": [56, 48], "discards": [[], []],
        "deck": 9, "recipe_discard": 0, "line_pool": {}, "bought": [], "built": [],
        "impression_done": False, "gossips_used": [], "buys_left": 2,
        "reserved_this_turn": False, "announced_by": None, "last_turns": [],
        "last_roll": None, "draft_round": 0, "pending": None,
        "prompt": "Change the Guest Impression, or go on.",
    }
    data.update(kw)
    return CrossroadsView(**data)


def basics_inn(offset: int = 0) -> dict[str, BuiltView]:
    basics = [b.id for b in C.basic_tiles]
    return {s: BuiltView(tile=basics[(offset + k) % len(basics)], basic=True)
            for k, s in enumerate(CORNERS)}


def full_inn(offset: int = 0, covered_corners: int = 2) -> dict[str, BuiltView]:
    """Every space built: ingredient tiles carry tokens, two corners covered."""
    inn = basics_inn(offset)
    tiles = [t.id for t in C.inn_tiles]
    for k, s in enumerate(MAIN):
        t = C.tile(tiles[(offset * 7 + k * 3) % len(tiles)])
        inn[s] = BuiltView(tile=t.id, ingredients=[t.ingredient] if t.ingredient else [],
                           in_line=k in (0, 1, 2))
    for s in CORNERS[:covered_corners]:
        t = C.tile(INGREDIENT_TILES[(offset + CORNERS.index(s)) % len(INGREDIENT_TILES)])
        inn[s] = BuiltView(tile=t.id, ingredients=[t.ingredient, t.ingredient],
                           covers=inn[s].tile)
    return inn


def busy_view(players: int, seat: int | None = None) -> CrossroadsView:
    """A late-game table: full and half inns, reserved tiles, Kingdom #8 with its pool."""
    seats = []
    for s in range(players):
        inn = full_inn(s) if s % 2 == 0 else dict(itertools.islice(full_inn(s).items(), 10))
        seats.append(player(
            s, prestige=20 + 7 * s, revenue=3 + s, chest=5 + s, pouch=2, debts=s % 3,
            gossips={"economic": s % 4, "political": 3, "travellers": (s + 1) % 4},
            reputation={g: (s * 3 + k * 2) % 13 for k, g in enumerate(GROUPS)},
            closed_door=GROUPS[s % 5], open_door=GROUPS[(s + 2) % 5], recipes=1 + s,
            completed=[C.recipes[s].id], reserved=[TIER2[s], TIER1[s + 5]][: 1 + s % 2],
            inn=inn, turns=12))
    return view(players, seats, seat=seat, step="build", active=1, kingdom=[8, 7],
                line_pool={"economic": 1, "political": 0, "travellers": 2, "guldens": 2},
                tracks=[[TIER1[6], None, TIER1[7], TIER1[2]], TIER2[4:8]],
                discards=[[TIER1[0], TIER1[1]], [TIER2[9]]], pouches=[31, 0],
                bought=["gilded_throne", "steel_cages"], built=["r1c1"], buys_left=0,
                impression_done=True, gossips_used=["economic", "travellers"],
                reserved_this_turn=True, last_roll=4, deck=3, recipe_discard=5,
                prompt="Place Gilded throne (bought first): choose an empty space.",
                my_recipes=(["honey_glazed_venison", "cuckold_stew", "herbal_tea"]
                            if seat is not None else None),
                my_pack=[] if seat is not None else None,
                my_kept=[] if seat is not None else None)


def draft_view(players: int, seat: int | None) -> CrossroadsView:
    basics = [b.id for b in C.basic_tiles]
    seats = [player(s, basics_face_down=4) for s in range(players)]
    mine = seat is not None
    return view(players, seats, seat=seat, phase="draft", step=None, active=None,
                draft_round=1, prompt="Draft: keep one Basic Inn Tile, pass the rest left.",
                my_recipes=["berry_tart", "citrus_punch"] if mine else None,
                my_pack=basics[4:7] if mine else None, my_kept=basics[:1] if mine else None,
                pending=PendingView(seat=seat or 0, kind="draft", prompt="Keep one tile.",
                                    options=basics[4:7] if mine else []))


def decode(png: bytes) -> Image.Image:
    assert png[:8] == PNG
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


def check_png(png: bytes, max_height: int = 5200) -> Image.Image:
    img = decode(png)
    assert img.width == cr.W
    assert 200 < img.height <= max_height, img.size
    assert len(png) < 900_000
    return img


# --------------------------------------------------------------------------- the table


@pytest.mark.parametrize("players", [2, 3, 4])
def test_table_renders_empty_and_busy_tables(players: int) -> None:
    empty = check_png(cr.render(view(players), NAMES))
    busy = check_png(cr.render(busy_view(players), NAMES))
    assert busy.height > empty.height  # Kingdom Cards, more status, more chips
    # Phone check: shown ~400 px wide, the picture stays at most about three phones tall.
    assert busy.height / busy.width * 400 < 1500


def test_default_part_is_the_table_and_names_are_optional() -> None:
    v = busy_view(2)
    assert cr.render(v) == cr.render(v, part="table")
    assert cr.render(v, names=None) == cr.render(v, names=["Player A", "Player B"])
    assert cr.render(v, names=NAMES[:2]) != cr.render(v)


def test_table_accepts_the_json_form_of_the_view() -> None:
    v = busy_view(3)
    assert cr.render(v.model_dump(mode="json"), NAMES) == cr.render(v, NAMES)


def test_table_shows_the_track_tiles() -> None:
    a = view(2)
    b = view(2, tracks=[TIER1[4:8], TIER2[:4]])
    c = view(2, tracks=[[None, None, None, None], TIER2[:4]])
    pictures = {cr.render(x) for x in (a, b, c)}
    assert len(pictures) == 3


def test_table_shows_reputation_tokens() -> None:
    seats = [player(0), player(1, reputation={**dict.fromkeys(GROUPS, 1), "nobles": 12})]
    assert cr.render(view(2)) != cr.render(view(2, seats))


@pytest.mark.parametrize("phase", ["draft", "place_basics", "over"])
def test_table_in_every_phase(phase: str) -> None:
    seats = [player(s, score=40 + s if phase == "over" else None,
                    basics_face_down=4 if phase != "over" else 0) for s in range(4)]
    v = view(4, seats, phase=phase, step=None if phase != "turn" else "invest",
             active=None, winners=[3] if phase == "over" else [],
             announced_by=2 if phase == "over" else None, last_turns=[3])
    check_png(cr.render(v, NAMES))


def test_public_view_without_recipes_renders_everything() -> None:
    v = busy_view(4)
    assert v.seat is None and v.my_recipes is None
    for part in ("table", "inns", "inn:0", "inn:3"):
        check_png(cr.render(v, NAMES, part=part))
    notice = decode(cr.render_hand(v, NAMES))  # a notice, not a crash
    assert notice.width == cr.W and notice.height < 400
    assert "Your Recipes" not in cr.text_board(v)


# --------------------------------------------------------------------------- inns


def test_inn_picture_differs_per_seat() -> None:
    v = busy_view(4)
    pictures = [cr.render(v, NAMES, part=f"inn:{s}") for s in range(4)]
    assert len(set(pictures)) == 4
    for png in pictures:
        check_png(png)


def test_inn_of_an_empty_and_a_full_inn() -> None:
    other = player(1, inn=basics_inn(4))
    empty = view(2, [player(0, inn=basics_inn()), other])
    full = view(2, [player(0, inn=full_inn(0)), other])
    a = check_png(cr.render(empty, part="inn:0"))
    b = check_png(cr.render(full, part="inn:0"))
    assert a.size[0] == b.size[0]
    assert cr.render(empty, part="inn:0") != cr.render(full, part="inn:0")
    assert cr.render(empty, part="inn:1") == cr.render(full, part="inn:1")


def test_bought_tiles_show_only_on_the_active_seats_inn() -> None:
    base = view(2, step="build")
    bought = view(2, step="build", bought=["chandelier"])
    assert cr.render(base, part="inn:0") != cr.render(bought, part="inn:0")
    assert cr.render(base, part="inn:1") == cr.render(bought, part="inn:1")


def test_no_basic_corners_are_unavailable_not_basic() -> None:
    """Without Basic Inn Tiles the corners read 'unavailable'; in the draft they are
    Basic spaces waiting for a tile (the pictures differ)."""
    turn = view(2)
    place = view(2, phase="place_basics", step=None, active=None)
    assert cr._basics_unavailable(turn)
    assert not cr._basics_unavailable(place)
    assert not cr._basics_unavailable(view(2, [player(0, inn=basics_inn()), player(1)]))


def _drawn_text(view: CrossroadsView, **options: Any) -> list[str]:
    """Every string the picture draws (its cached parts drawn anew)."""
    from renderers.common import clear_caches, recording_text

    clear_caches()
    with recording_text() as drawn:
        cr.render(view, NAMES, **options)
    return [t.text for t in drawn]


def test_ones_own_inn_speaks_to_its_owner() -> None:
    # "/crossroads inn" for oneself, only to oneself: "Your inn · your turn", not
    # "Ann's inn · their turn".
    v = view(2, active=0)
    mine = _drawn_text(v, part="inn:0", viewer=0)
    assert "Your inn · your turn" in mine
    assert not any("Ann's inn" in t or "their turn" in t for t in mine)
    theirs = _drawn_text(v, part="inn:0", viewer=1)  # someone else looking at Ann's
    assert "Ann's inn · their turn" in theirs and "Your inn" not in " ".join(theirs)
    assert "Ann's inn · their turn" in _drawn_text(v, part="inn:0")  # in the channel
    idle = _drawn_text(view(2, active=1), part="inn:0", viewer=0)
    assert "Your inn" in idle and not any("turn" in t for t in idle if "inn" in t)
    over = view(2, phase="over", step=None, active=None, winners=[0])
    assert "Your inn · you won" in _drawn_text(over, part="inn:0", viewer=0)


def test_all_inns_picture_for_2_and_4_players() -> None:
    two = check_png(cr.render(busy_view(2), NAMES, part="inns"))
    four = check_png(cr.render(busy_view(4), NAMES, part="inns"))
    assert four.height > two.height


@pytest.mark.parametrize("part", ["", "inn", "inn:", "inn:4", "inn:-1", "inn:x", "hand",
                                  "Table", "inn:1 ", "inns:0"])
def test_bad_parts_raise_value_error(part: str) -> None:
    with pytest.raises(ValueError, match="part must be"):
        cr.render(busy_view(4), NAMES, part=part)


# --------------------------------------------------------------------------- hand


def test_hand_shows_recipes_and_ownership() -> None:
    v = busy_view(4, seat=0)
    png = cr.render_hand(v, NAMES)
    check_png(png)
    # Owning the ingredients changes the picture (the ✓ / ✗ beside each one).
    me = v.seats[0].model_copy(update={"inn": {}})
    bare = v.model_copy(update={"seats": [me, *v.seats[1:]]})
    assert cr.render_hand(bare, NAMES) != png


def test_hand_is_drawn_from_the_view_alone() -> None:
    """Same view, same picture; the JSON round trip changes nothing; other seats' inns do
    count nowhere but the player's own (ownership is read from view.seats[view.seat])."""
    v = busy_view(4, seat=2)
    png = cr.render_hand(v, NAMES)
    assert cr.render_hand(CrossroadsView.model_validate_json(v.model_dump_json()), NAMES) == png
    other = v.seats[1].model_copy(update={"inn": {}})
    changed = v.model_copy(update={"seats": [v.seats[0], other, *v.seats[2:]]})
    assert cr.render_hand(changed, NAMES) == png
    fewer = v.model_copy(update={"my_recipes": ["berry_tart"]})
    assert cr.render_hand(fewer, NAMES) != png


def test_hand_renderer_reads_no_state() -> None:
    """The module imports only view models of the engine (never a state to leak from)."""
    import inspect

    source = inspect.getsource(cr)
    for name in ("CrossroadsState", "Player(", "Pending(", "determinize", ".rng"):
        assert name not in source


def test_hand_in_the_draft_shows_pack_and_kept_tiles() -> None:
    v = draft_view(3, seat=1)
    png = cr.render_hand(v, NAMES)
    check_png(png)
    no_pack = v.model_copy(update={"my_pack": []})
    assert cr.render_hand(no_pack, NAMES) != png
    check_png(cr.render(draft_view(3, None), NAMES))


def test_hand_shows_a_pending_recipe_choice() -> None:
    v = busy_view(2, seat=1)
    keep = v.model_copy(update={"pending": PendingView(
        seat=1, kind="keep_recipe", prompt="Keep one of the two Recipes drawn.",
        options=["fishermans_soup", "smiling_witch"])})
    assert decode(cr.render_hand(keep, NAMES)).height > decode(cr.render_hand(v, NAMES)).height
    # The same decision seen by someone else has no options: nothing more is drawn.
    other = keep.model_copy(update={"seat": 0, "pending": keep.pending.model_copy(
        update={"options": []})})
    check_png(cr.render_hand(other, NAMES))






def test_hand_keeps_what_was_drawn() -> None:
    """The hand is stored in its own palette: every flat colour comes back exact, the
    text's edges within a few levels."""
    for v in (busy_view(4, seat=0), busy_view(2, seat=1), draft_view(3, seat=1),
              view(2)):
        drawing = cr.draw_hand(v, NAMES)
        back = decode(cr.render_hand(v, NAMES))
        assert back.mode == "P"
        back = back.convert("RGB")
        assert flat_error(drawing, back) == 0
        seen = ImageStat.Stat(ImageChops.difference(seen_on_a_phone(drawing),
                                                    seen_on_a_phone(back)))
        assert max(seen.mean) < 0.2, seen.mean


def test_public_hand_is_a_notice() -> None:
    a = decode(cr.render_hand(view(2)))
    assert a.height < 400


# --------------------------------------------------------------------------- text


def test_text_board_tells_the_public_table() -> None:
    v = busy_view(4)
    text = cr.text_board(v, lambda s: NAMES[s])
    assert "Bruno's turn" in text and "step: Build" in text
    for tile in v.tracks[1]:
        assert C.tile(tile).name in text
    assert "#8 This guy must be a collector" in text
    assert "Reputation" in text and "Nobles" in text
    assert text.count("'s inn (") == 4
    assert "Your Recipes" not in text
    seat_text = cr.text_board(busy_view(4, seat=0), lambda s: NAMES[s])
    assert "Your Recipes" in seat_text and "Honey-glazed venison" in seat_text


def test_the_end_board_does_not_say_nobody_plays_a_last_turn() -> None:
    # While the game goes on, the announcement names who still plays a last turn; once
    # it is over nobody does, and "Last turns: nobody." said nothing true or useful.
    playing = view(3, announced_by=0, last_turns=[1, 2])
    assert "Ann announced the end. Last turns: Bruno, Chiara." in _drawn_text(playing)
    over = view(3, phase="over", step=None, active=None, announced_by=0, last_turns=[],
                winners=[1], prompt="The game is over: the best inn has 30 Prestige.")
    drawn = _drawn_text(over)
    assert "Ann announced the end of the game." in drawn
    assert not any("nobody" in t or "Last turns" in t for t in drawn)
    text = cr.text_board(over, lambda s: NAMES[s])
    assert "Ann announced the end of the game." in text and "nobody" not in text
    assert "Last turns: Bruno, Chiara." in cr.text_board(playing, lambda s: NAMES[s])


def test_text_board_of_the_draft() -> None:
    text = cr.text_board(draft_view(2, 0))
    assert "Draft" in text and "Your pack" in text


# --------------------------------------------------------------------------- real games


def _game() -> Any:
    try:
        from engines import get_game

        return get_game("crossroads-inn")
    except (KeyError, ImportError):
        return None


GAME = _game()


def _views_of_random_game(players: int, seed: int, plies: int,
                          options: dict[str, Any]) -> list[tuple[Any, int]]:
    """(state-free views) of a game played with random legal choices: every 25 plies
    the public view and the view of a seat to act. An engine error ends the game early
    (the engine is tested elsewhere; here only the pictures are)."""
    from engines.core import Rng

    state = GAME.setup(players, GAME.Options(**options), seed)
    rng = Rng.from_seed(seed)
    out = []
    for ply in range(plies):
        if GAME.is_over(state):
            break
        seats = GAME.to_act(state)
        seat = seats[rng.randrange(len(seats))]
        if ply % 25 == 0:
            out.append((GAME.view(state, None), seat))
            out.append((GAME.view(state, seat), seat))
        actions = [a for a in GAME.legal_actions(state, seat) if a.kind != "undo"]
        if not actions:
            break
        try:
            GAME.apply(state, seat, rng.choice(actions))
        except Exception:  # an engine bug, not a picture's
            break
    out.append((GAME.view(state, None), 0))
    return out


@pytest.mark.skipif(GAME is None, reason="the Crossroads Inn engine is not registered")
@pytest.mark.parametrize(("players", "options"), [
    (2, {"basic_tiles": "none"}),
    (3, {"basic_tiles": "draft", "kingdom": "8+9"}),
    (4, {"basic_tiles": "random", "kingdom": "random"}),
])
def test_views_of_random_games_render(players: int, options: dict[str, Any]) -> None:
    for v, seat in _views_of_random_game(players, 7 + players, 400, options):
        if v.seat is None:
            check_png(cr.render(v, NAMES))
            check_png(cr.render(v, NAMES, part=f"inn:{seat}"))
            assert cr.text_board(v)
        else:
            check_png(cr.render_hand(v, NAMES))
    check_png(cr.render(v, NAMES, part="inns"))
