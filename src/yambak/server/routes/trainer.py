"""The trainer: its page (`/train`) and JSON API: the next position, the day's position, a position by
id, answers, a profile's history. With a profile (the device's cookie) the server keeps the rating,
streak and history; without one, the device sends its rating and streak with each answer and gets the
update back."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from ...rules import load_ruleset, preset_ids
from ...rules.loader import preset_data
from ...store import ProfileRow
from ...trainer import Rating, initial
from ...web.i18n import js_strings, labels, ruleset_name
from ..common.coach import CoachPool
from ..common.pages import boot_json, render_page
from ..deps import Answer, Lang, check_rate, profile_token
from ..trainer.manager import Anonymous, TrainerManager, TrainingError

router = APIRouter()

MU = (-1000.0, 1000.0)  # OpenSkill's scale starts at 25 +- 25/3: far outside this is not a rating
SIGMA = (1e-6, 100.0)
STREAK = 10**6
SKIPPED = 50


def get_trainer(request: Request) -> TrainerManager:
    """The app's trainer (made at the first trainer request: its pools are generated when first asked)."""
    trainer: TrainerManager | None = getattr(request.app.state, "trainer", None)
    if trainer is None:
        settings = request.app.state.settings
        coach = CoachPool(settings.coach_process, "yambak-trainer")  # spawned at the first pool to generate
        trainer = request.app.state.trainer = TrainerManager(request.app.state.store, settings.clock, coach=coach)
    return trainer


Trainer = Annotated[TrainerManager, Depends(get_trainer)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RatingIn(_In):
    mu: float = Field(ge=MU[0], le=MU[1], allow_inf_nan=False)
    sigma: float = Field(ge=SIGMA[0], le=SIGMA[1], allow_inf_nan=False)


class AnswerIn(_In):
    position: str = Field(min_length=1, max_length=32)
    choice: dict[str, Any]  # checked by `trainer.Choice.from_dict` (coded errors)
    # without a profile: the device's rating and streak (with one: ignored, the server keeps them)
    rating: RatingIn | None = None
    streak: int = Field(0, ge=0, le=STREAK)
    best_streak: int = Field(0, ge=0, le=STREAK)


async def _profile(request: Request) -> ProfileRow | None:
    profile: ProfileRow | None = await request.app.state.profiles.acurrent(profile_token(request))
    return profile


def _rating(mu: float | None, sigma: float | None) -> Rating | None:
    if (mu is None) != (sigma is None):
        raise TrainingError("train/rating", "send both mu and sigma, or neither")
    return Rating(mu, sigma) if mu is not None and sigma is not None else None


@router.get("/api/train/{preset}/next", dependencies=[Depends(check_rate)])
async def next_position(
    request: Request,
    preset: str,
    trainer: Trainer,
    mu: Annotated[float | None, Query(ge=MU[0], le=MU[1], allow_inf_nan=False)] = None,
    sigma: Annotated[float | None, Query(ge=SIGMA[0], le=SIGMA[1], allow_inf_nan=False)] = None,
    skip: Annotated[list[str] | None, Query(max_length=SKIPPED)] = None,
) -> Answer:
    """A position to solve (without its answer); `mu`, `sigma` and `skip` (positions seen) from a device
    without a profile."""
    profile = await _profile(request)
    puzzle, rating, streak = await trainer.next_for(
        preset[:40], profile, _rating(mu, sigma), frozenset(s[:32] for s in skip or ())
    )
    out = {"position": puzzle.to_dict(reveal=False), "rating": rating.to_dict(), "profile": profile is not None}
    return {**out, "streak": streak} if streak is not None else out


@router.get("/api/train/{preset}/daily")
async def daily_position(preset: str, trainer: Trainer) -> Answer:
    puzzle = await trainer.daily(preset[:40])
    return {"date": trainer.now().date().isoformat(), "position": puzzle.to_dict(reveal=False)}


@router.get("/api/train/{preset}/positions/{position_id}")
async def position(preset: str, position_id: str, trainer: Trainer) -> Answer:
    puzzle = await trainer.position(preset[:40], position_id[:32])
    return {"position": puzzle.to_dict(reveal=False)}


@router.post("/api/train/{preset}/answer", dependencies=[Depends(check_rate)])
async def answer(request: Request, preset: str, body: AnswerIn, trainer: Trainer) -> Answer:
    """Grade an answer: its loss, solved or not, the best three choices; the rating's update and streak."""
    profile = await _profile(request)
    anonymous = None
    if profile is None and body.rating is not None:
        anonymous = Anonymous(Rating(body.rating.mu, body.rating.sigma), body.streak, body.best_streak)
    return await trainer.answer(preset[:40], body.position, body.choice, profile, anonymous)


@router.get("/api/train/history")
async def history(
    request: Request,
    trainer: Trainer,
    preset: Annotated[str | None, Query(max_length=40)] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
) -> Answer:
    """The device's profile's puzzle ratings and answers, the latest first."""
    profile = await _profile(request)
    if profile is None:
        raise TrainingError("profile/none", "the trainer's history is kept with a profile: choose a name first", 401)
    return await trainer.history(profile, preset, limit)


# --- the page -----------------------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _presets(lang: str) -> tuple[tuple[str, str], ...]:
    """The presets and their names in a language (each preset's TOML read once per process)."""
    return tuple((p, ruleset_name(p, str(preset_data(p).get("name", p)), lang)) for p in preset_ids())


@lru_cache(maxsize=64)
def _columns(preset: str) -> int:
    return len(load_ruleset(preset).columns)


@router.get("/train", response_class=HTMLResponse)
async def train_page(request: Request, lang: Lang, preset: str = "yams") -> HTMLResponse:
    """The trainer of a preset (its positions come from the API: the page's script asks)."""
    preset = preset if preset in preset_ids() else "yams"
    profile = await _profile(request)
    presets = _presets(lang)
    start = initial()
    boot = {
        "strings": js_strings(lang), "labels": labels(lang, preset), "preset": preset,
        "columns": _columns(preset), "profile": profile is not None,
        "start": {"mu": start.mu, "sigma": start.sigma},
    }  # fmt: skip
    return render_page(
        request, "train.html", lang, presets=presets, preset=preset, rules_name=dict(presets)[preset],
        boot=boot_json(boot),
    )  # fmt: skip
