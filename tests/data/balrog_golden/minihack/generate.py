"""Writes the MiniHack golden fixtures from BALROG's own code (see README.md here).

Not run by the tests. Run it as the NetHack generator beside it is run (the same
scratch environment, plus `minihack==1.0.2`):

    python generate.py --balrog BALROG --balrog-nle WHEEL_DIR --out .

It builds the stack as BALROG's `make_minihack_env` does, over MiniHack 1.0.2 (the
project's) behind the NetHack generator's gym 0.23 adapter.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from functools import partial
from pathlib import Path
from typing import Any

TASKS = (
    "MiniHack-MazeWalk-9x9-v0",
    "MiniHack-MazeWalk-15x15-v0",
    "MiniHack-Corridor-R3-v0",
    "MiniHack-CorridorBattle-Dark-v0",
    "MiniHack-Quest-Easy-v0",
    "MiniHack-Quest-Medium-v0",
)
"""BALROG's MiniHack tasks but the two Boxoban ones (their levels are a download)."""
SEEDS = (1, 2, 3, 4, 5)
STEPS = 100
"""BALROG's evaluator loop for MiniHack: `env.max_steps`, its `max_episode_steps`."""
OBSERVATION_KEYS = (
    "glyphs", "blstats", "tty_chars", "inv_letters", "inv_strs", "tty_cursor", "tty_colors",
)  # fmt: skip
MINIHACK_KWARGS: dict[str, Any] = {
    "character": "@",
    "max_episode_steps": 100,
    "penalty_step": -0.01,
    "penalty_time": 0.0,
    "penalty_mode": "constant",
    "savedir": None,
    "save_ttyrec_every": 0,
    "autopickup": False,
}
"""BALROG's `config.envs.minihack_kwargs`, less `skip_more` (True: `AutoMore`)."""


def nethack_generator() -> Any:
    path = Path(__file__).parents[1] / "nethack" / "generate.py"
    spec = importlib.util.spec_from_file_location("nethack_generate", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def minihack_game(task: str) -> Any:
    """The task built as gym 0.23's `make` builds it: every keyword to the environment
    (Gymnasium's `make` would take `max_episode_steps` for a wrapper)."""
    import gymnasium
    import minihack  # noqa: F401
    from gymnasium.envs.registration import load_env_creator

    spec = gymnasium.spec(task)
    creator = load_env_creator(spec.entry_point)
    kwargs = {**MINIHACK_KWARGS, "observation_keys": OBSERVATION_KEYS}
    return creator(**spec.kwargs, **kwargs, fix_moon_phase=True)


def minihack_seed(env: Any, seed: int) -> None:
    """The project's MiniHack seeding (balrog-nle draws the display seed at random)."""
    env.seed(seed, seed, reseed=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--balrog", type=Path, required=True)
    parser.add_argument("--balrog-nle", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    nethack = nethack_generator()
    sys.path.insert(0, str(args.balrog))
    nethack.install_balrog_nle_parts(args.balrog_nle)
    tasks = []
    for task in TASKS:
        episodes = []
        for seed in SEEDS:
            env = nethack.make_env(partial(minihack_game, task), task, "minihack", minihack_seed)
            episodes.append(nethack.play(env, seed, STEPS))
        tasks.append({"task": task, "episodes": episodes})
    nethack.write(args.out / "episodes.json.gz", {"tasks": tasks})


if __name__ == "__main__":
    main()
