"""Context audit of the memory designs the papers argue against (`rag`, `reflexion`,
`paged`) beside `typed`, `state` and `transcript`, on the context audit's spire seeds.

Usage: python bench/memory_designs_audit.py [--seeds 1 2 3] [--acts 3] [--out-dir DIR]
       [--archive PATH]

As in `bench/context_audit.py` (whose expert model this reuses), every game is played by
the spire expert answering through a scripted model, so on one seed every contract sees
the same game, decision for decision, and only the memory differs; prompt tokens are
counted with the embedded model's tokenizer and chat template, and each prompt's cached
tokens are the prefix it shares with the previous prompt, computed token by token (the
transcript's message by message), as llama.cpp's and the providers' prefix caches serve
them. The transcript is the one the embedded model can take: its 8,192-token window,
dropping old turns once full.

`reflexion` plays the seeds in order with one contract object, as a ladder does, so
the second and third games carry the reflections the earlier ones wrote; the expert's
stand-in reflection (`STAND_IN`, 470 characters) takes the place of the model's.

Every run is archived (`--archive`, default a temporary file), so `bounded audit ARCHIVE`
reproduces the per-contract table; this script prints it and writes
`memory_designs_audit.json` (per run: decisions, prompt tokens, cached, fresh, cost at the
shipped list-2025 prices, mean and max prompt per decision, the slope per 100 decisions).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from context_audit import ExpertModel

from bounded.analysis.audit import context_audit
from bounded.analysis.cost import cost_model
from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import JSON, Completion, DecisionRecord, Observation
from bounded.models.local import LocalModel
from bounded.protocols import Contract
from bounded.runner.build import build_game, runner_for
from bounded.runner.spec import GameSpec

RESULTS = Path(__file__).parent / "results"
CONTRACTS = ("typed", "state", "transcript", "rag", "reflexion", "paged")
STAND_IN = (
    "I lost because I took every fight at full speed and reached the elites with a weak "
    "deck and low HP. Next time: pick attack cards with high damage early, remove Strikes "
    "at shops, rest when HP is under half before an elite, block first when the enemy "
    "intends a big attack, and use potions in elite fights rather than saving them. Avoid "
    "events that cost HP when HP is low, and prefer paths with a rest site before the boss."
)


class AuditModel(ExpertModel):
    """The expert's moves, and the stand-in text for a reflection call."""

    def complete(
        self, messages: list[dict[str, str]], *, constraint: JSON | None = None, **options: Any
    ) -> Completion:
        if constraint is not None and "reflection" in constraint.get("properties", {}):
            text = json.dumps({"reflection": STAND_IN})
            return Completion(
                text=text,
                prompt_tokens=self.prompt_length(messages),
                completion_tokens=self.count_tokens(text),
                model=self.id,
                finish_reason="stop",
            )
        return super().complete(messages, constraint=constraint, **options)


def play(
    seed: int, name: str, contract: Contract, model: AuditModel, acts: int, archive: Archive
) -> Sequence[DecisionRecord]:
    spec = GameSpec(env="spire", env_options={"acts": acts}, contract=name, seed=seed, tag=name)
    game = build_game(spec, model=model, contract=contract)

    def observe(_: DecisionRecord, obs: Observation) -> None:
        model.observation = obs

    runner = runner_for(game, archive=archive, observer=observe)
    model.observation = game.env.reset(seed=seed)[0]
    runner.execute()
    return runner.trajectory


def summary(trajectory: Sequence[DecisionRecord], seconds: float) -> JSON:
    prompts = [d.prompt_tokens for d in trajectory if d.completion]
    n = len(prompts)
    mean = sum(prompts) / n
    xs = range(n)
    mx = sum(xs) / n
    slope = sum((x - mx) * (y - mean) for x, y in zip(xs, prompts, strict=True)) / max(
        1e-9, sum((x - mx) ** 2 for x in xs)
    )
    retrieval = [float(d.info["retrieval_s"]) for d in trajectory if "retrieval_s" in d.info]
    result = {
        "decisions": len(trajectory),
        "total": sum(prompts),
        "mean": round(mean, 1),
        "max": max(prompts),
        "slope_per_100": round(100 * slope, 1),
        "seconds": round(seconds, 1),
    }
    if retrieval:
        result["retrieval_ms_mean"] = round(1000 * sum(retrieval) / len(retrieval), 3)
        result["retrieval_ms_max"] = round(1000 * max(retrieval), 3)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--acts", type=int, default=3)
    parser.add_argument("--contracts", nargs="+", default=list(CONTRACTS))
    parser.add_argument("--out-dir", type=Path, default=RESULTS)
    parser.add_argument("--archive", type=Path)
    args = parser.parse_args()
    started_at = provenance(
        "floor",
        "state and paged: the scripted model writes no state patch or core edit, "
        "so their prompts are floors",
    )
    tokenizer = LocalModel()
    path = args.archive or Path(tempfile.mkdtemp()) / "memory_designs_audit.sqlite"
    runs: dict[str, list[JSON]] = {}
    with Archive(path) as archive:
        for name in args.contracts:
            contract = make_contract(name)  # one object per contract: reflexion learns
            for seed in args.seeds:
                window = tokenizer.context_window if name == "transcript" else None
                model = AuditModel(tokenizer, window, token_prefix=name != "transcript")
                started = time.perf_counter()
                trajectory = play(seed, name, contract, model, args.acts, archive)
                found = {"seed": seed, **summary(trajectory, time.perf_counter() - started)}
                runs.setdefault(name, []).append(found)
                print(name, json.dumps(found), flush=True)
        audit = context_audit(archive, archive.runs(), cost_model([], ["list-2025"]))
    table = {
        c.contract: {
            "runs": c.runs,
            "slope_per_decision": round(c.slope, 3),
            "mean_last_prompt": round(c.mean_last_prompt, 1),
            "fresh": c.fresh,
            "cost": None if c.cost is None else round(c.cost, 4),
            "layer_slopes": {k: round(v, 3) for k, v in c.layer_slopes.items()},
        }
        for c in audit.contracts
    }
    for r in audit.runs:
        for found in runs[r.contract]:
            if found.get("run") is None and found["decisions"] == r.decisions:
                found.update(
                    run=r.run_id,
                    cached=r.total_cached,
                    cost=None if r.cost is None else round(r.cost, 4),
                )
                found["reused_share"] = round(r.total_cached / max(1, r.total_prompt), 4)
                break
    print("| contract | seed | decisions | prompt tokens | per decision (mean / max) | "
          "reused from cache | cost (USD) | slope per 100 decisions |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, found_runs in runs.items():
        for f in found_runs:
            print(
                f"| {name} | {f['seed']} | {f['decisions']} | {f['total']:,} | "
                f"{f['mean']:,.0f} / {f['max']:,} | {100 * f.get('reused_share', 0):.1f}% | "
                f"{f.get('cost', 0):.3f} | {f['slope_per_100']:+.1f} |"
            )
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = {
        "settings": {"seeds": args.seeds, "acts": args.acts, "archive": str(path)},
        "runs": runs,
        "contracts": table,
    }
    write_result(args.out_dir / "memory_designs_audit.json", out, started_at, indent=1)


if __name__ == "__main__":
    main()
