"""What each reply mode costs the embedded model: invalid actions, fallbacks, parse errors
and tokens per decision, for the contracts whose papers read replies in other ways.

Usage: python bench/reply_modes.py [--decisions 8] [--contracts typed,state,summary,balrog-naive]
       [--envs warehouse,babyai] [--modes constrained,json,text] [--text-grammars none]
       [--out PATH] [--archive PATH]
       python bench/reply_modes.py --table RESULTS.json ...   (the markdown table of results)

Plays one game per (contract, environment, mode) cell with the embedded model (SmolLM2-135M
on llama.cpp, `model = "local"`, greedy), each cut to `--decisions` decisions, into
runs/reply_modes.sqlite, and writes bench/results/reply_modes.json: per cell the decisions,
the model calls, the invalid actions (a reply naming an action outside the legal set), the
fallbacks (the executed action was not the model's), the parse errors, completion and prompt
tokens per model call, and the run's `model_params["reply"]` (the mode played, the response
format sent, whether replies kept to it). `--text-grammars none,frame` plays each `text` cell
once per embedded `text_grammar` (`frame`: free prose, then the rule's frame decoded under a
grammar; a model option, so part of the game's identity; the row's mode `text+frame`).
A 135M model proves the pipeline, not a mechanism:
the rates say what unconstrained decoding costs this model on these prompts, nothing more.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from bounded.analysis.provenance import provenance, write_result
from bounded.archive import Archive
from bounded.core import DecisionRecord, RunRecord, invalid_count
from bounded.docgen.replies import reply_mode_cells
from bounded.models import make_model
from bounded.runner import GameSpec, play

RESULTS = Path(__file__).parent / "results" / "reply_modes.json"
ARCHIVE = Path("runs") / "reply_modes.sqlite"
ENV_OPTIONS: dict[str, dict[str, Any]] = {
    "warehouse": {"horizon": 12},
    "babyai": {"level": "goto", "max_steps": 64},
}
"""Small games: a 12-event warehouse stream, BabyAI's GoTo with its own step limit."""


def cell_row(run: RunRecord, decisions: list[DecisionRecord], mode: str) -> dict[str, Any]:
    """One cell's numbers from its archived decisions."""
    asked = [d for d in decisions if d.completion is not None]
    calls = max(1, len(asked))
    invalid = sum(invalid_count(d.info) for d in decisions)
    return {
        "contract": run.spec.get("contract", run.contract),
        "env": run.spec.get("env", run.env_id),
        "mode": mode,
        "status": run.status,
        "error": run.error,
        "decisions": len(decisions),
        "model_decisions": len(asked),
        "invalid_actions": invalid,
        "invalid_per_model_decision": round(invalid / calls, 3),
        "fallbacks": sum(d.fallback for d in decisions),
        "fallback_rate": round(sum(d.fallback for d in decisions) / max(1, len(decisions)), 3),
        "parse_errors": sum(d.parse_error is not None for d in decisions),
        "completion_tokens_per_call": round(
            sum(d.completion.completion_tokens for d in asked if d.completion) / calls, 1
        ),
        "prompt_tokens_per_call": round(
            sum(d.completion.prompt_tokens for d in asked if d.completion) / calls, 1
        ),
        "cut_by_token_limit": sum(
            1 for d in asked if d.completion and d.completion.finish_reason == "length"
        ),
        "seconds_per_call": round(
            sum(d.completion.latency_s for d in asked if d.completion) / calls, 2
        ),
        "reply": run.model_params.get("reply", {}),
        "score": run.outcome.get("score"),
    }


def table(paths: list[Path]) -> str:
    """The cells of result files as a markdown table (the one in docs/results.md)."""
    cells = [cell for path in paths for cell in json.loads(path.read_text())["cells"]]
    return reply_mode_cells(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, nargs="+", help="print these results as a table")
    parser.add_argument("--decisions", type=int, default=8)
    parser.add_argument("--contracts", default="typed,state,summary,balrog-naive")
    parser.add_argument("--envs", default="warehouse,babyai")
    parser.add_argument("--modes", default="constrained,json,text")
    parser.add_argument("--text-grammars", default="none", help="none, frame or both")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--archive", type=Path, default=ARCHIVE)
    args = parser.parse_args()
    started_at = provenance()
    if args.table:
        print(table(args.table))
        return
    grammars = {"none", *args.text_grammars.split(",")}
    models = {grammar: make_model("local", text_grammar=grammar) for grammar in grammars}
    rows: list[dict[str, Any]] = []
    started = time.time()
    args.archive.parent.mkdir(parents=True, exist_ok=True)
    with Archive(args.archive) as archive:
        for env in args.envs.split(","):
            for contract in args.contracts.split(","):
                for mode, grammar in cells(args.modes, args.text_grammars):
                    label = mode if grammar == "none" else f"{mode}+{grammar}"
                    options = {} if grammar == "none" else {"text_grammar": grammar}
                    spec = GameSpec(
                        env=env, env_options=ENV_OPTIONS.get(env, {}), contract=contract,
                        contract_config={"reply": mode}, model="local", model_options=options,
                        seed=1, max_decisions=args.decisions, experiment="reply-modes",
                        cell=f"{contract}.{env}.{label}", tag=f"{contract}.{label}",
                    )  # fmt: skip
                    try:
                        run = play(spec, archive=archive, model=models[grammar])
                    except Exception as exc:  # a failed cell is a row, with its error
                        error = f"{type(exc).__name__}: {exc}"
                        failed = {"contract": contract, "env": env, "mode": label}
                        rows.append({**failed, "status": "failed", "error": error})
                        continue
                    row = cell_row(run, archive.decisions(run.run_id), label)
                    rows.append(row)
                    print(json.dumps(row), flush=True)
                    write(args, rows, started, started_at)
    write(args, rows, started, started_at)


def cells(modes: str, grammars: str) -> list[tuple[str, str]]:
    """The (mode, text grammar) pairs to play: each mode once, `text` once per grammar."""
    found: list[tuple[str, str]] = []
    for mode in modes.split(","):
        kinds = grammars.split(",") if mode == "text" else ["none"]
        found.extend((mode, grammar) for grammar in kinds)
    return found


def write(
    args: argparse.Namespace, rows: list[dict[str, Any]], started: float, started_at: dict[str, Any]
) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "command": "python bench/reply_modes.py "
        f"--decisions {args.decisions} --contracts {args.contracts} --envs {args.envs} "
        f"--modes {args.modes} --text-grammars {args.text_grammars}",
        "model": "local (SmolLM2-135M-Instruct, llama.cpp, greedy)",
        "env_options": ENV_OPTIONS,
        "machine": f"{platform.machine()}, {platform.python_version()}",
        "commit": os.environ.get("BOUNDED_COMMIT", ""),
        "wall_s": round(time.time() - started, 1),
        "cells": rows,
    }
    write_result(args.out, payload, started_at)


if __name__ == "__main__":
    main()
