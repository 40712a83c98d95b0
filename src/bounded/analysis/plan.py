"""A comparison's plan: the seeds per block a paired comparison of A and B needs for an
effect, powered for the test `bounded analyze --compare` runs on blocks x seeds
(`bounded.analysis.power`), from what the archive already holds of the two treatments
where it holds something (their rates per block, the correlation of their pairs within
blocks, the spread of paired differences within blocks; each said to be used) and from
stated assumptions where it does not; and the other way round, the smallest difference
the seeds a file plans can detect."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from pydantic import BaseModel, Field

from bounded.analysis.games import CompletedGame
from bounded.analysis.paired import Pairs, pair_games
from bounded.analysis.power import (
    ALPHA,
    POWER,
    detectable_score_difference,
    detectable_win_difference,
    feasible,
    joint,
    mcnemar_power,
    mcnemar_seeds,
    stratified_t_power,
    stratified_t_seeds,
)
from bounded.core import ConfigError
from bounded.registry import did_you_mean

METRICS = ("wins", "score", "progress")

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
    """B's win rate to assume in every block (overrides the archive's)."""
    correlation: float | None = None
    """The pairs' correlation within a block to assume (overrides the archive's)."""
    sd: float | None = None
    """The standard deviation of paired differences within a block to assume."""
    planned: int | None = None
    """Seeds per block the experiment file plans (for the smallest detectable difference)."""

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
    """(block, seed) both completed in the archive."""
    blocks: list[str] = Field(default_factory=lambda: [""])
    """The blocks the comparison is made in (planned, else observed)."""
    assumptions: list[str] = Field(default_factory=list)
    """One line per figure used: its value and where it comes from."""
    effect: float = 0.0
    seeds_per_block: int = 0
    """Seeds per block at which the test reaches the power."""
    games_per_cell: int = 0
    """`seeds_per_block` x blocks: the games each treatment plays."""
    predicted_power: float = 0.0
    """The power of the test at `seeds_per_block` (wins: simulated through the test)."""
    detectable: float | None = None
    """The smallest difference `asked.planned` seeds per block detect at the power."""


class Held(BaseModel):
    """What the archive holds of the two treatments: their games, the pairs, the blocks."""

    games_a: list[CompletedGame] = Field(default_factory=list)
    games_b: list[CompletedGame] = Field(default_factory=list)
    blocks: dict[str, str] = Field(default_factory=dict)
    """run id -> block."""

    def pairs(self) -> Pairs:
        return pair_games("A", self.games_a, "B", self.games_b, self.blocks)[0]

    def block_of(self, game: CompletedGame) -> str:
        return self.blocks.get(game.run_id, "")


def within_block_correlation(pairs: Pairs) -> tuple[float | None, int]:
    """The phi correlation of A's and B's wins within blocks (blocks' values weighted by
    their pairs, where defined), and the pairs it rests on."""
    values, weights = [], []
    for block in dict.fromkeys(key[0] for key in pairs):
        x = np.array([a.victory for k, (a, _) in pairs.items() if k[0] == block], dtype=float)
        y = np.array([b.victory for k, (_, b) in pairs.items() if k[0] == block], dtype=float)
        if x.size >= 2 and x.std() > 0 and y.std() > 0:
            values.append(float(np.corrcoef(x, y)[0, 1]))
            weights.append(x.size)
    if not values:
        return None, 0
    return float(np.average(values, weights=weights)), int(sum(weights))


def within_block_spread(pairs: Pairs, metric: str) -> float | None:
    """The pooled within-block standard deviation of paired differences (N - K degrees of
    freedom), where every paired game has the value and there are some."""
    blocks: dict[str, list[float]] = {}
    for (block, _), (a, b) in pairs.items():
        value_a, value_b = getattr(a, metric), getattr(b, metric)
        if value_a is None or value_b is None:
            return None
        blocks.setdefault(block, []).append(float(value_a) - float(value_b))
    df = sum(len(v) for v in blocks.values()) - len(blocks)
    if df < 1:
        return None
    within = sum(float(np.sum((np.array(v) - np.mean(v)) ** 2)) for v in blocks.values())
    return math.sqrt(within / df) or None


def plan_comparison(
    asked: PlanAsked,
    games_a: Sequence[CompletedGame],
    games_b: Sequence[CompletedGame],
    blocks: Mapping[str, str] | None = None,
    planned_blocks: Sequence[str] = (),
) -> PowerPlan:
    """The plan for `asked` given the archive's games of the two treatments (`blocks`: run
    id -> block) and the blocks the file plans (default: those the games show)."""
    asked.check()
    held = Held(games_a=list(games_a), games_b=list(games_b), blocks=dict(blocks or {}))
    seen = sorted({held.block_of(g) for g in [*held.games_a, *held.games_b]})
    names = list(planned_blocks) or seen or [""]
    found = PowerPlan(asked=asked, games_a=len(games_a), games_b=len(games_b), blocks=names)
    if asked.metric == "wins":
        _plan_wins(found, held)
    else:
        _plan_means(found, held)
    found.games_per_cell = found.seeds_per_block * len(names)
    return found


def _plan_wins(found: PowerPlan, held: Held) -> None:
    asked, say = found.asked, found.assumptions.append
    pairs = held.pairs()
    found.pairs = len(pairs)
    if asked.effect is None and (not held.games_a or not held.games_b):
        raise ConfigError(f"no games of {asked.a!r} and {asked.b!r} in the archive: give --effect")
    if asked.effect is not None:
        effect = asked.effect
        say(f"effect {effect:+.3f}: as given (--effect)")
        rates_b = _rates_b(found, held, effect, say)
        rates_a = [rate + effect for rate in rates_b]
        for block, rate in zip(found.blocks, rates_b, strict=True):
            if not 0 <= rate + effect <= 1:
                where = f" in block {block}" if block else ""
                raise ConfigError(
                    f"B's rate {rate:.3f}{where} plus the effect {effect:+.3f} leaves [0, 1]: "
                    "give a smaller --effect or --rate"
                )
    else:
        rates_b = _rates_b(found, held, 0.0, say)
        rates_a = _observed_rates(found, held, held.games_a, "A", say)
        effect = float(np.mean(np.array(rates_a) - np.array(rates_b)))
        say(f"effect {effect:+.3f}: the observed difference of the archive's win rates"
            + (", averaged over the blocks" if len(found.blocks) > 1 else ""))  # fmt: skip
    if effect == 0:
        raise ConfigError("a difference of 0 cannot be detected: give --effect")
    rho = _correlation(asked, pairs, say)
    cells = [joint(a, b, feasible(rho, a, b)) for a, b in zip(rates_a, rates_b, strict=True)]
    found.effect = effect
    found.seeds_per_block = mcnemar_seeds(cells, asked.alpha, asked.power)
    found.predicted_power = mcnemar_power(found.seeds_per_block, cells, asked.alpha)
    if asked.planned:
        found.detectable = detectable_win_difference(
            asked.planned, rates_b, rho, asked.alpha, asked.power
        )


def _rate(games: Sequence[CompletedGame]) -> float | None:
    return float(np.mean([g.victory for g in games])) if games else None


def _rates_b(found: PowerPlan, held: Held, effect: float, say: Say) -> list[float]:
    """B's win rate in each block: as given, else observed (`_observed_rates`), else
    centred on 1/2 (the most pairs)."""
    asked = found.asked
    if asked.rate is not None:
        say(f"B's win rate {asked.rate:.3f} in every block: as given (--rate)")
        return [asked.rate] * len(found.blocks)
    if not held.games_b:
        base = 0.5 - effect / 2
        say(
            f"B's win rate {base:.3f}: assumed (no games of B; rates centred on 1/2, the most "
            "pairs)"
        )
        return [base] * len(found.blocks)
    return _observed_rates(found, held, held.games_b, "B", say)


def _observed_rates(
    found: PowerPlan, held: Held, games: Sequence[CompletedGame], side: str, say: Say
) -> list[float]:
    """A side's win rate observed in each block, else its overall rate there."""
    overall = _rate(games)
    assert overall is not None
    rates = []
    for block in found.blocks:
        mine = [g for g in games if held.block_of(g) == block]
        rate = _rate(mine)
        where = f" in block {block}" if block and len(found.blocks) > 1 else ""
        if rate is None:
            say(f"{side}'s win rate {overall:.3f}{where}: its overall rate (no games there)")
            rates.append(overall)
        else:
            say(f"{side}'s win rate {rate:.3f}{where}: observed in the archive ({len(mine)} games)")
            rates.append(rate)
    return rates


