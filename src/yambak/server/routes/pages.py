"""Server-rendered pages: the lobby, the table page (the invite link), joining, rematch, record."""

from __future__ import annotations

import io
from typing import Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from ...inputs import ascii_int
from ...rules import load_ruleset, preset_ids
from ...rules.loader import preset_data
from ...web.howto import howto
from ...web.i18n import (
    error_message,
    error_texts,
    js_strings,
    labels,
    ruleset_description,
    ruleset_name,
    table_title,
)
from ..common.asked import Asked
from ..common.pages import boot_json, download, preset_choices, render_page, rules_from_form
from ..common.tokens import hash_token
from ..daily.sealed import acheck, check
from ..deps import (
    HTML_FORM,
    AppSettings,
    Lang,
    Manager,
    Player,
    Tokens,
    add_tokens,
    aviewer_id,
    check_rate,
    playing_profile,
    profile_token,
    set_profile_cookie,
    viewer_id,
)
from ..live import RequestError
from ..options import option_schema
from . import strategy

router = APIRouter()
FORM_SEATS = 8


def _listed(manager: Any, lang: str) -> list[dict[str, Any]]:
    """The lobby's tables, each with its ruleset's name in the page's language."""
    return [
        {
            **t,
            "name": table_title(t["name"], t["players"], lang),
            "rules_name": ruleset_name(t.get("rules"), t.get("rules_name", ""), lang),
        }
        for t in manager.listed()
    ]


# Crawlers see the lobby, the daily challenge and the rules; nobody's games, profile, table or club.
ROBOTS = "User-agent: *\n" + "".join(
    f"Disallow: {p}\n" for p in ("/me", "/p/", "/replay/", "/t/", "/c/", "/clubs/", "/keep/", "/api/", "/ws/")
)


@router.get("/robots.txt", include_in_schema=False)
def robots() -> Response:
    return Response(ROBOTS, media_type="text/plain", headers={"Cache-Control": "max-age=86400"})


@router.get("/", response_class=HTMLResponse)
def lobby(request: Request, manager: Manager, lang: Lang) -> HTMLResponse:
    return _lobby(request, manager, lang)


def _lobby(
    request: Request, manager: Any, lang: str, status: int = 200, error: str | None = None, submitted: Any = None
) -> HTMLResponse:
    """The lobby; after a refused form, the form again as it was sent, open, the reason beside it."""
    profile = request.app.state.profiles.current(profile_token(request))
    boot = {"strings": js_strings(lang), "labels": labels(lang), "me": {"name": profile.name} if profile else None}
    form = {k: str(v) for k, v in submitted.multi_items() if isinstance(v, str)} if submitted is not None else {}
    return render_page(
        request,
        "lobby.html",
        lang,
        status=status,
        tables=_listed(manager, lang),
        presets=preset_choices(lang),
        chosen=form.get("preset") or "yams",
        form_seats=FORM_SEATS,
        error=error,
        form=form,
        boot=boot_json(boot),
    )


@router.post("/tables", **HTML_FORM)
async def create_from_form(
    request: Request, manager: Manager, tokens: Tokens, settings: AppSettings, lang: Lang
) -> Response:
    form = await request.form()
    try:
        check_rate(request)
        preset, options, custom = await rules_from_form(form)
        seats = []
        for i in range(FORM_SEATS):
            kind = str(form.get(f"seat{i}_kind", "none"))
            if kind == "none":
                continue
            seat: dict[str, Any] = {"kind": kind, "name": str(form.get(f"seat{i}_name", "")).strip() or None}
            if kind.startswith("bot-"):  # "bot-easy", "bot-medium", "bot-hard"
                seat.update(kind="bot", bot=kind[len("bot-") :])
            seats.append(seat)
        clock = str(form.get("clock", "") or "")
        asked: Asked = {
            "hints": form.get("hints") is not None,
            "undo": form.get("undo") is not None,
            "clock": ascii_int(clock, 10**6),
        }
        first = next((s for s in seats if s["kind"] == "human"), None)
        plan = manager.prepare(  # checked in full first: a refused form makes no profile and no table
            str(form.get("name", "")),
            preset,
            options,
            seats,
            form.get("listed") is not None,
            form.get("duplicate") is not None,
            asked,
            custom,
        )
        player = await playing_profile(request, first["name"]) if first else Player()
        table, new = await manager.aopen(plan, player.profile, player.device)
    except RequestError as exc:
        return _lobby(request, manager, lang, exc.status, error_message(exc.code, lang, exc.extra) or exc.message, form)
    manager.schedule_bots(table)
    response = RedirectResponse(_seated_at(table.id, player), status_code=303)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    if player.cookie is not None:
        set_profile_cookie(response, player.cookie, settings.secure_cookies)
    return response


