"""The paper table (`bounded.analysis.paper`) as LaTeX (booktabs), Markdown or CSV.

Text formats print up to three tables: the entries (tasks, then the averages), the paired
differences against the baseline (and any `--paired` pair) with their p-values raw and
Holm-adjusted, and per entry the shares of decisions that fell back or failed to parse and
the invalid actions per decision. CSV prints one line per entry, average and difference.
"""

from __future__ import annotations

import csv
import io

from bounded.analysis.paper import FORMATS, UNITS, Difference, Entry, PaperTable, check_choice
from bounded.core import ConfigError

LATEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}  # fmt: skip


def latex_escape(text: str) -> str:
    return "".join(LATEX_SPECIAL.get(char, char) for char in text)


def entry_text(entry: Entry | None) -> str:
    if entry is None:
        return "--"
    return f"{entry.mean:.1f} [{entry.low:.1f}, {entry.high:.1f}]"


def p_text(p: float | None) -> str:
    return "--" if p is None else f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def difference_text(found: Difference) -> str:
    if found.mean is None:
        return f"-- (0 pairs, {found.unpaired} unpaired)"
    pairs = f"{found.pairs} pair{'s' * (found.pairs != 1)}"
    if found.low is None or found.high is None:
        text = f"{found.mean:+.1f} (no interval: one pair per block) ({pairs}"
    else:
        text = f"{found.mean:+.1f} [{found.low:+.1f}, {found.high:+.1f}]"
        text += f" p {p_text(found.p_value)}, Holm {p_text(found.p_holm)} ({pairs}"
    return text + (f", {found.unpaired} unpaired)" if found.unpaired else ")")


def share(value: float | None) -> str:
    return "--" if value is None else f"{100 * value:.0f}%"


def rates_text(entry: Entry | None) -> str:
    if entry is None or entry.fallback_rate is None:
        return "--"
    invalid = "--" if entry.invalid_action_rate is None else f"{entry.invalid_action_rate:.2f}"
    text = f"{share(entry.fallback_rate)} / {share(entry.parse_error_rate)} / {invalid}"
    return text + (f" ({entry.fallback_wins} won on fallbacks)" if entry.fallback_wins else "")


def caption(table: PaperTable) -> str:
    games = sorted({e.games for e in table.entries})
    span = f"{games[0]}" if len(games) == 1 else f"{games[0]}-{games[-1]}"
    span += " game" if games == [1] else " games"
    interval = "Wilson" if table.metric == "wins" else "percentile bootstrap"
    text = (
        f"{table.metric} ({UNITS[table.metric]}) by {table.rows_by} and {table.cols_by}: mean "
        f"[95% {interval} interval], {span} per entry"
    )
    if table.averages:
        text += "; averages: mean ± standard error (BALROG's)"
    if table.skipped:
        text += f"; {table.skipped} games without a {table.metric} left out"
    return text


def difference_caption(table: PaperTable) -> str:
    test = (
        "McNemar's test (continuity-corrected) with Tango's interval"
        if table.metric == "wins"
        else "the stratified paired t"
    )
    against = f" against the baseline {table.baseline}" if table.baseline else ""
    return (
        f"paired differences of {table.metric}{against}, games paired on (block, seed): mean "
        f"difference [95% interval], p by {test} pooled over each row's blocks, Holm-adjusted "
        f"over the table's {table.holm_tests} tests"
    )


def grid(table: PaperTable) -> list[list[str]]:
    """The header line, one line per task, then the averages, as text."""
    lines = [[table.rows_by, *table.cols]]
    for row in table.rows:
        lines.append([row, *(entry_text(table.entry(row, col)) for col in table.cols)])
    for row in table.average_rows:
        cells = []
        for col in table.cols:
            found = table.average(row, col)
            cells.append(
                "--" if found is None else f"{found.mean:.1f} ± {found.standard_error:.1f}"
            )
        lines.append([row if row == "average" else f"{row} (average)", *cells])
    return lines


