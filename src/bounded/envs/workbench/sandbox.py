"""The workbench sandbox: file access confined to one directory, and shell commands run
under bubblewrap with no network, wall-clock, CPU, memory, process, file-size and disk
limits, and capped output.

File tools run in this process (see `files`): they refuse any path that leaves the task
directory and anything but regular files and directories, and never block. Commands run
in `bwrap` with every namespace unshared (no network, own PID space), a read-only `/`,
`/usr` and `/dev`, and size-limited tmpfs mounts for `/tmp` and for the task directory
at `/work`: a writable run copies the task directory into that tmpfs, runs the command
under `box_init` (PID 1 of the sandbox), and the host takes the result back through a
checked tar stream (see `sync`), so a command can neither fill the host's disk nor leave
a FIFO, socket or device behind. Read-only runs (the oracle) bind the directory itself.
When this process runs as root, commands drop to an unprivileged uid first, so that the
process limit applies (the kernel exempts root from it). SIGTERM is turned into
`SystemExit` (when no handler is set), so that a killed host still kills its sandbox and
removes its task directory.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bounded.core import BoundedError
from bounded.envs.workbench import files
from bounded.envs.workbench.files import MOUNT_POINT, SandboxError
from bounded.envs.workbench.sync import SANDBOX_UID, ResultReader, discard, swap_in

SYNC_GRACE_S = 30.0
"""Time a writable run gets past its command's limit to copy the directory in and out."""

BOX_IN = "/.box/in"
"""Where a writable run sees the host's task directory (read-only) to copy it in."""

_ROOT_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class SandboxUnavailable(BoundedError):
    """bubblewrap is missing or cannot create namespaces here."""


class SandboxLimits(BaseModel):
    """Resource limits of one command in the sandbox."""

    model_config = ConfigDict(extra="forbid")

    timeout_s: float = Field(default=20.0, gt=0, le=600)
    """Wall-clock limit; the whole process tree is killed when it passes."""
    cpu_s: int = Field(default=20, ge=1, le=600)
    """CPU-seconds limit per process (RLIMIT_CPU)."""
    memory_mb: int = Field(default=1024, ge=64, le=65536)
    """Address-space limit per process (RLIMIT_AS), in MiB."""
    max_processes: int = Field(default=64, ge=4, le=4096)
    """Processes a command may add to those its user already runs (RLIMIT_NPROC): stops
    fork bombs."""
    max_file_mb: int = Field(default=64, ge=1, le=4096)
    """Largest file a command may write (RLIMIT_FSIZE), in MiB."""
    disk_mb: int = Field(default=256, ge=1, le=65536)
    """The task directory's quota, in MiB: `/work` is a tmpfs of this size during a command
    (writes past it fail with ENOSPC), file tools refuse writes past it, and the host copy
    never holds more."""
    tmp_mb: int = Field(default=64, ge=1, le=65536)
    """Size of the sandbox's `/tmp` tmpfs, in MiB. With `/` and `/dev` read-only, the
    memory files can take is at most `disk_mb + tmp_mb`."""
    max_entries: int = Field(default=20000, ge=10, le=10_000_000)
    """Most files, directories and links the task directory may hold."""
    output_chars: int = Field(default=6000, ge=200, le=1_000_000)
    """Output kept from a command (head and tail; the middle is elided)."""


class ExecResult(BaseModel):
    """What one sandboxed command did."""

    exit_code: int
    output: str
    """stdout and stderr interleaved, capped to `output_chars`."""
    output_bytes: int
    """How many bytes the command printed in all."""
    truncated: bool = False
    timed_out: bool = False
    seconds: float = 0.0
    dropped: list[str] = Field(default_factory=list)
    """FIFOs, sockets and devices the command left in the directory (not kept)."""
    discarded: str = ""
    """Why the command's changes to the directory were not kept ("" when they were)."""

    def render(self) -> str:
        status = "timed out (killed)" if self.timed_out else f"exit code {self.exit_code}"
        notes = ""
        if self.dropped:
            notes += f"\n[sandbox: special files not kept: {', '.join(self.dropped[:10])}]"
        if self.discarded:
            notes += f"\n[sandbox: this command's changes were discarded: {self.discarded}]"
        body = f"[{status}]\n{self.output}" if self.output else f"[{status}, no output]"
        return body + notes


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def sandbox_available() -> bool:
    """True when bubblewrap runs here (probed once per process)."""
    global _AVAILABLE
    if _AVAILABLE is None:
        _AVAILABLE = _probe()
    return _AVAILABLE


