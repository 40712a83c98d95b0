"""State recovery (SKILL.state's Table 3 experiment): damage a contract's memory at one
decision and see how many decisions it takes to be correct again.

A contract with `perturb_at = k` perturbs its memory just before decision k (0-based)
is assembled, and marks that decision (`Decision.extra["perturbed"]`):

- `wipe`: the memory is emptied (the `state` contract's state becomes `{}`, the
  `transcript` contract forgets every earlier turn);
- `corrupt`: every number in the memory is off by one (and every boolean flipped): the
  state's values, or the integers in the transcript's own earlier replies (the
  observations it was shown are left as they were).

`bounded.analysis.recovery` reads the result from a run's rewards.
"""

from __future__ import annotations

import re
from typing import Any, Literal

Perturbation = Literal["wipe", "corrupt"]

_INTEGER = re.compile(r"-?\d+")


def corrupt_value(value: Any) -> Any:
    """`value` with every number off by one and every boolean flipped, recursively."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, list):
        return [corrupt_value(item) for item in value]
    if isinstance(value, dict):
        return {key: corrupt_value(item) for key, item in value.items()}
    return value


def corrupt_text(text: str) -> str:
    """`text` with every integer in it off by one."""
    return _INTEGER.sub(lambda match: str(int(match.group()) + 1), text)


__all__ = [
    "Perturbation",
    "corrupt_text",
    "corrupt_value",
]
