"""Per-layer statistics of counterfactual attribution: how often removing a layer changes
the decision, and how often the original and the counterfactual agree with the expert.

Rates carry Wilson 95% intervals; the paired test between the original's and the
counterfactual's agreement with the expert is McNemar's exact test: a two-sided binomial
test (scipy) on the discordant pairs (original agrees and counterfactual not, and the
reverse), which is the right form for the small counts a sample of decisions gives.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from scipy import stats

from bounded.analysis.stats import Interval, wilson_interval
from bounded.archive.counterfactuals import Counterfactual

ALL_KINDS = "all"


def mcnemar_exact_p(original_only: int, counterfactual_only: int) -> float:
    """McNemar's exact test: p of the discordant pairs under "either side as likely";
    1.0 with no discordant pair."""
    discordant = original_only + counterfactual_only
    if discordant == 0:
        return 1.0
    return float(stats.binomtest(original_only, discordant, 0.5).pvalue)


@dataclass(frozen=True)
class AttributionRow:
    """One layer (and variant, model), over one decision kind or all of them."""

    layer: str
    variant: str
    model: str
    kind: str
    decisions: int
    changed: int
    original_agrees: int
    counterfactual_agrees: int
    original_only: int
    """Pairs where only the original agrees with the expert."""
    counterfactual_only: int
    """Pairs where only the counterfactual agrees with the expert."""

    @property
    def change_rate(self) -> float:
        return self.changed / self.decisions

    @property
    def change_ci(self) -> Interval:
        return wilson_interval(self.changed, self.decisions)

    @property
    def original_rate(self) -> float:
        return self.original_agrees / self.decisions

    @property
    def original_ci(self) -> Interval:
        return wilson_interval(self.original_agrees, self.decisions)

    @property
    def counterfactual_rate(self) -> float:
        return self.counterfactual_agrees / self.decisions

    @property
    def counterfactual_ci(self) -> Interval:
        return wilson_interval(self.counterfactual_agrees, self.decisions)

    @property
    def mcnemar_p(self) -> float:
        return mcnemar_exact_p(self.original_only, self.counterfactual_only)

    @property
    def label(self) -> str:
        removed = self.layer if self.variant == "removed" else f"{self.layer} ({self.variant})"
        return f"{removed} · {self.model}"


class _Tally:
    """One group's counts, a counterfactual at a time."""

    def __init__(self) -> None:
        self.decisions = self.changed = self.original_agrees = self.counterfactual_agrees = 0
        self.original_only = self.counterfactual_only = 0

    def add(self, row: Counterfactual) -> None:
        self.decisions += 1
        self.changed += row.changed
        self.original_agrees += row.original_agrees
        self.counterfactual_agrees += row.counterfactual_agrees
        self.original_only += row.original_agrees and not row.counterfactual_agrees
        self.counterfactual_only += row.counterfactual_agrees and not row.original_agrees

    def row(self, layer: str, variant: str, model: str, kind: str) -> AttributionRow:
        return AttributionRow(
            layer=layer,
            variant=variant,
            model=model,
            kind=kind,
            decisions=self.decisions,
            changed=self.changed,
            original_agrees=self.original_agrees,
            counterfactual_agrees=self.counterfactual_agrees,
            original_only=self.original_only,
            counterfactual_only=self.counterfactual_only,
        )


def attribution_table(rows: Iterable[Counterfactual]) -> list[AttributionRow]:
    """One row per (layer, variant, model) over all decision kinds, then one per kind,
    counted as the rows come (an iterator of them streams: no row is kept)."""
    groups: dict[tuple[str, str, str], tuple[_Tally, dict[str, _Tally]]] = {}
    for row in rows:
        every, kinds = groups.setdefault((row.layer, row.variant, row.model), (_Tally(), {}))
        every.add(row)
        kinds.setdefault(row.kind, _Tally()).add(row)
    table = []
    for (layer, variant, model), (every, kinds) in sorted(groups.items()):
        table.append(every.row(layer, variant, model, ALL_KINDS))
        for kind, of_kind in sorted(kinds.items()):
            table.append(of_kind.row(layer, variant, model, kind))
    return table


__all__ = ["ALL_KINDS", "AttributionRow", "attribution_table", "mcnemar_exact_p"]
