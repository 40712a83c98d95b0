"""The environment's outcome as an inspect `Scorer`: victory, score and progression, read
from what the solver left in the sample's metadata."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from bounded.core import victory_of


@scorer(metrics={"victory": [mean(), stderr()], "score": [mean(), stderr()], "progress": [mean()]})
def outcome_scorer() -> Scorer:
    """Victory (1 or 0), the environment's own score, and progress from 0 to 1, as bounded's
    `Outcome` defines them for the environment; the run's metrics and prompt tokens per
    layer ride along as the score's metadata."""

    async def score(state: TaskState, target: Target) -> Score:
        outcome = state.metadata.get("outcome")
        if not outcome or state.metadata.get("status") != "completed":
            return Score(
                value={"victory": 0.0, "score": 0.0, "progress": 0.0},
                explanation=f"the game did not complete ({state.metadata.get('status')})",
            )
        return Score(
            value={
                "victory": 1.0 if victory_of(outcome) else 0.0,
                "score": float(outcome.get("score", 0.0)),
                "progress": float(outcome.get("progress", 0.0)),
            },
            answer=state.output.completion,
            metadata={
                "outcome": outcome,
                "tokens_by_layer": state.metadata.get("tokens_by_layer", {}),
            },
        )

    return score


__all__ = ["outcome_scorer"]
