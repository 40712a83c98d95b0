import json

from bounded.contracts.journaled_state import JournaledStateContract, replay_patches
from bounded.core import Action, Completion, Observation, StepResult
from bounded.testing import episode

OBS = Observation(t=0, kind="event", text="an event", legal=[Action(id="wait")])


def play(contract, t, patch):
    """One decision whose reply carries `patch`."""
    reply = {"reasoning": "", "state_patch": patch, "action": {"id": "wait"}}
    obs = OBS.model_copy(update={"t": t})
    decision = contract.parse(Completion(text=json.dumps(reply)), obs)
    contract.commit(obs, decision, StepResult())


def test_a_restored_journal_is_written_again_to_the_file_reset_restarted(tmp_path):
    path = tmp_path / "patches.jsonl"
    first = JournaledStateContract(journal_path=path)
    first.reset(episode())
    for t, patch in enumerate([{"a": 1}, {"b": {"$append": [2]}}, "not an object"]):
        play(first, t, patch)
    snapshot = json.loads(json.dumps(first.memory_snapshot()))  # as the archive keeps it
    before = path.read_text()
    assert len(before.splitlines()) == 4  # the header and three patches

    second = JournaledStateContract(journal_path=path)
    second.reset(episode())  # a resumed run resets first: the file starts over
    second.restore_memory(snapshot)
    assert path.read_text() == before
    assert second.state == first.state == {"a": 1, "b": [2]}
    assert replay_patches(path)[-1] == second.state
    play(second, 3, {"c": 3})
    assert len(path.read_text().splitlines()) == 5
