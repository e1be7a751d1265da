"""The strategy-and-odds page of a ruleset (`/strategy/{preset}`, a table's own rules at `/t/{id}/strategy`)
and its calculator's JSON route. Every figure is the brain's (`yambak.strategy`): the odds computed here
(exact, instant), the rest read from the shipped data where the preset has it; elsewhere the page says
that those figures are not computed yet rather than show any. Numbers are written in the page's language
and carry their raw value in a `data-value` attribute (what the tests read back)."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from ...coach import measure_of
from ...inputs import ascii_int
from ...rules import Ruleset, load_ruleset, preset_ids
from ...store import Losses
from ...store.decisions import MIN_GAMES
from ...strategy import BoxOdds, StrategyData, calculator, fingerprint, low_rows, odds
from ...web.i18n import labels, number, percent, ruleset_name, translations
from ...web.opening_words import rule_texts
from ..common.clock import naive_utc
from ..common.pages import boot_json, render_page, templates
from ..deps import Answer, AppSettings, Lang, Manager
from ..live import RequestError
from ..profiles.plots import histogram_svg
from ..strategy import Progress, StrategyJobs

__all__ = ["api_router", "router", "calculator_json"]

router = APIRouter()
api_router = APIRouter()

JS_TEXTS = ("Not connected: try again.", "{shown} of {all} rolls")  # what static/strategy.js says
KEPT = re.compile(r"[1-6]{0,6}")


def calculator_json(rules: Ruleset, kept_text: str | None, rolls_text: str | None) -> dict[str, Any]:
    """The calculator's answer: every row's chance (a sum row: its expected best sum) holding `kept`
    (digits, "66") with `rolls` rolls left. Raises RequestError `strategy/kept` or `strategy/rolls`."""
    rolls_per_turn = (
        rules.rolls_per_turn if rules.columns[0].rolls is None else min(rules.columns[0].rolls, rules.rolls_per_turn)
    )
    kept_text = (kept_text or "").strip()
    if not KEPT.fullmatch(kept_text) or len(kept_text) >= rules.rolled_dice:
        raise RequestError(
            "strategy/kept", f"kept dice: fewer than {rules.rolled_dice} digits, each 1 to 6", dice=rules.rolled_dice
        )
    rolls = ascii_int(rolls_text, rolls_per_turn) or 0  # ASCII digits only ("٣" is refused)
    if not 1 <= rolls <= rolls_per_turn or (rolls == rolls_per_turn and kept_text):
        raise RequestError(
            "strategy/rolls",
            f"rolls left: 1 to {rolls_per_turn} (with nothing kept before the first roll)",
            limit=rolls_per_turn,
        )
    kept = tuple(sorted(int(c) for c in kept_text))
    try:
        chances = calculator(rules, kept, rolls)
    except ValueError as exc:  # the checks above are the calculator's own; kept for a ruleset they miss
        raise RequestError("strategy/kept", str(exc)) from None
    sums = {r.id for r in rules.rows if r.kind == "sum"}
    return {
        "kept": list(kept),
        "rolls": rolls,
        "chances": {row: value for row, value in chances.items() if row not in sums},
        "expected_sums": {row: value for row, value in chances.items() if row in sums},
    }


@api_router.get("/strategy/{preset}/odds")
def preset_odds(preset: str, kept: str | None = None, rolls: str | None = None) -> Answer:
    """GET /api/strategy/yams/odds?kept=66&rolls=2: each combination's chance by the end of the turn."""
    if preset not in preset_ids():
        raise RequestError("preset/unknown", "there is no such ruleset", 404)
    return {"preset": preset, **calculator_json(load_ruleset(preset), kept, rolls)}


@api_router.get("/tables/{table_id}/odds")
def table_odds(table_id: str, manager: Manager, kept: str | None = None, rolls: str | None = None) -> Answer:
    """The calculator on a table's own rules."""
    table = manager.get(table_id)  # RequestError table/unknown when there is none
    return {"table": table.id, **calculator_json(table.state.rules, kept, rolls)}


def _box_label(box: str, names: dict[str, dict[str, str]], columns: int) -> str:
    column, _, row = box.rpartition(".")
    label = names["rows"].get(row, row)
    return f"{names['columns'].get(column, column)} · {label}" if columns > 1 and column else label


def _odds_rows(
    rules: Ruleset, boxes: tuple[BoxOdds, ...] | list[BoxOdds], names: dict[str, dict[str, str]]
) -> list[dict[str, Any]]:
    return [
        {"box": b.box, "label": _box_label(b.box, names, len(rules.columns)), "values": list(b.chances),
         "sum": b.expected_sum, "low": b.minimise}
        for b in boxes
    ]  # fmt: skip


