"""A grep-level guard: the faces (server, keeper, terminal, JavaScript) and the bots never compute a
score, a bonus or a rule outcome themselves; they ask the engine (`state.outlook()`, the column
scores, `entry_bounds`). A new face that copies a rule fails here, with the line that does it.

The randomized half of this guarantee is `tests/engine/test_outlook.py` (the outlook says what
`apply` does) and `tests/solver/test_engine_agreement.py` (the engine and the solver agree).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "yambak"

# What re-deriving a rule looks like, per language.
PYTHON_RULES = [
    (r"\brow_score\b|\brow_met\b", "scores dice itself"),
    (r"\bgrand_total\b|\bcolumn_scores\(rules", "adds up a sheet itself"),
    (r"\bentry_score\b|\bin\s+[\w.]*voided\b", "reads entry-time zeroing itself"),
    (r"\.relations\b|\brel\.\w+", "applies a relation itself"),
    (r"[<>]=?\s*[\w.]*threshold|threshold\s*[-<>]", "decides the upper bonus itself"),
    (r"\bjoker\.(row|bonus)\b", "applies the joker itself"),
    (r"\bstate\._\w+|\bsheet\.memo\b", "reaches into the engine's private state"),
    (r"\bstrike_any\s+and\b", "decides where a strike is allowed itself"),
]
JS_RULES = [
    (r"[<>]=?\s*[\w.]*threshold|threshold\s*[-<>]", "decides the upper bonus itself"),
    (r"\bstrike_any\b", "decides where a strike is allowed itself"),
    (r"\brelations\b|\bmax_gt_min\b|\blast_resort\b|\bminimax\s*=(?!=)", "applies a relation itself"),
    (r"\bjoker\b\s*[=&|?]", "applies the joker itself"),
    (r"\.rolls\s*[!=]==?\s*\d|\brolls_per_turn\s*-", "decides the roll rules itself"),
    (r"\bpoints\s*[*+]|\bsum\s*\+=|\.reduce\(\s*\(\w+,\s*\w+\)\s*=>\s*\w+\s*\+", "adds up points itself"),
]

FACES = ["server", "terminal", "bots", "keeper"]


def _violations(path: Path, rules: list[tuple[str, str]]) -> list[str]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        code = line.split("#", 1)[0] if path.suffix == ".py" else line.split("//", 1)[0]
        for pattern, what in rules:
            if re.search(pattern, code):
                out.append(f"{path.relative_to(SRC)}:{n}: {what}: {line.strip()}")
    return out


# The bots' value model estimates what boxes are worth (it models the relations and the bonus to
# predict, never to decide a move's legality or score); the solver compiles the rules into tables.
VALUE_MODEL = {"bots/evaluate.py", "bots/_fitted.py", "bots/fit.py", "bots/match.py"}


def _python_files() -> list[Path]:
    files = (p for face in FACES for p in (SRC / face).rglob("*.py"))
    return sorted(p for p in files if str(p.relative_to(SRC)) not in VALUE_MODEL)


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(SRC)))
def test_python_faces_ask_the_engine(path: Path) -> None:
    assert not _violations(path, PYTHON_RULES)


@pytest.mark.parametrize("path", sorted((SRC / "web" / "static").glob("*.js")), ids=lambda p: p.name)
def test_javascript_draws_what_the_server_sends(path: Path) -> None:
    assert not _violations(path, JS_RULES)


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
    ],
)
def test_the_guard_catches_copies(line: str, rules: list[tuple[str, str]]) -> None:
    """The patterns are not vacuous: lines that copy a rule are caught."""
    assert any(re.search(pattern, line) for pattern, _ in rules), line
