"""Groups of kept sheets over HTTP: made, joined by code, a phone files its own sheets only, and the season
(games, wins, match points, means) agrees with the engine's replay of the sheets' records, done here apart;
the sheet's and the season's CSV files."""

from __future__ import annotations

import csv
import io

from tests.conftest import play_random
from yambak.engine import GameRecord, replay, state_to_record
from yambak.rules import load_ruleset

from .keeper_plan import plan
from .test_keeper import Keeper, bearer, new_sheet

GROUPS = "/api/keep/groups"


def new_group(client, name="Ghent dice society"):
    r = client.post(GROUPS, json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()


def file_sheet(client, group, sheet, token=None):
    return client.post(
        f"{GROUPS}/{group['id']}/sheets",
        json={"sheet": sheet["id"], "token": sheet["token"]},
        headers=bearer(token or group["token"]),
    )


def kept_yammen(client, players):
    sheet = new_sheet(client, "yammen", players)
    k = Keeper(client, sheet)
    for e in plan("yammen", players)[0]:
        assert k.post(e.body()).status_code == 200
    return sheet


def stored_game(client, preset, players, seed):
    """A sheet whose finished game (random, legal, the engine's) is stored as its record."""
    sheet = new_sheet(client, preset, players)
    state = play_random(load_ruleset(preset), len(players), seed=seed)
    played = state_to_record(state)
    record = GameRecord(played.rules, tuple(players), played.turns).to_dict()
    client.app.state.store.append(sheet["id"], 1, -1, "undo", None, record, finished=True, ref=f"stored-{seed:06d}")
    client.app.state.keeper.sessions.pop(sheet["id"], None)  # read again from the store, as after a restart
    return sheet


def test_a_group_is_joined_by_code_and_files_only_a_phones_own_sheets(client):
    group = new_group(client)
    assert len(group["code"]) == 6 and group["url"] == f"/keep/group/{group['id']}"
    joined = client.post(f"{GROUPS}/join", json={"code": " " + group["code"].lower()})
    assert joined.status_code == 200 and joined.json()["id"] == group["id"] and joined.json()["token"] != group["token"]
    other = {**group, "token": joined.json()["token"]}
    mine, theirs = new_sheet(client, "yams", ("Ann", "Bram")), new_sheet(client, "yams", ("Cas",))
    refusals = [
        (client.post(f"{GROUPS}/join", json={"code": "ZZZZZZ"}), 404, "group/unknown-code"),
        (client.post(f"{GROUPS}/join", json={"code": 7}), 422, None),
        (client.post(GROUPS, json={"name": "   "}), 400, "input/name"),
        (client.post(GROUPS, json={"name": "x", "extra": 1}), 422, None),
        (file_sheet(client, {**group, "id": "nosuchgroup00000"}, mine), 404, "group/unknown"),
        (file_sheet(client, group, mine, token="not-a-member-token"), 403, "auth/group-token"),
        (file_sheet(client, group, {**mine, "token": theirs["token"]}), 403, "auth/sheet-token"),
        (file_sheet(client, group, {**mine, "id": "nosuchsheet00000"}), 404, "sheet/unknown"),
        (client.post(f"{GROUPS}/{group['id']}/sheets", json={"sheet": mine["id"]}, headers=bearer(group["token"])),
         422, None),
        (client.get(f"{GROUPS}/nosuchgroup00000"), 404, "group/unknown"),
        (client.get("/keep/group/nosuchgroup00000/season.csv"), 404, "group/unknown"),
    ]  # fmt: skip
    for r, status, code in refusals:
        assert r.status_code == status, r.text
        if code:
            assert r.json()["code"] == code
    season = client.get(f"{GROUPS}/{group['id']}").json()
    assert season["season"]["unfinished"] == 0 and "code" not in season  # nothing was filed; a reader sees no code
    assert file_sheet(client, group, mine).json()["added"] is True
    assert file_sheet(client, other, mine).json()["added"] is False  # once, by either phone
    assert file_sheet(client, other, theirs).json()["added"] is True
    seen = client.get(f"{GROUPS}/{group['id']}", headers=bearer(other["token"])).json()
    assert seen["code"] == group["code"] and seen["season"]["unfinished"] == 2 and seen["season"]["games"] == 0
    r = client.post(f"{GROUPS}/{group['id']}/sheets/remove", json={"sheet": theirs["id"], "token": theirs["token"]},
                    headers=bearer(group["token"]))  # fmt: skip
    assert r.json()["removed"] is True
    assert client.get(f"{GROUPS}/{group['id']}").json()["season"]["unfinished"] == 1


def _expected(records):
    """The season worked out here from the records: per (preset, name as matched) games, wins, points, totals."""
    out: dict = {}
    for record in records:
        state = replay(GameRecord.from_dict(record))
        assert state.finished
        points, winners = state.match_points(), state.winners()
        for seat, name in enumerate(state.players):
            e = out.setdefault((state.rules.preset, name.strip().casefold()), [0, 0, 0.0, []])
            e[0] += 1
            e[1] += seat in winners and len(state.players) > 1
            e[2] += points[seat] if points else 0.0
            e[3].append(state.total(seat))
    return out


def test_the_season_adds_up_the_engines_figures_and_exports_them(client):
    group = new_group(client, 'Thursday, "the" club')
    first = kept_yammen(client, ("Ann", "Bram"))  # typed entry by entry, as phones do
    # two more evenings as the store holds a finished sheet (typing them too would only cost seconds)
    second = stored_game(client, "yammen", ("bram", "ANN"), seed=4)  # the same two players, typed otherwise
    alone = stored_game(client, "yammen", ("Ann",), seed=5)  # a game alone is never a win
    yams = stored_game(client, "yams", ("Ann", "Cas"), seed=6)  # another ruleset: a table of its own
    open_sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    for sheet in (first, second, alone, yams, open_sheet):
        assert file_sheet(client, group, sheet).status_code == 200
    new_sheet(client, "yammen", ("Ann", "Bram"))  # kept, never filed: not in the season
    season = client.get(f"{GROUPS}/{group['id']}").json()["season"]
    assert (season["games"], season["unfinished"], season["skipped"]) == (4, 1, 0)
    records = [client.get(f"/keep/{s['id']}/record.json").json() for s in (first, second, alone, yams)]
    expected = _expected(records)
    yammen, other = season["rulesets"]
    assert other["preset"] == "yams" and other["match_points"] is False and other["games"] == 1
    for p in other["players"]:
        games, wins, _, totals = expected[("yams", p["name"].casefold())]
        assert (p["games"], p["wins"], p["mean"], p["points"]) == (games, wins, float(totals[0]), None)
    assert yammen["preset"] == "yammen" and yammen["games"] == 3 and yammen["match_points"] is True
    assert len(yammen["players"]) == 2  # Ann and ANN, Bram and bram: one player each
    for p in yammen["players"]:
        games, wins, points, totals = expected[("yammen", p["name"].casefold())]
        assert (p["games"], p["wins"], p["best"], p["worst"]) == (games, wins, max(totals), min(totals))
        assert p["points"] == round(points, 2) and p["mean"] == round(sum(totals) / games, 1)
        assert p["points_mean"] == round(points / games, 2)
    assert sum(p["wins"] for p in yammen["players"]) >= 2 and {p["games"] for p in yammen["players"]} == {3, 2}

    r = client.get(f"/keep/group/{group['id']}/season.csv")
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.headers["content-disposition"] == f'attachment; filename="yambak-season-{group["id"]}.csv"'
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert len(rows) == 7 and {row["sheet"] for row in rows} == {s["id"] for s in (first, second, alone, yams)}
    for record, sheet in zip(records, (first, second, alone, yams), strict=True):
        state = replay(GameRecord.from_dict(record))
        mine = [row for row in rows if row["sheet"] == sheet["id"]]
        assert [int(row["total"]) for row in mine] == state.totals()
        points = state.match_points() or [None] * len(state.players)
        assert [float(row["match_points"]) if row["match_points"] else None for row in mine] == points
        won = [int(s in state.winners() and len(state.players) > 1) for s in range(len(state.players))]
        assert [int(row["won"]) for row in mine] == won

    r = client.get(f"/keep/{first['id']}/sheet.csv")
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.headers["content-disposition"] == f'attachment; filename="yambak-sheet-{first["id"]}.csv"'
    table = list(csv.reader(io.StringIO(r.text)))
    state = replay(GameRecord.from_dict(records[0]))
    assert table[0] == ["column", "row", "Ann", "Bram"]
    by_label = {(row[0], row[1]): row[2:] for row in table[1:]}
    assert by_label[("", "total")] == [str(t) for t in state.totals()]
    assert by_label[("", "match_points")] == [f"{x:g}" for x in state.match_points()]
    for column in state.rules.columns:
        scores = [state.column_scores(p)[state.rules.column_index[column.id]] for p in range(2)]
        assert by_label[(column.id, "total")] == [str(c.total) for c in scores]
        for row in state.rules.rows:
            assert by_label[(column.id, row.id)] == [str(c.boxes[row.id]) for c in scores]


def test_the_groups_pages_and_the_code_typed_without_a_script(client):
    group = new_group(client, "Kitchen <club>")
    r = client.get(f"/keep/groups/join?code={group['code'].lower()}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/keep/group/{group['id']}#join={group['code']}"
    assert client.get("/keep/groups/join?code=ZZZZZZ", follow_redirects=False).status_code == 404
    page = client.get(f"/keep/group/{group['id']}?lang=nl")
    assert page.status_code == 200 and "Kitchen &lt;club&gt;" in page.text and "<club>" not in page.text
    assert "Nog geen afgewerkt blad in deze groep" in page.text and group["code"] not in page.text
    assert page.headers["x-robots-tag"].startswith("noindex")
    missing = client.get("/keep/group/nosuchgroup00000?lang=en")
    assert missing.status_code == 404 and "There is no such group." in missing.text


def test_a_season_replays_each_record_once_and_again_when_the_record_changes(client, monkeypatch):
    """The process keeps what it read of each record (a season of 500 evenings is seconds of replays), by the
    record itself: one rewritten under the same version (a deleted profile's name taken out) is read again."""
    from sqlalchemy import update

    from yambak.server.keeper import groups as groups_module
    from yambak.store.models import GameSession

    replays: list[str] = []
    real = groups_module.sheet_result
    monkeypatch.setattr(groups_module, "sheet_result", lambda record: replays.append("x") or real(record))
    group = new_group(client)
    sheets = [stored_game(client, "yams", ("Ann", "Cas"), seed=seed) for seed in (7, 8)]
    for sheet in sheets:
        assert file_sheet(client, group, sheet).status_code == 200
    first = client.get(f"{GROUPS}/{group['id']}").json()["season"]
    assert len(replays) == 2 and first["games"] == 2
    assert client.get(f"{GROUPS}/{group['id']}").json()["season"] == first
    assert client.get(f"/keep/group/{group['id']}/season.csv").status_code == 200
    assert len(replays) == 2  # the page again and the export: nothing replayed again

    store = client.app.state.store
    record = {**store.get_session(sheets[0]["id"], "sheet").record, "players": ["Player 1", "Cas"]}
    with store.engine.begin() as conn:
        conn.execute(update(GameSession).where(GameSession.id == sheets[0]["id"]).values(record=record))
    season = client.get(f"{GROUPS}/{group['id']}").json()["season"]
    assert len(replays) == 3  # that sheet alone, read again
    names = {p["name"] for p in season["rulesets"][0]["players"]}
    assert names == {"Ann", "Cas", "Player 1"}
    ann = next(p for p in season["rulesets"][0]["players"] if p["name"] == "Ann")
    assert ann["games"] == 1


def test_a_new_code_takes_the_old_one_back_and_a_phone_may_leave(client):
    group = new_group(client)  # Ann's phone made it
    bram = client.post(f"{GROUPS}/join", json={"code": group["code"]}).json()
    cas = client.post(f"{GROUPS}/join", json={"code": group["code"]}).json()
    sheet = new_sheet(client, "yams", ("Ann", "Bram"))
    assert file_sheet(client, group, sheet, token=bram["token"]).json()["added"] is True
    for r, status, code in [
        (client.post(f"{GROUPS}/{group['id']}/code"), 403, "auth/group-token"),  # no token: not a member
        (client.post(f"{GROUPS}/{group['id']}/code", headers=bearer("x" * 20)), 403, "auth/group-token"),
        (client.post(f"{GROUPS}/nosuchgroup00000/code", headers=bearer(bram["token"])), 404, "group/unknown"),
        (client.post(f"{GROUPS}/{group['id']}/leave"), 403, "auth/group-token"),
    ]:
        assert r.status_code == status and r.json()["code"] == code, r.text
    assert client.get(f"{GROUPS}/{group['id']}").json()["season"]["unfinished"] == 1  # refusals changed nothing

    renewed = client.post(f"{GROUPS}/{group['id']}/code", headers=bearer(bram["token"]))  # Bram renews it
    assert renewed.status_code == 200, renewed.text
    code = renewed.json()["code"]
    assert len(code) == 6 and code != group["code"]
    old = client.post(f"{GROUPS}/join", json={"code": group["code"]})
    assert old.status_code == 404 and old.json()["code"] == "group/unknown-code"
    seen = client.get(f"{GROUPS}/{group['id']}", headers=bearer(bram["token"])).json()
    assert seen["code"] == code and seen["season"]["unfinished"] == 1  # the sheets filed stay
    other = new_sheet(client, "yams", ("Cas",))
    for token in (group["token"], cas["token"]):  # every other phone's token files no more
        assert file_sheet(client, group, other, token=token).json()["code"] == "auth/group-token"
        assert "code" not in client.get(f"{GROUPS}/{group['id']}", headers=bearer(token)).json()
    again = client.post(f"{GROUPS}/join", json={"code": code}).json()  # Cas types the new code
    assert file_sheet(client, group, other, token=again["token"]).json()["added"] is True

    left = client.post(f"{GROUPS}/{group['id']}/leave", headers=bearer(again["token"]))
    assert left.status_code == 200 and left.json() == {"id": group["id"], "left": True}
    assert file_sheet(client, group, new_sheet(client, "yams", ("Di",)), token=again["token"]).status_code == 403
    assert client.get(f"{GROUPS}/{group['id']}").json()["season"]["unfinished"] == 2  # what Cas filed stays
    assert file_sheet(client, group, other, token=bram["token"]).json()["added"] is False  # Bram still files
