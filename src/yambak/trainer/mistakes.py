"""Trainer positions from players' own mistakes: a stored graded decision (its game's record, the seat, the
turn and roll) rebuilt as a position and graded afresh by the coach, so its options' values are the
coach's, exactly as a seeded pool's are.

The position is the seat's own turns as a solo game (as the grader graded it), the player named "you":
no name, no profile, no table id enters it. Its `obvious` choice is the choice the player made (the
mistake), where a seeded pool's is the greedy bot's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from ..bots.expectimax import held_positions
from ..coach.advice import CoachError, advise
from ..engine import Action, Announce, GameRecord, IllegalAction, RecordError, Roll, Score, replay, state_to_record
from ..viewtypes import JSONObject
from .pool import THRESHOLD
from .puzzle import Puzzle, puzzle_of

__all__ = ["Mistake", "merge_pools", "puzzle_of_mistake", "puzzles_of_mistakes"]


@dataclass(frozen=True)
class Mistake:
    """Where a stored decision was taken: a finished game's record, the seat, its own turn (1-based) and
    the rolls made; `kind` the choice made (keep, box, strike, announce)."""

    record: Mapping[str, object]
    seat: int
    turn: int
    roll: int
    kind: str


def puzzle_of_mistake(mistake: Mistake, preset: str, threshold: float = THRESHOLD) -> Puzzle | None:
    """The position of a stored decision, re-graded by the coach; None where the record does not rebuild
    it (a keep the record does not hold) or where the choice made loses less than `threshold` now."""
    try:
        full = state_to_record(replay(dict(mistake.record)))
    except (RecordError, IllegalAction, ValueError, KeyError, TypeError):
        return None
    turns = [t for t in full.turns if t.player == mistake.seat]
    if not 1 <= mistake.turn <= len(turns):
        return None
    turn = turns[mistake.turn - 1]
    roll = mistake.roll
    keep_unknown = mistake.kind == "keep" and (turn.held is None or roll >= len(turn.rolls))
    if not 1 <= roll <= len(turn.rolls) or keep_unknown:
        return None
    pending: JSONObject = {"player": 0, "rolls": [[*d] for d in turn.rolls[:roll]]}
    if turn.held is not None and roll > 1:
        pending["kept"] = [[*sorted(k)] for k in turn.held[: roll - 1]]
    if turn.announce is not None and mistake.kind != "announce":
        pending["announce"] = turn.announce
    done = tuple(replace(t, player=0) for t in turns[: mistake.turn - 1])
    solo = GameRecord(full.rules, ("you",), done, None, (), (pending,))
    try:
        state = replay(solo)
        advice = advise(state, 0, wins=False)
    except (RecordError, IllegalAction, CoachError):
        return None
    chosen: Action
    if mistake.kind == "keep":
        assert turn.held is not None
        chosen = Roll(0, held=held_positions(state.turns[0].dice, tuple(turn.held[roll - 1])))
    elif mistake.kind == "announce":
        if turn.announce is None:
            return None
        chosen = Announce(0, turn.announce)
    else:
        chosen = Score(0, turn.box, strike=turn.strike)
    option = advice.option_for(chosen)
    if option is None or len(advice.options) < 2 or option.loss < threshold:
        return None
    return puzzle_of(state, advice, option, preset)


def puzzles_of_mistakes(mistakes: Iterable[Mistake], preset: str, threshold: float = THRESHOLD) -> tuple[Puzzle, ...]:
    """The positions of stored decisions, in the order given, each once (runs in the coach's process)."""
    out: dict[str, Puzzle] = {}
    for m in mistakes:
        puzzle = puzzle_of_mistake(m, preset, threshold)
        if puzzle is not None:
            out.setdefault(puzzle.id, puzzle)
    return tuple(out.values())


def merge_pools(seeded: tuple[Puzzle, ...], more: Iterable[Puzzle]) -> tuple[Puzzle, ...]:
    """The seeded pool, then the positions of `more` it does not have already (by id: the same game so far)."""
    seen = {p.id for p in seeded}
    extra = []
    for p in more:
        if p.id not in seen:
            seen.add(p.id)
            extra.append(p)
    return (*seeded, *extra)
