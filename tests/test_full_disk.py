"""A database that cannot be written: a full disk (issue 23).

On SQLite with the disk full, every refused write was logged with its traceback (520
of them in 20 s), and with the write-ahead log filling the disk the bot refused every
move and did not recover after a restart. Now: one clear line when the database stops
being writable and one when it can be written again; the write-ahead log checkpointed
while writes are refused and when they go through again; a player gets a clear private
refusal and the table is unchanged; the bot starts on a database that is there but
cannot be written, and says what is wrong.

The full disk is simulated (no tmpfs here): either SQLite's own ``max_page_count``
limit, which makes SQLite fail exactly as on a full disk (SQLITE_FULL, "database or
disk is full"), or an ``sqlite3.OperationalError('database or disk is full')`` injected
at the end of each write transaction (the work done, then the failure and the
rollback, as a full disk does at the commit).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pytest

from bot.core.store import SqliteStore, StoreUnwritable, TableRecord, utcnow
from bot.core.store.sqlite import unwritable_reason
from bot.core.tables import TableService
from bot.core.tables.errors import StorageUnavailable
from tests.conftest import Backend

T = TypeVar("T")

STORE_LOG = "fabletop.store"


def make_table(table_id: str, channel: int) -> TableRecord:
    """A lobby row (each in its own channel: one live table per channel)."""
    return TableRecord(
        id=table_id,
        channel_id=channel,
        guild_id=1,
        game_id="toy-nim",
        options={},
        seed=42,
        status="lobby",
        host_id=100,
        seats=[{"index": 0, "name": "Ann", "user_id": 100, "ai_level": None}],
    )


class DiskFull:
    """Makes every write transaction of ``store`` fail as a full disk does while
    ``full`` is set (reads and checkpoints are left alone, as on a real full disk
    where the write-ahead log's pages can still be copied into existing pages)."""

    def __init__(self, store: SqliteStore) -> None:
        self.full = False
        self.refused = 0
        real = SqliteStore._transaction

        def transaction(conn: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
            if not self.full:
                return real(conn, work)

            def fails(c: sqlite3.Connection) -> T:
                work(c)
                self.refused += 1
                raise sqlite3.OperationalError("database or disk is full")

            return real(conn, fails)

        store._transaction = transaction  # type: ignore[method-assign]


def store_lines(caplog: pytest.LogCaptureFixture, words: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == STORE_LOG and words in r.getMessage()]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    s = SqliteStore(tmp_path / "full.db")
    await s.open()
    yield s
    await s.close()


# -- the store ---------------------------------------------------------------------------


def test_the_errors_that_mean_the_file_cannot_be_written() -> None:
    full = sqlite3.OperationalError("database or disk is full")
    assert unwritable_reason(full) == "the disk is full: database or disk is full"
    readonly = sqlite3.OperationalError("attempt to write a readonly database")
    assert unwritable_reason(readonly) is not None
    assert unwritable_reason(sqlite3.OperationalError("disk I/O error")) is not None
    assert unwritable_reason(sqlite3.IntegrityError("UNIQUE constraint failed")) is None
    assert unwritable_reason(sqlite3.OperationalError("no such table: x")) is None


async def test_a_real_sqlite_full_error_is_one_line_each_way(
    store: SqliteStore, caplog: pytest.LogCaptureFixture
) -> None:
    """SQLite's page limit fails writes with SQLITE_FULL, as a full disk does."""
    pages = (await store._call(lambda c: c.execute("PRAGMA page_count").fetchone()))[0]
    await store._call(lambda c: c.execute(f"PRAGMA max_page_count={pages}").fetchone())
    refusals = 0
    with caplog.at_level(logging.INFO):
        for n in range(60):
            try:
                await store.create_table(make_table(f"t{n}", channel=1000 + n))
            except StoreUnwritable as exc:
                assert "disk is full" in exc.reason
                refusals += 1
        assert refusals > 10
        assert len(store_lines(caplog, "cannot be written")) == 1
        assert store_lines(caplog, "can be written again") == []
        # Space returns.
        await store._call(lambda c: c.execute("PRAGMA max_page_count=1073741823").fetchone())
        await store.create_table(make_table("after", channel=5000))
    assert await store.get_table("after") is not None
    assert len(store_lines(caplog, "can be written again")) == 1
    assert len(store_lines(caplog, "cannot be written")) == 1
    assert not any(r.exc_info for r in caplog.records)


async def test_one_line_per_change_of_state_however_many_writes_are_refused(
    store: SqliteStore, caplog: pytest.LogCaptureFixture
) -> None:
    disk = DiskFull(store)
    await store.create_table(make_table("t1", channel=1))
    before = await store.get_table("t1")
    with caplog.at_level(logging.INFO):
        for cycle in range(2):
            disk.full = True
            for n in range(25):
                with pytest.raises(StoreUnwritable):
                    await store.create_table(make_table(f"x{cycle}{n}", channel=100 + n))
            assert len(store_lines(caplog, "cannot be written")) == cycle + 1
            assert len(store_lines(caplog, "can be written again")) == cycle
            disk.full = False
            await store.create_table(make_table(f"ok{cycle}", channel=900 + cycle))
            assert len(store_lines(caplog, "can be written again")) == cycle + 1
    assert disk.refused == 50
    line = store_lines(caplog, "cannot be written")[0]
    assert line.levelno == logging.ERROR and "disk is full" in line.getMessage()
    assert str(store.path) in line.getMessage()
    again = store_lines(caplog, "can be written again")[0]
    assert "25 refused writes" in again.getMessage()
    assert not any(r.exc_info for r in caplog.records)
    # Nothing a refused write did stayed: the rollbacks left only what succeeded.
    assert await store.get_table("t1") == before
    assert sorted(await store.all_table_ids()) == ["ok0", "ok1", "t1"]


def wal_size(store: SqliteStore) -> int:
    wal = Path(f"{store.path}-wal")
    return wal.stat().st_size if wal.exists() else 0


async def test_the_write_ahead_log_is_checkpointed_while_refused_and_when_space_returns(
    store: SqliteStore,
) -> None:
    # Let the log grow, as it does while a checkpoint cannot finish.
    await store._call(lambda c: c.execute("PRAGMA wal_autocheckpoint=0").fetchone())
    for n in range(40):
        await store.create_table(make_table(f"t{n}", channel=n + 1))
    assert wal_size(store) > 0
    checkpoints: list[bool] = []
    real = store.checkpoint

    async def counted() -> bool:
        checkpoints.append(await real())
        return checkpoints[-1]

    store.checkpoint = counted  # type: ignore[method-assign]
    now = [1000.0]
    store.health.clock = lambda: now[0]
    disk = DiskFull(store)
    disk.full = True
    with pytest.raises(StoreUnwritable):
        await store.create_table(make_table("x", channel=500))
    # The first refusal gave the log's space back at once.
    assert checkpoints == [True] and wal_size(store) == 0
    for n in range(10):
        with pytest.raises(StoreUnwritable):
            await store.create_table(make_table(f"x{n}", channel=600 + n))
    assert len(checkpoints) == 1  # not once per refused click: CHECKPOINT_EVERY apart
    now[0] += store.CHECKPOINT_EVERY
    with pytest.raises(StoreUnwritable):
        await store.create_table(make_table("y", channel=700))
    assert len(checkpoints) == 2
    disk.full = False
    await store.create_table(make_table("back", channel=800))
    assert len(checkpoints) == 3 and checkpoints[-1] and wal_size(store) == 0
    await store.create_table(make_table("later", channel=801))
    assert len(checkpoints) == 3  # writable all along: no checkpoint of ours
    assert len(await store.all_table_ids()) == 42


async def test_a_store_opens_on_a_database_it_cannot_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "there.db"
    first = SqliteStore(path)
    await first.open()
    await first.create_table(make_table("t1", channel=1))
    await first.close()
    store = SqliteStore(path)
    disk = DiskFull(store)
    disk.full = True
    with caplog.at_level(logging.INFO):
        await store.open()  # its schema is all there: it opens
        try:
            assert len(store_lines(caplog, "cannot be written")) == 1
            assert (await store.get_table("t1")) is not None  # reads work
            with pytest.raises(StoreUnwritable):
                await store.create_table(make_table("t2", channel=2))
            assert len(store_lines(caplog, "cannot be written")) == 1
            disk.full = False
            await store.create_table(make_table("t2", channel=2))
            assert len(store_lines(caplog, "can be written again")) == 1
        finally:
            await store.close()
    assert not any(r.exc_info for r in caplog.records)


async def test_a_new_database_that_cannot_be_written_is_refused_at_open(tmp_path: Path) -> None:
    """Without its schema a database is no use: opening it says why it cannot be."""
    store = SqliteStore(tmp_path / "new.db")
    DiskFull(store).full = True
    with pytest.raises(StoreUnwritable, match="disk is full"):
        await store.open()


@contextlib.contextmanager
def no_tracebacks(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    with caplog.at_level(logging.INFO):
        yield
    tracebacks = [r for r in caplog.records if r.exc_info]
    assert tracebacks == [], [r.getMessage() for r in tracebacks]


# -- the table service -------------------------------------------------------------------

CH, GUILD, ANN, BOB, CAT = 700, 1, 201, 202, 203


@pytest.fixture
def _toy() -> Iterator[None]:
    from tests.toy_game import toy_registered

    with toy_registered():
        yield


async def toy_service(path: Path) -> tuple[TableService, DiskFull]:
    from tests.toy_game import ToyAgents

    store = SqliteStore(path)
    disk = DiskFull(store)
    service = TableService(store, agents=ToyAgents())
    await service.open()
    return service, disk


async def test_a_move_refused_for_a_full_disk_changes_nothing_and_goes_through_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, _toy: None
) -> None:
    from tests.toy_game import TOY_ID

    service, disk = await toy_service(tmp_path / "svc.db")
    try:
        await service.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)
        await service.join(CH, BOB, "Bob")
        out = await service.start(CH, ANN)
        mover = out.table.seats[out.table.to_act[0]].user_id
        before = await service.store.get_table(out.table.id)
        live_before = service._live[out.table.id].rec
        disk.full = True
        with no_tracebacks(caplog):
            with pytest.raises(StorageUnavailable) as refused:
                await service.act(CH, mover, {"kind": "take", "n": 1}, out.version)
            assert "nothing was done" in str(refused.value)
            with pytest.raises(StorageUnavailable):
                await service.abort(CH, ANN)
            with pytest.raises(StorageUnavailable):
                await service.create(CH + 1, GUILD, CAT, "Cat", TOY_ID, seed=4)
            later = before.updated_at + timedelta(days=1)
            with pytest.raises(StorageUnavailable):
                await service.due_reminders(later)
            # The reminder loop sees that every pass and logs nothing of it.
            service.clock = lambda: later
            loop = asyncio.create_task(service.run_reminders(poll_seconds=0.01))
            await asyncio.sleep(0.1)
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop
            service.clock = utcnow
        # Unchanged, in the store and in memory.
        assert await service.store.get_table(out.table.id) == before
        assert service._live[out.table.id].rec == live_before
        assert await service.store.actions(out.table.id) == []
        assert (await service.status(CH)).version == out.version
        assert await service.store.live_table_in_channel(CH + 1) is None
        assert len(store_lines(caplog, "cannot be written")) == 1
        disk.full = False
        moved = await service.act(CH, mover, {"kind": "take", "n": 1}, out.version)
        assert moved.version == out.version + 1
        assert [a.version for a in await service.store.actions(out.table.id)] == [1]
        assert len(store_lines(caplog, "can be written again")) == 1
    finally:
        await service.close()


async def test_lobby_changes_are_refused_as_unsaved_and_done_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, _toy: None
) -> None:
    from tests.toy_game import TOY_ID

    service, disk = await toy_service(tmp_path / "lobby.db")
    try:
        await service.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)
        disk.full = True
        with no_tracebacks(caplog):
            for change in (
                lambda: service.join(CH, BOB, "Bob"),
                lambda: service.add_ai(CH, ANN),
                lambda: service.leave(CH, ANN),
                lambda: service.set_guild_threads(GUILD, True),
            ):
                with pytest.raises(StorageUnavailable):
                    await change()
        assert [s.user_id for s in (await service.status(CH)).seats] == [ANN]
        assert not await service.guild_threads(GUILD)
        disk.full = False
        info = await service.join(CH, BOB, "Bob")
        assert [s.user_id for s in info.seats] == [ANN, BOB]
    finally:
        await service.close()


