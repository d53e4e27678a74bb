"""Moving and keeping the data: ``copy_store`` between SQLite files and PostgreSQL, the
replay audit, ``fabletop backup`` / ``export-db`` / ``import-db``, and the deployment
files. The stores are filled by the real table service playing real games.

The PostgreSQL tests need a server (``FABLETOP_TEST_PG``, default
``postgresql://postgres@127.0.0.1:5432/test``; each test gets its own database). They
skip without one, unless ``FABLETOP_REQUIRE_PG=1`` (``.ci/run`` sets it): then they fail.
"""

from __future__ import annotations

import asyncio
import doctest
import json
import re
import shutil
import sqlite3
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from bot import cli
from bot.core.settings import Settings
from bot.core.store import HandMessage, Store, TurnMessage
from bot.core.store.backup import backup_sqlite, backup_sqlite_sync, default_backup_path
from bot.core.store.factory import store_for
from bot.core.store.transfer import TransferError, compare_stores, copy_store
from bot.core.tables import EngineAgents, Outbox, TableService, TableStatus
from bot.core.tables.audit import audit_store, replay_check
from engines.core import Rng
from tests.conftest import PG_URL, PgSchema, require_pg

ROOT = Path(__file__).resolve().parents[1]
FTI, TREASURE = "fairy-tale-inn", "treasure"
GUILD, ANN, BOB = 1, 11, 22


# --------------------------------------------------------------------------- a real store


async def _moves(s: TableService, out: Outbox, chooser: Rng, n: int | None) -> Outbox:
    """``n`` random legal moves by whoever is to act (``None``: to the end)."""
    made = 0
    while out.table.status is TableStatus.PLAYING and (n is None or made < n):
        user = out.table.to_act_users[0]
        action = chooser.choice(await s.legal_actions(out.table_id, user))
        out = await s.act(out.table_id, user, action.model_dump(),
                          expected_version=out.table.version)
        made += 1
    return out


async def fill(path: Path) -> dict[str, str]:
    """A store like a server's after a while: a finished game, a live one with its
    hand and turn messages, one aborted mid-game, lobbies (one in the finished game's
    channel), one closed in its lobby, and a closed-DM mark. Every outbox is delivered,
    as the bot would have. Returns the table ids by role."""
    s = await TableService.open_sqlite(path, agents=EngineAgents(iterations=10))
    chooser = Rng.from_seed(5)
    ids: dict[str, str] = {}
    try:
        info = await s.create(1, GUILD, ANN, "Ann", FTI, seed=11)
        await s.join(1, BOB, "Bob")
        ids["finished"] = (await _moves(s, await s.start(1, ANN), chooser, None)).table_id

        info = await s.create(2, GUILD, ANN, "Ann", FTI, seed=12)
        await s.join(2, BOB, "Bob")
        ids["playing"] = (await _moves(s, await s.start(2, ANN), chooser, 6)).table_id

        info = await s.create(3, GUILD, BOB, "Bob", TREASURE, seed=13)
        await _moves(s, await s.start(3, BOB), chooser, 4)
        await s.abort(3, BOB)
        ids["aborted"] = info.id

        ids["lobby"] = (await s.create(1, GUILD, BOB, "Bob", FTI, seed=14)).id
        await s.join(1, ANN, "Ann")
        info = await s.create(4, GUILD, ANN, "Ann", TREASURE, seed=15)
        await s.abort(4, ANN)
        ids["closed lobby"] = info.id

        store = s.store
        live = ids["playing"]
        hands = [HandMessage(live, user, 7000 + user, 8000 + user, f"sig{user}", f"img{user}",
                             shows_choices=user == ANN) for user in (ANN, BOB)]
        turn = TurnMessage(live, 2, 9001, 6, (ANN,), ("Ann moved.", "Bob's turn."), True,
                           "board-6")
        pending = await store.undelivered_outboxes()
        assert pending
        for o in pending:
            last = o is pending[-1]
            await store.mark_delivered(o.id, hands=hands if last else (),
                                       turn=turn if last else None)
        await store.set_dm_closed(BOB, True)
        await store.set_dm_closed(999, True)  # a stranger to every table: not copied
    finally:
        await s.close()
    return ids


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One filled SQLite file for the module (filling plays whole games): each test
    copies it. Filled in a thread, with its own event loop, away from the tests' loop."""
    path = tmp_path_factory.mktemp("template") / "filled.db"
    with _thread() as pool:
        ids = pool.submit(asyncio.run, fill(path)).result()
    return path, ids


