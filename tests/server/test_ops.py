"""What operators watch: health, readiness, Prometheus metrics, JSON log lines."""

from __future__ import annotations

import json
import logging

from yambak.server.logs import JsonFormatter

from .helpers import WS, create


def test_health_readiness_and_metrics(client):
    assert client.get("/healthz").json() == {"ok": True}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json() == {"ready": True, "database": True}
    made = create(client, "yams", [{"name": "Ann"}])
    before = client.get("/metrics").text
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        ann = WS(s)
        ann.hello([made["tokens"]["0"]])
        ann.act(type="roll", seat=0, v=0)
    text = client.get("/metrics").text
    counts = {line.split()[0]: float(line.split()[1]) for line in text.splitlines() if line.startswith("yambak_")}
    was = {line.split()[0]: float(line.split()[1]) for line in before.splitlines() if line.startswith("yambak_")}
    assert counts["yambak_actions_total"] == was.get("yambak_actions_total", 0) + 1
    assert counts["yambak_action_seconds_count"] >= 1
    assert "yambak_lease_moves_total" in counts and "yambak_forwarded_total" in counts
    assert "# TYPE yambak_action_seconds histogram" in text


def test_readiness_fails_when_the_database_does_not_answer(client, monkeypatch):
    def down() -> bool:
        raise RuntimeError("the database is down")

    monkeypatch.setattr(client.app.state.store, "ping", down)
    r = client.get("/readyz")
    assert r.status_code == 503 and r.json()["database"] is False


def test_json_log_lines():
    record = logging.LogRecord("yambak.cluster", logging.WARNING, __file__, 1, "lease %s lost", ("t1",), None)
    line = json.loads(JsonFormatter().format(record))
    assert line["level"] == "warning" and line["logger"] == "yambak.cluster" and line["msg"] == "lease t1 lost"
    assert {"ts", "node", "pid"} <= set(line)
