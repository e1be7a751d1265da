"""A player's own pages and API: the profile (name, sharing, moving it to another device, deleting it),
"My games" with their exports and kept sheets imported from the device.

Every change acts for the profile the request's cookie proves, and for no other; a profile's pages
are its owner's unless the owner shared them (`/p/{id}`).
"""

from __future__ import annotations

import base64
import io
import secrets
from datetime import date, timedelta
from typing import Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ...engine import RecordError
from ...rules import load_ruleset
from ...store import ProfileRow, ResultRow
from ...viewtypes import JSONObject
from ...web.i18n import error_message, js_strings, labels, ruleset_name, table_title, translations
from ..common.clock import naive_utc
from ..common.pages import boot_json, render_page
from ..deps import (
    HTML_FORM,
    Answer,
    AppSettings,
    Lang,
    Profiles,
    check_origin,
    client_address,
    device_cookie,
    device_of,
    profile_token,
    set_device_cookie,
    set_profile_cookie,
)
from ..live import RequestError
from ..profiles.history import export_csv, export_json, history_page, preset_label, variant_label
from ..profiles.manager import ProfileError, ProfileManager, hash_secret, valid_token
from ..profiles.plots import rating_svg
from ..profiles.stats import stats_page
from ..ranked.history import rating_history, start_rating
from ..ranked.manager import PROVISIONAL, ordinal
from ..replays import frame

router = APIRouter()


def _page(request: Request, name: str, lang: str, **ctx: Any) -> HTMLResponse:
    """A page of a person's own (games, statistics, profile, a replay): kept out of search engines."""
    return render_page(request, name, lang, noindex=True, **ctx)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class ProfileIn(_In):
    name: str = Field(max_length=200)


class ProfilePatch(_In):
    name: str | None = Field(None, max_length=200)
    shared: bool | None = None


class KeptIn(_In):
    """A kept sheet from this device's keeper history: its id and, when the server does not have it,
    its record; `seat`: which of its players the profile's owner was (None: none of them)."""

    sheet: str = Field(min_length=1, max_length=40)
    record: dict[str, Any] | None = None
    seat: int | None = Field(None, ge=0, le=63)


def profile_json(p: ProfileRow) -> JSONObject:
    return {"id": p.id, "name": p.name, "shared": p.shared, "created_at": p.created_at.isoformat() + "Z"
            if p.created_at else None}  # fmt: skip


def me(request: Request, profiles: ProfileManager) -> ProfileRow:
    """The profile this device proves, or a 401 `profile/none`."""
    profile = profiles.current(profile_token(request))
    if profile is None:
        raise ProfileError("profile/none", "this device has no profile: play a game or choose a name first", 401)
    return profile


async def ame(request: Request, profiles: ProfileManager) -> ProfileRow:
    """`me` off the event loop (async routes)."""
    profile = await profiles.acurrent(profile_token(request))
    if profile is None:
        raise ProfileError("profile/none", "this device has no profile: play a game or choose a name first", 401)
    return profile


def _qr(url: str) -> str:
    import segno

    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=5, border=2, xmldecl=False, svgns=True, title="yambak")
    return "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode()


# --- the JSON API ------------------------------------------------------------------------------------


@router.get("/api/me")
def api_me(request: Request, profiles: Profiles) -> Answer:
    profile = profiles.current(profile_token(request))
    return {"profile": profile_json(profile) if profile else None}


@router.post("/api/me", status_code=201, dependencies=[Depends(check_origin)])
def api_create(request: Request, body: ProfileIn, profiles: Profiles, settings: AppSettings) -> JSONResponse:
    """A profile for this device (the one it has, if it has one: a device holds one profile)."""
    profile = profiles.current(profile_token(request))
    if profile is not None:
        return JSONResponse({"profile": profile_json(profile)}, status_code=200)
    profile, token = profiles.create(body.name, client_address(request), device_of(request))
    browser = note_device(request, profile.id, token)
    response = JSONResponse({"profile": profile_json(profile)}, status_code=201)
    set_profile_cookie(response, token, settings.secure_cookies)
    set_device_cookie(response, browser, settings.secure_cookies)
    return response


@router.patch("/api/me", dependencies=[Depends(check_origin)])
def api_update(request: Request, body: ProfilePatch, profiles: Profiles) -> Answer:
    profile = me(request, profiles)
    if body.name is not None:
        profile = profiles.rename(profile, body.name)
    if body.shared is not None:
        profile = profiles.share(profile, body.shared)
    return {"profile": profile_json(profile)}


