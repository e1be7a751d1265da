"""Statistics of kept sheets, per player and ruleset: one function for the server and the phone.

`statistics(records)` reads finished game records (docs/rules.md §11), replays each
through the engine and groups the players by name (any case) and ruleset (its variant key:
preset, options and modifiers, or a custom ruleset's name and digest): games, wins, mean,
best and worst total, the share of columns that reached the upper bonus, the share of yam
boxes that scored, and the totals in the order played (for a small chart). Records that do not replay are counted
as skipped, never guessed at.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..engine import GameRecord, RecordError, replay

__all__ = ["MAX_RECORDS", "statistics"]

MAX_RECORDS = 500
SERIES = 30  # the last totals kept for the chart


def statistics(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """{"groups": [{"rules", "preset", "options", "name", "players": [...]}], "games", "skipped"}.

    Each player entry: name, games, wins (shared wins count), mean, best, worst, bonus_rate,
    yam_rate (None where the ruleset has no bonus / no yam row), totals (the last 30, oldest first)."""
    groups: dict[str, dict[str, Any]] = {}
    games = skipped = 0
    for n, data in enumerate(records):
        if n >= MAX_RECORDS:
            skipped += 1
            continue
        try:
            state = replay(GameRecord.from_dict(data))
        except (RecordError, TypeError, ValueError, KeyError):
            skipped += 1
            continue
        if not state.finished:
            continue
        games += 1
        rules = state.rules
        key = rules.variant_key()
        group = groups.setdefault(
            key,
            {
                "rules": key,
                "preset": rules.preset or rules.id,
                "options": dict(rules.options),
                "modifiers": sorted(rules.modifiers),
                "name": rules.name,
                "games": 0,
                "by_name": {},
            },
        )
        group["games"] += 1
        yam_rows = [r.id for r in rules.rows if r.kind == "yam"]
        winners = state.winners()
        for p, name in enumerate(state.players):
            entry = group["by_name"].setdefault(
                name.casefold(),
                {"name": name, "games": 0, "wins": 0, "totals": [], "bonus": [0, 0], "yam": [0, 0]},
            )
            entry["name"] = name  # the spelling used last
            entry["games"] += 1
            entry["wins"] += p in winners and len(state.players) > 1
            entry["totals"].append(state.total(p))
            for column in state.column_scores(p):
                if rules.upper_bonus is not None:
                    entry["bonus"][0] += column.bonus > 0
                    entry["bonus"][1] += 1
                for row in yam_rows:
                    entry["yam"][0] += (column.boxes[row] or 0) > 0
                    entry["yam"][1] += 1
    out = []
    for group in groups.values():
        players = []
        for entry in group.pop("by_name").values():
            totals = entry["totals"]
            players.append(
                {
                    "name": entry["name"],
                    "games": entry["games"],
                    "wins": entry["wins"],
                    "mean": round(sum(totals) / len(totals), 1),
                    "best": max(totals),
                    "worst": min(totals),
                    "bonus_rate": round(entry["bonus"][0] / entry["bonus"][1], 3) if entry["bonus"][1] else None,
                    "yam_rate": round(entry["yam"][0] / entry["yam"][1], 3) if entry["yam"][1] else None,
                    "totals": totals[-SERIES:],
                }
            )
        players.sort(key=lambda e: (-e["games"], -e["mean"], e["name"].casefold()))
        group["players"] = players
        out.append(group)
    out.sort(key=lambda g: (-g["games"], g["rules"]))
    return {"groups": out, "games": games, "skipped": skipped}
