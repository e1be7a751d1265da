"""The shapes of the game view, as types without pydantic: what `yambak.gameview` builds (and the kept
sheet's and the table's views on top of it), and the session protocol's messages that carry them. The
view's run on phones too (Pyodide), where pydantic does not.

Each `TypedDict` here mirrors the pydantic model of the same name in `yambak.server.session.views` (or
`server/keeper/schema.py`, `server/tables/schema.py`): the same keys, a key required here exactly where
the model requires it (a model's field with a default is `NotRequired` here). `tests/test_viewtypes.py`
holds them to each other.

No `from __future__ import annotations` here: Python 3.11's `TypedDict` reads `NotRequired` only from
annotations it can see, not from strings.
"""

from typing import Any, Literal, NotRequired, TypedDict, final

__all__ = [
    "BoxOutlook",
    "CategoryPoints",
    "Cell",
    "Column",
    "DealOut",
    "Decided",
    "GameView",
    "HiddenTurn",
    "HistoryEntry",
    "OutrightWin",
    "Phrase",
    "Player",
    "RolloffDice",
    "RulesColumn",
    "RulesLayout",
    "RulesRow",
    "Round",
    "RoundEntry",
    "SeatingOut",
    "Sentence",
    "SheetAction",
    "SheetPlayer",
    "SheetView",
    "TablePlayer",
    "TableSettingsOut",
    "TableView",
    "TurnView",
    "UpperBonus",
    "Ack",
    "EventMessage",
    "EventsMessage",
    "FairnessOut",
    "Missed",
    "NonceOut",
    "PlayedFor",
    "StateMessage",
    "Welcome",
    "JSONValue",
    "JSONObject",
    "SessionView",
    "CoachAction",
    "CoachOption",
    "CoachAdvice",
]


class Cell(TypedDict):
    """One box of a sheet: its score (absent only when hidden), `written` where the score differs from it."""

    score: NotRequired[int | None]
    written: NotRequired[int | None]
    why: NotRequired[Literal["zeroed", "minimax", "struck"]]
    roll: NotRequired[int]
    hidden: NotRequired[Literal[True]]


class Column(TypedDict):
    boxes: dict[str, Cell]
    upper: int | None
    bonus: int | None
    bonus_to_go: int | None
    total: int | None
    minimax: NotRequired[int | None]
    minimax_of: NotRequired[list[int | None]]


class BoxOutlook(TypedDict):
    """An open box after this roll: what it would write and add, or the code of the rule refusing it."""

    legal: bool
    written: NotRequired[int | None]
    gain: NotRequired[int | None]
    strike: NotRequired[Literal[True]]
    strike_gain: NotRequired[int | None]
    zeroes_pair: NotRequired[Literal[True]]
    voids_entry: NotRequired[Literal[True]]
    joker: NotRequired[Literal[True]]
    pair: NotRequired[list[str]]
    code: NotRequired[str | None]


class TurnView(TypedDict):
    hidden: NotRequired[Literal[False]]  # never sent (the model's way to tell it from a `HiddenTurn`)
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


@final  # no other keys: mypy tells it from a `TurnView` by `"dice" in turn`
class HiddenTurn(TypedDict):
    """A turn in progress this viewer may not see (duplicate tables): how far it is."""

    rolls: int
    hidden: Literal[True]


class CategoryPoints(TypedDict):
    rows: dict[str, float]
    total: float
    points: float


class Player(TypedDict):
    seat: int
    name: str
    total: int | None
    match_points: float | None
    extra_bonus: int | None
    columns: dict[str, Column]
    turn: TurnView | HiddenTurn | None
    turns_done: int
    saved_rolls: NotRequired[int | None]
    full: bool
    last_box: str | None
    stand_in: NotRequired[list[str]]
    category_points: NotRequired[CategoryPoints | None]


class RolloffDice(TypedDict):
    dice: list[int]
    pips: int


class RoundEntry(TypedDict):
    seat: int
    rolls: list[list[int]]
    box: str
    written: int | None


class Round(TypedDict):
    round: int
    players: list[RoundEntry]


class OutrightWin(TypedDict):
    """An outright win: the seats, the turn of their own, the box, the roll it had to be made by (1: served)."""

    seats: list[int]
    turn: int
    box: str
    by_roll: int


