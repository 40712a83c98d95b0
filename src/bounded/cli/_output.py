"""How the research commands print: one console, plain lines, numbers in table cells."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bounded.archive.totals import token_mismatch
from bounded.core import DecisionRecord, RunRecord, invalid_count

if TYPE_CHECKING:
    from bounded.sweeps.estimate import SweepPrices

console = Console()


def plain(line: str) -> None:
    """Print one line as it is: no markup, never wrapped (so a problem stays one line)."""
    console.print(line, markup=False, soft_wrap=True)


BORDER = 3
"""Characters a column costs beside its text in a rich table: padding either side and a
border."""


def folded(table: Table, width: int, *, keys: int = 1) -> list[Table]:
    """The table as panels each `width` characters wide at most, instead of one whose
    columns rich would squeeze to ellipses: every panel repeats the first `keys` columns
    (the row labels) and takes as many of the others, in order, as fit. A table that fits
    is returned as it is."""
    columns = table.columns
    sizes = [
        BORDER + max([len(str(column.header)), *(len(str(cell)) for cell in column.cells)])
        for column in columns
    ]
    if 1 + sum(sizes) <= width or len(columns) <= keys + 1:
        return [table]
    groups: list[list[int]] = [[]]
    room = width - 1 - sum(sizes[:keys])
    used = 0
    for index in range(keys, len(columns)):
        if groups[-1] and used + sizes[index] > room:
            groups.append([])
            used = 0
        groups[-1].append(index)
        used += sizes[index]
    panels = []
    for number, group in enumerate(groups, start=1):
        title = f"{table.title or ''} ({number}/{len(groups)})".strip()
        panel = Table(title=title)
        chosen = [*range(keys), *group]
        for index in chosen:
            column = columns[index]
            panel.add_column(column.header, justify=column.justify, overflow="fold")
        for row in zip(*(list(columns[i].cells) for i in chosen), strict=True):
            panel.add_row(*row)
        panels.append(panel)
    return panels


def print_folded(table: Table, *, keys: int = 1) -> None:
    """Print a table folded to the console's width (see `folded`)."""
    for panel in folded(table, console.width, keys=keys):
        console.print(panel)


def keyed_table(title: str | None, headers: Sequence[str], *, keys: int = 1) -> Table:
    """An empty table of `headers`: the first `keys` columns (what a row is about) aligned
    left, the numbers after them right."""
    view = Table(title=title)
    for index, header in enumerate(headers):
        view.add_column(header, justify="left" if index < keys else "right")
    return view


def number(value: float | None, digits: int = 1) -> str:
    """A number for a table cell: "—" for none or NaN."""
    return "—" if value is None or value != value else f"{value:,.{digits}f}"


def contract_label(run: RunRecord) -> str:
    """The contract as the user named it: a preset's name beside its contract's."""
    named = str(run.spec.get("contract") or run.contract)
    return run.contract if named == run.contract else f"{named} ({run.contract})"


def run_summary(run: RunRecord, archive: Path, decisions: Sequence[DecisionRecord] = ()) -> Table:
    """A finished run: its outcome and totals; with its decisions, also what the prompts
    held per layer, fallbacks and parse errors, and the transcript counterfactual."""
    title = f"{run.env_id} / {contract_label(run)} / {run.model} / seed {run.seed}"
    table = Table(title=escape(title))
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key, value in run.outcome.items():
        if key == "decisions":  # the run's own count follows
            continue
        if isinstance(value, float):
            value = f"{value:.3f}"
        table.add_row(key, str(value))
    table.add_row("decisions", str(run.decisions))
    reply = run.model_params.get("reply")
    if reply:
        table.add_row("reply mode", reply_line(reply))
    table.add_row("model calls", str(run.model_calls))
    table.add_row("total prompt tokens (reported, for cost)", str(run.prompt_tokens))
    counted = sum(int(usage.get("counted_prompt_tokens", 0)) for usage in run.usage.values())
    if counted:
        table.add_row("total prompt tokens (counted, for context)", str(counted))
    table.add_row("last-step prompt tokens (reported)", str(run.last_prompt_tokens))
    table.add_row("cached prompt tokens", str(run.cached_tokens))
    table.add_row("wall time (s)", f"{run.wall_s:.1f}")
    if len(run.usage) > 1:
        for model_id, usage in run.usage.items():
            table.add_row(
                f"  {model_id}", f"{usage['calls']} calls, {usage['prompt_tokens']} prompt tokens"
            )
    mismatch = token_mismatch(run)
    if mismatch is not None:
        table.add_row("[bold red]token counts disagree[/]", escape(mismatch))
    verdicts = run.postrun.get("verdicts", [])
    if verdicts:
        admitted = sum(bool(v.get("accepted")) for v in verdicts)
        table.add_row(
            "postrun writes admitted / refused", f"{admitted} / {len(verdicts) - admitted}"
        )
    if decisions:
        add_decision_rows(table, decisions)
        add_counterfactual_rows(table, run, decisions)
    table.add_row("archive", escape(f"{archive} (run {run.run_id[:12]})"))
    return table


