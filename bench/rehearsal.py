"""The issue-41 rehearsal: a comparison played end to end against the fake endpoint before
paying. Four agents (typed, state, transcript, balrog-naive) on Crafter and NetHack, `--games`
seeds each, every game cut at `--steps` steps, against `bounded.testing.endpoint` answering
the first legal action of each request after `--latency` seconds and reporting a fixed
usage of 10 prompt and 5 completion tokens a call (a server that misreports usage).

Measured: the sweep's wall time (under the machine's load, recorded), per cell the reported
and counted prompt tokens per call (the token-truth check: how far a misreporting server
strays) and the runs flagged for it, and the paper's table of progression by environment
and agent (`bounded.analysis.paper`). The fake endpoint's replies are no model's: the
progression numbers prove the plumbing, never a memory.

Writes bench/results/rehearsal.json (and the LaTeX table beside it).

    python bench/rehearsal.py                          # 24 games, 20 steps, 0.2 s a call
    python bench/rehearsal.py --games 1 --steps 2      # quick
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

from rich.console import Console

from bounded.analysis.paper import paper_table
from bounded.analysis.paper_render import render
from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.archive.totals import token_mismatch
from bounded.cli._progress import SweepProgress
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import run_sweep
from bounded.testing.endpoint import Endpoint

RESULTS = Path(__file__).parent / "results" / "rehearsal.json"
AGENTS = ("typed", "state", "transcript", "balrog-naive")
ENVS = ("crafter", "nethack")


def experiment_text(archive: Path, url: str, games: int, steps: int, concurrency: int) -> str:
    head = (
        f'[experiment]\nname = "rehearsal"\narchive = "{archive}"\nconcurrency = {concurrency}\n\n'
        f'[defaults]\nmodel = "openai:fake"\nbase_url = "{url}"\ngames = {games}\n\n'
    )
    cells = [
        f'[[cells]]\nname = "{agent}.{env}"\ntag = "{agent}"\ncontract = "{agent}"\n'
        f'env = "{env}"\nenv_options = {{ max_steps = {steps} }}\n'
        for agent in AGENTS
        for env in ENVS
    ]
    return head + "\n".join(cells)


def cell_tokens(archive: Path) -> dict[str, dict[str, float]]:
    """Per cell: calls, reported and counted prompt tokens per call, runs flagged."""
    found: dict[str, dict[str, float]] = {}
    with Archive(archive, read_only=True) as store:
        for run in store.runs(status="completed"):
            entry = found.setdefault(
                run.cell, {"calls": 0, "reported": 0, "counted": 0, "flagged": 0, "games": 0}
            )
            for usage in run.usage.values():
                entry["calls"] += usage["calls"]
                entry["reported"] += usage["prompt_tokens"]
                entry["counted"] += usage.get("counted_prompt_tokens", 0)
            entry["flagged"] += token_mismatch(run) is not None
            entry["games"] += 1
    for entry in found.values():
        calls = max(1, entry["calls"])
        entry["reported_per_call"] = entry["reported"] / calls
        entry["counted_per_call"] = entry["counted"] / calls
    return dict(sorted(found.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="seeds per cell")
    parser.add_argument("--steps", type=int, default=20, help="steps per game")
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per reply")
    parser.add_argument("--concurrency", type=int, default=8, help="games in flight")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        Endpoint(plays="first", latency_s=args.latency, record=False) as endpoint,
    ):
        archive = Path(folder) / "rehearsal.sqlite"
        path = Path(folder) / "rehearsal.toml"
        path.write_text(
            experiment_text(archive, endpoint.url, args.games, args.steps, args.concurrency)
        )
        started_at = provenance(note="the fake endpoint's replies: plumbing, no model's play")
        started = time.perf_counter()
        summary = run_sweep(load_experiment(path), events=SweepProgress(Console(stderr=True)))
        wall_s = time.perf_counter() - started
        with Archive(archive, read_only=True) as store:
            runs = store.runs()
        table = paper_table(runs, rows="env", cols="tag", metric="progression")
        latex = render(table, "latex")
        result = {
            "command": "python bench/rehearsal.py "
            + " ".join(f"--{k} {v}" for k, v in vars(args).items() if k != "out"),
            "games": {"planned": summary.planned, "completed": summary.completed},
            "steps": args.steps,
            "latency_s": args.latency,
            "concurrency": args.concurrency,
            "wall_s": wall_s,
            "endpoint_calls": endpoint.calls,
            "python": platform.python_version(),
            "tokens_by_cell": cell_tokens(archive),
            "progression": table.model_dump(),
        }
    write_result(args.out, result, started_at)
    args.out.with_suffix(".tex").write_text(latex)
    print(latex)
    print(f"{summary.completed}/{summary.planned} games in {wall_s:.1f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
