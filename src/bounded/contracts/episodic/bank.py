"""The episodic bank: (game time, observation, action) entries from winning games.

EpicStar remembers what a winning player did at the same moment of a game in a
similar situation. The bank holds one entry per decision of each kept game: the
decision's time `t_i`, its observation as a flat dict of numbers `o_i`, and the
action(s) taken `a_i`. Entries are kept sorted by time in columnar numpy arrays, so
that retrieval is a binary search for the time window followed by one vectorised
pass over the candidates (paper Eq. 1-3):

    D_item(o, o_i)  = sum_k [o(k) != o_i(k)]                      (Eq. 1)
    D_value(o, o_i) = sum_k |o(k) - o_i(k)|                        (Eq. 2)
    score_i = alpha * minmax(D_item)_i + beta * minmax(D_value)_i   (Eq. 3)

ranked ascending; ties keep bank order (time, then game, then step). A key missing
on one side counts as 0 on that side. The bank is saved as a `.npz` file (no pickles)
that carries a SHA-256 of its content, checked on load.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from bounded.contracts.episodic.scan import MIN_CANDIDATES, ByteColumns, candidates
from bounded.core import JSON, Action, BoundedError

BANK_FORMAT_VERSION = 1
FEATURE_DTYPE = np.float32

DValue = Literal["sum", "count"]
"""D_value's reading in Eq. 2: the sum of absolute differences, or the count of changed values."""


class BankError(BoundedError):
    """A bank file that is missing, malformed or whose content hash does not match."""


def encode_actions(actions: Action | Sequence[Action]) -> str:
    """One entry's action(s) as compact JSON: a list of `{"id", "args"}` objects."""
    items = [actions] if isinstance(actions, Action) else list(actions)
    payload = [{"id": a.id, "args": a.args} if a.args else {"id": a.id} for a in items]
    return json.dumps(payload, separators=(",", ":"), sort_keys=True)


def decode_actions(blob: str) -> list[Action]:
    return [Action(id=item["id"], args=item.get("args", {})) for item in json.loads(blob)]


class GameInfo(BaseModel):
    """Where a kept game came from."""

    game: int
    """Index of the game in the bank."""
    seed: int | None = None
    """The environment seed the game was played with."""
    options: JSON = Field(default_factory=dict)
    """Environment settings of the game (level, style, map, ...)."""
    strategy: str = ""
    """The player's strategy (an expert's build order); the fusion cache is keyed by it."""
    outcome: JSON = Field(default_factory=dict)
    """The environment's `metrics()` at the end of the game."""
    entries: int = 0
    """Number of entries the game contributed."""


@dataclass(frozen=True)
class BankEntry:
    """One remembered decision."""

    t: float
    features: dict[str, float]
    actions: list[Action]
    game: int = 0
    step: int = 0


@dataclass(frozen=True)
class Retrieved:
    """One ranked retrieval hit: the entry, its distances and its score (lower is closer)."""

    index: int
    t: float
    game: int
    step: int
    actions: list[Action]
    d_item: int
    d_value: float
    score: float
    strategy: str = ""


@dataclass
class Ranking:
    """The result of Eq. 1-3 over one window, positions relative to the window."""

    order: np.ndarray
    d_item: np.ndarray
    d_value: np.ndarray
    score: np.ndarray


def minmax(values: np.ndarray) -> np.ndarray:
    """Min-max normalisation to [0, 1]; all-equal values normalise to 0."""
    if values.size == 0:
        return values.astype(np.float64)
    low, high = float(values.min()), float(values.max())
    if high == low:
        return np.zeros(values.shape, dtype=np.float64)
    return (values - low) / (high - low)


def smallest_stable(score: np.ndarray, n: int) -> np.ndarray:
    """Positions of the n smallest scores, ascending, ties broken by position."""
    if score.size <= n:
        return np.argsort(score, kind="stable")
    threshold = np.partition(score, n - 1)[n - 1]
    chosen = np.flatnonzero(score <= threshold)
    return chosen[np.argsort(score[chosen], kind="stable")][:n]


def rank_window(
    values: np.ndarray,
    query: np.ndarray,
    *,
    n: int,
    alpha: float,
    beta: float,
    extra_item: int = 0,
    extra_value: float = 0.0,
    d_value: DValue = "sum",
) -> Ranking:
    """Eq. 1-3 over candidate rows `values` (m x K) against `query` (K,).

    `extra_item`/`extra_value` add what the query's keys unknown to the bank contribute
    (the same for every candidate, so they shift raw distances but not the ranking).
    D_value is the sum of absolute differences (`d_value="sum"`) or the number of values
    that changed (`"count"`, where each unknown key counts one, as in D_item).
    """
    diff = values - query
    np.abs(diff, out=diff)
    d_item = np.count_nonzero(diff, axis=1) + extra_item
    if d_value == "count":
        distance = d_item.astype(np.float64)
    else:
        distance = diff.sum(axis=1, dtype=np.float64) + extra_value
    score = alpha * minmax(d_item.astype(np.float64)) + beta * minmax(distance)
    return Ranking(order=smallest_stable(score, n), d_item=d_item, d_value=distance, score=score)


