"""A small JSON summary of an archive's runs, to commit beside the docs that quote them.

An archive (`runs/*.sqlite`) is not committed: it holds every prompt and is large. What a
table in the docs quotes of it fits in a few kilobytes: each run's spec, outcome,
decisions, tokens per layer, fallbacks and times, with the commit and machine the summary
was written on. `bounded export ARCHIVE --format summary -o FILE.json` writes it; the
docs' tables are generated from it (`scripts/docs.py`).
"""

from __future__ import annotations

import json
import platform
from collections import Counter
from pathlib import Path

from bounded.analysis.provenance import finished, provenance
from bounded.archive import Archive
from bounded.core import JSON, DecisionRecord, RunRecord

SUMMARY_FORMAT = 1
"""The summary's layout version, stamped in every file."""


def run_summary(run: RunRecord, decisions: list[DecisionRecord]) -> JSON:
    """One run as the docs quote it; tokens per layer, fallbacks and each decision's reward
    from its stored decisions (the run row's totals are kept beside them)."""
    layers: Counter[str] = Counter()
    for decision in decisions:
        layers.update(decision.tokens_by_layer)
    return {
        "run_id": run.run_id,
        "spec": run.spec,
        "env_id": run.env_id,
        "contract": run.contract,
        "contract_config": run.contract_config,
        "model": run.model,
        "model_params": run.model_params,
        "seed": run.seed,
        "experiment": run.experiment,
        "cell": run.cell,
        "tag": run.tag,
        "status": run.status,
        "error": run.error,
        "outcome": run.outcome,
        "decisions": run.decisions,
        "model_calls": run.model_calls,
        "prompt_tokens": run.prompt_tokens,
        "cached_tokens": run.cached_tokens,
        "completion_tokens": run.completion_tokens,
        "last_prompt_tokens": run.last_prompt_tokens,
        "max_prompt_tokens": max((d.prompt_tokens for d in decisions), default=0),
        "tokens_by_layer": dict(sorted(layers.items())),
        "fallbacks": sum(d.fallback for d in decisions),
        "rewards": [d.reward for d in decisions],
        "parse_errors": sum(d.parse_error is not None for d in decisions),
        "wall_s": round(run.wall_s, 3),
        "model_latency_s": round(sum(d.latency_s for d in decisions), 3),
        "started_at": run.started_at,
        "package_version": run.package_version,
        "code_revision": run.code_revision,
        "usage": run.usage,
    }


def archive_summary(path: str | Path) -> JSON:
    """Every run of the archive at `path`, with where and when the summary was made."""
    started = provenance()
    with Archive(path, read_only=True) as archive:
        runs = [
            run_summary(run, archive.decisions(run.run_id, with_segments=False))
            for run in archive.runs()
        ]
    return {
        "format": "bounded-archive-summary",
        "format_version": SUMMARY_FORMAT,
        "archive": Path(path).name,
        "provenance": {**finished(started), "machine": platform.machine()},
        "runs": runs,
    }


def write_summary(path: str | Path, out: str | Path) -> Path:
    """Write the archive's summary to `out` (a `.json` file, or `summary.json` in a folder)."""
    target = Path(out)
    if target.suffix != ".json":
        target = target / "summary.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(archive_summary(path), indent=2) + "\n")
    return target


def runs_of_summary(summary: JSON) -> list[RunRecord]:
    """The runs of a summary as far as it records them (no decisions, no store hashes; a
    summary written before `model_params` was kept has none), so that what `bounded`
    computes from runs (the parity report) can be computed from a committed summary."""
    fields = RunRecord.model_fields
    return [
        RunRecord.model_validate({key: value for key, value in run.items() if key in fields})
        for run in summary["runs"]
    ]


__all__ = ["SUMMARY_FORMAT", "archive_summary", "run_summary", "runs_of_summary", "write_summary"]
