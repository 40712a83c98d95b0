"""`typed` (AgenticSTS): every decision is one fresh prompt assembled from typed layers.

The prompt holds, in this fixed order, each as its own recorded segment:

- **L1** fixed instructions (system): the task, the protocol, the reply format;
- **combat** (only inside a fight): the fight's first observation and a fixed
  acknowledgement, the one stateful container; earlier rounds are never resent;
- **L2** the decision: its kind, the state schema, the current state, the legal actions
  and the reply keys;
- **L3** the rules of what is in play, from a versioned rules store;
- **L4** case notes from earlier runs, retrieved by category and key;
- **L5** strategic skills whose Boolean trigger holds now, highest priority first.

There is no cross-decision transcript. Every layer has a budget (k items x s tokens,
see `bounded.stores.budget`), enforced, and what a budget cut is recorded on the
decision (`Decision.extra["truncation"]`), so a prompt never exceeds
`|L1| + |L2| + |combat| + sum_i (header_i + k_i s_i)`, given on each decision as
`extra["prompt_bound"]`. After a run, writable layers learn: the model writes L4
notes and fills or revises L5 skills, through a write gate that refuses duplicates.

The contract knows no game: the rules book, the seed skills and how to read a
decision's facts come from the environment (`Env.game_knowledge()`, a
`bounded.stores.knowledge.GameKnowledge`; spire's is in `bounded.envs.spire.knowledge`).

Modules: `config` (settings), `assembly` (the layers of one prompt), `learning` (the
run digest and postrun learning), `contract` (`TypedContract`, which ties them).
"""

from bounded.contracts.typed.assembly import Assembler, Assembly, instructions_text, schema_line
from bounded.contracts.typed.config import (
    CombatContainer,
    LayerMode,
    PostrunSettings,
    RulesLayer,
    SkillSeed,
    StateLayer,
    StoreLayer,
    TypedConfig,
    game_of,
)
from bounded.contracts.typed.contract import TypedContract
from bounded.contracts.typed.learning import Digest, Episode, Learner, outcome_word

__all__ = [
    "Assembler",
    "Assembly",
    "CombatContainer",
    "Digest",
    "Episode",
    "LayerMode",
    "Learner",
    "PostrunSettings",
    "RulesLayer",
    "SkillSeed",
    "StateLayer",
    "StoreLayer",
    "TypedConfig",
    "TypedContract",
    "game_of",
    "instructions_text",
    "outcome_word",
    "schema_line",
]
