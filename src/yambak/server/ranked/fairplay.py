"""The fair-play review of ranked games, from the coach's grades (docs/ranked.md).

Every ranked game is graded after it ends (ranked games first), each player's own turns as a solo game:
their accuracy is the points their decisions lost on average (0 is the solver's own play). A game where a
player lost at least the median of the easy bot's games of that preset (`fairplay.json`, measured by
`scripts/fairplay_thresholds.py` over at least 1,000 bot games) is *thrown*: nobody's rating gains from
it (a rise it gave is taken back, a fall stands: throwing a game one is losing does not save the loss),
and the ratings of the players whose rise went are computed again from it on, in the transaction that
stores the grade (`Store.void_game`). The medium bot's worst game stays far below that line (the figures).

Profiles whose graded ranked games of a preset stay at the solver's own accuracy (at least
`ASSISTED_GAMES` of them, losing at most the preset's `assisted_line` a decision on average) are listed for the
server's operator (`yambak fairplay list`), never on a page: a strong player is not a cheat, the
operator looks.
"""

from __future__ import annotations

import json
import statistics
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any, TypedDict

from openskill.models import PlackettLuce

from ...store import ResultRow, Store
from ..common.events import Graded, Write

__all__ = [
    "ASSISTED_GAMES",
    "ASSISTED_LOSS",
    "assisted_line",
    "assisted_lines",
    "rate",
    "review",
    "thresholds",
    "thrown",
]

ASSISTED_GAMES = 10  # graded ranked games of a preset before a profile may be listed
ASSISTED_LOSS = 0.05  # points lost per decision, on average, at most: the solver's own play loses 0

_MODEL = PlackettLuce()  # the ladder's model (server/ranked/manager.py): its default mu and sigma


@cache
def assisted_lines() -> dict[str, float]:
    """Each preset's line for the operator's list, in its grades' unit: `ASSISTED_LOSS` points where the coach
    counts points; where it counts something else (Balut's category points, `coach.measure_of`), the same
    share of the medium bot's median loss as `ASSISTED_LOSS` is of the points presets' median one (0.05
    category points would be a third of Balut's medium bot, and list players far from the solver)."""
    from ...coach import measure_of
    from ...rules import load_ruleset, preset_ids

    data = _data()
    points = [
        float(row["medium_median"]) for preset, row in data.items() if measure_of(load_ruleset(preset)) == "score"
    ]
    reference = statistics.median(points)
    out = {}
    for preset in preset_ids():
        other = preset in data and measure_of(load_ruleset(preset)) != "score"
        out[preset] = ASSISTED_LOSS * float(data[preset]["medium_median"]) / reference if other else ASSISTED_LOSS
    return out


def assisted_line(preset: str) -> float:
    """The operator's line of a preset (a ruleset of one's own: `ASSISTED_LOSS`, in points)."""
    return assisted_lines().get(preset, ASSISTED_LOSS)


class _Measured(TypedDict):
    """A preset's figures in `fairplay.json` (points lost per decision, in its grades' unit)."""

    easy_games: int
    easy_median: float
    easy_p10: float
    medium_games: int
    medium_median: float
    medium_worst: float


def _data() -> dict[str, _Measured]:
    data: dict[str, _Measured] = json.loads(resources.files(__package__).joinpath("fairplay.json").read_text())
    return data


@cache
def thresholds() -> dict[str, float]:
    """Each preset's line: the median points lost per decision of the easy bot's games (the shipped data)."""
    return {preset: float(row["easy_median"]) for preset, row in _data().items()}


def thrown(preset: str, accuracy: float | None) -> bool:
    """A game played this badly is thrown: its player lost at least what the easy bot's median game does
    (accuracy at or below the easy bot's). A preset without a measured line throws nothing."""
    line = thresholds().get(preset)
    return accuracy is not None and line is not None and accuracy >= line


def rate(before: list[tuple[float, float]], places: list[int]) -> list[tuple[float, float]]:
    """OpenSkill's Plackett-Luce update of one game, as a finished ranked game is rated."""
    teams = _MODEL.rate([[_MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma in before], ranks=[float(p) for p in places])
    return [(float(t[0].mu), float(t[0].sigma)) for t in teams]


def review(graded: Graded, now: datetime) -> Write | None:
    """A ranked result graded: a thrown game's rating gains taken back, and their players' ratings computed
    again from it on, with the grade (nothing for a game that is not ranked, or was voided already)."""
    result: ResultRow = graded.result
    if result.kind != "table" or not thrown(result.preset, graded.accuracy):
        return None
    table_id = result.ref

    def op(conn: Any) -> list[str]:
        return Store.void_game(conn, table_id, rate, now)

    return Write(op)