async def test_an_ai_waits_for_the_disk_and_plays_once_it_can(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, _toy: None
) -> None:
    from tests.toy_game import TOY_ID

    service, disk = await toy_service(tmp_path / "ai.db")
    try:
        await service.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)
        await service.add_ai(CH, ANN)
        await service.add_ai(CH, ANN)
        await service.start(CH, ANN)
        await service.wait_idle()
        info = await service.status(CH)
        assert info.to_act_users == (ANN,)
        moved = await service.act(CH, ANN, {"kind": "take", "n": 1}, info.version)
        # The disk fills before the AI, now to act, claims its lease.
        disk.full = True
        with no_tracebacks(caplog):
            await service.wait_idle()
            for _ in range(3):  # the timer passes start the AI again: still refused
                await service.due_auto_passes()
                await service.wait_idle()
        after = await service.status(CH)
        assert after.version == moved.version and after.to_act_users == ()
        task = service._live[after.id].ai_task
        assert task is not None and task.done() and task.exception() is None
        assert disk.refused >= 4
        assert len(store_lines(caplog, "cannot be written")) == 1
        disk.full = False
        await service.due_auto_passes()
        await service.wait_idle()
        assert (await service.status(CH)).version > moved.version
        assert len(store_lines(caplog, "can be written again")) == 1
    finally:
        await service.close()


