"""A run's record is made once, by `bounded.runner.record`: its identity is the one an
archive written before that change recorded (so such a run resumes under the same
identity), a reply mode's fallback rewrites it through the same function, and a build
resolves its environment's name once."""

import bounded.envs
import bounded.runner.build
from bounded.core import ResponseFormatRefused
from bounded.envs.warehouse import state_keeping_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import GameSpec
from bounded.runner.build import build_game, run_game, runner_for
from bounded.runner.identity import identity_hash

PINNED = GameSpec(
    env="warehouse", env_options={"horizon": 3}, contract="state",
    contract_config={"reply": "constrained", "reply_fallback": ["text"]},
    model="scripted", seed=7, experiment="pinned", cell="state", tag="state",
)  # fmt: skip

# Computed once by main's code at 6cec3e0 (before the run record was made in one
# function: EpisodeRunner.__init__, patched by runner_for, re-hashed by _reidentify), with
# build_game(PINNED, model=ScriptedModel(state_keeping_reply)) and runner_for(game).run.
BUILT_IDENTITY = "3cc166aea83be7c1e2d438edaffe24130ee3395c7adbf45c2f684c35f48a5992"
BUILT_INPUTS = {
    "env_version": "1",
    "contract_config_hash": "48c894b69ba21ff27c17af51e62196bde1f1957082a6f15e35f2e25e47cff214",
    "store:state": "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
}
# The same game played by a model that refuses the constrained format, so that the run
# falls back to `text` before its first reply (main at 6cec3e0, run_game's record).
FELL_BACK_IDENTITY = "20eaa07781ddd68b8bd91d6e5f80891a443ecb6b9af940c52bbcaf511a8be763"
FELL_BACK_CONFIG_HASH = "16dfa4350fb89053660b107ff5f987b5dc10ca1f527cb65685ad7e217ca84f6f"


class RefusingSchemas(ScriptedModel):
    """A scripted model whose endpoint refuses any response format."""

    def complete(self, messages, constraint=None, **kwargs):
        if constraint is not None:
            raise ResponseFormatRefused("the endpoint refuses json_schema", "json_schema")
        return super().complete(messages, constraint=constraint, **kwargs)


def test_a_built_runs_identity_is_the_one_archived_before():
    run = runner_for(build_game(PINNED, model=ScriptedModel(state_keeping_reply))).run
    assert run.identity == BUILT_IDENTITY
    assert run.inputs == BUILT_INPUTS
    assert run.contract_config_hash == BUILT_INPUTS["contract_config_hash"]
    played = run_game(build_game(PINNED, model=ScriptedModel(state_keeping_reply)))
    assert played.status == "completed" and played.identity == BUILT_IDENTITY


def test_a_fallen_back_runs_identity_follows_its_played_configuration():
    run = run_game(build_game(PINNED, model=RefusingSchemas(state_keeping_reply)))
    assert run.status == "completed" and run.contract_config["reply"] == "text"
    assert run.identity == FELL_BACK_IDENTITY
    assert run.contract_config_hash == FELL_BACK_CONFIG_HASH
    assert run.inputs == {**BUILT_INPUTS, "contract_config_hash": FELL_BACK_CONFIG_HASH}
    assert run.identity == identity_hash(PINNED, run.inputs)


def test_a_capped_reply_limit_is_recorded_with_what_the_spec_asked():
    small = ScriptedModel(state_keeping_reply)
    small.context_window = 1024
    spec = PINNED.model_copy(update={"contract": "balrog-naive", "contract_config": {}})
    game = build_game(spec, model=small)
    run = runner_for(game).run
    cap = run.model_params.get("max_tokens_cap")
    assert cap is not None and cap["asked"] == game.spec.max_tokens == 8192  # BALROG's
    assert cap["capped_to"] == run.model_params["max_tokens"] < 8192
    assert cap["context_window"] == 1024


def test_a_build_resolves_its_environments_name_once(monkeypatch):
    calls: list[str] = []
    resolve = bounded.envs.resolve_env_id

    def counted(name: str) -> str:
        calls.append(name)
        return resolve(name)

    monkeypatch.setattr(bounded.envs, "resolve_env_id", counted)
    monkeypatch.setattr(bounded.runner.build, "resolve_env_id", counted)
    game = build_game(PINNED, model=ScriptedModel(state_keeping_reply))
    runner_for(game)
    assert calls == ["warehouse"] and game.env_id == "bounded/Warehouse-v0"
