"""CLI commands for the stores contracts read and write: episodic banks, typed-contract stores,
the ascension ladder, and the craft table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bounded.commands.options import parse_options
from bounded.core import ConfigError

if TYPE_CHECKING:
    from bounded.contracts.episodic.bank import EpisodicBank

bank_app = typer.Typer(help="Build and inspect episodic banks (EpicStar).", no_args_is_help=True)


@bank_app.command("craft")
def bank_craft(
    levels: Annotated[list[int] | None, typer.Option(help="Built-in AI levels to play.")] = None,
    rounds: Annotated[
        int,
        typer.Option(
            help="Games the expert plays at most, in all (levels in turn); play stops once "
            "--keep wins are kept."
        ),
    ] = 20,
    map_name: Annotated[
        str, typer.Option("--map", help="Map the bank is collected on.")
    ] = "highlands",
    seed: Annotated[int, typer.Option(help="First game seed.")] = 0,
    keep: Annotated[
        int, typer.Option(help="Winning games kept (the paper's 5); 0 keeps every win.")
    ] = 5,
    out: Annotated[Path, typer.Option(help="Bank file to write.")] = Path("runs/banks/craft.npz"),
) -> None:
    """Bootstrap the craft bank from the expert's winning games, played at the paper's
    one-action step (decision_interval=3, max_actions=1), which the bank records."""
    from bounded.apps.craft_bank import bootstrap_craft_bank

    bank, report = bootstrap_craft_bank(
        levels=tuple(levels or (6, 7)), rounds=rounds, map_name=map_name, seed=seed,
        keep=keep or None,
    )  # fmt: skip
    save_bank(bank, out)
    lines = [f"{'round':>5}  {'level':>5}  {'style':<7} {'build':<8} {'outcome':<8} {'entries':>7}"]
    for game in report.games:
        lines.append(
            f"{game.game:>5}  {game.options['level']:>5}  {game.options['style']:<7} "
            f"{game.strategy:<8} {game.outcome.get('outcome', '?'):<8} {game.entries:>7}"
        )
    lines.append(
        f"kept {report.kept} of {len(report.games)} games, {report.entries} entries -> {out}"
        f" (sha256 {report.content_hash})"
    )
    typer.echo("\n".join(lines))


def save_bank(bank: EpisodicBank, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    bank.save(out)


@bank_app.command("nethack")
def bank_nethack(
    games: Annotated[int, typer.Option(help="Scripted games to play.")] = 8,
    keep: Annotated[int, typer.Option(help="Best games kept in the bank.")] = 3,
    max_steps: Annotated[int, typer.Option(help="Decisions per game.")] = 1_000,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 0,
    out: Annotated[Path, typer.Option(help="Bank file to write.")] = Path("runs/banks/nethack.npz"),
) -> None:
    """Build the NetHack bank from the explore-and-descend player's best games."""
    from bounded.apps.nethack_bank import nethack_bank

    bank, infos = nethack_bank(games=games, keep=keep, max_steps=max_steps, seed=seed)
    save_bank(bank, out)
    lines = [f"{'seed':>5}  {'progression':>11}  {'depth':>5}  {'xl':>3}  {'score':>6}  ended by"]
    for info in infos:
        o = info.outcome
        lines.append(
            f"{info.seed:>5}  {o.get('progression', 0):>11.4f}  {o.get('max_depth', 1):>5}  "
            f"{o.get('max_experience_level', 1):>3}  {o.get('score', 0):>6}  {o.get('ended_by')}"
        )
    lines.append(
        f"kept the best {min(keep, len(infos))} of {len(infos)} games, {len(bank)} entries "
        f"-> {out} (sha256 {bank.content_hash})"
    )
    typer.echo("\n".join(lines))


@bank_app.command("babyai")
def bank_babyai(
    rounds: Annotated[int, typer.Option(help="Games the bot plays (tasks in turn).")] = 10,
    seed: Annotated[int, typer.Option(help="First game seed.")] = 1_000,
    out: Annotated[Path, typer.Option(help="Bank file to write.")] = Path("runs/banks/babyai.npz"),
) -> None:
    """Build the BabyAI bank from minigrid's bot's winning games on BALROG's tasks."""
    from bounded.apps.babyai_bank import babyai_bank
    from bounded.core import victory_of

    bank, played = babyai_bank(rounds=rounds, seed=seed)
    save_bank(bank, out)
    wins = sum(victory_of(game.outcome) for game in played)
    typer.echo(
        f"kept {wins} winning games of {len(played)}, {len(bank)} entries -> {out} "
        f"(sha256 {bank.content_hash})"
    )


@bank_app.command("show")
def bank_show(path: Annotated[Path, typer.Argument(help="A bank file.")]) -> None:
    """A bank's size, provenance and content hash (verified on load)."""
    from bounded.contracts.episodic.bank import describe_bank

    typer.echo(describe_bank(path))


