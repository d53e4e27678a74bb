"""Fairy Tale Inn rules, one test per rule, on boards built by hand.

Board notation: ``{column: ["LP0", "RT", ...]}`` lists a column bottom to top (1-based
column numbers as players see them); a token code is a character abbreviation plus
its owner seat, or ``RT`` / ``BS`` for a Rat / Beanstalk (they belong to nobody).
Room layout (data file): +1 at (2,2) (6,2) (1,4) (7,4) (3,5) (5,5); +2 at (4,3) (2,6)
(6,6); no-ability at (4,1) (3,3) (5,3); extra turn at (2,4) (6,4).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engines import get_game
from engines.core import GameError, GameOver, IllegalAction, NotYourTurn, Rng
from engines.fairy_tale_inn import (
    DATA_PATH,
    Drop,
    EndTurn,
    ExtraTurn,
    FairyTaleInn,
    InnData,
    InnState,
    Rat,
    load_data,
)

G = FairyTaleInn()
ALL = [c.id for c in G.data.characters]
CODES = {
    "EQ": "evil_queen",
    "PN": "pinocchio",
    "PP": "pied_piper",
    "RR": "red_riding_hood",
    "PR": "princess",
    "JK": "jack",
    "LP": "little_pig",
    "WF": "big_bad_wolf",
    "RT": "rat",
    "BS": "beanstalk",
}


def tok(code: str) -> tuple[str, int]:
    if code in ("RT", "BS"):
        return (CODES[code], -1)
    return (CODES[code[:2]], int(code[2]))


def make(
    columns: dict[int, list[str]] | None = None,
    guest: list[str | None] | None = None,
    bag: list[str] | None = None,
    gold: tuple[int, int] = (5, 5),
    turn: int = 0,
    supply: dict[str, int] | None = None,
) -> InnState:
    """A state with all 8 characters in play and exactly the given board."""
    s = G.setup(2, G.Options(), seed=0)
    s.characters = list(ALL)
    s.columns = [[] for _ in range(G.ncols)]
    for col, codes in (columns or {}).items():
        s.columns[col - 1] = [tok(c) for c in codes]
    s.guest = [CODES.get(g, g) if g else None for g in (guest or ["PN", "PN", "PN", "PN"])]
    s.bag = [CODES.get(b, b) for b in (bag if bag is not None else ["PN"] * 10)]
    s.gold = list(gold)
    s.turn = turn
    s.supply = dict(supply if supply is not None else {"rat": 4, "beanstalk": 4})
    return s


def texts(events: list[Any]) -> list[str]:
    return [e.text(lambda s: ["Ada", "Bo"][s]) for e in events]


def drop(s: InnState, slot: int, column: int, seat: int | None = None) -> list[str]:
    return texts(G.apply(s, s.turn if seat is None else seat, Drop(slot=slot, column=column)))


def top(s: InnState, column: int) -> tuple[str, int]:
    return s.columns[column - 1][-1]


def full(codes: str = "RT") -> list[str]:
    return [codes] * G.nrows


# --------------------------------------------------------------------------- content


def test_content_file_matches_rulebook_and_content_md() -> None:
    d = load_data()
    assert (d.columns, d.rows) == (7, 6)
    assert d.guest_list_costs == [2, 1, 0, 0]
    assert (d.starting_gold.starter, d.starting_gold.other) == (1, 2)
    assert d.characters_per_game == 5
    counts = {c.id: c.tokens for c in d.characters}
    assert counts == {"evil_queen": 8, "pinocchio": 8, "pied_piper": 4, "red_riding_hood": 8,
                      "princess": 8, "jack": 4, "little_pig": 8, "big_bad_wolf": 8}
    kinds = {c.id: c.ability for c in d.characters}
    assert kinds["evil_queen"] == "ongoing"
    assert {k for k, v in kinds.items() if v == "end_of_game"} == {
        "pinocchio", "red_riding_hood", "big_bad_wolf"}
    assert {c.id: c.companion for c in d.characters if c.companion} == {
        "pied_piper": "rat", "jack": "beanstalk"}
    assert {c.id: c.tokens for c in d.companions} == {"rat": 4, "beanstalk": 4}
    rooms = {(r.kind, r.amount): {tuple(c) for c in r.cells} for r in d.rooms}
    assert rooms == {
        ("gold", 1): {(2, 2), (6, 2), (1, 4), (7, 4), (3, 5), (5, 5)},
        ("gold", 2): {(4, 3), (2, 6), (6, 6)},
        ("no_ability", 0): {(4, 1), (3, 3), (5, 3)},
        ("extra_turn", 1): {(2, 4), (6, 4)},
    }
    assert "from_the_rulebook" in d.about and "project_design" in d.about
    for card in d.characters:
        assert len(card.text) > 40


@pytest.mark.parametrize(
    "patch, message",
    [
        (lambda d: d["rooms"][0]["cells"].append([8, 1]), "outside"),
        (lambda d: d["rooms"][1]["cells"].append([2, 2]), "twice"),
        (lambda d: d["characters"][2].update(companion="mouse"), "unknown companion"),
        (lambda d: d["characters"][0].update(ability="end_of_game"), "is not a"),
        (lambda d: d["characters"][5].pop("companion"), "companion and effect"),
    ],
)
def test_content_validation_rejects_bad_files(patch: Any, message: str) -> None:
    raw = json.loads(DATA_PATH.read_text())
    patch(raw)
    with pytest.raises(ValueError, match=message):
        InnData.model_validate(raw)


# --------------------------------------------------------------------------- setup


def test_setup_chooses_five_characters_and_fills_bag_and_guest_list() -> None:
    sets = set()
    for seed in range(40):
        s = G.setup(2, G.Options(), seed)
        assert len(s.characters) == 5 and s.characters == [c for c in ALL if c in s.characters]
        sets.add(tuple(s.characters))
        tokens = s.bag + [g for g in s.guest if g]
        assert len(s.guest) == 4 and all(s.guest)
        for cid in ALL:
            expected = G.cards[cid].tokens if cid in s.characters else 0
            assert tokens.count(cid) == expected
        assert "rat" not in tokens and "beanstalk" not in tokens
        assert s.supply == {
            G.cards[c].companion: 4 for c in s.characters if G.cards[c].companion}
        assert s.gold == [1, 2] and G.to_act(s) == [0] and s.starter == 0
        assert all(col == [] for col in s.columns)
    assert len(sets) > 10


def test_setup_refuses_other_player_counts() -> None:
    with pytest.raises(IllegalAction, match="exactly 2"):
        G.setup(3, G.Options(), 1)


def test_registered_game() -> None:
    assert isinstance(get_game("fairy-tale-inn"), FairyTaleInn)
    assert G.has_secrets and (G.min_players, G.max_players) == (2, 2)


# --------------------------------------------------------------------------- guest list


def test_paolo_red_riding_hood_slide_example() -> None:
    # Paolo takes Red Riding Hood from a free slot; the Little Pig and the Evil Queen above
    # slide down, and a new token from the bag takes the top space.
    s = make(guest=["LP", "EQ", "RR", "WF"], bag=["PN", "PR"], gold=(1, 2))
    lines = drop(s, 3, 1)
    assert s.guest == ["princess", "little_pig", "evil_queen", "big_bad_wolf"]
    assert s.bag == ["pinocchio"]
    assert s.gold == [1, 2]
    assert top(s, 1) == ("red_riding_hood", 0)
    assert lines[0] == ("Ada took Little Red Riding Hood from slot 3 (free) and dropped it "
                        "in column 1, row 1.")
    assert lines[1] == "Princess arrives at the top of the Guest List."


@pytest.mark.parametrize("slot, cost", [(1, 2), (2, 1), (3, 0), (4, 0)])
def test_guest_list_costs(slot: int, cost: int) -> None:
    s = make(guest=["PN", "PN", "PN", "PN"], gold=(3, 3))
    lines = drop(s, slot, 1)
    assert s.gold == [3 - cost, 3]
    assert (f"(paid {cost} gold)" if cost else "(free)") in lines[0]


def test_taking_the_bottom_slot_slides_all_three_down() -> None:
    s = make(guest=["PR", "LP", "EQ", "WF"], bag=["JK"])
    drop(s, 4, 1)
    assert s.guest == ["jack", "princess", "little_pig", "evil_queen"]


def test_cannot_afford_slot() -> None:
    s = make(guest=["PR", "LP", "EQ", "WF"], gold=(1, 2))
    assert Drop(slot=1, column=1) not in G.legal_actions(s, 0)
    assert Drop(slot=2, column=1) in G.legal_actions(s, 0)
    with pytest.raises(IllegalAction, match=r"^You have 1 gold; slot 1 costs 2\.$"):
        G.apply(s, 0, Drop(slot=1, column=1))
    s.gold = [0, 2]
    with pytest.raises(IllegalAction, match=r"^You have 0 gold; slot 2 costs 1\.$"):
        G.apply(s, 0, Drop(slot=2, column=1))


def test_no_refill_when_bag_is_empty() -> None:
    s = make(guest=["PR", "LP", "EQ", "WF"], bag=[])
    lines = drop(s, 3, 1)
    assert s.guest == [None, "princess", "little_pig", "big_bad_wolf"]
    assert "The bag is empty: the Guest List is not refilled." in lines
    drop(s, 4, 1)
    assert s.guest == [None, None, "princess", "little_pig"]
    assert {a.slot for a in G.legal_actions(s, 0)} == {3, 4}
    with pytest.raises(IllegalAction, match="Slot 1 of the Guest List is empty"):
        G.apply(s, 0, Drop(slot=1, column=2))


def test_game_ends_when_player_to_act_has_no_token() -> None:
    s = make({1: ["PN0"]}, guest=[None, None, None, "EQ"], bag=[], gold=(3, 3))
    lines = drop(s, 4, 2)
    assert G.to_act(s) == []
    out = G.outcome(s)
    assert out is not None and out.reason.startswith("the Guest List is empty")
    assert "The game ends: the Guest List is empty." in lines
    # End-of-Game abilities still score: Pinocchio next to Bo's... no, next to Ada's own
    # Evil Queen gives nothing, so it is a 3-3 tie, won by the player who did not start.
    assert out.scores == {0: 3, 1: 3} and out.winners == [1]


# --------------------------------------------------------------------------- columns


def test_tokens_stack_and_full_columns_are_refused() -> None:
    s = make({4: full()})
    with pytest.raises(IllegalAction, match=r"^Column 4 is full\.$"):
        G.apply(s, 0, Drop(slot=4, column=4))
    with pytest.raises(IllegalAction, match="There is no column 8: the inn has columns 1 to 7"):
        G.apply(s, 0, Drop(slot=4, column=8))
    with pytest.raises(IllegalAction, match="There is no slot 5"):
        G.apply(s, 0, Drop(slot=5, column=1))
    assert all(a.column != 4 for a in G.legal_actions(s, 0))
    drop(s, 4, 1)
    drop(s, 4, 1)
    assert s.columns[0] == [("pinocchio", 0), ("pinocchio", 1)]
    assert G.view(s, None).last_cells == [(1, 2)]


# --------------------------------------------------------------------------- special rooms


def test_plus_one_room() -> None:
    s = make({2: ["RT"]}, gold=(1, 2))
    lines = drop(s, 4, 2)  # Pinocchio into (2,2)
    assert s.gold == [2, 2]
    assert "Ada gains 1 gold (+1 gold room)." in lines


def test_double_gold_room_example() -> None:
    # "Paolo drops a token into the room with the double-gold symbol: he collects 2 gold."
    s = make({4: ["RT", "RT"]}, gold=(1, 2))
    lines = drop(s, 4, 4)  # (4,3)
    assert s.gold == [3, 2]
    assert "Ada gains 2 gold (double-gold room)." in lines


def test_no_ability_room_silences_the_token_but_it_still_counts_for_others() -> None:
    s = make(guest=["PN", "PN", "PR", "PR"], gold=(0, 0))
    lines = drop(s, 4, 4)  # Princess into (4,1): no +1
    assert s.gold == [0, 0]
    assert "Princess in the no-ability room loses its ability." in lines
    assert G.view(s, None).grid[3][0].silenced
    # Ada's next Princess diagonal to it still counts the silenced one.
    s.turn = 0
    s.columns[2] = [tok("RT")]
    drop(s, 4, 3)  # (3,2): diagonal (4,1) holds Ada's silenced Princess
    assert s.gold == [2, 0]


def test_silenced_pied_piper_and_jack_drop_nothing() -> None:
    s = make(guest=["PN", "PN", "JK", "PP"], gold=(0, 0))
    drop(s, 4, 4)  # Pied Piper into (4,1)
    assert s.gold == [0, 0] and s.supply["rat"] == 4 and s.phase == "drop" and s.turn == 1
    s2 = make({3: ["RT", "RT"]}, guest=["PN", "PN", "JK", "JK"], gold=(0, 0))
    drop(s2, 4, 3)  # Jack into (3,3)
    assert s2.gold == [0, 0] and s2.supply["beanstalk"] == 4 and len(s2.columns[2]) == 3


def test_extra_turn_room_offers_a_turn_for_one_gold() -> None:
    s = make({2: ["RT"] * 3}, gold=(1, 2))
    lines = drop(s, 4, 2)  # (2,4)
    assert "Ada reached an extra-turn room (column 2, row 4)." in lines
    assert s.phase == "extra_turn" and G.to_act(s) == [0]
    assert G.legal_actions(s, 0) == [ExtraTurn(), EndTurn()]
    assert G.legal_actions(s, 1) == []
    with pytest.raises(IllegalAction, match="First decide whether to pay 1 gold"):
        G.apply(s, 0, Drop(slot=4, column=1))
    lines = texts(G.apply(s, 0, ExtraTurn()))
    assert lines == ["Ada pays 1 gold and takes another turn."]
    assert s.gold == [0, 2] and s.turn == 0 and s.phase == "drop"
    drop(s, 4, 1)
    assert s.turn == 1  # the extra turn did not trigger another one


def test_an_extra_turn_can_trigger_another_one() -> None:
    s = make({2: ["RT"] * 3, 6: ["RT"] * 3}, gold=(2, 2))
    drop(s, 4, 2)
    assert G.view(s, 0).prompt == "Pay 1 gold for an extra turn, or end your turn."
    G.apply(s, 0, ExtraTurn())
    drop(s, 4, 6)
    assert s.phase == "extra_turn" and s.turn == 0
    G.apply(s, 0, ExtraTurn())
    assert s.gold == [0, 2] and s.turn == 0 and s.phase == "drop"


def test_extra_turn_can_be_declined() -> None:
    s = make({6: ["RT"] * 3}, gold=(1, 2))
    drop(s, 4, 6)  # (6,4)
    lines = texts(G.apply(s, 0, EndTurn()))
    assert lines == ["Ada ends the turn without an extra turn."]
    assert s.gold == [1, 2] and s.turn == 1 and s.phase == "drop"
    with pytest.raises(IllegalAction, match="No extra turn is on offer"):
        G.apply(s, 1, ExtraTurn())


def test_extra_turn_needs_one_gold() -> None:
    s = make({2: ["RT"] * 3}, gold=(0, 2))
    lines = drop(s, 4, 2)
    assert s.phase == "drop" and s.turn == 1
    assert lines[-1] == "Ada has no gold left to pay for an extra turn (1 gold)."


def test_extra_turn_is_decided_after_character_abilities() -> None:
    # With 0 gold, the Princess's +1 pays for the offer ...
    s = make({2: ["RT"] * 3}, guest=["PN", "PN", "PN", "PR"], gold=(0, 2))
    drop(s, 4, 2)
    assert s.gold == [1, 2] and s.phase == "extra_turn"
    # ... and an Evil Queen's toll can take it away again.
    s = make({2: ["RT", "RT", "EQ1"]}, guest=["PN", "PN", "PN", "PR"], gold=(0, 2))
    lines = drop(s, 4, 2)
    assert "Ada pays Bo 1 gold (Bo's Evil Queen is right below)." in lines
    assert s.gold == [0, 3] and s.phase == "drop" and s.turn == 1


def test_two_extra_turn_triggers_in_one_turn_offer_one_extra_turn() -> None:
    s = make({2: ["RT"] * 3, 6: ["RT"] * 3}, guest=["PN", "PN", "PN", "PP"], gold=(1, 2))
    drop(s, 4, 2)  # Pied Piper at (2,4): +1
    G.apply(s, 0, Rat(column=6))  # Rat at (6,4)
    assert s.phase == "extra_turn" and s.gold == [2, 2]
    G.apply(s, 0, ExtraTurn())
    assert s.gold == [1, 2] and s.phase == "drop" and s.turn == 0
    drop(s, 4, 1)
    assert s.turn == 1


# --------------------------------------------------------------------------- characters


def test_evil_queen_rulebook_example() -> None:
    # Paolo drops a character over his opponent's Evil Queen and pays 1 gold.
    s = make({3: ["EQ1"]}, gold=(2, 2))
    lines = drop(s, 4, 3)
    assert s.gold == [1, 3]
    assert lines[-1] == "Ada pays Bo 1 gold (Bo's Evil Queen is right below)."


def test_evil_queen_edge_cases() -> None:
    # no gold: nothing to pay
    s = make({3: ["EQ1"]}, gold=(0, 2))
    assert "Ada has no gold to pay Bo's Evil Queen." in drop(s, 4, 3)
    assert s.gold == [0, 2]
    # own Evil Queen: nothing
    s = make({3: ["EQ0"]}, gold=(2, 2))
    drop(s, 4, 3)
    assert s.gold == [2, 2]
    # silenced Evil Queen (4,1): nothing
    s = make({4: ["EQ1"]}, gold=(2, 2))
    drop(s, 4, 4)
    assert s.gold == [2, 2]
    # another Evil Queen on top of one still pays
    s = make({3: ["EQ1"]}, guest=["PN", "PN", "PN", "EQ"], gold=(2, 2))
    drop(s, 4, 3)
    assert s.gold == [1, 3]
    # not directly above: nothing
    s = make({3: ["EQ1", "RT"]}, gold=(2, 2))
    drop(s, 4, 3)
    assert s.gold == [2, 2]


def test_evil_queen_is_not_paid_for_a_rat() -> None:
    s = make({5: ["EQ1"]}, guest=["PN", "PN", "PN", "PP"], gold=(2, 2))
    drop(s, 4, 1)  # Pied Piper (1,1): +1
    G.apply(s, 0, Rat(column=5))  # Rat above Bo's Evil Queen: not a character
    assert s.gold == [3, 2] and top(s, 5) == ("rat", -1)


def test_princess_counts_own_diagonal_princesses() -> None:
    s = make({2: ["PR0", "RT", "PR1"], 3: ["PR0"], 4: ["PR0", "RT", "PR0"]},
             guest=["PN", "PN", "PN", "PR"], gold=(0, 0))
    lines = drop(s, 4, 3)  # (3,2): diagonals (2,1) own, (2,3) Bo's, (4,1) own, (4,3) own
    assert s.gold == [4, 0]
    assert "Ada gains 4 gold (Princess: 1 + 3 diagonal)." in lines


def test_little_pig_rulebook_example_counts_the_connected_chain() -> None:
    # Dropped next to one of Paolo's Pigs, which is next to another of his Pigs: 1 + 2.
    s = make({1: ["LP0"], 2: ["LP0"], 6: ["LP0"]}, guest=["PN", "PN", "PN", "LP"], gold=(0, 0))
    lines = drop(s, 4, 3)  # (3,1)
    assert s.gold == [3, 0]
    assert "Ada gains 3 gold (Little Pig: 1 + 2 connected)." in lines


def test_little_pig_chain_stops_at_other_tokens() -> None:
    s = make({1: ["LP0"], 2: ["LP1"], 3: ["RT"], 4: ["RT", "LP0"]},
             guest=["PN", "PN", "PN", "LP"], gold=(0, 0))
    drop(s, 4, 3)  # (3,2): neighbours (2,2) empty, (4,2) own pig, (3,1) rat
    assert s.gold == [2, 0]
    # a chain goes up, down and sideways through own pigs, silenced ones too
    s = make({3: ["LP0", "LP0"], 4: ["LP0"], 5: ["LP0"]}, guest=["PN", "PN", "PN", "LP"],
             gold=(0, 0))
    drop(s, 4, 2)  # (2,1) -> (3,1) -> (3,2), (4,1 silenced) -> (5,1)
    assert s.gold == [5, 0]


def test_pied_piper_rat_is_a_choice_of_another_column() -> None:
    s = make({2: ["RT"]}, guest=["PN", "PN", "PN", "PP"], gold=(0, 0))
    lines = drop(s, 4, 1)
    assert "Ada gains 1 gold (Pied Piper)." in lines
    assert s.phase == "rat" and G.to_act(s) == [0]
    assert G.legal_actions(s, 0) == [Rat(column=c) for c in range(2, 8)]
    assert G.view(s, 0).rat_columns == [2, 3, 4, 5, 6, 7]
    with pytest.raises(IllegalAction, match="a column other than the Pied Piper's"):
        G.apply(s, 0, Rat(column=1))
    with pytest.raises(IllegalAction, match="First choose the column for the Pied Piper"):
        G.apply(s, 0, Drop(slot=4, column=3))
    lines = texts(G.apply(s, 0, Rat(column=2)))
    assert lines[:2] == ["Ada drops a Rat in column 2, row 2.", "Ada gains 1 gold (+1 gold room)."]
    assert s.gold == [2, 0] and s.supply["rat"] == 3 and top(s, 2) == ("rat", -1)
    assert s.turn == 1 and s.phase == "drop"
    assert G.view(s, None).last_cells == [(1, 1), (2, 2)]
    with pytest.raises(IllegalAction, match="There is no Rat to place"):
        G.apply(s, 1, Rat(column=3))


def test_pied_piper_without_rats_left() -> None:
    s = make(guest=["PN", "PN", "PN", "PP"], gold=(0, 0), supply={"rat": 0})
    lines = drop(s, 4, 1)
    assert "No Rat is left, so none is dropped." in lines
    assert s.gold == [1, 0] and s.turn == 1 and sum(map(len, s.columns)) == 1


def test_pied_piper_rat_goes_to_the_only_other_open_column_without_asking() -> None:
    cols = {c: full() for c in (2, 3, 4, 5, 7)}
    s = make(cols, guest=["PN", "PN", "PN", "PP"], gold=(0, 0))
    cols[6] = []
    drop(s, 4, 1)
    assert top(s, 6) == ("rat", -1) and s.supply["rat"] == 3


def test_pied_piper_with_no_other_column_with_room() -> None:
    s = make({c: full() for c in range(2, 8)}, guest=["PN", "PN", "PN", "PP"], gold=(0, 0))
    lines = drop(s, 4, 1)
    assert "No other column has room for a Rat." in lines
    assert s.supply["rat"] == 4 and s.phase == "over"


def test_jack_drops_a_beanstalk_on_top() -> None:
    s = make({4: ["RT"]}, guest=["PN", "PN", "PN", "JK"], gold=(0, 0))
    lines = drop(s, 4, 4)  # Jack (4,2), Beanstalk (4,3) = double-gold room
    assert s.columns[3] == [("rat", -1), ("jack", 0), ("beanstalk", -1)]
    assert s.gold == [3, 0] and s.supply["beanstalk"] == 3
    assert "Ada drops a Beanstalk in column 4, row 3." in lines


def test_jack_at_the_top_or_without_beanstalks() -> None:
    s = make({1: ["RT"] * 5}, guest=["PN", "PN", "PN", "JK"], gold=(0, 0))
    lines = drop(s, 4, 1)
    assert "Jack is at the top of column 1: no room for a Beanstalk." in lines
    assert s.gold == [1, 0] and s.supply["beanstalk"] == 4
    s = make(guest=["PN", "PN", "PN", "JK"], gold=(0, 0), supply={"beanstalk": 0})
    assert "No Beanstalk is left, so none is dropped." in drop(s, 4, 1)
    assert len(s.columns[0]) == 1


def test_beanstalk_triggers_an_extra_turn_room() -> None:
    s = make({2: ["RT", "RT"]}, guest=["PN", "PN", "PN", "JK"], gold=(0, 0))
    drop(s, 4, 2)  # Jack (2,3), Beanstalk (2,4)
    assert s.phase == "extra_turn" and s.gold == [1, 0]


def test_pinocchio_counts_opponents_characters_next_to_it() -> None:
    s = make({1: ["EQ1"], 2: ["PN0", "EQ1"], 3: ["RT", "PR1"], 4: ["PN0", "LP1"],
              5: ["LP1"]})
    # (2,1): (1,1) Bo's, (2,2) Bo's, (3,1) a Rat; diagonal (3,2) does not count.
    # (4,1) is a no-ability room: that Pinocchio scores nothing.
    assert G.end_bonuses(s) == [(0, "pinocchio", 2)]


def test_red_riding_hood_counts_own_characters_next_to_it() -> None:
    s = make({1: ["PR0"], 2: ["RR0", "RR0"], 3: ["EQ1", "BS"], 4: ["PN0"], 5: ["RR0"]})
    # (2,1): (1,1) own, (2,2) own, (3,1) Bo's -> 2; (2,2): (2,1) own -> 1;
    # (5,1): (4,1) own silenced Pinocchio still counts -> 1.
    assert G.end_bonuses(s) == [(0, "red_riding_hood", 4)]


def test_big_bad_wolf_row_majorities() -> None:
    s = make({1: ["WF0", "WF0"], 2: ["WF0", "WF1"], 6: ["WF1", "RT", "WF1"]})
    # row 1: Ada 2, Bo 1 -> Ada +3; row 2: 1 each -> nobody; row 3: Bo 1 -> Bo +3
    assert G.end_bonuses(s) == [(0, "big_bad_wolf", 3), (1, "big_bad_wolf", 3)]


def test_silenced_wolf_counts_but_does_not_score_a_row_alone() -> None:
    s = make({4: ["WF1"]})
    assert G.end_bonuses(s) == []
    s = make({4: ["WF1"], 7: ["WF1"], 1: ["WF0"]})
    assert G.end_bonuses(s) == [(1, "big_bad_wolf", 3)]


def test_rats_and_beanstalks_are_not_characters() -> None:
    s = make({1: ["RT", "BS"], 2: ["PN0", "RR0"], 3: ["BS", "RT"]})
    # Pinocchio (2,1) has a Rat and a Beanstalk beside it: 0. Red Riding Hood (2,2) has
    # Ada's Pinocchio below (1) and a Beanstalk and a Rat beside: 1.
    assert G.end_bonuses(s) == [(0, "red_riding_hood", 1)]


# --------------------------------------------------------------------------- the end


def test_game_ends_when_three_columns_are_full() -> None:
    s = make({1: full(), 2: full(), 3: ["RT"] * 5, 5: ["PN1", "PR0"]}, gold=(4, 4))
    lines = drop(s, 4, 3)
    out = G.outcome(s)
    assert out is not None and out.reason == "three columns of the inn are full"
    assert G.to_act(s) == [] and G.legal_actions(s, 0) == []
    # Bo's Pinocchio (5,1) sees Ada's Princess above it: +1 at the end.
    assert s.gold == [4, 5] and s.end_bonus == [0, 1] and out.winners == [1]
    assert "Bo gains 1 gold at the end of the game (Pinocchio)." in lines
    assert lines[-1] == "Bo wins with 5 gold to 4."
    with pytest.raises(GameOver):
        G.apply(s, 1, Drop(slot=4, column=5))


def test_no_extra_turn_once_the_game_has_ended() -> None:
    cols = {1: full(), 3: full(), 4: full(), 5: ["RT"] * 5, 7: full(), 2: ["RT"] * 3}
    cols[6] = full()
    s = make(cols, guest=["PN", "PN", "PN", "PP"], gold=(3, 3))
    drop(s, 4, 2)  # Pied Piper (2,4) extra-turn room; the Rat fills column 5 by itself
    assert s.phase == "over" and s.columns[4][-1] == ("rat", -1)


def test_rat_is_placed_before_the_end_check() -> None:
    s = make({1: full(), 2: full(), 3: ["RT"] * 5}, guest=["PN", "PN", "PN", "PP"],
             gold=(3, 3))
    drop(s, 4, 3)  # three columns full, but the Rat is still to place
    assert s.phase == "rat" and G.outcome(s) is None
    G.apply(s, 0, Rat(column=7))
    assert s.phase == "over"


def test_tie_goes_to_the_player_who_did_not_start() -> None:
    s = make({1: full(), 2: full(), 3: ["RT"] * 5}, gold=(4, 4))
    lines = drop(s, 4, 3)
    out = G.outcome(s)
    assert out is not None and out.winners == [1] and out.scores == {0: 4, 1: 4}
    assert "did not start" in out.reason
    assert lines[-1] == "Bo wins with 4 gold to 4 (a tie: the player who did not start wins)."
    s = make({1: full(), 2: full(), 3: ["RT"] * 5}, gold=(4, 4))
    s.starter = 1
    drop(s, 4, 3)
    assert G.outcome(s).winners == [0]  # type: ignore[union-attr]


# --------------------------------------------------------------------------- errors


def test_refused_actions_leave_the_state_unchanged() -> None:
    cases: list[tuple[InnState, int, Any, type[GameError]]] = []
    s = make({4: full()}, gold=(0, 2))
    cases += [(s, 0, Drop(slot=1, column=1), IllegalAction),
              (s, 0, Drop(slot=4, column=4), IllegalAction),
              (s, 0, Drop(slot=0, column=1), IllegalAction),
              (s, 0, Drop(slot=4, column=0), IllegalAction),
              (s, 0, Rat(column=1), IllegalAction),
              (s, 0, ExtraTurn(), IllegalAction),
              (s, 0, EndTurn(), IllegalAction),
              (s, 1, Drop(slot=4, column=1), NotYourTurn)]
    r = make(guest=["PN", "PN", "PN", "PP"])
    drop(r, 4, 1)
    cases += [(r, 0, Rat(column=1), IllegalAction), (r, 0, ExtraTurn(), IllegalAction),
              (r, 1, Rat(column=2), NotYourTurn)]
    for state, seat, action, error in cases:
        before = G.dump_state(state)
        with pytest.raises(error):
            G.apply(state, seat, action)
        assert G.dump_state(state) == before
        assert G.explain_illegal(state, seat, action) != "That move is allowed."


def _all_actions() -> list[Any]:
    acts: list[Any] = [Drop(slot=s, column=c) for s in range(0, 6) for c in range(0, 9)]
    return [*acts, *(Rat(column=c) for c in range(0, 9)), ExtraTurn(), EndTurn()]


def test_checks_agree_with_legal_actions_on_random_games() -> None:
    every = _all_actions()
    for seed in range(12):
        s = G.setup(2, G.Options(), seed)
        rng = Rng.from_seed(seed)
        while not G.is_over(s):
            seat = s.turn
            legal = G.legal_actions(s, seat)
            for a in every:
                reason = G._why_illegal(s, seat, a)
                assert (reason is None) == (a in legal), (a, reason)
            G.apply(s, seat, rng.choice(legal))


# --------------------------------------------------------------------------- hidden info


def test_view_shows_bag_count_never_its_order() -> None:
    s = G.setup(2, G.Options(), 5)
    v = G.view(s, 0)
    assert v.bag_count == len(s.bag)
    t = G.copy_state(s)
    t.bag.reverse()
    assert G.view(t, 0) == v and G.view(t, None) == G.view(s, None)
    dumped = json.loads(v.model_dump_json())
    assert "bag" not in dumped and dumped["bag_count"] == len(s.bag)
    assert v.characters[0].text and v.to_act == 0 and v.phase == "drop"


def test_events_do_not_reveal_the_bag() -> None:
    s = make(guest=["PN", "PN", "PN", "PN"], bag=["PR", "EQ", "WF"])
    events = G.apply(s, 0, Drop(slot=4, column=1))
    blob = " ".join(texts(events)) + json.dumps([e.model_dump() for e in events])
    assert "Big Bad Wolf" in blob  # the token now face up on the Guest List
    assert "Evil Queen" not in blob and "evil_queen" not in blob
    assert all(e.visible_to is None for e in events)


def test_determinize_depends_only_on_what_the_seat_can_see() -> None:
    s = G.setup(2, G.Options(), 9)
    t = G.copy_state(s)
    t.bag.reverse()
    a = G.determinize(s, 0, Rng.from_seed(4))
    b = G.determinize(t, 0, Rng.from_seed(4))
    assert a.bag == b.bag and sorted(a.bag) == sorted(s.bag)
    assert G.view(a, 1) == G.view(s, 1)
    assert s.bag != t.bag  # the originals are untouched


def test_copy_state_is_a_faithful_deep_copy() -> None:
    s = G.setup(2, G.Options(), 2)
    for _ in range(7):
        G.apply(s, s.turn, G.legal_actions(s, s.turn)[-1])
    c = G.copy_state(s)
    assert G.dump_state(c) == G.dump_state(s) == G.dump_state(s.model_copy(deep=True))
    c.columns[0].append(("rat", -1))
    c.gold[0] += 5
    assert G.dump_state(c) != G.dump_state(s)
    assert G.dump_state(G.load_state(G.dump_state(s))) == G.dump_state(s)


def test_view_of_a_finished_game() -> None:
    s = make({1: full(), 2: full(), 3: ["RT"] * 5, 5: ["PN1", "PR0"]}, gold=(4, 4))
    drop(s, 4, 3)
    v = G.view(s, None)
    assert v.to_act is None and v.winners == [1] and v.end_bonus == [0, 1]
    assert v.prompt == "The game is over." and v.reason


def test_view_end_preview_during_play() -> None:
    s = make({1: ["EQ1"], 2: ["PN0"]})
    v = G.view(s, 1)
    assert v.end_preview == [1, 0] and v.gold == [5, 5]


def test_tokens_and_gold_are_conserved_in_random_games() -> None:
    for seed in range(30):
        s = G.setup(2, G.Options(), seed)
        rng = Rng.from_seed(seed + 100)
        total = {c: G.cards[c].tokens for c in s.characters}
        comp_total = dict(s.supply)
        while True:
            board = [t for col in s.columns for t, _ in col]
            seen = s.bag + [g for g in s.guest if g] + board
            for cid, n in total.items():
                assert seen.count(cid) == n
            for comp, n in comp_total.items():
                assert board.count(comp) + s.supply[comp] == n and s.supply[comp] >= 0
            assert min(s.gold) >= 0
            assert all(len(col) <= G.nrows for col in s.columns)
            # tokens always sit at the bottom of the Guest List
            filled = [g is not None for g in s.guest]
            assert filled == sorted(filled)
            if G.is_over(s):
                break
            G.apply(s, s.turn, rng.choice(G.legal_actions(s, s.turn)))
        full_cols = sum(len(col) == G.nrows for col in s.columns)
        assert full_cols >= 3 or not any(s.guest)


def test_no_extra_turn_when_nothing_is_left_to_take() -> None:
    s = make({2: ["RT"] * 3}, guest=[None, None, None, "PN"], bag=[], gold=(1, 1))
    lines = drop(s, 4, 2)  # (2,4): the last token of the game, into an extra-turn room
    assert s.phase == "over" and "The game ends: the Guest List is empty." in lines
    assert s.gold == [1, 1]
