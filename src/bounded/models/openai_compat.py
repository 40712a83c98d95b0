"""Any OpenAI-compatible endpoint (hosted APIs, vLLM, llama.cpp's server, Ollama) via the SDK.

Reliability: every call, the first one included, follows one `RetryPolicy`. Transient
failures (timeouts, broken connections, 408, 409, 429 and 5xx replies) are retried after
capped exponential backoff, or after the wait the server asks for (`Retry-After`, in
seconds or as an HTTP date); anything else (a bad request, a refused key) ends the call at
once. A call has one wall-clock deadline (`timeout_s`) over all its attempts, its waits
and every byte of every reply, and each attempt may have a shorter one
(`attempt_timeout_s`), so that a hung attempt leaves time for another.

Every request (a chat completion, an embeddings request) is one JSON POST on a kept-alive
connection (`bounded.models.endpoint.transport`: the SDK's request path cost over ten
times a plain POST's CPU); its errors are the SDK's. The deadline is enforced at the
socket: that connection's every connect, read and write is given at most the time left. A
server that drips one byte at a time, or never answers, cannot hold a call past its
deadline, and nothing is left behind: the timed-out connection is closed, and no thread
runs on. (The alternatives fall short: httpx's own timeouts are per operation, so a drip
renews them; streaming checks a clock only between chunks, never while the status line or
headers drip; a watchdog thread can abandon a request but not stop it, and leaves it
running.) A host name is resolved before the deadline applies.

A model also declares a budget of model time per run (`run_deadline_s`), which the
episode runner enforces: a run past it ends `failed`.

Constrained output: standard servers take `response_format={"type": "json_schema", ...}`;
llama.cpp's server rejects that and wants `{"type": "json_object", "schema": ...}`. In
`auto` mode the first constrained call asks in the standard form, and only a reply that
proves the server refuses it (a 400 or 422 naming `response_format` or `json_schema`, or
a validation error of any status naming both) switches this call and the rest of the run
to the other form (and says so in one line on the `bounded` logger); any other 5xx, a 429
or a timeout leaves the choice open. The `json` reply mode's constraint (any JSON object,
`bounded.protocols.ANY_JSON_OBJECT`) is sent as `{"type": "json_object"}`; the `text` mode sends
no response format. A server that refuses the format a call needs (both forms of a schema,
or `json_object`) raises `ResponseFormatRefused`, which the runner turns into the next reply
mode the contract allows, before the game is played, or a one-line stop; what each call
sent is `last_response_format`.

Usage: a reply without `usage` is counted with the model's tokenizer (`tokenizer`: an
embedded model's name or a GGUF path, whose vocabulary llama.cpp loads without the
weights, or a function; `approx_tokens` by default) and flagged `usage_estimated`.

Reasoning models: a reasoning channel beside the content (`reasoning_content` from
DeepSeek-R1-style servers and vLLM's reasoning parsers, `reasoning` from others) is kept
on the completion (`Completion.reasoning`), never parsed as the reply; its tokens are the
server's `completion_tokens_details.reasoning_tokens`, else counted with the tokenizer.
The server's `completion_tokens` include them (OpenAI's usage); an estimated count adds
them. The model declares no reasoning budget: the contracts leave its reasoning uncapped.

Embeddings: with `embedding_model`, `embed(texts)` asks the endpoint's `/v1/embeddings`
for that model (one call within `timeout_s`, no retries: `rag` makes one per decision
and ranks that decision by BM25 alone when it fails); without it the model does not embed
(`isinstance(model, Embedder)` is False).

The code is split by concern under `bounded.models.endpoint` (`retry`, `transport`,
`formats`, `tokens`, `client`); this module keeps every name importable from here.
"""

from __future__ import annotations

from bounded.models.endpoint.client import (
    LOG,
    REASONING_FIELDS,
    OpenAICompatModel,
    field_of,
    one_line,
    reasoning_channel,
    reasoning_tokens,
)
from bounded.models.endpoint.formats import (
    JSON_OBJECT,
    VALIDATION_WORDS,
    SchemaMode,
    format_name,
    refuses_format,
    refuses_schema,
    response_format,
)
from bounded.models.endpoint.retry import (
    RETRIED_STATUS,
    EndpointError,
    RetryPolicy,
    StopAtDeadline,
    WaitPolicy,
    is_transient,
    retry_after,
    retry_policy,
    retrying_for,
)
from bounded.models.endpoint.tokens import gguf_token_counter, token_counter
from bounded.models.endpoint.transport import (
    DEFAULT_BASE_URL,
    bounded_client,
    environment_proxy,
    shared_http_client,
)

__all__ = [
    "DEFAULT_BASE_URL",
    "JSON_OBJECT",
    "LOG",
    "REASONING_FIELDS",
    "RETRIED_STATUS",
    "VALIDATION_WORDS",
    "EndpointError",
    "OpenAICompatModel",
    "RetryPolicy",
    "SchemaMode",
    "StopAtDeadline",
    "WaitPolicy",
    "bounded_client",
    "environment_proxy",
    "field_of",
    "format_name",
    "gguf_token_counter",
    "is_transient",
    "one_line",
    "reasoning_channel",
    "reasoning_tokens",
    "refuses_format",
    "refuses_schema",
    "response_format",
    "retry_after",
    "retry_policy",
    "retrying_for",
    "shared_http_client",
    "token_counter",
]
