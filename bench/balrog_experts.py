"""BALROG's protocol played by the scripted players: every environment and task of
`experiments/balrog.toml` with its episode count and step limit, archived, then BALROG's
table computed from the archive (`bounded.analysis.balrog`).

Usage: python bench/balrog_experts.py [--archive runs/balrog-experts.sqlite] [--skip ENV]
       [--episodes N]
       [--generation-timeout 3600] [--out PATH]
Writes bench/results/balrog_experts.json (or `--out`) (BALROG's summary of the agent
`scripted-expert`) and prints the table; `bounded analyze ARCHIVE --table balrog` prints
it again and `bounded export ARCHIVE --format balrog` writes BALROG's results folder.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import bounded.envs.textworld.games as textworld_games
from bounded.analysis.balrog import balrog_summary, balrog_table_rows, summaries_json
from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.contracts.expert import ExpertContract
from bounded.envs import ENV_IDS, make
from bounded.envs.babyai import TASKS as BABYAI_TASKS
from bounded.envs.babyai import BabyAIExpert
from bounded.envs.crafter import CrafterExpert
from bounded.envs.minihack import TASKS as MINIHACK_TASKS
from bounded.envs.minihack import MiniHackExpert
from bounded.envs.nethack import NetHackExpert
from bounded.envs.textworld import CHALLENGES, TextWorldExpert
from bounded.models.none import NoModel
from bounded.runner import run_episode

RESULTS = Path(__file__).parent / "results" / "balrog_experts.json"
TAG = "scripted-expert"


def games(episodes: int | None = None) -> list[tuple[str, dict[str, Any], int, Any]]:
    """(env, options, seed, expert factory) for every episode of BALROG's protocol (at most
    `episodes` of each task)."""
    plan: list[tuple[str, dict[str, Any], int, Any]] = []
    plan += [("nethack", {}, s, lambda env, s: NetHackExpert(s)) for s in range(5)]
    for task in MINIHACK_TASKS:
        plan += [
            ("minihack", {"task": task}, s, lambda env, s: MiniHackExpert(s)) for s in range(5)
        ]
    for level in BABYAI_TASKS:
        plan += [
            ("babyai", {"level": level}, s, lambda env, s: BabyAIExpert(env)) for s in range(10)
        ]
    plan += [("crafter", {}, s, lambda env, s: CrafterExpert(env, s)) for s in range(1, 11)]
    for task in CHALLENGES:
        plan += [
            ("textworld", {"task": task}, s, lambda env, s: TextWorldExpert(env))
            for s in range(1, 11)
        ]
    if episodes is None:
        return plan
    seen: Counter[str] = Counter()
    kept = []
    for episode in plan:
        task = json.dumps(episode[:2], sort_keys=True)
        seen[task] += 1
        if seen[task] <= episodes:
            kept.append(episode)
    return kept


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--archive", default="runs/balrog-experts.sqlite")
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--episodes", type=int, default=None, help="at most N episodes a task (a quick check)"
    )
    parser.add_argument("--generation-timeout", type=int,
                        default=textworld_games.GENERATION_TIMEOUT_S,
                        help="Seconds a TextWorld game may take to generate.")  # fmt: skip
    args = parser.parse_args()
    started_at = provenance()
    textworld_games.GENERATION_TIMEOUT_S = args.generation_timeout
    Path(args.archive).parent.mkdir(parents=True, exist_ok=True)
    failures = []
    started = time.perf_counter()
    with Archive(args.archive) as archive:
        done = {(r.env_id, json.dumps(r.spec.get("env_options", {}), sort_keys=True), r.seed)
                for r in archive.runs() if r.status == "completed"}  # fmt: skip
        for env_name, options, seed, expert_of in games(args.episodes):
            if env_name in args.skip:
                continue
            try:
                key = (ENV_IDS[env_name], json.dumps(options, sort_keys=True), seed)
                if key in done:
                    continue
                env = make(env_name, **options)
                player = ExpertContract(expert_of(env, seed))
                run = run_episode(env, player, NoModel(), seed=seed, archive=archive, tag=TAG,
                                  spec={"env_options": options})  # fmt: skip
                env.close()
                print(env_name, options, seed, run.outcome.get("progress"), flush=True)
            except Exception as exc:  # a game that cannot be generated is reported, not fatal
                failures.append({"env": env_name, "options": options, "seed": seed,
                                 "error": f"{type(exc).__name__}: {exc}"})  # fmt: skip
                print("FAILED", env_name, options, seed, exc, flush=True)
        summaries = balrog_summary(archive.runs())
    for row in balrog_table_rows(summaries):
        print(" | ".join(row))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report = {"summary": summaries_json(summaries), "failures": failures,
              "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
    write_result(args.out, report, started_at)


if __name__ == "__main__":
    main()
