"""`yambak train`: the trainer in this terminal, full screen (`train_app.py`) or line by line.

The positions are the server's: the same seeded pool (`trainer.generate_pool` with the server's seed,
generated here in-process), graded by the same function with the same odds (`trainer.grade`,
`trainer.keep_odds`). The puzzle rating, the streak and the positions solved are this device's, kept
per preset in `$XDG_STATE_HOME/yambak/trainer.json` (readable by its owner only, as the online client's
tokens are) and moved by the trainer's own rating function (`trainer.rate`, OpenSkill): each answer is a
game against the position at OpenSkill's starting rating, as the server rates a device without a profile.

Nothing here computes a loss or a chance: the session reads them from the grade.
"""

from __future__ import annotations

import fcntl
import json
import os
import random
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ..trainer import (
    Choice,
    Grade,
    Puzzle,
    PuzzleOption,
    Rating,
    TrainerError,
    daily_puzzle,
    grade,
    initial,
    rate,
    ruleset_of,
)
from ..trainer import keep_odds as odds_of
from ..trainer.puzzle import KeepOdds
from ..viewtypes import JSONObject
from .online import state_dir
from .words import Words, fill

__all__ = [
    "Answered",
    "ChoiceRefused",
    "DeviceRatings",
    "Standing",
    "TrainerSession",
    "choice_label",
    "colon",
    "odds_line",
    "position_lines",
    "verdict_lines",
]

SOLVED_KEPT = 500  # ids of positions solved, per preset, that the device remembers (not offered again)
ODDS_SHOWN = 4  # a keep's likeliest boxes shown


class ChoiceRefused(TrainerError):
    """An answer typed that is none of the position's choices: its sentence kept, to be said in the
    player's language (`said`); `message` is the English."""

    def __init__(self, code: str, text: str, **values: object) -> None:
        super().__init__(code, fill(text, **values))
        self.text, self.values = text, values

    def said(self, words: Words) -> str:
        return words(self.text, **self.values)


@dataclass
class Standing:
    """This device's trainer figures for one preset."""

    rating: Rating = field(default_factory=initial)
    streak: int = 0
    best_streak: int = 0
    answers: int = 0
    solved: int = 0
    solved_ids: list[str] = field(default_factory=list)

    def to_dict(self) -> JSONObject:
        return {
            "mu": self.rating.mu, "sigma": self.rating.sigma, "streak": self.streak,
            "best_streak": self.best_streak, "answers": self.answers, "solved": self.solved,
            "solved_ids": [*self.solved_ids[-SOLVED_KEPT:]],
        }  # fmt: skip

    @classmethod
    def from_dict(cls, data: Any) -> Standing:
        """A stored standing; a damaged one starts afresh (it is a device's own practice)."""
        try:
            mu, sigma = float(data["mu"]), float(data["sigma"])
            if not (-1000 < mu < 1000 and 0 < sigma < 100):
                raise ValueError
            ids = [str(i) for i in data.get("solved_ids", [])]
            counts = [int(data.get(k, 0)) for k in ("streak", "best_streak", "answers", "solved")]
        except (KeyError, TypeError, ValueError):
            return cls()
        streak, best, answers, solved = (max(0, c) for c in counts)
        return cls(Rating(mu, sigma), streak, best, answers, solved, ids)


