"""The episodic contract: working memory (Eq. 4), gating (Algorithms 1-2), fusion, runs."""

from __future__ import annotations

import json

import pytest

from bounded.contracts import PRESETS, make_contract
from bounded.contracts.episodic import (
    EpisodicContract,
    MemoryEntry,
    default_bank_path,
    differing_keys,
    working_memory,
)
from bounded.contracts.episodic.bank import BankEntry, EpisodicBank, GameInfo
from bounded.core import JSON, Action, Completion, Observation, StepResult
from bounded.envs import make
from bounded.envs.warehouse.expert import WarehouseExpert
from bounded.jobs.craft_bank import record_game
from bounded.models.scripted import ScriptedModel, first_option, minimal_instance
from bounded.runner import run_episode
from bounded.runner.meter import MeteredModel
from bounded.testing import episode

EMPTY = "EMPTY ACTION"


def observation(t: float, state: JSON, legal: list[str]) -> Observation:
    return Observation(kind="macro", state=state, t=t, legal=[Action(id=a) for a in legal])


def bank_of(*rows: tuple[float, JSON, str, int]) -> EpisodicBank:
    games: dict[int, list[BankEntry]] = {}
    for step, (t, features, action, game) in enumerate(rows):
        games.setdefault(game, []).append(
            BankEntry(t=t, features=features, actions=[Action(id=action)], step=step)
        )
    infos = [GameInfo(game=g, strategy=f"plan-{g}") for g in sorted(games)]
    return EpisodicBank.from_games([(info, games[info.game]) for info in infos])


def contract_with(bank: EpisodicBank, model=None, **settings) -> EpisodicContract:
    """The contract on `bank`, replying `constrained`: these tests script JSON replies (the
    text mode's exploration replies: tests/contracts/replies/test_rules.py)."""
    contract = EpisodicContract(**{"reply": "constrained", **settings})
    contract.use_bank(bank)
    contract.reset(episode(empty_action=EMPTY, instructions="Win.", model=model, seed=0))
    return contract


def finish(contract: EpisodicContract, obs: Observation, decision) -> None:
    assert decision is not None
    contract.commit(obs, decision, StepResult())


# -- Eq. 4 -----------------------------------------------------------------------


def memory(steps: range) -> list[MemoryEntry]:
    return [MemoryEntry(step=s, t=float(s), features={"s": float(s)}) for s in steps]


def test_working_memory_takes_every_lth_observation_back() -> None:
    history = memory(range(100))
    assert [e.step for e in working_memory(history, 100, 24, 4)] == [76, 52, 28, 4]
    assert [e.step for e in working_memory(history, 30, 24, 4)] == [6]
    assert working_memory(history, 10, 24, 4) == []
    assert working_memory(history, 100, 24, 0) == []


def test_working_memory_of_the_contract_is_bounded_and_reaches_k_max() -> None:
    contract = contract_with(
        EpisodicBank.empty(), exploration=False, memory_interval=2, memory_depth=3
    )
    for step in range(20):
        obs = observation(step, {"n": step}, [EMPTY])
        finish(contract, obs, contract.propose(obs))
    assert len(contract.history) == 6
    plan = contract.plan(observation(20, {"n": 20}, [EMPTY]))
    text = contract.render_memory(plan)
    heads = [line.split(" decisions ago")[0] for line in text.splitlines() if "ago" in line]
    assert heads == ["- 2", "- 4", "- 6"]
    assert "n=18" in text  # the past observation itself (no text: its numbers)


def test_working_memory_indexes_a_contiguous_history_as_it_searches_any_other() -> None:
    window = memory(range(40, 136))  # the latest 96 steps, as the contract keeps them
    gapped = [entry for entry in window if entry.step % 5]
    for step in (136, 150, 100, 64, 41):
        expected = [s for s in (step - 24 * k for k in range(1, 5)) if 40 <= s < 136]
        assert [e.step for e in working_memory(window, step, 24, 4)] == expected
        assert [e.step for e in working_memory(gapped, step, 24, 4)] == [
            s for s in expected if s % 5
        ]
    assert working_memory([], 10, 2, 3) == []


def played(contract: EpisodicContract, steps: range) -> None:
    for step in steps:
        obs = Observation(
            kind="macro", state={"n": step}, t=step, legal=[Action(id=EMPTY)], text=f"n is {step}"
        )
        finish(contract, obs, contract.propose(obs))


