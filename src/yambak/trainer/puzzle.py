"""A trainer's position (`Puzzle`): one decision of a solitaire game, every choice valued by the coach.

A puzzle is immutable and serialisable: the ruleset (preset id, or the record's rules object with its
options), the game so far as a game record's JSON text (completed turns and the turn in progress, so the
engine rebuilds the exact state, saved rolls and joker bonuses included), and, read from that state, the
sheet filled so far, the dice, the roll number, the held dice and the announcement. Its options are the
coach's (`coach.advice.advise`, the function the web hints and `yambak hint` read): exact from the
solver's table on one-column rulesets, the strong bot's estimate elsewhere (`exact` says which).

A player answers with a `Choice` (a keep by the dice values held, a box, struck or not, or an
announcement); `grade` gives its loss against the best choice, whether that solves the puzzle (a loss of
at most `SOLVED_WITHIN`), and the three best choices with what each loses.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NotRequired, TypedDict

from ..coach.advice import Advice, Option
from ..engine import GameRecord, GameState, replay, state_to_record
from ..rules import Ruleset, RulesetError, load_ruleset
from ..viewtypes import JSONObject, JSONValue

__all__ = [
    "SOLVED_WITHIN",
    "Choice",
    "Grade",
    "Puzzle",
    "PuzzleOption",
    "TrainerError",
    "grade",
    "puzzle_of",
    "ruleset_of",
    "state_of",
]

SOLVED_WITHIN = 0.1  # expected points: an answer losing at most this much solves the puzzle
KINDS = ("keep", "box", "announce")
KEYS = {"keep": {"kind", "keep"}, "box": {"kind", "box", "strike"}, "announce": {"kind", "box"}}


class TrainerError(ValueError):
    """A refused answer or position, with a stable code (the server sends it as it is)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


@dataclass(frozen=True)
class Choice:
    """What a player chooses: hold `keep` (dice values) and roll, fill `box` (struck when `strike`), or
    announce `box`."""

    kind: str
    keep: tuple[int, ...] = ()
    box: str | None = None
    strike: bool = False

    @classmethod
    def from_dict(cls, data: object) -> Choice:
        """A choice from JSON (`{"kind": "keep", "keep": [6, 6]}`, `{"kind": "box", "box": "yam"}`, ...);
        TrainerError naming what is wrong."""
        if not isinstance(data, Mapping):
            raise TrainerError("train/choice", "a choice is an object with a kind: keep, box or announce")
        kind = data.get("kind")
        if kind not in KINDS:
            raise TrainerError("train/choice", "a choice's kind is keep, box or announce")
        allowed = KEYS[kind]
        if set(data) - allowed:
            raise TrainerError("train/choice", f"unknown key in a {kind} choice: {sorted(set(data) - allowed)[0]!r}")
        if kind == "keep":
            keep = data.get("keep", [])
            if not isinstance(keep, list) or len(keep) > 6 or not all(_die(d) for d in keep):
                raise TrainerError("train/choice", "a keep lists the dice values held (1 to 6), at most six")
            return cls("keep", tuple(sorted(keep)))
        box = data.get("box")
        if not isinstance(box, str) or not 0 < len(box) <= 40:
            raise TrainerError("train/choice", f"a {kind} choice names its box")
        strike = data.get("strike", False)
        if not isinstance(strike, bool):
            raise TrainerError("train/choice", "strike is true or false")
        return cls(kind, (), box, strike)

    def to_dict(self) -> JSONObject:
        if self.kind == "keep":
            return {"kind": "keep", "keep": [*self.keep]}
        out: JSONObject = {"kind": self.kind, "box": self.box}
        if self.strike:
            out["strike"] = True
        return out


def _die(d: object) -> bool:
    return isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6


@dataclass(frozen=True)
class PuzzleOption:
    """One choice of the puzzle with the coach's value (expected final score, or match points) and loss."""

    choice: Choice
    label: str
    value: float
    loss: float
    points: int | None = None  # a box: what it writes now

    def to_dict(self, values: bool = True, digits: int | None = None) -> JSONObject:
        """As JSON; with `values` its value and loss (rounded to `digits` for a player, else exact)."""
        out: JSONObject = {**self.choice.to_dict(), "label": self.label}
        if self.points is not None:
            out["points"] = self.points
        if values:
            out["value"] = self.value if digits is None else round(self.value, digits)
            out["loss"] = self.loss if digits is None else round(self.loss, digits)
        return out

    @classmethod
    def of(cls, option: Option) -> PuzzleOption:
        if option.kind == "keep":
            choice = Choice("keep", tuple(sorted(option.keep or ())))
        else:
            choice = Choice(option.kind, (), option.box, option.strike)
        points = option.points if option.kind == "box" else None
        return cls(choice, option.label(), option.value, option.loss, points)


