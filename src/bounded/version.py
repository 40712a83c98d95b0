"""The installed package's version and the revision of the code that runs, in a module that
imports nothing of `bounded` (the runner stamps both on every run; `bounded.__version__`
re-exports the version).

`code_revision()` says which code plays a run: where the package runs from a git checkout
(its own source files tracked there), `git describe --always --dirty` of that checkout
(`v0.1.0-12-gabc1234-dirty`); anywhere else (an installed wheel, a copy of the tree) the
package version and a short hash of the installed source files (`0.1.0+src.1a2b3c4d5e6f`),
so two runs played by different code never look alike."""

from __future__ import annotations

import hashlib
import subprocess
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("bounded")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0"

PACKAGE_DIR = Path(__file__).resolve().parent
GIT_TIMEOUT_S = 10.0
SOURCE_SUFFIXES = (".py", ".toml", ".json", ".html", ".j2", ".css", ".js", ".txt", ".md")
"""The files whose contents make the source hash (the package's code and the data it reads;
never caches or compiled files)."""


def git(*args: str, where: Path = PACKAGE_DIR) -> str | None:
    """A git command's output in `where`, stripped; None when git is missing or fails."""
    try:
        done = subprocess.run(
            ["git", "-C", str(where), *args],
            capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_revision(package: Path = PACKAGE_DIR) -> str | None:
    """`git describe --always --dirty` of the checkout the package's own files are tracked
    in; None where they are not (an installed copy, even one inside some other checkout)."""
    if git("ls-files", "--error-unmatch", "__init__.py", where=package) is None:
        return None
    return git("describe", "--always", "--dirty", where=package) or None


def source_hash(package: Path = PACKAGE_DIR, length: int = 12) -> str:
    """A short SHA-256 over the package's source files: each one's path relative to the
    package and its bytes, in path order."""
    digest = hashlib.sha256()
    files = sorted(
        path for path in package.rglob("*")
        if path.is_file() and path.suffix in SOURCE_SUFFIXES and "__pycache__" not in path.parts
    )  # fmt: skip
    for path in files:
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:length]


@cache
def code_revision() -> str:
    """Which code runs (see the module's docstring); computed once per process."""
    return git_revision() or f"{__version__}+src.{source_hash()}"


__all__ = ["__version__", "code_revision", "git_revision", "source_hash"]
