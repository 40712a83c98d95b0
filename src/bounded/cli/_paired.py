"""How `bounded analyze --compare` prints paired comparisons: the wins table (discordant
pairs, exact McNemar, Newcombe's paired interval beside the unpaired one), the score and
floor table (paired bootstrap and signed-rank beside the unpaired analysis), the Holm
line, the games without a partner, and a sweep's anytime-valid interval."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table

from bounded.analysis.paired import MeanComparison, PairedComparison, UnpairedGame
from bounded.cli._output import console, keyed_table, plain, print_folded

LISTED = 20
"""Unpaired games listed per side before the rest are counted."""


def _p(value: float | None) -> str:
    if value is None:
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _pct(value: float) -> str:
    return f"{100 * value:+.1f}"


def _narrowed(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def wins_view(comparisons: Sequence[PairedComparison]) -> Table:
    """Wins on common seeds, paired (exact McNemar, Newcombe) and unpaired (Fisher)."""
    view = keyed_table(
        "wins on common seeds, A minus B (points); paired: exact McNemar, Newcombe's "
        "interval; unpaired: same games as independent samples",
        ("A", "B", "pairs", "both/A only/B only/neither", "A - B", "paired 95% CI",
         "McNemar p", "Holm p", "unpaired 95% CI", "Fisher p", "narrowed"),
        keys=2,
    )  # fmt: skip
    for c in comparisons:
        w = c.wins
        if w is None:
            continue
        view.add_row(
            escape(c.a), escape(c.b), str(w.pairs),
            f"{w.both}/{w.only_a}/{w.only_b}/{w.neither}", _pct(w.difference),
            f"[{_pct(w.low)}, {_pct(w.high)}]", _p(w.p_value), _p(w.p_holm),
            f"[{_pct(w.unpaired_low)}, {_pct(w.unpaired_high)}]", _p(w.unpaired_p),
            _narrowed(w.narrowing),
        )  # fmt: skip
    return view


def means_view(comparisons: Sequence[PairedComparison]) -> Table:
    """Mean score and floor differences, paired bootstrap and signed-rank beside the
    unpaired bootstrap and Mann-Whitney."""
    view = keyed_table(
        "mean differences on common seeds, A minus B; paired: bootstrap over pairs, "
        "signed-rank; unpaired: cells resampled apart, Mann-Whitney",
        ("A", "B", "metric", "pairs", "A - B", "paired 95% CI", "signed-rank p", "Holm p",
         "unpaired 95% CI", "Mann-Whitney p", "narrowed"),
        keys=3,
    )  # fmt: skip
    for c in comparisons:
        for m in c.means:
            view.add_row(*_mean_cells(c, m))
    return view


def _mean_cells(c: PairedComparison, m: MeanComparison) -> list[str]:
    return [
        escape(c.a), escape(c.b), m.metric, str(m.pairs), f"{m.difference:+.2f}",
        f"[{m.low:+.2f}, {m.high:+.2f}]", _p(m.p_value), _p(m.p_holm),
        f"[{m.unpaired_low:+.2f}, {m.unpaired_high:+.2f}]", _p(m.unpaired_p),
        _narrowed(m.narrowing),
    ]  # fmt: skip


def unpaired_line(cell: str, other: str, games: Sequence[UnpairedGame]) -> str:
    """The games of `cell` whose seed `other` has no completed game of."""
    listed = ", ".join(f"seed {g.seed} ({g.run_id[:12]})" for g in games[:LISTED])
    more = f" and {len(games) - LISTED} more" if len(games) > LISTED else ""
    return (
        f"unpaired: {len(games)} games of {cell} have no game of {other} on their seed, "
        f"left out of the paired analysis: {listed}{more}"
    )


def print_paired(comparisons: Sequence[PairedComparison], holm_tests: int) -> None:
    """Every paired comparison of a table."""
    if any(c.wins for c in comparisons):
        print_folded(wins_view(comparisons), keys=2)
    if any(c.means for c in comparisons):
        print_folded(means_view(comparisons), keys=3)
    if holm_tests > 1:
        plain(
            f"Holm: the {holm_tests} paired tests above (every McNemar and signed-rank test "
            "of this call) are adjusted together for multiplicity (Holm p)"
        )
    for c in comparisons:
        if not c.pairs:
            console.print(f"[red]no common seeds[/red]: {escape(c.a)} and {escape(c.b)}")
        for cell, other, games in ((c.a, c.b, c.unpaired_a), (c.b, c.a, c.unpaired_b)):
            if games:
                plain(unpaired_line(cell, other, games))
        if c.anytime is not None:
            plain(anytime_line(c))


def anytime_line(c: PairedComparison) -> str:
    """A sweep stopped when decided: its rule and the anytime-valid interval, which
    replaces the fixed-size intervals above (those assume the games were not chosen by
    looking at the results)."""
    t = c.anytime
    assert t is not None
    scale = 100.0 if t.metric == "wins" else 1.0
    unit = " points" if t.metric == "wins" else ""
    verdict = "excludes 0" if t.decided else "includes 0"
    return (
        f"{c.a} vs {c.b} was played until decided ({t.reason}): {t.rule} at level "
        f"{t.level:g} on {t.metric}; anytime-valid {100 * (1 - t.level):g}% interval of A - B "
        f"over {t.pairs} pairs: [{scale * t.low:+.1f}, {scale * t.high:+.1f}]{unit} "
        f"({verdict}); use it, not the fixed-size intervals above, for this comparison"
    )


__all__ = ["anytime_line", "print_paired", "unpaired_line"]
