"""One metering path for every model call of a run.

The runner wraps the run's model in a `MeteredModel` and hands that wrapper to the
contract in its `EpisodeContext`: the decision's own call and every call a contract
makes itself (a summary, a strategy description, postrun learning) go through it and
are counted the same way. The runner takes the calls made since it last looked with
`drain()` and adds them to the decision's record or to the run's postrun.
"""

from __future__ import annotations

from typing import Any

from bounded.core import JSON, Completion, Model


class MeteredModel:
    """A model that keeps every completion it returns until `drain()` takes them."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.id = inner.id
        self.context_window: int | None = getattr(inner, "context_window", None)
        self._calls: list[Completion] = []

    def __getattr__(self, attr: str) -> Any:
        if attr == "inner":
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        completion = self.inner.complete(
            messages,
            constraint=constraint,
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
        )
        if not completion.model:  # every call is counted under the model that made it
            completion = completion.model_copy(update={"model": self.id})
        self._calls.append(completion)
        return completion

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def drain(self) -> list[Completion]:
        """The calls made since the last drain, oldest first."""
        calls, self._calls = self._calls, []
        return calls


__all__ = ["MeteredModel"]
