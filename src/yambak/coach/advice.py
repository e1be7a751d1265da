"""The coach: one advice for every ruleset, and a review of a finished game.

    advice = advise(state, seat)          # after a roll of that seat
    for option in advice.options:         # keeps, boxes (strikes too), announcements
        option.action, option.value, option.loss, option.win
    state.apply(advice.best.action)       # the engine action that takes the best choice

`advise(state, player)` values every choice of the seat's decision after a roll: each keep
(the dice held for another roll), each legal box (and its strike, where any box may be struck),
each announcement, best first, with what each loses against the best. Every `Option` is the
engine's `action` (`Roll` holding the kept dice, `Score`, `Announce`), so a face shows and takes
it as it is and the review matches decisions by action. Where the exact solver has a table for
the ruleset the values are exact (the optimal strategy's expected final score); elsewhere they
are the strong bot's own evaluation (`bots.expectimax`), labelled as an estimate, in expected
match points at a column-points table with opponents (its tie-break for points left out), in
expected category points where the game is decided by them (`bots/category.py`, solo too: the
hard bot's own values, its pips at `PIPS_WEIGHT` a point included, so its best is the bot's), else
in points. With other seats each option has `win`, the chance to win alone, and `tie`, the chance
to share the win (the loss is the rest; the records count a shared win as won), from distributions
of final results (`chances.py`): exact, and for play to win, in the seat's last turn, where
`best_win` names the choice least likely to lose when it is not `best`. The page's hints,
`yambak hint`, the terminal and the review all read this one function.

`review(record)` replays a game record and grades every decision that had a choice: the box
chosen at the end of each turn (a strike as a strike), each announcement, and, where the record
says what was held (docs/rules.md §11, `held`), every keep; the three biggest losses are the
game's mistakes, and the mean loss over graded decisions its accuracy (0 is perfect play).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ..bots.category import category_terms
from ..bots.evaluate import Model
from ..bots.expectimax import GainFn, Plan, evaluate_choices, follow_values, held_positions, plan_for
from ..bots.match import TIE_BREAK, match_terms
from ..bots.models import model_for
from ..bots.optimal import solvable, strategy_for
from ..engine import Action, Announce, GameRecord, GameState, IllegalAction, RecordError, Roll, Score, new_game, replay
from ..engine.dice import ManualDice
from ..rules import Ruleset, RulesetError, load_ruleset
from ..solver import Position, Strategy
from ..solver import advise as exact_advice
from ..solver import dice as D
from ..solver.advisor import position_of, position_state, turn_table
from ..viewtypes import JSONObject
from . import chances as C

__all__ = ["Advice", "CoachError", "Decision", "Option", "Review", "action_dict", "advise", "measure_of", "review"]

# In match points a decided column still plays for its points: a ten-thousandth of a match point per
# point of estimated total orders such choices without showing up in any figure a player reads.
POINTS_WEIGHT = 1e-4


def measure_of(rules: Ruleset, players: int = 1) -> str:
    """What the coach's values count for these rules at a table of `players`: "category_points" where rows
    earn category points (solo too), "match_points" where columns are won against opponents, else "score"
    (expected points). Grades are of each player's own turns as a solo game: `measure_of(rules)`."""
    if rules.match.kind == "category_points":
        return "category_points"
    if rules.match.kind == "column_points" and players > 1:
        return "match_points"
    return "score"


class CoachError(ValueError):
    """No advice for this position (five of six dice counting, a finished game, no dice yet)."""


def action_dict(action: Action) -> JSONObject:
    """An option's engine action as the table's socket messages spell it (without seat and version)."""
    if isinstance(action, Roll):
        return {"type": "roll", "held": [*(action.held or ())]}
    if isinstance(action, Announce):
        return {"type": "announce", "box": action.box}
    if isinstance(action, Score):
        return {"type": "score", "box": action.box, "strike": action.strike}
    raise TypeError(f"not a coach option's action: {action!r}")