@pytest.fixture
def source(template: tuple[Path, dict[str, str]], tmp_path: Path) -> Path:
    path = tmp_path / "source.db"
    shutil.copy(template[0], path)  # closed, so the WAL is checkpointed into the file
    return path


@pytest.fixture
def ids(template: tuple[Path, dict[str, str]]) -> dict[str, str]:
    return template[1]


def _thread():  # -> a one-thread executor
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=1)


async def opened(target: str | Path | Store) -> Store:
    store = target if isinstance(target, Store) else store_for(target)
    await store.open()
    return store


async def everything(store: Store) -> dict[str, Any]:
    """Every table, log and message of a store, to compare two stores whole."""
    out: dict[str, Any] = {}
    for table_id in await store.all_table_ids():
        out[table_id] = (await store.get_table(table_id), await store.actions(table_id),
                         await store.events(table_id), await store.hand_messages(table_id),
                         await store.turn_message(table_id))
    return out


async def copy_between(a: str | Path | Store, b: str | Path | Store) -> None:
    """Copy ``a`` (a filled store) into ``b`` (an empty one) and check the copy whole."""
    src, dst = await opened(a), await opened(b)
    try:
        report = await copy_store(src, dst)
        assert report.tables == len(await src.all_table_ids())
        assert await compare_stores(src, dst) == []
        assert await everything(dst) == await everything(src)
        audit = await audit_store(dst)
        assert audit.ok, audit.mismatches
        assert await dst.dm_closed_among([ANN, BOB, 999]) == {BOB}
    finally:
        await src.close()
        await dst.close()


# --------------------------------------------------------------------------- PostgreSQL


@pytest.fixture
async def pg_url() -> AsyncIterator[str]:
    """A new, empty PostgreSQL database for one test, as a URL (what the CLI takes: a
    URL names no schema, so conftest's ``pg_schema`` cannot serve here), dropped after
    it. Skips or fails exactly as conftest's fixtures do."""
    await require_pg()
    import asyncpg

    admin = await asyncpg.connect(PG_URL, timeout=5)
    name = f"fabletop_transfer_{uuid.uuid4().hex[:12]}"
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield urlunsplit(urlsplit(PG_URL)._replace(path=f"/{name}"))
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


# --------------------------------------------------------------------------- copies


async def test_sqlite_to_sqlite_copies_every_table_log_and_message(
        source: Path, ids: dict[str, str], tmp_path: Path) -> None:
    await copy_between(source, tmp_path / "copy.db")
    store = await opened(tmp_path / "copy.db")
    try:
        statuses = {(await store.get_table(i)).status for i in ids.values()}  # type: ignore[union-attr]
        assert statuses == {"finished", "playing", "aborted", "lobby"}
        assert len(await store.hand_messages(ids["playing"])) == 2
        assert await store.turn_message(ids["playing"]) is not None
        assert await store.undelivered_outboxes() == []
    finally:
        await store.close()


async def test_a_copied_live_table_plays_on(source: Path, ids: dict[str, str],
                                            tmp_path: Path) -> None:
    await copy_between(source, tmp_path / "copy.db")
    s = await TableService.open_sqlite(tmp_path / "copy.db",
                                       agents=EngineAgents(iterations=10))
    try:
        info = await s.status(2)
        assert info.id == ids["playing"] and info.version == 6
        user = info.to_act_users[0]
        action = (await s.legal_actions(2, user))[0]
        out = await s.act(2, user, action.model_dump(), expected_version=6)
        assert out.version == 7
        assert (await s.status(1)).id == ids["lobby"]  # the lobby holds its channel
        assert (await audit_store(s.store)).ok
    finally:
        await s.close()


