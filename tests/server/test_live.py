"""Socket messages as JSON text (server/live.py): what the standard library would read back, seat numbers as
keys included, and an integer a client sent beyond 64 bits still written."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from yambak.server.live import dumps


def test_a_message_reads_back_as_the_standard_library_wrote_it() -> None:
    message = {"type": "event", "v": 3, "clocks": {0: 12.5, 1: None}, "name": "Zoë", "dice": (1, 6), "ok": True}
    text = dumps(message)
    assert json.loads(text) == json.loads(json.dumps(message))
    assert "Zoë" in text and " " not in text  # UTF-8 as it is, compact


def test_an_integer_beyond_64_bits_is_written_all_the_same() -> None:
    assert json.loads(dumps({"type": "error", "ref": 10**30})) == {"type": "error", "ref": 10**30}


def test_a_lone_surrogate_from_a_client_is_written_in_ascii_and_a_datetime_is_refused() -> None:
    text = dumps({"type": "error", "ref": "a\ud800b"})
    assert text.isascii() and json.loads(text)["ref"] == "a\ud800b"
    with pytest.raises(TypeError):  # never a message's value: a mistake, refused as the standard library does
        dumps({"at": datetime(2026, 3, 2, tzinfo=UTC)})
