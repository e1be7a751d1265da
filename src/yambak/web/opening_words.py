"""The opening rules `yambak.strategy.opening_rules` derives, in the page's language. The rules are
written in English from a small grammar (a shape of the roll, its run, one face feature; a candidate
keep or "score at once in ROW"): this reads that grammar back and says each part through the catalogs.
A text outside the grammar comes back as None (the page then shows the English as it is)."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["OPENING_STRINGS", "rule_texts"]

SHAPES = ("five alike", "four alike", "a full house", "three alike", "two pairs", "one pair", "no pair")
CHOICES = (
    "keep the most common face (the higher on a tie)",
    "keep the higher pair",
    "keep the lower pair",
    "keep both pairs",
    "keep the run",
    "keep the sixes",
    "keep the fives and sixes",
    "keep the fours to sixes",
    "keep one six",
    "keep one five",
    "keep one four",
    "reroll all five",
)
FEATURES = {
    "most common face": "{pattern}, most common face {faces}",
    "highest face": "{pattern}, highest face {faces}",
    "lowest face": "{pattern}, lowest face {faces}",
}
RUN = "{pattern}, a run of {n}"
SCORE = "score at once in {box}"
FACES_TO = "{first} to {last}"
FACES_OR = "{faces} or {last}"

# Every msgid this module says, for the catalogs (scripts/messages.py).
OPENING_STRINGS = (*SHAPES, *CHOICES, *FEATURES.values(), RUN, SCORE, FACES_TO, FACES_OR)

_PATTERN = re.compile(
    r"(?P<shape>" + "|".join(map(re.escape, SHAPES)) + r")"
    r"(?:, a run of (?P<run>\d))?"
    r"(?:, (?P<feature>most common face|highest face|lowest face) (?P<faces>[1-6]s(?: to [1-6]s|(?: or [1-6]s)+)?))?"
)


def _faces(text: str, _: Callable[[str], str]) -> str:
    """Faces such as "2s to 6s" or "1s or 3s" as digits joined the language's way ("2 to 6", "1 or 3")."""
    digits = re.findall(r"[1-6]", text)
    if " to " in text:
        return str(_(FACES_TO).format(first=digits[0], last=digits[1]))
    out = digits[0]
    for d in digits[1:]:
        out = _(FACES_OR).format(faces=out, last=d)
    return str(out)


def rule_texts(
    pattern: str, choice: str, row_label: dict[str, str], _: Callable[[str], str]
) -> tuple[str, str] | None:
    """(pattern, choice) in the language of `_` (a gettext), or None where either is outside the grammar."""
    m = _PATTERN.fullmatch(pattern)
    if m is None:
        return None
    said = str(_(m["shape"]))
    if m["run"]:
        said = _(RUN).format(pattern=said, n=m["run"])
    if m["feature"]:
        said = _(FEATURES[m["feature"]]).format(pattern=said, faces=_faces(m["faces"], _))
    if choice in CHOICES:
        return said, str(_(choice))
    if choice.startswith("score at once in "):
        row = choice.removeprefix("score at once in ")
        if row in row_label:
            return said, str(_(SCORE).format(box=row_label[row]))
    return None
