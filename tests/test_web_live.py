"""The Activity's sockets: each viewer's own view, moves as touches, every commit live to
every viewer in version order, and the limits of a session."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from bot.core.choices import get_ui
from bot.core.tables import STALE, Outbox, TableInfo
from bot.web.protocol import MAX_MESSAGE_BYTES
from bot.web.viewers import NO_TABLE
from engines.catalog import spec
from engines.core import Action, View
from tests.e2e.hidden import assert_web_views_hidden
from tests.web_helpers import CHANNEL, GUILD, Board, WebHarness, web  # noqa: F401


async def open_table(web: WebHarness, game: str, people: list[Any],  # noqa: F811
                     options: dict[str, Any] | None = None, seed: int = 7) -> Outbox:
    host, *others = people
    await web.service.create(CHANNEL, GUILD, host.id, host.name, game, options, seed=seed)
    for person in others:
        await web.service.join(CHANNEL, person.id, person.name)
    return await web.service.start(CHANNEL, host.id)


def first_choice(menus: list[dict[str, Any]]) -> str:
    return next(c["code"] for m in menus for c in m["choices"] if not c["disabled"])


async def touch_a_move(board: Board, state: dict[str, Any], request: int = 1) -> int:
    """Play the first enabled choice of ``state`` through the board, following the guided
    steps (follow-up menus) to a move; returns the version the move leads to."""
    version, code = state["version"], first_choice(state["menus"])
    for step in range(8):
        await board.send({"type": "choose", "id": request + step, "version": version,
                          "code": code})
        answer = await board.next()
        if answer["type"] == "state":
            assert answer["version"] == version + 1
            return version + 1
        assert answer["type"] == "menu" and answer["id"] == request + step, answer
        code = first_choice([answer["menu"]])
    raise AssertionError("no move after eight steps")


def click_first(game_id: str) -> Any:
    """A ``decide`` for ``TableService.choose`` that clicks the first enabled button of
    the turn message and the first choice of each step, as a Discord click does through
    the game's adapter (bot/messages/clicks.py)."""
    ui = get_ui(game_id)

    def decide(table: TableInfo, view: View, legal: list[Action]) -> Action:
        menu = ui.public_menu(view, legal)
        assert menu is not None
        resolution = ui.resolve(next(c.code for c in menu.choices if not c.disabled),
                                view, legal)
        while resolution.action is None:
            assert resolution.menu is not None
            resolution = ui.resolve(resolution.menu.choices[0].code, view, legal)
        return resolution.action

    return decide


def other_seat_fragments(game_id: str, state: Any, seat: int) -> list[re.Pattern[str]]:
    """The game's declared secret fragments (``GameSpec.secret_fragments``, as
    tests/e2e/hidden.py reads them) of ``seat``'s secrets only: a copy of the state in
    which every other seat holds nothing secret."""
    from engines import get_game

    game = get_game(game_id)
    only = game.copy_state(state)
    for index, player in enumerate(only.seats):
        if index != seat:
            player.recipes, player.kept, player.pack = [], [], []
    made = spec(game_id).secret_fragments
    assert made is not None
    return [re.compile(r"\W{0,4}".join(re.escape(w) for w in words), re.IGNORECASE)
            for words in made(game, only)]


async def test_each_viewer_sees_their_own_seat_or_the_public_view(
        web: WebHarness) -> None:  # noqa: F811
    alice, bob, carol = (web.emu.user(n) for n in ("alice", "bob", "carol"))
    start = await open_table(web, "crossroads-inn", [alice, bob], {"basic_tiles": "none"})
    boards = {}
    for person in (alice, bob, carol):
        boards[person] = await web.open(await web.sign_in(person))
    states = {p: await b.next("state") for p, b in boards.items()}
    game, true_state, version = await web.service.state_for_search(start.table_id)
    seat_of = {s.user_id: s.index for s in start.table.seats}
    for person in (alice, bob):
        state = states[person]
        seat = seat_of[person.id]
        assert state["seat"] == seat and state["version"] == version == 0
        assert [s["you"] for s in state["table"]["seats"]] == [
            s.index == seat for s in start.table.seats]
        own = game.view(true_state, seat).model_dump(mode="json")
        assert state["view"] == own and state["view"]["my_recipes"]
    spectator = states[carol]
    assert spectator["seat"] is None and spectator["menus"] == []
    assert spectator["view"] == game.view(true_state, None).model_dump(mode="json")
    assert spectator["view"]["my_recipes"] is None
    # Whoever is to act has the choices of the moment; the other seat has none.
    first = start.table.to_act[0]
    actor = next(p for p in (alice, bob) if seat_of[p.id] == first)
    waiting = next(p for p in (alice, bob) if p is not actor)
    assert states[actor]["menus"] and not states[waiting]["menus"]
    # A step played from the board reaches the others with their own views.
    played = await touch_a_move(boards[actor], states[actor])
    for person in (waiting, carol):
        await boards[person].state_at(played)
    _, final_state, final_version = await web.service.state_for_search(start.table_id)
    assert final_version == played
    # The shared leak check, per viewer and per version (tests/e2e/hidden.py).
    checked = assert_web_views_hidden(
        web.db, CHANNEL, {p.id: b.received for p, b in boards.items()})
    assert checked >= 6
    for person, board in boards.items():
        seat = seat_of.get(person.id)
        sent = "\n".join(board.raw)
        for other, other_seat in seat_of.items():
            if other == person.id:
                continue
            for snapshot in (true_state, final_state):
                for pattern in other_seat_fragments("crossroads-inn", snapshot, other_seat):
                    assert pattern.search(sent) is None, (
                        f"{person.name}'s board shows {pattern.pattern!r} of seat {other_seat}")
                theirs = game.view(snapshot, other_seat).my_recipes or []
                mine = set(game.view(snapshot, seat).my_recipes or []) if seat is not None \
                    else set()
                for recipe in set(theirs) - mine:
                    assert f'"{recipe}"' not in sent, f"{person.name} sees {recipe}"


