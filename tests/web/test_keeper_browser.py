"""The score-keeper in Chromium on a 390 x 844 touch phone: a whole 3-player yammen sheet kept from typed dice
with the browser offline from the first page load (after one online visit) and synced afterwards; two phones
entering while apart; the written min and max of a yamb sheet in Croatian; eight players on one phone; every
preset in every language without sideways scrolling; the start page remembering the family."""

from __future__ import annotations

import re
import time

import pytest

from tests.conftest import missing_service
from yambak.engine import ManualDice, new_game, play_turn, scratch_turn, typed_turn
from yambak.keeper import fix_options
from yambak.rules import load_ruleset, preset_ids
from yambak.server.keeper.bundle import pyodide_ready
from yambak.web.i18n import LANGUAGES

from ..server.keeper_plan import Entry, dice_for, plan
from .conftest import SCREENSHOTS, api
from .table_helpers import NEXT_FRAME

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


def writer(base_url, sheet):
    """A sheet's page for a phone that may write: its write token (and code) in the fragment, as the start page
    hands them over; the page keeps them and clears the address."""
    return f"{base_url}/keep/{sheet['id']}#token={sheet['token']}&code={sheet['code']}"


def bearer(sheet):
    return {"authorization": f"Bearer {sheet['token']}"}


def seed(base_url, sheet, entries, prefix):
    """Entries typed on another phone (the API, with the sheet's write token), each naming its turn."""
    filled: dict[int, int] = {}
    for v, e in enumerate(entries):
        body = {"id": f"{prefix}-{v:04d}", "v": v, **e.body(), "filled": filled.get(e.seat, 0)}
        filled[e.seat] = filled.get(e.seat, 0) + 1
        r = api.post(f"{base_url}/api/keep/{sheet['id']}/entries", json=body, headers=bearer(sheet))
        assert r.status_code == 200, r.text


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
    players = PLAYERS[:2]  # a whole sheet of two (three and four players: the tests below)
    entries, _ = plan(players=players)
    whole, last = len(entries), len(entries) + 1  # entries on the sheet; its version after the correction
    ann = phone()
    ann.goto(base_url + "/keep/")  # the one online visit: the service worker keeps the keeper and its engine
    ann.wait_for_function("() => document.body.dataset.offlineReady === '1'")
    ann.wait_for_function("() => navigator.serviceWorker.controller !== null")
    ann.context.set_offline(True)
    ann.reload()
    ready(ann)
    engine_ready(ann)
    sheet_id = start_sheet(ann, "yammen", players)
    assert api.get(f"{base_url}/api/keep/{sheet_id}").status_code == 404  # only on the phone
    assert ann.locator("#rolls").is_visible()  # yammen cares about the roll number
    for i, e in enumerate(entries):
        if i == 7:  # a slip: Bram's box typed with the wrong dice, undone at once
            n = int(data(ann, "entries"))
            enter(ann, Entry(e.seat, "dice", e.box, (6, 6, 6, 6, 6), e.roll))
            ann.click("#undo")
            entries_are(ann, n)
        enter(ann, e, tap=i < 12)
        if i in (30, 120):  # every score computed at once, offline, by the phone's engine
            assert totals(ann) == expected_state(entries[: i + 1], players=players).totals()
        if i == 60:  # the phone restarts the keeper mid-game, still with no network
            ann.reload()
            ann.wait_for_function(f"() => document.body.dataset.entries === '{i + 1}'")
            engine_ready(ann)
    assert data(ann, "finished") == "1" and data(ann, "entries") == str(whole) and data(ann, "pending") == str(whole)
    assert not ann.locator("#pad").is_visible() and ann.locator("#end").is_visible()  # no pad after the end
    final = expected_state(entries, players=players)
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
    state = expected_state(entries, players=players)
    legal = {b for b, o in fix_options(state, 1, [1, 1, 1, 2, 1], 1)["boxes"].items() if o["legal"]}
    assert offered == legal and "free.chance" not in offered
    ann.select_option("#fix-box", "free.ones")
    ann.click("#save-fix")
    ann.wait_for_selector("#notes .note.error[data-code='keeper/breaks-later']")
    assert ann.locator("#slots .die:not(.blank)").count() == 5 and ann.locator("#fix").is_visible()
    ann.select_option("#fix-box", "down.ones")
    ann.click("#save-fix")
    ann.wait_for_function(f"() => document.body.dataset.pending === '{last}'")
    corrected = expected_state([Entry(0, "dice", "down.ones", (1, 1, 1, 2, 1), 1), *entries[1:]], players=players)
    ann.wait_for_function(
        "() => [...document.querySelectorAll('#strip .chip .total')].map(x => x.textContent).join() === "
        f"'{','.join(map(str, corrected.totals()))}'"
    )

    # Back online on the start page: the phone sends what it kept, once; the sheet gets its code.
    ann.click("#keep-home")
    ann.wait_for_selector(f"#past li[data-id='{sheet_id}']")
    assert str(last) in ann.inner_text(f"#past li[data-id='{sheet_id}'] .meta")
    ann.context.set_offline(False)
    ann.evaluate("dispatchEvent(new Event('online'))")
    ann.wait_for_function("() => document.body.dataset.unsent === '0'", timeout=60000)
    ann.locator(f"#past li[data-id='{sheet_id}'] a.open").click()
    ann.wait_for_function(f"() => document.body.dataset.pending === '0' && document.body.dataset.v === '{last}'")
    assert data(ann, "refile") == "0"
    view = api.get(f"{base_url}/api/keep/{sheet_id}").json()
    assert view["v"] == last and [p["total"] for p in view["players"]] == corrected.totals()
    assert view["record"]["turns"][0]["rolls"] == [[1, 1, 1, 2, 1]] and view["finished"]
    ann.click("#end-share")
    code = ann.inner_text("#code")
    assert re.fullmatch(r"[A-Z2-9]{6}", code) and "code" not in view  # the view is a watcher's too: no code in it
    assert ann.input_value("#watch-link").endswith(f"/keep/{sheet_id}")  # the link to watch: the id only reads
    bram = phone(locale="sv-SE")
    bram.goto(base_url + "/keep/")
    ready(bram)
    bram.fill("#keep-join input[name=code]", code.lower())
    bram.click("#keep-join button[type=submit]")
    bram.wait_for_url(re.compile(rf"/keep/{sheet_id}$"))
    bram.wait_for_function(f"() => document.body.dataset.v === '{last}'")
    assert totals(bram) == corrected.totals() and data(bram, "entries") == str(whole)
    assert data(bram, "readonly") == "0" and "#" not in bram.url  # the code handed Bram's phone a write token
    bram.screenshot(path=str(SCREENSHOTS / "keeper-end-sv.png"))
    ann.reload()
    ann.wait_for_function(f"() => document.body.dataset.v === '{last}' && document.body.dataset.pending === '0'")
    assert api.get(f"{base_url}/api/keep/{sheet_id}").json()["v"] == last  # nothing sent twice


