"""Counterfactual layer attribution: re-ask archived decisions with one prompt layer
removed (or replaced), and record what the model does then beside what it did.

`plan_attribution` samples the decisions (by run, tag and decision kind; seeded) and
counts the model calls and tokens it would take; `attribute` makes those calls, each
written to the archive as soon as it is answered (a killed attribution continues where it
stopped: rows already there are skipped). The prompt is the archived one, segment for
segment, less the layer; the model is any model spec, built by the project's one builder,
asked under the contract's own reply schema (the schema of the call that decided, for a
contract that asks again within a decision: `counterfactual_schema`) with the run's
generation settings.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from bounded.archive import Archive
from bounded.archive.counterfactuals import (
    Counterfactual,
    Key,
    add_counterfactual,
    counterfactual_prompt,
    done_keys,
)
from bounded.archive.queries import run_values, stream_runs
from bounded.attribution.replay import ReplayedDecision, expert_for, replay, spec_of
from bounded.contracts.replies.policy import (
    fallback_actions,
    idles_for_an_unusable_reply,
    reply_constraint,
)
from bounded.core import (
    JSON,
    Action,
    ConfigError,
    DecisionRecord,
    Observation,
    RunRecord,
    approx_tokens,
    stable_hash,
)
from bounded.protocols import Contract, EpisodeContext, Model
from bounded.registry import did_you_mean
from bounded.runner.build import build_contract, build_env, build_model
from bounded.runner.replies import reply_hints

CONTROL = "(control)"
"""The layer name of a control: the archived prompt asked again unchanged."""


class AttributionSpec(BaseModel):
    """What to attribute: which decisions, which layers, which model."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layers: list[str] = Field(min_length=1)
    """The layers to remove, one at a time (`L3`, `L5`, `state`, ...); `CONTROL` asks the
    prompt unchanged, which measures how often the model answers differently anyway."""
    replacements: dict[str, str] = Field(default_factory=dict)
    """Layer -> text put in its place instead of removing it (e.g. another cell's layer)."""
    runs: list[str] = Field(default_factory=list)
    """Run ids (or unique prefixes); empty: every run with recorded decisions."""
    tag: str | None = None
    """Only runs with this condition tag."""
    kinds: list[str] = Field(default_factory=list)
    """Only decisions of these kinds (`combat`, `map`, ...); empty: all."""
    sample: int | None = Field(default=None, ge=1)
    """Decisions to draw (without replacement, seeded); None: all eligible decisions."""
    seed: int = 0
    """Seed of the sample."""
    model: str | None = None
    """Model spec to ask; None: each run's own (`GameSpec.model`)."""
    base_url: str | None = None
    """Endpoint for `openai:` models; None: the run's."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Reply token limit; None: the run's."""
    temperature: float | None = Field(default=None, ge=0)
    """Sampling temperature; None: the run's."""


def variant_of(replacement: str | None) -> str:
    """`removed`, or `replaced:<12 hex digits of the text's SHA-256>`."""
    if replacement is None:
        return "removed"
    return "replaced:" + hashlib.sha256(replacement.encode()).hexdigest()[:12]


def action_key(actions: Sequence[Action]) -> tuple[str, str] | None:
    """What two decisions are compared on: the first action (a combat plan's first card),
    its id and arguments."""
    if not actions:
        return None
    return (actions[0].id, stable_hash(actions[0].args))


@dataclass(frozen=True)
class Reask:
    """One model call to make: a decision with one layer removed or replaced."""

    run: RunRecord
    record: DecisionRecord
    layer: str
    replacement: str | None
    model: str
    settings: JSON

    @property
    def key(self) -> Key:
        return (
            self.run.run_id,
            self.record.index,
            self.layer,
            variant_of(self.replacement),
            self.model,
            stable_hash(self.settings),
        )

    @property
    def estimated_prompt_tokens(self) -> int:
        layer_tokens = self.record.tokens_by_layer.get(self.layer, 0)
        added = approx_tokens(self.replacement) if self.replacement is not None else 0
        return max(0, self.record.prompt_tokens - layer_tokens) + added


@dataclass
class PlanSize:
    """What a plan asks, counted in one pass over its decisions (`AttributionPlan.size`)."""

    decisions: int = 0
    run_ids: set[str] = field(default_factory=set)
    """The runs with a decision to re-ask."""
    calls: int = 0
    """Every call, done or not."""
    pending: int = 0
    prompt_tokens: int = 0
    """The pending calls' estimated prompt tokens."""
    reply_tokens: int = 0
    """The pending calls' reply tokens at most."""


