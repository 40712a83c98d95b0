"""The context audit: what each decision's prompt cost, layer by layer, against the
decision index, and what the same decisions would have cost with a transcript.

The transcript counterfactual of decision i is decision 0's whole prompt, plus, for every
later decision j <= i, its observation (the layers that show the current decision) and
the previous reply: the prompt an accumulating chat transcript of the same game would
have sent. For a `transcript` run it tracks the actual prompt; for a bounded contract
the gap between the two is what the contract saves.

Under prefix caching (`bounded.analysis.cost`): a decision's cached prompt tokens are
measured, as its model reported them (llama.cpp's reused prefix, a provider's cached
tokens; 0 for a model without a cache); the transcript counterfactual's are computed as
its provider would cache it, the whole previous prompt (a transcript's previous prompt
is a prefix of the next). Fresh tokens are prompt - cached + completion; cost prices
each at the run's model's prices; cached tokens are attributed to layers in prompt order.

One token truth: the audit reads the tokens bounded counted (each layer's, as assembled),
for the actual prompts as for the counterfactual, so the two compare like with like; what
the server reported stands beside them (`reported_prompt`), and a run whose reported tokens
stray from the counted ones by more than `bounded.archive.totals.TOKEN_GAP` carries the
line that says so (`tokens_flag`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from typing import NamedTuple, Protocol

from bounded.analysis.audit_models import AuditPoint, ContextAudit, ContractAudit, RunAudit
from bounded.analysis.audit_sums import CostSums, LineSums, PromptSums, add_cost, add_counts
from bounded.analysis.cost import CostModel, Prices, cached_by_layer
from bounded.archive import Archive
from bounded.archive.queries import prompt_segments
from bounded.archive.sqlite import DECISIONS_PER_READ
from bounded.archive.totals import token_mismatch
from bounded.core import DecisionRecord, RunRecord, approx_tokens, invalid_count

OBSERVATION_LAYERS = ("observation", "L2", "combat")
"""Layers that show the decision at hand; what a transcript would append each step."""


def observation_tokens(record: DecisionRecord) -> int:
    return sum(record.tokens_by_layer.get(layer, 0) for layer in OBSERVATION_LAYERS)


def reply_tokens(record: DecisionRecord) -> int:
    return record.completion.completion_tokens if record.completion else 0


def counterfactual(decisions: Sequence[DecisionRecord]) -> list[int]:
    """Prompt tokens of each decision under an accumulating transcript."""
    totals: list[int] = []
    for i, record in enumerate(decisions):
        if i == 0:
            totals.append(sum(record.tokens_by_layer.values()))
        else:
            step = observation_tokens(record) + reply_tokens(decisions[i - 1])
            totals.append(totals[-1] + step)
    return totals


def segment_tokens(record: DecisionRecord) -> list[tuple[str, int]]:
    """(layer, tokens) per segment in prompt order: each layer's recorded tokens shared
    among its segments by their length (a decision loaded without segments: its layers
    in recorded order)."""
    if not record.segments:
        return list(record.tokens_by_layer.items())
    weights = [(s.layer, max(1, approx_tokens(s.text))) for s in record.segments]
    per_layer: dict[str, int] = {}
    for layer, weight in weights:
        per_layer[layer] = per_layer.get(layer, 0) + weight
    return [
        (layer, round(record.tokens_by_layer.get(layer, 0) * weight / per_layer[layer]))
        for layer, weight in weights
    ]


class _Call(NamedTuple):
    """What the audit reads of one decision's call, before it is a point (if ever)."""

    cached: int
    output: int
    by_layer_cached: dict[str, int]
    cost: float | None
    shadow_cost: float | None
    latency_s: float


class _Pricing(Protocol):
    def cost(self, model: str, prompt: int, cached: int, completion: int) -> float | None: ...


