"""A decision's prompt as the archive stores it: integer ids, each prompt a change to the
one before it in its game, so a decision costs the archive what it adds.

- `texts (id, hash, text)`: each distinct text once (its SHA-256 `hash` is its identity,
  `id` the integer other rows use);
- `labels (id, layer, role)`: each (layer, role) pair a segment has had;
- `decisions.prompt`: the integers `[keep, label, text, label, text, ...]`, one byte naming
  their width (2, 4 or 8 bytes: the narrowest that holds the largest) then each
  little-endian: the first `keep` segments of the prompt of the decision before (index - 1,
  same run), then these segments. `keep = 0` is a key: a prompt complete in itself. A NULL
  prompt is an empty key (a decision with no prompt);
- `decisions.prompt_base`: the index of the key this decision's chain starts from (its own
  index for a key): a reader of any decision reads the rows from there.

A writer keeps the prompt it wrote last for each game, and compares the next prompt with it
text by text (only new texts are hashed and looked up). It writes a key when it does not
know the decision before (the first decision, a resumed game, a replaced decision) or when
the changes written since the chain's key outgrow the key (`keep` counted as one entry), or
after `MAX_CHAIN` decisions: a transcript game's keys come at spaced decisions, about
constant bytes per decision in all, and any decision is rebuilt from at most `MAX_CHAIN`
rows.
"""

from __future__ import annotations

import hashlib
import sqlite3
import sys
from array import array
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from bounded.core import BoundedError, Segment

MAX_CHAIN = 256
"""The most decisions a chain of changes runs before the next key."""

MAX_GAMES_REMEMBERED = 1024
"""Games whose last prompt a writer keeps (a sweep's worker plays a few at a time)."""

IDS_PER_QUERY = 500
"""Text ids looked up per query (under SQLite's limit on bound parameters)."""

PROMPT_SCHEMA = """
CREATE TABLE IF NOT EXISTS texts (
    id INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS labels (
    id INTEGER PRIMARY KEY,
    layer TEXT NOT NULL,
    role TEXT NOT NULL,
    UNIQUE (layer, role)
);
"""

Ids = list[tuple[int, int]]
"""A prompt as (label id, text id) per segment."""


class BrokenPrompt(BoundedError):
    """A stored prompt's chain of changes is broken (a row it builds on is missing)."""


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


WIDTHS = {array(code).itemsize: code for code in ("H", "I", "L", "Q")}
"""Unsigned array type codes by their width in bytes (2, 4 and 8 on every platform
CPython supports)."""


def encode(keep: int, ids: Iterable[tuple[int, int]]) -> bytes:
    flat = [keep]
    for label, text in ids:
        flat.append(label)
        flat.append(text)
    top = max(flat)
    width = next(w for w in (2, 4, 8) if top < 1 << (8 * w))
    values = array(WIDTHS[width], flat)
    return bytes([width]) + (values.tobytes() if _little_endian() else _swapped(values))


def decode(blob: bytes | None) -> tuple[int, Ids]:
    """`(keep, ids)` of a stored prompt (NULL: an empty key)."""
    if not blob:
        return 0, []
    if blob[0] not in WIDTHS:
        raise BrokenPrompt(f"a stored prompt names integers {blob[0]} bytes wide")
    values = array(WIDTHS[blob[0]])
    values.frombytes(blob[1:])
    if not _little_endian():  # pragma: no cover - big-endian hosts
        values.byteswap()
    pairs = iter(values[1:])
    return values[0], list(zip(pairs, pairs, strict=True))


def _little_endian() -> bool:
    return sys.byteorder == "little"


def _swapped(values: array[int]) -> bytes:  # pragma: no cover - big-endian hosts
    swapped = array("q", values)
    swapped.byteswap()
    return swapped.tobytes()


@dataclass
class Chain:
    """What a writer remembers of the prompt it wrote last in a game."""

    index: int
    base: int
    texts: list[tuple[str, str, str]]
    """(layer, role, text) per segment, to find what the next prompt keeps."""
    ids: Ids
    key_size: int
    since_key: int
    length: int


def common_prefix(a: Sequence[object], b: Sequence[object]) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def next_link(chain: Chain | None, index: int, ids: Ids) -> tuple[int, bytes, int]:
    """`(base, blob, keep)` of the prompt `ids` at `index` after `chain` (the prompt at
    `index - 1`, or None when it is not known)."""
    keep = common_prefix(chain.ids, ids) if chain is not None else 0
    change = 1 + len(ids) - keep
    if (
        chain is None
        or keep == 0
        or chain.since_key + change > chain.key_size
        or chain.length >= MAX_CHAIN
    ):
        return index, encode(0, ids), 0
    return chain.base, encode(keep, ids[keep:]), keep


def after_link(chain: Chain | None, index: int, base: int, keep: int, ids: Ids) -> Chain:
    if base == index or chain is None:
        return Chain(index, index, [], ids, 1 + len(ids), 0, 0)
    change = 1 + len(ids) - keep
    return Chain(index, base, [], ids, chain.key_size, chain.since_key + change, chain.length + 1)