@dataclass(frozen=True)
class Puzzle:
    """A position to solve (see the module docstring); `options` best first, as the coach ranks them."""

    id: str
    preset: str  # the pool it was drawn for
    rules: JSONValue  # a preset id or the record's rules object (preset and options)
    record: str  # the game so far: a game record's JSON text, the turn in progress as its `pending`
    filled: tuple[tuple[str, int], ...]  # (box id, value written) in sheet order
    score: int  # the total on the sheet now
    dice: tuple[int, ...]
    roll: int  # rolls made this turn
    held: tuple[int, ...]  # the dice values held now
    announced: str | None
    exact: bool  # values from the solver's table (else the strong bot's estimate)
    measure: str  # score | match_points
    options: tuple[PuzzleOption, ...]
    obvious: Choice  # the medium (greedy) bot's choice
    obvious_loss: float

    def option_for(self, choice: Choice) -> PuzzleOption | None:
        """The option a choice takes (a strike of a box the dice score 0 in matched to writing the 0)."""
        same = [o for o in self.options if o.choice.kind == choice.kind]
        if choice.kind == "keep":
            return next((o for o in same if o.choice.keep == choice.keep), None)
        box = _box_id(self.rules, choice.box or "")
        if choice.kind == "announce":
            return next((o for o in same if o.choice.box == box), None)
        boxes = [o for o in same if o.choice.box == box]
        return next((o for o in boxes if o.choice.strike == choice.strike), None) or (
            next((o for o in boxes if not o.choice.strike and o.points == 0), None) if choice.strike else None
        )

    @property
    def best(self) -> PuzzleOption:
        return self.options[0]

    def to_dict(self, reveal: bool = True) -> JSONObject:
        """The puzzle as JSON; without `reveal`, what a player sees before answering: the choices in
        sheet order, without their values (nor the obvious choice)."""
        out: JSONObject = {
            "id": self.id,
            "preset": self.preset,
            "rules": self.rules,
            "filled": [[box, value] for box, value in self.filled],
            "score": self.score,
            "dice": [*self.dice],
            "roll": self.roll,
            "held": [*self.held],
            "announced": self.announced,
            "exact": self.exact,
            "measure": self.measure,
        }
        if reveal:
            out["record"] = self.record
            out["options"] = [o.to_dict() for o in self.options]
            out["obvious"] = {**self.obvious.to_dict(), "loss": self.obvious_loss}
        else:
            out["choices"] = [o.to_dict(values=False) for o in sorted(self.options, key=_shown_order)]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Puzzle:
        """A puzzle from `to_dict()` (revealed); its state is rebuilt from the record when asked."""
        options = tuple(
            PuzzleOption(
                Choice.from_dict({k: o[k] for k in ("kind", "keep", "box", "strike") if k in o}),
                o["label"], float(o["value"]), float(o["loss"]), o.get("points"),
            )
            for o in data["options"]
        )  # fmt: skip
        obvious = Choice.from_dict({k: v for k, v in data["obvious"].items() if k != "loss"})
        return cls(
            data["id"], data["preset"], data["rules"], data["record"],
            tuple((str(b), int(v)) for b, v in data["filled"]), int(data["score"]), tuple(data["dice"]),
            int(data["roll"]), tuple(data["held"]), data["announced"], bool(data["exact"]), data["measure"],
            options, obvious, float(data["obvious"]["loss"]),
        )  # fmt: skip


def _shown_order(o: PuzzleOption) -> tuple[int, int, tuple[int, ...], str, bool]:
    c = o.choice
    return (KINDS.index(c.kind), len(c.keep), c.keep, c.box or "", c.strike)


@lru_cache(maxsize=64)
def _rules(spec: str) -> Ruleset:
    return load_ruleset(json.loads(spec))


def ruleset_of(puzzle: Puzzle) -> Ruleset:
    """The puzzle's ruleset, loaded once per process."""
    return _rules(json.dumps(puzzle.rules, sort_keys=True))


