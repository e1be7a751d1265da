"""`yambak keep` (score-keeper for real dice) and `yambak play` (a game in the terminal).

Everything a user can get wrong is refused before the game starts, as one
`UserError`/`RulesetError`/`RecordError` line (printed by `yambak.cli.main`).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..commandline import UserError, add_ruleset_args, bounded_int, check_writable, read_text, ruleset_of
from .words import LANGUAGES

if TYPE_CHECKING:  # the engine and the rules load when a command runs, not for its --help
    from ..engine import GameState
    from ..rules import Ruleset
    from .app import Face

DEFAULT_RULES = "yams"
PLAY_SEATS = 8  # the web table's seats at most


def _rules(args: argparse.Namespace) -> Ruleset:
    return ruleset_of(args, args.preset or DEFAULT_RULES)


def _names(names: list[str], limit: int) -> list[str]:
    """The players' names under the web's rules (`yambak.names`: at most 24 characters, none twice in
    any case), at most `limit` of them."""
    from ..keeper import Refusal, unique_names

    try:
        return unique_names(names, limit)
    except Refusal as exc:
        raise UserError(f"--players: {exc.message}") from None


class LineSession(Protocol):
    """What the line mode drives: a line in, text out (`KeeperSession`, `GameSession`)."""

    state: GameState

    def prompt(self) -> str: ...
    def handle(self, line: str) -> str: ...
    def complete(self, text: str) -> list[str]: ...


def _completion(session: LineSession) -> None:
    """Tab completes what the session offers (box names, commands), where readline is available."""
    try:
        import readline
    except ImportError:  # not every platform has it: typing still works
        return
    offered: list[str] = []

    def complete(text: str, state: int) -> str | None:
        nonlocal offered
        if state == 0:
            offered = session.complete(text)
        return offered[state] if state < len(offered) else None

    readline.set_completer_delims(" \t\n")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")


def _loop(session: LineSession, until_finished: bool = False) -> int:
    """Read lines until EOF or quit (or the end of the game, `until_finished`); the prompt only on a terminal."""
    interactive = sys.stdin.isatty()
    if interactive:
        _completion(session)
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # a stray byte is a line not understood, not a crash
    while True:
        try:
            line = input(session.prompt() if interactive else "")
        except EOFError:
            return 0
        if line.strip().lower() in ("quit", "exit", "q"):
            return 0
        out = session.handle(line)
        if out:
            print(out, flush=True)
        if until_finished and session.state.finished:
            return 0


def _full_screen(args: argparse.Namespace) -> bool:
    """The full-screen app on a terminal; the line mode for pipes, scripts, screen readers and --plain."""
    return not args.plain and sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


def _run_app(face: Face, args: argparse.Namespace) -> int:
    from .app import TableApp  # Textual loads here only: `yambak --help` does not pay for it
    from .words import language

    app = TableApp(face, lang=language(args.lang), dark=args.theme != "light")
    app.run()
    return 0


def _cmd_keep(args: argparse.Namespace) -> int:
    from ..engine import GameRecord, replay
    from ..keeper.entries import MAX_PLAYERS
    from .keeper import KeeperSession

    if args.resume:
        given = [
            flag
            for flag, on in (
                ("RULESET", args.preset),
                ("--players", args.players),
                ("--option", args.option),
                ("--six-dice", args.six_dice),
                ("--duplicate", args.duplicate),
            )
            if on
        ]
        if given:
            raise UserError(f"--resume goes on with the record's rules and players: drop {', '.join(given)}")
        state = replay(GameRecord.loads(read_text(args.resume, "game record (JSON)")))
        session = KeeperSession(state, check_writable(args.save or args.resume), args.lang)
    else:
        if not args.players:
            raise UserError("name the players: --players Ann Bram")
        players = _names(args.players, MAX_PLAYERS)
        rules = _rules(args)
        session = KeeperSession.start(rules, players, check_writable(args.save) if args.save else None, args.lang)
    if _full_screen(args):
        from .app import KeepFace

        return _run_app(KeepFace(session), args)
    from ..web.i18n import ruleset_name

    T, rules = session.words, session.state.rules
    game = ruleset_name(rules.id, rules.name, T.lang)
    print(
        T("Keeping {game} for {players}. Type help for commands.", game=game, players=", ".join(session.state.players))
    )
    if session.path:
        print(T("Every entry is saved to {path}.", path=session.path))
    return _loop(session)


def _cmd_join(args: argparse.Namespace) -> int:
    """`yambak play --join URL`: a seat at an online table (or `--watch`), full screen or line by line."""
    import asyncio

    from .online import OnlineTable, play_plain

    given = [f for f, on in (("RULESET", args.preset), ("--bots", args.bots), ("--seed", args.seed is not None)) if on]
    if given:
        raise UserError(f"--join plays the table's own rules and seats: drop {', '.join(given)}")
    table = OnlineTable(args.join, watch=args.watch)
    table.fetch()
    name = args.name or (args.players[0] if args.players else None) or table.profile_name()
    table.name = _names([name], 1)[0] if name else None
    table.sit_down()
    if _full_screen(args):
        from .app import OnlineFace

        return _run_app(OnlineFace(table), args)
    return asyncio.run(play_plain(table, lang=args.lang))


def _cmd_profile(args: argparse.Namespace) -> int:
    """`yambak profile --link URL`: take a profile by its move link, so this terminal's games are its."""
    from .online import claim_profile
    from .words import Words, language

    name = claim_profile(args.link)
    print(
        Words(language())(
            "This terminal now plays as {name} on that site: its games enter {name}'s history.", name=name
        )
    )
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    if args.join:
        return _cmd_join(args)
    if args.watch or args.name:
        raise UserError("--watch and --name go with --join URL")
    from ..bots.names import LEVELS, POLICY_NAMES  # the policies themselves load when a bot first moves
    from ..engine import SeededDice
    from .game import GameSession
    from .words import BOT_NAMES, Words, language

    T = Words(language(args.lang))  # the names given for the players not named, in the language
    people = args.players or [T("Player {n}", n=1)]  # a name: "It is Player 1's turn"
    bots = [LEVELS.get(b, b) for b in args.bots or []]
    unknown = [b for b in bots if b not in POLICY_NAMES]
    if unknown:
        raise UserError(f"unknown bot {unknown[0]!r} (known: {', '.join([*LEVELS, *POLICY_NAMES])})")
    named = [T(BOT_NAMES.get(b, f"{b.capitalize()} bot {{n}}"), n=i + 1) for i, b in enumerate(args.bots or [])]
    names = _names(people + named, PLAY_SEATS)
    rules = _rules(args)
    seats = {len(people) + i: b for i, b in enumerate(bots)}
    dice = SeededDice(args.seed) if args.seed is not None else None
    session = GameSession(rules, names, seats, dice=dice, seed=args.seed, lang=args.lang)
    if _full_screen(args):
        from .app import PlayFace

        return _run_app(PlayFace(session), args)
    from ..bots import model_note
    from ..web.i18n import ruleset_name

    game = ruleset_name(rules.id, rules.name, session.words.lang)  # the preset's name in the language
    print(session.words("{game}: {players}. Type help for commands.", game=game, players=", ".join(names)))
    for bot in dict.fromkeys(args.bots or []):
        note = model_note(rules, bot)
        if note is not None:
            print(f"Note: {note}.")
    print(session.view())
    return _loop(session, until_finished=True)


