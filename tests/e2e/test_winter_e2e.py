"""Winter Tales end to end: the bot process, the emulator, 3, 4 and 7 simulated people.

Each person plays only through what Discord shows them: the choices on their DM hand
message (kept current by edits), the private follow-up menus, the Tell modal, and
``/winter tell`` with a Story card picked by autocomplete. Choices are random among
those shown, with a storyteller's preferences (Quests first, few Battles) so that a game
ends in a reasonable number of moves; every passage is a generated sentence.

After every move the test reads the true state back from the bot's SQLite file and
checks that no Story card or Objective of one player is readable by anyone else: in the
channel (text, components), in another player's DM, in a custom_id, in a board picture
(sampled: byte-identical to the rendering of the PUBLIC view) or in a mid-game export.
"""

from __future__ import annotations

import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest

from engines import get_game
from engines.winter_tales.content import load_content
from tests.e2e.harness import E2E
from tests.e2e.play import actions, table_row
from tests.emulator import Emulator, Message, Person

pytestmark = pytest.mark.e2e

GAME = get_game("winter-tales")
CONTENT = load_content()
TITLES = {c.id: c.title for c in CONTENT.story_cards}
OBJECTIVES = {o.id: o.title for o in CONTENT.objective_cards}
STORYBOOK = Path("/tmp/storybook_e2e.html")
PREFER = {"start_quest": 200, "generate_quest": 60, "complete_objective": 5, "play_card": 3,
          "pass": 3, "done": 2, "take_part": 2, "relocate": 1, "step_in": 1, "move": 0.5,
          "save": 0.3, "battle": 0.2, "trap": 0.2, "use_power": 0.2, "free_round": 0.2,
          "attack_objective": 0.2, "swap_objective": 0.1}
TIMER_FIRST = "timer-first"
"""What :func:`choose_and_play` returns when a timer moved the table on first."""
WORDS = ("snow", "lantern", "whisper", "frost", "bell", "shadow", "song", "ember", "gate",
         "wind", "mirror", "thread")


def sentence(rng: random.Random, who: str) -> str:
    a, b, c = rng.sample(WORDS, 3)
    return f"{who} followed the {a} past the {b}, and the {c} answered softly."


def _unique_titles(table: dict[str, str]) -> dict[str, str]:
    """Titles that cannot turn up by accident inside another title or caption."""
    texts = [t for t in table.values()] + [
        cap for c in CONTENT.story_cards for side in (c.spring, c.winter) for cap in side.captions]
    out = {}
    for cid, title in table.items():
        if sum(title.lower() in t.lower() for t in texts) == 1:
            out[cid] = title
    return out


SAFE_TITLES = _unique_titles(TITLES)


