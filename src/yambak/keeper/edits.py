"""What "the last thing done" on a kept sheet is, and taking it back: the one rule every face uses.

A sheet changes by entries (a turn typed for the player to enter), corrections of an earlier entry and
roll-off rounds. The record keeps the turns and the roll-offs as they are now; a correction leaves no
trace there, so the sheet also keeps its `edits` (docs/rules.md §11), in the order they were made:

- `{"fix": N, "at": T, "was": TURN, "rolloffs": {...}}`: entry N corrected when the sheet had T turns;
  `was` is the entry before the correction and `rolloffs` the roll-offs before it (a correction may
  change the ties and so drop a roll-off);
- `{"rolloff": TARGET, "at": T}`: a roll-off round for TARGET (a column id or "total");
- `{"undone": ACTION, "at": T}`: a note that ACTION (as `last_action` described it) was taken back.

Turns are not listed: a turn is the last thing done when the last correction or roll-off was made on
fewer turns than the sheet has now. Undo takes back exactly the last thing done, whoever did it, and
notes it; the server, the phone's engine under Pyodide and the terminal all call `undo_last`.
Records from before `edits` existed: their roll-off rounds count as made after everything logged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Literal, cast

from ..engine import GameRecord, GameState, RecordError, replay, state_to_record
from ..engine.record import parse_rolloffs, parse_turn, rolloffs_dict, turn_dict
from ..engine.state import Rolloffs
from ..viewtypes import JSONObject, JSONValue, SheetAction

__all__ = ["fix_edit", "last_action", "logged", "undo_last", "undone"]


def _record(state: GameState) -> GameRecord:
    return replace(state_to_record(state), pending=())


def _done(state: GameState) -> list[Mapping[str, JSONValue]]:
    """The corrections and roll-offs still standing (not taken back), in order."""
    return [e for e in state.edits if "undone" not in e]


def _entry(record: GameRecord, kind: Literal["entry", "correction"], n: int) -> SheetAction:
    return {"kind": kind, "n": n, "player": record.seat(n), "turn": record.round(n)}


def last_action(state: GameState) -> SheetAction | None:
    """The last thing done on the sheet, as every face names it: {"kind": "entry" | "correction",
    "n" (the entry's number in the history), "player" (whose entry), "turn" (that player's how-manieth
    turn)} or {"kind": "rolloff", "target"}; None on an empty sheet."""
    record = _record(state)
    turns = len(record.turns)
    done = _done(state)
    last = done[-1] if done else None
    if last is not None and last.get("at") == turns:
        if "fix" in last:
            n = last["fix"]
            if isinstance(n, int) and 1 <= n <= turns:
                return _entry(record, "correction", n)
        elif "rolloff" in last:
            return {"kind": "rolloff", "target": str(last["rolloff"])}
    if record.rolloffs and not any("rolloff" in e for e in done):  # a record from before `edits`
        return {"kind": "rolloff", "target": record.rolloffs[-1][0]}
    if turns:
        return _entry(record, "entry", turns)
    return None


def logged(state: GameState, edit: Mapping[str, JSONValue]) -> GameState:
    """The sheet with one more correction or roll-off in its edits."""
    return state.with_edits((*state.edits, dict(edit)))


def undone(state: GameState) -> list[SheetAction]:
    """The notes of what was taken back, oldest first: each an action as `last_action` named it, and
    `at`, the number of turns the sheet had after taking it back."""
    # each note is a `last_action` as it was logged (keeper/manager.py): a SheetAction read back from the record
    return [
        cast(SheetAction, {**note, "at": e.get("at", 0)})
        for e in state.edits
        if isinstance(note := e.get("undone"), dict)
    ]


def undo_last(state: GameState) -> GameState:
    """The sheet without its last thing done (`last_action`), with a note saying what was taken back.
    Raises RecordError when there is nothing to take back or the edits are not a sheet's own."""
    action = last_action(state)
    if action is None:
        raise RecordError("keeper/nothing-to-undo", "there is nothing to undo")
    record = _record(state)
    edits = list(state.edits)
    standing = [i for i, e in enumerate(edits) if "undone" not in e]
    last = edits[standing[-1]] if standing else None
    from_log = last is not None and last.get("at") == len(record.turns) and action["kind"] != "entry"
    if action["kind"] == "entry":
        record = replace(record, turns=record.turns[:-1], outright=None)  # a replay finds any win again
    elif action["kind"] == "rolloff":
        target = action["target"]
        assert target is not None  # a roll-off's action names its target (`last_action`)
        record = replace(record, rolloffs=_without_round(record, target))
        from_log = from_log and last is not None and "rolloff" in last  # else a round from before `edits`
    else:
        assert last is not None
        record = _before_fix(record, last)
    if from_log:
        del edits[standing[-1]]
    edits.append({"undone": _note(action), "at": len(record.turns)})
    return replay(replace(record, edits=tuple(edits)))


def _note(action: SheetAction) -> JSONObject:
    """A SheetAction as the record's edits keep it (its values are numbers, text or null)."""
    return {key: value for key, value in action.items() if value is None or isinstance(value, str | int)}


def _without_round(record: GameRecord, target: str) -> Rolloffs:
    """The roll-offs without the last round rolled for `target`."""
    out = []
    for t, rounds in record.rolloffs:
        if t == target:
            rounds = rounds[:-1]
        if rounds:
            out.append((t, rounds))
    return tuple(out)


def _before_fix(record: GameRecord, fix: Mapping[str, JSONValue]) -> GameRecord:
    """The record as it was before a correction: the entry it replaced, the roll-offs it dropped."""
    n = fix["fix"]
    try:
        if not isinstance(n, int):  # `last_action` named it a correction of entry n
            raise RecordError("sheet/broken", f"not an entry number: {n!r}")
        was = parse_turn(fix.get("was"), n)
        rolloffs = parse_rolloffs(fix.get("rolloffs"), len(record.players))
    except RecordError:
        raise RecordError("sheet/broken", "this sheet's list of corrections cannot be read") from None
    turns = (*record.turns[: n - 1], was, *record.turns[n:])
    return replace(record, turns=turns, rolloffs=rolloffs, outright=None)


def fix_edit(before: GameState, n: int) -> JSONObject:
    """The edit a correction of entry `n` logs, read from the sheet before it."""
    record = _record(before)
    edit: JSONObject = {"fix": n, "at": len(record.turns), "was": turn_dict(record.turns[n - 1])}
    if record.rolloffs:
        edit["rolloffs"] = rolloffs_dict(record.rolloffs)
    return edit
