"""A comparison's plan: the games per cell a paired comparison of A and B needs for an
effect (`bounded.analysis.power`), from what the archive already holds of the two cells
where it holds something (their observed rates and the correlation of their pairs, said
to be used) and from stated assumptions where it does not; and the other way round, the
smallest difference the games a file plans can detect."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from pydantic import BaseModel, Field

from bounded.analysis.games import CompletedGame
from bounded.analysis.paired import pair_games
from bounded.analysis.power import (
    ALPHA,
    POWER,
    Joint,
    connor_games,
    detectable_score_difference,
    detectable_win_difference,
    exact_mcnemar_power,
    joint,
    paired_t_games,
    paired_t_power,
)
from bounded.core import ConfigError
from bounded.registry import did_you_mean

METRICS = ("wins", "score")

Say = Callable[[str], None]


class PlanAsked(BaseModel):
    """What a plan is asked for (the command line's options)."""

    a: str
    b: str
    metric: str = "wins"
    effect: float | None = None
    """The difference A - B to detect (win rate, or mean score); None: the observed one."""
    power: float = POWER
    alpha: float = ALPHA
    rate: float | None = None
    """B's win rate to assume (overrides the archive's)."""
    correlation: float | None = None
    """The pairs' correlation to assume (overrides the archive's)."""
    sd: float | None = None
    """The standard deviation of paired score differences to assume."""
    planned: int | None = None
    """Pairs the experiment file plans (for the smallest detectable difference)."""

    def check(self) -> None:
        if self.metric not in METRICS:
            raise ConfigError(
                f"--metric must be one of {', '.join(METRICS)}, got {self.metric!r}"
                f"{did_you_mean(self.metric, METRICS)}"
            )
        if not 0 < self.alpha < 1 or not 0 < self.power < 1:
            raise ConfigError("--level and --power must lie strictly between 0 and 1")
        if self.correlation is not None and not -1 <= self.correlation <= 1:
            raise ConfigError(f"--correlation must lie in [-1, 1], got {self.correlation:g}")


class PowerPlan(BaseModel):
    """A plan's figures and the assumptions behind them, each with its source."""

    asked: PlanAsked
    games_a: int = 0
    """Completed games of A in the archive."""
    games_b: int = 0
    pairs: int = 0
    """Seeds both completed in the archive."""
    assumptions: list[str] = Field(default_factory=list)
    """One line per figure used: its value and where it comes from."""
    effect: float = 0.0
    games_per_cell: int = 0
    """Connor's formula (wins) or the paired t-test (scores)."""
    predicted_power: float = 0.0
    """The power at `games_per_cell`: the exact McNemar test's (wins), the t-test's."""
    exact_games_per_cell: int | None = None
    """Wins: the fewest pairs at which the exact McNemar test reaches the power."""
    detectable: float | None = None
    """The smallest difference `asked.planned` pairs detect at the power."""


def observed_rates(
    games_a: Sequence[CompletedGame], games_b: Sequence[CompletedGame]
) -> tuple[float | None, float | None, float | None, int]:
    """A's and B's win rates, the phi correlation of their wins on common seeds (None
    where undefined) and the number of pairs."""
    rate_a = float(np.mean([g.victory for g in games_a])) if games_a else None
    rate_b = float(np.mean([g.victory for g in games_b])) if games_b else None
    pairs, _, _ = pair_games("A", games_a, "B", games_b)
    rho = None
    if len(pairs) >= 2:
        x = np.array([a.victory for a, _ in pairs], dtype=float)
        y = np.array([b.victory for _, b in pairs], dtype=float)
        if x.std() > 0 and y.std() > 0:
            rho = float(np.corrcoef(x, y)[0, 1])
    return rate_a, rate_b, rho, len(pairs)


def score_spread(
    games_a: Sequence[CompletedGame], games_b: Sequence[CompletedGame]
) -> float | None:
    """The standard deviation of paired score differences on common seeds (at least two
    pairs), else sqrt(var A + var B) (no correlation), else None."""
    pairs, _, _ = pair_games("A", games_a, "B", games_b)
    if len(pairs) >= 2 and all(a.score is not None and b.score is not None for a, b in pairs):
        diffs = [float(a.score or 0) - float(b.score or 0) for a, b in pairs]
        return float(np.std(diffs, ddof=1)) or None
    scores_a = [g.score for g in games_a if g.score is not None]
    scores_b = [g.score for g in games_b if g.score is not None]
    if len(scores_a) >= 2 and len(scores_b) >= 2:
        return float(math.sqrt(np.var(scores_a, ddof=1) + np.var(scores_b, ddof=1))) or None
    return None


def plan_comparison(
    asked: PlanAsked, games_a: Sequence[CompletedGame], games_b: Sequence[CompletedGame]
) -> PowerPlan:
    """The plan for `asked` given the archive's games of the two cells."""
    asked.check()
    found = PowerPlan(asked=asked, games_a=len(games_a), games_b=len(games_b))
    if asked.metric == "wins":
        _plan_wins(found, games_a, games_b)
    else:
        _plan_scores(found, games_a, games_b)
    return found


def _plan_wins(
    found: PowerPlan, games_a: Sequence[CompletedGame], games_b: Sequence[CompletedGame]
) -> None:
    asked, say = found.asked, found.assumptions.append
    rate_a, rate_b, rho, found.pairs = observed_rates(games_a, games_b)
    effect = asked.effect
    if effect is None:
        if rate_a is None or rate_b is None:
            raise ConfigError(
                f"no games of {asked.a!r} and {asked.b!r} in the archive: give --effect"
            )
        effect = rate_a - rate_b
        say(f"effect {effect:+.3f}: the observed difference of the archive's win rates")
    else:
        say(f"effect {effect:+.3f}: as given (--effect)")
    base = _base_rate(asked, rate_b, effect, len(games_b), say)
    other = base + effect
    if not 0 <= other <= 1:
        raise ConfigError(f"B's rate {base:.3f} plus the effect {effect:+.3f} leaves [0, 1]")
    rho_used = _correlation(asked, rho, found.pairs, say)
    cells = joint(other, base, rho_used)
    found.effect = effect
    found.games_per_cell = connor_games(cells, asked.alpha, asked.power)
    found.predicted_power = exact_mcnemar_power(found.games_per_cell, cells, asked.alpha)
    found.exact_games_per_cell = _exact_games(cells, found.games_per_cell, asked)
    if asked.planned:
        found.detectable = detectable_win_difference(
            asked.planned, base, rho_used, asked.alpha, asked.power
        )


def _base_rate(
    asked: PlanAsked, rate_b: float | None, effect: float, games: int, say: Say
) -> float:
    if asked.rate is not None:
        say(f"B's win rate {asked.rate:.3f}: as given (--rate)")
        return asked.rate
    if rate_b is not None:
        say(f"B's win rate {rate_b:.3f}: observed in the archive ({games} games)")
        return rate_b
    base = 0.5 - effect / 2
    say(f"B's win rate {base:.3f}: assumed (no games of B; rates centred on 1/2, the most pairs)")
    return base


def _correlation(asked: PlanAsked, rho: float | None, pairs: int, say: Say) -> float:
    if asked.correlation is not None:
        say(f"pair correlation {asked.correlation:+.3f}: as given (--correlation)")
        return asked.correlation
    if rho is not None:
        say(f"pair correlation {rho:+.3f}: observed on the archive's {pairs} common seeds")
        return rho
    if pairs >= 2:
        why = f"the archive's {pairs} common seeds leave it undefined: a cell won all or none"
    else:
        why = f"{'no' if not pairs else 'one'} common seeds in the archive to estimate it from"
    say(f"pair correlation 0: assumed ({why})")
    return 0.0


def _exact_games(cells: Joint, start: int, asked: PlanAsked) -> int | None:
    """The fewest pairs from `start` on at which the exact test reaches the power (the
    exact power is not monotone in n; the first n reaching it is given)."""
    for n in range(max(start, 1), 4 * start + 50):
        if exact_mcnemar_power(n, cells, asked.alpha) >= asked.power:
            return n
    return None


def _plan_scores(
    found: PowerPlan, games_a: Sequence[CompletedGame], games_b: Sequence[CompletedGame]
) -> None:
    asked, say = found.asked, found.assumptions.append
    _, _, _, found.pairs = observed_rates(games_a, games_b)
    effect = asked.effect
    if effect is None:
        scores_a = [g.score for g in games_a if g.score is not None]
        scores_b = [g.score for g in games_b if g.score is not None]
        if not scores_a or not scores_b:
            raise ConfigError(
                f"no scores of {asked.a!r} and {asked.b!r} in the archive: give --effect"
            )
        effect = float(np.mean(scores_a) - np.mean(scores_b))
        say(f"effect {effect:+.2f}: the observed difference of the archive's mean scores")
    else:
        say(f"effect {effect:+.2f}: as given (--effect)")
    sd = asked.sd
    if sd is not None:
        say(f"sd of paired differences {sd:.2f}: as given (--sd)")
    else:
        sd = score_spread(games_a, games_b)
        if sd is None:
            raise ConfigError("no scores to estimate the spread from: give --sd")
        source = "common seeds" if found.pairs >= 2 else "cells, no correlation assumed"
        say(f"sd of paired differences {sd:.2f}: observed in the archive ({source})")
    found.effect = effect
    found.games_per_cell = paired_t_games(effect, sd, asked.alpha, asked.power)
    found.predicted_power = paired_t_power(found.games_per_cell, effect, sd, asked.alpha)
    if asked.planned:
        found.detectable = detectable_score_difference(asked.planned, sd, asked.alpha, asked.power)


def cell_games(games: Sequence[CompletedGame], name: str) -> list[CompletedGame]:
    """A cell's games: those of the cell `name`, else those of the tag `name`."""
    exact = [g for g in games if g.cell == name]
    return exact or [g for g in games if g.tag == name]


__all__ = [
    "METRICS",
    "PlanAsked",
    "PowerPlan",
    "cell_games",
    "observed_rates",
    "plan_comparison",
    "score_spread",
]
