"""Building an episodic bank (EpicStar) from an expert's winning games.

The expert plays through the one episode loop (`ExpertContract`, no model): a bank game
is a game like any other, built from a `GameSpec`, archived when an archive is given,
and judged by its environment's own `Outcome`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, GameInfo
from bounded.contracts.expert import ExpertContract
from bounded.contracts.step_protocol import one_action_step
from bounded.core import JSON, Env, Expert, victory_of
from bounded.models.none import NoModel
from bounded.runner.build import play
from bounded.runner.episode import run_episode
from bounded.runner.spec import GameSpec


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
) -> tuple[GameInfo, list[BankEntry]]:
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
) -> tuple[GameInfo, list[BankEntry]]:
    """Play the game `spec` names with `expert` (the spec's contract and model unused)."""
    player = ExpertContract(expert, strategy=strategy, record=True)
    run = play(spec, archive=archive, model=NoModel(), contract=player)
    info = game_info(run.outcome, seed=spec.seed, options=spec.env_options, strategy=strategy)
    return info, player.entries


class BootstrapReport(BaseModel):
    """What a bank bootstrap played and kept."""

    games: list[GameInfo]
    """Every game played, won or not (`game` is the round number)."""
    kept: int
    """Games kept in the bank (the wins)."""
    entries: int
    """Entries in the bank."""
    content_hash: str
    """The bank's SHA-256."""


CRAFT_BANK_MAP = "highlands"
"""The map banks are collected on; the paper's protocol evaluates on the other maps."""

CRAFT_ENV = "bounded/Craft-v0"

CRAFT_BANK_KEEP = 5
"""Winning games a craft bank keeps (the paper's bank holds five)."""


def bootstrap_craft_bank(
    *,
    levels: Sequence[int] = (6, 7),
    rounds: int = 20,
    map_name: str = CRAFT_BANK_MAP,
    styles: Sequence[str] = ("timing", "rush", "power", "macro", "air"),
    builds: Sequence[str] = ("gateway", "robo"),
    seed: int = 0,
    keep: int | None = CRAFT_BANK_KEEP,
    archive: Any = None,
    step: JSON | None = None,
) -> tuple[EpisodicBank, BootstrapReport]:
    """EpicStar's bank: the craft expert plays up to `rounds` games (in all, over every
    level), the wins are kept.

    Round r plays level `levels[r % len(levels)]`, style `styles[r % len(styles)]` and
    expert build `builds[(r // len(levels)) % len(builds)]` (the entries' strategy), so
    every level meets every build, with seed `seed + r`. Every game is played at `step`
    (default: the one-action step, `bounded.contracts.step_protocol`), which the
    bank records as its `protocol`. `keep` caps the number of kept wins (the paper's 5;
    None keeps every win); once `keep` wins are kept no further round is played.
    """
    from bounded.envs.craft import CraftExpert

    protocol = dict(one_action_step(CRAFT_ENV) if step is None else step)
    played: list[GameInfo] = []
    kept: list[tuple[GameInfo, list[BankEntry]]] = []
    for round_ in range(rounds):
        if keep is not None and len(kept) >= keep:
            break
        options = {
            "level": levels[round_ % len(levels)],
            "style": styles[round_ % len(styles)],
            "map": map_name,
            **protocol,
        }
        build = builds[(round_ // len(levels)) % len(builds)]
        spec = GameSpec(
            env=CRAFT_ENV, env_options=options, contract="expert", model="none",
            seed=seed + round_, tag="bank",
        )  # fmt: skip
        info, entries = record_spec(spec, CraftExpert(build), strategy=build, archive=archive)
        played.append(info.model_copy(update={"game": round_, "entries": len(entries)}))
        if victory_of(info.outcome) and (keep is None or len(kept) < keep):
            kept.append((info, entries))
    meta = {
        "env": CRAFT_ENV,
        "source": "CraftExpert",
        "levels": list(levels),
        "rounds": rounds,
        "map": map_name,
        "seed": seed,
        "protocol": protocol,
    }
    bank = EpisodicBank.from_games(kept, meta=meta)
    report = BootstrapReport(
        games=played, kept=len(kept), entries=len(bank), content_hash=bank.content_hash
    )
    return bank, report


__all__ = [
    "CRAFT_BANK_KEEP",
    "CRAFT_BANK_MAP",
    "BootstrapReport",
    "bootstrap_craft_bank",
    "record_game",
    "record_spec",
]
