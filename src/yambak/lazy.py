"""Names a package loads on first use (PEP 562), so that importing it stays cheap: `yambak --help`, a
command's parser and the first screen of `yambak play` load no numpy until a name that needs it is read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["loader"]


def loader(package: str, table: Mapping[str, str], names: dict[str, Any]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: a name of `table` (name -> submodule) is imported from its
    submodule when first read and kept in `names` (the package's globals), so the next read is plain."""

    def __getattr__(name: str) -> Any:
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f".{table[name]}", package), name)
        names[name] = value
        return value

    return __getattr__
