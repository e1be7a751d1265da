"""Entries on a kept sheet: what one typed entry does to the game, or why it is refused.

An entry is a plain dict (the server validates its shape first with a strict schema;
the phone builds it itself):

- `dice`: the final dice typed on the pad, the roll number they came on and the box
  (`seat`: the player entered for; `filled`: how many boxes that player had filled
  when the entry was made, so that an entry can never land on a later turn);
- `scratch`: a 0 in `box` without dice (a strike where the rules allow any box to be
  struck and no dice score 0 there);
- `undo`: take back the last `count` things done, entries, corrections or roll-off rounds alike
  (`edits.last_action`: whatever was done last, whoever did it);
- `fix`: replace entry `turn` (dice + roll + box, or a 0; or `rolls`, every roll of the
  turn, where a face knows them) when every later entry stays legal;
- `rolloff`: the dice each tied player rolled (`Ruleset.rolloff_dice` of them) for
  `target` (a column id or "total") after the end (docs/rules.md §7, `ties = rolloff`).

Every refusal is a `Refusal` with a stable code; nothing here computes a score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TypeGuard

from ..engine import (
    GameRecord,
    GameState,
    IllegalAction,
    ManualDice,
    RecordError,
    TurnRecord,
    new_game,
    play_turn,
    replay,
    revise,
    scratch_turn,
    state_to_record,
    typed_turn,
)
from ..engine.state import Rolloffs
from ..names import NAME_MAX, InvalidName, normalize_name
from ..rules import Ruleset, RulesetError, check_house_rules, load_ruleset
from ..viewtypes import JSONObject
from .edits import fix_edit, last_action, logged, undo_last

__all__ = [
    "MAX_PLAYERS",
    "Refusal",
    "apply_all",
    "apply_entry",
    "check_rebase",
    "entry_turn",
    "new_sheet",
    "record_dict",
    "rolloffs_due",
    "unique_names",
    "zero_turn",
]

MAX_PLAYERS = 16
TURN_KINDS = ("dice", "scratch")


class Refusal(Exception):
    """A refused entry or sheet: a stable `code`, an English `message`, an HTTP-like `status`,
    and fields the phone words its own message from (`current`, `invalid`, `name`...)."""

    def __init__(self, code: str, message: str, status: int = 422, **extra: object) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status
        self.extra = {k: v for k, v in extra.items() if v is not None}

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, **self.extra}


def record_dict(state: GameState) -> JSONObject:
    """The sheet's game record (docs/rules.md §11) as JSON data: completed turns and roll-offs."""
    return replace(state_to_record(state), pending=()).to_dict()


def _int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


# --- a new sheet --------------------------------------------------------------------------------


def unique_names(players: object, limit: int = MAX_PLAYERS) -> list[str]:
    """The players' names as others will see them; refused when blank, too long, too many or twice."""
    if not isinstance(players, Sequence) or isinstance(players, str) or not 1 <= len(players) <= limit:
        raise Refusal("input/players", f"a sheet has 1 to {limit} players")
    names = []
    for i, raw in enumerate(players):
        try:
            names.append(normalize_name(raw, f"player {i + 1} name", NAME_MAX))
        except InvalidName as exc:
            raise Refusal("input/name", exc.message, seat=i, limit=NAME_MAX) from None
    seen: dict[str, int] = {}
    for i, name in enumerate(names):
        key = name.casefold()
        if key in seen:
            raise Refusal("keeper/same-name", f"two players are called {name}", name=name, seat=i)
        seen[key] = i
    return names


def sheet_rules(spec: Mapping[str, object]) -> Ruleset:
    """The ruleset a new sheet asks for: a full custom ruleset (`rules`), or a preset and its options."""
    try:
        if spec.get("rules") is not None:
            rules = load_ruleset(spec["rules"])
            check_house_rules(rules)  # house rules as a server takes them in: bounded, clean texts
            return rules
        if spec.get("preset"):
            options = spec.get("options") or None
            if options is not None and not isinstance(options, Mapping):
                raise Refusal("input/rules", "not a ruleset: options must be a table")
            return load_ruleset(spec["preset"], options)
    except RulesetError as exc:
        raise Refusal("input/rules", str(exc)) from None
    except (TypeError, ValueError, KeyError, AttributeError) as exc:  # a custom ruleset of the wrong shape
        raise Refusal("input/rules", f"not a ruleset: {str(exc)[:200]}") from None
    raise Refusal("input/rules", "choose a ruleset")


def new_sheet(spec: Mapping[str, object], limit: int = MAX_PLAYERS) -> GameState:
    """A fresh kept sheet from {"preset", "options"} or {"rules"}, and "players"."""
    rules = sheet_rules(spec)
    names = unique_names(spec.get("players") or [], limit)
    return new_game(rules, names, dice=ManualDice())


