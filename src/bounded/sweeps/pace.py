"""How long a sweep has left: the decisions still to play over the rate the games in flight
play them at.

Decisions still to play are counted per cell: a game not started yet is expected to take
as many decisions as the cell's completed games took on average (a game may end long
before its limit), or, before any has completed, its decision limit (the plan's
`max_decisions`); a game in flight is expected to take that many minus those it has
played. Where the plan sets no `max_decisions`, a cell's limit is only the default ceiling
(`bounded.runner.spec.DEFAULT_MAX_DECISIONS`, 100,000), which games rarely come near:
until one of its games ends, the estimate is an upper bound and reads as unknown, with the
bound. The rate is the sum of the games in flight's decisions per second, so the estimate
holds while as many games play at once as now. Both the terminal display of `bounded
sweep` (`bounded.cli._progress`) and `bounded view` show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bounded.runner.spec import DEFAULT_MAX_DECISIONS
from bounded.sweeps.board import CellProgress, SweepBoard


@dataclass(frozen=True)
class Pace:
    decisions_left: int | None
    """None where a cell's games have no limit known and none has completed."""
    per_second: float
    """Decisions per second of the games in flight together (0: none playing)."""
    upper_bound: bool = False
    """Whether `decisions_left` counts a cell's default ceiling for want of a plan's limit
    or a completed game: then it is only a bound."""

    @property
    def seconds_left(self) -> float | None:
        if self.decisions_left is None or self.per_second <= 0:
            return None
        return self.decisions_left / self.per_second

    def as_json(self) -> dict[str, Any]:
        left = self.seconds_left
        return {
            "decisions_left": self.decisions_left,
            "decisions_per_s": round(self.per_second, 3),
            "seconds_left": None if left is None else round(left, 1),
            "upper_bound": self.upper_bound,
            "text": pace_text(self),
        }


def expected_decisions(cell: CellProgress) -> float | None:
    """Decisions a game of the cell is expected to take: its completed games' mean (at
    most the limit), else the limit."""
    if cell.completed:
        mean = cell.decisions_done / cell.completed
        return min(mean, cell.limit) if cell.limit else mean
    return float(cell.limit) if cell.limit else None


def counts_the_ceiling(cell: CellProgress) -> bool:
    """Whether the cell's games are expected to take its default ceiling: the plan set no
    `max_decisions` and none of its games has completed."""
    return not cell.completed and cell.limit == DEFAULT_MAX_DECISIONS


def cell_decisions_left(cell: CellProgress) -> float | None:
    expected = expected_decisions(cell)
    if expected is None:
        return None
    waiting = max(0, (cell.total or 0) - cell.completed - cell.failed - cell.running)
    unseen = [0] * max(0, cell.running - len(cell.playing_decisions))  # not yet read back
    playing = sum(max(0.0, expected - played) for played in [*cell.playing_decisions, *unseen])
    return waiting * expected + playing


def board_pace(board: SweepBoard) -> Pace:
    lefts = [cell_decisions_left(cell) for cell in board.cells.values()]
    known = None if None in lefts else round(sum(left or 0.0 for left in lefts))
    rate = sum(cell.playing_per_s for cell in board.cells.values())
    bound = any(
        counts_the_ceiling(cell) and (left or 0) > 0
        for cell, left in zip(board.cells.values(), lefts, strict=True)
    )
    return Pace(decisions_left=known, per_second=rate, upper_bound=bound)


def duration_text(seconds: float) -> str:
    """`2 h 05 min`, `4 min 10 s`, `12 s`."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {secs:02d} s"
    return f"{secs} s"


def pace_text(pace: Pace) -> str:
    """`about 4 min 10 s left (1,200 decisions at 4.8/s)`, or why there is no estimate."""
    if pace.decisions_left == 0:
        return "no decisions left"
    left = pace.seconds_left
    if left is None:
        return "time left: measuring" if pace.per_second <= 0 else "time left: unknown"
    if pace.upper_bound:
        return (
            f"time left: unknown until a game ends (no max_decisions in the plan; at most "
            f"{duration_text(left)})"
        )
    return (
        f"about {duration_text(left)} left ({pace.decisions_left:,} decisions at "
        f"{pace.per_second:.3g}/s)"
    )


__all__ = [
    "Pace",
    "board_pace",
    "cell_decisions_left",
    "counts_the_ceiling",
    "expected_decisions",
    "pace_text",
]