@router.delete("/api/me", dependencies=[Depends(check_origin)])
async def api_delete(request: Request, profiles: Profiles, settings: AppSettings) -> Response:
    """Delete this device's profile: its games, keys and name everywhere it was shown."""
    profile = await profiles.acurrent(profile_token(request))
    if profile is None:
        raise ProfileError("profile/none", "this device has no profile", 401)
    await profiles.delete(profile)
    response = Response(status_code=204)
    set_profile_cookie(response, None, settings.secure_cookies)
    return response


@router.post("/api/me/link", dependencies=[Depends(check_origin)])
def api_link(request: Request, profiles: Profiles) -> Answer:
    """A one-time link (and its QR code) that moves this profile to another device."""
    profile = me(request, profiles)
    code, expires = profiles.new_link(profile)
    url = str(request.base_url).rstrip("/") + f"/me/move/{code}"
    return {"url": url, "expires_at": expires.isoformat() + "Z", "qr": _qr(url)}


@router.post("/api/me/move/{code}", dependencies=[Depends(check_origin)])
def api_claim(request: Request, code: str, profiles: Profiles, settings: AppSettings) -> JSONResponse:
    profile, token = profiles.claim(code, device_of(request), profile_token(request))
    browser = note_device(request, profile.id, token)
    response = JSONResponse({"profile": profile_json(profile)})
    set_profile_cookie(response, token, settings.secure_cookies)
    set_device_cookie(response, browser, settings.secure_cookies)
    return response


@router.get("/api/me/devices")
def api_devices(request: Request, profiles: Profiles) -> Answer:
    """The devices this profile is signed in on (`this`: the asking one)."""
    profile = me(request, profiles)
    return {"devices": profiles.devices(profile, profile_token(request))}


@router.delete("/api/me/devices/{device}", dependencies=[Depends(check_origin)])
async def api_sign_out(request: Request, device: str, profiles: Profiles, settings: AppSettings) -> Response:
    """Sign one of this profile's devices out (this one too: then its cookie goes); the seats it was
    given under the profile lose their token."""
    profile = await ame(request, profiles)
    response = Response(status_code=204)
    if await profiles.sign_out(profile, device[:40], profile_token(request)):
        set_profile_cookie(response, None, settings.secure_cookies)
    return response


@router.post("/me/devices/{device}/sign-out")
async def sign_out_form(request: Request, device: str, profiles: Profiles, settings: AppSettings) -> Response:
    """The profile page's "Sign out" of a device."""
    check_origin(request)
    profile = await ame(request, profiles)
    here = await profiles.sign_out(profile, device[:40], profile_token(request))
    response = RedirectResponse("/" if here else "/me/profile", status_code=303)
    if here:
        set_profile_cookie(response, None, settings.secure_cookies)
    return response


@router.get("/api/me/games")
def api_games(request: Request, profiles: Profiles, lang: Lang, preset: str = "", page: int = 1) -> Answer:
    profile = me(request, profiles)
    return history_page(profiles.store, profile, lang, preset[:40] or None, max(1, min(page, 100000)))


TURNS_FORGOTTEN = timedelta(days=30)  # a turn without a clock, waiting this long, is a game given up


@router.get("/api/me/turns")
def api_turns(request: Request, profiles: Profiles, lang: Lang, settings: AppSettings) -> Answer:
    """The tables where it is this profile's turn (its own only): the lobby's and the profile's list; `left`:
    seconds to the turn's deadline by the server's clock (a device's own may be off)."""
    profile = me(request, profiles)
    now = naive_utc(settings.clock())
    turns = []
    for t in profiles.store.profile_turns(profile.id, since=now - TURNS_FORGOTTEN):
        try:
            rules = load_ruleset(t["rules"])
            rules_name = ruleset_name(rules.id, rules.name, lang)
        except Exception:  # a ruleset that no longer loads: its table is listed all the same
            rules_name = ""
        turns.append(
            {
                "table": t["table_id"],
                "name": table_title(t["name"], [t["first"]], lang),
                "rules_name": rules_name,
                "since": t["since_at"].isoformat() + "Z",
                "due": t["due_at"].isoformat() + "Z" if t["due_at"] else None,
                "left": max(0, round((t["due_at"] - now).total_seconds())) if t["due_at"] else None,
                "url": f"/t/{t['table_id']}",
            }
        )
    return {"turns": turns}


@router.get("/api/me/export.json")
def api_export_json(request: Request, profiles: Profiles) -> JSONResponse:
    profile = me(request, profiles)
    return JSONResponse(
        export_json(profiles.store, profile, profiles.now()),
        headers={"Content-Disposition": 'attachment; filename="yambak-games.json"'},
    )


