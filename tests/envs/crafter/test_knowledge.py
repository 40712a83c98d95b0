"""Crafter's knowledge for the typed contract: rules retrieved by what is in view, skills
fired by health, creatures and the tools held."""

from __future__ import annotations

from bounded.core import Observation
from bounded.envs import make
from bounded.envs.crafter.knowledge import crafter_knowledge, crafter_situation


def play(health: int, seen: list[str], inventory: dict[str, int] | None = None) -> Observation:
    state = {"health": health, "seen": [{"name": n} for n in seen], "inventory": inventory or {}}
    return Observation(kind="play", state=state)


def test_the_environment_supplies_its_knowledge_through_the_hook() -> None:
    knowledge = make("crafter").game_knowledge()
    assert knowledge is not None and knowledge.game == "crafter"
    assert set(knowledge.skills) == {"hand", "templates"}
    assert all(not s.filled for s in knowledge.skills["templates"].skills)


def test_situation_reads_health_creatures_things_in_view_and_tools() -> None:
    situation = crafter_situation(play(3, ["zombie", "tree"], {"wood_pickaxe": 1}))
    assert (situation.hp, situation.max_hp) == (3, 9)
    assert situation.enemies == ["zombie"] and situation.offered == ["tree"]
    assert situation.deck == ["wood pickaxe"]


def test_rules_follow_what_is_in_view() -> None:
    rules = crafter_knowledge().rules
    near_lava = {r.id for r in rules.retrieve(crafter_situation(play(9, ["lava", "iron"])))}
    alone = {r.id for r in rules.retrieve(crafter_situation(play(9, [])))}
    assert {"thing:lava", "thing:iron"} <= near_lava - alone
    assert {"mechanic:vitals", "mechanic:crafting"} <= alone


def test_skills_fire_on_low_health_a_zombie_and_a_pickaxe() -> None:
    hand = crafter_knowledge().skills["hand"]
    calm = {s.id for s in hand.fired(crafter_situation(play(9, [])))}
    tense = {s.id for s in hand.fired(crafter_situation(play(2, ["zombie"], {"wood_pickaxe": 1})))}
    assert {"low-health", "fight-zombie", "have-pickaxe"} <= tense - calm
    assert "tech-tree" in calm
