"""Help pages people read: typer shows a parameter's Python type (`<bool>`, `<list[str]>`,
`<int range>`) and a required argument in braces (`{file}`); these classes show click's
usual words instead: a flag shows no value, an option its value's kind (`TEXT`,
`INTEGER`, `NUMBER`, `PATH`, the choices `a|b`, a pair `A B`), an argument its name in
capitals (`FILE`, `[ARCHIVE]` when it may be left out).

Every command of the app is built with `ReadableCommand` (its groups `ReadableGroup`),
which gives its parameters these displays (`readable`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args, get_origin

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

WORDS = {int: "INTEGER", float: "NUMBER", bool: "BOOLEAN", str: "TEXT", Path: "PATH"}


def annotation_word(annotation: Any) -> str:
    """What a value of this type is, in click's words (a list: its items')."""
    args = [arg for arg in get_args(annotation) if arg is not type(None)]
    origin = get_origin(annotation)
    if origin is tuple:
        words = [annotation_word(arg) for arg in args]
        return "A B" if words == ["TEXT", "TEXT"] else " ".join(words)
    if origin is list or (args and origin is not dict and len(args) == 1):
        return annotation_word(args[0])  # list[X], X | None
    return WORDS.get(annotation, "TEXT")


def value_word(param: TyperOption) -> str:
    descriptor = param.type_descriptor
    if descriptor.is_choice:
        return "|".join(str(getattr(c, "value", c)) for c in descriptor.choices or ())
    if descriptor.is_path:
        return "PATH"
    return annotation_word(descriptor.annotation)


class ReadableOption(TyperOption):
    def display_type_rich(self, ctx: Any) -> str | None:
        if self.metavar is not None:
            return self.metavar
        if self.is_flag:
            return None
        return value_word(self)


class ReadableArgument(TyperArgument):
    @property
    def display_name_raw(self) -> str:
        return self.metavar or (self.name or "").upper()

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # its name says what it is

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return [name + ("..." if self.nargs != 1 else "")]


def readable(param: Any) -> Any:
    """The parameter, shown as the module's docstring says (its class swapped for the
    readable subclass; nothing else about it changes)."""
    if type(param) is TyperOption:
        param.__class__ = ReadableOption
    elif type(param) is TyperArgument:
        param.__class__ = ReadableArgument
    return param


class ReadableCommand(TyperCommand):
    def get_params(self, ctx: Any) -> list[Any]:
        return [readable(param) for param in super().get_params(ctx)]


class ReadableGroup(TyperGroup):
    def get_params(self, ctx: Any) -> list[Any]:
        return [readable(param) for param in super().get_params(ctx)]


def readable_commands(group: Any) -> None:
    """Build every command registered on a typer app (`typer.Typer`) readably."""
    for info in group.registered_commands:
        if info.cls in (None, TyperCommand):
            info.cls = ReadableCommand


__all__ = ["ReadableCommand", "ReadableGroup", "readable", "readable_commands"]
