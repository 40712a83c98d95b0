"""Condition tags of the memory designs the papers argue against (`rag`, `reflexion`,
`paged`), registered as contract presets: each contract's main ablations.

| preset | contract | what differs from the contract's default |
|---|---|---|
| `rag-bm25` | rag | BM25 only, even where the model embeds |
| `rag-cross-game` | rag | chunks of earlier games stay searchable |
| `reflexion-window-only` | reflexion | no reflections: the window alone (actor only) |
| `paged-no-search` | paged | no archive search: evicted turns are gone |
| `paged-no-core` | paged | no core memory: the queue and the archive search only |
| `reflexion-frozen` | reflexion | reads a store's reflections (a phase's), never writes |
"""

from __future__ import annotations

from typing import Any

MEMORY_PRESETS: dict[str, tuple[str, dict[str, Any]]] = {
    "rag-bm25": ("rag", {"similarity": "bm25"}),
    "rag-cross-game": ("rag", {"cross_game": True}),
    "paged-no-search": ("paged", {"search": False}),
    "paged-no-core": ("paged", {"core": False}),
    "reflexion-window-only": ("reflexion", {"mode": "off"}),
    "reflexion-frozen": ("reflexion", {"mode": "frozen"}),
}
"""Tag -> (contract, overrides of its config)."""


__all__ = ["MEMORY_PRESETS"]
