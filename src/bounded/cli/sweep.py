"""`bounded sweep`: play an experiment file's games (its learning phases first), resumably."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from bounded.cli._options import ArchiveOption, given_archive
from bounded.cli._output import console, plain, usage_text
from bounded.core import ConfigError, Interrupted

if TYPE_CHECKING:
    from bounded.sweeps.estimate import CellEstimate, SweepPrices
    from bounded.sweeps.experiment import Experiment
    from bounded.sweeps.stages import Plan
    from bounded.sweeps.survey import SweepPlan

BUDGET_REACHED = 3
"""`bounded sweep`'s exit status when `--budget` stopped it starting games."""


def sweep(
    file: Annotated[Path, typer.Argument(help="Experiment file (TOML).")],
    archive: Annotated[
        Path | None,
        typer.Argument(
            metavar="ARCHIVE",
            help="SQLite run archive (default: experiment.archive in the file).",
            show_default=False,
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="Games played at once.")] = 1,
    concurrency: Annotated[
        int | None,
        typer.Option(
            help="Games each worker plays at once in threads, for remote models (default: "
            "the file's [experiment] concurrency, else 1)."
        ),
    ] = None,
    executor: Annotated[str, typer.Option(help="local (processes) or ray.")] = "local",
    address: Annotated[
        str | None, typer.Option(help="Ray cluster address (default: start a local instance).")
    ] = None,
    archive_option: ArchiveOption = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            help="Check every setting and store, list the games still to play and estimate "
            "their cost, play none, write nothing."
        ),
    ] = False,
    budget: Annotated[
        float | None,
        typer.Option(
            help="Start games only while the spend (at the file's [prices]) plus the estimate "
            "of the games in flight and the next stays within this; exit 3 when it stops."
        ),
    ] = None,
    price: Annotated[
        list[str] | None,
        typer.Option(help="A model's prices MODEL=INPUT,CACHED,OUTPUT per million (repeat)."),
    ] = None,
    until_decided: Annotated[
        tuple[str, str] | None,
        typer.Option(
            help="Play treatments (or cells) A and B only, paired on (block, seed), a few seeds "
            "of every block at a time, until an anytime-valid confidence sequence of A - B "
            "excludes 0 (or the seeds, --max-games or --budget run out); the rule and the stop "
            "are recorded in the archive."
        ),
    ] = None,
    block: Annotated[
        int, typer.Option(help="--until-decided: seeds of every block per look.")
    ] = 10,
    level: Annotated[
        float, typer.Option(help="--until-decided and --compare: the level (alpha).")
    ] = 0.05,
    metric: Annotated[
        str, typer.Option(help="--until-decided and --compare: wins or score.")
    ] = "wins",
    max_games: Annotated[
        int | None,
        typer.Option(help="--until-decided: games per treatment at most, over all blocks."),
    ] = None,
    score_range: Annotated[
        str, typer.Option(help="--until-decided --metric score: LOW,HIGH a game can score.")
    ] = "0,100",
    list_games: Annotated[
        bool, typer.Option(help="--dry-run: list every game still to play, after the summary.")
    ] = False,
    compare: Annotated[
        tuple[str, str] | None,
        typer.Option(help="--dry-run: plan the paired comparison of cells A and B (bounded plan)."),
    ] = None,
    effect: Annotated[
        float | None, typer.Option(help="--dry-run --compare: the difference A - B to detect.")
    ] = None,
    power: Annotated[float, typer.Option(help="--dry-run --compare: the power.")] = 0.8,
    max_failures: Annotated[
        int,
        typer.Option(min=0, help="Start no more games after this many failed in a row (0: never)."),
    ] = 5,
) -> None:
    """Play an experiment's games, its learning phases first; rerunning resumes (completed
    games are skipped, frozen phases kept)."""
    from rich.console import Console

    from bounded.cli._progress import SweepProgress
    from bounded.sweeps.experiment import load_experiment
    from bounded.sweeps.sweep import SweepInterrupted, SweepRefused, run_sweep

    archive = given_archive(archive, archive_option)
    experiment = load_experiment(file)
    plan = experiment.stages(Path(archive or experiment.archive))  # once per command
    if dry_run:
        print_dry_run(experiment, archive, price or [], plan, list_games=list_games)
        if compare is not None:
            asked = (compare, effect, power, level, metric)
            dry_run_plan(experiment, archive, price or [], plan, *asked)
        return
    if until_decided is not None:
        from bounded.cli.sequential import sweep_until_decided
        from bounded.sweeps.sequential import Stopping

        stopping = Stopping(
            a=until_decided[0], b=until_decided[1], metric=metric, level=level, block=block,
            max_games=max_games, score_range=parse_range(score_range),
        )  # fmt: skip
        sweep_until_decided(
            experiment, stopping, archive=archive, plan=plan, executor=executor, workers=workers,
            address=address, budget=budget, prices=price or [], concurrency=concurrency,
        )  # fmt: skip
        return
    try:
        summary = run_sweep(
            experiment, archive_path=archive, plan=plan, executor=executor, workers=workers,
            address=address, budget=budget, prices=price or [], concurrency=concurrency,
            events=SweepProgress(Console(stderr=True), archive=Path(archive or experiment.archive)),
            max_failures=max_failures,
        )  # fmt: skip
    except SweepRefused as exc:  # one line per problem, each its own
        for line in exc.problems:
            print(f"bounded: error: {line}", file=sys.stderr)
        raise typer.Exit(2) from None
    except SweepInterrupted as exc:
        again = sweep_command(
            file, archive=archive, workers=workers, executor=executor, concurrency=concurrency
        )
        raise Interrupted(f"{exc}; continue with: {again}") from None
    plain(
        f"{summary.experiment}: {summary.completed}/{summary.planned} games completed "
        f"({summary.skipped} already done, {summary.played} played now"
        f"{f' ({summary.resumed} resumed)' if summary.resumed else ''}, "
        f"{summary.removed} incomplete rows replaced); archive {summary.archive}"
    )
    if summary.took_over:
        plain(f"took over the lease of a killed sweep: {summary.took_over}")
    for phase in summary.restarted:
        plain(f"phase {phase}: replayed from a clean store")
    for phase, digest in summary.frozen.items():
        plain(f"phase {phase}: frozen {digest}")
    if summary.waiting:
        plain(f"waiting for their phase: {', '.join(summary.waiting)}")
    spent = spend_line(
        summary.spent, summary.unpriced, experiment.spec.currency,
        in_file=bool(experiment.spec.prices), given=bool(price),
    )  # fmt: skip
    plain(spent)
    for failure in summary.failed:
        console.print(f"[red]failed[/red] {escape(failure)}")
    if summary.stopped:
        again = sweep_command(
            file, archive=archive, workers=workers, executor=executor, concurrency=concurrency
        )
        plain(
            f"{summary.stopped}; {summary.not_started} games not started; fix the cause, "
            f"then continue with: {again}"
        )
    if summary.failed:
        raise typer.Exit(1)
    if summary.not_started:
        again = sweep_command(
            file, archive=archive, workers=workers, executor=executor, concurrency=concurrency
        )
        why = f" ({summary.budget_note})" if summary.budget_note else ""
        plain(
            f"budget reached: spent {summary.spent:.4f} of {summary.budget:g}{why}; "
            f"{summary.not_started} games not started, every game played is kept; continue "
            f"with: {again} --budget MORE"
        )
        raise typer.Exit(BUDGET_REACHED)


