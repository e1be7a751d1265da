"""The files a phone needs to keep a sheet with no network: the engine as a zip for Pyodide, and
the list the service worker keeps.

The zip holds the package's pure-Python rules, engine and keeper core, unchanged (the same
files the server imports), so that a phone computes every score with the server's engine.
Pyodide itself (the npm package `pyodide`) is fetched by `make install`
(`scripts/fetch-pyodide.sh`) into `web/static/pyodide/`, git-ignored and served from there.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from functools import cache
from pathlib import Path

from ...web import STATIC

__all__ = ["OFFLINE_ASSETS", "PYODIDE_FILES", "engine_zip", "offline_files", "offline_version", "pyodide_ready"]

PACKAGE = Path(__file__).resolve().parents[2]  # src/yambak
PURE = ("rules", "engine", "keeper")  # subpackages a phone runs; the layers test keeps them pure
SINGLE = ("__init__.py", "names.py", "gameview.py", "viewtypes.py", "inputs.py")
PYODIDE_DIR = STATIC / "pyodide"
PYODIDE_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
# The keeper's own assets, kept by its service worker (the page shell, /keep/, is added by the worker).
OFFLINE_ASSETS = (
    "/static/style.css",
    "/static/theme.js",
    "/static/keeper.css",
    "/static/page.js",
    "/static/plural.js",
    "/static/dice.js",
    "/static/sheet.js",
    "/static/game.js",
    "/static/keeper.js",
    "/static/keeper-sheet.js",
    "/static/keeper-state.js",
    "/static/keeper-pad.js",
    "/static/keeper-sync.js",
    "/static/keeper-draw.js",
    "/static/keeper-share.js",
    "/static/keeper-home.js",
    "/static/keeper-store.js",
    "/static/keeper-engine.js",
    "/static/keeper-offline.js",
    "/static/keeper-groups.js",
    "/static/keeper-group.js",
    "/static/keeper-icon.svg",
    "/keep/worker.js",
    "/keep/manifest.webmanifest",
)
_STAMP = (2024, 1, 1, 0, 0, 0)  # a fixed date: the same files make the same zip, and the same hash


def _files() -> list[tuple[str, Path]]:
    out = [(f"yambak/{name}", PACKAGE / name) for name in SINGLE]
    for sub in PURE:
        for path in sorted((PACKAGE / sub).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
                out.append((f"yambak/{path.relative_to(PACKAGE).as_posix()}", path))
    return out


@cache
def engine_zip() -> tuple[bytes, str]:
    """(the zip, a short hash of it) of the package's pure rules, engine and keeper core."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, path in _files():
            info = zipfile.ZipInfo(name, date_time=_STAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, path.read_bytes())
    data = buf.getvalue()
    return data, hashlib.sha256(data).hexdigest()[:16]


def pyodide_ready() -> bool:
    """Whether `make install` fetched Pyodide (without it, phones keep sheets online only)."""
    return all((PYODIDE_DIR / name).is_file() for name in PYODIDE_FILES)


@cache
def offline_version() -> str:
    """One hash of everything the service worker keeps: a change anywhere makes phones fetch anew."""
    h = hashlib.sha256(engine_zip()[1].encode())
    for url in OFFLINE_ASSETS:
        if url.startswith("/static/"):
            path = STATIC / url.removeprefix("/static/")
            if path.is_file():
                h.update(path.read_bytes())
    for name in PYODIDE_FILES:
        path = PYODIDE_DIR / name
        if path.is_file():
            h.update(f"{name}:{path.stat().st_size}".encode())
    worker = STATIC / "keeper-worker.js"
    if worker.is_file():
        h.update(worker.read_bytes())
    return h.hexdigest()[:12]


def offline_files() -> tuple[list[str], int]:
    """(the URLs the service worker keeps, besides the page itself; about how many bytes they take):
    the page's assets, and Pyodide with the engine where they are served."""
    files = list(OFFLINE_ASSETS)
    size = sum(
        (STATIC / url.removeprefix("/static/")).stat().st_size
        for url in OFFLINE_ASSETS
        if url.startswith("/static/") and (STATIC / url.removeprefix("/static/")).is_file()
    )
    if pyodide_ready():
        data, digest = engine_zip()
        files += [f"/static/pyodide/{name}" for name in PYODIDE_FILES] + [f"/keep/engine.zip?v={digest}"]
        size += sum((PYODIDE_DIR / name).stat().st_size for name in PYODIDE_FILES) + len(data)
    return files, size