_AVAILABLE: bool | None = None


def _probe() -> bool:
    """Run a command exactly as a task command would run (same user, limits, mounts and
    copy back)."""
    if bwrap_path() is None:
        return False
    top = Path(tempfile.mkdtemp(prefix="sandbox-probe-"))
    try:
        os.chmod(top, 0o755)
        (top / "work").mkdir()
        box = Sandbox(top / "work")
        box.hand_over_tree()
        result = box._run("touch made", writable=True, binds=(), seconds=10)
        return result.exit_code == 0 and (box.root / "made").is_file()
    except OSError:
        return False
    finally:
        shutil.rmtree(top, ignore_errors=True)


def _system_binds() -> list[str]:
    """Read-only system directories: /usr, the root links, and this Python's installation."""
    args = ["--ro-bind", "/usr", "/usr", "--ro-bind-try", "/etc/alternatives", "/etc/alternatives"]
    for path in _ROOT_LINKS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    prefix = _python_prefix()
    if prefix is not None:
        args += ["--ro-bind", prefix, prefix]
    return args


def _python_prefix() -> str | None:
    """This Python's installation, when it lives outside /usr and anyone may enter it."""
    prefix = os.path.realpath(sys.base_prefix)
    if prefix.startswith("/usr/"):
        return None
    ancestors = [prefix, *(str(p) for p in Path(prefix).parents)]
    if all(os.stat(path).st_mode & 0o001 for path in ancestors):
        return prefix
    return None


def _search_path() -> str:
    prefix = _python_prefix()
    own = f"{prefix}/bin:" if prefix else ""
    return f"{own}/usr/local/bin:/usr/bin:/bin"


