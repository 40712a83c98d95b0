"""A paper's table, laid out as BALROG's: tasks (the design's blocks) as rows, treatments
(the memory under test) as columns, per task the metric's mean with its 95% interval, per
environment its average and an overall average, each with BALROG's standard error; a
named baseline and the paired differences of every other treatment against it, each with
its test's p-value, Holm-adjusted over the table; per entry the rates of fallbacks, parse
errors and invalid actions of its games' decisions.

Rows and columns come from the experiment's design (`bounded.analysis.design`): `block`
(the task: environment plus the matrix point and options that define the game, e.g.
`babyai level=goto`) and `treatment` (the run's tag, else its contract). `--rows` also
takes a block option (`level`: one row per environment and level, the blocks' other
options pooled in it) or a run field (`env`, `env_id`, `cell`, `tag`, `contract`, `model`,
`experiment`); `--cols` a run field.

Metrics, per completed game: `progression` (the environment's progress, in percent:
BALROG's measure), `wins` (100 for a victory, else 0: the entry is the win rate, its
interval Wilson's), `score` (`bounded.analysis.games.derived_score`) and `tokens` (prompt
tokens as bounded counted them; the reported ones where none were counted). A task's
interval is the seeded percentile bootstrap of the mean (Wilson's for wins). An average
row follows BALROG (`bounded.analysis.balrog`): an environment's mean over its games with
the standard error sqrt(sum (x - mean)^2 / n) / sqrt(n); the overall average is the mean
of the environments' means, its error sqrt(sum se^2) / n_envs.

A paired difference A - B pairs A's and B's games on (block, seed)
(`bounded.analysis.stratified`): wins by McNemar's test with Edwards' continuity
correction and Tango's score interval, which inverts it, pooled over the row's blocks
(the stratified test); the other metrics by the stratified paired t, each block's
differences about their own mean, its interval the test's inversion. An environment's
and the overall average row pool every pair of their blocks the same way (each pair
weighted equally). Games without a partner are counted, never silently dropped. Settings
a treatment mixes that are neither treatment nor block (two reply modes under one tag)
are named under the table (`Design.mixed`), never pooled silently.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal, NamedTuple, get_args

from pydantic import BaseModel, Field

from bounded.analysis.balrog import balrog_tasks, mean_and_error
from bounded.analysis.design import ENV, GameDesign, design_of_runs
from bounded.analysis.fallbacks import Tallies, rate
from bounded.analysis.games import derived_score
from bounded.analysis.stats import BOOTSTRAP_SEED, bootstrap_mean_interval, wilson_interval
from bounded.analysis.stratified import (
    DiscordantCounts,
    mcnemar_p,
    stratified_t,
    tango_interval,
)
from bounded.core import ConfigError, RunRecord, victory_of
from bounded.registry import did_you_mean

Metric = Literal["progression", "wins", "score", "tokens"]
METRICS: tuple[str, ...] = get_args(Metric)
FIELDS: tuple[str, ...] = (
    "block", "treatment", "env", "env_id", "cell", "tag", "contract", "model", "experiment",
)  # fmt: skip
Format = Literal["latex", "markdown", "csv"]
FORMATS: tuple[str, ...] = get_args(Format)

UNITS = {"progression": "%", "wins": "% won", "score": "points", "tokens": "prompt tokens"}
AVERAGE = "average"


class Entry(BaseModel):
    """One task (row) and treatment (column): its games' mean and 95% interval."""

    row: str
    col: str
    games: int
    mean: float
    low: float
    high: float
    standard_error: float = 0.0
    """BALROG's standard error of the mean (population deviation over sqrt(n))."""
    fallback_rate: float | None = None
    """Fallbacks per recorded decision of its games (`bounded.analysis.fallbacks`)."""
    parse_error_rate: float | None = None
    invalid_action_rate: float | None = None
    fallback_wins: int = 0
    """Its games won on fallbacks."""


class Average(BaseModel):
    """An average row's entry: an environment's (`row` = the environment) or the overall
    one (`row` = `average`), BALROG's mean and standard error."""

    row: str
    col: str
    games: int
    mean: float
    standard_error: float


