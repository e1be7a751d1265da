"""Security headers on every response (pages, API, static files, errors, a crash), HEAD wherever GET,
HSTS and Secure cookies only behind HTTPS, no inline script in any template, and the documented
nginx logging that keeps the codes of URLs out of its logs. (`tests/web/test_csp_browser.py` opens
every page under the policy in Chromium.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from yambak.server import Settings, create_app
from yambak.web import TEMPLATES

ROOT = Path(__file__).resolve().parents[2]
HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy")


@pytest.fixture
def secure(tmp_path: Path) -> Iterator[TestClient]:
    """A server told it runs behind HTTPS."""
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/s.db", warm_strategies=False, https=True))
    with TestClient(app, base_url="https://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def _checked(r) -> None:  # type: ignore[no-untyped-def]
    for name in HEADERS:
        assert name in r.headers, (r.request.method, r.request.url, r.status_code, name)
    assert r.headers["x-content-type-options"] == "nosniff" and r.headers["referrer-policy"] == "same-origin"
    assert "camera=()" in r.headers["permissions-policy"]
    policy = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    keeper = r.request.url.path.startswith("/keep")
    assert ("'wasm-unsafe-eval'" in policy) == keeper and ("blob:" in policy) == keeper


def test_every_kind_of_response_has_the_headers(client: TestClient) -> None:
    app = client.app

    @app.get("/boom")  # type: ignore[attr-defined]
    def boom() -> None:
        raise RuntimeError("a bug")

    crash = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    responses = [
        client.get("/"), client.get("/api/tables"), client.get("/static/style.css"), client.get("/nope"),
        client.post("/healthz"), client.post("/api/tables", json={}), client.get("/keep/"),
        client.get("/keep/worker.js"),
        client.post("/api/tables", content=b"x" * 20000, headers={"content-type": "application/json"}),
        client.get("/rules/yams"), crash.get("/boom"), client.head("/"), client.get("/push-sw.js"),
    ]  # fmt: skip
    assert [r.status_code for r in responses] == [200, 200, 200, 404, 405, 422, 200, 200, 413, 200, 500, 200, 200]
    for r in responses:
        _checked(r)
    assert "strict-transport-security" not in responses[0].headers  # not behind HTTPS: no HSTS


def test_pages_are_not_kept_by_the_browser_other_responses_as_their_routes_say(client: TestClient) -> None:
    """Back after a game must not show "My games" as it was before it (tests/web/test_profiles_browser.py
    presses Back in Chromium): every page is `no-store`, unless its route chose a Cache-Control."""
    for path in ("/", "/me", "/daily", "/rules/yams", "/strategy/yams", "/keep/", "/t/nosuchtable"):
        r = client.get(path)
        assert r.headers["content-type"].startswith("text/html"), path
        assert r.headers["cache-control"] == "no-store", path
    assert "cache-control" not in client.get("/api/tables").headers  # JSON: fetched, never navigated back to
    assert client.get("/static/style.css").headers.get("cache-control") != "no-store"
    assert client.get("/robots.txt").headers["cache-control"] == "max-age=86400"  # the route's own stands


def test_head_wherever_get(client: TestClient) -> None:
    """Every GET route without parameters, a table's page and a static file: HEAD answers what GET does,
    headers and length included, without the body."""
    from fastapi.routing import iter_route_contexts

    made = client.post("/api/tables", json={"name": "H", "preset": "yams", "seats": [{"name": "Ann"}]}).json()
    paths = [f"/t/{made['id']}", f"/api/tables/{made['id']}", "/static/page.js"]
    for context in iter_route_contexts(client.app.routes):  # type: ignore[attr-defined]
        if "GET" in (getattr(context.route, "methods", None) or ()) and "{" not in context.path:
            paths.append(context.path)
    assert len(paths) > 20
    for path in paths:
        get, head = client.get(path), client.head(path)
        assert head.status_code == get.status_code != 405, path
        assert head.content == b"" and head.headers.get("content-type") == get.headers.get("content-type"), path
        if "content-length" in get.headers and path not in ("/metrics", "/readyz", "/healthz"):
            assert head.headers["content-length"] == get.headers["content-length"], path
        _checked(head)


def test_behind_https_hsts_and_secure_cookies(secure: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    r = secure.post("/api/tables", json={"name": "S", "preset": "yams", "seats": [{"name": "Ann"}]})
    assert r.status_code == 201
    assert r.headers["strict-transport-security"].startswith("max-age=")
    cookies = r.headers.get_list("set-cookie")
    assert cookies and all("secure" in c.lower() for c in cookies), cookies
    assert secure.get("/static/style.css").headers["strict-transport-security"]
    monkeypatch.setenv("YAMBAK_HTTPS", "1")
    assert Settings().https and Settings().secure_cookies
    monkeypatch.setenv("YAMBAK_HTTPS", "0")
    assert not Settings().https


def test_plain_http_cookies_are_not_secure(client: TestClient) -> None:
    r = client.post("/api/tables", json={"name": "S", "preset": "yams", "seats": [{"name": "Ann"}]})
    assert all("secure" not in c.lower() for c in r.headers.get_list("set-cookie"))


def test_no_template_has_an_inline_script() -> None:
    """Scripts are files ('self'); a <script> in a template only carries JSON data (never run)."""
    for path in sorted(TEMPLATES.glob("*.html")):
        text = path.read_text(encoding="utf-8")
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag or 'type="application/json"' in tag, (path.name, tag)
        assert not re.search(r"\son[a-z]+\s*=", text), path.name  # no onclick= and the like
        assert "javascript:" not in text and "style=" not in text, path.name


# --- the documented nginx keeps codes out of its logs ----------------------------------------------------


def _nginx_logging() -> tuple[list[tuple[str, str]], str]:
    """The `map $request_uri $yambak_uri` entries and the `log_format` of docs/deployment.md."""
    doc = (ROOT / "docs" / "deployment.md").read_text(encoding="utf-8")
    block = re.search(r"map \$request_uri \$yambak_uri \{(.*?)\n\}", doc, re.S)
    fmt = re.search(r"log_format yambak '([^']*)'", doc)
    assert block and fmt, "docs/deployment.md: the nginx logging section is missing"
    entries = [tuple(line.strip().rstrip(";").split(None, 1)) for line in block.group(1).strip().splitlines()]
    return [(k, v) for k, v in entries if not k.startswith("#")], fmt.group(1)  # type: ignore[misc]


def _logged(uri: str, entries: list[tuple[str, str]]) -> str:
    """What nginx's map gives for a request URI: the first matching regex (`~`), captures substituted."""
    for key, value in entries:
        if key.startswith("~"):
            found = re.search(key[1:], uri)
            if found:
                out = value
                for i, group in enumerate(found.groups(), start=1):
                    out = out.replace(f"${i}", group or "")
                return out
    return dict(entries)["default"].replace("$uri", uri.split("?")[0])


