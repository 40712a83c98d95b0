"""Any OpenAI-compatible endpoint (hosted APIs, vLLM, llama.cpp's server, Ollama) via the SDK.

Reliability: every call, the first one included, follows one `RetryPolicy`. Transient
failures (timeouts, broken connections, 408, 409, 429 and 5xx replies) are retried after
capped exponential backoff, or after the wait the server asks for (`Retry-After`, in
seconds or as an HTTP date); anything else (a bad request, a refused key) ends the call at
once. A call has one wall-clock deadline (`timeout_s`) over all its attempts, its waits
and every byte of every reply, and each attempt may have a shorter one
(`attempt_timeout_s`), so that a hung attempt leaves time for another.

The chat request itself is one JSON POST on a kept-alive connection (`bounded.models._http`:
the SDK's request path cost over ten times a plain POST's CPU); its errors are the SDK's.
The deadline is enforced at the socket: that connection's socket, and for embeddings
httpcore's network backend, are wrapped so that every connect, read and write is given at
most the time left. A server that drips one
byte at a time, or never answers, cannot hold a call past its deadline, and nothing is
left behind: the timed-out connection is closed by httpcore, and no thread runs on. (The
alternatives fall short: httpx's own timeouts are per operation, so a drip renews them;
streaming checks a clock only between chunks, never while the status line or headers
drip; a watchdog thread can abandon a request but not stop it, and leaves it running.) A
host name is resolved before the deadline applies.

A model also declares a budget of model time per run (`run_deadline_s`), which the
episode runner enforces: a run past it ends `failed`.

Constrained output: standard servers take `response_format={"type": "json_schema", ...}`;
llama.cpp's server rejects that and wants `{"type": "json_object", "schema": ...}`. In
`auto` mode the first constrained call asks in the standard form, and only a reply that
proves the server refuses it (a 400 or 422 naming `response_format` or `json_schema`, or
a validation error of any status naming both) switches this call and the rest of the run
to the other form (and says so in one line on the `bounded` logger); any other 5xx, a 429
or a timeout leaves the choice open. The `json` reply mode's constraint (any JSON object,
`bounded.core.ANY_JSON_OBJECT`) is sent as `{"type": "json_object"}`; the `text` mode sends
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
for that model (one call, the client's timeout, no retries: `rag` makes one per decision
and ranks that decision by BM25 alone when it fails); without it the model does not embed
(`isinstance(model, Embedder)` is False).
"""

from __future__ import annotations

import email.utils
import logging
import math
import os
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, get_args

import httpcore2
import httpx2
import openai
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_random,
)
from tenacity.stop import stop_base
from tenacity.wait import wait_base

from bounded.core import (
    DEFAULT_MAX_TOKENS,
    JSON,
    BoundedError,
    Completion,
    ConfigError,
    Embeddings,
    ModelBase,
    ResponseFormatRefused,
    TokenCounter,
    approx_tokens,
    first_validation_error,
    is_any_object,
)
from bounded.models._http import _ATTEMPT_ENDS, WRITE_CHUNK, ChatPoster, bounded_timeout