class Difference(BaseModel):
    """Column `a` minus column `b` in one row, over the games paired on (block, seed)."""

    row: str
    a: str
    b: str
    pairs: int
    blocks: int = 0
    """The blocks holding a pair."""
    mean: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    """McNemar's test (wins) or the stratified paired t (the rest); None without pairs."""
    p_holm: float | None = None
    """`p_value` adjusted by Holm's method over every difference of the table."""
    unpaired: int = 0
    """Games of either column whose (block, seed) has no game in the other."""


class PaperTable(BaseModel):
    metric: str
    rows_by: str
    cols_by: str
    baseline: str | None = None
    rows: list[str] = Field(default_factory=list)
    cols: list[str] = Field(default_factory=list)
    row_envs: dict[str, str] = Field(default_factory=dict)
    """Row -> its environment (rows of several environments: none)."""
    entries: list[Entry] = Field(default_factory=list)
    averages: list[Average] = Field(default_factory=list)
    """Per environment with several rows, then overall where there are several
    environments (BALROG's average)."""
    differences: list[Difference] = Field(default_factory=list)
    holm_tests: int = 0
    skipped: int = 0
    """Completed games without a value of the metric (left out, counted here)."""
    mixed: list[str] = Field(default_factory=list)
    """Settings a treatment mixes that are neither treatment nor block (`Design.mixed`)."""

    def entry(self, row: str, col: str) -> Entry | None:
        return next((e for e in self.entries if (e.row, e.col) == (row, col)), None)

    def average(self, row: str, col: str) -> Average | None:
        return next((a for a in self.averages if (a.row, a.col) == (row, col)), None)

    @property
    def average_rows(self) -> list[str]:
        return list(dict.fromkeys(a.row for a in self.averages))


class Game(NamedTuple):
    """One completed game with a value of the metric, placed in the table."""

    run: RunRecord
    design: GameDesign
    value: float
    row: str
    col: str
    env: str
    block: str


def env_name(run: RunRecord) -> str:
    """BALROG's name of the environment where it has one, else our id's short name."""
    found = balrog_tasks(run.env_id)
    if found is not None:
        return found.env
    return run.env_id.removeprefix("bounded/").removesuffix("-v0").lower()


def block_name(run: RunRecord, game: GameDesign) -> str:
    """The block as a row names it: the environment's short name, then its options."""
    options = " ".join(f"{key}={value}" for key, value in game.block if key != ENV)
    return f"{env_name(run)} {options}".strip()


def field_value(run: RunRecord, game: GameDesign, field: str) -> str:
    if field == "block":
        return block_name(run, game)
    if field == "treatment":
        return game.treatment
    if field == "env":
        return env_name(run)
    if field in FIELDS:
        return str(getattr(run, field))
    value = dict(game.block).get(field)
    return f"{env_name(run)} {field}={value}" if value is not None else env_name(run)


def progression(run: RunRecord) -> float | None:
    value = run.outcome.get("progress", run.outcome.get("progression"))
    return 100.0 * float(value) if isinstance(value, int | float) else None


def counted_tokens(run: RunRecord) -> float:
    counted = sum(int(u.get("counted_prompt_tokens", 0) or 0) for u in run.usage.values())
    return float(counted or run.prompt_tokens)


METRIC_VALUES = {
    "progression": progression,
    "wins": lambda run: 100.0 if victory_of(run.outcome) else 0.0,
    "score": lambda run: derived_score(run.outcome),
    "tokens": counted_tokens,
}


def check_choice(name: str, value: str, known: Sequence[str]) -> None:
    if value not in known:
        raise ConfigError(
            f"{name} must be one of {', '.join(known)}, got {value!r}{did_you_mean(value, known)}"
        )


def check_rows(rows: str, options: Sequence[str]) -> None:
    if rows not in FIELDS and rows not in options:
        known = [*FIELDS, *options]
        hint = f" or a block option ({', '.join(options)})" if options else ""
        raise ConfigError(
            f"--rows must be one of {', '.join(FIELDS)}{hint}, got {rows!r}"
            f"{did_you_mean(rows, known)}"
        )


