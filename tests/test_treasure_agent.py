"""The Save the Treasure "team" AI: legal, blind to hidden halves, and able to win."""

from __future__ import annotations

from engines import get_game
from engines.agents import agent_levels, get_agent
from engines.core import Rng
from engines.treasure import SaveTheTreasure, Slide

GAME: SaveTheTreasure = get_game("treasure")  # type: ignore[assignment]


def test_levels_registered() -> None:
    assert {"team", "sharp"} <= set(agent_levels("treasure"))


def test_seen_record_follows_the_table() -> None:
    state = GAME.setup(2, GAME.Options(), 3)
    for c in range(25):
        visible = state.cover[c] < 0 or c == state.apple
        assert (state.seen[c] != -2) == visible
        if visible:
            assert state.seen[c] == state.faces[c]
    action = next(a for a in GAME.legal_actions(state, 0) if isinstance(a, Slide))
    GAME.apply(state, 0, action)
    for c in range(25):
        if state.cover[c] < 0:
            assert state.seen[c] == state.faces[c], "every uncovered square is remembered"


def test_team_plays_legal_moves_and_never_peeks() -> None:
    agent = get_agent("treasure", "team")
    state = GAME.setup(3, GAME.parse_options({"king_path_length": 30}), 5)
    rng = Rng.from_seed(1)
    moves = 0
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        seed = rng.next_u64()
        action = agent.choose(GAME, state, seat, Rng.from_seed(seed))
        assert action in GAME.legal_actions(state, seat)
        # Same choice when the hidden halves are shuffled: it does not read them.
        other = GAME.determinize(state, seat, Rng.from_seed(moves))
        assert agent.choose(GAME, other, seat, Rng.from_seed(seed)) == action
        GAME.apply(state, seat, action)
        moves += 1
    assert moves > 20


def test_team_finds_pages_far_better_than_chance() -> None:
    team = get_agent("treasure", "team")
    random = get_agent("treasure", "random")

    def pages(agent, seed: int) -> int:
        state = GAME.setup(2, GAME.parse_options({"king_path_length": 25}), seed)
        rng = Rng.from_seed(seed)
        while not GAME.is_over(state):
            seat = GAME.to_act(state)[0]
            GAME.apply(state, seat, agent.choose(GAME, state, seat, rng.spawn()))
        return len(state.pages) + (12 if state.result == "won" else 0)

    assert sum(pages(team, s) for s in range(6)) > 2 * sum(pages(random, s) for s in range(6))


def test_sharp_team_with_a_long_path_wins() -> None:
    agent = get_agent("treasure", "sharp")
    state = GAME.setup(1, GAME.parse_options({"king_path_length": 60}), 2)
    rng = Rng.from_seed(2)
    while not GAME.is_over(state):
        seat = GAME.to_act(state)[0]
        GAME.apply(state, seat, agent.choose(GAME, state, seat, rng.spawn()))
    assert state.result == "won" and len(state.pages) == 12


def test_team_forgets_all_but_its_most_recent_sightings() -> None:
    from engines.agents.treasure import TeamAgent

    state = GAME.setup(1, GAME.Options(), 1)
    covered = [c for c in range(25) if state.cover[c] >= 0 and c != state.apple]
    for ply, c in enumerate(covered[:5]):  # pretend these were seen, oldest first
        state.seen[c], state.seen_at[c] = state.faces[c], ply + 1
    known, unknown = TeamAgent(memory=2)._knowledge(state)
    assert [known[c] for c in covered[3:5]] == [state.faces[c] for c in covered[3:5]]
    assert all(known[c] == -2 for c in covered[:3]), "older sightings are forgotten"
    assert unknown == len(covered) - 2
    sharp, _ = TeamAgent(memory=None)._knowledge(state)
    assert all(sharp[c] == state.faces[c] for c in covered[:5])


def test_selfplay_plays_the_team_by_default() -> None:
    import io
    import json

    from bot.selfplay import main

    out = io.StringIO()
    code = main(["--game", "treasure", "--players", "2", "--games", "2", "--seed", "3",
                 "--option", "variant=true"], out=out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 0 and len(lines) == 3
    assert all(g["agents"] == ["team#0", "team#1"] for g in lines[:2])
    assert all(g["scores"]["0"] >= 6 for g in lines[:2]), "a sensible team finds pages"
    assert lines[2]["agents"] == ["team", "team"]
