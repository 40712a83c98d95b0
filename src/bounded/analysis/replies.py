"""The reply mode of archived runs, as the parity report (`bounded.analysis.parity`) names it.

A comparison that changes how replies are asked for and read (constrained decoding, a JSON
object asked for, free text parsed by a rule) changes more than memory: the parity report
under a table whose runs differ in reply mode, response format sent, or whether the
endpoint honoured it, says so.
Every run records its reply in `model_params["reply"]` (`bounded.runner.replies`); a run
of an older bounded, which recorded none, was played constrained."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bounded.core import RunRecord

OLDER_RUN = {"mode": "constrained", "response_format": "", "honoured": None}
"""What a run of an older bounded played: constrained decoding, format not recorded."""


def reply_of(run: RunRecord) -> Mapping[str, Any]:
    """The run's `model_params["reply"]`, or `OLDER_RUN`."""
    reply = run.model_params.get("reply")
    return reply if isinstance(reply, Mapping) and reply.get("mode") else OLDER_RUN


def reply_label(reply: Mapping[str, Any]) -> str:
    """`mode (format sent[, not honoured])`, e.g. `constrained (json_schema)`."""
    detail = str(reply.get("response_format") or "format not recorded")
    if reply.get("honoured") is False:
        detail += ", not honoured"
    return f"{reply.get('mode')} ({detail})"


__all__ = ["OLDER_RUN", "reply_label", "reply_of"]