def test_codes_in_urls_leave_no_trace_in_the_documented_nginx_logs() -> None:
    entries, fmt = _nginx_logging()
    assert "$request " not in fmt + " " and "$http_referer" not in fmt and "$yambak_uri" in fmt
    code, sheet, invite, move = "K7QPZ3", "AbCdEfGhIjKlMnOp", "s3cr3t-InViTe-c0de", "mOvEcOdE_longsecret24chars"
    requests = [
        f"/k/{code}", f"/api/keep/code/{code}", f"/keep/join?code={code}", f"/keep/{sheet}", f"/keep/{sheet}/qr.svg",
        f"/api/keep/{sheet}/entries", f"/ws/keep/{sheet}", f"/keep/{sheet}/record.json", f"/c/club123?invite={invite}",
        f"/me/move/{move}", f"/api/me/move/{move}", f"/t/table1?lang=fr&invite={invite}",
    ]  # fmt: skip
    for uri in requests:
        logged = _logged(uri, entries)
        for secret in (code, sheet, invite, move):
            assert secret not in logged, (uri, logged)
        assert logged.startswith("/"), (uri, logged)
    assert _logged("/static/style.css?v=3", entries) == "/static/style.css"  # no query string is ever logged
    assert _logged("/keep/engine.zip", entries) == "/keep/engine.zip" and _logged("/t/abc", entries) == "/t/abc"