def parse_range(text: str) -> tuple[float, float]:
    """`LOW,HIGH` into two numbers."""
    parts = text.split(",")
    try:
        low, high = (float(part) for part in parts)
    except ValueError:
        raise ConfigError(f"--score-range takes LOW,HIGH, got {text!r}") from None
    return (low, high)


def dry_run_plan(
    experiment: Experiment,
    archive: Path | None,
    prices: list[str],
    plan: Plan,
    compare: tuple[str, str],
    effect: float | None,
    power: float,
    level: float,
    metric: str,
) -> None:
    """`--dry-run --compare A B`: the plan of `bounded plan` under the dry run."""
    from bounded.analysis.plan import PlanAsked
    from bounded.cli.plan import print_experiment_plan

    asked = PlanAsked(
        a=compare[0], b=compare[1], metric=metric, effect=effect, power=power, alpha=level
    )
    print_experiment_plan(experiment, asked, archive, prices, plan=plan)


def spend_line(
    spent: float, unpriced: list[str], currency: str, *, in_file: bool, given: bool
) -> str:
    """What the games played now cost (`money`), and at which prices: the experiment
    file's [prices], --price, or none given."""
    from bounded.analysis.cost import money
    from bounded.cli.plan import price_sources

    sources = price_sources(in_file, given)
    where = (
        f"at {' and '.join(sources)}"
        if sources
        else "(no prices given: the file has no [prices] table and no --price was given)"
    )
    return f"spent {money(spent, unpriced, currency)} {where}"


