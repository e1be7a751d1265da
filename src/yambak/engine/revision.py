"""Corrections for score-keeping: undo the last entries, or change a past one.

Live tables never undo (seed 003: "Es gibt kein UNDO"); a sheet kept for real
dice must, because people mistype. A correction replaces one turn of the record
and re-checks everything after it. Each player's later entries are checked
against that player's corrected sheet, so one mistake is reported once per entry
it breaks, not as a cascade: the result names exactly the entries that became
illegal, and the sheet shown skips them until they are fixed too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from .errors import IllegalAction, RecordError, shown
from .record import GameRecord, parse_turn, play_turn, replay
from .state import GameState, TurnRecord

__all__ = ["Revision", "revise", "undo"]


@dataclass(frozen=True, slots=True)
class Revision:
    record: GameRecord  # the corrected record, broken entries included (they need fixing)
    state: GameState  # the position from every entry that is still legal
    invalid: tuple[RecordError, ...]  # entries the correction made illegal, by 1-based turn

    @property
    def ok(self) -> bool:
        return not self.invalid


def undo(record: GameRecord, count: int = 1) -> GameRecord:
    """The record without its last `count` turns (and without any turn in progress)."""
    if not isinstance(count, int) or count < 1 or count > len(record.turns):
        raise RecordError("record/invalid", f"can undo 1 to {len(record.turns)} entries, not {shown(count)}")
    return replace(record, turns=record.turns[:-count], pending=(), outright=None)


def revise(record: GameRecord, turn_number: int, turn: TurnRecord | Mapping[str, Any]) -> Revision:
    """Replace turn `turn_number` (1-based) and re-check every turn after it.

    The replaced turn itself must be legal where it stands (else `RecordError`,
    nothing changes); later turns that become illegal are reported, not raised.
    """
    if not isinstance(turn_number, int) or not 1 <= turn_number <= len(record.turns):
        raise RecordError("record/invalid", f"there is no entry {shown(turn_number)} to correct")
    old = record.turns[turn_number - 1]
    new = turn if isinstance(turn, TurnRecord) else parse_turn(dict(turn), turn_number)
    new = replace(new, player=old.player if new.player == -1 else new.player)
    if new.player != old.player:
        raise RecordError("illegal/not-your-turn", "a correction keeps the entry's player", turn_number)
    turns = record.turns[: turn_number - 1] + (new,) + record.turns[turn_number:]
    corrected = replace(record, turns=turns, pending=(), outright=None)

    prefix = replay(replace(corrected, turns=turns[: turn_number - 1], rolloffs=()))
    try:
        state = play_turn(prefix, new)
    except IllegalAction as exc:
        raise RecordError(exc.code, exc.message, turn_number) from None

    # Later turns, each against its own player's sheet: any seat may act in this check.
    state = state._replace(simultaneous=True)
    invalid: list[RecordError] = []
    for n in range(turn_number + 1, len(turns) + 1):
        later = turns[n - 1]
        try:
            state = _replay_as(state, corrected.seat(n), later)
        except IllegalAction as exc:
            invalid.append(RecordError(exc.code, exc.message, n))
    if not invalid:
        state = replay(corrected)
    return Revision(corrected, state, tuple(invalid))


def _replay_as(state: GameState, seat: int, turn: TurnRecord) -> GameState:
    """Replay a turn for `seat` whatever the seat order says (used by correction checks)."""
    if not 0 <= seat < len(state.players):
        raise IllegalAction("illegal/no-such-seat", f"there is no seat {seat}")
    view = state._replace(current=seat)
    return play_turn(view, replace(turn, player=seat))._replace(simultaneous=True)
