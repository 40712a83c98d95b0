"""The `bounded` command line: run episodes, list the archive, run the demo."""

from __future__ import annotations

import re
import signal
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.commands.options import (
    REASONING_CHARS_HELP,
    archive_path,
    parse_options,
    parse_reasoning_chars,
    parse_tiers,
)
from bounded.commands.output import add_counterfactual_rows, run_summary
from bounded.core import BoundedError, ConfigError, Interrupted

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Long-horizon LLM agents with bounded, typed, inspectable memory.",
)
console = Console()

ArchiveOption = Annotated[
    Path, typer.Option("--archive", help="SQLite run archive (created if missing).")
]
ModelOption = Annotated[
    str, typer.Option("--model", help="local | local:PATH.gguf | openai:MODEL | scripted:FILE.")
]
BaseUrlOption = Annotated[
    str | None, typer.Option("--base-url", help="Endpoint of an OpenAI-compatible server.")
]
MAX_SEED = 2**63 - 1
"""The largest seed: seeds are stored as SQLite integers (signed 64 bits), and numpy and
Gymnasium take any seed from 0 up."""


@app.command()
def run(
    env: Annotated[
        str,
        typer.Argument(
            help="Environment: warehouse, spire, craft, workbench, nethack, babyai, crafter, "
            "textworld, minihack."
        ),
    ],
    contract: Annotated[str, typer.Option(help="Memory contract or preset.")] = "state",
    model: ModelOption = "local",
    model_for: Annotated[
        list[str] | None,
        typer.Option(
            "--model-for",
            help="Model tier KIND=MODEL (repeat): decisions of that kind go to MODEL "
            "(e.g. combat=local:fast.gguf); the rest, and the contract's own calls, to --model.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Episode seed.", min=0, max=MAX_SEED)] = 1,
    horizon: Annotated[int | None, typer.Option(help="Warehouse: number of events.")] = None,
    opt: Annotated[list[str] | None, typer.Option(help="Environment option key=value.")] = None,
    copt: Annotated[list[str] | None, typer.Option(help="Contract option key=value.")] = None,
    reasoning_chars: Annotated[str | None, typer.Option(help=REASONING_CHARS_HELP)] = None,
    mopt: Annotated[
        list[str] | None,
        typer.Option(
            help="Model option key=value, the model's constructor argument "
            "(local: n_threads=1, n_ctx=4096; openai: schema_mode=...)."
        ),
    ] = None,
    tag: Annotated[str, typer.Option(help="Condition tag stored with the run.")] = "",
    base_url: BaseUrlOption = None,
    max_tokens: Annotated[
        int | None,
        typer.Option(help="Reply token limit (default 256; workbench 2048).", min=1),
    ] = None,
    temperature: Annotated[
        float | None,
        typer.Option(
            help="Sampling temperature (default: the contract's, 0.1 for episodic and summary "
            "as their papers; else 0).",
            min=0.0,
        ),
    ] = None,
    max_decisions: Annotated[
        int | None, typer.Option(help="Stop the game after this many decisions.", min=1)
    ] = None,
    archive: ArchiveOption = DEFAULT_ARCHIVE,
    task: Annotated[
        str | None, typer.Option(help="Workbench: all, or task names separated by commas.")
    ] = None,
    single_action: Annotated[
        bool, typer.Option(help="Workbench: one tool call per turn (the old mode).")
    ] = False,
    max_turns: Annotated[int | None, typer.Option(help="Workbench: turn budget.", min=1)] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            min=0.001,
            help="openai: models: seconds one model call may take, every retry, wait and "
            "byte of the reply included (default 300).",
        ),
    ] = None,
    retry: Annotated[
        list[str] | None,
        typer.Option(
            "--retry",
            help="openai: models: retry policy KEY=VALUE (repeat): attempts, "
            "attempt_timeout_s, backoff_s, backoff_max_s, jitter_s, run_deadline_s.",
        ),
    ] = None,
) -> None:
    """Play one episode and print its summary (workbench: one episode per task)."""
    from bounded.runner import build_game, make_spec
    from bounded.runner.build import run_game

    model_options = parse_options(mopt or []) | (retry_options(timeout, retry or []) or {})
    contract_config = parse_options(copt or [])
    if reasoning_chars is not None:
        contract_config["reasoning_chars"] = parse_reasoning_chars(reasoning_chars)
    if env in ("workbench", "bounded/Workbench-v0"):
        run_workbench(
            task or "all", contract, contract_config, model, base_url=base_url,
            multi_action=not single_action, max_turns=max_turns, max_tokens=max_tokens,
            seed=seed, tag=tag or contract, archive=archive, model_options=model_options or None,
        )  # fmt: skip
        return
    if task is not None or single_action or max_turns is not None:
        raise ConfigError("--task, --single-action and --max-turns are workbench options")
    env_options = parse_options(opt or [])
    if horizon is not None:
        env_options["horizon"] = horizon
    spec = make_spec(
        env=env, env_options=env_options, contract=contract,
        contract_config=contract_config, model=model,
        models=parse_tiers(model_for or []), base_url=base_url, seed=seed, tag=tag or contract,
        max_tokens=max_tokens, model_options=model_options, temperature=temperature,
        max_decisions=max_decisions,
    )  # fmt: skip
    game = build_game(spec)  # a bad name or setting is refused before the archive is opened
    with Archive(archive) as store:
        record = run_game(game, archive=store)
        decisions = store.decisions(record.run_id)
    console.print(run_summary(record, archive, decisions))


