"""A ranked three-player table in Chromium, against the app in this process (uvicorn in a thread, the
test's clock): Ann asks to play ranked from the ranked page, Bram and Cy are seated at her table by the
same button's API, the game starts once the table is full, Ann plays by clicks (Bram and Cy on their own
sockets), and the results page shows every player's rating change; then the ladder. Screenshots of the
results on a laptop (1280 x 800) and of the ladder on a phone (390 x 844)."""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta

import httpx
from websockets.sync.client import connect

from tests.server.helpers import legal
from tests.server.profile_helpers import Clock, profile_settings

from .conftest import SCREENSHOTS, app_in_thread
from .table_helpers import LAPTOP, PHONE, no_sideways_scroll, play_turn, ready, wait_my_turn_or_end


def _player(base: str, made: dict, errors: list) -> None:
    """A player on their own socket: roll once and fill the first box offered, at each of their turns."""
    seat = int(next(iter(made["tokens"])))
    try:
        with connect(base.replace("http", "ws") + f"/ws/{made['id']}") as ws:
            ws.send(json.dumps({"type": "hello", "tokens": list(made["tokens"].values())}))
            while True:
                msg = json.loads(ws.recv(timeout=120))
                view = msg.get("view")
                if view is None:
                    continue
                if view["finished"]:
                    return
                if view["current"] == seat and not view["open_seats"] and msg["type"] in ("state", "event", "events"):
                    turn = view["players"][seat]["turn"]
                    if turn is None:
                        ws.send(json.dumps({"type": "roll", "seat": seat, "v": msg["v"]}))
                    else:
                        ws.send(json.dumps({"type": "score", "seat": seat, "v": msg["v"], "box": legal(turn)[0]}))
    except Exception as exc:  # noqa: BLE001 - reported by the test
        errors.append(exc)


def test_a_ranked_three_player_table_shows_every_rating_change(tmp_path, new_page, monkeypatch):
    import yambak.server.ranked.fairplay as fairplay

    # The players here fill the first box offered: once graded, the fair-play review (tested on its own in
    # tests/server/test_ranked.py) would take their rises back and empty the ladder this page shows.
    monkeypatch.setattr(fairplay, "thrown", lambda *_: False)
    clock = Clock(datetime(2026, 3, 2, 12, 0, tzinfo=UTC))
    settings = profile_settings(tmp_path, clock, http_burst=1000, bot_delay=0.0)
    with app_in_thread(settings) as base:
        ann = new_page(viewport=LAPTOP)
        assert ann.request.post(base + "/api/me", data={"name": "Ann"}, headers={"origin": base}).ok
        others = {  # each from an address of its own (via the local proxy header): a shared one never rates
            n: httpx.Client(base_url=base, headers={"origin": base, "x-forwarded-for": f"10.0.0.{i}"})
            for i, n in enumerate(("Bram", "Cy"), start=1)
        }
        for name, c in others.items():
            assert c.post("/api/me", json={"name": name}).status_code == 201
        clock.now += timedelta(days=1)  # a day old: their games rate

        ann.goto(base + "/ranked?preset=yams")
        ann.select_option(".ranked-play select[name=players]", "3")
        ann.click(".ranked-play button[type=submit]")
        ann.wait_for_url("**/t/*")
        ann.wait_for_selector("text=2 more players to come")  # the game waits for a full table
        table = ann.url.rsplit("/", 1)[1]
        errors: list = []
        threads = []
        for c in others.values():
            made = c.post("/api/ranked/yams/play", json={"players": 3}).json()
            assert made["id"] == table
            threads.append(threading.Thread(target=_player, args=(base, made, errors), daemon=True))
            threads[-1].start()
        ready(ann)
        while wait_my_turn_or_end(ann, timeout=60000):
            play_turn(ann, holds=0)
        ann.wait_for_selector("#ratings li >> nth=2")
        for t in threads:
            t.join(30)
        assert not errors, errors
        rows = ann.locator("#ratings li")
        texts = [rows.nth(i).inner_text() for i in range(3)]
        assert sorted(t.split(". ", 1)[1].split(" ")[0] for t in texts) == ["Ann", "Bram", "Cy"]
        assert all("0.0 →" in t and ("+" in t or "−" in t) for t in texts), texts  # each change, from 0.0
        ann.locator("#results").scroll_into_view_if_needed()
        ann.screenshot(path=str(SCREENSHOTS / "ranked-results-laptop.png"))

        phone = new_page(viewport=PHONE, touch=True)
        phone.goto(base + "/ranked?preset=yams")
        assert phone.locator(".ladder-established").count() == 0  # nobody has 10 rated games yet
        assert phone.locator(".ladder-provisional tbody tr").count() == 3  # provisional, all three, apart
        sw, cw = no_sideways_scroll(phone)
        assert sw <= cw, (sw, cw)
        phone.screenshot(path=str(SCREENSHOTS / "ranked-ladder-phone.png"), full_page=True)
