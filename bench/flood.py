#!/usr/bin/env python3
"""Floods from one address against a busy server: does a victim's game slow down?

One `yambak serve` process (SQLite by default, `--db` for PostgreSQL) behind a trusted proxy's
X-Forwarded-For (the server trusts 127.0.0.1, as `FORWARDED_ALLOW_IPS` does behind nginx): a background
load of `--players` players (each an address of its own, two per yams table, a think time of about a
second, as bench/load.py plays), and a victim (an address of its own) playing a yams table of its own
without pause. Its median action-to-event is measured with the background alone, then during each
flood, every flood from the one address 203.0.113.66, with the server's default limits:

1. `hello`: 50 sockets to the victim's table, each sending `hello` 18 times a second (every hello once
   answered with the whole view);
2. `advise`: 20 sockets holding a seat at a yammen table with hints, asking the coach for advice as fast
   as the socket's rate limit lets them;
3. bots: three tables of the largest house rules a server takes (a 450-row sheet is refused first), two
   hard bots each.

Between floods the background runs alone again (its median is measured again: the goal is a victim at
most 2x its median without the flood). Prints, per phase: the victim's median and p90 action-to-event,
the background's median, the flood's sockets let in and refused, and the machine's load average.

    .venv/bin/python bench/flood.py [--players 300] [--phase 20] [--db postgresql+psycopg://...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import httpx  # noqa: E402
import websockets  # noqa: E402
from house_bot import sheet  # noqa: E402
from load import choose, cpu_seconds  # noqa: E402

from tests.server.helpers import ServerProcess  # noqa: E402

ATTACKER = "203.0.113.66"
VICTIM = "192.0.2.10"


class Lat:
    """Action-to-event latencies, per phase."""

    def __init__(self) -> None:
        self.phase = "setup"
        self.by_phase: dict[str, list[float]] = {}
        self.refused: dict[str, int] = {}  # refusals of the player's actions, per phase

    def add(self, seconds: float) -> None:
        self.by_phase.setdefault(self.phase, []).append(seconds)


def ws_url(base: str, table: str) -> str:
    return base.replace("http", "ws") + f"/ws/{table}"


async def create(client: httpx.AsyncClient, base: str, address: str, **body: object) -> httpx.Response:
    return await client.post(base + "/api/tables", json=body, headers={"X-Forwarded-For": address})


async def player(base: str, table: str, tokens: list[str], address: str, think: float, lat: Lat,
                 stop: asyncio.Event, rng: random.Random) -> None:  # fmt: skip
    """Play the seats of `tokens` until the game ends or `stop`; every action's latency to its event."""
    async with websockets.connect(
        ws_url(base, table), additional_headers={"X-Forwarded-For": address}, max_size=2**22, ping_interval=None
    ) as ws:
        await ws.send(json.dumps({"type": "hello", "tokens": tokens}))
        mine: list[int] = []
        pending: float | None = None
        seen = 0
        while not stop.is_set():
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
            except TimeoutError:
                return
            kind = msg["type"]
            if kind == "welcome":
                mine = msg["seats"]
                continue
            if kind == "error":  # resync from the last version seen, after a moment (hellos are rate-limited)
                lat.refused[lat.phase] = lat.refused.get(lat.phase, 0) + 1
                pending = None
                await asyncio.sleep(0.5)
                await ws.send(json.dumps({"type": "hello", "since": seen}))
                continue
            if kind in ("event", "events", "state"):
                seen = msg["v"]
            if kind not in ("event", "events", "state") or "view" not in msg:
                continue
            if kind == "event" and pending is not None and msg["event"]["player"] in mine:
                lat.add(time.perf_counter() - pending)
                pending = None
            view = msg["view"]
            if view["finished"]:
                return
            if pending is not None:
                continue
            seat = next((s for s in view["to_act"] if s in mine), None)
            if seat is None:
                continue
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            pending = time.perf_counter()
            action = choose(view["players"][seat]["turn"], rng)
            await ws.send(json.dumps({**action, "seat": seat, "v": msg["v"]}))


