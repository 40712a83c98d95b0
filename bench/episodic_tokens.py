"""Benchmark: tokens and model calls per craft game, episodic (and its ablations) vs summary.

Plays the same games (level, styles, map, seeds) under each condition tag and prints the
Table-1-style metrics table (win rate, PBR, RUR, APU, TR, tokens and calls per game).
The default is the embedded model (`--model local`; slow on a small CPU, so keep
`--styles`/`--seeds` small). `--model first-legal` is a scripted loop check that always
picks the first legal option: it runs in seconds and exercises the gating, but it is not
a model, and its numbers are not benchmark results. Writes
bench/results/episodic_tokens.json.

    .venv/bin/python bench/episodic_tokens.py   # builds runs/banks/craft.npz if missing
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from bounded.analysis.craft_table import craft_table, render_craft_table
from bounded.analysis.provenance import provenance, write_result
from bounded.core import JSON, RunRecord
from bounded.jobs.craft_bank import bootstrap_craft_bank
from bounded.models.scripted import ScriptedModel, first_option
from bounded.protocols import Model
from bounded.runner import GameSpec, play
from bounded.runner.build import build_model

TAGS = ("episodic", "episodic-no-exploration", "episodic-no-fusion", "summary")


def first_legal_reply(messages: list[dict[str, str]], constraint: JSON | None) -> JSON:
    properties = (constraint or {}).get("properties", {})
    if "strategy" in properties:
        return {"strategy": "replay the winning build"}
    if "decisions" in properties:
        choice = first_option(properties["decisions"])
        return {"analysis": "", "suggestions": "", "decisions": [choice]}
    key = "actions" if "actions" in properties else "action"
    action = {"id": first_option(properties[key])}
    return {"reasoning": "", key: [action] if key == "actions" else action}


def model_for(spec: str) -> Model:
    if spec == "first-legal":
        return ScriptedModel(first_legal_reply, id="first-legal")
    return build_model(GameSpec(env="craft", model=spec))


def ensure_bank(path: Path) -> None:
    if not path.is_file():
        bank, report = bootstrap_craft_bank()
        bank.save(path)
        print(f"built {path}: {report.kept} wins, {report.entries} entries")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", default="runs/banks/craft.npz")
    parser.add_argument("--model", default="local", help="a model spec, or first-legal")
    parser.add_argument("--level", type=int, default=5)
    parser.add_argument("--styles", nargs="+", default=["timing", "rush", "power", "macro", "air"])
    parser.add_argument("--map", default="crossroads")
    parser.add_argument("--seeds", type=int, default=2, help="games per style")
    parser.add_argument(
        "--time-limit", type=float, default=1800.0, help="game seconds before a game times out"
    )
    parser.add_argument("--out", default="bench/results/episodic_tokens.json")
    args = parser.parse_args()
    started_at = provenance()

    bank = Path(args.bank)
    ensure_bank(bank)
    model = model_for(args.model)
    runs: list[RunRecord] = []
    started = time.perf_counter()
    for tag in TAGS:
        config = {} if tag == "summary" else {"bank": str(bank)}
        for style in args.styles:
            for seed in range(args.seeds):
                options = {
                    "level": args.level, "style": style, "map": args.map,
                    "time_limit": args.time_limit,
                }  # fmt: skip
                spec = GameSpec(
                    env="craft", env_options=options, contract=tag, contract_config=config,
                    seed=seed, tag=tag,
                )  # fmt: skip
                runs.append(play(spec, model=model))
    rows = craft_table(runs)
    print(render_craft_table(rows))
    result = {
        "benchmark": "episodic_tokens",
        "model": model.id,
        "level": args.level,
        "styles": args.styles,
        "map": args.map,
        "seeds": args.seeds,
        "wall_s": time.perf_counter() - started,
        "rows": [row.model_dump() for row in rows],
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_result(out, result, started_at)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
