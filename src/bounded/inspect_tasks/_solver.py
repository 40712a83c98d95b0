"""Each bounded contract as an inspect `Solver`: it plays the sample's episode through
bounded's one builder and episode loop, asking inspect's model for every decision."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import anyio.to_thread
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from bounded.archive import Archive
from bounded.core import JSON, DecisionRecord, Observation, RunRecord
from bounded.inspect_tasks._model import InspectModel, SchemaForm
from bounded.runner import GameSpec, play
from bounded.runner.spec import DEFAULT_CONTRACT


class LayerTokens:
    """Prompt tokens per layer over an episode (the runner's observer)."""

    def __init__(self) -> None:
        self.totals: dict[str, int] = {}
        self.decisions = 0

    def __call__(self, record: DecisionRecord, _next: Observation) -> None:
        self.decisions += 1
        for layer, tokens in record.tokens_by_layer.items():
            self.totals[layer] = self.totals.get(layer, 0) + tokens


def play_sample(
    spec: GameSpec, model: InspectModel, archive: str | None
) -> tuple[RunRecord, LayerTokens]:
    """Play one game (in a worker thread); with an archive path, every decision is archived."""
    layers = LayerTokens()
    if archive is None:
        return play(spec, model=model, observer=layers), layers
    with Archive(Path(archive)) as store:
        return play(spec, model=model, archive=store, observer=layers), layers


def sample_spec(state: TaskState, contract: str, settings: JSON) -> GameSpec:
    """The game a sample names (`env`, `env_options` and `seed` in its metadata)."""
    meta = state.metadata
    return GameSpec(
        env=meta["env"],
        env_options=meta.get("env_options", {}),
        seed=int(meta["seed"]),
        contract=contract,
        model=f"inspect:{state.model}",
        tag=f"inspect-{contract}",
        **settings,
    )


@solver
def bounded_solver(
    contract: str = DEFAULT_CONTRACT,
    contract_config: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    max_decisions: int | None = None,
    schema: SchemaForm = "json_schema",
    archive: str | None = None,
) -> Solver:
    """Play the sample's game under `contract` (a name, preset or import path, as anywhere
    in bounded), each decision asked of the evaluation's model; the run's outcome and its
    prompt tokens per layer go into the sample's metadata for the scorer. A setting left
    None takes `GameSpec`'s default (the temperature: the contract's, else 0)."""
    given = {"max_tokens": max_tokens, "temperature": temperature, "max_decisions": max_decisions}
    settings = {
        "contract_config": contract_config or {},
        **{name: value for name, value in given.items() if value is not None},
    }

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        spec = sample_spec(state, contract, settings)
        model = InspectModel(get_model(), schema=schema)
        run, layers = await anyio.to_thread.run_sync(partial(play_sample, spec, model, archive))
        state.metadata.update(
            {
                "outcome": run.outcome,
                "status": run.status,
                "run_id": run.run_id,
                "decisions": run.decisions,
                "model_calls": run.model_calls,
                "prompt_tokens": run.prompt_tokens,
                "completion_tokens": run.completion_tokens,
                "tokens_by_layer": layers.totals,
            }
        )
        verdict = "victory" if run.outcome.get("victory") else "no victory"
        summary = f"{verdict}: score {run.outcome.get('score')} after {run.decisions} decisions"
        state.output = ModelOutput.from_content(model=str(state.model), content=summary)
        state.completed = True
        return state

    return solve


def contract_solver(name: str) -> Any:
    """A solver of one named contract, with the same settings as `bounded_solver`."""

    def make(**settings: Any) -> Solver:
        return bounded_solver(contract=name, **settings)

    make.__name__ = name.replace("-", "_")
    make.__doc__ = f"Play the episode under bounded's `{name}` contract."
    return solver(name=name)(make)


state_solver = contract_solver("state")
transcript_solver = contract_solver("transcript")
summary_solver = contract_solver("summary")
typed_solver = contract_solver("typed")
episodic_solver = contract_solver("episodic")

__all__ = [
    "LayerTokens",
    "bounded_solver",
    "contract_solver",
    "episodic_solver",
    "state_solver",
    "summary_solver",
    "transcript_solver",
    "typed_solver",
]
