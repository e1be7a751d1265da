"""Time to the first screen of `yambak play`, on a pseudo-terminal as a person starts it.

Each run starts `yambak play RULESET --players Ann --bots BOT --seed 5` at 80x24 and stops the
clock when the screen (as a terminal emulator draws it, pyte) shows the sheet and the prompt to
roll. The first run is a warm-up (it compiles and caches the kernels); the median of the others is
what a player waits once they are compiled. `python -c pass` is timed in the same run for scale, and
the CPU time the app had used by its first screen is printed beside (Linux: /proc), which a loaded
machine inflates less than the wall time.

The modules' bytecode is cached (in a temporary folder, written by the warm-up) as an installed copy
has it, even where PYTHONDONTWRITEBYTECODE is set; `--compile` compiles every module on every run.

    .venv/bin/python bench/play_start.py [--runs 5] [--rules yams] [--bot medium] [--compile] [--lang nl]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect
import pyte

SRC = Path(__file__).resolve().parents[1] / "src"
ENTRY = "import sys; from yambak.cli import main; sys.exit(main())"  # what the `yambak` console script runs


def _cpu(pid: int) -> float:
    """The CPU time (user + system) a process has used so far, in seconds (Linux only; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_screen(args: argparse.Namespace, bytecode: str | None) -> tuple[float, float]:
    """The wall time to the first screen and the CPU time used by then (`bytecode`: where the modules'
    compiled code is cached; None compiles them all)."""
    env = {**os.environ, "TERM": "xterm-256color", "LANG": args.lang_env, "PYTHONPATH": str(SRC)}
    if bytecode is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = bytecode
    argv = ["-c", ENTRY, "play", args.rules, "--players", "Ann", "--bots", args.bot, "--seed", "5"]
    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    start = time.perf_counter()
    child = pexpect.spawn(sys.executable, argv, dimensions=(24, 80), encoding="utf-8", env=env)
    try:
        while time.perf_counter() - start < 60:
            try:
                stream.feed(child.read_nonblocking(65536, timeout=0.01))
            except pexpect.TIMEOUT:
                pass
            shown = "\n".join(screen.display)
            if args.turn in shown and args.ones in shown:
                return time.perf_counter() - start, _cpu(child.pid)
        raise SystemExit(f"no first screen within 60 s:\n{shown}")
    finally:
        child.terminate(force=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs measured after the warm-up (default 5)")
    parser.add_argument("--rules", default="yams", help="the ruleset (default yams)")
    parser.add_argument("--bot", default="medium", help="the bot in seat 2 (default medium)")
    parser.add_argument("--limit", type=float, default=1.0, help="the most the median may take, in s (default 1)")
    parser.add_argument("--compile", action="store_true", help="no bytecode cache: every module compiled each run")
    parser.add_argument("--lang", default="en", help="the player's language, by LANG (default en)")
    args = parser.parse_args()
    sys.path.insert(0, str(SRC))
    from yambak.web.i18n import labels, translations

    args.lang_env = "C.UTF-8" if args.lang == "en" else f"{args.lang}_{args.lang.upper()}.UTF-8"
    args.turn = translations(args.lang).gettext("Your turn: roll the dice.")  # what the first screen says
    args.ones = labels(args.lang, args.rules)["rows"]["ones"]
    with tempfile.TemporaryDirectory(prefix="yambak-pyc-") as folder:
        return measure(args, None if args.compile else folder)


def measure(args: argparse.Namespace, bytecode: str | None) -> int:
    warm, _ = first_screen(args, bytecode)
    times: list[float] = []
    cpus: list[float] = []
    base: list[float] = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        base.append(time.perf_counter() - start)
        wall, cpu = first_screen(args, bytecode)
        times.append(wall)
        cpus.append(cpu)
    median = statistics.median(times)
    print(f"python -c pass             {statistics.median(base) * 1000:7.1f} ms")
    print(f"first screen, warm-up      {warm * 1000:7.1f} ms")
    spread = f"(min {min(times) * 1000:.1f}, max {max(times) * 1000:.1f})"
    print(f"first screen, median of {args.runs}  {median * 1000:7.1f} ms  {spread}")
    print(f"CPU by the first screen    {statistics.median(cpus) * 1000:7.1f} ms  (median)")
    cache = "every module compiled" if bytecode is None else "bytecode cached"
    print(
        f"yambak play {args.rules} --bots {args.bot}, LANG={args.lang_env}; {cache}; limit {args.limit * 1000:.0f} ms"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")
    return 1 if median > args.limit else 0


if __name__ == "__main__":
    raise SystemExit(main())
