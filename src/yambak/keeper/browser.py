"""The phone's entry point under Pyodide: JSON in, JSON out, the same functions as the server.

The page's Web Worker calls `call(text)` with {"op", ...} and gets {"ok": true, ...} or
{"ok": false, "error": {"code", "message", ...}}. A sheet is given as the server's last
record and version plus the phone's entries not yet acknowledged (its queue); the state
they make is cached, so that one more entry replays nothing.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from ..engine import GameRecord, GameState, RecordError, replay
from ..inputs import InputError, parse_toml
from .entries import Refusal, apply_all, apply_entry, new_sheet, record_dict
from .stats import statistics
from .view import Preview, fix_options, preview, sheet_view, zero_boxes

__all__ = ["call"]

Results = list[dict[str, Any]]
_CACHE: OrderedDict[tuple[str, str, tuple[str, ...]], tuple[GameState, Results]] = OrderedDict()
_CACHED = 12


def _base(sheet: Mapping[str, Any]) -> tuple[str, GameState]:
    record = sheet.get("record")
    key = json.dumps(record, sort_keys=True, separators=(",", ":"))
    hit = _CACHE.get((str(sheet.get("id")), key, ()))
    if hit is not None:
        return key, hit[0]
    try:
        state = replay(GameRecord.from_dict(record))
    except RecordError as exc:
        raise Refusal("sheet/broken", exc.message) from None
    _remember((str(sheet.get("id")), key, ()), state, [])
    return key, state


def _remember(key: tuple[str, str, tuple[str, ...]], state: GameState, results: Results) -> None:
    _CACHE[key] = (state, results)
    _CACHE.move_to_end(key)
    while len(_CACHE) > _CACHED:
        _CACHE.popitem(last=False)


def _state(req: Mapping[str, Any]) -> tuple[GameState, Results]:
    """The sheet as this phone has it: the server's record, then its own queued entries."""
    sheet = req["sheet"]
    sid = str(sheet.get("id"))
    key, state = _base(sheet)
    queue = list(req.get("queue") or [])
    ids = tuple(str(e.get("id")) for e in queue)
    # the longest queue prefix already applied to this base
    done, results = 0, []  # type: tuple[int, Results]
    for k in range(len(ids), 0, -1):
        hit = _CACHE.get((sid, key, ids[:k]))
        if hit is not None:
            (state, results), done = hit, k
            break
    state, more = apply_all(state, queue[done:])
    results = results + more
    if queue:
        _remember((sid, key, ids), state, results)
    return state, results


def _view(req: Mapping[str, Any]) -> dict[str, Any]:
    state, results = _state(req)
    out: dict[str, Any] = {"results": results}
    entry = req.get("entry")
    if entry is not None:  # a new entry, checked before it joins the queue
        state = apply_entry(state, entry)
    sheet = req["sheet"]
    out["view"] = sheet_view(state, id=str(sheet.get("id")), name=str(sheet.get("name", "")), v=sheet.get("v", 0))
    return out


def _preview(req: Mapping[str, Any]) -> Preview:
    state, _ = _state(req)
    return preview(state, req["dice"], req.get("roll", 1))


def _zero(req: Mapping[str, Any]) -> Preview:
    state, _ = _state(req)
    return zero_boxes(state)


def _fix(req: Mapping[str, Any]) -> Preview:
    state, _ = _state(req)
    return fix_options(state, req["turn"], req.get("dice"), req.get("roll", 1))


def _new(req: Mapping[str, Any]) -> dict[str, Any]:
    spec = dict(req["spec"])
    if isinstance(spec.get("rules_toml"), str):  # house rules typed or chosen on the phone
        try:
            spec["rules"] = parse_toml(spec.pop("rules_toml"))
        except InputError as exc:
            raise Refusal("input/rules", f"the ruleset: {exc}") from None
    state = new_sheet(spec)
    return {"record": record_dict(state), "players": list(state.players), "rules_id": state.rules.id}


def _stats(req: Mapping[str, Any]) -> dict[str, Any]:
    return statistics(req.get("records") or [])


OPS: dict[str, Callable[[Mapping[str, Any]], Mapping[str, Any]]] = {
    "view": _view,
    "preview": _preview,
    "zero": _zero,
    "fix_options": _fix,
    "new": _new,
    "stats": _stats,
}


def call(text: str) -> str:
    """One request from the page, answered; never raises."""
    try:
        req = json.loads(text)
        op = OPS.get(str(req.get("op"))) if isinstance(req, dict) else None
        if op is None:
            raise Refusal("input/invalid", "unknown request")
        return json.dumps({"ok": True, **op(req)}, ensure_ascii=False)
    except Refusal as exc:
        return json.dumps({"ok": False, "error": exc.to_dict()}, ensure_ascii=False)
    except Exception as exc:  # a bug must not kill the phone's engine: report it, keep going
        return json.dumps({"ok": False, "error": {"code": "engine/error", "message": f"{type(exc).__name__}: {exc}"}})
