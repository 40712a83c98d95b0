"""The one builder: a `GameSpec` becomes an environment, a contract and a model, and is
played by the episode runner.

`play(spec)` is what every command, the demo, the ladder, the bank bootstrap and the
Python API call. A caller that plays several games with one model (loading the embedded
model takes seconds) or one learning contract (a ladder) passes the built object in;
everything else is built from the spec's strings here and only here. A built game is
played by `run_game` alone: `play`, a resume (`bounded.runner.resume.resume_run`) and a
sweep's worker (`bounded.sweeps.executors.play_built`) call it; a scripted player's game
of a built environment goes through the same loop (`play_expert`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bounded.archive.sink import GameSink
from bounded.archive.sqlite import Archive
from bounded.contracts import make_contract
from bounded.contracts.base import as_contract
from bounded.contracts.expert import ExpertContract
from bounded.core import DecisionRecord, Observation, RunRecord
from bounded.envs import make_resolved, resolve_env_id
from bounded.models import make_model
from bounded.models.none import NoModel
from bounded.protocols import Contract, Env, Expert, Model
from bounded.runner.episode import EpisodeRunner, run_episode
from bounded.runner.identity import game_inputs
from bounded.runner.resumption import Resumption
from bounded.runner.spec import GameSpec
from bounded.runner.trajectory import KEPT_DECISIONS

Target = Archive | GameSink | None
"""Where a game's rows go: an archive, a sink, or nowhere."""

Observer = Callable[[DecisionRecord, Observation], None]


@dataclass
class Game:
    """A built game, ready to play."""

    spec: GameSpec
    env_id: str
    """The environment's canonical Gymnasium id."""
    env: Env
    contract: Contract
    model: Model
    models: dict[str, Model] = field(default_factory=dict)
    """The model of each decision kind that has its own (`GameSpec.models`)."""


def build_env(spec: GameSpec, env_id: str | None = None) -> tuple[str, Env]:
    """The canonical id and a fresh environment of the spec (`env_id`: the id resolved
    already)."""
    env_id = env_id or resolve_env_id(spec.env)
    return env_id, make_resolved(env_id, spec.env, **spec.env_options)


def contract_spec(spec: GameSpec, contract: Contract, env_id: str | None = None) -> GameSpec:
    """The spec with the settings the contract plays at filled in: its `env_options` hook
    (EpicStar's and CoS's one-action step) completes the spec's environment options or
    refuses them, before anything is built; its `paper_temperature` sets the temperature of
    a spec that sets none, its `paper_max_tokens` (BALROG's 8,192) the reply limit of a spec
    that sets none. `env_id`: the spec's environment's id, resolved already."""
    update: dict[str, Any] = {}
    env_id = env_id or resolve_env_id(spec.env)
    options = contract.setup.env_options(env_id, dict(spec.env_options))
    if options != spec.env_options:
        update["env_options"] = options
    temperature = contract.setup.paper_temperature
    if temperature is not None and spec.temperature is None:
        update["temperature"] = float(temperature)
    max_tokens = contract.setup.paper_max_tokens
    if max_tokens is not None and "max_tokens" not in spec.model_fields_set:
        update["max_tokens"] = int(max_tokens)
    return spec.model_copy(update=update) if update else spec


def build_contract(spec: GameSpec) -> Contract:
    return make_contract(spec.contract, dict(spec.contract_config))


def build_model(spec: GameSpec) -> Model:
    return make_model(spec.model, base_url=spec.base_url, **spec.model_options)


def build_tiers(spec: GameSpec, default: Model) -> dict[str, Model]:
    """The model of each decision kind the spec names; one object per distinct spec (the
    default model's spec reuses the default model)."""
    built: dict[str, Model] = {spec.model: default}
    for model in spec.models.values():
        if model not in built:
            built[model] = make_model(model, base_url=spec.base_url, **spec.model_options)
    return {kind: built[model] for kind, model in spec.models.items()}


@dataclass(frozen=True)
class Checked:
    """What building a spec's environment and contract found."""

    inputs: dict[str, str]
    """The game's inputs (`bounded.runner.identity.game_inputs`)."""
    empty_action: str | None
    """The environment's empty action (`Env.empty_action`)."""


