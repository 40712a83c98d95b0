import time

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract, register_contract
from bounded.contracts.base import ContractBase, ContractWrapper
from bounded.core import Action, Decision, Observation, Outcome, Prompt
from bounded.envs import TextEnv, make, register_env
from bounded.envs.warehouse import state_keeping_reply as honest_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import GameSpec, ModelUnavailableError, run_episode
from bounded.runner.build import build_game, runner_for
from bounded.runner.meter import ModelDeadlineError


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


def test_an_unusable_reply_executes_the_games_default_action(tmp_path):
    """The state contract's no-op, which NetHack refuses, becomes BALROG's `esc`: a model
    that never answers cannot loop between a question's first answer and its menu."""
    env = make("nethack", max_steps=12, prompt_limit=3)
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            env, make_contract("state"), ScriptedModel(["no json here"], cycle=True),
            seed=0, archive=archive,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.outcome["ended_by"] == "step-limit"
    assert [a.id for d in decisions for a in d.actions] == ["esc"] * 12
    assert all(
        d.fallback and d.parse_error.startswith("reply holds no JSON block") for d in decisions
    )


def test_an_unusable_reply_without_a_game_default_executes_the_first_legal_action(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            make("warehouse", horizon=3), make_contract("typed"),
            ScriptedModel(["no json here"], cycle=True), seed=0, archive=archive,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert [d.actions[0].id for d in decisions] == ["report"] * 3
    assert all(d.fallback for d in decisions)


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


class ProposingContract(ContractWrapper):
    """The state contract, answering every other decision itself after a model call of its
    own (through the episode's model, as a summary or a description would be made)."""

    def __init__(self):
        super().__init__(make_contract("state", {"reply": "constrained"}))
        self.name = "proposing"
        self.n = 0
        self.model = None

    def reset(self, episode):
        super().reset(episode)
        self.model = episode.model

    def propose(self, obs):
        self.n += 1
        if self.n % 2:
            return None
        self.model.complete([{"role": "user", "content": "summarise"}])
        return Decision(actions=[obs.legal[0].with_args({"occupied": 0, "shipped": 0})])

    def postrun(self, trajectory, outcome):
        self.model.complete([{"role": "user", "content": f"learn from {outcome.victory}"}])


def honest_or_note(messages, constraint):
    if constraint is None:  # the contract's own calls
        return "a note"
    return honest_reply(messages, constraint)


def test_every_model_call_a_contract_makes_is_metered_and_archived(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        run = run_episode(
            make("warehouse", horizon=6), ProposingContract(), ScriptedModel(honest_or_note),
            seed=1, archive=archive,
        )  # fmt: skip
        decisions = archive.decisions(run.run_id)
    assert run.decisions == 6
    assert run.model_calls == 7  # 3 through the runner, 3 of the contract's own, 1 postrun
    assert [len(d.extra_completions) for d in decisions] == [0, 1] * 3
    assert [d.completion is None for d in decisions] == [False, True] * 3
    calls = [c for d in decisions for c in ([d.completion] if d.completion else [])]
    calls += [c for d in decisions for c in d.extra_completions]
    postrun_tokens = run.prompt_tokens - sum(c.prompt_tokens for c in calls)
    assert postrun_tokens > 0  # the postrun call is counted in the run's totals


def test_the_outcome_is_the_environments_verdict_and_postrun_receives_it():
    seen = []

    class Recorder(ContractWrapper):
        def postrun(self, trajectory, outcome):
            seen.append(outcome)

    run = run_episode(
        make("warehouse", horizon=5), Recorder(make_contract("state")), ScriptedModel(honest_reply),
        seed=2,
    )  # fmt: skip
    assert len(seen) == 1 and isinstance(seen[0], Outcome) and seen[0].victory is True
    assert run.outcome["victory"] is True and run.outcome["score"] == seen[0].score
    assert run.outcome["progress"] == seen[0].progress


class Recorder(ContractWrapper):
    """The state contract, noting whether postrun learning ran."""

    def __init__(self):
        super().__init__(make_contract("state"))
        self.learned = False

    def postrun(self, trajectory, outcome):
        self.learned = True


def test_a_run_whose_model_never_answers_fails_before_postrun(tmp_path):
    contract = Recorder()
    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ModelUnavailableError, match="never answered: 2 calls failed"):
            run_episode(
                make("warehouse", horizon=2), contract, FailingModel(99), seed=1,
                archive=archive,
            )  # fmt: skip
        [run] = archive.runs()
        decisions = archive.decisions(run.run_id)
    assert run.status == "failed" and "never answered" in run.error
    assert "TimeoutError: server did not answer" in run.error
    assert [d.fallback for d in decisions] == [True, True] and not contract.learned


def test_a_run_without_model_calls_is_not_a_model_failure():
    class Silent(ContractWrapper):
        def propose(self, obs):
            return Decision(actions=[obs.legal[0].with_args({"occupied": 0, "shipped": 0})])

    run = run_episode(
        make("warehouse", horizon=3), Silent(make_contract("state")), FailingModel(99), seed=1
    )
    assert run.status == "completed" and run.model_calls == 0


class SlowModel(ScriptedModel):
    """Answers (or fails, `failures` times) after `delay_s`, under a per-run budget of model
    time."""

    def __init__(self, delay_s, run_deadline_s, failures=0, reply=honest_reply):
        super().__init__(reply)
        self.delay_s, self.run_deadline_s, self.failures = delay_s, run_deadline_s, failures

    def complete(self, messages, **kwargs):
        time.sleep(self.delay_s)
        if self.failures > 0:
            self.failures -= 1
            raise TimeoutError("server did not answer")
        return super().complete(messages, **kwargs)


@pytest.mark.parametrize("failures", [0, 99])
def test_a_run_past_its_model_time_deadline_fails(tmp_path, failures):
    model = SlowModel(0.1, run_deadline_s=0.29, failures=failures)
    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(ModelDeadlineError, match=r"passed the run's deadline of 0\.29 s"):
            run_episode(make("warehouse", horizon=20), make_contract("state"), model, seed=1,
                        archive=archive)  # fmt: skip
        [run] = archive.runs()
        decisions = archive.decisions(run.run_id)
    assert run.status == "failed" and "ModelDeadlineError" in run.error
    assert len(decisions) == 2  # the third call passed 0.29 s of model time
    assert run.wall_s < 0.3 + 1.0


def test_tiers_of_one_model_share_its_clock():
    # Decisions go to the `stream` tier, the contract's own calls to the main model: both are
    # one object, so the third call of either passes the 0.27 s budget.
    model = SlowModel(0.1, run_deadline_s=0.27, reply=honest_or_note)
    with pytest.raises(ModelDeadlineError):
        run_episode(make("warehouse", horizon=20), ProposingContract(), model, seed=1,
                    models={"stream": model})  # fmt: skip
    assert [call["constraint"] is not None for call in model.calls] == [True, False, True]


def test_a_wrapped_contracts_memory_logs_are_checkpointed_as_its_own(tmp_path):
    wrapped = ContractWrapper(make_contract("state"))
    assert wrapped.memory.memory_logs() == ("journal",)
    seen = []

    def stop(record, obs):
        if record.index == 9:
            seen.append(wrapped.memory.memory_snapshot()["journal"]["items"][:])
            raise KeyboardInterrupt

    with Archive(tmp_path / "a.sqlite") as archive:
        with pytest.raises(KeyboardInterrupt):
            run_episode(
                make("warehouse", horizon=25), wrapped, ScriptedModel(honest_reply), seed=3,
                archive=archive, observer=stop,
            )  # fmt: skip
        (run,) = archive.runs()
        rows = archive.execute("SELECT pos FROM checkpoint_logs WHERE run_id = ?", (run.run_id,))
        memory = archive.execute("SELECT memory FROM checkpoints")[0]["memory"]
    assert len(rows) == len(seen[0]) == 10 and '"journal"' not in memory


class Counter(TextEnv):
    """A plugin game with only `bounded.protocols.Env`'s required members: count to three."""

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.count = 0
        return self.observe(), {}

    def observe(self):
        legal = [Action(id="up"), Action(id="down")] if self.count < 3 else []
        return Observation(kind="count", t=self.count, text=f"at {self.count}", legal=legal)

    def step(self, action):
        self.count += 1
        return self.observe(), 1.0, self.count >= 3, False, {}

    def save(self):
        return {"count": self.count}

    def load(self, data):
        self.count = data["count"]


class Plain(ContractBase):
    """A plugin contract with only `bounded.protocols.Contract`'s required hooks."""

    name = "plain"

    def reset(self, episode):
        return None

    def assemble(self, obs):
        return Prompt().add("observation", "user", obs.text)

    def reply_schema(self, obs):
        return {"type": "object"}

    def parse(self, completion, obs):
        chosen = obs.legal_action(completion.text.strip())
        return Decision(actions=[chosen] if chosen else [], parse_error=None if chosen else "?")

    def commit(self, obs, decision, result):
        return None

    def config_dict(self):
        return {}


def test_a_plugin_without_the_optional_hooks_plays_with_the_base_classes_defaults(tmp_path):
    """No `default_action`, `fallback_policy`, `env_options`, `paper_temperature`,
    `memory_snapshot` or model `run_deadline_s` of its own: the bases' defaults play it,
    an unusable reply executes the first legal action, and its checkpoints save no memory."""
    register_env("plugin/Counter-v0", Counter)
    register_contract("plain", Plain)
    spec = GameSpec(env="plugin/Counter-v0", contract="plain", model="scripted", seed=1)
    game = build_game(spec, model=ScriptedModel(["down", "no idea"], cycle=True))
    with Archive(tmp_path / "a.sqlite") as archive:
        runner = runner_for(game, archive=archive)
        run = runner.execute()
        decisions = archive.decisions(run.run_id)
    assert run.status == "completed" and run.decisions == 3
    assert [d.actions[0].id for d in decisions] == ["down", "up", "down"]
    assert [d.fallback for d in decisions] == [False, True, False]
    assert run.model_params["temperature"] == 0.0
    assert runner.checkpoint().memory is None and runner.checkpoint().logs == ()


def test_a_game_cut_at_the_decision_limit_ends_by_it(tmp_path):
    def play(horizon: int, limit: int) -> dict:
        return run_episode(
            make("warehouse", horizon=horizon), make_contract("state"),
            ScriptedModel(honest_reply), seed=3, max_decisions=limit,
        ).outcome  # fmt: skip

    assert play(10, 3)["ended_by"] == "decision-limit"
    assert play(3, 10).get("ended_by") != "decision-limit"  # it ended on its own
