"""What decisions repeat, stored once: the `shared` table and the decision columns that
refer to it (format 3).

- `shared (id, hash, json)`: each distinct JSON value once (`hash`: its SHA-256 digest, 32
  bytes, the identity a writer looks it up by; `id` the integer rows refer to);
- `decisions.actions`: `[[action, args], ...]`, `action` the shared id of an action without
  its arguments (id, label, argument schema: the legal actions a game offers again and again),
  `args` its filled-in arguments, left out when empty;
- `decisions.completion`, each of `decisions.extra_completions` and
  `decisions.tokens_by_layer`: an object as `[keys, value, ...]`, `keys` the shared id of its
  list of keys (a completion's fields other than their defaults), then the values in order.

A writer (`Shared`, one per archive connection) keeps the ids it has looked up; ids are
never reused (no row of `shared` is ever deleted), so a reader caches what it has read. What
a rolled-back transaction inserted is forgotten (`Shared.forget_unsaved`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from bounded.core import Action, Completion

SHARED_SCHEMA = """
CREATE TABLE IF NOT EXISTS shared (
    id INTEGER PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE,
    json TEXT NOT NULL
);
"""


def compact(value: Any, *, sort_keys: bool = True) -> str:
    """JSON without spaces (what every JSON column of format 3 stores), its text as UTF-8
    rather than escapes: a lone surrogate then stays one, so that writing it fails and the
    writer replaces it (`Archive.write_decision`) instead of storing an escape that reads
    back as the surrogate."""
    return json.dumps(
        value, sort_keys=sort_keys, separators=(",", ":"), default=str, ensure_ascii=False
    )


VALUES_REMEMBERED = 65_536
"""Shared values a reader keeps (a game offers the same few actions again and again; a
reader of a whole archive of varied games does not keep every one it met)."""


class Shared:
    """Ids of shared values and the values of ids, remembered per connection."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._values: dict[int, Any] = {}
        self._unsaved: set[str] = set()

    def id(self, db: sqlite3.Connection, value: Any) -> int:
        """The id of `value` (JSON), stored when it is new, inside the caller's transaction."""
        text = compact(value)
        known = self._ids.get(text)
        if known is not None:
            return known
        digest = hashlib.sha256(text.encode()).digest()
        row = db.execute("SELECT id FROM shared WHERE hash = ?", (digest,)).fetchone()
        if row is None:
            cursor = db.execute("INSERT INTO shared (hash, json) VALUES (?, ?)", (digest, text))
            row = (int(cursor.lastrowid or 0),)
            self._unsaved.add(text)
        self._ids[text] = int(row[0])
        return int(row[0])

    def saved(self) -> None:
        """The transaction that stored the new values committed."""
        self._unsaved.clear()

    def forget_unsaved(self) -> None:
        """The transaction rolled back: the values it stored are not stored."""
        for text in self._unsaved:
            self._values.pop(self._ids.pop(text, -1), None)
        self._unsaved.clear()

    def value(self, db: sqlite3.Connection, shared_id: int) -> Any:
        known = self._values.get(shared_id)
        if known is None:
            row = db.execute("SELECT json FROM shared WHERE id = ?", (shared_id,)).fetchone()
            if row is None:
                raise sqlite3.DatabaseError(f"no shared value {shared_id} in the archive")
            if len(self._values) >= VALUES_REMEMBERED:  # the oldest read goes
                del self._values[next(iter(self._values))]
            known = self._values[shared_id] = json.loads(row[0])
        return known

    # -- the columns that refer to shared values ----------------------------

    def pack_actions(self, db: sqlite3.Connection, actions: Sequence[Action]) -> str:
        packed = []
        for action in actions:
            data = action.model_dump(mode="json", by_alias=True)
            args = data.pop("args")
            shared_id = self.id(db, data)
            packed.append([shared_id, args] if args else [shared_id])
        return compact(packed)

    def unpack_actions(self, db: sqlite3.Connection, text: str) -> list[Action]:
        return [
            Action.model_validate({**self.value(db, item[0]), "args": item[1] if item[1:] else {}})
            for item in json.loads(text)
        ]

    def pack_object(self, db: sqlite3.Connection, value: dict[str, Any]) -> list[Any]:
        return [self.id(db, list(value)), *value.values()]

    def unpack_object(self, db: sqlite3.Connection, packed: list[Any]) -> dict[str, Any]:
        keys = self.value(db, packed[0])
        return dict(zip(keys, packed[1:], strict=True))

    def pack_completion(self, db: sqlite3.Connection, completion: Completion) -> list[Any]:
        return self.pack_object(db, completion.model_dump(mode="json", exclude_defaults=True))

    def unpack_completion(self, db: sqlite3.Connection, packed: list[Any]) -> Completion:
        return Completion.model_validate(self.unpack_object(db, packed))

    def completion_column(
        self, db: sqlite3.Connection, completion: Completion | None
    ) -> str | None:
        return None if completion is None else compact(self.pack_completion(db, completion))

    def completion_of(self, db: sqlite3.Connection, column: str | None) -> Completion | None:
        return None if not column else self.unpack_completion(db, json.loads(column))

    def extra_column(self, db: sqlite3.Connection, completions: Sequence[Completion]) -> str:
        return compact([self.pack_completion(db, c) for c in completions])

    def extra_of(self, db: sqlite3.Connection, column: str) -> list[Completion]:
        return [self.unpack_completion(db, packed) for packed in json.loads(column)]

    def layers_column(self, db: sqlite3.Connection, tokens_by_layer: dict[str, int]) -> str:
        return compact(self.pack_object(db, tokens_by_layer))  # keeps the layers' order

    def layers_of(self, db: sqlite3.Connection, column: str) -> dict[str, int]:
        return self.unpack_object(db, json.loads(column))


__all__ = ["SHARED_SCHEMA", "Shared", "compact"]