def inspect_spec(spec: GameSpec, contract: Contract | None = None) -> Checked:
    """Build the environment and the contract (not the model; `contract` if built
    already), so that a misspelt name or a bad setting is refused before any game starts."""
    contract = contract if contract is not None else build_contract(spec)
    env_id = resolve_env_id(spec.env)
    _, env = build_env(contract_spec(spec, contract, env_id), env_id)
    try:
        return Checked(inputs=game_inputs(env, contract), empty_action=env.empty_action)
    finally:
        env.close()


def check_spec(spec: GameSpec, contract: Contract | None = None) -> dict[str, str]:
    """`inspect_spec`'s inputs of the game."""
    return inspect_spec(spec, contract).inputs


def build_game(
    spec: GameSpec,
    *,
    model: Model | None = None,
    contract: Contract | None = None,
    models: Mapping[str, Model] | None = None,
) -> Game:
    """Build everything the spec names; a `model`, `contract` or tier `models` given are used
    as they are."""
    memory = as_contract(contract) if contract is not None else build_contract(spec)
    env_id = resolve_env_id(spec.env)
    spec = contract_spec(spec, memory, env_id)
    _, env = build_env(spec, env_id)
    llm = model if model is not None else build_model(spec)
    tiers = dict(models) if models is not None else build_tiers(spec, llm)
    return Game(spec=spec, env_id=env_id, env=env, contract=memory, model=llm, models=tiers)


def reply_limit(spec: GameSpec, contract: Contract, model: Model) -> int:
    """The reply token limit of each call: the spec's, unless the contract caps it for this
    model (`max_reply_tokens`: BALROG's 8,192 on a model whose context window holds less
    beside the prompt). The spec keeps the limit asked for, the game's identity."""
    limit = contract.replies.max_reply_tokens(model)
    return min(spec.max_tokens, int(limit)) if limit is not None else spec.max_tokens


def runner_for(
    game: Game,
    *,
    archive: Target = None,
    observer: Observer | None = None,
    keep_decisions: int | None = KEPT_DECISIONS,
) -> EpisodeRunner:
    """The game's runner; its run row carries the game's identity (`bounded.runner.record`),
    read from the built game before it starts. `keep_decisions`: the records its
    `trajectory` holds in memory (None: every one; `bounded.runner.trajectory`)."""
    spec = game.spec
    return EpisodeRunner(
        game.env,
        game.contract,
        game.model,
        models=game.models,
        seed=spec.seed,
        env_id=game.env_id,
        tag=spec.run_tag,
        archive=archive,
        max_tokens=reply_limit(spec, game.contract, game.model),
        temperature=spec.temperature if spec.temperature is not None else 0.0,
        max_decisions=spec.max_decisions,
        experiment=spec.experiment,
        cell=spec.cell,
        spec=spec,
        observer=observer,
        keep_decisions=keep_decisions,
    )


def run_game(
    game: Game,
    *,
    archive: Target = None,
    observer: Observer | None = None,
    resume: Resumption | None = None,
    keep_failure: bool = False,
) -> RunRecord:
    """Play a built game (and close its environment): from its start, or from the claimed
    run `resume` (`bounded.runner.resume.claim`). With `keep_failure` a game that fails
    returns its run row, `failed` with the error, instead of raising (a sweep's worker goes
    on to its next game)."""
    runner = runner_for(game, archive=archive, observer=observer)
    try:
        return runner.execute(resume=resume)
    except Exception:
        if not keep_failure:
            raise
        return runner.run
    finally:
        game.env.close()


def play_expert(env: Env, expert: Expert, *, seed: int, max_decisions: int = 100_000) -> RunRecord:
    """Play one game of a built environment with a scripted player, through the one episode
    loop (`bounded.contracts.expert.ExpertContract`, no model); the environment is left
    open for its caller to read."""
    return run_episode(
        env, ExpertContract(expert), NoModel(), seed=seed, max_decisions=max_decisions
    )


def play(
    spec: GameSpec,
    *,
    archive: Target = None,
    model: Model | None = None,
    contract: Contract | None = None,
    models: Mapping[str, Model] | None = None,
    observer: Observer | None = None,
) -> RunRecord:
    """Build and play one game; with an archive every decision is saved as it is made."""
    game = build_game(spec, model=model, contract=contract, models=models)
    return run_game(game, archive=archive, observer=observer)


__all__ = [
    "Game",
    "build_contract",
    "build_env",
    "build_game",
    "build_model",
    "build_tiers",
    "check_spec",
    "contract_spec",
    "play",
    "play_expert",
    "reply_limit",
    "run_game",
]
