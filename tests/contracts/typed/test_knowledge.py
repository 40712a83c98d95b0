"""The typed contract knows no game: rules, seed skills and facts come from `GameKnowledge`."""

from __future__ import annotations

from bounded.contracts.typed import TypedContract, outcome_word
from bounded.core import Action, Decision, Observation, Outcome, StepResult
from bounded.models.scripted import ScriptedModel
from bounded.protocols import EpisodeContext
from bounded.stores.knowledge import GameKnowledge
from bounded.stores.rules import Rule, RulesBook
from bounded.stores.situation import Situation
from bounded.stores.skills import Skill, SkillLibrary, Trigger


def stream_obs(t: float = 0, *, hp: int = 10) -> Observation:
    legal = [Action(id="ship", label="Ship it"), Action(id="hold", label="Hold it")]
    state = {"event": "SHIP", "crates": 3, "hp": hp, "max_hp": 10}
    return Observation(kind="stream", state=state, text="A crate arrives.", legal=legal, t=t)


def dock_reader(obs: Observation) -> Situation:
    """A game's own reader: every decision happens on the dock."""
    return Situation(kind=obs.kind, room="dock")


def dock_knowledge() -> GameKnowledge:
    rules = RulesBook(
        game="docks",
        version="3",
        rules=[
            Rule(id="room:dock", category="room", name="dock", text="Crates wait here."),
            Rule(id="room:yard", category="room", name="yard", text="Never shown here."),
        ],
    )
    skill = Skill(
        id="ship-early", title="Ship early", text="Ship every crate at once.",
        trigger=Trigger(kinds=["stream"]),
    )  # fmt: skip
    return GameKnowledge(
        game="docks", rules=rules, skills={"hand": SkillLibrary(skills=[skill])},
        situation=dock_reader,
    )  # fmt: skip


def layers_of(contract: TypedContract, obs: Observation) -> dict[str, str]:
    return {s.layer: s.text for s in contract.assemble(obs).segments}


def test_without_knowledge_the_contract_runs_with_no_rules_and_no_seed_skills():
    c = TypedContract(l5={"mode": "on"}, skill_seed="hand")
    c.reset(EpisodeContext(env_id="bounded/Spire-v0", seed=0, instructions="Play."))
    shown = layers_of(c, stream_obs())
    assert c.game == "spire"  # from the environment id
    assert shown["L3"] == "Rules (L3, filtered, version 0):\n- (none)"
    assert shown["L5"].endswith("- (none)")
    assert c.stores.rules.rules == [] and c.stores.skills.skills == []
    assert c.situation(stream_obs()).hp == 10  # the generic reader: plain names
    c.commit(stream_obs(), Decision(actions=[stream_obs().legal[0]]), StepResult(terminated=True))
    c.postrun([], Outcome())


def test_a_user_defined_knowledge_is_what_the_prompt_shows():
    c = TypedContract(l5={"mode": "on"}, skill_seed="hand")
    c.reset(EpisodeContext(env_id="bounded/Warehouse-v0", seed=0, knowledge=dock_knowledge()))
    shown = layers_of(c, stream_obs())
    assert c.game == "docks"  # the knowledge names the game
    assert shown["L3"] == "Rules (L3, filtered, version 3):\n- dock (room): Crates wait here."
    assert shown["L5"].endswith("- [ship-early v1] Ship early: Ship every crate at once.")
    assert c.situation(stream_obs()).room == "dock"  # the knowledge's own reader


def test_skill_seed_picks_a_library_of_the_knowledge_and_none_seeds_nothing():
    for seed, expected in [("hand", ["ship-early"]), ("templates", []), ("none", [])]:
        c = TypedContract(skill_seed=seed)
        c.reset(EpisodeContext(env_id="docks", seed=0, knowledge=dock_knowledge()))
        assert [s.id for s in c.stores.skills.skills] == expected


def test_the_config_game_names_the_stores_and_the_seeds_are_copied(tmp_path):
    knowledge = dock_knowledge()
    c = TypedContract(game="harbour", store_dir=str(tmp_path), l5={"mode": "writable"})
    c.reset(EpisodeContext(env_id="docks", seed=0, knowledge=knowledge))
    assert c.game == "harbour" and c.stores.rules.game == "harbour"
    c.stores.skills.put(Skill(id="new", title="New", text="Something else entirely."))
    assert [s.id for s in knowledge.skills["hand"].skills] == ["ship-early"]
    assert knowledge.rules.game == "docks"


def test_in_memory_stores_keep_what_earlier_episodes_learned():
    c = TypedContract(skill_seed="hand")
    c.reset(EpisodeContext(env_id="docks", seed=0, knowledge=dock_knowledge()))
    c.stores.skills.put(Skill(id="kept", title="Kept", text="Learned in episode one."))
    c.reset(EpisodeContext(env_id="docks", seed=1, knowledge=dock_knowledge()))
    assert c.stores.skills.get("kept") is not None


def note_writer(messages, constraint):
    return {"note": "Ship the crates before the hold fills up."}


def test_postrun_learns_under_the_environments_verdict_and_the_episodes_run_id():
    model = ScriptedModel(note_writer)
    c = TypedContract(l4={"mode": "writable"}, skill_seed="none")
    c.reset(EpisodeContext(env_id="docks", seed=0, model=model, run_id="run-7"))
    obs = stream_obs()
    c.commit(obs, Decision(actions=[obs.legal[0]]), StepResult(info={"victory": False}))
    c.postrun([], Outcome(victory=True, ended_by="victory"))
    [note] = c.stores.summaries.summaries
    assert note.outcome == "victory" and note.source_runs == ["run-7"]
    assert model.calls[0]["messages"][-1]["content"].startswith("Run outcome: victory.")
    assert len(c.postrun_calls) == len(model.calls) == 1
    assert c.postrun_record["verdicts"][0]["run_id"] == "run-7"


def test_outcome_word_is_the_environments_verdict():
    assert outcome_word(Outcome(victory=True)) == "victory"
    assert outcome_word(Outcome(victory=True, ended_by="truncated")) == "victory"
    assert outcome_word(Outcome(ended_by="defeat")) == "defeat"
    assert outcome_word(Outcome(ended_by="victory")) == "not won"
    assert outcome_word(Outcome()) == "not won"