def test_two_phones_racing_on_one_sheet_never_misfile_an_entry(base_url, phone):
    """Phone A (its own engine) and phone B (joined with the code on the start page; the server's previews)
    keep one sheet. A turn B enters first clears the dice A typed for that player; a late entry is never
    filed under whoever plays now, nor offered to them: it can correct the entry that took its turn."""
    sheet = api.post(
        f"{base_url}/api/keep", json={"name": "Apart", "preset": "yams", "players": ["Ann", "Bram"]}
    ).json()
    sid = sheet["id"]
    post = lambda body, v: api.post(  # noqa: E731
        f"{base_url}/api/keep/{sid}/entries",
        json={"id": f"b-{v:04d}-{body['kind']}", "v": v, **body},
        headers=bearer(sheet),
    )
    assert post({"kind": "dice", "seat": 0, "filled": 0, "dice": [6, 6, 6, 1, 2], "box": "sixes"}, 0).status_code == 200
    a = phone()
    a.goto(writer(base_url, sheet))
    a.wait_for_function("() => document.body.dataset.v === '1'")
    assert "#" not in a.url and data(a, "readonly") == "0"  # the token left the address for the phone's storage
    engine_ready(a)
    # Apart: A enters Bram's turn offline while the sheet's maker corrects entry 1: still Bram's turn, so rebased.
    a.context.set_offline(True)
    enter(a, Entry(1, "dice", "free.fives", (5, 5, 5, 1, 2)))
    assert data(a, "pending") == "1" and totals(a) == [18, 15]
    assert post({"kind": "fix", "turn": 1, "dice": [6, 6, 6, 6, 2], "roll": 1, "box": "sixes"}, 1).status_code == 200
    a.context.set_offline(False)
    a.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '3'", timeout=30000)
    assert totals(a) == [24, 15] and data(a, "refile") == "0"

    b = phone(locale="nl-BE")
    b.route("**/keep/worker.js", lambda route: route.abort())  # B asks the server what typed dice would do
    b.goto(f"{base_url}/keep/{sid}")  # the link to watch: B only reads
    b.wait_for_function("() => document.body.dataset.v === '3' && document.body.dataset.readonly === '1'")
    assert not b.locator("#pad").is_visible() and b.locator("#notes .note.watch").is_visible()
    b.fill("#watch input[name=code]", sheet["code"].lower())
    b.click("#watch button[type=submit]")
    b.wait_for_function("() => document.body.dataset.readonly === '0'")
    assert b.locator("#pad").is_visible()

    # A types Ann's dice; B enters Ann's turn first: A's dice are cleared, with a message naming Ann.
    type_dice(a, (4, 4, 4, 1, 2))
    a.wait_for_selector("#sheet button[data-action='score']")
    enter(b, Entry(0, "dice", "free.threes", (3, 3, 3, 1, 2)))
    a.wait_for_function("() => document.body.dataset.v === '4'")
    a.wait_for_selector("#notes .note.error[data-code='pad/moved']")
    assert "Ann" in a.inner_text("#notes .note.error") and "4 4 4 1 2" in a.inner_text("#notes .note.error")
    assert a.locator("#slots .die:not(.blank)").count() == 0 and data(a, "current") == "1"

    # Both tap Bram's turn at once (A offline, so its tap waits): A's arrives late and is refused.
    a.context.set_offline(True)
    enter(a, Entry(1, "dice", "free.fours", (4, 4, 4, 4, 2)))
    enter(b, Entry(1, "dice", "free.twos", (2, 2, 2, 1, 3)))
    a.context.set_offline(False)
    a.wait_for_function("() => document.body.dataset.refile === '1' && document.body.dataset.v === '5'", timeout=30000)
    note = a.locator("#notes .note.refile")
    assert "Bram" in note.inner_text() and "4 4 4 4 2" in note.inner_text()
    assert note.locator("button.again").count() == 0  # never offered to Ann, whose turn it is now
    view = api.get(f"{base_url}/api/keep/{sid}").json()
    assert [(h["player"], h["box"]) for h in view["history"]] == [
        (0, "free.sixes"),
        (1, "free.fives"),
        (0, "free.threes"),
        (1, "free.twos"),
    ]
    # A's dice were what Bram rolled: they correct entry 4, which stays Bram's.
    note.locator("button.correct").click()
    a.wait_for_function("() => document.body.dataset.refile === '0' && !document.getElementById('fix').hidden")
    assert a.locator("#slots .die:not(.blank)").count() == 5
    a.wait_for_selector("#fix-box option[value='free.fours']", state="attached")
    a.select_option("#fix-box", "free.fours")
    a.click("#save-fix")
    a.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '6'")
    view = api.get(f"{base_url}/api/keep/{sid}").json()
    assert view["history"][3] == {**view["history"][3], "player": 1, "box": "free.fours", "written": 16}
    b.wait_for_function("() => document.body.dataset.v === '6'")
    assert totals(b) == totals(a) == [view["players"][0]["total"], view["players"][1]["total"]]


