"""The archive at scale (`bench/archive_scale.py`): bytes and write time per decision, the
readers' time and peak memory, the write before and after format 2, and a transcript's bytes
per decision at two lengths."""

from __future__ import annotations

from bounded.docgen.format import Data, count, measured_under, sig3, table

READERS = ("analyze", "audit", "export parquet", "export jsonl", "report")


def _sizes(datas: tuple[Data, ...]) -> list[tuple[int, Data, Data]]:
    """(size, its measurements, the file) for every size of every file, smallest first."""
    found = [(int(n), size, data) for data in datas for n, size in data["sizes"].items()]
    return sorted(found, key=lambda item: item[0])


def bytes_and_write_time_by_size(*datas: Data) -> str:
    """Per archive size and contract: bytes and new text per decision, write time."""
    rows = [
        [
            count(n), f"`{contract}`", sig3(c["bytes_per_decision"]),
            sig3(c["new_text_bytes_per_decision"]), sig3(c["write_ms_median"]),
            sig3(c["write_ms_mean"]),
        ]
        for n, size, _ in _sizes(datas)
        for contract, c in size["contracts"].items()
    ]  # fmt: skip
    header = [
        "decisions in the archive", "contract", "bytes / decision", "new text bytes / decision",
        "write ms (median)", "write ms (mean)",
    ]  # fmt: skip
    notes = [f"- {count(n)}: {measured_under(data)}" for n, _, data in _sizes(datas)]
    return table(header, rows) + "\n" + "\n".join(notes) + "\n"


def reader_time_and_memory_by_size(*datas: Data) -> str:
    """Per archive size: each reader's time and peak memory, the report's size and how soon
    `bounded view` shows its first page."""
    rows = []
    for n, size, _ in _sizes(datas):
        readers = size["readers"]
        cells = [
            f"{sig3(readers[r]['s'])} s, {sig3(readers[r]['peak_rss_mb'])} MB"
            if "s" in readers[r]
            else "failed"
            for r in READERS
        ]
        view = readers["view first page"]
        report_mb = readers["report"].get("bytes", 0) / 1e6
        rows.append([
            count(n), sig3(size["archive_bytes"] / 1e6), *cells, sig3(report_mb),
            f"{sig3(view['page_s'])} s ({sig3(view['s'])} s from start)",
        ])  # fmt: skip
    header = [
        "decisions", "archive MB", *READERS, "report MB", "view's first page",
    ]  # fmt: skip
    return table(header, rows)


def write_time_before_and_after(writes_data: Data) -> str:
    """Per game: a decision's write time before and after the change, median and mean."""
    writes = writes_data["writes"]
    rows = [
        [
            f"`{game.split('/')[0]}`", count(int(game.split("/")[1])),
            sig3(row["before_write_ms_median"]), sig3(row["after_write_ms_median"]),
            sig3(row["before_write_ms_mean"]), sig3(row["after_write_ms_mean"]),
        ]
        for game, row in writes["games"].items()
    ]  # fmt: skip
    header = [
        "contract", "game's decisions", "before: median ms", "after: median ms",
        "before: mean ms", "after: mean ms",
    ]  # fmt: skip
    return (
        table(header, rows)
        + f"\nMedian of {writes['rounds']} alternating rounds. {measured_under(writes_data)}\n"
    )


def transcript_bytes_per_decision(data: Data) -> str:
    """One sentence: a transcript game's bytes per decision at each length, and their ratio."""
    transcript = data["transcript"]
    flat = ", ".join(
        f"{count(int(n))} decisions: {count(round(g['bytes_per_decision']))} bytes per decision"
        for n, g in transcript["games"].items()
    )
    return f"One transcript game each, {flat} (ratio {transcript['long_over_short']:.2f}).\n"
