"""The report: one self-contained HTML page (tables, inline SVG plots, a run browser)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, NamedTuple

import jinja2
from pydantic import Field

from bounded.analysis.audit import ContextAudit, context_audit
from bounded.analysis.cost import cost_text
from bounded.analysis.fallbacks import Tallies, decision_tallies
from bounded.analysis.games import CompletedGame, completed_games
from bounded.analysis.options import TableOptions
from bounded.analysis.paper import PaperTable, paper_table, progression
from bounded.analysis.paper_render import notes, sections
from bounded.analysis.parity import PARITY_HEADERS, parity_rows
from bounded.analysis.published import published_table
from bounded.analysis.tables import CellTable
from bounded.archive import Archive
from bounded.archive.queries import (
    decisions_end,
    lean_runs,
    run_overview,
    runs_with_decisions_page,
)
from bounded.core import RunRecord
from bounded.report import plots
from bounded.report.attribution import attribution_section
from bounded.report.environments import EnvPlots, env_plots
from bounded.report.payload import json_for_script, run_payload, run_summary
from bounded.version import code_revision

LAYER_COLOURS = {
    "L1": "#dbeafe",
    "instructions": "#dbeafe",
    "spec": "#dbeafe",
    "task": "#dbeafe",
    "L2": "#dcfce7",
    "observation": "#dcfce7",
    "combat": "#d1fae5",
    "L3": "#fef9c3",
    "L4": "#ffedd5",
    "L5": "#fce7f3",
    "state": "#ede9fe",
    "transcript": "#e5e7eb",
    "history": "#e5e7eb",
    "episodic": "#cffafe",
    "fusion": "#cffafe",
    "working_memory": "#e0e7ff",
    "summaries": "#fae8ff",
    "queue": "#f5f5f4",
}
"""Background colour per prompt layer in the decision viewer; other layers are grey."""
OTHER_LAYER_COLOUR = "#f3f4f6"


class ReportOptions(TableOptions):
    """What goes into a report: the main cell table's options (cells, grouping, first N,
    pooled cells, Fisher tests, score differences, changes), and more."""

    tables: list[str] = Field(default_factory=list)
    """Published tables to add (`agenticsts-a0`, ...)."""
    max_runs: int = 100
    """Runs whose decisions are embedded in the page (the newest); `bounded view` has all."""
    max_decisions: int = 1000
    """Decisions embedded in the page in all: the first `max_decisions // runs` of each
    embedded run (at least one), so that the page does not grow with the games' length;
    `bounded view` loads every decision when it is opened."""
    audit_runs: int = 200
    """Runs read for the context audit (the newest with decisions)."""
    audit_decisions: int = 200_000
    """Decisions the context audit reads at most: of the `audit_runs` newest runs, the
    newest whose decisions fit (at least one run), so that long games do not make the
    page's audit grow with them."""
    title: str = ""
    """Page title (default: the archive's file name)."""
    experiment: str | None = None
    """Only the runs of this experiment (None: every run)."""
    baseline: str | None = None
    """The summary's baseline treatment (`bounded table --baseline`): every other treatment's
    paired differences against it."""


def report_runs(archive: Archive, options: ReportOptions) -> list[RunRecord]:
    """The runs a report reads: the archive's, or its experiment's, read a page at a time
    and held lean (`bounded.archive.queries.lean_runs`: what no section reads left out,
    what a sweep's cell repeats shared)."""
    return list(lean_runs(archive, options.experiment))


def priced(archive: Archive, runs: Sequence[RunRecord], options: ReportOptions) -> ReportOptions:
    """The options with the report's prices: `--prices`, else the archive's stored ones
    (`bounded.sweeps.board.archive_costs`), `--price` over them."""
    from bounded.sweeps.board import archive_costs

    costs = archive_costs(archive, runs, options.price_specs, options.price_files)
    return options.model_copy(update={"costs": costs})


