"""Fairy Tale in My Pocket AIs: legal, blind to the secrets, and the hint's reasons.

The game is not shipped yet: each test declares it for its duration (with this module's
AI levels), as the shipping step will.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engines.agents import agent_levels, get_agent, selfplay_level
from engines.agents.pocket import (
    CarefulAgent,
    HintAgent,
    _can_explore_from,
    canonical,
    careful_action,
    costs_from,
    explain,
    fast_copy,
    hint,
    legal_for,
    next_goal,
)
from engines.core import Rng
from engines.pocket.content import load_content
from engines.pocket.game import Pocket, walk_costs
from engines.pocket.state import Explore, Place, Placed, PocketOptions, PocketState

G = Pocket()
C = load_content()
QUICK = {"samples": 6, "first": 3, "keep": 2}
"""A small search for the tests (the shipped level searches more)."""


def states(seed: int, players: int = 1, every: int = 1, special: str = "random",
           ) -> Iterator[PocketState]:
    """The states of one game played by the careful player (one in ``every``)."""
    s = G.setup(players, PocketOptions(special=special), seed)  # type: ignore[arg-type]
    k = 0
    while G.outcome(s) is None:
        if k % every == 0:
            yield s
        G.apply(s, s.turn_seat, careful_action(G, s))
        k += 1


def test_levels_are_registered() -> None:
    assert agent_levels("pocket")[:1] == ["random"]
    assert {"careful", "hint"} <= set(agent_levels("pocket"))
    assert selfplay_level("pocket") == "hint"
    assert isinstance(get_agent("pocket", "careful"), CarefulAgent)
    assert isinstance(get_agent("pocket", "hint", samples=4), HintAgent)


def test_careful_reads_the_game_as_the_engine_does() -> None:
    """The careful player uses quick stand-ins for the engine's own answers (remembered
    walking costs, the goal, exploring from another tile, the villain of the card):
    each gives what the engine gives, at every state of its games."""
    path = C.role("kingdom_path").id
    for seed in range(6):
        for s in states(seed, players=1 + seed % 3):
            assert costs_from(s) == walk_costs(s, s.pawn)
            goal = (C.role("rose").id if not s.rose else C.role("cottage").id
                    if not s.princess else C.role("forest_path").id
                    if all(p.tile != path for p in s.placed) else C.role("castle").id)
            assert next_goal(s) == goal
            for p in s.placed:
                probe = G.copy_state(s)
                probe.pawn = p.tile
                assert _can_explore_from(G, s, p.tile) == (G.explore_stack(probe) is not None)
            if s.stage == "villain":
                assert G.current_line(s) == G._villain(s)


def test_the_quick_helpers_agree_with_the_engine() -> None:
    for seed in range(8):
        for s in states(seed, players=2, special=("mirror", "wand", "boots", "random")[seed % 4]):
            assert legal_for(G, s) == G.legal_actions(s, s.turn_seat)
            copy = fast_copy(s)
            assert copy == s
            for h in copy.items:  # the copy's items are its own
                h.empty = not h.empty
            copy.rng.next_u64()
            copy.deck.append("x")
            copy.known_bottom["forest"] += 5
            assert G.dump_state(s) != G.dump_state(copy)
            assert all(a is not b for a, b in zip(copy.items, s.items, strict=True))


@pytest.mark.parametrize("level", ["careful", "hint"])
def test_agents_play_legal_moves_and_change_nothing(level: str) -> None:
    agent = get_agent("pocket", level, **(QUICK if level == "hint" else {}))
    rng = Rng.from_seed(3)
    for seed in (1, 2):
        for s in states(seed, players=1 + seed, every=3):
            before = G.dump_state(s)
            action = agent.choose(G, s, s.turn_seat, rng.spawn())
            assert action in G.legal_actions(s, s.turn_seat)
            assert G.dump_state(s) == before


@pytest.mark.parametrize("level", ["careful", "hint"])
def test_agents_do_not_read_the_secrets(level: str) -> None:
    """The same choice on a table whose deck, set-aside cards and tile stacks were
    reshuffled (what the seat sees is the same), with the same generator."""
    agent = get_agent("pocket", level, **(QUICK if level == "hint" else {}))
    checked = 0
    for seed in (4, 5):
        for k, s in enumerate(states(seed, every=4, special="mirror")):
            other = G.determinize(s, s.turn_seat, Rng.from_seed(1000 + k))
            assert G.view(other, None) == G.view(s, None)
            assert canonical(G, other) == canonical(G, s)
            pick = agent.choose(G, s, s.turn_seat, Rng.from_seed(k))
            assert agent.choose(G, other, s.turn_seat, Rng.from_seed(k)) == pick
            checked += 1
    assert checked > 10


def test_every_hint_has_a_reason() -> None:
    rng = Rng.from_seed(9)
    kinds = set()
    for seed in (6, 7):
        for s in states(seed, players=2, every=2):
            action, why = hint(G, s, s.turn_seat, rng.spawn(), **QUICK)
            assert action in G.legal_actions(s, s.turn_seat)
            assert why and why[0].isupper() and why.endswith(".") and "{" not in why
            kinds.add(s.stage)
    assert {"move", "villain", "rest"} <= kinds


def test_every_legal_action_can_be_explained() -> None:
    seen = set()
    for seed in range(10):
        for s in states(seed, players=1, special=("mirror", "wand", "boots")[seed % 3]):
            for a in G.legal_actions(s, s.turn_seat):
                why = explain(G, s, a)
                assert why and why.endswith(".") and "{" not in why, (a, why)
                seen.add(a.kind)  # type: ignore[attr-defined]
    assert {"explore", "go", "place", "fight", "run", "rest", "shop", "pay"} <= seen


def _short_of_time() -> PocketState:
    """In the Kingdom at dusk with two cards left and the Castle drawn: north and south of
    the Windmill the border is dense trees (a card the peasant cannot spare), east is
    open. The careful player puts every tile north."""
    s = G.setup(1, PocketOptions(special="wand"), 2)
    for tile, x in (("forest_path", 1), ("kingdom_path", 2), ("windmill", 3)):
        for name in ("forest", "kingdom"):
            if tile in getattr(s, name):
                getattr(s, name).remove(tile)
        s.placed.append(Placed(tile=tile, x=x, y=0))
    s.pawn = "windmill"
    s.rose = s.princess = True
    s.health = C.rules.max_health
    s.time = len(C.times) - 1
    s.kingdom.remove("castle")
    s.kingdom.insert(0, "castle")
    cards = [k.id for k in C.cards]
    s.discard, s.set_aside, s.deck = cards[:5], cards[5:8], cards[8:]
    G.apply(s, 0, Explore())
    assert s.stage == "place" and s.placing == "castle"
    return s


def test_the_hint_finds_the_placing_that_wins_in_time() -> None:
    s = _short_of_time()
    assert G.legal_actions(s, 0) == [Place(side="n"), Place(side="e"), Place(side="s")]
    assert careful_action(G, s) == Place(side="n")
    action, why = hint(G, s, 0, Rng.from_seed(1), samples=12, first=6)
    assert action == Place(side="e")
    assert "east" in why and "trees" in why, why


def test_the_reasons_name_what_matters() -> None:
    from engines.pocket.state import Fight, Held, Run
    from tests.test_pocket import villain  # a villain met at the Lake, from the rule tests

    s = villain("troll", 0, items=[Held(item="dagger")], princess=True)
    line: Any = G.current_line(s)
    if G.defense(s, "troll") >= line.strength:  # the data's high-sun troll is weak enough
        assert explain(G, s, Fight()) == ("Fight the troll: your Dagger and the princess "
                                          "make you strong enough.")
    else:
        assert explain(G, s, Fight()).startswith("Fight the troll: you lose ")
    s = villain("troll", 0, items=[Held(item="cloak")])
    assert "Cloak" in explain(G, s, Fight(item="cloak"))
    run = next(a for a in G.legal_actions(s, 0) if isinstance(a, Run))
    assert explain(G, s, run).startswith("Run away to the ")


def test_the_ai_uses_its_items_sensibly_in_a_fight() -> None:
    """Facing Villains: "you may choose whether or not you want to use them" (issue 23):
    the careful AI keeps the Cloak for later when the Wand's gold stops the troll, uses
    the Cloak when nothing else does, never keeps the Dagger out (it only adds harm), and
    the reasons say what keeping the Dagger out costs."""
    from engines.pocket.state import Fight, Held
    from tests.test_pocket import villain

    s = villain("troll", 0, gold=3, items=[Held(item="dagger"), Held(item="cloak")])
    assert G.fight_result(s, Fight(wand=True)) == (0, False)
    assert careful_action(G, s) == Fight(wand=True)
    s = villain("troll", 0, gold=0, items=[Held(item="cloak")])
    assert careful_action(G, s) == Fight(item="cloak")
    s = villain("dragon", 0, gold=3, items=[Held(item="dagger"), Held(item="repellant")])
    chosen = careful_action(G, s)
    assert not (isinstance(chosen, Fight) and chosen.spare)
    why = explain(G, s, Fight(spare=("dagger",)))
    assert why.startswith("Fight the dragon without the Dagger: ") and "better" in why
