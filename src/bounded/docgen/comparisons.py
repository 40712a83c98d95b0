"""The project's own comparisons through the analysis's paper-table path
(`bounded.analysis.paper`, `bounded.analysis.stratified`, `bounded.analysis.parity`): the
EpicStar Table 1 of wins with its paired differences against `episodic`, the discordant
pairs behind each difference, replay's two steps paired game by game, the memory-design
table with its paired differences against `typed`, the reduced BALROG run's table against
`balrog-naive`, and the parity reports."""

from __future__ import annotations

from typing import Any

from bounded.analysis.paper import PaperTable, paper_table
from bounded.analysis.paper_render import p_text, render
from bounded.analysis.parity import ParityReport, parity_of_runs, render_parity_markdown
from bounded.analysis.stratified import (
    DiscordantCounts,
    mcnemar_exact_p,
    mcnemar_p,
    tango_interval,
)
from bounded.analysis.summary_export import runs_of_summary
from bounded.docgen.format import Data, table

EPICSTAR_BASELINE = "episodic"
MEMORY_BASELINE = "typed"
BALROG_BASELINE = "balrog-naive"


def epicstar_table_of_wins(data: Data) -> str:
    """The bench's paper table of wins (computed by `paper_table` from its 320 runs),
    rendered as `bounded table --rows level --metric wins --baseline episodic --format
    markdown` prints it."""
    return render(PaperTable.model_validate(data["paper"]), "markdown")


def epicstar_parity(data: Data) -> str:
    """The parity report the bench's runs gave, as `bounded craft-table` prints it."""
    return render_parity_markdown(ParityReport.model_validate(data["parity"])) + "\n"


def _paired_wins(rows: list[Data], a: str, b: str, level: str | None) -> list[tuple[bool, bool]]:
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


def epicstar_discordant_pairs(data: Data) -> str:
    """Per agent against `episodic` and level: the discordant pairs (block = level x style
    x map, unit = seed) and both McNemar tests, from the bench's per-game rows."""
    rows = data["game_rows"]
    agents = sorted({r["treatment"] for r in rows} - {EPICSTAR_BASELINE})
    levels = sorted({r["block"].split("level=")[1].split()[0] for r in rows}, key=int)
    lines = []
    for agent in agents:
        for level in [*levels, None]:
            counts = DiscordantCounts.of(_paired_wins(rows, agent, EPICSTAR_BASELINE, level))
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


FINDINGS = {
    "summary": "CoS (`summary`) against EpicStar (`episodic`)",
    "episodic-no-exploration": "replay alone (`episodic-no-exploration`) against the bank "
    "with exploration (`episodic`)",
}
"""The comparisons the prose about Table 1 quotes: agent -> how the prose names it."""


def _verdict(p_holm: float) -> str:
    return "a difference at 0.05 after Holm" if p_holm < 0.05 else "not a finding at 0.05"


def epicstar_findings(data: Data) -> str:
    """The tests the prose about Table 1 quotes: per comparison and level, the discordant
    pairs and the paper table's difference, interval, McNemar p and Holm p."""
    paper = PaperTable.model_validate(data["paper"])
    lines = []
    for agent, name in FINDINGS.items():
        parts = []
        for found in (d for d in paper.differences if d.a == agent):
            level = found.row.split("level=")[1] if "level=" in found.row else None
            counts = DiscordantCounts.of(_paired_wins(data["game_rows"], agent, found.b, level))
            if found.p_value is None or found.p_holm is None:
                raise KeyError(f"the difference {agent} - {found.b} on {found.row} has no p")
            where = f"level {level}" if level else "both levels"
            parts.append(
                f"{where}: {counts.only_a} pairs only `{agent}` won against {counts.only_b} "
                f"only `{found.b}` won, {found.mean:+.1f} points [{found.low:+.1f}, "
                f"{found.high:+.1f}], McNemar p {p_text(found.p_value)} (exact "
                f"{p_text(mcnemar_exact_p(counts.only_a, counts.only_b))}), Holm "
                f"{p_text(found.p_holm)}: {_verdict(found.p_holm)}"
            )
        lines.append(f"- {name}, paired on (level x style x map, seed): " + "; ".join(parts))
    return "\n".join(lines) + "\n"


def _game_key(game: Data) -> tuple[int, int, str, str]:
    return (game["level"], game["seed"], game["style"], game["map"])


def replay_steps_paired(first: Data, second: Data) -> str:
    """The replay bench's two steps on the same games, paired game by game (level, style,
    map, seed): the discordant pairs and McNemar's test, per player."""
    steps = [f"{f['step']['decision_interval']:g} s" for f in (first, second)]
    lines = []
    for player, name in (("replay", "replay-only episodic"), ("expert", "the expert")):
        won = [
            {
                _game_key(g): o == "victory"
                for g, o in zip(f["games"], f[player]["outcomes"], strict=True)
            }
            for f in (first, second)
        ]
        counts = DiscordantCounts.of(
            [(won[0][k], won[1][k]) for k in sorted(set(won[0]) & set(won[1]))]
        )
        low, high = tango_interval(counts.only_a, counts.only_b, counts.pairs)
        gap = 100 * (counts.only_a - counts.only_b) / counts.pairs
        lines.append([
            name, counts.pairs, f"{counts.only_a}/{counts.only_b}",
            f"{gap:+.1f} [{100 * low:+.1f}, {100 * high:+.1f}]",
            p_text(mcnemar_p(counts.only_a, counts.only_b)),
            p_text(mcnemar_exact_p(counts.only_a, counts.only_b)),
        ])  # fmt: skip
    header = [
        "player", "pairs", f"only at {steps[0]} / only at {steps[1]}",
        f"{steps[0]} - {steps[1]} (points, 95% Tango)", "McNemar p (corrected)", "exact McNemar p",
    ]  # fmt: skip
    return table(header, lines, "lrrrrr")


def memory_designs_table_of_scores(data: Data) -> str:
    """The memory designs' games (learning phases apart) as `bounded table --rows block
    --cols contract --metric score --baseline typed` prints them, from the committed
    summary's runs."""
    runs = [run for run in runs_of_summary(data) if not run.cell.startswith("learn-")]
    found = paper_table(
        runs, rows="block", cols="contract", metric="score", baseline=MEMORY_BASELINE
    )
    return render(found, "markdown")


def balrog_small_table_of_progression(data: Data) -> str:
    """The reduced BALROG run's games as `bounded table --metric progression --baseline
    balrog-naive` prints them (a task per environment, BALROG's averages, each agent's
    paired difference against BALROG's own agent), from the committed summary's runs."""
    found = paper_table(
        runs_of_summary(data), rows="block", cols="treatment", metric="progression",
        baseline=BALROG_BASELINE,
    )  # fmt: skip
    return render(found, "markdown")


def summary_parity(data: Data) -> str:
    """The parity report of a committed archive summary's cells (its learning phases apart),
    compared within each environment, as `bounded` computes it from the runs."""
    cells: dict[tuple[str, str], list[Any]] = {}
    for run in runs_of_summary(data):
        if run.cell.startswith("learn-"):
            continue
        cells.setdefault((run.cell, run.env_id), []).append(run)
    entries = [(cell, {"environment": env}, runs) for (cell, env), runs in cells.items()]
    return render_parity_markdown(parity_of_runs(entries)) + "\n"