@dataclass(frozen=True)
class Option:
    """One choice of the decision, as the engine action that takes it: hold `keep` and roll
    (`Roll` with the held positions), fill `box` (`Score`, struck when `strike`), or announce `box`."""

    action: Action
    kind: str  # keep | box | announce
    value: float  # expected final score, expected match points or expected category points, after this choice
    loss: float = 0.0  # how much less than the best choice
    keep: tuple[int, ...] | None = None  # a keep: the dice values held
    box: str | None = None
    points: int | None = None  # a box: what it writes now (0 when struck)
    strike: bool = False
    win: float | None = None  # the chance to win alone after this choice (see `chances.py`)
    tie: float | None = None  # the chance to share the win (equal totals, or equal match points and totals)
    # a box that wins the game at once (docs/rules.md §7): every face says so, never its `value` (the
    # solver's worth of a win, `win_points`, which is no score on the sheet)
    wins: bool = False

    @property
    def lose(self) -> float | None:
        """The chance to lose after this choice (None without win chances)."""
        return None if self.win is None or self.tie is None else max(0.0, 1.0 - self.win - self.tie)

    def label(self) -> str:
        if self.kind == "keep":
            return "keep " + (" ".join(map(str, self.keep or ())) or "nothing")
        if self.kind == "announce":
            return f"announce {self.box}"
        won = ", wins outright" if self.wins else ""
        return f"{'strike' if self.strike else 'score'} {self.box} ({self.points}{won})"

    def to_dict(self) -> JSONObject:
        out: JSONObject = {
            "kind": self.kind, "action": action_dict(self.action), "value": round(self.value, 4),
            "loss": round(self.loss, 4),
        }  # fmt: skip
        if self.kind == "keep":
            out["keep"] = [*(self.keep or ())]
        else:
            out["box"] = self.box
        if self.kind == "box":
            out["points"] = self.points
            if self.strike:
                out["strike"] = True
        if self.win is not None:
            out["win"] = round(self.win, 4)
        if self.tie is not None:
            out["tie"] = round(self.tie, 4)
            out["lose"] = round(self.lose or 0.0, 4)
        if self.wins:
            out["wins"] = True
        return out


@dataclass(frozen=True)
class Advice:
    """Every choice of one decision, valued, best first within each kind; `best` over all of them."""

    exact: bool  # from the solver's table (else the strong bot's estimate)
    measure: str  # score | match_points | category_points
    roll: int  # rolls made this turn
    keeps: tuple[Option, ...] = ()
    boxes: tuple[Option, ...] = ()
    announces: tuple[Option, ...] = ()
    best: Option | None = field(default=None)
    win_note: str | None = None  # how the win chances were found (None: no win chance, one seat)
    best_win: Option | None = None  # the seat's last turn: the choice least likely to lose, when not `best`
    dice: tuple[int, ...] = ()  # the dice the advice is about

    @property
    def options(self) -> tuple[Option, ...]:
        return self.keeps + self.boxes + self.announces

    def option_for(self, action: Action) -> Option | None:
        """The option that takes `action` (a keep matched by the dice values it holds, a strike that
        writes what the dice give matched to writing it), or None."""
        if isinstance(action, Roll):
            held = tuple(sorted(self.dice[i] for i in (action.held or ())))
            return next((o for o in self.keeps if o.keep == held), None)
        if isinstance(action, Announce):
            return next((o for o in self.announces if o.box == action.box), None)
        if isinstance(action, Score):
            same = [o for o in self.boxes if o.box == action.box]
            return next((o for o in same if o.strike == action.strike), None) or next(
                (o for o in same if not o.strike and o.points == 0), None
            )
        return None

    def to_dict(self) -> JSONObject:
        return {
            "exact": self.exact,
            "measure": self.measure,
            "roll": self.roll,
            "best": self.best.to_dict() if self.best else None,
            "keeps": [o.to_dict() for o in self.keeps],
            "boxes": [o.to_dict() for o in self.boxes],
            "announces": [o.to_dict() for o in self.announces],
            **({"win_note": self.win_note} if self.win_note else {}),
            **({"best_win": self.best_win.to_dict()} if self.best_win else {}),
        }


