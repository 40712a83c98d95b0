"""EpicStar's gating clock (Algorithms 1 and 2): when to explore, when the queue may pop.

Algorithm 2 starts with l_e = l_q = 0 and t = 0. Algorithm 1 explores when
t >= l_e + d_e (then l_e <- t), and pops the exploration queue when the retrieved action
is EmptyAction, the queue is not empty and t >= l_q + d_q (then l_q <- t). So the first
exploration is at t = d_e, and the first pop at the first t >= d_q.

t counts decisions here (one per game step), the unit of `explore_every` (d_e) and
`queue_cooldown` (d_q). `start = "immediate"` is this toolkit's first schedule: the
first exploration at t = 0 and the first pop without a cooldown (l_e and l_q unset).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

GatingStart = Literal["paper", "immediate"]


@dataclass
class GatingClock:
    """l_e and l_q of Algorithm 1, and the two tests that read them."""

    explore_every: int
    """d_e: exploration cool-down, in decisions."""
    queue_cooldown: int
    """d_q: queue-pop cool-down, in decisions."""
    start: GatingStart = "paper"
    last_explore: int | None = 0
    """l_e (None: never explored, under the `immediate` start)."""
    last_pop: int | None = 0
    """l_q (None: never popped, under the `immediate` start)."""

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Algorithm 2, line 2: l_e <- 0, l_q <- 0 (unset under `immediate`)."""
        initial = 0 if self.start == "paper" else None
        self.last_explore = self.last_pop = initial

    def explore_due(self, t: int) -> bool:
        """Algorithm 1, line 3: t >= d_e + l_e."""
        return self.last_explore is None or t >= self.last_explore + self.explore_every

    def explored(self, t: int) -> None:
        """Algorithm 1, line 4: l_e <- t."""
        self.last_explore = t

    def pop_due(self, t: int) -> bool:
        """Algorithm 1, line 9 (its cool-down part): t >= l_q + d_q."""
        return self.last_pop is None or t >= self.last_pop + self.queue_cooldown

    def popped(self, t: int) -> None:
        """Algorithm 1, line 10: l_q <- t."""
        self.last_pop = t


__all__ = ["GatingClock", "GatingStart"]
