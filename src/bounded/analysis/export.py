"""Archive export: pandas DataFrames of runs and decisions, written as JSONL or Parquet."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bounded.archive import Archive
from bounded.archive.prompts import Ids
from bounded.archive.queries import stream_runs
from bounded.archive.streams import PromptTexts, every_decision
from bounded.core import JSON, ConfigError, RunRecord
from bounded.registry import did_you_mean

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

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
    """A decision's row without its prompt (`segments`, added per page)."""
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
    }


ROWS_PER_WRITE = 500
"""Decision (and run) rows an export holds before writing them, a page (each a transcript's
whole prompt at most: 500 rows peak at 241 MB RSS exporting 10,000 decisions to Parquet and
276 MB exporting a million, `bench/results/archive_scale_*_export_paged.json`)."""

SEGMENTS_PER_WRITE = 100_000
"""Prompt segments an export holds before writing its rows: a page of a long transcript
game's decisions (each prompt every decision before it) is written before its 500 rows."""

Page = tuple[list[dict[str, Any]], list[Ids]]
"""Decision rows without their prompts, and each one's prompt as (label, text) ids."""


def _decision_pages(archive: Archive, *, with_segments: bool) -> Iterator[Page]:
    """Every decision's row in `Archive.runs` order, a page at a time (`ROWS_PER_WRITE` rows
    or `SEGMENTS_PER_WRITE` segments)."""
    rows: list[dict[str, Any]] = []
    prompts: list[Ids] = []
    held = 0
    for stored in every_decision(archive, prompts=with_segments):
        rows.append(_decision_row(stored.record))
        prompts.append(stored.prompt)
        held += len(stored.prompt)
        if len(rows) >= ROWS_PER_WRITE or held >= SEGMENTS_PER_WRITE:
            yield rows, prompts
            rows, prompts, held = [], [], 0
    if rows:
        yield rows, prompts


def _page_segments(texts: PromptTexts, prompts: list[Ids]) -> dict[tuple[int, int], JSON]:
    """Each (label, text) pair the page's prompts name -> its segment as `Segment` dumps it
    (one dict per pair, shared by the rows that hold it)."""
    pairs = {pair for ids in prompts for pair in ids}
    found = texts.texts({text for _, text in pairs})
    segments = {}
    for label, text in pairs:
        layer, role = texts.label(label)
        segments[(label, text)] = {"layer": layer, "role": role, "text": found[text]}
    return segments


def _listed_segments(texts: PromptTexts, page: Page, with_segments: bool) -> list[JSON]:
    """The page's rows, each with its prompt's segments as a list (when asked)."""
    rows, prompts = page
    if not with_segments:
        return rows
    segments = _page_segments(texts, prompts)
    for row, ids in zip(rows, prompts, strict=True):
        row["segments"] = [segments[pair] for pair in ids]
    return rows


def decision_rows(archive: Archive, *, with_segments: bool = False) -> Iterator[dict[str, Any]]:
    """One row per decision of every run, read a page at a time; `segments` (the prompt)
    only when asked."""
    texts = PromptTexts(archive)
    for page in _decision_pages(archive, with_segments=with_segments):
        yield from _listed_segments(texts, page, with_segments)


def decisions_frame(archive: Archive, *, with_segments: bool = False) -> pd.DataFrame:
    """One row per decision of every run in one DataFrame (for an archive that fits in
    memory; `export_archive` streams)."""
    import pandas as pd

    return pd.DataFrame(list(decision_rows(archive, with_segments=with_segments)))