SEED_OLD_STORE = """old => {
    localStorage.setItem('yambak.keep.index', JSON.stringify(old.index));
    for (const s of old.sheets) localStorage.setItem('yambak.keep.sheet.' + s.id, JSON.stringify(s));
    localStorage.setItem('yambak-keep:' + old.sheets[0].id + ':queue', JSON.stringify(old.older));
    localStorage.setItem('yambak.keep.names', JSON.stringify(['Ann', 'Bram', 'Cas', 'Dora']));
}"""


# Another database of the origin takes every byte left, in smaller and smaller random (incompressible) pieces.
FILL_STORAGE = """async (tap) => {
    const db = await new Promise((ok, no) => {
        const q = indexedDB.open('filler', 1);
        q.onupgradeneeded = () => q.result.createObjectStore('blobs');
        q.onsuccess = () => ok(q.result); q.onerror = () => no(q.error);
    });
    const put = (key, bytes) => new Promise((ok) => {
        const a = new Uint8Array(bytes);
        for (let i = 0; i < bytes; i += 65536) crypto.getRandomValues(a.subarray(i, i + 65536));
        const tx = db.transaction('blobs', 'readwrite'); tx.objectStore('blobs').put(a, key);
        tx.oncomplete = () => ok(true); tx.onabort = () => ok(false);
    });
    let n = 0;
    for (const size of [262144, 16384, 1024, 64, 16]) while (await put(n++, size)) { /* until no room for it */ }
    db.close();
    document.querySelector(tap).click();  // at once: the storage is full now
}"""


def _typed(e: Entry, entry_id: str, v: int, filled: int) -> dict:
    return {"id": entry_id, "v": v, "filled": filled, **e.body()}


