"""The episode loop: observe, assemble, complete, parse, step, commit, record.

A contract may answer some decisions without a model call by implementing
`propose(obs) -> Decision | None` (e.g. replaying a retrieved action); a contract that
makes model calls of its own (a summary, a strategy description) lists their
`Completion`s in `decision.extra["completions"]` so that their tokens are counted.
"""

from __future__ import annotations

import time
import traceback
import uuid
from collections.abc import Callable
from typing import Any

from bounded.core import (
    JSON,
    Action,
    Completion,
    Contract,
    Decision,
    DecisionRecord,
    Env,
    IllegalActionError,
    Model,
    Observation,
    Prompt,
    RunRecord,
    StepResult,
    stable_hash,
)

MAX_CONSECUTIVE_MODEL_ERRORS = 3


class ModelUnavailableError(RuntimeError):
    """The model failed several decisions in a row: the run stops as `failed`."""


def package_version() -> str:
    from bounded import __version__

    return __version__


def episode_info(env: Env, env_id: str, seed: int, model: Model) -> JSON:
    """What a contract learns at reset: the task, the suggested state shape, the model."""
    return {
        "env_id": env_id,
        "seed": seed,
        "instructions": getattr(env, "instructions", ""),
        "state_schema": getattr(env, "state_schema", None),
        "initial_state": getattr(env, "initial_state", None),
        "model": model,
    }


def fallback_action(obs: Observation) -> list[Action]:
    """What runs when the model's reply is unusable: the first legal action as listed."""
    return obs.legal[:1]


