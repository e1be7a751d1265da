"""Rendering a page: the one template environment, the boot JSON a page script reads, and what the
forms of several features share (the presets to choose from, a ruleset from the shared rules fields)."""

from __future__ import annotations

import json
from typing import Any

from babel.dates import format_date
from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.templating import Jinja2Templates

from ...inputs import InputError, parse_toml
from ...rules import RulesetError, preset_ids
from ...rules.loader import preset_data
from ...rules.registry import lobby_order
from ...web import TEMPLATES
from ...web.i18n import LANGUAGES, lobby_blurb, number, percent, ruleset_description, ruleset_name, translations
from ..live import RequestError
from ..options import option_schema, options_from_form

__all__ = [
    "LANG_COOKIE",
    "MAX_RULES_BYTES",
    "boot_json",
    "download",
    "preset_choices",
    "render_page",
    "rules_from_form",
    "templates",
]

LANG_COOKIE = "yambak_lang"
templates = Jinja2Templates(directory=str(TEMPLATES))
MAX_RULES_BYTES = 12000


def preset_choices(lang: str) -> list[dict[str, Any]]:
    """The shipped presets as the forms show them: names, descriptions and options, in the page's language,
    the games best known where the language is spoken first."""
    out = []
    for pid in lobby_order(lang):  # the registry: the games best known where the language is spoken first
        data = preset_data(pid)
        out.append(
            {
                "id": pid,
                "name": ruleset_name(pid, data.get("name", pid), lang),
                "description": ruleset_description(pid, data.get("description", ""), lang),
                "blurb": lobby_blurb(pid, lang),
                "schema": option_schema(pid, lang),
            }
        )
    return out


async def rules_from_form(form: Any) -> tuple[str | None, dict[str, Any], dict[str, Any] | None]:
    """(preset, options, custom ruleset) from a form with the shared rules fields: house rules (an
    uploaded or pasted TOML file) replace the preset. Raises RequestError `input/rules`."""
    upload = form.get("custom_file")
    text = str(form.get("custom", "") or "").strip()
    if len(text) > MAX_RULES_BYTES:  # the form's own maxlength, held here too
        raise RequestError("input/rules", f"pasted house rules are at most {MAX_RULES_BYTES:,} characters")
    if upload is not None and hasattr(upload, "read"):
        raw = await upload.read(MAX_RULES_BYTES + 1)
        if len(raw) > MAX_RULES_BYTES:
            raise RequestError("input/rules", f"a ruleset file is at most {MAX_RULES_BYTES // 1000} kB")
        if raw.strip():
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RequestError("input/rules", "the ruleset file is not UTF-8 text") from None
    if text:
        try:
            data = parse_toml(text)
        except InputError as exc:
            raise RequestError("input/rules", f"the ruleset: {exc}") from None
        return None, {}, data
    preset = str(form.get("preset", ""))
    if preset not in preset_ids():
        raise RequestError("input/rules", "choose a ruleset")
    try:
        return preset, options_from_form(form, preset), None
    except RulesetError as exc:
        raise RequestError("input/rules", str(exc)) from None


def boot_json(data: dict[str, Any]) -> str:
    """JSON for a <script type="application/json"> block: <, > and & escaped so that no
    player or table name can close the script element."""
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def render_page(
    request: Request, name: str, lang: str, status: int = 200, noindex: bool = False, **ctx: Any
) -> HTMLResponse:
    """A page in the reader's language; `noindex`: kept out of search engines (a person's pages, games)."""
    tr = translations(lang)
    ctx.update(
        _=tr.gettext, pgettext=tr.pgettext, ngettext=tr.ngettext, npgettext=tr.npgettext, lang=lang,
        languages=LANGUAGES, noindex=noindex,
    )  # fmt: skip
    ctx.update(num=lambda x, digits=1: number(x, lang, digits), pct=lambda x, digits=0: percent(x, lang, digits))
    ctx.update(local_date=lambda moment: format_date(moment, "medium", locale=lang))  # "2 mars 2026", "2. ožu 2026."
    response = templates.TemplateResponse(request, name, ctx, status_code=status)
    if noindex:
        response.headers["X-Robots-Tag"] = "noindex, nofollow"
    if request.query_params.get("lang") in LANGUAGES:
        response.set_cookie(LANG_COOKIE, lang, max_age=60 * 60 * 24 * 365, samesite="lax")
    return response


def download(data: Any, filename: str) -> JSONResponse:
    """JSON to save as a file (a game record)."""
    return JSONResponse(data, headers={"Content-Disposition": f'attachment; filename="{filename}"'})
