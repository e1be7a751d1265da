"""Preset files (the package's and those of `YAMBAK_PRESET_DIRS`) and users' ruleset files read as raw
TOML data, `extends` resolved; nothing here validates the data (`build.py` does)."""

from __future__ import annotations

import copy
import os
import tomllib
from functools import lru_cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from ..inputs import InputError, parse_toml
from .checks import FILE_LIMIT, RulesetError, nearest, show

__all__ = ["PRESET_DIRS_ENV", "preset_data", "preset_ids", "read_ruleset_file", "resolve_extends", "unknown_preset"]

PRESET_DIRS_ENV = "YAMBAK_PRESET_DIRS"  # more folders of preset files (os.pathsep between them)


def _preset_files() -> dict[str, Traversable]:
    """Preset id -> its file: the package's presets, then those of the folders in YAMBAK_PRESET_DIRS (a
    preset there may not take a shipped preset's id)."""
    folder = resources.files("yambak.rules") / "presets"
    files: dict[str, Traversable] = {p.name[: -len(".toml")]: p for p in folder.iterdir() if p.name.endswith(".toml")}
    for extra in filter(None, os.environ.get(PRESET_DIRS_ENV, "").split(os.pathsep)):
        path = Path(extra)
        if path.is_dir():
            for file in sorted(path.glob("*.toml")):
                files.setdefault(file.name[: -len(".toml")], file)
    return files


def preset_ids() -> list[str]:
    return sorted(_preset_files())


def preset_data(preset: str) -> dict[str, Any]:
    """The raw TOML data of a preset, with `extends` resolved."""
    files = _preset_files()
    if not isinstance(preset, str) or preset not in files:
        raise RulesetError("preset", unknown_preset(preset))
    file = files[preset]
    if isinstance(file, Path):  # a file on disk: parsed once while it stays the same
        stat = file.stat()
        data = _parsed(preset, (str(file), stat.st_mtime_ns, stat.st_size))
    else:
        data = _parse(preset, file.read_text(encoding="utf-8"))
    return resolve_extends(copy.deepcopy(data), seen=(preset,))


def _parse(preset: str, text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RulesetError("preset", f"{preset}: not valid TOML ({exc})") from None


@lru_cache(maxsize=256)
def _parsed(preset: str, file: tuple[str, int, int]) -> dict[str, Any]:
    """A preset file's TOML, by its path, time and size when read (a page lists every preset's names and
    options, many times over: parsing the files each time took most of a lobby page's 0.3 s)."""
    return _parse(preset, Path(file[0]).read_text(encoding="utf-8"))


def unknown_preset(name: object) -> str:
    guess = nearest(name, preset_ids()) if isinstance(name, str) else None
    hint = f"; did you mean {guess!r}?" if guess else ""
    shown = repr(name) if isinstance(name, str) else show(name)
    return f"unknown preset {shown}{hint} (known: {', '.join(preset_ids())})"


def resolve_extends(data: dict[str, Any], seen: tuple[str, ...] = ()) -> dict[str, Any]:
    parent_id = data.pop("extends", None)
    if parent_id is None:
        return data
    if not isinstance(parent_id, str) or parent_id in seen:
        raise RulesetError("extends", f"cannot extend {show(parent_id)}")
    parent = preset_data(parent_id) if parent_id in preset_ids() else None
    if parent is None:
        raise RulesetError("extends", unknown_preset(parent_id))
    defaults = data.pop("option_defaults", {})
    merged = {**parent, **data}
    if defaults:
        if not isinstance(defaults, dict):
            raise RulesetError("option_defaults", "must be a table")
        options = copy.deepcopy(merged.get("options", {}))
        for name, value in defaults.items():
            if name not in options:
                raise RulesetError(f"option_defaults.{name}", "no such option")
            options[name]["default"] = value
        merged["options"] = options
    return merged


def read_ruleset_file(path: str | Path) -> dict[str, Any]:
    """The raw data of a user's TOML ruleset file, `extends` resolved; `RulesetError` (keyed by the path)
    for a file that is missing, unreadable, a directory, larger than `FILE_LIMIT`, not UTF-8 or not TOML."""
    name = str(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(FILE_LIMIT + 1)
    except OSError as exc:
        raise RulesetError(name, f"cannot read ({exc.strerror or exc})") from None
    if len(raw) > FILE_LIMIT:
        raise RulesetError(name, f"larger than {FILE_LIMIT // 1024} KiB: not a ruleset file")
    try:
        data = parse_toml(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RulesetError(name, "not a text file (UTF-8 TOML expected)") from None
    except InputError as exc:
        raise RulesetError(name, str(exc)) from None
    return resolve_extends(data)