async def test_a_service_resumes_on_a_database_it_cannot_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, _toy: None
) -> None:
    """A restart on a full disk: the service opens, its tables are there to read, and
    its AI turns and results wait; nothing is logged but the one line."""
    from tests.toy_game import TOY_ID

    path = tmp_path / "restart.db"
    service, _disk = await toy_service(path)
    await service.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)
    await service.add_ai(CH, ANN)
    out = await service.start(CH, ANN)
    await service.wait_idle()
    info = await service.status(CH)
    await service.act(CH, ANN, {"kind": "take", "n": 1}, info.version)
    await service.close()  # before its AI answered: the AI is to act at the restart
    store = SqliteStore(path)
    disk = DiskFull(store)
    disk.full = True
    from tests.toy_game import ToyAgents

    again = TableService(store, agents=ToyAgents())
    with no_tracebacks(caplog):
        await again.open()
        await again.wait_idle()
    try:
        resumed = await again.status(CH)
        assert resumed.id == out.table.id and resumed.version == info.version + 1
        task = again._live[resumed.id].ai_task
        assert task is not None and task.done() and task.exception() is None
        assert len(store_lines(caplog, "cannot be written")) == 1
        disk.full = False
        await again.due_auto_passes()
        await again.wait_idle()
        assert (await again.status(CH)).version > resumed.version
    finally:
        await again.close()


