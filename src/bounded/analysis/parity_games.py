"""The games the parity report (`bounded.analysis.parity`) compares, and how cells of one
group differ within each block of the design: every setting, the environment options
beside the block's, and the acting rate per environment (the report's docstring gives the
rules)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from bounded.analysis.design import ENV, Block, GameDesign, block_label, value_order
from bounded.analysis.settings import SPEC_SETTINGS, missing_value, text

RATE_TOLERANCE = 0.10
"""Acting rates differing by more than this share of the larger one differ."""
UNRECORDED = "-"
"""A setting a cell's games do not have: it differs from no value."""
RATE = "acting rate"


class ParityDifference(BaseModel):
    """A setting (or the acting rate) on which cells of one group differ."""

    setting: str
    values: dict[str, str]
    """Cell label -> its value."""
    group: dict[str, str] = Field(default_factory=dict)

    def line(self) -> str:
        where = " ".join(f"[{key}={value}]" for key, value in self.group.items())
        values = "; ".join(f"{label} {value}" for label, value in self.values.items())
        return f"{self.setting} differs{' ' + where if where else ''}: {values}"


# -- what is read of each game ------------------------------------------------------------


class Played(BaseModel):
    """One game as the report reads it (archived or planned)."""

    label: str
    group: dict[str, str]
    design: GameDesign
    contract: str
    settings: dict[str, str]
    options: dict[str, str]
    """Environment options beside the block's."""
    acting_rate: float | None = None
    effective_action_rate: float | None = None
    fallback_rate: float | None = None
    decisions: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


def joined(values: Iterable[Any]) -> str:
    """Distinct values (None: a game without the setting, left out), numbers in order,
    joined by `/` (`-` for none)."""
    known = {v if isinstance(v, str) else text(v) for v in values if v is not None}
    texts = sorted(known, key=value_order)
    return "/".join(texts) if texts else UNRECORDED


def seed_text(seeds: Iterable[int]) -> str:
    """`0-3 (4)`, `1, 5 (2)`: a cell's seeds, compactly."""
    ordered = sorted(set(seeds))
    if not ordered:
        return "-"
    if ordered == list(range(ordered[0], ordered[-1] + 1)) and len(ordered) > 2:
        return f"{ordered[0]}-{ordered[-1]} ({len(ordered)})"
    return f"{', '.join(map(str, ordered))} ({len(ordered)})"


def outcome_rate(outcome: Mapping[str, Any], *keys: str) -> float | None:
    """The first of `keys` the outcome holds as a number, or None."""
    for key in keys:
        value = outcome.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    return None


def effective_rate(outcome: Mapping[str, Any]) -> float | None:
    """A run's effective actions per decision (craft runs of an older bounded recorded it
    as `game_actions_per_step`), or None."""
    return outcome_rate(outcome, "effective_action_rate", "game_actions_per_step")


def acting_rate(outcome: Mapping[str, Any]) -> float | None:
    """A run's share of decisions that acted; a run of an older bounded, which recorded
    only its effective actions per decision, stands for it with that rate, at most 1
    (exact where a decision carries one action)."""
    found = outcome_rate(outcome, "acting_rate")
    if found is not None:
        return found
    effective = effective_rate(outcome)
    return None if effective is None else min(effective, 1.0)


def options_beside(options: Mapping[str, Any], block: Block) -> dict[str, str]:
    own = {key for key, _ in block}
    return {key: text(value) for key, value in options.items() if key not in own}


def met_blocks(games: Sequence[Played]) -> list[str]:
    """The blocks where two cells of one group meet, labelled."""
    labels: dict[tuple[Any, ...], set[str]] = {}
    for game in games:
        labels.setdefault((tuple(game.group.items()), game.design.block), set()).add(game.label)
    return sorted({block_label(block) for (_, block), held in labels.items() if len(held) > 1})