class _KnownPrices:
    """`CostModel.cost` with each model's prices looked up once (a run's decisions ask
    for the same few models' again and again)."""

    def __init__(self, costs: CostModel) -> None:
        self.costs = costs
        self.known: dict[str, Prices | None] = {}

    def cost(self, model: str, prompt: int, cached: int, completion: int) -> float | None:
        if model not in self.known:
            self.known[model] = self.costs.prices(model)
        prices = self.known[model]
        return None if prices is None else prices.cost(prompt, cached, completion)


class _RunFold:
    """One run's audit gathered a decision at a time (`audit_run`): running sums
    (`bounded.analysis.audit_sums`), the previous decision's reply tokens, and the points
    only where they are kept; never a decision."""

    def __init__(self, run: RunRecord, costs: CostModel, keep_points: bool) -> None:
        self.costs = costs
        self.pricing = _KnownPrices(costs)
        self.prices = costs.prices(run.model)
        self.points: list[AuditPoint] | None = [] if keep_points else None
        self.layers: dict[str, None] = {}
        self.prompts = PromptSums()
        self.calls = CostSums()
        self.previous_reply: int | None = None
        self.invalid_actions = self.fallbacks = self.parse_errors = self.reported = 0

    def add(self, record: DecisionRecord) -> None:
        prompt = sum(record.tokens_by_layer.values()) or record.prompt_tokens
        shadow_before = self.prompts.shadow_last
        if self.previous_reply is None:
            shadow = sum(record.tokens_by_layer.values())
        else:
            shadow = shadow_before + observation_tokens(record) + self.previous_reply
        self.layers.update(dict.fromkeys(record.tokens_by_layer))
        call = call_of(record, prompt, shadow, shadow_before, self.pricing)
        self.prompts.add(record.index, prompt, record.tokens_by_layer, shadow)
        self.calls.add_call(call.cached, call.output, call.cost, call.shadow_cost, call.latency_s)
        if self.prices is not None:
            for layer, tokens in record.tokens_by_layer.items():
                cached = min(tokens, call.by_layer_cached.get(layer, 0))
                self.calls.add_layer(layer, tokens, cached, self.prices.cost(tokens, cached, 0))
        if self.points is not None:
            self.points.append(point_of(record, prompt, shadow, call))
        self.invalid_actions += invalid_count(record.info)
        self.fallbacks += record.fallback
        self.parse_errors += record.parse_error is not None
        completion = record.completion
        if completion and not completion.usage_estimated:
            self.reported += completion.prompt_tokens
        self.previous_reply = reply_tokens(record)

    def audit(self, run: RunRecord) -> RunAudit:
        prompts, calls = self.prompts, self.calls
        audit = RunAudit(
            run_id=run.run_id,
            contract=run.contract,
            tag=run.tag,
            env_id=run.env_id,
            model=run.model,
            decisions=prompts.decisions,
            slope=prompts.line.slope(),
            intercept=prompts.line.intercept(),
            first_prompt=prompts.first,
            last_prompt=prompts.last,
            max_prompt=prompts.largest,
            total_prompt=prompts.total,
            counterfactual_slope=prompts.shadow_line.slope(),
            counterfactual_last=prompts.shadow_last,
            counterfactual_total=prompts.shadow_total,
            layers=list(self.layers),
            points=self.points or [],
            reply_mode=str(run.model_params.get("reply", {}).get("mode", "")),
            invalid_actions=self.invalid_actions,
            fallbacks=self.fallbacks,
            parse_errors=self.parse_errors,
            reported_prompt=self.reported,
            tokens_flag=token_mismatch(run),
            total_cached=calls.cached,
            total_fresh=prompts.total - calls.cached + calls.outputs,
            cost=calls.cost,
            counterfactual_cached=prompts.shadow_cached,
            counterfactual_fresh=prompts.shadow_total - prompts.shadow_cached + calls.outputs,
            counterfactual_cost=calls.shadow_cost,
            layer_tokens=calls.layer_tokens,
            layer_cached=calls.layer_cached,
            layer_cost=calls.layer_cost,
            measured_latency_s=calls.latency_s,
        )
        latency = self.costs.latency_of(run.model)
        if latency is not None:
            audit.latency_s = latency.seconds(audit.total_fresh - calls.outputs, calls.outputs)
        audit._line = prompts.line
        return audit


