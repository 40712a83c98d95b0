"""TextWorld games generated offline from a seed with TextWorld's own challenge generators,
compiled once and kept in a cache directory.

BALROG plays three TextWorld challenges from a set of games generated in advance (from
Intelligent Go-Explore); here each game is generated from its seed with the settings
BALROG's documentation gives (`BALROG_SETTINGS`). TextWorld's generator iterates over
sets, so its output depends on Python's hash seed: games are generated in a child
process with `PYTHONHASHSEED=0`, so the same seed and settings give the same game in any
process. A generated game is two files, the compiled story (`.z8`) and TextWorld's game
description (`.json`, which holds the walkthrough), written atomically: parallel workers
may generate the same game and one of them wins.

Treasure hunter's quest is found by a depth-first backward search for a chain of exactly
`quest_length` (20 at level 30) actions from each starting room in turn; on some maps no
such chain exists from a room and the search walks an exponential tree before giving up
(seeds 1, 5, 9 and 10 ran for hours). Intelligent Go-Explore, whose games BALROG plays,
drew random seeds and kept those that generated a 20-step quest; here the search has a
budget (`QUEST_SEARCH_BUDGET` node expansions over all starting rooms) and a seed whose
quest is not found within it is passed over for the next of the episode's generator
seeds (`generator_seeds`): counted in expansions, not seconds, so the same episode seed
is the same game on any machine. IGE also kept only games whose walkthrough is as long
as the quest (20 steps): a map with cycles can make TextWorld's winning policy shorter
than the chain it generated (3 to 15 steps here), and such a game is passed over too
(`FULL_LENGTH_QUESTS`). The generator seed used is in the game's metadata
(`generator_seed`).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bounded.core import BoundedError

CHALLENGES: dict[str, str] = {
    "treasure_hunter": "tw-treasure_hunter",
    "the_cooking_game": "tw-cooking",
    "coin_collector": "tw-coin_collector",
}
"""BALROG's task names -> TextWorld's challenge ids."""

BALROG_SETTINGS: dict[str, dict[str, Any]] = {
    "treasure_hunter": {"level": 30},
    "the_cooking_game": {
        "recipe": 5, "take": 5, "go": 12, "open": True, "cook": True, "cut": True,
        "drop": True, "recipe_seed": 0, "split": None,
    },
    "coin_collector": {"level": 120},
}  # fmt: skip
"""BALROG's settings: treasure hunter at level 30 (20 rooms, locked doors and containers,
a quest of 20 steps), the cooking game with 5 ingredients, 12 rooms to go through and
every skill (open, cook, cut, drop), coin collector at level 120 (40 rooms with
distractors, the coin 20 rooms away)."""

COOKING_DEFAULTS: dict[str, Any] = {"recipe_seed": 0, "split": None}
WITHOUT_SOLUTION = frozenset({"treasure_hunter", "coin_collector"})
"""Games whose objective names only the quest's last step (TextWorld's
`only_last_action`), as BALROG removes the solution from them; TextWorld's own objective
spells out every move."""
GENERATOR_VERSION = "1"
"""Part of a cached game's name: bump when the way games are generated changes."""
GENERATION_TIMEOUT_S = 3600
"""A safety net only: the search budget bounds every generation (treasure hunter's worst
case is `GENERATOR_SEEDS` x `QUEST_SEARCH_BUDGET` expansions, about 0.2 s each; a
typical episode takes 1-3 generator seeds)."""
QUEST_SEARCH_BUDGET: dict[str, int] = {"treasure_hunter": 300}
"""Node expansions TextWorld's quest search may take for one generator seed, per task
(treasure hunter's games that generate take 50-160; a task not named has no budget).
Part of the cached game's name."""
FULL_LENGTH_QUESTS = frozenset({"treasure_hunter"})
"""Tasks whose game is kept only when its walkthrough is as long as its quest (IGE's
filter, so every hunt is BALROG's 20 steps); part of the cached game's name."""
GENERATOR_SEEDS = 32
"""Generator seeds tried for one episode seed before generation is refused."""
SEED_STRIDE = 100_000
"""Generator seed k of episode seed s is s + k * SEED_STRIDE (k = 0 first: the seed itself)."""


def generator_seeds(seed: int) -> list[int]:
    """The generator seeds tried, in order, for an episode seed (`GENERATOR_SEEDS` of them)."""
    return [seed + k * SEED_STRIDE for k in range(GENERATOR_SEEDS)]


def cache_dir() -> Path:
    """`$BOUNDED_TEXTWORLD_GAMES`, else `$XDG_CACHE_HOME/bounded/textworld` (~/.cache)."""
    given = os.environ.get("BOUNDED_TEXTWORLD_GAMES")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bounded" / "textworld"


def game_settings(task: str, overrides: dict[str, Any] | None) -> dict[str, Any]:
    """BALROG's settings for `task`, with `overrides` applied (a cooking game's missing
    `recipe_seed` and `split` filled)."""
    settings = {**BALROG_SETTINGS[task], **(overrides or {})}
    if task == "the_cooking_game":
        settings = {**COOKING_DEFAULTS, **settings}
    return settings


