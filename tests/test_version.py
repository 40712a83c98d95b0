import shutil
import subprocess
from pathlib import Path

import pytest

from bounded import version
from bounded.version import code_revision, git_revision, source_hash

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(where: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def package_copy(root: Path) -> Path:
    package = root / "src" / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 1\n")
    (package / "rules.toml").write_text("a = 1\n")
    return package


def committed_checkout(root: Path) -> Path:
    package = package_copy(root)
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    return package


@needs_git
def test_a_checkout_is_described_by_git_and_an_edit_marks_it_dirty(tmp_path):
    package = committed_checkout(tmp_path)
    head = git(tmp_path, "rev-parse", "--short", "HEAD")
    assert git_revision(package) == head
    (package / "__init__.py").write_text("VALUE = 2\n")
    assert git_revision(package) == f"{head}-dirty"


@needs_git
def test_files_not_tracked_by_the_checkout_around_them_are_not_described_by_it(tmp_path):
    committed_checkout(tmp_path)
    installed = package_copy(tmp_path / "venv" / "site-packages")  # untracked, inside it
    assert git_revision(installed) is None


def test_the_source_hash_follows_every_source_file_and_ignores_caches(tmp_path):
    package = package_copy(tmp_path)
    before = source_hash(package)
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "x.py").write_text("cached")
    assert source_hash(package) == before
    (package / "rules.toml").write_text("a = 2\n")
    assert source_hash(package) != before
    assert len(before) == 12


def test_outside_a_checkout_the_revision_is_the_version_and_the_source_hash(monkeypatch):
    code_revision.cache_clear()
    monkeypatch.setattr(version, "git_revision", lambda: None)
    try:
        expected = f"{version.__version__}+src.{source_hash(version.PACKAGE_DIR)}"
        assert code_revision() == expected
    finally:
        code_revision.cache_clear()


def tracked_here() -> bool:
    where = str(version.PACKAGE_DIR)
    args = ["git", "-C", where, "ls-files", "--error-unmatch", "__init__.py"]
    if shutil.which("git") is None:
        return False
    return subprocess.run(args, capture_output=True).returncode == 0


@pytest.mark.skipif(not tracked_here(), reason="bounded does not run from a git checkout here")
def test_this_checkout_describes_the_code_that_runs():
    code_revision.cache_clear()
    described = git(version.PACKAGE_DIR, "describe", "--always", "--dirty")
    assert code_revision() == described
