"""The spire seed data: rules read from the engine, the hand-written library, the templates."""

from bounded.stores.directory import canonical_bytes, seed_games, seed_rules, seed_skills
from bounded.stores.seedgen import seed_path, spire_rules
from bounded.stores.situation import Situation, norm


def test_spire_seed_data_ships():
    assert "spire" in seed_games()


def test_shipped_rules_match_the_engine():
    shipped = seed_path("spire", "rules.json").read_bytes()
    assert shipped == canonical_bytes(spire_rules()), (
        "spire content changed: run `python -m bounded.stores.seedgen` and ship the new rules"
    )


def test_rules_cover_every_card_enemy_relic_and_potion():
    from bounded.envs.spire.cards import CARDS
    from bounded.envs.spire.enemies import game_enemies
    from bounded.envs.spire.potions import POTIONS
    from bounded.envs.spire.relics import RELICS

    ids = {r.id for r in seed_rules("spire").rules}
    expected = (
        {f"card:{k}" for k in CARDS}
        | {f"enemy:{k}" for k in game_enemies()}
        | {f"relic:{k}" for k in RELICS}
        | {f"potion:{k}" for k in POTIONS}
    )
    assert expected <= ids


def test_every_name_a_hand_skill_triggers_on_exists_in_the_game():
    known = {norm(r.name) for r in seed_rules("spire").rules}
    library = seed_skills("spire", "hand")
    assert len(library.skills) >= 30
    for skill in library.skills:
        trigger = skill.trigger
        for name in trigger.enemies + trigger.cards + trigger.relics + trigger.enemy_powers:
            assert norm(name) in known, f"{skill.id} triggers on unknown {name!r}"
        assert skill.filled and skill.provenance == "hand"


def test_templates_carry_questions_and_no_prose():
    templates = seed_skills("spire", "templates").skills
    assert templates and all(t.scaffold and not t.text for t in templates)
    assert all(t.provenance == "template" for t in templates)


def test_hand_skills_fire_for_the_situations_they_name():
    library = seed_skills("spire", "hand")
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
    assert canonical_bytes(spire_rules()) == seed_path("spire", "rules.json").read_bytes()
