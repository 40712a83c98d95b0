"""Each card does what its text says: table-driven checks on a hand-built combat."""

from __future__ import annotations

from typing import Any

import pytest

from bounded.envs.spire.cards import CARDS, STARTER_DECK, pool
from bounded.envs.spire.testing import DUMMY, Table

# card, upgraded, expected: damage (enemy HP lost), block, enemy powers, player powers,
# hand (cards in hand after the play, not counting the played card), energy left (from 3)
SIMPLE: list[tuple[str, bool, dict[str, Any]]] = [
    ("Strike", False, {"damage": 6, "energy": 2}),
    ("Strike", True, {"damage": 9}),
    ("Defend", False, {"block": 5}),
    ("Defend", True, {"block": 8}),
    ("Hamstring", False, {"damage": 3, "enemy": {"weak": 1}, "energy": 3}),
    ("Hamstring", True, {"damage": 4, "enemy": {"weak": 2}}),
    ("Poisoned Stab", False, {"damage": 6, "enemy": {"poison": 3}}),
    ("Poisoned Stab", True, {"damage": 8, "enemy": {"poison": 4}}),
    ("Deadly Venom", False, {"enemy": {"poison": 5}}),
    ("Deadly Venom", True, {"enemy": {"poison": 7}}),
    ("Quick Slash", False, {"damage": 8, "hand": 1}),
    ("Low Blow", False, {"damage": 7, "enemy": {"weak": 1}}),
    ("Knife Flurry", False, {"hand": 3, "shivs": 3}),
    ("Knife Flurry", True, {"hand": 4, "shivs": 4}),
    ("Cloak and Knife", False, {"block": 6, "shivs": 1}),
    ("Cloak and Knife", True, {"block": 6, "shivs": 2}),
    ("Knife Spray", False, {"damage": 8}),
    ("Knife Spray", True, {"damage": 12}),
    ("Backspring", False, {"block": 5, "hand": 2}),
    ("Parry", False, {"block": 4, "energy": 3}),
    ("Parry", True, {"block": 7}),
    ("Sidestep", False, {"block": 4, "player": {"next_block": 4}}),
    ("Nick", False, {"damage": 6, "energy": 3}),
    ("Nick", True, {"damage": 9}),
    ("Fester", False, {"damage": 7}),
    ("Flying Kick", False, {"damage": 8, "player": {"next_energy": 1}}),
    ("Outflank", False, {"player": {"next_energy": 2}}),
    ("Outflank", True, {"player": {"next_energy": 3}}),
    ("Opportunist", False, {"damage": 12, "energy": 1}),
    ("Slash and Dash", False, {"damage": 5, "block": 5}),
    ("Slash and Dash", True, {"damage": 7, "block": 7}),
    ("Feint", False, {"block": 4, "enemy": {"weak": 1}}),
    ("Toxic Dart", False, {"enemy": {"poison": 3}, "hand": 1}),
    ("Lunge", False, {"damage": 14, "enemy": {"vulnerable": 1}, "energy": 1}),
    ("Quickdraw", False, {"damage": 3, "hand": 1, "energy": 3}),
    ("Snare", False, {"block": 6, "enemy": {"vulnerable": 1}}),
    ("Hidden Blade", False, {"damage": 6, "shivs": 1}),
    ("Steady Guard", False, {"block": 13, "energy": 1}),
    ("Steady Guard", True, {"block": 17}),
    ("Venom Coat", False, {"enemy": {"poison": 2}}),
    ("Accelerant", False, {}),
    ("Toxic Fog", False, {"player": {"toxic_fog": 2}}),
    ("Toxic Fog", True, {"player": {"toxic_fog": 3}}),
    ("Light Feet", False, {"player": {"dexterity": 2}}),
    ("Light Feet", True, {"player": {"dexterity": 3}}),
    ("Keen Edge", False, {"player": {"keen_edge": 4}}),
    ("Endless Knives", False, {"player": {"endless_knives": 1}}),
    ("Blur", False, {"block": 5, "player": {"blur": 1}}),
    ("Sweep Kick", False, {"block": 11, "enemy": {"weak": 2}, "energy": 1}),
    ("Choking Cloud", False, {"enemy": {"poison": 4, "weak": 2}}),
    ("Choking Cloud", True, {"enemy": {"poison": 7, "weak": 2}}),
    ("Know-How", False, {"hand": 6}),
    ("Know-How", True, {"hand": 7}),
    ("Hunter", False, {"damage": 15, "player": {"next_draw": 2}}),
    ("Perforate", False, {"damage": 15}),
    ("Perforate", True, {"damage": 20}),
    ("Skewer", False, {"damage": 21, "energy": 0}),
    ("Skewer", True, {"damage": 30, "energy": 0}),
    ("Dread", False, {"enemy": {"vulnerable": 99}, "energy": 2}),
    ("Dread", True, {"enemy": {"vulnerable": 99}, "energy": 3}),
    ("Heel Hook", False, {"damage": 5, "energy": 2}),
    ("Barbs", False, {"player": {"thorns": 3}}),
    ("Barbs", True, {"player": {"thorns": 5}}),
    ("Eviscerate", False, {"damage": 21, "energy": 0}),
    ("Eviscerate", True, {"damage": 27}),
    ("Flechettes", False, {"damage": 0}),
    ("Finisher", False, {"damage": 0}),
    ("All-In", False, {"damage": 10}),
    ("Caltrop Dance", False, {"block": 7, "player": {"thorns": 2}}),
    ("Crippling Strike", False, {"damage": 7, "enemy": {"weak": 1, "vulnerable": 1}}),
    ("Adrenaline Rush", False, {"energy": 4, "hand": 2}),
    ("Adrenaline Rush", True, {"energy": 5, "hand": 2}),
    ("Afterimage", False, {"player": {"afterimage": 1}}),
    ("Thousand Cuts", False, {"player": {"thousand_cuts": 1}, "energy": 1}),
    ("Envenom", False, {"player": {"envenom": 1}, "energy": 1}),
    ("Envenom", True, {"player": {"envenom": 1}, "energy": 2}),
    ("Plague Burst", False, {"enemy": {"poison": 6, "plague_burst": 1}}),
    ("Glass Knife", False, {"damage": 16}),
    ("Glass Knife", True, {"damage": 24}),
    ("Die Die Die", False, {"damage": 13}),
    ("Die Die Die", True, {"damage": 17}),
    ("Double Up", False, {"player": {"double_up": 1}}),
    ("Double Up", True, {"player": {"double_up": 2}}),
    ("Malaise", False, {"enemy": {"strength": -3, "weak": 3}, "energy": 0}),
    ("Malaise", True, {"enemy": {"strength": -4, "weak": 4}, "energy": 0}),
    ("Phantom Blades", False, {"player": {"phantom_next": 1}}),
    ("Bullet Time", False, {"player": {"no_draw": 1}, "energy": 0}),
    ("Sharpened Mind", False, {"player": {"sharpened_mind": 1}, "energy": 0}),
    ("Shiv", False, {"damage": 4, "energy": 3}),
    ("Shiv", True, {"damage": 6}),
    ("Slimed", False, {"energy": 2}),
]