def advise(state: GameState, player: int | None = None, wins: bool = True) -> Advice:
    """Every choice of the seat's decision now, valued and ranked (see the module docstring); with
    `wins` (and other seats) each with its chance to win."""
    p = state.current if player is None else player
    turn = state.turns[p]
    if state.finished or state.sheets[p].full:
        raise CoachError("the game is over: nothing left to decide")
    if not turn.rolls:
        raise CoachError("roll the dice first: the coach advises after each roll")
    rules = state.rules
    if rules.rolled_dice != rules.dice:
        raise CoachError("no advice when five of six dice count (six_dice) yet")
    if solvable(rules) and not turn.announced and rules.match.kind != "category_points":  # the table counts pips
        return _exact(state, p, wins and len(state.players) > 1)
    return _estimate(state, p, wins and len(state.players) > 1)


def advice_dict(state: GameState, player: int) -> JSONObject:
    """`advise(state, player).to_dict()`: what a server's coach process computes and sends back."""
    return advise(state, player).to_dict()


# --- the choices and their values --------------------------------------------------------------


def _keep(p: int, dice: tuple[int, ...], keep: tuple[int, ...], value: float) -> Option:
    return Option(Roll(p, held=held_positions(dice, keep)), "keep", value, keep=tuple(keep))


def _box(p: int, box: str, value: float, points: int | None, strike: bool = False) -> Option:
    return Option(Score(p, box, strike=strike), "box", value, box=box, points=0 if strike else points, strike=strike)


def _announce(p: int, box: str, value: float) -> Option:
    return Option(Announce(p, box), "announce", value, box=box)


def _strikable(state: GameState, p: int) -> list[str]:
    """Boxes a strike would fill with less than the dice give (strike_any rulesets)."""
    if not state.rules.strike_any:
        return []
    return [box for box, points in state.preview(p).items() if points > 0]


def _exact(state: GameState, p: int, wins: bool) -> Advice:
    rules = state.rules
    strategy = strategy_for(rules)
    position = position_of(state, p)
    dice = state.turns[p].dice
    advice = exact_advice(strategy, position)
    legal = {rules.box_id(b) for b in state.legal_boxes(p)}
    preview = state.preview(p)
    options = [_keep(p, dice, c.keep or (), c.value) for c in advice.keeps]
    for c in advice.boxes:
        box = rules.box_id(rules.parse_box(c.box or "") or 0)
        if box in legal:
            options.append(_box(p, box, c.value, preview.get(box)))
    for box in _strikable(state, p):
        row = rules.rows[rules.parse_box(box) or 0].id
        struck = Position({**position.filled, row: 0}, extra_bonus=position.extra_bonus)
        options.append(_box(p, box, exact_advice(strategy, struck).value, 0, strike=True))
    note, best_win = None, None
    if wins:
        options, note, best_win = _exact_chances(state, p, strategy, position, options)
    return _finish(True, "score", state, p, options, note, best_win)


