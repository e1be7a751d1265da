"""Options and their values: a chosen value patches the raw data with dotted paths before it is validated
(a variant is data, never a branch in the engine), and `KEY=VALUE` strings typed by each option's default."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checks import RulesetError, as_table, show
from .files import preset_data

__all__ = ["apply_options", "parse_options"]


def _option_key(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def apply_options(
    data: dict[str, object], chosen: Mapping[str, object]
) -> tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]:
    """The option values chosen (each patched into `data`), and every option's default."""
    specs = as_table(data.pop("options", {}), "options")
    unknown = set(chosen) - set(specs)
    if unknown:
        name = sorted(unknown)[0]
        known = ", ".join(sorted(specs)) or "none"
        raise RulesetError(f"options.{name}", f"unknown option (known: {known})")
    resolved: list[tuple[str, Any]] = []
    defaults: list[tuple[str, Any]] = []
    for name, spec in specs.items():
        spec = as_table(spec, f"options.{name}")
        default = spec.get("default")
        defaults.append((name, tuple(default) if isinstance(default, list) else default))
        value = chosen.get(name, default)
        key = f"options.{name}"
        if "items" in spec:  # a list option: any subset of the items, each patching in turn
            items = as_table(spec["items"], f"{key}.items")
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise RulesetError(key, f"must be a list of {', '.join(items)}")
            for item in value:
                if item not in items:
                    raise RulesetError(key, f"{item!r} is not one of {', '.join(items)}")
            if len(set(value)) != len(value):
                raise RulesetError(key, "lists an item twice")
            for item in value:
                _patch(data, as_table(items[item], f"{key}.items.{item}").get("set", {}), f"{key}.items.{item}")
            resolved.append((name, tuple(value)))
        else:
            values = as_table(spec.get("values", {}), f"{key}.values")
            if type(value) is not type(default) or _option_key(value) not in values:
                choices = ", ".join(values)
                raise RulesetError(key, f"{show(value)} is not one of {choices}")
            _patch(data, as_table(values[_option_key(value)], f"{key}.values").get("set", {}), key)
            resolved.append((name, value))
    return tuple(resolved), tuple(defaults)


def _patch(data: dict[str, object], changes: object, where: str) -> None:
    """Apply `{"rows.ID.KEY": value, "match.KEY": value, "KEY": value}` to raw data."""
    for path, value in as_table(changes, f"{where}.set").items():
        parts = path.split(".")
        if len(parts) == 3 and parts[0] in ("rows", "columns", "relations"):
            section, item_id, field = parts
            items = data.get(section, [])
            for item in items if isinstance(items, list) else []:
                if isinstance(item, dict) and item.get("id") == item_id:
                    item[field] = value
                    break
            else:
                raise RulesetError(f"{where}.set.{path}", f"no {section[:-1]} {item_id!r}")
        elif len(parts) == 2:
            table = data.setdefault(parts[0], {})
            if not isinstance(table, dict):
                raise RulesetError(f"{where}.set.{path}", f"{parts[0]} is not a table")
            table[parts[1]] = value
        elif len(parts) == 1:
            data[parts[0]] = value
        else:
            raise RulesetError(f"{where}.set.{path}", "not a path this format knows")


def parse_options(preset: str | Mapping[str, object], pairs: list[str] | None) -> dict[str, object]:
    """`["columns=3", "max_min=false", "extra=updown,middle"]` -> typed option values,
    typed after each option's default (command lines and query strings). `preset` is a
    preset id or a ruleset's raw data (a file's, from `read_ruleset_file`)."""
    data = preset_data(preset) if isinstance(preset, str) else preset
    specs = as_table(data.get("options", {}), "options")
    out: dict[str, object] = {}
    for pair in pairs or []:
        name, eq, text = pair.partition("=")
        if not eq:
            raise RulesetError(f"options.{pair}", "write options as KEY=VALUE")
        if name not in specs:
            raise RulesetError(f"options.{name}", f"unknown option (known: {', '.join(sorted(specs)) or 'none'})")
        default = as_table(specs[name], f"options.{name}").get("default")
        value: str | bool | int | list[str] = text
        if isinstance(default, bool):
            if text.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise RulesetError(f"options.{name}", f"{text!r} is not true or false")
            value = text.lower() in ("true", "1", "yes", "on")
        elif isinstance(default, int):
            try:
                value = int(text)
            except ValueError:
                raise RulesetError(f"options.{name}", f"{text!r} is not a whole number") from None
        elif isinstance(default, list):
            value = [v for v in text.split(",") if v]
        out[name] = value
    return out
