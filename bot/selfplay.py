"""Self-play: AI players play whole games of any registered game; also the engine benchmark.

One JSON line per game, then one summary line::

    python -m bot.selfplay --game fairy-tale-inn --games 100 --seed 1 --agents greedy,random

Each game ``i`` uses seed ``S + i``. ``--agents`` lists one AI level per seat (a
single level is used for every seat; ``--player LEVEL`` says the same; default the
game's self-play level). With ``--rotate`` the
agents move one seat along every game, so each takes every seat equally often
(in Fairy Tale Inn seat 0 starts), and wins are also counted per agent.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any, TextIO

from engines import game_ids, get_game
from engines.agents import agent_levels, get_agent, selfplay_level
from engines.core import Game, GameError, Rng


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """``["key=value", ...]`` to a dict; values are JSON when they parse, else strings.

    >>> parse_options(["ai_seats=2", "name=bob", "flag=true"])
    {'ai_seats': 2, 'name': 'bob', 'flag': True}
    """
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--option needs key=value, got {pair!r}")
        if key.strip().lower() in {k.lower() for k in out}:  # the last would win unsaid
            raise ValueError(f"The option '{key.strip()}' is given twice: give it once.")
        out[key.strip()] = _parse_value(value.strip())
    return out


def play_game(game: Game, players: int, options: Any, seed: int, agents: list[Any],
              max_moves: int = 100_000) -> dict[str, Any]:
    """Play one game; ``agents[seat]`` chooses for ``seat``. Returns the result record."""
    state = game.setup(players, options, seed)
    rng = Rng.from_seed(seed ^ 0xA11CE)
    moves = 0
    think = [0.0] * players
    while not game.is_over(state):
        if moves >= max_moves:
            return {"seed": seed, "winners": [], "scores": {}, "moves": moves,
                    "reason": f"stopped after {max_moves} moves", "think": think}
        to_act = game.to_act(state)
        seat = to_act[0] if len(to_act) == 1 else rng.choice(to_act)
        start = time.perf_counter()
        action = agents[seat].choose(game, state, seat, rng.spawn())
        think[seat] += time.perf_counter() - start
        game.apply(state, seat, action)
        moves += 1
    outcome = game.outcome(state)
    assert outcome is not None
    return {
        "seed": seed,
        "winners": outcome.winners,
        "scores": {str(k): v for k, v in outcome.scores.items()},
        "moves": moves,
        "reason": outcome.reason,
        "think": think,
    }


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="selfplay", description="AI self-play for any Fabletop game (JSON lines out).")
    p.add_argument("--game", required=True, help=f"game id: {', '.join(game_ids())}")
    p.add_argument("--games", type=int, default=10, help="number of games (default 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of game 0 (game i uses S+i)")
    p.add_argument("--players", type=int, default=None,
                   help="number of seats (default: the game's minimum)")
    p.add_argument("--agents", default=None,
                   help="comma-separated AI level per seat, or one level for all "
                        "(default: the game's self-play level, usually random)")
    p.add_argument("--player", default=None, metavar="LEVEL",
                   help="one AI level for every seat (the same as --agents LEVEL; the "
                        "natural word for a game of one peasant, such as pocket)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="table option (repeatable); values are JSON when they parse")
    p.add_argument("--rotate", action="store_true",
                   help="move the agents one seat along every game")
    p.add_argument("--max-moves", type=int, default=100_000,
                   help="stop a game that runs longer than this")
    p.add_argument("--quiet", action="store_true", help="print only the summary line")
    return p


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    """Run self-play; returns a process exit code (0 ok, 2 bad arguments)."""
    out = out or sys.stdout
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        game = get_game(args.game)
    except KeyError as exc:
        print(f"selfplay: {exc.args[0]}", file=sys.stderr)
        return 2
    players = args.players if args.players is not None else game.min_players
    if not game.min_players <= players <= game.max_players:
        print(f"selfplay: {game.name} takes {game.min_players}-{game.max_players} players, "
              f"not {players}.", file=sys.stderr)
        return 2
    if args.games < 0:
        print("selfplay: --games must be 0 or more.", file=sys.stderr)
        return 2
    if args.player is not None and args.agents is not None:
        print("selfplay: give --player or --agents, not both.", file=sys.stderr)
        return 2
    if args.player is not None and ("," in args.player or not args.player.strip()):
        print("selfplay: --player takes one AI level (--agents lists one per seat).",
              file=sys.stderr)
        return 2
    agents_arg = args.player or args.agents or selfplay_level(game.id)
    levels = [x.strip() for x in agents_arg.split(",") if x.strip()] or ["random"]
    if len(levels) == 1:
        levels = levels * players
    if len(levels) != players:
        print(f"selfplay: --agents lists {len(levels)} levels for {players} seats.",
              file=sys.stderr)
        return 2
    try:
        options = game.parse_options(parse_options(args.option))
        agents = [get_agent(game.id, level) for level in levels]
    except (KeyError, ValueError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        print(f"selfplay: {msg}", file=sys.stderr)
        return 2

    seat_wins: Counter[int] = Counter()
    agent_wins: Counter[str] = Counter()
    agent_games: Counter[str] = Counter()
    think: Counter[str] = Counter()
    total_moves = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    for i in range(args.games):
        shift = i % players if args.rotate else 0
        seating = [(s - shift) % players for s in range(players)]  # seat -> agent index
        seed = args.seed + i
        try:
            record = play_game(game, players, options, seed,
                               [agents[k] for k in seating], args.max_moves)
        except GameError as exc:
            print(f"selfplay: game {i} (seed {seed}) failed: {exc}", file=sys.stderr)
            return 1
        labels = [f"{levels[k]}#{k}" if levels.count(levels[k]) > 1 else levels[k]
                  for k in seating]
        for s, secs in enumerate(record.pop("think")):
            think[labels[s]] += secs
        for s in range(players):
            agent_games[labels[s]] += 1
        for w in record["winners"]:
            seat_wins[w] += 1
            agent_wins[labels[w]] += 1
        total_moves += record["moves"]
        if not args.quiet:
            line = {"game": i, **record, "agents": labels}
            print(json.dumps(line, sort_keys=False), file=out)
    elapsed = max(time.perf_counter() - start, 1e-9)
    cpu = max(time.process_time() - cpu_start, 1e-9)
    summary = {
        "summary": True,
        "game": game.id,
        "games": args.games,
        "players": players,
        "agents": levels,
        "seconds": round(elapsed, 3),
        "games_per_sec": round(args.games / elapsed, 2),
        "moves_per_sec": round(total_moves / elapsed, 1),
        "cpu_seconds": round(cpu, 3),
        "games_per_cpu_sec": round(args.games / cpu, 2),
        "moves": total_moves,
        "wins_by_seat": {str(s): seat_wins[s] for s in range(players)},
        "wins_by_agent": dict(sorted(agent_wins.items())),
        "games_by_agent": dict(sorted(agent_games.items())),
        "think_seconds_by_agent": {k: round(v, 3) for k, v in sorted(think.items())},
        "levels_available": agent_levels(game.id),
    }
    print(json.dumps(summary), file=out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
