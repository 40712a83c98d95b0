"""Content hashes, frozen snapshots and diffs of a store directory.

A store directory holds plain JSON files (`rules.json`, `summaries.json`,
`skills.json`). Its snapshot hash is the SHA-256 over the sorted list of
(relative path, SHA-256 of the file's bytes); the gate journal (`journal.jsonl`) and
hidden files are not content and are left out. The hash therefore changes exactly
when a stored entry changes, and the same content hashes alike on any machine.

A frozen snapshot (`freeze`, `freeze_to`) is a read-only copy that carries its own hash
in a hidden manifest (`.snapshot.json`, not content): `verify_snapshot` recomputes the
hash and refuses a snapshot whose files no longer match it, so an edited snapshot is
never read as if it were the one recorded.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from bounded.core import ConfigError

READ_ONLY = stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH

JOURNAL = "journal.jsonl"
"""The gate's verdicts, appended after each postrun; not part of the content hash."""

MANIFEST = ".snapshot.json"
"""A frozen snapshot's manifest: the hash its content had when it was frozen (hidden, so
not content)."""

ENTRY_LISTS = {
    "rules.json": "rules",
    "summaries.json": "summaries",
    "skills.json": "skills",
    "reflections.json": "reflections",
}
"""Store file -> the key of its list of entries (each with an `id`)."""


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def hash_files(files: Mapping[str, bytes]) -> str:
    """The snapshot hash of a set of files given as relative name -> bytes."""
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(f"{name}\0{sha256(files[name])}\n".encode())
    return digest.hexdigest()


def content_files(path: Path) -> dict[str, bytes]:
    """Every content file under `path` (relative POSIX name -> bytes)."""
    if not path.is_dir():
        raise ConfigError(f"store directory {str(path)!r} does not exist")
    files: dict[str, bytes] = {}
    for file in sorted(path.rglob("*")):
        relative = file.relative_to(path)
        if not file.is_file() or file.name == JOURNAL:
            continue
        if any(part.startswith(".") for part in relative.parts):
            continue
        files[relative.as_posix()] = file.read_bytes()
    return files


def directory_hash(path: Path) -> str:
    """The snapshot hash of a store directory."""
    return hash_files(content_files(path))


def freeze(path: Path, snapshots: Path) -> Path:
    """Copy a store directory to `snapshots/<hash16>`, read-only; returns the copy's path.

    Freezing the same content twice returns the existing copy.
    """
    digest = directory_hash(path)
    target = snapshots / digest[:16]
    if target.exists():
        if directory_hash(target) != digest:
            raise ConfigError(f"snapshot {str(target)!r} exists with other content")
        return target
    freeze_to(path, target)
    return target


def freeze_to(path: Path, target: Path) -> str:
    """Copy a store directory's content to `target` (which must not exist), read-only, with
    a manifest of its hash; returns the hash."""
    if target.exists():
        raise ConfigError(f"cannot freeze into {str(target)!r}: it already exists")
    files = content_files(path)
    digest = hash_files(files)
    target.mkdir(parents=True)
    for name, data in files.items():
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        destination.write_bytes(data)
        destination.chmod(READ_ONLY)
    manifest = target / MANIFEST
    manifest.write_text(json.dumps({"hash": digest}) + "\n")
    manifest.chmod(READ_ONLY)
    return digest


def manifest_hash(path: Path) -> str | None:
    """The hash a frozen snapshot's manifest records; None for a directory never frozen."""
    manifest = path / MANIFEST
    if not manifest.is_file():
        return None
    try:
        recorded = json.loads(manifest.read_text())["hash"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"snapshot manifest {str(manifest)!r} is unreadable: {exc}") from exc
    return str(recorded)


