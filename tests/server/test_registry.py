"""A variant is one file: a preset dropped into a preset folder shows in the lobby, the keeper, the how-to
pages, the command line, the daily list and the clubs' form with no other change (rules/registry.py)."""

from __future__ import annotations

import json
import re

import pytest

from yambak.rules import load_ruleset, preset_ids
from yambak.rules.registry import daily_presets, lobby_order, preset_texts

ZILCH = """
id = "zilch"
name = "Zilch Test"
description = "Three boxes for a quick game."

[lobby]
blurb = "A test of the registry: three boxes."
order = 5
first_in = ["nl"]
daily = true

[[rows]]
id = "sixes"
kind = "upper"
face = 6
[[rows]]
id = "doble_pair"
kind = "two_pairs"
points = "matched"
[[rows]]
id = "jackpot"
kind = "yam"
points = 50
label = "Jackpot"

[[columns]]
id = "free"

[options.jackpot]
description = "The jackpot's worth"
default = "fifty"
[options.jackpot.values]
fifty = { label = "Fifty points" }
hundred = { set = { "rows.jackpot.points" = 100 }, label = "A hundred points" }
"""


@pytest.fixture
def zilch(tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    folder = tmp_path / "presets"
    folder.mkdir()
    (folder / "zilch.toml").write_text(ZILCH)
    monkeypatch.setenv("YAMBAK_PRESET_DIRS", str(folder))
    return folder


@pytest.mark.usefixtures("zilch")
def test_a_preset_file_is_the_whole_variant(client, capsys) -> None:  # type: ignore[no-untyped-def]
    assert "zilch" in preset_ids() and load_ruleset("zilch").n_rows == 3
    assert lobby_order("nl")[0] == "zilch" and lobby_order("en")[0] == "zilch"  # order 5: before yams
    assert "zilch" in daily_presets()
    assert ("lobby", "A test of the registry: three boxes.") in set(preset_texts())

    lobby = client.get("/?lang=en").text
    assert "Zilch Test" in lobby and "A test of the registry: three boxes." in lobby
    assert "A hundred points" in lobby  # the option value's own label

    keeper = client.get("/keep/").text
    boot = json.loads(re.search(r'<script type="application/json" id="boot">(.*?)</script>', keeper, re.S).group(1))
    assert any(p["id"] == "zilch" and p["name"] == "Zilch Test" for p in boot["presets"])
    assert boot["family_labels"]["zilch"]["rows"]["jackpot"] == "Jackpot"

    howto = client.get("/rules/zilch?lang=de").text
    assert "Zilch Test" in howto and "Jackpot" in howto  # no translation: the file's own texts

    api = client.get("/api/daily").json()
    assert "zilch" in [d["preset"] for d in api["deals"]]
    assert "Zilch Test" in client.get("/daily").text
    assert "Zilch Test" in client.get("/clubs/new").text

    from yambak.cli import main

    assert main(["rules"]) == 0
    assert any(line.split()[0] == "zilch" for line in capsys.readouterr().out.splitlines())


@pytest.mark.usefixtures("zilch")
def test_a_label_names_a_row_everywhere_and_an_unnamed_id_reads_as_words() -> None:
    from yambak.web.i18n import labels

    rules = load_ruleset("zilch")
    for lang in ("en", "fr"):
        names = labels(lang, rules)
        assert names["rows"]["jackpot"] == "Jackpot" and names["rows_short"]["jackpot"] == "Jackpot"
        assert names["rows"]["doble_pair"] == "Doble pair"  # no label, no translation: the id as words
    assert labels("de", "yatzy")["rows"]["yam"] == "Yatzy" and labels("de", "kniffel")["rows"]["yam"] == "Kniffel"
    assert labels("es", "generala")["rows"]["double_yam"] == "Generala doble"  # a preset's label, translated


def test_triple_yahtzee_is_in_the_lobby_and_its_how_to_page_names_its_sources(client) -> None:  # type: ignore[no-untyped-def]
    """The preset file alone: its lobby card and how-to page in German, the multiplier said, the sources linked."""
    lobby = client.get("/?lang=de").text
    assert "Triple Yahtzee" in lobby and "die zweite Spalte zählt doppelt" in lobby
    howto = client.get("/rules/triple-yahtzee?lang=de").text
    assert "Drei freie Spalten" in howto and "mit 3 multipliziert" in howto
    assert "http://yahtzee-rules.com/triple-yahtzee-rules.html" in howto
    assert "http://ourpastimes.com/play-triple-yahtzee-4509704.html" in howto


def test_balut_is_in_the_lobby_and_its_how_to_page_says_its_points_and_names_its_sources(client) -> None:  # type: ignore[no-untyped-def]
    """The preset file alone: its lobby card and how-to page in German, the category points said, the sources
    linked."""
    lobby = client.get("/?lang=de").text
    assert "Balut" in lobby and "Das dänische Clubspiel" in lobby
    howto = client.get("/rules/balut?lang=de").text
    assert "Sieben Kategorien, jede viermal zu füllen" in howto
    assert "2 Punkte, wenn seine Felder zusammen 52 oder mehr ergeben" in howto
    assert "6 Punkte für eine Gesamtsumme von 650 oder mehr" in howto
    assert "http://diceworldgame.com/help/balut.htm" in howto and "https://dice-play.com/Games/Balut.htm" in howto
