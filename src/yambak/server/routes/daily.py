"""The daily challenge, the leaderboards and club tournaments: JSON API and pages.

A deal is played at an ordinary table (`/t/{id}`) whose dice are the deal's; these routes make the
deals, start an entrant's table, and show the boards. Playing needs a profile: the device's, or one
made on the way with the name typed (new profiles are rate-limited per address).
"""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timedelta
from typing import Annotated, Any, NotRequired, TypedDict

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ...inputs import ascii_int
from ...rules import load_ruleset
from ...rules.registry import club_presets, daily_presets
from ...store import DealRow, ProfileRow, TournamentRow
from ...web.i18n import error_message, js_strings, labels, ruleset_name, translations
from ..common.pages import boot_json, render_page
from ..daily.boards import WITHDRAWN, DealBoard, PeriodRow, deal_board, period_board, shown_name
from ..daily.clubs import ClubManager, member_key
from ..daily.manager import DealError, DealManager
from ..daily.matchpoints import ranks
from ..deps import (
    HTML_FORM,
    Answer,
    AppSettings,
    Lang,
    Manager,
    Tokens,
    add_tokens,
    check_origin,
    check_rate,
    playing_profile,
    profile_token,
    set_profile_cookie,
)
from ..live import RequestError

router = APIRouter()


def get_deals(request: Request) -> DealManager:
    deals: DealManager = request.app.state.deals  # the app's state is untyped: set in lifespan.py
    return deals


