"""Names are normalized once, the same way everywhere (`yambak.names`)."""

from __future__ import annotations

import pytest

from yambak.names import InvalidName, normalize_name


@pytest.mark.parametrize(
    "raw,shown",
    [
        ("  Ann  ", "Ann"),
        ("Ann\t\n Marie", "Ann Marie"),
        ("Cafe\u0301", "Café"),  # NFC
        ("Ann\u202e", "Ann"),  # a right-to-left override would reverse what follows the name
        ("\u2066Bram\u2069", "Bram"),  # bidi isolates
        ("B\u200br\u200da\u00adm", "Bram"),  # zero-width and soft hyphen
        ("Ann\x00\x07", "Ann"),
        ("Ann\u00a0Marie", "Ann Marie"),
        ("سارا", "سارا"),  # right-to-left names themselves are fine
        ("😀", "😀"),
    ],
)
def test_names_are_normalized(raw: str, shown: str) -> None:
    assert normalize_name(raw) == shown


@pytest.mark.parametrize(
    "raw,code",
    [
        ("", "name/empty"),
        ("   ", "name/empty"),
        ("\u200b\u200c\u200d", "name/empty"),
        ("\u202e\u2066", "name/empty"),
        ("\u3164", "name/empty"),  # Hangul filler: renders as nothing
        ("\u0301\u0301", "name/empty"),  # only combining marks
        ("x" * 25, "name/too-long"),
        (None, "name/not-text"),
        (42, "name/not-text"),
    ],
)
def test_unusable_names_are_refused(raw: object, code: str) -> None:
    with pytest.raises(InvalidName) as info:
        normalize_name(raw)
    assert info.value.code == code
