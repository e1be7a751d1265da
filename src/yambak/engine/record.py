"""The game record of docs/rules.md §11: load, validate, dump and replay.

A record is plain JSON. `GameRecord.from_dict` checks its shape; `replay`
checks every turn against the rules through the engine itself, so the record
and the live game can never disagree about what is legal.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..inputs import InputError, parse_json
from ..rules import RulesetError, load_ruleset
from ..viewtypes import JSONObject, JSONValue
from .actions import Announce, Hold, Roll, Score
from .dice import DiceSource, ManualDice
from .errors import IllegalAction, RecordError, shown
from .fairness import parse_fairness
from .scoresheet import tied_groups
from .state import GameState, Rolloffs, TurnRecord, new_game

__all__ = [
    "FORMAT",
    "GameRecord",
    "parse_rolloffs",
    "parse_turn",
    "play_turn",
    "replay",
    "rolloffs_dict",
    "state_to_record",
    "summary",
    "turn_dict",
]

FORMAT = "yambak-game/1"
_KEYS = {
    "format", "rules", "players", "seed", "turns", "rolloffs", "pending", "fairness", "outright", "edits", "stand_in",
}  # fmt: skip
_OUTRIGHT_KEYS = {"seats", "turn", "box"}
_PENDING_KEYS = {"player", "rolls", "held", "kept", "announce"}
_TURN_KEYS = {"player", "rolls", "held", "announce", "box", "strike", "use", "scratch"}


def _bad(message: str, turn: int | None = None) -> RecordError:
    return RecordError("record/invalid", message, turn)


@dataclass(frozen=True, slots=True)
class GameRecord:
    rules: JSONValue  # a preset id, {"preset", "options", "modifiers"}, or an inline ruleset
    players: tuple[str, ...]
    turns: tuple[TurnRecord, ...] = ()
    seed: int | str | None = None
    rolloffs: Rolloffs = ()
    # Our extension: turns in progress ({"player", "rolls", "held", "announce"}), so that a
    # stored game resumes mid-turn. Absent from records of completed turns only.
    pending: tuple[Mapping[str, JSONValue], ...] = ()
    # docs/rules.md §11: the dice commitment of a table whose dice the server rolled (engine/fairness.py).
    fairness: Mapping[str, JSONValue] | None = None
    # docs/rules.md §11: the outright win the turns show, if any (`Outright.to_dict`); a replay checks it.
    # A record that changes its turns drops it (`replace(record, turns=..., outright=None)`).
    outright: Mapping[str, JSONValue] | None = None
    # docs/rules.md §11: a kept sheet's corrections, roll-offs and undos, in order (`yambak.keeper.edits`).
    edits: tuple[Mapping[str, JSONValue], ...] = ()
    # docs/rules.md §11: the boxes a stand-in filled for a person, (seat, box id), in seat and box order.
    stand_in: tuple[tuple[int, str], ...] = ()

    @classmethod
    def from_dict(cls, data: object) -> GameRecord:
        if not isinstance(data, Mapping):
            raise _bad("a game record is a JSON object")
        if data.get("format") != FORMAT:
            raise _bad(f"format must be {shown(FORMAT)}, not {shown(data.get('format'))}")
        unknown = set(data) - _KEYS
        if unknown:
            raise _bad(f"unknown key {shown(sorted(unknown)[0])}")
        players = data.get("players")
        if not isinstance(players, list) or not players or not all(isinstance(n, str) and n for n in players):
            raise _bad("players must be a non-empty list of names")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, (int, str)) or isinstance(seed, bool)):
            raise _bad("seed must be null, a number or a string")
        raw_turns = data.get("turns", [])
        if not isinstance(raw_turns, list):
            raise _bad("turns must be a list")
        turns = tuple(parse_turn(t, i + 1) for i, t in enumerate(raw_turns))
        if "rules" not in data:
            raise _bad("rules is required")
        pending = data.get("pending", [])
        if not isinstance(pending, list) or not all(
            isinstance(t, Mapping) and set(t) <= _PENDING_KEYS for t in pending
        ):
            raise _bad("pending must be a list of turns in progress")
        fairness = None
        if data.get("fairness") is not None:
            try:
                fairness = parse_fairness(data["fairness"])
            except ValueError as exc:
                raise _bad(str(exc)) from None
        edits = data.get("edits", [])
        if not isinstance(edits, list) or not all(isinstance(e, Mapping) for e in edits):
            raise _bad("edits must be a list of a sheet's changes")
        stand_in = data.get("stand_in", [])
        if not isinstance(stand_in, list) or not all(
            isinstance(m, list)
            and len(m) == 2
            and isinstance(m[0], int)
            and not isinstance(m[0], bool)
            and 0 <= m[0] < len(players)
            and isinstance(m[1], str)
            for m in stand_in
        ):
            raise _bad("stand_in must be a list of [seat, box] pairs")
        return cls(
            data["rules"],
            tuple(players),
            turns,
            seed,
            parse_rolloffs(data.get("rolloffs"), len(players)),
            tuple(pending),
            fairness,
            _parse_outright(data.get("outright"), len(players)),
            tuple(edits),
            tuple(sorted((m[0], m[1]) for m in stand_in)),
        )

    def seat(self, n: int) -> int:
        """The seat that plays turn n (1-based): the turn's `player` where the record says it, else the seat
        whose turn it is in seat order (docs/rules.md §11: a duplicate table's record lists its
        turns round by round, so the same holds there)."""
        player = self.turns[n - 1].player
        return player if player != -1 else (n - 1) % len(self.players)

    def round(self, n: int) -> int:
        """The round of turn n (1-based): its seat's how-manieth turn it is, as players count ("turn 3 of 13")."""
        seat = self.seat(n)
        return sum(self.seat(k) == seat for k in range(1, n + 1))

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        try:
            data = parse_json(text)
        except InputError as exc:
            raise _bad(str(exc)) from None
        return cls.from_dict(data)

    def to_dict(self) -> JSONObject:
        out: JSONObject = {"format": FORMAT, "rules": self.rules, "players": list(self.players), "seed": self.seed}
        out["turns"] = [turn_dict(t) for t in self.turns]
        if self.rolloffs:
            out["rolloffs"] = rolloffs_dict(self.rolloffs)
        if self.pending:
            out["pending"] = [dict(t) for t in self.pending]
        if self.fairness is not None:
            out["fairness"] = dict(self.fairness)
        if self.outright is not None:
            out["outright"] = dict(self.outright)
        if self.edits:
            out["edits"] = [dict(e) for e in self.edits]
        if self.stand_in:
            out["stand_in"] = [[seat, box] for seat, box in self.stand_in]
        return out

    def dumps(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


def _stand_in(state: GameState, record: GameRecord) -> frozenset[tuple[int, str]]:
    """The record's stand-in marks, each a box its seat has filled (a bare row id of a one-column sheet named
    as the engine names it); raises RecordError for any other."""
    rules = state.rules
    filled = {(h.player, rules.parse_box(h.box)) for h in state.history}
    out = set()
    for seat, name in record.stand_in:
        box = rules.parse_box(name)
        if box is None:
            raise _bad(f"stand_in: {name!r} is not a box of these rules")
        if (seat, box) not in filled:
            raise _bad(f"stand_in: seat {seat} has not filled {name}")
        out.add((seat, rules.box_id(box)))
    return frozenset(out)


def rolloffs_dict(rolloffs: Rolloffs) -> JSONObject:
    """Roll-off rounds as a record writes them: target -> rounds -> seat -> dice."""
    out: JSONObject = {}
    for target, rounds in rolloffs:
        out[target] = [{str(seat): list[JSONValue](dice) for seat, dice in r} for r in rounds]
    return out


def turn_dict(t: TurnRecord) -> JSONObject:
    out: JSONObject = {"player": t.player, "rolls": [list(r) for r in t.rolls]}
    if t.held is not None:
        out["held"] = [list(h) for h in t.held]
    if t.announce is not None:
        out["announce"] = t.announce
    out["box"] = t.box
    if t.strike:
        out["strike"] = True
    if t.use is not None:
        out["use"] = list(t.use)
    if t.scratch:
        out["scratch"] = True
    return out


def _dice_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(d, int) and not isinstance(d, bool) for d in value)