def test_the_history_is_snapshotted_as_a_window_on_the_log_of_every_step() -> None:
    contract = contract_with(
        EpisodicBank.empty(), exploration=False, memory_interval=2, memory_depth=3
    )
    assert contract.memory_logs() == ("history",)
    played(contract, range(4))
    assert contract.memory_snapshot()["history"]["start"] == 0
    played(contract, range(4, 20))
    window = contract.memory_snapshot()["history"]
    assert window["start"] == 14 and [item[0] for item in window["items"]] == list(range(14, 20))
    assert window["items"][-1] == [19, 19, {"n": 19.0}, "n is 19"]


def test_a_snapshot_restores_from_its_window_or_from_the_older_whole_list() -> None:
    settings = dict(exploration=False, memory_interval=2, memory_depth=3)
    original = contract_with(EpisodicBank.empty(), **settings)
    played(original, range(20))
    snapshot = json.loads(json.dumps(original.memory_snapshot()))  # as the archive keeps it
    older = {**snapshot, "history": snapshot["history"]["items"]}  # before it was a window
    now = observation(20, {"n": 20}, [EMPTY])
    recalled = original.render_memory(original.plan(now))
    assert "n is 18" in recalled
    for saved in (snapshot, older):
        copy = contract_with(EpisodicBank.empty(), **settings)
        copy.restore_memory(saved)
        assert copy.memory_snapshot() == snapshot
        assert copy.render_memory(copy.plan(now)) == recalled
        played(copy, range(20, 23))
        assert copy.memory_snapshot()["history"]["start"] == 17


def test_differing_keys_orders_by_size_of_change() -> None:
    changes = differing_keys({"a": 1, "b": 10, "c": 3}, {"a": 1, "b": 2, "d": 1}, 5)
    assert changes == [("b", 2, 10), ("c", 0.0, 3), ("d", 1, 0.0)]


# -- gating --------------------------------------------------------------------------


def test_retrieved_action_runs_without_a_model_call() -> None:
    bank = bank_of((0, {"x": 1}, "BUILD", 0), (0, {"x": 5}, "TRAIN", 1))
    contract = contract_with(bank, exploration=False)
    decision = contract.propose(observation(0, {"x": 1}, ["BUILD", "TRAIN", EMPTY]))
    assert decision is not None
    assert [a.id for a in decision.actions] == ["BUILD"]
    assert decision.extra["source"] == "retrieval"
    assert [r["actions"] for r in decision.extra["retrieved"]] == [["BUILD"], ["TRAIN"]]


def test_extract_action_reads_the_top_hit_and_falls_through_only_when_told() -> None:
    bank = bank_of((0, {"x": 1}, "BUILD", 0), (0, {"x": 5}, "TRAIN", 1))
    obs = observation(0, {"x": 1}, ["TRAIN", EMPTY])
    # Algorithm 1: the top hit's action (BUILD) is not executable now, so nothing is replayed.
    for settings in ({}, {"fusion": False}, {"fusion": False, "fusion_ablation": "legacy"}):
        top = contract_with(bank, exploration=False, **settings).propose(obs)
        assert top is not None and top.actions[0].id == EMPTY
        assert top.extra["source"] == "empty"
    # The named variant falls through to the best hit whose action is executable now.
    variant = dict(exploration=False, extract="first-executable")
    fused = contract_with(bank, **variant).propose(obs)
    assert fused is not None and fused.actions[0].id == "TRAIN"
    ablated = contract_with(bank, **variant, fusion=False).propose(obs)
    assert ablated is not None and ablated.actions[0].id == "TRAIN"
    legacy = contract_with(bank, **variant, fusion=False, fusion_ablation="legacy").propose(obs)
    assert legacy is not None and legacy.actions[0].id == EMPTY  # legacy reads the top hit only


def test_empty_window_executes_the_empty_action() -> None:
    contract = contract_with(bank_of((0, {"x": 1}, "BUILD", 0)), exploration=False)
    decision = contract.propose(observation(5, {"x": 1}, ["BUILD", EMPTY]))
    assert decision is not None and decision.actions[0].id == EMPTY


def explore_reply(*names: str) -> JSON:
    return {"reasoning": "expand", "actions": [{"id": n} for n in names]}