def difference_grid(table: PaperTable) -> list[list[str]]:
    pairs = list(dict.fromkeys((d.a, d.b) for d in table.differences))
    lines = [[table.rows_by, *(f"{a} - {b} (paired)" for a, b in pairs)]]
    for row in [*table.rows, *table.average_rows]:
        found = {(d.a, d.b): d for d in table.differences if d.row == row}
        label = row if row in table.rows or row == "average" else f"{row} (average)"
        lines.append([label, *(difference_text(found[pair]) for pair in pairs)])
    return lines


def rates_grid(table: PaperTable) -> list[list[str]]:
    lines = [[table.rows_by, *table.cols]]
    for row in table.rows:
        lines.append([row, *(rates_text(table.entry(row, col)) for col in table.cols)])
    return lines


RATES_TITLE = "decisions that fell back / whose reply did not parse / invalid actions per decision"


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


CSV_HEAD = [
    "kind", "metric", "row", "col", "games", "mean", "low", "high", "standard_error",
    "p_value", "p_holm", "fallback_rate", "parse_error_rate", "invalid_action_rate",
    "fallback_wins",
]  # fmt: skip


def csv_text(table: PaperTable) -> str:
    """One line per entry, average and difference (`CSV_HEAD`; a difference's `games` is
    its pairs)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([*CSV_HEAD[:2], table.rows_by, table.cols_by, *CSV_HEAD[4:]])
    for e in table.entries:
        writer.writerow(["entry", table.metric, e.row, e.col, e.games, e.mean, e.low, e.high,
                         e.standard_error, "", "", e.fallback_rate, e.parse_error_rate,
                         e.invalid_action_rate, e.fallback_wins])  # fmt: skip
    for a in table.averages:
        writer.writerow(["average", table.metric, a.row, a.col, a.games, a.mean, "", "",
                         a.standard_error])  # fmt: skip
    for d in table.differences:
        writer.writerow(["paired difference", table.metric, d.row, f"{d.a} - {d.b}", d.pairs,
                         d.mean, d.low, d.high, "", d.p_value, d.p_holm])  # fmt: skip
    return buffer.getvalue()


def sections(table: PaperTable) -> list[tuple[list[list[str]], str]]:
    """The text formats' tables with their titles, in order."""
    found = [(grid(table), caption(table))]
    if table.differences:
        found.append((difference_grid(table), difference_caption(table)))
    if any(e.fallback_rate is not None for e in table.entries):
        found.append((rates_grid(table), RATES_TITLE))
    return found


def notes(table: PaperTable) -> list[str]:
    """Lines under the tables: the settings a treatment mixes (never pooled silently), and
    why a table is a diagonal where it is one."""
    found = [f"note: {line} (neither treatment nor block)" for line in table.mixed]
    return found + diagonal_note(table)


def diagonal_note(table: PaperTable) -> list[str]:
    """One line where every row holds a single column (rows by a field that fixes the
    column, `--rows cell --cols tag`): a diagonal that compares nothing within a row."""
    cols_of: dict[str, set[str]] = {}
    for entry in table.entries:
        cols_of.setdefault(entry.row, set()).add(entry.col)
    if len(table.cols) < 2 or any(len(cols) > 1 for cols in cols_of.values()):
        return []
    return [
        f"note: each {table.rows_by} holds one {table.cols_by}, so the table is a diagonal; "
        "tasks as rows and treatments as columns: --rows block (or a block option such as "
        "level) --cols treatment"
    ]


def render(table: PaperTable, form: str) -> str:
    """The table in `form` (latex, markdown or csv)."""
    check_choice("--format", form, FORMATS)
    if not table.entries:
        raise ConfigError("no completed games to tabulate")
    if form == "csv":
        return csv_text(table)
    write = latex_tabular if form == "latex" else markdown_table
    parts = [write(lines, title) for lines, title in sections(table)]
    comment = "% " if form == "latex" else ""
    parts += [f"{comment}{line}" for line in notes(table)]
    return "\n\n".join(parts) + "\n"


__all__ = [
    "RATES_TITLE",
    "caption",
    "grid",
    "latex_escape",
    "notes",
    "render",
    "sections",
]
