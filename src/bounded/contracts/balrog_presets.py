"""BALROG's agents as presets of the transcript contract, so a table can set our
contracts beside the baselines BALROG reports.

- `balrog-naive` (BALROG's `naive`): the instructions, the newest 16 observation/action
  turns, the observation; the reply is the action alone;
- `balrog-cot` (`cot`): the same with reasoning before the action; only the newest reply
  keeps its reasoning (`max_cot_history = 1`), older ones are resent as their action;
- `balrog-robust-naive` (`robust_naive`): `balrog-naive` with BALROG's strict wording
  (exactly one listed action, nothing else);
- `balrog-robust-cot` (`robust_cot`): `balrog-cot` with the same strict wording.

All four execute the game's default action on an unusable reply (BALROG's
`check_action_validity`: NetHack `esc`, MiniHack `north`, BabyAI `go forward`, Crafter
`Noop`, TextWorld `help`) and say so at the top of the next observation (BALROG's
`feedback_on_invalid_action`, on by default).

Where they differ from BALROG's agents (`balrog/agents/`, `balrog/prompt_builder/`):

- the reply is a JSON object (`{"action": {"id": ...}}`, with `"reasoning"` first for the
  cot presets) under the reply schema, not free text: BALROG's naive agent keeps only the
  letters of the reply and its cot agent reads what follows `ACTION:`; its robust agents
  read `<|ACTION|>...<|END|>`. Our parse is the same JSON parse for all four, so the
  robust presets differ from the others only in the instruction's wording;
- past turns are resent as the observations were rendered (with the legal actions and
  the reply format), and past replies as the JSON the model wrote (its action alone,
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
}

BALROG_PRESETS: dict[str, dict[str, Any]] = {
    "balrog-naive": {**_SHARED, "reasoning": False},
    "balrog-cot": {**_SHARED, "reasoning": True, "reasoning_turns": BALROG_COT_HISTORY},
    "balrog-robust-naive": {**_SHARED, "reasoning": False, "reply_note": STRICT_NOTE},
    "balrog-robust-cot": {
        **_SHARED, "reasoning": True, "reasoning_turns": BALROG_COT_HISTORY,
        "reply_note": STRICT_NOTE,
    },
}  # fmt: skip
"""Tag -> overrides of `TranscriptConfig`."""


__all__ = ["BALROG_HISTORY", "BALROG_PRESETS", "STRICT_NOTE"]