def _cmd_train(args: argparse.Namespace) -> int:
    """`yambak train RULESET`: positions where the obvious choice loses, full screen or line by line."""
    from ..rules import preset_ids

    if args.preset not in preset_ids():
        raise UserError(f"the trainer has positions for the presets: {', '.join(preset_ids())} (not {args.preset!r})")
    from .words import language

    lang = language(args.lang) if _full_screen(args) else language(args.lang or "en")
    if _full_screen(args):
        from .train_app import TrainApp

        TrainApp(args.preset, lang, args.theme != "light", args.positions, args.seed, args.daily).run()
        return 0
    return train_plain(args.preset, args.positions, args.seed, args.daily, lang)


def train_plain(
    preset: str, positions: int, seed: int | None, daily: bool, lang: str = "en", folder: Path | None = None
) -> int:
    """The trainer line by line on stdin and stdout (pipes, screen readers, --plain): the position and its
    choices numbered, a choice typed, the verdict; `n` the next position, `d` today's, `q` quits."""
    from datetime import UTC, datetime

    from ..rules import load_ruleset
    from ..trainer import POOL_SEED, PoolSpec, TrainerError, generate_pool
    from .trainer import ChoiceRefused, DeviceRatings, TrainerSession, choices_lines, position_lines, verdict_lines
    from .words import Words

    bar = None
    if sys.stderr.isatty():  # a bar on stderr, shown only when the pool takes more than a second
        from tqdm import tqdm

        bar = tqdm(total=positions, desc="finding positions", unit="position", file=sys.stderr, delay=1.0)

    def found(n: int) -> None:
        if bar is not None:
            bar.update(n - bar.n)

    try:
        pool = generate_pool(PoolSpec(preset, size=positions, seed=POOL_SEED), progress=found)
    finally:
        if bar is not None:
            bar.close()
    ratings = DeviceRatings(folder)
    try:
        session = TrainerSession(preset, pool, ratings, seed)
    except TrainerError as exc:
        raise UserError(exc.message) from None
    words = Words(lang, preset)
    columns = len(load_ruleset(preset).columns)
    help_text = words(
        "Type the dice to keep (66 or k 6 6), r to roll them all again, a box (yam), strike yam, announce yam,"
        " or #N for the N-th choice; n: the next position, d: today's, q: quit."
    )

    def show() -> None:
        print("\n".join(position_lines(session, words, columns) + choices_lines(session, words, columns)), flush=True)

    from ..web.i18n import ruleset_name

    print(f"{words('Trainer')}: {ruleset_name(preset, load_ruleset(preset).name, lang)}. {help_text}")
    if daily:
        session.daily(datetime.now(UTC).date())
    else:
        session.next()
    show()
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")
    interactive = sys.stdin.isatty()
    while True:
        try:
            line = input("> " if interactive else "").strip()
        except EOFError:
            return 0
        command = line.lower()
        if command in ("q", "quit", "exit"):
            return 0
        if not command:
            continue
        if command in ("?", "help", "h"):
            print(help_text)
        elif command in ("n", "next"):
            session.next()
            show()
        elif command in ("d", "daily"):
            session.daily(datetime.now(UTC).date())
            show()
        else:
            try:
                answered = session.answer(session.parse(line))
            except TrainerError as exc:
                print(exc.said(words) if isinstance(exc, ChoiceRefused) else exc.message, flush=True)
                continue
            print("\n".join(verdict_lines(answered, words, columns)), flush=True)