def tables_of(
    runs: Sequence[RunRecord],
    options: ReportOptions,
    archive: Archive | None = None,
    tallies: Tallies | None = None,
) -> list[CellTable]:
    """The page's cell table, then the published tables asked for (`tallies`: the runs'
    decisions' tallies, read from `archive` when not given)."""
    from bounded.analysis.anytime import sequential_records

    records = sequential_records(archive) if archive is not None and options.compares else []
    if tallies is None and archive is not None:
        tallies = decision_tallies(archive)
    main = options.compute(runs, title="Cells", records=records, tallies=tallies)
    extra = [
        published_table(name).compute(
            runs,
            seed=options.seed,
            costs=options.costs,
            tallies=tallies,
            exclude_fallback_wins=options.exclude_fallback_wins,
        )
        for name in options.tables
    ]
    return [main, *extra]


def summary_of(
    runs: Sequence[RunRecord], options: ReportOptions, tallies: Tallies
) -> PaperTable | None:
    """The page's summary: `bounded table`'s paper table (tasks by treatments, averages,
    paired differences against `options.baseline`, what the agents did), of progression
    where every completed game records one, else of wins; None without completed games."""
    completed = [run for run in runs if run.status == "completed"]
    if not completed:
        return None
    metric = "progression" if all(progression(run) is not None for run in completed) else "wins"
    return paper_table(
        completed, metric=metric, baseline=options.baseline, seed=options.seed, tallies=tallies
    )


def _figures(audit: ContextAudit) -> dict[str, str]:
    """The plots over every environment: context growth and layers, one line or panel per
    contract, tag and environment."""
    figures = {}
    if audit.runs:
        figures["context"] = plots.context_plot(audit)
        layers = plots.layer_plot(audit)
        if layers is not None:
            figures["layers"] = layers
    return figures


def present_layers(archive: Archive) -> list[str]:
    """The layers the archive's prompts hold, known ones in the colour table's order (the
    viewer's legend shows these, not every layer kind there is)."""
    found = archive.layers()
    known = [layer for layer in LAYER_COLOURS if layer in found]
    return known + sorted(found - set(known))


def browsable_runs(archive: Archive, runs: Sequence[RunRecord], limit: int) -> list[RunRecord]:
    """The newest `limit` runs that have recorded decisions."""
    with_decisions = archive.runs_with_decisions()
    return [r for r in runs if r.run_id in with_decisions][-limit:]


def within_budget(runs: Sequence[RunRecord], options: ReportOptions) -> list[RunRecord]:
    """The newest of `runs` whose decisions add up to at most `options.audit_decisions`
    (the newest one at least), in their order."""
    kept: list[RunRecord] = []
    total = 0
    for run in reversed(runs):
        total += run.decisions
        if kept and total > options.audit_decisions:
            break
        kept.append(run)
    return kept[::-1]


def code_revisions(runs: Sequence[RunRecord]) -> list[str]:
    """The code revisions that played the runs, in order of first use (runs of a bounded
    that did not record one count as `unrecorded`)."""
    return list(dict.fromkeys(run.code_revision or "unrecorded" for run in runs))


def progress_payload(archive: Archive) -> list[dict[str, Any]]:
    """Each experiment's sweep progress per cell, as the archive has it now, and its time
    left (`bounded.sweeps.pace`)."""
    from bounded.sweeps.board import boards_from_archive
    from bounded.sweeps.pace import board_pace

    return [
        {**board.as_json(), "pace": board_pace(board).as_json()}
        for board in boards_from_archive(archive)
    ]


SVG_PROLOG = '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'


def write_figures(
    folder: Path, figures: dict[str, str], sets: Sequence[EnvPlots], pdfs: dict[str, bytes]
) -> list[Path]:
    """Each figure of the page as its own SVG and PDF file in `folder`: `context`, `layers`,
    and `ENV-KIND` per environment (`babyai-progression`, `warehouse-winrate`, ...)."""
    named = dict(figures)
    for plotted in sets:
        named.update({f"{plotted.slug}-{kind}": svg for kind, svg in plotted.figures.items()})
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, svg in named.items():
        (folder / f"{name}.svg").write_text(SVG_PROLOG + svg)
        (folder / f"{name}.pdf").write_bytes(pdfs[svg])
        written += [folder / f"{name}.svg", folder / f"{name}.pdf"]
    return written


