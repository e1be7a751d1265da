"""The trainer's page in Chromium, against the app in this process: ten positions answered by clicks on a
phone (English, light) and a laptop (French, dark), each answer's verdict the coach's (the best choice
solves, the greedy one shows what it loses), the streak and the device's puzzle rating as OpenSkill
computes them (kept on the device across a reload), axe-core clean, nothing scrolling sideways."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from openskill.models import PlackettLuce

from tests.server.profile_helpers import Clock, profile_settings
from yambak.rules import load_ruleset
from yambak.server import create_app
from yambak.server.trainer.manager import TrainerManager
from yambak.strategy import calculator
from yambak.trainer import Choice

from .conftest import SCREENSHOTS, app_in_thread
from .table_helpers import LAPTOP, PHONE, no_sideways_scroll, serious_violations

POSITIONS = 10


def _shown(x: float, digits: int, lang: str) -> str:
    text = f"{x:.{digits}f}"
    return text.replace(".", ",").replace("-", "−") if lang == "fr" else text


@pytest.mark.parametrize(("where", "lang"), [("phone-light", "en"), ("laptop-dark", "fr")])
def test_ten_positions_answered_by_clicks(tmp_path, new_page, where: str, lang: str) -> None:
    phone = where.startswith("phone")
    settings = profile_settings(tmp_path, Clock(datetime(2026, 12, 7, 12, 0, tzinfo=UTC)), http_burst=1000)
    app = create_app(settings)
    with app_in_thread(app) as base:
        trainer = app.state.trainer = TrainerManager(app.state.store, settings.clock, size=POSITIONS + 2, seed=2)
        page = new_page(
            viewport=PHONE if phone else LAPTOP, touch=phone, dark=not phone, bypass_csp=True,
            locale="fr-FR" if lang == "fr" else "en-US",
        )  # fmt: skip
        page.goto(base + "/train?preset=yams")
        page.wait_for_selector("#choices button")
        assert page.locator("#position-title").inner_text() == ("Votre choix" if lang == "fr" else "Your choice")
        by_id = {p.id: p for p in trainer._pools["yams"]}
        model = PlackettLuce()
        me = model.rating()
        seen, streak = [], 0
        for n in range(POSITIONS):
            position = page.locator("#position").get_attribute("data-position")
            assert position in by_id and position not in seen  # the device's positions are not offered again
            seen.append(position)
            puzzle = by_id[position]
            solve = n % 3 != 2  # two in three answered best, one the obvious (greedy) way
            choice = (puzzle.best.choice if solve else puzzle.obvious).to_dict()
            page.click(f"#choices button[data-choice='{json.dumps(choice, separators=(',', ':'))}']")
            page.wait_for_selector("#result:not([hidden])")
            title = page.locator("#result-title").inner_text()
            if solve:
                assert title == ("Résolu" if lang == "fr" else "Solved")
            else:
                assert _shown(puzzle.obvious_loss, 2, lang) in title
            best = page.locator("#best li").all_inner_texts()
            assert len(best) == 3
            for line, option in zip(best, puzzle.options[:3], strict=True):  # a loss shown where there is one
                assert (_shown(option.loss, 2, lang) in line) if option.loss > 0 else "(" not in line
            [[me], _] = model.rate([[me], [model.rating()]], ranks=[1, 2] if solve else [2, 1])
            streak = streak + 1 if solve else 0
            assert page.locator("#streak").inner_text() == str(streak)
            assert page.locator("#rating").inner_text() == _shown(me.mu - 3 * me.sigma, 1, lang)
            assert page.locator(".train-choice.best").count() == 1
            chosen = puzzle.option_for(Choice.from_dict(choice))
            shown = dict.fromkeys([chosen, *puzzle.options[:3]])
            keeps = [o for o in shown if o is not None and o.choice.kind == "keep"]
            odds = page.locator("#odds li").all_inner_texts()
            assert len(odds) == len(keeps) and page.locator("#odds-card").is_visible() == bool(keeps)
            for line, option in zip(odds, keeps, strict=True):  # the calculator's likeliest box, formatted
                figures = calculator(load_ruleset("yams"), option.choice.keep, 3 - puzzle.roll, "free")
                top = max(p for row, p in figures.items() if row != "chance")
                assert (f"{100 * top:.1f}%" if lang == "en" else f"{100 * top:.1f}".replace(".", ",")) in line
            if n == POSITIONS - 1:
                break
            page.click("#next")
            page.wait_for_function(f"document.querySelector('#position').dataset.position !== '{position}'")
        assert serious_violations(page) == []
        width, client = no_sideways_scroll(page)
        assert width <= client
        page.screenshot(path=str(SCREENSHOTS / f"train-{where}-{lang}.png"), full_page=True)
        strict = new_page(viewport=PHONE if phone else LAPTOP)  # the page's own content security policy
        strict.goto(base + "/train?preset=yamb")
        strict.wait_for_selector("#choices button")
        page.reload()  # the device keeps its rating and streak
        page.wait_for_selector("#choices button")
        assert page.locator("#streak").inner_text() == str(streak)
        assert page.locator("#rating").inner_text() == _shown(me.mu - 3 * me.sigma, 1, lang)
