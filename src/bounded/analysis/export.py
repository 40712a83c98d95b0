"""Archive export: pandas DataFrames of runs and decisions, written as JSONL or Parquet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bounded.archive import Archive
from bounded.core import ConfigError
from bounded.registry import did_you_mean

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("jsonl", "parquet")
"""The formats of runs and decisions as tables (`export_archive`)."""

EXPORT_FORMATS = ("jsonl", "parquet", "balrog", "summary")
"""Every format of `bounded export` (balrog: BALROG's results folder; summary: a small
JSON of the runs)."""


def unknown_format(fmt: str) -> ConfigError:
    """The error of a format `bounded export` does not write: every one it does."""
    hint = did_you_mean(fmt, EXPORT_FORMATS)
    return ConfigError(f"unknown export format {fmt!r}{hint} (use {', '.join(EXPORT_FORMATS)})")


def runs_frame(archive: Archive) -> pd.DataFrame:
    """One row per run; JSON fields (outcome, configs, hashes) stay as dicts."""
    import pandas as pd

    return pd.DataFrame([run.model_dump() for run in archive.runs()])


def _decision_row(record: Any) -> dict[str, Any]:
    completion = record.completion
    return {
        "run_id": record.run_id,
        "index": record.index,
        "t": record.t,
        "kind": record.kind,
        "prompt_tokens": record.prompt_tokens,
        "tokens_by_layer": dict(record.tokens_by_layer),
        "completion_text": completion.text if completion else None,
        "completion_tokens": completion.completion_tokens if completion else 0,
        "actions": [a.model_dump(by_alias=True) for a in record.actions],
        "reasoning": record.reasoning,
        "parse_error": record.parse_error,
        "fallback": record.fallback,
        "reward": record.reward,
        "latency_s": record.latency_s,
        "segments": [s.model_dump() for s in record.segments],
    }


def decisions_frame(archive: Archive, *, with_segments: bool = False) -> pd.DataFrame:
    """One row per decision of every run; `segments` (the prompt) only when asked."""
    import pandas as pd

    rows = []
    for run in archive.runs():
        for record in archive.decisions(run.run_id, with_segments=with_segments):
            row = _decision_row(record)
            if not with_segments:
                row.pop("segments")
            rows.append(row)
    return pd.DataFrame(rows)


def load_frames(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, decisions) DataFrames of an archive file."""
    with Archive(path, read_only=True) as archive:
        return runs_frame(archive), decisions_frame(archive)


def _for_parquet(frame: pd.DataFrame) -> pd.DataFrame:
    """Nested values (dicts, lists) as JSON text: their keys vary from row to row."""
    out = frame.copy()
    for column in out.columns:
        if out[column].map(lambda v: isinstance(v, dict | list)).any():
            out[column] = out[column].map(lambda v: json.dumps(v, sort_keys=True, default=str))
    return out


def export_archive(
    path: str | Path, out_dir: str | Path, fmt: str = "jsonl", *, with_segments: bool = True
) -> list[Path]:
    """Write `runs.<fmt>` and `decisions.<fmt>` into `out_dir`; returns the paths."""
    if fmt not in FORMATS:
        raise unknown_format(fmt)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with Archive(path, read_only=True) as archive:
        frames = {
            "runs": runs_frame(archive),
            "decisions": decisions_frame(archive, with_segments=with_segments),
        }
    written = []
    for name, frame in frames.items():
        target = out / f"{name}.{fmt}"
        if fmt == "jsonl":
            frame.to_json(target, orient="records", lines=True, default_handler=str)
        else:
            _for_parquet(frame).to_parquet(target, index=False)
        written.append(target)
    return written


__all__ = ["FORMATS", "decisions_frame", "export_archive", "load_frames", "runs_frame"]
