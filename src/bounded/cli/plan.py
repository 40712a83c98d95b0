"""`bounded plan`: before paying, the seeds per block a paired comparison of two
treatments (or cells) needs to detect a difference with the test `bounded analyze
--compare` runs, what those games cost, and the smallest difference the seeds a file plans
can detect (`bounded.analysis.plan`). `bounded sweep --dry-run --compare A B` prints the
same plan under its estimate."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NamedTuple

import typer

from bounded.cli._options import ArchiveOption, given_archive
from bounded.cli._output import plain
from bounded.core import ConfigError
from bounded.registry import did_you_mean

if TYPE_CHECKING:
    from bounded.analysis.games import CompletedGame
    from bounded.analysis.plan import PlanAsked, PowerPlan
    from bounded.runner.spec import GameSpec
    from bounded.sweeps.experiment import Experiment
    from bounded.sweeps.stages import Plan

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
MetricOption = Annotated[str, typer.Option(help="wins, score or progress.")]


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
        typer.Option(help="The correlation of A's and B's wins over seeds within a block."),
    ] = None,
    sd: Annotated[
        float | None,
        typer.Option(help="The standard deviation of paired differences within a block."),
    ] = None,
    archive_option: ArchiveOption = None,
    price: Annotated[
        list[str] | None,
        typer.Option(help="A model's prices MODEL=INPUT,CACHED,OUTPUT per million (repeat)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Seeds per block for a paired comparison to detect a difference at a power and level,
    with their cost; the smallest difference the planned seeds detect."""
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


class Archived(NamedTuple):
    """An archive's completed games with each run's block and treatment."""

    games: list[CompletedGame]
    blocks: dict[str, str]
    treatments: dict[str, str]


def archived_games(path: Path, experiment: str | None = None) -> Archived:
    """The completed games of an archive (of one experiment); none when there is none."""
    from bounded.analysis.design import design_of_runs
    from bounded.analysis.games import completed_games
    from bounded.archive import Archive
    from bounded.sweeps.survey import has_runs_table

    if not has_runs_table(path):
        return Archived([], {}, {})
    with Archive(path, read_only=True) as store:
        runs = store.runs(experiment=experiment)
    design = design_of_runs(runs)
    return Archived(
        completed_games(runs),
        {run.run_id: game.block_label for run, game in zip(runs, design.games, strict=True)},
        {run.run_id: game.treatment for run, game in zip(runs, design.games, strict=True)},
    )


def print_archive_plan(path: Path, asked: PlanAsked, *, as_json: bool) -> PowerPlan:
    """A plan from an archive alone: its treatments' games, no file, so no cost."""
    from bounded.analysis.plan import plan_comparison, treatment_games
    from bounded.cli._options import existing_archive

    held = archived_games(existing_archive(path))
    games_a = treatment_games(held.games, asked.a, held.treatments)
    games_b = treatment_games(held.games, asked.b, held.treatments)
    for name, mine in ((asked.a, games_a), (asked.b, games_b)):
        if not mine:
            cells = ", ".join(sorted({g.cell for g in held.games}))
            raise ConfigError(f"no completed games of cell {name!r} in {path} (cells: {cells})")
    blocks = sorted({held.blocks.get(g.run_id, "") for g in [*games_a, *games_b]})
    asked.planned = min(_per_block(games_a, held.blocks), _per_block(games_b, held.blocks))
    found = plan_comparison(asked, games_a, games_b, held.blocks, blocks)
    if not as_json:
        held_text = f"the archive holds {len(games_a)} and {len(games_b)} games"
        for line in plan_lines(found, held_text):
            plain(line)
        plain("cost: not estimated (an archive alone names no experiment file to play)")
    return found


def _per_block(games: list[CompletedGame], blocks: dict[str, str]) -> int:
    """The fewest games of one block."""
    counts: dict[str, int] = {}
    for game in games:
        block = blocks.get(game.run_id, "")
        counts[block] = counts.get(block, 0) + 1
    return min(counts.values()) if counts else 0