@pytest.mark.parametrize(
    ("key", "upgraded", "expected"), SIMPLE, ids=[f"{k}{'+' if u else ''}" for k, u, _ in SIMPLE]
)
def test_card_does_what_its_text_says(key: str, upgraded: bool, expected: dict[str, Any]) -> None:
    t = Table(key, upgraded=upgraded)
    hp_before = t.enemy.hp
    t.play()
    assert hp_before - t.enemy.hp == expected.get("damage", 0)
    assert t.cb.player.block == expected.get("block", 0)
    for power, amount in expected.get("enemy", {}).items():
        assert t.enemy.powers.get(power) == amount, power
    for power, amount in expected.get("player", {}).items():
        assert t.cb.player.powers.get(power) == amount, power
    if "hand" in expected:
        assert len(t.cb.hand) == expected["hand"]
    if "shivs" in expected:
        assert sum(1 for c in t.cb.hand if c.key == "Shiv") == expected["shivs"]
    if "energy" in expected:
        assert t.cb.player.energy == expected["energy"]


def test_every_pool_card_has_a_simple_or_special_test() -> None:
    special = {
        "Duck and Roll", "Knife Toss", "Tumble", "Ready Up", "Shriek", "Escape Route",
        "Ricochet Vial", "Gamble", "Steel Storm", "Alchemize",
    }  # fmt: skip
    tested = {k for k, _, _ in SIMPLE} | special
    playable = [k for k, d in CARDS.items() if d.effect is not None]
    assert sorted(set(playable) - tested) == []