def test_two_tabs_offline_share_one_queue_moved_from_local_storage(base_url, browser):
    """The keeper's earlier store (localStorage) moves into IndexedDB on the first load, queue and all; a sheet
    it kept before write tokens joins again with its code. Two tabs of one sheet offline add to one queue,
    neither overwriting the other; a full storage prunes a sheet the server keeps, and an entry it cannot
    store is refused with its dice kept, never dropped."""
    body = {"name": "Old kitchen", "preset": "yams", "players": ["Ann", "Bram"]}
    sheet = api.post(f"{base_url}/api/keep", json=body).json()
    seed(base_url, sheet, [Entry(0, "dice", "sixes", (6, 6, 6, 1, 2))], "api-first")
    record = api.get(f"{base_url}/api/keep/{sheet['id']}").json()["record"]
    camping = "old-phone-sheet-0001"
    old = {
        "index": [{"id": sheet["id"], "name": "Old kitchen", "synced": True}, {"id": camping, "name": "Camping"}],
        "sheets": [
            {"id": sheet["id"], "name": "Old kitchen", "code": sheet["code"], "synced": True,
             "spec": {"preset": "yams"}, "base": {"v": 1, "record": record}, "created": 1, "updated": 2,
             "queue": [_typed(Entry(1, "dice", "fives", (5, 5, 5, 1, 2)), "old-queue-0001", 1, 0)],
             "refile": [{"entry": _typed(Entry(0, "dice", "chance", (1, 2, 3, 4, 6)), "old-refile-01", 0, 0),
                         "error": {"code": "stale/overtaken", "current": 1}}]},
            {"id": camping, "name": "Camping", "code": None, "synced": False,
             "spec": {"preset": "yatzy", "options": {}},
             "base": {"v": 0, "record": {"format": "yambak-game/1", "rules": "yatzy", "players": ["Cas", "Dora"],
                                         "seed": None, "turns": []}},
             "created": 1, "updated": 1, "queue": [_typed(Entry(0, "dice", "yam", (6,) * 5), "old-queue-0003", 0, 0)]},
        ],
        "older": [_typed(Entry(0, "dice", "fours", (4, 4, 4, 1, 2)), "old-queue-0002", 2, 1)],  # the first keeper's
    }  # fmt: skip
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, service_workers="block")
    ctx.set_default_timeout(15000)
    ctx.route("**/keep/worker.js", lambda route: route.abort())  # no engine: the queue and the server's views
    try:
        one = ctx.new_page()
        cdp = ctx.new_cdp_session(one)  # the origin's storage: 4 MB (set before its first use, as Chromium wants)
        cdp.send("Storage.overrideQuotaForOrigin", {"origin": base_url, "quotaSize": 4_000_000})
        one.goto(base_url + "/robots.txt")  # the keeper's origin, before any keeper page has run
        one.evaluate(SEED_OLD_STORE, old)
        one.goto(base_url + "/keep/")
        ready(one)
        # sent once, in order; the entry to file again stays until it is filed or discarded
        one.wait_for_function("() => document.body.dataset.unsent === '1'", timeout=30000)
        assert one.evaluate("Object.keys(localStorage).filter(k => k.startsWith('yambak'))") == []
        assert one.locator("#known-names option[value='Dora']").count() == 1
        view = api.get(f"{base_url}/api/keep/{sheet['id']}").json()
        assert [(h["player"], h["box"]) for h in view["history"]] == [
            (0, "free.sixes"),
            (1, "free.fives"),
            (0, "free.fours"),
        ]
        made = api.get(f"{base_url}/api/keep/{camping}").json()  # made on the server with its own token
        assert made["players"][0]["total"] == 50
        one.locator(f"#past li[data-id='{sheet['id']}'] a.open").click()
        one.wait_for_function("() => document.body.dataset.v === '3' && document.body.dataset.refile === '1'")
        two = ctx.new_page()
        two.goto(f"{base_url}/keep/{sheet['id']}")  # the phone's token, from the storage both tabs share
        two.wait_for_function("() => document.body.dataset.v === '3' && document.body.dataset.readonly === '0'")

        ctx.set_offline(True)
        type_dice(one, (3, 3, 3, 1, 2))  # Bram's dice, in both tabs; the first tab files them
        type_dice(two, (2, 2, 2, 1, 3))
        one.click(box(one, "free.threes"))
        two.wait_for_selector("#notes .note.error[data-code='pad/moved']")  # the other tab's pad: cleared
        assert two.locator("#slots .die:not(.blank)").count() == 0 and data(two, "current") == "0"
        type_dice(two, (2, 2, 2, 1, 3))  # Ann's, in the second tab
        two.click(box(two, "free.twos"))
        for tab in (one, two):
            tab.wait_for_function("() => document.body.dataset.pending === '2'")

        # The storage fills up (another database of the origin takes what is left): the sheet the server keeps
        # is removed from the phone to make room; the entry is stored, or refused with its dice kept; the
        # queued entries stay.
        type_dice(one, (1, 1, 1, 2, 3))
        one.evaluate(FILL_STORAGE, box(one, "free.ones"))
        one.wait_for_function(  # a full storage's failed writes are slow on a busy machine: more time
            "() => document.body.dataset.pending === '3' || document.querySelector(\"[data-code='storage/full']\")",
            timeout=45_000,
        )
        # whichever tab wrote first into the full storage pruned the sheet and says so (the other tab may
        # have saved its view a moment before this tab's entry)
        pruned = "#notes .note.warn[data-code='storage/pruned']"
        deadline = time.monotonic() + 15
        while not any(tab.locator(pruned).count() for tab in (one, two)):
            assert time.monotonic() < deadline, "no tab said it pruned a sheet"
            one.wait_for_timeout(100)
        if data(one, "pending") != "3":  # no room even so: nothing lost, the dice wait on the pad
            assert one.locator("#slots .die:not(.blank)").count() == 5 and data(one, "pending") == "2"
            one.evaluate("new Promise((done) => { indexedDB.deleteDatabase('filler').onsuccess = done; })")
            one.click(box(one, "free.ones"))
            one.wait_for_function("() => document.body.dataset.pending === '3'")
        ctx.set_offline(False)
        for tab in (one, two):
            tab.wait_for_function("() => document.body.dataset.pending === '0' && document.body.dataset.v === '6'")
        view = api.get(f"{base_url}/api/keep/{sheet['id']}").json()
        assert [(h["player"], h["box"]) for h in view["history"]][3:] == [
            (1, "free.threes"),
            (0, "free.twos"),
            (1, "free.ones"),
        ]
        one.click("#keep-home")
        one.wait_for_selector(f"#past li[data-id='{camping}']", state="detached")  # pruned: the server keeps it
        assert one.locator(f"#past li[data-id='{sheet['id']}']").count() == 1
    finally:
        ctx.close()


