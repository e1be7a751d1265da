"""What a phone shows of a kept sheet, read from the engine: nothing is computed here.

`sheet_view` is the whole sheet (the same dict from the server and from the phone's
own engine); `preview` says what typed dice would do in every open box of the player
to enter, `zero_boxes` where a 0 may go, and `fix_options` where a corrected entry
may go. Each answer plays the entry on the engine (which refuses it or not) and reads the
entry's box from the engine's outlook of the position it was made in (`GameState.box_outlook`):
the value, the gain, the warnings and the joker's extra are the outlook's, never worked out here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, NotRequired, TypedDict

from ..engine import (
    GameState,
    IllegalAction,
    RecordError,
    TurnRecord,
    entry_boxes,
    play_turn,
    replay,
    state_to_record,
    typed_turn,
)
from ..engine.outlook import BoxOutlook
from ..gameview import decided, game_view
from ..viewtypes import HistoryEntry, JSONObject, SheetAction, SheetPlayer, SheetView
from .edits import last_action, undone
from .entries import Refusal, record_dict, rolloffs_due, zero_turn

__all__ = ["decided", "fix_options", "preview", "sheet_view", "zero_boxes"]


def _history(state: GameState) -> list[HistoryEntry]:
    rules = state.rules
    out: list[HistoryEntry] = []
    for n, t in enumerate(state.history, start=1):
        box = rules.parse_box(t.box)
        out.append(
            {
                "n": n,
                "player": t.player,
                # a 0 typed without dice has stand-in dice (docs/decisions.md): none shown
                "dice": None if t.scratch else list(t.rolls[-1]),
                "roll": len(t.rolls),
                "box": t.box,
                "strike": t.strike,
                "scratch": t.scratch,
                "announced": t.announce is not None,  # announced at the table (an announce box after roll 1)
                "written": state.sheets[t.player].written[box] if box is not None else None,
            }
        )
    return out


def sheet_view(state: GameState, *, id: str = "", name: str = "", v: int = 0) -> SheetView:
    """Everything every phone following the sheet shows, read from the engine: the game as every face
    shows it (`yambak.gameview`), with the boxes each player's sheet can take after each roll number
    (before the dice are known), the history of entries, the last thing done (`last`: what undo takes
    back) and what was undone, the record and what decided the end. The join
    code is not in it: it hands out write tokens, and a watcher sees this view too."""
    rules = state.rules
    view = game_view(state, frozenset(range(len(state.players))))
    players: list[SheetPlayer] = []
    for p in view["players"]:
        rolls = range(1, state.rolls_allowed(p["seat"]) + 1)  # saved rolls (Maxi Yatzy) allow more
        fillable = {str(r): [rules.box_id(b) for b in entry_boxes(state, r, p["seat"])] for r in rolls}
        players.append({**p, "fillable": fillable})
    own: _SheetKeys = {
        "players": players,
        "id": id,
        "name": name,
        "v": v,
        "history": _history(state),
        "record": record_dict(state),
        "last": last_action(state),  # what undo takes back, named on its button
        "undone": undone(state),  # what was taken back, for the history
    }
    if state.finished:
        own["rolloff_due"] = rolloffs_due(state)
    return {**view, **own}


class _SheetKeys(TypedDict):
    """What `sheet_view` adds to (or puts in place of) the game view's keys."""

    players: list[SheetPlayer]
    id: str
    name: str
    v: int
    history: list[HistoryEntry]
    record: JSONObject
    last: SheetAction | None
    undone: list[SheetAction]
    rolloff_due: NotRequired[dict[str, list[int]]]


# --- what an entry would do ----------------------------------------------------------------------


def _entry_outlook(state: GameState, turn: TurnRecord) -> BoxOutlook:
    """Plays a typed turn on the engine (raising what it refuses) and reads its box from the engine's
    outlook of the position the entry was made in: the dice on the table, the box not yet written."""
    position = play_turn(state, turn).undo_point
    assert position is not None  # an entry always leaves the position before it, for an undo
    return position.box_outlook(turn.box, state.current)


