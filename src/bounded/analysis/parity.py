"""The parity report: what, beside the memory under test, differs between compared cells.

Two cells compare memories only when everything else is the same. The report reads the
experiment's design (`bounded.analysis.design`): cells are compared *within a block* (the
task: the environment and the options that define the game, a matrix point), so the
block's own settings are never a difference, and every other setting that differs
between cells playing one block is:

- every setting of the spec and of the contract's configuration
  (`bounded.analysis.settings`): the model, the endpoint, the reply mode and the format
  sent, the text rule and grammar, the temperature, the token limit, `max_decisions`, the
  reasoning budget, the fallback policy, the budgets of a contract's own calls, the code
  that played the game; except the keys the contract declares as its memory under test
  (`Contract.memory_settings`). A setting a cell does not have (a format a model-free cell
  never sends, a key of another contract's configuration) differs from no value;
- the seeds (the units), and the environment options that are not the block's;
- the acting rate (`bounded.runner.tally`): the share of decisions on which the agent's
  own action did something (neither the environment's empty action nor an action the
  harness chose because the reply was unusable). It is a measurement, not a setting: a
  Chain-of-Summarization queue that runs dry plays the empty action until its next call,
  an agent whose replies are unusable plays fallbacks, and both act less often at the
  same cadence. It counts decisions that act, not actions per decision, so where there is
  no cadence to match two policies that plan different lengths (spire's expert and the
  same expert slipping) are not flagged for it. It is compared per environment, each
  cell's rate the mean over the blocks of that environment where it meets another cell
  (the same tasks on both sides; one block holds too few games to compare a rate on);
  rates differing by more than `RATE_TOLERANCE` of the larger one differ. The fallback
  rate stands beside it.

Where a treatment mixes settings that are neither treatment nor block (two reply modes
under one tag), the report says so (`Design.mixed`). Settings identical in every block are
named once; a difference found in some blocks only names them.

`parity_of_runs` reads archived runs; `parity_of_plan` reads a sweep's planned games (what
`bounded sweep --dry-run` checks before anything is played), its rates, where given, the
contracts' bounds (`Contract.action_rate_bound`): the report then says that the played
rates can be lower than their bound.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from bounded.analysis.design import (
    ENV,
    Block,
    GameDesign,
    MixedSetting,
    block_label,
    design_of_plan,
    design_of_runs,
    value_order,
)
from bounded.analysis.settings import (
    SPEC_SETTINGS,
    missing_value,
    settings_of_run,
    settings_of_spec,
    text,
)
from bounded.core import JSON, RunRecord

RATE_TOLERANCE = 0.10
"""Acting rates differing by more than this share of the larger one differ."""

COLUMNS = ("seeds", "model", "reply", "temperature", "max_tokens", "max_decisions",
           "reasoning", "fallback")  # fmt: skip
"""The settings the parity table shows as columns (every setting is compared)."""

UNRECORDED = "-"
"""A setting a cell's games do not have: it differs from no value."""

RATE = "acting rate"
BOUND = "acting rate bound"


class CellParity(BaseModel):
    """One cell's side of the comparison."""

    label: str
    group: dict[str, str] = Field(default_factory=dict)
    """The values of the fields that split the table (cells are compared within a group)."""
    games: int
    contracts: list[str] = Field(default_factory=list)
    blocks: list[str] = Field(default_factory=list)
    """The blocks (tasks) the cell plays, labelled (`babyai level=goto`)."""
    effective_action_rate: float | None = None
    """Mean effective actions per decision over the cell's games (None: not recorded)."""
    acting_rate: float | None = None
    """Mean share of decisions whose own action did something (the compared rate), or its
    bound for a planned cell."""
    fallback_rate: float | None = None
    """Mean share of decisions whose actions the harness chose (the reply was unusable)."""
    model_calls_per_decision: float | None = None
    prompt_tokens_per_decision: float | None = None
    completion_tokens_per_decision: float | None = None
    settings: dict[str, str] = Field(default_factory=dict)
    """Setting -> its value(s) in the cell (several values joined by `/`)."""
    env_options: dict[str, str] = Field(default_factory=dict)
    """Environment option (the blocks' own aside) -> its value(s) in the cell."""


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


