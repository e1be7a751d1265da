"""What a viewer sees of a table: read from the engine, nothing computed here.

Totals and box scores come from the engine's column scores, everything about the
boxes of a turn in progress from `state.outlook()`. On duplicate tables a viewer
sees other players' turns only up to the round the viewer has finished (they would
reveal the viewer's own dice).
"""

from __future__ import annotations

from typing import Any

from ...bots import model_status
from ...engine import GameState


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


def _turn_view(state: GameState, p: int) -> dict[str, Any]:
    """A turn in progress, with the engine's outlook of every open box."""
    turn = state.turns[p]
    outlook = state.outlook(p)
    return {
        "rolls": outlook.rolls,
        "rolls_left": outlook.rolls_left,
        "dice": list(turn.dice),
        "held": sorted(turn.held),
        "announced": outlook.announced,
        "can_roll": outlook.can_roll,
        "roll_code": outlook.roll_code,
        "must_announce": outlook.must_announce,
        "closing": list(outlook.closing),
        "can_withdraw": outlook.can_withdraw,
        "announce": [b.box for b in outlook.boxes if b.announce],
        "boxes": {b.box: _box(b) for b in outlook.boxes if b.open},
    }


def _box(b: Any) -> dict[str, Any]:
    """One open box of the outlook, as the page draws it (the reason as a code: the page translates it)."""
    out: dict[str, Any] = {"legal": b.legal}
    if b.legal:
        out.update(written=b.written, gain=b.gain)
        if b.strike:
            out["strike_gain"] = b.strike_gain
        for flag in ("zeroes_pair", "voids_entry", "joker", "strike"):
            if getattr(b, flag):
                out[flag] = True
        if b.pair is not None:
            out["pair"] = list(b.pair)
    else:
        out["code"] = b.code
    return out


def sheet_columns(state: GameState, p: int, hidden: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    """A player's sheet by column: each box's score (and written value where a relation changed it;
    `folded` where it counts through Yamb's minimax line; `struck` where it was struck for 0), the upper
    sum, bonus, points still missing for it, total, and the minimax line."""
    rules = state.rules
    written = state.sheets[p].written
    struck = {t.box for t in state.history if t.player == p and t.strike}
    columns: dict[str, Any] = {}
    for ci, c in enumerate(state.column_scores(p)):
        boxes: dict[str, Any] = {}
        for ri, row in enumerate(rules.rows):
            box = ci * rules.n_rows + ri
            if rules.box_id(box) in hidden:
                boxes[row.id] = {"hidden": True}
                continue
            cell: dict[str, Any] = {"score": c.boxes[row.id]}
            if written[box] is not None and written[box] != c.boxes[row.id]:
                cell["written"] = written[box]  # RULES.md section 4: shown struck through beside the score
                if row.id in c.folded:
                    cell["folded"] = True
            if rules.box_id(box) in struck:
                cell["struck"] = True
            boxes[row.id] = cell
        shown = not hidden
        columns[c.id] = {
            "boxes": boxes,
            "upper": c.upper if shown else None,
            "bonus": c.bonus if shown else None,
            "bonus_to_go": c.bonus_to_go if shown else None,
            "total": c.total if shown else None,
        }
        if rules.has_minimax:
            columns[c.id]["minimax"] = c.minimax if shown else None
    return columns


def table_view(table: Any, seats: frozenset[int] = frozenset()) -> dict[str, Any]:
    state: GameState = table.state
    rules = state.rules
    level = hidden_level(state, seats)
    turn_boxes = _turn_boxes(state)
    points = state.match_points()
    players = []
    for p in range(len(state.players)):
        sheet = state.sheets[p]
        hide_from = None if level is None or p in seats else level
        hidden = set(turn_boxes[p][hide_from:]) if hide_from is not None else set()
        turn = state.turns[p]
        turn_view: dict[str, Any] | None = None
        if turn.rolls and hide_from is None:
            turn_view = _turn_view(state, p)
        elif turn.rolls:
            turn_view = {"rolls": len(turn.rolls), "hidden": True}
        players.append(
            {
                "seat": p,
                "name": state.players[p],
                "kind": table.seats[p].kind,
                "bot": table.seats[p].bot,
                # "prior" or "unchecked" when this bot plays on a value model the players should know about
                "bot_model": _bot_model(rules, table.seats[p]),
                "total": None if hidden else state.total(p),
                "match_points": points[p] if points else None,
                "extra_bonus": sheet.extra_bonus if rules.joker is not None else None,
                "columns": sheet_columns(state, p, hidden),
                "turn": turn_view,
                "turns_done": sheet.turns,
                "full": sheet.full,
                "last_box": turn_boxes[p][-1] if turn_boxes[p] and not hidden else None,
            }
        )
    view: dict[str, Any] = {
        "id": table.id,
        "name": table.name,
        "v": table.version,
        "rules": rules.layout(),
        "duplicate": state.simultaneous,
        "finished": state.finished,
        "current": state.current,
        "to_act": state.to_act(),
        "players": players,
        "rematch": table.rematch,
        "open_seats": [s.seat for s in table.seats if s.kind == "open"],
        # seats with a device connected to this server, as of this view (a friend who closed the tab
        # shows as away from the next move on)
        "online": sorted({s for c in table.conns if c.joined for s in c.seats}),
        "settings": table.settings.to_dict(),
        "clocks": table.clocks(),
        "can_undo": [p for p in range(len(state.players)) if table.settings.undo and state.can_undo(p)],
        "fairness": _fairness(table.fairness, state),
    }
    if state.finished:
        view["winners"] = state.winners()
        view["column_winners"] = state.column_winners()
        view["rolloffs"] = {
            target: [{str(seat): {"dice": list(dice), "pips": sum(dice)} for seat, dice in r} for r in rounds]
            for target, rounds in state.rolloffs
        }
    if state.simultaneous:
        view["rounds"] = _rounds(state, level)
    return view


def _bot_model(rules: Any, seat: Any) -> str | None:
    return model_status(rules, seat.bot) if seat.kind == "bot" and seat.bot else None


def _fairness(fair: Any, state: GameState) -> dict[str, Any] | None:
    """The dice commitment (docs/fairness.md), the seed once the game is over; `open` while the
    seated players may still mix in their nonces (before the game's first roll)."""
    if fair is None:
        return None
    fixed = getattr(fair, "deal", "")  # a deal's dice are the same for every entrant: no nonces
    return {**fair.block(revealed=state.finished), "open": state.serial == 0 and not state.finished and not fixed}


def _rounds(state: GameState, level: int | None) -> list[dict[str, Any]]:
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
    return rounds


def public_event(event: dict[str, Any], state: GameState, seats: frozenset[int]) -> dict[str, Any]:
    """An event as this viewer may see it (duplicate tables hide other players' dice)."""
    if hidden_level(state, seats) is None or event["player"] in seats:
        return event
    return {"type": event["type"], "player": event["player"], "roll": event["roll"], "game_over": event["game_over"]}
