"""Writes the NetHack golden fixtures from BALROG's own code (see README.md here).

Not run by the tests. Run it in a scratch environment, outside the project:

    python generate.py --balrog BALROG --balrog-nle WHEEL_DIR --out .

`BALROG` is a clone of BALROG (commit af7d1f1); `WHEEL_DIR` is the unpacked
`balrog_nle-0.9.0` wheel (its `nle/nle_language_obsv*.so` and
`nle/language_wrapper/`). The game is NLE 1.3's `NetHackChallenge` (the `nle` the
project uses) behind a small adapter to gym 0.23's API, seeded as the project seeds it.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import random
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

SEEDS = (1, 2, 3, 4, 5)
STEPS = 200
LONG_SEEDS = (6, 7, 8)
LONG_STEPS = 2_000
"""Episodes played on to their end (an abort or a death), for BALROG's end of a game."""
IDLE_SEED = 9
"""An episode of replies that are never a word (`esc` every step: NLE aborts it)."""
INVALID = ("Move north", "go down the stairs", "", "NORTH", "attack", "00x")
TASK = "NetHackChallenge-v0"
NLE_KWARGS = {
    "character": "@",
    "max_episode_steps": 100_000,
    "no_progress_timeout": 150,
    "savedir": None,
    "save_ttyrec_every": 0,
}
"""BALROG's `config.envs.nle_kwargs`, less `skip_more` (True: the `AutoMore` wrapper)."""


def install_balrog_nle_parts(wheel: Path) -> None:
    """Make `nle.nle_language_obsv` and `nle.language_wrapper.wrappers` importable from
    the balrog-nle wheel, over the installed NLE 1.3."""
    import nle

    so = next((wheel / "nle").glob("nle_language_obsv*.so"))
    spec = importlib.util.spec_from_file_location("nle_language_obsv", so)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["nle.nle_language_obsv"] = module
    nle.nle_language_obsv = module  # type: ignore[attr-defined]
    for name in ("nle.language_wrapper", "nle.language_wrapper.wrappers"):
        package = types.ModuleType(name)
        package.__path__ = []  # type: ignore[attr-defined]
        sys.modules[name] = package
    path = wheel / "nle" / "language_wrapper" / "wrappers" / "nle_language_wrapper.py"
    spec = importlib.util.spec_from_file_location(
        "nle.language_wrapper.wrappers.nle_language_wrapper", path
    )
    assert spec and spec.loader
    wrapper = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = wrapper
    spec.loader.exec_module(wrapper)


def nethack_seed(env: Any, seed: int) -> None:
    """The project's NetHack seeding (`NetHackChallenge.seed` refuses seeds in NLE 1.3;
    balrog-nle draws the display seed from `SystemRandom`)."""
    from nle.nethack.nethack import Nethack

    Nethack.set_initial_seeds(env.nethack, seed, seed, False, None)


def gym_adapter(env: Any, task: str, seed_game: Any) -> Any:
    """NLE 1.3's Gymnasium environment under gym 0.23's API (what balrog-nle gives)."""
    import gym

    class Adapter(gym.Env):
        def __init__(self) -> None:
            self.nle = env
            self.actions = env.actions
            self.observation_space = env.observation_space
            self.action_space = env.action_space
            self.spec = types.SimpleNamespace(id=task)

        @property
        def unwrapped(self) -> Any:
            return self.nle

        def seed(self, seed: int | None = None) -> Any:
            seed_game(self.nle, seed)

        def reset(self, **kwargs: Any) -> Any:
            obs, _ = self.nle.reset(**kwargs)
            return obs

        def step(self, action: int) -> Any:
            obs, reward, terminated, truncated, info = self.nle.step(action)
            return obs, reward, terminated or truncated, info

        def close(self) -> None:
            self.nle.close()

    return Adapter()


def make_env(make_nle: Any, task: str, env_name: str, seed_game: Any = nethack_seed) -> Any:
    """BALROG's `make_nle_env` / `make_minihack_env`, with the game built by `make_nle`."""
    from balrog.environments.env_wrapper import EnvWrapper
    from balrog.environments.nle import AutoMore, NLELanguageWrapper
    from balrog.environments.wrappers import GymV21CompatibilityV0, NLETimeLimit

    env = AutoMore(gym_adapter(make_nle(), task, seed_game))
    env = NLETimeLimit(NLELanguageWrapper(env, vlm=False))
    return EnvWrapper(GymV21CompatibilityV0(env=env), env_name, task)


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    if hasattr(value, "name") and hasattr(value, "value"):
        return int(value.value)
    return value


