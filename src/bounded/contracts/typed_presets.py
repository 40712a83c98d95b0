"""The typed contract's presets, named after the conditions of the AgenticSTS matrix.

The plain `typed` contract (no preset) has `mode-a`'s settings with L5 `on`. The seed
skills (`skill_seed`: `hand`, `templates`) are the environment's libraries of that name
(`GameKnowledge.skills`, from `Env.game_knowledge()`); a game that supplies none starts
with an empty L5, and the rules book (L3) likewise comes from the environment.

Each preset is a condition tag: `make_contract("mode-a")` builds the typed contract
with these settings, and a user's config overrides them field by field (a layer's
settings are replaced as a whole: pass `{"l4": {"mode": "frozen"}}`, not a dotted key).

| preset | L1 | L3 rules | L4 notes | L5 skills |
|---|---|---|---|---|
| `baseline-strict` | strict | off | off | off |
| `prompt-only` | full | on | off | off |
| `mode-a` | full | on | off | the game's `hand` seed, frozen |
| `mode-b` | full | on | off | the game's `templates`, filled postrun (writable) |
| `full-frozen` | full | on | frozen (store_dir) | frozen (store_dir) |
| `self-evolve` | full | on | writable | writable |
"""

from __future__ import annotations

from typing import Any

from bounded.contracts import register_preset

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
    "full-frozen": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "frozen"},
        "l5": {"mode": "frozen"},
        "skill_seed": "none",
    },
    "self-evolve": {
        "prompt": "full",
        "l3": {"mode": "on"},
        "l4": {"mode": "writable"},
        "l5": {"mode": "writable"},
        "skill_seed": "none",
    },
}
"""Preset name -> typed settings."""

for _name, _settings in TYPED_PRESETS.items():
    register_preset(_name, "typed", _settings)

__all__ = ["TYPED_PRESETS"]
