"""How `bounded analyze --compare` prints paired comparisons: the wins table (per block
and pooled over the blocks: discordant pairs, McNemar's test with Tango's interval, the
exact McNemar test; the unpaired analysis beside the pooled row), the means table
(the stratified paired t and its interval, the bootstrap within blocks), the lines saying
why a test and an interval beside it can disagree, the Holm line, the games without a
partner, and a sweep's anytime-valid interval."""

from __future__ import annotations

from collections.abc import Sequence

from rich.markup import escape
from rich.table import Table

from bounded.analysis.paired import MeanComparison, PairedComparison, UnpairedGame, WinComparison
from bounded.cli._output import console, keyed_table, plain, print_folded

LISTED = 20
"""Unpaired games listed per side before the rest are counted."""
ALL_BLOCKS = "all blocks"
"""The block column of a row pooled over the blocks."""


def _p(value: float | None) -> str:
    if value is None or value != value:
        return "—"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "—" if value is None or value != value else f"{100 * value:+.1f}"


def _num(value: float | None) -> str:
    return "—" if value is None or value != value else f"{value:+.2f}"


def _narrowed(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def _block(c: PairedComparison, block: str | None) -> str:
    if block is not None:
        return escape(block) or "—"
    return ALL_BLOCKS if len(c.blocks) > 1 else escape(c.blocks[0]) if c.blocks else "—"


def wins_view(comparisons: Sequence[PairedComparison]) -> Table:
    """Wins on common (block, seed), per block and pooled over the blocks."""
    view = keyed_table(
        "wins on common (block, seed), A minus B (points); paired: McNemar's test (all "
        "blocks: stratified) and Tango's interval, its inversion, both with Edwards' "
        "continuity correction; exact McNemar beside; unpaired: same games as independent "
        "samples",
        ("A", "B", "block", "pairs", "both/A only/B only/neither", "A - B", "paired 95% CI",
         "McNemar p", "Holm p", "exact McNemar p", "unpaired 95% CI", "Fisher p", "narrowed"),
        keys=3,
    )  # fmt: skip
    for c in comparisons:
        for w in [*c.block_wins, *([c.wins] if c.wins else [])]:
            view.add_row(*_win_cells(c, w))
    return view


def _win_cells(c: PairedComparison, w: WinComparison) -> list[str]:
    unpaired = (
        f"[{_pct(w.unpaired_low)}, {_pct(w.unpaired_high)}]" if w.unpaired_low is not None else "—"
    )
    return [
        escape(c.a), escape(c.b), _block(c, w.block), str(w.pairs),
        f"{w.both}/{w.only_a}/{w.only_b}/{w.neither}", _pct(w.difference),
        f"[{_pct(w.low)}, {_pct(w.high)}]", _p(w.p_value), _p(w.p_holm), _p(w.exact_p),
        unpaired, _p(w.unpaired_p), _narrowed(w.narrowing),
    ]  # fmt: skip


def means_view(comparisons: Sequence[PairedComparison]) -> Table:
    """Mean differences per block and pooled: the stratified paired t and its interval, the
    bootstrap within blocks, the unpaired analysis."""
    view = keyed_table(
        "mean differences on common (block, seed), A minus B; paired: stratified t and its "
        "interval, bootstrap resampling seeds within blocks; unpaired: cells resampled "
        "apart, Mann-Whitney",
        ("A", "B", "metric", "block", "pairs", "A - B", "paired 95% CI", "t p", "Holm p",
         "bootstrap 95% CI", "unpaired 95% CI", "Mann-Whitney p", "narrowed"),
        keys=4,
    )  # fmt: skip
    for c in comparisons:
        for m in [*c.block_means, *c.means]:
            view.add_row(*_mean_cells(c, m))
    return view


def _mean_cells(c: PairedComparison, m: MeanComparison) -> list[str]:
    unpaired = (
        f"[{_num(m.unpaired_low)}, {_num(m.unpaired_high)}]" if m.unpaired_low is not None else "—"
    )
    return [
        escape(c.a), escape(c.b), m.metric, _block(c, m.block), str(m.pairs),
        _num(m.difference), f"[{_num(m.low)}, {_num(m.high)}]", _p(m.p_value), _p(m.p_holm),
        f"[{_num(m.bootstrap_low)}, {_num(m.bootstrap_high)}]", unpaired, _p(m.unpaired_p),
        _narrowed(m.narrowing),
    ]  # fmt: skip


WHY_EXACT = (
    "the paired interval inverts McNemar's test (McNemar p); the exact McNemar test "
    "conditions on the number of discordant pairs and is conservative, so its p can exceed "
    "0.05 while the interval excludes 0 (where they disagree: {rows})"
)
WHY_BOOTSTRAP = (
    "the paired interval inverts the stratified t test (t p); the bootstrap interval "
    "(seeds resampled within blocks) checks its normality and is no test's inversion, so "
    "it can exclude 0 while t p exceeds 0.05 (where they disagree: {rows})"
)


def disagreements(comparisons: Sequence[PairedComparison]) -> list[str]:
    """One line per kind of disagreement between a test and an interval beside it."""
    exact, boot = [], []
    for c in comparisons:
        for w in [*([c.wins] if c.wins else []), *c.block_wins]:
            if (w.exact_p > 0.05) != (w.p_value > 0.05):
                exact.append(f"{c.a} vs {c.b} {_block(c, w.block)}")
        for m in [*c.means, *c.block_means]:
            outside = m.bootstrap_low > 0 or m.bootstrap_high < 0
            if m.p_value == m.p_value and outside != (m.p_value <= 0.05):
                boot.append(f"{c.a} vs {c.b} {m.metric} {_block(c, m.block)}")
    lines = [WHY_EXACT.format(rows="; ".join(exact))] if exact else []
    return lines + ([WHY_BOOTSTRAP.format(rows="; ".join(boot))] if boot else [])


def unpaired_line(cell: str, other: str, games: Sequence[UnpairedGame]) -> str:
    """The games of `cell` whose (block, seed) `other` has no completed game of."""
    listed = ", ".join(
        f"{g.block + ' ' if g.block else ''}seed {g.seed} ({g.run_id[:12]})" for g in games[:LISTED]
    )
    more = f" and {len(games) - LISTED} more" if len(games) > LISTED else ""
    return (
        f"unpaired: {len(games)} games of {cell} have no game of {other} on their seed "
        f"and block, left out of the paired analysis: {listed}{more}"
    )


def print_paired(comparisons: Sequence[PairedComparison], holm_tests: int) -> None:
    """Every paired comparison of a table."""
    if any(c.wins for c in comparisons):
        print_folded(wins_view(comparisons), keys=3)
    if any(c.means for c in comparisons):
        print_folded(means_view(comparisons), keys=4)
    for line in disagreements(comparisons):
        plain(line)
    if holm_tests > 1:
        plain(
            f"Holm: the {holm_tests} paired tests above (every McNemar and t test of this "
            "call, per block and over all blocks) are adjusted together for multiplicity "
            "(Holm p)"
        )
    for c in comparisons:
        if not c.pairs:
            console.print(
                f"[red]no common seeds in any block[/red]: {escape(c.a)} and {escape(c.b)}"
            )
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


__all__ = ["anytime_line", "disagreements", "print_paired", "unpaired_line"]