class _CappedReader(threading.Thread):
    """Drains a pipe, keeping the first and last `cap // 2` bytes."""

    def __init__(self, stream: object, cap: int) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.half = max(cap // 2, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def run(self) -> None:
        read = self.stream.read1  # type: ignore[attr-defined]
        while chunk := read(65536):
            self.total += len(chunk)
            room = self.half - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self.tail += chunk
                del self.tail[: max(len(self.tail) - self.half, 0)]

    def text(self) -> tuple[str, bool]:
        kept = len(self.head) + len(self.tail)
        head = self.head.decode(errors="replace")
        tail = self.tail.decode(errors="replace")
        if kept >= self.total:
            return head + tail, False
        elided = self.total - kept
        return f"{head}\n[... {elided} bytes elided ...]\n{tail}", True


class Sandbox:
    """One task directory and the rules for touching it."""

    def __init__(self, root: Path, limits: SandboxLimits | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.limits = limits or SandboxLimits()

    # -- file access ----------------------------------------------------------

    def resolve(self, path: str) -> Path:
        """The host path of `path` (relative, or under /work); raises SandboxError on escape."""
        return files.resolve(self.root, path)

    def read_text(self, path: str, *, max_chars: int) -> str:
        """A regular file's text (at most about `max_chars`); anything else is refused."""
        data = files.read_regular(self.resolve(path), path, max_chars * 4 + 4)
        return data.decode(errors="replace")

    def read_bytes(self, path: str) -> bytes:
        """A whole regular file (at most the quota); anything else is refused."""
        return files.read_regular(self.resolve(path), path, self.limits.disk_mb << 20)

    def write_text(self, path: str, content: str) -> int:
        """Write a regular file (parents created) within the quota; returns the bytes written."""
        target = self.resolve(path)
        if target == self.root or target.is_dir():
            raise SandboxError(f"{path!r} is a directory")
        data = content.encode()
        if len(data) > self.limits.max_file_mb << 20:
            raise SandboxError(f"content of {len(data)} bytes is over the file-size limit")
        self._check_quota(target, len(data))
        self._make_parents(target.parent)
        files.write_regular(target, path, data)
        self._hand_over(target)
        return len(data)

    def _check_quota(self, target: Path, size: int) -> None:
        used, entries = files.usage(self.root)
        existing = files.regular_size(target)
        after = used - files.pages(existing or 0) + files.pages(size)
        if after > self.limits.disk_mb << 20:
            raise SandboxError(
                f"writing {size} bytes would take the task directory over its disk quota"
                f" of {self.limits.disk_mb} MiB"
            )
        if existing is None and entries >= self.limits.max_entries:
            raise SandboxError(
                f"the task directory already holds {entries} entries (limit"
                f" {self.limits.max_entries})"
            )

    def _make_parents(self, directory: Path) -> None:
        missing = []
        while not directory.exists():
            missing.append(directory)
            directory = directory.parent
        for folder in reversed(missing):
            folder.mkdir()
            self._hand_over(folder)

    def _hand_over(self, path: Path) -> None:
        """Files this (root) process creates belong to the sandbox user, who must edit them."""
        if os.geteuid() == 0:
            os.chown(path, SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)

    def hand_over_tree(self, top: Path | None = None) -> None:
        """Give a whole tree to the sandbox user (after copying a template in)."""
        if os.geteuid() != 0:
            return
        top = top or self.root
        os.chown(top, SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)
        for folder, dirs, names in os.walk(top):
            for name in dirs + names:
                os.chown(
                    os.path.join(folder, name), SANDBOX_UID, SANDBOX_UID, follow_symlinks=False
                )

    # -- commands -------------------------------------------------------------

    def run(
        self,
        command: str | Sequence[str],
        *,
        writable: bool = True,
        binds: Sequence[tuple[Path, str]] = (),
        timeout_s: float | None = None,
    ) -> ExecResult:
        """Run a shell command (or an argv) inside the sandbox, with /work as its directory.

        `binds` are extra read-only (host path, sandbox path) mounts, e.g. an oracle's files.
        A writable run's changes to the directory are kept when the stream that brings
        them back passes every check (`ExecResult.discarded` says why not otherwise).
        """
        if bwrap_path() is None or not sandbox_available():
            raise SandboxUnavailable(
                "bubblewrap (bwrap, 0.8 or newer) is missing or cannot run here:"
                " apt-get install bubblewrap"
            )
        self._check_reachable([self.root, *(host for host, _ in binds)])
        exit_on_sigterm()
        return self._run(command, writable, binds, timeout_s or self.limits.timeout_s)

    def _run(
        self,
        command: str | Sequence[str],
        writable: bool,
        binds: Sequence[tuple[Path, str]],
        seconds: float,
    ) -> ExecResult:
        inner = ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        args = [str(bwrap_path()), *self._bwrap_args(writable, binds), "--"]
        if not writable:
            return self._execute([*args, *inner], seconds)
        staging = self.root.with_name(f".{self.root.name}.sync")
        discard(staging)
        staging.mkdir(mode=0o755)
        read_end, write_end = os.pipe()
        boot = ["python3", "-I", "-S", "-c", _init_source(), str(seconds), str(write_end)]
        reader = ResultReader(
            os.fdopen(read_end, "rb"), staging, self.limits.disk_mb << 20, self.limits.max_entries
        )
        try:
            argv = [*args, *boot, BOX_IN, "--", *inner]
            result = self._execute(argv, seconds + SYNC_GRACE_S, write_end, reader.start)
            reader.join(timeout=SYNC_GRACE_S)
            return self._take_back(result, reader, staging)
        finally:
            if reader.ident is None:
                reader.stream.close()
            discard(staging)

    def _take_back(self, result: ExecResult, reader: ResultReader, staging: Path) -> ExecResult:
        """The command's own exit status, and its directory swapped in when it came back whole."""
        status = reader.result.status
        update: dict[str, object] = {}
        if status is not None:
            update["exit_code"] = status.exit_code
            update["timed_out"] = result.timed_out or status.timed_out
            update["dropped"] = status.dropped
        if reader.result.complete and not reader.is_alive():
            swap_in(self.root, staging)
        else:
            update["discarded"] = reader.result.error or "the sandbox was stopped"
        return result.model_copy(update=update)

    @staticmethod
    def _check_reachable(paths: Sequence[Path]) -> None:
        """As root, commands run as SANDBOX_UID, which must be able to enter every mount."""
        if os.geteuid() != 0:
            return
        for path in paths:
            for folder in [Path(path), *Path(path).parents][1:]:
                if not os.stat(folder).st_mode & 0o001:
                    raise SandboxUnavailable(
                        f"the sandbox user cannot reach {path}: {folder} is not world-executable"
                        " (put task directories under /tmp)"
                    )

    def _bwrap_args(self, writable: bool, binds: Sequence[tuple[Path, str]]) -> list[str]:
        limits = self.limits
        args = [*_system_binds(), "--proc", "/proc", "--dev", "/dev"]
        args += ["--size", str(limits.tmp_mb << 20), "--tmpfs", "/tmp"]
        if writable:
            args += ["--size", str(limits.disk_mb << 20), "--tmpfs", MOUNT_POINT]
            args += ["--ro-bind", str(self.root), BOX_IN, "--as-pid-1"]
        else:
            args += ["--ro-bind", str(self.root), MOUNT_POINT]
        for host, inside in binds:
            args += ["--ro-bind", str(host), inside]
        args += ["--remount-ro", "/", "--remount-ro", "/dev", "--chdir", MOUNT_POINT]
        args += ["--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
        args += ["--setenv", "PATH", _search_path(), "--setenv", "HOME", "/tmp"]
        args += ["--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
        return args

    def _execute(
        self,
        argv: list[str],
        timeout_s: float,
        keep_fd: int | None = None,
        on_start: Callable[[], None] | None = None,
    ) -> ExecResult:
        """Run bwrap in its own session; its whole group is killed at the deadline, and on
        any exception (SystemExit from SIGTERM, KeyboardInterrupt from SIGINT)."""
        started = time.perf_counter()
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                preexec_fn=self._child_setup(),
                pass_fds=() if keep_fd is None else (keep_fd,),
            )
        finally:
            if keep_fd is not None:
                os.close(keep_fd)
        reader = _CappedReader(process.stdout, self.limits.output_chars)
        reader.start()
        if on_start is not None:
            on_start()
        timed_out = False
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            if process.returncode is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        reader.join(timeout=5)
        if process.stdout is not None and not reader.is_alive():
            process.stdout.close()
        output, truncated = reader.text()
        return ExecResult(
            exit_code=process.returncode,
            output=output,
            output_bytes=reader.total,
            truncated=truncated,
            timed_out=timed_out,
            seconds=round(time.perf_counter() - started, 3),
        )

    def _child_setup(self) -> Callable[[], None]:
        """What runs in the child between fork and exec: a new session, the limits, and
        (as root) an unprivileged uid."""
        limits = self.limits
        as_root = os.geteuid() == 0
        uid = SANDBOX_UID if as_root else os.geteuid()
        # RLIMIT_NPROC counts every process of the uid, so the limit is set above what
        # that uid runs already (other sandboxes, or a user's own session).
        processes = _processes_of(uid) + limits.max_processes
        settings = (
            (resource.RLIMIT_CPU, limits.cpu_s),
            (resource.RLIMIT_AS, limits.memory_mb << 20),
            (resource.RLIMIT_NPROC, processes),
            (resource.RLIMIT_FSIZE, limits.max_file_mb << 20),
            (resource.RLIMIT_CORE, 0),
        )

        def setup() -> None:
            os.setsid()
            for which, value in settings:
                resource.setrlimit(which, (value, value))
            if as_root:
                os.setgroups([])
                os.setgid(SANDBOX_UID)
                os.setuid(SANDBOX_UID)

        return setup


@cache
def _init_source() -> str:
    """`box_init`'s code, passed on the command line (the package may be unreadable to the
    sandbox user)."""
    return (Path(__file__).parent / "box_init.py").read_text()


def exit_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit(143) when nothing else handles it, so that `finally`
    blocks kill the sandbox and exit handlers remove task directories."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _raise_system_exit)


def _raise_system_exit(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)


def _processes_of(uid: int) -> int:
    """How many processes (threads included, as the kernel counts them) `uid` runs now."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += len(os.listdir(f"/proc/{entry.name}/task"))
        except OSError:
            continue
    return count
