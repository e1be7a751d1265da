"""A group's season: its kept sheets read together (a club's or a family's evenings).

`season(sheets)` replays each finished sheet's record through the engine (docs/rules.md §11) and adds up,
per ruleset (its variant key) and per player: games, wins, match points (where the ruleset has them) and
the mean, best and worst total; and each game's totals in the season's order, for the plot and the export.
Nothing is recomputed here: totals, match points and winners are the engine's (`GameState`).

Players are matched by the name typed on the sheets, compared after trimming, folding runs of spaces into
one and ignoring case (`player_key`): "ann", " Ann " and "ANN" are one player, "Anne" another. The spelling
shown is the one used last. A shared win counts as a win (as a profile's `results.won` counts it); a game
alone is never a win. Records that do not replay are counted as skipped, never guessed at.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engine import GameRecord, RecordError, replay

__all__ = ["MAX_SHEETS", "SeasonSheet", "SheetResult", "player_key", "season", "sheet_result"]

MAX_SHEETS = 500


@dataclass(frozen=True)
class SeasonSheet:
    """A group's sheet as the store gives it: its id, name, when it was made (ISO date) and its record."""

    id: str
    name: str
    date: str
    record: Mapping[str, Any]


@dataclass(frozen=True)
class SeatResult:
    name: str
    total: int
    points: float | None  # match points, None where the ruleset has none
    won: bool


@dataclass(frozen=True)
class SheetResult:
    """What the season reads of one sheet's replay: its ruleset and, once finished, each seat's figures."""

    finished: bool
    rules: str  # the variant key
    preset: str
    name: str
    options: tuple[tuple[str, Any], ...]
    modifiers: tuple[str, ...]
    match_points: bool
    seats: tuple[SeatResult, ...]


def sheet_result(record: Mapping[str, Any]) -> SheetResult | None:
    """The engine's replay of a sheet's record, as the season counts it; None: it does not replay."""
    try:
        state = replay(GameRecord.from_dict(dict(record)))
    except (RecordError, TypeError, ValueError, KeyError):
        return None
    rules = state.rules
    base = (rules.variant_key(), rules.preset or rules.id, rules.name, tuple(dict(rules.options).items()))
    if not state.finished:
        return SheetResult(False, *base, tuple(sorted(rules.modifiers)), False, ())
    points = state.match_points()
    winners = state.winners()
    alone = len(state.players) < 2  # a game alone is never a win
    seats = tuple(
        SeatResult(name, state.total(p), points[p] if points is not None else None, p in winners and not alone)
        for p, name in enumerate(state.players)
    )
    return SheetResult(True, *base, tuple(sorted(rules.modifiers)), points is not None, seats)


def player_key(name: str) -> str:
    """How the season matches a name typed on different sheets: trimmed, spaces folded, any case."""
    return " ".join(name.split()).casefold()


def season(
    sheets: Iterable[SeasonSheet], read: Callable[[SeasonSheet], SheetResult | None] | None = None
) -> dict[str, Any]:
    """{"rulesets": [...], "games", "unfinished", "open" (the unfinished sheets' ids), "skipped"}; `read`:
    a sheet's result (default: `sheet_result` of its record; the server keeps those it read).

    Each ruleset: {"rules", "preset", "name", "options", "modifiers", "games", "match_points" (whether it has
    them), "players": [{"name", "games", "wins", "points" (match points, None without), "points_mean", "mean",
    "best", "worst"}] (the standings), "games_list": [{"sheet", "name", "date", "players": [{"name", "total",
    "points", "won"}]}] (in the season's order)}."""
    rulesets: dict[str, dict[str, Any]] = {}
    games = skipped = 0
    still_open: list[str] = []
    for n, sheet in enumerate(sheets):
        result = None if n >= MAX_SHEETS else read(sheet) if read is not None else sheet_result(sheet.record)
        if result is None:
            skipped += 1
            continue
        if not result.finished:
            still_open.append(sheet.id)
            continue
        games += 1
        group = rulesets.setdefault(
            result.rules,
            {
                "rules": result.rules,
                "preset": result.preset,
                "name": result.name,
                "options": dict(result.options),
                "modifiers": list(result.modifiers),
                "games": 0,
                "match_points": result.match_points,
                "by_key": {},
                "games_list": [],
            },
        )
        group["games"] += 1
        row = []
        for seat in result.seats:
            entry = group["by_key"].setdefault(
                player_key(seat.name), {"name": seat.name, "games": 0, "wins": 0, "totals": [], "points": 0.0}
            )
            entry["name"] = " ".join(seat.name.split())  # the spelling used last
            entry["games"] += 1
            entry["wins"] += seat.won
            entry["totals"].append(seat.total)
            entry["points"] += seat.points or 0.0
            row.append({"name": seat.name, "total": seat.total, "points": seat.points, "won": seat.won})
        group["games_list"].append({"sheet": sheet.id, "name": sheet.name, "date": sheet.date, "players": row})
    out = []
    for group in rulesets.values():
        players = []
        for entry in group.pop("by_key").values():
            totals = entry["totals"]
            has_points = group["match_points"]
            players.append(
                {
                    "name": entry["name"],
                    "games": entry["games"],
                    "wins": entry["wins"],
                    "points": round(entry["points"], 2) if has_points else None,
                    "points_mean": round(entry["points"] / entry["games"], 2) if has_points else None,
                    "mean": round(sum(totals) / len(totals), 1),
                    "best": max(totals),
                    "worst": min(totals),
                }
            )
        # the standings: most match points (where there are some), then wins, then the mean
        players.sort(key=lambda e: (-(e["points"] or 0), -e["wins"], -e["mean"], e["name"].casefold()))
        group["players"] = players
        out.append(group)
    out.sort(key=lambda g: (-g["games"], g["rules"]))
    return {"rulesets": out, "games": games, "unfinished": len(still_open), "open": still_open, "skipped": skipped}
