"""The options box of the lobby and the score-keeper: one typed syntax, parsed and shown alike.

`columns=3, strict=false, extra=updown,middle` — options are KEY=VALUE, separated by commas or
new lines; a list value is its items separated by commas (a comma-separated item without `=`
continues the list before it); `extra=` is the empty list. Defaults are shown the same way,
so that what the help shows can be typed back.
"""

from __future__ import annotations

from typing import Any

from ..rules import RulesetError, parse_options
from ..rules.loader import preset_data


def split_options(text: str, list_keys: frozenset[str] | set[str] | None = None) -> list[str]:
    """`"extra=updown,middle, four_kind=four"` -> `["extra=updown,middle", "four_kind=four"]`.
    With `list_keys`, only those options take more items (a stray word elsewhere stays an error)."""
    pairs: list[str] = []
    for token in (t.strip() for t in text.replace("\n", ",").split(",")):
        if not token:
            continue
        key = pairs[-1].partition("=")[0].strip() if pairs and "=" in pairs[-1] else None
        if "=" in token or key is None or (list_keys is not None and key not in list_keys):
            pairs.append(token)
        else:  # another item of the list value before it
            key, _, value = pairs[-1].partition("=")
            pairs[-1] = f"{key}={value},{token}" if value else f"{key}={token}"
    return [f"{k.strip()}={v.strip()}" if eq else k for k, eq, v in (p.partition("=") for p in pairs)]


def parse_option_text(preset: str, text: str) -> dict[str, Any]:
    """Typed option values for `preset` from the box's text; raises RulesetError."""
    if len(text) > 2000:
        raise RulesetError("options", "too many options")
    specs = preset_data(preset).get("options", {})
    list_keys = {k for k, spec in specs.items() if isinstance(spec.get("default"), list)}
    return parse_options(preset, split_options(text, list_keys))


def format_value(value: Any) -> str:
    """An option value as it is typed in the box (`false`, `3`, `updown,middle`, empty list: nothing)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return "" if value is None else str(value)
