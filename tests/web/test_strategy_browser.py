"""The strategy-and-odds page in a browser: on a phone in English (light) and a laptop in Dutch (dark), it
fits the screen (wide tables scroll inside their card), axe-core finds nothing serious, the calculator
answers from the server and shows a refusal, and the openings' filter finds the rolls that hold the dice."""

from __future__ import annotations

from itertools import combinations_with_replacement

import pytest

from yambak.rules import load_ruleset
from yambak.strategy import calculator

from .conftest import SCREENSHOTS
from .table_helpers import LAPTOP, PHONE, serious_violations

CASES = {
    "phone-en": dict(viewport=PHONE, touch=True, dark=False, locale="en-US", lang="en", shot="strategy-phone-en.png"),
    "laptop-dark-nl": dict(viewport=LAPTOP, touch=False, dark=True, locale="nl-NL", lang="nl",
                           shot="strategy-laptop-dark-nl.png"),
}  # fmt: skip


@pytest.mark.parametrize("where", list(CASES))
def test_strategy_page_on_a_phone_and_a_laptop(base_url, new_page, where):
    case = CASES[where]
    page = new_page(
        viewport=case["viewport"], touch=case["touch"], dark=case["dark"], locale=case["locale"], bypass_csp=True
    )
    page.goto(f"{base_url}/strategy/yams?lang={case['lang']}")
    page.wait_for_selector("#openings-filter")  # the page's script ran (the filter shows only with it)
    assert page.evaluate("() => document.documentElement.lang") == case["lang"]
    # nothing wider than the screen: the tables scroll inside their cards
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), where
    assert serious_violations(page) == []

    # the calculator: two sixes kept, two rolls left
    page.fill("#calc-kept", "66")
    page.select_option("#calc-rolls", "2")
    page.click("#calc-form button[type=submit]")
    page.wait_for_selector("#calc-out:not([hidden])")
    want = calculator(load_ruleset("yams"), (6, 6), 2)
    shown = {
        row: float(v)
        for row, v in page.eval_on_selector_all(
            "#calc-body tr", "rows => rows.map(r => [r.dataset.row, r.querySelector('td').dataset.value])"
        )
    }
    assert shown.keys() == want.keys()
    assert all(abs(shown[k] - want[k]) < 1e-9 for k in want)
    chance = page.locator("#calc-body tr[data-row=chance] th").inner_text()
    assert chance.endswith("(best sum)" if case["lang"] == "en" else "(beste som)")  # an expected sum, said so
    sixes = page.locator("#calc-body tr[data-row=sixes] td").inner_text()
    assert sixes.replace("\u00a0", " ") == ("66.51%" if case["lang"] == "en" else "66,51%")
    # a refusal: dice kept before the first roll
    page.select_option("#calc-rolls", "3")
    page.click("#calc-form button[type=submit]")
    page.wait_for_selector("#calc-error:not([hidden])")
    assert page.locator("#calc-error").inner_text()

    # the openings' filter: 66532 is one roll; 66 every roll holding two sixes (the other three dice free)
    page.fill("#openings-filter", "66532")
    assert page.eval_on_selector_all("#openings-table tbody tr:not([hidden])", "r => r.map(x => x.dataset.roll)") == [
        "23566"
    ]
    page.fill("#openings-filter", "66")
    two_sixes = sum(1 for _ in combinations_with_replacement(range(1, 7), 3))
    assert page.locator("#openings-table tbody tr:not([hidden])").count() == two_sixes
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), where
    assert serious_violations(page) == []
    page.fill("#openings-filter", "")
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOTS / case["shot"]), full_page=where.startswith("phone"))
