"""Put the TextWorld games a set of games will play on disk before they are played
(`bounded textworld-games`): BALROG's shipped pool unpacked, generated games generated in
parallel, so that no episode's first decision waits for a generation."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bounded.envs.textworld.env import TextWorldConfig
from bounded.envs.textworld.games import cache_dir, ensure_game, game_settings
from bounded.envs.textworld.pool import ensure_pool

TEXTWORLD_ENVS = frozenset({"textworld", "bounded/TextWorld-v0"})


@dataclass(frozen=True)
class GameNeed:
    """A generated game (`task`, `seed`, `settings`), or BALROG's whole pool (`task` None:
    one archive, unpacked once for every seed)."""

    games_dir: Path
    task: str | None = None
    seed: int = 0
    settings: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        return f"{self.task} seed {self.seed}" if self.task else "BALROG's game pool"

    def make(self) -> Path:
        if self.task is None:
            return ensure_pool(self.games_dir)
        return ensure_game(self.task, self.seed, dict(self.settings), self.games_dir)


def game_need(options: dict[str, Any], seed: int) -> GameNeed:
    """What `TextWorldEnv(**options)` needs on disk to play `seed`."""
    config = TextWorldConfig(**options)
    games_dir = Path(config.games_dir) if config.games_dir else cache_dir()
    if config.balrog_pool:
        return GameNeed(games_dir)
    settings = game_settings(config.task, config.settings)
    return GameNeed(games_dir, config.task, seed, tuple(sorted(settings.items())))


def needs_of(games: Iterable[tuple[str, dict[str, Any], int]]) -> list[GameNeed]:
    """The distinct needs of (env, env options, seed) triples, TextWorld's only, in order."""
    needs = (game_need(options, seed) for env, options, seed in games if env in TEXTWORLD_ENVS)
    return list(dict.fromkeys(needs))


def prepare(
    needs: list[GameNeed], workers: int, done: Callable[[GameNeed, str | None], None]
) -> list[str]:
    """Make every game, `workers` at a time (each generation is a child process);
    `done(need, error)` after each. The errors, one line each (a game that does not
    generate is reported, not fatal)."""
    errors: list[str] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(need.make): need for need in needs}
        for future in as_completed(futures):
            need, error = futures[future], None
            try:
                future.result()
            except Exception as exc:
                error = f"{need.label}: {(str(exc).splitlines() or [repr(exc)])[0]}"
                errors.append(error)
            done(need, error)
    return errors


__all__ = ["GameNeed", "game_need", "needs_of", "prepare"]
