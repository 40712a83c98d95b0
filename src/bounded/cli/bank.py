"""`bounded bank`: build an environment's episodic bank and show one.

`bounded bank NAME` is a command for every environment whose record declares a bank
recipe (`bounded.env_records.BankRecipe`): its options are the recipe's, plus `--out`;
the one bank builder (`bounded.jobs.bank`) plays it. A recipe's module is imported only
when its command is used or listed.
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bounded.cli._environments import single_command
from bounded.cli._readable import ReadableGroup

if TYPE_CHECKING:
    from bounded.contracts.episodic.bank import EpisodicBank
    from bounded.env_records import BankRecipe, EnvRecord


def banked_records() -> list[EnvRecord]:
    """The records declaring a bank recipe, installed plugins' among them."""
    from bounded.env_records import ENV_RECORDS

    return [record for record in ENV_RECORDS.records() if record.bank]


def save_bank(bank: EpisodicBank, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    bank.save(out)


def bank_command(record: EnvRecord, recipe: BankRecipe) -> Callable[..., None]:
    """The command building the record's bank: the recipe's options, then `--out`."""
    options = inspect.signature(recipe.plan).parameters.values()
    hints = typing.get_type_hints(recipe.plan, include_extras=True)
    out = inspect.Parameter(
        "out",
        inspect.Parameter.KEYWORD_ONLY,
        default=Path(f"runs/banks/{record.name}.npz"),
        annotation=Annotated[Path, typer.Option(help="Bank file to write.")],
    )
    parameters = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints[p.name]) for p in options
    ]

    def build(out: Path, **chosen: Any) -> None:
        from bounded.jobs.bank import build_bank

        bank, played = build_bank(record.env_id, recipe.plan(**chosen))
        save_bank(bank, out)
        typer.echo(recipe.report(bank, played, out))

    build.__signature__ = inspect.Signature([*parameters, out])  # type: ignore[attr-defined]
    build.__annotations__ = {p.name: p.annotation for p in [*parameters, out]}
    build.__doc__ = recipe.plan.__doc__
    return build


class BankGroup(ReadableGroup):
    """`bounded bank`: `show`, and one command per environment with a bank recipe, built
    from its record when it is asked for."""

    def list_commands(self, ctx: Any) -> list[str]:
        names = [record.name for record in banked_records()]
        return [*names, *(name for name in super().list_commands(ctx) if name not in names)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        record = next((r for r in banked_records() if r.name == cmd_name), None)
        if record is None:
            return None
        from bounded.jobs.bank import bank_recipe

        return single_command(record.name, bank_command(record, bank_recipe(record.name)))


bank_app = typer.Typer(
    cls=BankGroup,
    help="Build and inspect episodic banks (EpicStar).",
    no_args_is_help=True,
)


@bank_app.command("show")
def bank_show(path: Annotated[Path, typer.Argument(help="A bank file.")]) -> None:
    """A bank's size, provenance and content hash (verified on load)."""
    from bounded.contracts.episodic.bank import describe_bank

    typer.echo(describe_bank(path))


GROUPS: dict[str, typer.Typer] = {"bank": bank_app}
"""Group name -> its typer app of subcommands, registered by `bounded.cli`."""
GROUP_CLASS = BankGroup
"""The click group class `bounded.cli` registers `bank` with."""
