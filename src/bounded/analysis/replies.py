"""The reply mode of archived runs, and a one-line note when compared runs differ in it.

A comparison that changes how replies are asked for and read (constrained decoding, a JSON
object asked for, free text parsed by a rule) changes more than memory: a table whose runs
differ in reply mode, response format sent, or whether the endpoint honoured it, says so.
Every run records its reply in `model_params["reply"]` (`bounded.runner.replies`); a run
of an older bounded, which recorded none, was played constrained."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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


def reply_groups(runs: Iterable[RunRecord]) -> dict[str, list[str]]:
    """Reply label -> the tags of the completed runs played so, in first-seen order."""
    groups: dict[str, list[str]] = {}
    for run in runs:
        if run.status != "completed":
            continue
        tags = groups.setdefault(reply_label(reply_of(run)), [])
        if run.tag not in tags:
            tags.append(run.tag)
    return groups


def mode_difference(runs: Iterable[RunRecord]) -> str | None:
    """One line naming how the runs' replies differ, or None when they agree."""
    groups = reply_groups(runs)
    if len(groups) < 2:
        return None
    parts = "; ".join(f"{label} in {', '.join(tags)}" for label, tags in groups.items())
    return f"replies differ between these runs, not memory alone: {parts}"


__all__ = ["OLDER_RUN", "mode_difference", "reply_groups", "reply_label", "reply_of"]
