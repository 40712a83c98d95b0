"""The typed contract: layer order, the combat container, budgets, presets, postrun learning."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounded.archive import Archive
from bounded.contracts import PRESETS, make_contract
from bounded.contracts.typed import TypedContract, game_of
from bounded.contracts.typed.assembly import CHANGING_RULES_HEADER
from bounded.contracts.typed.presets import TYPED_PRESETS
from bounded.core import (
    Action,
    Completion,
    ConfigError,
    Decision,
    Observation,
    Outcome,
    StepResult,
    approx_tokens,
)
from bounded.envs import make
from bounded.envs.spire import SpireEnv
from bounded.envs.warehouse import WarehouseEnv
from bounded.models.scripted import ScriptedModel
from bounded.protocols import EpisodeContext
from bounded.runner import run_episode
from bounded.runner.episode import EpisodeRunner
from bounded.stores.case_notes import CaseNote
from bounded.stores.directory import StoreSet
from bounded.stores.skills import Skill, Trigger
from bounded.stores.snapshot import directory_hash, freeze_to

# -- hand-made spire-shaped observations --------------------------------------------


def player(hp=50, deck=("Strike", "Strike", "Defend", "Quick Slash")):
    return {
        "hp": hp,
        "max_hp": 70,
        "gold": 99,
        "deck": [{"uid": i, "name": n} for i, n in enumerate(deck)],
        "relics": [{"name": "Lucky Coin"}],
        "potions": [],
        "powers": {},
    }


def combat_obs(t, *, floor=3, turn=1, hp=50, enemy="Cultist", room="monster"):
    state = {
        "kind": "combat",
        "act": 1,
        "floor": floor,
        "room": room,
        "player": player(hp),
        "combat": {
            "turn": turn,
            "encounter": enemy,
            "hand": [{"uid": 1, "name": "Strike"}, {"uid": 2, "name": "Defend"}],
            "enemies": [
                {"index": 0, "name": enemy, "hp": 40, "alive": True, "powers": {"Ritual": 3}}
            ],
        },
    }
    legal = [
        Action(id="play:Strike#1@0", label="Play Strike on " + enemy),
        Action(id="play:Defend#2", label="Play Defend"),
        Action(id="end_turn", label="End the turn"),
    ]
    text = f"Turn {turn} against {enemy}. You have {hp} HP."
    return Observation(kind="combat", state=state, text=text, legal=legal, t=t, max_actions=4)


def map_obs(t, *, floor=4):
    state = {"kind": "map", "act": 1, "floor": floor, "room": "monster", "player": player()}
    legal = [Action(id="path:1", label="Go to an elite"), Action(id="path:3", label="Go to a rest")]
    return Observation(kind="map", state=state, text=f"Map at floor {floor}.", legal=legal, t=t)


def reward_obs(t, *, cards=("Backspring", "Lunge")):
    state = {
        "kind": "card_reward",
        "act": 1,
        "floor": 3,
        "room": "monster",
        "player": player(),
        "cards": [{"name": c} for c in cards],
    }
    legal = [Action(id=f"pick:{i}:{c}", label=f"Take {c}") for i, c in enumerate(cards)]
    legal.append(Action(id="skip", label="Skip"))
    return Observation(kind="card_reward", state=state, text="Pick a card.", legal=legal, t=t)


def layers(prompt):
    return [(s.layer, s.role) for s in prompt.segments]


def spire_episode() -> EpisodeContext:
    """The start of a spire episode, with spire's knowledge as its environment gives it."""
    return EpisodeContext(
        env_id="bounded/Spire-v0",
        seed=0,
        instructions="Climb the spire.",
        knowledge=SpireEnv().game_knowledge(),
    )


def warehouse_episode(**fields) -> EpisodeContext:
    """The start of a warehouse episode: an environment that supplies no game knowledge."""
    return EpisodeContext(env_id="bounded/Warehouse-v0", seed=0, **fields)


def contract(**settings) -> TypedContract:
    """A typed contract reset for spire, with an empty L5 unless a seed is asked for."""
    settings.setdefault("skill_seed", "none")
    c = TypedContract(**settings)
    c.reset(spire_episode())
    return c


