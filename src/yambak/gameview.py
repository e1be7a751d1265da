"""A game as every face shows it, read from the engine: one vocabulary for the web table, the kept sheet
(on the server and on a phone, under Pyodide), the terminal, the replay and the review. Nothing is
computed here that the engine does not say.

`game_view` is what a viewer holding some seats sees of a game: every player's sheet, total and match
points, a turn in progress with the engine's outlook of every open box, the winners at the end. On a
duplicate table a viewer sees other players' turns only up to the round the viewer has finished (they
would reveal the viewer's own dice to come).

A sheet, per column (`sheet_columns`): each box's `score` (null while open), its `written` value where
the rules made the score differ, and `why` a box does not simply count what was written: `zeroed` (a
relation zeroed it), `minimax` (Yamb's min and max count through the (max - min) x ones line),
`struck` (struck for 0); `roll`, the roll a box was written after where its row pays more for an
early roll than for the last (Generala's served straight, full house and four of a kind, Yamb's
straight): the points-by-roll rule named where it applied. A box another player may not see yet is
`{"hidden": true}`. Then the upper
sum, the bonus and the points it still needs, the total, and Yamb's minimax line with the written
values it multiplies.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from .engine import GameState, Sheet, TurnRecord
from .engine.outlook import BoxOutlook as Outlook
from .rules import Ruleset
from .rules.model import Points
from .viewtypes import (
    BoxOutlook,
    Cell,
    Column,
    Decided,
    GameView,
    HiddenTurn,
    JSONObject,
    OutrightWin,
    Player,
    Round,
    RoundEntry,
    Sentence,
    TurnView,
)

__all__ = ["END_STRINGS", "decided", "end_words", "game_view", "hidden_level", "public_event", "sheet_columns"]


def hidden_level(state: GameState, seats: frozenset[int]) -> int | None:
    """Duplicate tables: how many of each other player's turns this viewer may see (None: all)."""
    if not state.simultaneous or state.finished:
        return None
    mine = [s for s in seats if s < len(state.players)]
    pool = mine or range(len(state.players))
    return min(state.sheets[s].turns for s in pool)


def turn_boxes(state: GameState) -> list[list[str]]:
    """Per player, the box filled in each of their turns, in order."""
    out: list[list[str]] = [[] for _ in state.players]
    for t in state.history:
        out[t.player].append(t.box)
    return out


def turn_view(state: GameState, p: int) -> TurnView:
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


def _box(b: Outlook) -> BoxOutlook:
    """One open box of the outlook, as the page draws it (the reason as a code: the page translates it)."""
    out: BoxOutlook = {"legal": b.legal}
    if b.legal:
        out["written"] = b.written
        out["gain"] = b.gain
        if b.strike:
            out["strike_gain"] = b.strike_gain
        if b.zeroes_pair:
            out["zeroes_pair"] = True
        if b.voids_entry:
            out["voids_entry"] = True
        if b.joker:
            out["joker"] = True
        if b.strike:
            out["strike"] = True
        if b.pair is not None:
            out["pair"] = list(b.pair)
    else:
        out["code"] = b.code
    return out