async def test_a_touch_plays_the_move_and_every_viewer_gets_it_in_order(
        web: WebHarness) -> None:  # noqa: F811
    alice, bob, carol = (web.emu.user(n) for n in ("alice", "bob", "carol"))
    start = await open_table(web, "fairy-tale-inn", [alice, bob])
    seat_of = {s.user_id: s.index for s in start.table.seats}
    actor = alice if seat_of[alice.id] in start.table.to_act else bob
    session = await web.sign_in(actor)
    tab_one, tab_two = await web.open(session), await web.open(session)
    watcher = await web.open(await web.sign_in(carol))
    state = await tab_one.next("state")
    await tab_two.next("state")
    await watcher.next("state")
    played = await touch_a_move(tab_one, state)
    for board in (tab_two, watcher):  # the other tab and the spectator, at once
        seen = await board.next("state")
        assert seen["version"] == played and seen["lines"], seen
    table = await web.service.status(start.table_id)
    assert table.version == played
    # Moves made elsewhere (Discord's clicks, the service) arrive in version order.
    versions: list[int] = []
    for _ in range(4):
        info = await web.service.status(start.table_id)
        user = next(s.user_id for s in info.seats if s.index in info.to_act)
        legal = await web.service.legal_actions(info.id, user)  # type: ignore[arg-type]
        await web.service.act(info.id, user, legal[0], expected_version=info.version)  # type: ignore[arg-type]
    final = (await web.service.status(start.table_id)).version
    while not versions or versions[-1] < final:
        versions.append((await watcher.next("state"))["version"])
    assert versions == sorted(versions) and versions[-1] == final == played + 4


async def test_a_stale_touch_is_refused_as_on_discord_and_changes_nothing(
        web: WebHarness) -> None:  # noqa: F811
    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    start = await open_table(web, "fairy-tale-inn", [alice, bob])
    seat_of = {s.user_id: s.index for s in start.table.seats}
    actor = alice if seat_of[alice.id] in start.table.to_act else bob
    other = bob if actor is alice else alice
    board = await web.open(await web.sign_in(actor))
    state = await board.next("state")
    code = first_choice(state["menus"])
    await board.send({"type": "choose", "id": 9, "version": state["version"] + 5, "code": code})
    answer = await board.next()
    assert answer == {"type": "refused", "id": 9, "text": STALE}
    # Not your seat's turn: the very words of Discord's buttons.
    stranger = await web.open(await web.sign_in(other))
    await stranger.next("state")
    await stranger.send({"type": "choose", "id": 3, "version": 0, "code": code})
    refusal = await stranger.next("refused")
    assert refusal["id"] == 3 and "not your turn" in refusal["text"]
    spectator = await web.open(await web.sign_in(web.emu.user("carol")))
    await spectator.next("state")
    await spectator.send({"type": "choose", "id": 4, "version": 0, "code": code})
    assert "do not have a seat" in (await spectator.next("refused"))["text"]
    assert (await web.service.status(start.table_id)).version == start.version
    assert await board.quiet() == []  # no state went out: nothing changed


async def test_a_move_by_another_front_end_reaches_the_socket(
        web: WebHarness) -> None:  # noqa: F811
    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    start = await open_table(web, "fairy-tale-inn", [alice, bob])
    board = await web.open(await web.sign_in(bob))
    assert (await board.next("state"))["version"] == 0
    info = start.table
    user = next(s.user_id for s in info.seats if s.index in info.to_act)
    # A Discord click: choose() with the game's adapter, as bot/messages/clicks.py does.
    outbox = await web.service.choose(info.id, user, 0, click_first("fairy-tale-inn"))
    assert isinstance(outbox, Outbox)
    state = await board.next("state")
    assert state["version"] == 1 and state["lines"] == [
        *outbox.public.lines, outbox.public.turn_line]  # type: ignore[union-attr]


