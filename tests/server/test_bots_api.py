"""Bots move on tables made through the JSON API, and scheduling never fails silently."""

from __future__ import annotations

import asyncio
import logging
import threading
import time

from yambak.server.settings import Settings
from yambak.server.tables.manager import TableManager
from yambak.store import Store

from .helpers import create


def _wait(client, table_id, until, seconds=20.0):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = client.get(f"/api/tables/{table_id}").json()
        if until(view):
            return view
        time.sleep(0.05)
    raise AssertionError(f"timed out: {view['v']}")


def test_a_bot_moves_first_on_a_table_made_by_the_api(client):
    made = create(client, "yams", [{"kind": "bot", "bot": "easy"}, {"kind": "human", "name": "Ann"}])
    view = _wait(client, made["id"], lambda v: v["current"] == 1)
    assert view["v"] >= 2 and view["players"][0]["turns_done"] == 1


def test_a_bot_only_table_plays_to_the_end(client):
    made = create(client, "yatzy", [{"kind": "bot", "bot": "easy"}, {"kind": "bot", "bot": "greedy"}])
    view = _wait(client, made["id"], lambda v: v["finished"], seconds=60)
    assert all(p["full"] for p in view["players"])


def test_scheduling_from_a_worker_thread_hands_the_bots_to_the_loop(tmp_path):
    async def main() -> None:
        manager = TableManager(Store(f"sqlite:///{tmp_path}/t.db"), Settings(bot_delay=0.0))
        manager.loop = asyncio.get_running_loop()
        table, _ = manager.create("t", "yams", {}, [{"kind": "bot", "bot": "easy"}, {"name": "Ann"}])
        thread = threading.Thread(target=manager.schedule_bots, args=(table,))
        thread.start()
        thread.join()
        for _ in range(200):
            if table.state.current == 1:
                break
            await asyncio.sleep(0.01)
        assert table.state.current == 1 and table.version >= 2
        manager.store.close()

    asyncio.run(main())


def test_scheduling_without_a_loop_is_logged(tmp_path, caplog):
    manager = TableManager(Store(f"sqlite:///{tmp_path}/t.db"), Settings(bot_delay=0.0))
    table, _ = manager.create("t", "yams", {}, [{"kind": "bot", "bot": "easy"}])
    with caplog.at_level(logging.ERROR, logger="yambak.server"):
        manager.schedule_bots(table)
    assert "no event loop" in caplog.text
    manager.store.close()


def test_the_table_tells_when_a_bot_plays_on_a_first_estimate(client, tmp_path, monkeypatch):
    """House rules nobody fitted yet: the hard bot plays on the prior, and the view says so for that seat
    (the page shows it under the table's settings); a medium bot, or hard on yams (the exact table), not."""
    monkeypatch.setenv("YAMBAK_CACHE_DIR", str(tmp_path))  # no fit cached for these rules
    rules = {
        "id": "two-rows",
        "rows": [{"id": "chance", "kind": "sum"}, {"id": "sixes", "kind": "upper", "face": 6}],
        "columns": [{"id": "down", "order": "down"}, {"id": "free"}],
    }
    seats = [{"name": "Ann"}, {"kind": "bot", "bot": "hard"}, {"kind": "bot", "bot": "medium"}]
    made = create(client, None, seats, rules=rules)
    view = client.get(f"/api/tables/{made['id']}").json()
    assert [p["bot_model"] for p in view["players"]] == [None, "prior", None]
    made = create(client, "yams", seats[:2])
    assert [p["bot_model"] for p in client.get(f"/api/tables/{made['id']}").json()["players"]] == [None, None]
