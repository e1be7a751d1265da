"""The one registry of presets: every list in the product (the lobby and its order per language, the
keeper, the how-to pages, the command line, the daily challenge, club tournaments, the strategy tables
warmed at start, the catalogs' msgids) is read from here, and everything here is read from the preset
files (`rules/presets/*.toml`, and any folder in `YAMBAK_PRESET_DIRS`).

A preset file says, beside its rules (docs/rulesets.md):

    name, description               the English texts players read (msgids, context "ruleset")
    [lobby] blurb                    the lobby card's line (context "lobby"; the description by default)
    [lobby] order                    its place in the lists (lower first; 100 by default, then the id)
    [lobby] first_in                 languages whose players know it best: listed first there
    [lobby] daily, clubs             one of the daily challenge's deals; offered to club tournaments
    rows[].label, rows[].short       the names of its rows (context "row", "row-short")
    columns[].label                  the names of its columns (context "column")
    options.NAME.description         an option's line (context "option")
    options.NAME.values.V.label      a value's name (context "option-value"; items alike)

A preset with no translation of its texts shows them as the file writes them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .loader import preset_data, preset_ids

__all__ = [
    "PresetInfo",
    "club_presets",
    "daily_presets",
    "lobby_order",
    "preset_info",
    "preset_texts",
    "presets",
]


@dataclass(frozen=True)
class PresetInfo:
    """What the faces know of a preset, from its file."""

    id: str
    name: str
    description: str
    blurb: str
    order: int = 100
    first_in: tuple[str, ...] = ()
    daily: bool = False
    clubs: bool = True
    row_labels: dict[str, str] = field(default_factory=dict)  # row id -> the file's label
    row_short: dict[str, str] = field(default_factory=dict)  # row id -> short label (narrow sheets)
    column_labels: dict[str, str] = field(default_factory=dict)
    option_descriptions: dict[str, str] = field(default_factory=dict)  # option -> its line
    value_labels: dict[str, dict[str, str]] = field(default_factory=dict)  # option -> value -> label


def _labels(items: object, key: str) -> dict[str, str]:
    out = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and isinstance(item.get("id"), str) and isinstance(item.get(key), str):
            out[item["id"]] = item[key]
    return out


def preset_info(preset: str) -> PresetInfo:
    """A preset's texts and places, from its file (raises RulesetError for an unknown preset)."""
    data = preset_data(preset)
    lobby = data.get("lobby", {}) if isinstance(data.get("lobby"), dict) else {}
    options = data.get("options", {}) if isinstance(data.get("options"), dict) else {}
    descriptions: dict[str, str] = {}
    values: dict[str, dict[str, str]] = {}
    for name, spec in options.items():
        if not isinstance(spec, dict):
            continue
        if isinstance(spec.get("description"), str):
            descriptions[name] = spec["description"]
        choices = spec.get("items", spec.get("values", {}))
        if isinstance(choices, dict):
            values[name] = {
                str(v): c["label"]
                for v, c in choices.items()
                if isinstance(c, dict) and isinstance(c.get("label"), str)
            }
    description = str(data.get("description", ""))
    return PresetInfo(
        id=preset,
        name=str(data.get("name", preset)),
        description=description,
        blurb=str(lobby.get("blurb", description)),
        order=int(lobby.get("order", 100)),
        first_in=tuple(lobby.get("first_in", ())),
        daily=bool(lobby.get("daily", False)),
        clubs=bool(lobby.get("clubs", True)),
        row_labels=_labels(data.get("rows"), "label"),
        row_short=_labels(data.get("rows"), "short"),
        column_labels=_labels(data.get("columns"), "label"),
        option_descriptions=descriptions,
        value_labels=values,
    )


def presets() -> list[PresetInfo]:
    """Every preset, in the lists' order (`[lobby] order`, then the id)."""
    return sorted((preset_info(p) for p in preset_ids()), key=lambda p: (p.order, p.id))


def lobby_order(lang: str) -> list[str]:
    """Preset ids as the lobby lists them in `lang`: the games best known where it is spoken first."""
    all_ = presets()
    first = [p.id for p in all_ if lang in p.first_in]
    return first + [p.id for p in all_ if p.id not in first]


def daily_presets() -> tuple[str, ...]:
    """The presets dealt in the daily challenge, in the lists' order."""
    return tuple(p.id for p in presets() if p.daily)


def club_presets() -> tuple[str, ...]:
    """The presets club tournaments may play."""
    return tuple(p.id for p in presets() if p.clubs or p.daily)


def preset_texts() -> Iterator[tuple[str, str]]:
    """(context, English text) of every text of every preset file: the catalogs' msgids (`make messages`)."""
    for p in presets():
        yield "ruleset", p.name
        yield "ruleset", p.description
        yield "lobby", p.blurb
        for label in p.row_labels.values():
            yield "row", label
        for row, label in p.row_labels.items():
            yield "row-short", p.row_short.get(row, label)
        for label in p.column_labels.values():
            yield "column", label
        for text in p.option_descriptions.values():
            yield "option", text
        for labels in p.value_labels.values():
            for label in labels.values():
                yield "option-value", label