def retry_options(timeout: float | None, pairs: list[str]) -> dict[str, Any] | None:
    """The model options of `--timeout` and `--retry KEY=VALUE` (None when neither is given)."""
    policy = parse_options(pairs)
    if timeout is not None:
        policy["timeout_s"] = timeout
    return {"retry": policy} if policy else None


def run_workbench(
    tasks: str,
    contract: str,
    contract_config: dict[str, Any],
    model: str,
    *,
    base_url: str | None,
    multi_action: bool,
    max_turns: int | None,
    max_tokens: int | None,
    seed: int,
    tag: str,
    archive: Path,
    model_options: dict[str, Any] | None = None,
) -> None:
    """The workbench suite: each task in a fresh sandboxed copy, judged by its oracle."""
    from bounded.apps.workbench import ENV_ID, format_table, run_suite
    from bounded.envs.workbench import select_tasks
    from bounded.runner.build import build_contract, build_model
    from bounded.runner.spec import make_spec

    select_tasks(tasks)  # refuse an unknown task or a bad contract before loading a model
    spec = make_spec(
        env=ENV_ID, contract=contract, contract_config=contract_config, model=model,
        base_url=base_url, model_options=model_options,
    )  # fmt: skip
    build_contract(spec)
    llm = build_model(spec)
    options: dict[str, Any] = {"multi_action": multi_action, "seed": seed}
    if max_turns is not None:
        options["max_turns"] = max_turns
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    with Archive(archive) as store:
        rows = run_suite(
            llm, tasks=tasks, contract=contract, contract_config=contract_config or None,
            archive=store, tag=tag, on_row=lambda row: console.print(f"{row.task}: {row.outcome}"),
            **options,
        )  # fmt: skip
    typer.echo(format_table(rows))
    console.print(f"archive: {archive}")


@app.command()
def runs(
    path: Annotated[
        Path | None, typer.Argument(help="The archive (default runs/bounded.sqlite).")
    ] = None,
    archive: Annotated[Path, typer.Option("--archive", help="The archive, as an option.")] = (
        DEFAULT_ARCHIVE
    ),
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    limit: Annotated[int, typer.Option(help="Show the newest N runs.", min=1)] = 50,
    close_stale: Annotated[
        bool,
        typer.Option(
            "--close-stale",
            help="Mark runs left `running` by a dead process `failed` with the reason "
            "(those that `bounded resume` can continue are left alone).",
        ),
    ] = False,
    resumable: Annotated[
        bool, typer.Option("--resumable", help="With --close-stale: close resumable ones too.")
    ] = False,
) -> None:
    """List the runs in an archive (opened read-only unless --close-stale). A run whose
    process died shows as `stale`, `stale (resumable)` when `bounded resume` can continue it."""
    from bounded.runner.resume import close_stale as close
    from bounded.runner.resume import health

    archive = archive_path(path, archive, DEFAULT_ARCHIVE)
    if resumable and not close_stale:
        raise ConfigError("--resumable goes with --close-stale")
    if close_stale:
        with Archive(archive) as store:
            for found in close(store, resumable_too=resumable):
                console.print(f"closed {found.run.run_id[:12]}: {found.run.status} -> failed")
    with Archive(archive, read_only=True) as store:
        records = health(store, store.runs(tag=tag)[-limit:])
    print_runs(archive, records)


