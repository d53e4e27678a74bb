"""Winter Tales' story is stored append-only beside the state, on both backends: a move
writes only the passages it added or replaced, the row's state does not grow with the
story, and every reader (a restarted process, the audit, the replay, export and import)
gets the whole story back."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.core.store import ActionRecord, JournalRecord, Store, TableRecord, VersionConflict
from bot.core.store.sqlite import SqliteStore
from bot.core.store.transfer import compare_stores, copy_store
from bot.core.tables import TableService
from bot.core.tables.audit import audit_store, replay_check
from engines import get_game
from tests.conftest import Backend

CH, GUILD = 900, 1
USERS = (401, 402, 403)
GAME = get_game("winter-tales")


@pytest.fixture
async def service(backend: Backend) -> AsyncIterator[TableService]:
    s = TableService(backend.store())
    await s.open()
    try:
        yield s
    finally:
        await s.close()


async def started(s: TableService) -> str:
    await s.create(CH, GUILD, USERS[0], "Ann", "winter-tales", seed=5)
    for user, name in zip(USERS[1:], ("Bob", "Cy"), strict=True):
        await s.join(CH, user, name)
    out = await s.start(CH, USERS[0])
    return out.table.id


async def narrate(s: TableService, table_id: str, n: int, seat: int = 0) -> None:
    for i in range(n):
        await s.play(table_id, seat, {"kind": "narrate", "text": f"Passage {i}: " + "once " * 40})


async def story(s: TableService, table_id: str) -> list[str]:
    """The story as a fresh process reads it."""
    rec = await s.store.get_table(table_id)
    assert rec is not None and rec.state is not None
    rows = await s.store.journal(table_id)
    state = GAME.load_stored(rec.state, [r.data for r in rows])
    return [e.model_dump_json() for e in state.transcript]


async def test_a_move_stores_only_what_it_adds_and_the_row_does_not_grow(
        service: TableService) -> None:
    table_id = await started(service)
    first = await service.store.get_table(table_id)
    assert first is not None and first.state is not None
    assert '"transcript"' not in first.state  # the story is not in the row
    setup_rows = len(await service.store.journal(table_id, every_row=True))
    assert setup_rows >= 1  # the set-up's own lines
    await narrate(service, table_id, 60)
    rows = await service.store.journal(table_id, every_row=True)
    assert len(rows) == setup_rows + 60  # one row per narration, nothing written twice
    rec = await service.store.get_table(table_id)
    assert rec is not None and rec.state is not None
    # 60 passages of about 250 characters: the row keeps its size (+ a few digits: ply)
    assert len(rec.state) < len(first.state) + 50
    live = service._live[table_id].state
    assert live is not None
    assert await story(service, table_id) == [e.model_dump_json() for e in live.transcript]
    report = await audit_store(service.store)
    assert report.ok, report.mismatches


async def test_replaced_passages_are_new_rows_and_the_newest_wins(
        service: TableService) -> None:
    table_id = await started(service)
    await narrate(service, table_id, 3, seat=1)
    live = service._live[table_id].state
    assert live is not None
    passage = len(live.transcript) - 1
    await service.play(table_id, 2, {"kind": "x_card"})  # hides the last passage
    await service.play(table_id, 1, {"kind": "retell", "entry": passage, "text": "Told anew."})
    rows = await service.store.journal(table_id, every_row=True)
    forms = [r for r in rows if r.n == passage]
    assert [r.version for r in forms] == sorted(r.version for r in forms) and len(forms) == 3
    newest = await service.store.journal(table_id)
    assert [r.n for r in newest] == list(range(len(newest)))
    told = GAME.load_stored((await service.store.get_table(table_id)).state,  # type: ignore[union-attr]
                            [r.data for r in newest]).transcript[passage]
    assert told.text == "Told anew." and not told.hidden
    assert (await audit_store(service.store)).ok


async def test_a_restarted_process_resumes_with_the_whole_story(backend: Backend) -> None:
    store = backend.store()
    s = TableService(store)
    await s.open()
    table_id = await started(s)
    await narrate(s, table_id, 5)
    before = [e.model_dump_json() for e in s._live[table_id].state.transcript]  # type: ignore[union-attr]
    await s.close()
    again = TableService(backend.store())
    await again.open()
    try:
        t = again._live[table_id]
        assert t.state is None  # shed at the start: read again at its first use
        await again.status(table_id)
        assert t.state is not None and t.journal_stored
        assert [e.model_dump_json() for e in t.state.transcript] == before
        again.shed_idle(0)  # shed, then read again at the next use
        await narrate(again, table_id, 1)
        assert len(again._live[table_id].state.transcript) == len(before) + 1  # type: ignore[union-attr]
    finally:
        await again.close()


async def test_a_row_from_before_journals_moves_its_story_out_at_its_next_move(
        backend: Backend) -> None:
    s = TableService(backend.store())
    await s.open()
    table_id = await started(s)
    await narrate(s, table_id, 2)
    full = GAME.dump_state(s._live[table_id].state)  # type: ignore[arg-type]
    # As the last release stored it: the whole state in the row, no journal.
    await _execute(s.store, "DELETE FROM journal")
    await _execute(s.store, "UPDATE tables SET state = " + _quoted(full))
    await s.close()
    again = TableService(backend.store())
    await again.open()
    try:
        t = again._live[table_id]
        await again.status(table_id)  # read at its first use
        assert t.state is not None and not t.journal_stored
        assert GAME.dump_state(t.state) == full
        assert (await audit_store(again.store)).ok  # the old row replays as it is
        await narrate(again, table_id, 1)
        body = await again.store.get_table(table_id)
        assert body is not None and body.state is not None
        assert '"transcript"' not in body.state
        rows = await again.store.journal(table_id)
        assert len(rows) == len(t.state.transcript)  # the whole story, then the new line
        assert (await audit_store(again.store)).ok
    finally:
        await again.close()


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


async def _execute(store: Store, sql: str) -> None:
    from bot.core.store.postgres import PostgresStore

    if isinstance(store, SqliteStore):
        await store.db.execute(sql)
        await store.db.commit()
        return
    assert isinstance(store, PostgresStore)
    await store.pool.execute(sql)


async def test_a_commit_with_a_clashing_journal_row_writes_nothing(store: Store) -> None:
    rec = TableRecord(id="j1", channel_id=5, guild_id=1, game_id="x", options={}, seed=1,
                      status="playing", host_id=1, seats=[{}], state="{}")
    await store.create_table(rec)
    await store.save_table(_next(rec, 0), journal=[(0, '"a"'), (1, '"b"')])
    after = _next(rec, 1)
    after.version = 1
    with pytest.raises(VersionConflict):
        await store.commit_action(after, 0, ActionRecord("j1", 1, 0, 1, "{}"), [],
                                  journal=[(2, '"c"'), (2, '"c again"')])
    stored = await store.get_table("j1")
    assert stored is not None and stored.version == 0 and stored.revision == 1
    assert await store.actions("j1") == []
    assert await store.journal("j1") == [JournalRecord("j1", 0, 0, '"a"'),
                                         JournalRecord("j1", 1, 0, '"b"')]
    await store.commit_action(after, 0, ActionRecord("j1", 1, 0, 1, "{}"), [],
                              journal=[(1, '"b2"'), (2, '"c"')])
    assert [r.data for r in await store.journal("j1")] == ['"a"', '"b2"', '"c"']
    assert len(await store.journal("j1", every_row=True)) == 4


def _next(rec: TableRecord, revision: int) -> TableRecord:
    from dataclasses import replace

    return replace(rec, revision=revision + 1)


async def test_export_and_import_carry_the_journal(service: TableService, tmp_path) -> None:
    table_id = await started(service)
    await narrate(service, table_id, 4)
    target = SqliteStore(tmp_path / "copy.db")
    await target.open()
    try:
        report = await copy_store(service.store, target, drop_undelivered=True)
        assert report.journal == len(await service.store.journal(table_id, every_row=True))
        assert await compare_stores(service.store, target) == []
        assert (await audit_store(target)).ok
    finally:
        await target.close()


async def test_the_audit_finds_a_missing_or_changed_passage(service: TableService) -> None:
    table_id = await started(service)
    await narrate(service, table_id, 2)
    rec = await service.store.get_table(table_id)
    actions = await service.store.actions(table_id)
    rows = await service.store.journal(table_id)
    assert rec is not None
    assert replay_check(rec, actions, rows) is None
    assert "journal" in (replay_check(rec, actions, rows[:-1]) or "")
    changed = [*rows[:-1], JournalRecord(table_id, rows[-1].n, 9, rows[-1].data.replace(
        "Passage", "Pasage"))]
    assert "journal entry" in (replay_check(rec, actions, changed) or "")
