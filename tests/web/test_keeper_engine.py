"""The phone's engine computes what the server computes: random records of every preset (and of options and
modifiers that change the sheet) replayed in Chromium under Pyodide (Python 3.12, the package's own files from
/keep/engine.zip) and in CPython 3.11 on the server, compared number for number: every view (box scores,
written values, sums, bonuses, minimax, totals, match points, column winners, roll-offs, history), previews
of typed dice, zeros, correction targets and the statistics. One page and one engine for all of it."""

from __future__ import annotations

import json
import random

import pytest

from tests.conftest import missing_service, play_random
from yambak.engine import replay, state_to_record
from yambak.keeper import fix_options, preview, sheet_view, statistics, zero_boxes
from yambak.rules import load_ruleset, preset_ids
from yambak.server.keeper.bundle import pyodide_ready

from .conftest import api

VARIANTS = [
    ("yams", {}, []),
    ("yams", {}, ["six_dice"]),
    ("yatzy", {}, []),
    ("yams-fr", {"columns": 1}, []),
    ("yams-fr", {"columns": 3, "max_gt_min": False}, []),
    ("yams-fr", {}, []),
    ("yams-de", {"strict": True, "flat_bonus": True}, []),
    ("yams-de", {}, []),
    ("yammen", {}, []),
    ("yammen", {"ties": "share"}, []),
    ("yamb", {"four_kind": "four"}, []),
    ("yamb", {"extra": ["updown", "middle", "hand"]}, []),
    ("yamb-6", {}, []),
    ("yams", {"joker": "free"}, []),
    ("kniffel", {"extra_kniffels": True}, []),
    ("yacht", {}, []),
    ("generala", {}, []),
    ("maxi-yatzy", {}, []),
    ("kismet", {}, []),
    ("triple-yahtzee", {}, []),
    ("balut", {}, []),
]


def test_every_preset_is_covered():
    assert {v[0] for v in VARIANTS} == set(preset_ids())


def _requests():
    """(request for the phone's engine, the answer the server's CPython gives), for random records."""
    rng = random.Random(2024)
    out, finished = [], []
    for n, (preset, options, modifiers) in enumerate(VARIANTS):
        rules = load_ruleset({"preset": preset, "options": options, "modifiers": modifiers})
        for k, players in enumerate((3, 2)):
            steps = None if k == 0 else rng.randint(20, 80)  # a finished game, and one stopped mid-way
            state = play_random(rules, players, seed=1000 + 10 * n + k, steps=steps)
            record = state_to_record(state)
            record = type(record)(record.rules, record.players, record.turns, record.seed, record.rolloffs)
            data = record.to_dict()
            sheet = {
                "id": f"s{n}-{k}",
                "name": f"{preset} {k}",
                "v": len(record.turns),
                "record": data,
            }
            kept = replay(data)
            out.append(
                ({"op": "view", "sheet": sheet, "queue": []}, {"view": sheet_view(kept, **_meta(sheet)), "results": []})
            )
            if kept.finished:
                finished.append(data)
                continue
            dice = [rng.randint(1, 6) for _ in range(rules.rolled_dice)]
            roll = rng.randint(1, rules.rolls_per_turn)
            out.append(
                ({"op": "preview", "sheet": sheet, "queue": [], "dice": dice, "roll": roll}, preview(kept, dice, roll))
            )
            out.append(({"op": "zero", "sheet": sheet, "queue": []}, zero_boxes(kept)))
            turn = rng.randint(1, len(record.turns))
            fix = {"op": "fix_options", "sheet": sheet, "queue": [], "turn": turn, "dice": dice, "roll": roll}
            out.append((fix, fix_options(kept, turn, dice, roll)))
    out.append(({"op": "stats", "records": finished}, statistics(finished)))
    return out


def _meta(sheet):
    return {"id": sheet["id"], "name": sheet["name"], "v": sheet["v"]}


def _ask_all(page, requests):
    return page.evaluate(
        """async (requests) => {
        const engine = window.yambakEngine;
        const out = [];
        for (const r of requests) { const { op, ...rest } = r; out.push(await engine.call(op, rest)); }
        return out;
    }""",
        requests,
    )


@pytest.fixture
def phone_page(browser):
    if not pyodide_ready():
        missing_service("Pyodide is not in web/static/pyodide (make install fetches it)")
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    ctx.set_default_timeout(90000)
    yield ctx.new_page()
    ctx.close()


def test_the_phones_engine_computes_every_number_the_server_computes(base_url, phone_page):
    cases = _requests()
    page = phone_page
    page.goto(base_url + "/keep/")
    page.wait_for_function("() => document.body.dataset.engine === 'ready'")
    answers = _ask_all(page, [json.loads(json.dumps(request)) for request, _ in cases])
    assert len(answers) == len(cases)
    for (request, expected), answer in zip(cases, answers, strict=True):
        assert answer.pop("ok") is True, (request["op"], answer)
        assert answer == json.loads(json.dumps(expected)), (request["op"], request.get("sheet", {}).get("name"))

    # A sheet kept through the server's API: its view, as the server sends it, equals the phone's of its record.
    state = play_random(load_ruleset("yams"), 3, seed=77)  # the joker and its extra bonus included
    made = api.post(f"{base_url}/api/keep", json={"name": "API", "preset": "yams", "players": ["A", "B", "C"]}).json()
    filled = [0, 0, 0]
    for v, t in enumerate(state.history):
        body = {"id": f"api-entry-{v:04d}", "v": v, "kind": "dice", "seat": t.player, "filled": filled[t.player]}
        body.update(dice=list(t.rolls[-1]), roll=len(t.rolls), box=t.box)
        filled[t.player] += 1
        auth = {"authorization": f"Bearer {made['token']}"}
        assert api.post(f"{base_url}/api/keep/{made['id']}/entries", json=body, headers=auth).status_code == 200
    server = api.get(f"{base_url}/api/keep/{made['id']}").json()
    sheet = {
        "id": server["id"],
        "name": server["name"],
        "v": server["v"],
        "record": server["record"],
    }
    [answer] = _ask_all(page, [{"op": "view", "sheet": sheet, "queue": []}])
    assert answer["ok"] and answer["view"] == server
    assert server["finished"] and [p["total"] for p in server["players"]] == state.totals()
