"""The game state machine: immutable states, `legal_actions()` and `apply()`.

`apply(action)` validates against the rules and returns a new state and the
event it produced; an illegal action raises `IllegalAction` and the old state
is untouched (it is immutable). Validation order is fixed so that a bad action
always gets the same error code: seat -> game over -> turn -> action specifics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import combinations

from ..rules import Ruleset
from ..rules.model import Column
from ..rules.scoring import row_score
from ..viewtypes import JSONObject, JSONValue
from .actions import Action, Announce, Hold, Release, Roll, Score, Undo, Withdraw
from .dice import DiceSource, DuplicateDice, RollContext, SeededDice
from .errors import IllegalAction, RecordError, shown
from .outlook import BoxOutlook, EntryBound, Outlook, triggers
from .scoresheet import (
    CategoryScore,
    ColumnScore,
    Sheet,
    category_points,
    column_scores,
    column_winners,
    grand_total,
    joker_boxes,
    match_points,
    tied_groups,
    total_after_entry,
)

__all__ = ["GameState", "Outright", "Turn", "TurnRecord", "Event", "new_game", "rank_key"]

# A recorded roll-off: for a column id or "total", the rounds, each mapping seat -> dice.
Rolloffs = tuple[tuple[str, tuple[tuple[tuple[int, tuple[int, ...]], ...], ...]], ...]


@dataclass(frozen=True, slots=True)
class Outright:
    """An outright win (docs/rules.md §7): the seats that won the game at once, every one of them on the
    same turn of their own (`turn`, 1-based), and the box the first of them won it in. With the same dice
    for everyone (duplicate) the others play that turn too before the game ends, and whoever also wins
    outright on it shares the win."""

    seats: tuple[int, ...]
    turn: int
    box: str

    def to_dict(self) -> JSONObject:
        """The record's and the replay result's `outright` (docs/rules.md §11)."""
        return {"seats": list(self.seats), "turn": self.turn, "box": self.box}

    def joined(self, other: Outright | None) -> Outright:
        """This win and another seat's: the earlier turn's alone, or both seats on the same turn."""
        if other is None or self.turn < other.turn:
            return self
        if other.turn < self.turn:
            return other
        first = self if self.seats[0] < other.seats[0] else other
        return Outright(tuple(sorted({*self.seats, *other.seats})), self.turn, first.box)


def rank_key(total: int, outright_turn: int | None) -> tuple[int, int]:
    """Where a one-seat game ranks among others on the same dice (docs/rulesets.md, "Ranking one-seat
    games"), the greater the better: a game won outright above any other, an earlier turn's win above a
    later one's, then the higher total; equal keys are level."""
    return (1, -outright_turn) if outright_turn is not None else (0, total)


@dataclass(frozen=True, slots=True)
class Turn:
    """A player's turn in progress."""

    rolls: tuple[tuple[int, ...], ...] = ()  # all dice after each roll
    held: frozenset[int] = frozenset()  # die positions set aside
    announced: int | None = None  # box index
    # The values kept before each reroll (sorted), as the record's `held` (docs/rules.md §11);
    # None when a typed roll did not say what it kept (a replayed record without `held`).
    kept: tuple[tuple[int, ...], ...] | None = ()

    @property
    def dice(self) -> tuple[int, ...]:
        return self.rolls[-1] if self.rolls else ()


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One completed turn, as in the game record of docs/rules.md §11."""

    player: int
    rolls: tuple[tuple[int, ...], ...]
    box: str
    announce: str | None = None
    strike: bool = False
    use: tuple[int, ...] | None = None
    scratch: bool = False  # score-keeping: a 0 typed without dice; `rolls` holds stand-in dice
    held: tuple[tuple[int, ...], ...] | None = None  # the values kept before each reroll, when known


EVENT_TYPES = ("rolled", "held", "released", "announced", "withdrawn", "scored", "undone")


@dataclass(frozen=True, slots=True)
class Event:
    """What an accepted action did: what a server stores, broadcasts and replays.

    An event names its seat, never a name. `to_action()` turns it back into the
    action that made it, with the dice it rolled, so that applying the events of a
    game to a fresh state with manual dice rebuilds it exactly, mid-turn included.
    """

    type: str  # rolled | held | released | announced | withdrawn | scored | undone
    player: int
    roll: int = 0  # rolls made this turn after the action
    dice: tuple[int, ...] = ()
    held: tuple[int, ...] = ()  # die positions held after the action
    box: str | None = None
    written: int | None = None
    extra_bonus: int = 0  # added to the player by this entry
    game_over: bool = False
    strike: bool = False  # scored: the box was struck for 0
    use: tuple[int, ...] | None = None  # scored with six dice: the five that counted

    def to_dict(self) -> JSONObject:
        out: JSONObject = {
            "type": self.type,
            "player": self.player,
            "roll": self.roll,
            "dice": list(self.dice),
            "held": list(self.held),
            "box": self.box,
            "written": self.written,
            "extra_bonus": self.extra_bonus,
            "game_over": self.game_over,
        }
        if self.strike:
            out["strike"] = True
        if self.use is not None:
            out["use"] = list(self.use)
        return out

    @classmethod
    def from_dict(cls, data: object) -> Event:
        """An event as `to_dict` wrote it; raises RecordError on anything else."""
        bad = RecordError("record/invalid", "not a stored event")
        if not isinstance(data, dict) or data.get("type") not in EVENT_TYPES:
            raise bad
        try:
            use = data.get("use")
            return cls(
                type=data["type"],
                player=_int(data["player"]),
                roll=_int(data.get("roll", 0)),
                dice=tuple(_int(d) for d in data.get("dice", ())),
                held=tuple(_int(i) for i in data.get("held", ())),
                box=data.get("box"),
                written=data.get("written"),
                extra_bonus=_int(data.get("extra_bonus", 0)),
                game_over=bool(data.get("game_over", False)),
                strike=data.get("strike", False) is True,
                use=tuple(_int(d) for d in use) if use is not None else None,
            )
        except (KeyError, TypeError, ValueError):
            raise bad from None

    def to_action(self) -> Action:
        """The action that made this event, dice included (apply it to a state with manual dice)."""
        p = self.player
        if self.type == "rolled":
            return Roll(p, held=self.held, dice=self.dice)
        if self.type == "held":  # the held set only grows: holding all of it is the same action
            return Hold(p, self.held)
        if self.type == "released":  # ... and only shrinks: release every other position
            return Release(p, tuple(i for i in range(len(self.dice)) if i not in self.held))
        if self.type == "announced":
            return Announce(p, self.box or "")
        if self.type == "withdrawn":
            return Withdraw(p)
        if self.type == "undone":
            return Undo(p)
        return Score(p, self.box or "", strike=self.strike, use=self.use)


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("not an integer")
    return value


def _places(positions: frozenset[int]) -> str:
    """Die positions as a player counts them (from 1)."""
    return ", ".join(str(i + 1) for i in sorted(positions)) or "(none)"


def _illegal(code: str, message: str) -> IllegalAction:
    return IllegalAction(f"illegal/{code}", message)


def _outright_wait(state: GameState, p: int) -> IllegalAction:
    win = state.outright
    assert win is not None
    return _illegal(
        "outright-wait",
        f"{state.players[win.seats[0]]} won outright on turn {win.turn}: the game ends once everybody has "
        f"played that turn, and {state.players[p]} has",
    )


def _box_closed(box_id: str) -> IllegalAction:
    return _illegal("box-closed", f"{box_id} is already filled")


@dataclass(frozen=True, slots=True)
class GameState:
    rules: Ruleset
    players: tuple[str, ...]
    sheets: tuple[Sheet, ...]
    turns: tuple[Turn, ...]  # each player's turn in progress
    current: int = 0  # the seat to act (sequential play)
    history: tuple[TurnRecord, ...] = ()
    dice_source: DiceSource = field(default_factory=lambda: SeededDice(0), compare=False)
    seed: int | str | None = None
    simultaneous: bool = False  # duplicate tables: every player plays their own turns at once
    rolloffs: Rolloffs = ()
    serial: int = 0  # rolls made in the whole game
    outright: Outright | None = None  # the seats that won the game at once (a row's wins_by_roll), if any
    # A kept sheet's corrections, roll-offs and undos, in order (docs/rules.md §11 `edits`): carried
    # untouched, read and written by the score-keeper (`yambak.keeper.edits`) only.
    edits: tuple[Mapping[str, JSONValue], ...] = field(default=(), compare=False)
    # The boxes a stand-in filled for a person who was away or out of time, (seat, box id): marked on the
    # sheet for everybody and kept in the record (docs/rules.md §11 `stand_in`); the game is the same.
    stand_in: frozenset[tuple[int, str]] = field(default=frozenset(), compare=False)
    # The position before the last entry, while it may still be taken back (until the next roll).
    undo_point: GameState | None = field(default=None, compare=False, repr=False)

    # --- reading the position ----------------------------------------------------------

    @property
    def finished(self) -> bool:
        # every completed turn fills exactly one box; an outright win ends the game at once, or with the
        # same dice for everyone once every player has played the turn it was won on
        if self.outright is not None and self._outright_over(self.outright):
            return True
        return len(self.history) == self.rules.n_boxes * len(self.players)

    @property
    def same_dice(self) -> bool:
        """Everyone plays the same dice turn by turn: a duplicate table, the duplicate modifier, or duplicate
        dice dealt to seats that take turns (`yambak duel`)."""
        return self.simultaneous or "duplicate" in self.rules.modifiers or isinstance(self.dice_source, DuplicateDice)

    def _outright_over(self, win: Outright) -> bool:
        return not self.same_dice or all(s.turns >= win.turn or s.full for s in self.sheets)

    def _waits(self, p: int) -> bool:
        """Duplicate: seat p has played the turn an outright win came on; the others play it still."""
        return self.outright is not None and self.sheets[p].turns >= self.outright.turn

    @property
    def turn(self) -> Turn:
        return self.turns[self.current]

    @property
    def dice(self) -> tuple[int, ...]:
        return self.turns[self.current].dice

    def to_act(self) -> list[int]:
        """Seats that may act now."""
        if self.finished:
            return []
        if self.simultaneous:
            return [p for p, s in enumerate(self.sheets) if not s.full and not self._waits(p)]
        return [self.current]

    def column_scores(self, player: int) -> list[ColumnScore]:
        return column_scores(self.rules, self.sheets[player])

    def total(self, player: int) -> int:
        return grand_total(self.rules, self.sheets[player])

    def totals(self) -> list[int]:
        return [self.total(p) for p in range(len(self.players))]

    def match_points(self) -> list[float] | None:
        """Column points once the game is over (None while it runs, or where they do not apply)."""
        if not self.finished:
            return None
        return match_points(self.rules, self.sheets, self._rolloff_rounds())

    def category_points(self) -> list[CategoryScore] | None:
        """Each seat's category points on the sheets as they stand (category_points games; else None)."""
        return category_points(self.rules, self.sheets)

    def column_winners(self) -> dict[str, list[int]]:
        """Column id (and "total") -> the seats with the best result, roll-offs applied."""
        return column_winners(self.rules, self.sheets, self._rolloff_rounds())

    def _rolloff_rounds(self) -> dict[str, list[dict[int, tuple[int, ...]]]]:
        return {target: [dict(r) for r in rs] for target, rs in self.rolloffs}

    def winners(self) -> list[int]:
        """Seats sharing the win: the outright winners, else most match points, then highest total
        (docs/rules.md §7)."""
        if self.outright is not None and self.finished:
            return list(self.outright.seats)
        totals = self.totals()
        points = self.match_points()
        if points is None:
            return tied_groups(totals)
        best = tied_groups(points)
        return [best[i] for i in tied_groups([totals[s] for s in best])]

    def standings(self) -> list[int]:
        """Each seat's place, 1 for the winners, as `winners` ranks them (an outright win, then most match
        points, then highest total); seats level on all share a place and the next place skips (1, 1, 3)."""
        totals = self.totals()
        points = self.match_points() or [0.0] * len(totals)
        won = self.outright.seats if self.outright is not None and self.finished else ()
        keys = [(s in won, points[s], totals[s]) for s in range(len(totals))]
        return [1 + sum(1 for other in keys if other > mine) for mine in keys]

    def returns(self) -> list[float]:
        """Each seat's return, zero-sum, as a learning agent counts a game: 0 until the end, then the
        winners share +1 and the others -1 (everybody 0 when all share the win, a game alone included;
        `total` is a lone player's score)."""
        n = len(self.players)
        winners = self.winners() if self.finished else []
        if not winners or len(winners) == n:
            return [0.0] * n
        return [1 / len(winners) if s in winners else -1 / (n - len(winners)) for s in range(n)]

    def ranking(self) -> list[int]:
        """The seats in the order of their places (`standings`), best first; seats sharing a place in seat
        order."""
        places = self.standings()
        return sorted(range(len(places)), key=lambda s: (places[s], s))

    def next_seat(self, seat: int) -> int:
        """The seat whose turn follows `seat`'s: players take turns in seat order (docs/rules.md §1)."""
        return (seat + 1) % len(self.players)

    def legal_boxes(self, player: int | None = None) -> list[int]:
        """Boxes the player may end the turn in now, given the dice (empty before roll 1)."""
        p = self.current if player is None else player
        turn = self.turns[p]
        if not turn.rolls or self.sheets[p].full:
            return []
        options: set[int] = set()
        for five in self._fives(turn.dice):
            options.update(self._legal_for(p, five))
        return sorted(options)

    def preview(self, player: int | None = None) -> dict[str, int]:
        """Legal box id -> the value it would be written with now (the best five for six dice)."""
        p = self.current if player is None else player
        turn = self.turns[p]
        out = {}
        for box in self.legal_boxes(p):
            values = [self._written(p, box, five) for five in self._fives(turn.dice) if box in self._legal_for(p, five)]
            out[self.rules.box_id(box)] = max(values)
        return out

    def rolls_allowed(self, player: int | None = None) -> int:
        """Rolls the player's turn may make: `rolls_per_turn`, plus the rolls saved from earlier turns
        where the ruleset saves them (Maxi Yatzy)."""
        p = self.current if player is None else player
        return self.rules.rolls_per_turn + self.sheets[p].saved

    def announceable(self, player: int | None = None) -> list[str]:
        """Boxes the player may announce now (right after roll 1, none announced yet)."""
        p = self.current if player is None else player
        turn = self.turns[p]
        if len(turn.rolls) != 1 or turn.announced is not None or p not in self.to_act():
            return []
        return [self.rules.box_id(b) for b in self._fillable(p, 1, None) if self._column(b).announce]

    def can_roll(self, player: int | None = None) -> bool:
        p = self.current if player is None else player
        try:
            self._check_roll(p, self.turns[p].held if self.turns[p].rolls else frozenset())
        except IllegalAction:
            return False
        return True

    def fillable(self, roll: int, player: int | None = None, announced: int | None = None) -> list[int]:
        """Boxes the player's sheet could take right after roll `roll` of a turn, before the dice are
        known: open, in fill order, allowed after that roll (announce boxes right after roll 1, as
        announce-and-score); only `announced` when it is given. The dice, the joker and the last-resort
        rule may still rule some out (`outlook` says which)."""
        p = self.current if player is None else player
        if not 1 <= roll <= self.rolls_allowed(p) or self.sheets[p].full:
            return []
        return list(self._fillable(p, roll, announced))

    def entry_bounds(self, box: int, player: int | None = None) -> tuple[EntryBound, ...]:
        """What a value written in `box` would do to its related pairs, given the sheet as it is
        (docs/rules.md §5): for each relation, the bound past which the entry zeroes the pair or
        scores 0 itself. Empty when no filled partner constrains the box."""
        p = self.current if player is None else player
        memo = self.sheets[p].memo
        key = ("bounds", box)
        if key not in memo:
            memo[key] = self._entry_bounds(p, box)
        bounds: tuple[EntryBound, ...] = memo[key]
        return bounds

    def _entry_bounds(self, p: int, box: int) -> tuple[EntryBound, ...]:
        rules = self.rules
        n_rows = rules.n_rows
        ci, r = divmod(box, n_rows)
        sheet = self.sheets[p]
        out = []
        for rel in rules.relations:
            hi, lo = rules.row_index[rel.high], rules.row_index[rel.low]
            if r not in (hi, lo) or rel.kind == "minimax":
                continue
            partner = lo if r == hi else hi
            if rel.kind == "max_gt_min":
                other = sheet.entry_score(ci * n_rows + partner)
                if other is not None:  # high <= low zeroes both, a struck (0) partner included
                    pair = (rel.high, rel.low)
                    out.append(EntryBound("zeroes-pair", r == hi, other, rel.id, rel.last_resort, pair))
            else:  # min_lt_max_at_entry: a partner scoring 0 imposes no bound; strict: every column
                columns = range(len(rules.columns)) if rel.strict else (ci,)
                others = [v for cj in columns if (v := sheet.entry_score(cj * n_rows + partner))]
                if others:
                    limit = max(others) if r == hi else min(others)
                    out.append(EntryBound("voids-entry", r == hi, limit, rel.id, pair=(rel.high, rel.low)))
        return tuple(out)

    def outlook(self, player: int | None = None) -> Outlook:
        """Everything a face shows about the player's position: the turn, and every box of the
        sheet (legal or why not, what it would write and add, pair effects, joker, strike,
        announce, roll dependence). One engine query, so that no face re-derives a rule."""
        p = self.current if player is None else player
        rules = self.rules
        turn = self.turns[p]
        n = len(turn.rolls)
        refusal = self._turn_refusal(p)
        roll_code = roll_reason = None
        try:
            if refusal is not None:
                raise refusal
            self._check_roll(p, turn.held if n else frozenset())
        except IllegalAction as exc:
            roll_code, roll_reason = exc.code, exc.message
        announceable = set(self.announceable(p)) if refusal is None else set()
        closing: tuple[str, ...] = ()
        allowed = self.rolls_allowed(p)
        if refusal is None and 0 < n < allowed:
            cols = {b // rules.n_rows for b in self._fillable(p, n, turn.announced)}
            closing = tuple(rules.columns[c].id for c in sorted(cols) if rules.columns[c].rolls == n)
        total = grand_total(rules, self.sheets[p])  # once: every legal box's gain is measured from it
        boxes = tuple(self._box_outlook(p, b, refusal, announceable, total) for b in range(rules.n_boxes))
        can_withdraw = (
            refusal is None and turn.announced is not None and n == 1 and self._column(turn.announced).withdraw
        )
        return Outlook(
            player=p,
            to_act=refusal is None,
            rolls=n,
            rolls_left=allowed - n,
            can_roll=roll_code is None,
            roll_code=roll_code,
            roll_reason=roll_reason,
            must_announce=refusal is None and self._needs_announcement(p),
            closing=closing,
            can_withdraw=can_withdraw,
            announced=rules.box_id(turn.announced) if turn.announced is not None else None,
            boxes=boxes,
        )

    def box_outlook(self, box: str, player: int | None = None) -> BoxOutlook:
        """One box of `outlook(player)`, worked out alone: a score-keeper asks about one entry at a
        time, and the whole sheet's outlook for each would cost as many times more."""
        p = self.current if player is None else player
        refusal = self._turn_refusal(p)
        announceable = set(self.announceable(p)) if refusal is None else set()
        return self._box_outlook(p, self._parse_box(box), refusal, announceable)

    def _turn_refusal(self, p: int) -> IllegalAction | None:
        """Why seat p may not act at all now (the first checks of `apply`), or None."""
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < len(self.players):
            raise _illegal("no-such-seat", f"there is no seat {shown(p)} at this table")
        if self.finished:
            return _illegal("game-over", "the game is over")
        if self.sheets[p].full:
            return _illegal("game-over", f"{self.players[p]} has filled every box")
        if self._waits(p):
            return _outright_wait(self, p)
        if not self.simultaneous and p != self.current:
            return _illegal("not-your-turn", f"it is {self.players[self.current]}'s turn, not {self.players[p]}'s")
        return None

    def _box_outlook(
        self, p: int, box: int, refusal: IllegalAction | None, announceable: set[str], total: int | None = None
    ) -> BoxOutlook:
        rules = self.rules
        box_id = rules.box_id(box)
        is_open = self.sheets[p].written[box] is None
        bounds = self.entry_bounds(box, p) if is_open else ()
        announce, roll_matters = box_id in announceable, rules.box_roll_matters(box)
        # the refusals known without `_entry_five`'s work, made without raising them (a raise costs more than
        # the rest of a closed box's outlook, and most boxes are closed late in a game)
        exc = refusal
        if exc is None and not self.turns[p].rolls:
            exc = _illegal("roll-first", "roll the dice before choosing a box")
        if exc is None and not is_open:  # what `_entry_five` would say first
            exc = _box_closed(box_id)
        if exc is None:
            try:
                five = self._entry_five(p, box)
            except IllegalAction as refused:
                exc = refused
        if exc is not None:
            return BoxOutlook(
                box_id,
                is_open,
                legal=False,
                code=exc.code,
                reason=exc.message,
                announce=announce,
                roll_matters=roll_matters,
                bounds=bounds,
            )
        written = self._written(p, box, five)
        after = self._after_entry(p, box, five, strike=False, value=written)
        total = grand_total(rules, self.sheets[p]) if total is None else total
        strike = rules.strike_any and written > 0
        before = self.sheets[p]
        if strike:
            struck: int | None = (
                total_after_entry(rules, before, self._after_entry(p, box, five, strike=True), box) - total
            )
        else:
            struck = None
        return BoxOutlook(
            box_id,
            is_open,
            legal=True,
            written=written,
            gain=total_after_entry(rules, before, after, box) - total,
            zeroes_pair=triggers(bounds, "zeroes-pair", written),
            voids_entry=box in after.voided,
            joker=self._joker_active(p, five),
            strike=strike,
            strike_gain=struck,
            announce=announce,
            roll_matters=roll_matters,
            bounds=bounds,
            extra_bonus=after.extra_bonus - self.sheets[p].extra_bonus,
        )

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """Every distinct action the player may take (holds deduplicated by dice values)."""
        p = self.current if player is None else player
        if self.finished or self.sheets[p].full or p not in self.to_act():
            return []
        turn = self.turns[p]
        if not turn.rolls:
            return [Roll(p)]
        actions: list[Action] = []
        n_dice = self.rules.rolled_dice
        if self.can_roll(p):
            seen: set[tuple[int, ...]] = set()
            for size in range(n_dice):
                for held in combinations(range(n_dice), size):
                    key = tuple(sorted(turn.dice[i] for i in held))
                    if key not in seen:
                        seen.add(key)
                        actions.append(Roll(p, held=held))
        actions += [Announce(p, box_id) for box_id in self.announceable(p)]
        if turn.announced is not None and len(turn.rolls) == 1 and self._column(turn.announced).withdraw:
            actions.append(Withdraw(p))
        preview = self.preview(p)
        for box_id, value in preview.items():
            actions.append(Score(p, box_id))
            if self.rules.strike_any and value > 0:
                actions.append(Score(p, box_id, strike=True))
        return actions

    def with_dice(self, source: DiceSource) -> GameState:
        """The same position with another dice source (a replayed game going on live)."""
        return self._replace(dice_source=source)

    def with_edits(self, edits: tuple[Mapping[str, JSONValue], ...]) -> GameState:
        """The same game with a kept sheet's corrections, roll-offs and undos listed (`yambak.keeper.edits`)."""
        return self._replace(edits=edits)

    def with_stand_in(self, seat: int, box: str) -> GameState:
        """The same game with `box` (as `parse_box` reads it) marked filled by a stand-in for `seat`."""
        index = self.rules.parse_box(box)
        if index is None:
            raise ValueError(f"no box {box!r} in these rules")
        return self._replace(stand_in=self.stand_in | {(seat, self.rules.box_id(index))})

    # --- applying actions --------------------------------------------------------------

    def apply(self, action: Action) -> tuple[GameState, Event]:
        player = getattr(action, "player", None)
        if not isinstance(action, (Roll, Hold, Release, Announce, Withdraw, Score, Undo)):
            raise _illegal("unknown-action", f"not an action: {type(action).__name__}")
        if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < len(self.players):
            raise _illegal("no-such-seat", f"there is no seat {shown(player)} at this table")
        if isinstance(action, Undo):
            return self._undo(player)
        if self.finished:
            raise _illegal("game-over", "the game is over")
        if self.sheets[player].full:
            raise _illegal("game-over", f"{self.players[player]} has filled every box")
        if self._waits(player):
            raise _outright_wait(self, player)
        if not self.simultaneous and player != self.current:
            raise _illegal("not-your-turn", f"it is {self.players[self.current]}'s turn, not {self.players[player]}'s")
        if isinstance(action, Roll):
            return self._roll(action)
        if isinstance(action, (Hold, Release)):
            return self._hold(action)
        if isinstance(action, Announce):
            return self._announce(action)
        if isinstance(action, Withdraw):
            return self._withdraw(action)
        return self._score(action)

    def _with_turn(self, player: int, turn: Turn, **changes: object) -> GameState:
        turns = self.turns[:player] + (turn,) + self.turns[player + 1 :]
        return self._replace(turns=turns, **changes)

    def _replace(self, **changes: object) -> GameState:
        # A field-by-field copy: cheaper than dataclasses.replace on this hot path.
        new = object.__new__(GameState)
        for name in _FIELDS:
            object.__setattr__(new, name, changes[name] if name in changes else getattr(self, name))
        return new

    def _positions(self, dice: object, what: str) -> frozenset[int]:
        n = self.rules.rolled_dice
        if not isinstance(dice, (tuple, list)) or not all(isinstance(i, int) and not isinstance(i, bool) for i in dice):
            raise _illegal("bad-hold", f"{what}: die positions must be a list of numbers 0 to {n - 1}")
        if any(not 0 <= i < n for i in dice) or len(set(dice)) != len(dice):
            raise _illegal("bad-hold", f"{what}: die positions must be different numbers from 0 to {n - 1}")
        return frozenset(dice)

    def _check_roll(self, p: int, held: frozenset[int]) -> None:
        turn = self.turns[p]
        n = len(turn.rolls)
        allowed = self.rolls_allowed(p)
        if n >= allowed:
            per_turn = f"{self.rules.rolls_per_turn} per turn"
            if self.rules.save_rolls:
                per_turn += f" and {self.sheets[p].saved} saved"
            raise _illegal("no-rolls-left", f"no rolls left: {per_turn}; choose a box")
        if n and len(held) == self.rules.rolled_dice:
            raise _illegal("all-held", "every die is held: release at least one to roll")
        if not any(self._fillable(p, m, turn.announced) for m in range(n + 1, allowed + 1)):
            if self._needs_announcement(p):
                raise _illegal("dead-end", "only announce boxes are left: announce one before rolling again")
            raise _illegal("dead-end", "no open box could be filled after another roll: choose a box now")

    def _needs_announcement(self, p: int) -> bool:
        """Right after roll 1, with nothing announced: only announce boxes could take a later roll."""
        turn = self.turns[p]
        if len(turn.rolls) != 1 or turn.announced is not None:
            return False
        if any(self._fillable(p, m, None) for m in range(2, self.rolls_allowed(p) + 1)):
            return False
        return any(self._column(b).announce for b in self._fillable(p, 1, None))

    def _roll(self, action: Roll) -> tuple[GameState, Event]:
        p = action.player
        turn = self.turns[p]
        n = len(turn.rolls)
        held = turn.held if n else frozenset()
        if action.held is not None:
            held = self._positions(action.held, "held")
            if held and not n:
                raise _illegal("hold-before-roll", "nothing to hold before the first roll")
        self._check_roll(p, held)
        n_dice = self.rules.rolled_dice
        if action.dice is not None:
            if not self.dice_source.manual:
                raise _illegal("dice-not-allowed", "the dice are rolled here; a roll cannot state its values")
            dice = action.dice
            if (
                not isinstance(dice, (tuple, list))
                or len(dice) != n_dice
                or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
            ):
                raise _illegal("bad-dice", f"a roll is {n_dice} dice, each 1 to 6, not {shown(dice)}")
            if any(dice[i] != turn.dice[i] for i in held):
                raise _illegal("held-changed", "a held die cannot change its value")
            new = tuple(dice)
        else:
            if self.dice_source.manual:
                raise _illegal("dice-required", "manual dice: say what the dice show")
            ctx = RollContext(player=p, turn=self.sheets[p].turns, roll=n + 1, serial=self.serial)
            fresh = iter(self.dice_source.draw(n_dice - len(held), ctx))
            new = tuple(turn.dice[i] if i in held else next(fresh) for i in range(n_dice))
        kept: tuple[tuple[int, ...], ...] | None = ()
        if n:  # what this reroll kept; unknown when typed dice did not say
            if turn.kept is None or (action.dice is not None and action.held is None):
                kept = None
            else:
                kept = turn.kept + (tuple(sorted(turn.dice[i] for i in held)),)
        state = self._with_turn(
            p, Turn(turn.rolls + (new,), held, turn.announced, kept), serial=self.serial + 1, undo_point=None
        )
        return state, Event("rolled", p, roll=n + 1, dice=new, held=tuple(sorted(held)))

    def can_undo(self, player: int) -> bool:
        """Whether `player` may take back their last entry now (see `Undo`)."""
        try:
            self._undo(player)
        except IllegalAction:
            return False
        return True

    def _undo(self, p: int) -> tuple[GameState, Event]:
        if self.finished:
            raise _illegal("game-over", "the game is over")
        before = self.undo_point
        if before is None or not self.history:
            raise _illegal("no-undo", "nothing to take back: a roll has been made since the last entry")
        last = self.history[-1]
        if last.player != p:
            raise _illegal("no-undo", f"only {self.players[last.player]} can take back the last entry")
        turn = before.turns[p]
        return before, Event(
            "undone", p, roll=len(turn.rolls), dice=turn.dice, held=tuple(sorted(turn.held)), box=last.box
        )

    def _hold(self, action: Hold | Release) -> tuple[GameState, Event]:
        p = action.player
        turn = self.turns[p]
        positions = self._positions(action.dice, "hold" if isinstance(action, Hold) else "release")
        if not turn.rolls:
            raise _illegal("hold-before-roll", "nothing to hold before the first roll")
        held = turn.held | positions if isinstance(action, Hold) else turn.held - positions
        if held == turn.held:  # a version that changes nothing is no move (a stale tap, a replayed message)
            if isinstance(action, Hold):
                raise _illegal("already-held", f"hold: die {_places(positions)} is held already")
            raise _illegal("not-held", f"release: die {_places(positions)} is not held")
        kind = "held" if isinstance(action, Hold) else "released"
        state = self._with_turn(p, Turn(turn.rolls, held, turn.announced, turn.kept))
        return state, Event(kind, p, roll=len(turn.rolls), dice=turn.dice, held=tuple(sorted(held)))

    def _parse_box(self, text: str) -> int:
        box = self.rules.parse_box(text)
        if box is None:
            raise _illegal("box-unknown", f"there is no box {shown(text)} on this sheet")
        return box

    def _column(self, box: int) -> Column:
        return self.rules.columns[box // self.rules.n_rows]

    def _announce(self, action: Announce) -> tuple[GameState, Event]:
        p = action.player
        turn = self.turns[p]
        n = len(turn.rolls)
        if n == 0:
            raise _illegal("announce-early", "announce after the first roll")
        if n > 1:
            raise _illegal("announce-late", "announcements are made right after the first roll only")
        if turn.announced is not None:
            raise _illegal("already-announced", f"{self.rules.box_id(turn.announced)} is already announced")
        box = self._parse_box(action.box)
        if not self._column(box).announce:
            raise _illegal("announce-column", f"{self.rules.box_id(box)} is not in an announce column")
        self._check_position(p, box, 1, None)
        state = self._with_turn(p, Turn(turn.rolls, turn.held, box, turn.kept))
        return state, Event(
            "announced", p, roll=n, dice=turn.dice, held=tuple(sorted(turn.held)), box=self.rules.box_id(box)
        )

    def _withdraw(self, action: Withdraw) -> tuple[GameState, Event]:
        p = action.player
        turn = self.turns[p]
        if turn.announced is None:
            raise _illegal("withdraw", "there is no announcement to withdraw")
        if not self._column(turn.announced).withdraw:
            raise _illegal("withdraw", "an announcement in this column stands")
        if len(turn.rolls) != 1:
            raise _illegal("withdraw", "an announcement can only be withdrawn before roll 2")
        state = self._with_turn(p, Turn(turn.rolls, turn.held, None, turn.kept))
        return state, Event("withdrawn", p, roll=1, dice=turn.dice, held=tuple(sorted(turn.held)))

    # --- boxes -------------------------------------------------------------------------

    def _order_rows(self, p: int, ci: int) -> list[int]:
        """Rows of column ci its fill order allows now (open ones only)."""
        column = self.rules.columns[ci]
        n_rows = self.rules.n_rows
        written = self.sheets[p].written[ci * n_rows : (ci + 1) * n_rows]
        open_rows = [r for r, v in enumerate(written) if v is None]
        if not open_rows:
            return []
        order = column.order
        if order == "free":
            return open_rows
        if order == "down":
            return open_rows[:1]
        if order == "up":
            return open_rows[-1:]
        if order == "updown":
            return sorted({open_rows[0], open_rows[-1]})
        # middle: start at the middle pair, then grow the filled block outward
        filled = [r for r, v in enumerate(written) if v is not None]
        if not filled:
            return sorted(self.rules.row_index[s] for s in column.start)
        return [r for r in (filled[0] - 1, filled[-1] + 1) if 0 <= r < n_rows]

    def _fillable(self, p: int, n_rolls: int, announced: int | None) -> list[int]:
        """Boxes open, in order and allowed after roll n_rolls, before looking at the dice."""
        if announced is not None:
            return [announced]
        memo = self.sheets[p].memo
        key = ("fillable", n_rolls)
        if key not in memo:
            memo[key] = self._fillable_uncached(p, n_rolls)
        boxes: list[int] = memo[key]
        return boxes

    def _fillable_uncached(self, p: int, n_rolls: int) -> list[int]:
        out: list[int] = []
        n_rows = self.rules.n_rows
        for ci, column in enumerate(self.rules.columns):
            if column.rolls is not None and column.rolls != n_rolls:
                continue
            if column.announce and n_rolls != 1:  # announce-and-score happens right after roll 1
                continue
            out.extend(ci * n_rows + r for r in self._order_rows(p, ci) if self._needed_open(p, ci, r) is None)
        return out

    def _needed_open(self, p: int, ci: int, r: int) -> str | None:
        """The box a row's `needs` names while it is still open (this box must wait), else None."""
        needs = self.rules.rows[r].needs
        if not needs:
            return None
        box = ci * self.rules.n_rows + self.rules.row_index[needs]
        return self.rules.box_id(box) if self.sheets[p].written[box] is None else None

    def _check_position(self, p: int, box: int, n_rolls: int, announced: int | None) -> None:
        """Raise the precise reason a box cannot be filled (or announced) now, ignoring dice."""
        rules = self.rules
        column = self._column(box)
        box_id = rules.box_id(box)
        if self.sheets[p].written[box] is not None:
            raise _box_closed(box_id)
        if announced is not None and box != announced:
            raise _illegal("announced-elsewhere", f"{rules.box_id(announced)} was announced: the turn ends there")
        if column.rolls is not None and column.rolls != n_rolls:
            raise _illegal(
                "box-rolls",
                f"{column.id} boxes are filled right after roll {column.rolls} only (this is roll {n_rolls})",
            )
        if column.announce and announced is None and n_rolls != 1:
            raise _illegal("not-announced", f"{box_id} needs an announcement right after roll 1")
        if box % rules.n_rows not in self._order_rows(p, box // rules.n_rows):
            raise _illegal("box-order", f"{column.id} is filled {column.order}: {box_id} is not next")
        first = self._needed_open(p, box // rules.n_rows, box % rules.n_rows)
        if first is not None:
            raise _illegal("needs", f"{box_id} can be filled only after {first}")

    def _fives(self, dice: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The distinct sets of five dice that may count (just the dice, without six_dice)."""
        if len(dice) == self.rules.dice:
            return [tuple(sorted(dice))]
        return sorted({tuple(sorted(c)) for c in combinations(dice, self.rules.dice)})

    def _further_yam(self, p: int, five: tuple[int, ...]) -> bool:
        """A yam scored while the joker's yam box is filled: it earns the extra bonus (while that box
        holds a yam) and, unless the joker's placement is `none`, it is a joker."""
        return five[0] == five[-1] and self.sheets[p].joker_on(self.rules)

    def _joker_active(self, p: int, five: tuple[int, ...]) -> bool:
        """Whether a further yam scores as a joker (a full house and every straight): with the forced
        joker always; with the free one once the yam's face has its upper box filled (docs/rulesets.md)."""
        joker = self.rules.joker
        if joker is None or not joker.scores or not self._further_yam(p, five):
            return False
        return joker.placement == "forced" or not self.sheets[p].face_open(self.rules, five[0])

    def _written(self, p: int, box: int, five: tuple[int, ...], strike: bool = False) -> int:
        if strike:
            return 0
        rules = self.rules
        row = rules.rows[box % rules.n_rows]
        if not self.sheets[p].needed_scored(rules, box):  # scores only once the box it needs has scored
            return 0
        n = max(1, len(self.turns[p].rolls))
        return row_score(row, five, n, self._joker_active(p, five))

    def _zeroes_pair(self, p: int, box: int, value: int) -> bool:
        """Would this entry make a last-resort max/min pair score 0 (docs/rules.md §5)?"""
        return any(b.last_resort and b.hits(value) for b in self.entry_bounds(box, p))

    def _legal_for(self, p: int, five: tuple[int, ...]) -> list[int]:
        """The boxes these five dice may fill now, kept in the sheet's memo with the turn's part of the key
        (the outlook asks it of every box)."""
        turn = self.turns[p]
        memo = self.sheets[p].memo
        key = ("legal", len(turn.rolls), turn.announced, five)
        if key not in memo:
            memo[key] = self._legal_for_uncached(p, five)
        boxes: list[int] = memo[key]
        return boxes

    def _legal_for_uncached(self, p: int, five: tuple[int, ...]) -> list[int]:
        turn = self.turns[p]
        boxes = self._fillable(p, len(turn.rolls), turn.announced)
        joker = self.rules.joker
        if joker is not None and joker.placement == "forced" and self._further_yam(p, five):
            boxes = joker_boxes(self.rules, boxes, five[0])
        if any(rel.last_resort for rel in self.rules.relations):
            safe = [b for b in boxes if not self._zeroes_pair(p, b, self._written(p, b, five))]
            boxes = safe or boxes
        return boxes

    def _voided_at_entry(self, p: int, box: int, value: int) -> bool:
        """min_lt_max_at_entry: the second of a pair (or, strict, any min/max) must keep min < max."""
        return triggers(self.entry_bounds(box, p), "voids-entry", value)

    def _entry_five(self, p: int, box: int, strike: bool = False, use: object = None) -> tuple[int, ...]:
        """The five dice an entry in `box` counts now, or the IllegalAction refusing it: fill
        order and roll rules, `use` (six dice), the joker and the last-resort rule, in that order.
        Six dice without `use`: the five giving the best grand total after the entry."""
        rules = self.rules
        turn = self.turns[p]
        if box not in self._fillable(p, len(turn.rolls), turn.announced):  # the same checks, kept per sheet
            self._check_position(p, box, len(turn.rolls), turn.announced)  # raises the precise reason
        fives = self._fives(turn.dice)
        if use is not None:
            used: tuple[int, ...] | None = None
            if (
                isinstance(use, (tuple, list))
                and len(use) == rules.dice
                and all(isinstance(d, int) and not isinstance(d, bool) for d in use)
            ):
                used = tuple(use)
            if len(turn.dice) == rules.dice or used is None or not (Counter(used) <= Counter(turn.dice)):
                what = "five of the six dice rolled" if len(turn.dice) > rules.dice else "only for six dice"
                raise _illegal("use", f"use names {what}, not {shown(use)}")
            fives = [tuple(sorted(used))]
        allowed = [f for f in fives if box in self._legal_for(p, f)]
        if not allowed:
            five = fives[0]
            if self._joker_active(p, five) and self.rules.joker.placement == "forced":  # type: ignore[union-attr]
                raise _illegal("joker", f"joker: a yam of {five[0]}s must go to {self._joker_hint(p, five)}")
            raise _illegal(
                "last-resort",
                f"{rules.box_id(box)} would zero both {self._pair_names(box)}: another box can take these dice",
            )
        if len(allowed) == 1:
            return allowed[0]
        # Ties in the grand total (docs/decisions.md): the higher written value, except in a
        # relation's low row (min), where the lower value leaves more room.
        low_rows = {rules.row_index[rel.low] for rel in rules.relations}
        sign = -1 if box % rules.n_rows in low_rows else 1

        def merit(five: tuple[int, ...]) -> tuple[int, int]:
            sheet = self._after_entry(p, box, five, strike)
            return grand_total(rules, sheet), sign * (sheet.written[box] or 0)

        return max(allowed, key=merit)

    def _score(self, action: Score) -> tuple[GameState, Event]:
        rules = self.rules
        p = action.player
        turn = self.turns[p]
        n = len(turn.rolls)
        if n == 0:
            raise _illegal("roll-first", "roll the dice before choosing a box")
        box = self._parse_box(action.box)
        if not isinstance(action.strike, bool):
            raise _illegal("strike", "strike must be true or false")
        if action.strike and not rules.strike_any:
            raise _illegal("strike", "this ruleset does not allow striking a box for 0")
        best = self._entry_five(p, box, action.strike, action.use)
        sheet = self._after_entry(p, box, best, action.strike)
        record = TurnRecord(
            player=p,
            rolls=turn.rolls,
            box=rules.box_id(box),
            announce=rules.box_id(turn.announced) if turn.announced is not None else None,
            strike=action.strike,
            use=best if len(turn.dice) > rules.dice else None,
            held=turn.kept if len(turn.rolls) > 1 else None,
        )
        sheets = self.sheets[:p] + (sheet,) + self.sheets[p + 1 :]
        turns = self.turns[:p] + (Turn(),) + self.turns[p + 1 :]
        row = rules.rows[box % rules.n_rows]
        wins = bool(row.wins_by_roll) and not action.strike and n <= row.wins_by_roll and bool(sheet.written[box])
        outright = Outright((p,), sheet.turns, record.box).joined(self.outright) if wins else self.outright
        state = self._replace(
            sheets=sheets,
            turns=turns,
            history=self.history + (record,),
            current=self.next_seat(p),
            undo_point=self._replace(undo_point=None),
            outright=outright,
        )
        if state.finished:
            state = state._roll_offs()
        event = Event(
            "scored",
            p,
            roll=n,
            dice=turn.dice,
            box=record.box,
            written=sheet.written[box],
            extra_bonus=sheet.extra_bonus - self.sheets[p].extra_bonus,
            strike=action.strike,
            use=record.use,
            game_over=state.finished,
        )
        return state, event

    def _after_entry(self, p: int, box: int, five: tuple[int, ...], strike: bool, value: int | None = None) -> Sheet:
        """The sheet after the entry; `value`: what `_written` gives for it, when the caller has it."""
        sheet = self.sheets[p]
        value = self._written(p, box, five, strike) if value is None else value
        extra = sheet.joker_extra(self.rules) if self._further_yam(p, five) else 0
        voided = sheet.voided | {box} if self._voided_at_entry(p, box, value) else sheet.voided
        written = sheet.written[:box] + (value,) + sheet.written[box + 1 :]
        saved = sheet.saved
        if self.rules.save_rolls:  # the rolls this turn left unused (or took from the saved ones)
            saved += self.rules.rolls_per_turn - len(self.turns[p].rolls)
        return Sheet(written, voided, sheet.extra_bonus + extra, sheet.turns + 1, saved)

    def _joker_hint(self, p: int, five: tuple[int, ...]) -> str:
        return ", ".join(self.rules.box_id(b) for b in self._legal_for(p, five)) or "no box"

    def _pair_names(self, box: int) -> str:
        r = box % self.rules.n_rows
        for rel in self.rules.relations:
            if r in (self.rules.row_index[rel.high], self.rules.row_index[rel.low]):
                return f"{rel.high} and {rel.low}"
        return "boxes"

    def _roll_offs(self) -> GameState:
        """At the end of a live column-points game, roll off every tie (docs/rules.md §7)."""
        if (
            self.rules.match.kind != "column_points"
            or self.rules.match.ties != "rolloff"
            or len(self.players) < 2
            or self.dice_source.manual
        ):
            return self
        per_player = [self.column_scores(p) for p in range(len(self.players))]
        targets = [(c.id, [cols[ci].total for cols in per_player]) for ci, c in enumerate(self.rules.columns)]
        targets.append(("total", self.totals()))
        serial = self.serial
        recorded = []
        for target, results in targets:
            tied = tied_groups(results)
            rounds: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
            while len(tied) > 1 and len(rounds) < 50:
                round_ = []
                for seat in tied:
                    ctx = RollContext(player=seat, turn=self.sheets[seat].turns, roll=0, serial=serial)
                    round_.append((seat, self.dice_source.draw(self.rules.rolloff_dice, ctx)))
                    serial += 1
                rounds.append(tuple(round_))
                pips = [sum(d) for _, d in round_]
                tied = [seat for (seat, _), s in zip(round_, pips, strict=False) if s == max(pips)]
            if rounds:
                recorded.append((target, tuple(rounds)))
        return self._replace(rolloffs=tuple(recorded), serial=serial)


_FIELDS = [f for f in GameState.__dataclass_fields__]


def new_game(
    rules: Ruleset,
    players: list[str] | tuple[str, ...],
    dice: DiceSource | None = None,
    seed: int | str | None = None,
    simultaneous: bool = False,
) -> GameState:
    """A fresh game. Dice default to `SeededDice(seed)` (seed 0 if none is given)."""
    if not players:
        raise _illegal("no-players", "a game needs at least one player")
    source = dice if dice is not None else SeededDice(seed if seed is not None else 0)
    sheets = tuple(Sheet.empty(rules) for _ in players)
    turns = tuple(Turn() for _ in players)
    return GameState(
        rules=rules,
        players=tuple(players),
        sheets=sheets,
        turns=turns,
        dice_source=source,
        seed=seed,
        simultaneous=simultaneous,
    )
