"""`bounded models probe URL`: which response formats an endpoint takes, and so which
reply modes (`reply = constrained | json | text`) a game can play against it."""

from __future__ import annotations

from typing import Annotated

import typer

from bounded.cli._output import console

models_app = typer.Typer(help="Model endpoints: what they take.", no_args_is_help=True)


@models_app.command("probe")
def probe_command(
    url: Annotated[str, typer.Argument(help="Base URL of an OpenAI-compatible server (…/v1).")],
    model: Annotated[str, typer.Option(help="The model name the server serves.")] = "default",
    timeout: Annotated[float, typer.Option(min=0.001, help="Seconds per probe call.")] = 30.0,
) -> None:
    """Ask once in each response format; one line per format, then the playable modes."""
    from bounded.models.openai_compat import OpenAICompatModel
    from bounded.models.probe import playable_modes, probe

    client = OpenAICompatModel(
        model, base_url=url, retry={"timeout_s": timeout, "attempts": 2, "backoff_s": 0.1}
    )
    results = probe(client)
    for result in results:
        kept = "" if result.kept is None else (" (kept to it)" if result.kept else " (ignored it)")
        console.print(f"{result.format}: {result.verdict}{kept} {result.detail}".rstrip())
    for mode, form in playable_modes(results).items():
        console.print(f"reply = {mode!r}: " + (f"plays with {form}" if form else "refused"))


GROUPS: dict[str, typer.Typer] = {"models": models_app}
"""Group name -> its Typer app, registered by `bounded.cli`."""
