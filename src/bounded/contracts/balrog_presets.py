"""BALROG's four agents as presets of the `balrog` contract (`bounded.contracts.balrog`:
BALROG's history prompt builder, its instruction as the first user message, its client
settings), so a table can set our contracts beside the baselines BALROG reports.

- `balrog-naive` (BALROG's `naive`): the reply, stripped as BALROG's clients strip it, is
  the action (letters, whitespace and colons kept, not trimmed again);
- `balrog-cot` (`cot`): reasoning, then `ACTION: <action>`; the newest reply is resent
  whole as `Previous plan:` (`max_cot_history = 1`), older ones as their action;
- `balrog-robust-naive` (`robust_naive`): the action inside `<|ACTION|>...<|END|>`, else
  the whole reply;
- `balrog-robust-cot` (`robust_cot`): reasoning, then the tagged action; no reasoning is
  resent (BALROG's robust cot agent records none), and a reply without the tag names
  BALROG's placeholder, an invalid action.

Each reads the reply stripped and accepts only the game's vocabulary (an action's id, not
its label), as BALROG's clients and `check_action_validity` do. All four reply in free
text (`reply = "text"`), each closing its prompt with its agent's instruction
(`bounded.contracts.replies`). `reply = "constrained"` or `"json"` plays the
same agents on a JSON reply object instead (the robust presets then add `STRICT_NOTE`).

They play an environment that offers BALROG's presentation at it (BALROG's text,
instruction prompt, vocabulary and levels; no legal list after the observation), any other
at its own text and legal list. Where they still differ from BALROG's agents: the history
is cut to a model's context window where the model declares one (recorded); see
docs/balrog.md.
"""

from __future__ import annotations

from typing import Any

BALROG_HISTORY = 16
"""BALROG's `max_text_history`."""
BALROG_COT_HISTORY = 1
"""BALROG's `max_cot_history`."""
STRICT_NOTE = (
    "You must choose exactly one of the listed actions: output only the reply object with "
    "that action's id, and no other text."
)
"""BALROG's robust agents' instruction, for a JSON reply."""

BALROG_PRESETS: dict[str, dict[str, Any]] = {
    "balrog-naive": {"text_rule": "balrog-naive"},
    "balrog-cot": {
        "text_rule": "balrog-cot", "reasoning": True, "max_cot_history": BALROG_COT_HISTORY,
    },
    "balrog-robust-naive": {"text_rule": "balrog-robust", "reply_note": STRICT_NOTE},
    "balrog-robust-cot": {
        "text_rule": "balrog-robust-cot", "reasoning": True, "reply_note": STRICT_NOTE,
    },
}  # fmt: skip
"""Tag -> overrides of `BalrogConfig` (whose defaults are BALROG's `config.yaml`)."""


__all__ = ["BALROG_COT_HISTORY", "BALROG_HISTORY", "BALROG_PRESETS", "STRICT_NOTE"]