CHIPS = """() => [...document.querySelectorAll('#strip .chip')].map((chip) => {
    const name = chip.querySelector('.name'), total = chip.querySelector('.total');
    const style = getComputedStyle(name), pen = document.createElement('canvas').getContext('2d');
    pen.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const box = chip.getBoundingClientRect(), sum = total.getBoundingClientRect(), tstyle = getComputedStyle(total);
    const six = pen.measureText(name.textContent.slice(0, 6)).width <= name.clientWidth + 0.5;
    pen.font = `${tstyle.fontWeight} ${tstyle.fontSize} ${tstyle.fontFamily}`;
    return {six, total: total.scrollWidth <= total.clientWidth + 0.5 && sum.right <= box.right && sum.left >= box.left,
            four: pen.measureText('1888').width <= total.clientWidth + 0.5};  // a four-digit total would fit too
})"""
FIRST_DRAW = """(() => {  // what a page drew first: before its engine can have answered
    const look = setInterval(() => {
        const b = document.body && document.body.dataset;
        if (!b || b.ready !== '1') return;
        clearInterval(look);
        window.firstDraw = {engine: b.engine || '', trusted: b.trusted, entries: b.entries, pending: b.pending,
            totals: [...document.querySelectorAll('#strip .chip .total')].map((t) => Number(t.textContent))};
    }, 2);
})();"""


