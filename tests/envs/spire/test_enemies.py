"""Enemy mechanics: intents, move patterns and the special statuses."""

from __future__ import annotations

import contextlib

import pytest

from bounded.envs.spire.combat import CombatOver
from bounded.envs.spire.enemies import ACTS, ENEMIES, FINAL_BOSS
from bounded.envs.spire.testing import Table

INTENTS = {"attack", "attack_block", "attack_debuff", "block", "buff", "debuff", "unknown", "sleep"}
ENCOUNTERS = sorted(
    {enc for act in ACTS.values() for enc in (*act.weak, *act.strong, *act.elites, *act.bosses)}
    | {FINAL_BOSS}
)


def test_enemy_and_encounter_counts() -> None:
    assert len(ENEMIES) >= 35
    for act in ACTS.values():
        assert (len(act.weak), len(act.strong), len(act.elites), len(act.bosses)) == (4, 8, 3, 3)


@pytest.mark.parametrize("encounter", ENCOUNTERS, ids=["+".join(e) for e in ENCOUNTERS])
def test_every_encounter_runs_ten_rounds_with_valid_intents(encounter: tuple[str, ...]) -> None:
    t = Table(enemies=encounter, draw=("Defend",) * 30)
    t.run.hp = t.run.max_hp = 10_000
    for _ in range(10):
        for e in t.cb.living():
            intent = t.cb.intent(e)
            assert intent["type"] in INTENTS and intent["total"] >= 0
        t.cb.end_player_turn()
        if t.cb.over:
            break
    assert t.run.hp < 10_000 or encounter == ("Pickpocket",)


def test_slimes_split_at_half_hp() -> None:
    t = Table(enemies=("Acid Blob L",))
    blob = t.enemy
    t.cb.damage_enemy(blob, blob.hp - blob.max_hp // 2, attack=True)
    t.cb.choose_move(blob)
    assert blob.move.name == "Split" and t.cb.intent(blob)["type"] == "unknown"
    hp = blob.hp
    t.cb.execute(blob)
    children = t.cb.living()
    assert not blob.alive and [c.name for c in children] == ["Acid Blob M", "Acid Blob M"]
    assert all(c.hp == c.max_hp == hp for c in children)


def test_curl_up_blocks_the_first_hit_only() -> None:
    t = Table(enemies=("Red Tick",))
    t.cb.damage_enemy(t.enemy, 1, attack=True)
    assert t.enemy.block == 5 and "curl_up" not in t.enemy.powers


def test_enrage_gains_strength_when_a_skill_is_played() -> None:
    t = Table("Defend", enemies=("Brute Nob",))
    t.cb.execute(t.enemy)  # Bellow: enrage 2
    t.play()
    assert t.enemy.powers.get("strength") == 2


def test_sleeper_wakes_when_hurt_and_loses_metallicize() -> None:
    t = Table(enemies=("Sleeping Sentinel",))
    assert t.enemy.move.name == "Sleep" and t.cb.intent(t.enemy)["type"] == "sleep"
    t.cb.damage_enemy(t.enemy, 10, attack=True)
    assert "asleep" not in t.enemy.powers and "metallicize" not in t.enemy.powers


def test_ritual_grows_strength_after_the_first_turn() -> None:
    t = Table(enemies=("Cultist",))
    t.cb.end_player_turn()
    assert t.enemy.powers.get("ritual") == 3 and t.enemy.powers.get("strength") is None
    t.cb.end_player_turn()
    assert t.enemy.powers.get("strength") == 3


def test_artifact_negates_a_debuff() -> None:
    t = Table("Low Blow", enemies=("Sentry",))
    t.play()
    assert "weak" not in t.enemy.powers and "artifact" not in t.enemy.powers


def test_summoned_minions_die_with_their_boss() -> None:
    t = Table(enemies=("Clockwork Titan",))
    t.cb.execute(t.enemy)  # Spawn Orbs
    orbs = [e for e in t.cb.living() if e.name == "Bronze Orb"]
    assert len(orbs) == 2 and all(o.powers.get("minion") for o in orbs)
    with contextlib.suppress(CombatOver):
        t.cb.damage_enemy(t.enemy, 10_000, attack=False)
    assert t.cb.over and t.cb.won


def test_revive_gives_a_second_phase() -> None:
    t = Table(enemies=("Awakened Seraph",))
    seraph = t.enemy
    t.cb.damage_enemy(seraph, 10_000, attack=False)
    assert seraph.alive and seraph.powers.get("reborn_pending") and not t.cb.over
    assert not seraph.targetable
    t.cb.execute(seraph)
    assert seraph.hp == seraph.max_hp and seraph.powers.get("phase_two") == 1


def test_time_warp_ends_the_turn_after_twelve_cards() -> None:
    t = Table(enemies=("Chronophage",))
    turn = t.cb.turn
    for _ in range(12):
        card = t.run.new_card("Parry")
        t.cb.hand.append(card)
        t.cb.play(card, None)
    assert t.cb.force_end_turn and t.enemy.powers.get("strength") == 2
    t.run.after_combat_step()
    assert t.cb.turn == turn


def test_invincible_caps_damage_per_turn_and_beat_of_death_hurts() -> None:
    t = Table("Strike", enemies=("The Core",))
    hp = t.run.hp
    t.play()
    assert t.run.hp == hp - 1
    t.cb.damage_enemy(t.enemy, 10_000, attack=False)
    assert t.enemy.max_hp - t.enemy.hp == t.enemy.powers["invincible"] and not t.cb.over
    t.cb.end_player_turn()
    t.cb.damage_enemy(t.enemy, 5, attack=False)
    assert t.enemy.max_hp - t.enemy.hp == t.enemy.powers["invincible"] + 5


def test_thorns_hurt_the_attacker() -> None:
    t = Table("Strike", enemies=("Spiker",))
    hp = t.run.hp
    t.play()
    assert t.run.hp == hp - 2


def test_plated_armor_drops_when_hit() -> None:
    t = Table("Strike", enemies=("Shell Crawler",))
    t.play()
    assert t.enemy.powers["plated_armor"] == 13


def test_intangible_caps_each_hit_at_one() -> None:
    t = Table("Strike", enemies=("Nemesis",))
    t.enemy.powers["intangible"] = 1
    hp = t.enemy.hp
    t.play()
    assert hp - t.enemy.hp == 1


def test_mode_shift_turns_defensive_after_enough_damage() -> None:
    t = Table(enemies=("Bulwark Golem",))
    t.cb.damage_enemy(t.enemy, 31, attack=True)
    assert t.enemy.powers.get("defensive") == 1 and t.enemy.move.name == "Defensive Mode"


def test_thieves_steal_gold_and_escape() -> None:
    t = Table(enemies=("Pickpocket",))
    t.cb.player.block = 100
    gold = t.run.gold
    for _ in range(4):
        t.cb.end_player_turn()
    assert t.run.gold == gold - 30 and t.cb.over and t.cb.gold_stolen == 30