def _estimate(state: GameState, p: int, wins: bool) -> Advice:
    rules = state.rules
    model = model_for(rules)
    sheet = state.sheets[p]
    preview = state.preview(p)

    def g(b: int) -> np.ndarray:  # the box's gain in points (the model keeps it per sheet)
        return model.box_gain(sheet, b)

    gain_fn: GainFn | None
    measure = measure_of(rules, len(state.players))
    if measure == "match_points":
        gain_fn, key, now = match_terms(state, p, model)
    elif measure == "category_points":  # the hard bot's own values (`bots/category.py`), solo too
        gain_fn, key, now = category_terms(state, p, model)
    else:
        gain_fn, key = None, None
        base = float(sum(model.column_estimate(sheet, c)[0] for c in range(len(rules.columns))))
        now = base + sheet.extra_bonus + model.offset(sheet.written.count(None) - 1)  # every choice ends in a box
    choices = evaluate_choices(state, p, model, gain_fn, key)
    plan = plan_for(state, p, model, gain_fn, key)  # the same plan, from the model's cache

    def worth(b: int, w: int | np.ndarray) -> float | np.ndarray:
        """What writing w in box b adds: the plan's gain; in match points without the bot's tie-break."""
        gain = plan.values[b][0] if b in plan.values else (gain_fn or g)(b)
        assert gain is not None  # a box of the plan has its gain
        added: float | np.ndarray = gain[w]
        return added + (POINTS_WEIGHT - TIE_BREAK) * g(b)[w] if measure == "match_points" else added

    k = len(state.turns[p].rolls)
    hand = D.lattice(rules.dice).roll_index(state.turns[p].dice)
    keep_values, announce_values = _followed(plan, model, worth, k, hand) if measure == "match_points" else ({}, {})
    dice = state.turns[p].dice
    options: list[Option] = []
    for keep, v in choices.keeps:
        options.append(_keep(p, dice, keep, now + keep_values.get(keep, v)))
    for b, v in choices.boxes:
        box = rules.box_id(b)
        w = preview.get(box, 0)
        options.append(_box(p, box, now + (float(worth(b, w)) if measure == "match_points" else v), w))
    for box in _strikable(state, p):
        options.append(_box(p, box, now + float(worth(rules.parse_box(box) or 0, 0)), 0, strike=True))
    for b, v in choices.announces:
        options.append(_announce(p, rules.box_id(b), now + announce_values.get(b, v)))
    note, best_win = None, None
    # no win chances where category points decide: the model draws final totals (`chances.py`), and a total
    # does not say who wins Balut (a win chance shown would be another game's)
    if wins and measure != "category_points":
        options, note, best_win = _model_chances(state, p, model, plan, options)
    return _finish(False, measure, state, p, options, note, best_win)


def _followed(
    plan: Plan, model: Model, worth: Callable[[int, np.ndarray], float | np.ndarray], k: int, hand: int
) -> tuple[dict[tuple[int, ...], float], dict[int, float]]:
    """The expected `worth` of every keep and announcement when the turn goes on as the plan plays it
    (its own values decide; `worth` is only reported): (keep dice -> value, announced box -> value)."""
    rolls = len(plan.T)
    n = model.table.shape[0]
    L = D.lattice(model.rules.dice)
    last = model.table.shape[1] - 1

    def reported(choice: np.ndarray, m: int) -> np.ndarray:
        out = np.full(L.N_ROLLS, -np.inf)
        for b in np.unique(choice[choice >= 0]):
            at = choice == b
            out[at] = worth(int(b), model.table[b % n, min(m, last)][at])
        return out

    keeps: dict[tuple[int, ...], float] = {}
    if k < rolls:  # a keep after roll k reads the rolls after it only
        later = [reported(plan.choice(m), m) if m > k else np.zeros(L.N_ROLLS) for m in range(1, rolls + 1)]
        _, E = follow_values(plan.T, plan.E, later)
        keeps = {L.MULTISETS[int(i)]: float(E[k][i]) for i in L.SUBKEEPS[hand, : L.N_SUBKEEPS[hand]]}
    announces: dict[int, float] = {}
    for a in plan.announce if k == 1 else ():
        terminal, stages = plan.announced(a, model.table)
        V, _ = follow_values(terminal, stages, [reported(np.full(L.N_ROLLS, a), m) for m in range(1, rolls + 1)])
        announces[a] = float(V[1][hand])
    return keeps, announces


def _wins(state: GameState, p: int, option: Option) -> bool:
    """Whether taking the option wins the game outright: the engine's word (it plays the entry)."""
    if option.kind != "box" or option.strike or not state.rules.wins_outright:
        return False
    after, _ = state.apply(option.action)
    return after.outright is not None and p in after.outright.seats and after.outright != state.outright