SchemaMode = Literal["auto", "json_schema", "json_object", "none"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""Where the SDK goes without a `base_url` or `$OPENAI_BASE_URL`."""

LOG = logging.getLogger("bounded")

RETRIED_STATUS = (408, 409, 429)
"""Client-error statuses worth another attempt (with every 5xx)."""


class RetryPolicy(BaseModel):
    """How calls to an endpoint are retried, and how long a call and a run may take.

    Set it from Python (`make_model("openai:M", retry={"timeout_s": 60})` or a
    `RetryPolicy`), in a game's or an experiment cell's `model_options`
    (`{"retry": {...}}`), or on the command line (`bounded run --timeout 60 --retry
    attempts=3`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attempts: int = Field(default=5, ge=1)
    """Tries per call, the first one included."""
    timeout_s: float = Field(default=300.0, gt=0)
    """Wall-clock deadline of one call: every attempt, every wait between attempts and every
    byte of every reply (`--timeout`)."""
    attempt_timeout_s: float | None = Field(default=120.0, gt=0)
    """Wall-clock limit of one attempt, within the call's deadline (None: an attempt may take
    all the time left), so that a hung attempt leaves time for another."""
    backoff_s: float = Field(default=0.5, ge=0)
    """Wait before the second attempt; it doubles for each attempt after that."""
    backoff_max_s: float = Field(default=30.0, ge=0)
    """Cap of the doubling wait."""
    jitter_s: float = Field(default=0.5, ge=0)
    """A random extra wait of up to this much, so that workers do not retry in step."""
    run_deadline_s: float | None = Field(default=None, gt=0)
    """Model time one run may spend with this model (every call, retries, waits and failed
    calls included); the run ends `failed` once it is spent. None: no limit."""


def retry_policy(value: RetryPolicy | Mapping[str, Any] | None) -> RetryPolicy:
    """A policy from a `RetryPolicy`, a mapping of its fields, or None (the defaults)."""
    if isinstance(value, RetryPolicy):
        return value
    try:
        return RetryPolicy.model_validate(dict(value or {}))
    except (ValidationError, TypeError, ValueError) as exc:
        detail = first_validation_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise ConfigError(f"bad retry policy: {detail}") from exc


class EndpointError(BoundedError):
    """A call that got no usable reply within its policy: the message says after how many
    attempts, in how long, and the last error."""


# -- the deadline, enforced at the socket ------------------------------------------------


class DeadlineStream(httpcore2.NetworkStream):
    """A network stream whose every operation ends by its attempt's deadline."""

    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, bounded_timeout(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for start in range(0, len(buffer), WRITE_CHUNK):
            chunk = buffer[start : start + WRITE_CHUNK]
            self._inner.write(chunk, bounded_timeout(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        limit = bounded_timeout(timeout, httpcore2.ConnectTimeout)
        return DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, limit))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore2.NetworkBackend):
    """httpcore's network backend, with every connection ending by its attempt's deadline."""

    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore2.NetworkStream:
        limit = bounded_timeout(timeout, httpcore2.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, limit, local_address, socket_options)
        return DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore2.NetworkStream:
        limit = bounded_timeout(timeout, httpcore2.ConnectTimeout)
        return DeadlineStream(self._inner.connect_unix_socket(path, limit, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def deadline_transport(proxy: str | None = None) -> httpx2.HTTPTransport:
    """httpx's transport (and its exception mapping), on the deadline-bounded backend."""
    transport = httpx2.HTTPTransport(proxy=proxy)
    pool: Any = transport._pool  # httpx builds the pool; no public way to name its backend
    backend = getattr(pool, "_network_backend", None)
    if not isinstance(backend, httpcore2.NetworkBackend):
        raise RuntimeError("httpcore2's connection pool has no network backend to bound")
    pool._network_backend = DeadlineBackend(backend)
    return transport


def environment_proxy(url: str) -> str | None:
    """The proxy `$HTTPS_PROXY`/`$HTTP_PROXY`/`$ALL_PROXY` name for `url`, unless
    `$NO_PROXY` exempts its host (what the SDK's own client would use)."""
    parts = urllib.parse.urlsplit(url)
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(parts.scheme) or proxies.get("all")
    if not proxy or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


_HTTP_CLIENTS: dict[tuple[int, str | None], openai.DefaultHttpxClient] = {}
_HTTP_CLIENTS_LOCK = threading.Lock()


def shared_http_client(proxy: str | None) -> openai.DefaultHttpxClient:
    """The SDK's HTTP client on the deadline-bounded transport, one per proxy in a process
    and shared by its `openai:` models. Building one loads the machine's CA certificates
    into a TLS context, about 18 ms of CPU: a sweep of many short games in one process
    paid that for every game, and 128 games starting at once in a worker's threads waited
    on each other's. httpx's client is thread-safe; each request carries its own timeout."""
    key = (os.getpid(), proxy)  # a forked process builds its own
    with _HTTP_CLIENTS_LOCK:
        client = _HTTP_CLIENTS.get(key)
        if client is None:
            client = openai.DefaultHttpxClient(transport=deadline_transport(proxy))
            _HTTP_CLIENTS[key] = client
        return client


def bounded_client(base_url: str | None, api_key: str, timeout_s: float) -> openai.OpenAI:
    """The SDK's client on the deadline-bounded transport, without the SDK's own retries."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
    return openai.OpenAI(
        base_url=base_url,
        api_key=api_key,
        timeout=timeout_s,
        max_retries=0,
        http_client=shared_http_client(environment_proxy(url)),
    )


# -- what is retried, how long to wait ---------------------------------------------------


def is_transient(exc: BaseException) -> bool:
    """A failure worth another attempt: a timeout, a broken connection, 408, 409, 429, 5xx."""
    if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one
        return True
    if isinstance(exc, openai.APIStatusError) and not refuses_schema(exc):
        return exc.status_code in RETRIED_STATUS or exc.status_code >= 500
    return False


VALIDATION_WORDS = ("validation", "literal_error", "input should be", "not supported")
"""Words of a server's own statement that it rejects a request's value."""


def refuses_schema(exc: BaseException) -> bool:
    """Whether an error proves the server refuses the standard schema form: a 400 or 422
    whose message names `response_format` or `json_schema`, or any status whose message is
    a validation error naming both (llama-cpp-python's server answers 500 with
    "response_format.type: Input should be 'text' or 'json_object'"). Such a reply is
    deterministic: it is never retried."""
    if not isinstance(exc, openai.APIStatusError):
        return False
    text = f"{exc.message} {exc.body}".lower()
    if exc.status_code in (400, 422):
        return "response_format" in text or "json_schema" in text
    names_both = "response_format" in text and "json_schema" in text
    return names_both and any(word in text for word in VALIDATION_WORDS)


def refuses_format(exc: BaseException) -> bool:
    """Whether an error proves the server refuses the request's response format: what
    `refuses_schema` says, or a 400 or 422 naming `json_object` (a server that takes neither
    schema nor JSON object mode)."""
    if refuses_schema(exc):
        return True
    if not isinstance(exc, openai.APIStatusError) or exc.status_code not in (400, 422):
        return False
    return "json_object" in f"{exc.message} {exc.body}".lower()


def format_name(params: Mapping[str, Any]) -> str:
    """The response format a request's parameters send: `json_schema`, `json_object`,
    `json_object+schema` (llama.cpp's form) or `none`."""
    form = params.get("response_format")
    if not isinstance(form, Mapping):
        return "none"
    kind = str(form.get("type", "none"))
    return f"{kind}+schema" if kind == "json_object" and "schema" in form else kind


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked to wait (`retry-after-ms`, or `Retry-After` in seconds or as
    an HTTP date), or None."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    millis = _seconds(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    seconds = _seconds(value)
    if seconds is not None or not value:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)


def _seconds(value: str | None) -> float | None:
    """A header's number of seconds, or None when it is not a finite number."""
    try:
        seconds = float(value) if value else math.nan
    except ValueError:
        return None
    return max(seconds, 0.0) if math.isfinite(seconds) else None


class WaitPolicy(wait_base):
    """The server's `Retry-After` when it gives one, else capped exponential backoff plus
    jitter."""

    def __init__(self, policy: RetryPolicy) -> None:
        backoff = wait_exponential(multiplier=policy.backoff_s, max=policy.backoff_max_s)
        self.backoff = backoff + wait_random(0, policy.jitter_s)

    def __call__(self, retry_state: RetryCallState) -> float:
        outcome = retry_state.outcome
        asked = retry_after(outcome.exception() if outcome is not None else None)
        return asked if asked is not None else self.backoff(retry_state)


class StopAtDeadline(stop_base):
    """Stop when the coming wait would end at or past the call's deadline, the attempt's
    `deadline` argument (so a `Retry-After` longer than the time left ends the call at
    once)."""

    def __call__(self, retry_state: RetryCallState) -> bool:
        upcoming = getattr(retry_state, "upcoming_sleep", 0.0)  # tenacity < 8.3 has none
        return time.monotonic() + upcoming >= retry_state.kwargs["deadline"]


def retrying_for(policy: RetryPolicy) -> Retrying:
    """`policy` as tenacity runs it. One `Retrying` serves every call and thread (tenacity
    keeps a call's state per thread), so that a call does not build its own: that was a
    tenth of the client's CPU per call."""
    return Retrying(
        retry=retry_if_exception(is_transient),
        stop=stop_after_attempt(policy.attempts) | StopAtDeadline(),
        wait=WaitPolicy(policy),
        reraise=True,
    )


# -- tokens ------------------------------------------------------------------------------


def token_counter(tokenizer: TokenCounter | str | None) -> TokenCounter:
    """A function as given; an embedded model's name or a GGUF path: its vocabulary's count;
    None: `approx_tokens`."""
    if tokenizer is None:
        return approx_tokens
    if callable(tokenizer):
        return tokenizer
    return gguf_token_counter(tokenizer)


def gguf_token_counter(name: str) -> TokenCounter:
    """Tokens as a GGUF model's vocabulary counts them (llama.cpp loads the vocabulary only)."""
    from bounded.models.local import EMBEDDED

    path = EMBEDDED[name].path() if name in EMBEDDED else Path(name)
    if not path.is_file():
        raise ConfigError(
            f"tokenizer {name!r} is neither an embedded model ({', '.join(EMBEDDED)}) "
            "nor a GGUF file"
        )
    from llama_cpp import Llama

    vocab = Llama(model_path=str(path), vocab_only=True, verbose=False)

    def count(text: str) -> int:
        return len(vocab.tokenize(text.encode(), add_bos=False, special=False))

    return count


def one_line(text: str, limit: int = 300) -> str:
    """`text` on one line, at most `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


# -- the model ---------------------------------------------------------------------------


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
        self.poster = ChatPoster(self.client, self.retry.timeout_s, proxy)
        """Sends the chat requests (`bounded.models._http`)."""
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
            response = self.client.embeddings.create(model=name, input=texts)
        except openai.OpenAIError as exc:
            elapsed = time.perf_counter() - started
            raise EndpointError(self._failure(exc, 1, elapsed)) from exc
        rows = sorted(response.data, key=lambda row: row.index)
        if len(rows) != len(texts):
            raise EndpointError(f"{self.id}: {len(rows)} embeddings for {len(texts)} texts")
        usage = getattr(response, "usage", None)
        tokens = getattr(usage, "prompt_tokens", None)
        if not isinstance(tokens, int):
            tokens = sum(self.count_tokens(text) for text in texts)
        return Embeddings(
            vectors=[list(map(float, row.embedding)) for row in rows],
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
        form = self._response_format(schema, self.schema_mode)
        return self._request(messages, {**params, "response_format": form}, deadline)

    def _negotiate(
        self, messages: list[dict[str, str]], params: dict[str, Any], schema: JSON,
        deadline: float,
    ) -> Any:  # fmt: skip
        """Ask in the standard json_schema form (retried like any call); a server that refuses
        the schema is asked in llama.cpp's json_object form, now and for the rest of the run.
        Any other failure leaves the form undecided."""
        standard = {**params, "response_format": self._response_format(schema, "json_schema")}
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
            fallback = {**params, "response_format": self._response_format(schema, "json_object")}
            return self._request(messages, fallback, deadline)
        self.schema_mode = "json_schema"
        return response

    @staticmethod
    def _response_format(schema: JSON, mode: SchemaMode) -> JSON:
        if mode == "json_object":
            return {"type": "json_object", "schema": schema}
        return {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": schema, "strict": True},
        }

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
        token = _ATTEMPT_ENDS.set(ends)
        try:
            return self.poster.post({"model": self.model, "messages": messages, **params})
        finally:
            _ATTEMPT_ENDS.reset(token)

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


JSON_OBJECT: JSON = {"type": "json_object"}
"""The `json` reply mode's response format: any JSON object."""


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


__all__ = ["EndpointError", "OpenAICompatModel", "RetryPolicy", "retry_policy"]
