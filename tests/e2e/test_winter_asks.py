"""Winter Tales: every person asked to act is notified once, in the message that asks.

Issue 23 ("Asked to act without a ping"): in a Winter battle round two people were asked
at once, and the one who could still play a card, take a free round or pass got neither a
ping nor a new DM. Discord notifies a mentioned user only when the message is created (or
a deferred answer is filled in), never on an edit, and only if ``allowed_mentions``
permits it; the recorder of tests/e2e/test_channel_noise.py keeps exactly those pings.

The game is a fixed one, so the battle round with two people on the Spring side (the
Power module's United Pair: the Fairy's partner's owner fights beside her) comes every
run: the table seed and each decision (the lowest seat to act picks among its legal
actions with a seeded taste for Quests and Battles) were found by playing the engine
alone (:func:`decide`, the same code); the people play them through Discord as a person
would: the turn message's **Take your turn**, the private panel, its follow-up menus and
the Tell form.

What it shows: for every version, each person who is to act and was not to act just
before (a new ask) is pinged exactly once, in the channel, in a message created after the
move that asked them and before their own answer; and the battle round with two people
asked at once is among those asks.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.e2e.harness import E2E
from tests.e2e.play import click_code, set_table_seed
from tests.e2e.test_channel_noise import record_channel
from tests.e2e.test_winter_e2e import GAME, Game
from tests.emulator import Message

pytestmark = pytest.mark.e2e

PLAYERS = 4
TABLE_SEED = 11
CHOICE_SEED = 11
OPTIONS = "power=yes interrupt_timeout=0"
"""``interrupt_timeout=0``: an optional decision waits for its player, so nothing is
passed behind a person's back and the game stays the one found offline."""
TASTE = {
    "battle": 50,
    "activate": 5,
    "move": 5,
    "start_quest": 0.5,
    "generate_quest": 0.5,
    "pass": 1,
    "play_card": 2,
    "free_round": 1,
    "trap": 0.1,
}
TEXT_KINDS = {"play_card", "tell", "use_artefact"}
PASSAGE = "The snow answered softly."
MAX_MOVES = 160


def decide(state: Any, rng: random.Random) -> tuple[int, int]:
    """(seat, index in its legal actions) of the next decision: the lowest seat to act,
    an action by :data:`TASTE`."""
    seat = min(GAME.to_act(state))
    legal = GAME.legal_actions(state, seat)
    action = rng.choices(legal, [TASTE.get(a.kind, 1.0) for a in legal])[0]
    return seat, legal.index(action)


def battle_pair(state: Any) -> list[int]:
    """The seats asked at once in a battle round (empty if this is not one)."""
    frame = state.stack[-1] if state.stack else None
    to_act = GAME.to_act(state)
    return to_act if frame is not None and frame.kind == "battle" and len(to_act) >= 2 else []


def path_to(ui: Any, panel: Message, view: Any, legal: list[Any], index: int) -> list[str]:
    """The codes to click from ``panel`` (and the menus they open, worked out by the
    adapter) to play legal action ``index``; a Tell choice ends on its form's code."""
    start = [b.custom_id.rsplit(":", 1)[1] for b in panel.buttons if b.custom_id and not b.disabled]
    start += [v for s in panel.selects for v in s.values]
    frontier = [[c] for c in start]
    seen: set[str] = set()
    while frontier:
        path = frontier.pop(0)
        code = path[-1]
        if code in seen or code in (ui.turn_code, "tell", "refresh"):
            continue
        seen.add(code)
        if code[:1] in ("a", "t") and code[1:].isdigit():
            if int(code[1:]) == index:
                return path
            continue
        res = ui.resolve(code, view, legal)
        if res.menu is not None:
            frontier += [
                [*path, c.code] for c in (*res.menu.choices, *res.menu.buttons) if not c.disabled
            ]
    raise AssertionError(f"legal action {index} ({legal[index]!r}) is not on {panel!r}")




