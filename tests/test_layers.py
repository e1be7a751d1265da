"""The import graph between subpackages: no upward edge, no cycle, no private module of another package.

`python tests/test_layers.py` prints the graph (issue 9, item 2).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "yambak"
# The layers are docs/architecture.md's table (the rows between its `layers` markers): lower layers
# first; a module may import its own layer and the ones before it. `commandline` (the argument helpers
# every command module shares) sits on `rules`; `text` and `gameview` render engine states; `keeper`
# (the score-keeper's pure core) runs on the server and, under Pyodide, on phones.
ARCHITECTURE = SRC.parents[1] / "docs" / "architecture.md"


def _documented_layers() -> list[list[str]]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    table = text.split("<!-- layers:", 1)[1].split("<!-- /layers -->", 1)[0]
    rows = [line.split("|") for line in table.splitlines() if line.startswith("| ") and line[2].isdigit()]
    return [re.findall(r"`([a-z_]+)`", row[2]) for row in rows]


LAYERS = _documented_layers()
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "cli"


def _imports(path: Path) -> list[tuple[str, int]]:
    """(imported module, line) for every import in a file, function-level ones included."""
    module = ".".join(path.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__")
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.level and node.module else (node.module or base)
            if node.level and not node.module:
                target = base
            for alias in node.names:  # `from . import x` may name a module
                candidate = f"{target}.{alias.name}"
                sub = SRC.parent / Path(*candidate.split("."))
                out.append((candidate if sub.with_suffix(".py").exists() or sub.is_dir() else target, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(alias.name, node.lineno) for alias in node.names]
    return [(m, line) for m, line in out if m == "yambak" or m.startswith("yambak.")]


def _files() -> list[Path]:
    return sorted(p for p in SRC.rglob("*.py") if "migrations" not in p.parts)


def graph() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in _files():
        source = _unit(".".join(path.relative_to(SRC.parent).with_suffix("").parts))
        for target, _ in _imports(path):
            t = _unit(target)
            if t not in (source, "yambak") and target != "yambak":
                edges.setdefault(source, set()).add(t)
    return edges


def test_every_package_has_its_documented_layer() -> None:
    """A new package or top-level module finds its place in docs/architecture.md's table first."""
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    packages |= {p.stem for p in SRC.glob("*.py") if p.stem not in ("__init__", "cli")}
    assert len(LAYERS) == 7 and all(LAYERS), LAYERS
    assert set(LAYER) == packages, set(LAYER) ^ packages


def test_no_upward_edge_between_subpackages() -> None:
    for source, targets in graph().items():
        if source == "cli":
            continue  # the top: it imports every layer's commands
        for target in targets:
            assert LAYER[target] <= LAYER[source], f"{source} imports {target}, a layer above it"


def test_no_cycle_between_subpackages() -> None:
    edges = graph()
    seen: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if seen.get(node) == 1:
            raise AssertionError(f"import cycle: {' -> '.join([*path, node])}")
        if seen.get(node) == 2:
            return
        seen[node] = 1
        for nxt in sorted(edges.get(node, ())):
            visit(nxt, [*path, node])
        seen[node] = 2

    for node in sorted(edges):
        visit(node, [])


def test_no_private_module_of_another_package() -> None:
    for path in _files():
        here = ".".join(path.relative_to(SRC.parent).with_suffix("").parts)
        for target, line in _imports(path):
            parts = target.split(".")
            private = [p for p in parts[2:] if p.startswith("_") and p != "__init__"]
            if private and parts[1] != here.split(".")[1]:
                raise AssertionError(f"{path.relative_to(SRC)}:{line} imports {target}")
        text = path.read_text(encoding="utf-8")
        for name in ("._fillable(", "._replay_turn", "._parse_turn", "_zeroing("):
            assert name not in text or path.parent.name == "engine", f"{path.relative_to(SRC)} uses {name}"


def _module_graph(package: str) -> dict[str, set[str]]:
    """Within one package: module -> the modules of the same package it imports (lazy imports included)."""
    edges: dict[str, set[str]] = {}
    for path in sorted((SRC / package).glob("*.py")):
        names = {t.split(".")[2] for t, _ in _imports(path) if t.startswith(f"yambak.{package}.")}
        edges[path.stem] = names - {path.stem, "__init__"}
    return edges


def _assert_acyclic(edges: dict[str, set[str]], what: str) -> None:
    order: list[str] = []

    def visit(node: str, stack: tuple[str, ...]) -> None:
        assert node not in stack, f"{what} import cycle: {' -> '.join([*stack, node])}"
        if node in order:
            return
        for nxt in sorted(edges.get(node, ())):
            visit(nxt, (*stack, node))
        order.append(node)

    for node in sorted(edges):
        visit(node, ())


