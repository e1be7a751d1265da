"""Click-to-screen latency of the table page, measured in the browser.

A real `yambak serve` (SQLite) and Debian's Chromium: for each sample the page records
`performance.now()` at the click and again when the view the server sends back has been
drawn (the next animation frame after `body[data-v]` changes). Holds, rolls and entries
are measured apart; the figures are what a player waits between a tap and the screen.

    .venv/bin/python bench/click_latency.py [--samples 60] [--viewport phone|laptop]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.server.helpers import server_process  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]  # fmt: skip
MEASURE = """async (selector) => {
  const v = document.body.dataset.v;
  const t0 = performance.now();
  document.querySelector(selector).click();
  await new Promise((ok) => {
    const o = new MutationObserver(() => { if (document.body.dataset.v !== v) { o.disconnect(); ok(); } });
    o.observe(document.body, { attributes: true });
  });
  await new Promise((ok) => requestAnimationFrame(() => ok()));
  return performance.now() - t0;
}"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=60, help="turns measured (default 60)")
    parser.add_argument("--viewport", choices=["phone", "laptop"], default="phone")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    viewport = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}[args.viewport]
    times: dict[str, list[float]] = {"hold": [], "roll": [], "score": []}
    with tempfile.TemporaryDirectory() as tmp, server_process(f"sqlite:///{tmp}/bench.db") as base:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_context(viewport=viewport, has_touch=args.viewport == "phone").new_page()
            page.add_init_script("localStorage.setItem('yambak.settings', JSON.stringify({confirmZero: false}))")
            made = None
            turns = 0
            while turns < args.samples:
                if made is None or page.evaluate("document.body.classList.contains('finished')"):
                    body = {"name": "bench", "preset": "yams", "seats": [{"kind": "human", "name": "Ann"}]}
                    made = page.request.post(base + "/api/tables", data=body).json()
                    page.goto(base + made["url"])
                    page.wait_for_function("() => document.body.dataset.ready === '1'")
                times["roll"].append(page.evaluate(MEASURE, "#roll"))
                times["hold"].append(page.evaluate(MEASURE, ".die[data-pos='0']"))
                times["score"].append(page.evaluate(MEASURE, "#sheet button.cell.legal"))
                turns += 1
            browser.close()
    print(f"click-to-screen on a {args.viewport}, {args.samples} turns (yams, one player, local server):")
    for kind, values in times.items():
        values.sort()
        p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
        print(f"  {kind:<6} median {statistics.median(values):6.1f} ms   p95 {p95:6.1f} ms   max {values[-1]:6.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