class Game:
    """One table seen from the outside: the true state from the bot's file, people."""

    def __init__(self, emu: Emulator, db: Path, people: list[Person]) -> None:
        self.emu, self.db, self.people = emu, db, people
        self.by_id = {p.id: p for p in people}
        self.boards_checked = 0
        self.boards_posted = 0
        self.seen: dict[int, tuple[int, int, int]] = {}
        self.custom_ids = 0
        self.timeouts = 0
        self.states: dict[int, str] = {}
        """version -> state JSON, as observed after each move."""
        self.hands_checked = 0
        self.scans = 0

    def row(self) -> Any:
        row = table_row(self.db, self.emu.channel.id)
        assert row is not None
        return row

    def state(self, row: Any) -> Any:
        return GAME.load_state(row.state)

    def person(self, row: Any, seat: int) -> Person:
        uid = next(s["user_id"] for s in row.seats if s["index"] == seat)
        return self.by_id[uid]

    def seat_of(self, row: Any, person: Person) -> int:
        return next(s["index"] for s in row.seats if s["user_id"] == person.id)

    def hand_message(self, person: Person) -> Message:
        msgs = [m for m in person.dm_messages() if "hand**" in m.content]
        assert len(msgs) == 1, f"{person.name} has {len(msgs)} hand messages"
        return msgs[0]

    async def wait_current(self, person: Person, version: int) -> Message | None:
        """The person's hand message once it carries this version's choices (``None``
        if the table moved on meanwhile, by a timer).

        The DM hand is a record between moves (bot-token edits are spent only where the
        seat's secrets changed), so a person asked to act taps its Refresh button, as the
        record tells them to, and the click's own token turns it into their choices."""
        marker = f":{version}:"

        def ready() -> Message | None:
            msg = self.hand_message(person)
            ids = [c for c in msg.custom_ids
                   if not c.endswith(":tell") and not c.endswith(":refresh")]
            return msg if ids and all(marker in c for c in ids) else None

        def refresh_button() -> str | None:
            msg = self.hand_message(person)
            return next((c for c in msg.custom_ids if c.endswith(":refresh")), None)

        def any_choice() -> tuple[str, str | None] | None:
            # A hand left showing an older moment's choices: a tap on one of them (a
            # button, or an option of a select) brings the hand to the moment of now
            # (with a word that the moment had passed). Never its Tell button: that opens
            # the form for words added to the story (a person looking for their choices
            # does not press it), and a form left open would be sent with the next choice
            # as a passage out of turn.
            refresh = refresh_button()
            if refresh is not None:
                return refresh, None
            msg = self.hand_message(person)
            button = next((b.custom_id for b in msg.buttons if b.custom_id
                           and not b.disabled and not b.custom_id.endswith(":tell")), None)
            if button is not None:
                return button, None
            select = next((s for s in msg.selects if not s.disabled and s.values), None)
            return (select.custom_id, select.values[0]) if select is not None else None

        if ready() is None:
            cid, value = await self.emu.wait_for(any_choice, 15,
                                                 f"{person.name}'s hand buttons")
            if value is None:
                await person.click(self.hand_message(person), custom_id=cid)
            else:
                await person.select(self.hand_message(person), value, custom_id=cid)
        # A timer (the interrupt timeout) may pass someone's decision meanwhile: the
        # moment is gone, and the person looks again at the new one (None).
        def ready_or_gone() -> tuple[Message | None] | None:
            msg = ready()
            if msg is not None:
                return (msg,)
            return (None,) if self.row().version != version else None

        (msg,) = await self.emu.wait_for(ready_or_gone, 15,
                                         f"{person.name}'s hand at v{version}")
        return msg

    # -- the leak checks -----------------------------------------------------------------

    def secrets_at(self, state: Any) -> dict[int, set[str]]:
        """Per seat: the titles only that seat may know (its hand, its secret Objectives,
        its cards hidden under a Trap)."""
        out: dict[int, set[str]] = {s: set() for s in range(state.players)}
        for seat, hand in enumerate(state.hands):
            out[seat] |= {SAFE_TITLES[c] for c in hand if c in SAFE_TITLES}
        for o in state.objectives:
            if not o.revealed and not o.completed:
                out[o.seat].add(OBJECTIVES[o.card])
        for frame in state.stack:
            if frame.kind == "trap":
                for card, _side, who in frame.hidden:
                    if card in SAFE_TITLES:
                        out[who].add(SAFE_TITLES[card])
        return out

    def _fresh(self, msgs: list[Message]) -> list[Message]:
        """Messages new or edited since the last scan."""
        out = []
        for m in msgs:
            key = (m.edits, len(m.content), len(m.custom_ids))
            if self.seen.get(m.id) != key:
                self.seen[m.id] = key
                out.append(m)
        return out

    def scan(self, row: Any) -> None:
        """Everything new or edited since the last scan, against the true state of this
        version (a message is at most one move behind: it cannot show a card that has
        since gone round the deck into another hand)."""
        state = self.state(row)
        secret = self.secrets_at(state)
        everyone = set().union(*secret.values())
        self.scans += 1
        for msg in self._fresh(self.emu.channel.messages):
            self._no_titles(msg, everyone, "the channel")
            for cid in msg.custom_ids:
                code = cid.rsplit(":", 1)[1]
                assert code in ("turn", "tell") or code.startswith("lobby."), cid
        for person in self.people:
            seat = self.seat_of(row, person)
            others = set().union(*(v for s, v in secret.items() if s != seat)) - secret[seat]
            for msg in self._fresh(person.dm_messages() + person.ephemerals()):
                self._no_titles(msg, others, f"{person.name}'s DM or ephemeral")
                for cid in msg.custom_ids:
                    assert not re.search(r"story_|reward_|spy_|attack_", cid), cid
                    self.custom_ids += 1

    def _no_titles(self, msg: Message, titles: set[str], where: str) -> None:
        text = f"{msg.text}\n{msg.raw_json()}"
        for title in titles:
            assert title not in text, f"{where}: {msg!r} shows {title!r}"

    def check_board(self, msg: Message) -> None:
        """A board picture is the PUBLIC view's rendering at some version. Pictures are
        posted in version order but may trail the game by a few moves (each takes a
        moment to draw), so versions are tried from the newest back, one rendering per
        distinct public view."""
        import renderers

        data = next(a.data for a in msg.attachments if a.content_type == "image/png")
        row = self.row()
        names = [s["name"] for s in sorted(row.seats, key=lambda s: s["index"])]
        last = None
        for version in sorted(self.states, reverse=True)[:40]:
            view = GAME.view(GAME.load_state(self.states[version]), None)
            dump = view.model_dump_json()
            if dump == last:
                continue
            last = dump
            if renderers.render(GAME.id, view, names=names) == data:
                self.boards_checked += 1
                return
        raise AssertionError(f"{msg!r}: not the public view of any recent version")

    async def check_hand_image(self, person: Person, row: Any) -> None:
        """The DM hand picture is the rendering of the person's OWN view (once the edit
        that follows the move has arrived)."""
        from renderers import winter_hand

        names = [s["name"] for s in sorted(row.seats, key=lambda s: s["index"])]
        view = GAME.view(self.state(row), self.seat_of(row, person))
        expected = winter_hand.render(view, names)

        def shown() -> bool:
            msg = self.hand_message(person)
            return any(a.data == expected for a in msg.attachments)

        await self.emu.wait_for(shown, 15, f"{person.name}'s hand picture")
        self.hands_checked += 1


