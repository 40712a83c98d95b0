"""The report's figures, drawn with matplotlib and inlined as SVG text (also as PDF where
asked, `keeping_pdfs`, for figure files a paper takes)."""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from bounded.analysis.audit import ContextAudit, RunAudit
from bounded.analysis.games import CompletedGame
from bounded.analysis.rows import CellRow

WIDTH = 7.5


PDFS: ContextVar[dict[str, bytes] | None] = ContextVar("pdfs", default=None)
"""While `keeping_pdfs` runs: each figure drawn, as PDF, by its SVG text."""


@contextmanager
def keeping_pdfs() -> Iterator[dict[str, bytes]]:
    """Every figure drawn in the block is also rendered as PDF, kept by its SVG text (a
    report's figures written as files: `bounded report --figures DIR`)."""
    kept: dict[str, bytes] = {}
    token = PDFS.set(kept)
    try:
        yield kept
    finally:
        PDFS.reset(token)


def to_svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    text = buffer.getvalue()
    text = text[text.index("<svg") :]  # drop the XML prolog: the SVG is inlined in HTML
    pdfs = PDFS.get()
    if pdfs is not None:
        pdf = io.BytesIO()
        figure.savefig(pdf, format="pdf", bbox_inches="tight")
        pdfs[text] = pdf.getvalue()
    plt.close(figure)
    return text


def _height(rows: int) -> float:
    return max(2.0, 0.45 * rows + 1.0)


def win_rate_plot(rows: Sequence[CellRow]) -> str:
    """Win rate per row with its interval (a pooled row grey)."""
    figure, axes = plt.subplots(figsize=(WIDTH, _height(len(rows))))
    for y, row in enumerate(rows):
        colour = "tab:gray" if row.interval == "clopper-pearson" else "tab:blue"
        rate = 100 * row.win_rate if row.games else 0.0
        axes.errorbar(
            rate,
            y,
            xerr=[[rate - 100 * row.win_low], [100 * row.win_high - rate]] if row.games else None,
            fmt="o",
            color=colour,
            capsize=4,
        )
        axes.annotate(
            f"{row.wins}/{row.games}", (rate, y), xytext=(6, 6), textcoords="offset points"
        )
    axes.set_yticks(range(len(rows)), [row.label for row in rows])
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("win rate (%), 95% interval")
    axes.grid(axis="x", alpha=0.3)
    return to_svg(figure)


SCORE_POINTS = 200
"""Games a row of the score plot draws as points at most: a row of more draws every k-th
of its games in their order (k the least that keeps it within), and the axis says so;
its box is over every game. The page's size does not grow with the games (10,000 games
drew 1.3 MB of points)."""


