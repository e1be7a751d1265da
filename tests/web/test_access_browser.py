"""Accessible to everybody: axe-core 4 (the version package.json pins, fetched by `make install`) finds
nothing serious or critical on any page, light and dark; every focusable thing shows a focus ring; every
tap target is at least 44 x 44 px on a phone (the seven-column yamb sheet included); holds made with
the keys are announced."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.sync.client import connect

from ..server.helpers import legal, server_process
from .table_helpers import LAPTOP, PHONE, act, ready, roll, serious_violations, start


def _finish(base: str, table: str, token: str) -> None:
    """Play a table to its end over its socket: roll once, the first box offered."""
    with connect(base.replace("http", "ws") + f"/ws/{table}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "tokens": [token]}))
        view: dict[str, Any] = {}
        v = 0
        while True:
            msg = json.loads(ws.recv(15))
            if "view" in msg:
                view, v = msg["view"], msg["v"]
            if view.get("finished"):
                return
            if msg.get("type") in ("state", "events", "event") and view["current"] == 0 and view["to_act"] == [0]:
                turn = view["players"][0]["turn"]
                if turn is None or not turn["dice"]:
                    ws.send(json.dumps({"type": "roll", "seat": 0, "v": v}))
                else:
                    ws.send(json.dumps({"type": "score", "seat": 0, "v": v, "box": legal(turn)[0]}))


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """A server of this module's own: its pages make a profile per device (more than one address may make
    in a burst elsewhere)."""
    db = tmp_path_factory.mktemp("access") / "web.db"
    env = {"YAMBAK_PROFILE_BURST": "100", "YAMBAK_UNDO_GRACE": "0.3"}
    with server_process(f"sqlite:///{db}", bot_delay=0.05, env=env) as base:
        yield base


@pytest.fixture(scope="module")
def finished(base_url, browser) -> dict[str, str]:
    """A profile's finished solo game against a bot, and a kept sheet: the pages the tests look at."""
    ctx = browser.new_context()
    r = ctx.request.post(base_url + "/api/me", data={"name": "Ann"}, headers={"Origin": base_url})
    assert r.ok, r.text()
    body = {"name": "Ann's", "preset": "yams", "listed": False,
            "seats": [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "greedy", "name": "Bot"}]}  # fmt: skip
    made = ctx.request.post(base_url + "/api/tables", data=body).json()
    _finish(base_url, made["id"], made["tokens"]["0"])
    sheet = ctx.request.post(base_url + "/api/keep", data={"preset": "yammen", "players": ["Ann", "Bram"]}).json()
    group = ctx.request.post(base_url + "/api/keep/groups", data={"name": "Family"}).json()
    state = ctx.storage_state()
    ctx.close()
    return {"table": made["id"], "sheet": sheet["id"], "group": group["id"], "state": json.dumps(state)}


def _pages(finished: dict[str, str]) -> list[tuple[str, str, str | None]]:
    """(name, path, selector to wait for)."""
    return [
        ("lobby", "/", None),
        ("results", f"/t/{finished['table']}", "#results:not([hidden])"),
        ("review", f"/t/{finished['table']}/review", "#mistakes li"),
        ("rules", "/rules/yammen", None),
        ("strategy", "/strategy/yams", "#openings-filter"),
        ("daily", "/daily", None),
        ("profile", "/me", None),
        ("stats", "/me/stats", None),
        ("profile-settings", "/me/profile", None),
        ("keeper", "/keep/", None),
        ("keeper-sheet", f"/keep/{finished['sheet']}", "#sheet button.cell"),
        ("keeper-group", f"/keep/group/{finished['group']}", "#season-csv"),
    ]