# -- the Discord bot ---------------------------------------------------------------------


async def test_a_player_is_told_privately_and_the_game_goes_on_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.discord_fakes import (
        ANN as P1,
    )
    from tests.discord_fakes import (
        BOB as P2,
    )
    from tests.discord_fakes import (
        CHANNEL_ID,
        answer,
        close_harness,
        make_harness,
        reply_text,
    )

    h = await make_harness(tmp_path / "bot.db")
    try:
        assert isinstance(h.service.store, SqliteStore)
        disk = DiskFull(h.service.store)
        await h.slash("table new", P1, uname="Ann", game="treasure")
        await h.slash("table join", P2, uname="Bob")
        await h.slash("table start", P1)
        info = await h.service.status(CHANNEL_ID)
        mover = info.to_act_users[0]
        board = h.fake.last_prompt()
        tile = board.custom_ids[0]
        sent = await h.click(tile, mover, message=board)
        menu = answer(sent)
        assert menu.ephemeral and menu.custom_ids
        posts = len(h.fake.channel_messages())
        disk.full = True
        with no_tracebacks(caplog):
            sent = await h.click(menu.custom_ids[0], mover, message=menu)
            await h.service.wait_idle()
            await h.fake.settle()
            assert "cannot save anything" in reply_text(sent) and answer(sent).ephemeral
            sent = await h.slash(
                "table new", P2, uname="Bob", game="treasure", channel_id=CHANNEL_ID + 1
            )
            assert "cannot save anything" in reply_text(sent) and answer(sent).ephemeral
        assert len(h.fake.channel_messages()) == posts  # nothing was announced
        assert (await h.service.status(CHANNEL_ID)).version == info.version
        assert len(store_lines(caplog, "cannot be written")) == 1
        disk.full = False
        sent = await h.click(menu.custom_ids[0], mover, message=menu)
        await h.service.wait_idle()
        await h.fake.settle()
        assert (await h.service.status(CHANNEL_ID)).version == info.version + 1
        assert len(store_lines(caplog, "can be written again")) == 1
    finally:
        await close_harness(h)


