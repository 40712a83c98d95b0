"""Retrieval's cost: the `rag` contract's BM25, embedding and hybrid searches
(`bench/rag_retrieval.py`) and the episodic bank's search by window
(`bench/episodic_retrieval.py`)."""

from __future__ import annotations

from bounded.docgen.format import Data, count, measured_under, sig3, table


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{round(n / 1000)} KB"


def rag_search_times(data: Data) -> str:
    """Per store size: each search's time, a commit's, and the memory written."""
    rows = [
        [
            count(r["chunks"]), f"{r['bm25']['mean_ms']:.2f} / {r['bm25']['p95_ms']:.2f}",
            f"{r['embedding']['mean_ms']:.1f}", f"{r['hybrid']['mean_ms']:.1f}",
            f"{r['commit_ms']:.3f}", _size(r["snapshot_bytes"]), f"{r['checkpoint_bytes']} B",
        ]
        for r in data["results"]
    ]  # fmt: skip
    header = [
        "chunks", "BM25 mean / p95 (ms)", "cosine mean (ms)", "hybrid mean (ms)", "commit (ms)",
        "memory snapshot", "checkpoint written per decision",
    ]  # fmt: skip
    call = data["embed_call"]
    return (
        table(header, rows)
        + f"\nOne embedding call: {call['mean_ms']:,.0f} ms mean, {call['median_ms']:,.0f} ms "
        f"median ({call['calls']} calls). {measured_under(data)}\n"
    )


def episodic_search_rows(data: Data) -> str:
    """Every measured row: bank size, window, candidates and latency."""
    rows = [
        [count(r["entries"]), r["window"], count(r["candidates_mean"]), sig3(r["p50_ms"]),
         sig3(r["p95_ms"])]
        for r in data["rows"]
    ]  # fmt: skip
    return table(["entries", "window", "candidates", "p50 ms", "p95 ms"], rows, "rlrrr")


EPISODIC_WINDOWS = ("t_delta=0", "t_delta=30", "full scan")


def episodic_search_by_window(data: Data) -> str:
    """Per bank size: the median search time and candidates at each window."""
    by = {(r["entries"], r["window"]): r for r in data["rows"]}
    rows = []
    for entries in sorted({r["entries"] for r in data["rows"]}):
        cells = []
        for window in EPISODIC_WINDOWS:
            r = by[(entries, window)]
            cells.append(f"{r['p50_ms']:.2f} ms ({count(r['candidates_mean'])} candidates)")
        rows.append([count(entries), *cells])
    header = ["bank entries", "t_delta = 0", "t_delta = 30", "full scan (every entry a candidate)"]
    return table(header, rows) + f"\np50 over each row's queries. {measured_under(data)}\n"