def _correlation(asked: PlanAsked, pairs: Pairs, say: Say) -> float:
    if asked.correlation is not None:
        say(f"pair correlation {asked.correlation:+.3f}: as given (--correlation)")
        return asked.correlation
    rho, used = within_block_correlation(pairs)
    if rho is not None:
        say(f"pair correlation {rho:+.3f}: observed within blocks on the archive's {used} pairs")
        return rho
    if len(pairs) >= 2:
        why = f"the archive's {len(pairs)} pairs leave it undefined: a cell won all or none"
    else:
        why = f"{'no' if not pairs else 'one'} common seeds in the archive to estimate it from"
    say(f"pair correlation 0: assumed ({why})")
    return 0.0


def _plan_means(found: PowerPlan, held: Held) -> None:
    asked, say, metric = found.asked, found.assumptions.append, found.asked.metric
    pairs = held.pairs()
    found.pairs = len(pairs)
    values_a = [getattr(g, metric) for g in held.games_a if getattr(g, metric) is not None]
    values_b = [getattr(g, metric) for g in held.games_b if getattr(g, metric) is not None]
    effect = asked.effect
    if effect is None:
        if not values_a or not values_b:
            raise ConfigError(
                f"no {metric} of {asked.a!r} and {asked.b!r} in the archive: give --effect"
            )
        effect = float(np.mean(values_a) - np.mean(values_b))
        say(f"effect {effect:+.2f}: the observed difference of the archive's mean {metric}")
    else:
        say(f"effect {effect:+.2f}: as given (--effect)")
    sd = asked.sd
    if sd is not None:
        say(f"sd of paired differences within a block {sd:.2f}: as given (--sd)")
    else:
        sd = within_block_spread(pairs, metric)
        source = f"within blocks on the archive's {len(pairs)} pairs"
        if sd is None and len(values_a) >= 2 and len(values_b) >= 2:
            sd = math.sqrt(np.var(values_a, ddof=1) + np.var(values_b, ddof=1)) or None
            source = "from the cells' spreads, no correlation assumed"
        if sd is None:
            raise ConfigError(f"no {metric} to estimate the spread from: give --sd")
        say(f"sd of paired differences within a block {sd:.2f}: observed ({source})")
    blocks = len(found.blocks)
    found.effect = effect
    found.seeds_per_block = stratified_t_seeds(effect, sd, blocks, asked.alpha, asked.power)
    found.predicted_power = stratified_t_power(
        found.seeds_per_block, blocks, effect, sd, asked.alpha
    )
    if asked.planned:
        found.detectable = detectable_score_difference(
            asked.planned, sd, blocks, asked.alpha, asked.power
        )


def treatment_games(
    games: Sequence[CompletedGame], name: str, treatments: Mapping[str, str] | None = None
) -> list[CompletedGame]:
    """A treatment's games: those of the cell `name`, else of the treatment `name`
    (`treatments`: run id -> treatment), else of the tag `name`."""
    exact = [g for g in games if g.cell == name]
    if exact:
        return exact
    if treatments:
        mine = [g for g in games if treatments.get(g.run_id) == name]
        if mine:
            return mine
    return [g for g in games if g.tag == name]


__all__ = [
    "METRICS",
    "PlanAsked",
    "PowerPlan",
    "plan_comparison",
    "treatment_games",
    "within_block_correlation",
    "within_block_spread",
]