def first_action(messages, constraint):
    """A model that plays the first id its reply schema allows (or answers postrun asks)."""
    props = constraint["properties"]
    if "note" in props:
        return {"note": "Block the first hits, then attack."}
    if "text" in props:
        return {"text": "Spend potions on elites before HP drops under half."}
    if "skills" in props:
        return {"skills": []}
    key = "actions" if "actions" in props else "action"
    schema = props[key]["items"] if key == "actions" else props[key]
    branch = schema["anyOf"][0] if "anyOf" in schema else schema
    id_schema = branch["properties"]["id"]
    action = {"id": id_schema["enum"][0] if "enum" in id_schema else id_schema["const"]}
    if "args" in branch["properties"]:
        action["args"] = {"occupied": 0, "shipped": 0}
    return {"reasoning": "first legal", key: [action] if key == "actions" else action}


# -- order and container ------------------------------------------------------------


def test_layers_come_in_the_papers_order_outside_combat():
    c = contract(l4={"mode": "on"}, l5={"mode": "on"}, order="paper")
    assert layers(c.assemble(map_obs(0))) == [
        ("L1", "system"),
        ("L5", "user"),
        ("L4", "user"),
        ("L3", "user"),
        ("L2", "user"),
    ]
    last = c.assemble(map_obs(0)).messages()[-1]["content"]
    assert last.index("Skills (L5)") < last.index("Rules (L3") < last.index("Legal actions:")


def test_the_legacy_order_is_an_option_and_recorded():
    c = contract(l4={"mode": "on"}, l5={"mode": "on"}, order="legacy")
    assert layers(c.assemble(map_obs(0))) == [
        ("L1", "system"),
        ("L2", "user"),
        ("L3", "user"),
        ("L4", "user"),
        ("L5", "user"),
    ]
    assert c.config_dict()["order"] == "legacy"
    assert contract().config_dict()["order"] == "cache"  # the plain contract's
    assert all(settings["order"] == "paper" for settings in TYPED_PRESETS.values())


def test_both_orders_hold_the_same_segments_and_bound():
    paper, legacy = contract(order="paper"), contract(order="legacy")
    for t, turn in enumerate([1, 2]):
        obs = combat_obs(t, turn=turn, hp=50 - turn)
        a, b = paper.assemble(obs), legacy.assemble(obs)
        assert sorted(s.text for s in a.segments) == sorted(s.text for s in b.segments)
        assert paper.assembly_record()["prompt_bound"] == legacy.assembly_record()["prompt_bound"]
        paper.commit(obs, end_turn(obs), StepResult())
        legacy.commit(obs, end_turn(obs), StepResult())


def test_switched_off_layers_leave_no_segment():
    c = contract(l3={"mode": "off"}, l5={"mode": "off"})
    assert [s.layer for s in c.assemble(map_obs(0)).segments] == ["L1", "L2"]


def test_combat_is_start_acknowledgement_and_latest_round_only():
    c = contract(order="paper")
    prompts = []
    for t, turn in enumerate([1, 2, 3]):
        obs = combat_obs(t, turn=turn, hp=50 - turn)
        prompts.append(c.assemble(obs))
        c.commit(obs, end_turn(obs), StepResult())
    assert layers(prompts[2]) == [
        ("L1", "system"),
        ("L5", "user"),
        ("L3", "user"),
        ("combat", "user"),
        ("combat", "assistant"),
        ("L2", "user"),
    ]
    last = prompts[2].messages()
    assert len(last) == 4  # system; skills, rules and the fight's start; the ack; the round
    assert "Turn 1 against Cultist" in last[1]["content"]  # the fight's start
    assert "Turn 3 against Cultist" in last[3]["content"]  # the latest round
    assert "Turn 2" not in json.dumps(last)  # earlier rounds are never resent
    assert len(prompts[1].messages()) == len(prompts[2].messages())


def test_a_new_fight_starts_a_new_container():
    c = contract()
    fight = combat_obs(0, floor=3, enemy="Cultist")
    c.assemble(fight)
    c.commit(fight, end_turn(fight), StepResult())
    between = reward_obs(1)
    assert "combat" not in [s.layer for s in c.assemble(between).segments]
    c.commit(between, end_turn(between), StepResult())
    nxt = combat_obs(2, floor=4, enemy="Jaw Grub")
    start = next(s.text for s in c.assemble(nxt).segments if s.layer == "combat")
    assert "Jaw Grub" in start and "Cultist" not in start
    assert c.parse(Completion(text="{}"), nxt).extra["combat"] == "start"


