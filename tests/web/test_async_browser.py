"""An asynchronous table (a day per turn): the friend's page, hidden behind another tab, shows a notification
when their turn comes, its clock counts hours, and their lobby lists the table under "your turn"."""

from __future__ import annotations

import re

from .table_helpers import LAPTOP, PHONE, join, play_turn, start, wait_my_turn_or_end

RECORD_NOTIFICATIONS = """(() => { window.shown = []; const N = window.Notification;
  window.Notification = class extends N {
    constructor(t, o) { super(t, o); window.shown.push([t, o && o.body]); } };
  Object.defineProperty(document, 'hidden', { get: () => !!window.away }); })()"""


def test_an_asynchronous_table_with_a_notification(base_url, new_page, browser):
    ann = new_page(viewport=LAPTOP)
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "open"}]
    table = start(ann, base_url, "yams", seats=seats, clock=86400)
    assert ann.evaluate("Notification.permission") == "default"
    ann.wait_for_selector("#notify-me", state="visible")  # asked at a game over days, even alone at it
    friend = browser.new_context(viewport=PHONE, has_touch=True)
    friend.grant_permissions(["notifications"], origin=base_url)
    friend.add_init_script(RECORD_NOTIFICATIONS)  # headless notifications are seen only this way
    bram = friend.new_page()
    try:
        join(bram, base_url, table, "Bram")
        assert "A game over days: 1d per turn" in bram.inner_text("#table-settings")
        bram.evaluate("window.away = true")  # the page in a tab behind another
        assert wait_my_turn_or_end(ann)
        play_turn(ann)
        bram.wait_for_function("() => window.shown.length > 0")
        assert bram.evaluate("window.shown")[0][0] == "Your turn"
        assert re.search(r"\b(1d|23h \d+m)\b", bram.inner_text("#chips")), bram.inner_text("#chips")  # hours left
        lobby = friend.new_page()
        lobby.goto(base_url + "/")
        card = lobby.wait_for_selector(f"#your-turns a[href='/t/{table}']")
        assert "Your turn" in card.inner_text() and "left" in card.inner_text()
        lobby.goto(base_url + "/?lang=fr")  # the time left written the French way
        card = lobby.wait_for_selector(f"#your-turns a[href='/t/{table}']")
        assert re.search(r"\b(1j|23h \d+min) restant", card.inner_text()), card.inner_text()
    finally:
        friend.close()