class ParityReport(BaseModel):
    """Every cell's parity data and the differences beyond the memory under test."""

    cells: list[CellParity] = Field(default_factory=list)
    differences: list[ParityDifference] = Field(default_factory=list)
    mixed: list[MixedSetting] = Field(default_factory=list)
    """Settings a treatment mixes (neither treatment nor block)."""
    blocks: list[str] = Field(default_factory=list)
    """The blocks of the design where two cells of a group meet (are compared), labelled."""
    bounded: bool = False
    """Whether the rates are bounds (a dry run), not measurements."""

    @property
    def compared(self) -> bool:
        """Whether two cells of a group meet in a block (else nothing was compared)."""
        return bool(self.blocks)

    @property
    def matched(self) -> bool:
        return not self.differences and not self.mixed

    def lines(self) -> list[str]:
        """What a table prints under itself: one line per difference and per mixed
        setting, or one that says the cells differ in their memory alone."""
        mixed = [f"parity: {entry.line()}" for entry in self.mixed]
        if not self.compared:
            return mixed
        if self.matched:
            return [self.matched_line()]
        return [f"parity: {difference.line()}" for difference in self.differences] + mixed

    def matched_line(self) -> str:
        rate = (
            f"{BOUND}s within {RATE_TOLERANCE:.0%}, a bound: the played rates can be lower"
            if self.bounded
            else f"{RATE}s within {RATE_TOLERANCE:.0%}"
        )
        within = f" within each of {len(self.blocks)} blocks" if len(self.blocks) > 1 else ""
        return (
            f"parity: the cells differ in their memory contract alone ({rate}; the same "
            f"settings, seeds and environment options{within})"
        )


PARITY_HEADERS = (
    "cell", "games", "blocks", "acting rate", "fallback rate", "effective actions/decision",
    "model calls/decision", "prompt tokens/decision", "completion tokens/decision", *COLUMNS,
)  # fmt: skip
"""The columns of a parity table."""


def parity_rows(report: ParityReport) -> list[list[str]]:
    """One row of text per cell, in `PARITY_HEADERS` order."""

    def number(value: float | None, digits: int) -> str:
        return "-" if value is None else f"{value:,.{digits}f}"

    rows = []
    for cell in report.cells:
        label = " / ".join([cell.label, *cell.group.values()])
        blocks = cell.blocks[0] if len(cell.blocks) == 1 else f"{len(cell.blocks)} blocks"
        rows.append(
            [
                label, str(cell.games), blocks, number(cell.acting_rate, 2),
                number(cell.fallback_rate, 2), number(cell.effective_action_rate, 2),
                number(cell.model_calls_per_decision, 3),
                number(cell.prompt_tokens_per_decision, 0),
                number(cell.completion_tokens_per_decision, 0),
                *(cell.settings.get(setting, UNRECORDED) for setting in COLUMNS),
            ]
        )  # fmt: skip
    return rows


def render_parity_markdown(report: ParityReport) -> str:
    """The parity table in Markdown, then its lines (what the docs publish under a table)."""
    lines = [
        "| " + " | ".join(PARITY_HEADERS) + " |",
        "|" + "---|" * len(PARITY_HEADERS),
        *("| " + " | ".join(row) + " |" for row in parity_rows(report)),
        "",
        *(f"- {line}" for line in report.lines()),
    ]
    return "\n".join(lines)


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


def _options(options: Mapping[str, Any], block: Block) -> dict[str, str]:
    own = {key for key, _ in block}
    return {key: text(value) for key, value in options.items() if key not in own}


Entry = tuple[str, Mapping[str, str], Sequence[RunRecord]]
"""(cell label, group values, the cell's completed runs)."""


def played_runs(entries: Iterable[Entry]) -> tuple[list[Played], list[MixedSetting]]:
    """Each archived game as the report reads it, and the settings its design finds mixed."""
    listed = [(label, dict(group), run) for label, group, runs in entries for run in runs]
    design = design_of_runs(run for _, _, run in listed)
    games = [
        Played(
            label=label, group=group, design=game, contract=run.contract,
            settings=settings_of_run(run),
            options=_options(run.spec.get("env_options") or {}, game.block),
            acting_rate=acting_rate(run.outcome), effective_action_rate=effective_rate(run.outcome),
            fallback_rate=outcome_rate(run.outcome, "fallback_rate"), decisions=run.decisions,
            model_calls=run.model_calls, prompt_tokens=run.prompt_tokens,
            completion_tokens=run.completion_tokens,
        )
        for (label, group, run), game in zip(listed, design.games, strict=True)
    ]  # fmt: skip
    return games, design.mixed


