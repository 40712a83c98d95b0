"""Calibration of the EpicStar protocol on held-out craft games, by one rule for every agent.

Every setting of experiments/epicstar_paper.toml chosen by measurement is chosen here, on
calibration games disjoint from the file's evaluation games (another map, other seeds;
the script checks it and stops otherwise), by rules fixed before any game was played:

1. **The step** (one decision every `decision_interval` game seconds, one action each) is
   an environment setting every agent shares, so it is chosen by no agent: it is the
   candidate step at which the craft expert, acting once per step, wins most calibration
   games; a tie goes to the longer step (fewer decisions per game: every agent pays less).
2. **Each agent's own settings** are then chosen at that step, each agent at its best on
   the same calibration games: the grid point with the most wins; a tie goes to the
   point with fewer model calls per game, then to the earlier point of the grid (the
   contract's defaults first). Chain of Summarization: `interval` (K) x `decisions`;
   EpicStar (the full agent and the no-fusion ablation alike): `explore_every` (d_e) x
   `queue_cooldown` (d_q) x `explore_actions`; the no-exploration ablation has none.

Every model reply is the scripted explorer's (`ExpertExplorer`: the craft expert's plan
for the current observation), as in bench/epicstar_paper_scripted.py, so what is chosen is
what suits these mechanisms fed known play, not what suits a model: a model run should be
calibrated with its model. The bank is the file's (five wins of levels 6-7 on highlands)
recorded at the chosen step. Writes bench/results/epicstar_calibration.json.

    .venv/bin/python bench/epicstar_calibration.py            # ~10 minutes on one core
    .venv/bin/python bench/epicstar_calibration.py --seeds 1 --levels 5 --styles rush \\
        --steps 3 --quick                                      # a few games
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import finished, provenance
from bounded.core import JSON
from bounded.envs.craft import STYLES, CraftExpert
from bounded.jobs.craft_bank import CRAFT_BANK_KEEP, CRAFT_ENV, bootstrap_craft_bank, record_spec
from bounded.jobs.scripted_players import ExpertExplorer
from bounded.runner import GameSpec, play
from bounded.sweeps.experiment import load_experiment

EXPERIMENT = Path(__file__).parents[1] / "experiments" / "epicstar_paper.toml"
CALIBRATION_MAP = "highlands"
FIRST_SEED = 100

SUMMARY_GRID = {"interval": [5, 1, 2, 3, 10], "decisions": [3, 1, 2, 5]}
EPISODIC_GRID = {
    "explore_every": [20, 5, 10, 40],
    "queue_cooldown": [3, 0, 1],
    "explore_actions": [3, 1, 5],
}
QUICK_SUMMARY = {"interval": [5, 1], "decisions": [3, 1]}
QUICK_EPISODIC = {"explore_every": [20], "queue_cooldown": [3], "explore_actions": [3, 1]}
AGENTS = ("episodic", "episodic-no-exploration", "episodic-no-fusion", "summary")


def calibration_games(
    levels: Sequence[int], styles: Sequence[str], seeds: int
) -> list[tuple[int, JSON]]:
    """(seed, environment options) of every calibration game, at no step yet."""
    return [
        (FIRST_SEED + seed, {"level": level, "style": style, "map": CALIBRATION_MAP})
        for level in levels
        for style in styles
        for seed in range(seeds)
    ]


def game_key(seed: int, options: JSON) -> tuple[Any, ...]:
    return (options.get("level"), options.get("style"), options.get("map"), seed)


def evaluation_games() -> list[tuple[int, JSON]]:
    return [(spec.seed, dict(spec.env_options)) for spec in load_experiment(EXPERIMENT).plan()]


def check_disjoint(calibration: list[tuple[int, JSON]], evaluation: list[tuple[int, JSON]]) -> None:
    shared = {game_key(*g) for g in calibration} & {game_key(*g) for g in evaluation}
    maps = {o["map"] for _, o in calibration} & {o["map"] for _, o in evaluation}
    seeds = {s for s, _ in calibration} & {s for s, _ in evaluation}
    if shared or maps or seeds:
        raise SystemExit(f"calibration games overlap the evaluation: maps {maps}, seeds {seeds}")


# -- stage 1: the step ------------------------------------------------------------------


def expert_at(step: JSON, games: list[tuple[int, JSON]]) -> JSON:
    """The expert acting once per step on every game (gateway on even seeds, robo on odd)."""
    wins = 0
    for seed, options in games:
        build = "gateway" if seed % 2 == 0 else "robo"
        spec = GameSpec(env=CRAFT_ENV, env_options={**options, **step}, contract="expert",
                        model="none", seed=seed)  # fmt: skip
        info, _ = record_spec(spec, CraftExpert(build), strategy=build)
        wins += info.outcome["outcome"] == "victory"
    return {"step": step, "games": len(games), "wins": wins, "win_rate": wins / len(games)}


def choose_step(rows: list[JSON]) -> JSON:
    """Most wins; a tie to the longer step."""
    best = max(rows, key=lambda r: (r["wins"], r["step"]["decision_interval"]))
    return dict(best["step"])


# -- stage 2: each agent's settings ------------------------------------------------------


def grid(settings: dict[str, list[Any]]) -> list[JSON]:
    keys = list(settings)
    return [
        dict(zip(keys, values, strict=True)) for values in itertools.product(*settings.values())
    ]


def play_agent(
    agent: str, config: JSON, step: JSON, games: list[tuple[int, JSON]], bank: Path
) -> JSON:
    """One agent at one grid point on every calibration game."""
    wins = calls = decisions = 0
    rates: list[float] = []
    for seed, options in games:
        settings = {**config, "bank": str(bank)} if agent.startswith("episodic") else dict(config)
        explorer = ExpertExplorer()
        spec = GameSpec(env=CRAFT_ENV, env_options={**options, **step}, contract=agent,
                        contract_config=settings, model=explorer.model.id, seed=seed)  # fmt: skip
        run = play(spec, model=explorer.model, observer=explorer.see)
        if run.status != "completed":
            raise SystemExit(f"{agent} {config} seed {seed}: {run.error}")
        wins += bool(run.outcome["victory"])
        calls += run.model_calls
        decisions += run.decisions
        rates.append(float(run.outcome["effective_action_rate"]))
    return {
        "config": config,
        "games": len(games),
        "wins": wins,
        "win_rate": wins / len(games),
        "model_calls_per_game": calls / len(games),
        "decisions_per_game": decisions / len(games),
        "effective_action_rate": sum(rates) / len(rates),
    }


def choose(rows: list[JSON]) -> JSON:
    """Most wins; a tie to fewer model calls per game, then to the earlier grid point."""
    order = {id(row): i for i, row in enumerate(rows)}
    best = min(rows, key=lambda r: (-r["wins"], r["model_calls_per_game"], order[id(r)]))
    return dict(best["config"])


def agent_grids(quick: bool) -> dict[str, list[JSON]]:
    summary, episodic = (QUICK_SUMMARY, QUICK_EPISODIC) if quick else (SUMMARY_GRID, EPISODIC_GRID)
    return {
        "episodic": grid(episodic),
        "episodic-no-exploration": [{}],
        "episodic-no-fusion": grid(episodic),
        "summary": grid(summary),
    }


def calibrate_agents(
    step: JSON,
    games: list[tuple[int, JSON]],
    bank: Path,
    grids: dict[str, list[JSON]],
    agents: Iterable[str],
) -> JSON:
    found: JSON = {}
    for agent in agents:
        rows = [play_agent(agent, config, step, games, bank) for config in grids[agent]]
        found[agent] = {"chosen": choose(rows), "rows": rows}
        best = found[agent]["chosen"]
        print(f"  {agent}: {len(rows)} points, chosen {best} "
              f"({max(r['wins'] for r in rows)}/{len(games)} wins)")  # fmt: skip
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="calibration seeds per (level, style)")
    parser.add_argument("--levels", type=int, nargs="+", default=[5, 6])
    parser.add_argument("--styles", nargs="+", default=list(STYLES))
    parser.add_argument("--steps", type=float, nargs="+", default=[1, 2, 3, 5, 10],
                        help="candidate decision intervals (one action each)")  # fmt: skip
    parser.add_argument("--agents", nargs="+", default=list(AGENTS))
    parser.add_argument("--quick", action="store_true", help="a two-point grid per agent")
    parser.add_argument(
        "--bank", default=None, help="where to write the bank (default: beside --out)"
    )
    parser.add_argument("--out", default="bench/results/epicstar_calibration.json")
    args = parser.parse_args()
    started_at, started = provenance(), time.perf_counter()
    games = calibration_games(args.levels, args.styles, args.seeds)
    evaluation = evaluation_games()
    check_disjoint(games, evaluation)
    steps = [
        expert_at({"decision_interval": float(s), "max_actions": 1}, games) for s in args.steps
    ]
    for row in steps:
        print(f"step {row['step']['decision_interval']:g} s: expert {row['wins']}/{row['games']}")
    step = choose_step(steps)
    built, report = bootstrap_craft_bank(step=step, keep=CRAFT_BANK_KEEP)
    out = Path(args.out)
    bank = Path(args.bank) if args.bank else out.with_suffix(".bank.npz")
    bank.parent.mkdir(parents=True, exist_ok=True)
    built.save(bank)
    kept = f"{report.kept} wins of {len(report.games)}, {report.entries} entries"
    print(f"chosen step {step}; bank {kept}")
    agents = calibrate_agents(step, games, bank, agent_grids(args.quick), args.agents)
    result = {
        "benchmark": "epicstar_calibration",
        "provenance": finished(started_at),
        "wall_s": round(time.perf_counter() - started, 1),
        "explorer": "ExpertExplorer(gateway)",
        "rules": {
            "step": "most expert wins acting once per step; tie: the longer step",
            "agents": "each agent's grid point with the most wins; tie: fewer model calls "
            "per game, then the earlier grid point",
        },
        "calibration_games": {
            "map": CALIBRATION_MAP,
            "levels": args.levels,
            "styles": args.styles,
            "seeds": [FIRST_SEED + s for s in range(args.seeds)],
            "count": len(games),
        },
        "evaluation_games": {
            "experiment": EXPERIMENT.name,
            "maps": sorted({o["map"] for _, o in evaluation}),
            "levels": sorted({o["level"] for _, o in evaluation}),
            "seeds": sorted({s for s, _ in evaluation}),
            "count": len(evaluation),
        },
        "bank": {
            "kept": report.kept,
            "played": len(report.games),
            "entries": report.entries,
            "sha256": report.content_hash,
            "map": "highlands",
            "levels": [6, 7],
        },
        "steps": steps,
        "chosen_step": step,
        "agents": agents,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"{result['wall_s']} s -> {out}")


if __name__ == "__main__":
    main()
