"""Shared test helpers: every preset with every option combination."""

from __future__ import annotations

import itertools
import os
import random
import tempfile
from collections.abc import Iterator

# No background fit of a bot's value model from a test run, nor from the servers it starts (they inherit
# this); the prior plays. A test of the fit itself turns it on.
os.environ["YAMBAK_MODEL_FIT"] = "off"
# grades as fast as they come (a test waits for them); the wait between grades has its own test
os.environ["YAMBAK_GRADE_SHARE"] = "1"
# a ruleset's strategy figures computed by a server under test: from two games, in a folder of this run
# (never the user's cache, where a real server would then show them)
os.environ["YAMBAK_STRATEGY_GAMES"] = "2"
os.environ["YAMBAK_STRATEGY_DIR"] = tempfile.mkdtemp(prefix="yambak-test-strategy-")

from yambak.bots import random_policy
from yambak.engine import GameState, new_game
from yambak.rules import Ruleset, load_ruleset

_OPTION_GRID: dict[str, dict[str, list[object]]] = {
    "yams": {"joker": ["forced", "free"]},
    "yatzy": {},
    "yams-fr": {"columns": [1, 3, 4], "max_min": [True, False], "max_gt_min": [True, False]},
    "yams-de": {"strict": [False, True], "flat_bonus": [False, True]},
    "yammen": {"ties": ["rolloff", "share"]},
    "yamb": {
        "four_kind": ["all", "four"],
        "extra": [[], ["updown"], ["middle"], ["hand"], ["updown", "middle", "hand"]],
    },
    "yamb-6": {"four_kind": ["all", "four"]},
    "kniffel": {"extra_kniffels": [False, True]},
    "yacht": {},
    "generala": {"served": ["wins", "points"], "wrap_straight": [False, True]},
    "maxi-yatzy": {},
    "kismet": {},
    "triple-yahtzee": {},
    "balut": {},
}


def all_rule_variants() -> list[tuple[str, dict[str, object]]]:
    out = []
    for preset, grid in _OPTION_GRID.items():
        names = list(grid)
        for values in itertools.product(*(grid[n] for n in names)):
            out.append((preset, dict(zip(names, values, strict=False))))
    return out


RULE_VARIANTS = all_rule_variants()


def variant_id(variant: tuple[str, dict[str, object]]) -> str:
    preset, options = variant
    return preset + "".join(f"-{k}={v}" for k, v in options.items())


def play_random(rules: Ruleset, players: int, seed: int, steps: int | None = None) -> GameState:
    """A random legal game (or its first `steps` actions)."""
    state = new_game(rules, [f"P{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    n = 0
    while not state.finished and (steps is None or n < steps):
        state, _ = state.apply(random_policy(state, state.current, rng))
        n += 1
    return state


def rules_for(preset: str, **options: object) -> Ruleset:
    return load_ruleset(preset, options)


def missing_service(reason: str) -> None:
    """Skip a test whose service (PostgreSQL, Chromium) is missing on a developer's machine;
    in CI (CI=true) the service is part of the job, so its absence fails the test instead."""
    import os

    import pytest

    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI needs this service: {reason}")
    pytest.skip(reason)


def fresh_pg_database(prefix: str) -> Iterator[str]:
    """A PostgreSQL database of its own, created from YAMBAK_TEST_POSTGRES_URL and dropped afterwards
    (a generator for fixtures to `yield from`): the server's databases are shared with other runs."""
    import os
    import secrets

    import psycopg

    url = os.environ.get("YAMBAK_TEST_POSTGRES_URL")
    if not url:
        missing_service("YAMBAK_TEST_POSTGRES_URL is not set: make test starts PostgreSQL (scripts/test-services.sh)")
        return
    base = url.replace("postgresql+psycopg://", "postgresql://")
    name = f"{prefix}_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(base, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f"CREATE DATABASE {name}")
    except psycopg.Error as exc:
        missing_service(f"PostgreSQL at {url} cannot create a database: {exc}")
    yield url.rsplit("/", 1)[0] + "/" + name
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
