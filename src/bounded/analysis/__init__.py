"""Analysis of a run archive: the cell table with the paper's statistics (pooled row over
named cells, score differences, percent changes per group), paired comparisons on common
seeds, power plans, the anytime-valid confidence sequence of a sweep stopped when decided,
published tables, the context audit and export to DataFrames.

The names below are loaded when first used, not when the package is imported: the
statistics import scipy, which costs half a second that a sweep's driver and every
worker it starts would otherwise pay without reading a table."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bounded.analysis.anytime import SequentialRecord, confidence_sequence
    from bounded.analysis.audit import ContextAudit, audit_run, context_audit
    from bounded.analysis.compare import ScoreChange, ScoreDifference
    from bounded.analysis.games import CompletedGame, completed_games, derived_score, first_by_start
    from bounded.analysis.options import TableOptions
    from bounded.analysis.paired import PairedComparison, compare_paired
    from bounded.analysis.plan import PlanAsked, PowerPlan, plan_comparison
    from bounded.analysis.published import PUBLISHED_TABLES, PublishedTable, published_table
    from bounded.analysis.stats import (
        bootstrap_difference_interval,
        bootstrap_mean_interval,
        clopper_pearson_interval,
        fisher_exact_p,
        percent_change,
        wilson_interval,
    )
    from bounded.analysis.tables import CellRow, CellTable, cell_table

_WHERE = {
    "CellRow": "bounded.analysis.tables",
    "CellTable": "bounded.analysis.tables",
    "CompletedGame": "bounded.analysis.games",
    "ContextAudit": "bounded.analysis.audit",
    "PUBLISHED_TABLES": "bounded.analysis.published",
    "PairedComparison": "bounded.analysis.paired",
    "PlanAsked": "bounded.analysis.plan",
    "PowerPlan": "bounded.analysis.plan",
    "PublishedTable": "bounded.analysis.published",
    "ScoreChange": "bounded.analysis.compare",
    "ScoreDifference": "bounded.analysis.compare",
    "SequentialRecord": "bounded.analysis.anytime",
    "TableOptions": "bounded.analysis.options",
    "audit_run": "bounded.analysis.audit",
    "bootstrap_difference_interval": "bounded.analysis.stats",
    "bootstrap_mean_interval": "bounded.analysis.stats",
    "cell_table": "bounded.analysis.tables",
    "clopper_pearson_interval": "bounded.analysis.stats",
    "compare_paired": "bounded.analysis.paired",
    "completed_games": "bounded.analysis.games",
    "confidence_sequence": "bounded.analysis.anytime",
    "context_audit": "bounded.analysis.audit",
    "derived_score": "bounded.analysis.games",
    "first_by_start": "bounded.analysis.games",
    "fisher_exact_p": "bounded.analysis.stats",
    "percent_change": "bounded.analysis.stats",
    "plan_comparison": "bounded.analysis.plan",
    "published_table": "bounded.analysis.published",
    "wilson_interval": "bounded.analysis.stats",
}
"""Each public name and the module that defines it."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "PUBLISHED_TABLES",
    "CellRow",
    "CellTable",
    "CompletedGame",
    "ContextAudit",
    "PairedComparison",
    "PlanAsked",
    "PowerPlan",
    "PublishedTable",
    "ScoreChange",
    "ScoreDifference",
    "SequentialRecord",
    "TableOptions",
    "audit_run",
    "bootstrap_difference_interval",
    "bootstrap_mean_interval",
    "cell_table",
    "clopper_pearson_interval",
    "compare_paired",
    "completed_games",
    "confidence_sequence",
    "context_audit",
    "derived_score",
    "first_by_start",
    "fisher_exact_p",
    "percent_change",
    "plan_comparison",
    "published_table",
    "wilson_interval",
]