def test_exploration_every_d_e_fills_the_queue_and_d_q_paces_the_pops() -> None:
    model = ScriptedModel([explore_reply("TRAIN", "BUILD", "TRAIN")])
    contract = contract_with(
        EpisodicBank.empty(), model, explore_every=10, queue_cooldown=2, explore_actions=3,
        gating_start="immediate", prompt="short",
    )  # fmt: skip
    legal = ["BUILD", "TRAIN", EMPTY]
    executed: list[str] = []
    for step in range(10):
        obs = observation(step, {}, legal)
        decision = contract.propose(obs)
        if step == 0:
            assert decision is None
            schema = contract.reply_schema(obs)
            assert schema["properties"]["actions"]["maxItems"] == 3
            contract.assemble(obs)
            completion = model.complete([], constraint=schema)
            decision = contract.parse(completion, obs)
            assert decision.extra["explored"] == ["TRAIN", "BUILD", "TRAIN"]
        assert decision is not None
        executed.append(decision.actions[0].id)
        finish(contract, obs, decision)
    assert executed[:7] == ["TRAIN", EMPTY, "BUILD", EMPTY, "TRAIN", EMPTY, EMPTY]
    assert contract.propose(observation(10, {}, legal)) is None  # the next exploration
    assert contract.sources == {"queue": 3, "empty": 7}


def test_retrieval_takes_precedence_over_the_queue() -> None:
    bank = bank_of((1, {"x": 0}, "BUILD", 0))
    contract = contract_with(bank, explore_every=50, queue_cooldown=0)
    contract.queue.append(Action(id="TRAIN"))
    contract.step = 1
    decision = contract.propose(observation(1, {"x": 0}, ["BUILD", "TRAIN", EMPTY]))
    assert decision is not None and decision.actions[0].id == "BUILD"
    assert [a.id for a in contract.queue] == ["TRAIN"]


def test_queued_actions_not_executable_now_are_dropped() -> None:
    contract = contract_with(EpisodicBank.empty(), explore_every=50, queue_cooldown=0)
    contract.queue.extend([Action(id="BUILD"), Action(id="TRAIN")])
    contract.step = 1
    decision = contract.propose(observation(1, {}, ["TRAIN", EMPTY]))
    assert decision is not None and decision.actions[0].id == "TRAIN"
    assert not contract.queue


def test_without_exploration_no_model_call_is_ever_needed_with_an_empty_action() -> None:
    contract = contract_with(EpisodicBank.empty(), exploration=False)
    for step in range(30):
        obs = observation(step, {}, ["BUILD", EMPTY])
        decision = contract.propose(obs)
        assert decision is not None
        finish(contract, obs, decision)


def test_without_an_empty_action_the_model_chooses() -> None:
    contract = contract_with(EpisodicBank.empty(), exploration=False)
    obs = observation(0, {}, ["BUILD", "TRAIN"])
    assert contract.propose(obs) is None
    assert "action" in contract.reply_schema(obs)["properties"]
    prompt = contract.assemble(obs)
    assert "choose the action to take now" in prompt.messages()[-1]["content"]
    decision = contract.parse(Completion(text='{"reasoning": "", "action": {"id": "TRAIN"}}'), obs)
    assert [a.id for a in decision.actions] == ["TRAIN"]
    assert decision.extra["source"] == "model"


def test_a_malformed_exploration_reply_is_recorded_not_raised() -> None:
    contract = contract_with(EpisodicBank.empty(), gating_start="immediate")
    obs = observation(0, {}, ["BUILD", EMPTY])
    assert contract.propose(obs) is None
    decision = contract.parse(Completion(text="no json here"), obs)
    assert decision.parse_error
    assert [a.id for a in decision.actions] == [EMPTY]


# -- contextual fusion -----------------------------------------------------------------


def describing_model() -> ScriptedModel:
    def reply(messages, constraint):
        if "strategy" in (constraint or {}).get("properties", {}):
            return {"strategy": f"strategy #{len(model.calls)}"}
        return explore_reply("BUILD")

    model = ScriptedModel(reply)
    return model


def explore_step(contract: EpisodicContract, model: ScriptedModel, obs: Observation):
    assert contract.propose(obs) is None
    prompt = contract.assemble(obs)
    completion = model.complete(prompt.messages(), constraint=contract.reply_schema(obs))
    decision = contract.parse(completion, obs)
    finish(contract, obs, decision)
    return prompt, decision


