"""Renderers of the project's own comparisons through the paper-table path
(`bounded.analysis.paper`, `bounded.analysis.stratified`): the EpicStar Table 1 of wins with
its paired differences against `episodic`, the discordant pairs behind each difference,
and the memory-design table with its paired differences against `typed`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doc_format import table

Data = dict[str, Any]

EPICSTAR_BASELINE = "episodic"
MEMORY_BASELINE = "typed"


def epicstar_paper_table(data: Data) -> str:
    """The bench's paper table of wins (computed by `paper_table` from its 320 runs),
    rendered as `bounded table --rows level --metric wins --baseline episodic --format
    markdown` prints it."""
    from bounded.analysis.paper import PaperTable
    from bounded.analysis.paper_render import render

    return render(PaperTable.model_validate(data["paper"]), "markdown")


def _pairs(rows: list[Data], a: str, b: str, level: str | None) -> list[tuple[bool, bool]]:
    """A's and B's victories on the (block, seed)s both played, blocks of `level` (all when
    None)."""
    wins: dict[str, dict[tuple[str, int], bool]] = {a: {}, b: {}}
    for row in rows:
        if row["status"] != "completed" or row["treatment"] not in wins:
            continue
        if level is None or f"level={level} " in row["block"] + " ":
            wins[row["treatment"]][(row["block"], row["seed"])] = bool(row["victory"])
    common = sorted(set(wins[a]) & set(wins[b]))
    return [(wins[a][key], wins[b][key]) for key in common]


def epicstar_discordant(data: Data) -> str:
    """Per agent against `episodic` and level: the discordant pairs (block = level x style
    x map, unit = seed) and both McNemar tests, from the bench's per-game rows."""
    from bounded.analysis.paper_render import p_text
    from bounded.analysis.stratified import DiscordantCounts, mcnemar_exact_p, mcnemar_p

    rows = data["game_rows"]
    agents = sorted({r["treatment"] for r in rows} - {EPICSTAR_BASELINE})
    levels = sorted({r["block"].split("level=")[1].split()[0] for r in rows}, key=int)
    lines = []
    for agent in agents:
        for level in [*levels, None]:
            counts = DiscordantCounts.of(_pairs(rows, agent, EPICSTAR_BASELINE, level))
            lines.append([
                f"`{agent}` - `{EPICSTAR_BASELINE}`", level or "both", counts.pairs,
                f"{counts.both}/{counts.only_a}/{counts.only_b}/{counts.neither}",
                p_text(mcnemar_p(counts.only_a, counts.only_b)),
                p_text(mcnemar_exact_p(counts.only_a, counts.only_b)),
            ])  # fmt: skip
    header = [
        "A - B", "level", "pairs", "both/A only/B only/neither", "McNemar p (corrected)",
        "exact McNemar p",
    ]  # fmt: skip
    return table(header, lines, "lrrrrr")


def memory_designs_paper_table(data: Data) -> str:
    """The memory designs' games (learning phases apart) as `bounded table --rows block
    --cols contract --metric score --baseline typed` prints them, from the committed
    summary's runs."""
    from bounded.analysis.paper import paper_table
    from bounded.analysis.paper_render import render
    from bounded.analysis.summary_export import runs_of_summary

    runs = [run for run in runs_of_summary(data) if not run.cell.startswith("learn-")]
    found = paper_table(
        runs, rows="block", cols="contract", metric="score", baseline=MEMORY_BASELINE
    )
    return render(found, "markdown")


DESIGN: dict[str, Callable[..., str]] = {
    "epicstar-paper-table": epicstar_paper_table,
    "epicstar-discordant": epicstar_discordant,
    "memory-designs-paper-table": memory_designs_paper_table,
}