class EpisodeRunner:
    """Runs one episode and writes it to the archive as it goes."""

    def __init__(
        self,
        env: Env,
        contract: Contract,
        model: Model,
        *,
        seed: int,
        env_id: str,
        tag: str = "",
        archive: Any = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        max_decisions: int = 100_000,
        experiment: str = "",
        cell: str = "",
        model_params: JSON | None = None,
        observer: Callable[[DecisionRecord, Observation], None] | None = None,
    ) -> None:
        self.env, self.contract, self.model = env, contract, model
        self.archive = archive
        self.seed = seed
        self.max_tokens, self.temperature = max_tokens, temperature
        self.max_decisions = max_decisions
        self.trajectory: list[DecisionRecord] = []
        config = contract.config_dict()
        self.run = RunRecord(
            run_id=uuid.uuid4().hex,
            env_id=env_id,
            env_version=str(getattr(env, "version", "0")),
            contract=contract.name,
            contract_config=config,
            contract_config_hash=stable_hash(config),
            model=model.id,
            model_params={"max_tokens": max_tokens, "temperature": temperature}
            | (model_params or {}),
            seed=seed,
            tag=tag,
            experiment=experiment,
            cell=cell,
            started_at=time.time(),
            package_version=package_version(),
        )
        self._model_errors = 0
        self.observer = observer
        """Called after each decision with its record and the next observation (progress)."""

    def execute(self) -> RunRecord:
        started = time.perf_counter()
        self._save_run()
        try:
            obs, _ = self.env.reset(seed=self.seed)
            self.contract.reset(episode_info(self.env, self.run.env_id, self.seed, self.model))
            done = not obs.legal
            while not done and self.run.decisions < self.max_decisions:
                obs, done = self._decide(obs)
            self.contract.postrun(self.trajectory)
            self._count_calls(getattr(self.contract, "postrun_calls", []))
            self.run.postrun = getattr(self.contract, "postrun_record", {})
            self.run.status = "completed"
        except BaseException as exc:
            self.run.status = "failed"
            self.run.error = f"{type(exc).__name__}: {exc}"
            if exc.__cause__ is not None:
                self.run.error += f" ({type(exc.__cause__).__name__})"
            self.run.outcome = {"traceback": traceback.format_exc(limit=5)}
            raise
        finally:
            self.run.wall_s = time.perf_counter() - started
            if self.run.status == "completed":
                self.run.outcome = self.env.metrics()
            self.run.store_hashes = self.contract.store_hashes()
            self._save_run()
        return self.run

    def _decide(self, obs: Observation) -> tuple[Observation, bool]:
        started = time.perf_counter()
        prompt, completion, decision = self._consult(obs)
        actions, fallback = decision.actions, False
        if not actions:
            actions, fallback = fallback_action(obs), True
        try:
            next_obs, reward, terminated, truncated, info = self.env.step(actions)
        except IllegalActionError as exc:
            decision.parse_error = decision.parse_error or f"refused by env: {exc}"
            actions, fallback = fallback_action(obs), True
            next_obs, reward, terminated, truncated, info = self.env.step(actions)
        result = StepResult(reward=reward, terminated=terminated, truncated=truncated, info=info)
        self.contract.commit(obs, decision, result)
        record = self._record(obs, prompt, completion, decision, actions, fallback, result)
        record.latency_s = time.perf_counter() - started
        self._append(record)
        if self.observer is not None:
            self.observer(record, next_obs)
        return next_obs, terminated or truncated or not next_obs.legal

    def _consult(self, obs: Observation) -> tuple[Prompt, Completion | None, Decision]:
        """Ask the contract (and, unless it answers alone, the model) for a decision."""
        propose = getattr(self.contract, "propose", None)
        proposed = propose(obs) if propose else None
        if proposed is not None:
            return Prompt(), None, proposed
        prompt = self.contract.assemble(obs)
        try:
            completion = self.model.complete(
                prompt.messages(),
                constraint=self.contract.reply_schema(obs),
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                seed=self.seed,
            )
        except Exception as exc:
            self._model_errors += 1
            if self._model_errors >= MAX_CONSECUTIVE_MODEL_ERRORS:
                raise ModelUnavailableError(f"model failed {self._model_errors}x: {exc}") from exc
            return prompt, None, Decision(parse_error=f"model error: {type(exc).__name__}: {exc}")
        self._model_errors = 0
        return prompt, completion, self.contract.parse(completion, obs)

    def _record(
        self,
        obs: Observation,
        prompt: Prompt,
        completion: Completion | None,
        decision: Decision,
        actions: list[Action],
        fallback: bool,
        result: StepResult,
    ) -> DecisionRecord:
        by_layer = prompt.tokens_by_layer(self.model.count_tokens)
        prompt_tokens = completion.prompt_tokens if completion else sum(by_layer.values())
        info = dict(result.info)
        info.update({k: v for k, v in decision.extra.items() if k != "completions"})
        return DecisionRecord(
            run_id=self.run.run_id,
            index=len(self.trajectory),
            t=obs.t,
            kind=obs.kind,
            segments=prompt.segments,
            tokens_by_layer=by_layer,
            prompt_tokens=prompt_tokens,
            completion=completion,
            actions=actions,
            reasoning=decision.reasoning,
            state_patch=decision.state_patch,
            parse_error=decision.parse_error,
            fallback=fallback,
            reward=result.reward,
            info=info,
            extra_completions=[
                Completion.model_validate(c) for c in decision.extra.get("completions", [])
            ],
        )

    def _append(self, record: DecisionRecord) -> None:
        self.trajectory.append(record)
        run = self.run
        run.decisions += 1
        own = [record.completion] if record.completion else []
        self._count_calls(own + record.extra_completions)
        if record.completion:
            run.last_prompt_tokens = record.prompt_tokens
        if self.archive is not None:
            self.archive.add_decision(record)
            self._save_run()

    def _count_calls(self, completions: list[Completion]) -> None:
        """Add model calls to the run's totals (a decision's, or the contract's postrun)."""
        run = self.run
        for completion in completions:
            run.model_calls += 1
            run.prompt_tokens += completion.prompt_tokens
            run.completion_tokens += completion.completion_tokens
            run.cached_tokens += completion.cached_tokens

    def _save_run(self) -> None:
        if self.archive is not None:
            self.archive.save_run(self.run)


def run_episode(
    env: Env,
    contract: Contract,
    model: Model,
    *,
    seed: int,
    env_id: str = "",
    tag: str = "",
    archive: Any = None,
    **options: Any,
) -> RunRecord:
    """Play one episode; with an archive, every decision is saved as soon as it is made."""
    env_id = env_id or getattr(getattr(env, "spec", None), "id", None) or type(env).__name__
    runner = EpisodeRunner(
        env, contract, model, seed=seed, env_id=env_id, tag=tag, archive=archive, **options
    )
    return runner.execute()
