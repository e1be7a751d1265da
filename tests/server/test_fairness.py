"""Fair dice at a live table: the commitment shown from the start, players' nonces, the seed revealed at the end,
and `yambak verify` on the downloaded record."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .helpers import WS, create, legal


def _verify(path: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).with_name("yambak")
    return subprocess.run([str(exe), "verify", str(path)], capture_output=True, text=True, timeout=60)


def test_a_table_commits_to_its_dice_and_the_record_verifies(client, tmp_path):
    made = create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}])
    with client.websocket_connect(f"/ws/{made['id']}") as a, client.websocket_connect(f"/ws/{made['id']}") as b:
        ann, bram = WS(a), WS(b)
        _, start = ann.hello([made["tokens"]["0"]])
        bram.hello([made["tokens"]["1"]])
        shown = start["view"]["fairness"]
        assert shown["seed"] is None and len(shown["commitment"]) == 64 and shown["nonces"] == [] and shown["open"]
        out = ann.act(type="nonce", seat=0, v=0, nonce="0123456789abcdef" * 2)
        assert out["type"] == "event" and out["event"]["type"] == "nonce" and out["v"] == 1
        bram.recv()
        assert bram.act(type="nonce", seat=1, v=1, nonce="F00DF00DF00DF00D")["v"] == 2
        ann.recv()
        assert ann.act(type="nonce", seat=0, v=2, nonce="1" * 16)["code"] == "fair/already"
        assert ann.act(type="nonce", seat=1, v=2, nonce="1" * 16)["code"] == "auth/not-your-seat"
        assert ann.act(type="nonce", seat=0, v=2, nonce="xyz")["code"] == "protocol/malformed"
        view = client.get(f"/api/tables/{made['id']}").json()
        assert view["fairness"]["seed"] is None and len(view["fairness"]["nonces"]) == 2
        v = 2
        players = {0: ann, 1: bram}
        while True:
            seat = client.get(f"/api/tables/{made['id']}").json()["current"]
            me, other = players[seat], players[1 - seat]
            rolled = me.act(type="roll", seat=seat, v=v)
            other.recv()
            assert not rolled["view"]["fairness"]["open"]  # nonces are mixed in before the first roll only
            if v == 2:
                assert bram.act(type="nonce", seat=1, v=3, nonce="2" * 16)["code"] in ("fair/too-late", "fair/already")
            box = legal(rolled["view"]["players"][seat]["turn"])[0]
            scored = me.act(type="score", seat=seat, v=v + 1, box=box)
            other.recv()
            v += 2
            if scored["view"]["finished"]:
                break
    record = client.get(f"/t/{made['id']}/record.json").json()
    fairness = record["fairness"]
    assert fairness["commitment"] == shown["commitment"] and fairness["seed"] is not None
    assert fairness["nonces"] == [
        {"seat": 0, "nonce": "0123456789abcdef" * 2},
        {"seat": 1, "nonce": "f00df00df00df00d"},
    ]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    done = _verify(path)
    assert done.returncode == 0 and "verified" in done.stdout, done.stderr
    record["turns"][3]["rolls"][0][2] = record["turns"][3]["rolls"][0][2] % 6 + 1  # one die changed
    path.write_text(json.dumps(record))
    done = _verify(path)
    assert done.returncode == 1 and "turn 4, roll 1" in done.stderr
    sealed = {**record, "fairness": {**record["fairness"], "seed": None}}  # not revealed yet: not "tampered"
    path.write_text(json.dumps(sealed))
    done = _verify(path)
    assert done.returncode == 3 and "NOT VERIFIABLE YET" in done.stdout, (done.stdout, done.stderr)


def test_the_seed_is_not_in_anything_sent_before_the_end(client):
    made = create(client, "yams", [{"name": "Ann"}])
    with client.websocket_connect(f"/ws/{made['id']}") as s:
        ann = WS(s)
        ann.hello([made["tokens"]["0"]])
        ann.act(type="roll", seat=0, v=0)
    record = client.get(f"/t/{made['id']}/record.json").json()
    assert record["fairness"]["seed"] is None
    store = client.app.state.store
    secret = store.get_session(made["id"]).fairness["seed"]
    assert secret not in json.dumps(record) and secret not in client.get(f"/api/tables/{made['id']}").text


def test_another_players_nonce_does_not_make_a_roll_stale(client):
    made = create(client, "yams", [{"name": "Ann"}, {"name": "Bram"}])
    with client.websocket_connect(f"/ws/{made['id']}") as a, client.websocket_connect(f"/ws/{made['id']}") as b:
        ann, bram = WS(a), WS(b)
        ann.hello([made["tokens"]["0"]])
        bram.hello([made["tokens"]["1"]])
        assert bram.act(type="nonce", seat=1, v=0, nonce="ab" * 8)["v"] == 1
        ann.next()
        rolled = ann.act(type="roll", seat=0, v=0)  # sent before Ann's page saw Bram's nonce
        assert rolled["type"] == "event" and rolled["v"] == 2
        bram.recv()
        assert ann.act(type="score", seat=0, v=0, box=legal(rolled["view"]["players"][0]["turn"])[0])["code"] == (
            "stale/version"  # a real move in between still makes an action stale
        )
