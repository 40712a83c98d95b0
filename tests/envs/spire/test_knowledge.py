"""Spire's knowledge for the typed contract: rules read from the engine, the hand-written
library, the templates, and the reader of spire's state."""

from __future__ import annotations

from bounded.envs.spire import SpireEnv, SpireExpert
from bounded.envs.spire.knowledge import (
    GAME,
    data_path,
    shipped_rules,
    shipped_skills,
    spire_knowledge,
    spire_situation,
)
from bounded.envs.spire.rulebook import spire_rules
from bounded.stores.directory import canonical_bytes
from bounded.stores.situation import Situation, norm, situation_of


def test_the_environment_gives_its_knowledge():
    knowledge = SpireEnv().game_knowledge()
    assert knowledge is not None and knowledge.game == GAME == "spire"
    assert knowledge.rules == shipped_rules() and knowledge.rules.rules
    assert set(knowledge.skills) == {"hand", "templates"}
    assert knowledge.situation is spire_situation


def test_each_call_gives_fresh_copies():
    first = spire_knowledge()
    first.rules.rules.clear()
    first.skills["hand"].skills.clear()
    second = spire_knowledge()
    assert second.rules.rules and second.skills["hand"].skills


def test_shipped_rules_match_the_engine():
    shipped = data_path("rules.json").read_bytes()
    assert shipped == canonical_bytes(spire_rules()), (
        "spire content changed: run `python -m bounded.envs.spire.knowledge` and ship the new rules"
    )


def test_rules_cover_every_card_enemy_relic_and_potion():
    from bounded.envs.spire.cards import CARDS
    from bounded.envs.spire.enemies import game_enemies
    from bounded.envs.spire.potions import POTIONS
    from bounded.envs.spire.relics import RELICS

    ids = {r.id for r in shipped_rules().rules}
    expected = (
        {f"card:{k}" for k in CARDS}
        | {f"enemy:{k}" for k in game_enemies()}
        | {f"relic:{k}" for k in RELICS}
        | {f"potion:{k}" for k in POTIONS}
    )
    assert expected <= ids


def test_every_name_a_hand_skill_triggers_on_exists_in_the_game():
    known = {norm(r.name) for r in shipped_rules().rules}
    library = shipped_skills("hand")
    assert len(library.skills) >= 30
    for skill in library.skills:
        trigger = skill.trigger
        for name in trigger.enemies + trigger.cards + trigger.relics + trigger.enemy_powers:
            assert norm(name) in known, f"{skill.id} triggers on unknown {name!r}"
        assert skill.filled and skill.provenance == "hand"


def test_templates_carry_questions_and_no_prose():
    templates = shipped_skills("templates").skills
    assert templates and all(t.scaffold and not t.text for t in templates)
    assert all(t.provenance == "template" for t in templates)


def test_hand_skills_fire_for_the_situations_they_name():
    library = shipped_skills("hand")
    nob = Situation(kind="combat", room="elite", enemies=["Brute Nob"], hp=20, max_hp=70)
    fired = [s.id for s in library.fired(nob)]
    assert fired[0] == "combat-low-hp" and "brute-nob" in fired
    assert "combat-potions-big-fights" in fired
    healthy_map = Situation(kind="map", act=1, hp=70, max_hp=70)
    assert [s.id for s in library.fired(healthy_map)] == ["map-elites-healthy"]
    assert library.fired(Situation(kind="stream")) == []


def test_training_dummies_of_test_helpers_are_not_game_content():
    from bounded.envs.spire import testing
    from bounded.envs.spire.enemies import ENEMIES, game_enemies

    assert testing.DUMMY in ENEMIES
    assert testing.DUMMY not in game_enemies()
    assert canonical_bytes(spire_rules()) == data_path("rules.json").read_bytes()


def expert_observations(seed: int = 3, decisions: int = 400):
    """Observations of one expert game, one per decision."""
    env, expert = SpireEnv(), SpireExpert()
    obs, _ = env.reset(seed=seed)
    seen = [obs]
    while obs.legal and len(seen) < decisions:
        obs, _, terminated, truncated, _ = env.step(expert.act(obs))
        seen.append(obs)
        if terminated or truncated:
            break
    return seen


def test_the_spire_reader_finds_the_facts_of_every_kind_of_decision():
    by_kind: dict[str, Situation] = {}
    for obs in expert_observations():
        situation = spire_situation(obs)
        assert situation.kind == obs.kind and situation.floor == obs.state["floor"]
        assert situation.hp == obs.state["player"]["hp"] and situation.deck
        by_kind.setdefault(obs.kind, situation)
    fight = by_kind["combat"]
    assert fight.enemies and fight.hand and fight.encounter
    assert by_kind["map"].offered  # the rooms of the next floor
    assert by_kind["card_reward"].offered


def test_the_generic_reader_misses_what_spire_keeps_under_combat():
    fight = next(obs for obs in expert_observations() if obs.kind == "combat")
    generic, spire = situation_of(fight), spire_situation(fight)
    assert spire.enemies and not generic.enemies and not generic.hand
    assert generic.hp == spire.hp and generic.floor == spire.floor


def test_the_rulebook_command_writes_the_shipped_file(tmp_path, monkeypatch, capsys):
    from bounded.envs.spire import rulebook

    monkeypatch.setattr(rulebook, "data_path", lambda name: tmp_path / name)
    rulebook.main()
    assert (tmp_path / "rules.json").read_bytes() == data_path("rules.json").read_bytes()
    assert "wrote 245 rules (version 1)" in capsys.readouterr().out
