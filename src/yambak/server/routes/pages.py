"""Server-rendered pages: the lobby, the table page (the invite link), joining, rematch, record."""

from __future__ import annotations

import json
from typing import Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from ...rules import RulesetError, preset_ids
from ...rules.loader import preset_data
from ...web import TEMPLATES
from ...web.i18n import (
    LANGUAGES,
    NAME_ERROR,
    error_message,
    error_texts,
    js_strings,
    labels,
    option_description,
    ruleset_description,
    ruleset_name,
    translations,
)
from ..deps import LANG_COOKIE, AppSettings, Lang, Manager, Tokens, add_tokens, check_rate
from ..live import RequestError
from ..options import format_value, parse_option_text
from ..tables.manager import TableError, hash_token
from ..tables.view import table_view
from .api import record_response, start_rematch

router = APIRouter()
templates = Jinja2Templates(directory=str(TEMPLATES))
FORM_SEATS = 8


def _presets(lang: str) -> list[dict[str, Any]]:
    out = []
    for pid in preset_ids():
        data = preset_data(pid)
        opts = {
            k: {
                "default": format_value(v.get("default")),
                "description": option_description(k, v.get("description", ""), lang),
            }
            for k, v in data.get("options", {}).items()
        }
        out.append(
            {
                "id": pid,
                "name": ruleset_name(pid, data.get("name", pid), lang),
                "description": ruleset_description(pid, data.get("description", ""), lang),
                "options": opts,
            }
        )
    return out


def _listed(manager: Any, lang: str) -> list[dict[str, Any]]:
    """The lobby's tables, each with its ruleset's name in the page's language."""
    return [{**t, "rules_name": ruleset_name(t.get("rules"), t.get("rules_name", ""), lang)} for t in manager.listed()]


def boot_json(data: dict[str, Any]) -> str:
    """JSON for a <script type="application/json"> block: <, > and & escaped so that no
    player or table name can close the script element."""
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _render(request: Request, name: str, lang: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    tr = translations(lang)
    ctx.update(_=tr.gettext, lang=lang, languages=LANGUAGES)
    response = templates.TemplateResponse(request, name, ctx, status_code=status)
    if request.query_params.get("lang") in LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=60 * 60 * 24 * 365, samesite="lax")
    return response


@router.get("/", response_class=HTMLResponse)
def lobby(request: Request, manager: Manager, lang: Lang, error: str | None = None) -> HTMLResponse:
    return _render(
        request,
        "lobby.html",
        lang,
        tables=_listed(manager, lang),
        presets=_presets(lang),
        form_seats=FORM_SEATS,
        error=None,
    )


@router.post("/tables")
async def create_from_form(
    request: Request, manager: Manager, tokens: Tokens, settings: AppSettings, lang: Lang
) -> Response:
    form = await request.form()
    try:
        check_rate(request)
        preset = str(form.get("preset", ""))
        if preset not in preset_ids():
            raise TableError("input/rules", "choose a ruleset")
        try:
            options = parse_option_text(preset, str(form.get("options", "")))
        except RulesetError as exc:
            raise TableError("input/rules", str(exc)) from None
        seats = []
        for i in range(FORM_SEATS):
            kind = str(form.get(f"seat{i}_kind", "none"))
            if kind == "none":
                continue
            seat: dict[str, Any] = {"kind": kind, "name": str(form.get(f"seat{i}_name", "")).strip() or None}
            if kind.startswith("bot-"):  # "bot-easy", "bot-medium", "bot-hard"
                seat.update(kind="bot", bot=kind[len("bot-") :])
            seats.append(seat)
        table, new = manager.create(
            str(form.get("name", "")),
            preset,
            options,
            seats,
            form.get("listed") is not None,
            form.get("duplicate") is not None,
        )
    except RequestError as exc:
        return _render(
            request,
            "lobby.html",
            lang,
            status=exc.status,
            tables=_listed(manager, lang),
            presets=_presets(lang),
            form_seats=FORM_SEATS,
            error=error_message(exc.code, lang) or exc.message,
        )
    manager.schedule_bots(table)
    response = RedirectResponse(f"/t/{table.id}", status_code=303)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    return response


def _table_page(
    request: Request, table: Any, tokens: list[str], lang: str, status: int = 200, error: str | None = None
) -> HTMLResponse:
    seats = frozenset(table.seats_for({hash_token(t) for t in tokens}))
    view = table_view(table, seats)
    boot = {
        "table": table.id,
        "seats": sorted(seats),
        "view": view,
        "labels": labels(lang),
        "strings": js_strings(lang),
        "errors": error_texts(lang),
    }
    return _render(
        request,
        "table.html",
        lang,
        status=status,
        table=table,
        view=view,
        seats=sorted(seats),
        rules_name=ruleset_name(view["rules"]["id"], view["rules"]["name"], lang),
        boot=boot_json(boot),
        open_seats=view["open_seats"],
        error=error,
    )


def _find(manager: Any, table_id: str) -> Any:
    """The live table, or None where there is no such table (other errors propagate)."""
    try:
        return manager.get(table_id)
    except RequestError as exc:
        if exc.status == 404:
            return None
        raise


@router.get("/t/{table_id}", response_class=HTMLResponse)
def table_page(request: Request, table_id: str, manager: Manager, tokens: Tokens, lang: Lang) -> HTMLResponse:
    table = _find(manager, table_id)
    if table is None:
        return _render(request, "missing.html", lang, status=404)
    return _table_page(request, table, tokens, lang)


@router.post("/t/{table_id}/join")
async def join_form(
    request: Request,
    table_id: str,
    manager: Manager,
    tokens: Tokens,
    settings: AppSettings,
    lang: Lang,
    name: str = Form("", max_length=200),
) -> Response:
    table = _find(manager, table_id)
    if table is None:
        return _render(request, "missing.html", lang, status=404)
    try:
        check_rate(request)
        _, token = await manager.join(table, name)
    except RequestError as exc:
        text = error_message(exc.code, lang) or (
            translations(lang).gettext(NAME_ERROR) if exc.code == "input/invalid" else exc.message
        )
        return _table_page(request, table, tokens, lang, status=exc.status, error=text)
    response = RedirectResponse(f"/t/{table.id}", status_code=303)
    add_tokens(response, tokens, [token], settings.secure_cookies)
    return response


@router.post("/t/{table_id}/rematch", dependencies=[Depends(check_rate)])
async def rematch_form(table_id: str, manager: Manager, tokens: Tokens) -> Response:
    new = await start_rematch(manager, table_id, tokens)
    return RedirectResponse(f"/t/{new.id}", status_code=303)


@router.get("/t/{table_id}/record.json")
def record_download(table_id: str, manager: Manager) -> JSONResponse:
    return record_response(manager, table_id)
