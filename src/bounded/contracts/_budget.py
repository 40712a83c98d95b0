"""The prompt budget of a contract that drops its oldest history to fit (the transcript,
BALROG's agents): the episode model's token counter, its exact chat-template count where it
has one, and the budget itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bounded.core import TokenCounter, approx_tokens
from bounded.protocols import Model

ExactCount = Callable[[list[dict[str, str]]], tuple[list[int], Any]]
"""A model's `prompt_tokens`: the messages as it tokenizes them with its chat template."""


@dataclass(frozen=True)
class PromptBudget:
    count: TokenCounter = approx_tokens
    exact: ExactCount | None = None
    limit: int | None = None
    """Most prompt tokens; None: no budget."""


def prompt_budget(
    model: Model | None, max_prompt_tokens: int | None, reply_tokens: int
) -> PromptBudget:
    """`max_prompt_tokens` where set, else the model's context window less `reply_tokens`
    (the room kept for the reply), else none; counted as `model` counts."""
    exact = getattr(model, "prompt_tokens", None)
    limit = max_prompt_tokens
    window = model.context_window if model is not None else None
    if limit is None and window:
        limit = int(window) - reply_tokens
    return PromptBudget(
        count=model.count_tokens if model is not None else approx_tokens,
        exact=exact if callable(exact) else None,
        limit=limit,
    )


__all__ = ["ExactCount", "PromptBudget", "prompt_budget"]
