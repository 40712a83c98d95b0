"""The typed contract's presets, named after the conditions of the AgenticSTS matrix.

The plain `typed` contract (no preset) has `mode-a`'s settings with L5 `on` and the
cache-aware layer order (`order = "cache"`) and replies `constrained`; every preset keeps
the paper's order (`order = "paper"`, AgenticSTS Appendix C) and its replies (`reply =
"text"`, read by the `decision-tag` rule: valid JSON inside a decision tag, Appendix E.1).
The seed
skills (`skill_seed`: `hand`, `templates`) are the environment's libraries of that name
(`GameKnowledge.skills`, from `Env.game_knowledge()`); a game that supplies none starts
with an empty L5, and the rules book (L3) likewise comes from the environment.

Each preset is a condition tag: `make_contract("mode-a")` builds the typed contract
with these settings, and a user's config overrides them field by field (a layer's
settings are replaced as a whole: pass `{"l4": {"mode": "frozen"}}`, not a dotted key).

What each layer reads and writes. "Store" is `store_dir`; a layer whose file the store
lacks starts from its seed (L3: the game's rules book; L5: `skill_seed`); L3 is never
written; `frozen` and `on` both read without writing.

| preset | L1 | L3 rules | L4 notes | L5 skills (seed) | `store_dir` |
|---|---|---|---|---|---|
| `baseline-strict` | strict | off | off | off | unused |
| `prompt-only` | full | reads | off | off | optional |
| `mode-a` | full | reads | off | reads (`hand`) | optional |
| `mode-b` | full | reads | off | reads, fills templates (`templates`) | learning |
| `mode-b-frozen` | full | reads | off | reads the store only (none) | required |
| `full-frozen` | full | reads | reads | reads (`hand`) | required |
| `self-evolve` | full | reads | reads, writes | reads, adds skills (`hand`) | learning |

`mode-b` and `self-evolve` are the learning presets that feed `mode-b-frozen` and
`full-frozen` (`full-frozen` = `mode-a` + L4 notes + learned L5 skills); an experiment
file's `[[phases]]` play them into a store, freeze it, and point the frozen cells at the
snapshot (`bounded.sweeps.experiment`).
"""

from __future__ import annotations

from typing import Any

TYPED_PRESETS: dict[str, dict[str, Any]] = {
    "baseline-strict": {
        "prompt": "strict",
        "l3": {"mode": "off"},
        "l4": {"mode": "off"},
        "l5": {"mode": "off"},
        "skill_seed": "none",
    },
    "prompt-only": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "off"},
        "l5": {"mode": "off"},
        "skill_seed": "none",
    },
    "mode-a": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "off"},
        "l5": {"mode": "frozen"},
        "skill_seed": "hand",
    },
    "mode-b": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "off"},
        "l5": {"mode": "writable"},
        "skill_seed": "templates",
    },
    "mode-b-frozen": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "off"},
        "l5": {"mode": "frozen"},
        "skill_seed": "none",
    },
    "full-frozen": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "frozen"},
        "l5": {"mode": "frozen"},
        "skill_seed": "hand",
    },
    "self-evolve": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "writable"},
        "l5": {"mode": "writable"},
        "skill_seed": "hand",
    },
}
"""Preset name -> typed settings."""

for _settings in TYPED_PRESETS.values():
    _settings.setdefault("order", "paper")
    _settings.setdefault("reply", "text")  # AgenticSTS's decision tag (Appendix E.1)

__all__ = ["TYPED_PRESETS"]
