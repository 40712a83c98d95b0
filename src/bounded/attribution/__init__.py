"""Counterfactual layer attribution: which memory layer drove a decision.

Archived decisions are re-asked with one prompt layer removed (or replaced), the
environment's state at each is rebuilt by replaying the run, and the expert's action
there says whether the change moved the decision toward or away from good play. The
statistics are `bounded.analysis.attribution`; the rows live in the archive's
`counterfactuals` table.
"""

from bounded.analysis.attribution import AttributionRow, attribution_table, mcnemar_exact_p
from bounded.archive.counterfactuals import Counterfactual, counterfactual_prompt, counterfactuals
from bounded.attribution.counterfactual import (
    CONTROL,
    AttributionPlan,
    AttributionSpec,
    Reask,
    action_key,
    attribute,
    plan_attribution,
)
from bounded.attribution.replay import (
    EXPERTS,
    ReplayedDecision,
    ReplayError,
    register_expert,
    replay,
)

__all__ = [
    "CONTROL",
    "EXPERTS",
    "AttributionPlan",
    "AttributionRow",
    "AttributionSpec",
    "Counterfactual",
    "Reask",
    "ReplayError",
    "ReplayedDecision",
    "action_key",
    "attribute",
    "attribution_table",
    "counterfactual_prompt",
    "counterfactuals",
    "mcnemar_exact_p",
    "plan_attribution",
    "register_expert",
    "replay",
]