def test_a_four_player_yammen_sheet_on_a_phone(base_url, browser):
    """Four players, four-digit totals, in French at 390 px: the chips, the name, what each column header means,
    Zero for the player to enter, announced turns, the end's headline and undo after it; a tab opened while
    the entries wait shows the phone's true totals before any engine runs; the badge after offline and back."""
    players = ("Annemarie", "Bramwell", "Cassandra", "Dorothea")
    name = "Soirée du dimanche chez grand-mère Ghislaine"
    entries, _ = plan("yammen", players)
    sheet = api.post(f"{base_url}/api/keep", json={"name": name, "preset": "yammen", "players": list(players)}).json()
    seed(base_url, sheet, entries[:-4], "four")
    final = expected_state(entries, players=players)
    live = {"on": False}  # the sheet's socket reaches the server only when this says so: entries wait meanwhile
    ctx = browser.new_context(locale="fr-FR", viewport=PHONE, is_mobile=True, has_touch=True, service_workers="block")
    ctx.set_default_timeout(15000)
    ctx.route_web_socket("**/ws/keep/**", lambda ws: ws.connect_to_server() if live["on"] else None)
    try:
        page = ctx.new_page()
        page.goto(writer(base_url, sheet))
        page.wait_for_function("() => document.body.dataset.v === '260'")
        assert page.evaluate("document.documentElement.lang") == "fr"
        assert all(c["six"] and c["total"] and c["four"] for c in page.evaluate(CHIPS)), page.evaluate(CHIPS)
        title = page.evaluate(
            """() => { const t = document.getElementById('head-title'), b = document.getElementById('sync');
            const r = t.getBoundingClientRect(), s = b.getBoundingClientRect();
            return {text: t.textContent, whole: t.scrollWidth <= t.clientWidth && t.scrollHeight <= t.clientHeight + 1,
                    apart: s.top >= r.bottom - 1 || s.left >= r.right - 1 || s.right <= r.left + 1}; }"""
        )
        assert title == {"text": name, "whole": True, "apart": True}
        heads = page.locator("#sheet thead th[tabindex]")
        for i in range(heads.count()):  # every column header says what the column is on a tap
            shown_text = heads.nth(i).inner_text()
            heads.nth(i).click()
            said = page.inner_text("#toast")
            label = heads.nth(i).get_attribute("aria-label")  # French sets its colon apart (no break before it)
            assert said.startswith(label + "\u00a0:") and len(said) > len(shown_text) + 12
        assert "Annoncez la case juste après le premier lancer" in said  # the last column: announce
        engine_ready(page)
        page.click("#chip-2")  # Cassandra's sheet on screen, Annemarie to enter: Zero is Annemarie's
        page.click("#zero")
        assert page.locator("#chip-0").get_attribute("aria-selected") == "true"
        assert "Annemarie" in page.inner_text("#status")
        page.click("#zero")
        for e in entries[-4:]:
            type_dice(page, e.dice)
            page.click(f"#rolls [data-roll='{e.roll}']")
            page.click(box(page, e.box))
        page.wait_for_function("() => document.body.dataset.finished === '1' && document.body.dataset.pending === '4'")
        assert totals(page) == final.totals() == [1308, 1354, 1002, 1308]
        for n in (5, 6):  # Annemarie and Dorothea tie two columns (free, poot): they roll off on the pad
            type_dice(page, (6, 6, 6, 6, 5))
            type_dice(page, (1, 1, 2, 2, 3))
            page.wait_for_function(f"() => document.body.dataset.pending === '{n}'")
        page.wait_for_function("() => !document.getElementById('end').hidden")
        assert page.inner_text("#end .winner") == "Bramwell gagne"
        assert page.inner_text("#end .why") == "Aux points de match : 20 contre 5."  # what decided it
        page.click("#end-history")
        marked = page.locator("#drawer li.was-announced").evaluate_all("lis => lis.map(li => li.dataset.n)")
        assert {"262", "263", "264"} <= set(marked) and "261" not in marked  # roll 1 is not an announcement
        page.click("#drawer-close")
        page.click("#end-undo")  # after the end: the last entry (the poot roll-off) is taken back
        page.wait_for_function("() => document.body.dataset.pending === '5' && document.getElementById('end').hidden")
        assert "Poot" in page.inner_text("#status")
        type_dice(page, (6, 6, 6, 6, 5))
        type_dice(page, (1, 1, 2, 2, 3))
        page.wait_for_function("() => document.body.dataset.pending === '6' && !document.getElementById('end').hidden")
        # a correction that leaves every tie as it was keeps both roll-offs: the end stays
        page.click("#end-history")
        page.locator("#drawer li[data-n='1'] button.entry").click()
        page.wait_for_selector(f"#fix-box option[value='{entries[0].box}']", state="attached")
        page.click("#save-fix")
        page.wait_for_function("() => document.body.dataset.pending === '7' && !document.getElementById('end').hidden")
        assert page.locator("#pad").is_hidden() and page.inner_text("#end .why") == "Aux points de match : 20 contre 5."
        final_points = [5, 20, 0, 0]
        pts = page.locator("#strip .chip .pts").all_inner_texts()
        assert [float(p.split()[0].replace(",", ".")) for p in pts] == final_points

        # Another tab, entries still unsent and no engine there: the phone's true totals at once, not the server's.
        server = api.get(f"{base_url}/api/keep/{sheet['id']}").json()
        assert [p["total"] for p in server["players"]] != final.totals()
        other = ctx.new_page()
        other.route("**/keep/worker.js", lambda route: route.abort())
        other.add_init_script(FIRST_DRAW)
        other.goto(f"{base_url}/keep/{sheet['id']}")
        other.wait_for_function("() => window.firstDraw")
        first = other.evaluate("window.firstDraw")
        assert first == {**first, "trusted": "1", "entries": "264", "pending": "7", "totals": final.totals()}
        assert first["engine"] != "ready"
        other.click("#keep-home")
        row = other.locator(f"#past li[data-id='{sheet['id']}'] .who")
        assert [int(x) for x in re.findall(r"\d+", row.inner_text())] == final.totals()  # its list: true totals too
        other.close()

        # Offline, then online: the badge says so, then Live once the sheet's socket is welcomed again.
        live["on"] = True
        ctx.set_offline(True)
        page.wait_for_function("() => document.getElementById('sync').classList.contains('off')")
        ctx.set_offline(False)
        page.wait_for_function("() => document.body.dataset.pending === '0'", timeout=30000)
        page.wait_for_function("() => document.getElementById('sync').classList.contains('ok')")
        assert page.inner_text("#sync") == "En direct"
        done = api.get(f"{base_url}/api/keep/{sheet['id']}").json()
        assert [p["total"] for p in done["players"]] == final.totals() and set(done["rolloffs"]) == {"free", "poot"}
        assert [p["match_points"] for p in done["players"]] == final_points
    finally:
        ctx.close()


