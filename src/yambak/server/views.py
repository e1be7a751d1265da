"""What a viewer sees of a table: built from the engine's own reading functions.

Nothing here computes a score: totals come from `summary()`, box previews from
`state.preview()`. On duplicate tables a viewer sees other players' turns only up
to the round the viewer has finished (they would reveal the viewer's own dice).
"""

from __future__ import annotations

from typing import Any

from ..engine import GameState, Withdraw, summary


def hidden_level(state: GameState, seats: frozenset[int]) -> int | None:
    """Duplicate tables: how many of each other player's turns this viewer may see (None: all)."""
    if not state.simultaneous or state.finished:
        return None
    mine = [s for s in seats if s < len(state.players)]
    pool = mine or range(len(state.players))
    return min(state.sheets[s].turns for s in pool)


def _turn_boxes(state: GameState) -> list[list[str]]:
    """Per player, the box filled in each of their turns, in order."""
    out: list[list[str]] = [[] for _ in state.players]
    for t in state.history:
        out[t.player].append(t.box)
    return out


def _warnings(state: GameState, p: int) -> list[dict[str, Any]]:
    rules = state.rules
    turn = state.turns[p]
    n = len(turn.rolls)
    out: list[dict[str, Any]] = []
    if not n:
        return out
    sheet = state.sheets[p]
    open_boxes = [b for b in range(rules.n_boxes) if sheet.written[b] is None]
    cols = {b // rules.n_rows for b in open_boxes}
    if n == 1 and turn.announced is None and cols and all(rules.columns[c].announce for c in cols):
        out.append({"code": "only-announce"})
    if n < rules.rolls_per_turn:
        closing = sorted({rules.columns[c].id for c in cols if rules.columns[c].rolls == n})
        for col in closing:
            out.append({"code": "closes-after-roll", "column": col, "roll": n})
    preview = state.preview(p)
    for rel in rules.relations:
        if rel.kind == "minimax":
            continue
        hi, lo = rules.row_index[rel.high], rules.row_index[rel.low]
        for ci in range(len(rules.columns)):
            for r, partner in ((hi, lo), (lo, hi)):
                box_id = rules.box_id(ci * rules.n_rows + r)
                if box_id not in preview:
                    continue
                other = sheet.entry_score(ci * rules.n_rows + partner)
                if other is None or (rel.kind == "min_lt_max_at_entry" and not other):
                    continue
                value = preview[box_id]
                zeroes = value <= other if r == hi else value >= other
                if zeroes:
                    out.append(
                        {
                            "code": "zeroes-pair" if rel.kind != "min_lt_max_at_entry" else "voids-entry",
                            "box": box_id,
                            "high": rel.high,
                            "low": rel.low,
                        }
                    )
    return out


def table_view(table: Any, seats: frozenset[int] = frozenset()) -> dict[str, Any]:
    state: GameState = table.state
    rules = state.rules
    level = hidden_level(state, seats)
    summ = summary(state)
    turn_boxes = _turn_boxes(state)
    players = []
    for p, entry in enumerate(summ["players"]):
        sheet = state.sheets[p]
        hide_from = None if level is None or p in seats else level
        hidden = set(turn_boxes[p][hide_from:]) if hide_from is not None else set()
        columns = {}
        for ci, col in enumerate(rules.columns):
            c = entry["columns"][col.id]
            boxes = {}
            for ri, row in enumerate(rules.rows):
                box = ci * rules.n_rows + ri
                box_id = rules.box_id(box)
                if box_id in hidden:
                    boxes[row.id] = {"hidden": True}
                    continue
                score = c["boxes"][row.id]
                written = sheet.written[box]
                cell: dict[str, Any] = {"score": score}
                if written is not None and written != score:
                    cell["written"] = written
                boxes[row.id] = cell
            columns[col.id] = {
                "boxes": boxes,
                "upper": None if hidden else c["upper"],
                "bonus": None if hidden else c["bonus"],
                "total": None if hidden else c["total"],
            }
            if "minimax" in c and not hidden:
                columns[col.id]["minimax"] = c["minimax"]
        turn = state.turns[p]
        turn_view: dict[str, Any] | None = None
        if turn.rolls and (hide_from is None):
            announced = rules.box_id(turn.announced) if turn.announced is not None else None
            # withdrawing is rare (yams-de, before roll 2): only then list the actions to ask
            may_withdraw = turn.announced is not None and len(turn.rolls) == 1 and p in state.to_act()
            turn_view = {
                "rolls": len(turn.rolls),
                "rolls_left": rules.rolls_per_turn - len(turn.rolls),
                "dice": list(turn.dice),
                "held": sorted(turn.held),
                "announced": announced,
                "can_roll": state.can_roll(p),
                "preview": state.preview(p),
                "announce": sorted(state.announceable(p)),
                "can_withdraw": may_withdraw and any(isinstance(a, Withdraw) for a in state.legal_actions(p)),
                "warnings": _warnings(state, p),
            }
        elif turn.rolls:
            turn_view = {"rolls": len(turn.rolls), "hidden": True}
        players.append(
            {
                "seat": p,
                "name": state.players[p],
                "kind": table.seats[p].kind,
                "bot": table.seats[p].bot,
                "total": None if hidden else entry["total"],
                "match_points": entry["match_points"],
                "extra_bonus": entry.get("extra_bonus"),
                "columns": columns,
                "turn": turn_view,
                "turns_done": sheet.turns,
                "full": sheet.full,
            }
        )
    view: dict[str, Any] = {
        "id": table.id,
        "name": table.name,
        "v": table.version,
        "rules": {
            "id": rules.id,
            "name": rules.name,
            "preset": rules.preset,
            "options": dict(rules.options),
            "rows": [{"id": r.id, "upper": r.is_upper} for r in rules.rows],
            "columns": [
                {
                    "id": c.id,
                    "order": c.order,
                    "rolls": c.rolls,
                    "announce": c.announce,
                    "withdraw": c.withdraw,
                    "points": c.points,
                }
                for c in rules.columns
            ],
            "dice": rules.rolled_dice,
            "rolls_per_turn": rules.rolls_per_turn,
            "strike_any": rules.strike_any,
            "upper_bonus": (
                {"threshold": rules.upper_bonus.threshold, "points": rules.upper_bonus.points}
                if rules.upper_bonus
                else None
            ),
            "match": rules.match.kind,
        },
        "duplicate": state.simultaneous,
        "finished": state.finished,
        "current": state.current,
        "to_act": state.to_act(),
        "players": players,
        "rematch": table.rematch,
        "open_seats": [s.seat for s in table.seats if s.kind == "open"],
    }
    if state.finished:
        view["winners"] = state.winners()
        view["column_winners"] = state.column_winners()
    if state.simultaneous:
        view["rounds"] = _rounds(state, level)
    return view


def _rounds(state: GameState, level: int | None) -> list[list[dict[str, Any]]]:
    """Duplicate tables: for each finished round, how each player used the same dice (newest first)."""
    per_player: list[list[Any]] = [[] for _ in state.players]
    for t in state.history:
        per_player[t.player].append(t)
    done = min(len(x) for x in per_player)
    if level is not None:
        done = min(done, level)
    rounds = []
    for k in range(done - 1, max(-1, done - 4), -1):
        row = []
        for p, turns in enumerate(per_player):
            t = turns[k]
            box = state.rules.parse_box(t.box)
            row.append(
                {
                    "seat": p,
                    "rolls": [list(r) for r in t.rolls],
                    "box": t.box,
                    "written": state.sheets[p].written[box] if box is not None else None,
                }
            )
        rounds.append({"round": k + 1, "players": row})
    return rounds  # type: ignore[return-value]


def public_event(event: dict[str, Any], state: GameState, seats: frozenset[int]) -> dict[str, Any]:
    """An event as this viewer may see it (duplicate tables hide other players' dice)."""
    if hidden_level(state, seats) is None or event["player"] in seats:
        return event
    return {"type": event["type"], "player": event["player"], "roll": event["roll"], "game_over": event["game_over"]}
