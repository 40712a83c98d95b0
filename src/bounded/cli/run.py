"""`bounded run`: play one episode (the workbench: its task suite) and print its summary."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._options import (
    MAX_SEED,
    REASONING_CHARS_HELP,
    ArchiveOption,
    BaseUrlOption,
    ModelOption,
    NewArchiveArgument,
    archive_path,
    parse_options,
    parse_reasoning_chars,
    parse_tiers,
)
from bounded.cli._output import console, run_summary
from bounded.core import DEFAULT_MAX_TOKENS, ConfigError
from bounded.env_records import env_record
from bounded.envs import env_names
from bounded.envs.workbench import REPLY_TOKENS as WORKBENCH_MAX_TOKENS
from bounded.registry import load_target
from bounded.runner.spec import DEFAULT_CONTRACT, DEFAULT_MODEL, DEFAULT_SEED

if TYPE_CHECKING:
    from bounded.runner.build import Game


def run(
    env: Annotated[
        str,
        typer.Argument(
            help=f"Environment: {', '.join(env_names())}; or a Gymnasium id, or module:Env-v0."
        ),
    ],
    archive: NewArchiveArgument = None,
    contract: Annotated[str, typer.Option(help="Memory contract or preset.")] = DEFAULT_CONTRACT,
    model: ModelOption = DEFAULT_MODEL,
    model_for: Annotated[
        list[str] | None,
        typer.Option(
            "--model-for",
            help="Model tier KIND=MODEL (repeat): decisions of that kind go to MODEL "
            "(e.g. combat=local:fast.gguf); the rest, and the contract's own calls, to --model.",
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Episode seed.", min=0, max=MAX_SEED)] = DEFAULT_SEED,
    horizon: Annotated[int | None, typer.Option(help="Warehouse: number of events.")] = None,
    opt: Annotated[list[str] | None, typer.Option(help="Environment option key=value.")] = None,
    copt: Annotated[list[str] | None, typer.Option(help="Contract option key=value.")] = None,
    reasoning_chars: Annotated[str | None, typer.Option(help=REASONING_CHARS_HELP)] = None,
    reply: Annotated[str | None, typer.Option(help=REPLY_HELP)] = None,
    reply_fallback: Annotated[str | None, typer.Option(help=REPLY_FALLBACK_HELP)] = None,
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
        typer.Option(
            help=f"Reply token limit (default {DEFAULT_MAX_TOKENS}; workbench "
            f"{WORKBENCH_MAX_TOKENS}; the balrog agents BALROG's 8192).",
            min=1,
        ),
    ] = None,
    temperature: Annotated[
        float | None,
        typer.Option(
            help="Sampling temperature (default: the contract's, 0.1 for episodic and summary "
            "as their papers, 1.0 for the balrog agents as BALROG; else 0).",
            min=0.0,
        ),
    ] = None,
    max_decisions: Annotated[
        int | None, typer.Option(help="Stop the game after this many decisions.", min=1)
    ] = None,
    archive_option: ArchiveOption = None,
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

    archive = archive_path(archive, archive_option, DEFAULT_ARCHIVE)
    model_options = parse_options(mopt or []) | (retry_options(timeout, retry or []) or {})
    contract_config = parse_options(copt or [])
    if reasoning_chars is not None:
        contract_config["reasoning_chars"] = parse_reasoning_chars(reasoning_chars)
    contract_config.update(reply_options(reply, reply_fallback))
    declared = env_record(env)
    if declared is not None and declared.suite:
        load_target(declared.suite)(
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
    refuse_unreachable(game)  # so is a dead endpoint or a refused key: no failed row
    with Archive(archive) as store:
        record = run_game(game, archive=store)
        decisions = store.decisions(record.run_id)
    console.print(run_summary(record, archive, decisions))


def refuse_unreachable(game: Game) -> None:
    """Reach every endpoint model of the game once, as `bounded sweep` does before its first
    game; one line naming what is wrong (exit 2) before anything is written."""
    from bounded.sweeps.preflight import unreachable_models

    spec = game.spec
    named = {id(game.model): (spec.model, spec.base_url, game.model)}
    for kind, model in game.models.items():
        named.setdefault(id(model), (spec.models[kind], spec.base_url, model))
    problems = unreachable_models(named.values())
    if problems:
        raise ConfigError("; ".join(problems))


REPLY_HELP = (
    "Reply mode: constrained (decoded under the reply schema), json (one JSON object, any "
    "object decoded) or text (free text read by the contract's own rule). Default: the "
    "contract's (its paper's). Sets the contract option reply."
)
REPLY_FALLBACK_HELP = (
    "Modes to play in instead, comma-separated in order, when the endpoint refuses the reply "
    "mode's response format (e.g. json,text); none: such a run stops before playing."
)


def reply_options(reply: str | None, fallback: str | None) -> dict[str, Any]:
    """The contract options of `--reply` and `--reply-fallback` (the contract checks them)."""
    options: dict[str, Any] = {}
    if reply is not None:
        options["reply"] = reply.strip()
    if fallback is not None:
        options["reply_fallback"] = [m.strip() for m in fallback.split(",") if m.strip()]
    return options


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
    from bounded.envs.workbench import select_tasks
    from bounded.jobs.workbench import ENV_ID, format_table, run_suite
    from bounded.runner.build import build_contract, build_model
    from bounded.runner.spec import make_spec
    from bounded.sweeps.preflight import unreachable_models

    select_tasks(tasks)  # refuse an unknown task or a bad contract before loading a model
    spec = make_spec(
        env=ENV_ID, contract=contract, contract_config=contract_config, model=model,
        base_url=base_url, model_options=model_options,
    )  # fmt: skip
    build_contract(spec)
    llm = build_model(spec)
    problems = unreachable_models([(model, base_url, llm)])
    if problems:
        raise ConfigError("; ".join(problems))
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
    console.print(f"archive: {archive}", markup=False)


COMMANDS: dict[str, Callable[..., None]] = {
    "run": run,
}
"""Command name -> its function, registered by `bounded.cli`."""
