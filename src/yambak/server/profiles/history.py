"""A profile's games as its pages and exports show them: one page of the history (newest first, by
preset), the JSON and CSV exports. Everything comes from the stored results and records."""

from __future__ import annotations

import csv
import io
from datetime import datetime

from ...rules import preset_ids
from ...rules.loader import preset_data
from ...store import ProfileRow, ResultRow, Store
from ...viewtypes import JSONObject, JSONValue
from ...web.i18n import ruleset_name

__all__ = ["PAGE", "export_csv", "export_json", "game_item", "history_page", "preset_label"]

PAGE = 30  # games per page of the history


def preset_label(preset: str, lang: str) -> str:
    if preset in preset_ids():
        return ruleset_name(preset, str(preset_data(preset).get("name", preset)), lang)
    return preset


def variant_label(rules_id: str, lang: str) -> str:
    """`yams-fr columns=3` as players read it: the game's name, then the options that differ."""
    if rules_id.startswith("custom:"):
        return rules_id.split(":", 2)[1]
    preset, _, rest = rules_id.partition(" ")
    return f"{preset_label(preset, lang)}{' · ' + rest if rest else ''}"


def _others(result: ResultRow, seats: dict[str, list[tuple[int, str, str]]]) -> list[JSONValue]:
    if result.kind == "kept":
        players = (result.record or {}).get("players")
        names = players if isinstance(players, list) else []  # a kept sheet's record names its players
        return [{"name": n, "bot": False} for i, n in enumerate(names) if i != result.seat]
    others = [(name, kind) for seat, name, kind in seats.get(result.ref, []) if seat != result.seat]
    return [{"name": name, "bot": kind == "bot"} for name, kind in others]


def game_item(result: ResultRow, lang: str, seats: dict[str, list[tuple[int, str, str]]]) -> JSONObject:
    """One game of the history list."""
    return {
        "id": result.public_id,
        "kind": result.kind,
        "ref": result.ref,
        "when": result.finished_at.isoformat() + "Z",
        "preset": result.preset,
        "game": variant_label(result.rules_id, lang),
        "score": result.score,
        "won": result.won,
        "outright": result.outright_turn,  # won at once on this turn (docs/rules.md §7): said as a win
        "players": result.players,
        "with": _others(result, seats),
        "accuracy": None if result.accuracy is None else round(result.accuracy, 2),
        "graded": result.decisions is not None,
        "best": result.best,
        "counted": result.counted,
        # a deal's game on dice seen before, or one with a hint or a bot's turn: left out of the statistics
        "help": None if result.counted or result.kind == "kept" else "practice" if result.deal_id else "helped",
        "seat": result.seat,
    }


def history_page(
    store: Store, profile: ProfileRow, lang: str, preset: str | None, page: int, public_at: datetime | None = None
) -> JSONObject:
    """A page of the profile's games with what the filter needs (presets and their counts); `public_at`:
    as others see it then (without the games of deals still open)."""
    page = max(1, page)
    rows, total = store.results(profile.id, preset or None, PAGE, (page - 1) * PAGE, True, public_at)
    seats = store.table_seats([r.ref for r in rows if r.kind != "kept"])
    counts = store.result_presets(profile.id, public_at)
    return {
        "games": [game_item(r, lang, seats) for r in rows],
        "total": total,
        "all": sum(counts.values()),
        "page": page,
        "pages": max(1, -(-total // PAGE)),
        "preset": preset or None,
        "presets": [{"id": p, "name": preset_label(p, lang), "games": n} for p, n in counts.items()],
    }


def _records(store: Store, rows: list[ResultRow]) -> dict[str, JSONObject]:
    """The game records behind results: kept ones carry theirs, tables' come from their final snapshot
    (players named as their seats are now)."""
    out: dict[str, JSONObject] = {}
    for r in rows:
        if r.record is not None:
            out[f"{r.kind}/{r.ref}"] = r.record
            continue
        row = store.get_session(r.ref, "table")
        if row is not None:
            out[f"{r.kind}/{r.ref}"] = {**row.record, "players": [s.name for s in row.seats]}
    return out


def export_json(store: Store, profile: ProfileRow, now: datetime) -> JSONObject:
    rows, _ = store.results(profile.id, None, 0, 0, with_records=True)
    records = _records(store, rows)
    return {
        "format": "yambak-history/1",
        "profile": {"name": profile.name},
        "exported_at": now.isoformat() + "Z",
        "games": [
            {
                "kind": r.kind,
                "finished_at": r.finished_at.isoformat() + "Z",
                "rules": r.rules_id,
                "seat": r.seat,
                "score": r.score,
                "won": r.won,
                "outright_turn": r.outright_turn,
                "counted": r.counted,
                "accuracy": r.accuracy,
                "record": records.get(f"{r.kind}/{r.ref}"),
            }
            for r in rows
        ],
    }


CSV_COLUMNS = ["finished_at", "kind", "preset", "rules", "players", "seat", "score", "won", "counted",
               "accuracy", "decisions", "personal_best", "game"]  # fmt: skip


def export_csv(store: Store, profile: ProfileRow) -> str:
    rows, _ = store.results(profile.id, None, 0, 0)
    buf = io.StringIO()
    out = csv.writer(buf, lineterminator="\n")
    out.writerow(CSV_COLUMNS)
    for r in rows:
        out.writerow([
            r.finished_at.isoformat() + "Z", r.kind, r.preset, r.rules_id, r.players,
            "" if r.seat is None else r.seat + 1, "" if r.score is None else r.score, int(r.won), int(r.counted),
            "" if r.accuracy is None else f"{r.accuracy:.4f}", "" if r.decisions is None else r.decisions,
            int(r.best), r.ref,
        ])  # fmt: skip
    return buf.getvalue()
