import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import Completion, Decision
from bounded.envs import make
from bounded.envs.warehouse import state_keeping_reply as honest_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import ModelUnavailableError, run_episode


def test_state_contract_loop_with_a_perfect_scripted_model(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            make("warehouse", horizon=25), make_contract("state"), ScriptedModel(honest_reply),
            seed=3, archive=archive, tag="t",
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed"
    assert run.outcome["accuracy"] == 1.0
    assert run.decisions == run.model_calls == 25
    assert len(decisions) == 25
    assert [d.index for d in decisions] == list(range(25))
    assert all(not d.fallback and d.parse_error is None for d in decisions)
    assert {tuple(d.tokens_by_layer) for d in decisions} == {("spec", "state", "observation")}


def test_malformed_replies_are_recorded_and_survived(tmp_path):
    model = ScriptedModel(["garbage", '{"action": {"id": "nope"}}', "{}"], cycle=True)
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            make("warehouse", horizon=6),
            make_contract("transcript"),
            model,
            seed=1,
            archive=archive,
        )
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.decisions == 6
    assert all(d.fallback and d.parse_error for d in decisions)
    assert decisions[0].completion.text == "garbage"
    assert decisions[0].actions[0].id == "report"


def test_transcript_prompt_grows_and_state_prompt_stays_flat():
    def last_prompt(contract, horizon):
        zero = {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}
        model = ScriptedModel(honest_reply if contract == "state" else lambda *_: zero)
        return run_episode(
            make("warehouse", horizon=horizon), make_contract(contract), model, seed=2
        ).last_prompt_tokens

    assert last_prompt("transcript", 40) > 4 * last_prompt("transcript", 5)
    flat = [last_prompt("state", h) for h in (5, 40)]
    assert abs(flat[1] - flat[0]) <= 0.1 * flat[0]


class FailingModel(ScriptedModel):
    def __init__(self, failures):
        super().__init__(honest_reply)
        self.failures = failures

    def complete(self, messages, **kwargs):
        if self.failures > 0:
            self.failures -= 1
            raise TimeoutError("server did not answer")
        return super().complete(messages, **kwargs)


def test_a_transient_model_error_becomes_a_fallback_decision():
    run = run_episode(make("warehouse", horizon=4), make_contract("state"), FailingModel(1), seed=1)
    assert run.status == "completed"
    assert run.model_calls == 3


def test_a_dead_model_fails_the_run_and_keeps_what_was_recorded(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ModelUnavailableError):
            run_episode(
                make("warehouse", horizon=9), make_contract("state"), FailingModel(99), seed=1,
                archive=archive,
            )  # fmt: skip
        [run] = archive.runs()
        assert run.status == "failed" and "TimeoutError" in run.error
        assert len(archive.decisions(run.run_id)) == 2


class ProposingContract:
    """Wraps the state contract and answers every other decision without the model."""

    def __init__(self):
        self.inner = make_contract("state")
        self.name = "proposing"
        self.n = 0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def propose(self, obs):
        self.n += 1
        if self.n % 2:
            return None
        extra = {"completions": [Completion(text="x", prompt_tokens=7, completion_tokens=1)]}
        return Decision(
            actions=[obs.legal[0].with_args({"occupied": 0, "shipped": 0})], extra=extra
        )


def test_contract_may_decide_alone_and_report_its_own_model_calls():
    run = run_episode(
        make("warehouse", horizon=6), ProposingContract(), ScriptedModel(honest_reply), seed=1
    )
    assert run.decisions == 6
    assert run.model_calls == 6  # 3 through the runner, 3 reported by the contract
