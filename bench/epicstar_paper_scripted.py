"""Benchmark: the paper's Table 1 protocol (experiments/epicstar_paper.toml), scripted explorer.

Plays every game the experiment file plans (4 agents x levels 5 and 6 x 5 styles x 2
evaluation maps x 4 seeds = 320 games, at the file's one-action step and the agents'
settings calibrated on held-out games, bench/epicstar_calibration.py), with the file's
five-win bank (bootstrapped here with `bounded bank craft`'s defaults when `--bank` is
missing) and, instead of the file's embedded model, the scripted explorer
`bounded.jobs.scripted_players.ExpertExplorer` (the craft expert's plan as every decisions
reply), so the numbers measure the mechanisms fed known play, not a model: the explorer
ignores the prompt, so exploration and fusion are not tested by it. Prints the Table-1
layout, the table by opponent style, the paper table of wins through `bounded table`'s path
(`bounded.analysis.paper.paper_table`: rows the level, columns the agents, every agent
against `episodic` paired on (block, seed), block = level x style x map, McNemar's test
with Tango's interval, Holm over the table) and the parity report, and writes
bench/results/epicstar_paper_scripted.json with every game's block, seed, agent, victory
and score.

    .venv/bin/python bench/epicstar_paper_scripted.py            # ~10 minutes on one core
    .venv/bin/python bench/epicstar_paper_scripted.py --games 1  # one seed per cell
    .venv/bin/python bench/epicstar_paper_scripted.py --games 1 --limit 2  # two games
    .venv/bin/python bench/epicstar_paper_scripted.py --workers 2  # two processes
"""

from __future__ import annotations

import argparse
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from bounded.analysis.craft_table import craft_parity, craft_table, render_craft_table, style_group
from bounded.analysis.design import design_of_runs
from bounded.analysis.paper import paper_table
from bounded.analysis.paper_render import render
from bounded.analysis.parity import render_parity_markdown
from bounded.analysis.provenance import finished, provenance
from bounded.core import RunRecord, victory_of
from bounded.jobs.craft_bank import bootstrap_craft_bank
from bounded.jobs.scripted_players import ExpertExplorer
from bounded.runner import play
from bounded.runner.spec import GameSpec
from bounded.sweeps.experiment import load_experiment

EXPERIMENT = Path(__file__).parents[1] / "experiments" / "epicstar_paper.toml"
BASELINE = "episodic"
"""The column every other agent is compared with in the paper table."""


def play_scripted(spec: GameSpec, bank: str) -> RunRecord:
    """One game of the plan, the scripted explorer answering every decision."""
    config = dict(spec.contract_config)
    if "bank" in config:
        config["bank"] = bank
    explorer = ExpertExplorer()
    game = spec.model_copy(update={"contract_config": config, "model": explorer.model.id})
    return play(game, model=explorer.model, observer=explorer.see)


def game_rows(runs: list[RunRecord]) -> list[dict[str, Any]]:
    """Every game's place in the design and its outcome (the pairs of the tests)."""
    design = design_of_runs(runs)
    rows = []
    for run, game in zip(runs, design.games, strict=True):
        rows.append(
            {
                "block": game.block_label, "seed": run.seed, "treatment": game.treatment,
                "victory": victory_of(run.outcome), "score": run.outcome.get("score"),
                "status": run.status,
            }
        )  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", default="runs/banks/craft.npz")
    parser.add_argument("--games", type=int, default=4, help="seeds per (level, style, map)")
    parser.add_argument("--out", default="bench/results/epicstar_paper_scripted.json")
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N games of the plan (a quick check)"
    )
    parser.add_argument("--workers", type=int, default=1, help="processes playing games")
    args = parser.parse_args()
    started_at = provenance()
    bank = Path(args.bank)
    if not bank.is_file():
        built, report = bootstrap_craft_bank()
        bank.parent.mkdir(parents=True, exist_ok=True)
        built.save(bank)
        print(f"built {bank}: {report.kept} wins of {len(report.games)}, {report.entries} entries")
    games = [g for g in load_experiment(EXPERIMENT).plan() if g.seed < args.games][: args.limit]
    started = time.perf_counter()
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers) as pool:
            runs = list(pool.map(play_scripted, games, [str(bank)] * len(games)))
    else:
        runs = [play_scripted(spec, str(bank)) for spec in games]
    wall_s = time.perf_counter() - started
    rows = craft_table(runs)
    by_style = craft_table(runs, style_group)
    parity = craft_parity(runs)
    paper = paper_table(runs, rows="level", metric="wins", baseline=BASELINE)
    print(render_craft_table(rows))
    print()
    print(render(paper, "markdown"))
    print()
    print(render_parity_markdown(parity))
    print()
    print(render_craft_table(by_style))
    print(f"{len(runs)} games in {wall_s:.0f} s")
    result = {
        "benchmark": "epicstar_paper_scripted",
        "provenance": finished(started_at),
        "experiment": str(EXPERIMENT.name),
        "explorer": "ExpertExplorer(gateway)",
        "games": len(runs),
        "failed": sum(r.status != "completed" for r in runs),
        "wall_s": round(wall_s, 1),
        "rows": [row.model_dump() for row in rows],
        "by_style": [row.model_dump() for row in by_style],
        "parity": parity.model_dump(),
        "paper": paper.model_dump(),
        "game_rows": game_rows(runs),
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
