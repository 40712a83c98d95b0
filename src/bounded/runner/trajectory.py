"""A run's decisions as `postrun` and a runner's caller read them, in bounded memory.

A decision's record holds its whole prompt, so a runner that kept every record would grow
by kilobytes a decision (a 100,000-step NetHack game: gigabytes). `Trajectory` keeps only
the latest `kept` records in memory; it still answers for every decision of the run: an
older one is read back from the archive the run is played into (`reader`), a range of
`READ_BATCH` at a time, so iterating a game of any length holds one range. A run played
into no archive, or into a sink that cannot read back (a Ray worker's, which forwards its
rows to the driver), has only the kept records: asking for an older one is a
`TrajectoryTrimmed` error that says how to keep more. `kept=None` keeps every record (a
short analysis script's choice; its memory then grows with the game).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from typing import overload

from bounded.core import BoundedError, DecisionRecord

KEPT_DECISIONS = 100
"""Records a runner keeps in memory by default (about 1-2 MB of prompts)."""

READ_BATCH = 200
"""Records read back from the archive at a time while iterating."""

Reader = Callable[[int, int], Sequence[DecisionRecord]]
"""The run's archived decisions whose index is in [start, end), in order."""


class TrajectoryTrimmed(BoundedError, IndexError):
    """An older decision was asked for, no longer in memory, with no archive to read it
    back from."""


class Trajectory(Sequence[DecisionRecord]):
    """Every decision of a run, in order: the latest `kept` in memory, the rest read back
    from the archive through `reader`."""

    def __init__(self, kept: int | None = KEPT_DECISIONS, reader: Reader | None = None) -> None:
        if kept is not None and kept < 1:
            raise ValueError(f"a trajectory keeps at least one decision, not {kept}")
        self.kept = kept
        self.reader = reader
        self._recent: deque[DecisionRecord] = deque(maxlen=kept)
        self._count = 0

    def append(self, record: DecisionRecord) -> None:
        self._recent.append(record)
        self._count += 1

    @property
    def first_kept(self) -> int:
        """The index of the oldest decision still in memory."""
        return self._count - len(self._recent)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> DecisionRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[DecisionRecord]: ...

    def __getitem__(self, index: int | slice) -> DecisionRecord | list[DecisionRecord]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        position = index + self._count if index < 0 else index
        if not 0 <= position < self._count:
            raise IndexError(f"decision {index} of a trajectory of {self._count}")
        if position >= self.first_kept:
            return self._recent[position - self.first_kept]
        return self._read(position, position + 1)[0]

    def __iter__(self) -> Iterator[DecisionRecord]:
        """Every decision, the archived ones streamed a batch at a time."""
        first = self.first_kept
        for start in range(0, first, READ_BATCH):
            yield from self._read(start, min(start + READ_BATCH, first))
        yield from list(self._recent)

    def _read(self, start: int, end: int) -> Sequence[DecisionRecord]:
        if self.reader is None:
            raise TrajectoryTrimmed(
                f"decision {start} is no longer in memory (the runner keeps the latest "
                f"{self.kept}) and the run has no archive to read it back from: play into "
                "an archive, or keep more (EpisodeRunner(keep_decisions=...))"
            )
        records = self.reader(start, end)
        if len(records) != end - start:
            raise TrajectoryTrimmed(
                f"the archive holds {len(records)} of decisions {start} to {end - 1}"
            )
        return records


__all__ = ["KEPT_DECISIONS", "Reader", "Trajectory", "TrajectoryTrimmed"]
