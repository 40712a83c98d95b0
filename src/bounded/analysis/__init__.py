"""Analysis of a run archive: the cell table with the paper's statistics (pooled row over
named cells, score differences, percent changes per group), paired comparisons on common
seeds, power plans, the anytime-valid confidence sequence of a sweep stopped when decided,
published tables, the context audit and export to DataFrames."""

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
