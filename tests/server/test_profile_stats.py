"""A history's games replayed turn by turn with the coach's word on each decision, and a profile's
statistics: what the engine says of the games that were played, and nothing else."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from yambak.engine import replay
from yambak.server import Settings
from yambak.server.profiles.results import grade

from .helpers import browser
from .profile_helpers import new_table, play_out
from .test_profiles import _kept_record


@pytest.fixture
def settings(tmp_path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path}/test.db", bot_delay=0.0, warm_strategies=False, undo_grace=0.0,
        rate_per_second=1000, rate_burst=1000, coach_process=False,
    )  # fmt: skip


def _games(client: TestClient, n: int, preset: str = "yams") -> list[dict]:
    views = []
    for _ in range(n):
        made = new_table(client, preset, seats=[{"name": "Ann"}, {"kind": "bot", "bot": "easy", "name": "Robo"}])
        views.append({"id": made["id"], **play_out(client, made["id"], [made["tokens"]["0"]])})
    assert client.app.state.profiles.grader.wait()
    return views


def test_a_game_of_the_history_replays_turn_by_turn_with_the_coach(client):
    (game,) = _games(client, 1)
    result = client.get("/api/me/games").json()["games"][0]
    rid = result["id"]
    record = client.get(f"/t/{game['id']}/record.json").json()
    for n in (0, 1, 13, 26):
        frame = client.get(f"/api/results/{rid}/frames/{n}").json()
        assert frame["n"] == n and frame["turns"] == 26
        assert frame["players"][0]["total"] == replay({**record, "turns": record["turns"][:n]}).total(0)
        assert frame["seats"] == [t["player"] for t in record["turns"]]  # the seat of every turn
        if n:
            assert frame["turn"]["rolls"] == record["turns"][n - 1]["rolls"]
            assert frame["turn"]["held"] == record["turns"][n - 1].get("held")
            assert frame["turn"]["player"] == record["turns"][n - 1]["player"]
    review = client.get(f"/api/results/{rid}/review").json()
    mine = review["players"][0]
    assert review["exact"] and mine["decisions"] and len(mine["mistakes"]) <= 3
    assert mine["mistakes"] == sorted(mine["mistakes"], key=lambda d: -d["loss"])  # the biggest first
    page = client.get(f"/replay/{rid}")
    assert page.status_code == 200 and f"/api/results/{rid}/frames/" in page.text
    assert f"/t/{game['id']}/record.json" in page.text
    stranger = browser(client)
    for url in (f"/api/results/{rid}/frames/1", f"/api/results/{rid}/review", f"/api/results/{rid}/record"):
        r = stranger.get(url)
        assert r.status_code == 404 and r.json()["code"] == "result/unknown", url
    assert stranger.get(f"/replay/{rid}").status_code == 404
    assert stranger.get("/api/results/999999/frames/1").json()["code"] == "result/unknown"
    assert stranger.get("/api/results/abc/frames/1").json()["code"] == "result/unknown"
    assert stranger.get(f"/api/results/{rid}/frames/x").json()["code"] == "input/invalid"
    client.patch("/api/me", json={"shared": True})
    assert stranger.get(f"/api/results/{rid}/frames/1").status_code == 200  # shared: anyone with the link
    assert stranger.get(f"/replay/{rid}").status_code == 200


def test_a_kept_sheet_replays_without_held_dice(client):
    new_table(client, seats=[{"name": "Ann"}])
    record = _kept_record()
    rid = client.post("/api/me/kept", json={"sheet": "s1", "record": record, "seat": 0}).json()["id"]
    frame = client.get(f"/api/results/{rid}/frames/3").json()
    assert frame["turn"]["held"] is None and frame["turn"]["rolls"] == record["turns"][2]["rolls"]
    review = client.get(f"/api/results/{rid}/review").json()
    assert review["graded_keeps"] is False  # a kept sheet says nothing of what was held: boxes only
    assert client.get(f"/api/results/{rid}/record").json()["turns"] == record["turns"]


def test_statistics_are_the_engine_s_numbers_of_the_games_played(client, monkeypatch):
    store = client.app.state.manager.store
    own_transactions = []  # the grader's thread writing for itself: the fallback when the loop is gone
    sync = store._sync
    monkeypatch.setattr(store, "_sync", lambda op: (own_transactions.append(op.__qualname__), sync(op))[1])
    games = _games(client, 3)
    scores = [g["players"][0]["total"] for g in games]
    records = [replay(client.get(f"/t/{g['id']}/record.json").json()) for g in games]
    bonus = sum(1 for s in records if s.column_scores(0)[0].bonus)
    yams = sum(1 for s in records if s.column_scores(0)[0].boxes["yam"])
    wins = sum(1 for g in games if 0 in g["winners"])  # a shared win is a win
    data = client.get("/api/me/stats").json()
    (v,) = data["variants"]
    assert v["rules_id"] == "yams" and v["games"] == 3 and v["duels"] == 3 and v["wins"] == wins
    assert v["mean"] == round(sum(scores) / 3, 1) and v["best"] == max(scores)
    assert v["bonus_rate"] == bonus / 3 and v["yam_rate"] == yams / 3
    assert v["accuracy"] is not None and v["accuracy"] > 0  # the first box offered is rarely the best
    # each game graded on the record it ended with (handed over in memory): the coach's grade of the
    # stored record; the grades written by the store's writer on the loop, with the actions
    graded = [grade(client.get(f"/t/{g['id']}/record.json").json(), 0) for g in games]
    lost = sum((g.accuracy or 0.0) * g.decisions for g in graded)
    assert v["accuracy"] == pytest.approx(lost / sum(g.decisions for g in graded), abs=0.01)
    assert not [q for q in own_transactions if "grade_op" in q]
    chosen = data["chosen"]
    assert chosen["trend_games"] == 3
    assert len(re.findall(r'<circle class="dot', chosen["trend"])) == 3
    bars = [int(n) for n in re.findall(r"<title>\d+–\d+: (\d+)</title>", chosen["histogram"])]
    assert sum(bars) == 3
    page = client.get("/me/stats").text
    assert '<svg class="plot"' in page and f'data-stat="best">{max(scores)}<' in page
    # personal bests: each counted score that beat every earlier one, and what it beat
    flags = [client.get(f"/api/me/tables/{g['id']}").json() for g in games]
    assert flags[0]["best"] is False
    for i in (1, 2):
        assert flags[i]["best"] == (scores[i] > max(scores[:i]))
        if flags[i]["best"]:
            assert flags[i]["beat"] == max(scores[:i])
    assert client.get("/api/me/tables/nope").json()["code"] == "result/unknown"


def test_practice_and_helped_games_are_marked_and_left_out_of_the_figures(client):
    from .deal_helpers import play

    own = [g["players"][0]["total"] for g in _games(client, 2)]
    helped = new_table(client, seats=[{"name": "Ann"}, {"kind": "bot", "bot": "easy", "name": "Robo"}])
    play_out(client, helped["id"], [helped["tokens"]["0"]], hint_at=0)  # a hint asked: help
    deal = client.post("/api/daily/yams/play", json={}).json()
    own.append(play(client, deal)["players"][0]["total"])
    practice = client.post("/api/daily/yams/play", json={}).json()  # the same dice again: practice
    play(client, practice, last=True)
    assert client.app.state.profiles.grader.wait()
    (v,) = client.get("/api/me/stats").json()["variants"]
    assert (v["games"], v["helped"]) == (3, 2) and v["mean"] == round(sum(own) / 3, 1) and v["best"] == max(own)
    chosen = client.get("/api/me/stats").json()["chosen"]
    assert chosen["trend_games"] == 3
    assert sum(int(n) for n in re.findall(r"<title>\d+–\d+: (\d+)</title>", chosen["histogram"])) == 3
    marks = {g["ref"]: g["help"] for g in client.get("/api/me/games").json()["games"]}
    assert marks[helped["id"]] == "helped" and marks[practice["id"]] == "practice" and marks[deal["id"]] is None
    assert sorted(marks.values(), key=str) == sorted([None, None, None, "helped", "practice"], key=str)
    page = client.get("/me").text
    assert page.count('class="tag help"') == 2 and ">practice<" in page and ">helped<" in page
    assert (
        "2 games with a hint, a bot&#39;s turn or on dice seen before (practice) are left out"
        in client.get("/me/stats").text
    )


def test_statistics_by_variant(client):
    _games(client, 1, "yatzy")
    made = new_table(client, "yams-fr", seats=[{"name": "Ann"}], options={"columns": 1})
    play_out(client, made["id"], [made["tokens"]["0"]])
    assert client.app.state.profiles.grader.wait()
    data = client.get("/api/me/stats").json()
    assert {v["rules_id"] for v in data["variants"]} == {"yatzy", "yams-fr columns=1"}
    one = client.get("/api/me/stats", params={"v": "yams-fr columns=1"}).json()["chosen"]
    assert one["rules_id"] == "yams-fr columns=1" and one["duels"] == 0 and one["wins"] == 0
    assert "Yam" in client.get("/me/stats", params={"v": "yams-fr columns=1"}).text


def test_statistics_pages_are_private_unless_shared_and_bad_input_is_refused(client):
    stranger = browser(client)
    assert stranger.get("/api/me/stats").json()["code"] == "profile/none"
    assert stranger.get("/me/stats", follow_redirects=False).status_code == 303  # to /me, to choose a name
    new_table(client, seats=[{"name": "Ann"}])  # a profile, no finished game yet
    pid = client.get("/api/me").json()["profile"]["id"]
    assert "No finished games yet" in client.get("/me/stats").text
    assert client.get("/api/me/stats").json() == {"variants": [], "chosen": None}
    (game,) = _games(client, 1)
    score = game["players"][0]["total"]
    assert stranger.get(f"/p/{pid}/stats").status_code == 404  # private
    client.patch("/api/me", json={"shared": True})
    page = stranger.get(f"/p/{pid}/stats")
    assert page.status_code == 200 and f'data-stat="best">{score}<' in page.text
    assert 'href="/me/profile"' not in page.text  # a visitor sees no owner's tab
    # an unknown variant shows the most played one; odd ids give the "missing" page, never a traceback
    assert client.get("/api/me/stats", params={"v": "nope" * 100}).json()["chosen"]["rules_id"] == "yams"
    for path in ("/replay/abc", "/replay/0", "/replay/99999999999999999999999", "/p/nobody/stats"):
        r = stranger.get(path)
        assert r.status_code == 404 and "text/html" in r.headers["content-type"], path


@pytest.mark.parametrize("started", [True, False], ids=["coach-running", "coach-starting"])
def test_the_coachs_process_leaves_with_its_server(started):
    """The coach grades in a process of its own; a server killed outright must not leave it behind,
    whether the coach was at work or still starting when the server died."""
    import subprocess
    import sys
    import time
    from pathlib import Path

    script = (
        "import os\n"
        "from yambak.server.profiles.results import Grader\n"
        "g = Grader(None, lambda r: None)\n"
        "job = g.run(os.getpid)\n"
        f"if {started}: job.result(timeout=60)\n"
        "print(g.coach.pid(), flush=True)\n"  # the coach's pid
        "os.kill(os.getpid(), 9)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=90)
    coach = int(out.stdout.split()[0])

    def running() -> bool:
        status = Path(f"/proc/{coach}/status")
        try:
            return "\nState:\tZ" not in status.read_text()  # a zombie has exited
        except FileNotFoundError:
            return False

    deadline = time.monotonic() + 15
    while running() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not running()


def test_the_grades_take_their_share_of_a_core_and_no_more(monkeypatch):
    """After each grade the grader waits (1 / share - 1) times what the grade took, so that the coach uses
    at most its share of a core while games end together; closing the grader ends the wait."""
    import threading
    import time
    from datetime import datetime

    from yambak.server.profiles import results
    from yambak.store import ResultRow

    ran: list[float] = []

    def slow_grade(_record, _seat):  # a grade of a known length (the coach's own is tested above)
        ran.append(time.monotonic())
        time.sleep(0.1)
        return results.Grade(0.5, 10)

    class Stored:
        def __init__(self) -> None:
            self.grades: list[tuple[int, float | None, int]] = []

        def grade_op(self, result, accuracy, decisions, _rows):
            return lambda _conn: self.grades.append((result.id, accuracy, decisions))

        def run_now(self, op):  # the grader without the server's loop: a transaction of its own, now
            return op(None)

    monkeypatch.setattr(results, "grade", slow_grade)
    store = Stored()
    grader = results.Grader(store, lambda _r: None, processes=False, share=0.1)  # type: ignore[arg-type]
    rows = [
        ResultRow("p", "table", f"t{i}", 0, "yams", "yams", datetime(2026, 1, 1), 100, True, 1, True, id=i)
        for i in range(3)
    ]
    grader.submit(rows[:2], {"turns": []})
    assert grader.wait(10)
    assert store.grades == [(0, 0.5, 10), (1, 0.5, 10)]
    assert ran[1] - ran[0] >= 0.1 + 0.9  # the grade, then nine times as long idle (a tenth of a core)
    grader.submit(rows[2:], {"turns": []})
    deadline = time.monotonic() + 5
    while len(store.grades) < 3:  # the grade is done: the wait after it begins
        assert time.monotonic() < deadline, "the third grade never came"
        time.sleep(0.01)
    closing = threading.Thread(target=grader.close)
    began = time.monotonic()
    closing.start()
    assert grader.wait(5) and time.monotonic() - began < 0.5  # the wait (0.9 s) ended with the close
    closing.join()
    assert store.grades[-1] == (2, 0.5, 10)
