"""The context audit's results (`bounded.analysis.audit`): one decision's point, one
run's audit, one contract's, and the whole audit."""

from __future__ import annotations

from pydantic import BaseModel, Field, PrivateAttr

from bounded.analysis.audit_sums import LineSums


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
    _layer_tokens: dict[str, int] = PrivateAttr(default_factory=dict)
    _layer_cached: dict[str, int] = PrivateAttr(default_factory=dict)

    def layer_tokens(self, layer: str) -> tuple[int, int]:
        """The layer's tokens over the group's runs, and how many of them were cached (of a
        priced model's runs, as `RunAudit.layer_tokens`)."""
        return self._layer_tokens.get(layer, 0), self._layer_cached.get(layer, 0)

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


__all__ = ["AuditPoint", "ContextAudit", "ContractAudit", "RunAudit"]
