"""Analysis of a run archive: the cell table with the paper's statistics, published
tables, the context audit and export to DataFrames."""

from bounded.analysis.audit import ContextAudit, audit_run, context_audit
from bounded.analysis.games import Game, completed_games, derived_score, first_by_start
from bounded.analysis.published import PUBLISHED_TABLES, PublishedTable, published_table
from bounded.analysis.stats import (
    bootstrap_mean_interval,
    clopper_pearson_interval,
    fisher_exact_p,
    wilson_interval,
)
from bounded.analysis.tables import CellRow, CellTable, cell_table

__all__ = [
    "PUBLISHED_TABLES",
    "CellRow",
    "CellTable",
    "ContextAudit",
    "Game",
    "PublishedTable",
    "audit_run",
    "bootstrap_mean_interval",
    "cell_table",
    "clopper_pearson_interval",
    "completed_games",
    "context_audit",
    "derived_score",
    "first_by_start",
    "fisher_exact_p",
    "published_table",
    "wilson_interval",
]