def drawn_points(values: Sequence[float]) -> tuple[Sequence[float], int]:
    """The scores a row draws as points, and k: every k-th of them (1: all)."""
    step = max(1, -(-len(values) // SCORE_POINTS))
    return values[::step], step


def score_plot(labels: Sequence[str], scores: Sequence[Sequence[float]]) -> str:
    """Each cell's derived scores: a box over every game, and the games as points (every
    k-th of a row of more than `SCORE_POINTS`)."""
    figure, axes = plt.subplots(figsize=(WIDTH, _height(len(labels))))
    present = [(i, s) for i, s in enumerate(scores) if s]
    label = "derived score per game"
    if present:
        axes.boxplot(
            [s for _, s in present],
            positions=[i for i, _ in present],
            orientation="horizontal",
            widths=0.5,
        )
        steps = []
        for i, values in present:
            drawn, step = drawn_points(values)
            steps.append(step)
            axes.scatter(drawn, [i] * len(drawn), s=14, alpha=0.6, color="tab:orange", zorder=3)
        if max(steps) > 1:
            label += f" (points: at most {SCORE_POINTS} a row, evenly spaced; box: every game)"
    axes.set_yticks(range(len(labels)), list(labels))
    axes.invert_yaxis()
    axes.set_xlabel(label)
    axes.grid(axis="x", alpha=0.3)
    return to_svg(figure)


def audit_groups(runs: Sequence[RunAudit]) -> dict[str, list[RunAudit]]:
    """The runs by contract and tag, and by environment where they span several (they
    are never pooled), in label order."""
    several = len({run.env_id for run in runs}) > 1
    groups: dict[str, list[RunAudit]] = {}
    for run in runs:
        label = f"{run.contract} ({run.tag})" if run.tag else run.contract
        groups.setdefault(f"{label}, {short_env(run.env_id)}" if several else label, []).append(run)
    return dict(sorted(groups.items()))


def short_env(env_id: str) -> str:
    """An environment's short name (`crafter`), its id where it has no record."""
    from bounded.env_records import env_record

    record = env_record(env_id)
    return record.name if record is not None else env_id


def context_plot(audit: ContextAudit) -> str:
    """Mean prompt tokens against the decision index per contract and tag; dashed: the
    transcript counterfactual of the same decisions."""
    figure, axes = plt.subplots(figsize=(WIDTH, 4.0))
    groups = audit_groups(audit.runs)
    for index, (label, runs) in enumerate(groups.items()):
        colour = f"C{index % 10}"
        actual: dict[int, list[int]] = {}
        shadow: dict[int, list[int]] = {}
        for run in runs:
            for point in run.points:
                actual.setdefault(point.index, []).append(point.prompt_tokens)
                shadow.setdefault(point.index, []).append(point.counterfactual_tokens)
        xs = sorted(actual)
        axes.plot(xs, [sum(actual[x]) / len(actual[x]) for x in xs], color=colour, label=label)
        axes.plot(
            xs,
            [sum(shadow[x]) / len(shadow[x]) for x in xs],
            color=colour,
            linestyle="--",
            alpha=0.6,
        )
    axes.set_xlabel("decision index")
    axes.set_ylabel("prompt tokens (mean over runs, log scale)")
    axes.set_yscale("log", nonpositive="mask")  # a bounded contract stays visible beside
    if groups:  # a transcript counterfactual thousands of times its size
        axes.legend(fontsize="small", title="solid: actual, dashed: transcript counterfactual")
    axes.grid(alpha=0.3)
    return to_svg(figure)


def layer_plot(audit: ContextAudit) -> str | None:
    """Per contract (and tag): mean prompt tokens per layer against the decision index;
    None where no run stored its prompts' layers."""
    stored = [run for run in audit.runs if any(point.by_layer for point in run.points)]
    groups = audit_groups(stored)  # a run without stored prompts has nothing to stack
    if not groups:
        return None
    figure, axes_list = plt.subplots(
        len(groups), 1, figsize=(WIDTH, 2.4 * len(groups)), squeeze=False, sharex=True
    )
    for axes, (label, runs) in zip(axes_list[:, 0], groups.items(), strict=True):
        layers = list(dict.fromkeys(layer for run in runs for layer in run.layers))
        sums: dict[int, dict[str, float]] = {}
        counts: dict[int, int] = {}
        for run in runs:
            for point in run.points:
                row = sums.setdefault(point.index, dict.fromkeys(layers, 0.0))
                for layer, tokens in point.by_layer.items():
                    row[layer] += tokens
                counts[point.index] = counts.get(point.index, 0) + 1
        xs = sorted(sums)
        stacks = [[sums[x][layer] / counts[x] for x in xs] for layer in layers]
        axes.stackplot(xs, stacks, labels=layers, alpha=0.85)
        axes.set_title(label, fontsize="medium", loc="left")
        axes.set_ylabel("tokens")
        axes.legend(fontsize="x-small", loc="upper left", ncols=min(len(layers), 5))
        axes.grid(alpha=0.3)
    axes_list[-1, 0].set_xlabel("decision index")
    return to_svg(figure)


def progression_plot(labels: Sequence[str], means: Sequence[float], errors: Sequence[float]) -> str:
    """BALROG's measure: each cell's mean progression (%), its standard error as whiskers."""
    figure, axes = plt.subplots(figsize=(WIDTH, _height(len(labels))))
    ys = range(len(labels))
    axes.barh(ys, means, xerr=errors, color="tab:purple", alpha=0.8, capsize=4)
    for y, (mean, error) in enumerate(zip(means, errors, strict=True)):
        axes.annotate(
            f"{mean:.1f} ± {error:.1f}", (min(mean + error, 100), y), xytext=(6, -4),
            textcoords="offset points", fontsize="small",
        )  # fmt: skip
    axes.set_yticks(ys, list(labels))
    axes.invert_yaxis()
    axes.set_xlim(0, 100)
    axes.set_xlabel("progression (%), mean ± standard error")
    axes.grid(axis="x", alpha=0.3)
    return to_svg(figure)


def tokens_per_point_plot(rows: Sequence[CellRow]) -> str:
    rows = [row for row in rows if row.tokens_per_point is not None]
    figure, axes = plt.subplots(figsize=(WIDTH, _height(len(rows))))
    axes.barh(range(len(rows)), [row.tokens_per_point or 0.0 for row in rows], color="tab:green")
    axes.set_yticks(range(len(rows)), [row.label for row in rows])
    axes.invert_yaxis()
    axes.set_xlabel("tokens per score point")
    axes.grid(axis="x", alpha=0.3)
    return to_svg(figure)


def scores_by_row(rows: Sequence[CellRow], games: Sequence[CompletedGame]) -> list[list[float]]:
    by_id = {game.run_id: game for game in games}
    return [
        [by_id[i].score for i in row.run_ids if i in by_id and by_id[i].score is not None]  # type: ignore[misc]
        for row in rows
    ]


__all__ = [
    "PDFS",
    "audit_groups",
    "context_plot",
    "keeping_pdfs",
    "layer_plot",
    "progression_plot",
    "score_plot",
    "scores_by_row",
    "tokens_per_point_plot",
    "win_rate_plot",
]
