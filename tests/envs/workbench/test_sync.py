"""The result stream of a writable run is checked member by member before it is kept."""

from __future__ import annotations

import io
import json
import os
import tarfile
from pathlib import Path

import pytest

from bounded.envs.workbench.sync import ResultReader, SyncRefused, extract, swap_in

MiB = 1 << 20


def member(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", link: str = "") -> tuple:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    info.linkname = link
    info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    info.mtime = 1_700_000_000
    return info, data


def stream(*members: tuple) -> io.BytesIO:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    buffer.seek(0)
    return buffer


@pytest.fixture
def staging(tmp_path: Path) -> Path:
    folder = tmp_path / "staging"
    folder.mkdir()
    return folder


def test_directories_files_symlinks_and_hard_links_are_extracted(staging: Path) -> None:
    extract(
        stream(
            member(".", tarfile.DIRTYPE),
            member("src", tarfile.DIRTYPE),
            member("src/main.py", data=b"print(1)\n"),
            member("src/alias.py", tarfile.LNKTYPE, link="src/main.py"),
            member("python", tarfile.SYMTYPE, link="/usr/bin/python3"),
        ),
        staging,
        quota=MiB,
        max_entries=100,
    )
    assert (staging / "src/main.py").read_text() == "print(1)\n"
    assert os.stat(staging / "src/main.py").st_mtime == 1_700_000_000
    assert os.path.samefile(staging / "src/main.py", staging / "src/alias.py")
    assert os.readlink(staging / "python") == "/usr/bin/python3"  # kept, never followed


@pytest.mark.parametrize(
    "members, why",
    [
        ([member("/etc/evil", data=b"x")], "absolute"),
        ([member("../evil", data=b"x")], "climbs out"),
        ([member("a/../../evil", data=b"x")], "climbs out"),
        ([member("p", tarfile.FIFOTYPE)], "not a file"),
        ([member("d", tarfile.CHRTYPE)], "not a file"),
        ([member("x/file", data=b"x")], "before its directory"),
        ([member("out", tarfile.SYMTYPE, link=".."), member("out/evil", data=b"x")], "non-dir"),
        ([member("h", tarfile.LNKTYPE, link="../outside.txt")], "climbs out"),
        ([member("h", tarfile.LNKTYPE, link="never-extracted")], "not extracted"),
        ([member("big", data=b"x" * (MiB + 1))], "quota"),
        ([member(f"f{n}", data=b"") for n in range(11)], "more than 10 entries"),
        (
            [member("d", tarfile.DIRTYPE), member("d", tarfile.DIRTYPE)],
            "appears twice",
        ),
    ],
)
def test_a_stream_breaking_a_rule_is_refused(staging: Path, members: list[tuple], why: str) -> None:
    (staging.parent / "outside.txt").write_text("host file\n")
    with pytest.raises(SyncRefused, match=why):
        extract(stream(*members), staging, quota=MiB, max_entries=10)
    assert (staging.parent / "outside.txt").read_text() == "host file\n"
    assert not (staging.parent / "evil").exists()
    assert not Path("/etc/evil").exists()


def test_a_repeated_file_name_keeps_the_last_one(staging: Path) -> None:
    extract(
        stream(member("a", data=b"first"), member("a", data=b"second")),
        staging,
        quota=MiB,
        max_entries=10,
    )
    assert (staging / "a").read_bytes() == b"second"


def test_the_reader_takes_the_status_line_then_the_tree(staging: Path, tmp_path: Path) -> None:
    status = {"exit_code": 3, "timed_out": False, "dropped": ["answer.txt"], "entries": 1}
    body = stream(member("kept.txt", data=b"kept")).getvalue()
    reader = ResultReader(
        io.BufferedReader(io.BytesIO(json.dumps(status).encode() + b"\n" + body)),  # type: ignore[arg-type]
        staging,
        quota=MiB,
        max_entries=10,
    )
    reader.run()
    assert reader.result.complete and reader.result.status is not None
    assert reader.result.status.model_dump(include=set(status)) == status
    root = tmp_path / "work"
    root.mkdir()
    (root / "old.txt").write_text("old")
    swap_in(root, staging)
    assert sorted(p.name for p in root.iterdir()) == ["kept.txt"]
    assert not staging.exists() and not (tmp_path / ".work.old").exists()


@pytest.mark.parametrize(
    "line", [b"not json\n", b'{"exit_code": "zero"}\n', b'{"exit_code": 0, "dropped": 7}\n']
)
def test_a_malformed_status_line_discards_the_result(staging: Path, line: bytes) -> None:
    body = stream(member("kept.txt", data=b"kept")).getvalue()
    reader = ResultReader(
        io.BufferedReader(io.BytesIO(line + body)),  # type: ignore[arg-type]
        staging,
        quota=MiB,
        max_entries=10,
    )
    reader.run()
    assert not reader.result.complete and reader.result.error
    assert not (staging / "kept.txt").exists()


def test_a_stream_cut_short_is_discarded(staging: Path) -> None:
    """A tar stream that stops between members reads as a shorter archive: the entry
    count in the status line is what tells."""
    body = stream(
        member("a", tarfile.DIRTYPE), member("a/f", data=b"x"), member("b", data=b"y")
    ).getvalue()
    cut = body[: 3 * 512]  # the headers of a and a/f, and a/f's data: b is missing
    reader = ResultReader(
        io.BufferedReader(io.BytesIO(b'{"exit_code": 0, "entries": 3}\n' + cut)),  # type: ignore[arg-type]
        staging,
        quota=MiB,
        max_entries=10,
    )
    reader.run()
    assert not reader.result.complete
    assert "ended early" in reader.result.error


def test_the_reader_reports_a_refused_or_missing_result(staging: Path) -> None:
    empty = ResultReader(io.BufferedReader(io.BytesIO(b"")), staging, quota=MiB, max_entries=10)  # type: ignore[arg-type]
    empty.run()
    assert not empty.result.complete and "no result" in empty.result.error
    bad = stream(member("../x", data=b"x")).getvalue()
    refused = ResultReader(
        io.BufferedReader(io.BytesIO(b'{"exit_code": 0, "entries": 1}\n' + bad)),  # type: ignore[arg-type]
        staging,
        quota=MiB,
        max_entries=10,
    )
    refused.run()
    assert not refused.result.complete and "climbs out" in refused.result.error