def test_strategy_description_is_in_the_system_prompt_and_cached_per_strategy() -> None:
    bank = bank_of((0, {"x": 1}, "BUILD", 0), (5, {"x": 1}, "BUILD", 0), (10, {"x": 1}, "X", 1))
    model = describing_model()
    metered = MeteredModel(model)  # as the runner hands it over: the contract's own calls
    contract = contract_with(bank, metered, explore_every=1, gating_start="immediate")
    fusion_texts, side_calls = [], []
    for t in (0, 5, 10):
        prompt, _ = explore_step(contract, model, observation(t, {"x": 1}, ["BUILD", EMPTY]))
        fusion_texts.append(next(s.text for s in prompt.segments if s.layer == "fusion"))
        side_calls.append(len(metered.drain()))
        assert fusion_texts[-1] in prompt.messages()[0]["content"]
    assert fusion_texts[0] == fusion_texts[1] != fusion_texts[2]
    assert side_calls == [1, 0, 1]
    assert len(contract.descriptions) == 2
    assert "executable now" in prompt.messages()[0]["content"]


def test_without_fusion_there_is_no_description_call() -> None:
    bank = bank_of((0, {"x": 1}, "BUILD", 0))
    model = describing_model()
    settings = dict(explore_every=1, fusion=False, gating_start="immediate")
    contract = contract_with(bank, model, **settings)
    prompt, _ = explore_step(contract, model, observation(0, {"x": 1}, ["BUILD", EMPTY]))
    assert not [s for s in prompt.segments if s.layer == "fusion"]
    assert len(model.calls) == 1
    # the paper's ablation removes contextual fusion whole: description and instruction
    assert "executable now" not in prompt.messages()[0]["content"]
    kept = contract_with(bank, model, **settings, fusion_ablation="description")
    prompt, _ = explore_step(kept, model, observation(0, {"x": 1}, ["BUILD", EMPTY]))
    assert not [s for s in prompt.segments if s.layer == "fusion"]
    assert "executable now" in prompt.messages()[0]["content"]  # the description alone
    legacy = contract_with(bank, model, **settings, fusion_ablation="legacy")
    prompt, _ = explore_step(legacy, model, observation(0, {"x": 1}, ["BUILD", EMPTY]))
    assert "executable now" not in prompt.messages()[0]["content"]


def test_the_no_fusion_preset_drops_both_parts_of_fusion() -> None:
    bank = bank_of((0, {"x": 1}, "BUILD", 0))
    model = describing_model()
    settings = {"explore_every": 1, "gating_start": "immediate"}
    contract = make_contract("episodic-no-fusion", settings)
    assert isinstance(contract, EpisodicContract)
    contract.use_bank(bank)
    contract.reset(episode(empty_action=EMPTY, instructions="Win.", model=model, seed=0))
    prompt, _ = explore_step(contract, model, observation(0, {"x": 1}, ["BUILD", EMPTY]))
    system = prompt.messages()[0]["content"]
    assert "playing this strategy" not in system and "executable now" not in system
    assert len(model.calls) == 1  # the exploration call; no description call


def test_the_exploration_prompt_is_the_system_prompt_and_the_observation() -> None:
    bank = bank_of((0, {"x": 1}, "SCOUT", 0))
    model = describing_model()
    settings = dict(explore_every=1, gating_start="immediate")
    obs = observation(0, {"x": 2}, ["BUILD", EMPTY])
    prompt, _ = explore_step(contract_with(bank, model, **settings), model, obs)
    layers = [s.layer for s in prompt.segments]
    assert "episodic" not in layers and "queue" not in layers
    assert "fusion" in layers and "observation" in layers
    assert "SCOUT" not in "".join(m["content"] for m in prompt.messages())
    shown = contract_with(bank, model, **settings, exploration_prompt="recalled")
    prompt, _ = explore_step(shown, model, obs)
    assert "Recalled episodes from winning games" in prompt.messages()[1]["content"]
    assert "SCOUT" in prompt.messages()[1]["content"]


def test_fusion_without_a_model_skips_the_description() -> None:
    contract = contract_with(bank_of((0, {"x": 1}, "BUILD", 0)), None, explore_every=1)
    prompt = contract.assemble(observation(0, {"x": 1}, ["BUILD", EMPTY]))
    assert not [s for s in prompt.segments if s.layer == "fusion"]
    assert "Recalled episodes from winning games" in prompt.messages()[1]["content"]


# -- configuration, presets, bank files --------------------------------------------------


