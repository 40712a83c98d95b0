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

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from bounded.analysis.cost import CostModel, cached_by_layer
from bounded.analysis.stats import linear_slope
from bounded.archive import Archive
from bounded.archive.totals import token_mismatch
from bounded.core import DecisionRecord, RunRecord, approx_tokens, invalid_count

OBSERVATION_LAYERS = ("observation", "L2", "combat")
"""Layers that show the decision at hand; what a transcript would append each step."""


class AuditPoint(BaseModel):
    """One decision's prompt."""

    index: int
    """Decision index in the run."""
    prompt_tokens: int
    """Prompt tokens as bounded counted them (every layer's, as assembled)."""
    by_layer: dict[str, int]
    """Prompt tokens per layer, as assembled."""
    counterfactual_tokens: int
    """The same decision's prompt under an accumulating transcript."""
    cached_tokens: int = 0
    """Prompt tokens served from the model's prefix cache (measured)."""
    completion_tokens: int = 0
    cached_by_layer: dict[str, int] = Field(default_factory=dict)
    """The cached prefix attributed to layers in prompt order."""
    cost: float | None = 0.0
    """This decision's call at its model's prices (None: its model is unpriced)."""
    counterfactual_cost: float | None = 0.0
    """The transcript counterfactual's call, its previous prompt cached (computed)."""
    measured_latency_s: float = 0.0
    """The model call's measured seconds (0 when no model was called)."""


class RunAudit(BaseModel):
    """The audit of one run."""

    run_id: str
    contract: str
    tag: str
    decisions: int
    env_id: str = ""
    slope: float
    """Fitted prompt tokens per additional decision (least squares)."""
    intercept: float
    first_prompt: int
    last_prompt: int
    max_prompt: int
    total_prompt: int
    counterfactual_slope: float
    """The same fit under the transcript counterfactual."""
    counterfactual_last: int
    counterfactual_total: int
    layers: list[str]
    """Layers in the order they first appear."""
    model: str = ""
    total_cached: int = 0
    """Measured cached prompt tokens over the run's decisions."""
    total_fresh: int = 0
    """Prompt - cached + completion tokens over the run's decisions."""
    cost: float | None = 0.0
    """None where a model of the run is unpriced (`bounded.analysis.cost`)."""
    counterfactual_cached: int = 0
    """Computed: each counterfactual prompt's predecessor, the cached prefix."""
    counterfactual_fresh: int = 0
    counterfactual_cost: float | None = 0.0
    latency_s: float | None = None
    """Modelled seconds of the run's calls (local models; `cost.Latency`)."""
    measured_latency_s: float = 0.0
    """The calls' measured seconds."""
    reported_prompt: int = 0
    """Prompt tokens the server reported for the run's decisions (estimated ones excluded)."""
    tokens_flag: str | None = None
    """Why the run's reported tokens cannot be trusted beside its counted ones
    (`bounded.archive.totals.token_mismatch`); None when they agree."""
    layer_tokens: dict[str, int] = Field(default_factory=dict)
    layer_cached: dict[str, int] = Field(default_factory=dict)
    layer_cost: dict[str, float] = Field(default_factory=dict)
    """Each layer's tokens at fresh or cached input prices."""
    points: list[AuditPoint] = Field(default_factory=list)
    reply_mode: str = ""
    """The reply mode played (`model_params["reply"]["mode"]`; "" for an older run)."""
    invalid_actions: int = 0
    """Actions the replies named outside the legal set (`invalid_actions`)."""
    fallbacks: int = 0
    """Decisions whose executed action was not the model's."""
    parse_errors: int = 0


