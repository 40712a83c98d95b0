"""The chat request's transport, now `bounded.models.endpoint.transport` (kept importable)."""

from __future__ import annotations

from bounded.models.endpoint.transport import (
    HEADERS,
    STALE,
    WRITE_CHUNK,
    ChatPoster,
    DeadlineSocket,
    DeadlineSSLSocket,
    Poster,
    bounded_timeout,
    closed_by_peer,
    deadline_connect,
    ending_by,
    tls_context,
)

__all__ = [
    "HEADERS",
    "STALE",
    "WRITE_CHUNK",
    "ChatPoster",
    "DeadlineSSLSocket",
    "DeadlineSocket",
    "Poster",
    "bounded_timeout",
    "closed_by_peer",
    "deadline_connect",
    "ending_by",
    "tls_context",
]