def test_presets_are_the_paper_ablations() -> None:
    assert {"episodic", "episodic-no-exploration", "episodic-no-fusion"} <= set(PRESETS)
    full = make_contract("episodic")
    assert isinstance(full, EpisodicContract)
    assert full.config == EpisodicContract().config
    assert make_contract("episodic-no-exploration").config.exploration is False  # type: ignore[attr-defined]
    assert make_contract("episodic-no-fusion").config.fusion is False  # type: ignore[attr-defined]


def test_bank_file_is_loaded_and_hashed(tmp_path, monkeypatch) -> None:
    bank = bank_of((0, {"x": 1}, "BUILD", 0))
    path = tmp_path / "craft.npz"
    bank.save(path)
    explicit = EpisodicContract(bank=str(path))
    explicit.reset(episode(empty_action=EMPTY, env_id="bounded/Craft-v0"))
    assert explicit.store_hashes()["episodic_bank"] == bank.content_hash
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path))
    assert default_bank_path("bounded/Craft-v0") == path
    implicit = EpisodicContract()
    implicit.reset(episode(empty_action=EMPTY, env_id="bounded/Craft-v0"))
    assert len(implicit.bank) == 1
    implicit.reset(episode(empty_action=EMPTY, env_id="bounded/Spire-v0"))
    assert len(implicit.bank) == 0


# -- whole episodes ---------------------------------------------------------------------


def warehouse_bank(seeds: list[int], horizon: int) -> EpisodicBank:
    games = [
        record_game(make("warehouse", horizon=horizon), WarehouseExpert(), seed=s) for s in seeds
    ]
    return EpisodicBank.from_games(games)


def warehouse_model() -> ScriptedModel:
    report = {"id": "report", "args": {"occupied": 0, "shipped": 0}}

    def reply(messages, constraint):
        properties = (constraint or {}).get("properties", {})
        if "strategy" in properties:
            return {"strategy": "report exact counts"}
        if "decisions" in properties:
            return {**minimal_instance(constraint), "decisions": [report]}
        if "actions" in properties:
            return {"reasoning": "", "actions": [report]}
        return {"reasoning": "", "action": report}

    return ScriptedModel(reply)


@pytest.mark.parametrize(("tag", "calls"), [("episodic", 2 + 1), ("episodic-no-exploration", 0)])
def test_replaying_a_winning_game_wins_it(tag: str, calls: int) -> None:
    contract = make_contract(tag, {"explore_every": 5})
    assert isinstance(contract, EpisodicContract)
    contract.use_bank(warehouse_bank([2], horizon=12))
    model = warehouse_model()
    run = run_episode(make("warehouse", horizon=12), contract, model, seed=2)
    assert run.status == "completed"
    assert run.outcome["accuracy"] == 1.0
    assert run.model_calls == calls  # explorations at decisions 5 and 10 (+ one description)
    assert contract.sources == {"retrieval": 12}


def test_episodic_runs_where_the_bank_is_empty() -> None:
    contract = make_contract("episodic")
    model = warehouse_model()
    run = run_episode(make("warehouse", horizon=6), contract, model, seed=0)
    assert run.status == "completed"
    assert run.decisions == 6
    assert run.model_calls == 6


def test_a_retrieved_plan_keeps_its_executable_actions_and_the_empty_action_is_empty() -> None:
    plan = [Action(id="BUILD"), Action(id="TRAIN"), Action(id="SCOUT")]
    bank = EpisodicBank.from_entries(
        [
            BankEntry(t=0, features={"x": 1}, actions=plan),
            BankEntry(t=5, features={"x": 1}, actions=[Action(id=EMPTY)]),
        ]
    )
    obs = Observation(
        kind="macro",
        state={"x": 1},
        t=0,
        legal=[Action(id=a) for a in ("BUILD", "SCOUT", EMPTY)],
        max_actions=5,
    )
    decision = contract_with(bank, exploration=False, replay="plan").propose(obs)
    assert decision is not None and [a.id for a in decision.actions] == ["BUILD", "SCOUT"]
    first = contract_with(bank, exploration=False).propose(obs)  # the paper's ExtractAction
    assert first is not None and [a.id for a in first.actions] == ["BUILD"]
    contract = contract_with(bank, explore_every=50, queue_cooldown=0)
    contract.queue.append(Action(id="SCOUT"))
    contract.step = 1
    later = obs.model_copy(update={"t": 5})
    popped = contract.propose(later)
    assert popped is not None and popped.extra["source"] == "queue"


# -- other environments -------------------------------------------------------------


