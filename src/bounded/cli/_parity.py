"""How a table's parity report prints (`bounded.analysis.parity`): a table of what else
could explain a difference between the cells, then a line per setting that differs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from bounded.cli._output import console, keyed_table, print_folded

if TYPE_CHECKING:
    from bounded.analysis.parity import ParityReport


def print_parity(report: ParityReport | None) -> None:
    """The parity table and its lines (nothing where no two cells meet in a block, but
    the settings a cell mixes)."""
    from bounded.analysis.parity import PARITY_HEADERS, parity_rows

    if report is None or not (report.compared or report.mixed):
        return
    if not report.compared:  # nothing to compare, but a cell mixes settings
        for line in report.lines():
            console.print(line, markup=False)
        return
    view = keyed_table("parity: what else differs between the cells", PARITY_HEADERS)
    for row in parity_rows(report):
        view.add_row(*(escape(text) for text in row))
    print_folded(view)
    for line in report.lines():
        console.print(line, markup=False)


__all__ = ["print_parity"]
