"""Where a ruleset's players lose points: the stored graded decisions as anonymous aggregates (the
strategy page reads them). Nothing of a deal still open counts (docs/daily.md), and nothing is shown
of a ruleset until it has `MIN_GAMES` graded games."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime

from fastapi import APIRouter, Request

from ...coach import measure_of
from ...rules import load_ruleset, preset_ids
from ...store import KindLoss, Losses, Store
from ...store.decisions import MIN_GAMES
from ...viewtypes import JSONObject
from ..common.clock import naive_utc
from ..deps import Answer, AppSettings, Manager
from ..live import RequestError

router = APIRouter()


def _figures(k: KindLoss) -> JSONObject:
    return {
        "count": k.count,
        "mistakes": k.mistakes,
        "mean_loss": round(k.mean_loss, 4),
        "total_loss": round(k.total_loss, 4),
        "share": round(k.share, 4),
    }


def losses_json(preset: str, losses: Losses) -> JSONObject:
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


class LossesCache:
    """A ruleset's aggregate, computed at most once per `ttl` seconds (it reads every graded decision of the
    ruleset: 0.4 s on SQLite and 0.26 s on PostgreSQL for 120,000 of them, bench/decisions.py) and one at a
    time per ruleset (another ruleset's does not wait for it). An entry holds
    while the deals open when it was computed are the deals open now: a deal that closes, opens or is
    extended again makes the next request compute it anew, so no open deal's game is ever in an answer."""

    def __init__(self, ttl: float = 600.0, size: int = 64) -> None:
        self.ttl, self.size = ttl, size
        self.entries: dict[tuple[str, tuple[str, ...]], tuple[float, Losses]] = {}
        self.locks: dict[str, asyncio.Lock] = {}  # one a ruleset (a few dozen at most: never dropped)

    async def get(self, store: Store, key: str, now: datetime, unit: str) -> Losses:
        """`unit`: the measure of the ruleset's grades (`coach.measure_of`), the same for every request of `key`."""
        entry = (key, await store.read(store.open_deals, now))
        async with self.locks.setdefault(key, asyncio.Lock()):
            found = self.entries.get(entry)
            if found is not None and time.monotonic() - found[0] < self.ttl:
                return found[1]
            losses = await store.read(store.decision_losses, key, now, MIN_GAMES, unit)
            for stale in [k for k in self.entries if k[0] == key]:  # computed with other deals open
                del self.entries[stale]
            self.entries[entry] = (time.monotonic(), losses)
            while len(self.entries) > self.size:  # the oldest goes
                del self.entries[next(iter(self.entries))]
            return losses


def _cache(request: Request) -> LossesCache:
    """The app's cache, made with its first request here (app.py stays as it is)."""
    cache: LossesCache | None = getattr(request.app.state, "decision_losses", None)
    if cache is None:
        cache = request.app.state.decision_losses = LossesCache()
    return cache


@router.get("/strategy/{preset}/losses")
async def strategy_losses(request: Request, preset: str, manager: Manager, settings: AppSettings) -> Answer:
    """The kinds of decision that cost a preset's players most (with its usual options), in expected
    points, from the games the server rolled without help; `enough` false (and no kinds) below
    `min_games` graded games. Figures up to ten minutes old."""
    if preset not in preset_ids():
        raise RequestError("preset/unknown", "there is no such ruleset", 404)
    rules = load_ruleset(preset)
    key, unit = rules.variant_key(duplicate=False), measure_of(rules)
    return losses_json(preset, await _cache(request).get(manager.store, key, naive_utc(settings.clock()), unit))
