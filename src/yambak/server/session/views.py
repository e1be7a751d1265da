"""What the server sends, as types: the session protocol's messages and the game view in them.

The views are made as plain dicts (`yambak.gameview`, which also runs on phones, where pydantic does not);
these models say what those dicts are. Tests hold every view a game produces to them
(`tests/server/test_protocol.py`), the JSON Schema the browser's types come from is generated from
them (`scripts/protocol.py`), and production does not validate each message (it costs a view's time).
"""

from __future__ import annotations

from typing import Annotated, Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Ack",
    "EventAck",
    "BoxOutlook",
    "Cell",
    "Column",
    "ErrorMessage",
    "EventMessage",
    "EventsMessage",
    "GameView",
    "HiddenTurn",
    "Missed",
    "Player",
    "Pong",
    "RulesLayout",
    "StateMessage",
    "TurnView",
    "Welcome",
]

Seat = Annotated[int, Field(ge=0)]
Version = Annotated[int, Field(ge=0)]
Ref = str | int
V = TypeVar("V")
E = TypeVar("E")


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


# --- the game view (yambak/gameview.py) -------------------------------------------------------------


class Cell(Model):
    """One box of a sheet: its score (null while open); `written` where the score differs from it."""

    score: int | None = None
    written: int | None = None
    why: Literal["zeroed", "minimax", "struck"] | None = None
    roll: int | None = None  # written after this roll, where the row pays more for it (points by roll)
    hidden: Literal[True] | None = None  # another player's box this viewer may not see yet


class Column(Model):
    boxes: dict[str, Cell]
    upper: int | None
    bonus: int | None
    bonus_to_go: int | None
    total: int | None
    minimax: int | None = None  # Yamb's (max - min) x ones, once ones, min and max are filled
    minimax_of: list[int] | None = None  # the written max, min and ones it multiplies


class BoxOutlook(Model):
    """An open box after this roll: what it would write and add, or the code of the rule refusing it."""

    legal: bool
    written: int | None = None
    gain: int | None = None
    strike: Literal[True] | None = None
    strike_gain: int | None = None
    zeroes_pair: Literal[True] | None = None
    voids_entry: Literal[True] | None = None
    joker: Literal[True] | None = None
    pair: list[str] | None = None
    code: str | None = None


class TurnView(Model):
    hidden: Literal[False] | None = None  # never sent: says a turn shown is not a `HiddenTurn`
    rolls: int
    rolls_left: int
    dice: list[int]
    held: list[int]
    announced: str | None
    can_roll: bool
    roll_code: str | None
    must_announce: bool
    closing: list[str]
    can_withdraw: bool
    announce: list[str]
    boxes: dict[str, BoxOutlook]


class HiddenTurn(Model):
    """A turn in progress this viewer may not see (duplicate tables): how far it is."""

    rolls: int
    hidden: Literal[True]


class CategoryPoints(Model):
    rows: dict[str, float]
    total: float
    points: float


class Player(Model):
    seat: Seat
    name: str
    total: int | None
    match_points: float | None
    extra_bonus: int | None
    columns: dict[str, Column]
    turn: TurnView | HiddenTurn | None
    turns_done: int
    saved_rolls: int | None = None  # save_rolls: the rolls the player has saved for later turns
    full: bool
    last_box: str | None
    stand_in: list[str] = []  # the boxes a stand-in filled for this person (away or out of time)
    # category_points games (Balut): each awarding row's points, the grand total's, and their sum, as they stand
    category_points: CategoryPoints | None = None


class Phrase(Model):
    """A sentence of the rule describer (rules/describe.py), worded by the page (page.js `phrase`)."""

    t: str  # the English template, the message id
    a: dict[str, int | float | str | Phrase | dict[str, str]] | None = None  # its values; a row: {"row": id}
    raw: bool | None = None  # the template is not a message of its own


class RulesColumn(Model):
    id: str
    order: str
    rolls: int | None
    announce: bool
    withdraw: bool
    points: int | None
    notes: list[Phrase]  # how the column is filled, and when
    label: str | None = None  # the ruleset file's own name for it
    multiplier: int = 1  # the column's total counts this many times (already in its `total`: never multiply)


class RulesRow(Model):
    id: str
    upper: bool
    kind: str  # the row kind of rules/ ("upper", "yam", ...): what a face may name (a yam made), never score
    label: str | None = None  # the ruleset file's own name for it
    short: str | None = None


class UpperBonus(Model):
    threshold: int
    points: int
    steps: list[list[int]]  # every (threshold, points): one step, or a stepped bonus's


