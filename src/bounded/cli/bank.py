"""`bounded bank`: build the episodic banks (craft, NetHack, BabyAI) and show one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

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
    from bounded.jobs.craft_bank import bootstrap_craft_bank

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
    from bounded.jobs.nethack_bank import nethack_bank

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
    from bounded.core import victory_of
    from bounded.jobs.babyai_bank import babyai_bank

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


GROUPS: dict[str, typer.Typer] = {"bank": bank_app}
"""Group name -> its typer app of subcommands, registered by `bounded.cli`."""
