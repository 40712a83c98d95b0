"""Per-layer statistics of counterfactual attribution: how often removing a layer changes
the decision, and how often the original and the counterfactual agree with the expert.

Rates carry Wilson 95% intervals; the paired test between the original's and the
counterfactual's agreement with the expert is McNemar's exact test: a two-sided binomial
test (scipy) on the discordant pairs (original agrees and counterfactual not, and the
reverse), which is the right form for the small counts a sample of decisions gives.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def _row(
    layer: str, variant: str, model: str, kind: str, rows: Sequence[Counterfactual]
) -> AttributionRow:
    return AttributionRow(
        layer=layer,
        variant=variant,
        model=model,
        kind=kind,
        decisions=len(rows),
        changed=sum(r.changed for r in rows),
        original_agrees=sum(r.original_agrees for r in rows),
        counterfactual_agrees=sum(r.counterfactual_agrees for r in rows),
        original_only=sum(r.original_agrees and not r.counterfactual_agrees for r in rows),
        counterfactual_only=sum(r.counterfactual_agrees and not r.original_agrees for r in rows),
    )


def attribution_table(rows: Sequence[Counterfactual]) -> list[AttributionRow]:
    """One row per (layer, variant, model) over all decision kinds, then one per kind."""
    groups: dict[tuple[str, str, str], list[Counterfactual]] = {}
    for row in rows:
        groups.setdefault((row.layer, row.variant, row.model), []).append(row)
    table = []
    for (layer, variant, model), members in sorted(groups.items()):
        table.append(_row(layer, variant, model, ALL_KINDS, members))
        kinds: dict[str, list[Counterfactual]] = {}
        for member in members:
            kinds.setdefault(member.kind, []).append(member)
        for kind, of_kind in sorted(kinds.items()):
            table.append(_row(layer, variant, model, kind, of_kind))
    return table


__all__ = ["ALL_KINDS", "AttributionRow", "attribution_table", "mcnemar_exact_p"]
