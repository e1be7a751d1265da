"""The trainer's JSON API (SQLite and PostgreSQL): positions without their answers, answers graded as the
coach grades them and rated as OpenSkill rates them, streaks and history with a profile, the device's own
rating without one, the day's position, and coded refusals of every bad request."""

from __future__ import annotations

from datetime import timedelta

import pytest
from openskill.models import PlackettLuce

from yambak.coach.advice import advise
from yambak.rules import load_ruleset
from yambak.server import Settings
from yambak.server.trainer.manager import TrainerManager
from yambak.strategy import calculator
from yambak.trainer import Puzzle, daily_puzzle, state_of

from .deal_helpers import ORIGIN, person
from .helpers import browser

SIZE = 6


@pytest.fixture
def settings(both_stores) -> Settings:
    return both_stores


@pytest.fixture
def trainer(client) -> TrainerManager:
    """A small pool (the default is larger), on the test's clock."""
    made = TrainerManager(client.app.state.store, client.app.state.settings.clock, size=SIZE, seed=2)
    client.app.state.trainer = made
    return made


def _puzzle(trainer: TrainerManager, position: dict) -> Puzzle:
    return next(p for p in trainer._pools[position["preset"]] if p.id == position["id"])


def _coach_loss(puzzle: Puzzle, choice: dict) -> float:
    """What the coach, asked directly about the same position, says the choice loses."""
    advice = advise(state_of(puzzle), 0, wins=False)
    top = max(o.value for o in advice.options)
    for o in advice.options:
        if choice["kind"] == "keep" and o.kind == "keep" and list(o.keep or ()) == sorted(choice["keep"]):
            return top - o.value
        if choice["kind"] == o.kind != "keep" and o.box == choice["box"] and o.strike == choice.get("strike", False):
            return top - o.value
    raise AssertionError(f"the coach has no option {choice}")


def _choice(option: dict) -> dict:
    return {k: option[k] for k in ("kind", "keep", "box", "strike") if k in option}


def test_an_anonymous_answer_is_graded_as_the_coach_does_and_rated_by_openskill(client, trainer) -> None:
    r = client.get("/api/train/yams/next")
    assert r.status_code == 200, r.text
    shown = r.json()
    position = shown["position"]
    assert shown["profile"] is False and "options" not in position and "record" not in position
    assert all("value" not in c and "loss" not in c for c in position["choices"])
    puzzle = _puzzle(trainer, position)
    model = PlackettLuce()
    for option in position["choices"]:
        body = {"position": position["id"], "choice": _choice(option), "rating": {"mu": 30.0, "sigma": 5.0}}
        r = client.post("/api/train/yams/answer", json={**body, "streak": 4, "best_streak": 6})
        assert r.status_code == 200, r.text
        out = r.json()
        loss = _coach_loss(puzzle, _choice(option))
        assert out["loss"] == pytest.approx(loss, abs=1e-4)
        assert out["solved"] == (loss <= 0.1)
        assert out["streak"] == (5 if out["solved"] else 0) and out["best_streak"] == 6
        assert [b["loss"] for b in out["best"]] == sorted(b["loss"] for b in out["best"])
        assert out["best"][0]["loss"] == 0 and len(out["best"]) == 3
        for shown in (out["chosen"], *out["best"]):  # the odds behind each keep shown: the calculator's
            odds = shown["odds"]
            assert (odds is None) == (shown["kind"] != "keep")
            if odds is not None:
                figures = calculator(load_ruleset("yams"), tuple(shown["keep"]), 3 - position["roll"], "free")
                got = {r["row"]: r.get("chance", r.get("expected_sum")) for r in odds["rows"]}
                assert got == pytest.approx(figures, abs=1e-4)
        teams = model.rate(
            [[model.rating(mu=30.0, sigma=5.0)], [model.rating()]], ranks=[1, 2] if out["solved"] else [2, 1]
        )
        me = teams[0][0]
        assert (out["rating"]["after"]["mu"], out["rating"]["after"]["sigma"]) == pytest.approx((me.mu, me.sigma))
    assert client.app.state.store.position_ratings([position["id"]]) == {}  # a device's answers rate no position