def game_view(state: GameState, seats: frozenset[int] = frozenset()) -> GameView:
    """The game as a viewer holding `seats` sees it."""
    rules = state.rules
    level = hidden_level(state, seats)
    boxes_of = turn_boxes(state)
    points = state.match_points()
    categories = state.category_points()  # Balut's points on the sheets as they stand, the engine's arithmetic
    players: list[Player] = []
    for p in range(len(state.players)):
        sheet = state.sheets[p]
        hide_from = None if level is None or p in seats else level
        hidden = set(boxes_of[p][hide_from:]) if hide_from is not None else set()
        turn = state.turns[p]
        shown_turn: TurnView | HiddenTurn | None = None
        if turn.rolls and hide_from is None:
            shown_turn = turn_view(state, p)
        elif turn.rolls:
            shown_turn = {"rolls": len(turn.rolls), "hidden": True}
        player: Player = {
            "seat": p,
            "name": state.players[p],
            "total": None if hidden else _shown(state, p)[1],
            "match_points": points[p] if points else None,
            "extra_bonus": sheet.extra_bonus if rules.joker is not None else None,
            "columns": sheet_columns(state, p, hidden),
            "turn": shown_turn,
            "turns_done": sheet.turns,
            "saved_rolls": sheet.saved if rules.save_rolls else None,  # rolls saved for later turns
            "full": sheet.full,
            "last_box": boxes_of[p][-1] if boxes_of[p] and not hidden else None,
            # the boxes a stand-in filled for this person (away or out of time), marked for everybody
            "stand_in": sorted(b for s, b in state.stand_in if s == p and b not in hidden),
        }
        if categories is not None:  # Balut's points as they stand (hidden with the total)
            c = categories[p]
            player["category_points"] = None if hidden else {"rows": dict(c.rows), "total": c.total, "points": c.points}
        players.append(player)
    view: GameView = {
        "rules": rules.layout(),
        "duplicate": state.simultaneous,
        "finished": state.finished,
        "current": state.current,
        "to_act": state.to_act(),
        "next_seat": [state.next_seat(p) for p in range(len(state.players))],  # whose turn follows each seat's
        "players": players,
    }
    if rules.match.kind == "column_points" and len(state.players) > 1 or state.finished:
        view["column_winners"] = state.column_winners()  # leaders while the game runs, roll-offs applied
    if state.finished:
        view["winners"] = state.winners()
        view["standings"] = state.standings()  # each seat's place, roll-offs applied
        view["ranking"] = state.ranking()  # the seats by place, best first
        view["rolloffs"] = {
            target: [{str(seat): {"dice": list(dice), "pips": sum(dice)} for seat, dice in r} for r in rounds]
            for target, rounds in state.rolloffs
        }
        view["decided"] = decided(state)
        view["end"] = end_words(state)  # what the end says, worded once for every face
    # docs/rules.md §7: every face says it, never as a number of points; on a duplicate table only to a
    # viewer who has played that turn (it would tell the others what their dice of that turn hold)
    if state.outright is not None and (level is None or state.outright.turn <= level):
        view["outright"] = outright_view(state)
    if state.simultaneous:
        view["rounds"] = _rounds(state, level)
    return view


def outright_view(state: GameState) -> OutrightWin:
    """The outright win (`Outright`) and the roll its row had to be made by (1: served), for the words."""
    assert state.outright is not None
    box = state.rules.parse_box(state.outright.box)
    assert box is not None  # the engine wrote it
    won = state.outright
    return {
        "seats": list(won.seats),
        "turn": won.turn,
        "box": won.box,
        "by_roll": state.rules.rows[box % state.rules.n_rows].wins_by_roll,
    }


def _rounds(state: GameState, level: int | None) -> list[Round]:
    """Duplicate tables: for each finished round, how each player used the same dice (newest first)."""
    per_player: list[list[TurnRecord]] = [[] for _ in state.players]
    for t in state.history:
        per_player[t.player].append(t)
    done = min(len(x) for x in per_player)
    if level is not None:
        done = min(done, level)
    rounds: list[Round] = []
    for k in range(done - 1, max(-1, done - 4), -1):
        row: list[RoundEntry] = []
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


# A sheet's columns as last shown, by the sheet they show (engine sheets are immutable, and a new one is
# made by every entry: a sheet that did not change since the last view is not laid out again).
_SHOWN: dict[int, tuple[Sheet, Ruleset, tuple[dict[str, Column], int]]] = {}


def sheet_columns(state: GameState, p: int, hidden: Collection[str] = ()) -> dict[str, Column]:
    """Player `p`'s sheet by column (`hidden`: box ids shown as hidden, totals withheld with them). The
    result may be shared by several views: read it, never change it."""
    if hidden:
        return _sheet_columns(state, p, hidden)
    return _shown(state, p)[0]


