"""The context audit: what each decision's prompt cost, layer by layer, against the
decision index, and what the same decisions would have cost with a transcript.

The transcript counterfactual of decision i is decision 0's whole prompt, plus, for every
later decision j <= i, its observation (the layers that show the current decision) and
the previous reply: the prompt an accumulating chat transcript of the same game would
have sent. For a `transcript` run it tracks the actual prompt; for a bounded contract
the gap between the two is what the contract saves.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from bounded.analysis.stats import linear_slope
from bounded.archive import Archive
from bounded.core import DecisionRecord, RunRecord

OBSERVATION_LAYERS = ("observation", "L2", "combat")
"""Layers that show the decision at hand; what a transcript would append each step."""


class AuditPoint(BaseModel):
    """One decision's prompt."""

    index: int
    """Decision index in the run."""
    prompt_tokens: int
    """Prompt tokens as the model counted them (0 when the contract answered alone)."""
    by_layer: dict[str, int]
    """Prompt tokens per layer, as assembled."""
    counterfactual_tokens: int
    """The same decision's prompt under an accumulating transcript."""


class RunAudit(BaseModel):
    """The audit of one run."""

    run_id: str
    contract: str
    tag: str
    decisions: int
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
    points: list[AuditPoint] = Field(default_factory=list)


class ContractAudit(BaseModel):
    """All audited runs of one contract (and tag)."""

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


def audit_run(run: RunRecord, decisions: Sequence[DecisionRecord]) -> RunAudit:
    prompts = [d.prompt_tokens or sum(d.tokens_by_layer.values()) for d in decisions]
    shadow = counterfactual(decisions)
    indices = [float(d.index) for d in decisions]
    slope, intercept = linear_slope(indices, prompts) if decisions else (0.0, 0.0)
    shadow_slope, _ = linear_slope(indices, shadow) if decisions else (0.0, 0.0)
    layers: list[str] = []
    for d in decisions:
        layers.extend(layer for layer in d.tokens_by_layer if layer not in layers)
    return RunAudit(
        run_id=run.run_id,
        contract=run.contract,
        tag=run.tag,
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
        points=[
            AuditPoint(
                index=d.index,
                prompt_tokens=p,
                by_layer=dict(d.tokens_by_layer),
                counterfactual_tokens=c,
            )
            for d, p, c in zip(decisions, prompts, shadow, strict=True)
        ],
    )


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
    return ContractAudit(
        contract=contract,
        tag=tag,
        runs=len(runs),
        slope=slope,
        layer_slopes=layer_slopes,
        mean_last_prompt=sum(r.last_prompt for r in runs) / len(runs),
        mean_counterfactual_last=sum(r.counterfactual_last for r in runs) / len(runs),
        savings=1 - actual / shadow if shadow else 0.0,
    )


def context_audit(archive: Archive, runs: Iterable[RunRecord]) -> ContextAudit:
    """Audit every run that has decisions in the archive (imported runs have none)."""
    audits = []
    for run in runs:
        decisions = archive.decisions(run.run_id, with_segments=False)
        if decisions:
            audits.append(audit_run(run, decisions))
    groups: dict[tuple[str, str], list[RunAudit]] = {}
    for audit in audits:
        groups.setdefault((audit.contract, audit.tag), []).append(audit)
    contracts = [contract_audit(c, t, group) for (c, t), group in sorted(groups.items())]
    return ContextAudit(runs=audits, contracts=contracts)


__all__ = [
    "OBSERVATION_LAYERS",
    "AuditPoint",
    "ContextAudit",
    "ContractAudit",
    "RunAudit",
    "audit_run",
    "context_audit",
    "counterfactual",
]