def first_legal_model() -> ScriptedModel:
    def reply(messages, constraint):
        properties = constraint["properties"]
        if "strategy" in properties:
            return {"strategy": "expand, then attack with a robotics army"}
        if "decisions" in properties:  # the paper prompt's reply: its first legal decision
            return minimal_instance(constraint)
        key = "actions" if "actions" in properties else "action"
        action = {"id": first_option(properties[key])}
        return {"reasoning": "", key: [action] if key == "actions" else action}

    return ScriptedModel(reply)


CRAFT = {"level": 5, "style": "timing", "map": "highlands", "time_limit": 400}


def test_replaying_the_experts_own_game_reproduces_it() -> None:
    from bounded.envs.craft import CraftExpert

    expert_env = make("craft", **CRAFT)
    info, entries = record_game(expert_env, CraftExpert("robo"), seed=4, strategy="robo")
    contract = make_contract("episodic-no-exploration", {"replay": "plan"})
    assert isinstance(contract, EpisodicContract)
    contract.use_bank(EpisodicBank.from_games([(info, entries)]))
    run = run_episode(make("craft", **CRAFT), contract, first_legal_model(), seed=4)
    assert run.model_calls == 0
    assert run.decisions == len(entries)
    for key in ("outcome", "game_time", "resources_spent", "pbr", "rur", "apu", "tr"):
        assert run.outcome[key] == info.outcome[key], key
    assert set(contract.sources) <= {"retrieval", "empty"}


def test_episodic_plays_craft_with_exploration_and_fusion() -> None:
    from bounded.envs.craft import CraftExpert

    games = [record_game(make("craft", **CRAFT), CraftExpert("gateway"), seed=1, strategy="gw")]
    contract = make_contract("episodic", {"explore_every": 10})
    assert isinstance(contract, EpisodicContract)
    contract.use_bank(EpisodicBank.from_games(games))
    model = first_legal_model()
    run = run_episode(make("craft", **CRAFT), contract, model, seed=2)
    assert run.status == "completed"
    explorations = (run.decisions - 1) // 10  # at decisions 10, 20, ... (l_e starts at 0)
    assert run.model_calls == explorations + len(contract.descriptions)
    assert len(contract.descriptions) == 1
    assert contract.sources.get("retrieval", 0) > run.decisions // 2


@pytest.mark.parametrize("tag", ["episodic", "episodic-no-fusion", "episodic-no-exploration"])
def test_episodic_plays_spire(tag: str) -> None:
    contract = make_contract(tag)
    run = run_episode(make("spire"), contract, first_legal_model(), seed=3, max_decisions=40)
    assert run.status == "completed"
    assert run.decisions == 40
    assert run.model_calls == 40  # no spire bank, no empty action: the model decides


@pytest.mark.model
@pytest.mark.slow  # minutes on a shared 2-core machine; the scripted craft runs above are fast
def test_episodic_plays_craft_with_the_embedded_model() -> None:
    from bounded.envs.craft import CraftExpert
    from bounded.models import make_model
    from bounded.runner import EpisodeRunner

    settings = {**CRAFT, "time_limit": 30}
    game = record_game(make("craft", **settings), CraftExpert("robo"), seed=1, strategy="robo")
    contract = make_contract(
        "episodic", {"explore_every": 2, "reply_tokens": 256, "reply": "constrained"}
    )
    assert isinstance(contract, EpisodicContract)
    contract.use_bank(EpisodicBank.from_games([game]))
    runner = EpisodeRunner(
        make("craft", **settings), contract, make_model("local"), seed=0,
        env_id="bounded/Craft-v0", max_tokens=640,
    )  # fmt: skip
    run = runner.execute()
    assert run.status == "completed"
    assert run.decisions == 3
    assert run.model_calls == 1 + len(contract.descriptions)  # the exploration at t = d_e = 2
    explorations = [r for r in runner.trajectory if r.completion is not None]
    assert all(r.parse_error is None for r in explorations), explorations[0].completion


def test_a_failing_description_call_does_not_stop_the_decision() -> None:
    def reply(messages, constraint):
        if "strategy" in constraint["properties"]:
            raise TimeoutError("model timed out")
        return explore_reply("BUILD")

    model = ScriptedModel(reply)
    contract = contract_with(
        bank_of((0, {"x": 1}, "BUILD", 0)), model, explore_every=1, gating_start="immediate"
    )
    prompt, decision = explore_step(contract, model, observation(0, {"x": 1}, ["BUILD", EMPTY]))
    assert not [s for s in prompt.segments if s.layer == "fusion"]
    assert "TimeoutError" in decision.extra["fusion_error"]
    assert [a.id for a in decision.actions] == ["BUILD"]