@dataclass
class AttributionPlan:
    """The calls an attribution makes, before it makes them: a stream, read from the
    archive a chunk of decisions at a time each time it is walked (`tasks`, `pending`),
    so that its memory does not grow with the decisions it covers."""

    archive: Archive
    spec: AttributionSpec
    chosen_runs: list[RunRecord] | None
    """The `--run` runs; None: every run of the tag with recorded decisions (`runs`)."""
    sampled: dict[str, list[int]] | None
    """Run id -> the sampled decision indices (`spec.sample`); None: every eligible
    decision, found as the plan is walked."""
    model_id: str | None = None
    """The id that names every call in place of the runs' models (a model given to
    `attribute`)."""

    def runs(self) -> Iterator[RunRecord]:
        """The plan's runs, in archive order (streamed, unless chosen by `--run`)."""
        if self.chosen_runs is not None:
            return iter(self.chosen_runs)
        return with_decisions(self.archive, self.spec.tag)

    def chosen(self, run: RunRecord) -> Iterator[DecisionRecord]:
        """The run's decisions to re-ask, in order, read a chunk at a time."""
        if self.sampled is None:
            records = self.archive.iter_decisions(run.run_id)
            yield from (record for record in records if eligible(record, self.spec))
            return
        wanted = set(self.sampled.get(run.run_id, ()))
        if not wanted:
            return
        for record in self.archive.iter_decisions(run.run_id):
            if record.index in wanted:
                yield record
            if record.index >= max(wanted):
                return

    def run_tasks(self, run: RunRecord) -> Iterator[Reask]:
        """One run's calls (done or not), in decision order."""
        asked: tuple[str, JSON] | None = None
        for record in self.chosen(run):
            if asked is None:  # the run's settings: only a run with something to ask
                asked = settings_of(run, self.spec)
            model, settings = asked
            present = {segment.layer for segment in record.segments} | {CONTROL}
            for layer in self.spec.layers:
                if layer in present:
                    replacement = self.spec.replacements.get(layer)
                    yield Reask(run, record, layer, replacement, self.model_id or model, settings)

    def tasks(self) -> Iterator[Reask]:
        """Every call (done or not), in run and decision order."""
        for run in self.runs():
            yield from self.run_tasks(run)

    def run_pending(self, run: RunRecord) -> Iterator[Reask]:
        """One run's calls not yet in the archive (its answers read when it is reached)."""
        done: set[Key] | None = None
        for task in self.run_tasks(run):
            if done is None:
                done = done_keys(self.archive, run.run_id)
            if task.key not in done:
                yield task

    def pending(self) -> Iterator[Reask]:
        for run in self.runs():
            yield from self.run_pending(run)

    def size(self) -> PlanSize:
        """The decisions, runs, calls and pending calls' tokens, counted in one pass."""
        size = PlanSize()
        for run in self.runs():
            done: set[Key] | None = None
            index: int | None = None
            for task in self.run_tasks(run):
                if done is None:
                    done = done_keys(self.archive, run.run_id)
                    size.run_ids.add(run.run_id)
                if task.record.index != index:
                    index = task.record.index
                    size.decisions += 1
                size.calls += 1
                if task.key not in done:
                    size.pending += 1
                    size.prompt_tokens += task.estimated_prompt_tokens
                    size.reply_tokens += int(task.settings["max_tokens"])
        return size

    def estimate(self) -> tuple[int, int, int]:
        """(calls left, estimated prompt tokens, reply tokens at most) of what is pending."""
        size = self.size()
        return size.pending, size.prompt_tokens, size.reply_tokens


def settings_of(run: RunRecord, spec: AttributionSpec) -> tuple[str, JSON]:
    """The model spec asked for a run's decisions and its generation settings."""
    game = spec_of(run)
    params = run.model_params
    settings = {
        "max_tokens": spec.max_tokens or int(params.get("max_tokens", game.max_tokens)),
        "temperature": (
            spec.temperature
            if spec.temperature is not None
            else float(params.get("temperature", game.temperature or 0.0))
        ),
        "seed": run.seed,
        "base_url": spec.base_url or game.base_url,
    }
    return spec.model or game.model, settings


