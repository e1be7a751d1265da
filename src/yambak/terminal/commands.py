"""`yambak keep` (score-keeper for real dice) and `yambak play` (a game in the terminal)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..rules import load_ruleset, load_ruleset_file, parse_options


def _rules(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    if args.preset.endswith(".toml"):
        return load_ruleset_file(args.preset)
    return load_ruleset(args.preset, parse_options(args.preset, args.option))


def _loop(session, handle_line) -> int:  # type: ignore[no-untyped-def]
    interactive = sys.stdin.isatty()
    while True:
        try:
            line = input(session.prompt() if interactive else "")
        except EOFError:
            return 0
        if line.strip().lower() in ("quit", "exit", "q"):
            return 0
        out = handle_line(line)
        if out:
            print(out, flush=True)


def _cmd_keep(args: argparse.Namespace) -> int:
    from .keeper import KeeperSession

    path = Path(args.save) if args.save else None
    if args.resume:
        session = KeeperSession.resume(Path(args.resume))
        session.path = path or Path(args.resume)
    else:
        if not args.players:
            print("yambak: name the players: --players Ann Bram", file=sys.stderr)
            return 2
        session = KeeperSession.start(_rules(args), args.players, path)
    print(f"Keeping {session.state.rules.name} for {', '.join(session.state.players)}. Type help for commands.")
    if session.path:
        print(f"Every entry is saved to {session.path}.")
    return _loop(session, session.handle)


def _cmd_play(args: argparse.Namespace) -> int:
    from ..bots import LEVELS, POLICIES
    from ..engine import SeededDice
    from .game import GameSession

    people = args.players or ["You"]
    bots = [LEVELS.get(b, b) for b in args.bots or []]
    unknown = [b for b in bots if b not in POLICIES]
    if unknown:
        print(f"yambak: unknown bot {unknown[0]!r} (known: {', '.join([*LEVELS, *POLICIES])})", file=sys.stderr)
        return 2
    names = people + [f"{b.capitalize()} bot {i + 1}" for i, b in enumerate(args.bots or [])]
    seats = {len(people) + i: b for i, b in enumerate(bots)}
    dice = SeededDice(args.seed) if args.seed is not None else None
    session = GameSession(_rules(args), names, seats, dice=dice, seed=args.seed)
    print(f"{session.state.rules.name}: {', '.join(names)}. Type help for commands.")
    print(session.view())
    return _loop(session, session.handle)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("keep", help="keep the sheet for a game with real dice")
    p.add_argument("preset", nargs="?", default="yams", help="a preset id or a ruleset .toml file")
    p.add_argument("--players", nargs="+", metavar="NAME", help="the players, in seat order")
    p.add_argument("--option", "-o", action="append", metavar="KEY=VALUE", help="a ruleset option")
    p.add_argument("--save", metavar="FILE", help="write the game record here after every entry")
    p.add_argument("--resume", metavar="FILE", help="go on with a saved game record")
    p.set_defaults(func=_cmd_keep)

    p = sub.add_parser("play", help="play in the terminal, against bots or hot-seat")
    p.add_argument("preset", nargs="?", default="yams", help="a preset id or a ruleset .toml file")
    p.add_argument("--players", nargs="+", metavar="NAME", help="the people playing, in seat order")
    p.add_argument("--bots", nargs="+", metavar="BOT", help="bots after them: easy, medium, hard (or a policy name)")
    p.add_argument("--option", "-o", action="append", metavar="KEY=VALUE", help="a ruleset option")
    p.add_argument("--seed", type=int, help="reproducible dice (default: secure random dice)")
    p.set_defaults(func=_cmd_play)
