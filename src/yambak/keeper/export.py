"""A kept sheet and a group's season as rows for a CSV file: every figure read from the engine.

`sheet_rows(state)`: one row per box (column, row) with each player's score, then each column's upper sum,
bonus, minimax line (yamb) and total, then the grand total, match points where the ruleset has them and
each player's place. `season_rows(season)`: one row per player of each game of a season
(`yambak.keeper.season`). Open boxes are empty cells."""

from __future__ import annotations

from typing import Any

from ..engine import GameState

__all__ = ["SEASON_COLUMNS", "season_rows", "sheet_rows"]

SEASON_COLUMNS = ["date", "sheet", "sheet_name", "rules", "player", "total", "match_points", "won"]


Cell = str | int | float  # a CSV cell (an open box: "")


def _cell(value: Cell | None) -> Cell:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return value


def sheet_rows(state: GameState) -> list[list[Cell]]:
    rules = state.rules
    players = range(len(state.players))
    columns = [state.column_scores(p) for p in players]
    out: list[list[Cell]] = [["column", "row", *state.players]]
    for ci, column in enumerate(rules.columns):
        for row in rules.rows:
            out.append([column.id, row.id, *(_cell(columns[p][ci].boxes[row.id]) for p in players)])
        out.append([column.id, "upper", *(columns[p][ci].upper for p in players)])
        if rules.upper_bonus is not None:
            out.append([column.id, "bonus", *(columns[p][ci].bonus for p in players)])
        if rules.minimax_rows:
            out.append([column.id, "minimax", *(_cell(columns[p][ci].minimax) for p in players)])
        out.append([column.id, "total", *(columns[p][ci].total for p in players)])
    out.append(["", "total", *state.totals()])
    points = state.match_points()
    if points is not None:
        out.append(["", "match_points", *(_cell(x) for x in points)])
    if state.finished:
        out.append(["", "place", *state.standings()])
    return out


def season_rows(season: dict[str, Any]) -> list[list[Cell]]:
    out: list[list[Cell]] = [[*SEASON_COLUMNS]]
    games = [(game, ruleset["rules"]) for ruleset in season["rulesets"] for game in ruleset["games_list"]]
    games.sort(key=lambda g: g[0]["date"])  # the season's order across rulesets (stable within a day)
    for game, rules_key in games:
        for p in game["players"]:
            out.append(
                [game["date"], game["sheet"], game["name"], rules_key, p["name"], p["total"], _cell(p["points"]),
                 int(p["won"])]
            )  # fmt: skip
    return out
