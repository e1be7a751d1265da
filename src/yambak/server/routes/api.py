"""JSON API: create, list, join, view, rematch, record. One schema per direction.

The form routes of `pages.py` that do the same things (rematch, record) call the
same table manager methods (`rematch_for`, `downloadable_record`).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..common.asked import Asked
from ..common.pages import download
from ..common.tokens import hash_token
from ..daily.sealed import acheck, check
from ..deps import (
    Answer,
    AppSettings,
    Manager,
    Player,
    Tokens,
    add_tokens,
    aviewer_id,
    check_rate,
    playing_profile,
    set_profile_cookie,
    viewer_id,
)
from ..replays import frame
from ..tables.manager import TableError, record_of
from ..tables.settings import ASYNC_CLOCKS, CLOCK_RANGE
from . import losses, strategy

router = APIRouter(prefix="/api")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # no "0" or true read as a seat


class SeatIn(_In):
    kind: Literal["human", "open", "bot"] = "human"
    name: str | None = Field(None, max_length=100)
    # a level (easy, medium, hard) or a policy name; the table manager checks it
    bot: str = Field("medium", max_length=20)


class TableIn(_In):
    name: str | None = Field(None, max_length=200)  # None: named after whoever sits first, on its pages
    preset: str | None = Field(None, max_length=40)
    options: dict[str, Any] = Field(default_factory=dict)
    rules: dict[str, Any] | None = None  # house rules: a whole ruleset (the preset data format) instead
    seats: list[SeatIn] = Field(min_length=1, max_length=64)
    listed: bool = True
    duplicate: bool = False
    # the table's settings (None: the default for these seats; see tables/settings.py)
    hints: bool | None = None
    clock: int | None = Field(None, ge=0, le=ASYNC_CLOCKS[-1])  # seconds per turn; 0: no clock
    undo: bool | None = None

    @field_validator("clock")
    @classmethod
    def _clock(cls, clock: int | None) -> int | None:
        if clock is not None and clock > CLOCK_RANGE[1] and clock not in ASYNC_CLOCKS:
            raise ValueError(f"a clock of hours or days is one of {', '.join(map(str, ASYNC_CLOCKS))} seconds")
        return clock

    def asked(self) -> Asked:
        return {"hints": self.hints, "clock": self.clock, "undo": self.undo}


class JoinIn(_In):
    name: str = Field(max_length=200)
    seat: int | None = Field(None, ge=0, le=63)


@router.get("/tables")
def list_tables(manager: Manager) -> Answer:
    return {"tables": manager.listed()}


@router.post("/tables", status_code=201, dependencies=[Depends(check_rate)])
async def create_table(
    request: Request, body: TableIn, manager: Manager, tokens: Tokens, settings: AppSettings
) -> JSONResponse:
    if body.preset is None and body.rules is None:
        raise TableError("input/rules", "choose a ruleset: a preset or rules of your own")
    seats = [s.model_dump() for s in body.seats]
    first = next((s for s in body.seats if s.kind == "human"), None)
    # checked in full before anything is made: a refused request makes no profile and no table
    plan = manager.prepare(
        body.name, body.preset, body.options, seats, body.listed, body.duplicate, body.asked(), body.rules
    )
    player = await playing_profile(request, first.name) if first is not None else Player()
    table, new = await manager.aopen(plan, player.profile, player.device)
    manager.schedule_bots(table)
    made = {"id": table.id, "url": f"/t/{table.id}", "tokens": {str(k): v for k, v in new.items()}}
    response = JSONResponse({**made, **player.told()}, status_code=201)
    add_tokens(response, tokens, list(new.values()), settings.secure_cookies)
    if player.cookie is not None:
        set_profile_cookie(response, player.cookie, settings.secure_cookies)
    return response


@router.get("/tables/{table_id}")
def get_table(request: Request, table_id: str, manager: Manager, tokens: Tokens) -> Answer:
    table = manager.get(table_id)
    check(table, tokens, lambda: viewer_id(request))
    return dict(manager.view(table, frozenset(table.seats_for({hash_token(t) for t in tokens}))))


@router.post("/tables/{table_id}/join", dependencies=[Depends(check_rate)])
async def join(
    request: Request, table_id: str, body: JoinIn, manager: Manager, tokens: Tokens, settings: AppSettings
) -> JSONResponse:
    table = await manager.aget(table_id)
    name = manager.check_join(table, body.name, body.seat)  # before a profile is made for it
    player = await playing_profile(request, name)
    seat, token = await manager.join(table, name, body.seat, player.profile, player.device)
    response = JSONResponse({"seat": seat, "token": token, **player.told()})
    add_tokens(response, tokens, [token], settings.secure_cookies)
    if player.cookie is not None:
        set_profile_cookie(response, player.cookie, settings.secure_cookies)
    return response


@router.post("/tables/{table_id}/rematch", dependencies=[Depends(check_rate)])
async def rematch(table_id: str, manager: Manager, tokens: Tokens) -> Answer:
    new = await manager.rematch_for(table_id, tokens)
    return {"id": new.id, "url": f"/t/{new.id}"}


@router.get("/tables/{table_id}/review")
async def review(request: Request, table_id: str, manager: Manager, tokens: Tokens) -> Answer:
    table = await manager.aget(table_id)
    await acheck(table, tokens, lambda: aviewer_id(request))
    return await manager.review(table)


@router.get("/tables/{table_id}/frames/{n}")
def replay_frame(request: Request, table_id: str, n: int, manager: Manager, tokens: Tokens) -> Answer:
    """A finished game as it stood after turn n, for the replay viewer."""
    table = manager.get(table_id)
    check(table, tokens, lambda: viewer_id(request))
    if not table.state.finished:
        raise TableError("table/not-finished", "the replay is ready when the game is over", 409)
    return frame(record_of(table.state), n, table.state.simultaneous)


@router.get("/tables/{table_id}/record")
def record(request: Request, table_id: str, manager: Manager, tokens: Tokens) -> JSONResponse:
    check(manager.get(table_id), tokens, lambda: viewer_id(request))  # an open deal's: its player's only
    return download(manager.downloadable_record(table_id), f"yambak-{table_id}.json")


router.include_router(losses.router)  # /api/strategy/{preset}/losses: where a ruleset's players lose points
router.include_router(strategy.api_router)  # /api/strategy/{preset}/odds, /api/tables/{id}/odds: the calculator