def verify_snapshot(path: Path, expected: str | None = None) -> str:
    """The snapshot's hash, checked against its manifest and, if given, `expected` (the
    hash recorded elsewhere, e.g. by the learning phase that froze it); a mismatch is a
    one-line error naming both hashes."""
    actual = directory_hash(path)
    for recorded, by in ((manifest_hash(path), "its manifest"), (expected, "the record")):
        if recorded is not None and recorded != actual:
            raise ConfigError(
                f"snapshot {str(path)!r} has changed since it was frozen: "
                f"its content hashes to {actual}, {by} says {recorded}"
            )
    return actual


def thaw(snapshot: Path, destination: Path) -> Path:
    """A writable copy of a snapshot (to continue learning from frozen stores)."""
    if destination.exists() and any(destination.iterdir()):
        raise ConfigError(f"{str(destination)!r} is not empty")
    shutil.copytree(snapshot, destination, dirs_exist_ok=True)
    (destination / MANIFEST).unlink(missing_ok=True)  # a thawed copy is no snapshot
    for file in destination.rglob("*"):
        if file.is_file():
            file.chmod(stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)
    return destination


def remove_snapshot(path: Path) -> None:
    """Delete a frozen snapshot (a directory with a manifest); anything else is refused."""
    if not path.exists():
        return
    if manifest_hash(path) is None:
        raise ConfigError(f"{str(path)!r} is not a frozen snapshot: not deleting it")
    shutil.rmtree(path)


class FileDiff(BaseModel):
    """How one store file differs between two directories (by entry id)."""

    name: str
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    changed: list[str] = Field(default_factory=list)
    other: bool = False
    """True when the file differs outside its entries (a version or game field)."""


class StoreDiff(BaseModel):
    """The difference between two store directories."""

    before: str
    after: str
    files: list[FileDiff] = Field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.before == self.after

    def render(self) -> str:
        """Lines for a terminal: the two hashes, then per changed file its entry ids."""
        lines = [f"before {self.before}", f"after  {self.after}"]
        if self.same:
            return "\n".join([*lines, "no differences"])
        for file in self.files:
            lines.append(f"{file.name}:")
            lines += [f"  + {i}" for i in file.added]
            lines += [f"  - {i}" for i in file.removed]
            lines += [f"  ~ {i}" for i in file.changed]
            if file.other:
                lines.append("  ~ (file header: game or version)")
        return "\n".join(lines)


def _entries(data: bytes | None, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(entries by id, everything else) of one store file's bytes."""
    if data is None:
        return {}, {}
    document = json.loads(data)
    key = ENTRY_LISTS.get(name)
    if key is None or not isinstance(document, dict):
        return {}, {"document": document}
    entries = {str(e.get("id")): e for e in document.get(key, []) if isinstance(e, dict)}
    rest = {k: v for k, v in document.items() if k != key}
    return entries, rest


def diff(before: Path, after: Path) -> StoreDiff:
    """Entry-level differences between two store directories."""
    old, new = content_files(before), content_files(after)
    result = StoreDiff(before=hash_files(old), after=hash_files(new))
    for name in sorted(set(old) | set(new)):
        if old.get(name) == new.get(name):
            continue
        old_entries, old_rest = _entries(old.get(name), name)
        new_entries, new_rest = _entries(new.get(name), name)
        result.files.append(
            FileDiff(
                name=name,
                added=sorted(set(new_entries) - set(old_entries)),
                removed=sorted(set(old_entries) - set(new_entries)),
                changed=sorted(
                    i
                    for i in set(old_entries) & set(new_entries)
                    if old_entries[i] != new_entries[i]
                ),
                other=old_rest != new_rest,
            )
        )
    return result


def describe(path: Path) -> str:
    """A few lines about a store directory: its hash, and per file the entries and their ids."""
    files = content_files(path)
    lines = [f"store {path}", f"hash  {hash_files(files)}"]
    for name, data in files.items():
        entries, rest = _entries(data, name)
        version = rest.get("version")
        head = f"{name}: {len(entries)} entries" + (f", version {version}" if version else "")
        lines.append(f"{head}, sha256 {sha256(data)[:16]}")
        lines.extend(f"  - {entry_id}" for entry_id in sorted(entries))
    return "\n".join(lines)