def game_path(task: str, seed: int, settings: dict[str, Any], games_dir: Path) -> Path:
    """Where the compiled game of (task, seed, settings) lives (`.z8`; `.json` beside it)."""
    budget = QUEST_SEARCH_BUDGET.get(task)
    parts: list[Any] = [GENERATOR_VERSION, settings]
    if budget:
        parts.append({"quest_search_budget": budget})
    if task in FULL_LENGTH_QUESTS:
        parts.append({"full_length_quest": True})
    key = json.dumps(parts, sort_keys=True)
    digest = hashlib.sha256(key.encode()).hexdigest()[:10]
    return games_dir / task / f"{task}-seed{seed}-{digest}.z8"


def ensure_game(task: str, seed: int, settings: dict[str, Any], games_dir: Path) -> Path:
    """The compiled game: from the cache, else the copy shipped with bounded
    (`bounded.envs.textworld.shipped`), else generated now."""
    from bounded.envs.textworld.shipped import unpack_shipped

    path = game_path(task, seed, settings, games_dir)
    if path.exists() and path.with_suffix(".json").exists():
        return path
    if unpack_shipped(path):
        return path
    return generate_game(task, seed, settings, path)


def generate_game(task: str, seed: int, settings: dict[str, Any], path: Path) -> Path:
    """Generate the game into `path` (its `.json` beside it) in a child process."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent) as work:
        target = Path(work) / path.name
        budget = QUEST_SEARCH_BUDGET.get(task)
        spec = json.dumps(
            {
                "task": task,
                "seed": seed,
                "settings": settings,
                "path": str(target),
                "budget": budget,
                "seeds": generator_seeds(seed),
            }
        )
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        command = [sys.executable, "-m", "bounded.envs.textworld.games", spec]
        try:
            done = subprocess.run(
                command, env=env, capture_output=True, text=True, timeout=GENERATION_TIMEOUT_S
            )
        except subprocess.TimeoutExpired as exc:
            raise BoundedError(f"generating {task} seed {seed} took over {exc.timeout} s") from exc
        if done.returncode != 0 or not target.exists():
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise BoundedError(f"TextWorld could not generate {task} seed {seed}: {last}")
        os.replace(target.with_suffix(".json"), path.with_suffix(".json"))
        os.replace(target, path)
    return path


class QuestSearchBudget:
    """Counts the node expansions of TextWorld's quest search (`_Chainer.chain`, patched in
    the generating child process only) and ends the search past `steps` of them, as
    TextWorld ends a search that finds nothing: `QuestGenerationError`."""

    def __init__(self, steps: int) -> None:
        self.steps, self.left = steps, steps

    def install(self) -> None:
        from textworld.generator import QuestGenerationError, chaining

        original = chaining._Chainer.chain

        def chain(chainer: Any, node: Any) -> Any:
            self.left -= 1
            if self.left < 0:
                raise QuestGenerationError(f"no quest within {self.steps} search steps")
            return original(chainer, node)

        chaining._Chainer.chain = chain

    def restart(self) -> None:
        self.left = self.steps


def _generate(spec: dict[str, Any]) -> None:
    """Generate and compile one game (run in the child process): the first of the episode
    seed's generator seeds whose quest is found (within the budget, where there is one)."""
    import textworld
    import textworld.challenges
    from textworld.generator import QuestGenerationError

    _, make, _ = textworld.challenges.CHALLENGES[CHALLENGES[spec["task"]]]
    budget = QuestSearchBudget(int(spec["budget"])) if spec.get("budget") else None
    if budget is not None:
        budget.install()
    seeds = [int(seed) for seed in spec["seeds"]]
    for seed in seeds:
        options = _options(spec, seed)
        if budget is not None:
            budget.restart()
        try:
            game = make(spec["settings"], options)
        except QuestGenerationError:
            continue
        if spec["task"] in FULL_LENGTH_QUESTS and not full_length(game):
            continue
        game.metadata["generator_seed"] = seed
        textworld.generator.compile_game(game, options)
        return
    limit = f" within {budget.steps} search steps" if budget is not None else ""
    full = " with a walkthrough as long as the quest" if spec["task"] in FULL_LENGTH_QUESTS else ""
    raise SystemExit(
        f"no quest found{limit}{full} for any of its {len(seeds)} generator seeds "
        f"({', '.join(map(str, seeds[:3]))}{', ...' if len(seeds) > 3 else ''})"
    )


def full_length(game: Any) -> bool:
    """Whether the game's walkthrough is as long as the quest it was generated with."""
    walkthrough = game.metadata.get("walkthrough") or []
    return len(walkthrough) == int(game.metadata.get("quest_length", len(walkthrough)))


def _options(spec: dict[str, Any], seed: int) -> Any:
    from textworld.generator.game import GameOptions

    options = GameOptions()
    options.seeds = seed
    options.path = spec["path"]
    options.file_ext = ".z8"
    options.force_recompile = True
    options.grammar.only_last_action = spec["task"] in WITHOUT_SOLUTION
    return options


if __name__ == "__main__":
    _generate(json.loads(sys.argv[1]))


__all__ = [
    "BALROG_SETTINGS",
    "CHALLENGES",
    "FULL_LENGTH_QUESTS",
    "QUEST_SEARCH_BUDGET",
    "QuestSearchBudget",
    "cache_dir",
    "ensure_game",
    "game_path",
    "game_settings",
    "generate_game",
    "generator_seeds",
]
