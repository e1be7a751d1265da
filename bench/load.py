#!/usr/bin/env python3
"""Load test of the web table: real `yambak serve` processes on loopback, many bot clients over WebSocket.

Each client holds one seat of a two-seat table and plays whole games after a think time (uniform
0.5x-1.5x of --think): roll, sometimes roll again keeping its most common value, then the legal box
that writes the most. With --workers N, N server processes share the database and Redis (as N hosts
behind a sticky-less proxy would): every table is created on a random process and every socket
connects to a random process, so most actions are forwarded to their table's owner and most events
travel through Redis.

Reports the players held, accepted actions per second, p50/p99/max action-to-broadcast (from sending
an action to receiving its event on the same socket) and the p99 of each 10 seconds of the run, the
server processes' CPU time and accepted actions per server CPU-second, where a server's CPU per action
goes (the engine's move, the views, the commit on the event loop, the broadcast, the rest of the event
loop's work: sockets, JSON, validation, and on PostgreSQL the store's transactions; SQLite's writer
thread; the process's other threads), the load generator's own event-loop lag and CPU, the machine's
load average and its busy CPU per action (servers, generator, PostgreSQL, the rest) during the run,
the lease moves, and then checks every table's
stored log against what the clients saw: every event a client saw is stored, with the same content,
every stored version is there once, no client saw a version twice, and every record replays to a
finished game.

With --profile FILE, py-spy samples the first server process's threads while the players play
(FILE.svg: a flame graph; FILE.txt: collapsed stacks, one a line with its count; else speedscope JSON).

With --cpu-profile FILE, the server processes count their own stacks every 5 ms of CPU
(bench/cpu_sampler: where the CPU goes, which py-spy cannot tell on a machine whose cores are all busy);
the last process started writes FILE.

With --kill-every S, every S seconds one server process is killed with SIGKILL and started again;
its clients reconnect to another process and resync from the last version they saw.

    .venv/bin/python bench/load.py --players 1000 --think 1.0 --db postgresql+psycopg://...
    .venv/bin/python bench/load.py --players 1000 --workers 2 --db postgresql+psycopg://... --redis redis://...
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import orjson  # noqa: E402
import websockets  # noqa: E402

from tests.server.helpers import ServerProcess  # noqa: E402
from yambak.engine import replay  # noqa: E402
from yambak.store import Store  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its reaped children (uvicorn workers)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / TICKS


def machine_cpu() -> tuple[float, float]:
    """Busy CPU seconds of the whole machine so far (every core: user, system, interrupts, stolen), and of
    them the time stolen: a virtual machine's cores running another guest while this one had work."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / TICKS, steal / TICKS


def database_cpu() -> float:
    """CPU seconds of this machine's PostgreSQL processes (their reaped children included): 0 without one."""
    total = 0.0
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if (proc / "comm").read_text().strip() == "postgres":
                    total += cpu_seconds(int(proc.name))
            except OSError:
                continue
    return total


class Stats:
    def __init__(self) -> None:
        self.steady: list[float] = []  # once every player is connected
        self.timeline: list[tuple[float, float]] = []  # (sent at, latency) of every action seen done
        self.all_in = False
        self.target = 0
        self.errors: list[str] = []
        self.connected = 0
        self.peak = 0
        self.reconnects = 0
        self.seen: dict[str, dict[int, bytes]] = {}  # table -> version -> the event as seen (JSON)
        self.twice = 0  # a version delivered twice on one socket
        self.mismatch = 0  # two clients saw different events for one version
        self.lag: list[float] = []  # the load generator's own event-loop delays (its share of the latency)
        self.load: list[float] = []  # the machine's 1-minute load average, once a second
        # busy CPU seconds during the run: the whole machine's, PostgreSQL's, the host's steal
        self.machine = (0.0, 0.0, 0.0)
        # once a second, for the windows: (perf_counter, the generator's worst lag in that second, CPU seconds
        # so far of the servers, of PostgreSQL, of the whole machine, stolen by the host)
        self.samples: list[tuple[float, ...]] = []
        self.gc: Counter[str] = Counter()  # the generator's own garbage collections: "count 0", "seconds 0"...


