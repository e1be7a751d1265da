"""A CPU-time sampler for `yambak serve` under `bench/load.py --cpu-profile FILE` (this directory first on the
server's PYTHONPATH): every 5 ms of the process's CPU (SIGPROF, ITIMER_PROF) the main thread's Python stack
is counted, and a thread writes the counts to $YAMBAK_CPU_PROFILE every 5 seconds as collapsed stacks (one
a line with its count, as `py-spy record --format raw` writes them).

Why not py-spy alone: it samples the threads that are not idle by the wall clock, and on a machine whose
cores are all busy a thread waiting for a core counts as busy, so its samples pile up after the system
calls where the kernel hands the core to another process (the send to PostgreSQL, to a socket), not where
the CPU goes. A SIGPROF is due only after CPU was spent. Python runs the handler between bytecodes, so
the time of a C call counts against the Python frame that made it."""

from __future__ import annotations

import collections
import os
import signal
import threading
import time
from types import FrameType

_PATH = os.environ.get("YAMBAK_CPU_PROFILE")


def _install(path: str) -> None:
    counts: collections.Counter[str] = collections.Counter()
    busy = [False]

    def sample(_signum: int, frame: FrameType | None) -> None:
        if busy[0]:  # a signal inside the handler: skipped, not nested
            return
        busy[0] = True
        try:
            names = []
            while frame is not None:
                code = frame.f_code
                names.append(f"{code.co_qualname} ({code.co_filename}:{code.co_firstlineno})")
                frame = frame.f_back
            counts[";".join(reversed(names))] += 1
        finally:
            busy[0] = False

    def write_forever() -> None:
        while True:
            time.sleep(5)
            snapshot = dict(counts)
            with open(path + ".tmp", "w") as out:
                out.writelines(f"{stack} {n}\n" for stack, n in snapshot.items())
            os.replace(path + ".tmp", path)

    signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, 0.005, 0.005)
    threading.Thread(target=write_forever, daemon=True, name="cpu-sampler").start()


# only the server: not the load generator, nor the coach's worker processes
if _PATH and b"serve" in open("/proc/self/cmdline", "rb").read().split(b"\0"):
    _install(_PATH)