@router.get("/api/me/export.csv")
def api_export_csv(request: Request, profiles: Profiles) -> Response:
    profile = me(request, profiles)
    return Response(
        export_csv(profiles.store, profile),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="yambak-games.csv"'},
    )


@router.post("/api/me/kept", dependencies=[Depends(check_origin)])
def api_import_kept(request: Request, body: KeptIn, profiles: Profiles) -> Answer:
    """One finished kept sheet into this profile's games (again: its newer record replaces the older)."""
    profile = me(request, profiles)
    result = profiles.import_kept(profile, body.sheet, body.record, body.seat)
    return {"id": result.public_id, "score": result.score, "seat": result.seat}


@router.get("/api/me/kept")
def api_kept(request: Request, profiles: Profiles) -> Answer:
    """The kept sheets this profile has in its games (a phone imports the others)."""
    profile = me(request, profiles)
    return {"sheets": sorted(profiles.store.kept_refs(profile.id))}


# --- pages -------------------------------------------------------------------------------------------


def _games_page(
    request: Request, lang: str, profiles: ProfileManager, profile: ProfileRow, owner: bool, preset: str, page: int
) -> HTMLResponse:
    public_at = None if owner else profiles.now()  # others do not see the games of deals still open
    data = history_page(profiles.store, profile, lang, preset[:40] or None, max(1, min(page, 100000)), public_at)
    boot = {
        "strings": js_strings(lang),
        "labels": labels(lang),
        "me": profile_json(profile) if owner else None,
        "kept": sorted(profiles.store.kept_refs(profile.id)) if owner else [],
    }
    return _page(
        request, "me.html", lang, profile=profile, owner=owner, tab="games", history=data, boot=boot_json(boot)
    )


@router.get("/me", response_class=HTMLResponse)
def games_page(request: Request, profiles: Profiles, lang: Lang, preset: str = "", page: int = 1) -> HTMLResponse:
    profile = profiles.current(profile_token(request))
    if profile is None:
        return _page(request, "me_none.html", lang, boot=boot_json({"strings": {}, "labels": labels(lang)}))
    return _games_page(request, lang, profiles, profile, True, preset, page)


@router.post("/me", **HTML_FORM)
def create_from_form(
    request: Request, profiles: Profiles, settings: AppSettings, lang: Lang, name: str = Form("", max_length=200)
) -> Response:
    if profiles.current(profile_token(request)) is not None:
        return RedirectResponse("/me", status_code=303)
    try:
        check_origin(request)
        made, token = profiles.create(name, client_address(request), device_of(request))
        browser = note_device(request, made.id, token)
    except RequestError as exc:
        error = error_message(exc.code, lang, exc.extra) or exc.message
        boot = boot_json({"strings": {}, "labels": labels(lang)})
        return _page(request, "me_none.html", lang, status=exc.status, error=error, boot=boot)
    response = RedirectResponse("/me", status_code=303)
    set_profile_cookie(response, token, settings.secure_cookies)
    set_device_cookie(response, browser, settings.secure_cookies)
    return response


@router.get("/me/profile", response_class=HTMLResponse)
def profile_page(request: Request, profiles: Profiles, lang: Lang) -> Response:
    profile = profiles.current(profile_token(request))
    if profile is None:
        return RedirectResponse("/me", status_code=303)
    boot = {"strings": js_strings(lang), "labels": labels(lang), "me": profile_json(profile)}
    devices = profiles.devices(profile, profile_token(request))
    return _page(
        request, "me_profile.html", lang, profile=profile, owner=True, tab="profile", devices=devices,
        boot=boot_json(boot),
    )  # fmt: skip


@router.get("/me/move/{code}", response_class=HTMLResponse)
def move_page(request: Request, code: str, profiles: Profiles, lang: Lang) -> HTMLResponse:
    """The page a moving link opens: it says whose profile it is and asks before taking it (a link
    preview must not spend the link)."""
    target = profiles.link_target(code)
    here = profiles.current(profile_token(request))
    boot = boot_json({"strings": {}, "labels": labels(lang)})
    return _page(
        request, "me_move.html", lang, status=200 if target else 410, target=target, here=here, code=code, boot=boot
    )


@router.post("/me/move/{code}", **HTML_FORM)
def move_form(request: Request, code: str, profiles: Profiles, settings: AppSettings, lang: Lang) -> Response:
    try:
        check_origin(request)
        moved, token = profiles.claim(code, device_of(request), profile_token(request))
        browser = note_device(request, moved.id, token)
    except RequestError:
        boot = boot_json({"strings": {}, "labels": labels(lang)})
        here = profiles.current(profile_token(request))
        return _page(request, "me_move.html", lang, status=410, target=None, here=here, code=code, boot=boot)
    response = RedirectResponse("/me", status_code=303)
    set_profile_cookie(response, token, settings.secure_cookies)
    set_device_cookie(response, browser, settings.secure_cookies)
    return response


