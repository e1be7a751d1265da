"""`yambak hint` and `yambak review`: the coach on the command line, registered by `yambak.cli`.

`hint` advises a position, typed in or the end of a game record: exact where the solver has a
table (one-column rulesets, read without compiling anything), the strong bot's estimate
elsewhere, labelled. A typed multi-column position names its boxes column.row (down.ones=3).
`review` grades every decision of a finished game record. User errors raise `UserError`;
`yambak.cli.main` prints one line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, TextIO

from ..commandline import UserError, add_ruleset_args, bounded_int, read_text, ruleset_of
from ..solver.commands import parse_objective
from ..solver.first_run import say_when_compiling

if TYPE_CHECKING:  # numpy and the solver load in the handlers, not for the parser (`yambak hint --help`)
    from ..engine import GameState
    from ..rules import Ruleset
    from ..solver import Advice, Position, Strategy
    from .advice import Advice as CoachAdvice
    from .advice import Option

__all__ = ["register"]


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the coach's subcommands to the `yambak` parser."""
    p = subparsers.add_parser(
        "hint",
        help="the value of every keep, box and announcement in a position (any ruleset with --record)",
        description="Advise a position: the end of a game record (--record), or one typed in "
        "(--dice, --roll, --filled). Example: yambak hint --rules yams --dice 6 6 6 2 3 "
        "--roll 1 --filled ones=3,yam=50",
    )
    add_ruleset_args(p, "--rules")
    p.add_argument("--record", metavar="GAME.json", help="advise the seat to act at the end of this game record")
    p.add_argument(
        "--dice", type=bounded_int(1, 6), nargs="+", metavar="D", help="the dice showing (as many as the ruleset rolls)"
    )
    p.add_argument("--roll", type=bounded_int(0, 10), help="rolls made this turn (default 1; 0 = before rolling)")
    p.add_argument(
        "--filled",
        action="append",
        metavar="ROW=VALUE[,...]",
        help="filled boxes and the values written (0 = scratched); repeat or comma-separate",
    )
    p.add_argument("--held", type=bounded_int(1, 6), nargs="*", default=[], metavar="D", help="dice held now")
    p.add_argument("--upper", type=bounded_int(0, 10**9), help="upper-section sum, checked against --filled")
    p.add_argument("--bonus", type=bounded_int(0, 10**9), default=0, help="joker extra bonus points already won")
    p.add_argument("--top", type=bounded_int(0, 10**6), default=10, help="show at most this many keeps and boxes")
    p.add_argument(
        "--objective",
        type=parse_objective,
        default=None,
        metavar="mean|target=N",
        help="mean (default): expected final score; target=N: the chance to reach N points (one-column rulesets)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_hint)

    p = subparsers.add_parser(
        "review",
        help="grade every decision of a game record against the best choice",
        description="Review a game: for every decision that had a choice, what it lost against the best one "
        "(exact where the solver has a table, the strong bot's estimate elsewhere). Keeps are graded "
        "only where the record says what was held.",
    )
    p.add_argument("record", metavar="GAME.json", help="a game record (JSON)")
    p.add_argument("--top", type=bounded_int(0, 10**6), default=3, help="mistakes shown per player (default 3)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_review)


def _parse_filled(items: list[str] | None) -> dict[str, int]:
    filled: dict[str, int] = {}
    for item in items or []:
        for pair in filter(None, item.split(",")):
            name, eq, text = pair.partition("=")
            name = name.strip()
            if not eq or not name:
                raise UserError(f"--filled: write ROW=VALUE, not {pair!r}")
            try:
                value = int(text)
            except ValueError:
                raise UserError(f"--filled: {text!r} is not a whole number") from None
            if name in filled:
                raise UserError(f"--filled: {name} given twice")
            filled[name] = value
    return filled


def _cmd_hint(args: argparse.Namespace) -> int:
    from ..solver import Position, advise, solve
    from ..solver.advisor import position_of

    start = time.perf_counter()
    if args.record:
        from ..engine import GameRecord, replay  # records: the engine and the coach (any ruleset)

        if args.dice or args.filled or args.roll is not None or args.held or args.upper is not None:
            raise UserError("--record gives the whole position: drop --dice/--roll/--filled/--held/--upper")
        if args.option or args.six_dice or args.duplicate:
            raise UserError("--record gives the rules: drop --option/--six-dice/--duplicate")
        state = replay(GameRecord.loads(read_text(args.record, "game record (JSON)")))
        if args.rules and args.rules != (state.rules.preset or state.rules.id):
            raise UserError(f"--rules {args.rules} but the record plays {state.rules.preset or state.rules.id}")
        say_when_compiling()
        if args.objective is not None:
            try:
                position = position_of(state)
            except ValueError as exc:
                raise UserError(f"--objective target=N: {exc}") from None
            return _hint_target(state.rules, position, args.objective, args.top, args.json, start)
        if state.turn.rolls or len(state.rules.columns) > 1 or not _solvable(state.rules):
            return _coach_hint(state, args.top, args.json, start)
        # a one-column turn start: the exact table's expected final score, before rolling
        position = position_of(state)
        _say_when_solving(state.rules, position)
        strategy = solve(state.rules)  # float64: the values a user reads are the exact ones
    else:
        if not args.rules:
            raise UserError("hint needs --rules RULESET (or --record GAME.json)")
        roll = args.roll if args.roll is not None else (1 if args.dice else 0)
        filled = _parse_filled(args.filled)
        position = Position(
            filled=filled, dice=tuple(args.dice or ()), roll=roll, held=tuple(args.held), extra_bonus=args.bonus
        )
        ruleset = ruleset_of(args, args.rules)
        if args.dice and len(args.dice) != ruleset.rolled_dice:
            raise UserError(f"--dice: give the {ruleset.rolled_dice} dice showing, not {len(args.dice)}")
        say_when_compiling()
        if (len(ruleset.columns) > 1 or not _solvable(ruleset)) and args.objective is None:
            # no exact table: the strong bot's estimate, labelled (as the web coach answers)
            if args.upper is not None or args.bonus:
                raise UserError(
                    "--upper and --bonus are for one-column sheets the solver takes: the filled boxes say it"
                )
            state = _typed_state(ruleset, filled, position)
            return _coach_hint(state, args.top, args.json, start)
        if args.objective is not None:
            return _hint_target(ruleset, position, args.objective, args.top, args.json, start)
        _say_when_solving(ruleset, position)
        strategy = solve(ruleset)  # float64: the values a user reads are the exact ones
        if args.upper is not None:
            rows = {r.id: r for r in strategy.ruleset.rows}
            upper = sum(v for k, v in filled.items() if k in rows and rows[k].is_upper)
            if upper != args.upper:
                raise UserError(f"--upper {args.upper} but the filled upper boxes add up to {upper}")
    advice = advise(strategy, position)
    ms = (time.perf_counter() - start) * 1000
    if args.json:
        print(json.dumps(advice.to_dict()))
    else:
        _print_advice(advice, position, args.top, ms, strategy, sys.stdout)
    return 0


def _say_when_solving(ruleset: Ruleset, position: Position) -> None:
    """Before a hint solves a table the cache lacks: the position checked (bad input costs nothing), then one
    line on stderr saying what is solved and for about how long."""
    from ..solver.advisor import check_position
    from ..solver.table import solve_estimate

    estimate = solve_estimate(ruleset)
    if estimate is not None:
        check_position(ruleset, position)
        entries, seconds = estimate
        name = ruleset.preset or ruleset.name
        print(
            f"yambak: solving the exact table of {name} once ({entries:,} turn-start states, about "
            f"{max(seconds, 1):.0f} s); later hints read it from the cache",
            file=sys.stderr,
        )


def _solvable(ruleset: Ruleset) -> bool:
    """Whether the exact solver takes the ruleset (else the coach answers with the strong bot's estimate)."""
    from ..solver import UnsupportedRuleset, table_states

    try:
        table_states(ruleset)
    except UnsupportedRuleset:
        return False
    return True


def _coach_hint(state: GameState, top: int, as_json: bool, start: float) -> int:
    """The coach on a game state: exact where the solver has a table, the strong bot's estimate elsewhere."""
    from .advice import CoachError
    from .advice import advise as coach_advise

    if not state.turn.rolls:
        print(json.dumps({"best": None}) if as_json else "roll the dice: nothing to choose before the first roll")
        return 0
    try:
        coached = coach_advise(state)
    except CoachError as exc:
        raise UserError(str(exc)) from None
    ms = (time.perf_counter() - start) * 1000
    if as_json:
        print(json.dumps(coached.to_dict()))
    else:
        _print_coach(coached, state, top, ms, sys.stdout)
    return 0


def _typed_state(ruleset: Ruleset, filled: dict[str, int], position: Position) -> GameState:
    """A multi-column position typed in: every filled box entered through the engine (in an order
    its column rules accept), then the dice of this turn rolled as typed and the held dice held."""
    from ..engine import IllegalAction, ManualDice, Roll, entry_turn, new_game, play_turn
    from ..engine.actions import Hold

    state = new_game(ruleset, ["you"], dice=ManualDice())
    left = dict(filled)
    while left:  # a pass enters what the column rules let in now; stuck when a pass enters nothing
        before = len(left)
        refused: dict[str, str] = {}
        for box, value in list(left.items()):
            try:
                state = play_turn(state, entry_turn(state, box, value))
                del left[box]
            except IllegalAction as exc:
                refused[box] = exc.message
        if len(left) == before:
            box, why = next(iter(refused.items()))
            raise UserError(
                f"--filled {box}={left[box]}: {why} (a position the boxes alone cannot say: give the game as "
                "--record GAME.json)"
            )
    if state.finished:
        raise UserError("--filled fills the whole sheet: nothing left to decide")
    try:
        for _ in range(position.roll):
            if len(position.dice) != ruleset.rolled_dice:
                raise UserError(f"--dice: give the {ruleset.rolled_dice} dice showing")
            state, _ = state.apply(Roll(state.current, dice=position.dice))
        if position.held:
            left_dice = list(position.dice)
            places = []
            for d in position.held:
                if d not in left_dice:
                    raise UserError(f"--held {d}: not among the dice showing")
                i = next(i for i, v in enumerate(position.dice) if v == d and i not in places)
                places.append(i)
                left_dice.remove(d)
            state, _ = state.apply(Hold(state.current, tuple(places)))
    except IllegalAction as exc:
        raise UserError(f"{exc.message} (or give the game as --record GAME.json)") from None
    return state


def _hint_target(ruleset: Ruleset, position: Position, target: int, top: int, as_json: bool, start: float) -> int:
    from ..solver.target import advise_target, solve_target

    table = solve_target(ruleset, target)
    advice = advise_target(table, position)
    ms = (time.perf_counter() - start) * 1000
    if as_json:
        print(json.dumps(advice.to_dict()))
        return 0
    dice = " ".join(map(str, position.dice)) or "-"
    how = "" if table.loaded else f", the table solved in {table.seconds:.1f} s"
    print(
        f"dice {dice}, roll {position.roll}; on the sheet {advice.score}; "
        f"chance to reach {target}: {advice.chance:.4f} ({ms:.0f} ms{how})"
    )
    best = advice.best
    if best is None:
        print("roll the dice")
        return 0
    print(f"best: {best.label()}")
    for title, choices in (("keeps", advice.keeps), ("boxes", advice.boxes)):
        if choices:
            print(f"{title}:")
            for c in choices[:top]:
                print(f"  {c.value:8.4f}  {c.label()}")
            if len(choices) > top:
                print(f"  ... {len(choices) - top} more")
    return 0


def _print_advice(advice: Advice, position: Position, top: int, ms: float, strategy: Strategy, out: TextIO) -> None:
    dice = " ".join(map(str, position.dice)) or "-"
    table = "" if strategy.loaded else f", the table solved in {strategy.seconds:.1f} s"
    # an entry that wins at once: the game's result, not a number of points (docs/rules.md §7)
    worth = "wins outright" if advice.best and advice.best.wins else f"expected final score {advice.value:.2f}"
    print(f"dice {dice}, roll {position.roll}; on the sheet {advice.score}; {worth} ({ms:.0f} ms{table})", file=out)
    if advice.best is None:
        print("roll the dice", file=out)
        return
    print(f"best: {advice.best.label()}", file=out)
    for title, choices in (("keeps", advice.keeps), ("boxes", advice.boxes)):
        if choices:
            print(f"{title}:", file=out)
            for c in choices[:top]:
                mark = "  (held now)" if c.current else ""
                print(f"  {_worth(c.value, c.wins, 2)}  {c.label()}{mark}", file=out)
            if len(choices) > top:
                print(f"  ... {len(choices) - top} more", file=out)
    _say_win_points(strategy.ruleset, out)


def _worth(value: float, wins: bool, digits: int) -> str:
    """A choice's value column: an entry that wins at once says so, not the solver's win_points."""
    return f"{'wins':>8}" if wins else f"{value:8.{digits}f}"


def _say_win_points(ruleset: Ruleset, out: TextIO, what: str = "the other values") -> None:
    if ruleset.wins_outright and ruleset.win_points is not None:
        print(f"({what} count an outright win as {ruleset.win_points} points: docs/rulesets.md)", file=out)


# what a measure's figures are, as the command line names them (points: the expected final score)
UNITS = {"match_points": "expected match points", "category_points": "expected category points"}


def _print_coach(advice: CoachAdvice, state: GameState, top: int, ms: float, out: TextIO) -> None:
    p = state.current
    what = "exact" if advice.exact else "estimate (the strong bot's evaluation)"
    unit = UNITS.get(advice.measure, "points")
    dice = " ".join(map(str, state.turns[p].dice)) or "-"
    print(f"{state.players[p]}: dice {dice}, roll {advice.roll}; {what}, in {unit} ({ms:.0f} ms)", file=out)
    if advice.best is None:
        print("nothing to choose", file=out)
        return
    print(f"best: {advice.best.label()}" + _win(advice.best), file=out)
    if advice.best_win is not None:
        print(f"least likely to lose: {advice.best_win.label()}{_win(advice.best_win)}", file=out)
    for title, options in (("keeps", advice.keeps), ("boxes", advice.boxes), ("announce", advice.announces)):
        if options:
            print(f"{title}:", file=out)
            for o in options[:top]:
                print(f"  {_worth(o.value, o.wins, 2)}  -{o.loss:<7.2f} {o.label()}{_win(o)}", file=out)
            if len(options) > top:
                print(f"  ... {len(options) - top} more", file=out)
    if advice.win_note:
        print(f"win chances: {advice.win_note}", file=out)
    if advice.exact:  # the exact solver's values count an outright win as the ruleset's win_points
        _say_win_points(state.rules, out)


def _win(option: Option) -> str:
    """An option's chances: win alone, share the win (tie), lose."""
    if option.win is None or option.tie is None or option.lose is None:  # set together (`chances.py`)
        return ""
    return f"  (win {100 * option.win:.1f}%, tie {100 * option.tie:.1f}%, lose {100 * option.lose:.1f}%)"


def _cmd_review(args: argparse.Namespace) -> int:
    from ..engine import GameRecord, replay
    from .advice import review

    record = GameRecord.loads(read_text(args.record, "game record (JSON)"))
    say_when_compiling()
    result = review(record)
    if args.json:
        print(json.dumps(result.to_dict(len(record.players))))
        return 0
    what = "exact" if result.exact else "estimate (the strong bot's evaluation)"
    unit = UNITS.get(result.measure, "points")
    keeps = "" if result.graded_keeps else "; the record does not say what was held: boxes only"
    print(f"review: {what}, losses in {unit}{keeps}")
    played = replay(record)
    won = played.outright
    if won is not None:  # docs/rules.md §7: the game's result, said as a win
        names = " and ".join(record.players[s] for s in won.seats)
        print(f"won outright: {names}, turn {won.turn}, {won.box}")
    if result.win_points is not None:
        print(f"(the losses count an outright win as {result.win_points} points: docs/rulesets.md)")
    for p, name in enumerate(record.players):
        graded = result.for_player(p)
        accuracy = result.accuracy(p)
        lost = sum(d.loss for d in graded)
        shown = "-" if accuracy is None else f"{accuracy:.2f}"
        if result.at_stake is not None:  # a sum of expected match points lost is no figure of the game
            costliest = f"costliest {result.costliest(p):.2f} of the {result.at_stake:g} at stake"
            print(f"{name}: {len(graded)} decisions, {shown} per decision, {costliest}")
        else:
            print(f"{name}: {len(graded)} decisions, lost {lost:.2f} in all, {shown} per decision")
        for d in result.mistakes(p, args.top):
            print(f"  turn {d.turn}, roll {d.roll}: {d.chosen.label()}, best {d.best.label()} (-{d.loss:.2f})")
    return 0