def _finish(
    exact: bool,
    measure: str,
    state: GameState,
    p: int,
    options: list[Option],
    note: str | None = None,
    best_win: Option | None = None,
) -> Advice:
    """Best first (a stable sort: sheet order among equals), each with its loss to the best."""
    top = max((o.value for o in options), default=0.0)
    ranked = [
        Option(**{**o.__dict__, "loss": max(0.0, top - o.value), "wins": _wins(state, p, o)})
        for o in sorted(options, key=lambda o: -o.value)
    ]
    best = ranked[0] if ranked else None
    if best_win is not None:
        best_win = next(o for o in ranked if o.action == best_win.action)
    keeps = tuple(o for o in ranked if o.kind == "keep")
    boxes = tuple(o for o in ranked if o.kind == "box")
    announces = tuple(o for o in ranked if o.kind == "announce")
    turn = state.turns[p]
    return Advice(exact, measure, len(turn.rolls), keeps, boxes, announces, best, note, best_win, turn.dice)


# --- the chance to win -------------------------------------------------------------------------

WIN_NOTES = {
    "last": "exact: your last turn played for the win, against the other seats' final totals "
    "(drawn from where they stand when they have not finished)",
    "table": "this turn exactly, the rest of your sheet by simulated optimal play; the other seats' "
    "final totals the same way from where they stand",
    "model": "this turn exactly, every open box drawn from the value model's spread of what it gets written "
    "with; the other seats' final sheets the same way",
}


def _with_wins(
    options: list[Option], chances: list[tuple[float, float]], last: bool
) -> tuple[list[Option], Option | None]:
    """Each option with its chances, given as (P(not losing), P(winning alone)): `win` the second,
    `tie` the difference. In the last turn, the choice least likely to lose when `best` is not."""

    def split(c: tuple[float, float]) -> dict[str, float]:
        safe = min(1.0, max(0.0, c[0]))
        alone = min(safe, max(0.0, c[1]))
        return {"win": alone, "tie": safe - alone}

    out = [Option(**{**o.__dict__, **split(c)}) for o, c in zip(options, chances, strict=True)]
    best_win = None
    if last and out:

        def safe(o: Option) -> tuple[float, float]:
            return (round((o.win or 0.0) + (o.tie or 0.0), 9), o.win or 0.0)

        best = max(out, key=lambda o: o.value)
        top = max(out, key=safe)
        if safe(top)[0] > safe(best)[0] + 1e-9:
            best_win = top
    return out, best_win


def _last_turn(
    state: GameState, p: int, model: Model, rivals: C.Rivals, options: list[Option]
) -> tuple[list[Option], str, Option | None]:
    """The seat's last turn: every option's exact chances, playing for the win (`chances.last_turn`)."""
    rules = state.rules
    turn = C.last_turn(state, p, model, rivals)
    boxes = {rules.box_id(b): v for b, v in turn.boxes.items()}
    announces = {rules.box_id(b): v for b, v in turn.announces.items()}
    chances = []
    for o in options:
        if o.kind == "keep":
            chances.append(turn.keeps[o.keep or ()])
        elif o.kind == "announce":
            chances.append(announces[o.box or ""])
        elif o.strike:
            chances.append(turn.struck(rules.parse_box(o.box or "") or 0))
        else:
            chances.append(boxes[o.box or ""])
    out, best_win = _with_wins(options, chances, True)
    return out, WIN_NOTES["last"], best_win


