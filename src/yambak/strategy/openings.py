"""The opening table (best and runner-up choice on every distinct first roll) and the readable rules
derived from it mechanically.

A rule is "a roll of this pattern -> keep this part of it": the rolls are classed by pattern (how the
faces repeat, and the longest run of consecutive faces), each candidate keep is a way of picking dice
out of any roll (the most common face, both pairs, the run, the high dice...), and a class's rule is
the candidate that matches the table's best choice on most of its rolls. Each rule says how many of
its rolls it decides as the table does: nothing is claimed that the table does not back.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..rules import Ruleset
from ..viewtypes import JSONObject

__all__ = ["Opening", "OpeningRule", "opening_rules", "pattern_of"]


@dataclass(frozen=True)
class Opening:
    """One first roll: the best choice and the runner-up as `yambak hint --json` writes a choice
    ({"keep": [...], "value": v} or {"box": id, "points": p, "value": v}), and what the runner-up loses."""

    roll: tuple[int, ...]
    best: JSONObject
    runner_up: JSONObject | None
    loss: float

    def to_json(self) -> JSONObject:
        return {"roll": [*self.roll], "best": self.best, "runner_up": self.runner_up, "loss": self.loss}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Opening:  # as `to_json` wrote it
        return cls(tuple(data["roll"]), data["best"], data["runner_up"], float(data["loss"]))


@dataclass(frozen=True)
class OpeningRule:
    pattern: str  # the class of rolls, e.g. "one pair, a run of 4"
    choice: str  # what to do, e.g. "keep the run"
    correct: int  # rolls of the class where it is the table's best choice
    rolls: int  # rolls of the class

    def text(self) -> str:
        return f"{self.pattern}: {self.choice} ({self.correct} of {self.rolls} rolls)"

    def to_json(self) -> JSONObject:
        return {"pattern": self.pattern, "choice": self.choice, "correct": self.correct, "rolls": self.rolls}


def _run(dice: tuple[int, ...]) -> tuple[int, ...]:
    """The longest run of consecutive faces (the highest of equal length), one die each."""
    faces = sorted(set(dice))
    best: list[int] = []
    current: list[int] = []
    for f in faces:
        current = current + [f] if current and f == current[-1] + 1 else [f]
        if len(current) >= len(best):
            best = list(current)
    return tuple(best)


_SHAPES = {
    (5,): "five alike",
    (4, 1): "four alike",
    (3, 2): "a full house",
    (3, 1, 1): "three alike",
    (2, 2, 1): "two pairs",
    (2, 1, 1, 1): "one pair",
    (1, 1, 1, 1, 1): "no pair",
}


def pattern_of(dice: tuple[int, ...]) -> str:
    """The class of a roll: how its faces repeat, and its run of consecutive faces when 3 or longer."""
    shape = tuple(sorted(Counter(dice).values(), reverse=True))
    name = _SHAPES.get(shape, "+".join(map(str, shape)))
    run = len(_run(dice))
    return f"{name}, a run of {run}" if run >= 3 and shape[0] < 3 else name


def _most(dice: tuple[int, ...]) -> tuple[int, ...]:
    c = Counter(dice)
    face = max(c, key=lambda f: (c[f], f))
    return (face,) * c[face]


def _pairs(dice: tuple[int, ...]) -> tuple[int, ...]:
    c = Counter(dice)
    return tuple(sorted(f for f in c for _ in range(c[f]) if c[f] >= 2))


def _high_pair(dice: tuple[int, ...]) -> tuple[int, ...]:
    c = Counter(dice)
    faces = [f for f in c if c[f] >= 2]
    return (max(faces),) * c[max(faces)] if faces else ()


def _low_pair(dice: tuple[int, ...]) -> tuple[int, ...]:
    c = Counter(dice)
    faces = [f for f in c if c[f] >= 2]
    return (min(faces),) * c[min(faces)] if faces else ()


CANDIDATES: tuple[tuple[str, Callable[[tuple[int, ...]], tuple[int, ...]]], ...] = (
    ("keep the most common face (the higher on a tie)", _most),
    ("keep the higher pair", _high_pair),
    ("keep the lower pair", _low_pair),
    ("keep both pairs", _pairs),
    ("keep the run", _run),
    ("keep the sixes", lambda d: tuple(x for x in d if x == 6)),
    ("keep the fives and sixes", lambda d: tuple(x for x in d if x >= 5)),
    ("keep the fours to sixes", lambda d: tuple(x for x in d if x >= 4)),
    ("keep one six", lambda d: (6,) if 6 in d else ()),
    ("keep one five", lambda d: (5,) if 5 in d else ()),
    ("keep one four", lambda d: (4,) if 4 in d else ()),
    ("reroll all five", lambda _d: ()),
)


def _matches(best: JSONObject, dice: tuple[int, ...], name: str) -> bool:
    """Whether candidate `name` picks the table's best choice on this roll."""
    if name.startswith("score at once in "):  # the row, in whichever column
        box = best.get("box")
        return (
            best.get("kind", "box") == "box"
            and isinstance(box, str)
            and (box.rpartition(".")[2] == name.removeprefix("score at once in "))
        )
    keep = best.get("keep")
    if not isinstance(keep, list):
        return False
    pick = dict(CANDIDATES)[name](dice)
    return sorted(d for d in keep if isinstance(d, int)) == sorted(pick) and len(pick) < len(dice)


