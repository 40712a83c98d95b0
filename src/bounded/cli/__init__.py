"""The `bounded` command line: this module assembles the typer app from one module per
command group and is its entry point (`main`); each command lives in its group's module.

| module | commands |
|---|---|
| `run` | `run` (one episode; an environment's task suite, `EnvRecord.suite`: the workbench's) |
| `runs` | `runs`, `resume` |
| `demo` | `demo` |
| `sweep` | `sweep` |
| `analyze` | `analyze`, `craft-table`, `recovery-table` |
| `table` | `table` (a paper's table of one metric, LaTeX, Markdown or CSV) |
| `plan` | `plan` (games per cell for a paired comparison, before paying) |
| `importing` | `import` |
| `audit` | `audit` |
| `report` | `report`, `view`, `export` |
| `attribute` | `attribute` |
| `ladder` | `ladder` |
| `bank` | `bank NAME` (an environment's bank recipe: craft, nethack, babyai), `bank show` |
| `stores` | `stores show`, `stores freeze`, `stores diff` |
| `spire` | `spire` (declared by Spire's record, `EnvRecord.commands`) |
| `textworld` | `textworld-games` (TextWorld's games on disk before a sweep; its record's) |

`_options` (parsing and the options several commands share, the archive argument among
them), `_environments` (the commands environments declare), `_output` (tables and
summaries) and `_readable` (help pages that name values in words) serve them all;
`_progress` is `bounded sweep`'s live display.
"""

from __future__ import annotations

import re
import signal
import sys
import tempfile
import traceback
from typing import Annotated

import typer

from bounded.cli import (
    analyze,
    attribute,
    audit,
    bank,
    demo,
    importing,
    ladder,
    models,
    plan,
    report,
    run,
    runs,
    stores,
    sweep,
    table,
)
from bounded.cli._environments import EnvironmentsGroup, declared_commands
from bounded.cli._readable import ReadableCommand, ReadableGroup, readable_commands
from bounded.core import BoundedError, Interrupted
from bounded.env_records import BUILTIN_RECORDS
from bounded.registry import load_target, missing_extra
from bounded.version import __version__

app = typer.Typer(
    cls=EnvironmentsGroup,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    help="Long-horizon LLM agents with bounded, typed, inspectable memory.",
)

GROUP_MODULES = (
    run, runs, demo, sweep, plan, analyze, table, importing, audit, report, ladder, attribute,
)  # fmt: skip
"""The modules of single commands, in the order `bounded --help` lists them."""


def register_commands() -> None:
    for module in GROUP_MODULES:
        for name, command in module.COMMANDS.items():
            app.command(name, cls=ReadableCommand)(command)
    for module in (bank, stores, models):
        for name, group in module.GROUPS.items():
            readable_commands(group)
            cls = getattr(module, "GROUP_CLASS", ReadableGroup)
            app.add_typer(group, name=name, cls=cls)
    for name, target in declared_commands(BUILTIN_RECORDS).items():
        app.command(name, cls=ReadableCommand)(load_target(target))


def show_version(value: bool) -> None:
    if value:
        print(f"bounded {__version__}")
        raise typer.Exit()


@app.callback()
def top(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Long-horizon LLM agents with bounded, typed, inspectable memory."""


register_commands()


INTERRUPTED = 130
"""Typer's exit status for Ctrl-C (and here for SIGTERM)."""


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Taken as Ctrl-C is, with the signal named in what a closed run records."""


def _interrupt(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"interrupted by {signal.Signals(signum).name}")


def one_line(message: str) -> str:
    """A message on one line (line breaks and the indentation after them become a space)."""
    return re.sub(r"\s*\n\s*", " ", message.strip())


def save_traceback() -> str:
    """Write the exception being handled, with its traceback, to a new file in the
    temporary directory; its path, or why it could not be written."""
    try:
        with tempfile.NamedTemporaryFile(
            "w", prefix="bounded-error-", suffix=".log", delete=False, encoding="utf-8"
        ) as handle:
            handle.write(traceback.format_exc())
    except OSError as exc:
        return f"not saved: {exc.strerror or exc}"
    return handle.name


def main(argv: list[str] | None = None) -> None:
    """Entry point: user mistakes become one line on stderr and a non-zero exit; so does
    anything unexpected, whose traceback goes to a log file named on that line (status 1).

    SIGTERM (a scheduler's kill, `timeout`) is taken like Ctrl-C (SIGINT), so a run in
    progress is closed in the archive as failed, with the signal named, not left `running`;
    system calls they arrive in are restarted, so SQLite never sees one as an I/O error."""
    command = typer.main.get_command(app)
    previous = {signum: signal.signal(signum, _interrupt) for signum in STOP_SIGNALS}
    for signum in STOP_SIGNALS:
        signal.siginterrupt(signum, False)
    try:
        # Not standalone, so errors reach the handlers below; typer then *returns* the
        # status of `typer.Exit` and of Ctrl-C instead of exiting with it.
        status = command.main(args=argv, prog_name="bounded", standalone_mode=False)
    except typer.Abort:
        print("bounded: aborted", file=sys.stderr)
        sys.exit(INTERRUPTED)
    except Interrupted as exc:  # a command that says what it kept and how to continue
        print(f"bounded: {exc}", file=sys.stderr)
        sys.exit(INTERRUPTED)
    except typer.TyperException as exc:  # usage errors: bad option, missing argument, ...
        format_message = getattr(exc, "format_message", None)
        message = format_message() if format_message else str(exc)
        print(f"bounded: error: {message}", file=sys.stderr)
        sys.exit(getattr(exc, "exit_code", 2))
    except BoundedError as exc:
        print(f"bounded: error: {one_line(str(exc))}", file=sys.stderr)
        sys.exit(2)
    except Exception as exc:  # a failed run, a bug: one line here, the traceback in a file
        missing = missing_extra(exc, "this command") if isinstance(exc, ImportError) else None
        if missing is not None:  # an extra's package, imported outside a plugin's load
            print(f"bounded: error: {missing}", file=sys.stderr)
            sys.exit(2)
        where = save_traceback()
        message = one_line(f"{type(exc).__name__}: {exc}")
        print(f"bounded: error: {message} (traceback in {where})", file=sys.stderr)
        sys.exit(1)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if status == INTERRUPTED:
        print("bounded: interrupted", file=sys.stderr)
    if isinstance(status, int) and status:
        sys.exit(status)


__all__ = ["app", "main"]

if __name__ == "__main__":
    main()