def test_a_yamb_sheet_in_croatian_shows_the_written_min_and_max(base_url, phone):
    sheet = api.post(
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
        r = api.post(f"{base_url}/api/keep/{sheet['id']}/entries", json=body, headers=bearer(sheet))
        assert r.status_code == 200
    for dark in (False, True):
        page = phone(locale="hr-HR", dark=dark)
        page.goto(writer(base_url, sheet))
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
    names = ["Annemarie", "Bram", "Cas", "Dirk-Jan", "Eva", "Fientje", "Guusje", "Hannelore"]
    sheet = api.post(f"{base_url}/api/keep", json={"name": "Feest", "preset": "yammen", "players": names}).json()
    entries, _ = plan("yammen", tuple(names))
    seed(base_url, sheet, entries[:16], "eight")
    page = phone(locale="nl-BE")
    page.goto(writer(base_url, sheet))
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
    chips = page.evaluate(CHIPS)  # every chip: six letters of the name at least, and the whole total (four digits)
    assert len(chips) == 8 and all(c["six"] and c["total"] and c["four"] for c in chips), chips
    page.click("#chip-5")
    assert page.locator("#chip-5").get_attribute("aria-selected") == "true"
    assert "Fientje" in page.locator("#sheet table").get_attribute("aria-label")


SHOWN = "id => document.body.dataset.sheet === id && document.body.dataset.v === '0'"
OPEN_IN_PAGE = "id => { history.pushState({}, '', '/keep/' + id); dispatchEvent(new PopStateEvent('popstate')); }"


def test_every_preset_fits_a_phone_in_every_language(base_url, phone):
    sheets = {}
    for preset in sorted(preset_ids()):
        body = {"name": "Fit", "preset": preset, "players": ["Annemarie", "Bram", "Cas"]}
        sheets[preset] = api.post(f"{base_url}/api/keep", json=body).json()["id"]
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
    page.wait_for_selector(
        "#stats table.stats", timeout=60000
    )  # the phone's engine, started again: slow on a busy machine
    stats = page.locator("#stats table.stats tr").all_inner_texts()
    assert any(line.replace("\n", "").startswith("Ann\t1\t1\t76") for line in stats), stats  # Wins shown on a phone
    assert page.locator("#stats svg rect").count() == 2
    page.once("dialog", lambda d: d.accept())
    page.locator("#past li").last.locator("button.del").click()
    page.wait_for_function("() => document.querySelectorAll('#past li').length === 1")  # deleted from the store first
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # statistics included


def test_screenshots_on_a_phone_in_dutch_light_and_dark(base_url, phone):
    entries, _ = plan()
    sheet = api.post(
        f"{base_url}/api/keep", json={"name": "Keukentafel", "preset": "yammen", "players": PLAYERS}
    ).json()
    filled = [0, 0, 0]
    for v, e in enumerate(entries[:40]):
        body = {"id": f"shot-entry-{v:04d}", "v": v, **e.body(), "filled": filled[e.seat]}
        filled[e.seat] += 1
        r = api.post(f"{base_url}/api/keep/{sheet['id']}/entries", json=body, headers=bearer(sheet))
        assert r.status_code == 200
    for names, viewport in ((("nl", "nl-dark"), PHONE), (("desktop",), {"width": 1280, "height": 800})):
        page = phone(locale="nl-BE", viewport=viewport)
        page.goto(writer(base_url, sheet))
        engine_ready(page)
        type_dice(page, (4, 4, 4, 2, 6))
        page.click("#rolls [data-roll='2']")
        page.wait_for_selector("#sheet button[data-action='score']")
        for name in names:  # the phone turns dark as it is (one engine started for both pictures)
            page.emulate_media(color_scheme="dark" if name.endswith("dark") else "light")
            page.evaluate(NEXT_FRAME)
            assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
            page.screenshot(path=str(SCREENSHOTS / f"keeper-{name}.png"))
        if "nl" in names:
            page.emulate_media(color_scheme="light")
            page.goto(f"{base_url}/keep/")
            page.wait_for_selector("#past li")
            page.screenshot(path=str(SCREENSHOTS / "keeper-start-nl.png"), full_page=True)


def test_roll_offs_of_a_tied_yammen_sheet_are_typed_on_the_pad(base_url, phone):
    """Two players who typed the same dice into the same boxes tie every column and the total: the sheet
    asks for each roll-off in turn, on the pad, and the higher pips win the points (docs/rules.md §7)."""
    rules = load_ruleset("yammen")
    sheet = api.post(f"{base_url}/api/keep", json={"name": "Tie", "preset": "yammen", "players": ["Ann", "Bea"]})
    sid = sheet.json()["id"]
    auth = bearer(sheet.json())
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
            assert api.post(f"{base_url}/api/keep/{sid}/entries", json=body, headers=auth).status_code == 200, body
            v += 1
            break
    due = api.get(f"{base_url}/api/keep/{sid}").json()["rolloff_due"]
    assert len(due) == len(rules.columns) + 1  # every column and the grand total
    page = phone()
    page.goto(writer(base_url, sheet.json()))
    page.wait_for_function(f"() => document.body.dataset.v === '{v}'")
    engine_ready(page)
    for n in range(len(due)):
        assert page.locator("#pad").is_visible()  # the pad stays for the roll-offs
        type_dice(page, (6, 6, 6, 6, 5))  # Ann
        type_dice(page, (1, 1, 2, 2, 3))  # Bea
        page.wait_for_function(f"() => document.body.dataset.v === '{v + n + 1}'")
    final = api.get(f"{base_url}/api/keep/{sid}").json()
    assert final["rolloff_due"] == {} and set(final["rolloffs"]) == set(due)
    assert all(r[-1]["0"]["pips"] == 29 and r[-1]["1"]["pips"] == 9 for r in final["rolloffs"].values())
    assert final["winners"] == [0] and final["players"][1]["match_points"] == 0
    page.wait_for_function(
        "() => !document.querySelector('#pad') || document.querySelector('#pad').offsetParent === null"
    )


def test_a_served_generala_straight_is_named_on_the_sheet(base_url, phone):
    """Generala pays 25 for a straight served (on the first roll), 20 later: the sheet says which roll paid."""
    sheet = api.post(f"{base_url}/api/keep", json={"name": "Asado", "preset": "generala", "players": ["Ana", "Leo"]})
    sheet = sheet.json()
    turns = [(0, [1, 2, 3, 4, 5], 1), (1, [2, 3, 4, 5, 6], 3)]
    for n, (seat, dice, roll) in enumerate(turns):
        body = {"id": f"served-{n:03d}", "v": n, "kind": "dice", "seat": seat, "dice": dice, "roll": roll}
        body["box"] = "free.straight"
        r = api.post(f"{base_url}/api/keep/{sheet['id']}/entries", json=body, headers=bearer(sheet))
        assert r.status_code == 200, r.text
    page = phone()
    page.goto(writer(base_url, sheet))
    page.wait_for_function("() => document.body.dataset.v === '2'")
    served = page.locator("#sheet button[data-box='free.straight'][data-seat='0']")
    later = page.locator("#sheet button[data-box='free.straight'][data-seat='1']")
    assert served.inner_text().split() == ["25", "roll", "1"] and "by-roll" in served.get_attribute("class")
    assert served.get_attribute("aria-label").endswith("25 (the points of roll 1)")
    assert later.inner_text().split() == ["20"] and "by-roll" not in later.get_attribute("class")
    # the phone turned into a laptop's window: the side's history, hidden at phone width, is drawn now
    assert page.locator("#side li").count() == 0
    page.set_viewport_size({"width": 1280, "height": 800})
    page.wait_for_function("() => document.querySelectorAll('#side ol.history li').length === 2")
