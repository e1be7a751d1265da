"""A kept score sheet's messages: one strict schema per direction.

HTTP bodies (a new sheet, an entry) and the sheet socket's sealed family (the
session protocol's `hello` and `ping`, and `entry`: one entry, as an action like
a table's) are validated strictly, like a table's: no "3" read as 3, no true read
as 1, no unknown field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ...keeper.entries import MAX_PLAYERS
from ..live import RequestError
from ..session.protocol import Hello, Message, Ping
from ..session.views import (
    Ack,
    ErrorMessage,
    EventMessage,
    EventsMessage,
    GameView,
    Player,
    Pong,
    StateMessage,
    Welcome,
)
from ..session.views import Model as Out

ENTRY_ID = r"^[A-Za-z0-9_-]{8,40}$"
SHEET_ID = r"^[A-Za-z0-9_-]{16,32}$"
TOKEN = r"^[A-Za-z0-9_-]{16,64}$"  # a write token (`Hello.tokens` takes the same)


class KeeperError(RequestError):
    """A refused entry or sheet request; `invalid` names the later entries a correction would break,
    `v` the sheet's version when the entry was stale."""


# --- one schema per direction ---------------------------------------------------------------------


class SheetIn(BaseModel):
    """A new sheet. `id`: the id a phone gave a sheet it started offline (creating it again with the same
    `token` is acknowledged with the same sheet, so a lost answer never makes two); `token`: the write
    token the phone made for it (else the server makes one)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    id: str | None = Field(default=None, pattern=SHEET_ID)
    token: str | None = Field(default=None, pattern=TOKEN)
    name: str = Field("", max_length=200)
    preset: str | None = Field(None, max_length=40)
    options: dict[str, Any] = Field(default_factory=dict, max_length=20)
    rules: dict[str, Any] | None = None  # a full custom ruleset (the preset data format)
    players: list[str] = Field(min_length=1, max_length=MAX_PLAYERS)


class UndoneIn(BaseModel):
    """What an undo's button named (the view's `last`, a `SheetAction`): the undo is refused when another
    phone's entry, correction or undo made something else the last thing done meanwhile."""

    model_config = ConfigDict(extra="forbid", strict=True)
    kind: Literal["entry", "correction", "rolloff"]
    n: int | None = Field(None, ge=1, le=10000)
    player: int | None = Field(None, ge=0, le=MAX_PLAYERS - 1)
    turn: int | None = Field(None, ge=1, le=10000)
    target: str | None = Field(None, min_length=1, max_length=40)


class EntryIn(BaseModel):
    """One entry (`yambak.keeper.entries`). `dice`: the final dice typed on the pad (with `roll`, `box`,
    `seat`, and `filled`: the boxes that seat had filled, which names the turn); `scratch`: a 0 in `box`;
    `undo`: take back the last `count` things done (entries, corrections, roll-off rounds); `fix`: replace
    entry `turn` (dice + roll + box, or a 0);
    `rolloff`: each tied seat's roll-off dice (`rolloff_dice` of the layout) for `target` (a column id or "total")."""

    model_config = ConfigDict(extra="forbid", strict=True)  # no `true` read as 1, no "3" read as 3
    id: str = Field(pattern=ENTRY_ID)
    v: int = Field(ge=0)
    kind: Literal["dice", "scratch", "undo", "fix", "rolloff"]
    seat: int | None = Field(None, ge=0, le=MAX_PLAYERS - 1)
    filled: int | None = Field(None, ge=0, le=1000)
    dice: list[int] | None = Field(None, min_length=5, max_length=6)
    roll: int = Field(1, ge=1, le=9)
    box: str | None = Field(None, min_length=1, max_length=64)
    strike: bool = False
    turn: int | None = Field(None, ge=1, le=10000)
    count: int = Field(1, ge=1, le=50)
    target: str | None = Field(None, min_length=1, max_length=40)
    rolloff: dict[str, list[int]] | None = Field(None, max_length=MAX_PLAYERS)
    last: UndoneIn | None = None  # undo: what its button named, taken back only while it is the last thing done

    def faces(self) -> tuple[int, ...] | None:
        if self.dice is None:
            return None
        if not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in self.dice):
            raise KeeperError("input/invalid", "dice are 1 to 6", 422)
        return tuple(self.dice)


class EntryMsg(Message):
    """One entry on the sheet (its `id` is also the message's `ref`: answered by the event it made)."""

    type: Literal["entry"]
    entry: EntryIn


ClientMessage = Annotated[Hello | Ping | EntryMsg, Field(discriminator="type")]
client_message: TypeAdapter[Any] = TypeAdapter(ClientMessage)
MESSAGE_TYPES = frozenset({"hello", "ping", "entry"})


# --- server -> client (the types of what `yambak.keeper.sheet_view` and the manager send) ---------------


class SheetPlayer(Player):
    fillable: dict[str, list[str]]  # by roll number: the boxes the sheet can take then, before the dice are known


class HistoryEntry(Out):
    n: int
    player: int
    dice: list[int] | None  # None: a 0 typed without dice
    roll: int
    box: str
    strike: bool
    scratch: bool
    announced: bool  # announced at the table: an announce box filled after roll 1
    written: int | None


class SheetAction(Out):
    """A thing done on the sheet (`yambak.keeper.edits.last_action`): an entry or a correction of entry `n`
    (`player`'s how-manieth `turn`), or a roll-off round for `target`; `at` (an undo's note): the turns left."""

    kind: Literal["entry", "correction", "rolloff"]
    n: int | None = None
    player: int | None = None
    turn: int | None = None
    target: str | None = None
    at: int | None = None


class SheetView(GameView):
    players: list[SheetPlayer]  # type: ignore[assignment]
    id: str
    name: str
    v: int
    history: list[HistoryEntry]
    record: dict[str, Any]  # the game record (docs/rules.md §11)
    last: SheetAction | None = None  # the last thing done: what undo takes back (named on its button)
    undone: list[SheetAction] = []  # what undo took back, oldest first (the history says it)
    rolloff_due: dict[str, list[int]] | None = None  # after the end: the tied seats of each target still to roll off


ServerMessage = Annotated[
    Welcome | Pong | Ack | ErrorMessage | EventMessage[SheetView, EntryIn] | EventsMessage[SheetView, EntryIn]
    | StateMessage[SheetView],
    Field(discriminator="type"),
]
server_message: TypeAdapter[Any] = TypeAdapter(ServerMessage)
