"""EpicStar's working memory (Eq. 4) and how observations and recalled episodes are shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bounded.core import Action


@dataclass(frozen=True)
class MemoryEntry:
    """One past decision in the working memory."""

    step: int
    t: float
    features: dict[str, float]
    text: str = ""
    """The observation's text as the environment rendered it then."""


def observation_text(entry: MemoryEntry) -> str:
    """A past observation itself: its text, or (without one) its non-zero numbers."""
    if entry.text:
        return entry.text
    shown = (f"{k}={number(v)}" for k, v in sorted(entry.features.items()) if v)
    return ", ".join(shown) or "(empty)"


def working_memory(
    history: Sequence[MemoryEntry], step: int, interval: int, depth: int
) -> list[MemoryEntry]:
    """Eq. 4: Q_o(t) = (o_{t-L}, o_{t-2L}, ..., o_{t-k_max L}), those that exist.

    A history of consecutive steps (the contract's, oldest first) is indexed (`depth`
    look-ups, whatever its length); any other is searched."""
    wanted = [step - k * interval for k in range(1, depth + 1)]
    if not history:
        return []
    first = history[0].step
    if history[-1].step - first == len(history) - 1:
        return [history[s - first] for s in wanted if 0 <= s - first < len(history)]
    by_step = {entry.step: entry for entry in history}
    return [by_step[s] for s in wanted if s in by_step]


def differing_keys(
    now: Mapping[str, float], then: Mapping[str, float], limit: int
) -> list[tuple[str, float, float]]:
    """(key, then, now) for keys whose value differs, largest change first."""
    keys = set(now) | set(then)
    changed = [(k, then.get(k, 0.0), now.get(k, 0.0)) for k in keys]
    changed = [c for c in changed if c[1] != c[2]]
    changed.sort(key=lambda c: (-abs(c[2] - c[1]), c[0]))
    return changed[:limit]


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.4g}"


def render_changes(changes: list[tuple[str, float, float]]) -> str:
    if not changes:
        return "same as now"
    return ", ".join(f"{k} {number(then)}->{number(now)}" for k, then, now in changes)


def action_text(actions: Sequence[Action]) -> str:
    return " + ".join(f"<{a.id}>" for a in actions) or "<none>"


__all__ = [
    "MemoryEntry",
    "action_text",
    "differing_keys",
    "number",
    "observation_text",
    "render_changes",
    "working_memory",
]
