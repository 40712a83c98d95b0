"""The workbench sandbox: file access confined to one directory, and shell commands run
under bubblewrap with no network, a wall-clock timeout, CPU, memory, process and
file-size limits, and capped output.

File tools run in this process and refuse any path that leaves the task directory
(`..`, absolute paths other than the in-sandbox mount point, symlinks pointing out).
Commands run in `bwrap` with every namespace unshared (no network, own PID space),
a read-only `/usr`, a private `/tmp`, and the task directory mounted at `/work`.
When this process runs as root, commands drop to an unprivileged uid first, so that
the process limit applies (the kernel exempts root from it).
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
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bounded.core import BoundedError

MOUNT_POINT = "/work"
"""Where the task directory appears inside the sandbox."""

SANDBOX_UID = 65534
"""The uid commands run as when this process is root (`nobody` on Debian)."""

_ROOT_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")


class SandboxError(BoundedError):
    """A tool call the sandbox refused (path escape, oversize write, ...)."""


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

    def render(self) -> str:
        status = "timed out (killed)" if self.timed_out else f"exit code {self.exit_code}"
        return f"[{status}]\n{self.output}" if self.output else f"[{status}, no output]"


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
    """Run `true` exactly as a task command would run (same user, limits and mounts)."""
    binary = bwrap_path()
    if binary is None:
        return False
    top = tempfile.mkdtemp(prefix="sandbox-probe-")
    try:
        os.chmod(top, 0o755)
        box = Sandbox(Path(top))
        box.hand_over_tree()
        argv = [binary, *box._bwrap_args(writable=True, binds=()), "--", "true"]
        return box._execute(argv, timeout_s=10).exit_code == 0
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
        if not isinstance(path, str) or not path.strip():
            raise SandboxError("path must be a non-empty string")
        if "\x00" in path:
            raise SandboxError("path holds a NUL byte")
        relative = path.strip()
        if relative == MOUNT_POINT or relative.startswith(MOUNT_POINT + "/"):
            relative = relative[len(MOUNT_POINT) :].lstrip("/") or "."
        elif os.path.isabs(relative):
            raise SandboxError(f"absolute path {path!r} is outside the task directory")
        candidate = os.path.normpath(os.path.join(self.root, relative))
        if not _inside(candidate, self.root):
            raise SandboxError(f"path {path!r} leaves the task directory")
        real = os.path.realpath(candidate)
        if not _inside(real, self.root):
            raise SandboxError(
                f"path {path!r} resolves (through a symlink) outside the task directory"
            )
        return Path(real)

    def read_text(self, path: str, *, max_chars: int) -> str:
        target = self.resolve(path)
        if not target.is_file():
            raise SandboxError(
                f"{path!r} is not a file" if target.exists() else f"{path!r} does not exist"
            )
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(max_chars * 4 + 4)
        return data.decode(errors="replace")

    def write_text(self, path: str, content: str) -> int:
        """Write a file (parents created); returns the bytes written."""
        target = self.resolve(path)
        if target == self.root or target.is_dir():
            raise SandboxError(f"{path!r} is a directory")
        data = content.encode()
        if len(data) > self.limits.max_file_mb << 20:
            raise SandboxError(f"content of {len(data)} bytes is over the file-size limit")
        self._make_parents(target.parent)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        fd = os.open(target, flags, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        self._hand_over(target)
        return len(data)

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
        for folder, dirs, files in os.walk(top):
            for name in dirs + files:
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
        """
        binary = bwrap_path()
        if binary is None or not sandbox_available():
            raise SandboxUnavailable(
                "bubblewrap (bwrap) is missing or cannot run here: apt-get install bubblewrap"
            )
        self._check_reachable([self.root, *(host for host, _ in binds)])
        argv = [binary, *self._bwrap_args(writable, binds), "--"]
        argv += ["/bin/sh", "-c", command] if isinstance(command, str) else list(command)
        return self._execute(argv, timeout_s or self.limits.timeout_s)

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
        args = [*_system_binds(), "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
        args += ["--bind" if writable else "--ro-bind", str(self.root), MOUNT_POINT]
        for host, inside in binds:
            args += ["--ro-bind", str(host), inside]
        args += ["--chdir", MOUNT_POINT, "--unshare-all", "--die-with-parent", "--new-session"]
        args += ["--clearenv", "--setenv", "PATH", _search_path(), "--setenv", "HOME", "/tmp"]
        args += ["--setenv", "LANG", "C.UTF-8", "--setenv", "PYTHONDONTWRITEBYTECODE", "1"]
        return args

    def _execute(self, argv: list[str], timeout_s: float) -> ExecResult:
        started = time.perf_counter()
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=self._child_setup(),
        )
        reader = _CappedReader(process.stdout, self.limits.output_chars)
        reader.start()
        timed_out = False
        try:
            process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
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


def _inside(path: str | Path, root: Path) -> bool:
    path = str(path)
    base = str(root)
    return path == base or path.startswith(base.rstrip("/") + "/")
