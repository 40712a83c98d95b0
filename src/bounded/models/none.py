"""`none`: the model of a game whose every decision is made without one (an expert's game).

Asking it anything is a bug in the game's setup, said in one line."""

from __future__ import annotations

from bounded.core import DEFAULT_MAX_TOKENS, JSON, Completion, ConfigError
from bounded.protocols import ModelBase


class NoModel(ModelBase):
    """Refuses every call: for games played by a scripted player."""

    id = "none"
    context_window: int | None = None

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        raise ConfigError("model 'none' was asked to complete a prompt: this game needs a model")


__all__ = ["NoModel"]