def fill_every_disk(monkeypatch: pytest.MonkeyPatch) -> DiskFull:
    """Every SqliteStore made from now on (the bot makes its own) finds its disk full."""
    holder = SqliteStore(":memory:")
    disk = DiskFull(holder)
    monkeypatch.setattr(SqliteStore, "_transaction", staticmethod(holder._transaction))
    return disk


async def test_the_bot_starts_on_a_database_it_cannot_write_and_catches_up_after(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restart on a full disk: a game whose start was committed but not yet announced
    (an undelivered outbox) waits; the bot starts, answers, and announces it once the
    database can be written."""
    from bot.core.settings import Settings
    from bot.messages.client import FabletopBot
    from tests.discord_fakes import (
        ANN as P1,
    )
    from tests.discord_fakes import (
        BOB as P2,
    )
    from tests.discord_fakes import (
        CHANNEL_ID,
        FakeDiscord,
        answer,
        fake_renderer,
        reply_text,
    )

    path = tmp_path / "bot.db"
    service = await TableService.open_sqlite(path, reminder_minutes=0)
    await service.create(CHANNEL_ID, GUILD, P1, "Ann", "treasure", seed=7)
    await service.join(CHANNEL_ID, P2, "Bob")
    await service.start(CHANNEL_ID, P1)  # its outbox is left undelivered: no bot ran
    await service.close()

    disk = fill_every_disk(monkeypatch)
    disk.full = True
    settings = Settings(_env_file=None, DATABASE_PATH=str(path), REMINDER_MINUTES="0")
    bot = FabletopBot(settings, renderer=fake_renderer([]), start_reminders=False)
    fake = FakeDiscord()
    try:
        with no_tracebacks(caplog):
            await fake.login(bot)
            await fake.settle()
            sent = await fake.dispatch(
                bot, fake.slash_payload(bot, "table status", user_id=P2, name="Bob")
            )
            assert "Save the Treasure" in reply_text(sent) and answer(sent).ephemeral
        assert fake.channel_messages() == []  # not announced (it could not be marked)
        assert len(store_lines(caplog, "cannot be written")) == 1
        disk.full = False
        assert await bot.deliver_undelivered() == 1
        await fake.settle()
        assert any("begins!" in m.content for m in fake.channel_messages())
        assert len(store_lines(caplog, "can be written again")) == 1
        assert await bot.deliver_undelivered() == 0  # marked delivered this time
    finally:
        await bot.close()
        await fake.cleanup()


def test_fabletop_run_says_in_one_line_why_a_new_database_cannot_be_set_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio as aio

    import bot.messages.client as client
    from bot.core.settings import Settings
    from tests.discord_fakes import FakeDiscord

    fake, real = FakeDiscord(), client.create_bot

    def create_bot(settings: Settings, **kwargs: object) -> client.FabletopBot:
        made = real(settings, **kwargs)  # logging in against the fake Discord
        made.http.request = fake.http_request  # type: ignore[method-assign]
        return made

    monkeypatch.setattr(client, "create_bot", create_bot)
    # run_bot wraps the gateway's reading loop for the process: undone after the test.
    from discord.gateway import DiscordWebSocket

    monkeypatch.setattr(DiscordWebSocket, "poll_event", DiscordWebSocket.poll_event)
    fill_every_disk(monkeypatch).full = True
    settings = Settings(
        _env_file=None, DATABASE_PATH=str(tmp_path / "new.db"), DISCORD_TOKEN="x.y.z"
    )
    run_bot = client.run_bot
    assert aio.run(run_bot(settings)) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot be written" in err[0] and "disk is full" in err[0]
    assert str(tmp_path / "new.db") in err[0]


async def test_a_refused_write_outside_a_table_operation_is_answered_without_a_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A store write a front-end makes itself (a delivery's bookkeeping during a click):
    not known to have done nothing, so the answer says what it can, and nothing more is
    logged than the store's own line."""
    from bot.messages.clicks import TurnController
    from bot.messages.replies import UNSAVED

    said: list[str] = []

    class Followup:
        @staticmethod
        async def send(text: str, **_: object) -> None:
            said.append(text)

    class Response:
        @staticmethod
        def is_done() -> bool:
            return True

    class Clicked:
        guild_id = GUILD
        response = Response()
        followup = Followup()
        extras: ClassVar[dict[str, object]] = {}

    controller = TurnController.__new__(TurnController)
    refused = StoreUnwritable("the disk is full: database or disk is full")
    with no_tracebacks(caplog):
        await controller.fail(Clicked(), refused, "click t1 on table t")  # type: ignore[arg-type]
    assert said == [UNSAVED]
    assert caplog.records == []


# -- both backends -----------------------------------------------------------------------


class ReadOnlyServer:
    """PostgreSQL refusing every write, for real: while ``full`` is set each of the
    store's connections runs its work read-only (``SET TRANSACTION READ ONLY``), and the
    server answers a write with 25006, as it does a database set read-only; a server
    whose disk is full answers 53100 (DiskFullError), which the store takes the same
    way (tests below)."""

    def __init__(self, store: Any) -> None:
        self.full = False
        real = store._run

        async def run(work: Callable[[Any], Any], *, transaction: bool = False) -> Any:
            if not self.full:
                return await real(work, transaction=transaction)

            async def read_only(conn: Any) -> Any:
                if conn.is_in_transaction():
                    await conn.execute("SET TRANSACTION READ ONLY")
                    return await work(conn)
                await conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
                try:
                    return await work(conn)
                finally:
                    await conn.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE")

            return await real(read_only, transaction=transaction)

        store._run = run


def refuse_writes(store: Any) -> DiskFull | ReadOnlyServer:
    return DiskFull(store) if isinstance(store, SqliteStore) else ReadOnlyServer(store)


async def test_on_both_backends_a_refused_move_is_one_line_each_way_and_changes_nothing(
    backend: Backend, caplog: pytest.LogCaptureFixture, _toy: None
) -> None:
    from tests.toy_game import TOY_ID, ToyAgents

    store = backend.store()
    disk = refuse_writes(store)
    service = TableService(store, agents=ToyAgents())
    await service.open()
    try:
        await service.create(CH, GUILD, ANN, "Ann", TOY_ID, seed=3)
        await service.join(CH, BOB, "Bob")
        out = await service.start(CH, ANN)
        mover = out.table.seats[out.table.to_act[0]].user_id
        before = await store.get_table(out.table.id)
        disk.full = True
        with no_tracebacks(caplog):
            for _ in range(3):
                with pytest.raises(StorageUnavailable):
                    await service.act(CH, mover, {"kind": "take", "n": 1}, out.version)
            with pytest.raises(StorageUnavailable):
                await service.create(CH + 1, GUILD, CAT, "Cat", TOY_ID, seed=4)
            with pytest.raises(StoreUnwritable):
                await store.set_dm_closed(ANN, True)  # a single-statement write too
        assert await store.get_table(out.table.id) == before
        assert await store.actions(out.table.id) == []
        assert not await store.dm_closed(ANN)
        lines = store_lines(caplog, "cannot be written")
        assert len(lines) == 1 and lines[0].levelno == logging.ERROR
        disk.full = False
        moved = await service.act(CH, mover, {"kind": "take", "n": 1}, out.version)
        assert moved.version == out.version + 1
        assert len(store_lines(caplog, "can be written again")) == 1
        assert "5 refused writes" in store_lines(caplog, "can be written again")[0].getMessage()
    finally:
        await service.close()


def test_a_postgresql_server_out_of_disk_is_a_refusal_to_write() -> None:
    import asyncpg

    from bot.core.store.postgres import unwritable_reason as pg_reason

    assert pg_reason(asyncpg.DiskFullError("could not extend file")) is not None
    assert "disk is full" in pg_reason(asyncpg.DiskFullError("x"))  # type: ignore[operator]
    assert pg_reason(asyncpg.ReadOnlySQLTransactionError("read-only")) is not None
    assert pg_reason(asyncpg.UniqueViolationError("dup")) is None


# -- a real limit on the write-ahead log -----------------------------------------------

WAL_FILLS_THE_DISK = r"""
import asyncio, resource, signal, sys
from pathlib import Path
from bot.core.store import SqliteStore, StoreUnwritable
from tests.test_full_disk import make_table

async def main(path: str, checkpoints: bool) -> None:
    store = SqliteStore(path)
    await store.open()
    if not checkpoints:
        store.CHECKPOINT_EVERY = 1e9
        store._next_checkpoint = 1e18
    # The log grows as when a checkpoint cannot finish, until the file limit stops it.
    await store._call(lambda c: c.execute("PRAGMA wal_autocheckpoint=0").fetchone())
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (400_000, resource.RLIM_INFINITY))
    n = 0
    while True:
        n += 1
        try:
            await store.create_table(make_table(f"t{n}", channel=n))
        except StoreUnwritable:
            break
    after = []
    for m in range(5):
        try:
            await store.create_table(make_table(f"after{m}", channel=10_000 + m))
            after.append(True)
        except StoreUnwritable:
            after.append(False)
    wal = Path(f"{path}-wal")
    print(n, after, wal.stat().st_size if wal.exists() else 0)
    await store.close()

asyncio.run(main(sys.argv[1], sys.argv[2] == "yes"))
"""


@pytest.mark.parametrize("checkpoints", [True, False])
def test_a_write_ahead_log_that_filled_its_disk_is_given_back_without_a_restart(
    tmp_path: Path, checkpoints: bool
) -> None:
    """A real limit, in a child process: RLIMIT_FSIZE stops the write-ahead log growing
    (SQLite fails the write as it does on a full disk). With the store's checkpoint on
    refusal the very next write goes through; without it (the code before issue 23),
    every write after stays refused."""
    import subprocess
    import sys

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            WAL_FILLS_THE_DISK,
            str(tmp_path / "wal.db"),
            "yes" if checkpoints else "no",
        ],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    written, after = done.stdout.split(" ", 1)
    assert int(written) > 5  # the log filled its limit first (each table: a few pages)
    if checkpoints:
        assert "[True, True, True, True, True]" in after
        assert done.stderr.count("cannot be written") == 1
        assert done.stderr.count("can be written again") == 1
    else:
        assert "[False, False, False, False, False]" in after
        assert done.stderr.count("cannot be written") == 1
        assert "can be written again" not in done.stderr