class Planned(NamedTuple):
    """A treatment's planned games: the specs and their (block, seed)."""

    specs: list[GameSpec]
    keys: set[tuple[str, int]]


def planned_games(experiment: Experiment, plan: Plan, names: tuple[str, str]) -> dict[str, Planned]:
    """Each named treatment's (or cell's) games in the file's `plan`; a name neither is
    refused."""
    from bounded.analysis.design import design_of_plan

    specs = plan.cells
    design = design_of_plan(spec.model_dump() for spec in specs)
    cells = list(dict.fromkeys(spec.cell for spec in specs))
    treatments = list(dict.fromkeys(game.treatment for game in design.games))
    found = {}
    for name in names:
        chosen = [
            (spec, game)
            for spec, game in zip(specs, design.games, strict=True)
            if spec.cell == name
        ] or [
            (spec, game)
            for spec, game in zip(specs, design.games, strict=True)
            if game.treatment == name
        ]
        if not chosen:
            known = [*treatments, *cells]
            raise ConfigError(
                f"no cell or treatment {name!r} in {experiment.name}{did_you_mean(name, known)} "
                f"(treatments: {', '.join(treatments)}; cells: {', '.join(cells)})"
            )
        found[name] = Planned(
            [spec for spec, _ in chosen], {(game.block_label, game.unit) for _, game in chosen}
        )
    return found


def print_experiment_plan(
    experiment: Experiment,
    asked: PlanAsked,
    archive: Path | None,
    prices: list[str],
    *,
    as_json: bool = False,
    plan: Plan | None = None,
) -> PowerPlan:
    """A plan for two treatments (or cells) of an experiment file, on the blocks they share,
    from its archive's earlier games; `plan`: the file's plan as the command built it
    (default: built here)."""
    from bounded.analysis.plan import plan_comparison, treatment_games

    path = Path(archive or experiment.archive)
    plan = plan if plan is not None else experiment.stages(path)
    planned = planned_games(experiment, plan, (asked.a, asked.b))
    common = planned[asked.a].keys & planned[asked.b].keys
    blocks = sorted({block for block, _ in common})
    per_block = [sum(1 for key in common if key[0] == block) for block in blocks]
    asked.planned = min(per_block) if per_block else 0
    held = archived_games(path, experiment.name)
    mine = {
        name: [
            g for g in treatment_games(held.games, name, held.treatments)
            if held.blocks.get(g.run_id, "") in blocks
        ]
        for name in (asked.a, asked.b)
    }  # fmt: skip
    found = plan_comparison(asked, mine[asked.a], mine[asked.b], held.blocks, blocks)
    if not as_json:
        text = f"the file plans {asked.planned} common seeds" + (
            f" in each of {len(blocks)} blocks" if len(blocks) > 1 else ""
        )
        for line in plan_lines(found, text):
            plain(line)
        for line in cost_lines(experiment, path, plan, found, planned, mine, prices):
            plain(line)
    return found


