"""Winter Tales pictures and exports: the board (public view), the private hand, and the
storybook (Markdown, HTML, JSON). Secrets never reach an image or an export that must not
show them; struck and X-carded passages are left out; the HTML is self-contained and is
checked in a real browser (headless Chromium) when one is installed."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageStat

import renderers
from engines import get_game
from engines.core import Rng
from engines.winter_tales.content import load_content
from engines.winter_tales.state import Narrate, Retell, Strike, XCard
from renderers import storybook, winter_hand, winter_tales
from tests.picture_checks import flat_error

GAME = get_game("winter-tales")
C = load_content()
NAMES = ["Ada", "Bruno", "Chiara", "Dan", "Elena", "Fede", "Gio"]
MAX_BYTES = 600_000
CHROMIUM = Path("/usr/bin/chromium")

WORDS = ["snow", "lantern", "whisper", "frost", "door", "song", "shadow", "ember", "river",
         "bell", "promise", "letter", "storm", "candle", "secret", "dawn"]


def sentence(rng: Rng, n: int) -> str:
    """A generated sentence, unique by its number, so a test can look for it."""
    who = rng.choice(C.characters).name
    where = rng.choice(C.map.locations).name
    return (f"[{n}] {who} went to {where} with a {rng.choice(WORDS)} and a "
            f"{rng.choice(WORDS)} in the falling snow.")


def play(players: int, seed: int, plies: int | None = None, **options: Any):
    """A game with random legal choices and generated narration; ``plies=None``: to the end."""
    state = GAME.setup(players, GAME.Options(**options), seed)
    advance(state, Rng.from_seed(seed * 31 + players), plies)
    return state


def advance(state: Any, rng: Rng, plies: int | None) -> None:
    n = 0
    while not GAME.is_over(state) and (plies is None or n < plies):
        seats = GAME.to_act(state)
        seat = seats[rng.randrange(len(seats))]
        action = rng.choice(GAME.legal_actions(state, seat))
        if "text" in type(action).model_fields and rng.randrange(3):
            told = action.model_copy(update={"text": sentence(rng, state.ply)})
            try:
                GAME.check(state, seat, told)
                action = told
            except ValueError:
                pass
        GAME.apply(state, seat, action)
        n += 1


def decode(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


# --------------------------------------------------------------------------- the board


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_board_draws_random_games_of_every_size(players: int) -> None:
    modules = {"power": True, "objective": players % 2 == 1, "skill": players > 4}
    for plies in (0, 60, 250):
        state = play(players, players * 11 + plies, plies, **modules)
        png = renderers.render("winter-tales", GAME.view(state, None), names=NAMES[:players])
        img = decode(png)
        assert img.format == "PNG" and img.width == winter_tales.WIDTH
        assert 1500 < img.height < 3200
        assert len(png) < MAX_BYTES


def test_board_draws_a_finished_game_with_its_result() -> None:
    state = play(5, 2, None, power=True, objective=True)
    assert GAME.is_over(state)
    view = GAME.view(state, None)
    pic = winter_tales.picture_from_view(view, NAMES)
    assert pic.winner == state.winner and pic.final == state.final
    head, _, _ = winter_tales._status(pic)
    assert "wins" in head
    assert decode(winter_tales.render_picture(pic)).width == winter_tales.WIDTH


def test_board_from_a_seat_view_is_the_public_board() -> None:
    # The board shows counts only: a seat's view (with its hand) draws the same bytes.
    state = play(4, 9, 120, objective=True)
    public = renderers.render("winter-tales", GAME.view(state, None), names=NAMES)
    for seat in range(4):
        assert renderers.render("winter-tales", GAME.view(state, seat), names=NAMES) == public


def test_board_reads_the_model_and_its_json_alike() -> None:
    state = play(6, 4, 150, power=True)
    view = GAME.view(state, None)
    a = winter_tales.picture_from_view(view, NAMES)
    b = winter_tales.picture_from_view(json.loads(view.model_dump_json()), NAMES)
    assert a == b
    assert {f.id for f in a.figures if f.space} == {
        f.id for f in state.figures.values() if f.space and not f.removed}
    assert a.hand_counts == [len(h) for h in state.hands]


def synthetic_view(crowd: str = "oaks_park") -> dict[str, Any]:
    """Every character on the board, crowded spaces, every kind of piece."""
    chars = C.characters
    squares = [s.id for s in C.map.squares]
    figures = []
    for i, ch in enumerate(chars):
        space = crowd if i < 6 else squares[i % 3]
        figures.append({"id": ch.id, "faction": ch.faction, "owner": i % 7, "space": space,
                        "ready": i % 3 != 0, "incapacitated": i % 4 == 1,
                        "removed": i == 13})
    return {
        "seat": None, "players": 7, "phase": "chapter", "chapter": 4, "length": 7,
        "factions": ["spring", "winter", "spring", "winter", "spring", "winter", "writer"],
        "arbiter": 2, "acting": 3, "to_act": [3, 4], "decision": "quest:step_in",
        "figures": figures,
        "quests": [
            {"counter": "a_new_hope", "quest": "a_new_hope", "faction": "spring",
             "space": crowd},
            {"counter": "armed_retaliation", "quest": "armed_retaliation", "faction": "winter",
             "carrier": chars[0].id},
            {"counter": "freezing_horror", "quest": "freezing_horror", "faction": "winter",
             "space": "winter_prison"},
        ],
        "ongoing": "a_new_hope", "ongoing_count": {"spring": 4, "winter": 5},
        "memories": [
            {"slot": 1, "source": "quest", "card": "story_43", "faction": "spring",
             "counter": "the_safe_house"},
            {"slot": 2, "source": "objective", "card": "reward_1", "objective": "reward_1",
             "faction": "winter"},
            {"slot": 3, "source": "quest", "card": "neutral_1", "faction": None,
             "counter": "winter_propaganda"},
            {"slot": 4, "source": "quest", "card": "story_93", "faction": "winter",
             "counter": "the_great_artefact_spring"},
        ],
        "bookmark": 4, "epilogue_space": 8,
        "powers": [
            {"counter": "the_safe_house", "quest": "the_safe_house", "holder": 0,
             "memory_slot": 1, "location": "dorothys_mansion"},
            {"counter": "love_that_melts_the_snow", "quest": "love_that_melts_the_snow",
             "holder": 2, "memory_slot": 5, "characters": [chars[1].id, chars[2].id]},
        ],
        "hand": None, "hand_counts": [0, 3, 7, 10, 1, 4, 12], "deck_count": 31,
        "discard_count": 9, "objectives": [], "objective_counts": [1, 1, 0, 1, 1, 1, 2],
        "trap_hidden_count": 3, "epilogue_count": None, "winner": None, "final": None,
        "transcript": [],
    }


@pytest.mark.parametrize("crowd", ["oaks_park", "fair_of_wonders", "memory_lane_cemetery"])
def test_board_draws_crowds_and_every_piece(crowd: str) -> None:
    view = synthetic_view(crowd)
    pic = winter_tales.picture_from_view(view, NAMES)
    assert len([f for f in pic.figures if f.removed]) == 1
    png = winter_tales.render_picture(pic)
    assert png == winter_tales.render(view, NAMES)  # same view, same bytes
    img = decode(png)
    assert img.width == winter_tales.WIDTH
    # the crowded Location grows to hold everyone (8 pieces: 2 rows of 4), each inside it
    items = winter_tales._space_items(pic)
    boxes = winter_tales._location_boxes(items)
    b = boxes[crowd]
    assert len(items[crowd]) == 8
    assert b[3] - b[1] >= winter_tales.LOC_HEAD + 2 * winter_tales.ITEM_H
    layout = winter_tales._location_layout(crowd, len(items[crowd]))
    for x, y in winter_tales._location_places(layout, len(items[crowd])):
        assert x >= 0 and x + winter_tales.ITEM_W <= b[2] - b[0]
        assert y >= winter_tales.LOC_HEAD and y + winter_tales.ITEM_H <= b[3] - b[1]


def test_board_names_every_character_and_quest_in_full() -> None:
    """No shortened name ('Mangiaf.', 'W. Rabbit'): each character on the board is drawn by
    its full printed name (in its owner's row), each Quest on the board by its own."""
    from engines.winter_tales.content import printed_name
    from renderers import common

    view = synthetic_view()
    common.clear_caches()
    with common.recording_text() as drawn:
        winter_tales.render(view, NAMES)
    texts = [d.text for d in drawn]
    for f in view["figures"]:
        assert any(printed_name(f["id"]) in t for t in texts), f["id"]
    for q in view["quests"]:
        assert any(printed_name(q["quest"]) in t for t in texts), q["quest"]
    assert not any("." in t.replace("…", "") for t in texts if len(t) < 14)


def test_square_names_stay_clear_of_the_map_pieces() -> None:
    labels = winter_tales.square_labels()
    assert set(labels) == {s.id for s in C.map.squares}
    boxes = list(winter_tales._empty_location_boxes().values())
    placed = [box for _, box in labels.values()]
    w = winter_tales.WIDTH - 2 * winter_tales.MARGIN
    for i, box in enumerate(placed):
        assert box[0] > 0 and box[2] < w and box[1] > 0 and box[3] < winter_tales.MAP_H
        assert not any(winter_tales._overlaps(box, b) for b in boxes)
        assert not any(winter_tales._overlaps(box, o) for o in placed[i + 1:])


def test_square_trays_stay_clear_of_locations_and_each_other() -> None:
    for seed in range(6):
        state = play(7, 100 + seed, 40 + 30 * seed)
        pic = winter_tales.picture_from_view(GAME.view(state, None))
        items = winter_tales._space_items(pic)
        boxes = winter_tales._location_boxes(items)
        trays = winter_tales._square_trays(items, boxes)
        placed = [t for t, _ in trays.values()]
        for i, t in enumerate(placed):
            assert not any(winter_tales._overlaps(t, o) for o in placed[i + 1:])
            assert not any(winter_tales._overlaps(t, b) for b in boxes.values())


def test_decisions_read_as_plain_english() -> None:
    assert winter_tales.decision_text("quest:memory") == "a Quest: choosing the Memory card"
    assert winter_tales.decision_text("offer:x:new_hope") == "an optional choice"
    assert winter_tales.decision_text("") == ""
    assert winter_tales.decision_text("something_new") == "something new"


def test_static_map_is_drawn_once() -> None:
    assert winter_tales.static_map() is winter_tales.static_map()
    pos = winter_tales.node_positions()
    assert set(pos) == {s.id for s in C.map.spaces}
    w = winter_tales.WIDTH - 2 * winter_tales.MARGIN
    assert all(0 < x < w and 0 < y < winter_tales.MAP_H for x, y in pos.values())


# --------------------------------------------------------------------------- the hand


def test_hand_shows_exactly_the_seats_cards_and_objective() -> None:
    state = play(5, 7, 90, objective=True)
    for seat in range(5):
        view = GAME.view(state, seat)
        hand = winter_hand.hand_from_view(view, NAMES)
        assert [c.id for c in hand.cards] == state.hands[seat]
        mine = [o for o in state.objectives if o.seat == seat]
        assert len(hand.objectives) == len(mine)
        for card in hand.cards:
            sc = C.story_card(card.id)
            assert card.number == str(int(card.id.split("_")[1]))
            assert all(cap in card.spring for cap in sc.spring.captions)
            assert all(cap in card.winter for cap in sc.winter.captions)
        img = decode(winter_hand.render(view, NAMES))
        assert img.width == winter_hand.WIDTH and len(winter_hand.render(view, NAMES)) < 900_000


def test_hand_of_the_public_view_is_empty() -> None:
    state = play(3, 5, 30, objective=True)
    hand = winter_hand.hand_from_view(GAME.view(state, None), NAMES)
    assert hand.cards == [] and hand.objectives == []
    assert decode(winter_hand.render(GAME.view(state, None))).height > 100


def test_hand_image_grows_with_the_hand_and_warns_over_the_limit() -> None:
    cards = [{"id": s.id, "title": s.title, "image": s.image, "spring": s.spring.caption,
              "winter": s.winter.caption} for s in C.story_cards[:11]]
    base = {"seat": 1, "players": 3, "factions": ["spring", "winter", "writer"],
            "objectives": []}
    small = winter_hand.hand_from_view({**base, "hand": cards[:2]})
    big = winter_hand.hand_from_view({**base, "hand": cards})
    assert small.note == "" and "discard down to 7" in big.note
    assert decode(winter_hand.render_hand(big)).height > decode(
        winter_hand.render_hand(small)).height


def test_hand_puts_the_objectives_first_and_is_no_tall_strip() -> None:
    """13 cards and two Objectives: the Objectives under the header, above the cards (on
    a phone the picture's top shows first), and the picture under 2.3 times as tall as
    wide (it was a 1:3 strip)."""
    state = play(5, 7, 90, objective=True)
    view = GAME.view(state, 0).model_dump(mode="json")
    view["hand"] = [{"id": s.id, "title": s.title, "image": s.image, "spring": "",
                     "winter": ""} for s in C.story_cards[20:33]]
    hand = winter_hand.hand_from_view(view, NAMES)
    assert len(hand.cards) == 13 and hand.objectives
    img = decode(winter_hand.render(view, NAMES))
    assert img.width == winter_hand.WIDTH and img.height < 2.3 * img.width
    top = winter_hand._top(hand.seat, hand.name, hand.faction, 13, hand.note,
                           tuple(hand.objectives))
    bare = winter_hand._top(hand.seat, hand.name, hand.faction, 13, hand.note, ())
    assert top.height > bare.height + 100  # the Objectives are in the top part
    assert img.crop((0, 0, img.width, top.height)).tobytes() == top.tobytes()




def test_hand_cards_keep_what_was_drawn() -> None:
    """A card is stored in its faction's palette: outside its art every flat colour comes
    back exact; the art is dithered to the palette's sky, so a third of its size (about
    what a phone shows) it is within half a level on average."""
    w = winter_hand._card_width()
    for s in C.story_cards[::9]:
        card = winter_hand.HandCard(s.id, s.title, s.image, " · ".join(s.spring.captions),
                                    " · ".join(s.winter.captions))
        for faction in ("spring", "winter", "writer"):
            drawing, art = winter_hand._card_rgb(card, w, faction)
            tile = winter_hand._card_tile(card, w, faction).convert("RGB")
            at = 14 - winter_hand.CARD_PAD
            outside = drawing.copy(), tile.copy()
            for im in outside:
                im.paste((0, 0, 0), (at, at, at + art.width, at + art.height))
            assert flat_error(*outside) == 0, (s.id, faction)

            def third(im: Image.Image) -> Image.Image:
                return im.resize((im.width // 3, im.height // 3), Image.Resampling.LANCZOS)

            seen = ImageStat.Stat(ImageChops.difference(third(drawing), third(tile)))
            assert max(seen.mean) < 0.5, (s.id, faction, seen.mean)


def test_every_story_card_has_its_own_art() -> None:
    motifs = {winter_hand.motif_for(c.title, c.image) for c in C.story_cards}
    assert len(motifs) >= 60  # 93 cards, few sharing a motif
    fallback = [c.id for c in C.story_cards
                if winter_hand.motif_for(c.title, c.image) is winter_hand.m_stars
                and "star" not in (c.title + c.image).lower()]
    assert fallback == []
    a = winter_hand.card_art("story_01", 200, 120, "spring")
    b = winter_hand.card_art("story_01", 200, 120, "winter")
    assert a.size == (200, 120) and a.tobytes() != b.tobytes()
    winter_hand.card_art.cache_clear()
    assert winter_hand.card_art("story_01", 200, 120, "spring").tobytes() == a.tobytes()


# --------------------------------------------------------------------------- exports


def told_game(players: int = 4, seed: int = 3, to_the_end: bool = True):
    """A game with narration, one passage X-carded, one struck, one X-carded and retold."""
    state = play(players, seed, 120, power=True, objective=True)
    arb = state.arbiter
    author = next(s for s in range(players) if s != arb)
    for key in ("xcard", "strike", "retold"):
        GAME.apply(state, author, Narrate(text=f"PASSAGE-{key.upper()} told in the snow."))
        n = state.transcript[-1].n
        if key == "strike":
            GAME.apply(state, arb, Strike(entry=n))
        else:
            GAME.apply(state, arb, XCard())
        if key == "retold":
            GAME.apply(state, author, Retell(entry=n, text="PASSAGE-RETOLD gently, again."))
    if to_the_end:
        advance(state, Rng.from_seed(seed), None)
    return state


def test_exports_keep_narration_and_leave_out_struck_and_x_carded() -> None:
    state = told_game(4, 3)
    assert GAME.is_over(state)
    out = storybook.export(GAME.view(state, None), NAMES[:4], "The Long Night")
    told = [e.text for e in state.transcript if e.kind == "narration" and e.text
            and not e.hidden and not e.struck and e.text.startswith("[")]
    assert len(told) > 10
    for t in told:
        assert storybook._md_escape(t) in out["md"]
        assert storybook._e(t) in out["html"]
        assert json.dumps(t, ensure_ascii=False) in out["json"]
    for text in out.values():
        assert "PASSAGE-XCARD" not in text and "PASSAGE-STRIKE" not in text
        assert "PASSAGE-RETOLD gently, again." in text
        assert "struck from the story" in text  # the ruling itself is part of the story
    data = json.loads(out["json"])
    assert data["complete"] is True and data["winner"] == state.winner
    kept = [e for e in state.transcript if not e.hidden and not e.struck and e.kind != "chapter"
            and (e.text or e.card)]
    assert sum(len(ch["entries"]) for ch in data["chapters"]) == len(kept)
    assert [m["slot"] for m in data["memories"]] == [m.slot for m in state.memories]
    assert "The Epilogue" in out["md"] and "The Epilogue" in out["html"]
    authors = {e["author"] for ch in data["chapters"] for e in ch["entries"] if "author" in e}
    assert authors <= set(NAMES[:4]) and len(authors) >= 3


def test_cards_played_carry_their_concept_and_caption() -> None:
    state = play(3, 12, 200)
    story = storybook.story_from_view(GAME.view(state, None), NAMES)
    cards = [e for e in story.entries() if e.kind == "card" and e.card]
    assert cards
    md = storybook.to_markdown(story)
    page = storybook.to_html(story)
    for e in cards[:20]:
        sc = C.story_card(e.card)
        assert e.concept == sc.image and e.caption == sc.side(e.side).caption
        assert sc.title in md and storybook._e(sc.image) in page


def test_mid_game_exports_hold_no_hand_no_secret_objective() -> None:
    for players, seed, plies in ((3, 21, 140), (5, 22, 220), (7, 23, 300)):
        state = play(players, seed, plies, objective=True, power=True)
        assert not GAME.is_over(state)
        view = GAME.view(state, None)
        out = storybook.export(view, NAMES[:players],
                               board_png=renderers.render("winter-tales", view))
        played = {e.card for e in state.transcript if e.card}
        under = {c for f in state.stack if f.kind == "trap" for c, _, _ in f.hidden}
        held = ({c for hand in state.hands for c in hand} | under) - played
        assert held
        for card in held:
            sc = C.story_card(card)
            for text in out.values():
                assert sc.image not in text and storybook._e(sc.image) not in text
                assert f'"{card}"' not in text
        secret = [o for o in state.objectives if not o.revealed and not o.completed]
        for o in secret:
            title = C.objective_card(o.card).title
            assert all(title not in text and storybook._e(title) not in text
                       for text in out.values())
        assert json.loads(out["json"])["complete"] is False


def test_exports_refuse_a_seat_view() -> None:
    state = play(3, 2, 10)
    with pytest.raises(ValueError, match="public view"):
        storybook.export(GAME.view(state, 0), NAMES)


def test_html_is_self_contained_and_escapes_players_words() -> None:
    state = play(4, 8, 60)
    view = GAME.view(state, None).model_dump()
    view["transcript"].append({"n": 9999, "kind": "narration", "seat": 1, "chapter": 1,
                               "text": "# Not a heading <script>alert(1)</script> [x](http://e)"})
    out = storybook.export(view, NAMES, board_png=renderers.render("winter-tales", view))
    page = out["html"]
    assert "<script" not in page.lower()
    # Nothing outside the page: data URIs, and links to its own chapters.
    assert not re.search(r"(src|href)\s*=\s*[\"'](?!data:|#)", page)
    assert "http://" not in page.replace("http://e", "") and "https://" not in page
    assert "@import" not in page and "url(" not in page
    assert page.count('src="data:image/png;base64,') >= 1
    assert "\n# Not a heading" not in out["md"] and "\\# Not a heading" in out["md"]
    assert json.loads(out["json"])["chapters"][-1]["entries"][-1]["text"].startswith("# Not")


@pytest.mark.skipif(not CHROMIUM.exists(),
                    reason="no /usr/bin/chromium: install Debian's chromium package "
                           "(apt-get install -y chromium) to check the storybook in a browser")
def test_storybook_looks_like_a_page_in_headless_chromium(tmp_path: Path) -> None:
    state = told_game(5, 6)
    view = GAME.view(state, None)
    page = tmp_path / "story.html"
    page.write_text(storybook.export(view, NAMES[:5], "The Thaw")["html"], encoding="utf-8")
    shot = tmp_path / "story.png"
    profile = tmp_path / "profile"
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}", f"--screenshot={shot}",
           "--window-size=1200,1600", page.as_uri()]
    subprocess.run(cmd, capture_output=True, timeout=120, check=False)
    assert shot.exists(), "Chromium made no screenshot"
    img = Image.open(shot).convert("RGB")
    assert img.size == (1200, 1600)
    # Not blank: the title, the cards and the Memory Track paint many colours ...
    assert len(img.getcolors(1 << 20) or []) > 200
    # ... on a light page (the default colour scheme), with dark text in the middle column.
    corner = img.getpixel((10, 10))
    assert sum(corner) > 600
    middle = img.crop((300, 60, 900, 400)).convert("L")
    assert middle.getextrema()[0] < 80


def test_board_shows_face_up_objectives_and_never_secret_ones() -> None:
    view = synthetic_view()
    spy = C.objective_card("spy_1")
    secret = C.objectives_of("spring")[0]
    view["objectives"] = [
        {"card": spy.id, "seat": 1, "faction": "winter", "title": spy.title, "kind": spy.kind,
         "locations": [], "revealed": True, "achieved": False, "completed": False},
        {"card": secret.id, "seat": 0, "faction": "spring", "title": secret.title,
         "kind": secret.kind, "locations": secret.locations, "revealed": False,
         "achieved": False, "completed": False},
    ]
    pic = winter_tales.picture_from_view(view, NAMES)
    assert pic.revealed_objectives == [(1, spy.title)]
    with_secret = winter_tales.render(view, NAMES)
    view["objectives"] = view["objectives"][:1]
    assert winter_tales.render(view, NAMES) == with_secret  # the secret one draws nothing


def test_storybook_has_contents_linking_every_chapter_and_a_full_width_board() -> None:
    from renderers.storybook import Story, StoryChapter, StoryEntry, to_html

    chapters = [StoryChapter(n, f"Chapter {n}") for n in (1, 2, 3)]
    for ch in chapters:
        ch.entries.append(StoryEntry(n=ch.number, kind="narration", chapter=ch.number,
                                     text=f"Passage of chapter {ch.number}.", seat=0))
    story = Story(title="A Test Tale", players=[], length=12, epilogue_space=2,
                  chapters=chapters, memories=[])
    png = io.BytesIO()
    Image.new("RGB", (40, 20), (10, 20, 30)).save(png, format="PNG")
    page = to_html(story, board_png=png.getvalue(), art=False)
    links = re.findall(r'<a href="#([\w-]+)">([^<]+)</a>', page)
    assert links == [("chapter-1", "Chapter 1"), ("chapter-2", "Chapter 2"),
                     ("chapter-3", "Chapter 3"), ("board", "The board")]
    for anchor, _title in links:
        assert f'id="{anchor}"' in page  # every link lands somewhere
    # The board is shown (not folded away), full width, and opens alone at full size.
    assert "<details" not in page
    figure = page[page.index('<figure class="board wide" id="board">'):]
    assert figure.index("<a href=\"data:image/png;base64,") < figure.index("<img")