async def choose_and_play(g: Game, rng: random.Random, row: Any, person: Person,
                          panel: Message | None = None,
                          prefer: dict[str, float] | None = None) -> str:
    """One decision of ``person`` through their DM hand message (or /winter tell);
    ``panel``: through that message instead (an ephemeral ``/winter hand``); ``prefer``:
    weights of choice kinds instead of :data:`PREFER`."""
    state = g.state(row)
    seat = g.seat_of(row, person)
    legal = GAME.legal_actions(state, seat)
    msg = panel if panel is not None else await g.wait_current(person, row.version)
    if msg is None:
        return TIMER_FIRST

    def kind_of(code: str) -> str:
        if code.startswith("a") and code[1:].isdigit():
            return legal[int(code[1:])].kind
        if code.startswith("g"):
            return code[1:].rpartition(".")[0]
        return code[1:]

    def options(m: Message) -> list[tuple[str, str | None, str]]:
        """(custom_id, select value or None, action kind) of every choice on ``m``."""
        out = []
        for b in m.buttons:
            if b.custom_id and not b.disabled \
                    and not b.custom_id.endswith((":tell", ":refresh")):
                out.append((b.custom_id, None, kind_of(b.custom_id.rsplit(":", 1)[1])))
        for s in m.selects:
            out.extend((s.custom_id, v, kind_of(v)) for v in s.values)
        return out

    choices = options(msg)
    assert choices, f"{person.name} is to act but their hand message offers nothing"
    weights = [(prefer or PREFER).get(k, 1.0) for _c, _v, k in choices]
    cid, value, kind = rng.choices(choices, weights)[0]
    if kind == "play_card" and rng.random() < 0.35:
        # The slash path: the card from autocomplete (own hand only), with a sentence.
        got = await person.autocomplete("/winter tell", "card", "", text="x")
        own = {c["value"] for c in got}
        assert own == set(state.hands[seat]), "autocomplete must list exactly one's own hand"
        plays = [a for a in legal if a.kind == "play_card"]
        play = rng.choice(plays)
        sides = {a.side for a in plays if a.card == play.card}
        opts: dict[str, Any] = {"text": sentence(rng, person.name), "card": play.card}
        if len(sides) > 1:
            opts["side"] = play.side
        done = await person.slash("/winter tell", settle=False, **opts)
        assert done.reply is not None and done.reply.ephemeral
        return "tell-card"
    for _depth in range(3):
        if value is None:
            inter = await person.click(msg, custom_id=cid, settle=False)
        else:
            inter = await person.select(msg, value, custom_id=cid, settle=False)
        if person.modal is not None:
            await person.submit_modal(text=sentence(rng, person.name), settle=False)
            return kind
        menu = await g.emu.answer(inter)
        if menu is None or not menu.ephemeral or not (menu.buttons or menu.selects) \
                or "hand**" in menu.content:  # the next hand (closed DMs), not a menu
            return kind
        follow = options(menu)
        if not follow:
            return kind
        msg = menu
        cid, value, kind = rng.choice(follow)
    raise AssertionError("a choice took more than three steps")


