"""`bounded attribute` removes what the memory designs remembered: `rag`'s retrieved
chunks, `paged`'s core memory, `reflexion`'s window, each a layer of its own."""

import pytest

from bounded.archive import Archive
from bounded.attribution import (
    AttributionSpec,
    attribute,
    counterfactual_prompt,
    counterfactuals,
    plan_attribution,
)
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


def searches_then_reads(messages, constraint):
    """Searches paged's archive at events 12 and 20; after a search, reports 1 occupied
    shelf while the search results are in the prompt, else 0."""
    answer = minimal_instance(constraint)
    last = messages[-1]["content"]
    if "memory" in constraint["properties"]:
        if any(f"Event {n} " in last for n in (12, 20)):
            answer["memory"] = [{"op": "search", "query": "STORE shelf"}]
        return answer
    answer["action"]["args"]["occupied"] = 1 if last.startswith("Archive search") else 0
    return answer


def test_paged_search_results_are_a_layer_of_the_decision_and_attribution_removes_them(tmp_path):
    spec = GameSpec(env="warehouse", env_options={"horizon": 24}, contract="paged", seed=1,
                    contract_config={"queue_tokens": 200}, tag="paged")  # fmt: skip
    model = ScriptedModel(searches_then_reads, id="scripted:searcher")
    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive, model=model)
        records = archive.decisions(run.run_id)
        searched = [r for r in records if "search" in r.info]
        assert [r.info["search"]["asked_again"] for r in searched] == [True, True]
        deciding = [
            call for call in model.calls if "memory" not in call["constraint"]["properties"]
        ]
        for record, call in zip(searched, deciding, strict=True):
            assert [s.layer for s in record.segments][-3:] == ["search", "archive", "search"]
            assert counterfactual_prompt(record.segments, "").messages() == call["messages"]
            assert record.tokens_by_layer["archive"] > 0
            assert record.actions[0].args["occupied"] == 1
        assert all("archive" not in {s.layer for s in r.segments} for r in records
                   if r not in searched)  # fmt: skip
        plan = plan_attribution(archive, AttributionSpec(layers=["archive"]))
        asker = ScriptedModel(searches_then_reads, id="scripted:searcher")
        assert attribute(archive, plan, model=asker) == 2
        rows = counterfactuals(archive, run.run_id)
    assert sorted(row.index for row in rows) == [r.index for r in searched]
    assert all(row.changed and row.actions[0].args["occupied"] == 0 for row in rows)
    assert all("memory" not in call["constraint"]["properties"] for call in asker.calls)
    assert all(not call["messages"][-1]["content"].startswith("Archive") for call in asker.calls)
