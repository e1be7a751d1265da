"""A complete, legal score-keeper game planned with the engine: what the players typed, entry by entry."""

from __future__ import annotations

from dataclasses import dataclass

from yambak.engine import (
    IllegalAction,
    ManualDice,
    new_game,
    play_turn,
    scratch_turn,
    typed_turn,
)
from yambak.rules import load_ruleset


@dataclass(frozen=True)
class Entry:
    seat: int
    kind: str  # dice | scratch
    box: str
    dice: tuple[int, ...] | None = None
    roll: int = 1

    def body(self) -> dict:
        out = {"kind": self.kind, "seat": self.seat, "box": self.box}
        if self.dice is not None:
            out.update(dice=list(self.dice), roll=self.roll)
        return out


def dice_for(row: str, seat: int) -> tuple[int, ...]:
    faces = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    if row in faces:
        f = faces[row]
        other = 2 if f != 2 else 3
        n = (3, 4, 2)[seat % 3]
        return (f,) * n + (other,) * (5 - n)
    return {
        "full_house": (2, 2, 3, 3, 3),
        "straight": (1, 2, 3, 4, 5) if seat % 2 else (2, 3, 4, 5, 6),
        "plus": (6, 6, 6, 5, 5 - seat % 3),
        "min": (1, 1, 1, 2, 2 + seat % 3),
        "yam": (4, 4, 4, 4, 4),
    }[row]


def plan(preset: str = "yammen", players: tuple[str, ...] = ("Ann", "Bram", "Cas")) -> tuple[list[Entry], object]:
    """Every entry of a full game (first legal box in sheet order), and the engine's final state."""
    rules = load_ruleset(preset)
    state = new_game(rules, list(players), dice=ManualDice())
    entries: list[Entry] = []
    while not state.finished:
        p = state.current
        for col in rules.columns:
            done = None
            for row in rules.rows:
                box = f"{col.id}.{row.id}"
                if state.sheets[p].written[rules.box_index(col.id, row.id)] is not None:
                    continue
                if row.id == "yam" and p == 1 and col.id in ("free", "poot"):  # Bram never rolls a yam there
                    turn, entry = scratch_turn(state, box), Entry(p, "scratch", box)
                else:
                    roll = col.rolls or (3 if col.announce and p else 1)
                    dice = dice_for(row.id, p)
                    turn, entry = typed_turn(state, dice, roll, box), Entry(p, "dice", box, dice, roll)
                try:
                    state = play_turn(state, turn)
                except IllegalAction:
                    continue
                done = entry
                break
            if done:
                entries.append(done)
                break
        else:
            raise AssertionError(f"no legal entry for seat {p}")
    return entries, state