def plan_lines(found: PowerPlan, planned: str) -> list[str]:
    """The plan in words: what it assumes, the seeds per block, the detectable difference."""
    asked = found.asked
    blocks = len(found.blocks)
    over = ", stratified over the blocks" if blocks > 1 else ""
    test = (
        f"McNemar's test with Edwards' correction{over}"
        if asked.metric == "wins"
        else "the stratified paired t test"
        if blocks > 1
        else "the paired t test"
    )
    where = f"(block, seed) in {blocks} blocks" if blocks > 1 else "common seeds"
    lines = [
        f"plan: {asked.a} vs {asked.b} on {asked.metric}, paired on {where} ({test}, as "
        f"bounded analyze --compare runs it), level {asked.alpha:g}, power "
        f"{100 * asked.power:g}%"
    ]
    lines += [f"  uses {line}" for line in found.assumptions]
    unit = _unit(asked.metric)
    seeds = found.seeds_per_block
    per = f"{seeds} seeds in each of {blocks} blocks, " if blocks > 1 else ""
    how = (
        f"Connor's formula{' over the blocks' if blocks > 1 else ''}, continuity-corrected"
        if asked.metric == "wins"
        else "the noncentral t"
    )
    at = f"{seeds} seeds per block" if blocks > 1 else f"{seeds} pairs"
    power = (
        f"the test's power at {at}, simulated: " if asked.metric == "wins" else f"power at {at}: "
    )
    lines.append(
        f"games per cell: {found.games_per_cell} ({per}{how} for {unit(found.effect)}); "
        f"{power}{100 * found.predicted_power:.1f}%"
    )
    if asked.planned:
        smallest = "none" if found.detectable is None else unit(found.detectable)
        lines.append(
            f"{planned}: the smallest difference {asked.planned} pairs"
            + (" per block" if blocks > 1 else "")
            + f" detect with {100 * asked.power:g}% power: {smallest}"
        )
    return lines


def _unit(metric: str) -> Callable[[float], str]:
    if metric == "wins":
        return lambda value: f"{100 * value:+.1f} points of win rate"
    return lambda value: f"{value:+.2f} points of mean {metric}"


def cost_lines(
    experiment: Experiment,
    path: Path,
    plan: Plan,
    found: PowerPlan,
    planned: dict[str, Planned],
    held: dict[str, list[CompletedGame]],
    prices: list[str],
) -> list[str]:
    """What the games still to play to reach the plan's games per treatment would cost,
    from the sweep's estimate of each treatment's first cell (`bounded.sweeps.estimate`)."""
    from bounded.archive import Archive
    from bounded.cli._output import usage_text
    from bounded.sweeps.estimate import SweepPrices, add_usage, estimate_cells
    from bounded.sweeps.survey import cell_name, has_runs_table

    costs = SweepPrices.of(experiment.spec.prices, prices, experiment.spec.currency)
    archived = []
    if has_runs_table(path):
        with Archive(path, read_only=True) as store:
            archived = store.runs(experiment=experiment.name)
    n = found.games_per_cell
    lines: list[str] = []
    total: dict[str, dict[str, float]] = {}
    games = 0
    for name, mine in planned.items():
        entries = estimate_cells(mine.specs[:1], archived, lambda cell: cell_name(plan, cell))
        entry = entries[0]
        to_play = max(n - len(held[name]), 0)
        if entry.error is not None:
            lines.append(f"cost {name}: {to_play} games to play, no estimate: {entry.error}")
            continue
        usage: dict[str, dict[str, float]] = {}
        add_usage(usage, entry.per_game, to_play)
        add_usage(total, usage)
        games += to_play
        done = f", {len(held[name])} in the archive" if held[name] else ""
        lines.append(
            f"cost {name}, to play: {usage_text(to_play, usage, costs)}{done} "
            f"(from the {entry.source} of {entry.name}; an estimate)"
        )
    lines.append(f"cost, total to reach {n} games per cell: {usage_text(games, total, costs)}")
    lines.append(prices_line(bool(experiment.spec.prices), bool(prices), costs.currency))
    return lines


def price_sources(in_file: bool, given: bool) -> list[str]:
    """Where a sweep's prices come from: the experiment file's [prices], --price, or none."""
    return [
        *(["the experiment file's [prices]"] if in_file else []),
        *(["--price"] if given else []),
    ]


def prices_line(in_file: bool, given: bool, currency: str) -> str:
    """Where the plan's costs come from and their currency (never a built-in default)."""
    sources = price_sources(in_file, given)
    if not sources:
        return (
            "cost: no prices given (scripted players cost 0; any other model reads unpriced: "
            "give the file a [prices] table or --price MODEL=IN,CACHED,OUT)"
        )
    return f"cost in {currency} at {' and '.join(sources)}"


COMMANDS: dict[str, Callable[..., None]] = {"plan": plan}
"""Command name -> its function, registered by `bounded.cli`."""