Deals = Annotated[DealManager, Depends(get_deals)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PlayIn(_In):
    name: str | None = Field(None, max_length=200)  # a profile's name, for a device without one


class TournamentIn(_In):
    name: str = Field(max_length=200)
    preset: str = Field(max_length=40)
    rounds: int
    window: int  # minutes each round is open
    owner: str | None = Field(None, max_length=200)  # the organiser's name, for a device without a profile
    starts: str | None = Field(None, max_length=40)  # ISO 8601 (a time without a zone is UTC); None: now
    approval: bool = False  # joiners wait for the organiser's approval


class JoinIn(_In):
    invite: str = Field(max_length=64)
    name: str | None = Field(None, max_length=200)


def _day(raw: str | None, deals: DealManager) -> date:
    if not raw:
        return deals.today()
    try:
        day = date.fromisoformat(raw[:10])
    except ValueError:
        raise DealError("input/invalid", "a day is written YYYY-MM-DD", 422) from None
    if day > deals.today():
        raise DealError("deal/not-open", "that day's challenge has not begun", 404)
    return day


def _deal(deals: DealManager, day: date, preset: str) -> DealRow:
    deal = deals.daily(day, preset)
    if deal is None:
        raise DealError("deal/unknown", "there was no challenge that day", 404)
    return deal


def _week(day: date) -> tuple[datetime, datetime]:
    monday = datetime.combine(day - timedelta(days=day.weekday()), datetime.min.time())
    return monday, monday + timedelta(days=7)


def withdrawn(lang: str) -> str:
    """A deleted player's name on the boards, in the reader's language."""
    return translations(lang).gettext(WITHDRAWN)


class SoloRow(TypedDict):
    """A best one-seat game of a preset (the solo board)."""

    rank: int
    name: str
    score: int
    when: str


class LogOut(TypedDict):
    """One of a tournament organiser's actions, as its page lists them."""

    at: str
    action: str
    round: int | None
    minutes: int | None
    started: bool
    by: str
    player: str


class MemberOut(TypedDict):
    key: str  # what the organiser's controls name the member by
    name: str
    status: str
    organiser: bool


class TournamentOut(TypedDict):
    """A tournament's rounds and standings (`standings`); its members and invite for its organiser."""

    id: str
    name: str
    preset: str
    rounds: list[DealBoard]
    standings: list[PeriodRow]
    players: list[str]
    player: bool
    pending: bool
    organiser: bool
    organiser_gone: bool
    approval: bool
    window: int
    starts_at: str
    current: int | None
    paused: bool
    cancelled: bool
    over: bool
    log: list[LogOut]  # every organiser's action, newest first: what, when, by whom (anyone in it may look)
    members: NotRequired[list[MemberOut]]
    invite: NotRequired[str]


def _board(deals: DealManager, deal: DealRow, viewer: str | None, lang: str) -> DealBoard:
    return deal_board(deal, deals.store.deal_scores([deal.id]), deals.now(), viewer, withdrawn(lang))


def _period(deals: DealManager, preset: str, period: str, day: date, viewer: str | None, lang: str) -> list[PeriodRow]:
    since, until = _week(day) if period == "week" else (None, None)
    ds = deals.store.deals("daily", preset, since, until)
    return period_board(ds, deals.store.deal_scores([d.id for d in ds]), viewer, withdrawn=withdrawn(lang))


def _solo(deals: DealManager, preset: str, lang: str) -> list[SoloRow]:
    best = deals.store.best_solo(preset)
    return [
        {"rank": rank, "name": shown_name(b, withdrawn(lang)), "score": b.score, "when": b.when.date().isoformat()}
        for rank, b in zip(ranks([b.score for b in best]), best, strict=True)
    ]


def _seated(
    table: Any, new: dict[int, str], counted: bool, tokens: list[str], settings: Any, cookie: Any
) -> JSONResponse:
    """The answer to a request to play a deal: the table, and this device's seat token (and profile)."""
    out = {"id": table.id, "url": f"/t/{table.id}", "tokens": {str(k): v for k, v in new.items()}, "counted": counted}
    response = JSONResponse(out)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    if cookie is not None:
        set_profile_cookie(response, cookie, settings.secure_cookies)
    return response


def _playable(deals: DealManager, deal: DealRow) -> None:
    """A request to play the day's deal, checked before a profile is made for it (a refused name makes none)."""
    refused = deals.refusal(deal, None)
    if refused is not None:
        raise refused


async def _profile(request: Request, name: Any) -> tuple[ProfileRow, str | None]:
    """The player's profile (made now from `name` for a device without one) and a new cookie to set."""
    profiles = request.app.state.profiles
    player = await playing_profile(request, name)
    if player.refused is not None:  # a board needs a name: no game without the profile
        raise player.refused
    profile = await profiles.store.read(profiles.store.get_profile, player.profile) if player.profile else None
    if profile is None:
        raise DealError("profile/none", "choose a name first: the boards show it", 401)
    return dataclasses.replace(profile, key=player.device), player.cookie


def _viewer(request: Request) -> ProfileRow | None:
    profile: ProfileRow | None = request.app.state.profiles.current(profile_token(request))
    return profile


# --- the daily challenge: JSON -----------------------------------------------------------------------


@router.get("/api/daily")
def api_daily(deals: Deals, day: str = "") -> Answer:
    """The day's deals: each one's commitment (published from the start), its seed once the day is over."""
    d = _day(day, deals)
    out = []
    for preset in daily_presets():
        deal = deals.daily(d, preset)
        if deal is not None:
            closed = deals.closed(deal)
            out.append(
                {
                    "deal": deal.id,
                    "preset": preset,
                    "opens_at": deal.opens_at.isoformat() + "Z",
                    "closes_at": deal.closes_at.isoformat() + "Z",
                    "commitment": deal.commitment,
                    "seed": deal.seed if closed else None,
                    "record": f"/api/daily/{d.isoformat()}/{preset}/record" if closed else None,
                }
            )
    return {"day": d.isoformat(), "today": deals.today().isoformat(), "deals": out}


@router.get("/api/daily/{day}/{preset}")
def api_daily_board(deals: Deals, request: Request, day: str, preset: str, lang: Lang) -> Answer:
    viewer = _viewer(request)
    return _board(deals, _deal(deals, _day(day, deals), preset), viewer.id if viewer else None, lang)


@router.get("/api/daily/{day}/{preset}/record")
def api_daily_record(deals: Deals, day: str, preset: str, manager: Manager) -> JSONResponse:
    """The challenge record: the par bot's game on the day's dice, its seed revealed once the day is over
    (`yambak verify` checks it; every entrant's own record verifies the same way)."""
    deal = _deal(deals, _day(day, deals), preset)
    if not deals.closed(deal) or deal.par_table is None:
        raise DealError("deal/open", "the seed is revealed when the day is over", 409)
    record = manager.record(manager.get(deal.par_table))
    headers = {"Content-Disposition": f'attachment; filename="yambak-daily-{day[:10]}-{preset}.json"'}
    return JSONResponse(record, headers=headers)


@router.post("/api/daily/{preset}/play", dependencies=[Depends(check_rate)])
async def api_play(
    deals: Deals, request: Request, preset: str, body: PlayIn, tokens: Tokens, settings: AppSettings
) -> JSONResponse:
    """Start (or go back to) today's attempt; once it is over, another table is practice (`counted` false)."""
    deal = await deals.store.read(_deal, deals, deals.today(), preset)
    _playable(deals, deal)
    profile, cookie = await _profile(request, body.name)
    table, new, counted = await deals.start(deal, profile, tokens)
    return _seated(table, new, counted, tokens, settings, cookie)


@router.get("/api/leaderboard/{preset}")
def api_leaderboard(
    deals: Deals, request: Request, lang: Lang, preset: str, period: str = "week", day: str = ""
) -> Answer:
    """The challenge's matchpoints over a week (the one of `day`) or all time; `period=solo`: the best
    solo scores of games played without hints."""
    if preset not in daily_presets():
        raise DealError("deal/unknown", f"the leaderboards are kept for {', '.join(daily_presets())}", 404)
    viewer = _viewer(request)
    if period == "solo":
        return {"preset": preset, "period": period, "rows": _solo(deals, preset, lang)}
    if period not in ("week", "all"):
        raise DealError("input/invalid", "a period is week, all or solo", 422)
    d = _day(day, deals)
    return {
        "preset": preset,
        "period": period,
        "rows": _period(deals, preset, period, d, viewer.id if viewer else None, lang),
    }


# --- the daily challenge: the page --------------------------------------------------------------------


def _daily_page(
    request: Request, lang: str, deals: DealManager, preset: str, day: str, period: str, error: str | None = None
) -> HTMLResponse:
    if preset not in daily_presets():
        preset = daily_presets()[0]
    if period not in ("day", "week", "all", "solo"):
        period = "day"
    try:
        d = _day(day, deals)
    except RequestError:
        d = deals.today()
    viewer = _viewer(request)
    vid = viewer.id if viewer else None
    deal = deals.daily(d, preset)
    board = _board(deals, deal, vid, lang) if deal is not None else None
    rows: list[PeriodRow] | list[SoloRow] = []
    if period in ("week", "all"):
        rows = _period(deals, preset, period, d, vid, lang)
    elif period == "solo":
        rows = _solo(deals, preset, lang)
    rules = load_ruleset(preset)
    today = deals.today()
    return render_page(
        request,
        "daily.html",
        lang,
        status=400 if error else 200,
        presets=[(p, ruleset_name(p, load_ruleset(p).name, lang)) for p in daily_presets()],
        preset=preset,
        rules_name=ruleset_name(preset, rules.name, lang),
        day=d.isoformat(),
        today=d == today,
        yesterday=(today - timedelta(days=1)).isoformat(),
        period=period,
        board=board,
        rows=rows,
        viewer=viewer,
        new_today=viewer is not None and viewer.created_at is not None and viewer.created_at.date() >= d,
        error=error,
        boot=boot_json({"strings": {}, "labels": labels(lang)}),
    )


@router.get("/daily", response_class=HTMLResponse)
def daily_page(
    deals: Deals,
    request: Request,
    lang: Lang,
    preset: str = "yams",
    day: str = "",
    period: str = "day",
) -> HTMLResponse:
    return _daily_page(request, lang, deals, preset[:40], day[:10], period[:8])


@router.post("/daily/{preset}/play", **HTML_FORM)
async def daily_play_form(
    deals: Deals, request: Request, preset: str, lang: Lang, tokens: Tokens, settings: AppSettings
) -> Response:
    form = await request.form()
    name = form.get("name")
    try:
        check_rate(request)
        deal = await deals.store.read(_deal, deals, deals.today(), preset)
        _playable(deals, deal)
        profile, cookie = await _profile(request, name if isinstance(name, str) else None)
        table, new, _ = await deals.start(deal, profile, tokens)
    except RequestError as exc:
        text = error_message(exc.code, lang, exc.extra) or exc.message
        return _daily_page(request, lang, deals, preset[:40], "", "day", text)
    response = RedirectResponse(f"/t/{table.id}", status_code=303)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    if cookie is not None:
        set_profile_cookie(response, cookie, settings.secure_cookies)
    return response


# --- club tournaments -------------------------------------------------------------------------------------


def get_clubs(request: Request) -> ClubManager:
    clubs: ClubManager = request.app.state.clubs
    return clubs


Clubs = Annotated[ClubManager, Depends(get_clubs)]


def _tournament(deals: DealManager, tournament_id: str) -> TournamentRow:
    t = deals.store.get_tournament(tournament_id[:24])
    if t is None:
        raise DealError("deal/unknown", "there is no such tournament", 404)
    return t


def standings(deals: DealManager, t: TournamentRow, viewer: str | None, lang: str) -> TournamentOut:
    """A tournament's rounds and standings by total matchpoints (blocking); for its organiser, its
    members with their keys (what the organiser's controls name them by)."""
    rounds = deals.store.tournament_deals(t.id)
    for i, deal in enumerate(rounds):
        if deals.closed(deal) and deal.par_table is None:
            rounds[i] = deals.play_par(deal)
    scores = deals.store.deal_scores([d.id for d in rounds])
    members = deals.store.tournament_players(t.id)
    now = deals.now()
    gone = withdrawn(lang)
    organiser = viewer is not None and viewer == t.organiser_id
    current = next((d for d in rounds if d.opens_at <= now and not d.closed(now)), None)
    out: TournamentOut = {
        "id": t.id,
        "name": t.name,
        "preset": t.preset,
        "rounds": [deal_board(d, scores, now, viewer, gone) for d in rounds],
        "standings": period_board(rounds, scores, viewer, withdrawn=gone),
        "players": [shown_name(m, gone) for m in members if m.status == "player"],
        "player": viewer is not None and any(m.profile_id == viewer and m.status == "player" for m in members),
        "pending": viewer is not None and any(m.profile_id == viewer and m.status == "pending" for m in members),
        "organiser": organiser,
        "organiser_gone": t.organiser_id is None,
        "approval": t.approval,
        "window": t.window_minutes,
        "starts_at": t.starts_at.isoformat() + "Z",
        "current": current.round if current is not None else None,
        "paused": any(d.paused_at is not None and not d.closed(now) for d in rounds),
        "cancelled": t.cancelled,
        "over": bool(rounds) and all(d.closed(now) for d in rounds),
        "log": [
            {
                "at": e.at.isoformat() + "Z",
                "action": e.action,
                "round": e.round,
                "minutes": e.minutes,
                "started": e.started,
                "by": e.by or gone,
                "player": e.player or gone,
            }
            for e in deals.store.organiser_log(t.id)
        ],
    }
    if organiser:
        out["members"] = [
            {"key": member_key(t.id, m.profile_id), "name": shown_name(m, gone), "status": m.status,
             "organiser": m.profile_id == t.organiser_id}
            for m in members
        ]  # fmt: skip
        out["invite"] = f"/c/{t.id}?invite={t.invite}"
    return out


@router.post("/api/clubs", status_code=201, dependencies=[Depends(check_rate)])
async def api_create_tournament(
    clubs: Clubs, request: Request, body: TournamentIn, settings: AppSettings
) -> JSONResponse:
    clubs.check_new(body.name, body.preset, body.rounds, body.window, body.starts)  # before a profile is made
    profile, cookie = await _profile(request, body.owner)
    t, code = await clubs.store.read(
        clubs.create, body.name, body.preset, body.rounds, body.window, profile, body.starts, body.approval
    )
    out = {
        "id": t.id,
        "url": f"/c/{t.id}",
        "invite": f"/c/{t.id}?invite={code}",
        "starts_at": t.starts_at.isoformat() + "Z",
    }
    response = JSONResponse(out, status_code=201)
    if cookie is not None:
        set_profile_cookie(response, cookie, settings.secure_cookies)
    return response


@router.get("/api/clubs/{tournament_id}")
def api_tournament(deals: Deals, request: Request, tournament_id: str, lang: Lang) -> Answer:
    viewer = _viewer(request)
    return standings(deals, _tournament(deals, tournament_id), viewer.id if viewer else None, lang)


@router.post("/api/clubs/{tournament_id}/join", dependencies=[Depends(check_rate)])
async def api_join_tournament(
    clubs: Clubs, request: Request, tournament_id: str, body: JoinIn, settings: AppSettings
) -> JSONResponse:
    t = await clubs.store.read(_tournament, clubs.deals, tournament_id)
    await clubs.store.read(clubs.check_join, t, body.invite)  # before a profile is made
    profile, cookie = await _profile(request, body.name)
    status = await clubs.store.read(clubs.join, t, body.invite, profile)
    response = JSONResponse({"joined": status == "player", "status": status})
    if cookie is not None:
        set_profile_cookie(response, cookie, settings.secure_cookies)
    return response


async def _round(deals: DealManager, tournament_id: str, n: int) -> DealRow:
    t = await deals.store.read(_tournament, deals, tournament_id)
    deal = next((d for d in await deals.store.read(deals.store.tournament_deals, t.id) if d.round == n), None)
    if deal is None:
        raise DealError("deal/unknown", "there is no such round", 404)
    return deal


@router.post("/api/clubs/{tournament_id}/rounds/{n}/play", dependencies=[Depends(check_rate)])
async def api_play_round(
    deals: Deals, request: Request, tournament_id: str, n: int, tokens: Tokens, settings: AppSettings
) -> JSONResponse:
    deal = await _round(deals, tournament_id, n)
    profile = await request.app.state.profiles.acurrent(profile_token(request))
    if profile is None:
        raise DealError("profile/none", "join the tournament first", 401)
    table, new, counted = await deals.start(deal, profile, tokens)
    return _seated(table, new, counted, tokens, settings, None)


# --- the organiser's controls: the API and the page's forms do the same ----------------------------------

ACTIONS = ("pause", "resume", "extend", "cancel-round", "cancel", "invite", "approval", "approve", "remove")
CONFIRMED = ("extend", "cancel-round", "cancel")  # the page's forms ask the organiser again first


class ManageIn(_In):
    round: int | None = Field(default=None, ge=1, le=100)
    minutes: int | None = None
    player: str | None = Field(default=None, max_length=40)  # a member's key (the organiser's page lists them)
    on: bool | None = None  # approval of joiners


async def manage(clubs: ClubManager, request: Request, tournament_id: str, action: str, body: ManageIn) -> Any:
    """One of the organiser's actions on a tournament; 403 for anyone else. Returns the new invite code
    when it renews it."""
    t = await clubs.store.read(_tournament, clubs.deals, tournament_id)
    profile = await request.app.state.profiles.acurrent(profile_token(request))
    if action == "pause":
        await clubs.pause(t, profile)
    elif action == "resume":
        await clubs.resume(t, profile)
    elif action == "extend":
        await clubs.extend(t, profile, body.round, body.minutes)
    elif action == "cancel-round":
        await clubs.cancel(t, profile, body.round or 0)
    elif action == "cancel":
        await clubs.cancel(t, profile)
    elif action == "invite":
        return await clubs.store.read(clubs.renew_invite, t, profile)
    elif action == "approval":
        await clubs.store.read(clubs.set_approval, t, profile, body.on)
    elif action in ("approve", "remove"):
        await clubs.store.read(clubs.member, t, profile, body.player, action)
    else:
        raise DealError("input/invalid", f"an organiser's action is one of {', '.join(ACTIONS)}", 404)
    return None


@router.post("/api/clubs/{tournament_id}/{action}", dependencies=[Depends(check_origin)])
async def api_manage(
    clubs: Clubs, request: Request, tournament_id: str, action: str, lang: Lang, body: ManageIn | None = None
) -> Answer:
    """The organiser: pause, resume, extend (round, minutes), cancel-round (round), cancel, invite (a new
    code), approval (on), approve or remove (player)."""
    code = await manage(clubs, request, tournament_id, action, body or ManageIn())
    t = await clubs.store.read(_tournament, clubs.deals, tournament_id)
    viewer = await request.app.state.profiles.acurrent(profile_token(request))
    out = await clubs.store.read(standings, clubs.deals, t, viewer.id if viewer else None, lang)
    if code is not None:
        out["invite"] = f"/c/{t.id}?invite={code}"
    return out


def _tournament_page(
    request: Request,
    lang: str,
    deals: DealManager,
    t: TournamentRow,
    invite: str = "",
    refused: Any = None,
    confirm: dict[str, Any] | None = None,
) -> HTMLResponse:
    """The page; after a refused form (`refused`, a RequestError), with its reason, and its status;
    `confirm`: an organiser's action the page asks about before it is done."""
    viewer = _viewer(request)
    data = standings(deals, t, viewer.id if viewer else None, lang)
    base = str(request.base_url).rstrip("/")
    return render_page(
        request,
        "tournament.html",
        lang,
        status=refused.status if refused is not None else 200,
        noindex=True,  # a club's players by name
        t=data,
        rules_name=ruleset_name(t.preset, load_ruleset(t.preset).name, lang),
        invite=invite[:64],
        invite_url=f"{base}{data['invite']}" if data["organiser"] else None,
        share_url=f"{base}/c/{t.id}",
        viewer=viewer,
        error=(error_message(refused.code, lang, refused.extra) or refused.message) if refused is not None else None,
        confirm=confirm if data["organiser"] else None,
        boot=boot_json({"strings": js_strings(lang), "labels": labels(lang)}),
    )


def _new_page(
    request: Request, lang: str, deals: DealManager, status: int = 200, error: str | None = None
) -> HTMLResponse:
    """The form that makes a tournament, under the tournaments this device's profile plays in."""
    presets = [(p, ruleset_name(p, load_ruleset(p).name, lang)) for p in club_presets()]
    boot = boot_json({"strings": js_strings(lang), "labels": labels(lang)})
    viewer = _viewer(request)
    mine = deals.store.tournaments_of(viewer.id) if viewer else []
    return render_page(
        request, "tournament_new.html", lang, status=status, presets=presets, viewer=viewer, mine=mine, error=error,
        boot=boot,
    )  # fmt: skip


@router.get("/clubs/new", response_class=HTMLResponse)
def new_tournament_page(deals: Deals, request: Request, lang: Lang) -> HTMLResponse:
    return _new_page(request, lang, deals)


def _number(form: Any, key: str) -> int | None:
    return ascii_int(str(form.get(key, "") or ""), 999_999)


@router.post("/clubs", **HTML_FORM)
async def create_tournament_form(clubs: Clubs, request: Request, lang: Lang, settings: AppSettings) -> Response:
    form = await request.form()
    try:
        check_rate(request)
        owner = form.get("owner")
        starts = str(form.get("starts", "") or "") or None  # the page's script writes it in UTC
        name, preset = str(form.get("name", "")), str(form.get("preset", ""))
        asked = (name, preset, _number(form, "rounds"), _number(form, "window"))
        clubs.check_new(*asked, starts)  # before a profile is made
        profile, cookie = await _profile(request, owner if isinstance(owner, str) else None)
        approval = form.get("approval") is not None
        t, _ = await clubs.store.read(clubs.create, *asked, profile, starts, approval)
    except RequestError as exc:
        text = error_message(exc.code, lang, exc.extra) or exc.message
        return _new_page(request, lang, clubs.deals, exc.status, text)
    response = RedirectResponse(f"/c/{t.id}", status_code=303)
    if cookie is not None:
        set_profile_cookie(response, cookie, settings.secure_cookies)
    return response


@router.get("/c/{tournament_id}", response_class=HTMLResponse)
def tournament_page(deals: Deals, request: Request, tournament_id: str, lang: Lang, invite: str = "") -> HTMLResponse:
    """A tournament's shareable page: its rounds and standings (names only); with its invite, a way in."""
    t = deals.store.get_tournament(tournament_id[:24])
    if t is None:
        return render_page(request, "missing.html", lang, status=404)
    return _tournament_page(request, lang, deals, t, invite)


@router.post("/c/{tournament_id}/join", **HTML_FORM)
async def join_tournament_form(
    clubs: Clubs, request: Request, tournament_id: str, lang: Lang, settings: AppSettings
) -> Response:
    form = await request.form()
    t = await clubs.store.read(clubs.store.get_tournament, tournament_id[:24])
    if t is None:
        return render_page(request, "missing.html", lang, status=404)
    invite = str(form.get("invite", ""))[:64]
    try:
        check_rate(request)
        name = form.get("name")
        await clubs.store.read(clubs.check_join, t, invite)  # before a profile is made
        profile, cookie = await _profile(request, name if isinstance(name, str) else None)
        await clubs.store.read(clubs.join, t, invite, profile)
    except RequestError as exc:
        return _tournament_page(request, lang, clubs.deals, t, invite, exc)
    response = RedirectResponse(f"/c/{t.id}", status_code=303)
    if cookie is not None:
        set_profile_cookie(response, cookie, settings.secure_cookies)
    return response


@router.post("/c/{tournament_id}/manage", **HTML_FORM)
async def manage_form(clubs: Clubs, request: Request, tournament_id: str, lang: Lang) -> Response:
    """The organiser's controls on the tournament's page (plain forms)."""
    form = await request.form()
    t = await clubs.store.read(clubs.store.get_tournament, tournament_id[:24])
    if t is None:
        return render_page(request, "missing.html", lang, status=404)
    try:
        check_origin(request)
        body = ManageIn(
            round=_number(form, "round"), minutes=_number(form, "minutes"),
            player=str(form.get("player", "") or "")[:40] or None, on=form.get("on") is not None,
        )  # fmt: skip
        action = str(form.get("action", ""))[:20]
        if action in CONFIRMED and form.get("confirmed") != "1":  # the page asks first, nothing done yet
            t = await clubs.store.read(_tournament, clubs.deals, t.id)
            asked = {"action": action, "round": body.round, "minutes": body.minutes}
            return _tournament_page(request, lang, clubs.deals, t, "", confirm=asked)
        await manage(clubs, request, t.id, action, body)
    except RequestError as exc:
        t = await clubs.store.read(_tournament, clubs.deals, t.id)
        return _tournament_page(request, lang, clubs.deals, t, "", exc)
    return RedirectResponse(f"/c/{t.id}", status_code=303)


@router.post("/c/{tournament_id}/play/{n}", **HTML_FORM)
async def play_round_form(deals: Deals,
    request: Request, tournament_id: str, n: int, lang: Lang, tokens: Tokens, settings: AppSettings,
) -> Response:  # fmt: skip
    try:
        check_rate(request)
        deal = await _round(deals, tournament_id, n)
        profile = await request.app.state.profiles.acurrent(profile_token(request))
        if profile is None:
            raise DealError("profile/none", "join the tournament first", 401)
        table, new, _ = await deals.start(deal, profile, tokens)
    except RequestError as exc:
        t = await deals.store.read(deals.store.get_tournament, tournament_id[:24])
        if t is None:
            return render_page(request, "missing.html", lang, status=404)
        return _tournament_page(request, lang, deals, t, "", exc)
    response = RedirectResponse(f"/t/{table.id}", status_code=303)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    return response
