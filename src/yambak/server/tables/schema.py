"""A table's socket messages: the session protocol (`session/protocol.py`) and a table's actions.

After the session protocol's checks comes the table logic (seat token -> game not over -> your turn
-> action legal -> version current). The client never sends dice values: a roll only says which
dice it holds.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from ...engine import Action, Announce, Hold, Release, Roll, Score, Undo, Withdraw
from ...engine.fairness import NONCE_PATTERN
from ..session.protocol import Hello, Ping, Version
from ..session.protocol import Message as _Msg
from ..session.views import (
    ErrorMessage,
    EventAck,
    EventMessage,
    EventsMessage,
    GameView,
    Player,
    Pong,
    StateMessage,
    Welcome,
)
from ..session.views import Model as _Out

Seat = Annotated[int, Field(ge=0, le=63)]
Positions = Annotated[list[Annotated[int, Field(ge=0, le=5)]], Field(max_length=6)]
BoxId = Annotated[str, Field(min_length=1, max_length=64)]


class RollMsg(_Msg):
    type: Literal["roll"]
    seat: Seat
    v: Version
    held: Positions | None = None


class HoldMsg(_Msg):
    type: Literal["hold"]
    seat: Seat
    v: Version
    dice: Positions


class ReleaseMsg(_Msg):
    type: Literal["release"]
    seat: Seat
    v: Version
    dice: Positions


class AnnounceMsg(_Msg):
    type: Literal["announce"]
    seat: Seat
    v: Version
    box: BoxId


class WithdrawMsg(_Msg):
    type: Literal["withdraw"]
    seat: Seat
    v: Version


class ScoreMsg(_Msg):
    type: Literal["score"]
    seat: Seat
    v: Version
    box: BoxId
    strike: bool = False


class UndoMsg(_Msg):
    """Take back one's last entry before the next roll (tables that allow it)."""

    type: Literal["undo"]
    seat: Seat
    v: Version


class AdviseMsg(_Msg):
    """Ask the coach about the seat's position (tables that allow hints); answered with `advice`."""

    type: Literal["advise"]
    seat: Seat
    v: Version


class NonceMsg(_Msg):
    """Fair dice: a seated player's contribution, mixed into every roll (before the game's first roll)."""

    type: Literal["nonce"]
    seat: Seat
    v: Version
    nonce: Annotated[str, Field(pattern=NONCE_PATTERN)]


class CloseSeatMsg(_Msg):
    """The host closes an open seat: to a bot, or (before the first roll) removed from the table."""

    type: Literal["close_seat"]
    seat: Seat  # the host's
    v: Version
    target: Seat
    bot: bool


class ReactMsg(_Msg):
    """A quick reaction from the seat to everybody at the table (one of `reactions.REACTIONS`): no move."""

    type: Literal["react"]
    seat: Seat
    reaction: Literal["nice", "wow", "ouch", "luck", "thanks", "gg"]


ActionMsg = RollMsg | HoldMsg | ReleaseMsg | AnnounceMsg | WithdrawMsg | ScoreMsg | UndoMsg
ClientMessage = Annotated[
    Hello
    | Ping
    | AdviseMsg
    | RollMsg
    | HoldMsg
    | ReleaseMsg
    | AnnounceMsg
    | WithdrawMsg
    | ScoreMsg
    | UndoMsg
    | NonceMsg
    | CloseSeatMsg
    | ReactMsg,
    Field(discriminator="type"),
]
client_message: TypeAdapter[Any] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = frozenset(
    {
        "hello",
        "ping",
        "advise",
        "roll",
        "hold",
        "release",
        "announce",
        "withdraw",
        "score",
        "undo",
        "nonce",
        "close_seat",
        "react",
    }
)


def to_action(msg: ActionMsg) -> Action:
    """The engine action a validated message asks for (never with dice values)."""
    if isinstance(msg, RollMsg):
        return Roll(msg.seat, held=tuple(msg.held) if msg.held is not None else None)
    if isinstance(msg, HoldMsg):
        return Hold(msg.seat, tuple(msg.dice))
    if isinstance(msg, ReleaseMsg):
        return Release(msg.seat, tuple(msg.dice))
    if isinstance(msg, AnnounceMsg):
        return Announce(msg.seat, msg.box)
    if isinstance(msg, WithdrawMsg):
        return Withdraw(msg.seat)
    if isinstance(msg, UndoMsg):
        return Undo(msg.seat)
    return Score(msg.seat, msg.box, strike=msg.strike)


# --- server -> client (the types of what `view.py` and the manager send; tests hold them to it) ---------