def mean_of(values: Iterable[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return sum(known) / len(known) if known else None


def settings_of(games: Sequence[Played]) -> dict[str, str]:
    """Each setting's values over some games (`SPEC_SETTINGS` first, then the
    configuration's keys), and their seeds."""
    keys = {key for game in games for key in game.settings}
    ordered = [key for key in SPEC_SETTINGS if key in keys] + sorted(keys - set(SPEC_SETTINGS))
    found = {key: joined(g.settings.get(key, missing_value(key)) for g in games) for key in ordered}
    return {"seeds": seed_text(game.design.unit for game in games), **found}


def options_of(games: Sequence[Played]) -> dict[str, str]:
    """Each environment option's values over some games (`(default)` where a game of an
    environment that has the option leaves it unset)."""
    keys: dict[str, set[str]] = {}
    for game in games:
        for key in game.options:
            keys.setdefault(key, set()).add(game.design.env)
    return {
        key: joined(g.options.get(key, "(default)") for g in games if g.design.env in envs)
        for key, envs in sorted(keys.items())
    }


# -- the differences ----------------------------------------------------------------------


Found = dict[tuple[str, tuple[tuple[str, str], ...]], list[str]]
"""(setting, values by label) -> the blocks where the cells differ so."""


def differences(games: Sequence[Played], rate: str = RATE) -> list[ParityDifference]:
    """Every difference between cells of one group within one block, settings first, then
    environment options, then the acting rate (named `rate`)."""
    groups: dict[tuple[tuple[str, str], ...], list[Played]] = {}
    for game in games:
        groups.setdefault(tuple(game.group.items()), []).append(game)
    found: list[ParityDifference] = []
    for key, members in groups.items():
        found += group_differences(members, dict(key), rate)
    return found


def by_label(games: Iterable[Played]) -> dict[str, list[Played]]:
    cells: dict[str, list[Played]] = {}
    for game in games:
        cells.setdefault(game.label, []).append(game)
    return cells


def group_differences(
    games: Sequence[Played], group: dict[str, str], rate: str
) -> list[ParityDifference]:
    """The differences between the cells of one group, block by block; one found alike in
    every block where cells meet is named once, else with its blocks."""
    blocks: dict[Block, list[Played]] = {}
    for game in games:
        blocks.setdefault(game.design.block, []).append(game)
    met = {block: by_label(held) for block, held in blocks.items()}
    met = {block: cells for block, cells in met.items() if len(cells) > 1}
    settings: Found = {}
    options: Found = {}
    for block, cells in sorted(met.items()):
        for found, compared in ((settings, settings_of), (options, options_of)):
            for setting, values in block_differences(cells, compared).items():
                found.setdefault((setting, tuple(values.items())), []).append(block_label(block))
    listed = [
        *_named(settings, group, len(met)),
        *_named(options, group, len(met), prefix="environment option "),
    ]
    return listed + _rate_difference(met, group, rate)


def block_differences(
    cells: Mapping[str, Sequence[Played]], read: Any
) -> dict[str, dict[str, str]]:
    """The settings (or options) on which the cells of one block differ: setting -> label
    -> value; a value one cell does not have differs from none (options: `(default)`)."""
    values = {label: read(held) for label, held in cells.items()}
    keys = list(dict.fromkeys(key for found in values.values() for key in found))
    found = {}
    for key in keys:
        missing = "(default)" if read is options_of else missing_value(key) or UNRECORDED
        row = {label: held.get(key, missing) for label, held in values.items()}
        recorded = {value for value in row.values() if value != UNRECORDED}
        if len(recorded) > 1:
            found[key] = row
    return found


def _named(
    found: Found, group: dict[str, str], blocks: int, prefix: str = ""
) -> list[ParityDifference]:
    return [
        ParityDifference(
            setting=prefix + setting,
            values=dict(values),
            group=group if len(where) == blocks else {**group, "block": "; ".join(where)},
        )
        for (setting, values), where in found.items()
    ]


def _rate_difference(
    met: Mapping[Block, Mapping[str, Sequence[Played]]], group: dict[str, str], setting: str
) -> list[ParityDifference]:
    """The acting rates of the cells, per environment: each cell's mean over the blocks of
    the environment where it meets another cell (the same tasks on both sides, each task
    weighing the same), where they differ by more than `RATE_TOLERANCE` of the larger one.
    Compared per environment, not per block: the cadence is the environment's and the
    contract's, and a block holds too few games to compare a rate on."""
    envs: dict[str, list[dict[str, float]]] = {}
    for block, cells in sorted(met.items()):
        rates = {label: mean_of(game.acting_rate for game in held) for label, held in cells.items()}
        known = {label: rate for label, rate in rates.items() if rate is not None}
        envs.setdefault(dict(block)[ENV], []).append(known)
    found = []
    for env, per_block in envs.items():
        means = _means(per_block)
        if len(means) > 1 and _apart(means.values()):
            where = {"environment": env} if len(envs) > 1 else {}
            values = {label: f"{rate:.2f}" for label, rate in means.items()}
            found.append(ParityDifference(setting=setting, values=values, group={**group, **where}))
    return found


def _apart(rates: Iterable[float]) -> bool:
    listed = list(rates)
    high, low = max(listed), min(listed)
    return high > 0 and (high - low) / high > RATE_TOLERANCE


def _means(per_block: Iterable[Mapping[str, float]]) -> dict[str, float]:
    found: dict[str, list[float]] = {}
    for rates in per_block:
        for label, rate in rates.items():
            found.setdefault(label, []).append(rate)
    return {label: sum(rates) / len(rates) for label, rates in found.items()}


__all__ = [
    "RATE",
    "RATE_TOLERANCE",
    "UNRECORDED",
    "ParityDifference",
    "Played",
    "acting_rate",
    "differences",
    "effective_rate",
    "joined",
    "mean_of",
    "met_blocks",
    "options_beside",
    "options_of",
    "outcome_rate",
    "seed_text",
    "settings_of",
]
