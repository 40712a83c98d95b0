"""The typed contract's stores as one unit: L3 rules, L4 summaries, L5 skills.

A `StoreSet` lives in a directory of plain JSON files, or in memory when no directory
is given (writes then last as long as the object). A layer whose file the directory
lacks starts from the seed it is given: the rules book and the L5 library an
environment supplies in its `GameKnowledge` (`bounded.stores.knowledge`), or empty.
The stores know no game: a game's seed data lives with its environment (spire's in
`bounded.envs.spire.knowledge`). Bytes are canonical (sorted keys, fixed indentation),
so a layer's hash is the same in memory and on disk.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from bounded.core import ConfigError
from bounded.stores.case_notes import CaseNoteBook
from bounded.stores.gate import GateVerdict
from bounded.stores.rules import RulesBook
from bounded.stores.skills import SkillLibrary
from bounded.stores.snapshot import JOURNAL, MANIFEST, hash_files, sha256

_Book = TypeVar("_Book", RulesBook, CaseNoteBook, SkillLibrary)

LAYER_FILES = {"L3": "rules.json", "L4": "summaries.json", "L5": "skills.json"}

REFLECTIONS_FILE = "reflections.json"
"""The `reflexion` contract's store (its reflections), which a learning phase writes as it
writes the typed layers."""

STORE_FILES = frozenset([*LAYER_FILES.values(), JOURNAL, REFLECTIONS_FILE])
"""Every file a `StoreSet` (or the `reflexion` contract) writes into its directory."""


def canonical_bytes(model: BaseModel) -> bytes:
    text = json.dumps(model.model_dump(mode="json"), sort_keys=True, indent=2, ensure_ascii=False)
    return (text + "\n").encode()


def seeded(seed: _Book | None, cls: type[_Book], game: str) -> _Book:
    """A fresh layer from `seed` (a deep copy filed under `game`), or an empty one."""
    if seed is None:
        return cls(game=game)
    return seed.model_copy(update={"game": game}, deep=True)


class StoreSet:
    """L3, L4 and L5 of one game, loaded from a directory (or seeded in memory).

    `rules` and `skills` seed the layers the directory has no file for (they are copied,
    never changed); None starts that layer empty."""

    def __init__(
        self,
        game: str,
        path: Path | None = None,
        *,
        rules: RulesBook | None = None,
        skills: SkillLibrary | None = None,
    ) -> None:
        self.game = game
        self.path = path
        self.rules = self._load("L3", RulesBook) or seeded(rules, RulesBook, game)
        self.summaries = self._load("L4", CaseNoteBook) or CaseNoteBook(game=game)
        self.skills = self._load("L5", SkillLibrary) or seeded(skills, SkillLibrary, game)

    def _load(self, layer: str, cls: type[_Book]) -> _Book | None:
        if self.path is None:
            return None
        file = self.path / LAYER_FILES[layer]
        if not file.is_file():
            return None
        try:
            book = cls.model_validate_json(file.read_bytes())
        except ValueError as exc:
            first = str(exc).splitlines()[0]
            raise ConfigError(f"store file {str(file)!r} is invalid: {first}") from exc
        stored_game = getattr(book, "game", "")
        if stored_game and stored_game != self.game:
            raise ConfigError(
                f"store file {str(file)!r} is for game {stored_game!r}, not {self.game!r}"
            )
        return book

    def files(self) -> dict[str, bytes]:
        """Each layer file's canonical bytes."""
        books: dict[str, BaseModel] = {"L3": self.rules, "L4": self.summaries, "L5": self.skills}
        return {LAYER_FILES[layer]: canonical_bytes(book) for layer, book in books.items()}

    def layer_hashes(self) -> dict[str, str]:
        files = self.files()
        return {layer: sha256(files[name]) for layer, name in LAYER_FILES.items()}

    def hash(self) -> str:
        """The snapshot hash these stores have (or will have) as a directory."""
        return hash_files(self.files())

    def save(self) -> None:
        """Write every layer file (no-op in memory); unchanged files are not rewritten."""
        if self.path is None:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        for name, data in self.files().items():
            file = self.path / name
            if not file.is_file() or file.read_bytes() != data:
                file.write_bytes(data)

    def journal(self, verdicts: list[GateVerdict]) -> None:
        """Append gate verdicts to the directory's journal (kept out of the content hash)."""
        if self.path is None or not verdicts:
            return
        self.path.mkdir(parents=True, exist_ok=True)
        with (self.path / JOURNAL).open("a", encoding="utf-8") as out:
            for verdict in verdicts:
                out.write(verdict.model_dump_json() + "\n")


def clear_store(path: Path) -> None:
    """Empty a store directory (its layer files and journal) so that it starts again from
    its seeds. A directory holding anything else (hidden files aside) is refused: that is
    not the stores' to delete; so is a frozen snapshot."""
    if not path.is_dir():
        return
    if (path / MANIFEST).exists():
        raise ConfigError(f"store directory {str(path)!r} is a frozen snapshot: not clearing it")
    names = sorted(p.name for p in path.iterdir() if not p.name.startswith("."))
    others = [name for name in names if name not in STORE_FILES]
    if others:
        raise ConfigError(
            f"store directory {str(path)!r} holds other files ({', '.join(others[:3])}): "
            "not clearing it"
        )
    for name in names:
        (path / name).unlink()


def has_content(path: Path) -> bool:
    """Whether a store directory holds any layer file (or reflections)."""
    names = [*LAYER_FILES.values(), REFLECTIONS_FILE]
    return path.is_dir() and any((path / name).is_file() for name in names)
