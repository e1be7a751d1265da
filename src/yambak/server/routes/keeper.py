"""Score-keeper for real dice: the page (one shell for the start page and every sheet), the JSON API,
and what a phone keeps to work with no network (the service worker, the engine). A sheet's socket is
the game socket of `ws.py`.

A sheet's id only reads (`/keep/{id}` is the watchers' link). What writes takes a write token in
`Authorization: Bearer ...`: the phone that made the sheet has one, the join code hands one to each
phone that joins (`POST /api/keep/join`), and renewing the code revokes those."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ...keeper import Refusal, fix_options, preview, statistics, zero_boxes
from ...keeper.entries import MAX_PLAYERS
from ...keeper.export import season_rows, sheet_rows
from ...keeper.season import player_key
from ...rules import preset_ids
from ...store.groups import GroupRow
from ...viewtypes import JSONObject, SheetView
from ...web import STATIC
from ...web.i18n import error_message, error_texts, js_strings, labels, translations
from ..common.pages import boot_json, download, preset_choices, render_page, rules_from_form
from ..common.tokens import hash_token
from ..deps import HTML_FORM, Answer, Lang, check_rate
from ..keeper.bundle import engine_zip, offline_files, offline_version, pyodide_ready
from ..keeper.groups import Groups
from ..keeper.manager import KeeperManager, normal_code
from ..keeper.schema import SHEET_ID, TOKEN, EntryIn, KeeperError, SheetIn
from ..keeper.view import keeper_view, record_dict
from ..live import RequestError
from ..profiles.history import variant_label
from ..profiles.plots import series_svg

router = APIRouter()
FORM_PLAYERS = 4  # rows shown at first; More players shows four more at a time


def _keeper(request: Request) -> KeeperManager:
    keeper: KeeperManager = request.app.state.keeper  # the app's state is untyped: set in lifespan.py
    return keeper


def _tokens(request: Request) -> list[str]:
    """The write token a phone sends with what writes (`Authorization: Bearer TOKEN`)."""
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    return [token.strip()] if kind.lower() == "bearer" and 0 < len(token.strip()) <= 64 else []


def _form_error(exc: RequestError, lang: str) -> str:
    """A refusal as the start page shows it, in the page's language (a ruleset's own error in English
    after the translated sentence: it points into the file its author wrote)."""
    if exc.code == "input/rules":
        return f"{translations(lang).gettext('These rules cannot be used:')} {exc.message}"
    return error_message(exc.code, lang, exc.extra) or exc.message


# --- the page: one shell for the start page and every sheet ---------------------------------------


def _shell(
    request: Request,
    lang: str,
    sheet_id: str | None = None,
    view: SheetView | None = None,
    status: int = 200,
    error: str | None = None,
) -> HTMLResponse:
    presets = preset_choices(lang)
    limit = min(MAX_PLAYERS, request.app.state.settings.max_seats)
    files, size = offline_files()
    boot = {
        "page": "keeper",
        "sheet": sheet_id,
        "view": view,
        "labels": labels(lang),
        # rulesets whose players name a row their own way (the 50-point box is "Yamb" in Yamb)
        "family_labels": {rules_id: labels(lang, rules_id) for rules_id in preset_ids()},
        "strings": js_strings(lang),
        "errors": error_texts(lang),
        "lang": lang,
        "presets": [{"id": p["id"], "name": p["name"], "options": p["schema"]} for p in presets],
        "max_players": limit,
        "engine": f"/keep/engine.zip?v={engine_zip()[1]}" if pyodide_ready() else None,
        # what the phone keeps to work offline: the readiness card compares it with the phone's space
        "offline": {"version": offline_version(), "files": len(files) + 1, "bytes": size},
    }
    return render_page(
        request,
        "keeper.html",
        lang,
        status=status,
        presets=presets,
        chosen="yams",
        form_players=FORM_PLAYERS,
        max_players=limit,
        error=error,
        view=view,
        boot=boot_json(boot),
    )


@router.get("/keep", response_class=HTMLResponse)
@router.get("/keep/", response_class=HTMLResponse)
def start_page(request: Request, lang: Lang) -> HTMLResponse:
    return _shell(request, lang)


@router.post("/keep", **HTML_FORM)
async def create_from_form(request: Request, lang: Lang) -> Response:
    """A new sheet from the start page's form, where the page's script did not create it itself."""
    form = await request.form()
    keeper = _keeper(request)
    players = [str(form.get(f"player{i}", "")).strip() for i in range(MAX_PLAYERS)]
    players = [p for p in players if p]
    try:
        check_rate(request)
        preset, options, custom = await rules_from_form(form)
        if not players:
            raise KeeperError("input/players", "name at least one player", 422)
        sheet, token = keeper.create(
            SheetIn(
                name=str(form.get("name", ""))[:200],
                preset=preset,
                options=options,
                rules=custom,
                players=players[:MAX_PLAYERS],
            )
        )
    except RequestError as exc:  # KeeperError, rate/limited, server/full
        return _shell(request, lang, status=400 if exc.status == 422 else exc.status, error=_form_error(exc, lang))
    except ValueError as exc:  # pydantic: bounds of the form
        return _shell(request, lang, status=400, error=str(exc).splitlines()[0][:200])
    # the write token in the fragment: the page keeps it; it never reaches a server or a log
    return RedirectResponse(f"/keep/{sheet.id}#token={token}", status_code=303)


@router.get("/keep/join")
def join_by_code(request: Request, lang: Lang, code: str = "") -> Response:
    """A code typed without the page's script, or a shared link: the sheet's page, which joins with the
    code (in the fragment: no log keeps it) to get this phone's write token. A GET hands out nothing."""
    try:
        check_rate(request)  # a code is the key to a sheet: guessing codes costs the client's budget
        sheet = _keeper(request).by_code(code)
    except RequestError as exc:  # KeeperError, rate/limited
        return _shell(request, lang, status=exc.status if exc.status == 429 else 404, error=_form_error(exc, lang))
    return RedirectResponse(f"/keep/{sheet.id}#join={normal_code(code)}", status_code=303)


