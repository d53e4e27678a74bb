"""Fairy Tale Inn through the TableService: whole games with humans and AI seats,
a restart in the middle, and the replay check. Real SQLite files."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.tables import EngineAgents, Outbox, TableService, TableStatus
from engines import get_game
from engines.core import Rng

FTI = "fairy-tale-inn"
CH, GUILD, ANN, BOB = 900, 1, 11, 22


async def open_service(path: Path) -> TableService:
    # A small search budget keeps the strongest AI quick in tests.
    return await TableService.open_sqlite(path, agents=EngineAgents(iterations=30))


async def human_move(s: TableService, out: Outbox, chooser: Rng) -> Outbox:
    info = out.table
    user = info.to_act_users[0]
    legal = await s.legal_actions(CH, user)
    assert legal
    action = chooser.choice(legal)
    return await s.act(CH, user, action.model_dump(), expected_version=info.version)


async def test_full_game_between_two_humans(tmp_path: Path) -> None:
    s = await open_service(tmp_path / "fti.db")
    info = await s.create(CH, GUILD, ANN, "Ann", FTI, seed=2024)
    assert info.min_players == info.max_players == 2
    await s.join(CH, BOB, "Bob")
    out = await s.start(CH, ANN)
    assert out.public is not None and out.public.render_board
    chooser = Rng.from_seed(1)
    moves = 0
    while out.table.status is TableStatus.PLAYING:
        out = await human_move(s, out, chooser)
        moves += 1
        assert out.public is not None and out.public.lines
        assert out.version == moves
        assert out.private == ()  # the bag order is secret from everyone: nothing to DM
    assert moves > 15
    assert out.public is not None and out.public.finished and out.public.mentions == ()
    final = await s.status(out.table_id)
    assert final.outcome is not None and final.outcome_text
    winner = final.seats[final.outcome.winners[0]].name
    assert f"{winner} wins" in final.outcome_text
    view = await s.public_view(out.table_id)
    assert view.phase == "over"  # type: ignore[attr-defined]

    game = get_game(FTI)
    rec = await s.store.get_table(out.table_id)
    assert rec is not None
    log = [(a.seat, game.parse_action(a.action)) for a in await s.store.actions(rec.id)]
    replayed = game.replay(2, game.parse_options(rec.options), rec.seed, log)
    assert game.dump_state(replayed) == rec.state
    assert len(await s.history(out.table_id)) >= moves
    await s.close()


@pytest.mark.parametrize("level", ["greedy", None])
async def test_game_against_an_ai_seat(tmp_path: Path, level: str | None) -> None:
    s = await open_service(tmp_path / "ai.db")
    seen: list[Outbox] = []
    s.subscribe(seen.append)
    await s.create(CH, GUILD, ANN, "Ann", FTI, seed=77)
    info = await s.add_ai(CH, ANN, level)
    assert info.seats[1].ai_level == (level or "mcts")  # default: the strongest level
    out = await s.start(CH, ANN)
    chooser = Rng.from_seed(3)
    plies = 0 if level else 8  # the strongest AI only plays a few moves (speed)
    while True:
        await s.wait_idle()
        info = await s.status(out.table_id)
        if info.status is not TableStatus.PLAYING or (plies and info.version >= plies):
            break
        assert info.to_act_users == (ANN,)  # never left waiting for the AI
        out = await human_move(s, Outbox(table=info), chooser)
    assert seen and all(o.public and o.public.kind == "move" for o in seen)
    actions = await s.store.actions(info.id)
    assert [a.version for a in actions] == list(range(1, info.version + 1))
    assert {a.user_id for a in actions} == {ANN, None}
    if not plies:
        assert info.status is TableStatus.FINISHED
    await s.close()


async def test_restart_mid_game_continues_identically(tmp_path: Path) -> None:
    async def play(path: Path, restart_at: int | None) -> str:
        s = await open_service(path)
        await s.create(CH, GUILD, ANN, "Ann", FTI, seed=31337)
        await s.join(CH, BOB, "Bob")
        out = await s.start(CH, ANN)
        chooser = Rng.from_seed(9)
        while out.table.status is TableStatus.PLAYING:
            if out.version == restart_at:
                before = (await s.public_view(CH)).model_dump()
                await s.close()
                s = await open_service(path)
                out = Outbox(table=await s.status(CH))
                assert (await s.public_view(CH)).model_dump() == before
            out = await human_move(s, out, chooser)
        rec = await s.store.get_table(out.table_id)
        await s.close()
        assert rec is not None and rec.state is not None
        return rec.state

    assert await play(tmp_path / "a.db", None) == await play(tmp_path / "b.db", 12)
