"""A ruleset's options as form controls: the schema the pages draw, and the form they send back.

Each preset's options (the TOML `[options.NAME]` tables) become a checkbox (true/false), a
choice among values (a select or radio buttons), or a set of items (checkboxes for a list
option). Field names carry the preset, `opt.PRESET.NAME`, so that one form can hold the
controls of every preset and only the chosen preset's are read.
"""

from __future__ import annotations

from typing import Any

from ..rules import RulesetError
from ..rules.loader import preset_data
from ..web.i18n import option_description, option_value_label

__all__ = ["field_name", "option_schema", "options_from_form"]


def field_name(preset: str, option: str) -> str:
    return f"opt.{preset}.{option}"


def option_schema(preset: str, lang: str) -> list[dict[str, Any]]:
    """[{name, field, kind: bool | choice | list, description, default, choices: [{value, label}]}]"""
    out = []
    for name, spec in preset_data(preset).get("options", {}).items():
        default = spec.get("default")
        entry: dict[str, Any] = {
            "name": name,
            "field": field_name(preset, name),
            "description": option_description(name, spec.get("description", ""), lang, preset),
            "default": default,
        }
        if "items" in spec:
            entry["kind"] = "list"
            entry["choices"] = [{"value": v, "label": option_value_label(v, lang, preset, name)} for v in spec["items"]]
        elif isinstance(default, bool):
            entry["kind"] = "bool"
        else:
            entry["kind"] = "choice"
            entry["choices"] = [
                {"value": v, "label": option_value_label(v, lang, preset, name)} for v in spec.get("values", {})
            ]
        out.append(entry)
    return out


def options_from_form(form: Any, preset: str) -> dict[str, Any]:
    """Typed option values for `preset` from a submitted form (`form.get`, `form.getlist`); an option
    not in the form keeps its default. Raises RulesetError naming a value that is not a choice."""
    out: dict[str, Any] = {}
    for name, spec in preset_data(preset).get("options", {}).items():
        field = field_name(preset, name)
        default = spec.get("default")
        if "items" in spec:
            values = [str(v) for v in form.getlist(field)]
            if not values and field + ".present" not in form:
                continue
            out[name] = [v for v in spec["items"] if v in values]
            unknown = sorted(set(values) - set(spec["items"]))
            if unknown:
                raise RulesetError(f"options.{name}", f"{unknown[0]!r} is not one of {', '.join(spec['items'])}")
        elif isinstance(default, bool):
            if field + ".present" not in form and field not in form:
                continue
            out[name] = form.get(field) in ("on", "true", "1")
        else:
            text = form.get(field)
            if text is None:
                continue
            choices = {str(v): v for v in spec.get("values", {})}
            if str(text) not in choices:
                raise RulesetError(f"options.{name}", f"{str(text)[:20]!r} is not one of {', '.join(choices)}")
            out[name] = int(text) if isinstance(default, int) else str(text)
    return out