class TableEvent(_Out):
    """An engine event as a viewer may see it: all of it, or on a duplicate table another player's
    without dice (type, player, roll); a fair-dice nonce logged before the first roll."""

    type: Literal["rolled", "held", "released", "announced", "withdrawn", "scored", "undone", "nonce"]
    player: Seat
    roll: int
    game_over: bool
    dice: list[int] | None = None
    held: list[int] | None = None
    box: str | None = None
    written: int | None = None
    extra_bonus: int | None = None
    strike: Literal[True] | None = None
    use: list[int] | None = None
    nonce: str | None = None
    absent: Literal[True] | None = None  # a stand-in's move while its player was not connected
    stand_in: Literal[True] | None = None  # a stand-in's move for a person (away or out of time)


class TablePlayer(Player):
    kind: Literal["human", "bot", "open"]
    bot: str | None
    # a bot on a first estimate for these rules ("prior") or on a fit that missed its check ("unchecked")
    bot_model: Literal["prior", "unchecked"] | None = None


class TableSettingsOut(_Out):
    hints: bool
    clock: int | None
    undo: bool
    deal: str | None = None
    ranked: str | None = None  # the preset whose ratings the game changes
    asynchronous: bool = False  # a game over days (a clock of hours or more; `TableSettings.asynchronous`)


class DealOut(_Out):
    """A deal's table: when the deal closes, the seconds left by the server's clock, whether it has."""

    id: str
    closes_at: str | None  # None while its tournament is paused
    left: float | None
    closed: bool
    paused: bool
    cancelled: bool = False  # the tournament's organiser cancelled its round: it counts for nobody


class NonceOut(_Out):
    seat: Seat
    nonce: str


class FairnessOut(_Out):
    scheme: str
    commitment: str
    seed: str | None
    nonces: list[NonceOut]
    open: bool  # players may still mix in their nonces


class PlayedFor(_Out):
    """An entry the stand-in made for a player who was away."""

    box: str
    written: int
    strike: Literal[True] | None = None


class SeatingOut(_Out):
    """The host (the first seat held by a person) and what it may do with an open seat now."""

    host: Seat | None
    remove: bool  # before the first roll
    bot: bool


class TableView(GameView):
    players: list[TablePlayer]  # type: ignore[assignment]
    id: str
    name: str
    v: Version
    rematch: str | None
    open_seats: list[Seat]
    online: list[Seat]  # the seats with a device here, on any process (a seat just left stays a moment)
    settings: TableSettingsOut
    clocks: dict[str, float]  # seat -> seconds left on its turn clock
    stand_in: dict[str, float]  # an away player to act -> seconds until the stand-in plays their turn
    played_for: dict[str, list[PlayedFor]]  # seat -> what the stand-in wrote since its player last played
    seating: SeatingOut
    can_undo: list[Seat]
    fairness: FairnessOut | None
    deal: DealOut | None = None


class CoachAction(_Out):
    """The engine action that takes a coach's option, spelt as the client's own message would be."""

    type: Literal["roll", "score", "announce"]
    held: list[int] | None = None  # roll: the die positions to hold
    box: str | None = None  # score, announce
    strike: bool | None = None  # score


class CoachOption(_Out):
    """One choice (`coach.Option.to_dict`): its action, value, loss to the best and chance to win."""

    kind: Literal["keep", "box", "announce"]
    action: CoachAction
    value: float  # expected final score, or expected match points
    loss: float
    keep: list[int] | None = None  # keep: the dice values held
    box: str | None = None
    points: int | None = None  # box: what it writes now
    strike: bool | None = None
    win: float | None = None  # with other seats: the chance to win alone after it
    tie: float | None = None  # ... to share the win (equal results)
    lose: float | None = None  # ... to lose
    wins: bool | None = None  # box: it wins the game outright (docs/rules.md §7); say so, not `value`


class CoachAdvice(_Out):
    """The coach's advice on one decision (`coach.Advice.to_dict`), best first within each kind."""

    exact: bool
    measure: Literal["score", "match_points", "category_points"]
    roll: int
    best: CoachOption | None
    keeps: list[CoachOption]
    boxes: list[CoachOption]
    announces: list[CoachOption]
    win_note: str | None = None  # how the chances to win were found
    best_win: CoachOption | None = None  # the seat's last turn: the choice least likely to lose, when not `best`


class AdviceMessage(_Out):
    type: Literal["advice"]
    v: Version
    seat: Seat
    advice: CoachAdvice


class RematchMessage(_Out):
    type: Literal["rematch"]
    table: str


class ReactionMessage(_Out):
    """A player's quick reaction, to everybody at the table."""

    type: Literal["reaction"]
    seat: Seat
    reaction: Literal["nice", "wow", "ouch", "luck", "thanks", "gg"]


ServerMessage = Annotated[
    Welcome
    | Pong
    | ErrorMessage
    | EventMessage[TableView, TableEvent]
    | EventsMessage[TableView, TableEvent]
    | EventAck[TableEvent]
    | StateMessage[TableView]
    | AdviceMessage
    | RematchMessage
    | ReactionMessage,
    Field(discriminator="type"),
]
server_message: TypeAdapter[Any] = TypeAdapter(ServerMessage)
