"""Ranked games: the page (play, how many wait for players, the ladder with provisional players apart, one's
own rating) and the JSON API. Playing needs a profile (the device's)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ...rules import preset_ids
from ...rules.loader import preset_data
from ...store import ProfileRow, RatingRow
from ...viewtypes import JSONObject
from ...web.i18n import error_message, js_strings, labels, ruleset_name
from ..common.pages import boot_json, render_page
from ..deps import (
    Answer,
    AppSettings,
    Lang,
    Manager,
    Tokens,
    add_tokens,
    check_rate,
    client_address,
    device_cookie,
    profile_token,
    set_device_cookie,
)
from ..live import RequestError
from ..profiles.manager import hash_secret, valid_token
from ..ranked.manager import (
    PROVISIONAL,
    WAITING,
    WIDEN,
    WIDEN_EVERY,
    WINDOW,
    RankedError,
    RankedManager,
    ordinal,
)

router = APIRouter()


def get_ranked(request: Request) -> RankedManager:
    ranked: RankedManager = request.app.state.ranked  # the app's state is untyped: set in lifespan.py
    return ranked


Ranked = Annotated[RankedManager, Depends(get_ranked)]


class PlayIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    players: int = Field(2)


def _preset(raw: str) -> str:
    return raw if raw in preset_ids() else "yams"


async def _player(request: Request) -> ProfileRow:
    profile: ProfileRow | None = await request.app.state.profiles.acurrent(profile_token(request))
    if profile is None:
        raise RankedError("profile/none", "ranked games are played with a profile: choose a name first", 401)
    return profile


def _device(request: Request) -> tuple[str, str, str]:
    """The asking device's key hash, client address and browser id (their keyed hashes tie profiles
    together; a browser without an id gets one now: the response sets its cookie)."""
    token = valid_token(profile_token(request))
    browser = device_cookie(request) or secrets.token_urlsafe(24)
    return (hash_secret(token) if token else ""), client_address(request), browser


def overview(ranked: RankedManager, preset: str, viewer: ProfileRow | None) -> JSONObject:
    """A preset's ladder (established players ranked, provisional ones apart, below), how many tables of
    each size wait for players (never who, nor their ratings: "Play ranked" chooses by rating) and the
    viewer's rating (blocking)."""
    waiting = ranked.store.waiting_seats(preset, datetime.now(UTC).replace(tzinfo=None) - WAITING)
    mine = ranked.store.ratings_of({viewer.id}, preset) if viewer else []
    rows = ranked.store.ladder(preset, established=PROVISIONAL)

    def row(r: RatingRow, rank: int | None) -> JSONObject:
        return {
            "rank": rank,
            "name": r.name,
            "rating": round(ordinal(r.mu, r.sigma), 1),
            "games": r.games,
            "provisional": r.games < PROVISIONAL,
            "me": viewer is not None and r.profile_id == viewer.id,
        }

    established = [r for r in rows if r.games >= PROVISIONAL]
    sizes: dict[int, int] = {}
    for seats in waiting.values():
        sizes[len(seats)] = sizes.get(len(seats), 0) + 1
    return {
        "preset": preset,
        "ladder": [row(r, i) for i, r in enumerate(established, start=1)],
        "provisional": [row(r, None) for r in rows if r.games < PROVISIONAL],
        "waiting": [{"seats": n, "tables": sizes[n]} for n in sorted(sizes)],
        "mine": [tid for tid, seats in waiting.items() if viewer and any(p == viewer.id for _, p, _ in seats)],
        "me": (
            {"rating": round(ordinal(m.mu, m.sigma), 1), "games": m.games, "provisional": m.games < PROVISIONAL}
            if (m := next(iter(mine), None))
            else None
        ),
        "window": {"start": WINDOW, "step": WIDEN, "every": int(WIDEN_EVERY.total_seconds())},
    }


def _seated(table: Any, tokens: dict[int, str], existing: list[str], settings: Any, browser: str) -> JSONResponse:
    response = JSONResponse({"id": table.id, "url": f"/t/{table.id}", "tokens": {str(k): v for k, v in tokens.items()}})
    add_tokens(response, existing, list(tokens.values()), settings.secure_cookies)
    set_device_cookie(response, browser, settings.secure_cookies)
    return response