class RulesLayout(Model):
    """A ruleset as a face lays it out (`Ruleset.layout()`)."""

    id: str
    name: str
    preset: str | None
    options: dict[str, Any]
    rows: list[RulesRow]
    columns: list[RulesColumn]
    rolled_dice: int  # the dice thrown per roll (six with the six_dice modifier; five of them count)
    rolloff_dice: int  # the dice each tied player rolls in a roll-off
    rolls_per_turn: int
    upper_bonus: UpperBonus | None
    match: str
    ties: str
    total_points: int | None
    roll_matters: bool
    minimax: bool
    minimax_rows: list[str] | None
    strike_any: bool
    joker_bonus: int | None
    joker: str | None  # the joker's placement: forced, free or none
    save_rolls: bool
    colours: list[str]  # faces 1 to 6: their pips' colours, where the ruleset gives them
    wins_outright: bool
    win_points: int | None = None  # what the exact coach counts an outright win as (docs/rulesets.md)


class RolloffDice(Model):
    dice: list[int]
    pips: int


class RoundEntry(Model):
    seat: Seat
    rolls: list[list[int]]
    box: str
    written: int | None


class Round(Model):
    round: int
    players: list[RoundEntry]


class Decided(Model):
    """What decided a finished game (`yambak.gameview.decided`)."""

    by: Literal["alone", "outright", "shared", "points", "match_points", "rolloff", "total"]
    next: int | None  # the best-placed seat behind the winners
    seats: list[Seat] | None = None  # won outright (docs/rules.md §7): the seats that won at once
    turn: int | None = None  # ... on the turn of their own
    box: str | None = None  # ... in this box
    by_roll: int | None = None  # ... which had to be made by this roll (1: served)


class Sentence(Model):
    """A sentence of the end, worded by `yambak.gameview.end_words`: the page translates `text` (English, a
    catalog's msgid) and fills in `args` (numbers as the language writes them, a `box` by its name)."""

    text: str
    args: dict[str, str | int | float]


class OutrightWin(Model):
    """An outright win (`engine.Outright`): the seats, the turn of their own, the box, the roll it had to be
    made by (1: served)."""

    seats: list[Seat]
    turn: Annotated[int, Field(ge=1)]
    box: str
    by_roll: Annotated[int, Field(ge=1)]


class GameView(Model):
    rules: RulesLayout
    duplicate: bool
    finished: bool
    current: Seat
    to_act: list[Seat]
    next_seat: list[Seat]  # by seat: the seat whose turn follows
    players: list[Player]
    column_winners: dict[str, list[Seat]] | None = None
    winners: list[Seat] | None = None
    standings: list[Annotated[int, Field(ge=1)]] | None = None  # finished: each seat's place (1: the winners)
    ranking: list[Seat] | None = None  # finished: the seats by place, best first
    rolloffs: dict[str, list[dict[str, RolloffDice]]] | None = None
    rounds: list[Round] | None = None  # duplicate tables: the last rounds, how each player used the same dice
    decided: Decided | None = None  # finished: what decided the win
    end: list[Sentence] | None = None  # finished: its headline and what decided it, in words (gameview.end_words)
    # won at once (docs/rules.md §7); on a duplicate table the others still play that turn
    outright: OutrightWin | None = None


# --- the session protocol's messages -------------------------------------------------------------


class Welcome(Model):
    type: Literal["welcome"]
    v: Version
    seats: list[Seat]
    protocol: int


class Pong(Model):
    type: Literal["pong"]


class Ack(Model):
    """An action applied before under this ref (a queue sent again): no new event."""

    type: Literal["ack"]
    ref: Ref
    v: Version


class EventAck(Model, Generic[E]):
    """An action applied before under this ref (sent again after a lost answer, a reconnect or a takeover):
    the event it made; nothing new happened."""

    type: Literal["ack"]
    ref: Ref
    v: Version
    event: E


class ErrorMessage(BaseModel):
    """A refusal: a stable code, a message in the viewer's language, the ref of the action it refuses, and
    fields a face words its own message from (`v`, `current`, `invalid`, ...)."""

    model_config = ConfigDict(extra="allow")
    type: Literal["error"]
    code: str
    message: str
    ref: Ref | None = None


class Missed(Model, Generic[E]):
    v: Version
    event: E
    ref: Ref | None = None


class EventMessage(Model, Generic[V, E]):
    """An accepted action: its event, the view after it, and the ref of the action it answers."""

    type: Literal["event"]
    v: Version
    event: E
    view: V
    ref: Ref | None = None


class EventsMessage(Model, Generic[V, E]):
    """What a reconnecting client missed since the version it said, and the view after it (none when it
    missed nothing: the view it has is current)."""

    type: Literal["events"]
    v: Version
    events: list[Missed[E]]
    view: V | None = None


class StateMessage(Model, Generic[V]):
    type: Literal["state"]
    v: Version
    view: V
