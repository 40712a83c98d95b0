"""Typed memory stores: L3 rules, L4 case notes, L5 skills with triggers, and their snapshots.

The typed contract (`bounded.contracts.typed`) reads these per layer; postrun learning
writes L4 and L5 through a write gate; a store directory is plain JSON files whose
SHA-256 snapshot hash changes exactly when an entry changes. (The episodic bank of the
`episodic` contract lives in `bounded.stores.episodic`.)
"""

from bounded.stores.budget import LayerBudget, Truncation, clip_text, fit_block, fit_items
from bounded.stores.directory import StoreSet, seed_games, seed_rules, seed_skills
from bounded.stores.gate import GateVerdict, WriteGate, similarity
from bounded.stores.ladder import LadderResult, LadderStep, next_level, run_ladder
from bounded.stores.rules import Rule, RulesBook, RulesPatch
from bounded.stores.situation import Situation, situation_of
from bounded.stores.skills import Skill, SkillLibrary, Trigger
from bounded.stores.snapshot import StoreDiff, describe, diff, directory_hash, freeze, thaw
from bounded.stores.summaries import Summary, SummaryBook, keys_for

__all__ = [
    "GateVerdict",
    "LadderResult",
    "LadderStep",
    "LayerBudget",
    "Rule",
    "RulesBook",
    "RulesPatch",
    "Situation",
    "Skill",
    "SkillLibrary",
    "StoreDiff",
    "StoreSet",
    "Summary",
    "SummaryBook",
    "Trigger",
    "Truncation",
    "WriteGate",
    "clip_text",
    "describe",
    "diff",
    "directory_hash",
    "fit_block",
    "fit_items",
    "freeze",
    "keys_for",
    "next_level",
    "run_ladder",
    "seed_games",
    "seed_rules",
    "seed_skills",
    "similarity",
    "situation_of",
    "thaw",
]
