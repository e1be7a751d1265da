"""What the engine says about a position, for every face that shows one.

`GameState.outlook(player)` answers every question a table, a score-keeper, a
bot or a coach asks about the boxes of a sheet: which may be filled now and why
not, what each would write and add to the total, what an entry would do to a
related pair, where the joker applies, which may be struck, announced, or depend
on the roll number. Faces draw these answers; none of them re-derives a rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..viewtypes import JSONObject

__all__ = ["BoxOutlook", "EntryBound", "Outlook", "triggers"]


@dataclass(frozen=True, slots=True)
class EntryBound:
    """What writing a value in a box does to a related pair (docs/rules.md §5).

    A value v triggers `effect` when v <= `limit` (`below`: the high row, max or plus)
    or v >= `limit` (the low row, min). `hits` works on a number and, element-wise,
    on an array of values (bots test the 252 hands at once).

    effects: `zeroes-pair` (max_gt_min: both boxes of the pair score 0; with
    `last_resort` the entry is refused while another box can take the dice) and
    `voids-entry` (min_lt_max_at_entry: the new entry scores 0).
    """

    effect: str
    below: bool
    limit: int
    relation: str = ""
    last_resort: bool = False
    pair: tuple[str, str] = ("", "")  # the relation's (high, low) row ids

    def hits(self, value: Any) -> Any:
        return value <= self.limit if self.below else value >= self.limit

    def to_dict(self) -> JSONObject:
        return {
            "effect": self.effect,
            "below": self.below,
            "limit": self.limit,
            "relation": self.relation,
            "last_resort": self.last_resort,
            "pair": [*self.pair],
        }


def triggers(bounds: tuple[EntryBound, ...], effect: str, value: int) -> bool:
    """Whether writing `value` in a box with these bounds triggers `effect` (`zeroes-pair` or
    `voids-entry`): the one test behind the engine's scoring and every warning a face shows."""
    return any(b.effect == effect and b.hits(value) for b in bounds)


@dataclass(frozen=True, slots=True)
class BoxOutlook:
    """One box of a player's sheet, as things stand.

    `legal`: the turn may end here now. Otherwise `code` and `reason` are what
    `apply(Score(...))` would refuse it with. `written` is the value the dice
    would write (the best five with six dice) and `gain` the change of the
    player's grand total (bonuses, zeroed pairs and the joker's extra included);
    both are None unless the box is legal.
    """

    box: str
    open: bool
    legal: bool
    code: str | None = None
    reason: str | None = None
    written: int | None = None
    gain: int | None = None
    zeroes_pair: bool = False  # writing it now makes a max/min pair score 0 (`pair` names its rows)
    voids_entry: bool = False  # writing it now scores 0 (min must stay below max)
    joker: bool = False  # the Yahtzee joker applies to this entry
    strike: bool = False  # may be struck for 0 instead of `written` (strike_any)
    strike_gain: int | None = None  # the change of the grand total if struck instead
    announce: bool = False  # may be announced now
    roll_matters: bool = False  # the roll number changes its score or whether it may be filled
    bounds: tuple[EntryBound, ...] = ()
    extra_bonus: int = 0  # the joker's extra this entry adds to the player (counted in `gain` and `strike_gain`)

    def zeroes_pair_at(self, value: int) -> bool:
        """Whether writing `value` here (a struck 0, typed dice) would make a max/min pair score 0."""
        return triggers(self.bounds, "zeroes-pair", value)

    def voids_entry_at(self, value: int) -> bool:
        """Whether writing `value` here would score 0 itself (min must stay below max)."""
        return triggers(self.bounds, "voids-entry", value)

    @property
    def pair(self) -> tuple[str, str] | None:
        """The (high, low) rows this entry would zero, or be voided against, if it would."""
        if self.zeroes_pair or self.voids_entry:
            for b in self.bounds:
                if b.hits(self.written):
                    return b.pair
        return None

    def to_dict(self) -> JSONObject:
        out: JSONObject = {"open": self.open, "legal": self.legal}
        if self.legal:
            out.update(written=self.written, gain=self.gain)
            if self.strike:
                out["strike_gain"] = self.strike_gain
        elif self.open and self.code is not None:
            out.update(code=self.code, reason=self.reason)
        if self.pair is not None:
            out["pair"] = [*self.pair]
        for name in ("zeroes_pair", "voids_entry", "joker", "strike", "announce", "roll_matters"):
            if getattr(self, name):
                out[name] = True
        if self.bounds and self.open:
            out["bounds"] = [b.to_dict() for b in self.bounds]
        return out


@dataclass(frozen=True, slots=True)
class Outlook:
    """A player's position: the turn, and every box of the sheet in sheet order."""

    player: int
    to_act: bool  # this seat may act now
    rolls: int  # rolls made this turn
    rolls_left: int
    can_roll: bool
    roll_code: str | None  # why rolling is refused now (None when it is allowed)
    roll_reason: str | None
    must_announce: bool  # only announce boxes are left: announce before rolling again
    closing: tuple[str, ...]  # columns whose open boxes can be filled only right now
    can_withdraw: bool
    announced: str | None
    boxes: tuple[BoxOutlook, ...]

    def box(self, box_id: str) -> BoxOutlook:
        for b in self.boxes:
            if b.box == box_id:
                return b
        raise KeyError(box_id)

    @property
    def legal(self) -> tuple[BoxOutlook, ...]:
        return tuple(b for b in self.boxes if b.legal)

    def to_dict(self) -> JSONObject:
        return {
            "player": self.player,
            "to_act": self.to_act,
            "rolls": self.rolls,
            "rolls_left": self.rolls_left,
            "can_roll": self.can_roll,
            "roll_code": self.roll_code,
            "roll_reason": self.roll_reason,
            "must_announce": self.must_announce,
            "closing": [*self.closing],
            "can_withdraw": self.can_withdraw,
            "announced": self.announced,
            "boxes": {b.box: b.to_dict() for b in self.boxes},
        }
