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
import shutil
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from tempfile import SpooledTemporaryFile
from typing import IO

from bounded.analysis.provenance import finished, provenance
from bounded.archive import Archive
from bounded.archive.queries import stream_runs
from bounded.core import JSON, DecisionRecord, RunRecord

SUMMARY_FORMAT = 1
"""The summary's layout version, stamped in every file."""

SPOOL_BYTES = 8 * 2**20
"""Bytes of run summaries `write_summary` holds in memory before spooling them to disk."""


def run_summary(run: RunRecord, decisions: Iterable[DecisionRecord]) -> JSON:
    """One run as the docs quote it; tokens per layer, fallbacks and each decision's reward
    from its stored decisions, read once in order (the run row's totals are kept beside
    them)."""
    layers: Counter[str] = Counter()
    rewards: list[float] = []
    max_prompt_tokens = fallbacks = parse_errors = 0
    latency: float = 0
    for decision in decisions:
        layers.update(decision.tokens_by_layer)
        max_prompt_tokens = max(max_prompt_tokens, decision.prompt_tokens)
        fallbacks += decision.fallback
        rewards.append(decision.reward)
        parse_errors += decision.parse_error is not None
        latency += decision.latency_s
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
        "max_prompt_tokens": max_prompt_tokens,
        "tokens_by_layer": dict(sorted(layers.items())),
        "fallbacks": fallbacks,
        "rewards": rewards,
        "parse_errors": parse_errors,
        "wall_s": round(run.wall_s, 3),
        "model_latency_s": round(latency, 3),
        "started_at": run.started_at,
        "package_version": run.package_version,
        "code_revision": run.code_revision,
        "usage": run.usage,
    }


def run_summaries(archive: Archive) -> Iterator[JSON]:
    """Each run's summary in `Archive.runs` order, its decisions read a chunk at a time."""
    for run in stream_runs(archive):
        yield run_summary(run, archive.iter_decisions(run.run_id, with_segments=False))


def _head(path: str | Path, started: JSON) -> JSON:
    return {
        "format": "bounded-archive-summary",
        "format_version": SUMMARY_FORMAT,
        "archive": Path(path).name,
        "provenance": {**finished(started), "machine": platform.machine()},
    }


def archive_summary(path: str | Path) -> JSON:
    """Every run of the archive at `path`, with where and when the summary was made."""
    started = provenance()
    with Archive(path, read_only=True) as archive:
        runs = list(run_summaries(archive))
    return {**_head(path, started), "runs": runs}


def write_summary(path: str | Path, out: str | Path) -> Path:
    """Write the archive's summary to `out` (a `.json` file, or `summary.json` in a folder),
    as `json.dumps(archive_summary(path), indent=2)` writes it, one run at a time: the runs
    go to a spool first, since the provenance before them ends when they are read."""
    target = Path(out)
    if target.suffix != ".json":
        target = target / "summary.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    started = provenance()
    with (
        Archive(path, read_only=True) as archive,
        SpooledTemporaryFile(SPOOL_BYTES, mode="w+") as spool,
    ):
        listed = write_list_items(spool, run_summaries(archive))
        head = json.dumps({**_head(path, started), "runs": []}, indent=2)
        with target.open("w") as file:
            file.write(head.removesuffix("[]\n}") + "[")
            spool.seek(0)
            shutil.copyfileobj(spool, file)
            file.write("\n  ]\n}\n" if listed else "]\n}\n")
    return target


def write_list_items(out: IO[str], items: Iterable[JSON]) -> int:
    """The items of a list that is a value of a top-level object, as `json.dumps(...,
    indent=2)` writes them there (without the brackets); how many."""
    count = 0
    for item in items:
        text = json.dumps(item, indent=2).replace("\n", "\n    ")
        out.write(("," if count else "") + "\n    " + text)
        count += 1
    return count


def runs_of_summary(summary: JSON) -> list[RunRecord]:
    """The runs of a summary as far as it records them (no decisions, no store hashes; a
    summary written before `model_params` was kept has none), so that what `bounded`
    computes from runs (the parity report) can be computed from a committed summary."""
    fields = RunRecord.model_fields
    return [
        RunRecord.model_validate({key: value for key, value in run.items() if key in fields})
        for run in summary["runs"]
    ]


__all__ = [
    "SUMMARY_FORMAT",
    "archive_summary",
    "run_summaries",
    "run_summary",
    "runs_of_summary",
    "write_list_items",
    "write_summary",
]
