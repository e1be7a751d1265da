"""A group's season from its sheets' records (yambak.keeper.season) and the CSV rows of a sheet and a season
(yambak.keeper.export), against the engine's replay of each record worked out here apart."""

from __future__ import annotations

from tests.conftest import play_random
from yambak.engine import GameRecord, replay, state_to_record
from yambak.keeper.export import SEASON_COLUMNS, season_rows, sheet_rows
from yambak.keeper.season import SeasonSheet, player_key, season, sheet_result
from yambak.rules import load_ruleset


def _record(preset: str, names: tuple[str, ...], seed: int) -> dict:
    played = state_to_record(play_random(load_ruleset(preset), len(names), seed=seed))
    return GameRecord(played.rules, names, played.turns).to_dict()


def test_players_are_matched_by_name_any_case_and_spacing():
    assert player_key("  Ann  Marie ") == player_key("ann marie") == "ann marie" != player_key("Anne Marie")


def test_the_season_per_ruleset_and_player_matches_the_records():
    records = [
        _record("yams", ("Ann", "Bram"), 1),
        _record("yams", (" bram", "ANN", "Cas"), 2),
        _record("yams", ("Ann",), 3),  # alone: a game, never a win
        _record("yammen", ("Ann", "Bram"), 4),
    ]
    open_game = state_to_record(play_random(load_ruleset("yams"), 2, seed=5, steps=4)).to_dict()
    sheets = [SeasonSheet(f"s{i}", f"Evening {i}", f"2026-01-0{i + 1}", r) for i, r in enumerate(records)]
    sheets += [SeasonSheet("open", "Open", "2026-01-09", open_game), SeasonSheet("bad", "Bad", "2026-01-09", {"x": 1})]
    got = season(sheets)
    assert (got["games"], got["unfinished"], got["open"], got["skipped"]) == (4, 1, ["open"], 1)
    expected: dict = {}
    for record in records:
        state = replay(GameRecord.from_dict(record))
        points = state.match_points()
        for seat, name in enumerate(state.players):
            e = expected.setdefault(
                (state.rules.preset, name.strip().casefold()), {"games": 0, "wins": 0, "pts": 0.0, "totals": []}
            )
            e["games"] += 1
            e["wins"] += len(state.players) > 1 and seat in state.winners()
            e["pts"] += points[seat] if points else 0
            e["totals"].append(state.total(seat))
    by_preset = {r["preset"]: r for r in got["rulesets"]}
    assert by_preset["yams"]["games"] == 3 and by_preset["yammen"]["games"] == 1
    assert by_preset["yams"]["match_points"] is False and by_preset["yammen"]["match_points"] is True
    names = {p["name"] for p in by_preset["yams"]["players"]}
    assert names == {"Ann", "bram", "Cas"}  # the spelling used last, trimmed
    for preset, ruleset in by_preset.items():
        assert len(ruleset["players"]) == len([k for k in expected if k[0] == preset])
        for p in ruleset["players"]:
            e = expected[(preset, p["name"].casefold())]
            assert (p["games"], p["wins"], p["best"], p["worst"]) == (
                e["games"],
                e["wins"],
                max(e["totals"]),
                min(e["totals"]),
            )
            assert p["mean"] == round(sum(e["totals"]) / e["games"], 1)
            assert p["points"] == (round(e["pts"], 2) if preset == "yammen" else None)
    rows = season_rows(got)
    assert rows[0] == SEASON_COLUMNS and len(rows) == 1 + 2 + 3 + 1 + 2
    assert [r[0] for r in rows[1:]] == sorted(r[0] for r in rows[1:])  # the season's order
    alone = [r for r in rows if r[1] == "s2"]
    assert len(alone) == 1 and alone[0][7] == 0 and alone[0][6] == ""


def test_a_yamb_sheets_rows_hold_every_box_and_the_minimax_line():
    state = play_random(load_ruleset("yamb"), 2, seed=7)
    rows = sheet_rows(state)
    assert rows[0] == ["column", "row", "P0", "P1"]
    cells = {(r[0], r[1]): r[2:] for r in rows[1:]}
    for ci, column in enumerate(state.rules.columns):
        scores = [state.column_scores(p)[ci] for p in range(2)]
        assert cells[(column.id, "minimax")] == [c.minimax for c in scores]
        assert cells[(column.id, "total")] == [c.total for c in scores]
        for row in state.rules.rows:
            assert cells[(column.id, row.id)] == [c.boxes[row.id] for c in scores]
    assert cells[("", "total")] == state.totals() and cells[("", "place")] == state.standings()


def test_a_reader_of_sheets_gives_the_season_it_reads():
    """`season(sheets, read)` counts what `read` says of each sheet: the server passes one that keeps them."""
    sheets = [SeasonSheet(f"s{i}", "Evening", "2026-01-01", _record("yams", ("Ann", "Bram"), i)) for i in range(3)]
    seen: list[str] = []

    def read(sheet):
        seen.append(sheet.id)
        return sheet_result(sheet.record)

    assert season(sheets, read) == season(sheets) and seen == ["s0", "s1", "s2"]
    assert sheet_result({"x": 1}) is None
    open_game = state_to_record(play_random(load_ruleset("yams"), 2, seed=5, steps=4)).to_dict()
    result = sheet_result(open_game)
    assert result is not None and not result.finished and result.seats == ()
