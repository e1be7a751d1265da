"""Web Push, the browser's half, in Chromium: at an asynchronous table, with notifications allowed, the page
registers the push service worker (served by the app, under the site's policy); a push delivered to it
(CDP's `ServiceWorker.deliverPushMessage`, as a push service would) shows as a notification with the
server's title, body and tag, and a link only into the site. With no push service reachable from here the
page's subscription fails, quietly: the page goes on with no error."""

from __future__ import annotations

import dataclasses
import json
import time
from typing import Any

from yambak.server import Settings, create_app

from .conftest import app_in_thread
from .table_helpers import ready

NOTIFICATIONS = """async () => {
  const reg = await navigator.serviceWorker.getRegistration("/");
  if (!reg) return [];
  return (await reg.getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
}"""


def _until(check: Any, page: Any, seconds: float = 15) -> Any:
    """The first truthy answer of `check` within the time (the page's events run meanwhile)."""
    deadline = time.monotonic() + seconds
    while not (answer := check()) and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    return answer


def test_a_push_shows_a_notification_that_links_into_the_site(browser: Any, tmp_path: Any) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path}/push.db", warm_strategies=False, coach_process=False)
    app = create_app(settings)
    with app_in_thread(app) as base:
        ctx = browser.new_context(permissions=["notifications"])
        ctx.set_default_timeout(10000)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        cdp = ctx.new_cdp_session(page)
        registrations: dict[str, str] = {}
        cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda e: registrations.update({r["scopeURL"]: r["registrationId"] for r in e["registrations"]}),
        )
        versions: list[dict[str, Any]] = []  # what Chromium says of the worker, to tell a failure's story
        cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.extend(e["versions"]))
        cdp.on("ServiceWorker.workerErrorReported", lambda e: errors.append(str(e)))
        cdp.send("ServiceWorker.enable")

        seats = [{"kind": "human", "name": "Ann"}, {"kind": "open"}]
        quick = page.request.post(base + "/api/tables", data={"name": "Quick", "preset": "yams", "seats": seats})
        page.goto(base + quick.json()["url"])  # a game played in one sitting: no push worker
        ready(page)
        page.wait_for_function("() => !!document.body.dataset.push")  # the page decided about pushes
        assert page.evaluate("document.body.dataset.push") == "no"
        assert not page.evaluate("navigator.serviceWorker.getRegistration('/').then((r) => !!r)")
        made = page.request.post(base + "/api/tables", data={"name": "Over days", "preset": "yams", "seats": seats})
        assert made.ok, made.text()
        table_id = made.json()["id"]
        table = app.state.manager.sessions[table_id]  # a turn of an hour: a game played over days
        table.settings = dataclasses.replace(table.settings, clock=3600)
        page.goto(base + made.json()["url"])
        ready(page)
        # a push service pushes only to a subscription, made once the worker is activated (not activating:
        # Chromium may drop a push delivered to a worker still running its activate handler)
        active = "navigator.serviceWorker.getRegistration('/').then((r) => r && r.active && r.active.state)"
        assert _until(lambda: page.evaluate(active) == "activated", page), "the push service worker was not activated"
        assert page.evaluate("navigator.serviceWorker.getRegistration('/').then((r) => r.active.scriptURL)") == (
            base + "/push-sw.js"
        )
        assert _until(lambda: base + "/" in registrations, page)
        assert page.evaluate("document.body.dataset.push") != "no"  # this page asked for pushes

        def deliver(payload: dict[str, Any]) -> None:
            data = json.dumps(payload)
            cdp.send(
                "ServiceWorker.deliverPushMessage",
                {"origin": base, "registrationId": registrations[base + "/"], "data": data},
            )

        url = f"/t/{table_id}"
        deliver({"title": "Your turn", "body": "Over days: it is your turn.", "url": url, "tag": f"turn-{table_id}"})
        shown = _until(lambda: page.evaluate(NOTIFICATIONS), page)
        assert shown, (versions[-3:], errors)
        assert shown == [
            {
                "title": "Your turn",
                "body": "Over days: it is your turn.",
                "tag": f"turn-{table_id}",
                "data": {"url": url},
            }
        ]

        # a newer message about the table replaces the older; a link out of the site leads home instead
        deliver(
            {"title": "Your turn ends soon", "body": "…", "url": "https://evil.example/", "tag": f"turn-{table_id}"}
        )
        shown = _until(lambda: [n for n in page.evaluate(NOTIFICATIONS) if n["title"] != "Your turn"], page)
        assert [(n["title"], n["data"]) for n in shown] == [("Your turn ends soon", {"url": "/"})]
        for i, outside in enumerate(("/\\evil.example/x", "/\t/evil.example/")):  # read as another host
            deliver({"title": f"Elsewhere {i}", "body": "…", "url": outside, "tag": f"turn-{table_id}"})
            shown = _until(lambda: [n for n in page.evaluate(NOTIFICATIONS) if n["title"] == f"Elsewhere {i}"], page)  # noqa: B023
            assert shown and shown[0]["data"] == {"url": "/"}, (outside, shown)
        # the subscription failed quietly: only Chromium's own word that its contexts here have no Push API
        assert [e for e in errors if "does not support the Push API" not in e] == []
        ctx.close()