def parse_turn(raw: object, n: int) -> TurnRecord:
    """A record's turn `n` (1-based) from JSON data; raises RecordError naming it."""
    if not isinstance(raw, Mapping):
        raise _bad("a turn is a JSON object", n)
    unknown = set(raw) - _TURN_KEYS
    if unknown:
        raise _bad(f"unknown key {shown(sorted(unknown)[0])} in a turn", n)
    player = raw.get("player", -1)  # -1: not given (the seat to act)
    if not isinstance(player, int) or isinstance(player, bool) or ("player" in raw and player < 0):
        raise _bad("player must be a seat number (0 for the first seat)", n)
    rolls = raw.get("rolls")
    if not isinstance(rolls, list) or not rolls:
        raise _bad("rolls must be a non-empty list of rolls", n)
    for roll in rolls:
        if not _dice_list(roll):
            raise RecordError("illegal/bad-dice", f"a roll is a list of dice values, not {shown(roll)}", n)
    box = raw.get("box")
    if not isinstance(box, str):
        raise _bad('box must be a box id such as "free.chance"', n)
    announce = raw.get("announce")
    if announce is not None and not isinstance(announce, str):
        raise _bad("announce must be a box id or null", n)
    strike = raw.get("strike", False)
    if not isinstance(strike, bool):
        raise _bad("strike must be true or false", n)
    use = raw.get("use")
    if use is not None and not _dice_list(use):
        raise RecordError("illegal/use", "use must be a list of dice values", n)
    scratch = raw.get("scratch", False)
    if not isinstance(scratch, bool):
        raise _bad("scratch must be true or false", n)
    held = raw.get("held")
    if held is not None:
        if not isinstance(held, list) or len(held) != len(rolls) - 1 or not all(_dice_list(h) for h in held):
            raise _bad("held lists the dice kept before each reroll: one list per roll after the first", n)
        held = tuple(tuple(sorted(h)) for h in held)
    return TurnRecord(
        player,
        tuple(tuple(r) for r in rolls),
        box,
        announce,
        strike,
        tuple(use) if use is not None else None,
        scratch,
        held,
    )