@pytest.mark.parametrize("where", ["phone-light", "laptop-dark"])
def test_axe_core_finds_nothing_serious_on_any_page(base_url, new_page, finished, where):
    phone = where.startswith("phone")
    page = new_page(viewport=PHONE if phone else LAPTOP, touch=phone, dark=not phone, bypass_csp=True)
    page.context.add_cookies(json.loads(finished["state"])["cookies"])
    page.set_content("<main><button></button><img src='x.png'></main>")
    assert {v[0] for v in serious_violations(page)} >= {"button-name", "image-alt"}  # the check sees what is wrong
    found = {}
    for name, path, wait in _pages(finished):
        page.goto(base_url + path)
        if wait:
            page.wait_for_selector(wait)
        found[name] = serious_violations(page)
        assert "<function" not in page.locator("main").inner_text(), name  # every value a template shows is one
    # a table mid-turn, the coach open
    start(page, base_url, "yammen", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    roll(page)
    page.click("#hint-toggle")
    page.wait_for_selector("#coach .keeps .choice")
    found["table"] = serious_violations(page)
    # axe's rule that a name holds its visible label (experimental, so not in axe.run's default set):
    # the Roll button is named "Roll 3" as it shows, what the count means is its description
    found["table-names"] = page.evaluate(NAME_MISMATCH)
    roll_name = page.evaluate("() => [document.querySelector('#roll').getAttribute('aria-label'), "
                              "document.querySelector('#roll-left').textContent]")  # fmt: skip
    assert roll_name[0] is None and roll_name[1].startswith("Roll: ")
    assert "Announce Announce" not in page.inner_text("#coach")  # an announcement named by its row
    assert found == {name: [] for name in found}


NAME_MISMATCH = """async () => (await axe.run({runOnly: {type: 'rule', values: ['label-content-name-mismatch']}}))
  .violations.map((v) => [v.id, v.impact, v.nodes.map((n) => n.target)])"""


FOCUS_RING = """() => {
  const el = document.activeElement, s = getComputedStyle(el);
  const ring = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2;
  return { ring, what: el.outerHTML.slice(0, 80), color: s.outlineColor };
}"""


def test_every_focusable_thing_shows_a_focus_ring(base_url, new_page):
    page = new_page(viewport=LAPTOP)
    start(page, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    roll(page)
    seen, missing = set(), []
    for _ in range(60):  # the whole page by Tab, the sheet's playable boxes included
        page.keyboard.press("Tab")
        got = page.evaluate(FOCUS_RING)
        if got["what"].startswith("<body") or got["what"] in seen:  # past the last one: the page itself
            continue
        seen.add(got["what"])
        if not got["ring"]:
            missing.append(got["what"])
    assert any("cell legal" in w for w in seen), seen  # a playable box took the focus
    assert missing == []
    # the ring of a playable box is the focus colour, not the box's own dashed outline
    page.locator("#sheet button.cell.legal").first.focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    focused = page.evaluate(
        "() => [document.activeElement.className, getComputedStyle(document.activeElement).outlineStyle]"
    )
    assert "legal" in focused[0] and focused[1] == "solid", focused


TARGETS = """() => {
  const small = [];
  for (const el of document.querySelectorAll('a[href], button, input, select, summary, [tabindex="0"]')) {
    const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    if (!r.width || !r.height || s.visibility === 'hidden' || el.matches('.sr-only')) continue;  // a skip link
    if (el.closest('[hidden], details:not([open]) > :not(summary)')) continue;
    // a box in a label: the label is the target
    if (el.matches('input[type=checkbox], input[type=radio]') && el.closest('label')) continue;
    const sentence = ['P', 'LI', 'TD', 'SPAN', 'SMALL'].includes(el.parentElement.tagName);
    if (el.matches('a') && sentence && s.display === 'inline') continue;  // a link in a sentence: WCAG's exception
    const size = `${Math.round(r.width)}x${Math.round(r.height)}`;
    if (r.width < 43.5 || r.height < 43.5) small.push(`${el.tagName} ${el.id || el.className} ${size}`);
  }
  return small;
}"""
CUT = """() => [...document.querySelectorAll('#sheet tbody th')]
  .filter((h) => h.scrollWidth > h.clientWidth + 1).map((h) => h.textContent)"""


def test_every_tap_target_is_44_px_on_a_phone(base_url, new_page, finished):
    page = new_page(viewport=PHONE, touch=True)
    page.context.add_cookies(json.loads(finished["state"])["cookies"])
    small = {}
    for name, path, wait in _pages(finished):
        page.goto(base_url + path)
        if wait:
            page.wait_for_selector(wait)
        page.locator("details.menu > summary").first.click()  # the menu's links too
        small[name] = page.evaluate(TARGETS)
    # a table mid-turn with the coach open (its More), and the seven-column yamb sheet
    start(page, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    roll(page)
    page.click("#hint-toggle")
    page.wait_for_selector("#coach .more")
    small["table"] = page.evaluate(TARGETS)
    start(
        page,
        base_url,
        "yamb",
        seats=[{"kind": "human", "name": "Ann"}],
        options={"extra": ["updown", "middle", "hand"]},
    )
    roll(page)
    assert page.locator("#sheet table[data-cols='7']").count() == 1
    small["yamb-7"] = page.evaluate(TARGETS)
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1]  # never by sideways scrolling
    assert page.evaluate(CUT) == []  # every row label readable
    assert small == {name: [] for name in small}


def test_holds_made_with_the_keys_are_announced(base_url, new_page):
    page = new_page(viewport=LAPTOP)
    start(page, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    ready(page)
    roll(page)
    dice = page.locator(".die[data-value]").evaluate_all("(ds) => ds.map((d) => d.dataset.value)")
    page.locator("body").click(position={"x": 5, "y": 300})
    act(page, lambda: page.keyboard.press("2"))
    page.wait_for_function("(d) => document.querySelector('#live').textContent.includes(d)", arg=dice[1])
    said = page.locator("#live").inner_text()
    assert "Ann" in said and "hold" in said.lower(), said
    act(page, lambda: page.keyboard.press("2"))
    page.wait_for_function("() => /no dice|release/i.test(document.querySelector('#live').textContent)")


def test_the_previews_wait_for_the_dice_to_land(base_url, new_page):
    page = new_page(viewport=PHONE, touch=True)
    start(page, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    seen = page.evaluate(
        """() => new Promise((ok) => {
          const sheet = document.querySelector('#sheet'), shown = [];
          const look = () => { const v = document.querySelector('#sheet .cell.legal .v');
            if (v) shown.push([sheet.classList.contains('tumbling'), getComputedStyle(v).opacity]); };
          new MutationObserver(look).observe(sheet, { attributes: true, subtree: true, childList: true });
          document.querySelector('#roll').click();
          setTimeout(() => { look(); ok(shown); }, 900);
        })"""
    )
    assert seen[0] == [True, "0"] and seen[-1] == [False, "1"], seen
    reduced = new_page(viewport=PHONE, touch=True)
    reduced.emulate_media(reduced_motion="reduce")
    start(reduced, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "bot", "name": "Bot"}])
    roll(reduced)
    assert reduced.locator("#sheet.tumbling").count() == 0  # nothing tumbles: nothing waits


def test_a_profiles_name_in_the_join_form_and_no_console_error_without_one(base_url, new_page):
    host = new_page(viewport=LAPTOP)
    table = start(host, base_url, "yams", seats=[{"kind": "human", "name": "Ann"}, {"kind": "open"}])
    friend = new_page(viewport=PHONE, touch=True)
    r = friend.request.post(base_url + "/api/me", data={"name": "Cleo"}, headers={"Origin": base_url})
    assert r.ok, r.text()
    friend.goto(f"{base_url}/t/{table}")
    assert friend.locator("#join-name").input_value() == "Cleo"
    errors: list[str] = []
    solo = new_page(viewport=PHONE, touch=True)  # no profile on this device
    solo.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    body = {"name": "t", "preset": "yams", "listed": False, "seats": [{"kind": "human", "name": "Ann"}]}
    made = solo.request.post(base_url + "/api/tables", data=body).json()
    _finish(base_url, made["id"], made["tokens"]["0"])
    solo.goto(base_url + made["url"])
    solo.wait_for_selector("#results:not([hidden])")
    solo.wait_for_load_state("networkidle")  # the page's late fetches answered, and what they drew
    assert errors == []
