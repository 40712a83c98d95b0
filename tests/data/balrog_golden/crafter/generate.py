"""Writes `episodes.json.gz`: BALROG's own Crafter wrapper (`make_env("crafter", ...)`)
played on seeded random action strings, twice per seed:

- `creation`: Crafter's despawn draw made over a chunk's creatures in creation order
  (bounded's determinism fix, patched into `crafter.Env._balance_object`);
- `shipped`: Crafter as it ships (the draw over a set, ordered by memory address, which
  differs between runs), with `despawn_differs_at`: the first step at which the shipped
  draw removed another creature than the creation-ordered draw would have (None: never).

Run from a scratch virtual environment with BALROG's source on PYTHONPATH and its Crafter
requirements installed (README.md beside this file); the tests never run it.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path

import crafter
import numpy as np
from balrog.environments import make_env
from balrog.environments.crafter import ACTIONS
from omegaconf import OmegaConf

SEEDS = (1, 2, 3, 4, 5, 6)
STEPS = 200
INVALID = ("move north", "craft table", "", "Noop.")
"""Strings BALROG's vocabulary lacks; its evaluator runs the default action for them."""

SHIPPED_BALANCE = crafter.Env._balance_object
FIRST_DIFFERENCE: list[int] = []
"""Crafter steps at which the shipped despawn draw differed (filled while playing)."""


def creation_order(env, objs):
    index = env._world._obj_map
    return sorted(objs, key=lambda obj: int(index[tuple(obj.pos)]))


def balance_in_creation_order(self, chunk, objs, *args):
    SHIPPED_BALANCE(self, chunk, creation_order(self, objs), *args)


def balance_as_shipped_watched(
    self, chunk, objs, cls, material, span, despan, spawn_p, despawn_p, ctor, target_fn
):
    """Crafter's own draw, replayed on a copy of the random state to see whether the
    creation-ordered list would have lost another creature."""
    shipped = [obj for obj in objs if isinstance(obj, cls)]
    ordered = [obj for obj in creation_order(self, objs) if isinstance(obj, cls)]
    replay = np.random.RandomState()
    replay.set_state(self._world.random.get_state())
    target_min, target_max = target_fn(len(shipped), self._world.mask(*chunk, material).sum())
    despawns = len(shipped) >= int(target_min) and len(shipped) > int(target_max)
    if despawns and replay.uniform() < despawn_p:
        i = replay.randint(0, len(shipped))

        def effect(obj):
            return obj if self._player.distance(obj.pos) >= despan else None

        if effect(shipped[i]) is not effect(ordered[i]):
            FIRST_DIFFERENCE.append(self._step)
    SHIPPED_BALANCE(
        self, chunk, objs, cls, material, span, despan, spawn_p, despawn_p, ctor, target_fn
    )


def stats(env) -> dict:
    got = env.get_stats()
    return {
        "score": got["score"],
        "progression": got["progression"],
        "achievements": got["achievements"],
    }


def play(config, seed: int) -> dict:
    config.envs.crafter_kwargs.seed = seed
    env = make_env("crafter", "default", config)
    obs, _ = env.reset(seed=seed)
    draw = random.Random(seed)
    record = {
        "instruction": env.get_instruction_prompt(instructions=None),
        "legal": list(env.env.language_action_space),
        "max_steps": env.max_steps,
        "reset": {**obs["text"], "stats": stats(env)},
        "steps": [],
    }
    for _ in range(STEPS):
        action = draw.choice(INVALID) if draw.random() < 0.05 else draw.choice(ACTIONS)
        played = env.check_action_validity(action)
        obs, reward, terminated, truncated, _ = env.step(played)
        record["steps"].append(
            {
                "action": action,
                "played": played,
                **obs["text"],
                "reward": float(reward),
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                "stats": stats(env),
            }
        )
        if terminated or truncated:
            break
    return record


def episode(config, seed: int) -> dict:
    crafter.Env._balance_object = balance_in_creation_order
    creation = play(config, seed)
    crafter.Env._balance_object = balance_as_shipped_watched
    FIRST_DIFFERENCE.clear()
    shipped = play(config, seed)
    # Crafter counts the step BALROG's reset takes (`Noop`): its step n is BALROG's n - 1.
    shipped["despawn_differs_at"] = FIRST_DIFFERENCE[0] - 1 if FIRST_DIFFERENCE else None
    return {"seed": seed, "creation": creation, "shipped": shipped}


def main(balrog_dir: str) -> None:
    config = OmegaConf.load(Path(balrog_dir) / "balrog/config/config.yaml")
    episodes = [episode(config, seed) for seed in SEEDS]
    out = Path(__file__).with_name("episodes.json.gz")
    data = json.dumps(episodes, separators=(",", ":")).encode()
    out.write_bytes(gzip.compress(data, mtime=0))


if __name__ == "__main__":
    main(sys.argv[1])
