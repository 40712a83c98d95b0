"""The host side of a writable sandbox run: read what `box_init` hands back, and swap it in.

The stream is untrusted (a command may have tampered with the process that writes it):
every member is checked before anything touches the disk. Names must stay inside the
staging directory, parents must be real directories (never symlinks), hard links must
point at a regular file already extracted, only directories, regular files and
symlinks are made (symlinks are kept as they are: nothing on the host follows them), and
the bytes and entries written are counted against the task's quota. A stream that breaks
any rule is discarded whole and the task directory stays as it was.
"""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import threading
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ConfigDict, Field

from bounded.envs.workbench.files import pages

SANDBOX_UID = 65534
"""The uid commands run as when this process is root (`nobody` on Debian)."""


class SyncRefused(Exception):
    """The result stream broke a rule; nothing of it is kept."""


class BoxStatus(BaseModel):
    """`box_init`'s status line (checked like the rest of the stream)."""

    model_config = ConfigDict(extra="ignore")

    exit_code: int
    copied_in: bool = True
    timed_out: bool = False
    seconds: float = 0.0
    dropped: list[str] = Field(default_factory=list, max_length=50)
    """FIFOs, sockets and devices left out (the first 50)."""
    dropped_count: int = 0
    entries: int = -1
    """How many members the tar stream holds (its root aside)."""


class SyncResult(BaseModel):
    """What came back from a writable run."""

    status: BoxStatus | None = None
    complete: bool = False
    """True when the whole stream was read and extracted into the staging directory."""
    error: str = ""


class ResultReader(threading.Thread):
    """Reads the status line and extracts the tar stream into `staging`, as it arrives
    (the sandbox blocks on a full pipe otherwise)."""

    def __init__(self, stream: IO[bytes], staging: Path, quota: int, max_entries: int) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.staging = staging
        self.quota = quota
        self.max_entries = max_entries
        self.result = SyncResult()

    def run(self) -> None:
        try:
            line = self.stream.readline(65536)
            if not line:
                self.result.error = "the sandbox gave no result"
                return
            self.result.status = BoxStatus.model_validate_json(line)
            if not self.result.status.copied_in:
                self.result.error = "the task directory could not be copied into the sandbox"
                return
            got = extract(self.stream, self.staging, self.quota, self.max_entries)
            if got != self.result.status.entries:
                expected = self.result.status.entries
                raise SyncRefused(f"the stream ended early: {got} of {expected} entries")
            self.result.complete = True
        except (SyncRefused, OSError, ValueError, tarfile.TarError) as exc:
            self.result.error = str(exc)[:300] or type(exc).__name__
        finally:
            self.stream.close()


def extract(stream: IO[bytes], staging: Path, quota: int, max_entries: int) -> int:
    """Extract a tar stream into the (new, empty) `staging` directory, or raise SyncRefused;
    returns the number of entries made."""
    used = entries = 0
    folders: list[tuple[Path, int]] = []
    with tarfile.open(fileobj=stream, mode="r|") as archive:
        for member in archive:
            parts = _parts(member.name)
            if not parts:
                continue
            entries += 1
            if entries > max_entries:
                raise SyncRefused(f"the task directory holds more than {max_entries} entries")
            parent = _real_parent(staging, parts)
            target = parent / parts[-1]
            _clear(target)
            if member.isdir():
                target.mkdir(mode=0o700)
                folders.append((target, (member.mode & 0o777) | 0o700))
            elif member.isreg():
                used += pages(member.size)
                if used > quota:
                    raise SyncRefused(f"the task directory is over its quota of {quota} bytes")
                _write_member(archive, member, target)
            elif member.issym():
                os.symlink(member.linkname, target)
            elif member.islnk():
                os.link(_hard_link_source(staging, member.linkname), target)
            else:
                raise SyncRefused(f"{member.name!r} is not a file, directory or symlink")
    for folder, mode in folders:
        os.chmod(folder, mode)
    _hand_over(staging)
    return entries


def _parts(name: str) -> list[str]:
    """A member name's components below the root; refuses absolute and `..` names."""
    if name.startswith("/") or "\x00" in name:
        raise SyncRefused(f"member name {name!r} is absolute")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise SyncRefused(f"member name {name!r} climbs out")
    return parts


def _mode_of(path: Path) -> int | None:
    """The entry's own mode (a symlink's, not its target's), or None when it is missing."""
    try:
        return os.lstat(path).st_mode
    except FileNotFoundError:
        return None


def _real_parent(staging: Path, parts: list[str]) -> Path:
    """The member's parent directory, every component a real directory (never a symlink)."""
    folder = staging
    for part in parts[:-1]:
        folder = folder / part
        mode = _mode_of(folder)
        if mode is None:
            raise SyncRefused(f"{'/'.join(parts)!r} comes before its directory")
        if not stat.S_ISDIR(mode):
            raise SyncRefused(f"{'/'.join(parts)!r} lies under a non-directory")
    return folder


def _clear(target: Path) -> None:
    """A repeated name replaces the earlier entry, unless that one is a directory."""
    mode = _mode_of(target)
    if mode is None:
        return
    if stat.S_ISDIR(mode):
        raise SyncRefused(f"{target.name!r} appears twice")
    os.unlink(target)


def _write_member(archive: tarfile.TarFile, member: tarfile.TarInfo, target: Path) -> None:
    source = archive.extractfile(member)
    if source is None:
        raise SyncRefused(f"{member.name!r} has no data")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(target, flags, 0o600)
    with os.fdopen(fd, "wb") as handle:
        shutil.copyfileobj(source, handle, 1 << 20)
    os.chmod(target, member.mode & 0o777)
    os.utime(target, (member.mtime, member.mtime))


def _hard_link_source(staging: Path, name: str) -> Path:
    parts = _parts(name)
    if not parts:
        raise SyncRefused("a hard link to the root")
    source = _real_parent(staging, parts) / parts[-1]
    mode = _mode_of(source)
    if mode is None:
        raise SyncRefused(f"hard link to {name!r}, which is not extracted")
    if not stat.S_ISREG(mode):
        raise SyncRefused(f"hard link to {name!r}, which is not a regular file")
    return source


def _hand_over(top: Path) -> None:
    """As root, the extracted tree belongs to the sandbox user (who edits it next time)."""
    if os.geteuid() != 0:
        return
    os.chown(top, SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            os.chown(os.path.join(folder, name), SANDBOX_UID, SANDBOX_UID, follow_symlinks=False)


def swap_in(root: Path, staging: Path) -> None:
    """Make `staging` the task directory at `root` (same path), and remove the old one."""
    old = root.with_name(f".{root.name}.old")
    shutil.rmtree(old, ignore_errors=True)
    os.rename(root, old)
    os.rename(staging, root)
    shutil.rmtree(old, ignore_errors=True)


def discard(staging: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)
