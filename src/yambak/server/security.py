"""Security headers on every response, and HEAD wherever GET.

The pages run only this site's own script files (no inline script, no eval): the policy allows
`'self'` and nothing else, except under `/keep`: the score-keeper runs its engine in a worker made
from a blob of `/keep/worker.js` (so that its service worker answers the worker's requests offline),
which inherits the page's policy and compiles Pyodide's WebAssembly: `worker-src blob:` and
`'wasm-unsafe-eval'` (not `'unsafe-eval'`) there and nowhere else. No page may be framed, nothing
is sniffed, no referrer leaves the site (a sheet's or a tournament's code in a URL stays here), and
the browser features the site never uses are off. Behind HTTPS (`Settings.https`, `YAMBAK_HTTPS=1`)
browsers are also told to use HTTPS only (HSTS), and cookies are `Secure`.

A page (HTML) is never kept by the browser unless its route says otherwise: pressing Back after a game
would show "My games", the lobby or a board from before the game, as if the game had not been played
(`no-cache` is not enough: Chrome shows a history entry from its cache without asking).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SecurityHeaders", "security_headers"]

_POLICY = (
    "default-src 'self'; script-src 'self'{wasm}; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "worker-src 'self'{blob}; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
_COMMON = {
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
    "cross-origin-opener-policy": "same-origin",
}
HSTS = "max-age=31536000"
PAGE_CACHE = (b"cache-control", b"no-store")


def security_headers(path: str, https: bool) -> dict[str, str]:
    """The headers every response to `path` carries."""
    keeper = path == "/keep" or path.startswith("/keep/")
    policy = _POLICY.format(wasm=" 'wasm-unsafe-eval'" if keeper else "", blob=" blob:" if keeper else "")
    out = {**_COMMON, "content-security-policy": policy}
    if https:
        out["strict-transport-security"] = HSTS
    return out


def _page(headers: list[tuple[bytes, bytes]]) -> bool:
    """An HTML response whose route set no Cache-Control of its own."""
    keys = {k.lower(): v for k, v in headers}
    return keys.get(b"content-type", b"").startswith(b"text/html") and b"cache-control" not in keys


class SecurityHeaders:
    """ASGI middleware (the outermost of the app's own): the headers on every HTTP response, and a HEAD
    request answered as its GET would be, without the body."""

    def __init__(self, app: Any, https: bool = False) -> None:
        self.app, self.https = app, https

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        head = scope["method"] == "HEAD"
        if head:
            scope = {**scope, "method": "GET"}
        extra = [(k.encode(), v.encode()) for k, v in security_headers(scope["path"], self.https).items()]

        async def send_secured(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                names = {k for k, _ in extra}
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                if _page(headers):
                    headers.append(PAGE_CACHE)
                message = {**message, "headers": headers + extra}
            elif head and message["type"] == "http.response.body":
                message = {**message, "body": b""}
            await send(message)

        await self.app(scope, receive, send_secured)
