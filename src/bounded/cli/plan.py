"""`bounded plan`: before paying, the games per cell a paired comparison of two cells
needs to detect a difference, what those games cost, and the smallest difference the
games a file plans can detect (`bounded.analysis.plan`). `bounded sweep --dry-run
--compare A B` prints the same plan under its estimate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bounded.cli._options import ArchiveOption, given_archive
from bounded.cli._output import plain
from bounded.core import ConfigError
from bounded.registry import did_you_mean

if TYPE_CHECKING:
    from bounded.analysis.games import CompletedGame
    from bounded.analysis.plan import PlanAsked, PowerPlan
    from bounded.sweeps.experiment import Experiment

CompareOption = Annotated[
    tuple[str, str],
    typer.Option(help="The two cells compared, A then B (the difference is A - B)."),
]
EffectOption = Annotated[
    float | None,
    typer.Option(
        help="The difference A - B to detect: of win rates (0.2 = 20 points) or of mean "
        "scores (default: the difference the archive shows)."
    ),
]
PowerOption = Annotated[float, typer.Option(help="The chance of detecting it.")]
LevelOption = Annotated[float, typer.Option(help="The test's level (two-sided alpha).")]
MetricOption = Annotated[str, typer.Option(help="wins or score.")]


def plan(
    source: Annotated[
        Path, typer.Argument(help="Experiment file (TOML), or an archive of earlier games.")
    ],
    compare: CompareOption,
    archive: Annotated[
        Path | None,
        typer.Argument(
            metavar="ARCHIVE",
            help="With an experiment file: the archive of earlier games "
            "(default: the file's experiment.archive).",
            show_default=False,
        ),
    ] = None,
    effect: EffectOption = None,
    power: PowerOption = 0.8,
    level: LevelOption = 0.05,
    metric: MetricOption = "wins",
    rate: Annotated[
        float | None, typer.Option(help="B's win rate to assume (default: the archive's).")
    ] = None,
    correlation: Annotated[
        float | None,
        typer.Option(help="The correlation of A's and B's wins over seeds to assume."),
    ] = None,
    sd: Annotated[
        float | None, typer.Option(help="The standard deviation of paired score differences.")
    ] = None,
    archive_option: ArchiveOption = None,
    price: Annotated[
        list[str] | None,
        typer.Option(help="A model's prices MODEL=INPUT,CACHED,OUTPUT per million (repeat)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Games per cell for a paired comparison to detect a difference at a power and level,
    with their cost; the smallest difference the planned games detect."""
    from bounded.analysis.plan import PlanAsked

    archive = given_archive(archive, archive_option)
    asked = PlanAsked(
        a=compare[0], b=compare[1], metric=metric, effect=effect, power=power, alpha=level,
        rate=rate, correlation=correlation, sd=sd,
    )  # fmt: skip
    if source.suffix == ".toml":
        from bounded.sweeps.experiment import load_experiment

        experiment = load_experiment(source)
        found = print_experiment_plan(experiment, asked, archive, price or [], as_json=as_json)
    else:
        found = print_archive_plan(archive or source, asked, as_json=as_json)
    if as_json:
        print(found.model_dump_json(indent=2))


def archived_games(path: Path, experiment: str | None = None) -> list[CompletedGame]:
    """The completed games of an archive (of one experiment); none when there is none."""
    from bounded.analysis.games import completed_games
    from bounded.archive import Archive
    from bounded.sweeps.survey import has_runs_table

    if not has_runs_table(path):
        return []
    with Archive(path, read_only=True) as store:
        return completed_games(store.runs(experiment=experiment))


def print_archive_plan(path: Path, asked: PlanAsked, *, as_json: bool) -> PowerPlan:
    """A plan from an archive alone: its cells' games, no file, so no cost."""
    from bounded.analysis.plan import cell_games, plan_comparison
    from bounded.cli._options import existing_archive

    games = archived_games(existing_archive(path))
    games_a, games_b = cell_games(games, asked.a), cell_games(games, asked.b)
    for name, held in ((asked.a, games_a), (asked.b, games_b)):
        if not held:
            cells = ", ".join(sorted({g.cell for g in games}))
            raise ConfigError(f"no completed games of cell {name!r} in {path} (cells: {cells})")
    asked.planned = min(len(games_a), len(games_b))
    found = plan_comparison(asked, games_a, games_b)
    if not as_json:
        for line in plan_lines(found, f"the archive holds {len(games_a)} and {len(games_b)} games"):
            plain(line)
        plain("cost: not estimated (an archive alone names no experiment file to play)")
    return found