# why a device sitting down got no profile: its table page says so, and what to do (`?refused=`)
PROFILE_REFUSALS = ("rate/profiles", "server/busy")


def _seated_at(table_id: str, player: Player) -> str:
    """The table page a player sits down to: with the reason they got no profile, if they did not."""
    refused = player.refused.code if player.refused is not None else None
    return f"/t/{table_id}" + (f"?refused={refused}" if refused in PROFILE_REFUSALS else "")


def _table_page(
    request: Request,
    table: Any,
    tokens: list[str],
    lang: str,
    me: Any,
    status: int = 200,
    error: str | None = None,
    notice: str | None = None,
) -> HTMLResponse:
    """`me`: the device's profile (None: it has none): the join form takes its name, and the results ask for
    its result only where there is one to ask for."""
    seats = frozenset(table.seats_for({hash_token(t) for t in tokens}))
    view = request.app.state.manager.view(table, seats)
    boot = {
        "table": table.id,
        "seats": sorted(seats),
        "profile": me is not None,
        "view": view,
        "labels": labels(lang, view["rules"]),
        "strings": js_strings(lang),
        "errors": error_texts(lang),
    }
    return render_page(
        request,
        "table.html",
        lang,
        status=status,
        noindex=True,
        table=table,
        title=table_title(table.name, [s.name for s in table.seats if s.kind == "human"], lang),
        view=view,
        seats=sorted(seats),
        rules_name=ruleset_name(view["rules"]["id"], view["rules"]["name"], lang),
        boot=boot_json(boot),
        open_seats=view["open_seats"],
        host=next((s.name for s in table.seats if s.kind == "human"), table.name),
        my_name=me.name if me is not None else "",
        error=error,
        notice=notice,
    )


def _find(manager: Any, table_id: str) -> Any:
    """The live table, or None where there is no such table (other errors propagate)."""
    try:
        return manager.get(table_id)
    except RequestError as exc:
        if exc.status == 404:
            return None
        raise


def _sealed_page(request: Request, table: Any, lang: str) -> HTMLResponse:
    """An open deal's game, asked for by someone who is not its player: when it will be shown."""
    closes = table.fairness.closes_at
    return render_page(
        request,
        "sealed.html",
        lang,
        status=403,
        noindex=True,
        closes_at=closes.isoformat() + "Z" if closes else None,
        boot=boot_json({"strings": js_strings(lang), "labels": labels(lang)}),
    )


@router.get("/t/{table_id}", response_class=HTMLResponse)
def table_page(
    request: Request, table_id: str, manager: Manager, tokens: Tokens, lang: Lang, refused: str = ""
) -> HTMLResponse:
    """`refused`: why this device got no profile as it sat down (one of `PROFILE_REFUSALS`: said on the page)."""
    table = _find(manager, table_id)
    if table is None:
        return render_page(request, "missing.html", lang, status=404)
    try:
        check(table, tokens, lambda: viewer_id(request))
    except RequestError:
        return _sealed_page(request, table, lang)
    me = request.app.state.profiles.current(profile_token(request))
    notice = error_message(refused, lang) if refused in PROFILE_REFUSALS and me is None else None
    return _table_page(request, table, tokens, lang, me, notice=notice)


@router.post("/t/{table_id}/join", **HTML_FORM)
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
        return render_page(request, "missing.html", lang, status=404)
    try:
        check(table, tokens, lambda: viewer_id(request))
    except RequestError:
        return _sealed_page(request, table, lang)
    try:
        check_rate(request)
        name = manager.check_join(table, name)  # before a profile is made for it
        player = await playing_profile(request, name)
        _, token = await manager.join(table, name, None, player.profile, player.device)
    except RequestError as exc:
        text = error_message(exc.code, lang, exc.extra) or (
            error_message("input/name", lang) if exc.code == "input/invalid" else exc.message
        )
        me = await request.app.state.profiles.acurrent(profile_token(request))
        return _table_page(request, table, tokens, lang, me, status=exc.status, error=text)
    response = RedirectResponse(_seated_at(table.id, player), status_code=303)
    add_tokens(response, tokens, [token], settings.secure_cookies)
    if player.cookie is not None:
        set_profile_cookie(response, player.cookie, settings.secure_cookies)
    return response


