"""The options box of the lobby and the score-keeper: list values, typed defaults, stated format."""

from __future__ import annotations

import pytest

from yambak.rules import RulesetError
from yambak.server.options import format_value, parse_option_text, split_options


def test_split_keeps_list_values_together():
    assert split_options("extra=updown,middle, four_kind=four") == ["extra=updown,middle", "four_kind=four"]
    assert split_options("columns=3\nmax_min = false") == ["columns=3", "max_min=false"]
    assert split_options("") == []


def test_parse_typed_values():
    assert parse_option_text("yamb", "extra=updown,middle, four_kind=all") == {
        "extra": ["updown", "middle"],
        "four_kind": "all",
    }
    assert parse_option_text("yamb", "extra=") == {"extra": []}
    assert parse_option_text("yams-de", "strict=false, flat_bonus=true") == {"strict": False, "flat_bonus": True}
    with pytest.raises(RulesetError):
        parse_option_text("yams-fr", "columns=3, stray")


def test_defaults_are_shown_as_typed():
    assert format_value(False) == "false" and format_value(["updown", "middle"]) == "updown,middle"
    assert format_value([]) == "" and format_value(4) == "4"


def test_lobby_creates_a_table_with_a_list_option(client):
    form = {
        "name": "Lists",
        "preset": "yamb",
        "options": "extra=updown,middle, four_kind=all",
        "seat0_kind": "human",
        "seat0_name": "Ann",
    }
    r = client.post("/tables", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    view = client.get("/api/tables/" + r.headers["location"].rsplit("/", 1)[1]).json()
    assert view["rules"]["options"]["extra"] == ["updown", "middle"]
    assert {"updown", "middle"} <= {c["id"] for c in view["rules"]["columns"]}


def test_lobby_help_shows_the_typed_syntax(client):
    page = client.get("/").text
    assert "<code>extra=</code>" in page and "<code>strict=false</code>" in page
    assert "<code>extra=updown,middle</code>" in page
    assert "[" not in page.split('class="opts"')[1].split("</ul>")[0]  # no Python reprs
    assert "False" not in page.split('class="opts"')[1].split("</ul>")[0]
    assert 'id="options-help"' in page


def test_keeper_form_shares_the_parser(client):
    form = {"name": "Sheet", "preset": "yamb", "options": "extra=updown,middle", "player0": "Ann"}
    r = client.post("/keep", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    view = client.get("/api/keep/" + r.headers["location"].rsplit("/", 1)[1]).json()
    assert {"updown", "middle"} <= {c["id"] for c in view["rules"]["columns"]}
    assert 'id="options-help"' in client.get("/keep/").text
