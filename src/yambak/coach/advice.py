"""The coach: one advice for every ruleset, and a review of a finished game.

`advise(state, player)` values every choice of the seat's decision after a roll: each keep
(the dice held for another roll), each legal box, each announcement, best first, with what
each loses against the best. Where the exact solver has a table for the ruleset the values
are exact (the optimal strategy's expected final score); elsewhere they are the strong bot's
own evaluation (`bots.expectimax`), labelled as an estimate, in expected match points at a
column-points table with opponents, else in points. The page's hints, `yambak hint` and the
review all read this one function.

`review(record)` replays a game record and grades every decision that had a choice: the box
chosen at the end of each turn, and, where the record says what was held (RULES.md section
11, `held`), every keep; the three biggest losses are the game's mistakes, and the mean loss
over graded decisions its accuracy (0 is perfect play).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..bots.expectimax import evaluate_choices
from ..bots.match import match_terms, normal_cdf
from ..bots.models import model_for
from ..bots.optimal import solvable, strategy_for
from ..engine import Announce, GameRecord, GameState, IllegalAction, RecordError, Roll, Score, new_game, replay
from ..engine.dice import ManualDice
from ..rules import RulesetError, load_ruleset
from ..solver import Position
from ..solver import advise as exact_advice
from ..solver.advisor import position_of, position_state
from ..solver.simulate import remaining_scores

__all__ = ["Advice", "CoachError", "Decision", "Option", "Review", "advise", "review"]


class CoachError(ValueError):
    """No advice for this position (six dice, a finished game, no dice yet)."""


@dataclass(frozen=True)
class Option:
    """One choice: hold `keep` and roll again, fill `box` (struck when `strike`), or announce `box`."""

    kind: str  # keep | box | announce
    value: float  # expected final score (or match points) after this choice
    loss: float = 0.0  # how much less than the best choice
    keep: tuple[int, ...] | None = None
    box: str | None = None
    points: int | None = None  # a box: what it writes now
    strike: bool = False
    win: float | None = None  # P(my final total beats every opponent's) after this choice (an approximation)

    def label(self) -> str:
        if self.kind == "keep":
            return "keep " + (" ".join(map(str, self.keep or ())) or "nothing")
        if self.kind == "announce":
            return f"announce {self.box}"
        return f"{'strike' if self.strike else 'score'} {self.box} ({self.points})"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "value": round(self.value, 4), "loss": round(self.loss, 4)}
        if self.kind == "keep":
            out["keep"] = list(self.keep or ())
        else:
            out["box"] = self.box
        if self.kind == "box":
            out["points"] = self.points
            if self.strike:
                out["strike"] = True
        if self.win is not None:
            out["win"] = round(self.win, 4)
        return out


@dataclass(frozen=True)
class Advice:
    exact: bool  # from the solver's table (else the strong bot's estimate)
    measure: str  # score | match_points
    roll: int  # rolls made this turn
    keeps: tuple[Option, ...] = ()
    boxes: tuple[Option, ...] = ()
    announces: tuple[Option, ...] = ()
    best: Option | None = field(default=None)
    win_note: str | None = None  # how the options' win chances were estimated (None: no win chance)

    @property
    def options(self) -> tuple[Option, ...]:
        return self.keeps + self.boxes + self.announces

    def to_dict(self) -> dict[str, Any]:
        return {
            "exact": self.exact,
            "measure": self.measure,
            "roll": self.roll,
            "best": self.best.to_dict() if self.best else None,
            "keeps": [o.to_dict() for o in self.keeps],
            "boxes": [o.to_dict() for o in self.boxes],
            "announces": [o.to_dict() for o in self.announces],
            **({"win_note": self.win_note} if self.win_note else {}),
        }


def _ranked(options: list[Option]) -> tuple[Option, ...]:
    """Best first (a stable sort: sheet order among equals), each with its loss to the best."""
    if not options:
        return ()
    best = max(o.value for o in options)
    ordered = sorted(options, key=lambda o: -o.value)
    return tuple(Option(**{**o.__dict__, "loss": max(0.0, best - o.value)}) for o in ordered)


def _finish(
    exact: bool, measure: str, roll: int, options: list[Option], state: GameState | None = None, p: int = 0
) -> Advice:
    note = None
    if state is not None and measure == "score" and len(state.players) > 1:
        options, note = _with_win_chances(state, p, options, exact)
    ranked = _ranked(options)
    top = ranked[0] if ranked else None
    keeps = tuple(o for o in ranked if o.kind == "keep")
    boxes = tuple(o for o in ranked if o.kind == "box")
    announces = tuple(o for o in ranked if o.kind == "announce")
    return Advice(exact, measure, roll, keeps, boxes, announces, top, note)


# --- the chance to win -------------------------------------------------------------------------

WIN_NOTE_EXACT = (
    "approximation: each opponent's final total drawn from 1000 games of optimal play from where they stand, "
    "yours normal around each choice's expected final score with the value model's spread, all independent"
)
WIN_NOTE_MODEL = (
    "approximation: every final total normal around the strong bot's estimate with the value model's spread "
    "of the boxes still open, all independent"
)
_OPPONENTS: dict[Any, np.ndarray] = {}


def _opponent_finals(state: GameState, o: int, exact: bool) -> tuple[np.ndarray | None, float, float]:
    """(sampled final totals or None, mean, variance) of seat o's final total."""
    rules = state.rules
    sheet = state.sheets[o]
    if sheet.full:
        return None, float(state.total(o)), 0.0
    model = model_for(rules)
    if exact:
        key = (model.fingerprint, sheet.written, sheet.extra_bonus)
        finals = _OPPONENTS.get(key)
        if finals is None:
            strategy = strategy_for(rules)
            filled = {rules.rows[i].id: int(v) for i, v in enumerate(sheet.written) if v is not None}
            boxes, upper, yam, score = position_state(strategy, Position(filled, extra_bonus=sheet.extra_bonus))
            finals = score + remaining_scores(strategy, boxes, upper, yam, 1000, seed=hash(key) & 0xFFFF)
            if len(_OPPONENTS) > 256:
                _OPPONENTS.clear()
            _OPPONENTS[key] = finals
        return finals, float(finals.mean()), float(finals.var())
    mean = model.value(sheet)
    var = sum(model.column_estimate(sheet, c)[1] for c in range(len(rules.columns)))
    return None, float(mean), float(var)


