"""Score-keeper for real dice: pages, JSON API, the live socket, and the offline web app files."""

from __future__ import annotations

import io
from typing import Any

from fastapi import APIRouter, Depends, Request, WebSocket
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ...web import STATIC
from ...web.i18n import error_message, js_strings, labels, ruleset_name
from ..deps import Lang, check_rate, get_lang
from ..keeper import schema
from ..keeper.manager import KeeperManager
from ..keeper.schema import MAX_PLAYERS, EntryIn, KeeperError, SheetIn
from ..keeper.view import keeper_view, record_dict
from ..live import CLOSE_ORIGIN, CLOSE_UNKNOWN, Connection, RequestError, dumps, error, same_origin, serve_socket
from .pages import _presets, _render, boot_json, rules_from_form

router = APIRouter()
FORM_PLAYERS = 8


def _keeper(request: Request) -> KeeperManager:
    return request.app.state.keeper


# --- pages ------------------------------------------------------------------------------------------


def _new_page(request: Request, lang: str, status: int = 200, error: str | None = None) -> HTMLResponse:
    return _render(
        request,
        "keeper_new.html",
        lang,
        status=status,
        presets=_presets(lang),
        chosen="yams",
        form_players=FORM_PLAYERS,
        max_players=MAX_PLAYERS,
        error=error,
    )


@router.get("/keep", response_class=HTMLResponse)
@router.get("/keep/", response_class=HTMLResponse)
def new_sheet_page(request: Request, lang: Lang) -> HTMLResponse:
    return _new_page(request, lang)


@router.post("/keep")
async def create_from_form(request: Request, lang: Lang) -> Response:
    form = await request.form()
    keeper = _keeper(request)
    players = [str(form.get(f"player{i}", "")).strip() for i in range(MAX_PLAYERS)]
    players = [p for p in players if p]
    try:
        check_rate(request)
        preset, options, custom = await rules_from_form(form)
        if not players:
            raise KeeperError("input/players", "name at least one player", 422)
        sheet = keeper.create(
            SheetIn(
                name=str(form.get("name", ""))[:200],
                preset=preset,
                options=options,
                rules=custom,
                players=players[:MAX_PLAYERS],
            )
        )
    except RequestError as exc:  # KeeperError, rate/limited, server/full
        return _new_page(
            request,
            lang,
            status=400 if exc.status == 422 else exc.status,
            error=error_message(exc.code, lang) or exc.message,
        )
    except ValueError as exc:  # pydantic: bounds of the form
        return _new_page(request, lang, status=400, error=str(exc).splitlines()[0][:200])
    return RedirectResponse(f"/keep/{sheet.id}", status_code=303)


@router.get("/keep/join")
def join_by_code(request: Request, lang: Lang, code: str = "") -> Response:
    try:
        check_rate(request)  # a code is the key to a sheet: guessing codes costs the client's budget
        sheet = _keeper(request).by_code(code)
    except RequestError as exc:  # KeeperError, rate/limited
        return _new_page(
            request,
            lang,
            status=exc.status if exc.status == 429 else 404,
            error=error_message(exc.code, lang) or exc.message,
        )
    return RedirectResponse(f"/keep/{sheet.id}", status_code=303)


@router.get("/k/{code}")
def short_link(request: Request, code: str, lang: Lang) -> Response:
    return join_by_code(request, lang, code)


