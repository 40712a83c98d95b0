"""The commands environments declare (`EnvRecord.commands`): ours registered with the app,
installed plugins' found when asked for (a plugin's record is loaded only then, so that
`bounded run --help` still names a plugin not yet loaded by its id)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import typer

from bounded.cli._readable import ReadableCommand, ReadableGroup
from bounded.core import BoundedError
from bounded.registry import load_target

if TYPE_CHECKING:
    from bounded.env_records import EnvRecord


def declared_commands(records: Iterable[EnvRecord]) -> dict[str, str]:
    """Command name -> `"module:function"`, over the records given."""
    return {name: target for record in records for name, target in record.commands.items()}


def plugin_commands() -> dict[str, str]:
    """The commands installed plugins' records declare; a plugin that cannot be loaded
    declares none here (naming its environment says what is wrong)."""
    from bounded.env_records import BUILTIN_RECORDS, ENV_RECORDS

    builtin = {record.env_id for record in BUILTIN_RECORDS}
    try:
        records = [r for r in ENV_RECORDS.records() if r.env_id not in builtin]
    except BoundedError:
        return {}
    return declared_commands(records)


def single_command(name: str, function: Callable[..., Any]) -> Any:
    """`function` as one readable click command named `name`."""
    one = typer.Typer(add_completion=False, rich_markup_mode="markdown")
    one.command(name, cls=ReadableCommand)(function)
    return typer.main.get_command(one)


class EnvironmentsGroup(ReadableGroup):
    """The `bounded` group: its own commands, then the plugins' declared commands."""

    def list_commands(self, ctx: Any) -> list[str]:
        own = super().list_commands(ctx)
        return [*own, *(name for name in plugin_commands() if name not in own)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        found = super().get_command(ctx, cmd_name)
        if found is not None:
            return found
        target = plugin_commands().get(cmd_name)
        return single_command(cmd_name, load_target(target)) if target else None


__all__ = ["EnvironmentsGroup", "declared_commands", "plugin_commands", "single_command"]
