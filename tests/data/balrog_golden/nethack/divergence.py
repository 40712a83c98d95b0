"""How far BALROG's own stack follows these fixtures (see README.md here).

Not run by the tests. Run it where `balrog-nle` 0.9.0, gym 0.23.0, BALROG's MiniHack fork
(github.com/balrog-ai/minihack, commit 3ecb6da, installed with `--no-deps`), `pillow`
10.4.0 and `omegaconf` are installed, with BALROG on the path:

    python divergence.py --balrog BALROG

For each fixture episode it builds the environment with BALROG's own `make_env` and
BALROG's `config.yaml`, resets it as BALROG's evaluator does, steps the fixture's
actions, and prints whether the instruction prompt, the vocabulary and the first
observation are equal, and the first step whose text differs (None: none).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent


def compare(make_env: Any, config: Any, env_name: str, task: str, episode: dict[str, Any]) -> Any:
    env = make_env(env_name, task, config)
    seed = episode["seed"]
    random.seed(seed)
    np.random.seed(seed)
    obs, _ = env.reset(seed=seed)
    same = (
        env.get_instruction_prompt() == episode["instruction_prompt"],
        list(env.env.language_action_space) == episode["vocabulary"],
        obs["text"]["long_term_context"] == episode["reset"]["long_term_context"],
    )
    for number, record in enumerate(episode["steps"]):
        try:
            obs, _, terminated, truncated, _ = env.step(record["action"])
        except ValueError:
            if "error" in record:
                continue
            return (*same, number)
        if "error" in record or obs["text"]["long_term_context"] != record["text"]:
            return (*same, number)
        if terminated or truncated:
            break
    return (*same, None)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--balrog", type=Path, required=True)
    args = parser.parse_args()
    sys.path.insert(0, str(args.balrog))
    from balrog.environments import make_env
    from omegaconf import OmegaConf

    config = OmegaConf.load(args.balrog / "balrog" / "config" / "config.yaml")
    print("env task seed | prompt vocabulary first-observation | first differing step")
    with gzip.open(HERE / "episodes.json.gz", "rt") as handle:
        nethack = json.load(handle)
    for episode in nethack["episodes"]:
        result = compare(make_env, config, "nle", nethack["task"], episode)
        print("nle", nethack["task"], episode["seed"], result)
    with gzip.open(HERE.parent / "minihack" / "episodes.json.gz", "rt") as handle:
        minihack = json.load(handle)
    for task in minihack["tasks"]:
        for episode in task["episodes"]:
            result = compare(make_env, config, "minihack", task["task"], episode)
            print("minihack", task["task"], episode["seed"], result)


if __name__ == "__main__":
    main()