@router.get("/p/{profile_id}", response_class=HTMLResponse)
def shared_games(
    request: Request, profile_id: str, profiles: Profiles, lang: Lang, preset: str = "", page: int = 1
) -> HTMLResponse:
    """A profile's games for anyone with the link, when its owner shared them."""
    profile = profiles.store.get_profile(profile_id[:24])
    mine = profiles.current(profile_token(request))
    owner = mine is not None and profile is not None and mine.id == profile.id
    if profile is None or not (profile.shared or owner):
        return _page(request, "missing.html", lang, status=404)
    return _games_page(request, lang, profiles, profile, owner, preset, page)


# --- statistics ----------------------------------------------------------------------------------------


@router.get("/api/me/stats")
def api_stats(request: Request, profiles: Profiles, lang: Lang, v: str = "") -> Answer:
    """Every ruleset variant's figures; the chosen one's (`v`, default the most played) plots and bests."""
    profile = me(request, profiles)
    return stats_page(profiles.store, profile, lang, v[:120] or None)


def _stats(
    request: Request, lang: str, profiles: ProfileManager, profile: ProfileRow, owner: bool, v: str
) -> HTMLResponse:
    data = stats_page(profiles.store, profile, lang, v[:120] or None, None if owner else profiles.now())
    ratings = [
        {"preset": r.preset, "game": preset_label(r.preset, lang), "rating": round(ordinal(r.mu, r.sigma), 1),
         "games": r.games, "provisional": r.games < PROVISIONAL}
        for r in profiles.store.ratings_of([profile.id])
    ]  # fmt: skip
    for r in ratings:  # each ruleset's rating history, plotted
        history = rating_history(profiles.store, profile.id, str(r["preset"]))
        label = translations(lang).gettext("Rating history: {game}").format(game=r["game"])
        r["plot"] = _rating_plot(history, label, lang)
    boot = boot_json({"strings": js_strings(lang), "labels": labels(lang)})
    return _page(
        request, "me_stats.html", lang, profile=profile, owner=owner, tab="stats", stats=data, ratings=ratings,
        boot=boot,
    )  # fmt: skip


@router.get("/me/stats", response_class=HTMLResponse)
def stats_of_mine(request: Request, profiles: Profiles, lang: Lang, v: str = "") -> Response:
    profile = profiles.current(profile_token(request))
    if profile is None:
        return RedirectResponse("/me", status_code=303)
    return _stats(request, lang, profiles, profile, True, v)


@router.get("/p/{profile_id}/stats", response_class=HTMLResponse)
def shared_stats(request: Request, profile_id: str, profiles: Profiles, lang: Lang, v: str = "") -> Response:
    profile = profiles.store.get_profile(profile_id[:24])
    mine = profiles.current(profile_token(request))
    owner = mine is not None and profile is not None and mine.id == profile.id
    if profile is None or not (profile.shared or owner):
        return _page(request, "missing.html", lang, status=404)
    return _stats(request, lang, profiles, profile, owner, v)


def _rating_plot(history: list[dict[str, Any]], label: str, lang: str) -> str:
    """The history as a line from the start rating, the first and last games' dates under it."""
    from babel.dates import format_skeleton  # as stats.py: babel loads on first use

    ratings = [start_rating()] + [h["rating"] for h in history]
    ends = None
    if history:
        first, last = history[0]["at"][:10], history[-1]["at"][:10]
        try:
            a, b = date.fromisoformat(first), date.fromisoformat(last)
            skeleton = "MMMd" if a.year == b.year else "yMMMd"
            ends = format_skeleton(skeleton, a, locale=lang), format_skeleton(skeleton, b, locale=lang)
        except (ValueError, LookupError):
            ends = first, last
    return rating_svg(ratings, label, ends)


@router.get("/api/me/ratings/{preset}")
def api_rating_history(request: Request, preset: str, profiles: Profiles) -> Answer:
    """This profile's rating in the ranked games of a preset after each rated game, oldest first."""
    profile = me(request, profiles)
    return {"preset": preset[:40], "history": rating_history(profiles.store, profile.id, preset[:40])}


