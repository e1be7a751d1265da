"""The stand-in: a bot that plays a person's turn so that the others are not kept waiting.

It plays a person's turn
- when the turn clock runs out (tables with a clock: the player is slow, or gone), and
- when the player is away (`presence.py`) while somebody else sits at the table: `Settings.away_turn`
  seconds (15) after the turn began, or at once when they left during it; once it has played a whole turn
  for them since they last played, `Settings.away_missed` seconds (3) after each of their turns began
  (they are gone, not slow: the others should not wait 15 s a turn; a duplicate table keeps the 15 s).
  Never at a deal's table (the daily challenge, a club round: everybody plays their own dice, nobody
  waits), never at an asynchronous table (a game over days: its players come and go, the clock alone
  decides), and never where nobody else is here (alone against bots, pass and play on one device:
  nobody waits either). A ranked table keeps the
  clock alone: its rule for a player who leaves counts the turns the clock gave away (`ranked/`).

The player takes the seat back by coming back: the next step of the turn is theirs again. Each of the
stand-in's moves is marked `stand_in` in the log, and the boxes it filled are marked on the sheet for
everybody and kept in the record (`stood_in`); a move for a player who was away is also marked `absent`;
the entries it made since the player last played themselves are what their page shows them on return
(`played_for`), kept there until they dismiss it.
"""

from __future__ import annotations

from collections.abc import Mapping

from ...engine import GameState
from ...viewtypes import JSONObject, PlayedFor
from .clock import TurnClock
from .presence import Presence
from .table import LiveTable

__all__ = ["STAND_IN", "StandIn", "stood_in"]

STAND_IN = "hard"  # the bot that plays a person's turn


def stood_in(state: GameState, event: Mapping[str, object]) -> GameState:
    """The state after an event, with the box a stand-in filled for a person marked (a `scored` event marked
    `stand_in`): the sheet shows it to everybody and the record keeps it."""
    seat, box = event.get("player"), event.get("box")
    if not event.get("stand_in") or event.get("type") != "scored" or not isinstance(seat, int):
        return state
    if not isinstance(box, str) or state.rules.parse_box(box) is None:
        return state
    return state.with_stand_in(seat, box)


class StandIn:
    def __init__(self, clock: TurnClock, presence: Presence, wait: float, missed: float | None = None) -> None:
        self.clock = clock
        self.presence = presence
        self.wait = wait  # seconds an away player's turn waits for them
        self.missed = wait if missed is None else min(wait, missed)  # ... once they missed a whole turn

    def _wait(self, table: LiveTable, seat: int) -> float:
        """The wait for an away player's turn: shorter once the stand-in played a whole turn for them since
        they last played (what it scored for them is kept until then: `played_for`), except on a duplicate
        table, where everybody plays their own dice and the last of a round is waited for as before."""
        if table.played_for.get(seat) and not table.state.simultaneous:
            return self.missed
        return self.wait

    @staticmethod
    def for_absence(table: LiveTable) -> bool:
        """Does the stand-in play for away players at this table (not only when a clock runs out)? Not at
        an asynchronous table: its players leave between turns by design, and have hours for one."""
        settings = table.settings
        return settings.deal is None and settings.ranked is None and not settings.asynchronous

    @staticmethod
    def _waited_for(table: LiveTable, seat: int) -> bool:
        """Somebody other than this seat is here, waiting for it (on a duplicate table, somebody ahead of it:
        everybody plays their own turns there, and waits only for a round's last player)."""
        state, online = table.state, table.seen.online
        others = [s for s in online if s != seat and s < len(table.seats) and table.seats[s].kind == "human"]
        if state.simultaneous:
            return any(state.sheets[s].turns > state.sheets[seat].turns for s in others)
        return bool(others)

    def away_in(self, table: LiveTable, seat: int, now: float | None = None) -> float | None:
        """Seconds until the stand-in plays an away player's turn (0: now); None: it does not."""
        if not self.for_absence(table) or table.state.finished or table.seats[seat].kind != "human":
            return None
        if seat not in table.state.to_act():
            return None
        gone = self.presence.gone_since(table, seat)
        if gone is None or not self._waited_for(table, seat):
            return None
        started = self.clock.started(table, seat)
        if gone > started:  # they left during their turn
            return 0.0
        now = self.clock.now() if now is None else now
        return max(0.0, started + self._wait(table, seat) - now)

    def due(self, table: LiveTable, seat: int, now: float | None = None) -> bool:
        """Does the stand-in play this person's turn now?"""
        if table.seats[seat].kind != "human":
            return False
        if self.clock.ran_out(table, seat, now):
            return True
        wait = self.away_in(table, seat, now)
        return wait is not None and wait <= 0

    def waits(self, table: LiveTable) -> dict[str, float]:
        """For the views: the away players to act, and the seconds until the stand-in plays for them."""
        now = self.clock.now()
        out = {}
        for seat in table.state.to_act():
            wait = self.away_in(table, seat, now)
            if wait is not None:
                out[str(seat)] = wait
        return out

    def mark(self, table: LiveTable, seat: int, event: JSONObject) -> None:
        """A stand-in's move: marked `absent` when its player is away (the ranked rule counts them)."""
        if table.seats[seat].kind == "human" and not self.presence.present(table, seat):
            event["absent"] = True

    @staticmethod
    def applied(table: LiveTable, event: JSONObject) -> None:
        """Keep what the stand-in wrote for each away player since they last played themselves."""
        seat = event.get("player")
        if not isinstance(seat, int) or seat >= len(table.seats) or event.get("type") == "nonce":
            return
        if not event.get("absent"):
            table.played_for.pop(seat, None)
        elif event.get("type") == "scored":
            box, written = event.get("box"), event.get("written")
            if not isinstance(box, str) or not isinstance(written, int):  # never: the engine's `scored` event
                return
            entry: PlayedFor = {"box": box, "written": written}
            if event.get("strike"):
                entry["strike"] = True
            table.played_for.setdefault(seat, []).append(entry)

    def rebuild(self, table: LiveTable) -> None:
        """After a load: what the stand-in wrote, from the table's recent events."""
        table.played_for = {}
        for _version, event, _ref in table.recent:
            self.applied(table, event)
