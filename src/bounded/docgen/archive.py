"""The archive at scale (`bench/archive_scale.py`): bytes and write time per decision, the
readers' time and peak memory, the write before and after format 2, a transcript's bytes
per decision at two lengths, a replayed fill against a played one, and the readers' peak
memory at a large size over a small one."""

from __future__ import annotations

from bounded.docgen.format import Data, count, measured_under, sig3, table

READERS = ("analyze", "audit", "export parquet", "export jsonl", "report")
VIEW = "view first page"
FILLS = {"play": "played", "replay": "writes replayed"}


def _reader_cell(measured: Data | None) -> str:
    """A reader's seconds and peak memory; what it was instead when it has no numbers."""
    if measured is None:
        return "not run"
    if measured.get("timed_out"):
        return f"timed out (> {sig3(measured['timeout_s'])} s)"
    if "s" not in measured:
        return "failed"
    return f"{sig3(measured['s'])} s, {sig3(measured['peak_rss_mb'])} MB"


def _view_cell(measured: Data | None) -> str:
    if measured is None or "page_s" not in measured:
        return _reader_cell(measured)
    return f"{sig3(measured['page_s'])} s ({sig3(measured['s'])} s from start)"


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
    notes = [
        f"- {count(n)} ({FILLS[data.get('fill', 'play')]}): {measured_under(data)}"
        for n, _, data in _sizes(datas)
    ]
    return table(header, rows) + "\n" + "\n".join(notes) + "\n"


def reader_time_and_memory_by_size(*datas: Data) -> str:
    """Per archive size: each reader's time and peak memory, the report's size and how soon
    `bounded view` shows its first page."""
    rows = []
    for n, size, _ in _sizes(datas):
        readers = size["readers"]
        report_bytes = readers.get("report", {}).get("bytes")
        rows.append([
            count(n), sig3(size["archive_bytes"] / 1e6),
            *[_reader_cell(readers.get(r)) for r in READERS],
            "-" if report_bytes is None else sig3(report_bytes / 1e6),
            _view_cell(readers.get(VIEW)),
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


def replayed_against_played(played: Data, replayed: Data) -> str:
    """Per contract, at the size both files measured: bytes and new text per decision of
    the played fill and of the replayed one."""
    ((n, first),) = played["sizes"].items()
    second = replayed["sizes"][n]["contracts"]
    rows = [
        [
            f"`{contract}`", sig3(c["bytes_per_decision"]),
            sig3(second[contract]["bytes_per_decision"]), sig3(c["new_text_bytes_per_decision"]),
            sig3(second[contract]["new_text_bytes_per_decision"]),
        ]
        for contract, c in first["contracts"].items()
    ]  # fmt: skip
    header = [
        "contract", "played: bytes / decision", "replayed: bytes / decision",
        "played: new text", "replayed: new text",
    ]  # fmt: skip
    notes = f"{count(int(n))} decisions each. Played: {measured_under(played)} Replayed: " + (
        measured_under(replayed)
    )
    return table(header, rows) + "\n" + notes + "\n"


PEAK_READERS = ("export parquet", "audit", "report")


def peak_memory_large_over_small(small: Data, large: Data) -> str:
    """One line per reader of `PEAK_READERS`: its peak memory at the large file's size over
    the small's, or why there is no ratio."""
    ((n_small, at_small),) = small["sizes"].items()
    ((n_large, at_large),) = large["sizes"].items()
    lines = []
    for reader in PEAK_READERS:
        low, high = at_small["readers"].get(reader), at_large["readers"].get(reader)
        if low and high and "peak_rss_mb" in low and "peak_rss_mb" in high:
            ratio = high["peak_rss_mb"] / low["peak_rss_mb"]
            said = f"{sig3(low['peak_rss_mb'])} MB -> {sig3(high['peak_rss_mb'])} MB (x{ratio:.2f})"
        else:
            said = (
                f"no ratio: {_reader_cell(low)} at the small size, "
                f"{_reader_cell(high)} at the large"
            )
        lines.append(
            f"- `{reader}`, {count(int(n_small))} -> {count(int(n_large))} decisions: {said}"
        )
    return "\n".join(lines) + "\n"


def reader_by_code(reader: str, *datas: Data) -> str:
    """One reader's time and peak memory per archive size and per code that ran it (each
    file's commit), then each file's provenance: the same reader before and after a change."""
    rows, notes = [], []
    for number, data in enumerate(datas, start=1):
        commit = (data.get("provenance", {}).get("commit") or "")[:7]
        code = f"`{commit}` ({number})" if commit else f"not recorded ({number})"
        for n, size in sorted(data["sizes"].items(), key=lambda item: int(item[0])):
            measured = size["readers"].get(reader)
            if measured is not None:
                rows.append([count(int(n)), code, _reader_cell(measured)])
        notes.append(f"({number}) {measured_under(data)}")
    header = ["decisions", "code (file)", f"`{reader}`: time, peak memory"]
    return table(header, rows) + "\n" + "\n".join(notes) + "\n"


def audit_by_code(*datas: Data) -> str:
    """`reader_by_code` of `bounded audit`."""
    return reader_by_code("audit", *datas)


def attribute_plan_by_code(*datas: Data) -> str:
    """`reader_by_code` of `bounded attribute --dry-run` (an attribution's whole plan)."""
    return reader_by_code("attribute plan", *datas)
