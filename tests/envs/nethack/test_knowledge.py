"""NetHack's knowledge for the typed contract: rules retrieved by the monsters in view,
skills fired by the decision kind, HP and monsters, read from NetHack's own state."""

from __future__ import annotations

from bounded.core import Observation
from bounded.envs import make
from bounded.envs.nethack.knowledge import nethack_knowledge, nethack_situation


def command(hp: int, monsters: list[str]) -> Observation:
    state = {"depth": 3, "hp": hp, "max_hp": 30, "monsters": [{"name": m} for m in monsters]}
    return Observation(kind="command", state=state)


def test_the_environment_supplies_its_knowledge_through_the_hook() -> None:
    knowledge = make("nethack").game_knowledge()
    assert knowledge is not None and knowledge.game == "nethack"
    assert set(knowledge.skills) == {"hand", "templates"}
    assert all(not s.filled for s in knowledge.skills["templates"].skills)


def test_situation_reads_depth_hp_and_hostile_monsters() -> None:
    situation = nethack_situation(command(5, ["floating eye", "newt"]))
    assert (situation.floor, situation.hp, situation.max_hp) == (3, 5, 30)
    assert situation.enemies == ["floating eye", "newt"]


def test_rules_follow_the_monsters_in_view() -> None:
    rules = nethack_knowledge().rules
    near_eye = {r.id for r in rules.retrieve(nethack_situation(command(30, ["floating eye"])))}
    alone = {r.id for r in rules.retrieve(nethack_situation(command(30, [])))}
    assert "enemy:floating-eye" in near_eye - alone
    assert {"mechanic:stairs", "mechanic:prompts"} <= alone


def test_skills_fire_on_low_hp_and_on_a_floating_eye() -> None:
    hand = nethack_knowledge().skills["hand"]
    healthy = {s.id for s in hand.fired(nethack_situation(command(30, [])))}
    hurt = {s.id for s in hand.fired(nethack_situation(command(5, ["floating eye"])))}
    assert "low-hp" not in healthy and "floating-eye" not in healthy
    assert {"low-hp", "floating-eye", "descend-first"} <= hurt
    more = {s.id for s in hand.fired(nethack_situation(Observation(kind="more")))}
    assert more == {"continue-more"}