def measure_gc(stats: Stats) -> None:
    """Count the generator's own collections and their pauses (they delay every client it runs). Its
    full collections wait to the end, as the server's do (app.tune_gc): a pause of the measuring side
    would be charged to the server's latency."""
    started = [0.0]

    def pause(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            stats.gc[f"count {info['generation']}"] += 1
            stats.gc[f"seconds {info['generation']}"] += time.perf_counter() - started[0]

    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 1_000_000)
    gc.callbacks.append(pause)


class Cluster:
    def __init__(self, servers: list[ServerProcess]) -> None:
        self.servers = servers
        self.cpu_done = 0.0  # CPU of processes killed so far

    def live(self) -> list[ServerProcess]:
        return [s for s in self.servers if s.proc is not None and s.proc.poll() is None]

    def pick(self) -> ServerProcess:
        return random.choice(self.live() or self.servers)

    def cpu(self) -> float:
        return self.cpu_done + sum(cpu_seconds(s.pid) for s in self.live())


def choose(turn: dict | None, rng: random.Random) -> dict:
    if turn is None or not turn.get("rolls"):
        return {"type": "roll"}
    legal = {b: o.get("written", 0) for b, o in turn["boxes"].items() if o["legal"]}
    if turn.get("must_announce") and turn.get("announce"):
        return {"type": "announce", "box": turn["announce"][0]}
    if turn.get("can_roll") and (not legal or (turn["rolls"] < 2 and rng.random() < 0.5)):
        dice = turn["dice"]
        best = Counter(dice).most_common(1)[0][0]
        return {"type": "roll", "held": [i for i, d in enumerate(dice) if d == best][: len(dice) - 1]}
    if legal:
        return {"type": "score", "box": max(legal, key=lambda b: legal[b])}
    if turn.get("announce"):
        return {"type": "announce", "box": turn["announce"][0]}
    return {"type": "roll"}


def note(stats: Stats, table: str, version: int, event: dict, seen_here: set[int], live: bool = True) -> None:
    """An event a client saw. A live broadcast must be new on its socket; a resync may repeat what the
    socket saw while the client's hello was on its way (clients keep the newest version)."""
    if live and version in seen_here:
        stats.twice += 1
    seen_here.add(version)
    text = orjson.dumps(event, option=orjson.OPT_SORT_KEYS)
    known = stats.seen.setdefault(table, {})
    if known.setdefault(version, text) != text:
        stats.mismatch += 1


async def play_seat(cluster: Cluster, table: str, seat: int, token: str, think: float, stats: Stats) -> None:
    rng = random.Random()
    await asyncio.sleep(rng.uniform(0, think))  # players arrive over the first think time
    v: int | None = None
    first = True
    while True:
        url = cluster.pick().base.replace("http", "ws") + f"/ws/{table}"
        try:
            async with websockets.connect(url, max_size=2**22, open_timeout=30, ping_interval=None) as ws:
                if first:
                    stats.connected += 1
                    stats.peak = max(stats.peak, stats.connected)
                    stats.all_in = stats.all_in or stats.connected == stats.target
                    first = False
                hello: dict = {"type": "hello", "tokens": [token]}
                if v is not None:
                    hello["since"] = v
                await ws.send(json.dumps(hello))
                if await _play(ws, table, seat, think, stats, rng):
                    stats.connected -= 1
                    return
        except (OSError, websockets.ConnectionClosed, TimeoutError):
            pass
        stats.reconnects += 1
        await asyncio.sleep(0.2 + rng.random() * 0.3)
        v = _last.get((table, seat))


_last: dict[tuple[str, int], int] = {}