def _shown(state: GameState, p: int) -> tuple[dict[str, Column], int]:
    """Player `p`'s columns and total, as last shown if the sheet did not change since."""
    sheet = state.sheets[p]
    known = _SHOWN.get(id(sheet))
    if known is not None and known[0] is sheet and known[1] is state.rules:
        return known[2]
    shown = (_sheet_columns(state, p, ()), state.total(p))
    if len(_SHOWN) >= 4096:
        _SHOWN.clear()
    _SHOWN[id(sheet)] = (sheet, state.rules, shown)
    return shown


def _early_roll(points: Points, roll: int | None) -> int | None:
    """The roll an entry was made after, where its row's points by roll pay more then than on the last."""
    if roll is None or not isinstance(points, tuple) or not points:
        return None
    return roll if points[min(roll, len(points)) - 1] > points[-1] else None


def _sheet_columns(state: GameState, p: int, hidden: Collection[str]) -> dict[str, Column]:
    rules = state.rules
    written = state.sheets[p].written
    struck = {t.box for t in state.history if t.player == p and t.strike}
    by_roll = {t.box: len(t.rolls) for t in state.history if t.player == p and not t.strike and not t.scratch}
    factors = rules.minimax_rows
    shown = not hidden
    columns: dict[str, Column] = {}
    for ci, c in enumerate(state.column_scores(p)):
        boxes: dict[str, Cell] = {}
        for ri, row in enumerate(rules.rows):
            box = ci * rules.n_rows + ri
            box_id = rules.box_id(box)
            if box_id in hidden:
                boxes[row.id] = {"hidden": True}
                continue
            cell: Cell = {"score": c.boxes[row.id]}
            w = written[box]
            if box_id in struck:
                cell["why"] = "struck"
            elif w is not None and w != c.boxes[row.id]:
                cell["written"] = w  # shown beside the score (docs/rules.md §4)
                cell["why"] = "minimax" if row.id in c.folded else "zeroed"
            early = _early_roll(row.points, by_roll.get(box_id))
            if early is not None and w:  # written on a roll that pays more: the rule named on the sheet
                cell["roll"] = early
            boxes[row.id] = cell
        column: Column = {
            "boxes": boxes,
            "upper": c.upper if shown else None,
            "bonus": c.bonus if shown else None,
            "bonus_to_go": c.bonus_to_go if shown else None,
            "total": c.total if shown else None,
        }
        if factors:
            column["minimax"] = c.minimax if shown else None
            if shown and c.minimax is not None:  # (max - min) x ones, from the written values it multiplies
                column["minimax_of"] = [written[ci * rules.n_rows + rules.row_index[r]] for r in factors]
        columns[c.id] = column
    return columns


def public_event(event: JSONObject, state: GameState, seats: frozenset[int]) -> JSONObject:
    """An event as this viewer may see it (duplicate tables hide other players' dice)."""
    if hidden_level(state, seats) is None or event["player"] in seats:
        return event
    return {"type": event["type"], "player": event["player"], "roll": event["roll"], "game_over": event["game_over"]}


# --- the end of a game, in words -----------------------------------------------------------------

# What the end of a game says, worded here once for every face: sentences in English with their values,
# which each face translates through the catalogs (the pages' `T`, the terminal's `Words`).
END_STRINGS = (
    "Final score: {total}",
    "{names} share the win",
    "Level on match points ({points}) and on the total ({total}).",
    "Level on points: {total} each.",
    "{name} wins",
    "On match points: {points} to {other_points}.",
    "On match points, after a roll-off: {points} to {other_points}.",
    "Level on match points ({points}): the higher total wins, {total} to {other}.",
    "On points: {total} to {other}.",
    "Won outright: served {box}.",
    "Won outright: {box} by roll {n}.",
)


