"""Sweep workers that die with their driver from their first instruction.

`multiprocessing`'s spawn starts a worker as a fresh Python that first imports the
driver's main module and everything it imports (seconds), and only then runs a pool
initializer: a driver killed in that window left orphans that went on to play and write.
Here the spawn executable is a boot script: its first statement asks the kernel to
SIGKILL it when its parent dies (`PR_SET_PDEATHSIG`, kept across `exec`), its second
checks that its parent is still the driver that started it (a driver that died before
the first statement left it to another parent: it exits), and only then does it `exec`
the real interpreter with the worker's command line. The pool initializer checks the
parent again (`die_with_parent`).
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.machinery import ModuleSpec
from multiprocessing.context import SpawnContext
from pathlib import Path
from types import ModuleType

PR_SET_PDEATHSIG = 1

DRIVER_VARIABLE = "BOUNDED_SWEEP_DRIVER"
"""The driver's pid, as the boot script reads it."""

ORPHANED_AT_BIRTH = 70
"""The boot script's exit status when the driver was gone before it started."""

BOOT_SCRIPT = """\
#!{python} -S
import ctypes, os, sys
ctypes.CDLL(None).prctl({option}, {signal})
if str(os.getppid()) != os.environ.get("{variable}"):
    os._exit({orphaned})
os.execv({python!r}, [{python!r}, *sys.argv[1:]])
"""


def die_with_parent(driver: int | None = None) -> None:
    """Ask the kernel to kill this process when its parent dies (Linux), then check that
    the parent is still `driver`: if not, it died first, and this process exits now."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if driver is not None and os.getppid() != driver:
        os._exit(ORPHANED_AT_BIRTH)


def boot_script(directory: Path) -> Path:
    """Write the boot script (executable) into `directory`."""
    path = directory / "bounded-worker"
    path.write_text(
        BOOT_SCRIPT.format(
            python=sys.executable,
            option=PR_SET_PDEATHSIG,
            signal=int(signal.SIGKILL),
            variable=DRIVER_VARIABLE,
            orphaned=ORPHANED_AT_BIRTH,
        )
    )
    path.chmod(0o700)
    return path


_SCRIPTS: dict[int, Path] = {}
"""The boot script of each driver process (by pid: a forked child writes its own)."""


def driver_script() -> Path:
    """This process's boot script, written once into a directory of its own that lives as
    long as the process: a worker (or multiprocessing's resource tracker) that starts late,
    after its pool is gone, still finds it (removing it with the pool made such a process
    fail with `can't open file '.../bounded-worker'`)."""
    pid = os.getpid()
    if pid not in _SCRIPTS:
        directory = Path(tempfile.mkdtemp(prefix="bounded-boot-"))
        _SCRIPTS[pid] = boot_script(directory)
        atexit.register(shutil.rmtree, directory, True)
    return _SCRIPTS[pid]


def is_console_script(main: ModuleType | None) -> bool:
    """Whether `main` is the `bounded` command's entry script (it holds nothing a worker
    needs: the `main` it imports from `bounded.cli`, and `sys`)."""
    entry = getattr(main, "main", None)
    return (
        getattr(entry, "__module__", None) == "bounded.cli"
        and main is not None
        and (getattr(main, "__spec__", None) is None)
    )


@contextmanager
def main_not_reimported() -> Iterator[None]:
    """When the driver is the `bounded` command, spawn workers that skip re-running its
    entry script: spawn re-runs the driver's main script in each worker (so that what it
    defines unpickles there), which for the command imports the whole CLI (typer, rich,
    every command) that a game never uses. A main module named `__main__` is one spawn
    leaves alone. A user's own script is re-run as before."""
    main = sys.modules.get("__main__")
    if main is None or not is_console_script(main):
        yield
        return
    main.__spec__ = ModuleSpec("__main__", None)
    try:
        yield
    finally:
        main.__spec__ = None


@contextmanager
def worker_boot(context: SpawnContext) -> Iterator[None]:
    """Spawn this context's workers through the boot script (Linux; elsewhere the pool
    initializer alone ties them to the driver), without re-running the `bounded` command's
    entry script in them (`main_not_reimported`)."""
    with main_not_reimported(), _boot_script_as_executable(context):
        yield


@contextmanager
def _boot_script_as_executable(context: SpawnContext) -> Iterator[None]:
    if not sys.platform.startswith("linux") or " " in sys.executable:  # a shebang needs it
        yield
        return
    previous = os.environ.get(DRIVER_VARIABLE)
    os.environ[DRIVER_VARIABLE] = str(os.getpid())
    context.set_executable(str(driver_script()))
    try:
        yield
    finally:
        context.set_executable(sys.executable)
        if previous is None:
            os.environ.pop(DRIVER_VARIABLE, None)
        else:
            os.environ[DRIVER_VARIABLE] = previous


__all__ = ["ORPHANED_AT_BIRTH", "boot_script", "die_with_parent", "driver_script", "worker_boot"]