class ContractAudit(BaseModel):
    """All audited runs of one contract (and tag), on one environment where the runs span
    several (they are never pooled)."""

    contract: str
    tag: str
    runs: int
    slope: float
    """Least-squares slope over every decision of every run."""
    layer_slopes: dict[str, float]
    """The same slope per layer: which memory grows."""
    mean_last_prompt: float
    mean_counterfactual_last: float
    savings: float
    """1 - actual total / counterfactual total prompt tokens."""
    fresh: int = 0
    cost: float | None = 0.0
    """None where a model of its runs is unpriced."""
    counterfactual_fresh: int = 0
    counterfactual_cost: float | None = 0.0
    cost_ratio: float | None = None
    """Counterfactual cost / actual cost: the saving under prefix caching."""
    raw_ratio: float | None = None
    """Counterfactual prompt tokens / actual prompt tokens: the saving counted raw."""
    layer_cost: dict[str, float] = Field(default_factory=dict)
    reply_modes: list[str] = Field(default_factory=list)
    """The reply modes its runs played (one, unless the runs differ: a mode difference)."""
    decisions: int = 0
    invalid_actions: int = 0
    fallbacks: int = 0
    parse_errors: int = 0
    flagged_runs: int = 0
    """Runs whose reported tokens stray from the counted ones (`RunAudit.tokens_flag`)."""
    env_id: str = ""
    """The runs' environment, where the audited runs span several; else ""."""

    @property
    def where(self) -> str:
        """The tag, and the environment where there is one: `typed, bounded/Crafter-v0`."""
        return f"{self.tag}, {self.env_id}" if self.env_id else self.tag

    def holds(self, run: RunAudit) -> bool:
        """Whether `run` is one of this group's."""
        return (run.contract, run.tag) == (self.contract, self.tag) and (
            not self.env_id or run.env_id == self.env_id
        )


class ContextAudit(BaseModel):
    runs: list[RunAudit]
    contracts: list[ContractAudit]


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


def audit_run(
    run: RunRecord, decisions: Sequence[DecisionRecord], costs: CostModel | None = None
) -> RunAudit:
    costs = costs or CostModel()
    prompts = [sum(d.tokens_by_layer.values()) or d.prompt_tokens for d in decisions]
    shadow = counterfactual(decisions)
    indices = [float(d.index) for d in decisions]
    slope, intercept = linear_slope(indices, prompts) if decisions else (0.0, 0.0)
    shadow_slope, _ = linear_slope(indices, shadow) if decisions else (0.0, 0.0)
    layers: list[str] = []
    for d in decisions:
        layers.extend(layer for layer in d.tokens_by_layer if layer not in layers)
    points = [
        audit_point(d, p, c, shadow[i - 1] if i else 0, costs)
        for i, (d, p, c) in enumerate(zip(decisions, prompts, shadow, strict=True))
    ]
    audit = RunAudit(
        run_id=run.run_id,
        contract=run.contract,
        tag=run.tag,
        env_id=run.env_id,
        model=run.model,
        decisions=len(decisions),
        slope=slope,
        intercept=intercept,
        first_prompt=prompts[0] if prompts else 0,
        last_prompt=prompts[-1] if prompts else 0,
        max_prompt=max(prompts, default=0),
        total_prompt=sum(prompts),
        counterfactual_slope=shadow_slope,
        counterfactual_last=shadow[-1] if shadow else 0,
        counterfactual_total=sum(shadow),
        layers=layers,
        points=points,
        reply_mode=str(run.model_params.get("reply", {}).get("mode", "")),
        invalid_actions=sum(invalid_count(d.info) for d in decisions),
        fallbacks=sum(d.fallback for d in decisions),
        parse_errors=sum(d.parse_error is not None for d in decisions),
        reported_prompt=sum(
            d.completion.prompt_tokens
            for d in decisions
            if d.completion and not d.completion.usage_estimated
        ),
        tokens_flag=token_mismatch(run),
    )
    add_costs(audit, decisions, costs)
    return audit


def audit_point(
    record: DecisionRecord, prompt: int, shadow: int, shadow_cached: int, costs: CostModel
) -> AuditPoint:
    completion = record.completion
    cached = completion.cached_tokens if completion else 0
    output = completion.completion_tokens if completion else 0
    model = record.model or (completion.model if completion else "")
    return AuditPoint(
        index=record.index,
        prompt_tokens=prompt,
        by_layer=dict(record.tokens_by_layer),
        counterfactual_tokens=shadow,
        cached_tokens=cached,
        completion_tokens=output,
        cached_by_layer=cached_by_layer(segment_tokens(record), cached),
        cost=costs.cost(model, prompt, cached, output) if completion else 0.0,
        counterfactual_cost=costs.cost(model, shadow, shadow_cached, output),
        measured_latency_s=completion.latency_s if completion else 0.0,
    )


