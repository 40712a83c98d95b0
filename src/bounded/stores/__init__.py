"""Typed memory stores: L3 rules, L4 case notes, L5 skills with triggers, and their snapshots.

The typed contract (`bounded.contracts.typed`) reads these per layer; postrun learning
writes L4 and L5 through a write gate; a store directory is plain JSON files whose
SHA-256 snapshot hash changes exactly when an entry changes. The stores know no game: an
environment supplies its rules book, seed skills and situation reader as a
`GameKnowledge` (spire's lives in `bounded.envs.spire.knowledge`).

The rule for what lives here: the memory structures environments fill too (beneath
`bounded.envs`, which supply their content through `GameKnowledge`). A structure that
only one method reads and writes lives with the method: the episodic bank is
`bounded.contracts.episodic.bank`.
"""

from bounded.stores.budget import LayerBudget, Truncation, clip_text, fit_block, fit_items
from bounded.stores.case_notes import CaseNote, CaseNoteBook, keys_for
from bounded.stores.directory import StoreSet
from bounded.stores.gate import GateVerdict, WriteGate, similarity
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.rules import Rule, RulesBook, RulesPatch
from bounded.stores.situation import Situation, StateKeys, read_situation, situation_of
from bounded.stores.skills import Skill, SkillLibrary, Trigger
from bounded.stores.snapshot import StoreDiff, describe, diff, directory_hash, freeze, thaw

__all__ = [
    "CaseNote",
    "CaseNoteBook",
    "GameKnowledge",
    "GateVerdict",
    "LayerBudget",
    "Rule",
    "RulesBook",
    "RulesPatch",
    "Situation",
    "Skill",
    "SkillLibrary",
    "StateKeys",
    "StoreDiff",
    "StoreSet",
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
    "read_situation",
    "similarity",
    "situation_of",
    "thaw",
]