def fight_round(t, *, turn, hand, hp, powers=None):
    """A round of the same fight on floor 3 whose hand, HP and enemy powers change."""
    obs = combat_obs(t, turn=turn, hp=hp)
    obs.state["combat"]["hand"] = [{"uid": i, "name": n} for i, n in enumerate(hand)]
    obs.state["combat"]["enemies"][0]["powers"] = powers or {}
    return obs


def test_the_cache_order_puts_what_lasts_first_and_the_round_last():
    c = contract(l5={"mode": "on"}, order="cache")
    obs = fight_round(0, turn=1, hand=["Strike", "Defend"], hp=50, powers={"Ritual": 3})
    prompt = c.assemble(obs)
    assert layers(prompt) == [
        ("L1", "system"),
        ("L3", "user"),
        ("combat", "user"),
        ("combat", "assistant"),
        ("L5", "user"),
        ("L3", "user"),
        ("L2", "user"),
    ]
    lasting, changing = [s.text for s in prompt.segments if s.layer == "L3"]
    # the deck's cards in deck order, then the fight's enemies, then the room (the book has
    # no rule for the relic)
    order = [line.split(" (")[0] for line in lasting.splitlines()[1:]]
    assert order == ["- Strike", "- Defend", "- Quick Slash", "- Cultist", "- monster"]
    assert changing.startswith(CHANGING_RULES_HEADER) and "ritual (keyword)" in changing
    assert c.config_dict()["order"] == "cache"


def test_the_cache_order_shows_the_rules_the_papers_order_shows():
    paper, cache = contract(order="paper"), contract(order="cache")
    obs = fight_round(0, turn=1, hand=["Strike", "Quick Slash"], hp=50, powers={"Ritual": 3})
    paper.assemble(obs)
    cache.assemble(obs)
    shown = cache.assembly_record()["retrieved"]
    assert sorted(shown["L3"] + shown["L3+"]) == sorted(paper.assembly_record()["retrieved"]["L3"])
    assert cache.assembly_record()["prompt_bound"] >= paper.assembly_record()["prompt_bound"]


def test_under_the_cache_order_a_fights_rounds_share_everything_before_the_round():
    c = contract(l5={"mode": "on"}, order="cache")
    rounds = [
        fight_round(0, turn=1, hand=["Strike", "Defend"], hp=50),
        fight_round(1, turn=2, hand=["Quick Slash", "Strike"], hp=41, powers={"Ritual": 3}),
        fight_round(2, turn=3, hand=["Defend"], hp=35, powers={"Ritual": 3}),
    ]
    prompts = []
    for obs in rounds:
        prompts.append([s.text for s in c.assemble(obs).segments])
        c.commit(obs, end_turn(obs), StepResult())
    lasting = 5  # L1, the lasting rules, the fight's start and its acknowledgement, L5
    assert prompts[0][:lasting] == prompts[1][:lasting] == prompts[2][:lasting]
    assert prompts[1][-1] != prompts[2][-1]  # the round itself changes


def test_a_card_chosen_inside_a_fight_keeps_the_fight():
    c = contract()
    first = combat_obs(0, floor=3, turn=1)
    c.assemble(first)
    c.commit(first, end_turn(first), StepResult())
    chosen = reward_obs(1)  # a card choice on the fight's own floor (3)
    c.assemble(chosen)
    c.commit(chosen, Decision(actions=[chosen.legal[-1]]), StepResult())
    later = combat_obs(2, floor=3, turn=2, hp=44)
    start = next(s.text for s in c.assemble(later).segments if s.layer == "combat")
    assert "Turn 1 against Cultist" in start  # still the fight's first state
    assert c.parse(Completion(text="{}"), later).extra["combat"] == "round"


def test_the_changing_rules_have_their_own_budget():
    c = contract(order="cache", l3={"changing": {"items": 1, "tokens": 80}})
    obs = fight_round(0, turn=1, hand=["Strike"], hp=50, powers={"Ritual": 3, "Strength": 2})
    obs.state["player"]["powers"] = {"Weak": 1}
    c.assemble(obs)
    record = c.assembly_record()
    assert len(record["retrieved"]["L3+"]) == 1
    assert any(cut["layer"] == "L3+" and cut["kept"] == 1 for cut in record["truncation"])


