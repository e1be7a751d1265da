"""The documentation runs: every doctest in the package, and the README's Python examples."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
WITH_DOCTESTS = sorted(
    ".".join(p.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
    for p in (SRC / "yambak").rglob("*.py")
    if ">>>" in p.read_text(encoding="utf-8")
)


def test_doctests_are_found() -> None:
    assert {"yambak.engine", "yambak.solver"} <= set(WITH_DOCTESTS)


@pytest.mark.parametrize("module", WITH_DOCTESTS)
def test_doctests(module: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))  # a doctest that solves writes its table here
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


def test_readme_python_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})


def test_the_readme_maps_every_part_of_the_code() -> None:
    """Every package and module of src/yambak, every part of the server and every document is in the map."""
    layout = (ROOT / "README.md").read_text(encoding="utf-8").split("## Layout", 1)[1].split("## ", 1)[0]
    package = SRC / "yambak"
    parts = [p.name for p in package.iterdir() if not p.name.startswith(("_", ".")) and p.name != "py.typed"]
    parts += [p.name for p in (package / "server").iterdir() if p.is_dir() and not p.name.startswith("_")]
    parts += ["cluster.py"] + [f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")]
    missing = [name for name in parts if not re.search(rf"(^|[\s/]){re.escape(name)}\b", layout, re.M)]
    assert not missing, missing