def sweep_command(
    file: Path, *, archive: Path | None, workers: int, executor: str, concurrency: int | None = None
) -> str:
    """The `bounded sweep` command line that continues this sweep."""
    parts = ["bounded", "sweep", shlex.quote(str(file))]
    if archive is not None:
        parts.append(shlex.quote(str(archive)))
    if workers != 1:
        parts += ["--workers", str(workers)]
    if concurrency is not None:
        parts += ["--concurrency", str(concurrency)]
    if executor != "local":
        parts += ["--executor", executor]
    return " ".join(parts)


def print_dry_run(
    experiment: Experiment,
    archive: Path | None,
    prices: list[str],
    plan: Plan,
    *,
    list_games: bool = False,
) -> None:
    """The summary first (every phase's state, the estimate of the games still to play,
    parity, the endpoints), the games themselves when asked (`list_games`), then one line
    per problem (exit 1)."""
    from bounded.sweeps.estimate import SweepPrices
    from bounded.sweeps.sweep import dry_run

    costs = SweepPrices.of(experiment.spec.prices, prices, experiment.spec.currency)
    state = dry_run(experiment, archive, plan)
    plain(f"{experiment.name}: {len(plan.games)} planned, {len(state.pending)} to play")
    for resume in state.phases:
        plain(f"  {resume.describe(plan.phase(resume.phase))}")
    for line in estimate_lines(state.estimates, costs):
        plain(line)
    if state.estimates:
        from bounded.cli.plan import prices_line

        plain(prices_line(bool(experiment.spec.prices), bool(prices), costs.currency))
    for line in state.parity.lines() if state.parity is not None else []:
        plain(line)
    for line in state.endpoints:
        plain(line)
    if list_games:
        for line in game_lines(state):
            plain(line)
    elif state.pending:
        plain(f"({len(state.pending)} games to play: --list-games lists them)")
    for problem in state.problems:
        plain(f"problem: {problem}")
    if state.problems:
        raise typer.Exit(1)


def game_lines(state: SweepPlan) -> list[str]:
    """One line per game still to play, with the store it reads and who wrote it."""
    plan = state.plan
    frozen = {resume.phase: resume.record for resume in state.phases}
    lines = []
    for spec in state.pending:
        line = f"  {spec.label}  ({spec.env}, {spec.contract}, {spec.model})"
        phase = plan.reads.get(spec.cell)
        if phase is not None:
            record = frozen.get(phase)
            source = f"frozen {record.hash[:16]}" if record else "written"
            line += f" reads {spec.contract_config['store_dir']} ({source} by phase {phase})"
        lines.append(line)
    return lines


def estimate_lines(estimates: list[CellEstimate], costs: SweepPrices) -> list[str]:
    """Per cell and in total: games, model calls, prompt tokens and cost, as estimates."""
    from bounded.sweeps.estimate import add_usage

    lines: list[str] = []
    total: dict[str, dict[str, float]] = {}
    games, unknown = 0, []
    for entry in estimates:
        if entry.error is not None:
            lines.append(
                f"  estimate {entry.name}: {entry.games} games, no estimate: {entry.error}"
            )
            unknown.append(entry.name)
            continue
        usage: dict[str, dict[str, float]] = {}
        add_usage(usage, entry.per_game, entry.games)
        add_usage(total, usage)
        games += entry.games
        lines.append(f"  estimate {entry.name}: {usage_text(entry.games, usage, costs)} "
                     f"(from the {entry.source})")  # fmt: skip
    if estimates:
        note = f"; {len(unknown)} cells not estimated" if unknown else ""
        lines.append(f"estimate, total: {usage_text(games, total, costs)}{note} (an estimate)")
    return lines


COMMANDS: dict[str, Callable[..., None]] = {
    "sweep": sweep,
}
"""Command name -> its function, registered by `bounded.cli`."""