MOVES = ("north", "east", "south", "west", "northeast", "southeast", "southwest", "northwest")
MOVES += tuple(f"far {move}" for move in MOVES)


def candidates(vocabulary: list[str], rng: random.Random) -> str:
    """45% a move, 45% any word, 10% a string outside the vocabulary."""
    roll = rng.random()
    if roll < 0.1:
        return rng.choice(INVALID)
    if roll < 0.55:
        return rng.choice([word for word in vocabulary if word in MOVES])
    return rng.choice(vocabulary)


def idle(vocabulary: list[str], rng: random.Random) -> str:
    """Replies that are never a word: BALROG plays its default action every step."""
    return rng.choice(INVALID)


def play(env: Any, seed: int, steps: int, reply: Any = candidates) -> dict[str, Any]:
    """BALROG's evaluator loop on `seed`, the agent's replies drawn at random."""
    random.seed(seed)
    np.random.seed(seed)
    obs, _ = env.reset(seed=seed)
    vocabulary = list(env.env.language_action_space)
    rng = random.Random(1000 + seed)
    episode: dict[str, Any] = {
        "seed": seed,
        "instruction_prompt": env.get_instruction_prompt(),
        "vocabulary": vocabulary,
        "reset": {**obs["text"], "stats": jsonable(env.get_stats())},
        "steps": [],
    }
    for _ in range(steps):
        candidate = reply(vocabulary, rng)
        action = env.check_action_validity(candidate)
        record: dict[str, Any] = {"candidate": candidate, "action": action}
        try:
            obs, reward, terminated, truncated, _ = env.step(action)
        except ValueError as exc:
            record["error"] = f"ValueError: {exc}"
            episode["steps"].append(record)
            continue
        record.update(
            text=obs["text"]["long_term_context"],
            short=obs["text"]["short_term_context"],
            reward=float(reward),
            terminated=bool(terminated),
            truncated=bool(truncated),
            stats=jsonable(env.get_stats()),
        )
        episode["steps"].append(record)
        if terminated or truncated:
            break
    env.close()
    return episode


def glyph_table() -> dict[str, Any]:
    """The extension's text for every glyph: alone east of the hero, twice to the east
    (its plural), and under the cursor."""
    from nle import nethack, nle_language_obsv

    language = nle_language_obsv.NLELanguageObsv()
    floor = nethack.GLYPH_CMAP_OFF + 19
    blstats = np.zeros(nethack.NLE_BLSTATS_SIZE, dtype=np.int64)
    blstats[0], blstats[1] = 40, 10
    cursor = np.array([11, 44], dtype=np.uint8)
    single, double, under = [], [], []
    for glyph in range(nethack.MAX_GLYPH):
        glyphs = np.full((21, 79), floor, dtype=np.int16)
        glyphs[10, 41] = glyph
        single.append(language.text_glyphs(glyphs, blstats).decode("latin-1"))
        glyphs[10, 41] = floor
        glyphs[10, 43] = glyphs[10, 44] = glyph
        double.append(language.text_glyphs(glyphs, blstats).decode("latin-1"))
        under.append(language.text_cursor(glyphs, blstats, cursor).decode("latin-1"))
    return {"single_east": single, "double_near_east": double, "cursor": under}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--balrog", type=Path, required=True)
    parser.add_argument("--balrog-nle", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("."))
    args = parser.parse_args()
    sys.path.insert(0, str(args.balrog))
    install_balrog_nle_parts(args.balrog_nle)
    from nle.env.tasks import NetHackChallenge

    episodes = []

    def game() -> Any:
        return NetHackChallenge(**NLE_KWARGS, fix_moon_phase=True)

    for seed in (*SEEDS, *LONG_SEEDS):
        episodes.append(
            play(make_env(game, TASK, "nle"), seed, LONG_STEPS if seed in LONG_SEEDS else STEPS)
        )
    episodes.append(play(make_env(game, TASK, "nle"), IDLE_SEED, STEPS, reply=idle))
    write(args.out / "episodes.json.gz", {"task": TASK, "episodes": episodes})
    write(args.out / "glyphs.json.gz", glyph_table())


def write(path: Path, data: Any) -> None:
    with gzip.GzipFile(path, "wb", mtime=0) as handle:
        handle.write(json.dumps(data, separators=(",", ":")).encode())


if __name__ == "__main__":
    main()