def test_a_profiles_answers_rate_it_and_the_position_and_make_its_history(client, trainer) -> None:
    ann = person(client, "Ann")
    model = PlackettLuce()
    me = model.rating()
    streaks, puzzles = [], []
    for solve in (True, False, True):
        position = ann.get("/api/train/yams/next").json()["position"]
        puzzle = _puzzle(trainer, position)
        assert puzzle not in puzzles  # a position answered is not offered again while others are new
        puzzles.append(puzzle)
        choice = (puzzle.best.choice if solve else puzzle.obvious).to_dict()
        out = ann.post("/api/train/yams/answer", json={"position": puzzle.id, "choice": choice}).json()
        assert out["solved"] == solve and out["rated"] is True
        teams = model.rate([[me], [model.rating()]], ranks=[1, 2] if solve else [2, 1])
        me, it = teams[0][0], teams[1][0]
        assert (out["rating"]["after"]["mu"], out["rating"]["after"]["sigma"]) == pytest.approx((me.mu, me.sigma))
        assert (out["position_rating"]["mu"], out["position_rating"]["sigma"]) == pytest.approx((it.mu, it.sigma))
        stored = client.app.state.store.position_ratings([puzzle.id])[puzzle.id]
        assert stored == pytest.approx((it.mu, it.sigma, 1, int(solve)))
        streaks.append((out["streak"], out["best_streak"]))
    assert streaks == [(1, 1), (0, 1), (1, 1)]
    assert ann.get("/api/train/yams/next").json()["streak"] == 1
    # a second try at a position knows the answer: graded and kept, not rated (nor the streak, nor the position)
    again = puzzles[1]
    out = ann.post(
        "/api/train/yams/answer",
        json={"position": again.id, "choice": again.best.choice.to_dict(), "rating": {"mu": 900.0, "sigma": 1.0}},
    ).json()
    assert out["solved"] and out["rated"] is False and out["streak"] == 1
    assert out["rating"]["before"] == out["rating"]["after"] and out["rating"]["after"]["mu"] == pytest.approx(me.mu)
    assert client.app.state.store.position_ratings([again.id])[again.id][2] == 1
    history = ann.get("/api/train/history", params={"preset": "yams"}).json()
    assert [(a["position"], a["solved"]) for a in history["answers"]] == [
        (again.id, True), (puzzles[2].id, True), (again.id, False), (puzzles[0].id, True),
    ]  # the latest first  # fmt: skip
    assert history["answers"][2]["loss"] == pytest.approx(again.obvious_loss, abs=1e-4)
    assert history["answers"][3]["choice"] == puzzles[0].best.choice.to_dict()
    [rating] = history["ratings"]
    assert rating["answers"] == 3 and rating["solved"] == 2 and rating["streak"] == 1 and rating["best_streak"] == 1
    assert rating["mu"] == pytest.approx(me.mu)
    assert ann.get("/api/train/history", params={"preset": "yamb"}).json() == {"ratings": [], "answers": []}
    # deleting the profile deletes its trainer rows
    pid = ann.get("/api/me").json()["profile"]["id"]
    assert ann.delete("/api/me", headers=ORIGIN).status_code in (200, 204)
    store = client.app.state.store
    assert store.trainer_history(pid) == [] and store.trainer_ratings(pid) == []


def test_the_daily_position_is_everybodys_and_changes_with_the_day(client, trainer, clock) -> None:
    other = browser(client)
    first = client.get("/api/train/yams/daily").json()
    assert other.get("/api/train/yams/daily").json() == first
    assert first["date"] == clock.now.date().isoformat()
    pool = trainer._pools["yams"]
    assert first["position"]["id"] == daily_puzzle(pool, clock.now.date()).id
    assert "options" not in first["position"]
    days = set()
    for _ in range(10):
        clock.now += timedelta(days=1)
        days.add(client.get("/api/train/yams/daily").json()["position"]["id"])
    assert len(days) > 1
    position = client.get(f"/api/train/yams/positions/{first['position']['id']}").json()["position"]
    assert position == first["position"]