def select_runs(archive: Archive, spec: AttributionSpec) -> list[RunRecord] | None:
    """The runs asked for by `--run` ids (each with recorded decisions, of the tag); None
    without `--run`: every run of the tag with recorded decisions, read as the plan is
    walked (`AttributionPlan.runs`). A tag no run has is an error naming those there are."""
    tags = [tag for tag in run_values(archive, "tag") if tag]
    if spec.tag is not None and spec.tag not in tags:
        raise ConfigError(
            f"no runs of tag {spec.tag!r} in {archive.path}{did_you_mean(spec.tag, tags)} "
            f"(tags there: {', '.join(tags) or 'none'})"
        )
    if not spec.runs:
        return None
    chosen = []
    for wanted in spec.runs:
        matches = list(islice(with_decisions(archive, spec.tag, wanted), 2))
        if len(matches) != 1:
            what = "no run" if not matches else "several runs"
            raise ConfigError(f"--run {wanted}: {what} with recorded decisions match")
        chosen.append(matches[0])
    return chosen


def with_decisions(archive: Archive, tag: str | None, id_prefix: str = "") -> Iterator[RunRecord]:
    """The runs (of the tag, whose id starts with `id_prefix`) with recorded decisions,
    streamed."""
    return (run for run in stream_runs(archive, tag=tag, id_prefix=id_prefix) if run.decisions)


def eligible(record: DecisionRecord, spec: AttributionSpec) -> bool:
    """A decision the model made (it has a prompt and a reply), of a wanted kind, whose
    prompt holds at least one of the layers."""
    if not record.segments or record.completion is None:
        return False
    if spec.kinds and record.kind not in spec.kinds:
        return False
    if CONTROL in spec.layers:
        return True
    return any(segment.layer in spec.layers for segment in record.segments)


def draw(pool: int, spec: AttributionSpec) -> list[int] | None:
    """The seeded sample's positions among the `pool` eligible decisions in archive order,
    ascending (None: all of them)."""
    if spec.sample is None or spec.sample >= pool:
        return None
    rng = np.random.default_rng(spec.seed)
    return sorted(rng.choice(pool, size=spec.sample, replace=False).tolist())


def eligible_decisions(
    archive: Archive, runs: Callable[[], Iterator[RunRecord]], spec: AttributionSpec
) -> Iterator[tuple[str, int]]:
    """(run id, index) of every eligible decision, in archive order, a chunk at a time."""
    for run in runs():
        for record in archive.iter_decisions(run.run_id):
            if eligible(record, spec):
                yield run.run_id, record.index


def sample_of(
    archive: Archive, runs: Callable[[], Iterator[RunRecord]], spec: AttributionSpec
) -> dict[str, list[int]] | None:
    """Run id -> the sampled indices: the eligible decisions counted, the sample's positions
    drawn, then those positions taken (what is held: the sample, never the pool)."""
    if spec.sample is None:
        return None
    pool = sum(1 for _ in eligible_decisions(archive, runs, spec))
    positions = draw(pool, spec)
    chosen = eligible_decisions(archive, runs, spec)
    if positions is not None:
        wanted = set(positions)
        chosen = (pair for position, pair in enumerate(chosen) if position in wanted)
    sampled: dict[str, list[int]] = {}
    for run_id, index in chosen:
        sampled.setdefault(run_id, []).append(index)
    return sampled


class StoredDecisions:
    """A run's archived decisions without their prompts, read a chunk at a time each time
    they are iterated (what a replay walks)."""

    def __init__(self, archive: Archive, run_id: str) -> None:
        self.archive, self.run_id = archive, run_id

    def __iter__(self) -> Iterator[DecisionRecord]:
        return self.archive.iter_decisions(self.run_id, with_segments=False)


def plan_attribution(archive: Archive, spec: AttributionSpec) -> AttributionPlan:
    """Select the runs and draw the sample (nothing is asked yet). Without a sample the
    plan holds neither runs nor decisions (it reads them as it is walked); with one, the
    sampled indices."""
    unknown = sorted(set(spec.replacements) - set(spec.layers))
    if unknown:
        raise ConfigError(f"replacement for {', '.join(unknown)}, which is not a layer asked for")
    plan = AttributionPlan(archive, spec, select_runs(archive, spec), None)
    plan.sampled = sample_of(archive, plan.runs, spec)
    return plan


Progress = Callable[[Reask, Counterfactual], None]


