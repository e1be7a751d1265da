"""Build the presets' shipped strategy data: `python -m yambak.strategy.make_data [PRESET...] [--games N]`.

Writes `data/<preset>.json` for each preset named (default: every preset the solver has a table for),
each with the fingerprint of the ruleset it was built from (tests/strategy/test_shipped.py checks them
against the presets as they are now). Minutes per preset: never run by the tests.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..rules import load_ruleset, preset_ids
from .data_files import DATA_DIR
from .report import build, has_table

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m yambak.strategy.make_data", description=__doc__.splitlines()[0])
    p.add_argument("presets", nargs="*", help="preset ids (default: every preset with an exact table)")
    p.add_argument("--games", type=int, default=None, help="games (default 100,000 optimal or 2,000 strong)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="threads of the optimal simulation (default 1)")
    p.add_argument("--workers", type=int, default=1, help="processes of the strong bot's games (default 1)")
    args = p.parse_args(argv)
    names = args.presets or [pid for pid in preset_ids() if has_table(load_ruleset(pid))]
    DATA_DIR.mkdir(exist_ok=True)
    for name in names:
        start = time.perf_counter()
        data = build(load_ruleset(name), args.games, args.seed, args.threads, workers=args.workers)
        path = DATA_DIR / f"{name}.json"
        path.write_text(json.dumps(data.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")
        seconds = time.perf_counter() - start
        print(f"{name}: {data.games:,} games, {seconds:.0f} s -> {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
