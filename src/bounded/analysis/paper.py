"""A paper's table: one metric, rows by one field and columns by another, every entry with
its 95% interval, and (where asked) paired differences between two columns per row.

Metrics, per completed game: `progression` (the environment's progress, in percent: BALROG's
measure), `wins` (100 for a victory, else 0: the entry is the win rate, its interval
Wilson's), `score` (`bounded.analysis.games.derived_score`) and `tokens` (prompt tokens as
bounded counted them, `bounded.archive.totals`; the reported ones where none were counted).
An entry's interval is the seeded percentile bootstrap of the mean (Wilson's for wins). A
paired difference A - B pairs a row's games of columns A and B by seed
(`bounded.analysis.paired.pair_games`'s rule: one game per seed and column) and bootstraps
the mean of the paired differences (`paired_bootstrap_interval`); seeds without a partner
are counted, never silently dropped.

Rendered as LaTeX (booktabs), Markdown or CSV (one line per entry and difference).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from typing import Literal, get_args

from pydantic import BaseModel, Field

from bounded.analysis.balrog import balrog_tasks
from bounded.analysis.games import derived_score
from bounded.analysis.paired import paired_bootstrap_interval
from bounded.analysis.stats import BOOTSTRAP_SEED, bootstrap_mean_interval, wilson_interval
from bounded.core import ConfigError, RunRecord, victory_of
from bounded.registry import did_you_mean

Metric = Literal["progression", "wins", "score", "tokens"]
METRICS: tuple[str, ...] = get_args(Metric)
Field_ = Literal["env", "env_id", "cell", "tag", "contract", "model", "experiment"]
FIELDS: tuple[str, ...] = get_args(Field_)
Format = Literal["latex", "markdown", "csv"]
FORMATS: tuple[str, ...] = get_args(Format)

UNITS = {"progression": "%", "wins": "% won", "score": "points", "tokens": "prompt tokens"}


class Entry(BaseModel):
    row: str
    col: str
    games: int
    mean: float
    low: float
    high: float


class Difference(BaseModel):
    """Column `a` minus column `b` in one row, over the games paired by seed."""

    row: str
    a: str
    b: str
    pairs: int
    mean: float | None = None
    low: float | None = None
    high: float | None = None
    unpaired: int = 0
    """Games of either column whose seed has no game in the other."""


class PaperTable(BaseModel):
    metric: str
    rows_by: str
    cols_by: str
    rows: list[str] = Field(default_factory=list)
    cols: list[str] = Field(default_factory=list)
    entries: list[Entry] = Field(default_factory=list)
    differences: list[Difference] = Field(default_factory=list)
    skipped: int = 0
    """Completed games without a value of the metric (left out, counted here)."""

    def entry(self, row: str, col: str) -> Entry | None:
        return next((e for e in self.entries if (e.row, e.col) == (row, col)), None)


def env_name(run: RunRecord) -> str:
    """BALROG's name of the environment where it has one, else our id's short name."""
    found = balrog_tasks(run.env_id)
    if found is not None:
        return found.env
    return run.env_id.removeprefix("bounded/").removesuffix("-v0").lower()


def field_value(run: RunRecord, field: str) -> str:
    return env_name(run) if field == "env" else str(getattr(run, field))


def progression(run: RunRecord) -> float | None:
    value = run.outcome.get("progress", run.outcome.get("progression"))
    return 100.0 * float(value) if isinstance(value, int | float) else None


def counted_tokens(run: RunRecord) -> float:
    counted = sum(int(u.get("counted_prompt_tokens", 0) or 0) for u in run.usage.values())
    return float(counted or run.prompt_tokens)


METRIC_VALUES: dict[str, Callable[[RunRecord], float | None]] = {
    "progression": progression,
    "wins": lambda run: 100.0 if victory_of(run.outcome) else 0.0,
    "score": lambda run: derived_score(run.outcome),
    "tokens": counted_tokens,
}


def check_choice(name: str, value: str, known: Sequence[str]) -> None:
    if value not in known:
        raise ConfigError(
            f"{name} must be one of {', '.join(known)}, got {value!r}{did_you_mean(value, known)}"
        )


def entry_of(row: str, col: str, values: list[float], metric: str, seed: int) -> Entry:
    if metric == "wins":
        low, high = wilson_interval(sum(v > 0 for v in values), len(values))
        low, high = 100 * low, 100 * high
    else:
        low, high = bootstrap_mean_interval(values, seed=seed)
    mean = sum(values) / len(values)
    return Entry(row=row, col=col, games=len(values), mean=mean, low=low, high=high)


def paper_table(
    runs: Iterable[RunRecord],
    *,
    rows: str = "env",
    cols: str = "tag",
    metric: str = "progression",
    paired: Sequence[tuple[str, str]] = (),
    seed: int = BOOTSTRAP_SEED,
) -> PaperTable:
    """The table over the completed runs (see the module's docstring)."""
    check_choice("--rows", rows, FIELDS)
    check_choice("--cols", cols, FIELDS)
    check_choice("--metric", metric, METRICS)
    table = PaperTable(metric=metric, rows_by=rows, cols_by=cols)
    cells: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for run in runs:
        if run.status != "completed":
            continue
        value = METRIC_VALUES[metric](run)
        if value is None:
            table.skipped += 1
            continue
        key = (field_value(run, rows), field_value(run, cols))
        cells.setdefault(key, []).append((run.seed, value))
    table.rows = sorted({row for row, _ in cells})
    table.cols = sorted({col for _, col in cells})
    for (row, col), seeded in sorted(cells.items()):
        table.entries.append(entry_of(row, col, [v for _, v in seeded], metric, seed))
    for a, b in paired:
        for name in (a, b):
            if name not in table.cols:
                raise ConfigError(
                    f"--paired: no column {name!r} (columns: {', '.join(table.cols)})"
                )
        for row in table.rows:
            table.differences.append(
                difference(row, a, b, cells.get((row, a), []), cells.get((row, b), []), seed)
            )
    return table


def by_seed(row: str, col: str, seeded: list[tuple[int, float]]) -> dict[int, float]:
    seeds = [seed for seed, _ in seeded]
    repeated = sorted({seed for seed in seeds if seeds.count(seed) > 1})
    if repeated:
        raise ConfigError(
            f"--paired: {row} / {col} holds seed {repeated[0]} more than once; a paired "
            "difference needs one game per seed (choose --rows and --cols that split them)"
        )
    return dict(seeded)


def difference(
    row: str,
    a: str,
    b: str,
    games_a: list[tuple[int, float]],
    games_b: list[tuple[int, float]],
    seed: int,
) -> Difference:
    first, second = by_seed(row, a, games_a), by_seed(row, b, games_b)
    common = sorted(set(first) & set(second))
    found = Difference(row=row, a=a, b=b, pairs=len(common), unpaired=len(set(first) ^ set(second)))
    if common:
        values = [first[s] - second[s] for s in common]
        found.mean = sum(values) / len(values)
        found.low, found.high = paired_bootstrap_interval(values, seed=seed)
    return found


def number(value: float | None) -> str:
    return "--" if value is None else f"{value:.1f}"


def entry_text(entry: Entry | None) -> str:
    if entry is None:
        return "--"
    return f"{entry.mean:.1f} [{entry.low:.1f}, {entry.high:.1f}]"


def difference_text(found: Difference) -> str:
    if found.mean is None:
        return f"-- (0 pairs, {found.unpaired} unpaired)"
    pairs = f"{found.pairs} pair{'s' * (found.pairs != 1)}"
    text = f"{found.mean:+.1f} [{found.low:+.1f}, {found.high:+.1f}] ({pairs}"
    return text + (f", {found.unpaired} unpaired)" if found.unpaired else ")")


def caption(table: PaperTable) -> str:
    games = sorted({e.games for e in table.entries})
    span = f"{games[0]}" if len(games) == 1 else f"{games[0]}-{games[-1]}"
    span += " game" if games == [1] else " games"
    interval = "Wilson" if table.metric == "wins" else "percentile bootstrap"
    text = (
        f"{table.metric} ({UNITS[table.metric]}) by {table.rows_by} and {table.cols_by}: mean "
        f"[95% {interval} interval], {span} per entry"
    )
    if table.skipped:
        text += f"; {table.skipped} games without a {table.metric} left out"
    return text


LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(char, char) for char in text)