async def play_to_the_end(e2e: E2E, players: int, seed: int, options: str,
                          max_moves: int = 400, idle_once: bool = False) -> dict[str, Any]:
    """Play a whole game. ``idle_once``: the first time someone has an optional decision
    (an interrupt, stepping in...), nobody answers it, and the table's interrupt timeout
    must pass it for them."""
    emu, bot, (alice, bob, carol) = e2e
    people = [alice, bob, carol] + [emu.user(f"p{i}") for i in range(4, players + 1)]
    started_at = time.perf_counter()
    opened = await alice.slash("/table new", game="winter-tales", options={"options": options})
    assert opened.reply is not None and "Winter Tales" in opened.reply.content
    for p in people[1:]:
        await p.slash("/table join")
    await alice.slash("/table start")
    start = next(m for m in emu.channel.messages if "Lines" in m.content)
    assert "Veils" in start.content and "/winter xcard" in start.content
    g = Game(emu, bot.db_path, people)
    rng = random.Random(seed)
    moves = 0
    kinds: dict[str, int] = {}
    exported = False
    xcarded = False
    last_board = 0
    while moves < max_moves:
        row = g.row()
        g.states[row.version] = row.state
        g.scan(row)
        boards = [m for m in emu.channel.messages[-8:]
                  if any(a.filename == "board.png" for a in m.attachments)]
        if boards and boards[-1].id != last_board:
            last_board = boards[-1].id
            if g.boards_posted % 20 == 0:  # a sample: each check renders boards again
                g.check_board(boards[-1])
            g.boards_posted += 1
        if row.finished:
            break
        state = g.state(row)
        to_act = GAME.to_act(state)
        assert to_act, "a playing table always waits for someone"
        person = g.person(row, rng.choice(to_act))
        if not exported and moves >= 45:
            exported = True
            await check_mid_game_export(g, row, people[-1])
        optional = GAME.view(state, None).optional
        if idle_once and optional and not any(
                g.seat_of(row, p) in to_act and g.seat_of(row, p) not in optional
                for p in people):
            idle_once = False
            await emu.wait_for(lambda v=row.version: g.row().version > v, 15,
                               "the interrupt timeout to pass the undecided seat")
            name = next(x["name"] for x in row.seats if x["index"] == optional[0])
            await emu.wait_for(lambda n=name: any(
                f"{n} did not decide in time" in m.content
                for m in emu.channel.messages[-4:]), 10, "the timeout announcement")
            passed = json.loads(actions(g.db, row.id)[-1][2])
            assert passed["kind"] == "pass"
            g.timeouts += 1
            continue
        if not xcarded and moves > 30:
            xcarded = True
            await raise_x_card(g, rng, people)
            continue
        kind = await choose_and_play(g, rng, row, person)
        if kind == TIMER_FIRST:
            continue  # the interrupt timeout passed someone first: look again
        kinds[kind] = kinds.get(kind, 0) + 1
        moves += 1
        await emu.wait_for(lambda v=row.version: g.row().version > v, 15, "the move")
        if moves % 40 == 1:
            await g.check_hand_image(person, g.row())
    row = g.row()
    assert row.status == "finished", f"not finished after {moves} decisions"

    def storybook() -> Message | None:
        return next((m for m in reversed(emu.channel.messages) if "storybook" in m.content
                     and m.attachments), None)

    book = await emu.wait_for(storybook, 20, "the storybook in the channel")
    files = {a.filename.rsplit(".", 1)[1]: a.data for a in book.attachments}
    assert set(files) == {"md", "html", "json"}
    final = GAME.load_state(row.state)
    return {"moves": moves, "kinds": kinds, "files": files, "state": final,
            "seconds": time.perf_counter() - started_at, "game": g, "row": row}


