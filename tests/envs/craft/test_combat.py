"""Lanchester combat: counters and the square law."""

from bounded.envs.craft import combat
from bounded.envs.craft.maps import MAPS
from bounded.envs.craft.sim import Group, Side, group_stacks, new_side


def _sides() -> tuple[Side, Side]:
    game_map = MAPS["crossroads"]
    return new_side("protoss", game_map, enemy=False), new_side("zerg", game_map, enemy=True)


def fight(protoss: dict[str, int], zerg: dict[str, int], seconds: int = 120) -> tuple[dict, dict]:
    player, enemy = _sides()
    mine = group_stacks(player, Group("p", (0, 0), dict(protoss)))
    theirs = group_stacks(enemy, Group("z", (0, 0), dict(zerg)))
    for _ in range(seconds):
        combat.fight_round(mine, theirs, 1.0)
    left = ({s.fighter.key: s.count for s in mine}, {s.fighter.key: s.count for s in theirs})
    return left


def test_splash_beats_a_swarm_that_single_target_units_lose_to():
    ours, theirs = fight({"colossus": 3}, {"zergling": 36})
    assert theirs["zergling"] == 0 and ours["colossus"] >= 1
    ours, theirs = fight({"stalker": 9}, {"zergling": 36})
    assert ours["stalker"] == 0 and theirs["zergling"] >= 18


def test_immortals_beat_roaches_of_equal_cost():
    ours, theirs = fight({"immortal": 4}, {"roach": 11})
    assert sum(theirs.values()) == 0 and ours["immortal"] >= 1


def test_ground_units_cannot_hit_air():
    ours, theirs = fight({"zealot": 10}, {"mutalisk": 4})
    assert ours["zealot"] == 0 and theirs["mutalisk"] == 4


def test_phoenixes_beat_mutalisks_of_equal_cost():
    ours, theirs = fight({"phoenix": 6}, {"mutalisk": 7})
    assert theirs["mutalisk"] == 0 and ours["phoenix"] >= 4


def test_banelings_punish_light_units_not_armored_ones():
    ours, theirs = fight({"zealot": 6}, {"zergling": 8, "baneling": 8})
    assert ours["zealot"] == 0 and theirs["zergling"] > 0
    ours, theirs = fight({"stalker": 5}, {"zergling": 8, "baneling": 8})
    assert ours["stalker"] > 0 and sum(theirs.values()) == 0


def test_square_law_larger_army_loses_less_than_proportionally():
    ours, theirs = fight({"stalker": 10}, {"roach": 5})
    assert theirs["roach"] == 0
    assert ours["stalker"] >= 8


def test_upgrades_change_the_outcome():
    player, enemy = _sides()
    base = group_stacks(player, Group("p", (0, 0), {"zealot": 1}))[0].fighter
    enemy_ling = group_stacks(enemy, Group("z", (0, 0), {"zergling": 1}))[0].fighter
    player.research["protossgroundweaponslevel1"] = 0.0
    player.invalidate_fighters()
    upgraded = group_stacks(player, Group("p", (0, 0), {"zealot": 1}))[0].fighter
    assert upgraded.dps_against(enemy_ling) > base.dps_against(enemy_ling)


def test_strength_ratio_favours_the_winner():
    player, enemy = _sides()
    mine = group_stacks(player, Group("p", (0, 0), {"stalker": 10}))
    theirs = group_stacks(enemy, Group("z", (0, 0), {"roach": 5}))
    assert combat.strength(mine, theirs) > combat.strength(theirs, mine)


def test_groups_that_cannot_hit_each_other_do_not_fight():
    player, enemy = _sides()
    observers = group_stacks(player, Group("p", (0, 0), {"observer": 2}))
    zealots = group_stacks(player, Group("p", (0, 0), {"zealot": 2}))
    roaches = group_stacks(enemy, Group("z", (0, 0), {"roach": 3}))
    mutalisks = group_stacks(enemy, Group("z", (0, 0), {"mutalisk": 3}))
    assert not combat.can_fight(observers, roaches)
    assert combat.can_fight(zealots, mutalisks)
