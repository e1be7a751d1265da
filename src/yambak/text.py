"""Plain-text views for the terminal: a ruleset's layout and players' sheets.

Views only format what the rules and the engine computed; nothing is scored here. A ruleset's rules
are the rule describer's sentences (`yambak.rules.describe`), in English, rows and columns by id.
"""

from __future__ import annotations

from collections.abc import Callable

from .engine import GameState
from .engine.scoresheet import ColumnScore
from .rules import Row, Ruleset
from .rules.describe import Named, Phrase, describe, row_phrase

__all__ = ["describe_row", "render_rules", "render_sheets", "rule_phrase"]


def _english(text: str) -> str:
    return text


def _by_id(item: Named) -> str:
    return item.id


def describe_row(row: Row) -> str:
    """A row's condition and points in words (the rule describer's, in English)."""
    return rule_phrase(row_phrase(row))


def rule_phrase(phrase: Phrase) -> str:
    """A phrase of the rule describer in English, rows and columns by id."""
    return phrase.render(_english, _by_id)


def _option_text(value: object) -> str:
    """An option value as `-o KEY=VALUE` takes it back: true/false, a number, items joined by commas."""
    if isinstance(value, bool):
        return str(value).lower()
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def render_rules(rules: Ruleset) -> str:
    """A ruleset's layout and rules in words: what `yambak rules` prints (the how-to pages say the same)."""
    text = describe(rules)
    lines = [f"{rules.name} ({rules.id})", rules.description, ""]
    if rules.options:
        opts = ", ".join(f"{k}={_option_text(v)}" for k, v in rules.options)
        lines += [f"Options: {opts}", ""]
    lines += [rule_phrase(s) for s in text.general]
    lines += ["", "Columns:"]
    for c in text.columns:
        notes = [rule_phrase(n) for n in c.notes] + ([rule_phrase(c.points)] if c.points else [])
        lines.append(f"  {c.id:<10} {' '.join(notes)}")
    lines += ["", "Rows:"]
    lines += [f"  {row_id:<15} {rule_phrase(scores)}" for row_id, scores in text.rows]
    lines.append("")
    lines += [rule_phrase(s) for s in (*text.scoring, *text.winning)]
    return "\n".join(lines)


def render_sheets(state: GameState, name: Callable[[str, str], str] | None = None) -> str:
    """Every sheet as text. `name(kind, key)` names what the sheet shows in a language: kind "row" (a row
    id), "column" (a column id) or "line" (upper, bonus, total, extra bonus, grand total, match points);
    without it (`yambak replay`) rows and columns show by their ids and the game's state follows the sheets
    (a line mode given `name` says the end in its own words)."""
    said = name or (lambda _kind, key: key)
    rules = state.rules
    points = state.match_points()
    labels = [said("row", r.id) for r in rules.rows]
    lines_of = ("upper", "bonus", "minimax", "total", "extra bonus", "grand total", "match points")
    shown = {key: said("line", key) for key in lines_of}
    left = max(16, *(len(text) + 2 for text in [*labels, *shown.values()]))  # the label column fits its names
    blocks = []
    for p, player in enumerate(state.players):
        cols = [(said("column", c.id), c) for c in state.column_scores(p)]
        width = max(7, *(len(cid) + 1 for cid, _ in cols))
        head = f"{'':<{left}}" + "".join(f"{cid:>{width}}" for cid, _ in cols)
        lines = [f"{player}", head]

        written = state.sheets[p].written

        def line(label: str, values: list[object], width: int = width) -> str:
            return f"{label:<{left}}" + "".join(f"{'' if v is None else v:>{width}}" for v in values)

        def cells(
            row_index: int, written: tuple[int | None, ...] = written, cols: list[tuple[str, ColumnScore]] = cols
        ) -> list[object]:
            # docs/rules.md §4: where a relation changed a box, show the written value too
            row_id = rules.rows[row_index].id
            out: list[object] = []
            for ci, (_, c) in enumerate(cols):
                score, value = c.boxes[row_id], written[ci * rules.n_rows + row_index]
                out.append(score if value is None or value == score else f"{score}({value})")
            return out

        for i, r in enumerate(rules.rows):
            if r.is_upper:
                lines.append(line(labels[i], cells(i)))
        if any(r.is_upper for r in rules.rows):
            lines.append(line(shown["upper"], [c.upper for _, c in cols]))
        if rules.upper_bonus is not None:  # no bonus line where the rules have no upper bonus
            lines.append(line(shown["bonus"], [c.bonus for _, c in cols]))
        for i, r in enumerate(rules.rows):
            if not r.is_upper:
                lines.append(line(labels[i], cells(i)))
        if rules.has_minimax:
            lines.append(line(shown["minimax"], [c.minimax for _, c in cols]))
        lines.append(line(shown["total"], [c.total for _, c in cols]))
        if rules.joker is not None:
            lines.append(f"{shown['extra bonus']:<{left}}{state.sheets[p].extra_bonus:>{width}}")
        lines.append(f"{shown['grand total']:<{left}}{state.total(p):>{width}}")
        if points is not None:
            lines.append(f"{shown['match points']:<{left}}{points[p]:>{width}g}")
        blocks.append("\n".join(lines))
    if name is not None:
        return "\n\n".join(blocks)
    status = "finished" if state.finished else f"in progress: {state.players[state.current]} to play"
    if state.finished:
        names = [state.players[w] for w in state.winners()]
        status += "; winner: " + " and ".join(names)
    return "\n\n".join(blocks) + f"\n\nGame {status}."