# --- turns ---------------------------------------------------------------------------------------


def _dice(state: GameState, entry: Mapping[str, object]) -> tuple[int, ...]:
    dice = entry.get("dice")
    n = state.rules.rolled_dice
    if not isinstance(dice, Sequence) or len(dice) != n:
        raise Refusal("input/dice", f"type all {n} dice", n=n)
    if not all(_int(d) and 1 <= d <= 6 for d in dice):
        raise Refusal("input/invalid", "dice are 1 to 6")
    return tuple(dice)


def zero_turn(state: GameState, box: str) -> TurnRecord:
    """A 0 in `box` without dice: a scratch (stand-in dice that score 0), or where any box may be
    struck and every roll scores there, a strike; either way the record marks the dice as stand-ins."""
    try:
        return scratch_turn(state, box)
    except IllegalAction as exc:
        if exc.code != "illegal/no-scratch" or not state.rules.strike_any:
            raise
    index = state.rules.parse_box(box)
    roll = 1
    if index is not None:
        roll = state.rules.columns[index // state.rules.n_rows].rolls or 1
    turn = typed_turn(state, (1,) * state.rules.rolled_dice, roll, box, strike=True)
    return replace(turn, scratch=True)


def entry_turn(state: GameState, entry: Mapping[str, object]) -> TurnRecord:
    """The turn an entry describes, for the seat to act in `state`."""
    box = entry.get("box")
    if not isinstance(box, str) or not box:
        raise Refusal("input/invalid", "an entry names its box")
    rolls = entry.get("rolls")
    if entry.get("kind") == "fix" and isinstance(rolls, Sequence) and rolls and not isinstance(rolls, str):
        # every roll typed (the terminal knows them): an announce box after roll 1 stays announced
        typed = [_dice(state, {"dice": r}) for r in rolls]
        return replace(typed_turn(state, typed[-1], len(typed), box), rolls=tuple(typed))
    if entry.get("kind") == "scratch" or (entry.get("kind") == "fix" and entry.get("dice") is None):
        return zero_turn(state, box)
    roll = entry.get("roll", 1)
    return typed_turn(state, _dice(state, entry), roll if _int(roll) else 0, box, strike=entry.get("strike") is True)


# --- applying ------------------------------------------------------------------------------------


def _name(state: GameState, seat: int) -> str:
    return state.players[seat]


def check_rebase(state: GameState, entry: Mapping[str, object]) -> None:
    """An entry made on an older version of the sheet (another phone entered meanwhile): a turn
    is rebased when it is still that player's same turn; anything else is refused, naming the
    player whose turn it is now, so that the phone shows it to be filed again."""
    seat = entry.get("seat")
    if (
        entry.get("kind") in TURN_KINDS
        and not state.finished
        and seat == state.current
        and entry.get("filled") == state.sheets[state.current].turns
    ):
        return
    if entry.get("kind") in TURN_KINDS:
        raise Refusal(
            "stale/overtaken",
            f"another phone entered this turn first: it is {_name(state, state.current)}'s turn now",
            409,
            current=None if state.finished else state.current,
        )
    raise Refusal("stale/version", "the sheet changed on another phone: this change was not applied", 409)


def apply_entry(state: GameState, entry: Mapping[str, object]) -> GameState:
    """The sheet after one entry; raises `Refusal` and changes nothing when the entry is refused."""
    try:
        return _apply(state, entry)
    except RecordError as exc:
        raise Refusal(exc.code, exc.message) from None
    except IllegalAction as exc:
        raise Refusal(exc.code, exc.message) from None


def apply_all(state: GameState, entries: Sequence[Mapping[str, object]]) -> tuple[GameState, list[dict[str, object]]]:
    """Entries applied one after the other (a phone's queue); a refused one is skipped and reported."""
    results: list[dict[str, object]] = []
    for e in entries:
        try:
            state = apply_entry(state, e)
            results.append({"id": e.get("id"), "ok": True})
        except Refusal as exc:
            results.append({"id": e.get("id"), "ok": False, "error": exc.to_dict()})
    return state, results


def _apply(state: GameState, entry: Mapping[str, object]) -> GameState:
    kind = entry.get("kind")
    if kind == "undo":
        return _undo(state, entry.get("count", 1), entry.get("last"))
    if kind == "fix":
        return _fix(state, entry)
    if kind == "rolloff":
        return _rolloff(state, entry)
    if kind not in TURN_KINDS:
        raise Refusal("input/invalid", f"no entry of kind {str(kind)[:20]!r}")
    if state.finished:
        raise Refusal("illegal/game-over", "the game is over: undo or correct an entry")
    seat = entry.get("seat")
    if seat != state.current:
        who = _name(state, state.current)
        raise Refusal("illegal/not-your-turn", f"it is {who}'s turn (seat {state.current})", 409, current=state.current)
    filled = entry.get("filled")
    if filled is not None and filled != state.sheets[state.current].turns:
        raise Refusal(
            "stale/overtaken",
            f"this turn of {_name(state, state.current)} was entered already",
            409,
            current=state.current,
        )
    return play_turn(state, entry_turn(state, entry))


def _record(state: GameState) -> GameRecord:
    return replace(state_to_record(state), pending=())


def _undo(state: GameState, count: object, named: object = None) -> GameState:
    """The last `count` things done taken back, one after the other (`edits.undo_last`). `named`: what the
    undo's button said it takes back first (`last_action`'s keys), refused when something else is last now
    (two phones undoing at once would otherwise take back another's entry)."""
    if not _int(count) or count < 1:
        raise Refusal("input/invalid", "undo takes back 1 or more entries")
    if named is not None:
        last = last_action(state)
        if not isinstance(named, Mapping) or last is None or any(
            v is not None and last.get(k) != v for k, v in named.items()
        ):
            raise Refusal("stale/undo", "the last thing done changed on another phone: nothing was undone", 409)
    for done in range(count):
        if last_action(state) is None:  # nothing is changed: the sheet given stays as it was
            raise Refusal("keeper/nothing-to-undo", f"there are {done} entries to undo", available=done)
        state = undo_last(state)
    return state


def _fix(state: GameState, entry: Mapping[str, object]) -> GameState:
    kept = _record(state).rolloffs
    record = replace(_record(state), rolloffs=())  # a correction may change the ties: checked again below
    n = entry.get("turn")
    if not _int(n) or not 1 <= n <= len(record.turns):
        raise Refusal("keeper/no-entry", f"there is no entry {n} to correct", turn=n if _int(n) else None)
    old = record.turns[n - 1]
    before = replay(replace(record, turns=record.turns[: n - 1], outright=None))
    new = replace(entry_turn(before, entry), player=old.player)
    revision = revise(record, n, new)
    if not revision.ok:  # docs/decisions.md: applied only when every later entry stays legal
        invalid = [{"turn": e.turn, "code": e.code, "message": e.message} for e in revision.invalid]
        listed = ", ".join(str(e["turn"]) for e in invalid)
        message = f"this correction would make entries {listed} illegal: not applied"
        raise Refusal("keeper/breaks-later", message, 409, invalid=invalid)
    return logged(_with_rolloffs(revision.state, kept), fix_edit(state, n))


def _with_rolloffs(state: GameState, rolloffs: Rolloffs) -> GameState:
    """The corrected sheet with each earlier roll-off that is still valid: the same seats still tied for
    its target, round after round (the engine's replay checks it); the others are rolled again."""
    if not rolloffs or not state.finished:
        return state
    record = _record(state)
    kept: Rolloffs = ()
    for target, rounds in rolloffs:
        try:
            after = replay(replace(record, rolloffs=(*kept, (target, rounds))))
        except RecordError:
            continue  # the ties changed there: that roll-off is due again
        kept = (*kept, (target, rounds))
        state = after
    return state


def rolloffs_due(state: GameState) -> dict[str, list[int]]:
    """Column ids (and "total") still tied after the end where the rules roll ties off, with the
    tied seats: the roll-offs a kept sheet asks for (docs/rules.md §7)."""
    match = state.rules.match
    if not state.finished or match.kind != "column_points" or match.ties != "rolloff" or len(state.players) < 2:
        return {}
    return {target: seats for target, seats in state.column_winners().items() if len(seats) > 1}


def _rolloff(state: GameState, entry: Mapping[str, object]) -> GameState:
    target = entry.get("target")
    due = rolloffs_due(state)
    if target not in due:
        raise Refusal("keeper/no-rolloff", f"no roll-off is due for {str(target)[:20]!r}")
    rolled = entry.get("rolloff")
    seats = due[str(target)]
    if not isinstance(rolled, Mapping) or sorted(str(s) for s in seats) != sorted(rolled):
        raise Refusal("input/invalid", "a roll-off gives the dice of every tied player", seats=seats)
    round_ = []
    n = state.rules.rolloff_dice
    for seat in seats:
        dice = rolled[str(seat)]
        if not isinstance(dice, Sequence) or len(dice) != n or not all(_int(d) and 1 <= d <= 6 for d in dice):
            raise Refusal("input/dice", f"a roll-off is {n} dice, each 1 to 6", n=n)
        round_.append((seat, tuple(dice)))
    record = _record(state)
    rolloffs = dict(record.rolloffs)
    rounds = rolloffs.pop(str(target), ())  # the target rolled last goes last: undo takes its round first
    rolloffs[str(target)] = (*rounds, tuple(sorted(round_)))
    after = replay(replace(record, rolloffs=tuple(rolloffs.items())))
    return logged(after, {"rolloff": str(target), "at": len(record.turns)})
