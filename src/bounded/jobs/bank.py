"""The one bank builder: an expert plays the games an environment's bank recipe plans
(`bounded.env_records.BankRecipe`) and the games the plan keeps become an episodic bank.

The expert plays through the one episode loop (`ExpertContract`, no model): a bank game
is a game like any other, built from a `GameSpec`, archived when an archive is given,
and judged by its environment's own `Outcome`.
"""

from __future__ import annotations

from typing import Any

from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, GameInfo
from bounded.contracts.expert import ExpertContract
from bounded.core import JSON, ConfigError, victory_of
from bounded.env_records import BankGame, BankPlan, BankRecipe, env_record
from bounded.models.none import NoModel
from bounded.protocols import Env, Expert
from bounded.registry import load_target
from bounded.runner.build import build_game, play, run_game
from bounded.runner.episode import run_episode
from bounded.runner.spec import GameSpec

Played = tuple[GameInfo, list[BankEntry]]


def game_info(run_outcome: JSON, *, seed: int, options: JSON, strategy: str) -> GameInfo:
    return GameInfo(
        game=0, seed=seed, options=dict(options), strategy=strategy, outcome=run_outcome
    )


def record_game(
    env: Env,
    expert: Expert,
    *,
    seed: int,
    options: JSON | None = None,
    strategy: str = "",
    max_steps: int = 100_000,
    archive: Any = None,
) -> Played:
    """Play one game of a built environment with `expert`: its provenance and one entry
    per decision. `options` are the environment's settings, kept as provenance."""
    player = ExpertContract(expert, strategy=strategy, record=True)
    run = run_episode(
        env, player, NoModel(), seed=seed, archive=archive, max_decisions=max_steps, tag="bank"
    )
    info = game_info(run.outcome, seed=seed, options=options or {}, strategy=strategy)
    return info, player.entries


def record_spec(
    spec: GameSpec, expert: Expert, *, strategy: str = "", archive: Any = None
) -> Played:
    """Play the game `spec` names with `expert` (the spec's contract and model unused)."""
    player = ExpertContract(expert, strategy=strategy, record=True)
    run = play(spec, archive=archive, model=NoModel(), contract=player)
    info = game_info(run.outcome, seed=spec.seed, options=spec.env_options, strategy=strategy)
    return info, player.entries


class _NoExpert:
    """The seat's placeholder while the game's environment, which the expert may read,
    is built."""

    def act(self, obs: Any) -> Any:
        raise RuntimeError("a bank game's expert is built from its environment first")


def record_bank_game(env: str, game: BankGame, *, archive: Any = None) -> Played:
    """Play one planned bank game of `env` with its expert, built from its environment."""
    spec = GameSpec(
        env=env, env_options=dict(game.options), contract="expert", model="none",
        seed=game.seed, tag="bank", max_decisions=game.max_decisions,
    )  # fmt: skip
    built = build_game(spec, model=NoModel(), contract=ExpertContract(_NoExpert()))
    player = ExpertContract(game.expert(built.env), strategy=game.strategy, record=True)
    built.contract = player
    run = run_game(built, archive=archive)
    info = game_info(run.outcome, seed=spec.seed, options=spec.env_options, strategy=game.strategy)
    return info, player.entries


def build_bank(
    env: str, plan: BankPlan, *, archive: Any = None
) -> tuple[EpisodicBank, list[GameInfo]]:
    """The bank of the games `plan` keeps, and every game played (`game`: its number in the
    plan; best first where the plan ranks them)."""
    played: list[Played] = []
    kept: list[Played] = []
    for number, game in enumerate(plan.games):
        if plan.stop_when_kept and plan.keep is not None and len(kept) >= plan.keep:
            break
        info, entries = record_bank_game(env, game, archive=archive)
        played.append((info.model_copy(update={"game": number, "entries": len(entries)}), entries))
        room = plan.keep is None or len(kept) < plan.keep
        if plan.rank is None and victory_of(info.outcome) and room:
            kept.append((info, entries))
    if plan.rank is not None:
        rank = plan.rank
        played.sort(key=lambda game: rank(game[0].outcome), reverse=True)
        kept = played[: plan.keep]
    return EpisodicBank.from_games(kept, meta=dict(plan.meta)), [info for info, _ in played]


def bank_recipe(env: str) -> BankRecipe:
    """The bank recipe an environment's record declares; a one-line error if none."""
    record = env_record(env)
    if record is None:
        raise ConfigError(f"unknown environment {env!r}")
    if not record.bank:
        raise ConfigError(f"environment {record.name} declares no bank recipe")
    recipe = load_target(record.bank)
    if not isinstance(recipe, BankRecipe):
        raise ConfigError(f"{record.bank} is not a BankRecipe")
    return recipe


__all__ = [
    "bank_recipe",
    "build_bank",
    "game_info",
    "record_bank_game",
    "record_game",
    "record_spec",
]
