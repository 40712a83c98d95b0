"""A bounded `Model` over inspect_ai's model API, so that the episode loop (synchronous,
in a worker thread) asks whatever model the evaluation runs: `--model openai/...`,
`ollama/...`, `llama-cpp-python/...`, any provider inspect supports."""

from __future__ import annotations

import time
from functools import partial
from typing import Any, Literal

import anyio.from_thread
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
)
from inspect_ai.model import Model as InspectApiModel
from inspect_ai.util import JSONSchema

from bounded.core import DEFAULT_MAX_TOKENS, JSON, Completion, approx_tokens
from bounded.protocols import ModelBase

SchemaForm = Literal["json_schema", "json_object", "none"]
"""How the contract's reply schema reaches the provider: inspect's `ResponseSchema`
(OpenAI's `json_schema` form; inspect's schema type keeps the common keywords), the
`json_object` form with the schema beside it (llama.cpp's servers, which refuse the
other), or not at all (the reply is parsed as text)."""


def chat_messages(messages: list[dict[str, str]]) -> list[ChatMessage]:
    """OpenAI-style messages as inspect's chat messages."""
    kinds: dict[str, Any] = {
        "system": ChatMessageSystem,
        "user": ChatMessageUser,
        "assistant": ChatMessageAssistant,
    }
    return [kinds.get(m["role"], ChatMessageUser)(content=m["content"]) for m in messages]


def schema_config(constraint: JSON | None, form: SchemaForm) -> dict[str, Any]:
    """`GenerateConfig` fields that ask for replies under `constraint`."""
    if constraint is None or form == "none":
        return {}
    if form == "json_object":
        return {"extra_body": {"response_format": {"type": "json_object", "schema": constraint}}}
    schema = JSONSchema.model_validate(constraint)
    return {"response_schema": ResponseSchema(name="decision", json_schema=schema, strict=False)}


class InspectModel(ModelBase):
    """Completes prompts through an inspect model from a thread started by
    `anyio.to_thread.run_sync` (the solver's), whose event loop makes the call."""

    def __init__(self, model: InspectApiModel, *, schema: SchemaForm = "json_schema") -> None:
        self.model = model
        self.id = f"inspect:{model}"
        self.context_window: int | None = None
        self.schema: SchemaForm = schema

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        constraint: JSON | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        seed: int | None = None,
    ) -> Completion:
        config = GenerateConfig(
            max_tokens=max_tokens,
            temperature=temperature,
            seed=seed,
            **schema_config(constraint, self.schema),
        )
        started = time.perf_counter()
        generate = partial(self.model.generate, chat_messages(messages), config=config)
        output = anyio.from_thread.run(generate)
        usage = output.usage
        text = output.completion
        return Completion(
            text=text,
            prompt_tokens=usage.input_tokens
            if usage
            else sum(approx_tokens(m["content"]) for m in messages),
            completion_tokens=usage.output_tokens if usage else approx_tokens(text),
            cached_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
            usage_estimated=usage is None,
            latency_s=time.perf_counter() - started,
            model=self.id,
            finish_reason=str(output.stop_reason),
        )


__all__ = ["InspectModel", "SchemaForm", "chat_messages", "schema_config"]
