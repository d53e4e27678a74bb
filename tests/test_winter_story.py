"""The AI storyteller under the table's rules (issue 27): lines, veils, the X-card, the
Arbiter's strike and retell, variety over whole games, the ending."""

from __future__ import annotations

from engines import get_game
from engines.agents import get_agent
from engines.core import Rng
from engines.winter_tales.state import AskRetell, Strike, XCard
from engines.winter_tales.telling.figures import ai_passages, figures
from engines.winter_tales.telling.safety import Safety

G = get_game("winter-tales")


def _play(players: int, seed: int, plies: int = 20000, **options: object):
    st = G.setup(players, G.Options(**options), seed)
    agent = get_agent("winter-tales", "storyteller")
    rng = Rng.from_seed(seed)
    for _ in range(plies):
        seats = G.to_act(st)
        if not seats:
            break
        G.apply(st, seats[0], agent.choose(G, st, seats[0], rng))
    return st


def test_lines_never_appear_and_names_give_way_to_epithets() -> None:
    st = _play(4, 3, lines=["snow", "Wolf", "lantern"])
    told = ai_passages(st)
    assert len(told) > 100
    safety = Safety.of(["snow", "Wolf", "lantern"], [], [])
    assert not [e.text for e in told if safety.hits_line(e.text or "")]


def test_veiled_moments_fade_to_black() -> None:
    st = _play(4, 4, veils=["violence"])
    assert any(k.startswith("fade") for k in st.story.frames)
    veil = Safety.of([], ["violence"], [])
    assert not [e.text for e in ai_passages(st) if veil.hits_veil(e.text or "")]


def test_x_card_on_an_ai_passage_is_retold_without_its_words() -> None:
    st = _play(3, 5, plies=120)
    last = max(ai_passages(st), key=lambda e: e.n)
    before = last.text or ""
    G.apply(st, 0, XCard())
    after = st.transcript[last.n]
    assert not after.hidden and after.text and after.text != before
    taken = set(st.story.avoid)
    assert taken
    assert not Safety.of([], [], list(taken)).hits_line(after.text)


def test_arbiter_retell_and_strike_apply_to_ai_passages() -> None:
    st = _play(3, 6, plies=150)
    told = sorted(ai_passages(st), key=lambda e: e.n)
    first, second = told[-1], told[-2]
    G.apply(st, st.arbiter, AskRetell(entry=first.n))
    assert not st.transcript[first.n].hidden
    assert st.transcript[first.n].text != first.text
    G.apply(st, st.arbiter, Strike(entry=second.n))
    assert st.transcript[second.n].struck
    view = G.view(st, None)
    assert all(e.n != second.n for e in view.transcript)


def test_small_games_vary_and_never_repeat() -> None:
    for players, seed, opts in ((3, 11, {}), (5, 12, {"power": True, "skill": True})):
        f = figures(_play(players, seed, **opts))
        assert f.passages > 150 and f.repeated == 0 and f.someone == 0
        assert f.top_start[1] <= 0.03 and f.top_frame[1] <= 0.03
        assert f.naming_element == f.with_card
        assert f.sentences_max <= 3


def test_the_ending_names_what_the_winners_did() -> None:
    st = _play(4, 13)
    assert st.winner in ("spring", "winter")
    ending = [e for e in st.transcript if e.kind == "epilogue" and e.storyteller][-1]
    won = [m for m in st.memories if m.faction == st.winner and m.counter]
    from engines.winter_tales.content import load_content
    from engines.winter_tales.telling.words import load_words

    goals = [load_words().quests[load_content().quest_counter(m.counter).quest].goal for m in won]
    assert (not goals) or any(g in (ending.text or "") for g in goals), ending.text


def test_the_ending_still_names_the_winners_deeds_when_they_hold_the_whole_track() -> None:
    """Four or five Memories of one side made every ending shape too long for a passage,
    and the storyteller fell back on a line that named nothing ("Snow White did what had
    to be done.")."""
    from engines.winter_tales.content import load_content
    from engines.winter_tales.epilogue import winner_of
    from engines.winter_tales.telling import writer
    from engines.winter_tales.telling.words import load_words

    st = G.setup(5, G.Options(power=True, objective=True, skill=True), 8)
    agent = get_agent("winter-tales", "storyteller")
    rng = Rng.from_seed(8)
    while not (st.stack and st.stack[-1].kind == "epilogue"
               and st.stack[-1].stage == "conclusion"):
        seat = G.to_act(st)[0]
        G.apply(st, seat, agent.choose(G, st, seat, rng))
    winner = winner_of(st, st.final)
    assert winner in ("spring", "winter")
    for memory in st.memories:  # the winners made every Memory on the track
        memory.faction = winner
    assert len([m for m in st.memories if m.counter]) >= 4
    seat = G.to_act(st)[0]
    (tell,) = G.legal_actions(st, seat)
    passage = writer.compose(st, seat, tell, seed=3)
    assert passage is not None and len(passage.text) <= writer.MAX_CHARS
    goals = [load_words().quests[load_content().quest_counter(m.counter).quest].goal
             for m in st.memories if m.counter]
    assert all(goal in passage.text for goal in goals), passage.text