def _parse_outright(raw: object, n_players: int) -> JSONObject | None:
    """The record's `outright` (null or absent: none said; older records never say it)."""
    if raw is None:
        return None
    shape = "outright is null or {seats, turn, box}: the seats that won at once, their turn and the box"
    if not isinstance(raw, Mapping) or set(raw) != _OUTRIGHT_KEYS:
        raise _bad(shape)
    seats, turn, box = raw["seats"], raw["turn"], raw["box"]
    if (
        not isinstance(seats, list)
        or not seats
        or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n_players for s in seats)
        or not isinstance(turn, int)
        or isinstance(turn, bool)
        or turn < 1
        or not isinstance(box, str)
    ):
        raise _bad(shape)
    return {"seats": list(seats), "turn": turn, "box": box}


def parse_rolloffs(raw: object, n_players: int) -> Rolloffs:
    """A record's `rolloffs` from JSON data; raises RecordError."""
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise _bad('rolloffs must map a column id or "total" to a list of rounds')
    out = []
    for target, rounds in raw.items():
        if not isinstance(rounds, list):
            raise _bad(f"rolloffs.{target} must be a list of rounds")
        parsed = []
        for round_ in rounds:
            if not isinstance(round_, Mapping) or len(round_) < 2:
                raise _bad(f"rolloffs.{target}: a round maps two or more seats to their dice")
            entries = []
            for seat, dice in round_.items():
                if not str(seat).isdigit() or int(seat) >= n_players:
                    raise _bad(f"rolloffs.{target}: no seat {shown(seat)}")
                if not _dice_list(dice) or not dice or not all(1 <= d <= 6 for d in dice):
                    raise _bad(f"rolloffs.{target}: a roll-off is a list of dice, each 1 to 6")
                entries.append((int(seat), tuple(dice)))
            parsed.append(tuple(sorted(entries)))
        out.append((str(target), tuple(parsed)))
    return tuple(out)


def replay(
    record: GameRecord | Mapping[str, object], dice: DiceSource | None = None, simultaneous: bool = False
) -> GameState:
    """Rebuild the game state a record describes, checking every turn.

    Raises `RecordError` naming the first illegal turn (1-based). The state keeps
    manual dice unless another source is given (to continue a seeded game live).
    `simultaneous` rebuilds a duplicate table where every seat plays at its own
    pace: each turn is checked against its own seat, not the seat order.
    """
    if not isinstance(record, GameRecord):
        record = GameRecord.from_dict(record)
    try:
        rules = load_ruleset(record.rules)
    except RulesetError as exc:
        raise _bad(f"rules: {exc}") from None
    state = new_game(rules, record.players, dice=ManualDice(), seed=record.seed, simultaneous=simultaneous)
    for n, turn in enumerate(record.turns, start=1):
        try:
            if simultaneous:
                seat = record.seat(n)
                if not 0 <= seat < len(record.players):
                    raise IllegalAction("illegal/no-such-seat", f"there is no seat {seat}")
                # the record is in round order, not the order the seats played in: a seat may have
                # played past the turn an outright win came on before it came, so each turn is played
                # as if none had, and the wins are joined after
                won = state.outright
                state = play_turn(state._replace(current=seat, outright=None), replace(turn, player=seat))
                state = state._replace(current=0, outright=state.outright.joined(won) if state.outright else won)
            else:
                state = play_turn(state, turn)
        except IllegalAction as exc:
            raise RecordError(exc.code, exc.message, n) from None
    _check_rolloffs(state, record)
    said, shown_ = record.outright, state.outright.to_dict() if state.outright is not None else None
    if said is not None and dict(said) != shown_:
        raise _bad(f"outright says {shown(dict(said))}, but the turns show {shown(shown_)}")
    state = state._replace(rolloffs=record.rolloffs, edits=record.edits, stand_in=_stand_in(state, record))
    for pending in record.pending:
        state = _replay_pending(state, pending)
    if dice is not None:
        state = state.with_dice(dice)
    return state


