"""docs/rules.md is the rules reference: every kind, preset, option and record key it names exists in the
code, none is missing, and every section the code and the docs cite (`docs/rules.md §N`) is there."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from tests.conftest import RULE_VARIANTS
from yambak.engine import record as record_module
from yambak.rules import load_ruleset, preset_ids
from yambak.rules.loader import preset_data
from yambak.rules.model import MATCH_KINDS, MODIFIERS, ORDER_KINDS, RELATION_KINDS, ROW_KINDS, TIE_RULES, Column

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def _sections(text: str, level: str) -> dict[str, str]:
    """Heading -> body, for the headings of one level ("##" or "###") in `text`."""
    parts = re.split(rf"^{level} (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


SECTIONS = {int(h.split(".", 1)[0]): body for h, body in _sections(DOC, "##").items()}


def _sub(section: int, heading: str) -> str:
    return _sections(SECTIONS[section], "###")[heading]


def _defined(text: str) -> list[str]:
    """The names a part defines: the backticked name opening each table row or list item."""
    return re.findall(r"^(?:\| |- )`([^`]+)`", text, flags=re.M)


def _ids(line: str) -> list[str]:
    return re.findall(r"`([^`]+)`", line)


def _field(body: str, name: str) -> str:
    """The paragraph that starts with `name:` in a preset's section."""
    match = re.search(rf"^{name}: (.*?)(?:\n\n|\Z)", body, flags=re.M | re.S)
    assert match, name
    return match.group(1)


def test_the_sections_are_numbered_in_order() -> None:
    assert sorted(SECTIONS) == list(range(1, len(SECTIONS) + 1)) and len(SECTIONS) >= 11


def test_every_kind_is_described_and_nothing_else() -> None:
    assert _defined(SECTIONS[2]) == list(ROW_KINDS)
    assert _defined(_sub(3, "Fill orders")) == list(ORDER_KINDS)
    restrictions = [f.name for f in dataclasses.fields(Column) if f.name not in ("id", "order")]  # and its label
    assert sorted(_defined(_sub(3, "Restrictions"))) == sorted(restrictions)
    relations = [h.strip("`") for h in _sections(SECTIONS[5], "###")]
    assert relations == list(RELATION_KINDS)
    assert _defined(_sub(7, "Match kinds")) == list(MATCH_KINDS)
    assert _defined(_sub(7, "Ties")) == list(TIE_RULES)
    assert sorted(_defined(SECTIONS[8])) == sorted(MODIFIERS)


def test_every_preset_is_described_as_it_loads() -> None:
    presets = {h.split("`")[1]: body for h, body in _sections(SECTIONS[9], "###").items() if h.startswith("`")}
    assert sorted(presets) == sorted(preset_ids())
    for pid, body in presets.items():
        rules = load_ruleset(pid)
        assert _ids(_field(body, "Columns")) == [c.id for c in rules.columns], pid
        assert _ids(_field(body, "Rows")) == [r.id for r in rules.rows], pid
        named = _ids(_field(body, "Options"))
        options = list(preset_data(pid).get("options", {}))
        assert [n for n in named if n in options] == options, pid  # every option, in order
        assert set(named) <= set(options) | _option_words(pid), pid  # and nothing the preset does not have


def _option_words(pid: str) -> set[str]:
    """What a preset's options may be described with: their values, and the columns they bring."""
    words: set[str] = set()
    for preset, options in RULE_VARIANTS:
        if preset == pid:
            words |= {c.id for c in load_ruleset(preset, options).columns}
            values = [v for value in options.values() for v in (value if isinstance(value, list) else [value])]
            words |= {str(v).lower() for v in values}
    return words


def test_every_record_key_is_described() -> None:
    top = _defined(SECTIONS[11].split("A turn's keys:")[0])
    turn = _defined(SECTIONS[11].split("A turn's keys:")[1])
    assert sorted(top) == sorted(record_module._KEYS)
    assert sorted(turn) == sorted(record_module._TURN_KEYS)


CITATION = re.compile(r"rules\.md((?:[ ,]+(?:and )?§\d+)+)")


def _citing() -> list[Path]:
    """The repository's own text: code, tests, docs, scripts (not the fetched Pyodide)."""
    files = [p for d in ("src", "tests", "docs", "scripts", "bench") for p in (ROOT / d).rglob("*") if p.is_file()]
    suffixes = (".py", ".js", ".md", ".html", ".toml", ".sh")
    files = [p for p in files if p.suffix in suffixes and "pyodide" not in p.parts]
    return [*files, ROOT / "README.md"]


def test_every_cited_section_exists() -> None:
    cited = 0
    for path in _citing():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for match in CITATION.finditer(line):
                for number in re.findall(r"§(\d+)", match.group(1)):
                    cited += 1
                    assert int(number) in SECTIONS, f"{path.relative_to(ROOT)}:{n}: no section {number}"
    assert cited > 50  # the code cites the reference where it applies a rule


def test_the_reference_is_in_the_repository() -> None:
    """Nothing points at a rules file outside the repository any more."""
    outside = "RULES" + ".md"
    assert [str(p.relative_to(ROOT)) for p in _citing() if outside in p.read_text(encoding="utf-8")] == []