class DeviceRatings:
    """The file of this device's standings, one per preset, written whole on every answer (a crash leaves
    the old file or the new one), readable by its owner only."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = (folder or state_dir()) / "trainer.json"
        self.data: dict[str, object] = self._read()

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        presets = data.get("presets") if isinstance(data, dict) else None
        return dict(presets) if isinstance(presets, dict) else {}

    def standing(self, preset: str) -> Standing:
        return Standing.from_dict(self.data.get(preset)) if preset in self.data else Standing()

    def save(self, preset: str, standing: Standing) -> None:
        """This preset's standing written; the others as the file has them now (another session of the same
        device may have saved its own since this one read it), under a lock, through a temp file of its own."""
        folder = self.path.parent
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = os.open(folder / "trainer.json.lock", os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            self.data = {**self._read(), preset: standing.to_dict()}
            fd, temp = tempfile.mkstemp(prefix="trainer.", suffix=".tmp", dir=folder)  # 0600
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump({"presets": self.data}, f, indent=1)
                os.replace(temp, self.path)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        finally:
            os.close(lock)  # the lock goes with it


@dataclass(frozen=True)
class Answered:
    grade: Grade
    before: Rating
    after: Rating
    streak: int
    best_streak: int


class TrainerSession:
    """A sitting of positions from a pool: the current position, answers graded and rated, the device's
    standing saved after each."""

    def __init__(self, preset: str, pool: tuple[Puzzle, ...], ratings: DeviceRatings, seed: int | None = None) -> None:
        if not pool:
            raise TrainerError("train/empty-pool", "this ruleset has no trainer positions")
        self.preset, self.pool, self.ratings = preset, pool, ratings
        self.standing = ratings.standing(preset)
        self.order = random.Random(seed).sample(pool, len(pool))  # --seed: the same positions in the same order
        self.shown: set[str] = set()
        self.puzzle: Puzzle = self.order[0]
        self.answered: Answered | None = None

    def next(self) -> Puzzle:
        """The next position: one not solved on this device nor shown in this sitting, in the sitting's
        order; when none is left, one not solved; then any."""
        solved = set(self.standing.solved_ids)
        for wanted in (
            lambda p: p.id not in solved and p.id not in self.shown,
            lambda p: p.id not in solved and p.id != self.puzzle.id,
            lambda p: p.id != self.puzzle.id or len(self.order) == 1,
        ):
            found = next((p for p in self.order if wanted(p)), None)  # type: ignore[no-untyped-call]
            if found is not None:
                return self.show(found)
        return self.show(self.order[0])  # pragma: no cover - the last rule always finds one

    def daily(self, day: date) -> Puzzle:
        """The day's position (UTC) of this pool."""
        return self.show(daily_puzzle(self.pool, day))

    def show(self, puzzle: Puzzle) -> Puzzle:
        self.puzzle, self.answered = puzzle, None
        self.shown.add(puzzle.id)
        return puzzle

    def choices(self) -> list[PuzzleOption]:
        """The position's choices in the order a player reads them (keeps, boxes, announcements)."""
        shown = self.puzzle.to_dict(reveal=False)["choices"]
        out = []
        for c in shown if isinstance(shown, list) else []:
            if not isinstance(c, dict):
                continue
            option = self.puzzle.option_for(Choice.from_dict({k: v for k, v in c.items() if k in CHOICE_KEYS}))
            if option is not None:
                out.append(option)
        return out

    def parse(self, text: str) -> Choice:
        """A choice as typed: the dice to keep (`66`, `k 6 6`), `r` to roll all of them again, a box
        (`yam`, `score yam`), `strike yam`, `announce yam`, or `#3` for the third choice listed.
        TrainerError when it is none of the position's choices."""
        words = text.strip().lower().split()
        if not words:
            raise ChoiceRefused("train/choice", "type a choice")
        head, rest = words[0], " ".join(words[1:])
        if head.startswith("#"):
            listed = self.choices()
            number = head[1:] or rest
            if not number.isdigit() or not 1 <= int(number) <= len(listed):
                raise ChoiceRefused("train/choice", "choose #1 to #{n}", n=len(listed))
            return listed[int(number) - 1].choice
        if head in ("r", "roll", "reroll") and not rest:
            return self._checked(Choice("keep", ()))
        if head in ("k", "keep"):
            return self._keep(rest or "")
        if all(ch in "123456 " for ch in text.strip()):
            return self._keep(text)
        if head in ("a", "announce") and rest:
            return self._checked(Choice("announce", (), rest))
        if head in ("x", "strike") and rest:
            return self._checked(Choice("box", (), rest, strike=True))
        if head in ("s", "score") and rest:
            return self._checked(Choice("box", (), rest))
        return self._checked(Choice("box", (), " ".join(words)))

    def _keep(self, digits: str) -> Choice:
        dice = [int(ch) for ch in digits if ch in "123456"]
        if any(ch not in "123456 " for ch in digits):
            raise ChoiceRefused("train/choice", "a keep is the dice values to hold, such as 66 or k 6 6")
        if Counter(dice) - Counter(self.puzzle.dice):
            raise ChoiceRefused(
                "train/choice", "the dice are {dice}: keep some of them", dice=" ".join(map(str, self.puzzle.dice))
            )
        return self._checked(Choice("keep", tuple(sorted(dice))))

    def _checked(self, choice: Choice) -> Choice:
        if self.puzzle.option_for(choice) is None:
            raise ChoiceRefused("train/not-a-choice", "That is not a choice in this position.")
        return choice

    def answer(self, choice: Choice) -> Answered:
        """Grade the answer (with the odds behind each keep shown), rate it and save the standing. Only a
        position's first answer in a sitting rates; a second try shows the grade again."""
        result = grade(self.puzzle, choice, odds=odds_of)
        s = self.standing
        if self.answered is not None:  # the answer is known now: graded, not rated
            self.answered = Answered(result, s.rating, s.rating, s.streak, s.best_streak)
            return self.answered
        before = s.rating
        after, _ = rate(before, initial(), result.solved)
        s.rating, s.answers = after, s.answers + 1
        s.streak = s.streak + 1 if result.solved else 0
        s.best_streak = max(s.best_streak, s.streak)
        if result.solved:
            s.solved += 1
            if self.puzzle.id not in s.solved_ids:
                s.solved_ids.append(self.puzzle.id)
        self.ratings.save(self.preset, s)
        self.answered = Answered(result, before, after, s.streak, s.best_streak)
        return self.answered