def parity_of_runs(entries: Iterable[Entry]) -> ParityReport:
    """The report over archived cells: (label, group, runs) each (see the module
    docstring)."""
    games, mixed = played_runs(entries)
    return report_of(games, mixed, rate=RATE)


Rates = Mapping[str | tuple[str, str], float | None]
"""A planned cell's acting rate (or its bound), by label or by (label, environment)."""


def parity_of_plan(
    cells: Iterable[tuple[str, Sequence[JSON]]],
    rates: Rates | None = None,
    *,
    bounded: bool = False,
) -> ParityReport:
    """The report over planned cells: (label, the specs of its games as played, as dicts of
    `GameSpec` fields, with the contract's whole configuration where the caller resolved
    it, and `fallback` and `asks_model` where it knows them); `rates`, per label (or per
    label and environment), an acting rate expected, or with `bounded` the most it can be
    (`Contract.action_rate_bound`)."""
    listed = [(label, spec) for label, specs in cells for spec in specs]
    design = design_of_plan(spec for _, spec in listed)
    given = rates or {}
    games = [
        Played(
            label=label, group={}, design=game, contract=str(spec.get("contract", "")),
            settings=settings_of_spec(spec),
            options=_options(spec.get("env_options") or {}, game.block),
            acting_rate=given.get((label, game.env), given.get(label)),
        )
        for (label, spec), game in zip(listed, design.games, strict=True)
    ]  # fmt: skip
    return report_of(games, design.mixed, rate=BOUND if bounded else RATE, bounded=bounded)


def report_of(
    games: Sequence[Played], mixed: list[MixedSetting], *, rate: str, bounded: bool = False
) -> ParityReport:
    cells: dict[tuple[str, tuple[tuple[str, str], ...]], list[Played]] = {}
    for game in games:
        cells.setdefault((game.label, tuple(game.group.items())), []).append(game)
    return ParityReport(
        cells=[cell_of(label, dict(group), held) for (label, group), held in cells.items()],
        differences=differences(games, rate),
        mixed=mixed,
        blocks=met_blocks(games),
        bounded=bounded,
    )


def met_blocks(games: Sequence[Played]) -> list[str]:
    """The blocks where two cells of one group meet, labelled."""
    labels: dict[tuple[Any, ...], set[str]] = {}
    for game in games:
        labels.setdefault((tuple(game.group.items()), game.design.block), set()).add(game.label)
    return sorted({block_label(block) for (_, block), held in labels.items() if len(held) > 1})


def _mean(values: Iterable[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return sum(known) / len(known) if known else None


def _per(total: float, decisions: int) -> float | None:
    return total / decisions if decisions else None


def cell_of(label: str, group: dict[str, str], games: Sequence[Played]) -> CellParity:
    """One cell's parity data over all its games (its blocks pooled)."""
    decisions = sum(game.decisions for game in games)
    return CellParity(
        label=label,
        group=group,
        games=len(games),
        contracts=sorted({game.contract for game in games}),
        blocks=sorted({game.design.block_label for game in games}),
        effective_action_rate=_mean(game.effective_action_rate for game in games),
        acting_rate=_mean(game.acting_rate for game in games),
        fallback_rate=_mean(game.fallback_rate for game in games),
        model_calls_per_decision=_per(sum(g.model_calls for g in games), decisions),
        prompt_tokens_per_decision=_per(sum(g.prompt_tokens for g in games), decisions),
        completion_tokens_per_decision=_per(sum(g.completion_tokens for g in games), decisions),
        settings=settings_of(games),
        env_options=options_of(games),
    )


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
        rates = {label: _mean(game.acting_rate for game in held) for label, held in cells.items()}
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
    "PARITY_HEADERS",
    "RATE_TOLERANCE",
    "CellParity",
    "ParityDifference",
    "ParityReport",
    "acting_rate",
    "effective_rate",
    "parity_of_plan",
    "parity_of_runs",
    "parity_rows",
    "render_parity_markdown",
    "seed_text",
]
