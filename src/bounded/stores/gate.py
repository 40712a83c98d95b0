"""The write gate: what postrun learning may add to L4 and L5, and why it was refused.

An entry is refused when its id is taken (a revision must name the entry it revises
and raise its version), when its text is empty or too short, when it repeats itself (a
small model stuck in a loop writes one sentence over and over, or one phrase with a
counter: its text then compresses far better than prose does), or when it is
near-identical to an entry already stored (normalised similarity at or above the
threshold). Every verdict is kept, accepted or not, so a run's learning can be audited.
"""

from __future__ import annotations

import difflib
import re
import zlib
from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel, Field

from bounded.stores.situation import norm


class GateVerdict(BaseModel):
    """The gate's answer to one proposed write."""

    layer: str
    entry_id: str
    accepted: bool
    reason: str
    duplicate_of: str | None = None
    similarity: float = 0.0
    run_id: str = ""


def similarity(a: str, b: str) -> float:
    """How alike two texts are after normalisation, from 0 (nothing shared) to 1 (identical)."""
    return difflib.SequenceMatcher(None, norm(a), norm(b), autojunk=False).ratio()


def most_repeated_sentence(text: str) -> int:
    """How often the most frequent sentence of a text occurs (after normalisation)."""
    parts = (norm(part).rstrip(".!?") for part in re.split(r"(?<=[.!?])\s+", text))
    sentences = [part for part in parts if part]
    return max(Counter(sentences).values(), default=0)


def compression_ratio(text: str) -> float:
    """Raw size over zlib-compressed size: prose stays under 2, a loop goes far above."""
    raw = text.encode()
    return len(raw) / len(zlib.compress(raw, 9)) if raw else 0.0


class WriteGate(BaseModel):
    """Duplicate checks for store writes."""

    threshold: float = Field(default=0.9, gt=0, le=1)
    """Similarity at or above which a text counts as a near-identical duplicate."""
    min_words: int = Field(default=4, ge=1)
    """Fewest words a text needs: shorter ones carry no reusable advice."""
    max_repeats: int = Field(default=2, ge=1)
    """Most times one sentence may occur in a text."""
    max_compression: float = Field(default=2.4, gt=1)
    """Highest `compression_ratio` a text may have (the hand-written skills are at most 1.4)."""

    def check(
        self,
        layer: str,
        entry_id: str,
        text: str,
        existing: Iterable[tuple[str, str]],
        *,
        revises: str | None = None,
        run_id: str = "",
    ) -> GateVerdict:
        """Judge one write against the (id, text) pairs already stored.

        `revises` names the id being revised: that id may be reused, and the old text
        is still compared so that a revision that changes nothing is refused.
        """

        def verdict(
            accepted: bool, reason: str, dup: str | None = None, sim: float = 0.0
        ) -> GateVerdict:
            return GateVerdict(
                layer=layer,
                entry_id=entry_id,
                accepted=accepted,
                reason=reason,
                duplicate_of=dup,
                similarity=round(sim, 4),
                run_id=run_id,
            )

        if not text.strip():
            return verdict(False, "empty text")
        pairs = list(existing)
        if revises is None and any(old_id == entry_id for old_id, _ in pairs):
            return verdict(False, "id already exists", entry_id, 1.0)
        if len(text.split()) < self.min_words:
            return verdict(False, f"too short (under {self.min_words} words)")
        repeats = most_repeated_sentence(text)
        if repeats > self.max_repeats:
            return verdict(False, f"repetitive (one sentence {repeats} times)")
        ratio = compression_ratio(text)
        if ratio > self.max_compression:
            return verdict(False, f"repetitive (compresses {ratio:.1f}x)")
        best_id, best = None, 0.0
        for old_id, old_text in pairs:
            score = similarity(text, old_text)
            if score > best:
                best_id, best = old_id, score
        if best >= self.threshold:
            return verdict(False, f"near-identical to {best_id} ({best:.2f})", best_id, best)
        reason = f"revises {revises}" if revises else "new"
        return verdict(True, reason, None, best)
