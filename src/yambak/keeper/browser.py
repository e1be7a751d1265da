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

from ..engine import GameRecord, GameState, RecordError, replay
from ..inputs import InputError, parse_toml
from .entries import Refusal, apply_all, apply_entry, new_sheet, record_dict
from .stats import statistics
from .view import Preview, fix_options, preview, sheet_view, zero_boxes

__all__ = ["call"]

Request = Mapping[str, object]  # a page's request, as JSON gives it
Results = list[dict[str, object]]
_CACHE: OrderedDict[tuple[str, str, tuple[str, ...]], tuple[GameState, Results]] = OrderedDict()
_CACHED = 12


def _object(value: object, what: str) -> Mapping[str, object]:
    if not isinstance(value, Mapping):
        raise Refusal("input/invalid", f"{what} is a JSON object")
    return value


def _dice(value: object) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(d, int) and not isinstance(d, bool) for d in value):
        raise Refusal("input/dice", "the dice are a list of numbers")
    return value


def _base(sheet: Mapping[str, object]) -> tuple[str, GameState]:
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


def _state(req: Request) -> tuple[GameState, Results]:
    """The sheet as this phone has it: the server's record, then its own queued entries."""
    sheet = _object(req.get("sheet"), "sheet")
    sid = str(sheet.get("id"))
    key, state = _base(sheet)
    given = req.get("queue") or []
    if not isinstance(given, list):
        raise Refusal("input/invalid", "queue is a list of entries")
    queue = [_object(e, "an entry") for e in given]
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


def _view(req: Request) -> dict[str, object]:
    state, results = _state(req)
    out: dict[str, object] = {"results": results}
    entry = req.get("entry")
    if entry is not None:  # a new entry, checked before it joins the queue
        state = apply_entry(state, _object(entry, "entry"))
    sheet = _object(req.get("sheet"), "sheet")
    v = sheet.get("v", 0)
    if not isinstance(v, int):
        raise Refusal("input/invalid", "a sheet's version is a number")
    out["view"] = sheet_view(state, id=str(sheet.get("id")), name=str(sheet.get("name", "")), v=v)
    return out


def _preview(req: Request) -> Preview:
    state, _ = _state(req)
    return preview(state, _dice(req.get("dice")), req.get("roll", 1))


def _zero(req: Request) -> Preview:
    state, _ = _state(req)
    return zero_boxes(state)


def _fix(req: Request) -> Preview:
    state, _ = _state(req)
    dice = req.get("dice")
    return fix_options(state, req.get("turn"), None if dice is None else _dice(dice), req.get("roll", 1))


def _new(req: Request) -> dict[str, object]:
    spec = dict(_object(req.get("spec"), "spec"))
    toml = spec.get("rules_toml")
    if isinstance(toml, str):  # house rules typed or chosen on the phone
        del spec["rules_toml"]
        try:
            spec["rules"] = parse_toml(toml)
        except InputError as exc:
            raise Refusal("input/rules", f"the ruleset: {exc}") from None
    state = new_sheet(spec)
    return {"record": record_dict(state), "players": list(state.players), "rules_id": state.rules.id}


def _stats(req: Request) -> Mapping[str, object]:
    records = req.get("records") or []
    if not isinstance(records, list):
        raise Refusal("input/invalid", "records is a list of game records")
    return statistics(records)


OPS: dict[str, Callable[[Request], Mapping[str, object]]] = {
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
