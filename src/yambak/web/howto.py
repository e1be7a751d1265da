"""How to play a ruleset, written from its data in the reader's language.

The page says what the ruleset *is* (its sheet, what each box scores, how each column is filled, the
bonus, the relations, who wins) in the sentences of the one rule describer (`yambak.rules.describe`),
translated, with rows and columns under the names players know; it never decides anything.
"""

from __future__ import annotations

from ..rules import Ruleset
from ..rules.describe import PHRASES, Named, describe
from ..viewtypes import JSONObject, JSONValue
from .i18n import translations

__all__ = ["HOWTO_STRINGS", "howto"]

# Every sentence the page can say (extracted for the catalogs by scripts/messages.py).
HOWTO_STRINGS = PHRASES


def howto(rules: Ruleset, lang: str, labels: dict[str, dict[str, str]]) -> JSONObject:
    """The page's content: sentences and tables, already in `lang`."""
    _ = translations(lang).gettext

    def name(item: Named) -> str:
        if item.kind == "colour":  # a pip colour: translated where the catalogs know it
            return translations(lang).pgettext("colour", item.id)
        return labels["rows" if item.kind == "row" else "columns"].get(item.id, item.id)

    text = describe(rules)
    rows: list[JSONValue] = [
        {"id": r.id, "label": name(Named("row", r.id)), "scores": scores.render(_, name), "upper": r.is_upper}
        for r, (_id, scores) in zip(rules.rows, text.rows, strict=True)
    ]
    columns: list[JSONValue] = []
    for c in text.columns:
        entry: JSONObject = {
            "id": c.id, "label": name(Named("column", c.id)), "notes": [n.render(_, name) for n in c.notes]
        }
        if c.points is not None:
            entry["points"] = c.points.render(_, name)
        columns.append(entry)
    return {
        "general": [s.render(_, name) for s in text.general],
        "rows": rows,
        "columns": columns,
        "scoring": [s.render(_, name) for s in text.scoring],
        "winning": [s.render(_, name) for s in text.winning],
    }
