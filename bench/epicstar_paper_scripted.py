"""Benchmark: the paper's Table 1 protocol (experiments/epicstar_paper.toml), scripted explorer.

Plays every game the experiment file plans (4 agents x levels 5 and 6 x 5 styles x 2
evaluation maps x 4 seeds = 320 games, at the file's one-action step and the agents'
settings calibrated on held-out games, bench/epicstar_calibration.py), with the file's
five-win bank (bootstrapped here with `bounded bank craft`'s defaults when `--bank` is
missing) and, instead of the file's embedded model, the scripted explorer
`bounded.jobs.scripted_players.ExpertExplorer` (the craft expert's plan as every decisions
reply), so the numbers measure the mechanisms fed known play, not a model: the explorer
ignores the prompt, so exploration and fusion are not tested by it. Prints the Table-1
layout, the table by opponent style and the parity report, and writes
bench/results/epicstar_paper_scripted.json.

    .venv/bin/python bench/epicstar_paper_scripted.py            # ~10 minutes on one core
    .venv/bin/python bench/epicstar_paper_scripted.py --games 1  # one seed per cell
    .venv/bin/python bench/epicstar_paper_scripted.py --games 1 --limit 2  # two games
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bounded.analysis.craft_table import craft_parity, craft_table, render_craft_table, style_group
from bounded.analysis.parity import render_parity_markdown
from bounded.analysis.provenance import finished, provenance
from bounded.core import RunRecord
from bounded.jobs.craft_bank import bootstrap_craft_bank
from bounded.jobs.scripted_players import ExpertExplorer
from bounded.runner import play
from bounded.sweeps.experiment import load_experiment

EXPERIMENT = Path(__file__).parents[1] / "experiments" / "epicstar_paper.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", default="runs/banks/craft.npz")
    parser.add_argument("--games", type=int, default=4, help="seeds per (level, style, map)")
    parser.add_argument("--out", default="bench/results/epicstar_paper_scripted.json")
    parser.add_argument(
        "--limit", type=int, default=None, help="only the first N games of the plan (a quick check)"
    )
    args = parser.parse_args()
    started_at = provenance()
    bank = Path(args.bank)
    if not bank.is_file():
        built, report = bootstrap_craft_bank()
        bank.parent.mkdir(parents=True, exist_ok=True)
        built.save(bank)
        print(f"built {bank}: {report.kept} wins of {len(report.games)}, {report.entries} entries")
    games = [g for g in load_experiment(EXPERIMENT).plan() if g.seed < args.games][: args.limit]
    runs: list[RunRecord] = []
    started = time.perf_counter()
    for spec in games:
        config = dict(spec.contract_config)
        if "bank" in config:
            config["bank"] = str(bank)
        explorer = ExpertExplorer()
        game = spec.model_copy(update={"contract_config": config, "model": explorer.model.id})
        runs.append(play(game, model=explorer.model, observer=explorer.see))
    wall_s = time.perf_counter() - started
    rows = craft_table(runs)
    by_style = craft_table(runs, style_group)
    parity = craft_parity(runs)
    print(render_craft_table(rows))
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
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