def _box_id(rules: JSONValue, box: str) -> str:
    """A box as the coach names it (`rules.box_id`), however the player typed it; as given if unknown."""
    try:
        ruleset = _rules(json.dumps(rules, sort_keys=True))
    except RulesetError:
        return box
    index = ruleset.parse_box(box)
    return ruleset.box_id(index) if index is not None else box


def puzzle_of(state: GameState, advice: Advice, obvious: Option, preset: str) -> Puzzle:
    """The puzzle of seat 0's decision in `state`, valued by `advice` (the coach's, of this state),
    `obvious` being the greedy bot's option there."""
    record = state_to_record(state)
    record = GameRecord(record.rules, ("you",), record.turns, None, (), record.pending)
    text = json.dumps(record.to_dict(), sort_keys=True, separators=(",", ":"))
    rules = state.rules
    sheet = state.sheets[0]
    turn = state.turns[0]
    filled = tuple((rules.box_id(i), w) for i, w in enumerate(sheet.written) if w is not None)
    options = tuple(PuzzleOption.of(o) for o in sorted(advice.options, key=lambda o: o.loss))
    chosen = PuzzleOption.of(obvious).choice
    return Puzzle(
        id=hashlib.sha256(f"{preset}\n{text}".encode()).hexdigest()[:16],
        preset=preset,
        rules=record.rules,
        record=text,
        filled=filled,
        score=state.total(0),
        dice=tuple(turn.dice),
        roll=len(turn.rolls),
        held=tuple(sorted(turn.dice[i] for i in turn.held)),
        announced=rules.box_id(turn.announced) if turn.announced is not None else None,
        exact=advice.exact,
        measure=advice.measure,
        options=options,
        obvious=chosen,
        obvious_loss=obvious.loss,
    )


def state_of(puzzle: Puzzle) -> GameState:
    """The engine's state of the puzzle's position (seat 0 to decide)."""
    return replay(GameRecord.from_dict(json.loads(puzzle.record)))


class RowOdds(TypedDict):
    """A row's chance by the end of the turn, or a sum row's expected best sum (`trainer.odds.keep_odds`)."""

    row: str
    chance: NotRequired[float]
    expected_sum: NotRequired[float]


class KeepOdds(TypedDict):
    keep: list[int]
    rolls_left: int
    rows: list[RowOdds]


Odds = Callable[[Puzzle, PuzzleOption], KeepOdds | None]


@dataclass(frozen=True)
class Grade:
    """What an answer did: its option and loss, whether it solves the puzzle, the three best choices."""

    puzzle: Puzzle
    chosen: PuzzleOption
    loss: float
    solved: bool
    top: tuple[PuzzleOption, ...]
    # what `grade`'s `odds` hook computed for the chosen and the best choices (None: no hook)
    odds: dict[str, KeepOdds | None] | None = None

    def to_dict(self) -> dict[str, object]:
        """As JSON; where the hook was given, each option shown carries its odds too (`"odds"`)."""

        def shown(o: PuzzleOption) -> dict[str, object]:
            out: dict[str, object] = {**o.to_dict(digits=4)}
            if self.odds is not None:
                out["odds"] = self.odds.get(o.label)
            return out

        return {
            "position": self.puzzle.id,
            "chosen": shown(self.chosen),
            "loss": round(self.loss, 4),
            "solved": self.solved,
            "best": [shown(o) for o in self.top],
            "exact": self.puzzle.exact,
            "measure": self.puzzle.measure,
            "obvious": {**self.puzzle.obvious.to_dict(), "loss": round(self.puzzle.obvious_loss, 4)},
            "odds": self.odds,
        }


def grade(puzzle: Puzzle, choice: Choice | Mapping[str, object], odds: Odds | None = None) -> Grade:
    """Grade a player's choice; TrainerError when it is not one of the puzzle's choices. `odds`, when
    given, is asked for the chances behind each of the options shown (the strategy pages' computation)."""
    if not isinstance(choice, Choice):
        choice = Choice.from_dict(choice)
    option = puzzle.option_for(choice)
    if option is None:
        raise TrainerError("train/not-a-choice", f"not a choice in this position: {choice.to_dict()}")
    top = puzzle.options[:3]
    found = None
    if odds is not None:
        shown = [option, *(o for o in top if o is not option)]
        found = {o.label: odds(puzzle, o) for o in shown}
    return Grade(puzzle, option, option.loss, option.loss <= SOLVED_WITHIN, top, found)