def _choice(choice: dict[str, Any] | None, names: dict[str, dict[str, str]], columns: int, _: Any) -> str:
    """A choice as `hint --json` writes it, in the words of the review page: "keep 6 6", "Yams for 50"."""
    if choice is None:
        return "–"
    if "keep" in choice:
        keep = choice["keep"]
        return str(_("keep {dice}").format(dice=" ".join(map(str, keep))) if keep else _("reroll all"))
    box = _box_label(str(choice.get("box", choice.get("announce", ""))), names, columns)
    if "box" in choice:
        return str(_("{box} for {points}").format(box=box, points=choice.get("points", 0)))
    return str(_("announce {box}").format(box=box))


def _rule(
    pattern: str, choice: str, correct: int, rolls: int, names: dict[str, dict[str, str]], _: Any
) -> dict[str, Any]:
    """A derived opening rule as the page says it (`lang` None: in the language of the page; "en" where
    the words are outside the grammar `rule_texts` reads)."""
    said = rule_texts(pattern, choice, names["rows"], _)
    text = f"{pattern}: {choice}" if said is None else _("{label}: {text}").format(label=said[0], text=said[1])
    return {"text": text, "lang": "en" if said is None else None, "correct": correct, "rolls": rolls}


def _figures(data: StrategyData, rules: Ruleset, names: dict[str, dict[str, str]], lang: str) -> dict[str, Any]:
    """What the best play scores, and the openings, as the template shows them."""
    tr = translations(lang)
    cols = len(rules.columns)
    scores = data.scores
    plot = ""
    if scores is not None:
        label = tr.ngettext("Games per band of {n} point", "Games per band of {n} points", scores.bin_width)
        plot = histogram_svg(list(scores.histogram), scores.bin_width, label.format(n=scores.bin_width))
    return {
        "data": data,
        "plot": plot,
        "boxes": [{"label": _box_label(b.box, names, cols), "stats": b} for b in data.boxes],
        "bonus": [
            {"label": names["columns"].get(c, c) if cols > 1 else "", "chance": v} for c, v in data.bonus_chance.items()
        ],
        "steps": [
            {
                "label": names["columns"].get(c, c) if cols > 1 else "",
                "steps": sorted(((int(t), v) for t, v in s.items())),
            }
            for c, s in data.bonus_steps.items()
        ],
        "par_rows": [names["rows"].get(r, r) for r in data.par[0].filled] if data.par else [],
        "rules": [_rule(r.pattern, r.choice, r.correct, r.rolls, names, tr.gettext) for r in data.rules],
        "openings": [
            {
                "roll": "".join(map(str, o.roll)),
                "best": _choice(o.best, names, cols, tr.gettext),
                "runner": _choice(o.runner_up, names, cols, tr.gettext),
                "loss": o.loss,
            }
            for o in data.openings
        ],
    }


def get_jobs(request: Request) -> StrategyJobs:
    """The app's strategy figures in the making (made at the first page that needs them)."""
    jobs: StrategyJobs | None = getattr(request.app.state, "strategy_jobs", None)
    if jobs is None:
        settings = request.app.state.settings
        folder = Path(settings.strategy_dir) if settings.strategy_dir else None
        jobs = request.app.state.strategy_jobs = StrategyJobs(
            settings.coach_process, settings.grade_share, settings.strategy_games, folder
        )
    return jobs


Jobs = Annotated[StrategyJobs, Depends(get_jobs)]


def progress_text(progress: Progress, lang: str) -> str:
    """How far a ruleset's figures are, in a sentence of the page's language."""
    tr = translations(lang)
    if progress.state == "queued" and progress.ahead:
        return str(tr.ngettext("Waiting: {n} ruleset before this one.", "Waiting: {n} rulesets before this one.",
                               progress.ahead).format(n=progress.ahead))  # fmt: skip
    if progress.state == "ready":
        return str(tr.gettext("Ready: the figures are shown when the page is loaded again."))
    if progress.state == "running" and progress.total:
        text = tr.gettext("{done} of {total} games played.").format(
            done=number(progress.done, lang, 0), total=number(progress.total, lang, 0)
        )
        if progress.seconds_left is not None:
            minutes = max(1, round(progress.seconds_left / 60))
            text += " " + tr.ngettext("About {n} minute left.", "About {n} minutes left.", minutes).format(n=minutes)
        return str(text)
    return str(tr.gettext("Starting…"))


def _sum_labels(rules: Ruleset, lang: str) -> dict[str, str]:
    """The calculator's name for a row that takes any dice: "Chance (best sum)", "Min (lowest sum)"."""
    _ = translations(lang).gettext
    names = labels(lang, rules)["rows"]
    lows = low_rows(rules)
    return {
        r.id: f"{names.get(r.id, r.id)} ({_('lowest sum') if r.id in lows else _('best sum')})"
        for r in rules.rows
        if r.kind == "sum"
    }


