"""The context audit's sums, gathered a decision (and a run) at a time: what `audit_run`
and `context_audit` keep instead of lists of points, so that an audit's memory does not
grow with the decisions it reads (`bounded.analysis.audit`).

Every total is the one the whole list would give: integer sums are exact, and each float
sum (cost, latency) adds its terms in the order the whole list would, so a streamed audit
equals the audit of the same decisions held in memory, to the last bit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol


class Point(Protocol):
    """What a fit reads of one decision (`AuditPoint`)."""

    index: int
    prompt_tokens: int
    by_layer: dict[str, int]


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
    def of_points(cls, points: Iterable[Point]) -> LineSums:
        sums = cls()
        for p in points:
            sums.add(p.index, p.prompt_tokens, p.by_layer)
        return sums


def add_cost(total: float | None, cost: float | None) -> float | None:
    """A running cost plus one more: None once any term is unpriced."""
    return None if total is None or cost is None else total + cost


def add_counts(into: dict[str, int], counts: dict[str, int]) -> None:
    for key, value in counts.items():
        into[key] = into.get(key, 0) + value


class PromptSums:
    """A run's prompts, actual and counterfactual, a decision at a time: first, last,
    largest and total tokens, and the least-squares sums of each against the index."""

    def __init__(self) -> None:
        self.decisions = 0
        self.first = self.last = self.largest = self.total = 0
        self.line = LineSums()
        self.shadow_line = LineSums()
        self.shadow_last = self.shadow_total = 0

    def add(self, index: int, prompt: int, by_layer: dict[str, int], shadow: int) -> None:
        if self.decisions == 0:
            self.first = prompt
        self.decisions += 1
        self.last = prompt
        self.largest = max(self.largest, prompt)
        self.total += prompt
        self.line.add(index, prompt, by_layer)
        self.shadow_line.add(index, shadow, {})
        self.shadow_last = shadow
        self.shadow_total += shadow

    @property
    def shadow_cached(self) -> int:
        """Each counterfactual prompt's predecessor summed: what the transcript caches."""
        return self.shadow_total - self.shadow_last


class CostSums:
    """A run's calls at its prices, a decision at a time: cached and output tokens, the
    cost and the counterfactual's, measured seconds, and (a priced model) each layer's
    tokens, cached tokens and cost."""

    def __init__(self) -> None:
        self.cached = self.outputs = 0
        self.cost: float | None = 0.0
        self.shadow_cost: float | None = 0.0
        self.latency_s = 0.0
        self.layer_tokens: dict[str, int] = {}
        self.layer_cached: dict[str, int] = {}
        self.layer_cost: dict[str, float] = {}

    def add_call(
        self, cached: int, output: int, cost: float | None, shadow_cost: float | None, s: float
    ) -> None:
        self.cached += cached
        self.outputs += output
        self.cost = add_cost(self.cost, cost)
        self.shadow_cost = add_cost(self.shadow_cost, shadow_cost)
        self.latency_s += s

    def add_layer(self, layer: str, tokens: int, cached: int, cost: float) -> None:
        self.layer_tokens[layer] = self.layer_tokens.get(layer, 0) + tokens
        self.layer_cached[layer] = self.layer_cached.get(layer, 0) + cached
        self.layer_cost[layer] = self.layer_cost.get(layer, 0.0) + cost


__all__ = ["CostSums", "LineSums", "PromptSums", "add_cost", "add_counts"]