class Decided(TypedDict):
    """What decided a finished game (`yambak.gameview.decided`); an outright win adds its fields."""

    by: Literal["alone", "outright", "shared", "points", "match_points", "rolloff", "total"]
    next: int | None
    seats: NotRequired[list[int]]
    turn: NotRequired[int]
    box: NotRequired[str]
    by_roll: NotRequired[int]


class Sentence(TypedDict):
    """A sentence of the end: `text` one of `gameview.END_STRINGS`, `args` the values it names."""

    text: str
    args: dict[str, str | int | float]


class Phrase(TypedDict):
    """A sentence of the rule describer (`rules.describe.Phrase.to_json`), worded by the page."""

    t: str
    a: NotRequired[dict[str, "int | float | str | Phrase | dict[str, str]"]]
    raw: NotRequired[bool]


class RulesRow(TypedDict):
    id: str
    upper: bool
    kind: str
    label: NotRequired[str]
    short: NotRequired[str]


class RulesColumn(TypedDict):
    id: str
    order: str
    rolls: int | None
    announce: bool
    withdraw: bool
    points: float | None
    multiplier: NotRequired[int]
    notes: list[Phrase]
    label: NotRequired[str]


class UpperBonus(TypedDict):
    threshold: int
    points: int
    steps: list[list[int]]


class RulesLayout(TypedDict):
    """A ruleset as a face lays it out (`Ruleset.layout()`)."""

    id: str
    name: str
    preset: str | None
    options: dict[str, Any]
    rows: list[RulesRow]
    columns: list[RulesColumn]
    rolled_dice: int
    rolloff_dice: int
    rolls_per_turn: int
    upper_bonus: UpperBonus | None
    save_rolls: bool
    colours: list[str]
    match: str
    ties: str
    total_points: float | None
    roll_matters: bool
    minimax: bool
    minimax_rows: list[str] | None
    strike_any: bool
    joker_bonus: int | None
    joker: str | None
    wins_outright: bool
    win_points: NotRequired[int | None]


class ViewKeys(TypedDict):
    """The keys of a game view every face shares (`GameView` adds its `players`; `SheetView`, `TableView`
    theirs, with their own kind of player)."""

    rules: RulesLayout
    duplicate: bool
    finished: bool
    current: int
    to_act: list[int]
    next_seat: list[int]
    column_winners: NotRequired[dict[str, list[int]]]
    winners: NotRequired[list[int]]
    standings: NotRequired[list[int]]
    ranking: NotRequired[list[int]]
    rolloffs: NotRequired[dict[str, list[dict[str, RolloffDice]]]]
    rounds: NotRequired[list[Round]]
    decided: NotRequired[Decided | None]
    end: NotRequired[list[Sentence] | None]
    outright: NotRequired[OutrightWin]


class GameView(ViewKeys):
    players: list[Player]


# --- the kept sheet's view (yambak.keeper.view.sheet_view) -------------------------------------------


class SheetPlayer(Player):
    fillable: dict[str, list[str]]  # by roll number: the boxes the sheet can take then


class HistoryEntry(TypedDict):
    n: int
    player: int
    dice: list[int] | None
    roll: int
    box: str
    strike: bool
    scratch: bool
    announced: bool
    written: int | None


class SheetAction(TypedDict):
    """Something done on a kept sheet that undo takes back (`keeper.edits`)."""

    kind: Literal["entry", "correction", "rolloff"]
    n: NotRequired[int | None]
    player: NotRequired[int | None]
    turn: NotRequired[int | None]
    target: NotRequired[str | None]
    at: NotRequired[int | None]


class SheetView(ViewKeys):
    """A game view with `players` as `SheetPlayer`, and the kept sheet's own keys."""

    players: list[SheetPlayer]
    id: str
    name: str
    v: int
    history: list[HistoryEntry]
    record: "JSONObject"  # the game record (docs/rules.md §11)
    last: NotRequired[SheetAction | None]
    undone: NotRequired[list[SheetAction]]
    rolloff_due: NotRequired[dict[str, list[int]] | None]


# --- a live table's view (yambak.server.tables.view.table_view) ------------------------------------


class TablePlayer(Player):
    kind: Literal["human", "bot", "open"]  # a seat's kind as the store keeps it
    bot: str | None
    bot_model: NotRequired[Literal["prior", "unchecked"] | None]