class PromptWriter:
    """Writes decisions' prompts, remembering each game's last one (one per archive
    connection)."""

    def __init__(self) -> None:
        self._chains: OrderedDict[int, Chain] = OrderedDict()

    def write(
        self, db: sqlite3.Connection, run: int, index: int, segments: Sequence[Segment]
    ) -> tuple[int, bytes]:
        """`(prompt_base, prompt)` for this decision's row (`run`: its run's integer key),
        its new texts and labels written, inside the caller's transaction (before the row
        itself is written)."""
        around = dict(
            db.execute(
                "SELECT idx, prompt_base FROM decisions WHERE run = ? AND idx IN (?, ?)",
                (run, index - 1, index + 1),
            ).fetchall()
        )
        chain = self._chains.get(run)
        if chain is not None and (chain.index != index - 1 or around.get(index - 1) != chain.base):
            chain = None  # not stored as remembered: a rolled-back write, another writer
        texts = [(s.layer, s.role, s.text) for s in segments]
        same = common_prefix(chain.texts, texts) if chain is not None else 0
        labels: dict[tuple[str, str], int] = {}  # the previous prompt's are stored (its row is)
        if chain is not None:
            for (layer, role, _), (label, _) in zip(chain.texts, chain.ids, strict=True):
                labels[(layer, role)] = label
        ids = (chain.ids[:same] if chain is not None else []) + [
            (labels.get((layer, role)) or _label_id(db, layer, role), _text_id(db, text))
            for layer, role, text in texts[same:]
        ]
        base, blob, keep = next_link(chain, index, ids)
        kept = after_link(chain, index, base, keep, ids)
        kept.texts = texts
        self._remember(run, kept)
        if index + 1 in around:
            _rekey_successor(db, run, index)
        return base, blob

    def _remember(self, run: int, chain: Chain) -> None:
        self._chains[run] = chain
        self._chains.move_to_end(run)
        while len(self._chains) > MAX_GAMES_REMEMBERED:
            self._chains.popitem(last=False)

    def forget(self, run: int) -> None:
        self._chains.pop(run, None)


def _text_id(db: sqlite3.Connection, text: str) -> int:
    digest = text_hash(text)
    row = db.execute("SELECT id FROM texts WHERE hash = ?", (digest,)).fetchone()
    if row is not None:
        return int(row[0])
    cursor = db.execute("INSERT INTO texts (hash, text) VALUES (?, ?)", (digest, text))
    return int(cursor.lastrowid or 0)


def _label_id(db: sqlite3.Connection, layer: str, role: str) -> int:
    query = "SELECT id FROM labels WHERE layer = ? AND role = ?"
    row = db.execute(query, (layer, role)).fetchone()
    if row is not None:
        return int(row[0])
    cursor = db.execute("INSERT INTO labels (layer, role) VALUES (?, ?)", (layer, role))
    return int(cursor.lastrowid or 0)


def _rekey_successor(db: sqlite3.Connection, run: int, index: int) -> None:
    """A decision rewritten under a stored successor: the successor becomes a key first, so
    that it no longer builds on what is replaced."""
    row = db.execute(
        "SELECT prompt FROM decisions WHERE run = ? AND idx = ?", (run, index + 1)
    ).fetchone()
    if row is None or decode(row[0])[0] == 0:
        return
    [(_, ids)] = list(chain_ids(db, run, index + 1, index + 2))
    db.execute(
        "UPDATE decisions SET prompt_base = idx, prompt = ? WHERE run = ? AND idx = ?",
        (encode(0, ids), run, index + 1),
    )


def chain_ids(db: sqlite3.Connection, run: int, start: int, end: int) -> Iterator[tuple[int, Ids]]:
    """`(index, ids)` of each stored decision of the run keyed `run` with an index in
    [start, end), in order."""
    first = db.execute(
        "SELECT prompt_base FROM decisions WHERE run = ? AND idx >= ? AND idx < ? "
        "ORDER BY idx LIMIT 1",
        (run, start, end),
    ).fetchone()
    if first is None:
        return
    rows = db.execute(
        "SELECT idx, prompt FROM decisions WHERE run = ? AND idx >= ? AND idx < ? ORDER BY idx",
        (run, min(first[0], start), end),
    )
    previous: tuple[int, Ids] | None = None
    for index, blob in rows:
        keep, ids = decode(blob)
        if keep:
            if previous is None or previous[0] != index - 1 or len(previous[1]) < keep:
                raise BrokenPrompt(
                    f"the prompt of decision {index} of run {run_name(db, run)} builds on "
                    "a missing one"
                )
            ids = previous[1][:keep] + ids
        previous = (index, ids)
        if index >= start:
            yield index, ids


def run_name(db: sqlite3.Connection, run: int) -> str:
    """The short id (12 characters) of the run keyed `run`."""
    row = db.execute("SELECT run_id FROM runs WHERE id = ?", (run,)).fetchone()
    return str(row[0])[:12] if row else f"#{run}"


def read_prompts(
    db: sqlite3.Connection, run: int, start: int, end: int
) -> dict[int, list[Segment]]:
    """The prompt segments of the decisions of the run keyed `run` with indices in
    [start, end)."""
    by_index = dict(chain_ids(db, run, start, end))
    labels = {row[0]: (row[1], row[2]) for row in db.execute("SELECT id, layer, role FROM labels")}
    wanted = sorted({text for ids in by_index.values() for _, text in ids})
    texts: dict[int, str] = {}
    chunks = iter(wanted)
    while chunk := list(islice(chunks, IDS_PER_QUERY)):
        marks = ", ".join("?" for _ in chunk)
        texts.update(db.execute(f"SELECT id, text FROM texts WHERE id IN ({marks})", chunk))
    return {
        index: [
            Segment(layer=labels[label][0], role=labels[label][1], text=texts[text])
            for label, text in ids
        ]
        for index, ids in by_index.items()
    }


def stored_layers(db: sqlite3.Connection) -> set[str]:
    """Every layer a stored prompt segment has."""
    return {row[0] for row in db.execute("SELECT DISTINCT layer FROM labels")}


__all__ = [
    "MAX_CHAIN",
    "PROMPT_SCHEMA",
    "BrokenPrompt",
    "Chain",
    "PromptWriter",
    "after_link",
    "chain_ids",
    "decode",
    "encode",
    "next_link",
    "read_prompts",
    "stored_layers",
    "text_hash",
]
