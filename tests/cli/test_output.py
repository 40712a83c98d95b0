"""Tables fold to the terminal's width instead of squeezing their columns to ellipses."""

import pytest
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bounded.archive import Archive
from bounded.cli import main
from bounded.cli._output import folded
from bounded.core import RunRecord

HEADERS = ["cell", *(f"column number {i}" for i in range(12))]


def wide_table() -> Table:
    table = Table(title="cells")
    for header in HEADERS:
        table.add_column(header, justify="left" if header == "cell" else "right")
    for label in ("mode-b-frozen [gap=2]", "mode-b-frozen [gap=8]"):
        table.add_row(escape(label), *(f"{1000 * i:,}" for i in range(12)))
    return table


def rendered(table: Table, width: int) -> str:
    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(table)
    return console.export_text()


def test_a_wide_table_folds_into_panels_that_fit_and_repeat_the_row_labels():
    panels = folded(wide_table(), 80)
    assert len(panels) > 1
    seen = []
    for panel in panels:
        text = rendered(panel, 80)
        assert max(len(line) for line in text.splitlines()) <= 80
        assert "…" not in text
        assert "mode-b-frozen [gap=2]" in text and "mode-b-frozen [gap=8]" in text
        seen += [str(column.header) for column in panel.columns[1:]]
    assert seen == HEADERS[1:]  # every column once, in order
    assert [panel.title for panel in panels][-1] == f"cells ({len(panels)}/{len(panels)})"


def test_a_table_that_fits_is_left_whole():
    table = wide_table()
    assert folded(table, 400) == [table]


def test_analyze_names_every_matrix_value_at_80_columns(tmp_path, capsys, monkeypatch):
    """Matrix cells are named `label[key=value]`: the brackets are text, not markup."""
    monkeypatch.setenv("COLUMNS", "80")
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        for index, cell in enumerate(["window10[gap=2]", "window10[gap=8]"]):
            archive.save_run(
                RunRecord(
                    run_id=f"r{index}", env_id="bounded/Warehouse-v0", contract="state",
                    model="m", seed=0, experiment="e", cell=cell, tag="window10",
                    status="completed", outcome={"victory": bool(index), "score": 1.0},
                    decisions=3, model_calls=3, prompt_tokens=30,
                )
            )  # fmt: skip
    with pytest.raises(SystemExit) as stop:
        main(["analyze", str(path), "--by", "cell"])
        raise SystemExit(0)
    out = capsys.readouterr().out
    assert stop.value.code == 0
    assert "window10[gap=2]" in out and "window10[gap=8]" in out
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= 80