async def test_sqlite_to_postgres_and_back(source: Path, pg_schema: PgSchema,
                                           tmp_path: Path) -> None:
    await copy_between(source, pg_schema.store())
    await copy_between(pg_schema.store(), tmp_path / "back.db")
    a, b = await opened(source), await opened(tmp_path / "back.db")
    try:
        assert await everything(a) == await everything(b)
    finally:
        await a.close()
        await b.close()


async def test_a_copy_into_a_database_with_tables_is_refused(source: Path,
                                                             tmp_path: Path) -> None:
    shutil.copy(source, tmp_path / "full.db")
    src, dst = await opened(source), await opened(tmp_path / "full.db")
    try:
        before = await everything(dst)
        with pytest.raises(TransferError, match="already holds 5 table"):
            await copy_store(src, dst)
        assert await everything(dst) == before
    finally:
        await src.close()
        await dst.close()


async def test_undelivered_news_stops_a_copy_unless_dropped(
        source: Path, ids: dict[str, str], tmp_path: Path) -> None:
    s = await TableService.open_sqlite(source, agents=EngineAgents(iterations=10))
    info = await s.status(2)
    user = info.to_act_users[0]
    await s.act(2, user, (await s.legal_actions(2, user))[0].model_dump(),
                expected_version=info.version)  # committed; nobody delivers it
    await s.close()

    src, dst = await opened(source), await opened(tmp_path / "copy.db")
    try:
        with pytest.raises(TransferError, match=f"not yet delivered.*{ids['playing']}"):
            await copy_store(src, dst)
        assert await dst.all_table_ids() == []
        report = await copy_store(src, dst, drop_undelivered=True)
        assert report.dropped_outboxes == 1 and "left behind" in report.summary()
        assert await compare_stores(src, dst) == [] and (await audit_store(dst)).ok
        assert await dst.undelivered_outboxes() == []
    finally:
        await src.close()
        await dst.close()


# --------------------------------------------------------------------------- the audit


async def test_the_audit_finds_a_tampered_table(source: Path, ids: dict[str, str],
                                                tmp_path: Path) -> None:
    src, dst = await opened(source), await opened(tmp_path / "tampered.db")
    try:
        for table_id in await src.all_table_ids():
            rec, actions = await src.get_table(table_id), await src.actions(table_id)
            events = await src.events(table_id)
            assert rec is not None
            if table_id == ids["playing"]:  # a state edited by hand
                state = json.loads(rec.state or "{}")
                state["ply"] = state.get("ply", 0) + 1
                rec = replace(rec, state=json.dumps(state))
            if table_id == ids["finished"]:  # a move lost from the log
                actions = [a for a in actions if a.version != 3]
            await dst.import_table(rec, actions, events)
        report = await audit_store(dst)
        assert not report.ok and report.tables == 5
        reasons = {m.table_id: m.reason for m in report.mismatches}
        assert set(reasons) == {ids["playing"], ids["finished"]}
        assert reasons[ids["playing"]] == (
            "the stored state differs from the replay of its 6 action(s) (at ply)")
        assert reasons[ids["finished"]] == "versions missing from the action log: 3"
        assert "2 table(s) do NOT replay" in report.summary()
    finally:
        await src.close()
        await dst.close()


