"""`bounded attribute` removes what the memory designs remembered: `rag`'s retrieved
chunks, `paged`'s core memory, `reflexion`'s window, each a layer of its own."""

import pytest

from bounded.archive import Archive
from bounded.attribution import AttributionSpec, attribute, counterfactuals, plan_attribution
from bounded.models.scripted import ScriptedModel, minimal_instance
from bounded.runner import GameSpec, play

HORIZON = 8


def reads(present):
    """A model that reports 1 occupied shelf while `present(messages)` holds, else 0."""

    def reply(messages, constraint):
        answer = minimal_instance(constraint)
        answer["action"]["args"]["occupied"] = 1 if present(messages) else 0
        return answer

    return ScriptedModel(reply, id="scripted:reads")


CASES = {
    "rag": ("retrieved", lambda m: any("Past moments" in x["content"] for x in m)),
    "paged": ("core", lambda m: any("Core memory (" in x["content"] for x in m)),
    "reflexion": ("window", lambda m: any(x["role"] == "assistant" for x in m)),
}


@pytest.mark.parametrize("contract", sorted(CASES))
def test_removing_the_remembered_layer_changes_each_decision_that_read_it(tmp_path, contract):
    layer, present = CASES[contract]
    spec = GameSpec(env="warehouse", env_options={"horizon": HORIZON}, contract=contract,
                    seed=2, tag=contract)  # fmt: skip
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive, model=reads(present))
        holding = [d.index for d in archive.decisions(run.run_id)
                   if any(s.layer == layer for s in d.segments)]  # fmt: skip
        plan = plan_attribution(archive, AttributionSpec(layers=[layer]))
        assert attribute(archive, plan, model=reads(present)) == len(holding)
        rows = counterfactuals(archive, run.run_id)
    assert len(holding) >= HORIZON - 1
    assert sorted(row.index for row in rows if row.changed) == holding
