"""Prompt tokens of NetHack runs on the embedded model, against the transcript counterfactual.

Usage: python bench/nethack_tokens.py ARCHIVE [ARCHIVE ...] [--window 8192]
Prints one row per archived NetHack run: contract, decisions, BALROG progression, deepest
level, how the run ended, prompt tokens per decision (first, last, least-squares slope),
cumulative prompt tokens, the transcript counterfactual's cumulative tokens (computed by
`bounded.analysis.audit`: decision 0's prompt plus every later observation and reply, the
prompt an accumulating transcript of the same game would have sent) and the first
decision whose counterfactual prompt exceeds the model's context window, and wall time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from bounded.analysis.audit import context_audit
from bounded.analysis.provenance import finished, provenance
from bounded.archive import Archive

WINDOW = 8_192
"""The embedded model's context window (`bounded.models.local`, n_ctx)."""


def rows(path: Path, window: int) -> list[dict[str, Any]]:
    found = []
    with Archive(path, read_only=True) as archive:
        runs = [r for r in archive.runs() if r.env_id == "bounded/NetHack-v0"]
        audit = context_audit(archive, runs)
        by_id = {r.run_id: r for r in runs}
        for run_audit in audit.runs:
            run = by_id[run_audit.run_id]
            over = next(
                (p.index for p in run_audit.points if p.counterfactual_tokens > window), None
            )
            found.append(
                {
                    "archive": str(path),
                    "contract": run.contract,
                    "status": run.status,
                    "decisions": run_audit.decisions,
                    "progression": run.outcome.get("progression"),
                    "max_depth": run.outcome.get("max_depth"),
                    "ended_by": run.outcome.get("ended_by"),
                    "first": run_audit.first_prompt,
                    "last": run_audit.last_prompt,
                    "slope": run_audit.slope,
                    "cumulative": run_audit.total_prompt,
                    "counterfactual_cumulative": run_audit.counterfactual_total,
                    "counterfactual_over_window_at": over,
                    "wall_s": run.wall_s,
                }
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archives", nargs="+", type=Path)
    parser.add_argument("--window", type=int, default=WINDOW)
    args = parser.parse_args()
    started_at = provenance()
    table = [row for path in args.archives for row in rows(path, args.window)]
    print(json.dumps({"provenance": finished(started_at), "rows": table}, indent=2))


if __name__ == "__main__":
    main()