def test_the_paper_protocol_file_plans_40_games_per_level_and_agent() -> None:
    from collections import Counter
    from pathlib import Path

    from bounded.sweeps.experiment import load_experiment

    path = Path(__file__).parents[3] / "experiments" / "epicstar_paper.toml"
    games = load_experiment(path).plan()
    per_cell = Counter((g.tag, g.env_options["level"]) for g in games)
    tags = ("episodic", "episodic-no-exploration", "episodic-no-fusion", "summary")
    assert per_cell == {(tag, level): 40 for tag in tags for level in (5, 6)}
    assert {g.env_options["map"] for g in games} == {"crossroads", "longbridge"}
    for tag in tags:  # every agent plays the same games
        assert {(g.seed, stable(g.env_options)) for g in games if g.tag == tag} == {
            (g.seed, stable(g.env_options)) for g in games if g.tag == "summary"
        }
    # one action per step, at the step the bank is recorded at
    assert {(g.env_options["decision_interval"], g.env_options["max_actions"]) for g in games} == {
        (2.0, 1)
    }
    for game in games:  # the file's bank need not exist for its settings to be valid
        make_contract(game.contract, {k: v for k, v in game.contract_config.items() if k != "bank"})


def stable(options: JSON) -> str:
    return json.dumps(options, sort_keys=True)


# -- ExtractAction and actions per step ---------------------------------------------------


def test_extract_action_takes_the_first_action_of_the_top_hit() -> None:
    bank = EpisodicBank.from_entries(
        [
            BankEntry(t=0, features={"x": 1}, actions=[Action(id="SCOUT"), Action(id="BUILD")]),
            BankEntry(t=0, features={"x": 3}, actions=[Action(id="TRAIN"), Action(id="BUILD")]),
            BankEntry(t=0, features={"x": 9}, actions=[Action(id=EMPTY)]),
        ]
    )
    legal = [Action(id=a) for a in ("BUILD", "TRAIN", EMPTY)]
    obs = Observation(kind="macro", state={"x": 1}, t=0, legal=legal, max_actions=5)
    # The closest hit's first action (SCOUT) is not legal now: nothing is replayed.
    decision = contract_with(bank, exploration=False).propose(obs)
    assert decision is not None and decision.extra["source"] == "empty"
    near = obs.model_copy(update={"state": {"x": 3}})
    decision = contract_with(bank, exploration=False).propose(near)
    assert decision is not None and [a.id for a in decision.actions] == ["TRAIN"]
    # With the fall-through variant the next hit's first action (TRAIN) is taken.
    fall = contract_with(bank, exploration=False, extract="first-executable").propose(obs)
    assert fall is not None and [a.id for a in fall.actions] == ["TRAIN"]
    # The whole plan of the top hit, as an option: its executable actions.
    plan = contract_with(bank, exploration=False, replay="plan").propose(obs)
    assert plan is not None and [a.id for a in plan.actions] == ["BUILD"]
    # A top hit whose first action is the empty action is EmptyAction.
    far = obs.model_copy(update={"state": {"x": 9}})
    empty = contract_with(bank, exploration=False).propose(far)
    assert empty is not None and empty.extra["source"] == "empty"


def test_the_short_paper_protocol_acts_once_per_step_in_every_agent() -> None:
    from pathlib import Path

    from bounded.envs.craft import CraftExpert
    from bounded.sweeps.experiment import load_experiment

    path = Path(__file__).parents[3] / "experiments" / "epicstar_paper.toml"
    games = load_experiment(path).plan()
    short = {**CRAFT, "time_limit": 200}
    bank = EpisodicBank.from_games(
        [record_game(make("craft", **short), CraftExpert("robo"), seed=1, strategy="robo")]
    )
    per_step = {}
    first_of_each = {}
    for g in games:
        first_of_each.setdefault(g.tag, g)
    for game in first_of_each.values():
        settings = {k: v for k, v in game.contract_config.items() if k != "bank"}
        if game.contract.startswith("episodic"):
            settings["explore_every"] = 5
        contract = make_contract(game.contract, settings)
        if isinstance(contract, EpisodicContract):
            contract.use_bank(bank)
        run = run_episode(make("craft", **short), contract, first_legal_model(), seed=game.seed)
        assert run.status == "completed"
        per_step[game.tag] = run.outcome["actions_given_per_step"]
    assert set(per_step) == {"episodic", "episodic-no-exploration", "episodic-no-fusion", "summary"}
    assert {g.temperature for g in first_of_each.values()} == {0.1}  # the paper's
    assert set(per_step.values()) == {1.0}  # one action a step, the empty action included
    replayed = make_contract("episodic", {"replay": "plan"})
    assert isinstance(replayed, EpisodicContract)
    replayed.use_bank(bank)
    run = run_episode(make("craft", **short), replayed, first_legal_model(), seed=0)
    assert run.outcome["actions_given_per_step"] > 1.0  # the old plan replay: several per step


