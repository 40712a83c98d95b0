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

from pydantic import BaseModel, Field, PrivateAttr

from bounded.analysis.cost import CostModel, cached_by_layer
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


class LineSums:
    """Least-squares sums of prompt tokens (in all, and per layer) against the decision
    index, gathered a decision at a time: a fit over many runs without their points.
    Integer sums, so the fit is exact (`slope`)."""

    def __init__(self) -> None:
        self.n = self.sx = self.sxx = 0
        self.sy: dict[str | None, int] = {}
        self.sxy: dict[str | None, int] = {}

    def add(self, index: int, prompt: int, by_layer: dict[str, int]) -> None:
        self.n += 1
        self.sx += index
        self.sxx += index * index
        for key, tokens in ((None, prompt), *by_layer.items()):
            self.sy[key] = self.sy.get(key, 0) + tokens
            self.sxy[key] = self.sxy.get(key, 0) + index * tokens

    def merge(self, other: LineSums) -> None:
        self.n += other.n
        self.sx += other.sx
        self.sxx += other.sxx
        for key, value in other.sy.items():
            self.sy[key] = self.sy.get(key, 0) + value
            self.sxy[key] = self.sxy.get(key, 0) + other.sxy[key]

    def slope(self, layer: str | None = None) -> float:
        """The fitted slope of a layer's tokens (None: the whole prompt's); 0 with fewer
        than two distinct indices (as `linear_slope`)."""
        spread = self.n * self.sxx - self.sx * self.sx
        if self.n < 2 or spread == 0:
            return 0.0
        return (self.n * self.sxy.get(layer, 0) - self.sx * self.sy.get(layer, 0)) / spread

    def intercept(self, layer: str | None = None) -> float:
        """The fitted intercept (a single decision: its tokens; none: 0)."""
        spread = self.n * self.sxx - self.sx * self.sx
        if self.n == 0:
            return 0.0
        if self.n < 2 or spread == 0:
            return self.sy.get(layer, 0) / self.n
        sy, sxy = self.sy.get(layer, 0), self.sxy.get(layer, 0)
        return (sy * self.sxx - self.sx * sxy) / spread

    @classmethod
    def of_points(cls, points: Iterable[AuditPoint]) -> LineSums:
        sums = cls()
        for p in points:
            sums.add(p.index, p.prompt_tokens, p.by_layer)
        return sums


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
    _line: LineSums | None = PrivateAttr(default=None)
    """The least-squares sums of its decisions (kept where its points are let go)."""

    def line(self) -> LineSums:
        return self._line if self._line is not None else LineSums.of_points(self.points)


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


class _RunFold:
    """One run's audit gathered a decision at a time (`audit_run`): what it keeps of a
    decision is its point, never the decision."""

    def __init__(self, costs: CostModel) -> None:
        self.costs = costs
        self.points: list[AuditPoint] = []
        self.layers: list[str] = []
        self.line = LineSums()
        self.shadow_line = LineSums()
        self.previous: DecisionRecord | None = None
        self.invalid_actions = self.fallbacks = self.parse_errors = self.reported = 0

    def add(self, record: DecisionRecord) -> None:
        prompt = sum(record.tokens_by_layer.values()) or record.prompt_tokens
        shadow_before = self.points[-1].counterfactual_tokens if self.points else 0
        if self.previous is None:
            shadow = sum(record.tokens_by_layer.values())
        else:
            shadow = shadow_before + observation_tokens(record) + reply_tokens(self.previous)
        self.layers.extend(layer for layer in record.tokens_by_layer if layer not in self.layers)
        self.points.append(audit_point(record, prompt, shadow, shadow_before, self.costs))
        self.line.add(record.index, prompt, record.tokens_by_layer)
        self.shadow_line.add(record.index, shadow, {})
        self.invalid_actions += invalid_count(record.info)
        self.fallbacks += record.fallback
        self.parse_errors += record.parse_error is not None
        completion = record.completion
        if completion and not completion.usage_estimated:
            self.reported += completion.prompt_tokens
        self.previous = record


def audit_run(
    run: RunRecord, decisions: Iterable[DecisionRecord], costs: CostModel | None = None
) -> RunAudit:
    """A run's audit, read from its decisions in one pass (an iterator of them streams:
    only the run's points are kept)."""
    costs = costs or CostModel()
    fold = _RunFold(costs)
    for record in decisions:
        fold.add(record)
    points = fold.points
    prompts = [p.prompt_tokens for p in points]
    audit = RunAudit(
        run_id=run.run_id,
        contract=run.contract,
        tag=run.tag,
        env_id=run.env_id,
        model=run.model,
        decisions=len(points),
        slope=fold.line.slope(),
        intercept=fold.line.intercept(),
        first_prompt=prompts[0] if prompts else 0,
        last_prompt=prompts[-1] if prompts else 0,
        max_prompt=max(prompts, default=0),
        total_prompt=sum(prompts),
        counterfactual_slope=fold.shadow_line.slope(),
        counterfactual_last=points[-1].counterfactual_tokens if points else 0,
        counterfactual_total=sum(p.counterfactual_tokens for p in points),
        layers=fold.layers,
        points=points,
        reply_mode=str(run.model_params.get("reply", {}).get("mode", "")),
        invalid_actions=fold.invalid_actions,
        fallbacks=fold.fallbacks,
        parse_errors=fold.parse_errors,
        reported_prompt=fold.reported,
        tokens_flag=token_mismatch(run),
    )
    audit._line = fold.line
    add_costs(audit, costs)
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
        cached_by_layer=cached_by_layer(segment_tokens(record), cached) if cached else {},
        cost=costs.cost(model, prompt, cached, output) if completion else 0.0,
        counterfactual_cost=costs.cost(model, shadow, shadow_cached, output),
        measured_latency_s=completion.latency_s if completion else 0.0,
    )


def add_costs(audit: RunAudit, costs: CostModel) -> None:
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
    audit.measured_latency_s = sum(p.measured_latency_s for p in points)


def total_of(costs: Iterable[float | None]) -> float | None:
    """The sum of costs; None when one of them is unpriced."""
    total = 0.0
    for cost in costs:
        if cost is None:
            return None
        total += cost
    return total


def contract_audit(contract: str, tag: str, runs: Sequence[RunAudit]) -> ContractAudit:
    line = LineSums()
    for run in runs:
        line.merge(run.line())
    layers = dict.fromkeys(layer for r in runs for layer in r.layers)
    layer_slopes = {layer: line.slope(layer) for layer in layers}
    slope = line.slope()
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
    archive: Archive,
    runs: Iterable[RunRecord],
    costs: CostModel | None = None,
    *,
    keep_points: bool = True,
) -> ContextAudit:
    """Audit every run that has decisions in the archive (imported runs have none), each
    read a chunk of decisions at a time. `keep_points=False` lets each run's points go once
    it is audited (its totals, fits and costs stay): memory then holds no decision."""
    audits = []
    for run in runs:
        audit = audit_run(run, archive.iter_decisions(run.run_id), costs)
        if audit.decisions:
            if not keep_points:
                audit.points = []
            audits.append(audit)
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
    "LineSums",
    "RunAudit",
    "audit_point",
    "audit_run",
    "context_audit",
    "counterfactual",
    "segment_tokens",
]