def grid(table: PaperTable) -> list[list[str]]:
    """The header line, then one line per row, as text."""
    lines = [[table.rows_by, *table.cols]]
    for row in table.rows:
        lines.append([row, *(entry_text(table.entry(row, col)) for col in table.cols)])
    return lines


def difference_grid(table: PaperTable) -> list[list[str]]:
    pairs = list(dict.fromkeys((d.a, d.b) for d in table.differences))
    lines = [[table.rows_by, *(f"{a} - {b} (paired)" for a, b in pairs)]]
    for row in table.rows:
        found = {(d.a, d.b): d for d in table.differences if d.row == row}
        lines.append([row, *(difference_text(found[pair]) for pair in pairs)])
    return lines


def latex_tabular(lines: list[list[str]], title: str) -> str:
    head, *body = lines
    spec = "l" + "r" * (len(head) - 1)
    out = [
        r"\begin{table}[t]", r"\centering", rf"\caption{{{latex_escape(title)}}}",
        rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
        " & ".join(latex_escape(cell) for cell in head) + r" \\", r"\midrule",
        *(" & ".join(latex_escape(cell) for cell in line) + r" \\" for line in body),
        r"\bottomrule", r"\end{tabular}", r"\end{table}",
    ]  # fmt: skip
    return "\n".join(out)


def markdown_table(lines: list[list[str]], title: str) -> str:
    head, *body = lines
    out = [f"{title}", "", "| " + " | ".join(head) + " |"]
    out.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    out.extend("| " + " | ".join(line) + " |" for line in body)
    return "\n".join(out)


def csv_text(table: PaperTable) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        ["kind", "metric", table.rows_by, table.cols_by, "games", "mean", "low", "high"]
    )
    for e in table.entries:
        writer.writerow(["entry", table.metric, e.row, e.col, e.games, e.mean, e.low, e.high])
    for d in table.differences:
        col = f"{d.a} - {d.b}"
        writer.writerow(["paired difference", table.metric, d.row, col, d.pairs, d.mean, d.low,
                         d.high])  # fmt: skip
    return buffer.getvalue()


def render(table: PaperTable, form: str) -> str:
    """The table in `form` (latex, markdown or csv)."""
    check_choice("--format", form, FORMATS)
    if not table.entries:
        raise ConfigError("no completed games to tabulate")
    if form == "csv":
        return csv_text(table)
    title = caption(table)
    write = latex_tabular if form == "latex" else markdown_table
    parts = [write(grid(table), title)]
    if table.differences:
        parts.append(write(difference_grid(table), f"paired differences of {table.metric}"))
    return "\n\n".join(parts) + "\n"


__all__ = [
    "FIELDS",
    "FORMATS",
    "METRICS",
    "Difference",
    "Entry",
    "PaperTable",
    "env_name",
    "latex_escape",
    "paper_table",
    "render",
]
