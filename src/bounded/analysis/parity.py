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
  (`MemoryHooks.memory_settings`). A setting a cell does not have (a format a model-free cell
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

from pydantic import BaseModel, Field

from bounded.analysis.design import MixedSetting, design_of_plan, design_of_runs
from bounded.analysis.parity_games import (
    RATE,
    RATE_TOLERANCE,
    UNRECORDED,
    ParityDifference,
    Played,
    acting_rate,
    differences,
    effective_rate,
    mean_of,
    met_blocks,
    options_beside,
    options_of,
    outcome_rate,
    seed_text,
    settings_of,
)
from bounded.analysis.settings import settings_of_run, settings_of_spec
from bounded.core import JSON, RunRecord

COLUMNS = ("seeds", "model", "reply", "temperature", "max_tokens", "max_decisions",
           "reasoning", "fallback")  # fmt: skip
"""The settings the parity table shows as columns (every setting is compared)."""
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


PLAYED_FIELDS = set(Played.model_fields)
"""Every field of a played game: the fields-set `played_runs`'s games share."""

Entry = tuple[str, Mapping[str, str], Sequence[RunRecord]]
"""(cell label, group values, the cell's completed runs)."""


def played_runs(entries: Iterable[Entry]) -> tuple[list[Played], list[MixedSetting]]:
    """Each archived game as the report reads it, and the settings its design finds mixed."""
    listed = []
    for label, group, runs in entries:
        shared = dict(group)  # one per cell, read by its games
        listed += [(label, shared, run) for run in runs]
    design = design_of_runs(run for _, _, run in listed)
    settings: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}  # a cell's, shared
    games = [  # built without a copy of each game's dicts and fields-set (see game_from_run)
        Played.model_construct(
            PLAYED_FIELDS,
            label=label, group=group, design=game, contract=run.contract,
            settings=_shared(settings, settings_of_run(run)),
            options=options_beside(run.spec.get("env_options") or {}, game.block),
            acting_rate=acting_rate(run.outcome), effective_action_rate=effective_rate(run.outcome),
            fallback_rate=outcome_rate(run.outcome, "fallback_rate"), decisions=run.decisions,
            model_calls=run.model_calls, prompt_tokens=run.prompt_tokens,
            completion_tokens=run.completion_tokens,
        )
        for (label, group, run), game in zip(listed, design.games, strict=True)
    ]  # fmt: skip
    return games, design.mixed


def _shared(
    seen: dict[tuple[tuple[str, str], ...], dict[str, str]], found: dict[str, str]
) -> dict[str, str]:
    """`found`, or the equal dict met before (read-only: the games of a cell share it)."""
    return seen.setdefault(tuple(found.items()), found)


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
            options=options_beside(spec.get("env_options") or {}, game.block),
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
        effective_action_rate=mean_of(game.effective_action_rate for game in games),
        acting_rate=mean_of(game.acting_rate for game in games),
        fallback_rate=mean_of(game.fallback_rate for game in games),
        model_calls_per_decision=_per(sum(g.model_calls for g in games), decisions),
        prompt_tokens_per_decision=_per(sum(g.prompt_tokens for g in games), decisions),
        completion_tokens_per_decision=_per(sum(g.completion_tokens for g in games), decisions),
        settings=settings_of(games),
        env_options=options_of(games),
    )


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