async def _play(ws, table: str, seat: int, think: float, stats: Stats, rng: random.Random) -> bool:
    """Play on one socket; True when the game is over, False when the socket dropped."""
    view = None
    pending: float | None = None
    acted_on = -1  # the version the pending action was sent on
    seen_here: set[int] = set()
    while True:
        try:
            msg = orjson.loads(await asyncio.wait_for(ws.recv(), 30))  # the generator's own CPU: cores it shares
        except (websockets.ConnectionClosed, TimeoutError):
            return False
        kind = msg["type"]
        if kind == "error":
            if not msg["code"].startswith("stale/"):
                stats.errors.append(msg["code"])
            pending = None
            if msg["code"] in ("server/busy", "server/store", "stale/version"):
                await ws.send(json.dumps({"type": "hello", "since": _last.get((table, seat), 0)}))
            continue
        if kind == "event":
            note(stats, table, msg["v"], msg["event"], seen_here)
            if msg["event"]["player"] == seat and pending is not None:
                lat = time.perf_counter() - pending
                stats.timeline.append((pending, lat))
                if stats.all_in:
                    stats.steady.append(lat)
                pending = None
        elif kind in ("events", "state"):  # a resync: the pending action is done once the table moved past it
            for e in msg.get("events", []):
                note(stats, table, e["v"], e["event"], seen_here, live=False)
            if pending is not None and (msg["v"] > acted_on or time.perf_counter() - pending > 5):
                pending = None
        if kind not in ("event", "events", "state"):
            continue
        view = msg.get("view", view)  # `events` without a view: nothing was missed
        _last[(table, seat)] = msg["v"]
        if view is None:
            continue
        if pending is not None:
            continue
        if view["finished"]:
            return True
        if seat not in view["to_act"]:
            continue
        action = choose(view["players"][seat]["turn"], rng)
        if think:  # people do not act in lockstep: think 0.5x to 1.5x the mean
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        pending, acted_on = time.perf_counter(), msg["v"]
        await ws.send(json.dumps({**action, "seat": seat, "v": msg["v"]}))


TOKENS: list[tuple[str, list[tuple[int, str]]]] = []


async def create_tables(cluster: Cluster, n: int, preset: str) -> None:
    async def one(client: httpx.AsyncClient) -> None:
        r = await client.post(
            cluster.pick().base + "/api/tables",
            json={"name": "load", "preset": preset, "listed": False, "seats": [{"name": "A"}, {"name": "B"}]},
        )
        made = r.json()
        TOKENS.append((made["id"], [(int(s), t) for s, t in made["tokens"].items()]))

    async with httpx.AsyncClient(timeout=60) as client:
        for i in range(0, n, 20):
            await asyncio.gather(*[one(client) for _ in range(min(20, n - i))])


async def chaos(cluster: Cluster, every: float, stop: asyncio.Event, kills: list[int]) -> None:
    while not stop.is_set():
        try:
            await asyncio.wait_for(stop.wait(), every)
            return
        except TimeoutError:
            pass
        victim = random.choice(cluster.live())
        cluster.cpu_done += cpu_seconds(victim.pid)
        victim.kill()
        kills.append(victim.port)
        await asyncio.to_thread(victim.start)


async def lag_monitor(stats: Stats, stop: asyncio.Event, cluster: Cluster) -> None:
    """The generator's own loop lag every 10 ms; the load average and who used the CPU every second."""
    n, worst = 0, 0.0
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        stats.lag.append(time.perf_counter() - t - 0.01)
        worst = max(worst, stats.lag[-1])
        n += 1
        if n % 100 == 0:
            stats.load.append(os.getloadavg()[0])
            # in a thread: PostgreSQL's CPU walks /proc, which would show up as the generator's lag
            at = time.perf_counter()
            cpus = await asyncio.to_thread(lambda: (cluster.cpu(), database_cpu(), *machine_cpu()))
            stats.samples.append((at, worst, *cpus))
            worst = 0.0


