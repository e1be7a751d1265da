"""Environments for researchers over the yambak engine (`pip install yambak[rl]`).

* `YambakEnv`: Gymnasium, one player (solitaire), any preset or ruleset;
* `YambakAEC` / `yambak_aec(rules, players)`: PettingZoo AEC, any number of players, seats in turn;
* `YambakVectorEnv`: Gymnasium's vector API, many solitaire games stepped at once in numpy, for the
  rulesets the exact solver takes (one column, five dice), scored from the solver's own tables.

All share the action layout, the action masks (from the engine's legal actions) and the
observation of `_core` (its docstring documents every field; `flat=True` for one vector); all are
seeded through `reset(seed=...)` and pass Gymnasium's `check_env` and PettingZoo's `api_test`.

Importing this package registers, for Gymnasium, `yambak/<preset>-v0` for every preset and
`yambak/ruleset-v0` for a ruleset of your own (`rules=` a .toml path, a spec dict or a `Ruleset`);
`gymnasium.make_vec("yambak/yams-v0", num_envs=1024, vectorization_mode="vector_entry_point")` gives
the vector environment where the ruleset allows it (`vectorisable`; elsewhere it says why, and
`vectorization_mode="sync"` steps `YambakEnv`s).

    >>> import gymnasium
    >>> import yambak.env
    >>> env = gymnasium.make("yambak/yams-v0")
    >>> obs, info = env.reset(seed=1)
    >>> int(obs["action_mask"].sum()) > 0
    True
"""

from typing import Any

from ._core import Layout, ruleset_of
from .aec import YambakAEC, yambak_aec
from .gym import YambakEnv
from .vector import YambakVectorEnv, vectorisable

__all__ = [
    "Layout",
    "YambakAEC",
    "YambakEnv",
    "YambakVectorEnv",
    "ruleset_of",
    "vectorisable",
    "yambak_aec",
]


def _ruleset_env(rules: Any = None, **kwargs: Any) -> YambakEnv:
    if rules is None:
        raise ValueError("yambak/ruleset-v0 needs rules=: a ruleset .toml path, a spec dict or a Ruleset")
    return YambakEnv(rules, **kwargs)


def _ruleset_vector_env(num_envs: int = 1, rules: Any = None, **kwargs: Any) -> YambakVectorEnv:
    if rules is None:
        raise ValueError("yambak/ruleset-v0 needs rules=: a ruleset .toml path, a spec dict or a Ruleset")
    return YambakVectorEnv(rules, num_envs=num_envs, **kwargs)


def _register() -> None:
    import gymnasium

    from ..rules import preset_ids

    for preset in preset_ids():  # the vector entry refuses, saying why, the presets it cannot take
        env_id = f"yambak/{preset}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id,
                entry_point="yambak.env.gym:YambakEnv",
                kwargs={"rules": preset},
                vector_entry_point="yambak.env.vector:YambakVectorEnv",
            )
    if "yambak/ruleset-v0" not in gymnasium.registry:
        gymnasium.register(
            "yambak/ruleset-v0",
            entry_point="yambak.env:_ruleset_env",
            vector_entry_point="yambak.env:_ruleset_vector_env",
        )


_register()