def test_pool_sizes_meet_the_minimum() -> None:
    assert len(set(STARTER_DECK)) == 4 and len(STARTER_DECK) == 12
    assert len(pool("common")) >= 25
    assert len(pool("uncommon")) >= 20
    assert len(pool("rare")) >= 11
    assert len(pool("status")) == 4
    assert len(pool("curse")) >= 3


def test_discard_cards_ask_for_a_choice_when_the_hand_is_larger() -> None:
    t = Table("Duck and Roll", hand=("Strike", "Strike"))
    t.play()
    assert t.cb.player.block == 8 and t.cb.pending_discard == 1
    t.cb.resolve_discard(t.cb.hand[0])
    assert t.cb.pending_discard == 0 and len(t.cb.hand) == 1 and t.cb.discarded_this_turn == 1


def test_discard_is_automatic_when_the_hand_is_small() -> None:
    t = Table("Duck and Roll", hand=("Strike",))
    t.play()
    assert (
        t.cb.pending_discard == 0
        and t.cb.hand == []
        and t.cb.discard_pile[-1].key == "Duck and Roll"
    )


@pytest.mark.parametrize(
    ("key", "drawn", "discards"), [("Knife Toss", 1, 1), ("Tumble", 3, 1), ("Ready Up", 1, 1)]
)
def test_draw_then_discard_cards(key: str, drawn: int, discards: int) -> None:
    t = Table(key, hand=("Strike", "Strike"))
    t.play()
    assert len(t.cb.hand) == 2 + drawn
    assert t.cb.pending_discard == discards


def test_shriek_lowers_strength_for_the_round_only() -> None:
    t = Table("Shriek", enemies=(DUMMY, DUMMY))
    t.play()
    assert all(e.powers.get("strength") == -6 for e in t.cb.enemies)
    assert t.card in t.cb.exhaust_pile
    t.cb.end_player_turn()
    assert all(e.powers.get("strength") is None for e in t.cb.enemies)


def test_escape_route_blocks_only_when_it_draws_a_skill() -> None:
    skill = Table("Escape Route", draw=("Defend",))
    skill.play()
    attack = Table("Escape Route", draw=("Strike",))
    attack.play()
    assert skill.cb.player.block == 3 and attack.cb.player.block == 0


def test_ricochet_vial_applies_three_poison_three_times() -> None:
    t = Table("Ricochet Vial")
    t.play(None)
    assert t.enemy.powers["poison"] == 9


def test_gamble_replaces_the_hand() -> None:
    t = Table("Gamble", hand=("Strike", "Strike", "Strike"), draw=("Defend",) * 5)
    t.play(None)
    assert [c.key for c in t.cb.hand] == ["Defend"] * 3 and t.card in t.cb.exhaust_pile


def test_steel_storm_turns_the_hand_into_shivs() -> None:
    t = Table("Steel Storm", hand=("Strike", "Defend"))
    t.play(None)
    assert [c.key for c in t.cb.hand] == ["Shiv", "Shiv"] and t.cb.discarded_this_turn == 2


