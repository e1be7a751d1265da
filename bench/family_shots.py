"""Screenshots of presets on a phone (390 x 844) and a laptop (1280 x 800) in languages, after a first roll.

    .venv/bin/python bench/family_shots.py [PRESETS] [LANGS] [FOLDER]
    .venv/bin/python bench/family_shots.py kniffel,yacht,generala,maxi-yatzy,kismet en,de /tmp/shots-family

A server of its own (a temporary SQLite file) and Debian's Chromium; each shot is a table of the preset
against a bot, the sheet's previews showing.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.server.helpers import server_process  # noqa: E402
from tests.web.table_helpers import LAPTOP, PHONE, roll, start  # noqa: E402


def main() -> None:
    presets = sys.argv[1].split(",") if len(sys.argv) > 1 else ["kniffel", "yacht", "generala", "maxi-yatzy", "kismet"]
    langs = sys.argv[2].split(",") if len(sys.argv) > 2 else ["en", "de"]
    folder = Path(sys.argv[3] if len(sys.argv) > 3 else "/tmp/shots-family")
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, server_process(f"sqlite:///{tmp}/shots.db", bot_delay=0.05) as base:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
            for preset in presets:
                for lang in langs:
                    for name, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
                        ctx = browser.new_context(viewport=viewport, locale=lang, has_touch=name == "phone")
                        page = ctx.new_page()
                        page.goto(f"{base}/?lang={lang}")
                        seats = [{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}]
                        start(page, base, preset, seats=seats)
                        roll(page)
                        page.wait_for_timeout(600)  # the roll's animation over
                        path = folder / f"{preset}-{name}-{lang}.png"
                        page.screenshot(path=str(path))
                        print(path)
                        ctx.close()
            browser.close()


if __name__ == "__main__":
    main()