def decided(state: GameState) -> Decided | None:
    """What decided a finished game (docs/rules.md §7), for its headline: `by` is "alone" (one player),
    "outright" (an entry that wins at once, Generala's served generala), "shared" (the win is shared),
    "points" (the highest total), "match_points", "rolloff" (match points a roll-off gave), or "total"
    (level on match points, the higher total); `next` is the best-placed seat behind the winners (None
    when there is none)."""
    if not state.finished:
        return None
    winners = state.winners()
    places = state.standings()
    behind = sorted((places[s], s) for s in range(len(state.players)) if s not in winners)
    out: Decided = {"by": "points", "next": behind[0][1] if behind else None}
    points = state.match_points()
    if state.outright is not None:  # won at once: the headline says so, never a total (one seat too)
        won = outright_view(state)
        out["by"] = "outright"
        out["seats"], out["turn"], out["box"], out["by_roll"] = won["seats"], won["turn"], won["box"], won["by_roll"]
    elif len(state.players) == 1:
        out["by"] = "alone"
    elif len(winners) > 1:
        out["by"] = "shared"
    elif points is not None:
        if sum(1 for p in points if p == points[winners[0]]) > 1:
            out["by"] = "total"
        else:  # the most match points: a roll-off decided where, without its rounds, the lead would not be alone
            unsettled = replace(state, rolloffs=()).match_points() or points
            alone = sum(1 for p in unsettled if p >= unsettled[winners[0]]) == 1
            out["by"] = "rolloff" if state.rolloffs and not alone else "match_points"
    return out


def _sentence(text: str, **args: str | int | float) -> Sentence:
    return {"text": text, "args": args}


def end_words(state: GameState) -> list[Sentence] | None:
    """The end of a finished game in words: its headline, then (where there is one) what decided it, as
    [{"text", "args"}] with `text` one of END_STRINGS. Each face translates `text` and fills in `args`:
    numbers written as its language writes them, a `box` (a box id) named as its sheet names it."""
    d = decided(state)
    if d is None:
        return None
    winners = state.winners()
    totals = state.totals()
    points = state.match_points()
    top = winners[0]
    other = d["next"]
    args: dict[str, str | int | float] = {"name": state.players[top], "total": totals[top]}
    if other is not None:
        args["other"] = totals[other]
    if points is not None:
        args["points"] = points[top]
        if other is not None:
            args["other_points"] = points[other]
    by = d["by"]
    if by == "alone":
        return [_sentence(END_STRINGS[0], total=totals[top])]
    if by == "outright":
        box, roll = d["box"], d["by_roll"]  # the entry that won at once, and the roll it had to be made by
        how = _sentence(END_STRINGS[9], box=box) if roll == 1 else _sentence(END_STRINGS[10], box=box, n=roll)
        if len(winners) > 1:  # a duplicate table's seats may share it
            return [_sentence(END_STRINGS[1], names=", ".join(state.players[w] for w in winners)), how]
        return [_sentence(END_STRINGS[4], name=state.players[top]), how]
    if by == "shared":
        names = ", ".join(state.players[w] for w in winners)
        why = (
            _sentence(END_STRINGS[2], points=args["points"], total=totals[top])
            if points is not None
            else _sentence(END_STRINGS[3], total=totals[top])
        )
        return [_sentence(END_STRINGS[1], names=names), why]
    head = _sentence(END_STRINGS[4], name=state.players[top])
    if other is None:
        return [head]
    text, keys = {  # each way of winning and the values its sentence names
        "match_points": (END_STRINGS[5], ("points", "other_points")),
        "rolloff": (END_STRINGS[6], ("points", "other_points")),
        "total": (END_STRINGS[7], ("points", "total", "other")),
    }.get(by, (END_STRINGS[8], ("total", "other")))
    return [head, _sentence(text, **{k: args[k] for k in keys})]
