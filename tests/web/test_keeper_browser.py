"""The score-keeper in Chromium on a 390 x 844 touch phone: a whole 3-player yammen sheet kept from typed dice
with the browser offline from the first page load (after one online visit) and synced afterwards; two phones
entering while apart; the written min and max of a yamb sheet in Croatian; eight players on one phone; every
preset in every language without sideways scrolling; the start page remembering the family."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.conftest import missing_service
from yambak.engine import ManualDice, new_game, play_turn, scratch_turn, typed_turn
from yambak.keeper import fix_options
from yambak.rules import load_ruleset, preset_ids
from yambak.server.keeper.bundle import pyodide_ready
from yambak.web.i18n import LANGUAGES

from ..server.keeper_plan import Entry, dice_for, plan
from .conftest import SCREENSHOTS

PLAYERS = ("Ann", "Bram", "Cas")
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser):
    """A phone: 390 x 844, touch, in a language and a colour scheme; closed at teardown."""
    contexts = []

    def _phone(locale="en-US", dark=False, viewport=PHONE):
        ctx = browser.new_context(
            locale=locale,
            viewport=viewport,
            is_mobile=viewport["width"] < 600,
            has_touch=viewport["width"] < 600,
            color_scheme="dark" if dark else "light",
        )
        ctx.set_default_timeout(15000)
        contexts.append(ctx)
        return ctx.new_page()

    yield _phone
    for ctx in contexts:
        ctx.close()


@pytest.fixture(scope="module", autouse=True)
def needs_pyodide():
    if not pyodide_ready():
        missing_service("Pyodide is not in web/static/pyodide (make install fetches it)")


def data(page, key):
    return page.evaluate(f"document.body.dataset.{key}")


def ready(page):
    page.wait_for_function("() => document.body.dataset.ready === '1'")


def engine_ready(page):
    page.wait_for_function("() => document.body.dataset.engine === 'ready'", timeout=90000)


def entries_are(page, n):
    page.wait_for_function(f"() => document.body.dataset.entries === '{n}'")


def type_dice(page, dice, tap=True):
    if tap:  # the six-face pad
        for d in dice:
            page.click(f"#faces [data-face='{d}']")
    else:  # the same pad from the keyboard (digits 1-6)
        page.keyboard.type("".join(map(str, dice)))


def box(page, box_id):
    """The box of the player to enter, once the engine has said what the typed dice would do there."""
    sel = f"#sheet button[data-box='{box_id}'][data-seat='{data(page, 'current')}'][data-action]"
    page.wait_for_selector(sel + ":not([data-action='open'])")
    return sel


def enter(page, e: Entry, tap=False):
    n = int(data(page, "entries"))
    if e.kind == "scratch":
        page.click("#zero")
    else:
        type_dice(page, e.dice, tap)
        if e.roll != 1:
            page.click(f"#rolls [data-roll='{e.roll}']")
    page.click(box(page, e.box))
    entries_are(page, n + 1)


def totals(page):
    return [int(t) for t in page.locator("#strip .chip .total").all_inner_texts()]


def expected_state(entries, preset="yammen", players=PLAYERS):
    state = new_game(load_ruleset(preset), list(players), dice=ManualDice())
    for e in entries:
        turn = scratch_turn(state, e.box) if e.kind == "scratch" else typed_turn(state, e.dice, e.roll, e.box)
        state = play_turn(state, turn)
    return state


def start_sheet(page, preset, players, name="Kitchen table"):
    page.fill("#keep-create input[name=name]", name)
    page.select_option("#preset", preset)
    more = page.locator("#more-players")
    while len(players) > page.locator("#players .seat-row:visible").count() and more.is_visible():
        more.click()
    for i in range(page.locator("#players .seat-row:visible").count()):
        page.fill(f"input[name=player{i}]", players[i] if i < len(players) else "")
    page.click("#start-sheet")
    page.wait_for_url(re.compile(r"/keep/[\w-]+$"))
    page.wait_for_function("() => document.body.dataset.ready === '1' && document.body.dataset.v !== undefined")
    return page.url.rsplit("/", 1)[1]


def no_sideways_scroll(page):
    return page.evaluate(
        """() => {
        const pane = document.getElementById('sheet-panel');
        const table = document.querySelector('#sheet table');
        const clipped = [...document.querySelectorAll('#sheet tbody th')].filter(
            (th) => th.scrollWidth > th.clientWidth + 1 || th.scrollHeight > th.clientHeight + 1)
            .map((th) => th.textContent);
        return {page: document.documentElement.scrollWidth <= innerWidth, pane: pane.scrollWidth <= pane.clientWidth,
                table: table.getBoundingClientRect().right <= innerWidth, clipped};
    }"""
    )


def test_a_whole_yammen_sheet_kept_offline_from_the_first_page_load_then_synced(base_url, phone):
    entries, _ = plan()
    ann = phone()
    ann.goto(base_url + "/keep/")  # the one online visit: the service worker keeps the keeper and its engine
    ann.wait_for_function("() => document.body.dataset.offlineReady === '1'")
    ann.wait_for_function("() => navigator.serviceWorker.controller !== null")
    ann.context.set_offline(True)
    ann.reload()
    ready(ann)
    engine_ready(ann)
    sheet_id = start_sheet(ann, "yammen", PLAYERS)
    assert httpx.get(f"{base_url}/api/keep/{sheet_id}").status_code == 404  # only on the phone
    assert ann.locator("#rolls").is_visible()  # yammen cares about the roll number
    for i, e in enumerate(entries):
        if i == 7:  # a slip: Bram's box typed with the wrong dice, undone at once
            n = int(data(ann, "entries"))
            enter(ann, Entry(e.seat, "dice", e.box, (6, 6, 6, 6, 6), e.roll))
            ann.click("#undo")
            entries_are(ann, n)
        enter(ann, e, tap=i < 12)
        if i in (30, 120):  # every score computed at once, offline, by the phone's engine
            assert totals(ann) == expected_state(entries[: i + 1]).totals()
        if i == 60:  # the phone restarts the keeper mid-game, still with no network
            ann.reload()
            ann.wait_for_function(f"() => document.body.dataset.entries === '{i + 1}'")
            engine_ready(ann)
    assert data(ann, "finished") == "1" and data(ann, "entries") == "198" and data(ann, "pending") == "198"
    assert not ann.locator("#pad").is_visible() and ann.locator("#end").is_visible()  # no pad after the end
    final = expected_state(entries)
    assert totals(ann) == final.totals()
    points = [p.split()[0] for p in ann.locator("#strip .chip .pts").all_inner_texts()]
    assert [float(p) for p in points] == final.match_points()

    # A correction: only the boxes that can take the entry are offered; a refused one keeps the dice.
    ann.click("#end-history")
    ann.locator("#drawer li[data-n='1'] button.entry").click()
    ann.click("#backspace")
    type_dice(ann, (1,), tap=True)
    ann.wait_for_selector("#fix-box option[value='down.ones']", state="attached")
    offered = set(ann.locator("#fix-box option").evaluate_all("os => os.map(o => o.value)"))
    state = expected_state(entries)
    legal = {b for b, o in fix_options(state, 1, [1, 1, 1, 2, 1], 1)["boxes"].items() if o["legal"]}
    assert offered == legal and "free.chance" not in offered
    ann.select_option("#fix-box", "free.ones")
    ann.click("#save-fix")
    ann.wait_for_selector("#notes .note.error[data-code='keeper/breaks-later']")
    assert ann.locator("#slots .die:not(.blank)").count() == 5 and ann.locator("#fix").is_visible()
    ann.select_option("#fix-box", "down.ones")
    ann.click("#save-fix")
    ann.wait_for_function("() => document.body.dataset.pending === '199'")
    corrected = expected_state([Entry(0, "dice", "down.ones", (1, 1, 1, 2, 1), 1), *entries[1:]])
    ann.wait_for_function(
        "() => [...document.querySelectorAll('#strip .chip .total')].map(x => x.textContent).join() === "
        f"'{','.join(map(str, corrected.totals()))}'"
    )

    # Back online on the start page: the phone sends what it kept, once; the sheet gets its code.
    ann.click("#keep-home")
    ann.wait_for_selector(f"#past li[data-id='{sheet_id}']")
    assert "199" in ann.inner_text(f"#past li[data-id='{sheet_id}'] .meta")
    ann.context.set_offline(False)
    ann.evaluate("dispatchEvent(new Event('online'))")
    ann.wait_for_function("() => document.body.dataset.unsent === '0'", timeout=60000)
    ann.locator(f"#past li[data-id='{sheet_id}'] a.open").click()
    ann.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '199'")
    assert data(ann, "refile") == "0"
    view = httpx.get(f"{base_url}/api/keep/{sheet_id}").json()
    assert view["v"] == 199 and [p["total"] for p in view["players"]] == corrected.totals()
    assert view["record"]["turns"][0]["rolls"] == [[1, 1, 1, 2, 1]] and view["finished"]
    ann.click("#end-share")
    code = ann.inner_text("#code")
    assert re.fullmatch(r"[A-Z2-9]{6}", code) and code == view["code"]
    bram = phone(locale="sv-SE")
    bram.goto(base_url + "/keep/")
    ready(bram)
    bram.fill("#keep-join input[name=code]", code.lower())
    bram.click("#keep-join button[type=submit]")
    bram.wait_for_url(re.compile(rf"/keep/{sheet_id}$"))
    bram.wait_for_function("() => document.body.dataset.v === '199'")
    assert totals(bram) == corrected.totals() and data(bram, "entries") == "198"
    bram.screenshot(path=str(SCREENSHOTS / "keeper-end-sv.png"))
    ann.reload()
    ann.wait_for_function("() => document.body.dataset.v === '199' && document.body.dataset.pending === '0'")
    assert httpx.get(f"{base_url}/api/keep/{sheet_id}").json()["v"] == 199  # nothing sent twice


def test_two_phones_entering_while_apart_the_server_decides(base_url, phone):
    sheet = httpx.post(
        f"{base_url}/api/keep", json={"name": "Apart", "preset": "yams", "players": ["Ann", "Bram"]}
    ).json()
    sid = sheet["id"]
    post = lambda body, v: httpx.post(  # noqa: E731
        f"{base_url}/api/keep/{sid}/entries", json={"id": f"b-{v:04d}-{body['kind']}", "v": v, **body}
    )
    assert post({"kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 1, 2], "box": "sixes"}, 0).status_code == 200
    a = phone()
    a.goto(f"{base_url}/keep/{sid}")
    a.wait_for_function("() => document.body.dataset.v === '1'")
    engine_ready(a)
    # Apart: A enters Bram's turn offline while B corrects entry 1: still Bram's turn, so A's entry is rebased.
    a.context.set_offline(True)
    enter(a, Entry(1, "dice", "free.fives", (5, 5, 5, 1, 2)))
    assert data(a, "pending") == "1" and totals(a) == [18, 15]
    fixed = post({"kind": "fix", "turn": 1, "dice": [6, 6, 6, 6, 2], "roll": 1, "box": "sixes"}, 1)
    assert fixed.status_code == 200
    a.context.set_offline(False)
    a.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '3'", timeout=30000)
    assert totals(a) == [24, 15] and data(a, "refile") == "0"
    # Apart again: both enter Ann's second turn; A's arrives late: shown to be filed again, not under Bram.
    a.context.set_offline(True)
    enter(a, Entry(0, "dice", "free.fours", (4, 4, 4, 1, 2)))
    assert (
        post({"kind": "dice", "seat": 0, "filled": 1, "dice": [3, 3, 3, 1, 2], "box": "threes"}, 3).status_code == 200
    )
    a.context.set_offline(False)
    a.wait_for_function(
        "() => document.body.dataset.refile === '1' && document.body.dataset.pending === '0'", timeout=30000
    )
    note = a.locator("#notes .note.refile")
    assert "Bram" in note.inner_text() and "4 4 4 1 2" in note.inner_text()
    view = httpx.get(f"{base_url}/api/keep/{sid}").json()
    assert [h["box"] for h in view["history"]] == ["free.sixes", "free.fives", "free.threes"]
    a.wait_for_function("() => document.body.dataset.v === '4'")
    # Filed again, deliberately, for the player whose turn it is now.
    note.locator("button.primary").click()
    assert a.locator("#slots .die:not(.blank)").count() == 5 and data(a, "refile") == "0"
    a.click(box(a, "free.fours"))
    a.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '5'")
    view = httpx.get(f"{base_url}/api/keep/{sid}").json()
    assert view["history"][-1] == {**view["history"][-1], "player": 1, "box": "free.fours", "written": 12}


def test_a_yamb_sheet_in_croatian_shows_the_written_min_and_max(base_url, phone):
    sheet = httpx.post(
        f"{base_url}/api/keep", json={"name": "Večer", "preset": "yamb", "players": ["Ana", "Ivo"]}
    ).json()
    turns = [
        (0, [1, 1, 1, 2, 3], "free.ones"),
        (1, [6, 6, 6, 6, 2], "free.max"),
        (0, [6, 6, 6, 5, 5], "free.max"),
        (1, [1, 1, 2, 2, 3], "free.min"),
        (0, [1, 1, 2, 2, 3], "free.min"),
        (1, [1, 1, 1, 1, 4], "free.ones"),
    ]
    for n, (seat, dice, box_id) in enumerate(turns):
        body = {"id": f"hr-entry-{n:03d}", "v": n, "kind": "dice", "seat": seat, "dice": dice, "box": box_id}
        assert httpx.post(f"{base_url}/api/keep/{sheet['id']}/entries", json=body).status_code == 200
    for dark in (False, True):
        page = phone(locale="hr-HR", dark=dark)
        page.goto(f"{base_url}/keep/{sheet['id']}")
        page.wait_for_function("() => document.body.dataset.v === '6'")
        cells = {
            k: page.inner_text(f"#sheet button[data-box='free.{k}'][data-seat='0']") for k in ("max", "min", "ones")
        }
        assert cells == {"max": "28", "min": "9", "ones": "3"}  # the written sums, though they score 0 themselves
        minimax = page.locator("#sheet tr.sum td").filter(has_text="(28−9)×3")
        assert minimax.count() == 1 and "57" in minimax.inner_text()
        assert page.evaluate("document.documentElement.lang") == "hr"
        type_dice(page, (6, 6, 6, 6, 6))
        page.wait_for_selector("#sheet button[data-action='score']")
        page.screenshot(path=str(SCREENSHOTS / f"keeper-hr{'-dark' if dark else ''}.png"))
        if not dark:
            continue
        # Correcting Ivo's entry shows his sheet; once saved, the sheet follows the player to enter again.
        page.click("#backspace")
        page.click("#open-history")
        page.locator("#drawer li[data-n='2'] button.entry").click()
        assert page.locator("#chip-1").get_attribute("aria-selected") == "true"
        page.wait_for_selector("#fix-box option[value='free.max']", state="attached")
        page.click("#save-fix")
        page.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '7'")
        assert page.locator("#chip-0").get_attribute("aria-selected") == "true" and data(page, "current") == "0"


def test_eight_players_on_one_phone(base_url, phone):
    names = ["Ann", "Bram", "Cas", "Dirk", "Eva", "Fien", "Guus", "Hanne"]
    sheet = httpx.post(f"{base_url}/api/keep", json={"name": "Feest", "preset": "yammen", "players": names}).json()
    page = phone(locale="nl-BE")
    page.goto(f"{base_url}/keep/{sheet['id']}")
    ready(page)
    layout = page.evaluate(
        """() => {
        const r = (id) => document.getElementById(id).getBoundingClientRect();
        const pane = document.getElementById('sheet-panel');
        pane.scrollTop = 400;
        const head = document.querySelector('#sheet thead th').getBoundingClientRect();
        return {page: document.documentElement.scrollHeight <= innerHeight,
                chips: document.querySelectorAll('#strip .chip').length,
                strip: r('strip').bottom <= r('sheet-panel').top + 1,
                pad: r('pad').bottom <= innerHeight + 1 && r('pad').top >= r('sheet-panel').bottom - 1,
                scrolls: pane.scrollHeight > pane.clientHeight && pane.scrollTop > 0,
                sticky: Math.abs(head.top - r('sheet-panel').top) < 2,
                wide: document.documentElement.scrollWidth <= innerWidth};
    }"""
    )
    assert layout == {
        "page": True,
        "chips": 8,
        "strip": True,
        "pad": True,
        "scrolls": True,
        "sticky": True,
        "wide": True,
    }
    small = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll("
        "'#sheet button.cell, #faces button, #pad .pad-tools button, #strip .chip')]"
        ".map((b) => Math.min(b.getBoundingClientRect().width, b.getBoundingClientRect().height)))"
    )
    assert small >= 44
    page.click("#chip-5")
    assert page.locator("#chip-5").get_attribute("aria-selected") == "true"
    assert "Fien" in page.locator("#sheet table").get_attribute("aria-label")


SHOWN = "id => document.body.dataset.sheet === id && document.body.dataset.v === '0'"
OPEN_IN_PAGE = "id => { history.pushState({}, '', '/keep/' + id); dispatchEvent(new PopStateEvent('popstate')); }"


def test_every_preset_fits_a_phone_in_every_language(base_url, phone):
    sheets = {}
    for preset in sorted(preset_ids()):
        body = {"name": "Fit", "preset": preset, "players": ["Annemarie", "Bram", "Cas"]}
        sheets[preset] = httpx.post(f"{base_url}/api/keep", json=body).json()["id"]
    page = phone()
    page.route("**/keep/worker.js", lambda route: route.abort())  # the server's views suffice here
    problems = []
    for lang in LANGUAGES:
        page.goto(f"{base_url}/keep/?lang={lang}")
        ready(page)
        if page.evaluate("document.documentElement.scrollWidth") > PHONE["width"]:
            problems.append((lang, "start page"))
        for preset, sid in sheets.items():  # moving between sheets in the page, as the keeper does
            page.evaluate(OPEN_IN_PAGE, sid)
            page.wait_for_function(SHOWN, arg=sid)
            fit = no_sideways_scroll(page)
            if not (fit["page"] and fit["pane"] and fit["table"]) or fit["clipped"]:
                problems.append((lang, preset, fit))
    assert not problems


def test_the_start_page_remembers_the_family(base_url, phone):
    page = phone()
    page.goto(base_url + "/keep/")
    ready(page)
    rows = page.locator("#players .seat-row")
    assert rows.count() == 16 and page.locator("#players .seat-row:visible").count() == 4
    page.click("#more-players")
    assert page.locator("#players .seat-row:visible").count() == 8
    page.fill("input[name=player0]", "Ann")
    page.fill("input[name=player1]", "ann")
    page.click("#start-sheet")
    assert "ann" in page.inner_text("#home-error") and "/keep/" == page.url[len(base_url) :]
    page.fill("input[name=player1]", "Bram")
    house = (
        'id = "duo"\nname = "Duo"\n[[rows]]\nid = "chance"\nkind = "sum"\n'
        '[[rows]]\nid = "yam"\nkind = "yam"\npoints = 50\n[[columns]]\nid = "free"\n'
    )
    page.click("details.house summary")
    page.fill("textarea[name=custom]", house)
    start_sheet(page, "yams", ["Ann", "Bram"], name="Duo")
    for seat, dice, box_id in (
        (0, (6, 6, 6, 6, 6), "free.yam"),
        (1, (1, 2, 3, 4, 6), "free.chance"),
        (0, (6, 6, 5, 5, 4), "free.chance"),
        (1, (2, 2, 2, 2, 2), "free.yam"),
    ):
        enter(page, Entry(seat, "dice", box_id, dice))
    assert data(page, "finished") == "1" and not page.locator("#pad").is_visible()
    assert "Ann" in page.inner_text("#end .winner")
    with page.expect_download() as picture:
        page.click("#share-picture")
    assert picture.value.suggested_filename.endswith(".png")
    page.click("#again")  # a new sheet, the same players
    page.wait_for_function("() => document.body.dataset.entries === '0' && location.pathname !== '/keep/'")
    assert [c.split("\n")[0] for c in page.locator("#strip .chip .name").all_inner_texts()] == ["Ann", "Bram"]
    page.go_back()
    page.wait_for_function("() => document.body.dataset.finished === '1'")
    page.goto(base_url + "/keep/")
    ready(page)
    page.wait_for_selector("#past li")
    assert page.locator("#past li").count() == 2
    assert page.locator("#known-names option[value='Bram']").count() == 1
    assert page.input_value("input[name=player0]") == "Ann" and page.input_value("input[name=player1]") == "Bram"
    page.wait_for_selector("#stats table.stats")
    stats = page.locator("#stats table.stats tr").all_inner_texts()
    assert any(line.replace("\n", "").startswith("Ann\t1\t76") for line in stats), stats
    assert page.locator("#stats svg rect").count() == 2
    page.once("dialog", lambda d: d.accept())
    page.locator("#past li").last.locator("button.del").click()
    assert page.locator("#past li").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # statistics included


def test_screenshots_on_a_phone_in_dutch_light_and_dark(base_url, phone):
    entries, _ = plan()
    sheet = httpx.post(
        f"{base_url}/api/keep", json={"name": "Keukentafel", "preset": "yammen", "players": PLAYERS}
    ).json()
    filled = [0, 0, 0]
    for v, e in enumerate(entries[:40]):
        body = {"id": f"shot-entry-{v:04d}", "v": v, **e.body(), "filled": filled[e.seat]}
        filled[e.seat] += 1
        assert httpx.post(f"{base_url}/api/keep/{sheet['id']}/entries", json=body).status_code == 200
    for name, dark, viewport in (("nl", False, PHONE), ("nl-dark", True, PHONE), ("desktop", False, None)):
        page = phone(locale="nl-BE", dark=dark, viewport=viewport or {"width": 1280, "height": 800})
        page.goto(f"{base_url}/keep/{sheet['id']}")
        engine_ready(page)
        type_dice(page, (4, 4, 4, 2, 6))
        page.click("#rolls [data-roll='2']")
        page.wait_for_selector("#sheet button[data-action='score']")
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        page.screenshot(path=str(SCREENSHOTS / f"keeper-{name}.png"))
        if name == "nl":
            page.goto(f"{base_url}/keep/")
            page.wait_for_selector("#past li")
            page.screenshot(path=str(SCREENSHOTS / "keeper-start-nl.png"), full_page=True)


def test_roll_offs_of_a_tied_yammen_sheet_are_typed_on_the_pad(base_url, phone):
    """Two players who typed the same dice into the same boxes tie every column and the total: the sheet
    asks for each roll-off in turn, on the pad, and the higher pips win the points (docs/rules.md §7)."""
    rules = load_ruleset("yammen")
    sheet = httpx.post(f"{base_url}/api/keep", json={"name": "Tie", "preset": "yammen", "players": ["Ann", "Bea"]})
    sid = sheet.json()["id"]
    state = new_game(rules, ["Ann", "Bea"], dice=ManualDice())
    v = 0
    while not state.finished:  # Ann enters the first box that takes her dice; Bea copies her
        p = state.current
        for box_id in (rules.box_id(b) for b in range(rules.n_boxes)):
            col, row = rules.columns[rules.parse_box(box_id) // rules.n_rows], box_id.split(".")[1]
            dice, roll = dice_for(row, 0), col.rolls or (3 if col.announce else 1)
            try:
                state = play_turn(state, typed_turn(state, dice, roll, box_id))
            except Exception:
                continue
            body = {
                "id": f"tie-{v:04d}",
                "v": v,
                "kind": "dice",
                "seat": p,
                "dice": list(dice),
                "roll": roll,
                "box": box_id,
            }
            assert httpx.post(f"{base_url}/api/keep/{sid}/entries", json=body).status_code == 200, body
            v += 1
            break
    due = httpx.get(f"{base_url}/api/keep/{sid}").json()["rolloff_due"]
    assert len(due) == len(rules.columns) + 1  # every column and the grand total
    page = phone()
    page.goto(f"{base_url}/keep/{sid}")
    page.wait_for_function(f"() => document.body.dataset.v === '{v}'")
    engine_ready(page)
    for n in range(len(due)):
        assert page.locator("#pad").is_visible()  # the pad stays for the roll-offs
        type_dice(page, (6, 6, 6, 6, 5))  # Ann
        type_dice(page, (1, 1, 2, 2, 3))  # Bea
        page.wait_for_function(f"() => document.body.dataset.v === '{v + n + 1}'")
    final = httpx.get(f"{base_url}/api/keep/{sid}").json()
    assert final["rolloff_due"] == {} and set(final["rolloffs"]) == set(due)
    assert all(r[-1]["0"]["pips"] == 29 and r[-1]["1"]["pips"] == 9 for r in final["rolloffs"].values())
    assert final["winners"] == [0] and final["players"][1]["match_points"] == 0
    page.wait_for_function(
        "() => !document.querySelector('#pad') || document.querySelector('#pad').offsetParent === null"
    )
