"""The page scripts under TypeScript's strict checks (`make lint`: tsconfig.json): a field misspelt by one word
where a page reads a socket message, a view, a kept sheet or a game.js cell helper's argument is an error tsc
reports, at that line (issue 31: three of seven went unseen)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.conftest import missing_service
from yambak.web import STATIC

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ("tsconfig.json", "tsconfig.workers.json")  # the pages; the service workers and the keeper's Web Worker
# (script, the text as it is, the same with one field misspelt): each must be found once in its script. Two read a
# socket message (table.js, keeper-sync.js), one is an argument of game.js's cell helper playableCell (keeper-draw.js).
PLANTS = (
    ("table.js", 'msg.type === "events" && msg.events.length', 'msg.type === "events" && msg.evnets.length'),  # socket
    ("keeper-sync.js", "setBase(msg.view)) recompute();", "setBase(msg.veiw)) recompute();"),  # socket
    ("keeper-draw.js", "playableCell(box, name, o, { action: box,", "playableCell(box, name, o, { acton: box,"),
    ("game.js", 'if (cell.why === "struck")', 'if (cell.wy === "struck")'),
    ("sheet.js", 'tdCls: col.bonus_to_go === 0 ? "reached"', 'tdCls: col.bonus_togo === 0 ? "reached"'),
    ("keeper-pad.js", "length !== state.shown.rules.rolloff_dice)", "length !== state.shown.rules.rolloff_die)"),
    ("keeper-share.js", 'h.announced ? "was-announced"', 'h.anounced ? "was-announced"'),
    ("keeper-worker.js", 'if (msg.type === "init")', 'if (msg.tpye === "init")'),  # a message from the page
    ("push-sw.js", "return to.origin === pushSw.location.origin", "return to.origin === pushSw.location.orgin"),
)  # fmt: skip


def _copy(to: Path) -> Path:
    """The page scripts and the tsconfig files, as the repository has them, under `to`."""
    static = to / "src" / "yambak" / "web" / "static"
    static.mkdir(parents=True)
    for path in [*STATIC.glob("*.js"), *STATIC.glob("*.d.ts")]:
        shutil.copy(path, static / path.name)
    for name in CONFIGS:
        shutil.copy(ROOT / name, to / name)
    return static


def _tsc(tsc: Path, root: Path) -> tuple[bool, str]:
    """Whether every config passes, and what tsc said (the configs checked side by side)."""
    runs = [
        subprocess.Popen([str(tsc), "-p", name, "--pretty", "false"], cwd=root, stdout=subprocess.PIPE, text=True)
        for name in CONFIGS
    ]
    said = [run.communicate(timeout=300)[0] for run in runs]
    return all(run.returncode == 0 for run in runs), "\n".join(said)


def test_tsc_reports_every_planted_misspelling_at_its_line(tmp_path: Path) -> None:
    tsc = ROOT / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        missing_service("TypeScript is not installed (make install runs npm ci)")
    static = _copy(tmp_path)
    ok, out = _tsc(tsc, tmp_path)
    assert ok, out  # the scripts as they are pass
    lines = {}
    for script, right, wrong in PLANTS:
        text = (static / script).read_text(encoding="utf-8")
        assert text.count(right) == 1, (script, right)
        lines[script, wrong] = text[: text.index(right)].count("\n") + 1
        (static / script).write_text(text.replace(right, wrong), encoding="utf-8")
    ok, out = _tsc(tsc, tmp_path)
    assert not ok
    missed = [(s, w) for (s, w), n in lines.items() if f"src/yambak/web/static/{s}({n}," not in out]
    assert not missed, out