def _replay_pending(state: GameState, turn: Mapping[str, Any]) -> GameState:  # unchecked: the engine refuses
    try:
        p = turn.get("player", state.current)
        rolls = turn.get("rolls", [])
        if not isinstance(rolls, list) or not rolls:
            raise _bad("pending: a turn in progress has at least one roll")
        for i, dice in enumerate(rolls):
            if i == 1 and turn.get("announce") is not None:
                state, _ = state.apply(Announce(p, turn["announce"]))
            dice = tuple(dice) if _dice_list(dice) else dice
            kept = turn.get("kept")
            if i and isinstance(kept, list) and len(kept) == len(rolls) - 1 and all(_dice_list(k) for k in kept):
                state, _ = state.apply(_reroll(p, state.turns[p].dice, tuple(sorted(kept[i - 1])), dice))
            else:
                state, _ = state.apply(Roll(p, dice=dice))
        if len(rolls) == 1 and turn.get("announce") is not None:
            state, _ = state.apply(Announce(p, turn["announce"]))
        held = turn.get("held", [])
        if held:
            try:
                state, _ = state.apply(Hold(p, tuple(held) if isinstance(held, list) else held))
            except IllegalAction as exc:
                if exc.code != "illegal/already-held":  # held already by the roll's keep: the same position
                    raise
    except IllegalAction as exc:
        raise _bad(f"pending: {exc.message}") from None
    return state


def play_turn(state: GameState, turn: TurnRecord) -> GameState:
    """Apply one whole recorded turn for the seat to act (manual dice); raises IllegalAction."""
    if turn.player != -1 and turn.player != state.current:
        if state.finished:
            raise IllegalAction("illegal/game-over", "the game is over")
        if not 0 <= turn.player < len(state.players):
            raise IllegalAction("illegal/no-such-seat", f"there is no seat {turn.player}")
        raise IllegalAction(
            "illegal/not-your-turn",
            f"it is seat {state.current}'s turn ({state.players[state.current]}), not seat {turn.player}'s",
        )
    p = state.current
    for i, dice in enumerate(turn.rolls):
        if i == 1 and turn.announce is not None:
            state, _ = state.apply(Announce(p, turn.announce))
        if i and turn.held is not None:
            state, _ = state.apply(_reroll(p, state.turns[p].dice, turn.held[i - 1], dice))
        else:  # the first roll, or a reroll whose kept dice the record does not say
            state, _ = state.apply(Roll(p, dice=dice))
    if turn.announce is not None and len(turn.rolls) == 1:
        state, _ = state.apply(Announce(p, turn.announce))
    state, _ = state.apply(Score(p, turn.box, strike=turn.strike, use=turn.use))
    if turn.scratch:  # keep the score-keeping marker in the history the record is rebuilt from
        if state.sheets[p].written[state.rules.parse_box(turn.box)] != 0:  # type: ignore[index]
            raise IllegalAction("illegal/no-scratch", f"a scratch writes 0, and these dice score in {turn.box}")
        state = state._replace(history=state.history[:-1] + (replace(state.history[-1], scratch=True),))
    return state


