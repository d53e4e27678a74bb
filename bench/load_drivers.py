"""Simulated people at a table of any game, for the load benchmarks (bench/load_games).

A person plays only through what Discord shows them, as in the end-to-end tests
(tests/e2e/test_*_e2e.py), and clicks as soon as the bot shows them a choice:

* the **public turn message** of the channel, for the person it pings (the last table
  member it mentions; anyone at the table when it mentions nobody);
* their own **DM hand message**, in the games with a private hand;
* the private **follow-up menus** the bot answers a click with (a Fairy Tale Inn column
  after a slot, a Save the Treasure direction after a tile, a Crossroads group, ...),
  clicked on in turn until the click plays a move;
* a **text form** (a modal: Winter Tales tells a card with a sentence), filled in with a
  generated sentence and sent.

Every choice is picked at random among the enabled buttons and select options the bot
shows at the table's newest version (a select counts as one choice, its options share
it), so every click is a legal choice the bot offered, and a run plays real moves in
every game. :data:`DRIVERS` says per game where its choices are, which buttons are not
moves (Winter Tales' Tell-the-story button adds words out of turn; the "your hand"
buttons of the hand games open a copy of the DM hand) and which are clicked rarely
(Crossroads' Take back, so that turns go forward).

A click's outcome is read from what the people see, never from the database: a **move**
once a message of the table shows buttons of a newer version (or the game is over), a
**menu** when the bot answers privately with choices, **refused** when it answers
privately without any (and nothing moves within a second), **failed** when it did not
answer in Discord's 3 seconds, **lost** when nothing came for ``PATIENCE`` seconds. The
database is read only for what a person would learn from the channel's last message
(that the game ended: then the table opens a new game in the same channel) and to fix a
lobby's seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from dataclasses import dataclass, field
from typing import Any

from bench.load import MENTION, PATIENCE, LoadEmulator, Probe, sleep_until
from bot.messages.ui.activity import OPEN_BOARD
from tests.emulator import Channel, Interaction, Message, Person
from tests.emulator.people import modal_fields

MODAL = 9  # an interaction callback: the bot opened a text form
DEFERRED_UPDATE, UPDATE_MESSAGE = 6, 7  # callbacks that change the clicked message
REFRESH = "refresh"  # a DM hand's button: the record becomes the choices of the moment
CUSTOM_ID = re.compile(r"f[ts]:(?P<table>[A-Za-z0-9_-]+):(?P<version>\d+):(?P<code>.+)")
OVER = ("finished", "aborted", None)
REFUSAL_GRACE = 1.0  # seconds a private answer without choices waits for a move to show
MAX_STEPS = 6  # clicks of one decision (menus in a row) before it is given up
WORDS = ("snow", "lantern", "whisper", "frost", "bell", "shadow", "song", "ember", "gate",
         "wind", "mirror", "thread")


@dataclass(frozen=True)
class Driver:
    """Where a game's people find their choices, and which ones they click."""

    game: str
    players: int
    public: bool = True
    """Choices on the public turn message (for the person it pings)."""
    hand: bool = False
    """Choices on each person's DM hand message."""
    skip: frozenset[str] = frozenset()
    """Codes nobody clicks: not moves of the game."""
    rare: frozenset[str] = frozenset()
    """Codes clicked 20 times less often than the others."""
    options: str | None = None
    """``/table new`` options (None: the game's defaults)."""
    panel: bool = False
    """The turn message's Take your turn button (code ``turn``) opens the person's own
    panel in the channel, where they play the choices of their hand."""


DRIVERS: dict[str, Driver] = {d.game: d for d in (
    # A Guest List slot (then a column, privately), or the Rat / extra-turn buttons.
    Driver("fairy-tale-inn", 2),
    # Everything the peasant may do is on the public message, for the one who leads it.
    Driver("pocket", 2),
    # The turn message holds the step's choices, and its Take your turn opens the
    # panel of the private ones (the Recipes, the draft); the DM hand holds them too.
    Driver("crossroads-inn", 2, hand=True, panel=True, rare=frozenset({"u"})),
    # A tile (then a direction, privately), or a green tile, a step, stop sliding.
    Driver("treasure", 2),
    # The choices are on each person's panel (Take your turn) and DM hand (several
    # seats may decide at once); "tell" adds words to the story out of turn.
    Driver("winter-tales", 3, hand=True, panel=True, skip=frozenset({"tell"})),
)}
GAMES: tuple[str, ...] = tuple(DRIVERS)
"""Every game, in the order tables are dealt out (round-robin)."""


