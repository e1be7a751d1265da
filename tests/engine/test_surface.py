"""The engine's public surface: `yambak.engine.__all__` is exactly what the other packages import from it,
and a state is played through a small OpenSpiel-like set of methods."""

from __future__ import annotations

import ast
from pathlib import Path

import yambak.engine
from tests.conftest import play_random
from yambak.engine import GameState, Roll, new_game
from yambak.rules import load_ruleset

SRC = Path(yambak.engine.__file__).resolve().parents[1]


def _imported_from_the_engine() -> set[str]:
    """Names the modules outside the engine import from `yambak.engine` itself (relative or absolute)."""
    used: set[str] = set()
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC)
        if rel.parts[0] == "engine" or "migrations" in rel.parts:
            continue
        package = ["yambak", *rel.parts[:-1]]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join([*base, node.module] if node.module else base)
                if module == "yambak.engine":
                    used.update(alias.name for alias in node.names)
    return used


def test_all_is_what_the_other_packages_use() -> None:
    assert sorted(yambak.engine.__all__) == sorted(_imported_from_the_engine())
    for name in yambak.engine.__all__:
        assert hasattr(yambak.engine, name)


def test_a_state_is_played_through_a_small_surface() -> None:
    """to_act, legal_actions, apply, outlook, finished, returns: a random game needs no more."""
    for players, preset in ((1, "yatzy"), (3, "yammen")):
        state: GameState = new_game(load_ruleset(preset), [f"P{i}" for i in range(players)], seed=3)
        assert state.returns() == [0.0] * players and state.to_act() == [0]
        assert state.legal_actions() == [Roll(0)] and state.outlook().can_roll
        state = play_random(load_ruleset(preset), players, seed=3)
        assert state.finished and state.to_act() == [] and state.legal_actions() == []
        returns = state.returns()
        if players == 1:
            assert returns == [0.0]  # nobody to beat
        else:
            winners = state.winners()
            assert abs(sum(returns)) < 1e-9 and all((r > 0) == (s in winners) for s, r in enumerate(returns))
