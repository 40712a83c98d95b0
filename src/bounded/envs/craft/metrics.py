"""EpicStar's Appendix A metrics (after TextStarCraft II): PBR, RUR, APU and TR.

The game is sampled once per simulation tick (`Tally.record`). PBR, RUR and APU are
computed over the paper's window, "until the agent first reaches the maximum supply"
(200 used; the whole game when it never does); TR counts "technologies and
structures" completed from start to finish, over all that exist.

| key | definition | unit |
|---|---|---|
| `pbr` | time at the population cap (used >= cap) / window duration | fraction |
| `rur` | minerals + gas spent in the window / window duration | resources per game second |
| `apu` | mean of used / cap over the window's ticks | fraction |
| `tr` | (researches done + structure kinds built) / (researches + structure kinds) | fraction |

The earlier, whole-game forms stay in the metrics under their own names: `rur_game`
(spent over the whole game / game duration), `apu_game` (mean over every tick) and
`tr_research` (researches done / all researches).
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_SUPPLY = 200.0
"""The supply at which the paper's window closes."""


@dataclass
class Tally:
    """Running sums behind the episode metrics, one `record` per simulation tick."""

    ticks: int = 0
    utilization: float = 0.0
    blocked: float = 0.0
    """Seconds at the population cap inside the window."""
    until_max: float = 0.0
    """Seconds before the supply first reached `MAX_SUPPLY` (the window's duration)."""
    maxed_at: float = -1.0
    """Game time at which the supply first reached `MAX_SUPPLY` (-1: never)."""
    window_ticks: int = 0
    window_utilization: float = 0.0
    window_spent: float = 0.0
    """Resources spent by the end of the window (cumulative)."""
    built: set[str] = field(default_factory=set)
    """Structure kinds completed at some point of the game."""
    peak_supply: float = 0.0
    peak_army: float = 0.0
    peak_workers: int = 0
    peak_bases: int = 0

    def record(self, *, time: float, dt: float, used: float, cap: float, spent: float) -> None:
        """One tick: `used` and `cap` supply, `spent` the resources spent so far."""
        ratio = used / cap if cap else 0.0
        self.ticks += 1
        self.utilization += ratio
        if self.maxed_at >= 0:
            return
        self.window_spent = spent
        if used >= MAX_SUPPLY:
            self.maxed_at = time
            return
        self.until_max += dt
        self.window_ticks += 1
        self.window_utilization += ratio
        if used >= cap:
            self.blocked += dt


def episode_metrics(
    tally: Tally,
    *,
    duration: float,
    spent: float,
    researched: int,
    research_total: int,
    structure_total: int,
) -> dict[str, float]:
    """The four metrics over the paper's windows, and the whole-game forms beside them."""
    window = tally.until_max if tally.until_max > 0 else max(duration, 1e-9)
    done = researched + len(tally.built)
    return {
        "pbr": tally.blocked / window,
        "rur": tally.window_spent / window,
        "apu": tally.window_utilization / tally.window_ticks if tally.window_ticks else 0.0,
        "tr": done / (research_total + structure_total),
        "rur_game": spent / max(duration, 1e-9),
        "apu_game": tally.utilization / tally.ticks if tally.ticks else 0.0,
        "tr_research": researched / research_total,
    }


__all__ = ["MAX_SUPPLY", "Tally", "episode_metrics"]
