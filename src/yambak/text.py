"""Plain-text views for the terminal: a ruleset's layout and players' sheets.

Views only format what the rules and the engine computed; nothing is scored here.
"""

from __future__ import annotations

from .engine import GameState, summary
from .rules import Row, Ruleset

__all__ = ["describe_row", "render_rules", "render_sheets"]


def describe_row(row: Row, n_dice: int = 5) -> str:
    """A row's condition and points in words."""
    a, b = row.house
    cond = {
        "upper": f"count of {row.face}s x {row.face}",
        "kind": f"exactly {row.n} of a kind" if row.exact else f"{row.n} of a kind",
        "one_pair": "a pair",
        "two_pairs": "two different pairs",
        "three_pairs": "three different pairs",
        "full_house": "three of one face and two of another",
        "house": f"{a} of one face and {b} of another",
        "straight": " or ".join("".join(str(v) for v in sorted(run)) for run in row.runs),
        "flush": "all dice of one colour",
        "yam": f"{n_dice} of a kind",
        "sum": "any dice",
    }[row.kind]
    if row.kind == "upper":
        return cond
    if row.same_colour:
        cond += ", all of one colour"
    points = row.points
    if isinstance(points, tuple):
        value = " / ".join(f"{p} on roll {i + 1}" for i, p in enumerate(points))
    elif points == "sum":
        value = "sum of all dice"
    elif points == "matched":
        value = "sum of the matching dice"
    else:
        value = str(points)
    if row.bonus:
        value += f" + {row.bonus}"
    if row.needs:
        value += f"; only once {row.needs} is filled, and 0 if {row.needs} scored 0"
    if row.wins_by_roll:
        value += f"; made by roll {row.wins_by_roll}, it wins the game at once"
    return f"{cond}: {value}"


def _column_rule(c) -> str:  # type: ignore[no-untyped-def]
    parts = [c.order]
    if c.order == "middle":
        parts[0] = f"middle (from {' / '.join(c.start)} outward)"
    if c.rolls is not None:
        parts.append(f"only right after roll {c.rolls}")
    if c.announce:
        parts.append("announce after roll 1" + (", may withdraw before roll 2" if c.withdraw else ""))
    if c.points:
        parts.append(f"{c.points:g} match points")
    return ", ".join(parts)


def _option_text(value: object) -> str:
    """An option value as `-o KEY=VALUE` takes it back: true/false, a number, items joined by commas."""
    if isinstance(value, bool):
        return str(value).lower()
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def render_rules(rules: Ruleset) -> str:
    lines = [f"{rules.name} ({rules.id})", rules.description, ""]
    if rules.options:
        opts = ", ".join(f"{k}={_option_text(v)}" for k, v in rules.options)
        lines += [f"Options: {opts}", ""]
    lines.append("Columns:")
    lines += [f"  {c.id:<10} {_column_rule(c)}" for c in rules.columns]
    lines += ["", "Rows:"]
    lines += [f"  {r.id:<15} {describe_row(r, rules.dice)}" for r in rules.rows]
    lines.append("")
    if rules.dice != 5 and rules.rolled_dice == rules.dice:
        lines.append(f"All {rules.dice} dice count.")
    if rules.save_rolls:
        lines.append("Rolls a turn leaves unused are saved for later turns.")
    if rules.colours:
        lines.append("Pip colours: " + ", ".join(f"{f}: {c}" for f, c in enumerate(rules.colours, start=1)))
    if rules.upper_bonus:
        steps = " / ".join(f"{p} at {t}" for t, p in rules.upper_bonus.all_steps)
        lines.append(f"Upper bonus: {steps} (ones..sixes, per column; the highest step reached counts)")
    for rel in rules.relations:
        text = {
            "max_gt_min": f"{rel.high} must be higher than {rel.low} in a column, or both score 0"
            + (" (such an entry only when no other box fits)" if rel.last_resort else ""),
            "min_lt_max_at_entry": f"{rel.low} must stay below {rel.high}: an entry breaking it scores 0"
            + (" (compared across every column)" if rel.strict else ""),
            "minimax": f"{rel.low} and {rel.high} score ({rel.high} - {rel.low}) x {rel.factor} per column",
        }[rel.kind]
        lines.append(f"Relation: {text}")
    if rules.joker:
        placed = {
            "forced": "and is forced into its face's upper box, else a lower box, else an upper box",
            "free": "and may fill any open box, a lower box at full value",
            "none": "and scores as the dice are (no joker)",
        }[rules.joker.placement]
        lines.append(f"Joker: a further yam scores +{rules.joker.bonus} while {rules.joker.row} holds points, {placed}")
    if rules.strike_any:
        lines.append("Any box may be struck for 0.")
    if rules.match.kind == "column_points":
        lines.append(f"Match: column points; grand total {rules.match.total_points:g}; ties: {rules.match.ties}")
    lines.append(f"{rules.rolls_per_turn} rolls per turn, {rules.rolled_dice} dice.")
    return "\n".join(lines)


def render_sheets(state: GameState) -> str:
    data = summary(state)
    rules = state.rules
    blocks = []
    for p, player in enumerate(data["players"]):
        cols = list(player["columns"].items())
        width = max(7, *(len(cid) + 1 for cid, _ in cols))
        head = f"{'':<16}" + "".join(f"{cid:>{width}}" for cid, _ in cols)
        lines = [f"{player['name']}", head]

        written = state.sheets[p].written

        def line(label: str, values: list[object], width: int = width) -> str:
            return f"{label:<16}" + "".join(f"{'' if v is None else v:>{width}}" for v in values)

        def cells(row_index: int, written: tuple[int | None, ...] = written, cols: list = cols) -> list[object]:
            # RULES.md section 4: where a relation changed a box, show the written value too
            row_id = rules.rows[row_index].id
            out: list[object] = []
            for ci, (_, c) in enumerate(cols):
                score, value = c["boxes"][row_id], written[ci * rules.n_rows + row_index]
                out.append(score if value is None or value == score else f"{score}({value})")
            return out

        for i, r in enumerate(rules.rows):
            if r.is_upper:
                lines.append(line(r.id, cells(i)))
        if any(r.is_upper for r in rules.rows):
            lines.append(line("upper", [c["upper"] for _, c in cols]))
        if rules.upper_bonus is not None:  # no bonus line where the rules have no upper bonus
            lines.append(line("bonus", [c["bonus"] for _, c in cols]))
        for i, r in enumerate(rules.rows):
            if not r.is_upper:
                lines.append(line(r.id, cells(i)))
        if any("minimax" in c for _, c in cols):
            lines.append(line("minimax", [c.get("minimax") for _, c in cols]))
        lines.append(line("total", [c["total"] for _, c in cols]))
        if "extra_bonus" in player:
            lines.append(f"{'extra bonus':<16}{player['extra_bonus']:>{width}}")
        lines.append(f"{'grand total':<16}{player['total']:>{width}}")
        if player["match_points"] is not None:
            lines.append(f"{'match points':<16}{player['match_points']:>{width}g}")
        blocks.append("\n".join(lines))
    status = "finished" if data["finished"] else f"in progress: {state.players[state.current]} to play"
    if data["finished"]:
        names = [state.players[w] for w in state.winners()]
        status += "; winner: " + " and ".join(names)
    return "\n\n".join(blocks) + f"\n\nGame {status}."