def reply_line(reply: dict[str, Any]) -> str:
    """A run's reply mode, the response format sent and whether replies kept to it."""
    line = f"{reply.get('mode')} ({reply.get('response_format') or 'none'}"
    honoured = reply.get("honoured")
    if honoured is not None:
        line += ", honoured" if honoured else f", {reply.get('off_format', 0)} off format"
    line += ")"
    if reply.get("asked") and reply.get("asked") != reply.get("mode"):
        line += f", asked {reply['asked']}: refused"
    return escape(line)


def add_decision_rows(table: Table, decisions: Sequence[DecisionRecord]) -> None:
    """Fallbacks, parse errors and prompt tokens per layer over a run's decisions."""
    table.add_row("fallback actions", str(sum(d.fallback for d in decisions)))
    table.add_row("parse errors", str(sum(d.parse_error is not None for d in decisions)))
    table.add_row("invalid actions", str(sum(invalid_count(d.info) for d in decisions)))
    layers: dict[str, int] = {}
    for record in decisions:
        for layer, tokens in record.tokens_by_layer.items():
            layers[layer] = layers.get(layer, 0) + tokens
    total = max(1, sum(layers.values()))
    for layer, tokens in layers.items():
        table.add_row(f"  {layer}", f"{tokens:,} ({tokens / total:.0%})")


def add_counterfactual_rows(
    table: Table, run: RunRecord, decisions: Sequence[DecisionRecord]
) -> None:
    """What a transcript agent would have sent for the same decisions (`bounded audit`'s
    counterfactual): its prompt tokens, its cost under prefix caching at the shipped
    `list-2025` prices (docs/cost.md; a ratio, the prices named in the line) against this
    run's, and how much of this run's prompts the cache served."""
    from bounded.analysis.audit import audit_run
    from bounded.analysis.cost import CostModel, list_prices

    listed = CostModel(models=dict.fromkeys({run.model, *run.usage}, list_prices()))
    audit = audit_run(run, decisions, listed)  # a ratio at list prices, a free model's too
    if not audit.total_prompt:
        return
    ratio = audit.counterfactual_total / audit.total_prompt
    table.add_row(
        "a transcript would have sent (counted)",
        f"{audit.counterfactual_total:,} tokens ({ratio:.1f}x)",
    )
    if audit.cost and audit.counterfactual_cost is not None:
        cost_ratio = audit.counterfactual_cost / audit.cost
        table.add_row(
            "  its cost under prefix caching", f"{cost_ratio:.1f}x this run's (list-2025 prices)"
        )
    served = audit.total_cached / audit.total_prompt
    table.add_row("prompt tokens served from the cache", f"{served:.1%}")


def usage_text(games: int, usage: dict[str, dict[str, float]], costs: SweepPrices) -> str:
    """Games, model calls, prompt tokens and their cost at the sweep's prices."""
    from bounded.analysis.cost import money

    calls = sum(counts["calls"] for counts in usage.values())
    tokens = sum(counts["prompt_tokens"] for counts in usage.values())
    cost, unpriced = costs.cost(usage)
    spend = f"cost {money(cost, unpriced, costs.currency)}"
    return f"{games} games, {calls:,.0f} model calls, {tokens:,.0f} prompt tokens, {spend}"


__all__ = [
    "add_counterfactual_rows",
    "add_decision_rows",
    "console",
    "contract_label",
    "folded",
    "number",
    "plain",
    "print_folded",
    "run_summary",
    "usage_text",
]
