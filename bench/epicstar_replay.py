"""Benchmark: does a bank of winning games win when replayed? EpicStar's replay alone.

A five-win bank of the craft expert (levels 6 and 7, map highlands, `bounded bank craft`'s
defaults, seed `--bank-seed`) is replayed by `episodic-no-exploration` (retrieval and
ExtractAction only: no exploration, no model) against level-5 games on the two evaluation
maps (crossroads, longbridge, which the bank never saw) x the five styles x `--seeds`
seeds, and the expert itself plays the same games beside it (build `gateway` on even
seeds, `robo` on odd ones). Every game is played at the one-action step
(`bounded.contracts.step_protocol`, `--step` to change it). Writes
bench/results/epicstar_replay.json.

    .venv/bin/python bench/epicstar_replay.py              # 40 games per player, ~1 minute
    .venv/bin/python bench/epicstar_replay.py --step 10 5  # the former 10 s / 5 actions
    .venv/bin/python bench/epicstar_replay.py --seeds 1 --styles rush --bank-wins 1  # quick
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path

from bounded.analysis.provenance import provenance, write_result
from bounded.contracts import make_contract
from bounded.contracts.episodic import EpisodicContract
from bounded.contracts.episodic.bank import EpisodicBank
from bounded.contracts.step_protocol import one_action_step
from bounded.core import JSON
from bounded.envs.craft import CraftExpert
from bounded.jobs.craft_bank import CRAFT_BANK_KEEP, CRAFT_ENV, bootstrap_craft_bank, record_spec
from bounded.runner import GameSpec, play

STYLES = ("timing", "rush", "power", "macro", "air")
MAPS = ("crossroads", "longbridge")


def games(
    level: int, seeds: int, step: JSON, styles: Sequence[str] = STYLES
) -> list[tuple[int, JSON]]:
    return [
        (seed, {"level": level, "style": style, "map": map_name, **step})
        for seed in range(seeds)
        for map_name in MAPS
        for style in styles
    ]


def replay_wins(bank: EpisodicBank, plan: list[tuple[int, JSON]]) -> list[str]:
    outcomes: list[str] = []
    for seed, options in plan:
        contract = make_contract("episodic-no-exploration", {})
        assert isinstance(contract, EpisodicContract)
        contract.use_bank(bank)
        spec = GameSpec(
            env=CRAFT_ENV, env_options=options, contract="episodic-no-exploration",
            model="none", seed=seed,
        )  # fmt: skip
        run = play(spec, contract=contract)
        outcomes.append(str(run.outcome["outcome"]))
    return outcomes


def expert_wins(plan: list[tuple[int, JSON]]) -> list[str]:
    outcomes: list[str] = []
    for seed, options in plan:
        build = "gateway" if seed % 2 == 0 else "robo"
        spec = GameSpec(env=CRAFT_ENV, env_options=options, contract="expert", model="none",
                        seed=seed)  # fmt: skip
        info, _ = record_spec(spec, CraftExpert(build), strategy=build)
        outcomes.append(str(info.outcome["outcome"]))
    return outcomes


def rate(outcomes: list[str]) -> JSON:
    wins = outcomes.count("victory")
    return {"games": len(outcomes), "wins": wins, "win_rate": wins / len(outcomes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=4, help="seeds per (map, style)")
    parser.add_argument("--bank-seed", type=int, default=0)
    parser.add_argument(
        "--bank-wins", type=int, default=CRAFT_BANK_KEEP, help="wins the bank keeps"
    )
    parser.add_argument("--styles", nargs="+", default=list(STYLES))
    parser.add_argument("--step", type=float, nargs=2, metavar=("INTERVAL", "ACTIONS"))
    parser.add_argument("--out", default="bench/results/epicstar_replay.json")
    args = parser.parse_args()
    started_at = provenance()
    step = one_action_step(CRAFT_ENV)
    if args.step:
        step = {"decision_interval": args.step[0], "max_actions": int(args.step[1])}
    started = time.perf_counter()
    bank, report = bootstrap_craft_bank(seed=args.bank_seed, step=step, keep=args.bank_wins)
    plan = games(args.level, args.seeds, step, args.styles)
    replay = replay_wins(bank, plan)
    expert = expert_wins(plan)
    result = {
        "step": step,
        "bank": {
            "levels": [6, 7],
            "map": "highlands",
            "seed": args.bank_seed,
            "kept": report.kept,
            "played": len(report.games),
            "entries": report.entries,
            "sha256": report.content_hash,
        },
        "level": args.level,
        "games": [{"seed": s, **o} for s, o in plan],
        "replay": {**rate(replay), "outcomes": replay},
        "expert": {**rate(expert), "outcomes": expert},
        "wall_s": round(time.perf_counter() - started, 1),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    write_result(args.out, result, started_at)
    print(
        f"step {step}: bank {report.kept} wins of {len(report.games)} games, "
        f"{report.entries} entries; level {args.level}, {len(plan)} games: replay "
        f"{result['replay']['wins']}/{len(plan)}, expert {result['expert']['wins']}/{len(plan)}"
        f" ({result['wall_s']} s) -> {args.out}"
    )


if __name__ == "__main__":
    main()
