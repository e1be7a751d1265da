"""Where a ruleset's players lose points: the stored graded decisions as anonymous aggregates (the
strategy page reads them). Nothing of a deal still open counts (docs/daily.md), and nothing is shown
of a ruleset until it has `MIN_GAMES` graded games."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from ...rules import load_ruleset, preset_ids
from ...store import KindLoss, Losses
from ...store.decisions import MIN_GAMES
from ..common.clock import naive_utc
from ..deps import AppSettings, Manager
from ..live import RequestError

router = APIRouter()


def _figures(k: KindLoss) -> dict[str, Any]:
    return {
        "count": k.count,
        "mistakes": k.mistakes,
        "mean_loss": round(k.mean_loss, 4),
        "total_loss": round(k.total_loss, 4),
        "share": round(k.share, 4),
    }


def losses_json(preset: str, losses: Losses) -> dict[str, Any]:
    """The aggregate as the API answers it: per kind of decision (keep, box, strike, announce) the
    costliest first, each with its boxes (the box the turn ended in) the costliest first."""
    return {
        "preset": preset,
        "rules_id": losses.rules_id,
        "games": losses.games,
        "enough": losses.enough,
        "min_games": MIN_GAMES,
        "unit": losses.unit,
        "kinds": [
            {"kind": kind.kind, **_figures(kind), "boxes": [{"box": b.box, **_figures(b)} for b in boxes]}
            for kind, boxes in losses.kinds
        ],
    }


@router.get("/strategy/{preset}/losses")
async def strategy_losses(preset: str, manager: Manager, settings: AppSettings) -> dict[str, Any]:
    """The kinds of decision that cost a preset's players most (with its usual options), in expected
    points, from the games the server rolled without help; `enough` false (and no kinds) below
    `min_games` graded games."""
    if preset not in preset_ids():
        raise RequestError("preset/unknown", "there is no such ruleset", 404)
    key = load_ruleset(preset).variant_key(duplicate=False)
    store = manager.store
    losses = await store.read(store.decision_losses, key, naive_utc(settings.clock()))
    return losses_json(preset, losses)
