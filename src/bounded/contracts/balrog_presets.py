"""BALROG's agents as presets of the transcript contract, so a table can set our
contracts beside the baselines BALROG reports.

- `balrog-naive` (BALROG's `naive`): the instructions, the newest 16 observation/action
  turns, the observation; the reply is the action alone;
- `balrog-cot` (`cot`): the same with reasoning before the action; only the newest reply
  keeps its reasoning (`max_cot_history = 1`), older ones are resent as their action;
- `balrog-robust-naive` (`robust_naive`): `balrog-naive` with BALROG's strict wording
  (exactly one listed action, nothing else);
- `balrog-robust-cot` (`robust_cot`): `balrog-cot` with the same strict wording.

All four reply in free text (`reply = "text"`), read by their agent's rule
(`bounded.contracts.replies`): `balrog-naive` keeps the reply's letters, spaces and colons,
`balrog-cot` takes what follows the last `ACTION:`, the robust presets read
`<|ACTION|>...<|END|>` (else the whole reply); each closes its prompt with its agent's
instruction. The extracted action is matched exactly against the legal actions' ids (then
labels); anything else is an invalid action (`invalid_actions`), the game's default action
runs (BALROG's `check_action_validity`: NetHack `esc`, MiniHack `north`, BabyAI `go
forward`, Crafter `Noop`, TextWorld `help`), and the next observation starts with BALROG's
`feedback_on_invalid_action` line naming it. `reply = "constrained"` or `"json"` plays the
same agents on a JSON reply object instead (the robust presets then add `STRICT_NOTE`).

Where they still differ from BALROG's agents (`balrog/agents/`, `balrog/prompt_builder/`):

- past turns are resent as the observations were rendered (with the legal actions and
  the reply instruction), and past replies as the model wrote them (its action alone,
  without reasoning, beyond the newest `reasoning_turns`); BALROG resends observations
  as `Observation:` texts and actions as bare words;
- the instructions go in a system message (BALROG sends them as the first user message);
- the 16 turns are also cut to the model's context window (`history_dropped`), as every
  transcript here is; BALROG has no such cut.
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

_SHARED: dict[str, Any] = {
    "max_turns": BALROG_HISTORY,
    "fallback": "game-default",
    "invalid_feedback": True,
    "reply": "text",
}

BALROG_PRESETS: dict[str, dict[str, Any]] = {
    "balrog-naive": {**_SHARED, "reasoning": False, "text_rule": "balrog-naive"},
    "balrog-cot": {
        **_SHARED, "reasoning": True, "reasoning_turns": BALROG_COT_HISTORY,
        "text_rule": "balrog-cot",
    },
    "balrog-robust-naive": {
        **_SHARED, "reasoning": False, "reply_note": STRICT_NOTE, "text_rule": "balrog-robust",
    },
    "balrog-robust-cot": {
        **_SHARED, "reasoning": True, "reasoning_turns": BALROG_COT_HISTORY,
        "reply_note": STRICT_NOTE, "text_rule": "balrog-robust",
    },
}  # fmt: skip
"""Tag -> overrides of `TranscriptConfig`."""


__all__ = ["BALROG_HISTORY", "BALROG_PRESETS", "STRICT_NOTE"]