async def check_mid_game_export(g: Game, row: Any, person: Person) -> None:
    done = await person.slash("/winter story")
    reply = done.reply
    assert reply is not None and reply.ephemeral
    names = sorted(a.filename for a in reply.attachments)
    assert [n.rsplit(".", 1)[1] for n in names] == ["html", "json", "md"]
    secret = set().union(*g.secrets_at(g.state(g.row())).values())
    for a in reply.attachments:
        text = a.data.decode("utf-8")
        for title in secret:
            assert title not in text, f"mid-game export {a.filename} shows {title!r}"


async def raise_x_card(g: Game, rng: random.Random, people: list[Person]) -> None:
    row = g.row()
    state = g.state(row)
    arbiter = g.person(row, state.arbiter)
    raiser = rng.choice([p for p in people if p != arbiter])
    before = len(arbiter.dm_messages())
    done = await raiser.slash("/winter xcard")
    assert done.reply is not None and done.reply.ephemeral
    line = next(m for m in reversed(g.emu.channel.messages) if "X-card" in m.content)
    x_line = next(t for t in line.content.splitlines() if "X-card" in t)
    assert raiser.name not in x_line
    told = [m for m in arbiter.dm_messages()[before:] if "X-card" in m.content]
    assert told and raiser.name not in told[0].content


def report(label: str, result: dict[str, Any]) -> None:
    state = result["state"]
    sizes = {k: len(v) for k, v in result["files"].items()}
    print(f"\n{label}: {result['moves']} decisions, {len(state.transcript)} transcript "
          f"entries, exports {sizes}, {result['seconds']:.1f} s, boards checked "
          f"{result['game'].boards_checked} of {result['game'].boards_posted}, hand pictures "
          f"{result['game'].hands_checked}, scans {result['game'].scans}, custom_ids "
          f"{result['game'].custom_ids}, choices {result['kinds']}")


async def test_three_players_full_game(e2e: E2E) -> None:
    result = await play_to_the_end(e2e, 3, seed=1, options="interrupt_timeout=120")
    report("3 players", result)
    STORYBOOK.write_bytes(result["files"]["html"])
    html = result["files"]["html"].decode()
    assert "<html" in html.lower() and "Memory" in html
    assert result["state"].winner is not None
    played = [e for e in result["state"].transcript if e.card and e.text]
    assert played, "cards were played with their sentences"
    _emu, bot, _ = e2e
    bot.assert_log_clean()


async def test_four_players_with_modules(e2e: E2E) -> None:
    result = await play_to_the_end(e2e, 4, seed=2,
                                   options="power=yes skill=yes lines='spiders' veils=none "
                                   "interrupt_timeout=1", idle_once=True)
    report("4 players", result)
    assert result["game"].timeouts == 1
    assert result["state"].options.lines == ["spiders"]
    assert result["state"].winner is not None


async def test_seven_players_full_game(e2e: E2E) -> None:
    result = await play_to_the_end(e2e, 7, seed=3, options="")
    report("7 players", result)
    assert result["state"].winner is not None
    assert len(result["state"].factions) == 7 and "writer" in result["state"].factions