def load_frames(path: str | Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(runs, decisions) DataFrames of an archive file."""
    with Archive(path, read_only=True) as archive:
        return runs_frame(archive), decisions_frame(archive)


def _json_text(value: Any) -> str:
    """A nested value (dict, list) as Parquet holds it: JSON text (its keys vary from row
    to row)."""
    return json.dumps(value, sort_keys=True, default=str)


def _decision_schema(with_segments: bool) -> pa.Schema:
    import pyarrow as pa

    fields = [
        ("run_id", pa.string()),
        ("index", pa.int64()),
        ("t", pa.float64()),
        ("kind", pa.string()),
        ("prompt_tokens", pa.int64()),
        ("tokens_by_layer", pa.string()),
        ("completion_text", pa.string()),
        ("completion_tokens", pa.int64()),
        ("actions", pa.string()),
        ("reasoning", pa.string()),
        ("parse_error", pa.string()),
        ("fallback", pa.bool_()),
        ("reward", pa.float64()),
        ("latency_s", pa.float64()),
    ]
    if with_segments:
        fields.append(("segments", pa.string()))
    return pa.schema(fields)


DECISION_STATISTICS = (
    "run_id", "index", "t", "kind", "prompt_tokens", "completion_tokens", "fallback", "reward",
    "latency_s",
)  # fmt: skip
"""The decision columns whose row groups carry Parquet statistics (min, max): not the JSON
and free text ones, whose long values the file's footer would keep per row group, in the
writer's memory too (64 MB more over 2,000 row groups)."""


def _run_schema() -> pa.Schema:
    """The runs' Parquet columns, one per `RunRecord` field: integers, floats, text (the
    JSON fields as JSON text), as pandas wrote them from a frame of every run."""
    import pyarrow as pa

    scalar = {int: pa.int64(), float: pa.float64(), str: pa.large_string()}
    return pa.schema(
        [
            (name, scalar.get(field.annotation, pa.large_string()))  # type: ignore[arg-type]
            for name, field in RunRecord.model_fields.items()
        ]
    )


def _run_statistics() -> list[str]:
    """The run columns whose row groups carry statistics: the scalar ones (not JSON, not the
    error's text)."""
    return [n for n, f in RunRecord.model_fields.items() if f.annotation in (int, float, str)]


def _parquet_runs(runs: list[RunRecord]) -> list[dict[str, Any]]:
    rows = [run.model_dump() for run in runs]
    for row in rows:
        for name, value in row.items():
            if isinstance(value, dict | list):
                row[name] = _json_text(value)
    return rows


def _parquet_decisions(texts: PromptTexts, page: Page, with_segments: bool) -> list[JSON]:
    """The page's rows as Parquet holds them: nested values as JSON text, a prompt's
    segments joined from each segment's JSON (as `json.dumps` writes the list)."""
    rows, prompts = page
    each = {}
    if with_segments:
        each = {pair: _json_text(s) for pair, s in _page_segments(texts, prompts).items()}
    for row, ids in zip(rows, prompts, strict=True):
        row["tokens_by_layer"] = _json_text(row["tokens_by_layer"])
        row["actions"] = _json_text(row["actions"])
        if with_segments:
            row["segments"] = "[" + ", ".join(each[pair] for pair in ids) + "]"
    return rows


def _write_parquet(
    target: Path, schema: pa.Schema, pages: Iterable[list[JSON]], statistics: Sequence[str]
) -> None:
    """One row group per page, under one schema fixed before the first; `statistics`: the
    columns whose row groups carry min and max."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    with pq.ParquetWriter(target, schema, write_statistics=list(statistics)) as writer:
        for rows in pages:
            writer.write_table(pa.Table.from_pylist(rows, schema=schema))


def _write_jsonl(target: Path, pages: Iterable[list[JSON]]) -> None:
    """Each page's lines as pandas writes a frame's (each ends with a newline; nothing
    written: one newline, as pandas writes an empty frame)."""
    import pandas as pd

    with target.open("w") as out:
        wrote = False
        for rows in pages:
            out.write(pd.DataFrame(rows).to_json(orient="records", lines=True, default_handler=str))
            wrote = True
        if not wrote:
            out.write(pd.DataFrame([]).to_json(orient="records", lines=True))


def _run_pages(archive: Archive) -> Iterator[list[RunRecord]]:
    runs = stream_runs(archive)
    while page := list(islice(runs, ROWS_PER_WRITE)):
        yield page


def _write_runs(archive: Archive, target: Path, fmt: str) -> None:
    if fmt == "jsonl":
        _write_jsonl(target, ([run.model_dump() for run in page] for page in _run_pages(archive)))
    else:
        pages = map(_parquet_runs, _run_pages(archive))
        _write_parquet(target, _run_schema(), pages, _run_statistics())


def _write_decisions(archive: Archive, target: Path, fmt: str, *, with_segments: bool) -> None:
    texts = PromptTexts(archive)
    pages = _decision_pages(archive, with_segments=with_segments)
    if fmt == "jsonl":
        _write_jsonl(target, (_listed_segments(texts, page, with_segments) for page in pages))
    else:
        schema = _decision_schema(with_segments)
        rows = (_parquet_decisions(texts, page, with_segments) for page in pages)
        _write_parquet(target, schema, rows, DECISION_STATISTICS)


def export_archive(
    path: str | Path, out_dir: str | Path, fmt: str = "jsonl", *, with_segments: bool = True
) -> list[Path]:
    """Write `runs.<fmt>` and `decisions.<fmt>` into `out_dir`, runs and decisions streamed
    from the archive a page at a time (a Parquet file: a row group per page); returns the
    paths."""
    if fmt not in FORMATS:
        raise unknown_format(fmt)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs, decisions = out / f"runs.{fmt}", out / f"decisions.{fmt}"
    with Archive(path, read_only=True) as archive:
        _write_runs(archive, runs, fmt)
        _write_decisions(archive, decisions, fmt, with_segments=with_segments)
    return [runs, decisions]


__all__ = [
    "FORMATS",
    "decision_rows",
    "decisions_frame",
    "export_archive",
    "load_frames",
    "runs_frame",
]
