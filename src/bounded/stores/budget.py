"""Per-layer budgets: at most k items of at most s tokens each, enforced and recorded.

A layer's text is a fixed header line followed by one line per item. Each item line is
cut to `s` tokens (an ellipsis marks the cut) and only the first `k` items are kept, so
a layer never costs more than `header + k * s` tokens, whatever the stores hold. What
was cut is returned as a `Truncation`, which the contract records on the decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from bounded.core import approx_tokens

ELLIPSIS = "…"

_TOKEN = re.compile(r"\w+|[^\w\s]")


class LayerBudget(BaseModel):
    """The size limit of one layer: `items` (k) entries of at most `tokens` (s) each."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    items: int = Field(default=4, ge=0, le=200)
    """k: how many entries the layer may show in one prompt."""
    tokens: int = Field(default=120, ge=4, le=8000)
    """s: how many tokens (approximate, see `bounded.core.approx_tokens`) one entry may use."""

    @property
    def capacity(self) -> int:
        """k x s: the most tokens the entries of this layer can take."""
        return self.items * self.tokens


class Truncation(BaseModel):
    """What a budget cut from one layer of one prompt."""

    layer: str
    offered: int
    """Entries retrieved before the budget."""
    kept: int
    """Entries shown."""
    clipped: int
    """Shown entries that were cut to the per-entry token limit."""
    dropped_tokens: int
    """Tokens retrieved but not shown (dropped entries plus clipped tails)."""


def clip_text(text: str, max_tokens: int) -> tuple[str, int]:
    """`text` cut to `max_tokens` tokens (the ellipsis counts one); returns (text, dropped)."""
    spans = [m.span() for m in _TOKEN.finditer(text)]
    if len(spans) <= max_tokens:
        return text, 0
    keep = max(max_tokens - 1, 0)
    end = spans[keep - 1][1] if keep else 0
    return text[:end].rstrip() + ELLIPSIS, len(spans) - keep


def fit_items(
    layer: str, items: Sequence[str], budget: LayerBudget, *, prefix: str = "- "
) -> tuple[list[str], Truncation | None]:
    """Render items as lines within the budget; the Truncation is None when nothing was cut."""
    lines: list[str] = []
    clipped = 0
    dropped = sum(approx_tokens(prefix + item) for item in items[budget.items :])
    for item in items[: budget.items]:
        line, cut = clip_text(prefix + item, budget.tokens)
        lines.append(line)
        clipped += int(cut > 0)
        dropped += cut
    if clipped == 0 and len(items) <= budget.items:
        return lines, None
    truncation = Truncation(
        layer=layer,
        offered=len(items),
        kept=len(lines),
        clipped=clipped,
        dropped_tokens=dropped,
    )
    return lines, truncation


def fit_block(layer: str, text: str, max_tokens: int) -> tuple[str, Truncation | None]:
    """One block of text (a rendered state) cut to `max_tokens`; Truncation None when it fit."""
    clipped, dropped = clip_text(text, max_tokens)
    if not dropped:
        return text, None
    return clipped, Truncation(layer=layer, offered=1, kept=1, clipped=1, dropped_tokens=dropped)