async def test_replay_check_reasons(source: Path, ids: dict[str, str]) -> None:
    store = await opened(source)
    try:
        rec = await store.get_table(ids["finished"])
        actions = await store.actions(ids["finished"])
        assert rec is not None and replay_check(rec, actions) is None
        assert replay_check(rec, actions[:-1]) == (
            f"{len(actions) - 1} action(s) for version {rec.version}")
        assert replay_check(rec, [actions[1], actions[0], *actions[2:]]) == (
            "the action log's versions are repeated or out of order")
        assert replay_check(replace(rec, game_id="chess"), actions) == "unknown game 'chess'"
        bad = replace(actions[0], action='{"kind": "nonsense"}')
        assert replay_check(rec, [bad, *actions[1:]]).startswith("version 1 does not replay")
        lobby = await store.get_table(ids["lobby"])
        assert lobby is not None and replay_check(lobby, []) is None
        assert replay_check(replace(lobby, version=2), []) == "0 action(s) for version 2"
        # aborted mid-game: replayed like any started table
        aborted = await store.get_table(ids["aborted"])
        assert aborted is not None and aborted.state is not None
        assert replay_check(aborted, await store.actions(ids["aborted"])) is None
        report = await audit_store(store)
        assert report.ok and report.tables == 5
        assert report.by_status == {"aborted": 2, "finished": 1, "lobby": 1, "playing": 1}
        logs = [await store.actions(i) for i in await store.all_table_ids()]
        assert report.actions == sum(map(len, logs)) > 20
    finally:
        await store.close()


@pytest.mark.parametrize("module", ["bot.core.tables.audit", "bot.core.store.backup",
                                    "bot.core.store.transfer"])
def test_docstring_examples(module: str) -> None:
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# --------------------------------------------------------------------------- backup


async def test_backup_while_the_bot_writes(tmp_path: Path) -> None:
    """Backups taken while another connection commits moves are each one consistent
    snapshot: every table in them replays."""
    db = tmp_path / "live.db"
    s = await TableService.open_sqlite(db, agents=EngineAgents(iterations=10))
    stop = asyncio.Event()
    moves = 0

    async def writer() -> None:
        nonlocal moves
        chooser, channel = Rng.from_seed(3), 100
        while not stop.is_set():
            channel += 1
            await s.create(channel, GUILD, ANN, "Ann", FTI, seed=channel)
            await s.join(channel, BOB, "Bob")
            out = await s.start(channel, ANN)
            while out.table.status is TableStatus.PLAYING and not stop.is_set():
                out = await _moves(s, out, chooser, 1)
                moves += 1
                await asyncio.sleep(0)

    task = asyncio.create_task(writer())
    try:
        while moves < 3:
            await asyncio.sleep(0.01)
        seen: list[int] = []
        # Until moves were committed during at least three backups (a backup of a
        # small file is quick: some may see none), and at most 40 of them.
        for i in range(40):
            if len(seen) >= 4 and sum(1 for n in seen if n) >= 3:
                break
            before = moves
            result = await backup_sqlite(db, tmp_path / f"b{i}.db")
            seen.append(moves - before)
            assert result.size == (tmp_path / f"b{i}.db").stat().st_size > 0
            copy = await opened(tmp_path / f"b{i}.db")
            try:
                audit = await audit_store(copy)
                assert audit.ok and audit.tables == result.tables >= 1, audit.mismatches
            finally:
                await copy.close()
            # one self-contained file: no WAL beside it
            assert not (tmp_path / f"b{i}.db-wal").exists()
        assert sum(1 for n in seen if n) >= 3, f"moves committed during each backup: {seen}"
    finally:
        stop.set()
        await task
        await s.close()


def test_backup_refuses_a_missing_database_and_an_existing_file(tmp_path: Path) -> None:
    from bot.core.store import StoreError

    with pytest.raises(StoreError, match="no SQLite database"):
        backup_sqlite_sync(tmp_path / "nothing.db", tmp_path / "b.db")
    assert not (tmp_path / "nothing.db").exists()  # read-only: not created either
    sqlite3.connect(tmp_path / "x.db").close()
    (tmp_path / "b.db").write_text("keep me")
    with pytest.raises(StoreError, match="already exists"):
        backup_sqlite_sync(tmp_path / "x.db", tmp_path / "b.db")
    assert (tmp_path / "b.db").read_text() == "keep me"


