"""Host-side file access: special files are refused without blocking; the quota counts pages."""

from __future__ import annotations

import os
import socket
import stat
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bounded.envs.workbench.files import (
    SandboxError,
    pages,
    read_regular,
    regular_size,
    usage,
    write_regular,
)
from bounded.envs.workbench.sandbox import Sandbox, SandboxLimits


def finishes_within(seconds: float, call: Callable[[], object]) -> BaseException | None:
    """Run `call` in a thread; fail the test if it is still blocked after `seconds`."""
    caught: list[BaseException] = []

    def target() -> None:
        try:
            call()
        except BaseException as exc:
            caught.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "the call blocked"
    return caught[0] if caught else None


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Path]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "plain.txt").write_text("plain\n")
    os.mkfifo(work / "fifo")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(work / "sock"))
    yield work
    listener.close()


@pytest.mark.parametrize("name", ["fifo", "sock"])
def test_reading_a_fifo_or_socket_is_refused_at_once(root: Path, name: str) -> None:
    error = finishes_within(2, lambda: read_regular(root / name, name, 100))
    assert isinstance(error, SandboxError)
    assert "only regular files" in str(error)


@pytest.mark.parametrize("name", ["fifo", "sock"])
def test_writing_a_fifo_or_socket_is_refused_at_once(root: Path, name: str) -> None:
    error = finishes_within(2, lambda: write_regular(root / name, name, b"data"))
    assert isinstance(error, SandboxError)
    assert stat.S_ISFIFO(os.lstat(root / "fifo").st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a device node")
def test_a_device_node_is_refused_before_it_is_opened(root: Path) -> None:
    os.mknod(root / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    for call in (
        lambda: read_regular(root / "null", "null", 10),
        lambda: write_regular(root / "null", "null", b"x"),
    ):
        error = finishes_within(2, call)
        assert isinstance(error, SandboxError)
        assert "character device" in str(error)


def test_a_directory_is_refused_for_reading(root: Path) -> None:
    (root / "sub").mkdir()
    with pytest.raises(SandboxError, match="a directory"):
        read_regular(root / "sub", "sub", 10)


def test_regular_files_are_read_and_replaced(root: Path) -> None:
    assert read_regular(root / "plain.txt", "plain.txt", 100) == b"plain\n"
    assert read_regular(root / "plain.txt", "plain.txt", 3) == b"pla"
    write_regular(root / "plain.txt", "plain.txt", b"new")
    assert (root / "plain.txt").read_bytes() == b"new"
    with pytest.raises(SandboxError, match="does not exist"):
        read_regular(root / "missing", "missing", 10)


def test_the_sandbox_tools_refuse_a_fifo_the_task_directory_holds(root: Path) -> None:
    box = Sandbox(root)
    for call in (
        lambda: box.read_text("fifo", max_chars=100),
        lambda: box.write_text("fifo", "answer"),
        lambda: box.read_bytes("fifo"),
    ):
        assert isinstance(finishes_within(2, call), SandboxError)


def test_usage_counts_regular_files_in_pages(root: Path) -> None:
    (root / "big").write_bytes(b"x" * 5000)
    os.symlink("/etc/passwd", root / "link")
    used, entries = usage(root)
    assert used == pages(6) + pages(5000) == 3 * 4096
    assert entries == 5  # plain.txt, fifo, sock, big, link
    assert regular_size(root / "big") == 5000
    assert regular_size(root / "fifo") is None
    assert regular_size(root / "link") is None


def test_writes_past_the_disk_quota_are_refused(root: Path) -> None:
    box = Sandbox(root, SandboxLimits(disk_mb=1))
    box.write_text("a.bin", "x" * 600_000)
    with pytest.raises(SandboxError, match="disk quota of 1 MiB"):
        box.write_text("b.bin", "x" * 600_000)
    box.write_text("a.bin", "y" * 900_000)  # replacing a file counts only the difference
    assert not (root / "b.bin").exists()


def test_new_files_past_the_entry_limit_are_refused(root: Path) -> None:
    box = Sandbox(root, SandboxLimits(max_entries=10))
    for n in range(7):
        box.write_text(f"f{n}", "x")
    with pytest.raises(SandboxError, match="entries"):
        box.write_text("one-more", "x")
    box.write_text("f0", "rewritten")