def placed_games(
    runs: Sequence[RunRecord], rows: str, cols: str, metric: str
) -> tuple[list[Game], int, list[str]]:
    """The completed games with a value, each with its row and column; the count left
    out for want of a value; the settings the design finds mixed."""
    completed = [run for run in runs if run.status == "completed"]
    design = design_of_runs(completed)
    check_rows(rows, design.block_options)
    placed, skipped = [], 0
    for run, game in zip(completed, design.games, strict=True):
        value = METRIC_VALUES[metric](run)
        if value is None:
            skipped += 1
            continue
        row, col = field_value(run, game, rows), field_value(run, game, cols)
        placed.append(Game(run, game, value, row, col, env_name(run), block_name(run, game)))
    return placed, skipped, [entry.line() for entry in design.mixed]


def entry_of(
    row: str, col: str, games: Sequence[Game], metric: str, seed: int, tallies: Tallies
) -> Entry:
    values = [g.value for g in games]
    if metric == "wins":
        low, high = wilson_interval(sum(v > 0 for v in values), len(values))
        low, high = 100 * low, 100 * high
    else:
        low, high = bootstrap_mean_interval(values, seed=seed)
    mean, error = mean_and_error(values)
    found = [tallies[g.run.run_id] for g in games if g.run.run_id in tallies]
    decisions = sum(t.decisions for t in found)
    return Entry(
        row=row, col=col, games=len(values), mean=mean, low=low, high=high,
        standard_error=error, fallback_rate=rate(sum(t.fallbacks for t in found), decisions),
        parse_error_rate=rate(sum(t.parse_errors for t in found), decisions),
        invalid_action_rate=rate(sum(t.invalid_actions for t in found), decisions),
        fallback_wins=sum(
            1 for g in games
            if victory_of(g.run.outcome) and g.run.run_id in tallies
            and tallies[g.run.run_id].fallbacks > 0
        ),
    )  # fmt: skip


def averages_of(table: PaperTable, games: Sequence[Game]) -> list[Average]:
    """Each environment's average where it has several rows, then the overall average
    where there are several environments (BALROG's rule, module docstring)."""
    envs = list(dict.fromkeys(table.row_envs[row] for row in table.rows if row in table.row_envs))
    found: list[Average] = []
    for col in table.cols:
        per_env = []
        for env in envs:
            values = [g.value for g in games if g.env == env and g.col == col]
            if values:
                mean, error = mean_and_error(values)
                per_env.append(Average(row=env, col=col, games=len(values), mean=mean,
                                       standard_error=error))  # fmt: skip
        rows_of = {env: [r for r in table.rows if table.row_envs.get(r) == env] for env in envs}
        found += [a for a in per_env if len(rows_of[a.row]) > 1]
        if len(per_env) > 1:
            means = [a.mean for a in per_env]
            error = sum(a.standard_error**2 for a in per_env) ** 0.5 / len(per_env)
            found.append(Average(row=AVERAGE, col=col, games=sum(a.games for a in per_env),
                                 mean=sum(means) / len(means), standard_error=error))  # fmt: skip
    order = [*envs, AVERAGE]
    return sorted(found, key=lambda a: (order.index(a.row), table.cols.index(a.col)))


def keyed(label: str, games: Iterable[Game]) -> dict[tuple[str, int], float]:
    """A column's games in a row by (block, seed): one game each, else an error."""
    found: dict[tuple[str, int], float] = {}
    for game in games:
        key = (game.block, game.run.seed)
        if key in found:
            raise ConfigError(
                f"{label} holds seed {key[1]} of {key[0]} more than once; a paired difference "
                "needs one game per block and seed (choose --cols that split them)"
            )
        found[key] = game.value
    return found