VIEW_DECISIONS_PAGE = 100
"""Decisions the served page fetches at a time (`/api/runs/<run_id>/decisions?start=S&end=E`):
a decision is loaded when it is opened, whatever the game's length."""
VIEW_RUNS_PAGE = 500
"""Runs the served page lists at first; the page asks for the next ones as needed
(`/api/runs?after=RUN_ID`: keyset paging)."""


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("bounded.report", "templates"),
        autoescape=jinja2.select_autoescape(["html", "j2"]),
    )
    environment.filters["pct"] = lambda v: "—" if v != v else f"{100 * v:.1f}"
    environment.filters["num"] = lambda v, d=1: "—" if v is None or v != v else f"{v:,.{d}f}"
    environment.filters["parity_rows"] = parity_rows
    environment.filters["cost"] = cost_text
    return environment


class ReadRuns(NamedTuple):
    """What the page's sections keep of the runs once they are read: a run list can go."""

    options: ReportOptions
    tables: list[CellTable]
    summary: PaperTable | None
    games: list[CompletedGame]
    audited: list[RunRecord]


def read_runs(archive: Archive, options: ReportOptions, runs: Sequence[RunRecord]) -> ReadRuns:
    """The tables, summary, completed games and audited runs of the page, from the runs."""
    options = priced(archive, runs, options)
    tallies = decision_tallies(archive)  # one aggregate over every decision, read once
    tables = tables_of(runs, options, archive, tallies)
    summary = summary_of(runs, options, tallies)
    audited = within_budget(browsable_runs(archive, runs, options.audit_runs), options)
    return ReadRuns(options, tables, summary, completed_games(runs), audited)


def sections_context(
    archive: Archive, read: ReadRuns, figures_dir: Path | None = None
) -> dict[str, Any]:
    """What the page's analysis sections show (summary, tables, plots, context audit,
    attribution), from what was read of the runs (`read_runs`). With `figures_dir`, each
    figure is also written there as SVG and PDF (`write_figures`)."""
    options, tables, summary = read.options, read.tables, read.summary
    plotted = tables[1] if len(tables) > 1 else tables[0]  # a published table when asked for
    audit = context_audit(archive, read.audited, options.costs)
    with ExitStack() as stack:
        pdfs = stack.enter_context(plots.keeping_pdfs()) if figures_dir is not None else {}
        figures = _figures(audit)
        sets = env_plots(plotted, read.games)
    if figures_dir is not None:
        write_figures(figures_dir, figures, sets, pdfs)
    return {
        "tables": tables,
        "summary": sections(summary) if summary is not None else [],
        "summary_notes": notes(summary) if summary is not None else [],
        "parity_headers": PARITY_HEADERS,
        "figures": figures,
        "env_plots": sets,
        "plotted": plotted.title,
        "audit": audit,
        "audit_limits": (options.audit_runs, options.audit_decisions),
        "attribution": attribution_section(archive),
    }


def analysis_context(
    archive: Archive,
    options: ReportOptions,
    runs: Sequence[RunRecord],
    figures_dir: Path | None = None,
) -> dict[str, Any]:
    """What the page's analysis sections show, read from the archive (`read_runs`, then
    `sections_context`)."""
    return sections_context(archive, read_runs(archive, options, runs), figures_dir)


def page_context(archive: Archive, options: ReportOptions) -> dict[str, Any]:
    """What every page shows around its sections: title, provenance, the layers' legend."""
    return {
        "title": options.title or archive.path.name,
        "archive": str(archive.path),
        "generated": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "written_by": code_revision(),
        "layer_colours": LAYER_COLOURS,
        "legend_layers": present_layers(archive),
        "other_colour": OTHER_LAYER_COLOUR,
    }


