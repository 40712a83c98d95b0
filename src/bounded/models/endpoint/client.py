"""The `openai:` model: a chat model behind an OpenAI-compatible HTTP API.

It asks in the response format the server takes (`formats`; in `auto` mode it negotiates
on the first constrained call), under its retry policy (`retry`), through one transport
whose every socket operation ends by the call's deadline (`transport`), and reads the reply:
its content, its reasoning channel and its usage, or its tokens counted (`tokens`) when the
server reports none. `bounded.models.openai_compat` describes the whole behaviour."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import Any, get_args

import openai

from bounded.core import (
    DEFAULT_MAX_TOKENS,
    JSON,
    Completion,
    ConfigError,
    Embeddings,
    ResponseFormatRefused,
    TokenCounter,
)
from bounded.models.endpoint.formats import (
    JSON_OBJECT,
    SchemaMode,
    format_name,
    refuses_format,
    refuses_schema,
    response_format,
)
from bounded.models.endpoint.retry import (
    EndpointError,
    RetryPolicy,
    retry_after,
    retry_policy,
    retrying_for,
)
from bounded.models.endpoint.tokens import token_counter
from bounded.models.endpoint.transport import (
    Poster,
    bounded_client,
    ending_by,
    environment_proxy,
)
from bounded.protocols import ModelBase, is_any_object

LOG = logging.getLogger("bounded")


def one_line(text: str, limit: int = 300) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class OpenAICompatModel(ModelBase):
    """A chat model behind an OpenAI-compatible HTTP API."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        schema_mode: SchemaMode = "auto",
        retry: RetryPolicy | Mapping[str, Any] | None = None,
        tokenizer: TokenCounter | str | None = None,
        embedding_model: str | None = None,
    ) -> None:
        if not model:
            raise ConfigError("openai model needs a name: openai:MODEL")
        if schema_mode not in get_args(SchemaMode):
            raise ConfigError(
                f"schema_mode must be one of {', '.join(get_args(SchemaMode))}, got {schema_mode!r}"
            )
        api_key = os.environ.get(api_key_env)
        if api_key is None and base_url is None:
            raise ConfigError(
                f"openai:{model} needs an API key in ${api_key_env} or a base URL "
                "(--base-url, or base_url in an experiment file)"
            )
        self.id = f"openai:{model}"
        self.context_window: int | None = None
        self.model = model
        self.schema_mode: SchemaMode = schema_mode
        self.retry = retry_policy(retry)
        self.run_deadline_s = self.retry.run_deadline_s
        """Model time a run may spend with this model (the runner enforces it)."""
        self.attempts_made = 0
        """HTTP attempts since the model was built, retries included."""
        self._count = token_counter(tokenizer)
        self.client = bounded_client(base_url, api_key or "unused", self.retry.timeout_s)
        proxy = environment_proxy(str(self.client.base_url))
        self.poster = Poster(self.client, self.retry.timeout_s, proxy)
        """Sends the chat and embeddings requests (`bounded.models.endpoint.transport`)."""
        self.embedding_model = embedding_model
        """The model `/v1/embeddings` is asked for (`embed`); None: this model cannot embed."""
        self._sent_format = "none"
        """The response format of the request in progress (`format_name`)."""

    @property
    def retry(self) -> RetryPolicy:
        """The retry policy of every call; replacing it (the preflight probe does) replaces
        the `Retrying` the calls run under."""
        return self._retry

    @retry.setter
    def retry(self, policy: RetryPolicy) -> None:
        self._retry = policy
        self._retrying = retrying_for(policy)

    @property
    def embed(self) -> Callable[[list[str]], Embeddings]:
        """Embeddings from the endpoint's `/v1/embeddings` for `embedding_model`; an
        AttributeError when none is named, so `isinstance(model, Embedder)` is False."""
        if not self.embedding_model:
            raise AttributeError("embed: this model names no embedding_model")
        return self._embed

    def _embed(self, texts: list[str]) -> Embeddings:
        name = self.embedding_model or ""
        started = time.perf_counter()
        try:
            with ending_by(time.monotonic() + self.retry.timeout_s):
                response = self.poster.post({"model": name, "input": texts}, "embeddings")
        except openai.OpenAIError as exc:
            elapsed = time.perf_counter() - started
            raise EndpointError(self._failure(exc, 1, elapsed)) from exc
        data = response.get("data")
        rows = [row for row in data if isinstance(row, dict)] if isinstance(data, list) else []
        if len(rows) != len(texts):
            raise EndpointError(f"{self.id}: {len(rows)} embeddings for {len(texts)} texts")
        rows.sort(key=lambda row: int(row.get("index", 0)))
        tokens = field_of(response, "usage").get("prompt_tokens")
        if not isinstance(tokens, int):
            tokens = sum(self.count_tokens(text) for text in texts)
        return Embeddings(
            vectors=[list(map(float, row.get("embedding") or [])) for row in rows],
            prompt_tokens=tokens,
            latency_s=time.perf_counter() - started,
            model=f"openai:{name}",
        )

    def count_tokens(self, text: str) -> int:
        return self._count(text)

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
        if seed is not None:
            params["seed"] = seed
        started = time.perf_counter()
        deadline = time.monotonic() + self.retry.timeout_s
        attempts = self.attempts_made
        try:
            response = self._respond(messages, params, constraint, deadline)
        except openai.OpenAIError as exc:
            if self._sent_format != "none" and refuses_format(exc):
                raise ResponseFormatRefused(self._refusal(exc), self._sent_format) from exc
            elapsed = time.perf_counter() - started
            raise EndpointError(self._failure(exc, self.attempts_made - attempts, elapsed)) from exc
        self.last_response_format = self._sent_format
        return self._completion(response, messages, time.perf_counter() - started)

    def _refusal(self, exc: openai.OpenAIError) -> str:
        """One line: the endpoint refuses this response format, and its words."""
        status = getattr(exc, "status_code", "?")
        return (
            f"{self.id} refuses the {self._sent_format} response format "
            f"(HTTP {status}: {one_line(str(exc), 160)})"
        )

    def _respond(
        self, messages: list[dict[str, str]], params: dict[str, Any], schema: JSON | None,
        deadline: float,
    ) -> Any:  # fmt: skip
        """The reply, in the schema form the server takes (the `json` mode's any-object
        constraint: the standard `json_object` form)."""
        if schema is None or self.schema_mode == "none":
            return self._request(messages, params, deadline)
        if is_any_object(schema):
            return self._request(messages, {**params, "response_format": JSON_OBJECT}, deadline)
        if self.schema_mode == "auto":
            return self._negotiate(messages, params, schema, deadline)
        form = response_format(schema, self.schema_mode)
        return self._request(messages, {**params, "response_format": form}, deadline)

    def _negotiate(
        self, messages: list[dict[str, str]], params: dict[str, Any], schema: JSON,
        deadline: float,
    ) -> Any:  # fmt: skip
        """Ask in the standard json_schema form (retried like any call); a server that refuses
        the schema is asked in llama.cpp's json_object form, now and for the rest of the run.
        Any other failure leaves the form undecided."""
        standard = {**params, "response_format": response_format(schema, "json_schema")}
        try:
            response = self._request(messages, standard, deadline)
        except openai.APIStatusError as exc:
            if not refuses_schema(exc):
                raise
            LOG.warning(
                "%s refuses the json_schema response format (HTTP %s); asking in llama.cpp's "
                "json_object form with the schema, whose server decodes under it",
                self.id, exc.status_code,
            )  # fmt: skip
            self.schema_mode = "json_object"
            fallback = {**params, "response_format": response_format(schema, "json_object")}
            return self._request(messages, fallback, deadline)
        self.schema_mode = "json_schema"
        return response

    def _request(
        self, messages: list[dict[str, str]], params: dict[str, Any], deadline: float
    ) -> Any:
        """One request under the retry policy, every attempt and wait ending by `deadline`."""
        self._sent_format = format_name(params)
        return self._retrying(self._attempt, messages, params, deadline=deadline)

    def _attempt(
        self, messages: list[dict[str, str]], params: dict[str, Any], deadline: float
    ) -> Any:
        """One HTTP attempt, every socket operation of it ending by its deadline."""
        self.attempts_made += 1
        ends = deadline
        if self.retry.attempt_timeout_s is not None:
            ends = min(deadline, time.monotonic() + self.retry.attempt_timeout_s)
        with ending_by(ends):
            return self.poster.post({"model": self.model, "messages": messages, **params})

    def _failure(self, exc: openai.OpenAIError, attempts: int, elapsed: float) -> str:
        """One line: how many attempts, how long, the last error and any wait asked for."""
        asked = retry_after(exc)
        wait = f"; the server asked to wait {asked:.0f} s" if asked is not None else ""
        plural = "" if attempts == 1 else "s"
        return (
            f"{self.id}: no reply after {attempts} attempt{plural} in {elapsed:.1f} s "
            f"({type(exc).__name__}: {one_line(str(exc))}{wait})"
        )

    def _completion(
        self, response: JSON, messages: list[dict[str, str]], latency: float
    ) -> Completion:
        choices = response.get("choices")
        if not choices or not isinstance(choices, list) or not isinstance(choices[0], dict):
            raise EndpointError(f"{self.id}: a reply without choices")
        choice = choices[0]
        message = field_of(choice, "message")
        text = message.get("content") or ""
        reasoning = reasoning_channel(message)
        usage = field_of(response, "usage")
        prompt, completion, cached, estimated = self._usage(usage, messages, text)
        thought = reasoning_tokens(usage)
        if thought is None:
            thought = self.count_tokens(reasoning) if reasoning else 0
        if estimated:  # the server's count includes them; ours counted the content only
            completion += thought
        return Completion(
            text=text if isinstance(text, str) else str(text),
            prompt_tokens=prompt,
            completion_tokens=completion,
            cached_tokens=cached,
            usage_estimated=estimated,
            latency_s=latency,
            model=self.id,
            finish_reason=choice.get("finish_reason") or "",
            reasoning=reasoning,
            reasoning_tokens=thought,
        )

    def _usage(
        self, usage: JSON, messages: list[dict[str, str]], text: str
    ) -> tuple[int, int, int, bool]:
        """(prompt, completion, cached tokens, estimated): the server's count, or ours when
        its reply has none."""
        prompt = usage.get("prompt_tokens")
        completion = usage.get("completion_tokens")
        if isinstance(prompt, int) and isinstance(completion, int):
            cached = field_of(usage, "prompt_tokens_details").get("cached_tokens")
            return prompt, completion, cached if isinstance(cached, int) else 0, False
        prompt = sum(self.count_tokens(message.get("content") or "") for message in messages)
        return prompt, self.count_tokens(text), 0, True


def field_of(parent: JSON, name: str) -> JSON:
    """A reply's object field, {} when it is missing or not an object."""
    value = parent.get(name)
    return value if isinstance(value, dict) else {}


REASONING_FIELDS = ("reasoning_content", "reasoning")
"""Where servers put a reasoning channel beside the content, in the order they are read."""


def reasoning_channel(message: JSON) -> str:
    """The reply's reasoning text apart from its content ("" when it has none)."""
    for name in REASONING_FIELDS:
        value = message.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def reasoning_tokens(usage: JSON) -> int | None:
    """The reasoning tokens the server reports (`usage.completion_tokens_details`), or None."""
    value = field_of(usage, "completion_tokens_details").get("reasoning_tokens")
    return value if isinstance(value, int) else None


__all__ = [
    "REASONING_FIELDS",
    "OpenAICompatModel",
    "field_of",
    "one_line",
    "reasoning_channel",
    "reasoning_tokens",
]