# --------------------------------------------------------------------------- the CLI


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[pytest.MonkeyPatch]:
    """A working directory without .env, and no setting inherited from the shell."""
    monkeypatch.chdir(tmp_path)
    for f in Settings.model_fields.values():
        monkeypatch.delenv(str(f.alias), raising=False)
    yield monkeypatch


def test_cli_backup(source: Path, env: pytest.MonkeyPatch, tmp_path: Path,
                    capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("DATABASE_PATH", str(source))
    assert cli.main(["backup"]) == 0
    out = capsys.readouterr().out.strip()
    made = list((tmp_path / "backups").glob("fabletop-*.db"))
    assert len(made) == 1 and re.fullmatch(r"fabletop-\d{8}-\d{6}\.db", made[0].name)
    assert out.startswith(str(Path("backups") / made[0].name)) and "5 table(s)" in out
    assert re.search(r"\(\d+\.\d kB", out)

    assert cli.main(["backup", "mine.db"]) == 0
    assert (tmp_path / "mine.db").is_file() and capsys.readouterr().out.startswith("mine.db")
    assert cli.main(["backup", "mine.db"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err


def test_cli_backup_of_postgres_names_pg_dump(env: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("DATABASE_URL", "postgresql://bot:secret@db:5432/fabletop")
    assert cli.main(["backup", "x.dump"]) == 2
    err = capsys.readouterr().err
    assert "pg_dump --format=custom --file=x.dump postgresql://bot@db:5432/fabletop" in err
    assert "secret" not in err


def test_cli_export_then_import(source: Path, env: pytest.MonkeyPatch, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("DATABASE_PATH", str(source))
    assert cli.main(["export-db", "--to", "exported.db"]) == 0
    out = capsys.readouterr().out
    assert "copied 5 table(s)" in out and "2 hand message(s), 1 turn message(s)" in out
    assert "1 closed-DM mark(s)" in out and "identical to the source" in out
    assert "every table replays" in out

    env.setenv("DATABASE_PATH", str(tmp_path / "fresh.db"))
    assert cli.main(["import-db", "--from", "exported.db"]) == 0
    assert "copied 5 table(s)" in capsys.readouterr().out

    # again: the configured database now has tables
    assert cli.main(["import-db", "--from", "exported.db"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("fabletop import-db: the target already holds 5 table(s)")


def test_cli_transfer_refusals(source: Path, env: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("DATABASE_PATH", str(source))
    cases = [
        (["import-db", "--from", "missing.db"], "no SQLite database at missing.db"),
        (["export-db", "--to", str(source)], "the same database"),
        (["export-db", "--to", "postgresql://nobody:pw@127.0.0.1:1/none"],
         "cannot open the target postgresql://nobody@127.0.0.1:1/none"),
    ]
    for argv, message in cases:
        assert cli.main(argv) == 2, argv
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
        assert "Traceback" not in err and "pw@" not in err
    assert not Path("missing.db").exists()


async def _tampered_copy(source: Path, target: Path, table_id: str) -> None:
    src, dst = await opened(source), await opened(target)
    try:
        for i in await src.all_table_ids():
            rec = await src.get_table(i)
            assert rec is not None
            if i == table_id:
                rec = replace(rec, seed=rec.seed + 1)
            await dst.import_table(rec, await src.actions(i), await src.events(i))
    finally:
        await src.close()
        await dst.close()


def test_cli_exits_non_zero_when_a_table_does_not_replay(
        source: Path, ids: dict[str, str], env: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    with _thread() as pool:
        pool.submit(asyncio.run, _tampered_copy(source, tmp_path / "bad.db",
                                                ids["playing"])).result()
    env.setenv("DATABASE_PATH", str(tmp_path / "bad.db"))
    assert cli.main(["export-db", "--to", "out.db"]) == 1
    out = capsys.readouterr().out
    assert f"table {ids['playing']}: the stored state differs" in out
    assert "1 table(s) do NOT replay" in out and "in the source already" in out


def test_cli_export_to_postgres_and_import_back(
        source: Path, pg_url: str, env: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    env.setenv("DATABASE_PATH", str(source))
    assert cli.main(["export-db", "--to", pg_url]) == 0
    assert "every table replays" in capsys.readouterr().out
    env.setenv("DATABASE_PATH", str(tmp_path / "back.db"))
    assert cli.main(["import-db", "--from", pg_url]) == 0
    assert "identical to the source" in capsys.readouterr().out
    # and the other way: DATABASE_URL configured, export to a SQLite file
    env.setenv("DATABASE_URL", pg_url)
    assert cli.main(["export-db", "--to", "again.db"]) == 0
    assert "copied 5 table(s)" in capsys.readouterr().out


# --------------------------------------------------------------------------- deployment


def test_the_deployment_files_run_a_real_command() -> None:
    """Docker cannot run here: check what can be checked without it. The image's
    command and the compose and systemd commands are real CLI commands, the compose
    bot reaches the db service by DATABASE_URL, and the data lives in volumes."""
    commands = set(cli.build_parser()._subparsers._group_actions[0].choices)  # type: ignore[union-attr]
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    cmd = re.search(r"^CMD\s+(\[.*\])\s*$", dockerfile, flags=re.M)
    assert cmd is not None
    argv = json.loads(cmd.group(1))
    assert argv[0] == "fabletop" and argv[1] in commands
    assert re.search(r"^FROM python:3\.11-slim", dockerfile, flags=re.M)
    assert re.search(r"^USER (?!root)\w+", dockerfile, flags=re.M)
    assert "DATABASE_PATH=/data/fabletop.db" in dockerfile
    assert re.search(r'^VOLUME \["?/data"?\]', dockerfile, flags=re.M)

    compose = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    services = re.search(r"^services:\n(.*?)(?=^\S|\Z)", compose, flags=re.M | re.S)
    assert services is not None
    names = re.findall(r"^  (\w[\w-]*):", services.group(1), flags=re.M)
    assert names == ["bot", "db"]
    assert "image: postgres:16" in compose and "healthcheck:" in compose
    assert "condition: service_healthy" in compose and "env_file:" in compose
    url = re.search(r"DATABASE_URL:\s*(\S+)", compose)
    assert url is not None and urlsplit(url.group(1)).hostname == "db"
    volumes = re.search(r"^volumes:\n((?:  .*\n?)+)", compose, flags=re.M)
    assert volumes is not None
    declared = set(re.findall(r"^  ([\w-]+):", volumes.group(1), flags=re.M))
    assert re.findall(r"- ([\w-]+):/var/lib/postgresql/data", compose)[0] in declared
    for command in re.findall(r"command:\s*\[(.*)\]", compose):
        assert json.loads(f"[{command}]")[1] in commands

    unit = (ROOT / "deploy" / "fabletop.service").read_text(encoding="utf-8")
    start = re.search(r"^ExecStart=(\S+) (\S+)", unit, flags=re.M)
    assert start is not None and start.group(1).endswith("/fabletop")
    assert start.group(2) in commands
    for key in ("User=", "WorkingDirectory=", "EnvironmentFile=", "Restart=on-failure",
                "NoNewPrivileges=true", "[Install]"):
        assert key in unit

    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for entry in (".env", ".venv", "*.db"):
        assert entry in ignored


def test_backup_names_sort_by_time() -> None:
    from datetime import datetime

    a = default_backup_path(datetime(2026, 1, 2, 3, 4, 5))
    b = default_backup_path(datetime(2026, 1, 10, 0, 0, 0))
    assert a.parent == Path("backups") and sorted([b.name, a.name]) == [a.name, b.name]

