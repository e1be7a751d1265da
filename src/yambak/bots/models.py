"""Value models per ruleset: found by the ruleset's fingerprint (options included), never by its name.

A fitted model (`fit.py`) is a small JSON file: the written-value distributions D[c][r] (sparse
counts), the learned box terms `a`, `b`, the pair interactions `C` and the joker term, and a
`meta` record of how it was fitted. `model_for(rules)` looks for one, in order:

1. in memory (one model per fingerprint and process);
2. shipped with the package (`bots/fits/*.json`: every preset with its default options and a few
   common variants);
3. in the cache folder beside the solver's tables (`$YAMBAK_CACHE_DIR/models/`), where a fit for
   any other ruleset lands;
4. else the prior (chase distributions, par = mean): answered at once. Outside tests a fit for the
   ruleset is then started in the background (one niced process at a time on the machine, held by
   an OS lock taken before the spawn; `FIT_ITERATIONS` iterations within `FIT_BUDGET` CPU seconds and
   `FIT_MEMORY` bytes; `YAMBAK_MODEL_FIT=off` disables it), and the next lookup after it lands uses it.
   A table never waits for a fit; `policies.model_status` says when a bot plays on the prior or on a fit that
   missed its check, so that players can be told.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ..rules import Ruleset
from ..solver import cache_dir
from ..solver.table import TABLE_MODE
from .evaluate import MODEL_VERSION, Model, W, build_model, fingerprint

__all__ = [
    "FITS_DIR",
    "FIT_BUDGET",
    "FIT_ITERATIONS",
    "FIT_MEMORY",
    "fitting_enabled",
    "load_params",
    "model_for",
    "model_path",
    "model_to_json",
    "params_from_json",
    "request_fit",
    "save_model",
    "shipped_path",
    "spawn_locked",
]

FITS_DIR = Path(__file__).with_name("fits")
# A fit started in the background: as many value iterations as the shipped ones had at least, within
# a budget of CPU time (not wall time: a busy machine makes it slower, never shorter) and of memory.
FIT_ITERATIONS = 12
FIT_BUDGET = 900.0  # CPU seconds, the check on unseen games included
FIT_MEMORY = 3 << 29  # 1.5 GiB of address space (setrlimit in the fit's own process)
RECHECK = 20.0  # seconds between looks for a fit that landed, while a ruleset plays with the prior
log = logging.getLogger("yambak.bots")
_MEMO: dict[str, Model] = {}
_CHECKED: dict[str, float] = {}
_FP: dict[int, tuple[Ruleset, str]] = {}


def _fp(rules: Ruleset) -> str:
    hit = _FP.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    fp = fingerprint(rules)
    if len(_FP) > 256:
        _FP.clear()
    _FP[id(rules)] = (rules, fp)
    return fp


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:40]


def _label(rules: Ruleset) -> str:
    """A readable file name part: the preset and the options changed from its defaults."""
    spec = rules.spec if isinstance(rules.spec, dict) else {}
    options = spec.get("options") if rules.preset else None
    changed = options if isinstance(options, dict) else {}
    return _safe((rules.preset or rules.id) + "".join(f"_{k}-{v}" for k, v in sorted(changed.items())))


def shipped_path(rules: Ruleset) -> Path:
    return FITS_DIR / f"{_label(rules)}-{_fp(rules)}.json"


def model_path(rules: Ruleset, folder: Path | None = None) -> Path:
    return (folder or cache_dir()) / "models" / f"{_label(rules)}-v{MODEL_VERSION}-{_fp(rules)}.json"


def model_to_json(model: Model) -> dict[str, Any]:
    rules = model.rules
    dist: dict[str, dict[str, int]] = {}
    for c, column in enumerate(rules.columns):
        for r, row in enumerate(rules.rows):
            counts = np.round(model.dist[c, r] * 100000).astype(int)
            dist[f"{column.id}.{row.id}"] = {str(v): int(x) for v, x in enumerate(counts) if x > 0}
    n = rules.n_boxes
    iu = np.triu_indices(n, 1)
    pairs = [[int(i), int(j), round(float(model.C[i, j]), 5)] for i, j in zip(*iu, strict=True) if model.C[i, j]]
    return {
        "format": "yambak-model/1",
        "version": MODEL_VERSION,
        "ruleset": rules.id,
        "options": {k: list(v) if isinstance(v, tuple) else v for k, v in rules.options},
        "fingerprint": model.fingerprint,
        "meta": model.meta,
        "boxes": [rules.box_id(i) for i in range(n)],
        "a": [round(float(x), 5) for x in model.a],
        "b": [round(float(x), 5) for x in model.b],
        "d": [round(float(x), 5) for x in model.d],
        "e": [round(float(x), 5) for x in model.e],
        "pairs": pairs,
        "joker": round(model.joker, 5),
        "bonus_scale": round(model.bonus_scale, 5),
        **({"saved": round(model.saved, 5)} if rules.save_rolls else {}),
        "calibration": [round(float(x), 3) for x in model.calibration],
        "dist": dist,
    }


def params_from_json(data: dict[str, Any], rules: Ruleset) -> dict[str, Any]:
    """The `build_model` parameters of a model file (ValueError when it does not fit the ruleset)."""
    n = rules.n_boxes
    if data.get("version") != MODEL_VERSION or len(data.get("a", ())) != n or len(data.get("b", ())) != n:
        raise ValueError("model file of another version or ruleset")
    dist = np.zeros((len(rules.columns), rules.n_rows, W))
    for c, column in enumerate(rules.columns):
        for r, row in enumerate(rules.rows):
            for v, x in data["dist"][f"{column.id}.{row.id}"].items():
                dist[c, r, min(int(v), W - 1)] += float(x)
    C = np.zeros((n, n))
    for i, j, x in data.get("pairs", []):
        C[i, j] = C[j, i] = float(x)
    return {
        "dist": dist,
        "a": np.asarray(data["a"], dtype=float),
        "b": np.asarray(data["b"], dtype=float),
        "d": np.asarray(data.get("d", [0.0] * n), dtype=float),
        "e": np.asarray(data.get("e", [0.0] * n), dtype=float),
        "C": C,
        "joker": float(data.get("joker", 0.0)),
        "bonus_scale": float(data.get("bonus_scale", 0.0)),
        "saved": float(data.get("saved", 0.0)),
        "calibration": [float(x) for x in data.get("calibration", [])],
        "meta": data.get("meta", {}),
    }


def load_params(rules: Ruleset, folder: Path | None = None) -> dict[str, Any] | None:
    """The fitted parameters for this ruleset (shipped, else cached), or None."""
    fp = _fp(rules)
    candidates = sorted(FITS_DIR.glob(f"*-{fp}.json")) + [model_path(rules, folder)]
    for path in candidates:
        try:
            data = json.loads(path.read_text())
            if data.get("fingerprint") == fp:
                return params_from_json(data, rules)
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return None


def save_model(model: Model, path: Path | None = None) -> Path:
    """Write a model file atomically (the cache by default); returns its path."""
    path = path or model_path(model.rules)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(model_to_json(model), indent=None, separators=(",", ":")) + "\n")
    os.chmod(tmp, TABLE_MODE)
    os.replace(tmp, path)
    _MEMO.pop(model.fingerprint, None)
    return path


def model_for(rules: Ruleset, background: bool = True) -> Model:
    """The value model for this ruleset (see the module docstring); never blocks on a fit."""
    fp = _fp(rules)
    model = _MEMO.get(fp)
    now = time.monotonic()
    if model is not None and (model.source != "prior" or now - _CHECKED.get(fp, 0.0) < RECHECK):
        return model
    params = load_params(rules)
    if params is not None:
        model = build_model(rules, params, "fitted")
    elif model is None:
        model = build_model(rules)
        if background:
            request_fit(rules)
    _CHECKED[fp] = now
    if len(_MEMO) > 32:
        _MEMO.clear()
    _MEMO[fp] = model
    return model


def fit_lock(folder: Path) -> int | None:
    """The machine's fit lock (an exclusive `flock` on `folder/.fitting.lock`), or None when another
    process holds it. Returns the open descriptor: the lock lives as long as it (and every copy a
    child inherited) stays open, and goes with the process that holds it, however that ends."""
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / ".fitting.lock", os.O_RDWR | os.O_CREAT, 0o664)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def spawn_locked(argv: list[str], folder: Path) -> subprocess.Popen[bytes] | None:
    """Start `argv` holding the fit lock (taken before the spawn, so that two servers or two tables
    asking at once start one fit), or None when a fit runs already. The child inherits the lock's
    descriptor and keeps it until it exits; this process lets go of its own copy at once."""
    fd = fit_lock(folder)
    if fd is None:
        return None
    try:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            pass_fds=(fd,),
            env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
        )
    finally:
        os.close(fd)


def fitting_enabled() -> bool:
    """Whether value models may be fitted on this machine: `YAMBAK_MODEL_FIT` (on by default; the tests
    turn it off)."""
    return os.environ.get("YAMBAK_MODEL_FIT", "on").lower() not in ("0", "off", "no", "false")


def request_fit(rules: Ruleset, budget: float | None = None) -> subprocess.Popen[bytes] | None:
    """Start a background fit of this ruleset unless one is running (one at a time on the machine),
    fits are off (`YAMBAK_MODEL_FIT=off`, as the tests set it) or the ruleset cannot be passed on.
    The fit runs `FIT_ITERATIONS` value iterations within `budget` CPU seconds, niced, with at most
    `FIT_MEMORY` bytes of address space, on one core. Returns the fit's process, or None."""
    if not fitting_enabled() or rules.spec is None or rules.rolled_dice != rules.dice:
        return None
    argv = [
        sys.executable, "-m", "yambak.bots.fit", "--spec", json.dumps(rules.spec, default=list),
        "--budget", str(budget or FIT_BUDGET), "--iterations", str(FIT_ITERATIONS),
        "--max-memory", str(FIT_MEMORY), "--nice", "19", "--quiet",
    ]  # fmt: skip
    try:
        proc = spawn_locked(argv, cache_dir() / "models")
    except OSError as exc:
        log.warning("no background fit for %s: %s", rules.id, exc)
        return None
    if proc is not None:
        log.info("fitting the value model of %s in the background (pid %d)", rules.id, proc.pid)
    return proc