def test_an_estimate_ruleset_says_so(client, trainer) -> None:
    position = client.get("/api/train/yamb/next").json()["position"]
    assert position["exact"] is False and position["preset"] == "yamb"
    puzzle = _puzzle(trainer, position)
    choice = puzzle.obvious.to_dict()
    out = client.post(
        "/api/train/yamb/answer", json={"position": puzzle.id, "choice": choice, "rating": {"mu": 25, "sigma": 8}}
    ).json()
    assert out["exact"] is False and out["loss"] == pytest.approx(_coach_loss(puzzle, choice), abs=1e-4)


@pytest.mark.usefixtures("trainer")
def test_bad_requests_are_refused_with_a_code(client) -> None:
    position = client.get("/api/train/yams/next").json()["position"]
    good = {"position": position["id"], "choice": _choice(position["choices"][0]), "rating": {"mu": 25, "sigma": 8}}
    refused = [
        (client.get("/api/train/nope/next"), 404, "train/preset"),
        (client.get("/api/train/nope/daily"), 404, "train/preset"),
        (client.get("/api/train/yams/positions/nope"), 404, "train/position"),
        (client.get("/api/train/yams/next", params={"mu": 30}), 400, "train/rating"),
        (client.get("/api/train/yams/next", params={"mu": 1e9, "sigma": 1}), 422, "input/invalid"),
        (client.get("/api/train/yams/next", params={"mu": "nan", "sigma": 1}), 422, "input/invalid"),
        (client.get("/api/train/yams/next", params={"mu": 25, "sigma": 0}), 422, "input/invalid"),
        (client.get("/api/train/history"), 401, "profile/none"),
        (client.get("/api/train/history", params={"limit": 0}), 422, "input/invalid"),
    ]
    post = lambda body, preset="yams": client.post(f"/api/train/{preset}/answer", json=body)  # noqa: E731
    refused += [
        (post({**good, "position": "nope"}), 404, "train/position"),
        (post(good, "nope"), 404, "train/preset"),
        (post({**good, "choice": {"kind": "pass"}}), 400, "train/choice"),
        (post({**good, "choice": {"kind": "keep", "keep": [9]}}), 400, "train/choice"),
        (post({**good, "choice": {"kind": "box", "box": "nowhere"}}), 400, "train/not-a-choice"),
        (post({k: v for k, v in good.items() if k != "rating"}), 400, "train/rating"),
        (post({**good, "rating": {"mu": 25}}), 422, "input/invalid"),
        (post({**good, "rating": {"mu": 25, "sigma": -1}}), 422, "input/invalid"),
        (post({**good, "rating": {"mu": "25", "sigma": 8}}), 422, "input/invalid"),
        (post({**good, "streak": -1}), 422, "input/invalid"),
        (post({**good, "extra": 1}), 422, "input/invalid"),
        (post({**good, "position": 5}), 422, "input/invalid"),
        (post({**good, "choice": "keep"}), 422, "input/invalid"),
        (post({**good, "position": "x" * 33}), 422, "input/invalid"),
        (client.post("/api/train/yams/answer", content=b"{not json", headers={"content-type": "application/json"}),
         422, "input/invalid"),
    ]  # fmt: skip
    for r, status, code in refused:
        assert r.status_code == status, (r.request.url, r.text)
        assert r.json()["code"] == code, r.text
    assert post(good).status_code == 200  # and nothing refused changed anything
    assert client.app.state.store.position_ratings([position["id"]]) == {}


def test_the_page_is_served_in_the_readers_language(client) -> None:
    r = client.get("/train", params={"preset": "yamb"}, headers={"accept-language": "nl"})
    assert r.status_code == 200 and "Volgende positie" in r.text and '"preset": "yamb"' in r.text
    r = client.get("/train", params={"preset": "nope"})  # an unknown preset: the default one
    assert r.status_code == 200 and "Next position" in r.text and '"preset": "yams"' in r.text