def test_405_says_which_methods_the_path_answers(client: TestClient) -> None:
    """The issue: 405 answers lacked `Allow`. Every path without parameters, and a few with, named by
    the routes themselves: a method it does not answer gets 405 with every method it does (HEAD with GET)."""
    from fastapi.routing import iter_route_contexts

    contexts = list(iter_route_contexts(client.app.routes))  # type: ignore[attr-defined]
    paths = {c.path for c in contexts if "{" not in c.path} | {"/api/tables/{table_id}", "/c/{tournament_id}"}
    checked = 0
    for path in paths:
        url = path.replace("{table_id}", "abc").replace("{tournament_id}", "abc")
        answers = set()  # every route whose path matches, a parameter's too (/api/keep/join is a sheet's id)
        for c in contexts:
            if c.path_regex.match(url):
                answers |= getattr(c.route, "methods", None) or set()
        if not answers:
            continue  # a socket's path
        expected = answers | ({"HEAD"} if "GET" in answers else set())
        method = next(m for m in ("PUT", "PATCH", "DELETE", "POST") if m not in answers)
        r = client.request(method, url)
        assert r.status_code == 405 and r.json()["code"] == "http/method-not-allowed", (method, path)
        assert set(r.headers["allow"].split(", ")) == expected, (method, path, r.headers["allow"])
        _checked(r)
        checked += 1
    assert checked > 20
    assert client.post("/static/style.css").headers["allow"] == "GET, HEAD"


def test_the_schema_names_each_answers_media_type_and_every_coded_refusal(client: TestClient) -> None:
    """The issue: the OpenAPI schema documented no coded 4xx answer and called CSV, zip, SVG and JS JSON.
    The files a route sends carry the media type the schema gives them; every operation lists its coded
    refusals in the `{"code", "message"}` shape (test_fuzz.py holds every answer it gets to the list)."""
    spec = client.app.openapi()  # type: ignore[attr-defined]
    assert client.post("/api/me", json={"name": "Ann"}, headers={"origin": "http://127.0.0.1"}).status_code == 201
    table = client.post("/api/tables", json={"preset": "yams", "seats": [{"name": "Ann"}, {"kind": "open"}]}).json()
    paths = {
        "/api/me/export.csv": "/api/me/export.csv", "/keep/sw.js": "/keep/sw.js", "/push-sw.js": "/push-sw.js",
        "/keep/worker.js": "/keep/worker.js", "/t/{table_id}/qr.svg": f"/t/{table['id']}/qr.svg",
        "/keep/manifest.webmanifest": "/keep/manifest.webmanifest", "/": "/", "/api/tables": "/api/tables",
    }  # fmt: skip
    for path, url in paths.items():
        r = client.get(url)
        documented = list(spec["paths"][path]["get"]["responses"][str(r.status_code)]["content"])
        assert r.status_code == 200 and r.headers["content-type"].split(";")[0] == documented[0], (path, documented)
    assert "image/svg+xml" in spec["paths"]["/keep/{sheet_id}/qr.svg"]["get"]["responses"]["200"]["content"]
    assert "application/zip" in spec["paths"]["/keep/engine.zip"]["get"]["responses"]["200"]["content"]
    error = {"$ref": "#/components/schemas/Error"}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            coded = {s for s, a in op["responses"].items() if s.startswith("4")}
            assert {"400", "404", "409", "422", "429"} <= coded, (method, path, coded)
            assert all(op["responses"][s]["content"]["application/json"]["schema"] == error for s in coded)
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    refused = client.post("/api/tables", json={"preset": "nope"})
    assert refused.status_code in (400, 422) and set(refused.json()) >= {"code", "message"}