def difference(row: str, a: str, b: str, games: Sequence[Game], metric: str) -> Difference:
    """A - B in one row (or an average row's games), paired on (block, seed)."""
    first = keyed(f"{row} / {a}", (g for g in games if g.col == a))
    second = keyed(f"{row} / {b}", (g for g in games if g.col == b))
    common = sorted(set(first) & set(second))
    found = Difference(
        row=row, a=a, b=b, pairs=len(common), blocks=len({block for block, _ in common}),
        unpaired=len(set(first) ^ set(second)),
    )  # fmt: skip
    if not common:
        return found
    if metric == "wins":
        counts = DiscordantCounts.of([(first[k] > 0, second[k] > 0) for k in common])
        low, high = tango_interval(counts.only_a, counts.only_b, counts.pairs)
        found.mean = 100 * (counts.only_a - counts.only_b) / counts.pairs
        found.low, found.high = 100 * low, 100 * high
        found.p_value = mcnemar_p(counts.only_a, counts.only_b)
        return found
    blocks: dict[str, list[float]] = {}
    for key in common:
        blocks.setdefault(key[0], []).append(first[key] - second[key])
    tested = stratified_t(list(blocks.values()))
    found.mean = tested.estimate
    if tested.df >= 1:
        found.low, found.high, found.p_value = tested.low, tested.high, tested.p_value
    return found


def comparisons(
    paired: Sequence[tuple[str, str]], baseline: str | None, cols: Sequence[str]
) -> list[tuple[str, str]]:
    """The pairs (A, B) asked for: `paired`, then every other column against `baseline`."""
    for name in [*(n for pair in paired for n in pair), *([baseline] if baseline else [])]:
        if name not in cols:
            raise ConfigError(
                f"no column {name!r}{did_you_mean(name, cols)} (columns: {', '.join(cols)})"
            )
    against = [(col, baseline) for col in cols if baseline and col != baseline]
    return list(dict.fromkeys([*paired, *against]))


def add_differences(
    table: PaperTable, games: Sequence[Game], pairs: Sequence[tuple[str, str]]
) -> None:
    """Every pair's difference per row and per average row, Holm-adjusted together."""
    from statsmodels.stats.multitest import multipletests

    for a, b in pairs:
        for row in table.rows:
            mine = [g for g in games if g.row == row]
            table.differences.append(difference(row, a, b, mine, table.metric))
        for row in table.average_rows:
            mine = [g for g in games if row in (AVERAGE, g.env)]
            table.differences.append(difference(row, a, b, mine, table.metric))
    tested = [d for d in table.differences if d.p_value is not None]
    if tested:
        adjusted = multipletests([d.p_value for d in tested], method="holm")[1]
        for found, p in zip(tested, adjusted, strict=True):
            found.p_holm = float(p)
    table.holm_tests = len(tested)


def paper_table(
    runs: Iterable[RunRecord],
    *,
    rows: str = "block",
    cols: str = "treatment",
    metric: str = "progression",
    paired: Sequence[tuple[str, str]] = (),
    baseline: str | None = None,
    seed: int = BOOTSTRAP_SEED,
    tallies: Tallies | None = None,
) -> PaperTable:
    """The table over the completed runs (see the module's docstring)."""
    check_choice("--cols", cols, FIELDS)
    check_choice("--metric", metric, METRICS)
    games, skipped, mixed = placed_games(list(runs), rows, cols, metric)
    table = PaperTable(
        metric=metric, rows_by=rows, cols_by=cols, baseline=baseline, skipped=skipped,
        mixed=mixed,
    )  # fmt: skip
    cells: dict[tuple[str, str], list[Game]] = {}
    for game in games:
        cells.setdefault((game.row, game.col), []).append(game)
    table.rows = sorted({row for row, _ in cells})
    table.cols = sorted({col for _, col in cells})
    for row in table.rows:
        envs = {g.env for g in games if g.row == row}
        if len(envs) == 1:
            table.row_envs[row] = envs.pop()
    for (row, col), held in sorted(cells.items()):
        table.entries.append(entry_of(row, col, held, metric, seed, tallies or {}))
    table.averages = averages_of(table, games)
    add_differences(table, games, comparisons(paired, baseline, table.cols))
    return table


__all__ = [
    "AVERAGE",
    "FIELDS",
    "FORMATS",
    "METRICS",
    "Average",
    "Difference",
    "Entry",
    "PaperTable",
    "env_name",
    "paper_table",
]