def print_experiment_plan(
    experiment: Experiment,
    asked: PlanAsked,
    archive: Path | None,
    prices: list[str],
    *,
    as_json: bool = False,
) -> PowerPlan:
    """A plan for two cells of an experiment file, from its archive's earlier games."""
    from bounded.analysis.plan import plan_comparison

    path = Path(archive or experiment.archive)
    specs = experiment.stages(path).cells
    names = list(dict.fromkeys(spec.cell for spec in specs))
    seeds = {}
    for name in (asked.a, asked.b):
        if name not in names:
            raise ConfigError(
                f"no cell {name!r} in {experiment.name}{did_you_mean(name, names)} "
                f"(cells: {', '.join(names)})"
            )
        seeds[name] = [spec.seed for spec in specs if spec.cell == name]
    asked.planned = len(set(seeds[asked.a]) & set(seeds[asked.b]))
    games = archived_games(path, experiment.name)
    held = {name: [g for g in games if g.cell == name] for name in (asked.a, asked.b)}
    found = plan_comparison(asked, held[asked.a], held[asked.b])
    if not as_json:
        for line in plan_lines(found, f"the file plans {asked.planned} common seeds"):
            plain(line)
        for line in cost_lines(experiment, path, found, held, prices):
            plain(line)
    return found


def plan_lines(found: PowerPlan, planned: str) -> list[str]:
    """The plan in words: what it assumes, the games per cell, the detectable difference."""
    asked = found.asked
    test = "exact McNemar test" if asked.metric == "wins" else "paired t-test"
    lines = [
        f"plan: {asked.a} vs {asked.b} on {asked.metric}, paired on common seeds ({test}), "
        f"level {asked.alpha:g}, power {100 * asked.power:g}%"
    ]
    lines += [f"  uses {line}" for line in found.assumptions]
    unit = _unit(asked.metric)
    if asked.metric == "wins":
        lines.append(
            f"games per cell: {found.games_per_cell} (Connor's formula for {unit(found.effect)}); "
            f"the exact McNemar test's power at {found.games_per_cell} pairs: "
            f"{100 * found.predicted_power:.1f}%"
            + (
                f"; it reaches {100 * asked.power:g}% at {found.exact_games_per_cell} pairs"
                if found.exact_games_per_cell is not None
                and found.exact_games_per_cell != found.games_per_cell
                else ""
            )
        )
    else:
        lines.append(
            f"games per cell: {found.games_per_cell} (paired t-test, statsmodels TTestPower, for "
            f"{unit(found.effect)}); power at that n: {100 * found.predicted_power:.1f}%"
        )
    if asked.planned:
        smallest = "none" if found.detectable is None else unit(found.detectable)
        lines.append(
            f"{planned}: the smallest difference {asked.planned} pairs detect with "
            f"{100 * asked.power:g}% power: {smallest}"
        )
    return lines


def _unit(metric: str) -> Callable[[float], str]:
    if metric == "wins":
        return lambda value: f"{100 * value:+.1f} points of win rate"
    return lambda value: f"{value:+.2f} points of mean score"


def cost_lines(
    experiment: Experiment,
    path: Path,
    found: PowerPlan,
    held: dict[str, list[CompletedGame]],
    prices: list[str],
) -> list[str]:
    """What the games still to play to reach the plan's games per cell would cost, from
    the sweep's estimate (`bounded.sweeps.estimate`)."""
    from bounded.archive import Archive
    from bounded.cli._output import usage_text
    from bounded.sweeps.estimate import SweepPrices, add_usage, estimate_cells
    from bounded.sweeps.survey import cell_name, has_runs_table

    costs = SweepPrices.of(experiment.spec.prices, prices)
    plan = experiment.stages(path)
    firsts = [next(s for s in plan.cells if s.cell == name) for name in held]
    archived = []
    if has_runs_table(path):
        with Archive(path, read_only=True) as store:
            archived = store.runs(experiment=experiment.name)
    n = found.games_per_cell
    lines: list[str] = []
    total: dict[str, dict[str, float]] = {}
    games = 0
    for entry in estimate_cells(firsts, archived, lambda cell: cell_name(plan, cell)):
        to_play = max(n - len(held[entry.cell]), 0)
        if entry.error is not None:
            lines.append(f"cost {entry.name}: {to_play} games to play, no estimate: {entry.error}")
            continue
        usage: dict[str, dict[str, float]] = {}
        add_usage(usage, entry.per_game, to_play)
        add_usage(total, usage)
        games += to_play
        done = f", {len(held[entry.cell])} in the archive" if held[entry.cell] else ""
        lines.append(
            f"cost {entry.name}, to play: {usage_text(to_play, usage, costs)}{done} "
            f"(from the {entry.source}; an estimate)"
        )
    lines.append(f"cost, total to reach {n} games per cell: {usage_text(games, total, costs)}")
    return lines


COMMANDS: dict[str, Callable[..., None]] = {"plan": plan}
"""Command name -> its function, registered by `bounded.cli`."""