def craft_table(
    archive: Annotated[Path, typer.Argument(help="Run archive.")],
    experiment: Annotated[str | None, typer.Option(help="Only this experiment.")] = None,
) -> None:
    """EpicStar's Table 1 for the craft runs of an archive (win rate, PBR, RUR, APU, TR, tokens)."""
    from bounded.analysis.craft_table import craft_table_command

    typer.echo(craft_table_command(archive, experiment=experiment))


def recovery_table(
    archive: Annotated[Path, typer.Argument(help="Run archive.")],
    experiment: Annotated[str | None, typer.Option(help="Only this experiment.")] = None,
) -> None:
    """The state-recovery table: decisions to be correct again after a wipe or corruption."""
    from bounded.analysis.recovery import recovery_rows, render_recovery
    from bounded.commands.research import existing_archive

    typer.echo(render_recovery(recovery_rows(existing_archive(archive), experiment)))


stores_app = typer.Typer(help="Typed-contract stores: show, freeze, diff.", no_args_is_help=True)


def _existing_dir(path: Path) -> Path:
    if not path.is_dir():
        raise ConfigError(f"no store directory at {path}")
    return path


@stores_app.command("show")
def stores_show(path: Annotated[Path, typer.Argument(help="A store directory.")]) -> None:
    """The stores in a directory, their entries and the directory's content hash."""
    from bounded.stores.snapshot import describe

    typer.echo(describe(_existing_dir(path)))


@stores_app.command("freeze")
def stores_freeze(
    path: Annotated[Path, typer.Argument(help="A store directory.")],
    into: Annotated[Path, typer.Option(help="Where read-only snapshots are kept.")] = Path(
        "runs/snapshots"
    ),
) -> None:
    """Copy a store directory to a read-only snapshot named by its content hash."""
    from bounded.stores.snapshot import freeze

    typer.echo(str(freeze(_existing_dir(path), into)))


@stores_app.command("diff")
def stores_diff(
    before: Annotated[Path, typer.Argument(help="Store directory or snapshot before.")],
    after: Annotated[Path, typer.Argument(help="Store directory or snapshot after.")],
) -> None:
    """What changed between two store directories, entry by entry."""
    from bounded.stores.snapshot import diff

    typer.echo(diff(_existing_dir(before), _existing_dir(after)).render())


def ladder(
    env: Annotated[str, typer.Argument(help="An environment with ascension levels (spire).")],
    contract: Annotated[str, typer.Option(help="Contract or preset.")] = "self-evolve",
    model: Annotated[str, typer.Option(help="local | local:PATH.gguf | openai:MODEL.")] = "local",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    runs: Annotated[int, typer.Option(help="Number of runs.")] = 10,
    start: Annotated[int, typer.Option(help="First ascension level.")] = 0,
    top: Annotated[int, typer.Option(help="Highest ascension level.")] = 10,
    seed: Annotated[int, typer.Option(help="Seed of the first run (run i: seed + i).")] = 0,
    postrun: Annotated[bool, typer.Option(help="Learn after each run.")] = True,
    copt: Annotated[list[str] | None, typer.Option(help="Contract option key=value.")] = None,
    archive: Annotated[Path, typer.Option(help="SQLite run archive.")] = Path(
        "runs/bounded.sqlite"
    ),
) -> None:
    """Ascension ladder: after a victory the next run is one level up, after a defeat the same."""
    from bounded.apps.ladder import LadderStep, run_ladder
    from bounded.archive import Archive
    from bounded.runner.build import build_model, check_spec
    from bounded.runner.spec import make_spec

    if not 0 <= start <= top:
        raise ConfigError(f"--start {start} is outside 0..{top}")
    spec = make_spec(
        env=env, env_options={"ascension": start}, contract=contract,
        contract_config=parse_options(copt or []), model=model, base_url=base_url, seed=seed,
        tag=contract,
    )  # fmt: skip
    check_spec(spec)  # refuse an environment without levels before loading a model
    llm = build_model(spec)

    def show(step: LadderStep) -> None:
        result = "victory" if step.victory else "defeat"
        typer.echo(f"run {step.index}: A{step.ascension} seed {step.seed} {result}")

    with Archive(archive) as store:
        result = run_ladder(
            spec, runs=runs, start=start, top=top, postrun=postrun, archive=store, model=llm,
            on_step=show,
        )  # fmt: skip
    typer.echo(
        f"endpoint A{result.endpoint}, highest won "
        f"{'-' if result.highest_won is None else f'A{result.highest_won}'}, "
        f"{result.victories}/{len(result.steps)} victories, completed: {result.completed}"
    )


COMMANDS: dict[str, Callable[..., None]] = {
    "craft-table": craft_table,
    "ladder": ladder,
    "recovery-table": recovery_table,
}
SUBCOMMANDS: dict[str, typer.Typer] = {"bank": bank_app, "stores": stores_app}
