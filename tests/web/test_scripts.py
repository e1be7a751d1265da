"""The page scripts as files (no browser): the table and the kept sheet are one component (issue 20)."""

from __future__ import annotations

import re

from yambak.web import STATIC

# The top-level names table.js and keeper-sheet.js each defined before they shared game.js.
SHARED_ONCE = ("activate", "boxCell", "boxLabel", "connect", "nCols", "onePerPlayer", "reason", "render",
               "renderSheet", "renderStrip")  # fmt: skip
# The kept sheet's modules, by job (issue 31: one file of 1,228 lines before).
KEPT_SHEET = ("keeper-sheet.js", "keeper-state.js", "keeper-pad.js", "keeper-sync.js", "keeper-draw.js",
              "keeper-share.js")  # fmt: skip


def _top_level_names(text: str) -> set[str]:
    names = set()
    for line in text.splitlines():
        m = re.match(r"(?:export\s+)?(?:async\s+)?(?:function\*?|class)\s+([A-Za-z_$][\w$]*)", line)
        if m:
            names.add(m.group(1))
            continue
        m = re.match(r"(?:export\s+)?(?:const|let|var)\s+(.*)", line)
        if m:  # `let a = 1, b = null;` declares a and b
            depth, start, decl = 0, 0, m.group(1)
            parts = []
            for i, ch in enumerate(decl):
                depth += ch in "([{" and 1 or ch in ")]}" and -1 or 0
                if ch == "," and depth == 0:
                    parts.append(decl[start:i])
                    start = i + 1
            parts.append(decl[start:])
            names |= {p.strip().split("=")[0].split(";")[0].strip() for p in parts if p.strip()}
    return names


def test_the_table_and_the_kept_sheet_share_one_component() -> None:
    game = (STATIC / "game.js").read_text(encoding="utf-8")
    for page in ("table.js", *KEPT_SHEET):
        text = (STATIC / page).read_text(encoding="utf-8")
        again = _top_level_names(text) & set(SHARED_ONCE)
        assert not again, f"{page} defines {sorted(again)}"
    for page in ("table.js", "keeper-sheet.js"):
        assert 'from "./game.js"' in (STATIC / page).read_text(encoding="utf-8")
    shared = {"GameSheet", "PlayerStrip", "SessionSocket", "boxLabel", "nCols", "onePerPlayer", "reason"}
    assert shared <= _top_level_names(game)


def test_the_name_reader_sees_declarations() -> None:
    assert _top_level_names("let a = 1, b = f(1, 2), c;\nfunction d() {}\nexport class E {}\nconst g = 3;") == {
        "a", "b", "c", "d", "E", "g",
    }  # fmt: skip


def test_the_offline_keeper_keeps_every_module_its_scripts_import() -> None:
    """The kept sheet's service worker keeps every module the keeper page imports, directly or not."""
    from yambak.server.keeper.bundle import OFFLINE_ASSETS

    seen, todo = set(), ["keeper.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += re.findall(r'from "\./([\w.-]+\.js)"', (STATIC / name).read_text(encoding="utf-8"))
    assert {f"/static/{n}" for n in seen} <= set(OFFLINE_ASSETS), seen


def test_every_page_script_is_checked_by_typescript() -> None:
    """`make lint` runs tsc over the page scripts (tsconfig*.json); a file without // @ts-check escapes it."""
    for path in sorted(STATIC.glob("*.js")):
        assert path.read_text(encoding="utf-8").startswith("// @ts-check\n"), path.name


def test_the_kept_sheet_is_split_by_job_with_its_state_in_one_object() -> None:
    """Each module of the kept sheet stays under 500 lines and keeps no module-level `let`: its state is one object."""
    for page in KEPT_SHEET:
        text = (STATIC / page).read_text(encoding="utf-8")
        assert len(text.splitlines()) < 500, page
        assert not re.findall(r"^let ", text, re.M), page
