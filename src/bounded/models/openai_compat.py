"""Any OpenAI-compatible endpoint (hosted APIs, vLLM, llama.cpp's server, Ollama) via the SDK.

Constrained output: standard servers take `response_format={"type": "json_schema", ...}`;
llama.cpp's server rejects that and wants `{"type": "json_object", "schema": ...}`. In
`auto` mode the first constrained call tries the standard form and, if the server
refuses it, switches to the other for the rest of the run.
"""

from __future__ import annotations

import os
import time
from typing import Any, Literal

import openai
from tenacity import (
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from bounded.core import JSON, Completion, ConfigError, approx_tokens

SchemaMode = Literal["auto", "json_schema", "json_object", "none"]

RETRIED = (
    openai.APITimeoutError,
    openai.APIConnectionError,
    openai.RateLimitError,
    openai.InternalServerError,
)
"""Transient failures worth another attempt; anything else (bad request, auth) aborts."""


class OpenAICompatModel:
    """A chat model behind an OpenAI-compatible HTTP API."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        schema_mode: SchemaMode = "auto",
        attempts: int = 5,
        timeout_s: float = 120.0,
        max_wait_s: float = 30.0,
    ) -> None:
        if not model:
            raise ConfigError("openai model needs a name: openai:MODEL")
        api_key = os.environ.get(api_key_env)
        if api_key is None and base_url is None:
            raise ConfigError(f"openai:{model} needs an API key in ${api_key_env} or a --base-url")
        self.id = f"openai:{model}"
        self.context_window: int | None = None
        self.model = model
        self.schema_mode: SchemaMode = schema_mode
        self.attempts = attempts
        self.max_wait_s = max_wait_s
        self.client = openai.OpenAI(
            base_url=base_url, api_key=api_key or "unused", timeout=timeout_s, max_retries=0
        )

    def count_tokens(self, text: str) -> int:
        return approx_tokens(text)

    def _response_format(self, schema: JSON, mode: SchemaMode) -> JSON | None:
        if mode == "json_object":
            return {"type": "json_object", "schema": schema}
        if mode in ("json_schema", "auto"):
            return {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": schema, "strict": True},
            }
        return None

    def _request(self, messages: list[dict[str, str]], params: dict[str, Any]) -> Any:
        retrying = Retrying(
            retry=retry_if_exception_type(RETRIED),
            stop=stop_after_attempt(self.attempts),
            wait=wait_exponential(multiplier=0.5, max=self.max_wait_s),
            reraise=True,
        )
        return retrying(self._create, messages, params)

    def _create(self, messages: list[dict[str, str]], params: dict[str, Any]) -> Any:
        create: Any = self.client.chat.completions.create
        return create(model=self.model, messages=messages, **params)

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": temperature}
        if seed is not None:
            params["seed"] = seed
        started = time.perf_counter()
        if constraint is not None and self.schema_mode == "auto":
            response = self._negotiate(messages, params, constraint)
        else:
            if constraint is not None and self.schema_mode != "none":
                params["response_format"] = self._response_format(constraint, self.schema_mode)
            response = self._request(messages, params)
        return self._completion(response, time.perf_counter() - started)

    def _negotiate(
        self, messages: list[dict[str, str]], params: dict[str, Any], schema: JSON
    ) -> Any:
        """Try the standard json_schema form once; on refusal use llama.cpp's json_object form."""
        try:
            standard = {**params, "response_format": self._response_format(schema, "json_schema")}
            response = self._create(messages, standard)
        except (
            openai.BadRequestError,
            openai.InternalServerError,
            openai.UnprocessableEntityError,
        ):
            self.schema_mode = "json_object"
        else:
            self.schema_mode = "json_schema"
            return response
        params = {**params, "response_format": self._response_format(schema, "json_object")}
        return self._request(messages, params)

    def _completion(self, response: Any, latency: float) -> Completion:
        choice = response.choices[0]
        usage = response.usage
        details = getattr(usage, "prompt_tokens_details", None) if usage else None
        return Completion(
            text=choice.message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            cached_tokens=(getattr(details, "cached_tokens", 0) or 0) if details else 0,
            latency_s=latency,
            model=self.id,
            finish_reason=choice.finish_reason or "",
        )