CHOICE_KEYS = ("kind", "keep", "box", "strike")


# --- what the player reads (both faces, in the chosen language) ----------------------------------------


def colon(words: Words, label: str, text: str) -> str:
    """ "label: text" as the language writes it (French puts a space before the colon)."""
    return words("{label}: {text}").replace("{label}", label).replace("{text}", text)


def choice_label(option: PuzzleOption, words: Words, columns: int) -> str:
    """A choice as the web trainer words it."""
    c = option.choice
    if c.kind == "keep":
        return words("Keep {dice}", dice=" ".join(map(str, c.keep))) if c.keep else words("Roll all the dice again")
    box = words.box(c.box or "", columns)
    if c.kind == "announce":
        return f"{words('Announce')} · {box}"
    if c.strike:
        return words("Strike {box} for 0", box=box)
    return words("Score {value} in {box}", value=option.points, box=box)


def odds_line(odds: KeepOdds, words: Words) -> str:
    """A keep's odds in one line: its likeliest boxes by the end of the turn, a sum row's expected total."""
    from ..web.i18n import number, percent

    rows = odds["rows"]
    chances = sorted(((r["row"], c) for r in rows if (c := r.get("chance", 0)) > 0), key=lambda rc: -rc[1])
    sums = [(r["row"], s) for r in rows if (s := r.get("expected_sum")) is not None][:1]
    parts = [f"{words.row(row)} {percent(c, words.lang, 1)}" for row, c in chances[:ODDS_SHOWN]]
    parts += [f"{words.row(row)} ≈ {number(s, words.lang, 1)}" for row, s in sums]
    return " · ".join(parts)


def verdict_lines(answered: Answered, words: Words, columns: int) -> list[str]:
    """The verdict: solved or what the choice loses, the best three with their losses, the odds behind
    the keeps shown, the rating and the streak."""
    from ..web.i18n import number

    g = answered.grade
    out = [
        words("Solved") if g.solved else words("This choice loses {value} points.", value=number(g.loss, words.lang, 2))
    ]
    out.append(words("The best choices"))
    for i, o in enumerate(g.top, 1):
        loss = f" (−{number(o.loss, words.lang, 2)})" if round(o.loss, 2) > 0 else ""
        mark = " ←" if o is g.chosen else ""
        out.append(f"  {i}. {choice_label(o, words, columns)}{loss}{mark}")
    shown = [g.chosen, *(o for o in g.top if o is not g.chosen)]
    with_odds = [(o, x) for o in shown if g.odds and (x := g.odds.get(o.label))]
    if with_odds:
        out.append(words("The odds"))
        out += [f"  {colon(words, choice_label(o, words, columns), odds_line(x, words))}" for o, x in with_odds]
    rating = f"{number(answered.before.ordinal, words.lang, 1)} → {number(answered.after.ordinal, words.lang, 1)}"
    out.append(
        f"{colon(words, words('Puzzle rating'), rating)} · {colon(words, words('Streak'), str(answered.streak))}"
    )
    return out


def position_lines(session: TrainerSession, words: Words, columns: int) -> list[str]:
    """The position: the sheet so far, its total, the dice, the roll and the rolls left."""
    p = session.puzzle
    sheet = [colon(words, words.box(box, columns), str(v)) for box, v in p.filled]
    out = [words("Your sheet"), "  " + (" · ".join(sheet) if sheet else words("Nothing written yet"))]
    out.append("  " + colon(words, words("Total"), str(p.score)))
    rolls = ruleset_of(p).rolls_per_turn
    out.append(f"{' '.join(map(str, p.dice))}   {words('roll {n}', n=f'{p.roll}/{rolls}')}")
    if p.announced:
        out.append(f"{words('Announce')} · {words.box(p.announced, columns)}")
    return out


def choices_lines(session: TrainerSession, words: Words, columns: int) -> list[str]:
    """The choices numbered as `#N` takes them."""
    return [f"  #{i} {choice_label(o, words, columns)}" for i, o in enumerate(session.choices(), 1)]