@lru_cache(maxsize=64)
def _body(rules: Ruleset, lang: str, api: str, jobs: StrategyJobs, ready: bool) -> str:
    """The page's figures in one language (odds, calculator, what the best play scores, openings): the
    same for every reader, so rendered once per ruleset, language, calculator route and whether the
    figures are ready (the numbers, written the language's way, are most of the page's time)."""
    names = labels(lang, rules)
    data = jobs.figures(rules) if ready else None
    boxes = data.odds if data is not None else tuple(odds(rules))
    first = rules.columns[0]
    tr = translations(lang)
    context = {
        "_": tr.gettext,
        "ngettext": tr.ngettext,
        "lang": lang,
        "num": lambda x, digits=1: number(x, lang, digits),
        "pct": lambda x, digits=0: percent(x, lang, digits),
        "odds_rows": _odds_rows(rules, boxes, names),
        "roll_columns": max(len(b.chances) for b in boxes),
        "figures": _figures(data, rules, names, lang) if data is not None else None,
        "dice": rules.rolled_dice,
        "turn_rolls": rules.rolls_per_turn if first.rolls is None else min(first.rolls, rules.rolls_per_turn),
        "api": api,
    }
    return str(templates.get_template("_strategy_body.html").render(context))


def _page(request: Request, rules: Ruleset, lang: str, title: str, losses: Losses | None, api: str,
          back: str | None, jobs: StrategyJobs) -> HTMLResponse:  # fmt: skip
    """The page; a ruleset without figures has them computed in the background, its progress shown."""
    data = jobs.figures(rules)
    progress = None if data is not None else jobs.request(rules)
    first = rules.columns[0]
    turn_rolls = rules.rolls_per_turn if first.rolls is None else min(first.rolls, rules.rolls_per_turn)
    return render_page(
        request,
        "strategy.html",
        lang,
        noindex=back is not None,  # a table's page, as its other pages
        title=title,
        body=_body(rules, lang, api, jobs, data is not None),
        progress=progress,
        progress_said=progress_text(progress, lang) if progress is not None else "",
        figures_key=fingerprint(rules),
        losses=losses,
        min_games=MIN_GAMES,
        back=back,
        how_to=back + "/rules" if back else f"/rules/{rules.preset}",
        boot=boot_json(
            {
                "strings": {t: translations(lang).gettext(t) for t in JS_TEXTS},
                "api": api,
                "rolls": turn_rolls,
                "dice": rules.rolled_dice,
                "labels": labels(lang, rules),
                "sums": _sum_labels(rules, lang),
                "figures": None if progress is None else f"/api/strategy/figures/{fingerprint(rules)}",
            }
        ),
    )


@router.get("/strategy/{preset}", response_class=HTMLResponse)
async def preset_strategy(
    request: Request, preset: str, lang: Lang, manager: Manager, settings: AppSettings, jobs: Jobs
) -> HTMLResponse:
    """A preset's strategy and odds (its usual options)."""
    if preset not in preset_ids():
        return render_page(request, "missing.html", lang, status=404)
    rules = load_ruleset(preset)
    store = manager.store
    key, now = rules.variant_key(duplicate=False), naive_utc(settings.clock())
    losses = await store.read(store.decision_losses, key, now, MIN_GAMES, measure_of(rules))
    title = ruleset_name(preset, rules.name, lang)
    return _page(request, rules, lang, title, losses, f"/api/strategy/{preset}/odds", None, jobs)


@router.get("/t/{table_id}/strategy", response_class=HTMLResponse)
def table_strategy(request: Request, table_id: str, lang: Lang, manager: Manager, jobs: Jobs) -> HTMLResponse:
    """The strategy and odds of the rules a table plays (its options and house rules). No "where players
    lose points" here: that aggregate is per preset, and a table's own rules have too few games."""
    try:
        table = manager.get(table_id)
    except RequestError:
        return render_page(request, "missing.html", lang, status=404)
    rules = table.state.rules
    title = ruleset_name(rules.id, rules.name, lang)
    return _page(request, rules, lang, title, None, f"/api/tables/{table.id}/odds", f"/t/{table.id}", jobs)


@api_router.get("/strategy/figures/{key}")
def figures_progress(key: str, lang: Lang, jobs: Jobs) -> Answer:
    """How far the figures of a ruleset asked for on this server are (the page polls it while they are
    computed): `state` (ready, running, queued, failed), `done` and `total` games, `text` in words."""
    rules = jobs.known(key)
    if rules is None:
        raise RequestError("strategy/unknown", "no figures are being computed under this key", 404)
    progress = jobs.progress(rules)
    return {**progress.to_json(), "text": progress_text(progress, lang)}