def _top_face(dice: tuple[int, ...]) -> int:
    c = Counter(dice)
    return max(c, key=lambda f: (c[f], f))


_WORDS = {1: "1s", 2: "2s", 3: "3s", 4: "4s", 5: "5s", 6: "6s"}

# Ways to split a class the best candidate does not decide alone: (what the value is, roll -> value).
SPLITS: tuple[tuple[str, Callable[[tuple[int, ...]], int]], ...] = (
    ("most common face", _top_face),
    ("highest face", max),
    ("lowest face", min),
)


def _best(members: list[Opening], names: list[str]) -> tuple[int, str]:
    scored = [(sum(_matches(o.best, o.roll, n) for o in members), -i, n) for i, n in enumerate(names)]
    correct, _, name = max(scored)
    return correct, name


def _faces_text(what: str, values: list[int]) -> str:
    v = sorted(values)
    if len(v) > 2 and v == list(range(v[0], v[-1] + 1)):
        return f"{what} {_WORDS[v[0]]} to {_WORDS[v[-1]]}"
    return f"{what} {' or '.join(_WORDS[x] for x in v)}"


def opening_rules(openings: tuple[Opening, ...] | list[Opening], ruleset: Ruleset) -> tuple[OpeningRule, ...]:
    """One rule per class of first rolls: the candidate that agrees with the table on most of its rolls;
    a class no candidate decides alone is split by one feature (the most common, highest or lowest
    face) where that decides more of its rolls, the feature's values with the same choice joined."""
    classes: dict[str, list[Opening]] = {}
    for o in openings:
        classes.setdefault(pattern_of(o.roll), []).append(o)
    names = [n for n, _ in CANDIDATES] + [f"score at once in {r.id}" for r in ruleset.rows]
    out = []
    for pattern, members in classes.items():
        correct, name = _best(members, names)
        rules = [OpeningRule(pattern, name, correct, len(members))]
        for what, feature in SPLITS if correct < len(members) else ():
            parts: dict[int, list[Opening]] = {}
            for o in members:
                parts.setdefault(feature(o.roll), []).append(o)
            chosen: dict[str, list[tuple[int, int, int]]] = {}  # choice -> (value, correct, rolls)
            for value, part in parts.items():
                c, n = _best(part, names)
                chosen.setdefault(n, []).append((value, c, len(part)))
            split = [
                OpeningRule(
                    f"{pattern}, {_faces_text(what, [v for v, _, _ in vs])}",
                    n,
                    sum(c for _, c, _ in vs),
                    sum(k for _, _, k in vs),
                )
                for n, vs in chosen.items()
            ]
            if sum(r.correct for r in split) > sum(r.correct for r in rules):
                rules = split
        out += rules
    out.sort(key=lambda r: (-r.rolls, r.pattern))
    return tuple(out)