@router.get("/api/ranked/{preset}")
def api_overview(request: Request, preset: str, ranked: Ranked) -> Answer:
    if preset not in preset_ids():
        raise RankedError("ranked/preset", "ranked games are played with the presets", 404)
    return overview(ranked, preset, request.app.state.profiles.current(profile_token(request)))


@router.post("/api/ranked/{preset}/play", dependencies=[Depends(check_rate)])
async def api_play(
    request: Request, preset: str, body: PlayIn, ranked: Ranked, tokens: Tokens, settings: AppSettings
) -> JSONResponse:
    """A seat at a ranked table of the preset and size waiting for players, or a new one."""
    device = _device(request)
    table, new = await ranked.play(preset, body.players, await _player(request), *device)
    return _seated(table, new, tokens, settings, device[2])


@router.post("/api/ranked/tables/{table_id}/join", dependencies=[Depends(check_rate)])
async def api_join(
    request: Request, table_id: str, ranked: Ranked, tokens: Tokens, settings: AppSettings
) -> JSONResponse:
    device = _device(request)
    table, new = await ranked.join(table_id[:32], await _player(request), *device)
    return _seated(table, new, tokens, settings, device[2])


@router.get("/api/ranked/tables/{table_id}")
def api_changes(table_id: str, ranked: Ranked, manager: Manager) -> Answer:
    """What a finished ranked game did to its players' ratings (its results page shows it)."""
    table = manager.get(table_id)
    if table.settings.ranked is None:
        raise RankedError("ranked/none", "this table is not ranked", 404)
    names = [s.name for s in table.seats]
    return {"ranked": table.settings.ranked, "changes": ranked.changes(table.id, table.settings.ranked, names)}


# --- the page -----------------------------------------------------------------------------------------------


def _page(request: Request, lang: str, ranked: RankedManager, preset: str, refused: Any = None) -> HTMLResponse:
    viewer = request.app.state.profiles.current(profile_token(request))
    presets = [(p, ruleset_name(p, str(preset_data(p).get("name", p)), lang)) for p in preset_ids()]
    return render_page(
        request,
        "ranked.html",
        lang,
        status=refused.status if refused is not None else 200,
        data=overview(ranked, preset, viewer),
        presets=presets,
        rules_name=dict(presets)[preset],
        viewer=viewer,
        error=(error_message(refused.code, lang, refused.extra) or refused.message) if refused is not None else None,
        boot=boot_json({"strings": js_strings(lang), "labels": labels(lang)}),
    )


@router.get("/ranked", response_class=HTMLResponse)
def ranked_page(request: Request, ranked: Ranked, lang: Lang, preset: str = "yams") -> HTMLResponse:
    return _page(request, lang, ranked, _preset(preset[:40]))


@router.post("/ranked/{preset}/play")
async def play_form(
    request: Request, preset: str, ranked: Ranked, lang: Lang, tokens: Tokens, settings: AppSettings
) -> Response:
    form = await request.form()
    raw = str(form.get("players", "2"))
    try:
        check_rate(request)
        players = int(raw) if raw.isdigit() else 0
        device = _device(request)
        table, new = await ranked.play(preset[:40], players, await _player(request), *device)
    except RequestError as exc:
        return _page(request, lang, ranked, _preset(preset[:40]), exc)
    response = RedirectResponse(f"/t/{table.id}", status_code=303)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    set_device_cookie(response, device[2], settings.secure_cookies)
    return response


@router.post("/ranked/join/{table_id}")
async def join_form(
    request: Request, table_id: str, ranked: Ranked, lang: Lang, tokens: Tokens, settings: AppSettings
) -> Response:
    try:
        check_rate(request)
        device = _device(request)
        table, new = await ranked.join(table_id[:32], await _player(request), *device)
    except RequestError as exc:
        return _page(request, lang, ranked, "yams", exc)
    response = RedirectResponse(f"/t/{table.id}", status_code=303)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    set_device_cookie(response, device[2], settings.secure_cookies)
    return response
