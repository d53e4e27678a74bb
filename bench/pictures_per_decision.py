"""How many pictures a game draws and uploads per decision, through the real delivery.

    .venv/bin/python -m bench.pictures_per_decision [--games crossroads-inn,treasure]
        [--seeds 2] [--moves 400] [--base DIR]

Drives the REAL bot in process against the fake Discord of ``tests/discord_fakes.py``
(as the cog tests do), with a renderer that only counts. Per game it plays seeded
tables in two ways:

* ``mixed``: one person (Ann) and AI seats; Ann's move is the game's self-play AI
  level's choice for her seat, played through the service and handed to the delivery
  as a click's outbox would be (the AI seats' moves reach the delivery on their own);
* ``ai``: AI seats only (a table people watch).

Each AI move's delivery ends before the AI's next move is delivered (the AI runner's
backlog is 1), so no delivery is overtaken: the figures are what the turn message's rule
draws when every step is seen, not what a busy table saves by skipping overtaken ones.
A *decision* is an accepted move (any seat). Per game and way it prints the decisions,
the board pictures drawn (the renderer's calls for a public picture), the board
pictures uploaded (channel messages and edits carrying a file), both per decision, and
the seat's own pictures (hands) drawn. ``--base DIR`` runs the same tables with another
checkout (``git archive main | tar -x -C DIR``) in a child process, in the same run, and
prints before/after. One JSON line at the end.

Figures (2026-12-06, 1 seed per game and way, at most 150 decisions, drawn per decision,
before (31cc18f) -> after the step rule of bot/messages/delivery/step_pictures.py):
Crossroads Inn 1.007 -> 0.180 (1 person + 2 AIs), 1.007 -> 0.113 (AIs only); Fairy Tale
Inn 1.031 -> 1.000, 1.034 -> 0.862; Save the Treasure 1.012 -> 0.700, 1.014 -> 0.414;
Winter Tales 0.553 -> 0.293, 0.580 -> 0.258; Pocket 1.023 -> 1.023, 1.024 -> 0.071 (a
solo AI's game is one long turn: its board comes when the message goes on).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from engines import get_game
from engines.agents import get_agent, selfplay_level
from engines.core import Rng

GAMES = ("fairy-tale-inn", "treasure", "winter-tales", "crossroads-inn", "pocket")
PLAYERS = {"fairy-tale-inn": 2, "treasure": 2, "winter-tales": 3, "crossroads-inn": 3, "pocket": 1}
"""Seats per table (Pocket is a solo game: its one seat is Ann's, or an AI's)."""


@contextmanager
def _quiet() -> Iterator[None]:
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)


async def play_table(game_id: str, way: str, seed: int, moves: int) -> dict[str, int]:
    """One table to its end (or ``moves`` decisions): what it drew and uploaded."""
    import bot.core.tables.ai as ai_runner
    import bot.messages.delivery.order as delivery_order
    from bot.messages.delivery.courier import Budget
    from tests.discord_fakes import ANN, CHANNEL_ID, GUILD_ID, close_harness, make_harness

    delivery_order.TableOrder.WAIT = 0.05
    # Each AI move's delivery ends before the next one begins (nothing is overtaken),
    # and the bot token's pace is not what is measured: the count is the rule's alone.
    ai_runner.BACKLOG = 1
    game = get_game(game_id)
    agent = get_agent(game_id, selfplay_level(game_id))
    rng = Rng.from_seed(seed)
    with tempfile.TemporaryDirectory() as tmp:
        h = await make_harness(Path(tmp) / "p.sqlite3", seed=seed)
        service = h.service
        h.bot.delivery.courier.budget = Budget(100_000.0)
        try:
            host_is_ai = way == "ai"
            await service.create(CHANNEL_ID, GUILD_ID, ANN, "Ann", game_id, seed=seed)
            for _ in range(PLAYERS[game_id] - 1):
                await service.add_ai(CHANNEL_ID, ANN)
            start = await service.start(CHANNEL_ID, ANN)
            await h.bot.delivery.deliver(start)
            first = start.version
            if host_is_ai:  # Ann hands her seat to an AI at once: only AI seats play
                seat = (await service.status(CHANNEL_ID)).seat_of(ANN)
                handover = await service.replace_seat(
                    CHANNEL_ID, ANN, seat.index, can_manage_channel=True
                )
                await h.bot.delivery.deliver(handover)
            table_id = start.table_id
            while True:
                rec = await service.store.get_table(table_id)
                assert rec is not None
                if rec.status not in ("lobby", "playing") or rec.version - first >= moves:
                    break
                if any(not t.done() for t in service._ai_tasks):
                    await asyncio.sleep(0.01)  # an AI is playing; its moves are delivered
                    continue
                await h.fake.settle()
                info = await service.status(CHANNEL_ID)
                seat = None if host_is_ai else info.seat_of(ANN)
                if seat is None or seat.index not in info.to_act:
                    break  # nobody left to move (a timer would)
                _, state, _ = await service.state_for_search(CHANNEL_ID)
                action = agent.choose(game, state, seat.index, rng.spawn())
                outbox = await service.play(
                    CHANNEL_ID, seat.index, action, info.version, user_id=ANN
                )
                await h.bot.delivery.deliver(outbox)
            rec = await service.store.get_table(table_id)
            assert rec is not None
            decisions = rec.version - first
            if rec.status == "playing":
                await h.bot.delivery.deliver(
                    await service.abort(CHANNEL_ID, ANN, can_manage_channel=True)
                )
            await service.wait_idle()
            await h.bot.delivery.courier.wait_idle()
            await h.fake.settle()
        finally:
            await close_harness(h)
    boards = sum(1 for _, _, options in h.rendered if not options.get("private"))
    uploads = sum(
        1
        for s in h.fake.sent
        if s.files
        and s.kind in ("channel_message", "edit_message", "edit_original", "followup")
        and s.channel_id == CHANNEL_ID
    )
    hands = sum(1 for _, _, options in h.rendered if options.get("private"))
    return {"decisions": decisions, "boards": boards, "uploads": uploads, "hands": hands}


async def measure(games: list[str], seeds: int, moves: int) -> list[dict[str, Any]]:
    rows = []
    for gid in games:
        for way in ("mixed", "ai"):
            total = {"decisions": 0, "boards": 0, "uploads": 0, "hands": 0}
            for s in range(seeds):
                got = await play_table(gid, way, 11 + s, moves)
                for k in total:
                    total[k] += got[k]
            d = max(1, total["decisions"])
            rows.append(
                {
                    "game": gid,
                    "way": way,
                    **total,
                    "boards_per_decision": round(total["boards"] / d, 3),
                    "uploads_per_decision": round(total["uploads"] / d, 3),
                }
            )
    return rows


def measure_base(base: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": str(base)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.pictures_per_decision",
            "--rows-only",
            "--games",
            ",".join(args.games),
            "--seeds",
            str(args.seeds),
            "--moves",
            str(args.moves),
        ],
        cwd=base,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--games", type=lambda s: s.split(","), default=list(GAMES))
    p.add_argument("--seeds", type=int, default=2, help="tables per game and way")
    p.add_argument("--moves", type=int, default=400, help="decisions per table at most")
    p.add_argument("--base", type=Path, help="a checkout to compare with (before/after)")
    p.add_argument("--rows-only", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    with _quiet():
        rows = asyncio.run(measure(args.games, args.seeds, args.moves))
    if args.rows_only:
        print(json.dumps(rows))
        return 0
    before = {(r["game"], r["way"]): r for r in measure_base(args.base, args)} if args.base else {}
    print(
        f"pictures per decision: {args.seeds} seeded tables per game and way, at most "
        f"{args.moves} decisions each"
    )
    head = (
        f"{'game':16} {'way':6} {'decisions':>9} {'drawn':>6} {'uploaded':>8} "
        f"{'drawn/dec':>9} {'upl/dec':>8} {'hands':>6}"
    )
    if before:
        head += f" | {'base drawn/dec':>14} {'base upl/dec':>12}"
    print(head)
    for r in rows:
        line = (
            f"{r['game']:16} {r['way']:6} {r['decisions']:9d} {r['boards']:6d} "
            f"{r['uploads']:8d} {r['boards_per_decision']:9.3f} "
            f"{r['uploads_per_decision']:8.3f} {r['hands']:6d}"
        )
        b = before.get((r["game"], r["way"]))
        if b is not None:
            line += f" | {b['boards_per_decision']:14.3f} {b['uploads_per_decision']:12.3f}"
        print(line)
    print(json.dumps({"rows": rows, "base": list(before.values())}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
