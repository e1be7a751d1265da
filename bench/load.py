#!/usr/bin/env python3
"""Load test of the web table: a real `yambak serve` on loopback, many bot clients over WebSocket.

Each client holds one seat of a two-seat table and plays whole games: roll, then the box with the
highest preview (announcing or rolling on when none is offered), after a think time
(uniform 0.5x-1.5x of --think). Reports the
concurrent players held, accepted actions per second and p50/p99 action-to-broadcast latency (from
sending an action to receiving its event), then checks every table's stored log against what the
clients saw: no lost and no duplicated action.

    .venv/bin/python bench/load.py --players 500 --games 1 --think 1.0
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import websockets  # noqa: E402

from tests.server.helpers import server_process  # noqa: E402
from yambak.engine import replay  # noqa: E402
from yambak.store import Store  # noqa: E402


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.steady: list[float] = []  # once every player is connected
        self.all_in = False
        self.target = 0
        self.errors: list[str] = []
        self.connected = 0
        self.peak = 0
        self.accepted: dict[str, set[int]] = {}


async def play_seat(
    base: str, table: str, seat: int, token: str, think: float, stats: Stats, done: asyncio.Event
) -> None:
    url = base.replace("http", "ws") + f"/ws/{table}"
    await asyncio.sleep(random.uniform(0, think))  # players arrive over the first think time
    async with websockets.connect(url, max_size=2**22, open_timeout=60, ping_interval=None) as ws:
        stats.connected += 1
        stats.peak = max(stats.peak, stats.connected)
        if stats.connected == stats.target:
            stats.all_in = True
        await ws.send(json.dumps({"type": "hello", "tokens": [token]}))
        view, v = None, 0
        pending: float | None = None
        mine = stats.accepted.setdefault(table, set())
        while True:
            msg = json.loads(await ws.recv())
            if msg["type"] == "error":
                stats.errors.append(msg["code"])
                pending = None
            if msg["type"] in ("event", "events", "state"):
                view, v = msg["view"], msg["v"]
                if msg["type"] == "event" and msg["event"]["player"] == seat and pending is not None:
                    stats.latencies.append(time.perf_counter() - pending)
                    if stats.all_in:
                        stats.steady.append(stats.latencies[-1])
                    pending = None
                    if msg["v"] in mine:
                        stats.errors.append(f"duplicate v{msg['v']}")
                    mine.add(msg["v"])
            if view is None or pending is not None:
                continue
            if view["finished"]:
                break
            if seat not in view["to_act"]:
                continue
            turn = view["players"][seat]["turn"]
            if turn is None:
                action = {"type": "roll"}
            elif turn["preview"]:
                best = max(turn["preview"], key=lambda b: turn["preview"][b])
                action = {"type": "score", "box": best}
            elif turn["announce"]:
                action = {"type": "announce", "box": turn["announce"][0]}
            else:
                action = {"type": "roll"}
            if think:  # people do not act in lockstep: think 0.5x to 1.5x the mean
                await asyncio.sleep(think * random.uniform(0.5, 1.5))
            pending = time.perf_counter()
            await ws.send(json.dumps({**action, "seat": seat, "v": v}))
        stats.connected -= 1
    done.set()


TOKENS: list[tuple[str, list[tuple[int, str]]]] = []


async def create_tables(base: str, n: int, preset: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        for _ in range(n):
            r = await client.post(
                "/api/tables",
                json={"name": "load", "preset": preset, "listed": False, "seats": [{"name": "A"}, {"name": "B"}]},
            )
            made = r.json()
            TOKENS.append((made["id"], [(int(s), t) for s, t in made["tokens"].items()]))


async def main_async(args: argparse.Namespace, base: str, stats: Stats) -> float:
    await create_tables(base, args.players // 2 * args.games, args.preset)
    start = time.perf_counter()
    per_game = args.players // 2
    for g in range(args.games):
        batch = TOKENS[g * per_game : (g + 1) * per_game]
        await asyncio.gather(
            *[play_seat(base, t, s, tok, args.think, stats, asyncio.Event()) for t, seats in batch for s, tok in seats]
        )
    return time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=500, help="concurrent players (two per table)")
    p.add_argument("--games", type=int, default=1, help="games each player plays, one after another")
    p.add_argument("--think", type=float, default=1.0, help="seconds a client waits before each action")
    p.add_argument("--preset", default="yams")
    p.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="yambak-load-")
    db = args.db or f"sqlite:///{tmp}/load.db"
    stats = Stats()
    stats.target = args.players
    env = {"YAMBAK_RATE": "50", "YAMBAK_RATE_BURST": "100"}
    with server_process(db, env=env) as base:
        try:
            import uvloop  # installed with uvicorn[standard]

            uvloop.install()
        except ImportError:
            pass
        elapsed = asyncio.run(main_async(args, base, stats))
    # check the stored records against what the clients saw
    store = Store(db)
    lost = dup = bad = 0
    total_events = 0
    for table, _ in TOKENS:
        row = store.get_table(table)
        versions = [e.version for e in store.events(table)]
        total_events += len(versions)
        seen = stats.accepted.get(table, set())
        if versions != list(range(1, row.version + 1)) or set(versions) != seen:
            lost += len(set(versions) ^ seen)
        dup += len(versions) - len(set(versions))
        try:
            state = replay(row.record)
            bad += not state.finished
        except Exception:
            bad += 1
    store.close()
    lat = sorted(stats.latencies)
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] * 1000  # noqa: E731
    print(f"players held concurrently : {stats.peak} (of {args.players}), {len(TOKENS)} tables, {args.preset}")
    print(f"actions accepted          : {len(lat)} in {elapsed:.1f} s = {len(lat) / elapsed:.0f} actions/s")
    print(f"action-to-broadcast       : p50 {q(0.50):.1f} ms, p99 {q(0.99):.1f} ms, max {lat[-1] * 1000:.1f} ms")
    lat = sorted(stats.steady) or [0.0]
    print(
        f"  with all players in     : p50 {q(0.50):.1f} ms, p99 {q(0.99):.1f} ms, max {lat[-1] * 1000:.1f} ms "
        f"({len(stats.steady)} actions; the rest were sent while players were still arriving)"
    )
    print(f"refused actions           : {len(stats.errors)} {sorted(set(stats.errors))[:5]}")
    print(
        f"stored events             : {total_events}; lost or extra vs clients: {lost}; duplicated: {dup}; "
        f"unfinished/unreplayable records: {bad}"
    )
    ok = lost == 0 and dup == 0 and bad == 0 and not stats.errors
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