def print_runs(archive: Path, records: list[Any]) -> None:
    """The runs table, and a hint when some are stale."""
    table = Table(title=f"{archive}: {len(records)} runs")
    table.add_column("run", no_wrap=True, min_width=12)
    for column in ("env", "contract", "tag", "model", "seed", "status", "decisions"):
        table.add_column(column)
    table.add_column("prompt tokens", justify="right")
    table.add_column("wall s", justify="right")
    for found in records:
        r = found.run
        table.add_row(
            r.run_id[:12], r.env_id, r.contract, r.tag, r.model, str(r.seed), found.label,
            str(r.decisions), str(r.prompt_tokens), f"{r.wall_s:.1f}",
        )  # fmt: skip
    console.print(table)
    stale = [found for found in records if found.stale]
    if stale:
        can = sum(found.resumable for found in stale)
        console.print(
            f"{len(stale)} stale runs ({can} resumable): bounded resume RUN_ID continues one; "
            "bounded runs --close-stale marks the others failed"
        )


@app.command()
def demo(
    which: Annotated[str, typer.Argument(help="spire (the default) or warehouse.")] = "spire",
    model: ModelOption = "local",
    seed: Annotated[
        int,
        typer.Option(help="Episode seed (shared by all warehouse runs).", min=0, max=MAX_SEED),
    ] = 1,
    acts: Annotated[int, typer.Option(help="spire: acts to play (1-3).", min=1, max=3)] = 1,
    contract: Annotated[str, typer.Option(help="spire: contract or preset.")] = "typed",
    horizons: Annotated[str, typer.Option(help="warehouse: comma-separated T.")] = "5,10,20,30",
    base_url: BaseUrlOption = None,
    archive: ArchiveOption = DEFAULT_ARCHIVE,
) -> None:
    """The main job: a spire game under the typed contract on the embedded model
    (`demo warehouse`: transcript vs state at several horizons)."""
    from bounded.apps import demo as demos

    if which not in ("spire", "warehouse"):
        raise ConfigError(f"unknown demo {which!r} (spire or warehouse)")
    try:
        values = [int(h) for h in horizons.split(",")]
    except ValueError as exc:
        raise ConfigError(f"--horizons must be integers separated by commas: {horizons!r}") from exc
    with Archive(archive) as store:
        if which == "spire":
            result = demos.run_spire_demo(
                model, acts=acts, contract=contract, seed=seed, archive=store,
                base_url=base_url, console=console,
            )  # fmt: skip
            summary = demos.spire_summary(result, archive)
            add_counterfactual_rows(summary, result.run, store.decisions(result.run.run_id))
            console.print(summary)
            return
        rows = demos.run_demo(
            model, values, seed=seed, archive=store, base_url=base_url, console=console
        )
    console.print(demos.demo_table(rows))
    console.print(f"archive: {archive}")


def register_commands() -> None:
    """Commands that live beside their subsystem: research (sweep, analyze, report, ...),
    memory stores (bank, craft-table), scripted play of an environment (spire)."""
    from bounded.commands import attribute, memory, recovery, research

    for module in (research, memory, recovery, attribute):
        for name, command in module.COMMANDS.items():
            app.command(name)(command)
    for name, group in memory.SUBCOMMANDS.items():
        app.add_typer(group, name=name)
    from bounded.envs.spire.cli import spire_command

    app.command("spire")(spire_command)


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


if __name__ == "__main__":
    main()