def _with_win_chances(state: GameState, p: int, options: list[Option], exact: bool) -> tuple[list[Option], str]:
    """Each option with P(my final total > every opponent's), the finals independent (see WIN_NOTE_*)."""
    rules = state.rules
    model = model_for(rules)
    sheet = state.sheets[p]
    n = rules.n_rows
    open_var = {b: float(model.var[b // n, b % n]) for b, v in enumerate(sheet.written) if v is None}
    total_var = sum(open_var.values())
    opponents = [_opponent_finals(state, o, exact) for o in range(len(state.players)) if o != p]
    out = []
    for opt in options:
        var = total_var
        if opt.kind == "box" and opt.box is not None:
            box = rules.parse_box(opt.box)
            var -= open_var.get(box if box is not None else -1, 0.0)
        sd = math.sqrt(max(var, 0.0) + 1.0)  # + 1: the final total is a whole number
        win = 1.0
        for finals, mean, o_var in opponents:
            if finals is not None:
                win *= float(normal_cdf((opt.value - finals - 0.5) / sd).mean())
            else:
                win *= float(normal_cdf((opt.value - mean - 0.5) / math.sqrt(sd * sd + o_var)))
        out.append(Option(**{**opt.__dict__, "win": win}))
    return out, WIN_NOTE_EXACT if exact else WIN_NOTE_MODEL


def advise(state: GameState, player: int | None = None) -> Advice:
    """Every choice of the seat's decision now, valued and ranked (see the module docstring)."""
    p = state.current if player is None else player
    turn = state.turns[p]
    if state.finished or state.sheets[p].full:
        raise CoachError("the game is over: nothing left to decide")
    if not turn.rolls:
        raise CoachError("roll the dice first: the coach advises after each roll")
    rules = state.rules
    if rules.rolled_dice != 5:
        raise CoachError("no advice with six dice yet")
    legal = {rules.box_id(b) for b in state.legal_boxes(p)}
    preview = state.preview(p)
    if solvable(rules) and not turn.announced:
        return _exact(state, p, legal, preview)
    return _estimate(state, p, preview)


def _exact(state: GameState, p: int, legal: set[str], preview: dict[str, int]) -> Advice:
    rules = state.rules
    advice = exact_advice(strategy_for(rules), position_of(state, p))
    options: list[Option] = []
    for c in advice.keeps:
        options.append(Option("keep", c.value, keep=tuple(c.keep or ())))
    for c in advice.boxes:
        box = rules.box_id(rules.parse_box(c.box or "") or 0)
        if box not in legal:
            continue
        strike = c.points == 0 and state.outlook(p).box(box).strike  # a 0 the dice need not give
        options.append(Option("box", c.value, box=box, points=0 if strike else preview.get(box), strike=strike))
    return _finish(True, "score", len(state.turns[p].rolls), options, state, p)


def _estimate(state: GameState, p: int, preview: dict[str, int]) -> Advice:
    rules = state.rules
    model = model_for(rules)
    if rules.match.kind == "column_points" and len(state.players) > 1:
        gain_fn, key, base = match_terms(state, p, model)
        measure = "match_points"
    else:
        gain_fn, key = None, None
        sheet = state.sheets[p]
        base = float(sum(model.column_estimate(sheet, c)[0] for c in range(len(rules.columns))))
        base += sheet.extra_bonus + model.offset(sheet.written.count(None) - 1)  # every choice ends the turn in a box
        measure = "score"
    choices = evaluate_choices(state, p, model, gain_fn, key)
    options = [Option("keep", base + v, keep=tuple(k)) for k, v in choices.keeps]
    options += [
        Option("box", base + v, box=rules.box_id(b), points=preview.get(rules.box_id(b))) for b, v in choices.boxes
    ]
    options += [Option("announce", base + v, box=rules.box_id(b)) for b, v in choices.announces]
    return _finish(False, measure, len(state.turns[p].rolls), options, state, p)


# --- the review of a finished game -------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    turn: int  # 1-based in the record's turn list
    player: int
    roll: int  # rolls made when the decision was taken
    chosen: Option
    best: Option
    options: int  # how many choices there were
    box: str  # the box the turn ended in (where a mistake shows on the sheet)
    dice: tuple[int, ...] = ()  # the dice the decision was taken on

    @property
    def loss(self) -> float:
        return max(0.0, self.best.value - self.chosen.value)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn": self.turn, "player": self.player, "roll": self.roll, "loss": round(self.loss, 4),
            "chosen": self.chosen.to_dict(), "best": self.best.to_dict(), "options": self.options, "box": self.box,
            "dice": list(self.dice),
        }  # fmt: skip


@dataclass(frozen=True)
class Review:
    exact: bool
    measure: str
    graded_keeps: bool  # the record said what was held
    decisions: tuple[Decision, ...]

    def for_player(self, player: int) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.player == player)

    def accuracy(self, player: int) -> float | None:
        """Mean loss per decision that had a choice (0 is perfect play); None without decisions."""
        graded = self.for_player(player)
        return sum(d.loss for d in graded) / len(graded) if graded else None

    def mistakes(self, player: int, n: int = 3) -> tuple[Decision, ...]:
        """The n biggest losses (none when every decision was the best)."""
        worst = sorted(self.for_player(player), key=lambda d: -d.loss)
        return tuple(d for d in worst[:n] if d.loss > 1e-9)

    def to_dict(self, players: int) -> dict[str, Any]:
        return {
            "exact": self.exact,
            "measure": self.measure,
            "graded_keeps": self.graded_keeps,
            "players": [
                {
                    "seat": p,
                    "accuracy": None if (a := self.accuracy(p)) is None else round(a, 4),
                    "decisions": [d.to_dict() for d in self.for_player(p)],
                    "mistakes": [d.to_dict() for d in self.mistakes(p)],
                    "lost": round(sum(d.loss for d in self.for_player(p)), 4),
                }
                for p in range(players)
            ],
        }


def review(record: GameRecord | dict[str, Any]) -> Review:
    """Grade every decision of a finished (or unfinished) game record; RecordError if it cannot be replayed."""
    if not isinstance(record, GameRecord):
        record = GameRecord.from_dict(record)
    try:
        rules = load_ruleset(record.rules)
    except RulesetError as exc:
        raise RecordError("record/invalid", f"rules: {exc}") from None
    state = new_game(rules, record.players, dice=ManualDice())
    decisions: list[Decision] = []
    exact = measure = None
    graded_keeps = any(t.held is not None for t in record.turns)
    for n, turn in enumerate(record.turns, start=1):
        p = state.current
        if turn.player not in (-1, p):
            raise RecordError("illegal/not-your-turn", f"it is seat {p}'s turn, not seat {turn.player}'s", n)
        try:
            for i, dice in enumerate(turn.rolls):
                if i == 0:
                    state, _ = state.apply(Roll(p, dice=dice))
                else:
                    held = turn.held[i - 1] if turn.held is not None else None
                    positions = _positions(state.turns[p].dice, held) if held is not None else None
                    state, _ = state.apply(Roll(p, held=positions, dice=_arranged(state.turns[p].dice, held, dice)))
                last = i == len(turn.rolls) - 1
                if i == 0 and turn.announce is not None and not last:
                    advice = _advice_or_none(state, p)
                    state, _ = state.apply(Announce(p, turn.announce))
                    if advice is not None:
                        chosen = _find(advice, "announce", box=turn.announce)
                        _grade(decisions, advice, chosen, n, p, 1, turn.box, state.turns[p].dice)
                    continue
                if i == 0 and turn.announce is not None and last:
                    state, _ = state.apply(Announce(p, turn.announce))
                advice = _advice_or_none(state, p)
                if advice is not None:
                    exact = advice.exact if exact is None else exact and advice.exact
                    measure = measure or advice.measure
                    if last:
                        chosen = _find(
                            advice, "box", box=rules.box_id(rules.parse_box(turn.box) or 0), strike=turn.strike
                        )
                    elif turn.held is not None:
                        chosen = _find(advice, "keep", keep=tuple(sorted(turn.held[i])))
                    else:
                        chosen = None  # a keep the record does not say
                    _grade(decisions, advice, chosen, n, p, i + 1, turn.box, state.turns[p].dice)
            state, _ = state.apply(Score(p, turn.box, strike=turn.strike, use=turn.use))
        except IllegalAction as exc:  # an illegal record: the replay names its first bad turn and why
            replay(record)
            raise RecordError(exc.code, exc.message, n) from None
    return Review(bool(exact), measure or "score", graded_keeps, tuple(decisions))


def _advice_or_none(state: GameState, p: int) -> Advice | None:
    try:
        return advise(state, p)
    except CoachError:
        return None


def _find(
    advice: Advice, kind: str, box: str | None = None, keep: tuple[int, ...] | None = None, strike: bool = False
) -> Option | None:
    for o in advice.options:
        if o.kind != kind:
            continue
        if kind == "keep" and o.keep == keep:
            return o
        if kind == "announce" and o.box == box:
            return o
        if kind == "box" and o.box == box:
            return o
    return None


def _grade(
    out: list[Decision],
    advice: Advice,
    chosen: Option | None,
    n: int,
    p: int,
    roll: int,
    box: str,
    dice: tuple[int, ...],
) -> None:
    if chosen is None or advice.best is None or len(advice.options) < 2:
        return  # no choice to grade
    out.append(Decision(n, p, roll, chosen, advice.best, len(advice.options), box, tuple(dice)))


def _positions(dice: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
    rest = Counter(keep)
    out = []
    for i, d in enumerate(dice):
        if rest[d] > 0:
            out.append(i)
            rest[d] -= 1
    return tuple(out)


def _arranged(before: tuple[int, ...], keep: tuple[int, ...] | None, after: tuple[int, ...]) -> tuple[int, ...]:
    """The next roll with the kept dice where they lay (records may list them anywhere)."""
    if keep is None:
        return tuple(after)
    positions = _positions(before, keep)
    rest = list(after)
    for v in keep:
        if v in rest:
            rest.remove(v)
    fresh = iter(rest)
    return tuple(before[i] if i in positions else next(fresh, 0) for i in range(len(before)))