def _effect(o: BoxOutlook, *, strike: bool = False) -> Effect:
    """An entry as the engine's outlook says it: the value written, the change of the total, and what
    it does to related boxes (a pair zeroed, the entry itself voided), for the dice or struck for 0."""
    if strike:
        out: Effect = {"legal": True, "written": 0, "gain": o.strike_gain}
        zeroes, voids = o.zeroes_pair_at(0), o.voids_entry_at(0)
    else:
        out = {"legal": True, "written": o.written, "gain": o.gain}
        zeroes, voids = o.zeroes_pair, o.voids_entry
    if voids:
        out["voids_entry"] = True
    if zeroes:
        out["zeroes_pair"] = True
    if o.extra_bonus:
        out["extra_bonus"] = o.extra_bonus
    return out


class Effect(TypedDict):
    """What an entry would do in one box (`preview`, `zero_boxes`): legal, with the value written and the
    change of the total, and what the engine's outlook says it does; or refused, with the rule's code."""

    legal: bool
    written: NotRequired[int | None]
    gain: NotRequired[int | None]
    voids_entry: NotRequired[Literal[True]]
    zeroes_pair: NotRequired[Literal[True]]
    extra_bonus: NotRequired[int]
    strike: NotRequired[Literal[True]]
    strike_gain: NotRequired[int | None]
    code: NotRequired[str]


class Preview(TypedDict):
    """Every open box of the player to enter (`seat`), and for `fix_options` the entry corrected."""

    seat: int
    boxes: dict[str, Effect]
    turn: NotRequired[int]


def _open_boxes(state: GameState, p: int) -> list[int]:
    return [b for b, w in enumerate(state.sheets[p].written) if w is None]


def preview(state: GameState, dice: Sequence[int], roll: object = 1) -> Preview:
    """Typed dice (and the roll number) on every open box of the player to enter: what each box
    would write and add (`legal`), or the code of the rule that refuses it."""
    p = state.current
    boxes: dict[str, Effect] = {}
    if state.finished:
        return {"seat": p, "boxes": boxes}
    rules = state.rules
    for b in _open_boxes(state, p):
        box = rules.box_id(b)
        try:
            o = _entry_outlook(state, typed_turn(state, tuple(dice), roll, box))
        except IllegalAction as exc:
            boxes[box] = {"legal": False, "code": exc.code}
            continue
        out = _effect(o)
        if o.strike:  # the engine offers a strike for 0 where the ruleset has one and the dice give something
            out["strike"], out["strike_gain"] = True, o.strike_gain
        boxes[box] = out
    return {"seat": p, "boxes": boxes}


def zero_boxes(state: GameState) -> Preview:
    """Where the player to enter may write a 0 without dice ("just the score"): each such box with
    the change of the total, or the code refusing it."""
    p = state.current
    boxes: dict[str, Effect] = {}
    if state.finished:
        return {"seat": p, "boxes": boxes}
    fillable = {b for r in range(1, state.rules.rolls_per_turn + 1) for b in entry_boxes(state, r, p)}
    for b in _open_boxes(state, p):
        box = state.rules.box_id(b)
        if b not in fillable:
            boxes[box] = {"legal": False, "code": "illegal/box-order"}
            continue
        try:
            turn = zero_turn(state, box)
            o = _entry_outlook(state, turn)
        except IllegalAction as exc:
            boxes[box] = {"legal": False, "code": exc.code}
            continue
        out = _effect(o, strike=turn.strike)
        if turn.strike:
            out["strike"] = True
        boxes[box] = out
    return {"seat": p, "boxes": boxes}


def fix_options(state: GameState, turn: object, dice: Sequence[int] | None, roll: object = 1) -> Preview:
    """The boxes entry `turn` (1-based) could be corrected to: the typed dice (or a 0 without dice)
    on the sheet as it was before that entry. Whether later entries stay legal is checked on saving."""
    record = replace(state_to_record(state), pending=(), rolloffs=())
    if not isinstance(turn, int) or not 1 <= turn <= len(record.turns):
        raise Refusal("keeper/no-entry", f"there is no entry {turn} to correct")
    try:
        before = replay(replace(record, turns=record.turns[: turn - 1], outright=None))
    except RecordError as exc:  # cannot happen for a sheet's own record
        raise Refusal(exc.code, exc.message) from None
    out = zero_boxes(before) if dice is None else preview(before, dice, roll)
    out["turn"] = turn
    return out
