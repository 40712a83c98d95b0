"""The episode loop: observe, propose or assemble, complete, parse, step, commit, record.

Every hook called here is declared on `bounded.protocols.Contract` (`ContractBase` gives the
optional ones their defaults). A contract may answer a decision without a model call
through `propose(obs)` (a replayed or queued action). Every model call, the decision's
own and those a contract makes itself through `EpisodeContext.model` (summaries,
strategy descriptions, postrun learning), goes through one `MeteredModel`: calls made
during a decision are archived on its record (`extra_completions` for the contract's),
calls made by postrun with the run, and all are counted in the run's totals. A run row
counts only what the archive stores: a decision's counts are written in its own
transaction, and a run closed outside the normal path (a signal, an error) or resumed has
its totals recomputed from the stored decisions (`bounded.archive.totals`).

Model failures: a failed call becomes a fallback decision recorded with its error;
`MAX_CONSECUTIVE_MODEL_ERRORS` failed decisions in a row, a run whose models never
answered at all, and a run past a model's budget of model time (`run_deadline_s`, which an
`openai:` model takes from its retry policy) end the run `failed`, so it never counts as a
game.

The run's row as it starts (its settings, inputs and identity) is made once per runner
by `bounded.runner.record.started_run`. A run's rows go to one `GameSink`
(`bounded.archive.sink`; an `Archive` given is written through its `ArchiveSink`): its
start, then each decision with the run row that counts it and a checkpoint (the owner
process, the contract's `memory_snapshot()`, the runner's counters:
`bounded.archive.progress`), then its end; `execute(resume=...)` continues such a run
after a kill by replaying the recorded actions from the seed and restoring the snapshot
(`bounded.runner.resume`).
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Literal

from bounded.archive.progress import Checkpoint, this_owner
from bounded.archive.sink import ArchiveSink, GameSink, sink_for
from bounded.archive.sqlite import Archive
from bounded.archive.totals import (
    count_calls,
    metered,
    recounted,
    stored_decision,
    token_mismatch,
)
from bounded.contracts.base import as_contract
from bounded.contracts.expert import EnvReader
from bounded.contracts.replies.policy import (
    fallback_actions,
    idles_for_an_unusable_reply,
    reply_constraint,
)
from bounded.core import (
    DEFAULT_MAX_TOKENS,
    JSON,
    Action,
    Completion,
    Decision,
    DecisionRecord,
    IllegalActionError,
    Observation,
    Prompt,
    ResponseFormatRefused,
    RunRecord,
    StepResult,
)
from bounded.envs import canonical_env_id
from bounded.protocols import Contract, Env, EpisodeContext, Model
from bounded.runner.meter import ClockedModel, ModelUnavailableError, PromptCounter
from bounded.runner.record import configure, outcome_dict, started_run
from bounded.runner.replies import ReplyLedger, no_mode_left, reply_hints
from bounded.runner.resumption import ResumeError, Resumption, check_inputs, check_stores
from bounded.runner.spec import GameSpec
from bounded.runner.tally import ActionTally
from bounded.runner.trajectory import KEPT_DECISIONS, Trajectory

MAX_CONSECUTIVE_MODEL_ERRORS = 3
TOKEN_CHECK_CALLS = 3
"""Model calls a run makes before its reported and counted tokens are compared (one call's
counts are too few to judge a server by)."""

LOG = logging.getLogger("bounded")


def episode_context(env: Env, env_id: str, seed: int, model: Model, run_id: str) -> EpisodeContext:
    """What a contract learns at reset: the task, the suggested state shape, the model, the
    game's knowledge."""
    return EpisodeContext(
        env_id=env_id,
        seed=seed,
        instructions=env.instructions,
        state_schema=env.state_schema,
        initial_state=env.initial_state,
        model=model,
        knowledge=env.game_knowledge(),
        run_id=run_id,
        empty_action=env.empty_action,
        presentation=env.presentation,
    )


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
        archive: Archive | GameSink | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        max_decisions: int = 100_000,
        models: Mapping[str, Model] | None = None,
        experiment: str = "",
        cell: str = "",
        spec: GameSpec | None = None,
        observer: Callable[[DecisionRecord, Observation], None] | None = None,
        keep_decisions: int | Literal["auto"] | None = "auto",
    ) -> None:
        contract = as_contract(contract)  # a clear error for a contract missing a member
        self.env, self.contract = env, contract
        self._default = env.default_action()
        meters = {id(model): ClockedModel(model)}  # one meter and one clock per model object
        for tier in (models or {}).values():
            if id(tier) not in meters:
                meters[id(tier)] = ClockedModel(tier)
        self.model = meters[id(model)]
        self.tiers = {kind: meters[id(tier)] for kind, tier in (models or {}).items()}
        """The model of each decision kind that has its own; the others use `model`."""
        self._meters = list(meters.values())
        self._prompt_tokens = PromptCounter(self.model.count_tokens)
        self.sink = sink_for(archive)
        """Where the run's rows go as it is played (None: nowhere)."""
        self.seed = seed
        self.sampling_seed = seed if contract.setup.sends_game_seed else None
        """The `seed` each model request carries (`SetupHooks.sends_game_seed`)."""
        self.max_tokens, self.temperature = max_tokens, temperature
        self.max_decisions = max_decisions
        reader = self._archived if isinstance(self.sink, ArchiveSink) else None
        if keep_decisions == "auto":  # what cannot be read back is kept
            keep_decisions = KEPT_DECISIONS if reader is not None else None
        self.trajectory = Trajectory(keep_decisions, reader)
        """The run's decisions: the latest `keep_decisions` records in memory (None: all;
        `auto`: the latest `KEPT_DECISIONS` where the run is played into an archive to read
        the older ones back from, else all), older ones read back from the archive
        (`bounded.runner.trajectory`)."""
        self._token_warned = False
        self.tally = ActionTally(env.empty_action)
        self.spec = spec
        """The game's spec (None: a game played from built objects, which has no identity)."""
        self.run = started_run(
            env, contract, model, self.tiers, env_id=env_id, seed=seed, max_tokens=max_tokens,
            temperature=temperature, sampling_seed=self.sampling_seed, spec=spec, tag=tag,
            experiment=experiment, cell=cell,
        )  # fmt: skip
        mode = contract.replies.reply_mode
        self.replies = ReplyLedger(asked=mode, mode=mode)
        """The run's reply mode and how its replies came back (`model_params["reply"]`)."""
        self.run.model_params["reply"] = self.replies.record()
        self._model_errors = 0
        self._owner = this_owner()
        self.observer = observer
        """Called after each decision with its record and the next observation (progress)."""

    def execute(self, resume: Resumption | None = None) -> RunRecord:
        """Play the episode; with `resume`, continue an archived run from its checkpoint
        (the environment replayed from the seed, the contract's memory restored)."""
        started = time.perf_counter()
        earlier_s = 0.0
        if resume is not None:
            check_inputs(resume.run, self.run.inputs)
            earlier_s = resume.run.wall_s
            self.run = recounted(
                resume.run.model_copy(update={"status": "running", "error": None}),
                map(stored_decision, resume.decisions),
            )
        self._save_start(resume)
        try:
            obs, _ = self.env.reset(seed=self.seed)
            context = episode_context(
                self.env, self.run.env_id, self.seed, self.model, self.run.run_id
            )
            if isinstance(self.contract, EnvReader):
                self.contract.read_env(self.env)
            self.contract.reset(context)
            done = not obs.legal
            if resume is not None:
                obs, done = self._replay(resume, obs, done)
            while not done and self.run.decisions < self.max_decisions:
                obs, done = self._decide(obs)
            cut = not done
            self._check_reached()
            self.contract.postrun(self.trajectory, self.env.outcome())
            self._close_postrun(self._drain())
            self.run.status = "completed"
        except BaseException as exc:
            self.run.status = "failed"
            self.run.error = f"{type(exc).__name__}: {exc}"
            if exc.__cause__ is not None:
                self.run.error += f" ({type(exc.__cause__).__name__})"
            self.run.outcome = {"traceback": traceback.format_exc(limit=5)}
            raise
        finally:
            self.run.wall_s = earlier_s + time.perf_counter() - started
            if self.run.status == "completed":
                self.run.outcome = outcome_dict(self.env, self.env.outcome(), self.tally, cut)
            self.run.store_hashes = self.contract.memory.store_hashes()
            self._save_end()
        return self.run

    def _close_postrun(self, calls: list[Completion]) -> None:
        """Count the postrun's calls and keep, beside its record, what each cost (so the
        run's totals can be recomputed from the archive)."""
        count_calls(self.run, calls)
        self.run.postrun = self.contract.memory.postrun_record
        if calls:
            self.run.postrun = {**self.run.postrun, "metered": metered(calls)}

    def _replay(self, resume: Resumption, obs: Observation, done: bool) -> tuple[Observation, bool]:
        """Step the environment through the recorded actions, checking that it shows each
        recorded decision what it showed then, and put the contract and counters back."""
        for record in resume.decisions:
            if done or (obs.t, obs.kind) != (record.t, record.kind):
                raise ResumeError(
                    f"replay diverged at decision {record.index}: the environment shows "
                    f"t={obs.t:g} {obs.kind!r}, the run recorded t={record.t:g} {record.kind!r}"
                )
            obs, _, terminated, truncated, _ = self.env.step(record.actions)
            done = terminated or truncated or not obs.legal
        for record in resume.decisions:
            self.trajectory.append(record)
            self.tally.add(record.actions, record.fallback)
        point = resume.checkpoint
        if point.decisions:
            if point.memory is None:
                raise ResumeError(
                    f"contract {self.contract.name!r} saved no memory snapshot (it has no "
                    "memory_snapshot hook)"
                )
            self.contract.memory.restore_memory(point.memory)
            check_stores(point, self.contract.memory.store_hashes())
        self._restore_counters(point.runner)
        return obs, done

    def _counters(self) -> JSON:
        meters = [[m.answered, m.failed, m.spent_s, m.last_error] for m in self._meters]
        return {"model_errors": self._model_errors, "meters": meters}

    def _restore_counters(self, counters: JSON) -> None:
        self._model_errors = int(counters.get("model_errors", 0))
        for meter, saved in zip(self._meters, counters.get("meters", []), strict=False):
            meter.answered, meter.failed, meter.spent_s, meter.last_error = saved

    def checkpoint(self) -> Checkpoint:
        """Where the run stands after its latest decision, for a resume (a contract whose
        `memory_snapshot()` gives none saves none)."""
        return Checkpoint(
            run_id=self.run.run_id,
            owner=self._owner,
            decisions=self.run.decisions,
            memory=self.contract.memory.memory_snapshot(),
            runner=self._counters(),
            store_hashes=self.contract.memory.store_hashes(),
            logs=self.contract.memory.memory_logs(),
        )

    def _decide(self, obs: Observation) -> tuple[Observation, bool]:
        started = time.perf_counter()
        prompt, completion, decision = self._consult(obs)
        actions = decision.actions
        fallback = idles_for_an_unusable_reply(decision, self.env.empty_action)
        if not actions:
            policy = self.contract.replies.fallback_policy()
            actions, fallback = fallback_actions(obs, policy, self._default), True
        try:
            next_obs, reward, terminated, truncated, info = self.env.step(actions)
        except IllegalActionError as exc:
            decision.parse_error = decision.parse_error or f"refused by env: {exc}"
            actions, fallback = fallback_actions(obs, "game-default", self._default), True
            next_obs, reward, terminated, truncated, info = self.env.step(actions)
        if fallback:  # what ran instead, for a contract that says so in its next prompt
            decision.extra["fallback_action"] = actions[0].id if actions else ""
        result = StepResult(reward=reward, terminated=terminated, truncated=truncated, info=info)
        self.contract.commit(obs, decision, result)
        extra = [call for call in self._drain() if call is not completion]
        record = self._record(obs, prompt, completion, decision, actions, fallback, result, extra)
        record.model = self.model_for(obs).id if prompt.segments else ""
        record.latency_s = time.perf_counter() - started
        self._append(record)
        if self.observer is not None:
            self.observer(record, next_obs)
        return next_obs, terminated or truncated or not next_obs.legal

    def _consult(self, obs: Observation) -> tuple[Prompt, Completion | None, Decision]:
        """Ask the contract (and, unless it answers alone, the model) for a decision."""
        proposed = self.contract.propose(obs)
        if proposed is not None:
            return Prompt(), None, proposed
        while True:
            prompt = self.contract.assemble(obs)
            constraint = reply_constraint(
                self.contract.replies.reply_mode, lambda: self.contract.reply_schema(obs)
            )
            try:
                completion = self._ask(obs, prompt, constraint)
            except ResponseFormatRefused as exc:
                self._refused(exc)
                continue
            except ModelUnavailableError:  # past the run's deadline: not a fallback
                raise
            except Exception as exc:
                self._model_errors += 1
                if self._model_errors >= MAX_CONSECUTIVE_MODEL_ERRORS:
                    raise ModelUnavailableError(
                        f"model failed {self._model_errors}x: {exc}"
                    ) from exc
                error = f"model error: {type(exc).__name__}: {exc}"
                return prompt, None, Decision(parse_error=error)
            break
        self._model_errors = 0
        decision = self.contract.parse(completion, obs)
        sent = getattr(self.model_for(obs).inner, "last_response_format", None)
        self.replies.read(completion, constraint, sent, decision)
        self.run.model_params["reply"] = self.replies.record()
        return prompt, completion, decision

    def _ask(self, obs: Observation, prompt: Prompt, constraint: JSON | None) -> Completion:
        model = self.model_for(obs)
        return model.complete(
            prompt.messages(),
            constraint=constraint,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            seed=self.sampling_seed,
            **reply_hints(self.contract, obs, model.inner),
        )

    def _refused(self, exc: ResponseFormatRefused) -> None:
        """The endpoint refused the reply mode's response format. Before any reply was read,
        the run moves to the contract's next allowed mode (its identity follows: the mode is
        in the contract's configuration), or stops; after, the refusal is a model error."""
        allowed = self.contract.replies.reply_modes()
        if self.replies.replies or self.trajectory:
            raise ModelUnavailableError(f"the endpoint stopped taking its format: {exc}") from exc
        later = allowed[allowed.index(self.contract.replies.reply_mode) + 1 :]
        self.replies.refuse(str(exc), later[0] if later else None)
        if not later:
            raise no_mode_left(self.replies.refused, allowed) from exc
        self.contract.replies.use_reply_mode(later[0])
        configure(self.run, self.contract, self.spec)
        self.run.model_params["reply"] = self.replies.record()
        LOG.warning("%s; playing in %r mode (reply_fallback)", exc, later[0])

    def _archived(self, start: int, end: int) -> list[DecisionRecord]:
        """The run's archived decisions with an index in [start, end)."""
        assert isinstance(self.sink, ArchiveSink)
        return self.sink.archive.decisions(self.run.run_id, start=start, end=end)

    def model_for(self, obs: Observation) -> ClockedModel:
        """The model that makes decisions of this kind."""
        return self.tiers.get(obs.kind, self.model)

    def _drain(self) -> list[Completion]:
        """Every call any model made since the last drain."""
        return [call for meter in self._meters for call in meter.drain()]

    def _check_reached(self) -> None:
        """A run whose models failed every call they were asked never played: it fails (before
        postrun learns from it) instead of counting as a game of fallbacks."""
        failed = sum(meter.failed for meter in self._meters)
        if not failed or any(meter.answered for meter in self._meters):
            return
        last = next(meter.last_error for meter in self._meters if meter.last_error)
        plural = "" if failed == 1 else "s"
        raise ModelUnavailableError(
            f"the model never answered: {failed} call{plural} failed (last: {last})"
        )

    def _record(
        self,
        obs: Observation,
        prompt: Prompt,
        completion: Completion | None,
        decision: Decision,
        actions: list[Action],
        fallback: bool,
        result: StepResult,
        extra_completions: list[Completion],
    ) -> DecisionRecord:
        by_layer = self._prompt_tokens.by_layer(prompt)
        prompt_tokens = completion.prompt_tokens if completion else sum(by_layer.values())
        info = {k: v for k, v in result.info.items() if k != "action_mask"}  # = obs.legal
        info.update(decision.extra)
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
            extra_completions=extra_completions,
        )

    def _append(self, record: DecisionRecord) -> None:
        self.trajectory.append(record)
        self.tally.add(record.actions, record.fallback)
        run = self.run
        run.decisions += 1
        own = [record.completion] if record.completion else []
        count_calls(run, own + record.extra_completions)
        self._warn_token_mismatch()
        if record.completion:
            run.last_prompt_tokens = record.prompt_tokens
        if self.sink is not None:
            self.sink.decision(record, self.run, self.checkpoint())

    def _warn_token_mismatch(self) -> None:
        """Warn once per run when a server's reported tokens stray from the counted ones
        (a server that misreports usage would corrupt a cost table silently)."""
        if self._token_warned or self.run.model_calls < TOKEN_CHECK_CALLS:
            return
        mismatch = token_mismatch(self.run)
        if mismatch is not None:
            self._token_warned = True
            LOG.warning("run %s: %s", self.run.run_id[:12], mismatch)

    def _save_start(self, resume: Resumption | None) -> None:
        """The run row as it starts, with this process as the checkpoint's owner (the
        resumed checkpoint, or an empty one)."""
        if self.sink is None:
            return
        point = resume.checkpoint if resume is not None else None
        if point is None:
            point = Checkpoint(run_id=self.run.run_id, owner="", decisions=0, memory=None)
        self.sink.start(self.run, replace(point, owner=self._owner))

    def _save_end(self) -> None:
        if self.sink is not None:
            self.run = self.sink.end(self.run)


def run_episode(
    env: Env,
    contract: Contract,
    model: Model,
    *,
    seed: int,
    env_id: str = "",
    tag: str = "",
    archive: Archive | GameSink | None = None,
    **options: Any,
) -> RunRecord:
    """Play one episode; with an archive (or a sink), every decision is saved as soon as it
    is made."""
    registered = env.spec.id if env.spec is not None else None  # set by gymnasium.make
    env_id = canonical_env_id(env_id or registered or type(env).__name__)
    runner = EpisodeRunner(
        env, contract, model, seed=seed, env_id=env_id, tag=tag, archive=archive, **options
    )
    return runner.execute()