def profile(path: str, pid: int) -> subprocess.Popen[bytes]:
    """py-spy recording a server process (without pausing it: its samples cost the server nothing)."""
    fmt = {".svg": "flamegraph", ".txt": "raw"}.get(Path(path).suffix, "speedscope")
    spy = Path(sys.executable).with_name("py-spy")
    argv = [str(spy), "record", "--pid", str(pid), "--nonblocking", "--rate", "200", "--format", fmt, "-o", path]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL)


async def main_async(
    args: argparse.Namespace, cluster: Cluster, stats: Stats
) -> tuple[float, float, int, dict[str, float], float]:
    await create_tables(cluster, args.players // 2 * args.games, args.preset)
    phases0 = await asyncio.to_thread(server_phases, cluster)
    spy = profile(args.profile, cluster.servers[0].pid) if args.profile else None
    measure_gc(stats)
    own0 = time.process_time()
    cpu0 = cluster.cpu()
    (machine0, steal0), database0 = machine_cpu(), database_cpu()
    start = time.perf_counter()
    per_game = args.players // 2
    stop, kills = asyncio.Event(), []
    lag_task = asyncio.create_task(lag_monitor(stats, stop, cluster))
    chaos_task = asyncio.create_task(chaos(cluster, args.kill_every, stop, kills)) if args.kill_every else None
    for g in range(args.games):
        batch = TOKENS[g * per_game : (g + 1) * per_game]
        await asyncio.gather(
            *[play_seat(cluster, t, s, tok, args.think, stats) for t, seats in batch for s, tok in seats]
        )
    stop.set()
    if spy is not None:  # py-spy writes its file when interrupted
        spy.send_signal(signal.SIGINT)
        await asyncio.to_thread(spy.wait, 60)
    await lag_task
    if chaos_task is not None:
        await chaos_task
    elapsed, cpu = time.perf_counter() - start, cluster.cpu() - cpu0
    own = time.process_time() - own0
    machine1, steal1 = machine_cpu()
    stats.machine = (machine1 - machine0, database_cpu() - database0, steal1 - steal0)
    await asyncio.sleep(1.5)  # the servers add up their last second of CPU by phase
    phases1 = await asyncio.to_thread(server_phases, cluster)
    phases = {k: phases1.get(k, 0.0) - phases0.get(k, 0.0) for k in phases1}
    return elapsed, cpu, len(kills), phases, own


COUNTED = {  # counters summed over the live processes, and what they are called in the report
    "yambak_lease_moves_total": "lease moves",
    "yambak_forwarded_total": "forwarded",
    "yambak_handoffs_total": "handed off",
    "yambak_quiet_events_total": "events nobody else followed (not sent to Redis)",
}


def server_metrics(cluster: Cluster) -> tuple[Counter[str], dict[float, float]]:
    """Counters (lease moves, forwarded requests...) and the servers' own action latency histogram
    (cumulative counts per bucket bound)."""
    counts: Counter[str] = Counter()
    buckets: Counter[float] = Counter()
    for s in cluster.live():
        try:
            for line in httpx.get(s.base + "/metrics", timeout=5).text.splitlines():
                name = line.split(" ")[0]
                if name in COUNTED:
                    counts[name] += float(line.split()[-1])
                elif line.startswith("yambak_action_seconds_bucket"):
                    bound = line.split('le="')[1].split('"')[0]
                    buckets[float(bound)] += float(line.split()[-1])
                elif line.startswith(("yambak_gc_pause_seconds_count", "yambak_gc_pause_seconds_sum")):
                    generation = line.split('generation="')[1].split('"')[0]
                    part = "count" if line.startswith("yambak_gc_pause_seconds_count") else "sum"
                    counts[f"gc {generation} {part}"] += float(line.split()[-1])
        except httpx.HTTPError:
            pass
    return counts, buckets


def server_phases(cluster: Cluster) -> dict[str, float]:
    """The servers' CPU seconds by phase of the actions' path, their event loops' CPU and their committed
    actions so far (summed over the live processes: a killed one's are lost, so read them without kills)."""
    out: Counter[str] = Counter()
    for s in cluster.live():
        try:
            for line in httpx.get(s.base + "/metrics", timeout=5).text.splitlines():
                if line.startswith("yambak_action_cpu_seconds_total{"):
                    out[line.split('phase="')[1].split('"')[0]] += float(line.split()[-1])
                elif line.startswith("yambak_loop_cpu_seconds_total "):
                    out["loop"] += float(line.split()[-1])
                elif line.startswith("yambak_actions_total "):
                    out["actions"] += float(line.split()[-1])
        except httpx.HTTPError:
            pass
    return dict(out)


def cpu_report(cpu: float, phases: dict[str, float]) -> str:
    """Server CPU per committed action, split by where it went."""
    n = phases.get("actions", 0.0)
    if not n:
        return "n/a"
    ms = lambda seconds: seconds / n * 1000  # noqa: E731
    loop_parts = ("engine", "view", "commit", "broadcast")
    rest_loop = phases.get("loop", 0.0) - sum(phases.get(p, 0.0) for p in loop_parts)
    others = cpu - phases.get("loop", 0.0) - phases.get("store", 0.0)
    parts = [f"{p} {ms(phases.get(p, 0.0)):.3f}" for p in loop_parts]
    return (
        f"{ms(cpu):.3f} ms per action ({n:.0f} committed) = event loop {ms(phases.get('loop', 0.0)):.3f} "
        f"[{', '.join(parts)}, sockets/JSON/validation/rest {ms(rest_loop):.3f}] + store writer thread "
        f"{ms(phases.get('store', 0.0)):.3f} + other threads and processes' children {ms(others):.3f}"
    )


def quantile(ordered: list[float], f: float) -> float:
    return ordered[min(len(ordered) - 1, int(f * len(ordered)))]


def windows(stats: Stats, width: float = 10.0) -> list[str]:
    """Each `width` seconds of the run, by when the action was sent: actions/s, p99, and who was busy
    (cores of CPU: the servers, PostgreSQL, the whole machine, of it stolen by the host; the generator's
    worst lag): whether the tail is the whole run's or a moment's (players arriving, games ending
    together, a vacuum)."""
    if not stats.timeline:
        return ["n/a"]
    start = min(t for t, _ in stats.timeline)
    by: dict[int, list[float]] = {}
    for t, lat in stats.timeline:
        by.setdefault(int((t - start) // width), []).append(lat)
    began = time.strftime("%H:%M:%S", time.localtime(time.time() - (time.perf_counter() - start)))
    rows = [
        f"from {began}: s  actions/s  p99 ms  generator's lag ms  CPU (cores): servers  PostgreSQL  machine  stolen"
    ]
    for k in sorted(by):
        lo, hi = start + k * width, start + (k + 1) * width
        inside = [x for x in stats.samples if lo <= x[0] <= hi]
        busy = "-"
        if len(inside) >= 2:
            (t0, _, *a), (t1, _, *b) = inside[0], inside[-1]
            cores = [(y - x) / (t1 - t0) for x, y in zip(a, b, strict=True)]
            lag = max(x[1] for x in inside) * 1000
            busy = f"{lag:18.0f}  {cores[0]:20.2f}  {cores[1]:10.2f}  {cores[2]:7.2f}  {cores[3]:6.2f}"
        p99 = quantile(sorted(by[k]), 0.99) * 1000
        rows.append(f"{k * width:17.0f}  {len(by[k]) / width:9.0f}  {p99:6.0f}  {busy}")
    return rows


def bucket_quantile(buckets: dict[float, float], q: float) -> str:
    total = buckets.get(float("inf"), 0)
    for bound in sorted(buckets):
        if total and buckets[bound] >= q * total:
            return f"<= {bound * 1000:.0f} ms" if bound != float("inf") else "> 5 s"
    return "n/a"


def check(db: str, stats: Stats) -> tuple[int, int, int, int, int]:
    """lost (seen by a client, missing or different in the log), gaps, duplicated, unfinished records, events."""
    store = Store(db)
    lost = gaps = dup = bad = total = 0
    for table, _ in TOKENS:
        events = store.events(table)
        total += len(events)
        versions = [e.version for e in events]
        gaps += versions != list(range(1, len(versions) + 1))
        dup += len(versions) - len(set(versions))
        stored = {e.version: orjson.dumps(e.data, option=orjson.OPT_SORT_KEYS) for e in events}
        for v, text in stats.seen.get(table, {}).items():
            lost += stored.get(v) != text
        row = store.get_session(table)
        try:
            bad += not replay(row.record).finished or row.version != len(versions)
        except Exception:
            bad += 1
    store.close()
    return lost, gaps, dup, bad, total


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", type=int, default=500, help="concurrent players (two per table)")
    p.add_argument("--games", type=int, default=1, help="games each player plays, one after another")
    p.add_argument("--think", type=float, default=1.0, help="seconds a client waits before each action")
    p.add_argument("--preset", default="yams")
    p.add_argument("--db", default=None, help="database URL (default: a fresh SQLite file)")
    p.add_argument("--redis", default=None, help="Redis URL (needed for --workers 2 and more)")
    p.add_argument("--workers", type=int, default=1, help="server processes sharing the database and Redis")
    p.add_argument("--kill-every", type=float, default=0, help="SIGKILL a server process every S seconds")
    p.add_argument("--profile", default=None, metavar="FILE", help="py-spy samples of the server (.svg, .txt, .json)")
    p.add_argument("--cpu-profile", default=None, metavar="FILE", help="CPU-time samples of the server (collapsed)")
    p.add_argument(
        "--server-env", action="append", default=[], metavar="KEY=VALUE",
        help="a setting for the servers (YAMBAK_SYNCHRONOUS_COMMIT=off, ...); repeatable",
    )  # fmt: skip
    args = p.parse_args()
    tmp = tempfile.mkdtemp(prefix="yambak-load-")
    db = args.db or f"sqlite:///{tmp}/load.db"
    if args.workers > 1 and not args.redis:
        p.error("--workers 2 or more needs --redis")
    stats = Stats()
    stats.target = args.players
    env = {  # every player is 127.0.0.1 here: the per-address caps would see one client
        "YAMBAK_RATE": "50",
        "YAMBAK_RATE_BURST": "100",
        "YAMBAK_SOCKETS_PER_ADDRESS": "100000",
        "YAMBAK_SOCKETS_PER_ADDRESS_TABLE": "1000",
        "YAMBAK_HELLO_BURST": "1000",
        **dict(pair.split("=", 1) for pair in args.server_env),
    }
    if args.cpu_profile:  # the servers inherit this environment
        sampler = str(Path(__file__).resolve().with_name("cpu_sampler"))
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [sampler, os.environ.get("PYTHONPATH")]))
        os.environ["YAMBAK_CPU_PROFILE"] = str(Path(args.cpu_profile).resolve())
    servers = [
        ServerProcess(db, env=env, redis=args.redis, log_path=f"{tmp}/server-{i}.log") for i in range(args.workers)
    ]
    cluster = Cluster(servers)
    try:
        for s in servers:
            s.start()
        try:
            import uvloop  # installed with uvicorn[standard]

            uvloop.install()
        except ImportError:
            pass
        elapsed, cpu, kills, phases, own = asyncio.run(main_async(args, cluster, stats))
        counts, buckets = server_metrics(cluster)
    finally:
        for s in servers:
            s.stop()
    lost, gaps, dup, bad, total = check(db, stats)
    lat = sorted(latency for _, latency in stats.timeline) or [0.0]
    q = lambda f: quantile(lat, f) * 1000  # noqa: E731
    n = len(stats.timeline)
    where = f"{args.workers} process{'es' if args.workers > 1 else ''} on {db.split(':')[0].split('+')[0]}"
    print(f"servers                   : {where}{' + redis' if args.redis else ''}; logs in {tmp}")
    if args.server_env:
        print(f"server settings           : {' '.join(args.server_env)}")
    print(f"players held concurrently : {stats.peak} (of {args.players}), {len(TOKENS)} tables, {args.preset}")
    print(f"actions accepted          : {n} in {elapsed:.1f} s = {n / elapsed:.0f} actions/s")
    print(f"server CPU                : {cpu:.1f} s = {n / max(cpu, 1e-9):.0f} accepted actions per CPU-second")
    print(f"  per action              : {cpu_report(cpu, phases)}")
    print(f"action-to-broadcast       : p50 {q(0.50):.1f} ms, p99 {q(0.99):.1f} ms, max {lat[-1] * 1000:.1f} ms")
    lat = sorted(stats.steady) or [0.0]
    print(
        f"  with all players in     : p50 {q(0.50):.1f} ms, p99 {q(0.99):.1f} ms, max {lat[-1] * 1000:.1f} ms "
        f"({len(stats.steady)} actions; the rest were sent while players were still arriving)"
    )
    print(
        f"  inside the servers      : p50 {bucket_quantile(buckets, 0.5)}, p99 {bucket_quantile(buckets, 0.99)} "
        "(the owner: lock, engine, commit, broadcast)"
    )
    print("  by 10 s of the run      : " + "\n                            ".join(windows(stats)))
    lag = sorted(stats.lag) or [0.0]
    print(
        f"load generator loop lag   : p50 {lag[len(lag) // 2] * 1000:.1f} ms, "
        f"p99 {lag[int(0.99 * len(lag))] * 1000:.1f} ms, max {lag[-1] * 1000:.1f} ms "
        f"(included in the latencies above); its CPU {own:.1f} s"
    )
    load = sorted(stats.load) or [0.0]
    cores = os.cpu_count()
    print(f"machine load average      : {load[0]:.1f} to {load[-1]:.1f} (1 min, sampled each second; {cores} cores)")
    busy, database, steal = stats.machine
    per = lambda seconds: f"{seconds / max(n, 1) * 1000:.2f}"  # noqa: E731
    print(
        f"machine CPU per action    : {per(busy)} ms in all ({busy / elapsed:.2f} of {cores} cores busy) = servers "
        f"{per(cpu)} + load generator {per(own)} + PostgreSQL {per(database)} "
        f"+ the rest {per(busy - cpu - own - database)} (the kernel's networking, the coach's processes, others; "
        f"of the whole, {per(steal)} stolen by the host: {steal / elapsed:.2f} cores)"
    )
    gcs = [
        f"generation {g}: {counts[f'gc {g} count']:.0f} taking {counts[f'gc {g} sum'] * 1000:.0f} ms"
        for g in ("0", "1", "2")
        if counts[f"gc {g} count"]
    ]
    print(f"servers' garbage collector: {'; '.join(gcs) or 'n/a'} (the event loop waits for them)")
    mine = [
        f"generation {g}: {stats.gc[f'count {g}']:.0f} taking {stats.gc[f'seconds {g}'] * 1000:.0f} ms"
        for g in (0, 1, 2)
        if stats.gc[f"count {g}"]
    ]
    print(f"generator's collector     : {'; '.join(mine) or 'none'} (full ones held to the end, as the servers')")
    moves = counts["yambak_lease_moves_total"]
    print(f"lease moves               : {moves:.0f}; processes killed: {kills}; client reconnects: {stats.reconnects}")
    if args.workers > 1:
        between = ", ".join(f"{counts[k]:.0f} {v}" for k, v in COUNTED.items() if "lease" not in k)
        print(f"between processes         : {between}")
    print(f"refused actions           : {len(stats.errors)} {sorted(set(stats.errors))[:5]}")
    print(
        f"stored events             : {total}; lost: {lost}; gaps: {gaps}; duplicated: {dup + stats.twice}; "
        f"seen differently: {stats.mismatch}; unfinished/unreplayable records: {bad}"
    )
    ok = lost == 0 and gaps == 0 and dup == 0 and stats.twice == 0 and stats.mismatch == 0 and bad == 0
    ok = ok and (not stats.errors or bool(args.kill_every))
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
