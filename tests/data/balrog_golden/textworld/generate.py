"""Record BALROG's own TextWorld stack on seeded command sequences (golden fixtures).

Not run by the tests: it needs BALROG's source and its TextWorld fork (README.md here says
how they were installed). Run it with that environment's Python:

    PYTHONPATH=/path/to/BALROG python generate.py --games /path/to/tw_games \
        --config /path/to/BALROG/balrog/config/config.yaml --out .

For each task and seed it builds the environment as BALROG's evaluator does
(`make_env("textworld", task, config)` with `envs.env_kwargs.seed` set, so the game is
`seed % len(pool)`), resets it with the seed, and plays up to `env.max_steps` commands,
stopping at the first `terminated or truncated`, as the evaluator's loop does. Each command
goes through `check_action_validity` first. It writes `<task>.json.gz` per task.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
from pathlib import Path
from typing import Any

import textworld
from balrog.environments import make_env
from omegaconf import OmegaConf

TASKS = ("treasure_hunter", "the_cooking_game", "coin_collector")
SEEDS = (0, 5, 12, 18, 49)
DIRECTIONS = ("north", "south", "east", "west")
VERBS = ("take", "open", "examine", "drop", "eat", "close")
ODD = (
    "help", "look", "inventory", "goal", "xyzzy", "dance wildly", "go up", "North",
    "Go  North ", "take the moon", "open sesame", "42", "unlock door with spoon",
)  # fmt: skip
"""Commands outside any game's logic, odd spacing and case included (BALROG takes any
string)."""
WALKTHROUGH_SHARE = {0: 1.0, 5: 0.9, 12: 0.6}
"""How often the next walkthrough command is drawn, per seed (else 0.25), so that some
episodes score, win or lose."""


def names(game_file: Path) -> list[str]:
    """The game's entity names (doors, containers, objects, rooms)."""
    game = textworld.Game.load(str(game_file.with_suffix(".json")))
    return sorted({info.name for info in game.infos.values() if info.name})


def command_draw(rng: random.Random, game_file: Path, share: float):
    """A seeded stream of commands: the walkthrough's next step with probability `share`,
    else a move, a verb on one of the game's names, or an odd command."""
    walkthrough = list(textworld.Game.load(str(game_file.with_suffix(".json"))).walkthrough)
    entities = names(game_file)
    step = 0
    while True:
        roll = rng.random()
        if roll < share and step < len(walkthrough):
            step += 1
            yield walkthrough[step - 1]
        elif roll < share + (1 - share) / 3:
            yield f"go {rng.choice(DIRECTIONS)}"
        elif roll < share + 2 * (1 - share) / 3:
            yield f"{rng.choice(VERBS)} {rng.choice(entities)}"
        else:
            yield rng.choice(ODD)


def episode(config: Any, task: str, seed: int) -> dict[str, Any]:
    config.envs.env_kwargs.seed = seed
    env = make_env("textworld", task, config)
    obs, _ = env.reset(seed=seed)
    game_file = Path(env.env.gym_env.env.gamefiles[0])
    record: dict[str, Any] = {
        "task": task,
        "seed": seed,
        "game": game_file.name,
        "instruction": env.get_instruction_prompt(instructions=None),
        "max_steps": env.max_steps,
        "text": obs["text"]["long_term_context"],
        "short_term": obs["text"]["short_term_context"],
        "steps": [],
    }
    draw = command_draw(
        random.Random(f"{task}:{seed}"), game_file, WALKTHROUGH_SHARE.get(seed, 0.25)
    )
    for _ in range(env.max_steps):
        candidate = next(draw)
        action = env.check_action_validity(candidate)
        obs, reward, terminated, truncated, _ = env.step(action)
        record["steps"].append(
            {
                "command": candidate,
                "accepted": action == candidate,
                "text": obs["text"]["long_term_context"],
                "short_term": obs["text"]["short_term_context"],
                "reward": float(reward),
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                "progression": env.get_stats()["progression"],
            }
        )
        if terminated or truncated:
            break
    env.close()
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=Path, required=True, help="IGE's tw_games folder")
    parser.add_argument("--config", type=Path, required=True, help="BALROG's config.yaml")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = parser.parse_args()
    config = OmegaConf.load(args.config)
    config.envs.textworld_kwargs.textworld_games_path = str(args.games.resolve())
    for task in TASKS:
        episodes = [episode(config, task, seed) for seed in SEEDS]
        data = {
            "language_action_space": "AlwaysTrue",
            "default_action": "help",
            "episodes": episodes,
        }
        with gzip.open(args.out / f"{task}.json.gz", "wt", encoding="utf-8") as out:
            json.dump(data, out, indent=0, ensure_ascii=False)
        print(task, [(e["game"], len(e["steps"]), e["steps"][-1]["progression"]) for e in episodes])


if __name__ == "__main__":
    main()