@dataclass(frozen=True)
class Option:
    """One choice on a message: a button, or one option of a select."""

    custom_id: str
    value: str | None  # the select option's value; None for a button
    code: str
    version: int
    table: str
    weight: float = 1.0


def parse_id(custom_id: str | None) -> tuple[str, int, str] | None:
    """(table, version, code) of a game button's or select's custom_id (bot/messages/ui/ids.py)."""
    m = CUSTOM_ID.fullmatch(custom_id or "")
    return (m["table"], int(m["version"]), m["code"]) if m else None


def options_of(msg: Message, skip: frozenset[str] = frozenset(),
               rare: frozenset[str] = frozenset()) -> list[Option]:
    """The enabled game choices of a message (not the lobby's Join / Start, nor the
    "Open the board" button)."""
    out = []
    for b in msg.buttons:
        ids = parse_id(b.custom_id) if not b.disabled else None
        if ids is None or ids[2].startswith("lobby.") or ids[2] in skip \
                or ids[2] == OPEN_BOARD:  # opens the Activity: no move comes of it
            continue
        assert b.custom_id is not None
        out.append(Option(b.custom_id, None, ids[2], ids[1], ids[0],
                          0.05 if ids[2] in rare else 1.0))
    for s in msg.selects:
        ids = parse_id(s.custom_id) if not s.disabled else None
        values = [v for v in s.values if v not in skip] if ids is not None else []
        if ids is None or not values:
            continue
        out += [Option(s.custom_id, v, v, ids[1], ids[0],
                       (0.05 if v in rare else 1.0) / len(values)) for v in values]
    return out


def table_of(msg: Message) -> str | None:
    """The table id a message's components belong to (lobby buttons included)."""
    for cid in msg.custom_ids:
        ids = parse_id(cid)
        if ids is not None:
            return ids[0]
    return None


def sentence(rng: random.Random, who: str) -> str:
    a, b, c = rng.sample(WORDS, 3)
    return f"{who} followed the {a} past the {b}, and the {c} answered softly."


@dataclass
class Played:
    """What one table's people did and saw (perf_counter times)."""

    clicks: list[Interaction] = field(default_factory=list)  # components and forms sent
    slash: list[Interaction] = field(default_factory=list)  # /table new, join, start...
    next_choices: list[tuple[float, float]] = field(default_factory=list)  # (at, latency)
    kinds: dict[int, str] = field(default_factory=dict)  # interaction id -> its outcome
    decisions: list[tuple[float, str]] = field(default_factory=list)  # (started, outcome)
    surfaces: list[tuple[float, str]] = field(default_factory=list)  # (started, dm|channel)
    stuck: int = 0
    lobbies: int = 0