def test_the_container_can_be_switched_off():
    c = contract(combat={"enabled": False})
    assert "combat" not in [s.layer for s in c.assemble(combat_obs(0)).segments]


def end_turn(obs):
    """The decision that ends the turn (the last legal action of these observations)."""
    return Decision(actions=[obs.legal[-1]])


# -- retrieval -------------------------------------------------------------------------


def test_l3_l4_l5_retrieve_what_matches_this_decision():
    c = contract(l4={"mode": "on"}, l5={"mode": "on"})
    c.stores.summaries.add(CaseNote(id="n1", category="combat", key="cultist", text="Rush it."))
    c.stores.summaries.add(CaseNote(id="n2", category="combat", key="jaw grub", text="Block."))
    c.stores.skills.put(
        Skill(id="low-hp", title="Low HP", text="Defend first.", trigger=Trigger(hp_max=0.5))
    )
    c.stores.skills.put(
        Skill(
            id="ritual", title="Ritual", text="Kill fast.", trigger=Trigger(enemy_powers=["Ritual"])
        )
    )
    obs = combat_obs(0, hp=60)
    prompt = c.assemble(obs)
    by_layer = {s.layer: s.text for s in prompt.segments}
    assert "Rush it." in by_layer["L4"] and "Block." not in by_layer["L4"]
    assert "Kill fast." in by_layer["L5"] and "Defend first." not in by_layer["L5"]
    retrieved = c.parse(Completion(text="{}"), obs).extra["retrieved"]
    assert retrieved["L4"] == ["n1"] and retrieved["L5"] == ["ritual"]
    low = c.assemble(combat_obs(1, hp=20))
    assert "Defend first." in {s.layer: s.text for s in low.segments}["L5"]


def test_on_a_foreign_environment_layers_degrade_to_what_matches():
    c = TypedContract(l4={"mode": "on"}, l5={"mode": "on"}, skill_seed="hand")
    c.reset(warehouse_episode(instructions="Count shelves."))
    obs, _ = WarehouseEnv().reset(seed=1)
    prompt = c.assemble(obs)
    by_layer = {s.layer: s.text for s in prompt.segments}
    assert c.game == "warehouse"
    assert "Event 1" in by_layer["L2"] and "State schema: event: text" in by_layer["L2"]
    assert by_layer["L3"].endswith("- (none)") and by_layer["L5"].endswith("- (none)")


# -- budgets ---------------------------------------------------------------------------


def test_budgets_cut_and_record():
    c = contract(
        l2={"state_tokens": 60, "actions": {"items": 2, "tokens": 6}},
        l4={"mode": "on", "budget": {"items": 1, "tokens": 10}},
        combat={"start_tokens": 100},
    )
    for i in range(3):
        c.stores.summaries.add(
            CaseNote(id=f"n{i}", category="combat", key="cultist", text="word " * 40, seq=i)
        )
    obs = combat_obs(0)
    obs = obs.model_copy(update={"text": "long state " * 200})
    prompt = c.assemble(obs)
    extra = c.parse(Completion(text="{}"), obs).extra
    cuts = {t["layer"]: t for t in extra["truncation"]}
    assert set(cuts) == {"combat", "L2", "L2.actions", "L4"}
    assert cuts["L4"]["offered"] == 3 and cuts["L4"]["kept"] == 1 and cuts["L4"]["clipped"] == 1
    assert cuts["L2.actions"]["kept"] == 2
    assert sum(prompt.tokens_by_layer().values()) <= extra["prompt_bound"]


def test_nothing_cut_means_no_truncation_recorded():
    c = contract()
    obs = map_obs(0)
    c.assemble(obs)
    assert c.parse(Completion(text="{}"), obs).extra["truncation"] == []