def audit_run(
    run: RunRecord,
    decisions: Iterable[DecisionRecord],
    costs: CostModel | None = None,
    *,
    keep_points: bool = True,
) -> RunAudit:
    """A run's audit, read from its decisions in one pass (an iterator of them streams:
    the run's sums are kept, and its points unless `keep_points` is False)."""
    fold = _RunFold(run, costs or CostModel(), keep_points)
    for record in decisions:
        fold.add(record)
    return fold.audit(run)


def call_of(
    record: DecisionRecord, prompt: int, shadow: int, shadow_cached: int, costs: _Pricing
) -> _Call:
    completion = record.completion
    cached = completion.cached_tokens if completion else 0
    output = completion.completion_tokens if completion else 0
    model = record.model or (completion.model if completion else "")
    return _Call(
        cached=cached,
        output=output,
        by_layer_cached=cached_by_layer(segment_tokens(record), cached) if cached else {},
        cost=costs.cost(model, prompt, cached, output) if completion else 0.0,
        shadow_cost=costs.cost(model, shadow, shadow_cached, output),
        latency_s=completion.latency_s if completion else 0.0,
    )


def point_of(record: DecisionRecord, prompt: int, shadow: int, call: _Call) -> AuditPoint:
    return AuditPoint(
        index=record.index,
        prompt_tokens=prompt,
        by_layer=dict(record.tokens_by_layer),
        counterfactual_tokens=shadow,
        cached_tokens=call.cached,
        completion_tokens=call.output,
        cached_by_layer=call.by_layer_cached,
        cost=call.cost,
        counterfactual_cost=call.shadow_cost,
        measured_latency_s=call.latency_s,
    )


def audit_point(
    record: DecisionRecord, prompt: int, shadow: int, shadow_cached: int, costs: CostModel
) -> AuditPoint:
    """One decision's point (`shadow_cached`: the counterfactual's previous prompt)."""
    return point_of(record, prompt, shadow, call_of(record, prompt, shadow, shadow_cached, costs))


class _ContractFold:
    """One contract's (tag's, environment's) audit gathered a run at a time: the runs'
    sums, never the runs."""

    def __init__(self) -> None:
        self.line = LineSums()
        self.layers: dict[str, None] = {}
        self.runs = self.actual = self.shadow = self.last = self.shadow_last = 0
        self.fresh = self.shadow_fresh = 0
        self.cost: float | None = 0.0
        self.shadow_cost: float | None = 0.0
        self.layer_cost: dict[str, float] = {}
        self.layer_tokens: dict[str, int] = {}
        self.layer_cached: dict[str, int] = {}
        self.reply_modes: set[str] = set()
        self.decisions = self.invalid_actions = self.fallbacks = self.parse_errors = 0
        self.flagged = 0

    def add(self, run: RunAudit) -> None:
        self.runs += 1
        self.line.merge(run.line())
        self.layers.update(dict.fromkeys(run.layers))
        self.actual += run.total_prompt
        self.shadow += run.counterfactual_total
        self.last += run.last_prompt
        self.shadow_last += run.counterfactual_last
        self.fresh += run.total_fresh
        self.shadow_fresh += run.counterfactual_fresh
        self.cost = add_cost(self.cost, run.cost)
        self.shadow_cost = add_cost(self.shadow_cost, run.counterfactual_cost)
        for layer, value in run.layer_cost.items():
            self.layer_cost[layer] = self.layer_cost.get(layer, 0.0) + value
        add_counts(self.layer_tokens, run.layer_tokens)
        add_counts(self.layer_cached, run.layer_cached)
        self.reply_modes.update({run.reply_mode} - {""})
        self.decisions += run.decisions
        self.invalid_actions += run.invalid_actions
        self.fallbacks += run.fallbacks
        self.parse_errors += run.parse_errors
        self.flagged += run.tokens_flag is not None

    def audit(self, contract: str, tag: str, env_id: str = "") -> ContractAudit:
        cost, shadow_cost = self.cost, self.shadow_cost
        audit = ContractAudit(
            contract=contract,
            tag=tag,
            env_id=env_id,
            runs=self.runs,
            slope=self.line.slope(),
            layer_slopes={layer: self.line.slope(layer) for layer in self.layers},
            mean_last_prompt=self.last / self.runs,
            mean_counterfactual_last=self.shadow_last / self.runs,
            savings=1 - self.actual / self.shadow if self.shadow else 0.0,
            fresh=self.fresh,
            cost=cost,
            counterfactual_fresh=self.shadow_fresh,
            counterfactual_cost=shadow_cost,
            cost_ratio=shadow_cost / cost if cost and shadow_cost is not None else None,
            raw_ratio=self.shadow / self.actual if self.actual else None,
            layer_cost=self.layer_cost,
            reply_modes=sorted(self.reply_modes),
            decisions=self.decisions,
            invalid_actions=self.invalid_actions,
            fallbacks=self.fallbacks,
            parse_errors=self.parse_errors,
            flagged_runs=self.flagged,
        )
        audit._layer_tokens, audit._layer_cached = self.layer_tokens, self.layer_cached
        return audit


