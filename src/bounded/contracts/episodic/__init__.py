"""`episodic` (EpicStar): act from an episodic bank of winning games, explore with the model.

The method in one package: `contract` (`EpisodicContract`: its state and the episode's
loop), by concern `planning` (each decision's retrieval and gating, `StepPlan`),
`bank_file` (the bank a game plays with), `prompts` (the reply schema, the prompt and its
contextual fusion), `parsing` (a reply read into the decision) and `snapshot` (store
hashes and the checkpoint); `config` (`EpisodicConfig`, every setting of the paper
and its options), `gating` (Algorithms 1 and 2), `memory` (the working memory of the
exploration prompt), `bank` (the bank of winning games, Eq. 1-3) and `scan` (its wide
window's candidate scan), `presets` (the paper's ablations as condition tags). The
bank builder plays games through the runner, so it sits above it, with the other
applications (`bounded.jobs.bank`).
"""

from bounded.contracts.episodic.bank import (
    BankEntry,
    BankError,
    EpisodicBank,
    GameInfo,
    Retrieved,
    describe_bank,
)
from bounded.contracts.episodic.config import EpisodicConfig, default_bank_path
from bounded.contracts.episodic.contract import EpisodicContract
from bounded.contracts.episodic.memory import MemoryEntry, differing_keys, working_memory
from bounded.contracts.episodic.planning import StepPlan
from bounded.contracts.episodic.presets import EPISODIC_PRESETS

__all__ = [
    "EPISODIC_PRESETS",
    "BankEntry",
    "BankError",
    "EpisodicBank",
    "EpisodicConfig",
    "EpisodicContract",
    "GameInfo",
    "MemoryEntry",
    "Retrieved",
    "StepPlan",
    "default_bank_path",
    "describe_bank",
    "differing_keys",
    "working_memory",
]
