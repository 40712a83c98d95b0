"""The first process inside a writable sandbox run: copy in, run, stop everything, hand back.

`Sandbox.run` starts this file (standard library only; it runs under the sandbox's own
`python3`) as PID 1 of the sandbox's PID namespace, where no process of the command can
signal it. It copies the task directory from its read-only mount into `/work` (a tmpfs
of the task's disk quota), runs the command in its own session until it exits or the
deadline passes, kills every process left (background jobs included), and writes to the
result descriptor one JSON status line (with the number of entries to come, so that a
stream cut short is recognised) followed by a tar stream of `/work` holding only
directories, regular files and symlinks (FIFOs, sockets and devices are named in the
status and left out). The host extracts that stream into the task directory.

Usage: python3 -I -S box_init.py SECONDS RESULT_FD SOURCE -- ARGV...
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import stat
import sys
import tarfile
import time

WORK = "/work"


def main(argv: list[str]) -> int:
    seconds, result_fd, source = float(argv[1]), int(argv[2]), argv[3]
    command = argv[argv.index("--") + 1 :]
    setup_error = copy_in(source, WORK)
    if setup_error:
        print(f"[sandbox: {setup_error}]", flush=True)
        with os.fdopen(result_fd, "wb") as result:
            result.write(json.dumps({"copied_in": False, "exit_code": 126}).encode() + b"\n")
        return 0
    started = time.monotonic()
    exit_code, timed_out = run(command, seconds, result_fd)
    kill_everyone()
    make_readable(WORK)
    dropped, entries = survey(WORK)
    status = {
        "exit_code": exit_code,
        "timed_out": timed_out,
        "seconds": round(time.monotonic() - started, 3),
        "dropped": dropped[:50],
        "dropped_count": len(dropped),
        "entries": entries,
    }
    with os.fdopen(result_fd, "wb") as result:
        result.write(json.dumps(status).encode() + b"\n")
        with tarfile.open(fileobj=result, mode="w|", format=tarfile.PAX_FORMAT) as archive:
            archive.add(WORK, arcname=".", filter=keep_plain)
    return 0


def copy_in(source: str, destination: str) -> str:
    """The task directory into the tmpfs; an error (quota too small) is reported, not fatal."""
    try:
        shutil.copytree(source, destination, symlinks=True, dirs_exist_ok=True)
    except (OSError, shutil.Error) as exc:
        return f"copying the task directory in failed: {str(exc)[:300]}"
    return ""


def run(command: list[str], seconds: float, result_fd: int) -> tuple[int, bool]:
    """Run `command` in a new session; returns its exit code and whether the deadline hit."""
    pid = os.fork()
    if pid == 0:
        os.close(result_fd)
        os.setsid()
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    handle = os.pidfd_open(pid)
    ready, _, _ = select.select([handle], [], [], seconds)
    if not ready:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return (code if code >= 0 else 128 - code), not ready


def kill_everyone() -> None:
    """SIGKILL every other process of the namespace (PID 1 is exempt) and reap them."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def make_readable(folder: str) -> None:
    """Give the owner (this uid) read access to everything a command may have locked
    (`chmod 000`), so that the tree can be archived."""
    os.chmod(folder, stat.S_IMODE(os.lstat(folder).st_mode) | 0o700)
    with os.scandir(folder) as entries:
        for entry in entries:
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISDIR(mode):
                make_readable(entry.path)
            elif stat.S_ISREG(mode) and not mode & 0o400:
                os.chmod(entry.path, stat.S_IMODE(mode) | 0o400)


def survey(top: str) -> tuple[list[str], int]:
    """The entries that are neither directories, regular files nor symlinks (by relative
    path), and how many entries the stream will hold (the host checks it got them all)."""
    special, kept = [], 0
    for folder, dirs, files in os.walk(top, onerror=raise_it):
        for name in dirs + files:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode):
                kept += 1
            else:
                special.append(os.path.relpath(path, top))
    return sorted(special), kept


def raise_it(error: OSError) -> None:
    """A directory that cannot be listed fails the run: a partial stream is never sent."""
    raise error


def keep_plain(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
    if member.isdir() or member.isreg() or member.issym() or member.islnk():
        return member
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv))
