"""A request is checked in full before it makes anything: a refused one leaves no profile, no table and no
sheet behind (a newcomer's five profiles per address are not spent on orphans). House rules pass the one
rule for texts people type (`yambak.names.normalize_name`), an id of [a-z0-9_-]{1,40} and the size bounds;
a refusal says the real limit."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from .helpers import create


def _rows(client, sql: str) -> int:
    with client.app.state.store.engine.connect() as conn:
        return int(conn.execute(text(sql)).scalar() or 0)


def _made(client) -> tuple[int, int]:
    return _rows(client, "SELECT count(*) FROM profiles"), _rows(client, "SELECT count(*) FROM game_tables")


def _house(rows: int = 2, columns: int = 1, **top) -> dict:
    return {
        "id": "house",
        "name": "House",
        **top,
        "rows": [{"id": f"r{i}", "kind": "sum"} for i in range(rows)],
        "columns": [{"id": f"c{i}"} for i in range(columns)],
    }


REFUSED_BODIES = [  # (what is wrong, the body's changes, the refusal's code)
    ("a preset that is none", {"preset": "nope"}, "input/rules"),
    ("a table name over 60", {"name": "x" * 61}, "input/name"),
    ("a seat of no kind", {"seats": [{"name": "Ann"}, {"kind": "ghost"}]}, "input/invalid"),
    ("a bot of no level", {"seats": [{"name": "Ann"}, {"kind": "bot", "bot": "genius"}]}, "input/seats"),
    ("25 rows", {"preset": None, "rules": _house(rows=25)}, "input/rules"),
    ("9 columns", {"preset": None, "rules": _house(columns=9)}, "input/rules"),
    ("129 boxes", {"preset": None, "rules": _house(rows=22, columns=6)}, "input/rules"),
    ("a ruleset id with a space", {"preset": None, "rules": _house(id="my rules")}, "input/rules"),
    ("a ruleset name over 60", {"preset": None, "rules": _house(name="n" * 61)}, "input/rules"),
    ("a label over 24", {"preset": None, "rules": {**_house(), "columns": [{"id": "c" * 25}]}}, "input/rules"),
]


@pytest.mark.parametrize("why,change,code", REFUSED_BODIES, ids=[r[0] for r in REFUSED_BODIES])
def test_a_refused_table_makes_no_profile_and_no_table(client, why, change, code):
    before = _made(client)
    body = {"name": "Club night", "preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}], **change}
    r = client.post("/api/tables", json=body)
    assert r.status_code in (400, 422) and r.json()["code"] == code, (why, r.text)
    assert _made(client) == before and "yambak_profile" not in r.cookies, why


def test_a_refused_form_makes_no_profile_and_no_table(client):
    before = _made(client)
    form = {"name": "Club night", "seat0_kind": "human", "seat0_name": "Ann", "seat1_kind": "open"}
    for wrong in ({"custom": 'id = "x"\n#' + "x" * 12_001}, {"custom": 'id = "x"\nname = "y"\n'}, {"name": "x" * 61}):
        r = client.post("/tables", data={**form, **wrong})
        assert r.status_code in (400, 422) and r.headers["content-type"].startswith("text/html"), (wrong, r.text[:200])
        assert "12,000 characters" in r.text or "custom" not in wrong or "#" not in wrong["custom"]
    assert _made(client) == before
    assert client.post("/tables", data={**form, "preset": "yams"}, follow_redirects=False).status_code == 303
    assert _made(client) == (before[0] + 1, before[1] + 1)


def test_a_refused_join_makes_no_profile(client):
    full = create(client, "yams", [{"name": "Ann"}])
    open_ = create(client, "yams", [{"name": "Ann"}, {"kind": "open"}])
    before = _made(client)
    for table, body, code in [
        (full, {"name": "Bo"}, "seat/none-open"),
        (open_, {"name": "Bo", "seat": 0}, "seat/taken"),
        (open_, {"name": "\u202e"}, "input/name"),
    ]:
        r = client.post(f"/api/tables/{table['id']}/join", json=body)
        assert r.json()["code"] == code, r.text
        assert "yambak_profile" not in r.cookies
    r = client.post(f"/t/{full['id']}/join", data={"name": "Bo"})
    assert r.status_code == 409 and _made(client) == before


def test_a_refused_club_makes_no_profile(client):
    before = _made(client)
    body = {"name": "Thursday club", "preset": "yatzy", "rounds": 2, "window": 30, "owner": "Ann"}
    for wrong in ({"window": 5}, {"rounds": 0}, {"preset": "nope"}, {"name": "\u200b"}, {"starts": "soon"}):
        r = client.post("/api/clubs", json={**body, **wrong})
        assert r.status_code in (400, 422), (wrong, r.text)
    r = client.post("/clubs", data={**body, "window": "5"})
    assert r.status_code in (400, 422) and _made(client) == before
    club = client.post("/api/clubs", json=body).json()
    client.cookies.clear()
    before = _made(client)
    r = client.post(f"/api/clubs/{club['id']}/join", json={"invite": "wrong-code", "name": "Bo"})
    assert r.json()["code"] == "deal/invite" and _made(client) == before


def test_a_refusal_says_the_real_limit(client):
    r = client.post("/api/tables", json={"name": "x" * 61, "preset": "yams", "seats": [{"name": "Ann"}]})
    assert r.json()["code"] == "input/name" and r.json()["limit"] == 60
    assert r.json()["message"] == "Type a name of 1 to 60 characters."
    r = client.post("/api/tables", json={"name": "x" * 61, "preset": "yams", "seats": [{"name": "Ann"}]},
                    headers={"accept-language": "fr"})  # fmt: skip
    assert r.json()["message"] == "Saisissez un nom de 1 à 60 caractères."
    r = client.post("/api/tables", json={"preset": "yams", "seats": [{"name": "A" * 25}]})
    assert r.json()["message"] == "Type a name of 1 to 24 characters."


def test_house_rules_texts_are_cleaned_like_names(client):
    rules = _house(name="\u202eSelur \u200besuoh\u202c", description="two\n\nlines\u2066")
    made = create(client, None, [{"name": "Ann"}], rules=rules)
    listed = next(t for t in client.get("/api/tables").json()["tables"] if t["id"] == made["id"])
    assert listed["rules_name"] == "Selur esuoh"  # no override reverses the lobby for every visitor
    view = client.get(f"/api/tables/{made['id']}").json()
    assert view["rules"]["name"] == "Selur esuoh"
    assert client.app.state.manager.get(made["id"]).state.rules.description == "two lines"
