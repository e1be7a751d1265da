"""A profile's statistics as its page shows them: per ruleset variant, games, wins, mean and best
score, upper-bonus and yam rates, accuracy (points lost per decision), a histogram and a trend (SVG,
drawn here), and the personal bests. The figures are the store's aggregates of the engine's numbers."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...rules import load_ruleset, preset_ids
from ...store import ProfileRow, ResultRow, StatsRow, Store
from ...web.i18n import labels, translations
from .history import variant_label
from .plots import histogram_svg, nice_width, trend_svg

__all__ = ["stats_page", "variant_stats"]


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def variant_stats(s: StatsRow, lang: str) -> dict[str, Any]:
    return {
        "rules_id": s.rules_id,
        "preset": s.preset,
        "game": variant_label(s.rules_id, lang),
        "games": s.games,
        "duels": s.duels,
        "wins": s.wins,
        "mean": None if s.mean is None else round(s.mean, 1),
        "best": s.best,
        "worst": s.worst,
        "counted_best": s.counted_best,
        "bonus_rate": _rate(s.bonus_columns, s.columns),
        "yam_rate": _rate(s.yams, s.yam_boxes),
        "accuracy": None if s.accuracy is None else round(s.accuracy, 2),
        "graded": s.graded,
        "helped": s.helped,
    }


def yam_label(preset: str, lang: str) -> str:
    """The name players of the preset give the five-of-a-kind box (Yams, Yatzy, Yamb, Yam)."""
    rows = labels(lang, preset)["rows"]
    if preset in preset_ids():
        row = next((r.id for r in load_ruleset(preset).rows if r.kind == "yam"), None)
        if row is not None and row in rows:
            return rows[row]
    return rows.get("yam", "Yam")


def _ends(recent: list[ResultRow], lang: str) -> tuple[str, str] | None:
    """The dates of the trend's first and last games, short, in the reader's language."""
    from babel.dates import format_skeleton

    if not recent:
        return None
    first, last = recent[0].finished_at, recent[-1].finished_at
    skeleton = "MMMd" if first.year == last.year else "yMMMd"
    try:
        return format_skeleton(skeleton, first, locale=lang), format_skeleton(skeleton, last, locale=lang)
    except (ValueError, LookupError):
        return first.date().isoformat(), last.date().isoformat()


def stats_page(
    store: Store, profile: ProfileRow, lang: str, chosen: str | None, public_at: datetime | None = None
) -> dict[str, Any]:
    """Every variant's figures, and the chosen one's (default: the most played) plots and bests;
    `public_at`: as others see them then (without the games of deals still open)."""
    variants = [variant_stats(s, lang) for s in store.stats(profile.id, public_at)]
    out: dict[str, Any] = {"variants": variants, "chosen": None}
    pick = next((v for v in variants if v["rules_id"] == chosen), variants[0] if variants else None)
    if pick is None:
        return out
    tr = translations(lang)
    rid = pick["rules_id"]
    width = nice_width(pick["worst"] or 0, pick["best"] or 0)
    band = tr.ngettext("Games per band of {n} point", "Games per band of {n} points", width)
    bins = store.histogram(profile.id, rid, width, public_at)
    recent = store.recent_scores(profile.id, rid, public_at=public_at)
    bests = store.bests(profile.id, rid, public_at=public_at)
    points = [{"score": r.score, "best": r.best} for r in recent]
    out["chosen"] = {
        **pick,
        "yam_label": yam_label(pick["preset"], lang),
        "histogram": histogram_svg(bins, width, band.format(n=width), pick["counted_best"]),
        "trend": trend_svg(
            points,
            tr.gettext("Score of each game, oldest first, with the mean of the last ten"),
            ends=_ends(recent, lang),
        ),
        "trend_games": len(points),
        "bests": [{"id": r.public_id, "score": r.score, "when": r.finished_at.isoformat() + "Z"} for r in bests],
    }
    return out
