"""One metering path for every model call of a run.

The runner wraps the run's model in a `MeteredModel` and hands that wrapper to the
contract in its `EpisodeContext`: the decision's own call and every call a contract
makes itself (a summary, a strategy description, postrun learning) go through it and
are counted the same way. The runner takes the calls made since it last looked with
`drain()` and adds them to the decision's record or to the run's postrun. The runner's
`ClockedModel` also keeps each model's time and answered and failed calls, and stops a
run whose model time passes the model's per-run deadline.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from bounded.core import (
    DEFAULT_MAX_TOKENS,
    JSON,
    BoundedError,
    Completion,
    Embeddings,
    Prompt,
    TokenCounter,
)
from bounded.protocols import Model, ReplyReader, TextRule


def reads_reply_schema(model: object) -> bool:
    """Whether a model is told the reply's schema and text rule in the `json` and `text`
    reply modes (`bounded.protocols.ReplyReader`)."""
    return isinstance(model, ReplyReader) and model.reads_reply_schema is True


class MeteredModel:
    """A model that keeps every completion it returns until `drain()` takes them, each with
    its tokens counted by the model's tokenizer beside those the server reported."""

    def __init__(self, inner: Model) -> None:
        self.inner = inner
        self.id = inner.id
        self.context_window = inner.context_window
        self.run_deadline_s = inner.run_deadline_s
        self._calls: list[Completion] = []
        self._messages = PromptCounter(inner.count_tokens).of_messages

    def __getattr__(self, attr: str) -> Any:
        if attr == "inner":
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
        reply_schema: JSON | None = None,
        text_rule: TextRule | None = None,
    ) -> Completion:
        """The inner model's completion, kept. `reply_schema` and `text_rule` (what the
        reply is asked to hold, and in `text` mode its form) are handed on only to a model
        that reads them (`reads_reply_schema`), never to another."""
        if reads_reply_schema(self.inner):
            complete: Any = self.inner.complete
            completion = complete(
                messages, constraint=constraint, max_tokens=max_tokens,
                temperature=temperature, seed=seed, reply_schema=reply_schema,
                text_rule=text_rule,
            )  # fmt: skip
        else:
            completion = self.inner.complete(
                messages, constraint=constraint, max_tokens=max_tokens,
                temperature=temperature, seed=seed,
            )  # fmt: skip
        update: dict[str, Any] = {
            "counted_prompt_tokens": self._messages(messages),
            "counted_completion_tokens": self.inner.count_tokens(completion.text)
            + (self.inner.count_tokens(completion.reasoning) if completion.reasoning else 0),
        }
        if not completion.model:  # every call is counted under the model that made it
            update["model"] = self.id
        completion = completion.model_copy(update=update)
        self._calls.append(completion)
        return completion

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    @property
    def embed(self) -> Callable[[list[str]], Embeddings]:
        """The inner model's `embed`, metered: each call is kept as a `Completion` with no
        text, its input tokens and `finish_reason="embedding"`. An AttributeError when the
        inner model cannot embed, so `isinstance(meter, Embedder)` says what the inner does."""
        inner_embed = self.inner.embed  # type: ignore[attr-defined]

        def metered(texts: list[str]) -> Embeddings:
            result: Embeddings = inner_embed(texts)
            self._calls.append(
                Completion(
                    text="",
                    prompt_tokens=result.prompt_tokens,
                    counted_prompt_tokens=sum(self.inner.count_tokens(t) for t in texts),
                    latency_s=result.latency_s,
                    model=result.model or self.id,
                    finish_reason="embedding",
                )
            )
            return result

        return metered

    def drain(self) -> list[Completion]:
        """The calls made since the last drain, oldest first."""
        calls, self._calls = self._calls, []
        return calls


class PromptCounter:
    """Token counts of prompts by layer, each segment text counted once while prompts keep
    resending it: the counts of the latest prompt's texts are kept for the next one (a
    transcript resends every earlier turn; counting them all again made its decisions cost
    more than their prompts' growth), and only those, so what is kept stays one prompt's."""

    def __init__(self, count: TokenCounter) -> None:
        self._count = count
        self._latest: dict[str, int] = {}

    def counts(self, texts: Iterable[str]) -> list[int]:
        """Each text's tokens, in order; the texts seen here are the next call's cache."""
        counted: dict[str, int] = {}
        found = []
        for text in texts:
            tokens = counted.get(text)
            if tokens is None:
                tokens = self._latest.get(text)
                if tokens is None:
                    tokens = self._count(text)
                counted[text] = tokens
            found.append(tokens)
        self._latest = counted
        return found

    def by_layer(self, prompt: Prompt) -> dict[str, int]:
        totals: dict[str, int] = {}
        segments = prompt.segments
        for segment, tokens in zip(segments, self.counts(s.text for s in segments), strict=True):
            totals[segment.layer] = totals.get(segment.layer, 0) + tokens
        return totals

    def of_messages(self, messages: list[dict[str, str]]) -> int:
        """The tokens of one call's messages (their contents, as counted above)."""
        return sum(self.counts(str(m.get("content") or "") for m in messages))


class ModelUnavailableError(BoundedError, RuntimeError):
    """The model failed several decisions in a row, or never answered: the run stops as
    `failed`."""


class ModelDeadlineError(ModelUnavailableError):
    """A model's time in the run passed its per-run deadline: the run stops as `failed`."""


class ClockedModel(MeteredModel):
    """A metered model that also keeps the run's time with it (every call, failed ones and
    retries included) and how many calls it answered or failed, and stops the run once the
    model's budget of model time per run (its `run_deadline_s`, when it is not None) is
    spent."""

    def __init__(self, inner: Model) -> None:
        super().__init__(inner)
        self.spent_s = 0.0
        self.answered = 0
        self.failed = 0
        self.last_error = ""

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
        reply_schema: JSON | None = None,
        text_rule: TextRule | None = None,
    ) -> Completion:
        self._check_budget()
        started = time.perf_counter()
        try:
            completion = super().complete(
                messages, constraint=constraint, max_tokens=max_tokens,
                temperature=temperature, seed=seed, reply_schema=reply_schema,
                text_rule=text_rule,
            )  # fmt: skip
        except Exception as exc:
            self.spent_s += time.perf_counter() - started
            self.failed += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
            self._check_budget(exc)
            raise
        self.spent_s += time.perf_counter() - started
        self.answered += 1
        self._check_budget()
        return completion

    def _check_budget(self, cause: BaseException | None = None) -> None:
        """Raise `ModelDeadlineError` once the run's model time has reached the budget."""
        budget = self.run_deadline_s
        if budget is not None and self.spent_s >= budget:
            raise ModelDeadlineError(
                f"{self.id}: model time {self.spent_s:.1f} s passed the run's deadline of "
                f"{budget:g} s"
            ) from cause


__all__ = [
    "ClockedModel",
    "MeteredModel",
    "ModelDeadlineError",
    "ModelUnavailableError",
    "PromptCounter",
]
