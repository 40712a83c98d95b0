"""`bounded audit`: prompt tokens per decision and layer, the slope, the transcript
counterfactual, cost under caching and the fitted rates."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from bounded.analysis.cost import cost_text, fit_latency
from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._filters import streamed_runs
from bounded.cli._options import (
    ArchiveArgument,
    PriceOption,
    PricesOption,
)
from bounded.cli._output import console, keyed_table, plain, print_folded
from bounded.cli._output import number as _fmt

if TYPE_CHECKING:
    from bounded.analysis.audit import ContextAudit


def audit(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    contract: Annotated[str | None, typer.Option(help="Only runs of this contract.")] = None,
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    plot: Annotated[Path | None, typer.Option(help="Write the context-growth plot (SVG).")] = None,
    price: PriceOption = None,
    prices: PricesOption = None,
    rates: Annotated[
        bool, typer.Option(help="Fit each model's prompt and generation rates to its timed calls.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the audit as JSON.")] = False,
) -> None:
    """Context audit: prompt tokens per decision and layer, slope, transcript counterfactual,
    fresh tokens and cost under prefix caching (the run's cache measured, the transcript's
    computed)."""
    from bounded.analysis.audit import context_audit
    from bounded.analysis.cost import cost_model
    from bounded.sweeps.board import archive_costs

    cost_model(price or [], prices or [])  # a bad price: one line before the archive is read
    with Archive(archive, read_only=True) as store:
        runs = streamed_runs(store, archive, tag=tag, contract=contract)
        costs = archive_costs(store, runs, price or [], prices or [])
        keep = as_json or plot is not None or rates  # the runs' points: printed, drawn or fitted
        runs = streamed_runs(store, archive, tag=tag, contract=contract)
        result = context_audit(store, runs, costs, keep_points=keep, keep_runs=keep)
    if plot is not None:
        from bounded.report.plots import context_plot

        plot.write_text(context_plot(result))
    if as_json:
        print(result.model_dump_json(indent=2))
        return
    print_folded(audit_view(result), keys=2)
    print_folded(audit_reply_view(result), keys=2)
    print_folded(audit_cost_view(result), keys=2)
    print_layer_costs(result)
    plain(costs.describe())
    plain("cached tokens: the runs' measured (their model's report); the transcript's computed")
    plain("prompt tokens: counted by bounded's tokenizer, for the runs and the transcript alike")
    print_token_flags(result)
    if rates:
        print_rates(result)
    if plot is not None:
        console.print(f"plot: {plot}")


def audit_view(result: ContextAudit) -> Table:
    view = keyed_table(
        "context audit (prompt tokens, counted)",
        ("contract", "tag", "runs", "slope/decision", "last", "transcript last", "saved"),
        keys=2,
    )
    for c in result.contracts:
        view.add_row(
            escape(c.contract),
            escape(c.where),
            str(c.runs),
            f"{c.slope:.2f}",
            f"{c.mean_last_prompt:.0f}",
            f"{c.mean_counterfactual_last:.0f}",
            f"{100 * c.savings:.1f}%",
        )
    return view


def audit_reply_view(result: ContextAudit) -> Table:
    """How each contract's replies were asked for and read: the reply mode, the invalid
    actions (outside the legal set), fallbacks and parse errors over its decisions."""
    headers = ("contract", "tag", "reply mode", "decisions", "invalid", "fallbacks", "parse errors")
    view = keyed_table("replies", headers, keys=2)
    for c in result.contracts:
        view.add_row(
            escape(c.contract),
            escape(c.where),
            escape(", ".join(c.reply_modes) or "-"),
            str(c.decisions),
            str(c.invalid_actions),
            str(c.fallbacks),
            str(c.parse_errors),
        )
    return view


def audit_cost_view(result: ContextAudit) -> Table:
    """Fresh tokens and cost of each contract against the prefix-cached transcript."""
    headers = (
        "contract", "tag", "fresh tokens", "cost", "transcript fresh", "transcript cost",
        "raw ratio", "cost ratio",
    )  # fmt: skip
    view = keyed_table("under prefix caching (cost at each model's prices)", headers, keys=2)
    for c in result.contracts:
        view.add_row(
            escape(c.contract),
            escape(c.where),
            f"{c.fresh:,}",
            cost_text(c.cost),
            f"{c.counterfactual_fresh:,}",
            cost_text(c.counterfactual_cost),
            _fmt(c.raw_ratio, 2),
            _fmt(c.cost_ratio, 2),
        )
    return view


def print_token_flags(result: ContextAudit) -> None:
    """One line per run whose server reported other tokens than bounded counted."""
    for run in result.runs:
        if run.tokens_flag is not None:
            console.print(
                f"[bold red]tokens disagree[/] in run {run.run_id[:12]} "
                f"({escape(run.contract)}): {escape(run.tokens_flag)}"
            )


def print_layer_costs(result: ContextAudit) -> None:
    """One line per contract: the cost of each layer, and the share of it served cached."""
    for c in result.contracts:
        parts = []
        for layer, cost in c.layer_cost.items():
            tokens, cached = c.layer_tokens(layer)
            share = f"{100 * cached / tokens:.0f}% cached" if tokens else "-"
            parts.append(f"{layer} {cost:.4f} ({share})")
        plain(f"cost per layer, {c.contract} ({c.where}): {', '.join(parts)}")


def print_rates(result: ContextAudit) -> None:
    """Each model's fitted rates, from the audited runs' timed calls."""
    calls: dict[str, list[tuple[int, int, float]]] = {}
    for run in result.runs:
        for p in run.points:
            if p.measured_latency_s > 0:
                fresh = p.prompt_tokens - p.cached_tokens
                calls.setdefault(run.model, []).append(
                    (fresh, p.completion_tokens, p.measured_latency_s)
                )
    if not calls:
        plain("rates: no timed model calls in these runs")
    for model, timed in calls.items():
        fitted = fit_latency(timed)
        plain(
            f"{model}: {fitted.prompt_tokens_per_s:,.1f} prompt tokens/s, "
            f"{fitted.output_tokens_per_s:,.1f} generated tokens/s ({len(timed)} calls)"
        )


COMMANDS: dict[str, Callable[..., None]] = {
    "audit": audit,
}
"""Command name -> its function, registered by `bounded.cli`."""
