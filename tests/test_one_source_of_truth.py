"""A grep-level guard: the faces (server, keeper, terminal, web, coach, text, the game view, JavaScript)
and the bots never compute a score, a bonus or a rule outcome themselves; they ask the engine
(`state.outlook()`, the column scores, `entry_bounds`). Nor does any face or the solver decide whose
turn it is, how many dice a roll-off takes or who ranks where: the engine says (`next_seat`,
`GameRecord.seat`, `Ruleset.rolloff_dice`, `standings`, `ranking`). A new face that copies a rule
fails here, with the line that does it.

The randomized half of this guarantee is `tests/engine/test_outlook.py` (the outlook says what
`apply` does) and `tests/solver/test_engine_agreement.py` (the engine and the solver agree).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "yambak"

# What re-deriving a rule looks like, per language.
# The upper section's sum held against a number (`upper >= 63`, `col["upper"] < 63`): the bonus with its threshold
# typed in.
UPPER_NUMBER = r"\bupper\w*[\"'\]]*\s*[<>]=?\s*\d|\d\s*[<>]=?\s*[\w.\[\"']*\bupper\b"
PYTHON_RULES = [
    (r"\brow_score\b|\brow_met\b", "scores dice itself"),
    (r"\bgrand_total\b|\bcolumn_scores\(rules", "adds up a sheet itself"),
    # `in` a sheet's voided set, however the sheet is reached (`after.sheets[p].voided`)
    (r"\bentry_score\b|\bin\s+[\w.\[\]()]*voided\b", "reads entry-time zeroing itself"),
    # a written value next to a score of 0: a pair zeroed, worked out again (the outlook's `zeroes_pair`)
    (r"(?=[^\n]*\bwritten\b)[^\n]*\bscores?\b\s*===?\s*0\b", "decides a pair was zeroed itself"),
    (r"\bextra_bonus\s*(!=|-)\s*[\w.\[\]()]*\bextra_bonus\b", "works out the joker's extra itself"),
    (r"\.relations\b|\brel\.\w+", "applies a relation itself"),
    (r"[<>]=?\s*[\w.]*threshold|threshold\s*[-<>]", "decides the upper bonus itself"),
    (UPPER_NUMBER, "decides the upper bonus itself"),
    (r"\bjoker\.(row|bonus)\b", "applies the joker itself"),
    (r"\bstate\._\w+|\bsheet\.memo\b", "reaches into the engine's private state"),
    (r"\bstrike_any\s+and\b", "decides where a strike is allowed itself"),
]
# What deciding the order of play, a roll-off's size or the standings looks like (Python and JavaScript).
# What a standing is read from: match points or a total, as a field, a dict key (`p["total"]`) or a list.
STANDING = r"match_points|\.total\b|\btotals\b|\[\s*[\"'](total|match_points)[\"']\s*\]"
ORDER_RULES = [
    (r"%\s*\(?\s*[\w.]*players(\.length)?\b|%\s*len\(\s*[\w.]*players\s*\)", "decides the seat order itself"),
    (
        r"(?i)roll.?off[^\n]*\b(5|five)\b|\b(5|five)\b[^\n]*roll.?off|\brolls?\s+(5|five)\s+dice\b",
        "decides the roll-off's size itself",
    ),
    (rf"\bsort(ed)?\b[^\n]*({STANDING})", "ranks the players itself"),
    (rf"\b(max|min)\([^\n]*key=[^\n]*({STANDING})", "picks the winner itself"),
]
JS_RULES = [
    (r"[<>]=?\s*[\w.]*threshold|threshold\s*[-<>]", "decides the upper bonus itself"),
    (r"\bstrike_any\b", "decides where a strike is allowed itself"),
    (r"\brelations\b|\bmax_gt_min\b|\blast_resort\b|\bminimax\s*=(?!=)", "applies a relation itself"),
    (r"\bjoker\b\s*[=&|?]", "applies the joker itself"),
    (UPPER_NUMBER, "decides the upper bonus itself"),
    (r"\b(zeroes_pair|voids_entry)\s*=(?!=)", "decides a pair's warning itself"),
    (r"\.rolls\s*[!=]==?\s*\d|\brolls_per_turn\s*-", "decides the roll rules itself"),
    (r"\bpoints\s*[*+]|\bsum\s*\+=|\.reduce\(\s*\(\w+,\s*\w+\)\s*=>\s*\w+\s*\+", "adds up points itself"),
]

# The faces that show the engine's answers; each Python face is a package or a module of src/yambak.
FACES = ["server", "terminal", "bots", "keeper", "web", "coach", "env", "text.py", "gameview.py"]


def _violations(path: Path, rules: list[tuple[str, str]]) -> list[str]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        code = line.split("#", 1)[0] if path.suffix == ".py" else line.split("//", 1)[0]
        for pattern, what in rules:
            if re.search(pattern, code):
                out.append(f"{path.relative_to(SRC)}:{n}: {what}: {line.strip()}")
    return out


# Models that estimate what boxes are worth model the relations and the bonus to predict, never to decide a
# move's legality or score: the bots' value model and the coach's simulated sheets. The solver compiles the
# rules into tables. They answer to the order rules only. The baseline bots' announcement estimates how well
# roll 1 fills a box against the most its row can score (a prediction; the engine says what is legal and writes).
# The category-points bots weigh a row's chance to reach its step from the engine's column scores (a
# prediction too: the engine's `category_points` awards them, and tests/bots/test_category.py holds the two equal).
VALUE_MODEL = {
    "bots/evaluate.py", "bots/_fitted.py", "bots/fit.py", "bots/match.py", "coach/chances.py", "bots/baseline.py",
    "bots/category.py",
}  # fmt: skip


def _python_files(faces: list[str]) -> list[Path]:
    files = (p for face in faces for p in ((SRC / face).rglob("*.py") if (SRC / face).is_dir() else [SRC / face]))
    return sorted(files)


def _rel(p: Path) -> str:
    return str(p.relative_to(SRC))


@pytest.mark.parametrize("path", _python_files(FACES), ids=_rel)
def test_python_faces_ask_the_engine(path: Path) -> None:
    rules = ORDER_RULES if _rel(path) in VALUE_MODEL else PYTHON_RULES + ORDER_RULES
    assert not _violations(path, rules)


@pytest.mark.parametrize("path", _python_files(["solver"]), ids=_rel)
def test_the_solver_leaves_order_and_standings_to_the_engine(path: Path) -> None:
    assert not _violations(path, ORDER_RULES)


@pytest.mark.parametrize("path", sorted((SRC / "web" / "static").glob("*.js")), ids=lambda p: p.name)
def test_javascript_draws_what_the_server_sends(path: Path) -> None:
    assert not _violations(path, JS_RULES + ORDER_RULES)


@pytest.mark.parametrize(
    "line,rules",
    [
        ("if col.upper >= rules.upper_bonus.threshold:", PYTHON_RULES),
        ("for rel in rules.relations:", PYTHON_RULES),
        ("z = written <= sheet.entry_score(b)", PYTHON_RULES),
        ("value = row_score(row, dice)", PYTHON_RULES),
        ("strike = rules.strike_any and now > 0", PYTHON_RULES),
        ("boxes = state._fillable(p, 1, None)", PYTHON_RULES),
        ("if (col.upper >= ub.threshold) td.className = 'reached';", JS_RULES),
        ("if (view.rules.strike_any && preview[box] > 0) {", JS_RULES),
        ("const total = cells.reduce((a, b) => a + b, 0);", JS_RULES),
        ("if (c.rolls === 1) offer(box);", JS_RULES),
        # what the faces did before the engine answered (issue 20)
        ("seat = t.player if t.player >= 0 else (n - 1) % len(rec.players)", ORDER_RULES),
        ("return (shown.current + S.queue.filter(isTurn).length) % shown.players.length;", ORDER_RULES),
        ("go(total - ((((total - 1 - seat) % players) + players) % players), false);", ORDER_RULES),
        ("if (!rolloff || pad.length !== 5) return;", ORDER_RULES),
        ("const n = rolloff ? 5 : nDice();", ORDER_RULES),
        ('raise Refusal("input/dice", "a roll-off is five dice, each 1 to 6", n=5)', ORDER_RULES),
        ('_("Ties: the tied players roll five dice once, most pips wins.")', ORDER_RULES),
        ("const order = seats.sort((a, b) => players[b].match_points - players[a].match_points);", ORDER_RULES),
        ("order = sorted(range(n), key=lambda s: -totals[s])", ORDER_RULES),
        ("best = max(range(n), key=lambda p: state.total(p))", ORDER_RULES),
        # what the kept sheet's preview did before it read the engine's outlook (issue 31)
        ("elif written and score == 0 and not (factors and rules.rows[ri].id in factors[:2]):", PYTHON_RULES),
        ("if box in after.sheets[p].voided:", PYTHON_RULES),
        ("if after.sheets[p].extra_bonus != before.sheets[p].extra_bonus:", PYTHON_RULES),
        ('out["extra_bonus"] = after.sheets[p].extra_bonus - before.sheets[p].extra_bonus', PYTHON_RULES),
        ("if (o.written > 0 && cell.score === 0) o.zeroes_pair = true;", JS_RULES),
        # a bonus threshold typed in, and standings sorted by a view's dict keys
        ("if upper >= 63:", PYTHON_RULES),
        ('bonus = 35 if col["upper"] >= 63 else 0', PYTHON_RULES),
        ("if (col.upper >= 63) td.className = 'reached';", JS_RULES),
        ('order = sorted(view["players"], key=lambda p: -p["total"])', ORDER_RULES),
        ('leader = max(players, key=lambda p: p["match_points"])', ORDER_RULES),
    ],
)
def test_the_guard_catches_copies(line: str, rules: list[tuple[str, str]]) -> None:
    """The patterns are not vacuous: lines that copy a rule are caught."""
    assert any(re.search(pattern, line) for pattern, _ in rules), line
