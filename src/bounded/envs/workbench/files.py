"""Host-side access to a task directory the model controls: nothing followed out, nothing
that can block, nothing past the quota.

The model decides what the task directory holds, so every path in it is hostile until
checked: a FIFO blocks an `open` forever, a device has side effects, a symlink points
anywhere. Paths are resolved inside the directory (symlinks within it are followed,
symlinks out are refused); a file is opened only after `lstat` says it is a regular
file, and then with `O_NOFOLLOW | O_NONBLOCK` and checked again with `fstat` on the open
descriptor. The quota counts regular files in 4 KiB pages, as the sandbox's tmpfs does.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from bounded.core import BoundedError

MOUNT_POINT = "/work"
"""Where the task directory appears inside the sandbox."""

PAGE = 4096


class SandboxError(BoundedError):
    """A tool call the sandbox refused (path escape, special file, over the quota, ...)."""


def inside(path: str | Path, root: Path) -> bool:
    path = str(path)
    base = str(root)
    return path == base or path.startswith(base.rstrip("/") + "/")


def resolve(root: Path, path: str) -> Path:
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
    candidate = os.path.normpath(os.path.join(root, relative))
    if not inside(candidate, root):
        raise SandboxError(f"path {path!r} leaves the task directory")
    real = os.path.realpath(candidate)
    if not inside(real, root):
        raise SandboxError(f"path {path!r} resolves (through a symlink) outside the task directory")
    return Path(real)


def kind(mode: int) -> str:
    """A file type in words, for refusals."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISLNK, "a symlink"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _refuse_unless_regular(path: str, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise SandboxError(f"{path!r} is {kind(mode)}: only regular files can be read or written")


def read_regular(target: Path, shown: str, limit: int) -> bytes:
    """At most `limit` bytes of a regular file; anything else is refused without blocking."""
    try:
        _refuse_unless_regular(shown, os.lstat(target).st_mode)
    except FileNotFoundError:
        raise SandboxError(f"{shown!r} does not exist") from None
    fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        _refuse_unless_regular(shown, os.fstat(fd).st_mode)
        chunks, left = [], limit
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_regular(target: Path, shown: str, data: bytes) -> None:
    """Replace a regular file's content (or create it); anything else is refused."""
    with contextlib.suppress(FileNotFoundError):
        _refuse_unless_regular(shown, os.lstat(target).st_mode)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    fd = os.open(target, flags, 0o644)
    try:
        _refuse_unless_regular(shown, os.fstat(fd).st_mode)
        os.ftruncate(fd, 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def pages(size: int) -> int:
    """Bytes a file of `size` bytes takes on a tmpfs (whole pages)."""
    return -(-size // PAGE) * PAGE


def usage(root: Path) -> tuple[int, int]:
    """(bytes in pages, entries) of a directory tree, symlinks not followed."""
    used = entries = 0
    for folder, dirs, files in os.walk(root):
        entries += len(dirs) + len(files)
        for name in files:
            info = os.lstat(os.path.join(folder, name))
            if stat.S_ISREG(info.st_mode):
                used += pages(info.st_size)
    return used, entries


def regular_size(target: Path) -> int | None:
    """The size of `target` when it is a regular file, else None."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None