def render_page(
    archive: Archive, options: ReportOptions, *, served: bool, figures_dir: Path | None = None
) -> str:
    """The page. A written report holds its analysis sections and a bounded sample of
    decisions (`ReportOptions.max_runs`, `max_decisions`); a served page (`bounded view`)
    is the frame alone, read by index whatever the archive's size: its first runs, the
    sections fetched from `/api/sections`, the sweeps' progress polled from
    `/api/progress`, and each run's decisions fetched when it is opened. With
    `figures_dir` (a written report), each figure is also written there as SVG and PDF."""
    if served:
        return served_page(archive, options)
    runs = report_runs(archive, options)
    browse = browsable_runs(archive, runs, options.max_runs)
    counts = {
        "runs": len(runs),
        "completed": sum(r.status == "completed" for r in runs),
        "browsable": len(browse),
    }
    played_by = code_revisions(runs)
    read = read_runs(archive, options, runs)
    del runs  # the audit, plots and page reuse its memory: the peak is not runs + plots
    analysis = sections_context(archive, read, figures_dir)
    per_run = max(1, options.max_decisions // max(1, len(browse)))
    decisions = {
        run.run_id: run_payload(archive.decisions(run.run_id, end=per_run)) for run in browse
    }
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            **page_context(archive, options),
            **analysis,
            played_by=played_by,
            counts={**counts, "decisions_per_run": per_run},
            runs_json=json_for_script([run_summary(r) for r in browse]),
            decisions_json=json_for_script(decisions),
            served=False,
            decisions_page=VIEW_DECISIONS_PAGE,
            progress=[],
            more_runs=False,
        )
    )


def served_page(archive: Archive, options: ReportOptions) -> str:
    """`bounded view`'s first page: aggregate counts and the first `VIEW_RUNS_PAGE` runs
    with decisions, each read by index; nothing scales with the archive's decisions."""
    overview = run_overview(archive, options.experiment)
    browse = runs_with_decisions_page(archive, options.experiment, limit=VIEW_RUNS_PAGE + 1)
    more = len(browse) > VIEW_RUNS_PAGE
    browse = browse[:VIEW_RUNS_PAGE]
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            **page_context(archive, options),
            played_by=overview.code_revisions,
            counts={
                "runs": overview.runs,
                "completed": overview.completed,
                "browsable": len(browse),
                "decisions_per_run": 0,
            },
            runs_json=json_for_script([run_summary(r) for r in browse]),
            decisions_json=json_for_script({}),
            served=True,
            decisions_page=VIEW_DECISIONS_PAGE,
            progress=None,
            more_runs=more,
        )
    )


def served_sections(archive: Archive, options: ReportOptions) -> str:
    """The analysis sections of a served page, as an HTML fragment (`/api/sections`)."""
    runs = report_runs(archive, options)
    analysis = analysis_context(archive, options, runs)
    return _environment().get_template("sections.html.j2").render(**analysis)


def served_decisions(
    archive: Archive, run_id: str, start: int = 0, end: int | None = None
) -> dict[str, Any]:
    """A run's decisions with index in [start, end) for the viewer (`run_payload`), and
    `end`: one past the run's last stored index (how far the viewer may step)."""
    payload = run_payload(archive.decisions(run_id, start=start, end=end))
    return {**payload, "end": decisions_end(archive, archive.full_id(run_id))}


def served_runs(
    archive: Archive, options: ReportOptions, offset: int = 0, *, after: str | None = None
) -> dict[str, Any]:
    """The next page of runs with decisions for a served page's run list (`/api/runs`):
    the runs after run id `after` (keyset paging: the page's cost does not grow with how
    many were listed before), skipping `offset` of them."""
    page = runs_with_decisions_page(
        archive, options.experiment, offset=offset, limit=VIEW_RUNS_PAGE + 1, after=after
    )
    return {
        "runs": [run_summary(r) for r in page[:VIEW_RUNS_PAGE]],
        "more": len(page) > VIEW_RUNS_PAGE,
    }


def build_report(
    archive_path: str | Path,
    out: str | Path,
    options: ReportOptions | None = None,
    figures_dir: Path | None = None,
) -> Path:
    """Write the report for an archive to `out` and return its path; with `figures_dir`,
    each figure also as its own SVG and PDF file there."""
    out = Path(out)
    with Archive(archive_path, read_only=True) as archive:
        page = render_page(
            archive, options or ReportOptions(), served=False, figures_dir=figures_dir
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page)
    return out


__all__ = [
    "LAYER_COLOURS",
    "VIEW_RUNS_PAGE",
    "ReportOptions",
    "build_report",
    "render_page",
    "served_decisions",
    "served_runs",
    "served_sections",
]