def add_costs(audit: RunAudit, decisions: Sequence[DecisionRecord], costs: CostModel) -> None:
    """Totals under prefix caching: fresh tokens, cost, modelled latency, per layer."""
    points = audit.points
    audit.total_cached = sum(p.cached_tokens for p in points)
    outputs = sum(p.completion_tokens for p in points)
    audit.total_fresh = audit.total_prompt - audit.total_cached + outputs
    audit.cost = total_of(p.cost for p in points)
    audit.counterfactual_cached = sum(
        points[i - 1].counterfactual_tokens for i in range(1, len(points))
    )
    audit.counterfactual_fresh = audit.counterfactual_total - audit.counterfactual_cached + outputs
    audit.counterfactual_cost = total_of(p.counterfactual_cost for p in points)
    prices = costs.prices(audit.model)
    for p in points:
        if prices is None:
            break
        for layer, tokens in p.by_layer.items():
            cached = min(tokens, p.cached_by_layer.get(layer, 0))
            audit.layer_tokens[layer] = audit.layer_tokens.get(layer, 0) + tokens
            audit.layer_cached[layer] = audit.layer_cached.get(layer, 0) + cached
            audit.layer_cost[layer] = audit.layer_cost.get(layer, 0.0) + prices.cost(
                tokens, cached, 0
            )
    latency = costs.latency_of(audit.model)
    if latency is not None:
        audit.latency_s = latency.seconds(audit.total_fresh - outputs, outputs)
    audit.measured_latency_s = sum(d.completion.latency_s for d in decisions if d.completion)


def total_of(costs: Iterable[float | None]) -> float | None:
    """The sum of costs; None when one of them is unpriced."""
    total = 0.0
    for cost in costs:
        if cost is None:
            return None
        total += cost
    return total


def contract_audit(contract: str, tag: str, runs: Sequence[RunAudit]) -> ContractAudit:
    xs = [float(p.index) for r in runs for p in r.points]
    ys = [float(p.prompt_tokens) for r in runs for p in r.points]
    slope, _ = linear_slope(xs, ys) if xs else (0.0, 0.0)
    layer_slopes = {}
    for layer in dict.fromkeys(layer for r in runs for layer in r.layers):
        layer_ys = [float(p.by_layer.get(layer, 0)) for r in runs for p in r.points]
        layer_slopes[layer] = linear_slope(xs, layer_ys)[0]
    actual = sum(r.total_prompt for r in runs)
    shadow = sum(r.counterfactual_total for r in runs)
    cost = total_of(r.cost for r in runs)
    shadow_cost = total_of(r.counterfactual_cost for r in runs)
    layer_cost: dict[str, float] = {}
    for r in runs:
        for layer, value in r.layer_cost.items():
            layer_cost[layer] = layer_cost.get(layer, 0.0) + value
    return ContractAudit(
        contract=contract,
        tag=tag,
        runs=len(runs),
        slope=slope,
        layer_slopes=layer_slopes,
        mean_last_prompt=sum(r.last_prompt for r in runs) / len(runs),
        mean_counterfactual_last=sum(r.counterfactual_last for r in runs) / len(runs),
        savings=1 - actual / shadow if shadow else 0.0,
        fresh=sum(r.total_fresh for r in runs),
        cost=cost,
        counterfactual_fresh=sum(r.counterfactual_fresh for r in runs),
        counterfactual_cost=shadow_cost,
        cost_ratio=shadow_cost / cost if cost and shadow_cost is not None else None,
        raw_ratio=shadow / actual if actual else None,
        layer_cost=layer_cost,
        reply_modes=sorted({r.reply_mode for r in runs if r.reply_mode}),
        decisions=sum(r.decisions for r in runs),
        invalid_actions=sum(r.invalid_actions for r in runs),
        fallbacks=sum(r.fallbacks for r in runs),
        parse_errors=sum(r.parse_errors for r in runs),
        flagged_runs=sum(r.tokens_flag is not None for r in runs),
    )


def context_audit(
    archive: Archive, runs: Iterable[RunRecord], costs: CostModel | None = None
) -> ContextAudit:
    """Audit every run that has decisions in the archive (imported runs have none)."""
    audits = []
    for run in runs:
        decisions = archive.decisions(run.run_id, with_segments=True)
        if decisions:
            audits.append(audit_run(run, decisions, costs))
    several = len({audit.env_id for audit in audits}) > 1
    groups: dict[tuple[str, str, str], list[RunAudit]] = {}
    for audit in audits:
        env = audit.env_id if several else ""
        groups.setdefault((audit.contract, audit.tag, env), []).append(audit)
    contracts = [
        contract_audit(c, t, group).model_copy(update={"env_id": env})
        for (c, t, env), group in sorted(groups.items())
    ]
    return ContextAudit(runs=audits, contracts=contracts)


__all__ = [
    "OBSERVATION_LAYERS",
    "AuditPoint",
    "ContextAudit",
    "ContractAudit",
    "RunAudit",
    "audit_point",
    "audit_run",
    "context_audit",
    "counterfactual",
    "segment_tokens",
]