def test_bot_modules_import_without_a_cycle() -> None:
    """Within bots/: every import at module level, and the module graph is a tree of layers."""
    for path in sorted((SRC / "bots").glob("*.py")):
        if path.stem == "commands":
            continue  # the command line imports the policies late, for its start-up time, not to dodge a cycle
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef):  # no import hidden in a function to dodge a cycle (but _fitted)
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and inner.level == 1:
                        assert inner.module in (None, "_fitted"), f"bots/{path.name}: {ast.unparse(inner)}"
    _assert_acyclic(_module_graph("bots"), "bots")


def test_solver_modules_import_without_a_cycle() -> None:
    """Within solver/: no loop, lazy imports counted (numba's kernels load late for start-up time only)."""
    _assert_acyclic(_module_graph("solver"), "solver")


SERVER_FEATURES = ("tables", "keeper", "profiles", "daily", "ranked")


def test_server_features_do_not_import_each_other() -> None:
    """Tables, kept sheets, profiles, deals and ratings tell each other through `server/common/events.py`:
    none imports another, lazily or not (the app and the routes put them together)."""
    server = SRC / "server"
    for feature in SERVER_FEATURES:
        for path in sorted((server / feature).rglob("*.py")):
            for target, line in _imports(path):
                parts = target.split(".")
                if len(parts) > 2 and parts[1] == "server" and parts[2] in SERVER_FEATURES and parts[2] != feature:
                    raise AssertionError(f"{path.relative_to(SRC)}:{line} imports {target}")


def test_common_helpers_import_no_feature() -> None:
    for path in sorted((SRC / "server" / "common").rglob("*.py")):
        for target, line in _imports(path):
            parts = target.split(".")
            assert not (len(parts) > 2 and parts[1] == "server" and parts[2] in SERVER_FEATURES), (
                f"{path.relative_to(SRC)}:{line} imports {target}"
            )


def _server_module_graph() -> dict[str, set[str]]:
    """Every module of `server/` -> the modules of `server/` it imports, under `TYPE_CHECKING` and in
    functions too (a circle of types is a circle: following one means reading both ends)."""
    modules = {}
    for path in sorted((SRC / "server").rglob("*.py")):
        modules[".".join(path.relative_to(SRC.parent).with_suffix("").parts).removesuffix(".__init__")] = path
    return {m: {t for t, _ in _imports(path) if t in modules and t != m} for m, path in modules.items()}


def test_no_import_circle_inside_the_server() -> None:
    """Issue 31: the table parts imported the table manager back (8 files), the replica the session core (2)."""
    _assert_acyclic(_server_module_graph(), "server")


def _underscore_calls(tree: ast.AST) -> list[tuple[str, int]]:
    """Calls of an underscore method (`x._name(...)`, not a dunder) in a module, with their lines."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            if name.startswith("_") and not name.startswith("__"):
                out.append((name, node.lineno))
    return out


def test_no_call_of_another_modules_underscore_method_inside_the_server() -> None:
    """A class talks to another module's classes through their public methods only (the replica called
    eight underscore methods of the session manager, twelve times)."""
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted((SRC / "server").rglob("*.py"))}
    defined: dict[str, set[Path]] = {}
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("_"):
                        defined.setdefault(item.name, set()).add(path)
    for path, tree in trees.items():
        own = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)}
        for name, line in _underscore_calls(tree):  # a callable attribute the module sets itself is its own
            if name in defined and path not in defined[name] and name not in own:
                raise AssertionError(f"{path.relative_to(SRC)}:{line} calls {name} of another module")


def test_cli_imports_only_the_command_modules_of_its_table() -> None:
    """The CLI imports a command's layer when the command is chosen (a fast `--help`), by the names in its
    COMMANDS table: each is a module of this package, and nothing else is imported by name."""
    from yambak.cli import COMMANDS

    text = (SRC / "cli.py").read_text(encoding="utf-8")
    assert "__import__" not in text and text.count("importlib.import_module(") == 1
    for name, (module, _) in COMMANDS.items():
        assert module.startswith("yambak."), (name, module)
        path = SRC.parent / Path(*module.split("."))
        assert path.with_suffix(".py").exists() or (path / "__init__.py").exists(), (name, module)
    layers = ("solver", "bots", "terminal", "server")
    assert {m for m, _ in COMMANDS.values()} >= {f"yambak.{layer}.commands" for layer in layers}


if __name__ == "__main__":
    for source, targets in sorted(graph().items(), key=lambda kv: LAYER.get(kv[0], 99)):
        print(f"{source:<12} -> {', '.join(sorted(targets, key=lambda t: LAYER[t]))}")