@router.get("/k/{code}")
def short_link(request: Request, code: str, lang: Lang) -> Response:
    return join_by_code(request, lang, code)


# --- what a phone keeps to work offline -------------------------------------------------------------


@router.get("/keep/sw.js")
def service_worker() -> Response:
    """The service worker, with the version of everything it keeps and the list of it."""
    files, _ = offline_files()
    text = (STATIC / "keeper-sw.js").read_text(encoding="utf-8")
    text = text.replace('"__VERSION__"', f'"{offline_version()}"').replace('["__FILES__"]', json.dumps(files))
    return Response(text, media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/keep/worker.js")
def engine_worker() -> Response:
    """The Web Worker running the engine under Pyodide (served under /keep/ so that the service
    worker answers its requests when there is no network)."""
    return Response(
        (STATIC / "keeper-worker.js").read_text(encoding="utf-8"),
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache"},
    )


@router.get("/keep/engine.zip")
def engine_bundle(v: str = "") -> Response:
    """The package's pure rules, engine and keeper core, unchanged, for Pyodide."""
    data, digest = engine_zip()
    cache = "public, max-age=31536000, immutable" if v == digest else "no-cache"
    return Response(data, media_type="application/zip", headers={"Cache-Control": cache, "ETag": f'"{digest}"'})


@router.get("/keep/manifest.webmanifest")
def manifest(lang: Lang) -> Response:
    data = {
        "name": "yambak score-keeper",
        "short_name": "yambak",
        "start_url": "/keep/",
        "scope": "/keep/",
        "display": "standalone",
        "background_color": "#f3f0e8",
        "theme_color": "#1d6b47",
        "lang": lang,
        "icons": [{"src": "/static/keeper-icon.svg", "sizes": "any", "type": "image/svg+xml", "purpose": "any"}],
    }
    return JSONResponse(data, media_type="application/manifest+json")


# --- a sheet ----------------------------------------------------------------------------------------


@router.get("/keep/{sheet_id}", response_class=HTMLResponse)
def sheet_page(request: Request, sheet_id: str, lang: Lang) -> HTMLResponse:
    """The sheet's page. A sheet the server does not know may live on the phone alone (started with
    no network): the same shell, status 404, and the page looks in the phone's memory."""
    try:
        sheet = _keeper(request).get(sheet_id)
    except KeeperError:
        return _shell(request, lang, sheet_id=sheet_id[:40], status=404)
    return _shell(request, lang, sheet_id=sheet.id, view=keeper_view(sheet))


@router.get("/keep/{sheet_id}/qr.svg")
async def qr_code(request: Request, sheet_id: str) -> Response:
    """The join link as a QR code, for a phone that may write (the code hands out write tokens)."""
    keeper = _keeper(request)
    sheet = await keeper.aget(sheet_id)
    code = await keeper.code_of(sheet, _tokens(request))
    try:
        import segno
    except ImportError:
        raise KeeperError("server/no-qr", "QR codes need the segno package on the server", 503) from None
    url = str(request.base_url).rstrip("/") + f"/k/{code}"
    buf = io.BytesIO()
    segno.make(url, error="m").save(
        buf, kind="svg", scale=5, border=2, xmldecl=False, svgns=True, title=f"yambak {sheet.code}"
    )
    return Response(buf.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


@router.get("/keep/{sheet_id}/record.json")
def sheet_record(request: Request, sheet_id: str) -> JSONResponse:
    sheet = _keeper(request).get(sheet_id)
    return download(record_dict(sheet.state), f"yambak-keep-{sheet.id}.json")


# --- JSON API -----------------------------------------------------------------------------------------


@router.post("/api/keep", status_code=201, dependencies=[Depends(check_rate)])
def api_create(request: Request, body: SheetIn) -> JSONResponse:
    """A new sheet: its id (the watchers' link), its join code and the maker's write token."""
    sheet, token = _keeper(request).create(body)
    return JSONResponse(
        {"id": sheet.id, "code": sheet.code, "token": token, "url": f"/keep/{sheet.id}", "view": keeper_view(sheet)},
        status_code=201,
    )


class JoinIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(max_length=20)


@router.post("/api/keep/join", dependencies=[Depends(check_rate)])
def api_join(request: Request, body: JoinIn) -> Answer:
    """Join a sheet with its code: the sheet's id and a write token for this phone (the code hands it out;
    renewing the code revokes it)."""
    sheet, code, token = _keeper(request).join(body.code)
    return {"id": sheet.id, "url": f"/keep/{sheet.id}", "code": code, "token": token}


@router.get("/api/keep/{sheet_id}/code")
async def api_code(request: Request, sheet_id: str) -> Answer:
    """The sheet's join code now, for a phone that may write (another phone may have renewed it)."""
    keeper = _keeper(request)
    return {"code": await keeper.code_of(await keeper.aget(sheet_id), _tokens(request))}


@router.post("/api/keep/{sheet_id}/code")
async def api_renew_code(request: Request, sheet_id: str) -> Answer:
    """A new join code: phones that joined with the old one can no longer write (403); the phone that
    renews it keeps writing (with `token`, its new one, where its own came from the old code)."""
    keeper = _keeper(request)
    code, token = await keeper.renew_code(await keeper.aget(sheet_id), _tokens(request))
    return {"code": code, "token": token}


class StatsIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    sheets: list[str] = Field(max_length=200)


@router.post("/api/keep/stats")
def api_stats(request: Request, body: StatsIn) -> Answer:
    """Statistics of the sheets a phone names (`yambak.keeper.statistics`, which phones run themselves)."""
    keeper = _keeper(request)
    records = []
    for sheet_id in dict.fromkeys(body.sheets):
        try:
            records.append(record_dict(keeper.get(sheet_id).state))
        except KeeperError:
            continue
    return statistics(records)


class PreviewIn(BaseModel):
    """Typed dice on every open box of the player to enter (`dice`, `roll`); a 0 without dice
    (`dice` null); with `turn`, the boxes that entry could be corrected to."""

    model_config = ConfigDict(extra="forbid", strict=True)
    dice: list[int] | None = Field(None, min_length=5, max_length=6)
    roll: int = Field(1, ge=1, le=9)
    turn: int | None = Field(None, ge=1, le=10000)


@router.post("/api/keep/{sheet_id}/preview")
def api_preview(request: Request, sheet_id: str, body: PreviewIn) -> Answer:
    """What the engine says about typed dice, for a phone whose own engine is not running yet."""
    state = _keeper(request).get(sheet_id).state
    if body.dice is not None and not all(1 <= d <= 6 for d in body.dice):
        raise KeeperError("input/invalid", "dice are 1 to 6", 422)
    try:
        if body.turn is not None:
            return {**fix_options(state, body.turn, body.dice, body.roll)}
        return {**(preview(state, body.dice, body.roll) if body.dice is not None else zero_boxes(state))}
    except Refusal as exc:
        raise KeeperError(exc.code, exc.message, exc.status, **exc.extra) from None


@router.get("/api/keep/{sheet_id}")
def api_view(request: Request, sheet_id: str) -> Answer:
    return dict(keeper_view(_keeper(request).get(sheet_id)))


@router.post("/api/keep/{sheet_id}/entries")
async def api_entry(request: Request, sheet_id: str, body: EntryIn) -> Answer:
    """One entry, from a phone that may write (`Authorization: Bearer TOKEN`; else 403)."""
    keeper = _keeper(request)
    sheet = await keeper.aget(sheet_id)
    await keeper.writer(sheet, _tokens(request))
    result = await keeper.enter(sheet, body)
    return {**result, "view": keeper_view(sheet)}


# --- groups: a club's or a family's season (server/keeper/groups.py) ---------------------------------


def _groups(request: Request) -> Groups:
    groups: Groups = request.app.state.groups
    return groups


def _csv(rows: list[list[Any]], filename: str) -> Response:
    """Rows as a CSV file to save (the csv module quotes what needs it)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerows(rows)
    return Response(
        buf.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"},
    )


@router.get("/keep/{sheet_id}/sheet.csv")
def sheet_csv(request: Request, sheet_id: str) -> Response:
    """The sheet's every box, column sums, total, match points and places, as the engine scores them."""
    sheet = _keeper(request).get(sheet_id)
    return _csv(sheet_rows(sheet.state), f"yambak-sheet-{sheet.id}.csv")


class GroupIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(max_length=200)


class GroupSheetIn(BaseModel):
    """A phone's own sheet to file in a group (or take out): its id and this phone's write token for it."""

    model_config = ConfigDict(extra="forbid", strict=True)
    sheet: str = Field(pattern=SHEET_ID)
    token: str = Field(pattern=TOKEN)


def _group_out(group: GroupRow) -> JSONObject:
    return {"id": group.id, "name": group.name, "url": f"/keep/group/{group.id}"}


@router.post("/api/keep/groups", status_code=201, dependencies=[Depends(check_rate)])
def api_group_create(request: Request, body: GroupIn) -> JSONResponse:
    """A new group: its id (the season's link), its join code and the maker's token."""
    group, token = _groups(request).create(body.name)
    return JSONResponse({**_group_out(group), "code": group.code, "token": token}, status_code=201)


@router.post("/api/keep/groups/join", dependencies=[Depends(check_rate)])
def api_group_join(request: Request, body: JoinIn) -> Answer:
    """Join a group with its code: the group and a token for this phone (it files this phone's sheets)."""
    group, token = _groups(request).join(body.code)
    return {**_group_out(group), "code": group.code, "token": token}


@router.get("/api/keep/groups/{group_id}")
def api_group(request: Request, group_id: str) -> Answer:
    """The group and its season (`yambak.keeper.season`); its code only for a phone that joined it."""
    groups = _groups(request)
    group, figures = groups.season(group_id)
    out = {**_group_out(group), "season": figures}
    if _tokens(request) and groups.store.group_member(group.id, [hash_token(t) for t in _tokens(request)]):
        out["code"] = group.code
    return out


@router.post("/api/keep/groups/{group_id}/sheets")
def api_group_add(request: Request, group_id: str, body: GroupSheetIn) -> Answer:
    """File this phone's own sheet in the group (`Authorization: Bearer GROUP-TOKEN`; the sheet's write
    token in the body)."""
    added = _groups(request).add_sheet(group_id, _tokens(request), body.sheet, body.token)
    return {"sheet": body.sheet, "added": added}


@router.post("/api/keep/groups/{group_id}/sheets/remove")
def api_group_remove(request: Request, group_id: str, body: GroupSheetIn) -> Answer:
    """Take this phone's own sheet out of the group (the same proofs as filing it)."""
    removed = _groups(request).remove_sheet(group_id, _tokens(request), body.sheet, body.token)
    return {"sheet": body.sheet, "removed": removed}


@router.post("/api/keep/groups/{group_id}/code", dependencies=[Depends(check_rate)])
def api_group_renew_code(request: Request, group_id: str) -> Answer:
    """A new join code (`Authorization: Bearer GROUP-TOKEN`): the old one joins no more, and the tokens of
    every other phone stop filing sheets until it joins with the new code."""
    return {"id": group_id, "code": _groups(request).renew_code(group_id, _tokens(request))}


@router.post("/api/keep/groups/{group_id}/leave")
def api_group_leave(request: Request, group_id: str) -> Answer:
    """This phone leaves the group (`Authorization: Bearer GROUP-TOKEN`); the sheets it filed stay."""
    _groups(request).leave(group_id, _tokens(request))
    return {"id": group_id, "left": True}


@router.get("/keep/group/{group_id}/season.csv")
def season_csv(request: Request, group_id: str) -> Response:
    """Every game of the season, a row per player: date, sheet, ruleset, total, match points, won."""
    group, figures = _groups(request).season(group_id)
    return _csv(season_rows(figures), f"yambak-season-{group.id}.csv")


def _season_plots(figures: dict[str, Any], lang: str) -> None:
    """Each ruleset's plot over the season: each player's score in each game, one line a player."""
    tr = translations(lang)
    for ruleset in figures["rulesets"]:
        order = [player_key(p["name"]) for p in ruleset["players"]]
        lines: dict[str, list[tuple[int, float]]] = {key: [] for key in order}
        for i, game in enumerate(ruleset["games_list"]):
            for p in game["players"]:
                lines[player_key(p["name"])].append((i, p["total"]))
        series = [(p["name"], lines[key]) for p, key in zip(ruleset["players"], order, strict=True)]
        label = tr.gettext("Each player's score in each game of the season, oldest first")
        ruleset["plot"] = series_svg(series, len(ruleset["games_list"]), label)
        ruleset["game"] = variant_label(ruleset["rules"], lang)


@router.get("/keep/groups/join")
def group_join_by_code(request: Request, lang: Lang, code: str = "") -> Response:
    """A group's code typed without the page's script: the season's page, which joins with the code (in the
    fragment) to get this phone's token. A GET hands out nothing."""
    try:
        check_rate(request)
        norm = normal_code(code)
        group = _groups(request).store.group_by_code(norm) if norm else None
        if group is None:
            raise KeeperError("group/unknown-code", "no group has this code", 404)
    except RequestError as exc:
        return _shell(request, lang, status=exc.status if exc.status == 429 else 404, error=_form_error(exc, lang))
    return RedirectResponse(f"/keep/group/{group.id}#join={group.code}", status_code=303)


@router.get("/keep/group/{group_id}", response_class=HTMLResponse)
def group_page(request: Request, group_id: str, lang: Lang) -> HTMLResponse:
    """A group's season: a table per ruleset, a plot over the season, its games and the exports."""
    try:
        group, figures = _groups(request).season(group_id)
    except KeeperError as exc:
        return render_page(request, "keeper_group.html", lang, status=404, noindex=True, group=None,
                           error=_form_error(exc, lang))  # fmt: skip
    _season_plots(figures, lang)
    boot = {
        "page": "keeper-group",
        "group": {"id": group.id, "name": group.name},
        "sheets": sorted({g["sheet"] for r in figures["rulesets"] for g in r["games_list"]} | set(figures["open"])),
        "strings": js_strings(lang),
        "errors": error_texts(lang),
        "labels": labels(lang),
        "lang": lang,
    }
    return render_page(
        request, "keeper_group.html", lang, noindex=True, group=group, season=figures, boot=boot_json(boot)
    )