def _reroll(p: int, before: tuple[int, ...], keep: tuple[int, ...], after: Any) -> Roll:
    """The reroll that keeps the values `keep` of `before` and shows `after` (all the dice).
    Kept dice stay where they lay; a record listing them elsewhere is read as the same roll."""
    if not isinstance(after, (tuple, list)) or len(after) != len(before):
        return Roll(p, dice=after)  # the engine refuses it with its own reason
    positions: list[int] = []
    for v in keep:
        free = [i for i in range(len(before)) if before[i] == v and i not in positions]
        if not free:
            raise IllegalAction("illegal/held-changed", f"held {list(keep)}: not among the dice {list(before)}")
        in_place = [i for i in free if after[i] == v]
        positions.append((in_place or free)[0])
    rest = list(after)
    for v in keep:
        if v not in rest:
            raise IllegalAction("illegal/held-changed", f"held {list(keep)}: not among the next dice {list(after)}")
        rest.remove(v)
    if any(after[i] != before[i] for i in positions):
        fresh = iter(rest)
        after = tuple(before[i] if i in positions else next(fresh) for i in range(len(before)))
    return Roll(p, held=tuple(sorted(positions)), dice=tuple(after))


def _check_rolloffs(state: GameState, record: GameRecord) -> None:
    if not record.rolloffs:
        return
    if not state.finished or state.rules.match.kind != "column_points":
        raise _bad("rolloffs belong to finished column-points games only")
    results = {
        c.id: [cols[ci].total for cols in map(state.column_scores, range(len(state.players)))]
        for ci, c in enumerate(state.rules.columns)
    }
    results["total"] = state.totals()
    n = state.rules.rolloff_dice
    for target, rounds in record.rolloffs:
        if target not in results:
            raise _bad(f'rolloffs: {shown(target)} is not a column id or "total"')
        tied = tied_groups(results[target])
        for k, round_ in enumerate(rounds, start=1):
            if any(len(dice) != n for _, dice in round_):
                raise _bad(f"rolloffs.{target}: a roll-off is {n} dice, each 1 to 6")
            # each round is rolled by exactly the seats still tied after the rounds before it
            seats = sorted(seat for seat, _ in round_)
            if len(tied) < 2 or seats != tied:
                expected = "no round" if len(tied) < 2 else f"seats {', '.join(map(str, tied))}"
                raise _bad(
                    f"rolloffs.{target}: round {k} is rolled by seats {', '.join(map(str, seats))}; expected {expected}"
                )
            pips = {seat: sum(dice) for seat, dice in round_}
            best = max(pips.values())
            tied = [seat for seat in tied if pips[seat] == best]


def state_to_record(state: GameState) -> GameRecord:
    """The record of a state's completed turns, in seat order within each round."""
    index: dict[int, int] = {}
    keyed = []
    for t in state.history:
        k = index.get(t.player, 0)
        index[t.player] = k + 1
        keyed.append(((k, t.player), t))
    turns = tuple(t for _, t in sorted(keyed, key=lambda kt: kt[0]))
    pending = []
    for p, turn in enumerate(state.turns):
        if turn.rolls:
            entry: JSONObject = {"player": p, "rolls": [list(r) for r in turn.rolls], "held": [*sorted(turn.held)]}
            if turn.kept is not None and len(turn.rolls) > 1:
                entry["kept"] = [list(k) for k in turn.kept]
            if turn.announced is not None:
                entry["announce"] = state.rules.box_id(turn.announced)
            pending.append(entry)
    outright = state.outright.to_dict() if state.outright is not None else None
    return GameRecord(
        state.rules.spec,
        state.players,
        turns,
        state.seed,
        state.rolloffs,
        tuple(pending),
        outright=outright,
        edits=state.edits,
        stand_in=tuple(sorted(state.stand_in)),
    )


def summary(state: GameState) -> JSONObject:
    """The replay result of docs/rules.md §11 (what `yambak replay --json` prints)."""
    points = state.match_points()
    categories = state.category_points()
    with_minimax = state.rules.has_minimax
    players: list[JSONValue] = []
    for p, name in enumerate(state.players):
        entry: JSONObject = {
            "name": name,
            "total": state.total(p),
            "match_points": points[p] if points is not None else None,
            "columns": {c.id: c.to_dict(with_minimax) for c in state.column_scores(p)},
        }
        if state.rules.joker is not None:
            entry["extra_bonus"] = state.sheets[p].extra_bonus
        if state.rules.save_rolls:  # our extension (docs/rules.md): the rolls saved for later turns
            entry["saved_rolls"] = state.sheets[p].saved
        if categories is not None:  # category_points games: each row's points and the grand total's
            entry["category_points"] = categories[p].to_dict()
        players.append(entry)
    out: JSONObject = {"finished": state.finished, "players": players}
    if state.rules.wins_outright:  # our extension (docs/rules.md): the outright win, if any (`Outright`)
        out["outright"] = state.outright.to_dict() if state.outright is not None else None
    return out
