"""A run's record as it starts: its settings, its inputs and its identity, made once.

`started_run` builds the row of a game about to be played, called once per runner: what
the run plays with (model, tiers, reply limit, temperature, sampling seed, the reasoning
cap in force, the contract's settings the parity report reads), and, for a game built from
a `GameSpec`, the game's inputs and identity (`bounded.runner.identity`), read from the
built environment and contract before the game starts. `configure` is the one place a
run's contract configuration and what follows from it (its hash, the inputs' copy of that
hash, the identity) are written: by `started_run`, and again when a refused response
format moves the run to the contract's next reply mode, which is in its configuration. A
run's end is `outcome_dict`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping

from bounded.contracts.replies.policy import reasoning_chars_in_force
from bounded.core import JSON, Outcome, RunRecord, stable_hash
from bounded.protocols import Contract, Env, Model
from bounded.runner.identity import game_inputs, identity_hash
from bounded.runner.spec import GameSpec
from bounded.runner.tally import ActionTally


def reasoning_in_force(config: JSON, model: Model) -> JSON:
    """The reasoning budget a contract's config puts in force with this model, as the run
    records it in `model_params`: `{"reasoning_chars": N}` (None: no cap; "off": no
    reasoning asked for), or {} for a contract without the setting."""
    if "reasoning_chars" not in config:
        return {}
    if config.get("reasoning") is False:
        return {"reasoning_chars": "off"}
    return {"reasoning_chars": reasoning_chars_in_force(config["reasoning_chars"], model)}


def contract_settings(contract: Contract) -> JSON:
    """What the parity report reads of the contract beside its configuration: its fallback
    policy and the configuration keys that are its memory under test."""
    return {
        "fallback": contract.replies.fallback_policy(),
        "memory_settings": list(contract.memory.memory_settings),
    }


def package_version() -> str:
    from bounded.version import __version__

    return __version__


def code_revision() -> str:
    """Which code plays the run (`bounded.version.code_revision`)."""
    from bounded.version import code_revision as revision

    return revision()


def model_params(
    contract: Contract,
    model: Model,
    tiers: Mapping[str, Model],
    *,
    max_tokens: int,
    temperature: float,
    sampling_seed: int | None,
    spec: GameSpec | None,
) -> JSON:
    """What the run plays with beside its contract: the reply limit (and, when the contract
    capped the spec's for this model, what was asked), the temperature, each decision
    kind's model, the sampling seed, the reasoning cap in force and the contract's
    settings."""
    config = contract.config_dict()
    params: JSON = {
        "max_tokens": max_tokens,
        "temperature": temperature,
        "models": {kind: tier.id for kind, tier in tiers.items()},
        "sampling_seed": sampling_seed,
        **reasoning_in_force(config, model),
        **contract_settings(contract),
    }
    if spec is not None and max_tokens != spec.max_tokens:
        params["max_tokens_cap"] = {
            "asked": spec.max_tokens,
            "capped_to": max_tokens,
            "context_window": model.context_window,
        }
    return params


def started_run(
    env: Env,
    contract: Contract,
    model: Model,
    tiers: Mapping[str, Model],
    *,
    env_id: str,
    seed: int,
    max_tokens: int,
    temperature: float,
    sampling_seed: int | None,
    spec: GameSpec | None = None,
    tag: str = "",
    experiment: str = "",
    cell: str = "",
) -> RunRecord:
    """The row of a run about to start (see the module's docstring); `spec` None: a game
    played from built objects, which has no identity."""
    run = RunRecord(
        run_id=uuid.uuid4().hex,
        env_id=env_id,
        env_version=str(env.version),
        contract=contract.name,
        model=model.id,
        model_params=model_params(
            contract,
            model,
            tiers,
            max_tokens=max_tokens,
            temperature=temperature,
            sampling_seed=sampling_seed,
            spec=spec,
        ),
        seed=seed,
        tag=tag,
        experiment=experiment,
        cell=cell,
        started_at=time.time(),
        package_version=package_version(),
        code_revision=code_revision(),
        spec=spec.model_dump(mode="json") if spec is not None else {},
        inputs=game_inputs(env, contract) if spec is not None else {},
    )
    configure(run, contract, spec)
    return run


def configure(run: RunRecord, contract: Contract, spec: GameSpec | None) -> None:
    """Write the contract's configuration on the run and what follows from it: its hash,
    and for a game of a spec the inputs' copy of that hash and the game's identity (the
    inputs' other entries, the environment's version and the stores as built, stay)."""
    config = contract.config_dict()
    run.contract_config = config
    run.contract_config_hash = stable_hash(config)
    if spec is not None:
        run.inputs = {**run.inputs, "contract_config_hash": run.contract_config_hash}
        run.identity = identity_hash(spec, run.inputs)


DECISION_LIMIT = "decision-limit"
"""`ended_by` of a game the runner cut at its `max_decisions` while the game still ran."""


def outcome_dict(env: Env, outcome: Outcome, tally: ActionTally, cut: bool = False) -> JSON:
    """A run's archived outcome: the environment's metrics, the runner's count of the
    actions given and of the effective ones (`bounded.runner.tally`), and its `Outcome`
    verdict; a game `cut` at the decision limit that its environment still calls running
    ended by `DECISION_LIMIT`."""
    verdict = outcome.model_dump(include={"victory", "score", "progress"})
    found = {**env.metrics(), **tally.outcome(), **verdict}
    if cut and found.get("ended_by", "running") in ("", "running"):
        found["ended_by"] = DECISION_LIMIT
    return found


__all__ = [
    "DECISION_LIMIT",
    "code_revision",
    "configure",
    "contract_settings",
    "outcome_dict",
    "package_version",
    "reasoning_in_force",
    "started_run",
]
