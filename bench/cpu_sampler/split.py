#!/usr/bin/env python3
"""Where a server's CPU went under `bench/load.py --cpu-profile FILE`: the samples of the run (5 ms of CPU
each) split by the first rule whose frame is on the stack, rules in order, as a share and, given the
actions committed, in ms per action; then the heaviest frames (inclusive) under one of them.

    .venv/bin/python bench/cpu_sampler/split.py FILE [--actions N] [--under "SessionManager._view"]
"""

from __future__ import annotations

import argparse
from collections import Counter

# (what, frames that mark it): the first match wins
RULES = [
    ("garbage collector", ["_gc_pause"]),
    ("store: the writer's transactions", ["_Writer.", "_transaction.<locals>.<lambda>", "wait_async.<locals>.wakeup"]),
    ("view", ["SessionManager._view"]),
    ("engine", ["GameState.apply"]),
    ("JSON of the messages", ["dumps (/"]),
    ("send: starlette, uvicorn, websockets, deflate", ["_writer (/"]),
    ("receive: frames, inflate", ["WebSocketsSansIOProtocol.data_received"]),
    ("receive: the ASGI queue", ["WebSocket.receive"]),
    ("parse: JSON, pydantic", ["parse_json", "TypeAdapter.validate_python"]),
    ("the action's other work (lock, commit, bots, clocks)", ["serve_socket"]),
    ("timers (bots, clocks, gauges)", ["_tick", "Bots._run", "_gauges"]),
    ("keepalive pings", ["send_keepalive_ping"]),
]
RUN = ("Runner.run", "_transaction.<locals>.<lambda>")  # the event loop, and the store's greenlet
NOT_ACTIONS = ("call_next", "RequestResponseCycle", "HttpToolsProtocol.data_received", "LifespanOn")


def stacks(path: str) -> list[tuple[list[str], int]]:
    out = []
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip().rpartition(" ")
            out.append((stack.split(";"), int(n)))
    return out


def short(frame: str) -> str:
    name, _, where = frame.partition(" (")
    return f"{name} ({where.split(':')[0].rsplit('/', 1)[-1]})" if where else name


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("--actions", type=float, default=0, help="actions committed during the run (load.py says)")
    p.add_argument("--under", default=None, help="a frame: list the heaviest frames below it")
    p.add_argument("--top", type=int, default=25)
    args = p.parse_args()
    split: Counter[str] = Counter()
    below: Counter[str] = Counter()
    run = 0
    for frames, n in stacks(args.file):
        text = ";".join(frames)
        if not any(r in text for r in RUN) or any(x in text for x in NOT_ACTIONS):
            continue  # startup, and the HTTP requests that made the tables
        run += n
        split[next((what for what, marks in RULES if any(m in text for m in marks)), "other")] += n
        if args.under:
            at = next((i for i, f in enumerate(frames) if args.under in f), None)
            if at is not None:
                for f in {short(f) for f in frames[at + 1 :]}:
                    below[f] += n
    print(f"{run} samples of 5 ms in the run")
    for what, n in split.most_common():
        per = f"  {n * 5 / args.actions:.3f} ms/action" if args.actions else ""
        print(f"{n / run * 100:5.1f}%  {what}{per}")
    if args.under:
        print(f"under {args.under}:")
        for f, n in below.most_common(args.top):
            print(f"{n / run * 100:5.1f}%  {f}")


if __name__ == "__main__":
    main()