@dataclass
class EpisodicBank:
    """Columnar, time-sorted entries plus provenance; immutable once built."""

    keys: tuple[str, ...]
    times: np.ndarray
    values: np.ndarray
    actions: np.ndarray
    games: np.ndarray
    steps: np.ndarray
    game_info: list[GameInfo] = field(default_factory=list)
    meta: JSON = field(default_factory=dict)
    _column: dict[str, int] = field(init=False, repr=False)
    _hash: str | None = field(default=None, init=False, repr=False)
    _bytes: ByteColumns | bool | None = field(default=False, init=False, repr=False)
    """The byte form for wide windows (`episodic_scan`): False until first needed."""

    def __post_init__(self) -> None:
        self._column = {key: i for i, key in enumerate(self.keys)}

    # -- building ---------------------------------------------------------

    @classmethod
    def empty(cls, meta: JSON | None = None) -> EpisodicBank:
        return cls.from_games([], meta=meta)

    @classmethod
    def from_games(
        cls, games: Iterable[tuple[GameInfo, Sequence[BankEntry]]], meta: JSON | None = None
    ) -> EpisodicBank:
        """A bank of the given games' entries (game indices are renumbered in order)."""
        infos: list[GameInfo] = []
        entries: list[BankEntry] = []
        for number, (info, game_entries) in enumerate(games):
            infos.append(info.model_copy(update={"game": number, "entries": len(game_entries)}))
            entries.extend(
                BankEntry(e.t, e.features, e.actions, game=number, step=e.step)
                for e in game_entries
            )
        return cls.from_entries(entries, game_info=infos, meta=meta)

    @classmethod
    def from_entries(
        cls,
        entries: Sequence[BankEntry],
        *,
        game_info: list[GameInfo] | None = None,
        meta: JSON | None = None,
    ) -> EpisodicBank:
        keys = tuple(sorted({key for entry in entries for key in entry.features}))
        column = {key: i for i, key in enumerate(keys)}
        values = np.zeros((len(entries), len(keys)), dtype=FEATURE_DTYPE)
        for row, entry in enumerate(entries):
            for key, value in entry.features.items():
                values[row, column[key]] = value
        times = np.array([e.t for e in entries], dtype=np.float64)
        games = np.array([e.game for e in entries], dtype=np.int32)
        steps = np.array([e.step for e in entries], dtype=np.int32)
        order = np.lexsort((steps, games, times))
        actions = np.array([encode_actions(e.actions) for e in entries], dtype=np.str_)
        return cls(
            keys=keys,
            times=times[order],
            values=values[order],
            actions=actions[order] if len(entries) else np.array([], dtype=np.str_),
            games=games[order],
            steps=steps[order],
            game_info=list(game_info or []),
            meta=dict(meta or {}),
        )

    # -- inspection -------------------------------------------------------

    def __len__(self) -> int:
        return int(self.times.shape[0])

    def entry(self, index: int) -> BankEntry:
        row = self.values[index]
        features = {key: float(row[i]) for i, key in enumerate(self.keys)}
        return BankEntry(
            t=float(self.times[index]),
            features=features,
            actions=decode_actions(str(self.actions[index])),
            game=int(self.games[index]),
            step=int(self.steps[index]),
        )

    def strategy_of(self, game: int) -> str:
        if 0 <= game < len(self.game_info):
            return self.game_info[game].strategy or f"game {game}"
        return f"game {game}"

    @property
    def content_hash(self) -> str:
        """SHA-256 over every array, the keys, the games' provenance and the metadata."""
        if self._hash is None:
            digest = hashlib.sha256()
            header = {
                "format": BANK_FORMAT_VERSION,
                "keys": list(self.keys),
                "games": [g.model_dump() for g in self.game_info],
                "meta": self.meta,
            }
            digest.update(json.dumps(header, sort_keys=True, separators=(",", ":")).encode())
            for array in (self.times, self.values, self.games, self.steps):
                digest.update(np.ascontiguousarray(array).tobytes())
            digest.update("\n".join(str(a) for a in self.actions).encode())
            self._hash = digest.hexdigest()
        return self._hash

    # -- retrieval --------------------------------------------------------

    def window(self, t: float, t_delta: float) -> slice:
        """Rows with |t_i - t| <= t_delta, by binary search over the sorted times."""
        low = int(np.searchsorted(self.times, t - t_delta, side="left"))
        high = int(np.searchsorted(self.times, t + t_delta, side="right"))
        return slice(low, high)

    def query(self, features: Mapping[str, float]) -> tuple[np.ndarray, int, float]:
        """The query row over the bank's keys, plus what keys unknown to the bank add."""
        vector = np.zeros(len(self.keys), dtype=FEATURE_DTYPE)
        extra_item, extra_value = 0, 0.0
        for key, value in features.items():
            column = self._column.get(key)
            if column is not None:
                vector[column] = value
            elif value != 0:
                extra_item += 1
                extra_value += abs(value)
        return vector, extra_item, extra_value

    def retrieve(
        self,
        features: Mapping[str, float],
        t: float,
        *,
        t_delta: float = 0.0,
        n: int = 3,
        alpha: float = 0.5,
        beta: float = 0.5,
        d_value: DValue = "sum",
    ) -> list[Retrieved]:
        """The top-n entries of the time window (Eq. 1-3); empty when the window is."""
        rows = self.window(t, t_delta)
        if rows.start >= rows.stop:
            return []
        vector, extra_item, extra_value = self.query(features)
        kept = self._candidates(rows, vector, n=n, alpha=alpha, beta=beta)
        ranking = rank_window(
            self.values[rows] if kept is None else self.values[rows.start + kept],
            vector,
            n=n,
            alpha=alpha,
            beta=beta,
            extra_item=extra_item,
            extra_value=extra_value,
            d_value=d_value,
        )
        at = ranking.order if kept is None else kept[ranking.order]
        return [
            self._hit(rows.start + int(row), ranking, int(position))
            for row, position in zip(at, ranking.order, strict=True)
        ]

    def _candidates(
        self, rows: slice, vector: np.ndarray, *, n: int, alpha: float, beta: float
    ) -> np.ndarray | None:
        """The window positions Eq. 1-3 can rank first, found by the byte scan
        (`episodic_scan`); None: rank the whole window (narrow, or not byte-sized)."""
        if n < 1 or rows.stop - rows.start < MIN_CANDIDATES:
            return None
        if self._bytes is False:
            self._bytes = ByteColumns.of(self.values)
        columns = self._bytes
        if not isinstance(columns, ByteColumns):
            return None
        query = columns.query(vector)
        if query is None:
            return None
        d_item, d_value = columns.distances(rows.start, rows.stop, query)
        return candidates(d_item, d_value, n, alpha, beta)

    def _hit(self, index: int, ranking: Ranking, position: int) -> Retrieved:
        game = int(self.games[index])
        return Retrieved(
            index=index,
            t=float(self.times[index]),
            game=game,
            step=int(self.steps[index]),
            actions=decode_actions(str(self.actions[index])),
            d_item=int(ranking.d_item[position]),
            d_value=float(ranking.d_value[position]),
            score=float(ranking.score[position]),
            strategy=self.strategy_of(game),
        )

    # -- files ------------------------------------------------------------

    def save(self, path: str | Path) -> str:
        """Write the bank to `path` (`.npz`); returns the content hash stored in it."""
        header = {
            "format": BANK_FORMAT_VERSION,
            "keys": list(self.keys),
            "games": [g.model_dump() for g in self.game_info],
            "meta": self.meta,
            "content_hash": self.content_hash,
        }
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as handle:
            np.savez_compressed(
                handle,
                header=np.array(json.dumps(header, sort_keys=True)),
                times=self.times,
                values=self.values,
                actions=self.actions,
                games=self.games,
                steps=self.steps,
            )
        return self.content_hash

    @classmethod
    def load(cls, path: str | Path) -> EpisodicBank:
        """Read a bank written by `save`; raises BankError if it is unreadable or altered."""
        source = Path(path)
        if not source.is_file():
            raise BankError(f"episodic bank not found: {source}")
        try:
            with np.load(source, allow_pickle=False) as data:
                header = json.loads(str(data["header"]))
                arrays = {name: data[name] for name in ("times", "values", "actions", "games")}
                steps = data["steps"]
        except (OSError, ValueError, KeyError) as exc:
            raise BankError(f"unreadable episodic bank {source}: {exc}") from exc
        if header.get("format") != BANK_FORMAT_VERSION:
            raise BankError(f"{source}: bank format {header.get('format')} is not supported")
        bank = cls(
            keys=tuple(header["keys"]),
            times=arrays["times"],
            values=arrays["values"],
            actions=arrays["actions"],
            games=arrays["games"],
            steps=steps,
            game_info=[GameInfo.model_validate(g) for g in header["games"]],
            meta=header["meta"],
        )
        if bank.content_hash != header.get("content_hash"):
            raise BankError(f"{source}: content hash mismatch (the file was altered)")
        return bank


# -- collecting games ------------------------------------------------------


def describe_bank(path: str | Path) -> str:
    """`bounded bank show PATH`: a bank's size, provenance and hash (verified on load)."""
    bank = EpisodicBank.load(path)
    times = f"{bank.times.min():g}..{bank.times.max():g}" if len(bank) else "-"
    lines = [
        f"{path}: {len(bank)} entries, {len(bank.keys)} keys, times {times}",
        f"sha256 {bank.content_hash}",
        f"meta {json.dumps(bank.meta, sort_keys=True)}",
    ]
    for game in bank.game_info:
        lines.append(
            f"game {game.game}: seed {game.seed} {json.dumps(game.options, sort_keys=True)}"
            f" strategy {game.strategy or '-'}, {game.entries} entries"
        )
    return "\n".join(lines)


__all__ = [
    "BANK_FORMAT_VERSION",
    "BankEntry",
    "BankError",
    "EpisodicBank",
    "GameInfo",
    "Retrieved",
    "decode_actions",
    "describe_bank",
    "encode_actions",
    "minmax",
    "rank_window",
]