class TableSettingsOut(TypedDict):
    """A table's settings (`TableSettings.to_dict`, as stored) and, in a view, whether it runs over days."""

    hints: bool
    clock: int | None
    undo: bool
    deal: NotRequired[str | None]
    ranked: NotRequired[str | None]
    asynchronous: NotRequired[bool]


class SeatingOut(TypedDict):
    """The host (the first seat held by a person) and what it may do with an open seat now."""

    host: int | None
    remove: bool
    bot: bool


class DealOut(TypedDict):
    """A deal's table: when the deal closes, the seconds left by the server's clock, whether it has."""

    id: str
    closes_at: str | None
    left: float | None
    closed: bool
    paused: bool
    cancelled: NotRequired[bool]


class NonceOut(TypedDict):
    seat: int
    nonce: str


class FairnessOut(TypedDict):
    """The dice commitment (docs/fairness.md), the seed once revealed; `open` while nonces may come."""

    scheme: str
    commitment: str
    seed: str | None
    nonces: list[NonceOut]
    open: bool


class PlayedFor(TypedDict):
    """An entry the stand-in made for a player who was away."""

    box: str
    written: int
    strike: NotRequired[Literal[True] | None]


class TableKeys(TypedDict):
    """What a table's view adds to (or puts in place of) the game view's keys (`server/tables/view.py`
    builds them); a part of `TableView`, checked with it against the protocol's model."""

    players: list[TablePlayer]
    id: str
    name: str
    v: int
    rematch: str | None
    open_seats: list[int]
    online: list[int]
    settings: TableSettingsOut
    clocks: dict[str, float]
    stand_in: dict[str, float]
    played_for: dict[str, list[PlayedFor]]
    seating: SeatingOut
    can_undo: list[int]
    fairness: FairnessOut | None
    deal: NotRequired[DealOut | None]


class TableView(ViewKeys, TableKeys):
    """A game view with `players` as `TablePlayer`, and the table's own keys."""


# --- the coach's advice on one decision (`coach.Advice.to_dict`; a table's socket sends it) -----------


class CoachAction(TypedDict):
    """The engine action that takes a coach's option, spelt as the client's own message would be."""

    type: Literal["roll", "score", "announce"]
    held: NotRequired[list[int] | None]
    box: NotRequired[str | None]
    strike: NotRequired[bool | None]


class CoachOption(TypedDict):
    """One choice: its action, value, loss to the best and chance to win."""

    kind: Literal["keep", "box", "announce"]
    action: CoachAction
    value: float
    loss: float
    keep: NotRequired[list[int] | None]
    box: NotRequired[str | None]
    points: NotRequired[int | None]
    strike: NotRequired[bool | None]
    win: NotRequired[float | None]
    tie: NotRequired[float | None]
    lose: NotRequired[float | None]
    wins: NotRequired[bool | None]


class CoachAdvice(TypedDict):
    exact: bool
    measure: Literal["score", "match_points", "category_points"]
    roll: int
    best: CoachOption | None
    keeps: list[CoachOption]
    boxes: list[CoachOption]
    announces: list[CoachOption]
    win_note: NotRequired[str | None]
    best_win: NotRequired[CoachOption | None]


# --- JSON as it crosses a socket or the store (an event, a game record, a forwarded request) ---------

JSONValue = str | int | float | bool | None | list["JSONValue"] | dict[str, "JSONValue"]
JSONObject = dict[str, JSONValue]

SessionView = TableView | SheetView  # what the session core sends of any kind's session


# --- the session protocol's messages (server/session/protocol.py builds them) -----------------------
# A view or an event in them is any session kind's (a table's, a kept sheet's): JSON data to the core.


class Welcome(TypedDict):
    type: Literal["welcome"]
    v: int
    seats: list[int]
    protocol: int


class Ack(TypedDict):
    """An action applied before under this ref (a queue sent again): no new event."""

    type: Literal["ack"]
    ref: str | int
    v: int


class Missed(TypedDict):
    v: int
    event: JSONObject
    ref: NotRequired[str | int]


class EventMessage(TypedDict):
    type: Literal["event"]
    v: int
    event: JSONObject
    view: SessionView
    ref: NotRequired[str | int]


class EventsMessage(TypedDict):
    type: Literal["events"]
    v: int
    events: list[Missed]
    view: NotRequired[SessionView]


class StateMessage(TypedDict):
    type: Literal["state"]
    v: int
    view: SessionView