@settings(max_examples=40)
@given(
    text=st.text(max_size=4000),
    notes=st.lists(st.text(min_size=1, max_size=800), max_size=12),
    k=st.integers(min_value=0, max_value=6),
    s=st.integers(min_value=4, max_value=80),
)
def test_prompt_never_exceeds_its_bound(text, notes, k, s):
    c = contract(
        l2={"state_tokens": 200, "actions": {"items": 3, "tokens": 12}},
        l4={"mode": "on", "budget": {"items": k, "tokens": s}},
        l5={"mode": "on", "budget": {"items": k, "tokens": s}},
        combat={"start_tokens": 100},
    )
    for i, note in enumerate(notes):
        c.stores.summaries.add(CaseNote(id=f"n{i}", category="combat", key="cultist", text=note))
        c.stores.skills.put(Skill(id=f"s{i}", title="t", text=note))
    obs = combat_obs(0).model_copy(update={"text": text})
    prompt = c.assemble(obs)
    bound = c.parse(Completion(text="{}"), obs).extra["prompt_bound"]
    assert sum(prompt.tokens_by_layer(approx_tokens).values()) <= bound


def test_prompt_size_does_not_grow_with_the_decision_index():
    env = WarehouseEnv(horizon=300)
    model = ScriptedModel(first_action)
    record = run_episode(env, make_contract("self-evolve"), model, seed=0, env_id="warehouse")
    assert record.decisions == 300
    sizes = [sum(approx_tokens(m["content"]) for m in call["messages"]) for call in model.calls]
    sizes = sizes[:300]
    assert max(sizes) - min(sizes) <= 3  # only the event's own digits vary


# -- configuration and presets ----------------------------------------------------------