class GameTable:
    """One channel's table of one game and its people, driven from the emulator's
    notifications (bench.load.LoadEmulator calls :meth:`on_message` for every message
    of the channel and of the people's DM channels, created or edited)."""

    def __init__(self, emu: LoadEmulator, probe: Probe, channel: Channel,
                 people: list[Person], driver: Driver, rng: random.Random,
                 dm_share: float = 0.0) -> None:
        self.emu, self.probe, self.channel = emu, probe, channel
        self.dm_share = dm_share
        """The share of decisions a person plays from their DM hand when the channel
        offers them the same moment (the turn message, their panel)."""
        self.people = people
        self.by_id = {p.id: p for p in people}
        self.driver = driver
        self.game = driver.game
        self.rng = rng
        self.rec = Played()
        self.table_id: str | None = None
        self.old_tables: set[str] = set()
        self.version = -1  # the newest version of the table's buttons seen anywhere
        self.moved = -1  # the version this table last played a move at
        self.turn: Message | None = None  # the public turn message
        self.hands: dict[int, Message] = {}  # user id -> their DM hand message
        self.last_press: tuple[Interaction, int] | None = None  # (interaction, version)
        self.ended_hint = False  # a public message without buttons: perhaps the end
        self.changed = asyncio.Event()
        self.dm_people: dict[int, Person] = {}
        emu.watchers[channel.id] = self.on_message
        for p in people:
            dm = emu.dm_channel(p.user)  # made now, so its id is known before any DM
            assert dm is not None
            self.dm_people[dm.id] = p
            emu.watchers[dm.id] = self.on_message

    # -- what the people see -------------------------------------------------------------

    def on_message(self, msg: Message, picture: bool, at: float) -> None:
        self.changed.set()
        if msg.ephemeral:
            return  # a private answer: read from its interaction (_outcome)
        public = msg.channel_id == self.channel.id
        table = table_of(msg)
        if table is None or table in self.old_tables:
            if public and table is None and (picture or msg.edits == 0):
                self.ended_hint = True
            return
        if self.table_id is None:
            self.table_id = table
        elif table != self.table_id:
            return
        versions = [ids[1] for ids in map(parse_id, msg.custom_ids)
                    if ids is not None and not ids[2].startswith("lobby.")]
        if not versions:
            if public and (picture or msg.edits == 0):
                self.ended_hint = True
            return
        v = max(versions)
        if public:
            self.turn = msg
        else:
            self.hands[self.dm_people[msg.channel_id].id] = msg
        self.version = max(self.version, v)
        press = self.last_press
        if press is not None and v > press[1] and self._offers(msg, public):
            # The interaction that played the move, to the first choice of the next one.
            self.rec.next_choices.append((press[0].dispatched_at, at - press[0].dispatched_at))
            self.last_press = None

    def _offers(self, msg: Message, public: bool) -> bool:
        if not (self.driver.public if public else self.driver.hand):
            return False
        return bool(options_of(msg, self.driver.skip))

    def choices(self) -> list[tuple[Person, Message, Option]]:
        """Who may click what now: the choices at the table's newest version, if it is
        newer than the last move made."""
        if self.version <= self.moved or self.table_id is None:
            return []
        d = self.driver
        out: list[tuple[Person, Message, Option]] = []

        def current(msg: Message) -> list[Option]:
            return [o for o in options_of(msg, d.skip, d.rare)
                    if o.version == self.version and o.table == self.table_id]

        if d.public and self.turn is not None:
            opts = current(self.turn)
            if opts:
                ids = [int(m) for m in MENTION.findall(self.turn.content)]
                actor = next((self.by_id[u] for u in reversed(ids) if u in self.by_id), None)
                for person in [actor] if actor is not None else self.people:
                    out += [(person, self.turn, o) for o in opts]
        if d.hand:
            asked = self._asked()
            for person in self.people:
                hand = self.hands.get(person.id)
                if hand is not None:
                    # Between looks a DM hand is a record with a Refresh button: the
                    # person the channel asks taps it, as the record tells them to.
                    # A record may be older than the table (its seat's secrets did not
                    # change since): its Refresh brings it to the moment of now.
                    # Without a Refresh, a tap on one of the record's older choices
                    # does the same (with a word that their moment has passed).
                    now = [o for o in current(hand)
                           if o.code != REFRESH or asked is None or person.id in asked]
                    if not now and (asked is None or person.id in asked):
                        older = [o for o in options_of(hand, d.skip)
                                 if o.table == self.table_id and o.version < self.version]
                        refresh = [o for o in older if o.code == REFRESH]
                        now = refresh or older[:1]
                    out += [(person, hand, o) for o in now]
        return out

    def _asked(self) -> set[int] | None:
        """The table's people the turn message asks to act (``None``: it names nobody)."""
        if self.turn is None:
            return None
        ids = {int(m) for m in MENTION.findall(self.turn.content)} & set(self.by_id)
        return ids or None

    async def status(self) -> str | None:
        return await self.probe.status(self.channel.id)

    async def _wait_change(self, timeout: float) -> None:
        self.changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.changed.wait(), max(timeout, 0.0))

    async def next_turn(self, timeout: float) -> str:
        """``turn`` once somebody has a choice newer than the last move, ``over`` once
        the game has ended, ``timeout``."""
        deadline = time.perf_counter() + timeout
        checked = time.perf_counter()
        while not self.choices():
            now = time.perf_counter()
            # The table's status is read only when a public message came without buttons
            # (the end of a game, or a turn message that lost them) or now and then while
            # nothing comes: a read per table per event would cost more than the bot.
            if self.ended_hint or now - checked > 5.0:
                self.ended_hint = False
                checked = now
                if await self.status() in OVER:
                    return "over"
            if now >= deadline:
                return "timeout"
            await self._wait_change(min(deadline - now, 5.0))
        return "turn"

    # -- clicking ------------------------------------------------------------------------

    def _pick(self, options: list[Any], weight: Any) -> Any:
        return self.rng.choices(options, [weight(o) for o in options])[0]

    async def _press(self, person: Person, msg: Message, opt: Option,
                     version: int) -> Interaction | None:
        try:
            if opt.value is None:
                inter = await person.click(msg, custom_id=opt.custom_id, wait=False)
            else:
                inter = await person.select(msg, opt.value, custom_id=opt.custom_id,
                                            wait=False)
        except (LookupError, AssertionError):  # the message changed under the click
            return None
        return await self._sent(inter, version)

    async def _sent(self, inter: Interaction, version: int) -> Interaction:
        # Noted before the answer: under load the next choices may show before this
        # coroutine runs again.
        self.last_press = (inter, version)
        self.rec.clicks.append(inter)
        await inter.responded.wait()
        return inter

    async def _submit(self, person: Person, version: int) -> Interaction | None:
        modal = person.modal
        if modal is None:
            return None
        text = sentence(self.rng, person.name)
        values = {f["custom_id"]: text for f in modal_fields(modal) if f.get("type") == 4}
        try:
            inter = await person.submit_modal(values, wait=False)
        except AssertionError:
            return None
        return await self._sent(inter, version)

    async def _outcome(self, inter: Interaction | None, version: int,
                       clicked: Message | None = None) -> tuple[str, Message | None]:
        """What an interaction came to (see the module's docstring), and the menu if it
        opened one (a private answer, or the clicked hand itself, brought to its
        choices by a Refresh)."""
        if inter is None:
            return "refused", None
        if inter.failed:
            return "failed", None
        if inter.response_type == MODAL:
            return "form", None
        deadline = time.perf_counter() + PATIENCE
        answered: float | None = None
        checked = time.perf_counter()
        while True:
            if self.version > version:
                return "move", None
            if clicked is not None and inter.response_type in (UPDATE_MESSAGE, DEFERRED_UPDATE):
                shown = next((m for m in self.hands.values() if m.id == clicked.id), clicked)
                if [o for o in options_of(shown, self.driver.skip | {REFRESH})
                        if o.version >= version]:
                    return "menu", shown
            now = time.perf_counter()
            answers = [m for m in inter.replies if m.ephemeral and not m.loading]
            if answers:
                if options_of(answers[0]):
                    return "menu", answers[0]
                answered = answered or now
                if now - answered >= REFUSAL_GRACE:
                    return "refused", None
            elif self.ended_hint or now - checked > 5.0:
                # The last move of a game shows no new buttons: the channel says it ended.
                self.ended_hint = False
                checked = now
                if await self.status() in OVER:
                    return "move", None
            if now >= deadline:
                return "lost", None
            await self._wait_change(min(deadline - now, 0.25 if answered else 5.0))

    async def decide(self) -> str:
        """One decision: a choice shown to somebody at the table, then the menus it
        leads to, until a move (``move``) or ``refused``, ``failed``, ``lost``."""
        started = time.perf_counter()
        choices = self.choices()
        if not choices:
            return "refused"
        version = self.version
        # The ping brings a person to the channel, where the turn message and their
        # panel are; some open their DM hand instead (dm_share).
        dm = [c for c in choices if c[1].channel_id != self.channel.id]
        here = [c for c in choices if c[1].channel_id == self.channel.id]
        if dm and here:
            choices = dm if self.rng.random() < self.dm_share else here
        person, msg, opt = self._pick(choices, lambda c: c[2].weight)
        self.rec.surfaces.append((started, "dm" if msg.channel_id != self.channel.id
                                  else "channel"))
        kind = "lost"
        for _step in range(MAX_STEPS):
            inter = await self._press(person, msg, opt, version)
            looked = opt.code == REFRESH or opt.version < version
            kind, menu = await self._outcome(inter, version, msg if looked else None)
            if inter is not None:
                self.rec.kinds[inter.id] = kind
            if kind == "form":
                inter = await self._submit(person, version)
                kind, menu = await self._outcome(inter, version)
                if inter is not None:
                    self.rec.kinds[inter.id] = kind
            if kind != "menu":
                break
            assert menu is not None
            opts = options_of(menu, self.driver.skip | {REFRESH}, self.driver.rare)
            if not opts:
                kind = "refused"
                break
            msg, opt = menu, self._pick(opts, lambda o: o.weight)
        if kind == "move":
            self.moved = version
        else:
            self.last_press = None  # no next choices are coming for it
        self.rec.decisions.append((started, kind))
        return kind

    @property
    def awaits_picture(self) -> bool:
        """A move was played and nobody was shown the next choices yet."""
        press = self.last_press
        return press is not None and self.rec.kinds.get(press[0].id) == "move"

    # -- a game from its lobby -----------------------------------------------------------

    async def lobby(self, seed: int | None = None) -> bool:
        """Open, join and start a game in the channel; True once its first choice shows."""
        for _attempt in range(3):
            if self.table_id is not None:
                self.old_tables.add(self.table_id)
            self.table_id, self.version, self.moved = None, -1, -1
            self.turn, self.hands, self.last_press = None, {}, None
            self.ended_hint = False
            self.rec.lobbies += 1
            host = self.people[0]
            new: dict[str, Any] = {"game": self.game}
            if self.driver.options is not None:
                new["options"] = {"options": self.driver.options}
            steps: list[tuple[Person, str, dict[str, Any]]] = [(host, "/table new", new)]
            steps += [(p, "/table join", {}) for p in self.people[1:]]
            steps.append((host, "/table start", {}))
            for person, command, options in steps:
                if command == "/table start" and seed is not None:
                    with contextlib.suppress(Exception):  # a repeatable game if it can be
                        await self.probe.set_seed(self.channel.id, seed)
                inter = await person.slash(command, channel=self.channel, settle=False,
                                           expect_response=False, **options)
                self.rec.slash.append(inter)
                # As a person would: the next command after this one's answer.
                with contextlib.suppress(Exception):
                    await self.emu.answer(inter, timeout=PATIENCE)
            if await self.next_turn(PATIENCE) == "turn":
                return True
            with contextlib.suppress(Exception):  # a half-made lobby: close it, try again
                inter = await host.slash("/table abort", channel=self.channel,
                                         settle=False, expect_response=False)
                self.rec.slash.append(inter)
        return False

    async def ready(self) -> bool:
        """Wait for the next choice; a finished game starts again."""
        while True:
            result = await self.next_turn(PATIENCE)
            if result == "turn":
                return True
            if result == "over":
                if not await self.lobby():
                    return False
                continue
            self.rec.stuck += 1
            return False

    async def play_closed(self, stop: asyncio.Event) -> None:
        """Click as soon as the bot shows a choice, until ``stop``."""
        while not stop.is_set():
            if not await self.ready():
                await sleep_until(time.perf_counter() + 5.0, stop)
                continue
            if stop.is_set():
                return
            if await self.decide() != "move":
                # After a refusal or a lost click: a moment for the table to show the
                # truth instead of clicking the same choice again at once.
                await self._wait_change(1.0)

    async def play_paced(self, stop: asyncio.Event, think: float, rng: random.Random) -> None:
        """As a person plays: once a choice shows, think an exponential time (mean
        ``think`` seconds) before the decision, until ``stop``. The private menus a
        decision leads to are answered at once (the thinking came before the first
        click)."""
        while not stop.is_set():
            if not await self.ready():
                await sleep_until(time.perf_counter() + 5.0, stop)
                continue
            if not await sleep_until(time.perf_counter() + rng.expovariate(1 / think), stop):
                return
            if await self.decide() != "move":
                await self._wait_change(1.0)

    async def play_once(self, at: float) -> str:
        """At ``at`` (perf_counter), one decision (a table woken after a quiet spell)."""
        await asyncio.sleep(max(0.0, at - time.perf_counter()))
        if not await self.ready():
            return "stuck"
        return await self.decide()
