"""What the report's page and `bounded view` send the browser: a run's decisions with each
distinct prompt text once, a run's line in the run list, and JSON that is safe inside a
<script> element."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from bounded.core import INVALID_KEY, DecisionRecord, RunRecord


def decision_payload(record: DecisionRecord, texts: dict[str, int]) -> dict[str, Any]:
    """What the viewer shows for one decision; segment texts are indices into `texts`,
    which gathers each distinct text once (instructions and history repeat every step)."""
    completion = record.completion
    segments = [
        {"layer": s.layer, "role": s.role, "text": texts.setdefault(s.text, len(texts))}
        for s in record.segments
    ]
    return {
        "index": record.index,
        "t": record.t,
        "kind": record.kind,
        "prompt_tokens": record.prompt_tokens,
        "tokens_by_layer": record.tokens_by_layer,
        "segments": segments,
        "completion": completion.text if completion else None,
        "completion_tokens": completion.completion_tokens if completion else 0,
        "thinking": completion.reasoning if completion else "",
        "reasoning_tokens": completion.reasoning_tokens if completion else 0,
        "actions": [{"id": a.id, "args": a.args} for a in record.actions],
        "reasoning": record.reasoning,
        "parse_error": record.parse_error,
        "fallback": record.fallback,
        "invalid_actions": record.info.get(INVALID_KEY, []),
        "reward": record.reward,
        "cached_tokens": completion.cached_tokens if completion else 0,
        "latency_s": round(record.latency_s, 4),
        "model_latency_s": round(completion.latency_s, 4) if completion else None,
    }


def run_payload(decisions: Sequence[DecisionRecord]) -> dict[str, Any]:
    """A run's decisions for the viewer: `{"texts": [...], "decisions": [...]}`."""
    texts: dict[str, int] = {}
    payloads = [decision_payload(d, texts) for d in decisions]
    return {"texts": list(texts), "decisions": payloads}


def run_summary(run: RunRecord) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "tag": run.tag,
        "env_id": run.env_id,
        "contract": run.contract,
        "model": run.model,
        "seed": run.seed,
        "status": run.status,
        "decisions": run.decisions,
        "reply": run.model_params.get("reply", {}).get("mode", ""),
        "prompt_tokens": run.prompt_tokens,
        "started": time.strftime("%Y-%m-%d %H:%M", time.gmtime(run.started_at)),
    }


SCRIPT_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
}
"""Characters written as JSON escapes inside a <script> element: with no `<` left, no
archived text (`</script>`, `<!--`, a reply that writes a web page) can end the element
or change how the page parses; the line separators are escaped for older script parsers."""


def json_for_script(value: Any) -> str:
    """JSON safe inside a <script> element (see `SCRIPT_ESCAPES`)."""
    text = json.dumps(value, separators=(",", ":"))
    return "".join(SCRIPT_ESCAPES.get(char, char) for char in text)


__all__ = ["SCRIPT_ESCAPES", "decision_payload", "json_for_script", "run_payload", "run_summary"]
