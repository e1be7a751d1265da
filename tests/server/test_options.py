"""A ruleset's options as form controls: the schema the forms draw, and the values they send back."""

from __future__ import annotations

import pytest
from starlette.datastructures import FormData

from yambak.rules import RulesetError, load_ruleset
from yambak.server.options import option_schema, options_from_form


def test_every_option_of_every_preset_becomes_a_control():
    yams_fr = {o["name"]: o for o in option_schema("yams-fr", "en")}
    assert yams_fr["columns"]["kind"] == "choice" and [c["value"] for c in yams_fr["columns"]["choices"]] == [
        "1",
        "3",
        "4",
    ]
    assert yams_fr["max_min"]["kind"] == "bool" and yams_fr["max_min"]["default"] is True
    yamb = {o["name"]: o for o in option_schema("yamb", "fr")}
    assert yamb["extra"]["kind"] == "list" and [c["label"] for c in yamb["extra"]["choices"]][1] != "middle"
    assert yamb["four_kind"]["choices"][0]["label"] != "all"  # described, in the page's language
    assert option_schema("yatzy", "en") == []
    joker = {o["name"]: o for o in option_schema("yams", "en")}["joker"]
    assert joker["kind"] == "choice" and [c["value"] for c in joker["choices"]] == ["forced", "free"]


@pytest.mark.parametrize(
    "preset,fields,expected",
    [
        ("yams-fr", {"opt.yams-fr.columns": "3"}, {"columns": 3}),
        ("yams-fr", {"opt.yams-fr.max_min.present": "1"}, {"max_min": False}),  # an unticked box
        ("yams-fr", {"opt.yams-fr.max_min.present": "1", "opt.yams-fr.max_min": "on"}, {"max_min": True}),
        (
            "yamb",
            {"opt.yamb.extra.present": "1", "opt.yamb.extra": ["middle", "updown"]},
            {"extra": ["updown", "middle"]},
        ),
        ("yamb", {"opt.yamb.extra.present": "1"}, {"extra": []}),
        ("yammen", {"opt.yammen.ties": "share", "opt.yams-fr.columns": "1"}, {"ties": "share"}),  # others ignored
        ("yams", {}, {}),
    ],
)
def test_form_values_are_typed_like_the_defaults(preset, fields, expected):
    form = FormData([(k, v) for k, vs in fields.items() for v in (vs if isinstance(vs, list) else [vs])])
    options = options_from_form(form, preset)
    assert options == expected
    load_ruleset(preset, options)  # and the engine takes them


@pytest.mark.parametrize(
    "preset,fields",
    [("yams-fr", {"opt.yams-fr.columns": "9"}), ("yamb", {"opt.yamb.extra": "sideways"})],
)
def test_values_that_are_not_choices_are_refused(preset, fields):
    with pytest.raises(RulesetError):
        options_from_form(FormData(list(fields.items())), preset)


def test_the_lobby_form_takes_options_and_house_rules(client):
    r = client.post(
        "/tables",
        data={
            "name": "T",
            "preset": "yamb",
            "opt.yamb.extra.present": "1",
            "opt.yamb.extra": ["updown", "middle"],
            "seat0_kind": "human",
            "seat0_name": "Ann",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    view = client.get("/api/tables/" + r.headers["location"].rsplit("/", 1)[1]).json()
    assert [c["id"] for c in view["rules"]["columns"]][-2:] == ["updown", "middle"]
    toml = 'id = "mini"\nname = "Mini"\n[[rows]]\nid = "chance"\nkind = "sum"\n[[columns]]\nid = "free"\n'
    r = client.post(
        "/tables",
        data={"name": "House", "preset": "yams", "seat0_kind": "human", "seat0_name": "Ann"},
        files={"custom_file": ("mini.toml", toml.encode(), "text/plain")},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    view = client.get("/api/tables/" + r.headers["location"].rsplit("/", 1)[1]).json()
    assert view["rules"]["id"] == "mini" and [r["id"] for r in view["rules"]["rows"]] == ["chance"]
    # "How to play" at that table explains its own rules, not the default preset's
    page = client.get(r.headers["location"])
    assert f'href="{r.headers["location"]}/rules"' in page.text
    howto = client.get(r.headers["location"] + "/rules")
    assert howto.status_code == 200 and "<h1>Mini</h1>" in howto.text
    assert '<th scope="row">Chance</th>' in howto.text and '<th scope="row">Full house</th>' not in howto.text
    assert client.get("/t/nosuchtable/rules").status_code == 404
    bad = client.post("/tables", data={"name": "B", "custom": "not = [toml", "seat0_kind": "human", "seat0_name": "A"})
    assert bad.status_code == 400 and "TOML" in bad.text


def test_the_how_to_page_says_what_the_describer_says(client):
    """The page is the rule describer's sentences in the reader's language: roll-offs repeat until decided."""
    page = client.get("/rules/yammen?lang=en").text
    assert "Ties: each tied player rolls 5 dice, most pips wins; players still tied roll again until one wins." in page
    assert "roll five dice once" not in page
    nl = client.get("/rules/yammen?lang=nl").text
    assert "elke gelijk geëindigde speler gooit 5 stenen" in nl and "Naar beneden" in nl
