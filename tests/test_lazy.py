"""yambak.lazy: a package's names loaded on first use, then kept; an unknown name refused as Python does."""

from __future__ import annotations

import subprocess
import sys

import pytest

from yambak.lazy import loader


def test_a_name_is_imported_when_first_read_and_kept() -> None:
    names: dict[str, object] = {}
    getattr_ = loader("yambak.rules", {"load_ruleset": "loader"}, names)
    from yambak.rules.loader import load_ruleset

    assert getattr_("load_ruleset") is load_ruleset and names == {"load_ruleset": load_ruleset}
    with pytest.raises(AttributeError, match="module 'yambak.rules' has no attribute 'nothing'"):
        getattr_("nothing")


def test_the_lazy_packages_load_nothing_heavy_until_a_name_is_read() -> None:
    code = (
        "import sys, yambak.bots, yambak.solver, yambak.strategy\n"
        "assert 'numpy' not in sys.modules, 'numpy on import'\n"
        "yambak.strategy.odds\n"
        "assert 'numpy' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