@router.get("/api/me/tables/{table_id}")
def api_my_result(request: Request, table_id: str, profiles: Profiles) -> Answer:
    """This profile's result of a finished table: its score, and whether it was a personal best (and
    what it beat): the table page celebrates it."""
    profile = me(request, profiles)
    result = profiles.store.result_for(profile.id, table_id[:64])
    if result is None:
        raise ProfileError("result/unknown", "there is no such game", 404)
    before = profiles.store.best_before(result) if result.best else None
    return {
        "id": result.public_id,
        "score": result.score,
        "best": result.best,
        "counted": result.counted,
        "beat": before,
    }


# --- one game of a history: the replay viewer ---------------------------------------------------------


async def _visible(request: Request, profiles: ProfileManager, result_id: str) -> tuple[ResultRow, ProfileRow]:
    viewer = await profiles.acurrent(profile_token(request))
    return await profiles.store.read(profiles.visible, result_id, viewer)


@router.get("/api/results/{result_id}/frames/{n}")
async def api_result_frame(request: Request, result_id: str, n: int, profiles: Profiles) -> Answer:
    """A game of a history as it stood after turn n (the replay viewer's steps)."""
    result, _ = await _visible(request, profiles, result_id)
    record, simultaneous = await profiles.store.read(profiles.game_record, result)
    return frame(record, max(0, min(n, 100000)), simultaneous)


@router.get("/api/results/{result_id}/review")
async def api_result_review(request: Request, result_id: str, profiles: Profiles) -> Answer:
    result, _ = await _visible(request, profiles, result_id)
    try:
        return await profiles.review(result)
    except RecordError as exc:
        raise ProfileError("result/no-review", f"the coach cannot review this game: {exc}", 422) from None


@router.get("/api/results/{result_id}/record")
async def api_result_record(request: Request, result_id: str, profiles: Profiles) -> JSONResponse:
    """A kept game's record as a download (a table's is the table's own: /t/{id}/record.json)."""
    result, _ = await _visible(request, profiles, result_id)
    record, _ = await profiles.store.read(profiles.game_record, result)
    headers = {"Content-Disposition": f'attachment; filename="yambak-game-{result.public_id}.json"'}
    return JSONResponse(record, headers=headers)


@router.get("/replay/{result_id}", response_class=HTMLResponse)
async def replay_page(request: Request, result_id: str, profiles: Profiles, lang: Lang) -> HTMLResponse:
    """A game of a history, turn by turn, with the coach's word on each decision (fetched once the page
    shows), the biggest mistakes to jump to."""
    try:
        result, owner = await _visible(request, profiles, result_id)
        record, simultaneous = await profiles.store.read(profiles.game_record, result)
        final = frame(record, 10**6, simultaneous)
    except (ProfileError, RecordError):
        return _page(request, "missing.html", lang, status=404)
    spec = record["rules"]  # a preset id or a whole ruleset (`frame` replayed the record with it)
    if not isinstance(spec, str | dict):
        return _page(request, "missing.html", lang, status=404)
    rules = load_ruleset(spec)
    view = {"rules": rules.layout(), "players": final["players"], "finished": True, "duplicate": simultaneous}
    mine = await profiles.acurrent(profile_token(request))
    boot = {
        "frames": f"/api/results/{result.public_id}/frames/",
        "reviewUrl": f"/api/results/{result.public_id}/review",
        "review": None,
        "seats": [result.seat] if result.seat is not None else [],
        "view": view,
        "labels": labels(lang, rules.preset),
        "strings": js_strings(lang),
    }
    owned = mine is not None and mine.id == owner.id
    return _page(
        request,
        "review.html",
        lang,
        title=variant_label(result.rules_id, lang)
        if owned
        else f"{owner.name} · {variant_label(result.rules_id, lang)}",
        rules_name=ruleset_name(rules.id, rules.name, lang) if rules.preset else rules.name,
        back_url="/me" if owned else f"/p/{owner.id}",
        back_label=translations(lang).gettext("My games") if owned else owner.name,
        record_url=f"/api/results/{result.public_id}/record"
        if result.kind == "kept"
        else f"/t/{result.ref}/record.json",
        # the preset's strategy page where the game was played by its usual rules
        strategy_url=f"/strategy/{rules.preset}"
        if rules.preset and rules.variant_key(duplicate=False) == rules.preset
        else None,
        boot=boot_json(boot),
    )


def note_device(request: Request, profile_id: str, token: str) -> str:
    """A profile's new device key, from this client address, on a browser that may have carried another
    profile's key before (its cookie) and has an id of its own (made now if it has none): the marks that
    keep related profiles from rating each other. Returns the browser's id, for its cookie."""
    before = valid_token(profile_token(request))
    browser = device_cookie(request) or secrets.token_urlsafe(24)
    request.app.state.ranked.note(
        profile_id, hash_secret(token), client_address(request), hash_secret(before) if before else "", browser
    )
    return browser
