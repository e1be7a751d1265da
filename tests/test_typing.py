"""Types everywhere: mypy checks every module of src/ strictly (`make lint`), with no blanket ignore."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_is_strict_over_the_whole_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True and config["packages"] == ["yambak"]
    assert "ignore_missing_imports" not in config and "ignore_errors" not in config
    for override in config.get("overrides", []):  # only third-party modules without types may be let off
        assert not any(m.startswith("yambak") for m in override["module"]), override
        assert set(override) == {"module", "ignore_missing_imports"}, override


def test_every_ignore_names_its_error() -> None:
    bare = re.compile(r"#\s*type:\s*ignore(?!\[)")
    found = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sorted((ROOT / "src").rglob("*.py"))
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), start=1)
        if bare.search(line) or "# mypy: ignore-errors" in line
    ]
    assert found == []


def test_no_production_code_knows_about_tests() -> None:
    """Behaviour that tests need switched off is a setting (YAMBAK_MODEL_FIT=off), not a check for pytest."""
    marker = "PYTEST" + "_CURRENT_TEST"
    found = [str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("*.py") if marker in p.read_text(encoding="utf-8")]
    assert found == []
