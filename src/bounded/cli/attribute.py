"""`bounded attribute ARCHIVE`: counterfactual layer attribution of archived decisions.

Cost first: the number of model calls and an estimate of their tokens are printed before
any call is made (`--dry-run` stops there, `--max-calls` caps a session); every answer is
written at once, so a killed attribution continues when the command is run again.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bounded.archive import DEFAULT_ARCHIVE, Archive
from bounded.cli._options import ArchiveArgument
from bounded.cli._output import folded, keyed_table
from bounded.core import ConfigError

console = Console()


def print_view(view: Table) -> None:
    """A table folded to this console's width (its first two columns on every panel)."""
    for panel in folded(view, console.width, keys=2):
        console.print(panel)


def parse_replacements(values: list[str]) -> dict[str, str]:
    """`LAYER=TEXT` or `LAYER=@FILE` into layer -> text."""
    replacements = {}
    for value in values:
        layer, sep, text = value.partition("=")
        if not sep or not layer.strip():
            raise ConfigError(f"--replace takes LAYER=TEXT or LAYER=@FILE, got {value!r}")
        if text.startswith("@"):
            path = Path(text[1:])
            if not path.is_file():
                raise ConfigError(f"--replace {layer}: no file {path}")
            text = path.read_text()
        replacements[layer.strip()] = text
    return replacements


def attribution_view(archive: Archive, run_ids: set[str]) -> Table:
    """The per-layer table of the archive's counterfactuals (of the given runs)."""
    from bounded.analysis.attribution import attribution_table
    from bounded.archive.counterfactuals import iter_counterfactuals

    rows = (row for row in iter_counterfactuals(archive) if row.run_id in run_ids)
    headers = ("layer removed", "kind", "n", "changed %", "95% CI", "original = expert %",
               "95% CI", "counterfactual = expert %", "95% CI", "McNemar p")  # fmt: skip
    view = keyed_table(
        "layer attribution (Wilson 95% intervals; McNemar exact test)", headers, keys=2
    )

    def pct(value: float) -> str:
        return f"{100 * value:.1f}"

    def ci(interval: tuple[float, float]) -> str:
        return f"[{pct(interval[0])}, {pct(interval[1])}]"

    for row in attribution_table(rows):
        view.add_row(
            escape(row.label),
            escape(row.kind),
            str(row.decisions),
            pct(row.change_rate),
            ci(row.change_ci),
            pct(row.original_rate),
            ci(row.original_ci),
            pct(row.counterfactual_rate),
            ci(row.counterfactual_ci),
            f"{row.mcnemar_p:.3g}",
        )
    return view


def attribute_command(
    archive: ArchiveArgument = DEFAULT_ARCHIVE,
    layer: Annotated[
        list[str] | None,
        typer.Option("--layer", help="A layer to remove (repeat): L3, L5, state, ..."),
    ] = None,
    run: Annotated[
        list[str] | None, typer.Option("--run", help="Only this run (id or prefix; repeat).")
    ] = None,
    tag: Annotated[str | None, typer.Option(help="Only runs with this tag.")] = None,
    kind: Annotated[
        list[str] | None, typer.Option("--kind", help="Only decisions of this kind (repeat).")
    ] = None,
    sample: Annotated[
        int | None, typer.Option(help="Draw this many decisions (seeded); default: all.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    replace: Annotated[
        list[str] | None,
        typer.Option("--replace", help="LAYER=TEXT or LAYER=@FILE: replace, not remove."),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Model spec to ask (default: each run's own).")
    ] = None,
    base_url: Annotated[str | None, typer.Option(help="Endpoint for openai: models.")] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Reply token limit (default: the run's).")
    ] = None,
    temperature: Annotated[
        float | None, typer.Option(help="Temperature (default: the run's).")
    ] = None,
    max_calls: Annotated[
        int | None, typer.Option(help="Make at most this many model calls now.")
    ] = None,
    control: Annotated[
        bool, typer.Option(help="Also ask each prompt unchanged (the model's own variation).")
    ] = False,
    dry_run: Annotated[bool, typer.Option(help="Print the cost and stop.")] = False,
) -> None:
    """Re-ask archived decisions with one layer removed; report per layer how often the
    decision changes and how often it agrees with the environment's expert."""
    from bounded.attribution import CONTROL, AttributionSpec, attribute, plan_attribution
    from bounded.cli._options import existing_archive
    from bounded.core import first_validation_error

    layer = layer or []
    if not layer and not control:
        raise ConfigError("name a layer to remove (--layer L3), or ask for --control")
    if max_calls is not None and max_calls < 0:
        raise ConfigError(f"--max-calls must be >= 0, got {max_calls}")
    existing_archive(archive)
    layers = list(dict.fromkeys(layer + ([CONTROL] if control else [])))
    try:
        spec = AttributionSpec(
            layers=layers, replacements=parse_replacements(replace or []),
            runs=run or [], tag=tag, kinds=kind or [], sample=sample, seed=seed, model=model,
            base_url=base_url, max_tokens=max_tokens, temperature=temperature,
        )  # fmt: skip
    except ValueError as exc:
        from pydantic import ValidationError

        message = first_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise ConfigError(f"bad attribution settings: {message}") from exc
    with Archive(archive) as store:
        plan = plan_attribution(store, spec)
        size = plan.size()
        console.print(
            f"attribution: {size.decisions} decisions in {len(size.run_ids)} runs x layers "
            f"{', '.join(spec.layers)}: {size.calls} model calls, {size.pending} still to make, "
            f"about {size.prompt_tokens:,} prompt tokens and at most {size.reply_tokens:,} "
            "reply tokens"
        )
        if dry_run or size.pending == 0:
            if size.pending == 0 and size.calls:
                print_view(attribution_view(store, size.run_ids))
            return
        started = time.perf_counter()
        with console.status("asking") as status:
            answered = size.calls - size.pending

            def progress(task: object, row: object) -> None:
                nonlocal answered
                answered += 1
                status.update(f"{answered}/{size.calls} calls")

            made = attribute(store, plan, max_calls=max_calls, progress=progress)
        left = size.pending - made
        seconds = time.perf_counter() - started
        console.print(f"made {made} model calls in {seconds:.1f} s; {left} left")
        if left:
            console.print("stopped at --max-calls; run the same command again to continue")
        print_view(attribution_view(store, size.run_ids))


COMMANDS = {"attribute": attribute_command}

__all__ = ["COMMANDS", "attribute_command", "attribution_view"]