def attribute(
    archive: Archive,
    plan: AttributionPlan,
    *,
    model: Model | None = None,
    max_calls: int | None = None,
    progress: Progress | None = None,
) -> int:
    """Make the plan's pending calls (at most `max_calls`), each written as it is answered;
    returns how many were made. Runs that cannot be replayed raise `ReplayError` before
    any call is made for them. A `model` given is used for every call as it is, and its
    rows are named by its id. The plan is walked a run at a time: one run's pending calls
    are held while its game is replayed."""
    made = 0
    if model is not None:
        plan.model_id = model.id
    for run in plan.runs():
        if max_calls is not None and made >= max_calls:
            break
        tasks = list(plan.run_pending(run))
        if not tasks:
            continue
        expert_for(run)  # refuse an environment without replay before building anything
        states = replay(run, StoredDecisions(archive, run.run_id), {t.record.index for t in tasks})
        asker = Asker(run, model)
        for task in tasks:
            if max_calls is not None and made >= max_calls:
                break
            row = asker.ask(task, states[task.record.index])
            add_counterfactual(archive, row)
            made += 1
            if progress is not None:
                progress(task, row)
    return made


class Asker:
    """Asks one run's counterfactuals: its contract (for the reply schema and parsing) and
    the model, built once."""

    def __init__(self, run: RunRecord, model: Model | None) -> None:
        self.run = run
        game = spec_of(run)
        self.contract: Contract = build_contract(game)
        played = run.model_params.get("reply", {}).get("mode")
        if played:  # the mode the run played (a refused format may have moved it)
            self.contract.replies.use_reply_mode(played)
        _, env = build_env(game)
        self.default = env.default_action()
        self.empty_action = env.empty_action
        try:
            self.contract.reset(
                EpisodeContext(
                    env_id=run.env_id,
                    seed=run.seed,
                    instructions=env.instructions,
                    state_schema=env.state_schema,
                    initial_state=env.initial_state,
                    knowledge=env.game_knowledge(),
                    run_id=run.run_id,
                    empty_action=env.empty_action,  # as the run's (`episode_context`)
                )
            )
        finally:
            env.close()
        self._given = model
        self._built: dict[tuple[str, str | None], Model] = {}

    def model_for(self, task: Reask) -> Model:
        if self._given is not None:
            return self._given
        base_url = task.settings.get("base_url")
        key = (task.model, base_url)
        if key not in self._built:
            game = spec_of(self.run).model_copy(update={"model": task.model, "base_url": base_url})
            self._built[key] = build_model(game)
        return self._built[key]

    def schema_for(self, obs: Observation, record: DecisionRecord) -> JSON:
        """The schema the archived decision's deciding call was answered under: the
        contract's `counterfactual_schema(obs, segments)` (its reply schema, unless it asks
        again within a decision under another schema)."""
        return self.contract.replies.counterfactual_schema(obs, record.segments)

    def ask(self, task: Reask, state: ReplayedDecision) -> Counterfactual:
        obs = state.obs
        prompt = counterfactual_prompt(task.record.segments, task.layer, task.replacement)
        model = self.model_for(task)
        completion = model.complete(
            prompt.messages(),
            constraint=reply_constraint(
                self.contract.replies.reply_mode, lambda: self.schema_for(obs, task.record)
            ),
            max_tokens=int(task.settings["max_tokens"]),
            temperature=float(task.settings["temperature"]),
            seed=int(task.settings["seed"]),
            **reply_hints(self.contract, obs, model, lambda: self.schema_for(obs, task.record)),
        )
        decision = self.contract.parse(completion, obs)
        actions = decision.actions
        fallback = idles_for_an_unusable_reply(decision, self.empty_action)  # as the runner
        if not actions:
            policy = self.contract.replies.fallback_policy()
            actions, fallback = fallback_actions(obs, policy, self.default), True
        original = task.record.actions
        expert = action_key(state.expert_actions)
        return Counterfactual(
            run_id=self.run.run_id,
            index=task.record.index,
            layer=task.layer,
            variant=variant_of(task.replacement),
            model=task.model,
            settings_hash=stable_hash(task.settings),
            settings={**task.settings, "model_id": model.id},
            replacement=task.replacement,
            kind=task.record.kind,
            original_actions=original,
            actions=actions,
            fallback=fallback,
            parse_error=decision.parse_error,
            completion=completion,
            expert_actions=state.expert_actions,
            changed=action_key(actions) != action_key(original),
            original_agrees=action_key(original) == expert,
            counterfactual_agrees=action_key(actions) == expert,
        )


__all__ = [
    "CONTROL",
    "AttributionPlan",
    "AttributionSpec",
    "PlanSize",
    "Reask",
    "action_key",
    "attribute",
    "plan_attribution",
    "variant_of",
]