def _exact_chances(
    state: GameState, p: int, strategy: Strategy, position: Position, options: list[Option]
) -> tuple[list[Option], str, Option | None]:
    rules = state.rules
    model = model_for(rules)
    rivals = C.rivals_of(state, p, model, strategy)
    left = state.sheets[p].written.count(None) - 1
    if left == 0:
        return _last_turn(state, p, model, rivals, options)
    tt = turn_table(strategy, position)
    hand = D.roll_index(position.dice)
    ends = []
    for o in options:
        row = rules.parse_box(o.box or "") or 0
        if o.kind == "keep":
            ends.append(C.table_ends(tt, rules.rolls_per_turn, position.roll, o.keep or ()))
        elif o.strike:
            struck = Position({**position.filled, rules.rows[row].id: 0}, extra_bonus=position.extra_bonus)
            ends.append(C.box_ends(row, 0, o.value, 0, position_state(strategy, struck)[:3]))
        else:
            ends.append(C.table_box(tt, row, hand))
    futures = C.TableFutures(strategy, tt.score, ends, left)
    chances = [(futures.win(e, rivals), futures.win(e, rivals, strict=True)) for e in ends]
    out, best_win = _with_wins(options, chances, False)
    return out, WIN_NOTES["table"], best_win


def _model_chances(
    state: GameState, p: int, model: Model, plan: Plan, options: list[Option]
) -> tuple[list[Option], str, Option | None]:
    rivals = C.rivals_of(state, p, model, None)
    if state.sheets[p].written.count(None) == 1:
        return _last_turn(state, p, model, rivals, options)
    rules = state.rules
    ends = []
    for o in options:
        box = rules.parse_box(o.box) if o.box is not None else None
        if o.kind == "keep":
            ends.append(C.plan_ends(state, p, model, plan, keep=o.keep))
        elif o.kind == "announce":
            ends.append(C.plan_ends(state, p, model, plan, announce=box))
        else:
            ends.append(C.box_ends(box or 0, o.points or 0, o.value))
    finals = C.draws_of(model, state, p).finals(ends)
    safe, alone = rivals.win_drawn(*finals).tolist(), rivals.win_drawn(*finals, strict=True).tolist()
    chances = list(zip(safe, alone, strict=True))
    out, best_win = _with_wins(options, chances, False)
    return out, WIN_NOTES["model"], best_win


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
    round: int = 0  # the player's how-manieth turn (1-based; the record's `round`)

    @property
    def loss(self) -> float:
        return max(0.0, self.best.value - self.chosen.value)

    def to_dict(self) -> JSONObject:
        return {
            "turn": self.turn, "player": self.player, "roll": self.roll, "loss": round(self.loss, 4),
            "chosen": self.chosen.to_dict(), "best": self.best.to_dict(), "options": self.options, "box": self.box,
            "dice": list(self.dice), "round": self.round,
        }  # fmt: skip


@dataclass(frozen=True)
class Review:
    exact: bool
    measure: str
    graded_keeps: bool  # the record said what was held
    decisions: tuple[Decision, ...]
    at_stake: float | None = None  # match points: what the game gives out in all (every column's and the total's)
    # (player, turn) of the turns a stand-in played for the player (the record's `stand_in`): not theirs, not graded
    stand_in: tuple[tuple[int, int], ...] = ()
    # the exact values count an outright win as this many points (docs/rulesets.md), a figure on no sheet:
    # every face says so beside the losses, and words a missed win as such
    win_points: int | None = None

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

    def costliest(self, player: int) -> float:
        """The biggest loss of one decision (0 without decisions): in match points never more than are at
        stake, where the sum of every decision's loss may well be (each is against the best at its own turn)."""
        return max((d.loss for d in self.for_player(player)), default=0.0)

    def to_dict(self, players: int) -> JSONObject:
        return {
            "exact": self.exact,
            "measure": self.measure,
            "graded_keeps": self.graded_keeps,
            **({"at_stake": self.at_stake} if self.at_stake is not None else {}),
            **({"win_points": self.win_points} if self.win_points is not None else {}),
            "players": [
                {
                    "seat": p,
                    "accuracy": None if (a := self.accuracy(p)) is None else round(a, 4),
                    "decisions": [d.to_dict() for d in self.for_player(p)],
                    "mistakes": [d.to_dict() for d in self.mistakes(p)],
                    "lost": round(sum(d.loss for d in self.for_player(p)), 4),
                    "costliest": round(self.costliest(p), 4),
                    "stand_in": [n for q, n in self.stand_in if q == p],  # turns the bot played for them
                }
                for p in range(players)
            ],
        }


