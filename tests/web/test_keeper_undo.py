"""Undo on a kept sheet in Chromium, two phones (issue 34): the button names the sheet's last thing done, whoever
did it, and takes exactly that back, online (the server's engine) and offline (the phone's engine); the history
says what was undone, on both phones."""

from __future__ import annotations

from ..server.keeper_plan import Entry
from .conftest import SCREENSHOTS, api
from .test_keeper_browser import bearer, data, engine_ready, enter, needs_pyodide, phone, totals, writer

__all__ = ["needs_pyodide", "phone"]  # the fixtures, shared with the keeper's other browser tests


def undo_says(page, text):
    page.wait_for_function(f"() => document.getElementById('undo').textContent === {text!r}")


def undone_notes(page):
    page.click("#open-history")
    notes = page.locator("#drawer li.undone").all_inner_texts()
    page.click("#drawer-close")
    return notes


def test_undo_takes_back_the_last_thing_done_online_and_offline_on_two_phones(base_url, phone):
    sheet = api.post(
        f"{base_url}/api/keep", json={"name": "Undo", "preset": "yams", "players": ["Ann", "Bram"]}
    ).json()
    sid = sheet["id"]

    def post(body, v):
        r = api.post(
            f"{base_url}/api/keep/{sid}/entries", json={"id": f"undo-{v:04d}", "v": v, **body}, headers=bearer(sheet)
        )
        assert r.status_code == 200, r.text

    post({"kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 1, 2], "box": "sixes"}, 0)
    post({"kind": "dice", "seat": 1, "filled": 0, "dice": [5, 5, 5, 1, 2], "box": "fives"}, 1)
    post({"kind": "dice", "seat": 0, "filled": 1, "dice": [3, 3, 3, 1, 2], "box": "threes"}, 2)
    a = phone()
    a.goto(writer(base_url, sheet))
    a.wait_for_function("() => document.body.dataset.v === '3'")
    engine_ready(a)
    b = phone(locale="nl-BE")
    b.route("**/keep/worker.js", lambda route: route.abort())  # B has no engine: the server's view names it
    b.goto(writer(base_url, sheet))
    b.wait_for_function("() => document.body.dataset.v === '3' && document.body.dataset.readonly === '0'")
    undo_says(a, "Undo Ann's turn 2")

    # Online: a correction made elsewhere (Bram's entry) is the last thing done, not Ann's later entry.
    post({"kind": "fix", "turn": 2, "dice": [5, 5, 5, 5, 2], "roll": 1, "box": "fives"}, 3)
    a.wait_for_function("() => document.body.dataset.v === '4'")
    undo_says(a, "Undo Bram's correction of turn 1")
    undo_says(b, "Verbetering van beurt 1 van Bram ongedaan maken")
    assert totals(a) == [27, 20]
    a.click("#undo")
    a.wait_for_function("() => document.body.dataset.v === '5' && document.body.dataset.pending === '0'")
    assert totals(a) == [27, 15] and data(a, "entries") == "3"  # the correction went, every entry stayed
    undo_says(a, "Undo Ann's turn 2")
    assert undone_notes(a) == ["Undone: Bram's correction of turn 1"]
    b.wait_for_function("() => document.body.dataset.v === '5'")
    undo_says(b, "Beurt 2 van Ann ongedaan maken")

    # Offline: the phone's engine names and takes back the same way; a queued undo is never forgotten (a redo).
    post({"kind": "fix", "turn": 1, "dice": [6, 6, 6, 6, 2], "roll": 1, "box": "sixes"}, 5)
    a.wait_for_function("() => document.body.dataset.v === '6'")
    a.context.set_offline(True)
    undo_says(a, "Undo Ann's correction of turn 1")
    assert totals(a) == [33, 15]
    enter(a, Entry(1, "dice", "free.twos", (2, 2, 2, 1, 3)))
    undo_says(a, "Undo Bram's turn 2")
    a.click("#undo")  # not sent yet: forgotten
    a.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.entries === '3'")
    undo_says(a, "Undo Ann's correction of turn 1")
    a.click("#undo")  # queued: the phone's engine takes the correction back
    a.wait_for_function("() => document.body.dataset.pending === '1'")
    undo_says(a, "Undo Ann's turn 2")
    assert totals(a) == [27, 15]
    a.click("#undo")  # and then Ann's second entry, not the undo queued before it
    a.wait_for_function("() => document.body.dataset.pending === '2' && document.body.dataset.entries === '2'")
    undo_says(a, "Undo Bram's turn 1")
    assert totals(a) == [18, 15]
    assert undone_notes(a) == [  # the two undos not sent yet say what they took back, and that they wait
        "Undone: Ann's turn 2 · not sent yet",
        "Undone: Ann's correction of turn 1 · not sent yet",
        "Undone: Bram's correction of turn 1",
    ]
    a.screenshot(path=str(SCREENSHOTS / "keeper-undo-offline.png"))
    a.emulate_media(color_scheme="dark")
    a.click("#open-history")
    a.screenshot(path=str(SCREENSHOTS / "keeper-undo-history-dark.png"))
    a.click("#drawer-close")

    a.context.set_offline(False)
    # the queue goes out once the socket is back (the browser's own `online` event: a second one dispatched by
    # hand made the page reconnect under the first send, which then never ended)
    a.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '8'", timeout=30000)
    view = api.get(f"{base_url}/api/keep/{sid}").json()
    assert [p["total"] for p in view["players"]] == [18, 15] and len(view["history"]) == 2
    assert {k: view["last"][k] for k in ("kind", "n", "player", "turn")} == {
        "kind": "entry",
        "n": 2,
        "player": 1,
        "turn": 1,
    }
    assert [(u["kind"], u["player"]) for u in view["undone"]] == [("correction", 1), ("correction", 0), ("entry", 0)]
    b.wait_for_function("() => document.body.dataset.v === '8'")
    undo_says(b, "Beurt 1 van Bram ongedaan maken")
    assert totals(b) == [18, 15] and len(undone_notes(b)) == 3
    laptop = phone(locale="nl-BE", viewport={"width": 1280, "height": 800})
    laptop.goto(writer(base_url, sheet))
    laptop.wait_for_function("() => document.body.dataset.v === '8'")
    undo_says(laptop, "Beurt 1 van Bram ongedaan maken")  # the history beside the sheet says what was undone
    assert (
        laptop.locator("#side li.undone").all_inner_texts()[2] == "Ongedaan gemaakt: verbetering van beurt 1 van Bram"
    )
    laptop.screenshot(path=str(SCREENSHOTS / "keeper-undo-nl-laptop.png"))