@router.post("/t/{table_id}/rematch", dependencies=[Depends(check_rate)], **HTML_FORM)
async def rematch_form(table_id: str, manager: Manager, tokens: Tokens) -> Response:
    new = await manager.rematch_for(table_id, tokens)
    return RedirectResponse(f"/t/{new.id}", status_code=303)


@router.get("/t/{table_id}/record.json")
def record_download(request: Request, table_id: str, manager: Manager, tokens: Tokens) -> JSONResponse:
    check(manager.get(table_id), tokens, lambda: viewer_id(request))  # an open deal's: its player's only
    return download(manager.downloadable_record(table_id), f"yambak-{table_id}.json")


@router.get("/t/{table_id}/review", response_class=HTMLResponse)
async def review_page(request: Request, table_id: str, manager: Manager, tokens: Tokens, lang: Lang) -> Response:
    """After the game: every decision that had a choice, what it lost, the biggest mistakes on the sheet."""
    table = _find(manager, table_id)
    if table is None:
        return render_page(request, "missing.html", lang, status=404)
    try:
        await acheck(table, tokens, lambda: aviewer_id(request))
    except RequestError:
        return _sealed_page(request, table, lang)
    if not table.state.finished:
        return RedirectResponse(f"/t/{table.id}", status_code=303)
    seats = frozenset(table.seats_for({hash_token(t) for t in tokens}))
    view = manager.view(table, seats)
    boot = {
        "table": table.id,
        "frames": f"/api/tables/{table.id}/frames/",
        "seats": sorted(seats),
        "view": view,
        "review": await manager.review(table),
        "labels": labels(lang, view["rules"]),
        "strings": js_strings(lang),
    }
    return render_page(
        request,
        "review.html",
        lang,
        noindex=True,
        title=table_title(table.name, [s.name for s in table.seats if s.kind == "human"], lang),
        back_url=f"/t/{table.id}",
        back_label=None,  # "Back to the table"
        record_url=None,
        strategy_url=f"/t/{table.id}/strategy",
        view=view,
        rules_name=ruleset_name(view["rules"]["id"], view["rules"]["name"], lang),
        boot=boot_json(boot),
    )


@router.get("/rules/{preset}", response_class=HTMLResponse)
def how_to_play(request: Request, preset: str, lang: Lang) -> HTMLResponse:
    """How to play a preset, written from its data in the page's language."""
    if preset not in preset_ids():
        return render_page(request, "missing.html", lang, status=404)
    rules = load_ruleset(preset)
    data = preset_data(preset)
    return render_page(
        request,
        "howto.html",
        lang,
        rules=rules,
        title=ruleset_name(preset, rules.name, lang),
        description=ruleset_description(preset, data.get("description", ""), lang),
        page=howto(rules, lang, labels(lang, rules)),
        schema=option_schema(preset, lang),
        boot=boot_json({"strings": {}, "labels": labels(lang, rules)}),
    )


@router.get("/t/{table_id}/rules", response_class=HTMLResponse)
def table_rules(request: Request, table_id: str, manager: Manager, lang: Lang) -> HTMLResponse:
    """How to play the rules this table plays: its options and house rules, not the preset's defaults."""
    table = _find(manager, table_id)
    if table is None:
        return render_page(request, "missing.html", lang, status=404)
    rules = table.state.rules
    return render_page(
        request,
        "howto.html",
        lang,
        rules=rules,
        title=ruleset_name(rules.id, rules.name, lang),
        description=ruleset_description(rules.preset, preset_data(rules.preset).get("description", ""), lang)
        if rules.preset in preset_ids()
        else "",
        page=howto(rules, lang, labels(lang, rules)),
        schema=None,
        back=f"/t/{table.id}",
        boot=boot_json({"strings": {}, "labels": labels(lang, rules)}),
    )


@router.get("/t/{table_id}/qr.svg")
def invite_qr(request: Request, table_id: str, manager: Manager) -> Response:
    """The invite link as a QR code, for a friend across the table."""
    import segno

    table = manager.get(table_id)
    url = str(request.base_url).rstrip("/") + f"/t/{table.id}"
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=4, border=2, xmldecl=False, svgns=True, title="yambak")
    return Response(buf.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})


router.include_router(strategy.router)  # /strategy/{preset} and /t/{id}/strategy: the strategy-and-odds page