def test_every_preset_is_registered_as_typed():
    for name in TYPED_PRESETS:
        assert PRESETS[name][0] == "typed"


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"l3": {"mode": "writable"}}, "l3.mode"),
        ({"l4": {"mode": "sometimes"}}, "l4.mode"),
        ({"l5": {"budget": {"items": -1}}}, "l5.budget.items"),
        ({"l2": {"state_tokens": 1}}, "l2.state_tokens"),
        ({"skill_seed": "some"}, "skill_seed"),
        ({"l4": {"mode": "frozen"}}, "store_dir"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_config_is_refused_in_one_line_naming_the_field(settings, field):
    with pytest.raises(ConfigError) as info:
        make_contract("typed", settings)
    message = str(info.value)
    assert "\n" not in message and field in message


def test_full_frozen_needs_an_existing_store_dir(tmp_path):
    with pytest.raises(ConfigError, match="store_dir"):
        make_contract("full-frozen")
    missing = make_contract("full-frozen", {"store_dir": str(tmp_path / "typo")})
    with pytest.raises(ConfigError, match=r"store_dir: .* does not exist"):
        missing.reset(EpisodeContext(env_id="bounded/Spire-v0", seed=0))
    make_contract("full-frozen", {"store_dir": str(tmp_path)}).reset(
        EpisodeContext(env_id="spire", seed=0)
    )


def test_mode_b_frozen_needs_a_store_and_reads_only_what_it_holds(tmp_path):
    with pytest.raises(ConfigError, match="store_dir"):
        make_contract("mode-b-frozen")
    empty = make_contract("mode-b-frozen", {"store_dir": str(tmp_path)})
    empty.reset(spire_episode())
    assert empty.stores.skills.skills == []  # no templates, no hand seed: only the store
    learner = make_contract("mode-b", {"store_dir": str(tmp_path / "learned")})
    learner.reset(spire_episode())
    learner.stores.skills.put(Skill(id="filled", title="t", text="Take the elite at full HP."))
    learner.stores.save()
    frozen = make_contract("mode-b-frozen", {"store_dir": str(tmp_path / "learned")})
    frozen.reset(spire_episode())
    assert frozen.stores.skills == learner.stores.skills
    assert frozen.config.l5.mode == "frozen" and not frozen.config.l4.reads


def test_full_frozen_is_mode_a_plus_what_self_evolve_learned_from_the_hand_seed(tmp_path):
    mode_a = make_contract("mode-a")
    mode_a.reset(spire_episode())
    hand = {skill.id for skill in mode_a.stores.skills.skills}
    learner = make_contract("self-evolve", {"store_dir": str(tmp_path)})
    learner.reset(spire_episode())
    assert {s.id for s in learner.stores.skills.skills} == hand  # learning starts from it
    learner.stores.skills.put(Skill(id="learned-x", title="x", text="Rest before the boss."))
    learner.stores.summaries.add(
        CaseNote(id="n1", category="combat", key="cultist", text="Block the first hits.")
    )
    learner.stores.save()
    frozen = make_contract("full-frozen", {"store_dir": str(tmp_path)})
    frozen.reset(spire_episode())
    assert {s.id for s in frozen.stores.skills.skills} == hand | {"learned-x"}
    assert [n.id for n in frozen.stores.summaries.summaries] == ["n1"]
    assert frozen.store_hashes()["dir"] == directory_hash(tmp_path)
    # A store that holds no skills file: the hand seed, as mode-a reads it.
    empty = make_contract("full-frozen", {"store_dir": str(tmp_path / "empty")})
    (tmp_path / "empty").mkdir()
    empty.reset(spire_episode())
    assert {s.id for s in empty.stores.skills.skills} == hand


def test_a_frozen_snapshot_is_verified_and_never_written(tmp_path):
    learner = make_contract("self-evolve", {"store_dir": str(tmp_path / "work")})
    learner.reset(spire_episode())
    learner.stores.save()
    digest = freeze_to(tmp_path / "work", tmp_path / "snap")
    reader = make_contract("full-frozen", {"store_dir": str(tmp_path / "snap")})
    reader.reset(spire_episode())
    assert reader.store_hashes()["dir"] == digest
    writer = make_contract("self-evolve", {"store_dir": str(tmp_path / "snap")})
    with pytest.raises(ConfigError, match="frozen snapshot and L4 and L5 would write it"):
        writer.reset(spire_episode())
    (tmp_path / "snap" / "summaries.json").chmod(0o644)
    (tmp_path / "snap" / "summaries.json").write_text('{"game": "spire", "summaries": []}')
    with pytest.raises(ConfigError) as info:
        reader.reset(spire_episode())
    message = str(info.value)
    assert digest in message and directory_hash(tmp_path / "snap") in message
    assert "\n" not in message


def test_game_of():
    assert game_of("bounded/Spire-v0") == "spire"
    assert game_of("warehouse") == "warehouse"


# -- postrun learning -----------------------------------------------------------------


def play_warehouse(contract_, model, seed=0, horizon=6):
    return run_episode(
        WarehouseEnv(horizon=horizon), contract_, model, seed=seed, env_id="bounded/Warehouse-v0"
    )


def test_self_evolve_writes_notes_with_source_runs_and_rejects_duplicates(tmp_path):
    store = tmp_path / "stores"
    model = ScriptedModel(first_action)
    c = make_contract("self-evolve", {"store_dir": str(store)})
    first = play_warehouse(c, model)
    notes = StoreSet("warehouse", store).summaries.summaries
    assert len(notes) == 1 and notes[0].source_runs == [first.run_id]
    assert notes[0].category == "stream"
    assert first.store_hashes["L4.written"] != first.store_hashes["L4.read"]
    assert first.store_hashes["dir"] == directory_hash(store)
    before = directory_hash(store)
    second = play_warehouse(c, model, seed=1)
    assert directory_hash(store) == before  # the same note again: refused, nothing changes
    assert second.store_hashes["L4.written"] == second.store_hashes["L4.read"]
    assert [v.reason.split(" ")[0] for v in c.verdicts] == ["near-identical"]
    journal = (store / "journal.jsonl").read_text().splitlines()
    assert len(journal) == 2 and json.loads(journal[1])["accepted"] is False


def test_frozen_stores_are_read_but_never_written(tmp_path):
    store = tmp_path / "stores"
    learner = make_contract("self-evolve", {"store_dir": str(store)})
    play_warehouse(learner, ScriptedModel(first_action))
    before = directory_hash(store)
    frozen = make_contract("full-frozen", {"store_dir": str(store)})
    model = ScriptedModel(first_action)
    record = play_warehouse(frozen, model, seed=5)
    assert directory_hash(store) == before
    assert "L4.written" not in record.store_hashes
    user = model.calls[0]["messages"][-1]["content"]
    assert "Notes from earlier runs (L4):\n- [stream: stream]" in user
    assert "Block the first hits" in user


def test_mode_b_fills_templates_that_fired():
    c = make_contract("mode-b")
    template = Skill(
        id="stream-plan",
        title="Counting",
        scaffold="How should the counts be kept?",
        provenance="template",
        trigger=Trigger(kinds=["stream"]),
    )
    never = Skill(
        id="never",
        title="Never",
        scaffold="?",
        provenance="template",
        trigger=Trigger(kinds=["combat"]),
    )
    c.reset(warehouse_episode())
    c.stores.skills.put(template)
    c.stores.skills.put(never)
    record = play_warehouse(c, ScriptedModel(first_action))
    filled = c.stores.skills.get("stream-plan")
    assert filled is not None and filled.filled and filled.provenance == "postrun"
    assert filled.source_runs == [record.run_id] and filled.version == 1
    assert not c.stores.skills.get("never").filled
    record2 = play_warehouse(c, ScriptedModel(first_action), seed=3)
    assert c.stores.skills.get("stream-plan").source_runs == [record.run_id]  # same text: refused
    assert record2.store_hashes["L5.written"] == record.store_hashes["L5.written"]


def test_self_evolve_adds_proposed_skills_through_the_gate():
    def model_reply(messages, constraint):
        if "skills" in constraint["properties"]:
            skill = {
                "title": "Track ships",
                "text": "Add one to shipped on every SHIP event.",
                "kinds": ["stream"],
                "enemies": [],
                "hp_max": 1,
                "priority": 70,
            }
            return {"skills": [skill, dict(skill)]}
        return first_action(messages, constraint)

    c = make_contract("self-evolve")
    record = play_warehouse(c, ScriptedModel(model_reply))
    skill = c.stores.skills.get("learned-track-ships")
    assert skill is not None and skill.trigger.kinds == ["stream"] and skill.priority == 70
    assert skill.source_runs == [record.run_id]
    reasons = [v.reason for v in c.verdicts if v.layer == "L5"]
    assert reasons == ["new", "id already exists"]


def test_postrun_calls_are_bounded_and_counted_in_the_run_totals():
    c = make_contract("self-evolve", {"postrun": {"max_calls": 1}})
    model = ScriptedModel(first_action)
    run = play_warehouse(c, model)
    assert len(c.postrun_calls) == 1
    assert run.model_calls == run.decisions + 1 == len(model.calls)
    assert run.prompt_tokens == sum(
        sum(approx_tokens(m["content"]) for m in call["messages"]) for call in model.calls
    )


def test_a_malformed_postrun_reply_is_refused_with_its_cause_and_archived_whole(tmp_path):
    cut = '{"note": "Block the first hits, th'

    def truncated_notes(messages, constraint):
        return cut if "note" in constraint["properties"] else first_action(messages, constraint)

    store = tmp_path / "stores"
    c = make_contract("self-evolve", {"store_dir": str(store)})
    with Archive(tmp_path / "runs.sqlite") as archive:
        record = play_warehouse_archived(c, ScriptedModel(truncated_notes), archive)
        [stored] = archive.runs()
    [verdict] = [v for v in c.verdicts if v.layer == "L4"]
    assert not verdict.accepted
    assert verdict.reason.startswith("unusable reply: the reply is not a JSON object")
    assert StoreSet("warehouse", store).summaries.summaries == []
    assert stored.postrun == record.postrun
    assert cut in [call["text"] for call in stored.postrun["calls"]]
    assert stored.postrun["verdicts"][0]["reason"] == verdict.reason


def play_warehouse_archived(contract_, model, archive):
    return run_episode(
        WarehouseEnv(horizon=6), contract_, model, seed=0, env_id="bounded/Warehouse-v0",
        archive=archive,
    )  # fmt: skip


def test_a_contract_without_postrun_learning_archives_an_empty_postrun(tmp_path):
    with Archive(tmp_path / "runs.sqlite") as archive:
        play_warehouse_archived(make_contract("mode-a"), ScriptedModel(first_action), archive)
        [stored] = archive.runs()
    assert stored.postrun == {}


def test_postrun_without_a_model_is_skipped_and_says_so():
    c = make_contract("self-evolve")
    c.reset(warehouse_episode())
    c.postrun([], Outcome())
    assert c.postrun_note.startswith("skipped") and c.stores.summaries.summaries == []


@pytest.mark.parametrize("preset", ["baseline-strict", "prompt-only", "mode-a", "mode-b"])
def test_every_preset_plays_a_foreign_environment(preset):
    record = play_warehouse(make_contract(preset), ScriptedModel(first_action))
    assert record.status == "completed" and record.decisions == 6


# -- on the spire environment ---------------------------------------------------------


def spire_settings(preset, tmp_path):
    needs_store = preset in ("full-frozen", "mode-b-frozen")
    return {"store_dir": str(tmp_path)} if needs_store else {}


@pytest.mark.parametrize("preset", sorted(TYPED_PRESETS))
def test_every_preset_plays_spire_within_its_bound(preset, tmp_path):
    model = ScriptedModel(first_action)
    c = make_contract(preset, spire_settings(preset, tmp_path))
    runner = EpisodeRunner(
        make("spire"), c, model, seed=2, env_id="bounded/Spire-v0", max_decisions=60
    )
    record = runner.execute()
    assert record.status == "completed" and record.decisions == 60
    for decision in runner.trajectory:
        layers_seen = [s.layer for s in decision.segments]
        assert layers_seen[0] == "L1" and "L2" in layers_seen
        assert not decision.fallback and decision.parse_error is None
        shown = sum(approx_tokens(s.text) for s in decision.segments)
        assert shown <= decision.info["prompt_bound"]
    kinds = {d.kind for d in runner.trajectory}
    assert "combat" in kinds and len(kinds) >= 3


def test_mode_a_shows_the_hand_skill_for_brute_nob():
    c = contract(l5={"mode": "frozen"}, skill_seed="hand")
    obs = combat_obs(0, enemy="Brute Nob", room="elite", hp=60)
    l5 = {s.layer: s.text for s in c.assemble(obs).segments}["L5"]
    assert "Brute Nob: attacks only" in l5
    l3 = "\n".join(s.text for s in c.assemble(obs).segments if s.layer == "L3")
    assert "Brute Nob (enemy): elite enemy" in l3


def test_the_digests_facts_are_a_memory_log_restored_in_each_episode():
    from bounded.contracts.typed.learning import Digest, Episode

    digest = Digest(episodes={"fight: a": Episode(category="fight", key="a")})
    digest.episodes["fight: b"] = Episode(category="fight", key="b")
    for name, fact in [("fight: a", "1"), ("fight: b", "2"), ("fight: a", "3")]:
        digest.add_fact(name, fact)
    snapshot = json.loads(json.dumps({"digest": digest.without_facts(), "facts": digest.fact_log}))
    assert "facts" not in json.dumps(snapshot["digest"])
    restored = Digest.model_validate(snapshot["digest"])
    restored.restore_facts(snapshot["facts"])
    assert restored == digest and restored.fact_log == digest.fact_log
    older = Digest.model_validate(digest.model_dump(mode="json"))  # facts inside, no log
    older.restore_facts(None)
    assert older.episodes == digest.episodes
    assert sorted(older.fact_log["items"]) == sorted(digest.fact_log["items"])
    listed = Digest.model_validate(snapshot["digest"])  # a log saved before the window
    listed.restore_facts(snapshot["facts"]["items"])
    assert listed == digest


def test_the_digest_holds_a_window_of_facts_and_restores_to_what_it_holds():
    from bounded.contracts.typed.learning import FACTS_KEPT, FACTS_WINDOW, Digest, Episode

    digest = Digest(episodes={"event: start": Episode(category="event", key="start")})
    digest.episodes["fight: a"] = Episode(category="fight", key="a")
    digest.add_fact("event: start", "the first fact")
    for n in range(FACTS_WINDOW + 50):
        digest.add_fact("fight: a", f"fact {n}")
    assert len(digest.fact_log["items"]) == FACTS_WINDOW
    assert digest.fact_log["start"] == 51
    assert digest.episodes["event: start"].facts == []  # past the window: gone
    assert digest.episodes["fight: a"].facts[-1] == f"fact {FACTS_WINDOW + 49}"
    assert len(digest.episodes["fight: a"].facts) == FACTS_KEPT
    restored = Digest.model_validate(json.loads(json.dumps(digest.without_facts())))
    restored.restore_facts(json.loads(json.dumps(digest.fact_log)))
    assert restored == digest