async def test_guided_steps_come_back_as_menus_for_the_chooser_only(
        web: WebHarness) -> None:  # noqa: F811
    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    start = await open_table(web, "fairy-tale-inn", [alice, bob])
    seat_of = {s.user_id: s.index for s in start.table.seats}
    actor = alice if seat_of[alice.id] in start.table.to_act else bob
    board = await web.open(await web.sign_in(actor))
    other = await web.open(await web.sign_in(bob if actor is alice else alice))
    state, _ = await board.next("state"), await other.next("state")
    slot = first_choice(state["menus"])
    assert re.fullmatch(r"s\d+", slot)  # a guest of the Guest List, then its column
    await board.send({"type": "choose", "id": 5, "version": 0, "code": slot})
    menu = await board.next("menu")
    assert menu["id"] == 5 and all(re.fullmatch(r"d\d+c\d+", c["code"])
                                   for c in menu["menu"]["choices"])
    assert "column" in menu["menu"]["title"]
    assert await other.quiet() == []  # a step of the chooser's own is theirs alone
    await board.send({"type": "choose", "id": 6, "version": 0, "code": "zz-unknown"})
    assert (await board.next("refused"))["id"] == 6


async def test_bad_oversized_and_too_many_messages_are_refused(
        web: WebHarness) -> None:  # noqa: F811
    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    start = await open_table(web, "fairy-tale-inn", [alice, bob])
    board = await web.open(await web.sign_in(alice))
    await board.next("state")
    await board.send("x" * (MAX_MESSAGE_BYTES + 1))
    assert "too large" in (await board.next("error"))["text"]
    await board.send("{not json")
    assert "not JSON" in (await board.next("error"))["text"]
    await board.send({"type": "choose", "id": 1, "version": 0, "code": "a b"})
    assert "not valid" in (await board.next("error"))["text"]
    await board.send({"type": "hello", "session": "x", "channel_id": "1"})
    assert "hello already" in (await board.next("error"))["text"]
    for _ in range(40):
        await board.send({"type": "resync"})
    got = await board.quiet(0.5)
    errors = [m for m in got if m["type"] == "error"]
    assert errors and all("Too many messages" in m["text"] for m in errors)
    assert 0 < len([m for m in got if m["type"] == "state"]) <= 21
    assert (await web.service.status(start.table_id)).version == start.version


async def test_a_bad_session_or_another_channel_closes_the_socket(
        web: WebHarness) -> None:  # noqa: F811
    alice = web.emu.user("alice")
    session = await web.sign_in(alice)
    board = await web.open(session + "x")
    assert "not signed" in (await board.next("error"))["text"]
    elsewhere = await web.open(session, CHANNEL + 1)
    assert "another channel" in (await elsewhere.next("error"))["text"]
    ws = await web.http.ws_connect(web.url + "/api/ws",
                                   headers={"Origin": "https://web-tests.example"})
    await ws.send_str(json.dumps({"type": "resync"}))
    msg = await ws.receive()
    assert "hello first" in json.loads(msg.data)["text"]
    await ws.close()


async def test_a_reconnect_resyncs_to_the_latest_version(web: WebHarness) -> None:  # noqa: F811
    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    start = await open_table(web, "fairy-tale-inn", [alice, bob])
    session = await web.sign_in(alice)
    board = await web.open(session)
    assert (await board.next("state"))["version"] == 0
    await board.close()
    for _ in range(3):  # moves made while the board was away
        info = await web.service.status(start.table_id)
        user = next(s.user_id for s in info.seats if s.index in info.to_act)
        legal = await web.service.legal_actions(info.id, user)  # type: ignore[arg-type]
        await web.service.act(info.id, user, legal[0], expected_version=info.version)  # type: ignore[arg-type]
    again = await web.open(session, version=0)
    state = await again.next("state")
    assert state["version"] == 3 and state["lines"] == []
    await again.send({"type": "resync"})
    assert (await again.next("state"))["version"] == 3


async def test_no_table_then_a_new_table_appears(web: WebHarness) -> None:  # noqa: F811
    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    board = await web.open(await web.sign_in(alice))
    empty = await board.next()
    assert empty == {"type": "no_table", "text": NO_TABLE} and "/table new" in NO_TABLE
    await web.service.create(CHANNEL, GUILD, bob.id, "bob", "fairy-tale-inn")
    lobby = await board.next("state")
    assert lobby["table"]["status"] == "lobby" and lobby["view"] is None
    await web.service.join(CHANNEL, alice.id, "alice")
    joined = await board.next("state")
    assert [s["you"] for s in joined["table"]["seats"]] == [False, True]
    await web.service.start(CHANNEL, bob.id)
    started = await board.next("state")
    assert started["table"]["status"] == "playing" and started["view"] is not None
    assert started["seat"] is not None