async def background(base: str, players: int, think: float, lat: Lat, stop: asyncio.Event) -> None:
    """`players` players, two per table, each an address of its own; a finished game makes a new table."""

    async def pair(i: int) -> None:
        rng = random.Random(i)
        await asyncio.sleep(rng.uniform(0, 5))  # they arrive over five seconds
        async with httpx.AsyncClient(timeout=60) as client:
            while not stop.is_set():
                a, b = f"10.{i // 250}.{i % 250}.1", f"10.{i // 250}.{i % 250}.2"
                r = await create(client, base, a, name="bg", preset="yams", listed=False,
                                 seats=[{"name": "A"}, {"name": "B"}])  # fmt: skip
                made = r.json()
                await asyncio.gather(
                    player(base, made["id"], [made["tokens"]["0"]], a, think, lat, stop, rng),
                    player(base, made["id"], [made["tokens"]["1"]], b, think, lat, stop, rng),
                )

    await asyncio.gather(*(pair(i) for i in range(players // 2)))


async def victim(base: str, lat: Lat, stop: asyncio.Event, tables: list[str]) -> None:
    """The victim plays both seats of a yams table of its own, a tenth of a second between actions."""
    rng = random.Random(99)
    async with httpx.AsyncClient(timeout=60) as client:
        while not stop.is_set():
            r = await create(client, base, VICTIM, name="victim", preset="yams", listed=False,
                             seats=[{"name": "V"}, {"name": "W"}])  # fmt: skip
            made = r.json()
            tables.append(made["id"])
            await player(base, made["id"], list(made["tokens"].values()), VICTIM, 0.1, lat, stop, rng)


class Flood:
    """What the attacker did: sockets let in, refused, messages sent."""

    def __init__(self) -> None:
        self.accepted = self.refused = self.sent = 0
        self.notes: list[str] = []

    async def socket(self, base: str, table: str, first: list[dict], then: dict | None, rate: float,
                     stop: asyncio.Event) -> None:  # fmt: skip
        try:
            async with websockets.connect(
                ws_url(base, table), additional_headers={"X-Forwarded-For": ATTACKER}, max_size=2**22,
                ping_interval=None,
            ) as ws:  # fmt: skip
                for msg in first:
                    await ws.send(json.dumps(msg))
                reader = asyncio.create_task(self._drain(ws))
                try:
                    while not stop.is_set() and then is not None:
                        await ws.send(json.dumps(then))
                        self.sent += 1
                        await asyncio.sleep(1 / rate)
                    await stop.wait()
                finally:
                    reader.cancel()
        except websockets.ConnectionClosed as exc:
            if exc.rcvd is not None and exc.rcvd.code == 4409:
                self.refused += 1
                return
        except OSError:
            return

    async def _drain(self, ws: websockets.ClientConnection) -> None:
        counted = False
        async for raw in ws:
            msg = json.loads(raw)
            if not counted and msg.get("type") == "welcome":
                self.accepted += 1
                counted = True


async def hello_flood(base: str, table: str, stop: asyncio.Event, flood: Flood) -> None:
    hello = {"type": "hello"}
    await asyncio.gather(*(flood.socket(base, table, [hello], hello, 18, stop) for _ in range(50)))


async def advise_flood(base: str, stop: asyncio.Event, flood: Flood) -> None:
    async with httpx.AsyncClient(timeout=60) as client:
        r = await create(client, base, ATTACKER, name="coach", preset="yammen", listed=False, hints=True,
                         seats=[{"name": "A"}, {"name": "B"}])  # fmt: skip
        made = r.json()
    token = made["tokens"]["0"]
    async with websockets.connect(ws_url(base, made["id"]), additional_headers={"X-Forwarded-For": ATTACKER}) as ws:
        await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
        await ws.recv(), await ws.recv()
        await ws.send(json.dumps({"type": "roll", "seat": 0, "v": 0}))
        await ws.recv()
    ask = {"type": "advise", "seat": 0, "v": 1}
    first = [{"type": "hello", "tokens": [token]}]
    await asyncio.gather(*(flood.socket(base, made["id"], first, ask, 19, stop) for _ in range(20)))


async def bot_flood(base: str, stop: asyncio.Event, flood: Flood) -> None:
    bots = [{"kind": "bot", "bot": "hard"}, {"kind": "bot", "bot": "hard"}]
    async with httpx.AsyncClient(timeout=60) as client:
        huge = {"id": "huge", "name": "Huge", "rows": [{"id": f"r{i}", "kind": "sum"} for i in range(450)],
                "columns": [{"id": "c"}]}  # fmt: skip
        r = await create(client, base, ATTACKER, name="huge", rules=huge, seats=bots)
        flood.notes.append(f"450-row house rules: {r.status_code} {r.json().get('code')}")
        for _ in range(3):
            r = await create(client, base, ATTACKER, name="bots", rules=sheet(16, 8, special=True), seats=bots,
                             listed=False)  # fmt: skip
            flood.notes.append(f"largest allowed house rules, two hard bots: {r.status_code}")
    await stop.wait()


async def run(args: argparse.Namespace, server: ServerProcess) -> list[tuple[str, dict]]:
    lat_bg, lat_victim = Lat(), Lat()
    stop_all = asyncio.Event()
    tables: list[str] = []
    tasks = [
        asyncio.create_task(background(server.base, args.players, args.think, lat_bg, stop_all)),
        asyncio.create_task(victim(server.base, lat_victim, stop_all, tables)),
    ]
    await asyncio.sleep(args.warmup)
    rows = []
    floods = {"hello": hello_flood, "advise": advise_flood, "bots": bot_flood}
    for name in ["quiet", "hello", "quiet again", "advise", "quiet again ", "bots", "quiet at last"]:
        for lat in (lat_bg, lat_victim):
            lat.phase = name
        stop, flood = asyncio.Event(), Flood()
        cpu0, load0 = cpu_seconds(server.pid), os.getloadavg()[0]
        attack = None
        if name in floods:
            fn = floods[name]
            attack = asyncio.create_task(fn(server.base, tables[-1], stop, flood) if name == "hello" else
                                         fn(server.base, stop, flood))  # fmt: skip
        await asyncio.sleep(args.phase)
        stop.set()
        if attack is not None:
            await attack
        rows.append((name, {
            "victim": sorted(lat_victim.by_phase.get(name, [])),
            "refused": lat_victim.refused.get(name, 0) + lat_bg.refused.get(name, 0),
            "background": sorted(lat_bg.by_phase.get(name, [])),
            "cpu": (cpu_seconds(server.pid) - cpu0) / args.phase,
            "load": (load0, os.getloadavg()[0]),
            "flood": flood,
        }))  # fmt: skip
        await asyncio.sleep(2)  # the flood's sockets close
    stop_all.set()
    for t in tasks:
        t.cancel()
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=300, help="background players (two per table)")
    p.add_argument("--think", type=float, default=1.0, help="background players' mean think time, seconds")
    p.add_argument("--phase", type=float, default=20.0, help="seconds per phase")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds before the first phase")
    p.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="yambak-flood-")
    db = args.db or f"sqlite:///{tmp}/flood.db"
    # the server's own limits (the flood's address has its defaults); the background's create rate is raised
    env = {"YAMBAK_HTTP_RATE": "1000", "YAMBAK_HTTP_BURST": "1000", "YAMBAK_MODEL_FIT": "off"}
    server = ServerProcess(db, bot_delay=0.6, env=env, log_path=f"{tmp}/server.log")
    try:
        server.start()
        try:
            import uvloop

            uvloop.install()
        except ImportError:
            pass
        rows = asyncio.run(run(args, server))
    finally:
        server.stop()
    print(f"server: 1 process on {db.split(':')[0]}; {args.players} background players; logs in {tmp}")
    print(f"{'phase':14s} {'victim p50':>10s} {'p90':>8s} {'n':>5s} {'x quiet':>8s} {'bg p50':>8s} "
          f"{'server CPU':>10s} {'load avg':>11s}  flood")  # fmt: skip
    worst = 0.0
    medians = [statistics.median(r["victim"]) * 1000 if r["victim"] else float("nan") for _, r in rows]
    for i, (name, r) in enumerate(rows):
        v, b = r["victim"], r["background"]
        med = medians[i]
        p90 = v[int(0.9 * len(v))] * 1000 if v else float("nan")
        ratio = ""
        if not name.startswith("quiet"):  # against the background alone, just before and just after
            base = (medians[i - 1] + medians[i + 1]) / 2
            ratio = f"{med / base:.2f}x"
            worst = max(worst, med / base)
        f: Flood = r["flood"]
        said = f"let in {f.accepted}, refused {f.refused}, sent {f.sent}" if not name.startswith("quiet") else ""
        if f.notes:
            said += "; " + "; ".join(f.notes)
        if r["refused"]:
            said += f"; players' actions refused: {r['refused']}"
        bmed = statistics.median(b) * 1000 if b else float("nan")
        print(f"{name:14s} {med:8.1f}ms {p90:6.1f}ms {len(v):5d} {ratio:>8s} {bmed:6.1f}ms "
              f"{r['cpu'] * 100:8.0f}% {r['load'][0]:5.1f}-{r['load'][1]:<5.1f}  {said}")  # fmt: skip
    print(f"worst flood: the victim's median at {worst:.2f}x its median without it, the mean of the quiet phases")
    print("before and after the flood (goal: at most 2x)")
    return 0 if worst <= 2 else 1


if __name__ == "__main__":
    raise SystemExit(main())