def test_a_pool_made_in_the_coachs_process_is_the_one_made_here(tmp_path) -> None:
    """The server generates pools in a process of their own: the positions cross back whole and equal."""
    import asyncio

    from yambak.server.common.coach import CoachPool
    from yambak.store import Store
    from yambak.trainer import generate_pool

    store, coach = Store(f"sqlite:///{tmp_path}/pool.db"), CoachPool(True, "yambak-trainer-test")
    try:
        made = TrainerManager(store, size=3, seed=5, coach=coach)
        pool = asyncio.run(made.pool("yams"))
        assert coach.pid() is not None
        assert pool == generate_pool(made.spec("yams")) and len(pool) == 3
    finally:
        coach.close()
        store.close()


def test_a_ruleset_without_positions_says_so(client) -> None:
    """A pool where no position reached the threshold (none does on the presets at the real one; no choice
    loses a billion points, so the generator's games find none here): a coded 404, never a traceback."""
    client.app.state.trainer = TrainerManager(client.app.state.store, size=1, seed=2, threshold=1e9)
    for path in ("/api/train/yams/next", "/api/train/yams/daily", "/api/train/yams/positions/x"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["code"] == "train/empty-pool", r.text


def test_a_pool_that_cannot_be_made_is_a_coded_503(client, monkeypatch) -> None:
    import yambak.server.trainer.manager as manager

    def broken(_spec: object) -> None:
        raise RuntimeError("the coach's process died")

    monkeypatch.setattr(manager, "_generated", broken)
    client.app.state.trainer = TrainerManager(client.app.state.store, size=2, seed=99)
    r = client.get("/api/train/kniffel/next")
    assert r.status_code == 503 and r.json()["code"] == "train/unavailable", r.text


@pytest.mark.usefixtures("trainer")
def test_an_answer_is_graded_off_the_event_loop(client, monkeypatch) -> None:
    """Grading a keep computes odds (tenths of a second): never on the thread that runs the event loop."""
    import threading

    import yambak.server.trainer.manager as manager

    graded_on: list[int] = []
    real = manager.grade

    def grade(*args: object, **kwargs: object) -> object:
        graded_on.append(threading.get_ident())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    loop_thread: list[int] = []
    real_answer = TrainerManager.answer

    async def answer(self: TrainerManager, *args: object, **kwargs: object) -> object:
        loop_thread.append(threading.get_ident())
        return await real_answer(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(manager, "grade", grade)
    monkeypatch.setattr(TrainerManager, "answer", answer)
    position = client.get("/api/train/yams/next").json()["position"]
    choice = _choice(position["choices"][0])
    body = {"position": position["id"], "choice": choice, "rating": {"mu": 30.0, "sigma": 5.0}}
    r = client.post("/api/train/yams/answer", json=body)
    assert r.status_code == 200, r.text
    assert graded_on and loop_thread and graded_on[0] != loop_thread[0]


def test_the_trainers_coach_is_closed_at_the_servers_stop(settings) -> None:
    from fastapi.testclient import TestClient

    from yambak.server import create_app

    with TestClient(create_app(settings), base_url="http://127.0.0.1") as c:
        assert c.get("/api/train/history").status_code == 401  # a trainer request makes the trainer
        coach = c.app.state.trainer.coach
        assert coach is not None and not coach._closed
    assert coach._closed


def test_the_page_reads_the_presets_once_a_language(client, monkeypatch) -> None:
    import yambak.server.routes.trainer as routes

    read: list[str] = []
    real = routes.preset_data

    def preset_data(preset: str) -> object:
        read.append(preset)
        return real(preset)

    monkeypatch.setattr(routes, "preset_data", preset_data)
    routes._presets.cache_clear()
    for _ in range(3):
        assert client.get("/train", params={"preset": "yamb"}, headers={"accept-language": "de"}).status_code == 200
    assert sorted(read) == sorted(routes.preset_ids())