async def test_too_many_boards_for_one_person(web: WebHarness) -> None:  # noqa: F811
    from bot.web.protocol import MAX_SOCKETS_PER_USER

    session = await web.sign_in(web.emu.user("alice"))
    boards = [await web.open(session) for _ in range(MAX_SOCKETS_PER_USER)]
    for board in boards:
        assert (await board.next())["type"] == "no_table"
    extra = await web.open(session)
    assert "boards open already" in (await extra.next("error"))["text"]


async def test_stopping_the_server_closes_open_boards_at_once(
        web: WebHarness) -> None:  # noqa: F811
    import time

    import aiohttp

    board = await web.open(await web.sign_in(web.emu.user("alice")))
    assert (await board.next())["type"] == "no_table"
    reading = asyncio.ensure_future(board.ws.receive(timeout=5))  # a browser always reads
    await asyncio.sleep(0.05)
    began = time.perf_counter()
    await web.server.stop()
    assert time.perf_counter() - began < 5  # not aiohttp's 60-second shutdown wait
    msg = await reading
    assert msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED)
    assert board.ws.close_code == 1001  # "going away": the board reconnects


async def test_a_move_committed_by_another_process_reaches_the_socket(
        web: WebHarness) -> None:  # noqa: F811
    """A cluster: another process (a second service on the same store file) plays a
    Discord click; this process's watcher never sees that commit, and its poll of the
    store brings the board to the new version within about a second."""
    from bot.core.tables import TableService
    from bot.web.viewers import POLL_SECONDS

    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    start = await open_table(web, "fairy-tale-inn", [alice, bob])
    boards = {p.id: await web.open(await web.sign_in(p)) for p in (alice, bob)}
    for board in boards.values():
        assert (await board.next("state"))["version"] == 0
    other = await TableService.open_sqlite(web.db, ai_delay=0)
    try:
        info = start.table
        user = next(s.user_id for s in info.seats if s.index in info.to_act)
        loop = asyncio.get_running_loop()
        began = loop.time()
        outbox = await other.choose(info.id, user, 0, click_first("fairy-tale-inn"))
        assert isinstance(outbox, Outbox) and outbox.version == 1
        states = {u: await b.next("state", timeout=3 * POLL_SECONDS + 2.0)
                  for u, b in boards.items()}
        assert all(s["version"] == 1 and s["seat"] is not None for s in states.values())
        assert loop.time() - began < 1.5  # within the same second or so, not at a resync
        assert web.server.viewers.remote >= 1
        # And it plays on from there: this process's own touch is at the new version.
        mover = next(u for u, s in states.items() if s["menus"])
        assert mover != user
        assert await touch_a_move(boards[mover], states[mover], request=5) == 2
        assert (await boards[user].next("state"))["version"] == 2
        for board in boards.values():
            assert await board.quiet() == []  # no second copy of any state
    finally:
        await other.wait_idle()
        await other.close()


async def test_the_boards_open_are_the_presence_every_process_reads(
        web: WebHarness) -> None:  # noqa: F811
    """Two tabs of one person count once, the last tab's close ends it, and another
    process (the one delivering to Discord, maybe) reads the same from the store."""
    from bot.core.tables import TableService

    alice, bob = web.emu.user("alice"), web.emu.user("bob")
    await open_table(web, "fairy-tale-inn", [alice, bob])
    session = await web.sign_in(bob)
    one, two = await web.open(session), await web.open(session)
    await one.next("state")
    await two.next("state")
    presence = web.service.presence
    assert presence.here(CHANNEL) == {bob.id}
    other = await TableService.open_sqlite(web.db, ai_delay=0)
    try:
        for _ in range(50):  # the stamp is written right after the change
            if await other.presence.watching(CHANNEL) == {bob.id}:
                break
            await asyncio.sleep(0.05)
        assert await other.presence.watching(CHANNEL) == {bob.id}
        await one.close()
        await asyncio.sleep(0.1)
        assert presence.here(CHANNEL) == {bob.id}  # the other tab is still open
        await two.close()
        for _ in range(50):
            if not presence.here(CHANNEL):
                break
            await asyncio.sleep(0.05)
        assert presence.here(CHANNEL) == set()
        await asyncio.sleep(2.2)  # past the other process's cached read
        assert await other.presence.watching(CHANNEL) == set()
    finally:
        await other.close()
