"""The app's OpenAPI schema as the server answers: the media type each route sends (CSV, zip, SVG,
JavaScript, HTML, a redirect: not all JSON), and the coded answers (`{"code", "message"}`) it may give,
4xx and busy, in place of FastAPI's validation shape, which this server never sends; a page's refusals
are pages (HTML) as well.

Every route may refuse bad input (400, 422), want a profile or a seat (401), refuse another site or
someone not allowed (403), find nothing by the ids given (404), meet a state that refuses it (409), be
asked too fast (429), find it gone (410) or the database restarting (503); one that changes something
also answers 411 and 413 (its body). The Schemathesis run (`tests/server/test_fuzz.py`) holds every
answer it gets to this list, its media types and its shapes.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

__all__ = ["ERROR", "document"]

ERROR = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "string", "description": "stable: what the client may act on"},
        "message": {"type": "string", "description": "in the client's language, for a person"},
    },
}

# routes that answer something other than JSON: (method, path) -> (status, media type)
MEDIA: dict[tuple[str, str], tuple[int, str]] = {
    ("get", "/t/{table_id}/qr.svg"): (200, "image/svg+xml"),
    ("get", "/keep/{sheet_id}/qr.svg"): (200, "image/svg+xml"),
    ("get", "/keep/sw.js"): (200, "text/javascript"),
    ("get", "/keep/worker.js"): (200, "text/javascript"),
    ("get", "/push-sw.js"): (200, "text/javascript"),
    ("get", "/keep/engine.zip"): (200, "application/zip"),
    ("get", "/keep/manifest.webmanifest"): (200, "application/manifest+json"),
    ("get", "/api/me/export.csv"): (200, "text/csv"),
    ("get", "/keep/{sheet_id}/sheet.csv"): (200, "text/csv"),
    ("get", "/keep/group/{group_id}/season.csv"): (200, "text/csv"),
}

REASONS = {
    400: "refused: bad input or an action the rules do not allow now",
    401: "no profile on this device, or no seat token that may do it",
    403: "not allowed: another site's page, or not this one's organiser or owner",
    404: "nothing by that id (or it is private)",
    409: "in conflict with the state: already done, over, closed or taken",
    410: "gone: it was deleted",
    411: "a body must say its length",
    413: "the body is too large",
    422: "the input does not have the required shape",
    429: "too many requests from this address: try again in a moment",
    503: "busy (the database restarting, a server of the cluster not answering): try again",
}

EVERY = (400, 401, 403, 404, 409, 410, 422, 429, 503)
CHANGES = (411, 413)
# success answers beyond the one FastAPI documents: (method, path) -> (status, what)
OTHER_SUCCESS: dict[tuple[str, str], tuple[int, str]] = {
    ("post", "/api/me"): (200, "the device has a profile already: it is answered"),
    ("delete", "/api/me"): (204, "deleted"),
    ("delete", "/api/me/devices/{device}"): (204, "signed out"),
    ("post", "/api/push/unsubscribe"): (204, "unsubscribed"),
}


def _coded(method: str) -> list[int]:
    return sorted(set(EVERY) | (set(CHANGES) if method != "get" else set()))


def document(app: FastAPI) -> None:
    """The app's `openapi()` gives the schema above (built once, as FastAPI's own)."""

    def schema() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        out = get_openapi(title=app.title, version=app.version, routes=app.routes)
        out.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR
        for name in ("HTTPValidationError", "ValidationError"):
            out["components"]["schemas"].pop(name, None)
        for path, ops in out.get("paths", {}).items():
            for method, op in ops.items():
                responses = op.setdefault("responses", {})
                responses.pop("422", None)
                if (method, path) in MEDIA:
                    status, media = MEDIA[(method, path)]
                    responses.pop("200", None)
                    responses[str(status)] = {"description": "the file", "content": {media: {}}}
                elif not path.startswith("/api/") and not path.endswith(".json"):  # a page (or a form's)
                    for answer in responses.values():
                        if answer.get("content") == {"application/json": {"schema": {}}}:
                            answer["content"] = {"text/html": {"schema": {"type": "string"}}}
                if (method, path) in OTHER_SUCCESS:
                    status, what = OTHER_SUCCESS[(method, path)]
                    responses[str(status)] = {"description": what}
                coded: dict[str, Any] = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
                if not path.startswith("/api/"):  # a page, or a page's form: its refusals are pages too
                    coded = {**coded, "text/html": {"schema": {"type": "string"}}}
                for status in _coded(method):
                    responses[str(status)] = {"description": REASONS[status], "content": coded}
        app.openapi_schema = out
        return out

    app.openapi = schema  # type: ignore[method-assign]