def test_the_working_memory_shows_past_observations_or_their_changes() -> None:
    contract = contract_with(bank_of((0, {"x": 1}, "BUILD", 0)), None, memory_interval=1)
    first = observation(0, {"x": 1}, ["BUILD", EMPTY]).model_copy(update={"text": "x is one"})
    finish(contract, first, contract.propose(first))
    now = observation(1, {"x": 5}, ["BUILD", EMPTY])
    memory = contract.render_memory(contract.plan(now))
    assert "1 decisions ago (t=0):" in memory and "x is one" in memory
    diff = contract_with(bank_of((0, {"x": 1}, "BUILD", 0)), None, memory_interval=1,
                         memory_view="diff")  # fmt: skip
    finish(diff, first, diff.propose(first))
    assert "then->now: x 1->5" in diff.render_memory(diff.plan(now))


def test_a_bank_file_with_no_entries_is_refused_like_a_missing_one(tmp_path) -> None:
    from bounded.core import ConfigError

    path = tmp_path / "empty.npz"
    EpisodicBank.empty().save(path)
    with pytest.raises(ConfigError, match="holds no entries") as refused:
        make_contract("episodic", {"bank": str(path)})
    assert str(path) in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(ConfigError):
        make_contract("episodic", {"bank": str(tmp_path / "missing.npz")})


def test_the_empty_action_is_the_environments_unless_configured() -> None:
    bank = bank_of((0, {"x": 1}, "BUILD", 0))
    obs = observation(0, {"x": 1}, ["TRAIN", "IDLE"])
    contract = EpisodicContract(exploration=False)
    contract.use_bank(bank)
    contract.reset(episode(empty_action="IDLE"))
    decision = contract.propose(obs)
    assert decision is not None and [a.id for a in decision.actions] == ["IDLE"]
    contract.reset(episode())  # an environment without one: the model is asked
    assert contract.propose(obs) is None
    told = EpisodicContract(exploration=False, empty_action="TRAIN")
    told.use_bank(bank)
    told.reset(episode(empty_action="IDLE"))
    decision = told.propose(obs)
    assert decision is not None and [a.id for a in decision.actions] == ["TRAIN"]


def test_an_exploration_reply_in_text_mode_is_read_as_epicstars_action_names() -> None:
    contract = contract_with(
        EpisodicBank.empty(), explore_actions=3, gating_start="immediate", reply="text"
    )
    obs = observation(0, {}, ["BUILD", "TRAIN", EMPTY])
    assert contract.propose(obs) is None
    system = contract.assemble(obs).messages()[0]["content"]
    assert "each written as <ACTION NAME>" in system and "JSON object" not in system
    # CoS's rule: the numbered decisions after `Decisions:` (not the prose's <FLY>), names
    # upper-cased, a near miss read as the nearest legal action
    reply = "We need production first, not <FLY>.\nDecisions:\n0: <train>\n1: <BUILDS>\n2: <BUILD>"
    decision = contract.parse(Completion(text=reply), obs)
    assert decision.extra["explored"] == ["TRAIN", "BUILD", "BUILD"]
    assert decision.extra["near_misses"] == [{"written": "BUILDS", "read_as": "BUILD"}]
    assert "invalid_actions" not in decision.extra
    assert decision.actions[0].id == "TRAIN" and decision.reasoning.startswith("We need")
    contract.commit(obs, decision, StepResult())
    malformed = contract_with(EpisodicBank.empty(), gating_start="immediate", reply="text")
    assert malformed.propose(obs) is None
    failed = malformed.parse(Completion(text="train a probe"), obs)
    assert failed.parse_error == "reply has no Decisions: section"