@router.get("/keep/sw.js")
def service_worker() -> Response:
    return Response(
        (STATIC / "keeper-sw.js").read_text(encoding="utf-8"),
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/keep/manifest.webmanifest")
def manifest(lang: Lang) -> Response:
    data = {
        "name": "yambak score-keeper",
        "short_name": "yambak",
        "start_url": "/keep/",
        "scope": "/keep/",
        "display": "standalone",
        "background_color": "#f6f4ef",
        "theme_color": "#1f6f4a",
        "lang": lang,
        "icons": [{"src": "/static/keeper-icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
    }
    return JSONResponse(data, media_type="application/manifest+json")


@router.get("/keep/{sheet_id}", response_class=HTMLResponse)
def sheet_page(request: Request, sheet_id: str, lang: Lang) -> HTMLResponse:
    try:
        sheet = _keeper(request).get(sheet_id)
    except KeeperError:
        return _render(request, "missing.html", lang, status=404)
    view = keeper_view(sheet)
    boot = {
        "sheet": sheet.id,
        "view": view,
        "labels": labels(lang, view["rules"]["preset"]),
        "strings": js_strings(lang),
        "lang": lang,
    }
    return _render(
        request,
        "keeper.html",
        lang,
        sheet=sheet,
        view=view,
        boot=boot_json(boot),
        rules_name=ruleset_name(view["rules"]["id"], view["rules"]["name"], lang),
    )


@router.get("/keep/{sheet_id}/qr.svg")
def qr_code(request: Request, sheet_id: str) -> Response:
    sheet = _keeper(request).get(sheet_id)
    try:
        import segno
    except ImportError:
        raise KeeperError("server/no-qr", "QR codes need the segno package on the server", 503) from None
    url = str(request.base_url).rstrip("/") + f"/k/{sheet.code}"
    buf = io.BytesIO()
    segno.make(url, error="m").save(
        buf, kind="svg", scale=5, border=2, xmldecl=False, svgns=True, title=f"yambak {sheet.code}"
    )
    return Response(buf.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


@router.get("/keep/{sheet_id}/record.json")
def sheet_record(request: Request, sheet_id: str) -> JSONResponse:
    sheet = _keeper(request).get(sheet_id)
    return JSONResponse(
        record_dict(sheet.state), headers={"Content-Disposition": f'attachment; filename="yambak-keep-{sheet.id}.json"'}
    )


# --- JSON API -----------------------------------------------------------------------------------------


@router.post("/api/keep", status_code=201, dependencies=[Depends(check_rate)])
def api_create(request: Request, body: SheetIn) -> JSONResponse:
    sheet = _keeper(request).create(body)
    return JSONResponse({"id": sheet.id, "code": sheet.code, "url": f"/keep/{sheet.id}"}, status_code=201)


@router.get("/api/keep/code/{code}", dependencies=[Depends(check_rate)])
def api_by_code(request: Request, code: str) -> dict[str, Any]:
    sheet = _keeper(request).by_code(code)
    return {"id": sheet.id, "url": f"/keep/{sheet.id}"}


@router.get("/api/keep/{sheet_id}")
def api_view(request: Request, sheet_id: str) -> dict[str, Any]:
    return keeper_view(_keeper(request).get(sheet_id))


@router.post("/api/keep/{sheet_id}/entries")
async def api_entry(request: Request, sheet_id: str, body: EntryIn) -> dict[str, Any]:
    keeper = _keeper(request)
    sheet = keeper.get(sheet_id)
    result = await keeper.enter(sheet, body)
    return {**result, "view": keeper_view(sheet)}


# --- the live socket: read-only, the view after every accepted entry ------------------------------------


@router.websocket("/ws/keep/{sheet_id}")
async def sheet_socket(ws: WebSocket, sheet_id: str) -> None:
    keeper: KeeperManager = ws.app.state.keeper
    await ws.accept()
    if not same_origin(ws):
        await ws.send_text(dumps(error("auth/origin", "this socket belongs to pages of this site")))
        await ws.close(code=CLOSE_ORIGIN)
        return
    try:
        sheet = keeper.get(sheet_id)
    except RequestError as exc:
        await ws.send_text(dumps(error(exc.code, exc.message)))
        await ws.close(code=CLOSE_UNKNOWN)
        return
    conn = Connection(joined=True, lang=get_lang(ws))
    sheet.conns.add(conn)
    conn.send({"type": "state", "v": sheet.version, "view": keeper_view(sheet)})

    async def handle(msg: Any, ref: Any) -> None:
        if isinstance(msg, schema.Ping):
            conn.send({"type": "pong"})
        else:  # hello: the sheet as it is now
            conn.send({"type": "state", "v": sheet.version, "view": keeper_view(sheet)})

    try:
        await serve_socket(
            ws, conn, ws.app.state.settings, schema.MESSAGE_TYPES, schema.client_message.validate_python, handle
        )
    finally:
        sheet.conns.discard(conn)
        keeper.release(sheet)
