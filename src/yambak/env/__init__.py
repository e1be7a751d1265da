"""Environments for researchers over the yambak engine (`pip install yambak[rl]`).

* `YambakEnv`: Gymnasium, one player (solitaire), any preset or ruleset;
* `yambak_aec(rules, players)` / `YambakAEC`: PettingZoo AEC, any number of players, seats in turn.

Both share the action layout, the action masks (from the engine's legal actions) and the
observation of `_core` (its docstring documents every field); both are seeded through
`reset(seed=...)` and pass `gymnasium.utils.env_checker.check_env` and PettingZoo's `api_test`.

    >>> from yambak.env import YambakEnv
    >>> env = YambakEnv("yams")
    >>> obs, info = env.reset(seed=1)
    >>> int(obs["action_mask"].sum()) > 0
    True
"""

from ._core import Layout, ruleset_of
from .aec import YambakAEC, yambak_aec
from .gym import YambakEnv

__all__ = ["Layout", "YambakAEC", "YambakEnv", "ruleset_of", "yambak_aec"]
