"""How a call to an endpoint is retried: `RetryPolicy` (set by the user), what is
transient, how long to wait (the server's `Retry-After`, else capped exponential backoff
with jitter) and when to stop (the attempts, or a wait that would pass the call's deadline),
as one tenacity `Retrying` per policy."""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

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

from bounded.core import BoundedError, ConfigError, first_validation_error
from bounded.models.endpoint.formats import refuses_schema

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


def is_transient(exc: BaseException) -> bool:
    """A failure worth another attempt: a timeout, a broken connection, 408, 409, 429, 5xx."""
    if isinstance(exc, openai.APIConnectionError):  # APITimeoutError is one
        return True
    if isinstance(exc, openai.APIStatusError) and not refuses_schema(exc):
        return exc.status_code in RETRIED_STATUS or exc.status_code >= 500
    return False


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


__all__ = [
    "RETRIED_STATUS",
    "EndpointError",
    "RetryPolicy",
    "StopAtDeadline",
    "WaitPolicy",
    "is_transient",
    "retry_after",
    "retry_policy",
    "retrying_for",
]
