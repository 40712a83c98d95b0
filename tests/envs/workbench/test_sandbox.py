"""The sandbox refuses escapes and contains commands: files, network, processes, memory, time."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bounded.envs.workbench.sandbox import (
    Sandbox,
    SandboxError,
    SandboxLimits,
    SandboxUnavailable,
    sandbox_available,
)

needs_bwrap = pytest.mark.skipif(not sandbox_available(), reason="bubblewrap cannot run here")


@pytest.fixture
def box() -> Iterator[Sandbox]:
    # Under /tmp rather than pytest's private tmp_path: the sandbox user must reach it.
    top = Path(tempfile.mkdtemp(prefix="sandbox-test-"))
    os.chmod(top, 0o755)
    root = top / "work"
    root.mkdir()
    (root / "inside.txt").write_text("inside\n")
    (top / "secret.txt").write_text("classified-42\n")
    sandbox = Sandbox(root, SandboxLimits(timeout_s=10, cpu_s=5, output_chars=2000))
    sandbox.hand_over_tree()
    yield sandbox
    shutil.rmtree(top)


# -- file confinement ---------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["../secret.txt", "a/../../secret.txt", "/etc/passwd", "/work/../secret.txt", ""]
)
def test_paths_outside_the_directory_are_refused(box: Sandbox, path: str) -> None:
    with pytest.raises(SandboxError):
        box.resolve(path)


@given(
    st.lists(
        st.sampled_from(["..", ".", "a", "up", "loop", "", "/work", "inside.txt"]), max_size=6
    ),
    st.booleans(),
)
def test_any_path_resolves_inside_or_is_refused(parts: list[str], absolute: bool) -> None:
    top = Path(tempfile.mkdtemp(prefix="sandbox-prop-"))
    try:
        root = top / "work"
        (root / "a").mkdir(parents=True)
        os.symlink(top, root / "up")
        os.symlink(".", root / "a" / "loop")
        box = Sandbox(root)
        path = ("/" if absolute else "") + "/".join(parts)
        try:
            resolved = box.resolve(path)
        except SandboxError:
            return
        assert resolved == root or root in resolved.parents
    finally:
        shutil.rmtree(top)


def test_the_mount_point_maps_to_the_directory(box: Sandbox) -> None:
    assert box.resolve("/work/inside.txt") == box.root / "inside.txt"
    assert box.resolve("./sub/../inside.txt") == box.root / "inside.txt"


def test_symlinks_out_of_the_directory_are_refused_for_read_and_write(box: Sandbox) -> None:
    os.symlink(box.root.parent / "secret.txt", box.root / "link.txt")
    os.symlink(box.root.parent, box.root / "up")
    with pytest.raises(SandboxError, match="symlink"):
        box.read_text("link.txt", max_chars=100)
    with pytest.raises(SandboxError, match="symlink"):
        box.write_text("link.txt", "overwritten")
    with pytest.raises(SandboxError, match="symlink"):
        box.write_text("up/new.txt", "escaped")
    assert (box.root.parent / "secret.txt").read_text() == "classified-42\n"
    assert not (box.root.parent / "new.txt").exists()


def test_symlinks_inside_the_directory_are_followed(box: Sandbox) -> None:
    os.symlink("inside.txt", box.root / "alias.txt")
    assert box.read_text("alias.txt", max_chars=100) == "inside\n"


def test_writes_create_parents_and_respect_the_size_limit(box: Sandbox) -> None:
    assert box.write_text("deep/er/file.txt", "hello") == 5
    assert (box.root / "deep/er/file.txt").read_text() == "hello"
    small = Sandbox(box.root, SandboxLimits(max_file_mb=1))
    with pytest.raises(SandboxError, match="file-size"):
        small.write_text("big.txt", "x" * (2 << 20))


# -- commands -----------------------------------------------------------------------


@needs_bwrap
def test_commands_run_in_the_directory_and_see_only_it(box: Sandbox) -> None:
    result = box.run("pwd; cat inside.txt; cat ../secret.txt; ls /root; cat /etc/passwd")
    assert result.output.startswith("/work\ninside\n")
    assert "classified-42" not in result.output
    assert result.exit_code != 0


@needs_bwrap
def test_commands_cannot_write_system_directories(box: Sandbox) -> None:
    result = box.run("touch /usr/escape && echo wrote")
    assert "wrote" not in result.output
    assert not Path("/usr/escape").exists()


@needs_bwrap
def test_there_is_no_network(box: Sandbox) -> None:
    probe = (
        "import socket\n"
        "try:\n"
        "    socket.create_connection(('1.1.1.1', 53), timeout=3)\n"
        "    print('connected')\n"
        "except OSError as exc:\n"
        "    print('refused', exc.errno)\n"
    )
    box.write_text("probe.py", probe)
    result = box.run("python3 probe.py")
    assert "refused" in result.output
    assert "connected" not in result.output


@needs_bwrap
def test_the_wall_clock_limit_kills_the_whole_tree(box: Sandbox) -> None:
    result = box.run("sleep 987 & sleep 988", timeout_s=1)
    assert result.timed_out
    assert result.seconds < 8
    survivors = [
        p
        for p in Path("/proc").iterdir()
        if p.name.isdigit()
        and _cmdline(p)
        in (
            "sleep 987",
            "sleep 988",
        )
    ]
    assert survivors == []


@needs_bwrap
def test_a_cpu_hog_is_killed_by_the_cpu_limit(box: Sandbox) -> None:
    hog = Sandbox(box.root, SandboxLimits(cpu_s=1, timeout_s=30))
    result = hog.run("python3 -c 'while True: pass'")
    assert not result.timed_out
    assert result.exit_code != 0
    assert result.seconds < 25


@needs_bwrap
def test_memory_beyond_the_limit_is_refused(box: Sandbox) -> None:
    small = Sandbox(box.root, SandboxLimits(memory_mb=256))
    result = small.run("python3 -c 'x = bytearray(1 << 30); print(\"allocated\")'")
    assert "MemoryError" in result.output
    assert "allocated" not in result.output


@needs_bwrap
def test_a_fork_bomb_is_contained(box: Sandbox) -> None:
    bomb = Sandbox(box.root, SandboxLimits(max_processes=32, timeout_s=5))
    result = bomb.run("bomb() { bomb | bomb & }; bomb; sleep 1; echo survived")
    assert result.seconds < 15
    after = box.run("echo still working")
    assert after.output.strip() == "still working"


@needs_bwrap
def test_output_is_capped_head_and_tail(box: Sandbox) -> None:
    result = box.run("seq 1 200000")
    assert result.truncated
    assert result.output_bytes > 1_000_000
    assert len(result.output) < 2200
    assert result.output.startswith("1\n2\n")
    assert result.output.rstrip().endswith("200000")
    assert "bytes elided" in result.output


@needs_bwrap
def test_read_only_runs_cannot_change_the_directory(box: Sandbox) -> None:
    result = box.run("echo changed > inside.txt", writable=False)
    assert result.exit_code != 0
    assert (box.root / "inside.txt").read_text() == "inside\n"


@needs_bwrap
@pytest.mark.skipif(os.geteuid() != 0, reason="only root drops to the sandbox uid")
def test_an_unreachable_directory_is_reported_clearly(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    os.chmod(tmp_path, 0o700)
    with pytest.raises(SandboxUnavailable, match="cannot reach"):
        Sandbox(private).run("true")


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


# -- disk, tmpfs and special files ---------------------------------------------------


def _free_bytes() -> int:
    info = os.statvfs(tempfile.gettempdir())
    return info.f_bavail * info.f_frsize


def _host_usage(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())


@needs_bwrap
def test_writing_past_the_disk_quota_fails_inside_and_spares_the_host(box: Sandbox) -> None:
    small = Sandbox(box.root, SandboxLimits(disk_mb=8, max_file_mb=64, timeout_s=20))
    free = _free_bytes()
    one_file = small.run("head -c 5G /dev/zero > big.bin; echo exit $?")
    assert "No space left on device" in one_file.output
    many = small.run("for i in $(seq 1 300); do head -c 1M /dev/zero > f$i.bin || break; done")
    assert "No space left on device" in many.output
    assert one_file.seconds + many.seconds < 15
    assert _host_usage(box.root) <= 8 << 20
    assert free - _free_bytes() < 100 << 20  # unbounded, the two would have written 364 MiB


@needs_bwrap
def test_tmp_is_a_small_tmpfs_and_the_rest_is_read_only(box: Sandbox) -> None:
    small = Sandbox(box.root, SandboxLimits(tmp_mb=4))
    result = small.run(
        "head -c 100M /dev/zero > /tmp/fill; echo tmp $?; du -k /tmp/fill;"
        " for d in / /dev /dev/shm /usr; do touch $d/x 2>/dev/null && echo wrote $d; done; true"
    )
    assert "No space left on device" in result.output
    assert int(result.output.split("tmp 1\n")[1].split()[0]) <= 4096
    assert "wrote" not in result.output


@needs_bwrap
def test_a_fifo_made_by_a_command_is_not_kept(box: Sandbox) -> None:
    result = box.run("mkfifo answer.txt && mkfifo sub.fifo && echo made")
    assert "made" in result.output
    assert result.dropped == ["answer.txt", "sub.fifo"]
    assert "special files not kept: answer.txt" in result.render()
    assert not os.path.lexists(box.root / "answer.txt")
    assert box.write_text("answer.txt", "42\n") == 3


@needs_bwrap
def test_changes_are_kept_between_commands(box: Sandbox) -> None:
    box.run("mkdir -p src && echo 'print(7)' > src/main.py && ln -s src/main.py link.py")
    assert (box.root / "src/main.py").read_text() == "print(7)\n"
    assert box.run("python3 link.py; cat inside.txt").output == "7\ninside\n"
    box.run("rm inside.txt")
    assert not (box.root / "inside.txt").exists()


@needs_bwrap
def test_background_jobs_end_with_their_command(box: Sandbox) -> None:
    result = box.run("(sleep 1; echo late > late.txt) > /dev/null 2>&1 & echo started")
    assert result.seconds < 5
    time.sleep(1.5)
    assert not (box.root / "late.txt").exists()
    assert "late.txt" not in box.run("ls").output


@needs_bwrap
def test_a_timed_out_command_keeps_what_it_wrote(box: Sandbox) -> None:
    result = box.run("echo before > kept.txt; sleep 60", timeout_s=1)
    assert result.timed_out and result.seconds < 8
    assert (box.root / "kept.txt").read_text() == "before\n"


@needs_bwrap
def test_killing_every_process_does_not_lose_the_work(box: Sandbox) -> None:
    # The inner shell kills every process it may signal: the outer shell, the sleeps; not
    # PID 1, which then hands the directory back.
    result = box.run("echo saved > saved.txt; sleep 30 & sh -c 'kill -9 -1'; sleep 5")
    assert result.exit_code == 137
    assert not result.discarded
    assert result.seconds < 4
    assert (box.root / "saved.txt").read_text() == "saved\n"


@needs_bwrap
def test_files_a_command_locks_are_still_handed_back(box: Sandbox) -> None:
    result = box.run("mkdir locked && echo x > locked/f && chmod 000 locked/f locked && echo y > b")
    assert not result.discarded
    assert (box.root / "locked/f").read_text() == "x\n"
    assert (box.root / "b").read_text() == "y\n"


@needs_bwrap
def test_a_directory_over_the_quota_is_left_as_it_was(box: Sandbox) -> None:
    (box.root / "huge.bin").write_bytes(b"x" * (2 << 20))
    small = Sandbox(box.root, SandboxLimits(disk_mb=1))
    result = small.run("rm huge.bin; echo gone")
    assert "gone" not in result.output
    assert "could not be copied" in result.discarded
    assert (box.root / "huge.bin").stat().st_size == 2 << 20