def contract_audit(contract: str, tag: str, runs: Sequence[RunAudit]) -> ContractAudit:
    fold = _ContractFold()
    for run in runs:
        fold.add(run)
    return fold.audit(contract, tag)


def audited_decisions(archive: Archive, run_id: str) -> Iterator[DecisionRecord]:
    """A run's decisions as the audit reads them, a chunk at a time: without their prompts'
    segments, except those whose call reused a cached prefix (the segments attribute it to
    layers: `segment_tokens`)."""
    records = archive.iter_decisions(run_id, with_segments=False)
    while chunk := list(islice(records, DECISIONS_PER_READ)):
        cached = [r.index for r in chunk if r.completion and r.completion.cached_tokens]
        if cached:
            segments = prompt_segments(archive, run_id, min(cached), max(cached) + 1)
            chunk = [
                r.model_copy(update={"segments": segments[r.index]}) if r.index in segments else r
                for r in chunk
            ]
        yield from chunk


def context_audit(
    archive: Archive,
    runs: Iterable[RunRecord],
    costs: CostModel | None = None,
    *,
    keep_points: bool = True,
    keep_runs: bool = True,
) -> ContextAudit:
    """Audit every run that has decisions in the archive (imported runs have none), each
    read a chunk of decisions at a time (`audited_decisions`), each contract's sums gathered
    run by run. `keep_points=False` lets each run's points go (its totals, fits and costs
    stay); `keep_runs=False` keeps of the runs' audits only those whose tokens are flagged
    (`RunAudit.tokens_flag`): memory then holds neither a decision nor a run per run read,
    and `runs` may be a stream (`bounded.archive.queries.stream_runs`)."""
    groups: dict[tuple[str, str, str], _ContractFold] = {}
    audits, envs = [], set()
    for run in runs:
        audit = audit_run(
            run, audited_decisions(archive, run.run_id), costs, keep_points=keep_points
        )
        if not audit.decisions:
            continue
        envs.add(audit.env_id)
        groups.setdefault((audit.contract, audit.tag, audit.env_id), _ContractFold()).add(audit)
        if keep_runs or audit.tokens_flag is not None:
            audits.append(audit)
    several = len(envs) > 1  # one environment: its name goes unsaid
    contracts = [
        fold.audit(c, t, env if several else "") for (c, t, env), fold in sorted(groups.items())
    ]
    return ContextAudit(runs=audits, contracts=contracts)


__all__ = [
    "OBSERVATION_LAYERS",
    "AuditPoint",
    "ContextAudit",
    "ContractAudit",
    "LineSums",
    "RunAudit",
    "audit_point",
    "audit_run",
    "audited_decisions",
    "context_audit",
    "counterfactual",
    "segment_tokens",
]