def test_alchemize_fills_a_potion_slot() -> None:
    t = Table("Alchemize")
    t.play(None)
    assert sum(p is not None for p in t.run.potions) == 1


def test_fester_hits_twice_on_poisoned_enemies() -> None:
    t = Table("Fester")
    t.enemy.powers["poison"] = 1
    before = t.enemy.hp
    t.play()
    assert before - t.enemy.hp == 14


def test_accelerant_multiplies_poison() -> None:
    t = Table("Accelerant")
    t.enemy.powers["poison"] = 5
    t.play()
    assert t.enemy.powers["poison"] == 10


def test_opportunist_refunds_energy_after_a_discard() -> None:
    t = Table("Opportunist")
    t.cb.discarded_this_turn = 1
    t.play()
    assert t.cb.player.energy == 3


def test_finisher_counts_attacks_played_this_turn() -> None:
    t = Table("Finisher")
    t.cb.attacks_this_turn = 2
    before = t.enemy.hp
    t.play()
    assert before - t.enemy.hp == 12


def test_flechettes_counts_skills_in_hand() -> None:
    t = Table("Flechettes", hand=("Defend", "Defend", "Strike"))
    before = t.enemy.hp
    t.play()
    assert before - t.enemy.hp == 8


def test_heel_hook_refunds_on_weak_enemies() -> None:
    t = Table("Heel Hook")
    t.enemy.powers["weak"] = 1
    t.play()
    assert t.cb.player.energy == 3 and len(t.cb.hand) == 1


def test_eviscerate_costs_less_per_discard() -> None:
    t = Table("Eviscerate")
    t.cb.discarded_this_turn = 2
    assert t.cb.card_cost(t.card) == 1  # type: ignore[arg-type]


def test_weak_vulnerable_and_strength_modify_damage() -> None:
    t = Table("Strike")
    t.enemy.powers["vulnerable"] = 1
    t.cb.player.powers["strength"] = 2
    before = t.enemy.hp
    t.play()
    assert before - t.enemy.hp == int((6 + 2) * 1.5)
    weak = Table("Strike")
    weak.cb.player.powers["weak"] = 1
    before = weak.enemy.hp
    weak.play()
    assert before - weak.enemy.hp == int(6 * 0.75)


def test_frail_and_dexterity_modify_block() -> None:
    t = Table("Defend")
    t.cb.player.powers.update({"frail": 1, "dexterity": 3})
    t.play()
    assert t.cb.player.block == int((5 + 3) * 0.75)


def test_poison_ticks_and_decays_on_the_enemy_turn() -> None:
    t = Table()
    t.enemy.powers["poison"] = 5
    before = t.enemy.hp
    t.cb.end_player_turn()
    assert before - t.enemy.hp == 5 and t.enemy.powers["poison"] == 4


def test_statuses_and_curses_are_unplayable() -> None:
    for key in ("Wound", "Dazed", "Burn", "Climber's Bane", "Doubt", "Injury", "Pain"):
        t = Table(key)
        assert not t.cb.playable(t.card)  # type: ignore[arg-type]


def test_burn_and_doubt_hurt_at_end_of_turn() -> None:
    t = Table(hand=("Burn", "Doubt"))
    hp = t.run.hp
    t.cb.end_player_turn()
    assert t.run.hp == hp - 2 and t.cb.player.powers.get("weak") == 1


def test_pain_costs_hp_per_card_played() -> None:
    t = Table("Defend", hand=("Pain",))
    hp = t.run.hp
    t.play()
    assert t.run.hp == hp - 1


def test_ethereal_cards_exhaust_and_retain_cards_stay() -> None:
    t = Table(hand=("Dazed", "Steady Guard", "Strike"))
    t.cb.end_player_turn()
    assert any(c.key == "Dazed" for c in t.cb.exhaust_pile)
    assert any(c.key == "Steady Guard" for c in t.cb.hand)
