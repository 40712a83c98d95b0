"""Writes `episodes.json.gz` and `levels.json.gz` from BALROG's own BabyAI wrapper
(`make_env("babyai", task, ...)` over BALROG's Minigrid fork), on each of BALROG's five
tasks:

- episodes: seeds 1-5 play seeded random action strings; seeds 6-7 play minigrid's
  `BabyAIBot` (so that some episodes are won), with the same share of invalid strings;
- levels: for seeds 1-200, the mission and a SHA-256 of the level (`level_digest`).

Run from a scratch virtual environment with BALROG's source on PYTHONPATH and the fork
installed (README.md beside this file); the tests never run it.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import random
import sys
from pathlib import Path

from balrog.environments import make_env
from balrog.environments.babyai_text.clean_lang_wrapper import BABYAI_ACTION_SPACE
from minigrid.utils.baby_ai_bot import BabyAIBot
from omegaconf import OmegaConf

RANDOM_SEEDS = (1, 2, 3, 4, 5)
BOT_SEEDS = (6, 7)
LEVEL_SEEDS = range(1, 201)
INVALID = ("move forward", "pickup", "", "Go forward")
"""Strings BALROG's vocabulary lacks; its evaluator runs the default action for them."""


def layout(env) -> dict:
    """The level as minigrid encodes it (a flat list of cell triples) and the agent."""
    game = env.unwrapped
    return {
        "grid": game.grid.encode().transpose(1, 0, 2).reshape(-1).tolist(),
        "width": game.width,
        "agent": [int(game.agent_pos[0]), int(game.agent_pos[1]), int(game.agent_dir)],
    }


def level_digest(level: dict) -> str:
    return hashlib.sha256(json.dumps(level, sort_keys=True).encode()).hexdigest()


def started(config, task: str, seed: int):
    env = make_env("babyai", task, config)
    with contextlib.redirect_stdout(io.StringIO()):  # minigrid prints rejected samples
        obs, _ = env.reset(seed=seed)
    return env, obs


def level_record(config, task: str, seed: int) -> list:
    env, obs = started(config, task, seed)
    return [seed, obs["mission"], env.max_steps, level_digest(layout(env))]


def episode(config, task: str, seed: int) -> dict:
    env, obs = started(config, task, seed)
    draw = random.Random(seed)
    bot = BabyAIBot(env.unwrapped) if seed in BOT_SEEDS else None
    record = {
        "task": task,
        "seed": seed,
        "player": "bot" if bot else "random",
        "mission": obs["mission"],
        "instruction": env.get_instruction_prompt(instructions=obs["mission"]),
        "legal": list(env.env.language_action_space),
        "max_steps": env.max_steps,
        "level": layout(env),
        "reset": {**obs["text"], "stats": env.get_stats()},
        "steps": [],
    }
    for _ in range(env.max_steps):
        if draw.random() < 0.05:
            action = draw.choice(INVALID)
        elif bot is not None:
            action = BABYAI_ACTION_SPACE[int(bot.replan())]
        else:
            action = draw.choice(BABYAI_ACTION_SPACE)
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
                "stats": env.get_stats(),
            }
        )
        if terminated or truncated:
            break
    return record


def main(balrog_dir: str) -> None:
    config = OmegaConf.load(Path(balrog_dir) / "balrog/config/config.yaml")
    episodes = [
        episode(config, task, seed)
        for task in config.tasks.babyai_tasks
        for seed in RANDOM_SEEDS + BOT_SEEDS
    ]
    levels = {
        task: [level_record(config, task, seed) for seed in LEVEL_SEEDS]
        for task in config.tasks.babyai_tasks
    }
    for name, content in (("episodes", episodes), ("levels", levels)):
        data = json.dumps(content, separators=(",", ":")).encode()
        Path(__file__).with_name(f"{name}.json.gz").write_bytes(gzip.compress(data, mtime=0))


if __name__ == "__main__":
    main(sys.argv[1])