async def test_every_ask_in_a_winter_battle_round_pings_once(e2e: E2E) -> None:
    from bot.core.choices import get_ui

    emu, bot, (alice, bob, carol) = e2e
    people = [alice, bob, carol, emu.user("dave")]
    rec = record_channel(emu)
    opened = await alice.slash("/table new", game="winter-tales", options={"options": OPTIONS})
    assert opened.reply is not None and "Winter Tales" in opened.reply.content
    for p in people[1:]:
        await p.slash("/table join")
    set_table_seed(bot.db_path, emu.channel.id, TABLE_SEED)
    await alice.slash("/table start")
    g = Game(emu, bot.db_path, people)
    ui = get_ui("winter-tales")
    rng = random.Random(CHOICE_SEED)

    # (user, version, mark): asked at ``version`` by the move whose click came after
    # ``mark`` (a point in the recorder's sequence).
    asks: list[tuple[int, int, int]] = []
    answered: dict[int, list[int]] = {p.id: [] for p in people}  # marks of each one's move
    pairs: list[tuple[int, frozenset[int]]] = []  # (version, users) of two-person rounds
    made_by: dict[int, int] = {}  # version -> the mark of the click that made it
    before: set[int] = set()
    mark = -1
    row = g.row()
    for _move in range(MAX_MOVES):
        row = g.row()
        state = g.state(row)
        made_by[row.version] = mark
        users = {g.person(row, s).id for s in GAME.to_act(state)}
        asks += [(u, row.version, mark) for u in sorted(users - before)]
        before = users
        if pair := battle_pair(state):
            pairs.append((row.version, frozenset(g.person(row, s).id for s in pair)))
        elif pairs:
            break  # the battle round is over: the asks it made are all recorded
        seat, index = decide(state, rng)
        person = g.person(row, seat)
        code = f"ft:{row.id}:{row.version}:turn"
        turn = await emu.wait_for(
            lambda c=code: next(
                (
                    m
                    for m in reversed(emu.channel.visible)
                    if any(b.custom_id == c for b in m.buttons)
                ),
                None,
            ),
            20,
            f"the turn message of version {row.version}",
        )
        await emu.settle(quiet=0.1)  # every message of this version is out
        answered[person.id].append(next(rec.seq))
        panel = await emu.answer(await person.click(turn, custom_id=code, settle=False))
        assert panel is not None and panel.ephemeral_for == person.id, panel
        legal = GAME.legal_actions(state, seat)
        view = GAME.view(state, seat)
        path = path_to(ui, panel, view, legal, index)
        msg = panel
        for step in path[:-1]:
            menu = await emu.answer(await click_code(person, msg, step))
            assert menu is not None and menu.ephemeral, f"{step} opened no menu"
            msg = menu
        mark = next(rec.seq)
        await click_code(person, msg, path[-1])
        if person.modal is not None:
            await person.submit_modal(text=PASSAGE, settle=False)
        await emu.wait_for(lambda v=row.version: g.row().version > v, 20, "the move")
        assert g.row().version == row.version + 1, "one decision, one version"
    else:
        raise AssertionError(f"no battle round with two people asked in {MAX_MOVES} moves")
    await emu.settle(quiet=0.5)
    end = next(rec.seq)

    missing, doubled = [], []
    for user, version, start in asks:
        stop = next((m for m in answered[user] if m > start), end)
        got = [
            p
            for p in rec.pings
            if p.channel_id == emu.channel.id and user in p.users and start < p.seq < stop
        ]
        name = next(p.name for p in people if p.id == user)
        if not got:
            missing.append(f"{name} at v{version}")
        elif len(got) > 1:
            doubled.append(f"{name} at v{version} ({len(got)} pings)")
    assert not missing and not doubled, (
        f"asked without a ping: {missing}; pinged more than once for one ask: {doubled}"
    )
    assert pairs, "the game reached a battle round with two people asked at once"
    # Each round of the battle that asks two people at once (the first version of each
    # run of such versions): both are pinged by a message created after the move that
    # asked them, whether or not one of them had been to act just before.
    for version, pair_users in pairs:
        if (version - 1, pair_users) in pairs:
            continue
        start = made_by[version]
        for user in pair_users:
            stop = next((m for m in answered[user] if m > start), end)
            assert any(
                start < p.seq < stop and user in p.users
                for p in rec.pings
                if p.channel_id == emu.channel.id
            ), f"the battle round at v{version} asked user {user} without a ping"
    print(
        f"\nwinter asks: {len(asks)} asks, {len(rec.pings)} pings, battle rounds with two "
        f"people at versions {[v for v, _u in pairs]}, final version {row.version}"
    )
