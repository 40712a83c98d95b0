import json

import jsonschema

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import Action, Completion, Observation, StepResult, approx_tokens
from bounded.models.scripted import ScriptedModel, minimal_instance
from bounded.runner import GameSpec, play
from bounded.testing import episode


def observation(t, text=None):
    return Observation(kind="test", text=text or f"room {t}", legal=[Action(id="go"),
                       Action(id="wait")], t=t)  # fmt: skip


def reply(memory=(), action="go"):
    return json.dumps({"reasoning": "", "memory": list(memory), "action": {"id": action}})


def step(contract, t, text=None, memory=(), action="go"):
    obs = observation(t, text)
    prompt = contract.assemble(obs)
    decision = contract.parse(Completion(text=reply(memory, action)), obs)
    result = StepResult()
    contract.commit(obs, decision, result)
    return prompt, decision, result


def test_memory_operations_edit_the_core_memory_within_its_limit():
    contract = make_contract("paged", {"core_chars": 60})
    contract.reset(episode())
    step(contract, 0, memory=[{"op": "append", "text": "key is in room 3"}])
    step(contract, 1, memory=[{"op": "replace", "old": "room 3", "new": "room 4"}])
    assert contract.core == "key is in room 4"
    _, _, result = step(contract, 2, memory=[{"op": "replace", "old": "nowhere", "new": "x"},
                                             {"op": "append", "text": "y" * 60}])  # fmt: skip
    assert [o["ok"] for o in result.info["memory"]] == [False, False]
    assert "over 60" in result.info["memory"][1]["reason"]
    prompt, _, _ = step(contract, 3)
    core = next(s.text for s in prompt.segments if s.layer == "core")
    assert core.endswith("key is in room 4") and "(16/60 characters)" in core


def test_the_queue_evicts_its_oldest_turns_to_the_archive_and_the_prompt_stays_bounded():
    contract = make_contract("paged", {"queue_tokens": 300, "flush_to": 0.5})
    contract.reset(episode(instructions="Walk."))
    totals = []
    for t in range(300):
        prompt, _, _ = step(contract, t, text=f"room {t}: a corridor with doors " * 3)
        queue = sum(approx_tokens(s.text) for s in prompt.segments if s.layer == "queue")
        assert queue <= 300
        totals.append(sum(prompt.tokens_by_layer().values()))
    assert max(totals[100:]) <= max(totals[:100])
    assert len(contract.archive) + len(contract.queue) == 300
    assert contract.archive[0].t == 0 and contract.queue[0].t == len(contract.archive)


def searching_model():
    """Searches the archive for 'lever' at the first decision that sees room 20, else
    answers minimally; after a search, waits."""

    def answer(messages, constraint):
        last = messages[-1]["content"]
        if last.startswith("Archive search"):
            return {"reasoning": "found it", "action": {"id": "wait"}}
        if last.startswith("room 20"):
            return {"reasoning": "", "memory": [{"op": "search", "query": "lever"}],
                    "action": {"id": "go"}}  # fmt: skip
        return minimal_instance(constraint)

    return ScriptedModel(answer)


def test_a_search_shows_the_archive_results_and_asks_again_for_the_action():
    model = searching_model()
    contract = make_contract("paged", {"queue_tokens": 100})
    contract.reset(episode(model=model))
    for t in range(20):
        step(contract, t, text="a lever on the wall" if t == 2 else f"room {t}")
    obs = observation(20)
    contract.assemble(obs)
    first = model.complete(contract._prompt.messages(), constraint=contract.reply_schema(obs))
    decision = contract.parse(first, obs)
    assert [a.id for a in decision.actions] == ["wait"] and decision.extra["set_aside"] == ["go"]
    assert decision.extra["search"] == {"query": "lever", "hits": [2], "asked_again": True}
    results = model.calls[-1]["messages"][-1]["content"]
    assert "a lever on the wall" in results
    assert "memory" not in model.calls[-1]["constraint"]["properties"]  # no second search


def test_a_search_outside_a_run_keeps_the_first_action():
    contract = make_contract("paged")
    contract.reset(episode())
    for t in range(3):
        step(contract, t)
    _, decision, _ = step(contract, 3, memory=[{"op": "search", "query": "room"}])
    assert [a.id for a in decision.actions] == ["go"]
    assert decision.extra["search"]["asked_again"] is False


def test_a_run_archives_the_search_call_with_its_decision(tmp_path):
    spec = GameSpec(env="warehouse", env_options={"horizon": 30}, contract="paged", seed=1,
                    contract_config={"queue_tokens": 200})  # fmt: skip

    def answer(messages, constraint):
        if "memory" in constraint["properties"] and "Event 25 " in messages[-1]["content"]:
            base = minimal_instance(constraint)
            return {**base, "memory": [{"op": "search", "query": "STORE"}]}
        return minimal_instance(constraint)

    with Archive(tmp_path / "a.sqlite") as archive:
        run = play(spec, archive=archive, model=ScriptedModel(answer))
        records = archive.decisions(run.run_id)
    searched = [r for r in records if "search" in r.info]
    assert len(searched) == 1 and searched[0].info["search"]["asked_again"]
    assert len(searched[0].extra_completions) == 1
    assert run.model_calls == run.decisions + 1


def test_unoffered_or_malformed_operations_are_refused_not_applied():
    contract = make_contract("paged-no-core")
    contract.reset(episode())
    _, decision, result = step(contract, 0, memory=[{"op": "append", "text": "x"}, {"op": 3}])
    assert decision.extra["memory_refused"] == [
        "unknown operation 'append'",
        "unknown operation '3'",
    ]
    assert contract.core == "" and "memory" not in result.info


def test_the_reply_schema_offers_the_configured_operations():
    obs = observation(0)
    full = make_contract("paged").reply_schema(obs)
    ops = {"op": "replace", "old": "a", "new": "b"}
    jsonschema.validate({"reasoning": "", "memory": [ops], "action": {"id": "go"}}, full)
    assert minimal_instance(full)["memory"] == []
    none = make_contract("paged", {"core": False, "search": False}).reply_schema(obs)
    assert "memory" not in none["properties"]


def test_a_restored_snapshot_continues_as_the_original():
    original = make_contract("paged", {"queue_tokens": 100})
    original.reset(episode())
    for t in range(40):
        step(original, t, memory=[{"op": "append", "text": f"n{t}"}] if t % 7 == 0 else ())
    copy = make_contract("paged", {"queue_tokens": 100})
    copy.reset(episode())
    copy.restore_memory(original.memory_snapshot())
    assert copy.store_hashes() == original.store_hashes()
    assert copy.assemble(observation(40)) == original.assemble(observation(40))
    assert copy.search_archive("room 3") == original.search_archive("room 3")
