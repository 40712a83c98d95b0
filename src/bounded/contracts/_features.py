"""Numeric features of an observation's state, shared by contracts that compare states
(the episodic bank's distances) or summarise them (the summary contract's L1 fallback)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any


def flatten_state(state: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
    """The numeric features of an observation's state, as one flat dict.

    Numbers and booleans are kept; nested dicts become dotted keys (`hero.hp`); a list
    contributes its length (`deck.len`); strings, None and other values are left out
    (D_value has no meaning for them).
    """
    flat: dict[str, float] = {}
    for key, value in state.items():
        name = f"{prefix}{key}"
        if isinstance(value, bool):
            flat[name] = float(value)
        elif isinstance(value, int | float):
            if math.isfinite(value):
                flat[name] = float(value)
        elif isinstance(value, Mapping):
            flat.update(flatten_state(value, prefix=f"{name}."))
        elif isinstance(value, list | tuple):
            flat[f"{name}.len"] = float(len(value))
    return flat


__all__ = ["flatten_state"]