def _face_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--plain", action="store_true", help="the line mode (the default when not on a terminal)")
    p.add_argument("--lang", choices=LANGUAGES, help="the language of the sheet's names (default: from LANG)")
    p.add_argument("--theme", choices=("dark", "light"), default="dark", help="the full-screen app's colours")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("keep", help="keep the sheet for a game with real dice")
    p.add_argument("preset", metavar="RULESET", nargs="?", help="a preset id or a ruleset .toml file (default yams)")
    p.add_argument("--players", nargs="+", metavar="NAME", help="the players, in seat order")
    add_ruleset_args(p)
    p.add_argument("--save", metavar="FILE", help="write the game record here after every entry")
    p.add_argument("--resume", metavar="FILE", help="go on with a saved game record")
    _face_args(p)
    p.set_defaults(func=_cmd_keep)

    p = sub.add_parser("play", help="play in the terminal, against bots or hot-seat")
    p.add_argument("preset", metavar="RULESET", nargs="?", help="a preset id or a ruleset .toml file (default yams)")
    p.add_argument("--players", nargs="+", metavar="NAME", help="the people playing, in seat order")
    p.add_argument("--bots", nargs="+", metavar="BOT", help="bots after them: easy, medium, hard (or a policy name)")
    add_ruleset_args(p)
    p.add_argument("--seed", type=bounded_int(0, 2**63 - 1), help="reproducible dice (default: secure random dice)")
    p.add_argument("--join", metavar="URL", help="take a seat at an online table by its link (https://HOST/t/ID)")
    p.add_argument("--watch", action="store_true", help="with --join: watch the table without taking a seat")
    p.add_argument("--name", help="with --join: the name to play under (default: this terminal's profile there)")
    _face_args(p)
    p.set_defaults(func=_cmd_play)

    p = sub.add_parser("train", help="the trainer: positions where the obvious choice loses points")
    p.add_argument("preset", metavar="RULESET", help="a preset id (yams, yatzy...): the server's positions of it")
    p.add_argument("--seed", type=bounded_int(0, 2**63 - 1), help="the positions in a reproducible order")
    p.add_argument("--daily", action="store_true", help="start with today's position (UTC, the same for everybody)")
    p.add_argument(
        "--positions",
        type=bounded_int(1, 500),
        default=60,
        metavar="N",
        help="the pool's first N positions (default 60, the server's pool; fewer start sooner)",
    )
    _face_args(p)
    p.set_defaults(func=_cmd_train)

    p = sub.add_parser("profile", help="take your profile on a yambak server to this terminal")
    p.add_argument("--link", metavar="URL", required=True, help="the profile's move link (https://HOST/me/move/CODE)")
    p.set_defaults(func=_cmd_profile)
