"""The typed contract's stores as one unit: L3 rules, L4 summaries, L5 skills.

A `StoreSet` lives in a directory of plain JSON files, or in memory when no directory
is given (writes then last as long as the object). Files missing from a directory are
seeded from the package's data for the game (`bounded/stores/data/<game>/`): the rules
book, and for L5 either the hand-written library (`hand`, mode-a) or the templates
(`templates`, mode-b). Bytes are canonical (sorted keys, fixed indentation), so a
layer's hash is the same in memory and on disk.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel

from bounded.core import ConfigError
from bounded.stores.gate import GateVerdict
from bounded.stores.rules import RulesBook
from bounded.stores.skills import SkillLibrary
from bounded.stores.snapshot import JOURNAL, hash_files, sha256
from bounded.stores.summaries import SummaryBook

SkillSeed = Literal["none", "hand", "templates"]
_Book = TypeVar("_Book", bound=BaseModel)

LAYER_FILES = {"L3": "rules.json", "L4": "summaries.json", "L5": "skills.json"}
SEED_SKILL_FILES = {"hand": "skills_hand.json", "templates": "skills_templates.json"}


def canonical_bytes(model: BaseModel) -> bytes:
    text = json.dumps(model.model_dump(mode="json"), sort_keys=True, indent=2, ensure_ascii=False)
    return (text + "\n").encode()


def seed_games() -> list[str]:
    """Games with seed data shipped in the package."""
    root = resources.files("bounded.stores") / "data"
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("_"))


def _seed_text(game: str, filename: str) -> str | None:
    resource = resources.files("bounded.stores") / "data" / game / filename
    return resource.read_text(encoding="utf-8") if resource.is_file() else None


def seed_rules(game: str) -> RulesBook:
    text = _seed_text(game, "rules.json")
    return RulesBook.model_validate_json(text) if text else RulesBook(game=game)


def seed_skills(game: str, seed: SkillSeed) -> SkillLibrary:
    text = _seed_text(game, SEED_SKILL_FILES[seed]) if seed != "none" else None
    return SkillLibrary.model_validate_json(text) if text else SkillLibrary(game=game)


class StoreSet:
    """L3, L4 and L5 of one game, loaded from a directory (or seeded in memory)."""

    def __init__(
        self,
        game: str,
        path: Path | None = None,
        *,
        skill_seed: SkillSeed = "none",
    ) -> None:
        self.game = game
        self.path = path
        self.rules = self._load("L3", RulesBook) or seed_rules(game)
        self.summaries = self._load("L4", SummaryBook) or SummaryBook(game=game)
        self.skills = self._load("L5", SkillLibrary) or seed_skills(game, skill_seed)

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
