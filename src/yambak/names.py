"""Names people type (players, tables, sheets, later profiles), made safe to show to others.

One function, `normalize_name`, for every place a name enters: Unicode NFC; every run of
whitespace one space; no control characters, no bidirectional overrides or isolates (they
reorder what others read), no zero-width or other invisible format characters; not blank
once that is done; at most `limit` characters. A refused name raises `NameError_` with a
stable code, so faces can say why in the player's language.
"""

from __future__ import annotations

import unicodedata

__all__ = ["NAME_MAX", "InvalidName", "normalize_name"]

NAME_MAX = 24

# Characters that change how surrounding text is laid out or are invisible: Unicode "format"
# characters (Cf: bidi controls, zero-width joiners and spaces, soft hyphen, tag characters...),
# plus fillers that render as nothing in most fonts.
_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"}


class InvalidName(ValueError):
    """A name that cannot be used; `code` is `name/empty`, `name/too-long` or `name/not-text`."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def normalize_name(text: object, what: str = "name", limit: int = NAME_MAX) -> str:
    """The name as it will be shown, or InvalidName saying why it cannot be."""
    if not isinstance(text, str):
        raise InvalidName("name/not-text", f"{what} must be text")
    text = unicodedata.normalize("NFC", text)
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if ch.isspace() or category in ("Zs", "Zl", "Zp"):
            kept.append(" ")
        elif category in ("Cc", "Cf", "Cs", "Co", "Cn") or ch in _INVISIBLE:
            continue
        else:
            kept.append(ch)
    name = " ".join("".join(kept).split())
    if not name or all(unicodedata.category(ch).startswith("M") for ch in name):
        raise InvalidName("name/empty", f"{what} must not be empty")
    if len(name) > limit:
        raise InvalidName("name/too-long", f"{what} is at most {limit} characters")
    return name