def review(record: GameRecord | Mapping[str, object]) -> Review:
    """Grade every decision of a finished (or unfinished) game record; RecordError if it cannot be replayed."""
    if not isinstance(record, GameRecord):
        record = GameRecord.from_dict(record)
    try:
        rules = load_ruleset(record.rules)
    except RulesetError as exc:
        raise RecordError("record/invalid", f"rules: {exc}") from None
    state = new_game(rules, record.players, dice=ManualDice())
    decisions: list[Decision] = []
    kinds: list[tuple[bool, str]] = []
    graded_keeps = any(t.held is not None for t in record.turns)
    by_stand_in = {(seat, rules.parse_box(box)) for seat, box in record.stand_in}
    stood_in: list[tuple[int, int]] = []

    def decide(state: GameState, n: int, p: int, roll: int, chosen: Action, box: str) -> None:
        """Grade `chosen`, taken in `state`, against the coach's best there (not a stand-in's move)."""
        if stood_in and stood_in[-1] == (p, n):
            return
        try:
            advice = advise(state, p, wins=False)
        except CoachError:
            return
        kinds.append((advice.exact, advice.measure))
        option = advice.option_for(chosen)
        if option is not None and advice.best is not None and len(advice.options) > 1:
            decisions.append(
                Decision(n, p, roll, option, advice.best, len(advice.options), box, advice.dice, record.round(n))
            )

    for n, turn in enumerate(record.turns, start=1):
        p = state.current
        if turn.player not in (-1, p):
            raise RecordError("illegal/not-your-turn", f"it is seat {p}'s turn, not seat {turn.player}'s", n)
        if (p, rules.parse_box(turn.box)) in by_stand_in:
            stood_in.append((p, n))
        try:
            box = rules.box_id(rules.parse_box(turn.box) or 0)
            for i, dice in enumerate(turn.rolls):
                if i == 0:
                    state, _ = state.apply(Roll(p, dice=dice))
                else:
                    held = turn.held[i - 1] if turn.held is not None else None
                    positions = held_positions(state.turns[p].dice, tuple(held)) if held is not None else None
                    state, _ = state.apply(Roll(p, held=positions, dice=_arranged(state.turns[p].dice, held, dice)))
                if i == 0 and turn.announce is not None:
                    decide(state, n, p, 1, Announce(p, turn.announce), box)
                    state, _ = state.apply(Announce(p, turn.announce))
                if i == len(turn.rolls) - 1:
                    decide(state, n, p, i + 1, Score(p, box, strike=turn.strike), box)
                elif turn.held is not None:  # the keep, where the record says what was held
                    keep = Roll(p, held=held_positions(state.turns[p].dice, tuple(turn.held[i])))
                    decide(state, n, p, i + 1, keep, box)
            state, _ = state.apply(Score(p, turn.box, strike=turn.strike, use=turn.use))
        except IllegalAction as exc:  # an illegal record: the replay names its first bad turn and why
            replay(record)
            raise RecordError(exc.code, exc.message, n) from None
    exact = bool(kinds) and all(e for e, _ in kinds)
    measure = kinds[0][1] if kinds else "score"
    stake = sum(c.points for c in rules.columns) + rules.match.total_points if measure == "match_points" else None
    win_points = rules.win_points if exact and rules.wins_outright else None
    return Review(exact, measure, graded_keeps, tuple(decisions), stake, tuple(stood_in), win_points)


def _arranged(before: tuple[int, ...], keep: tuple[int, ...] | None, after: tuple[int, ...]) -> tuple[int, ...]:
    """The next roll with the kept dice where they lay (records may list them anywhere)."""
    if keep is None:
        return tuple(after)
    positions = held_positions(before, tuple(keep))
    rest = list(after)
    for v in keep:
        if v in rest:
            rest.remove(v)
    fresh = iter(rest)
    return tuple(before[i] if i in positions else next(fresh, 0) for i in range(len(before)))
