"""What `bounded audit` prints: prompt tokens per contract, fresh tokens and cost under
prefix caching, cost per layer, and each model's fitted rates."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from bounded.analysis.audit import ContextAudit
from bounded.analysis.cost import fit_latency
from bounded.commands.output import number as _fmt
from bounded.commands.output import plain


def audit_view(result: ContextAudit) -> Table:
    view = Table(title="context audit (prompt tokens)")
    for header in ("contract", "tag", "runs", "slope/decision", "last", "transcript last", "saved"):
        view.add_column(header, justify="left" if header in ("contract", "tag") else "right")
    for c in result.contracts:
        view.add_row(
            escape(c.contract),
            escape(c.tag),
            str(c.runs),
            f"{c.slope:.2f}",
            f"{c.mean_last_prompt:.0f}",
            f"{c.mean_counterfactual_last:.0f}",
            f"{100 * c.savings:.1f}%",
        )
    return view


def audit_cost_view(result: ContextAudit) -> Table:
    """Fresh tokens and cost of each contract against the prefix-cached transcript."""
    view = Table(title="under prefix caching (cost at each model's prices)")
    headers = (
        "contract", "tag", "fresh tokens", "cost", "transcript fresh", "transcript cost",
        "raw ratio", "cost ratio",
    )  # fmt: skip
    for header in headers:
        view.add_column(header, justify="left" if header in ("contract", "tag") else "right")
    for c in result.contracts:
        view.add_row(
            escape(c.contract),
            escape(c.tag),
            f"{c.fresh:,}",
            f"{c.cost:.4f}",
            f"{c.counterfactual_fresh:,}",
            f"{c.counterfactual_cost:.4f}",
            _fmt(c.raw_ratio, 2),
            _fmt(c.cost_ratio, 2),
        )
    return view


def print_layer_costs(result: ContextAudit) -> None:
    """One line per contract: the cost of each layer, and the share of it served cached."""
    for c in result.contracts:
        runs = [r for r in result.runs if (r.contract, r.tag) == (c.contract, c.tag)]
        parts = []
        for layer, cost in c.layer_cost.items():
            tokens = sum(r.layer_tokens.get(layer, 0) for r in runs)
            cached = sum(r.layer_cached.get(layer, 0) for r in runs)
            share = f"{100 * cached / tokens:.0f}% cached" if tokens else "-"
            parts.append(f"{layer} {cost:.4f} ({share})")
        plain(f"cost per layer, {c.contract} ({c.tag}): {', '.join(parts)}")


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


__all__ = ["audit_cost_view", "audit_view", "print_layer_costs", "print_rates"]
