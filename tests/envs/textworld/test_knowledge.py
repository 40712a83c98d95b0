"""TextWorld's knowledge for the typed contract: task rules retrieved by the task."""

from __future__ import annotations

from bounded.core import Observation
from bounded.envs.textworld.knowledge import textworld_knowledge, textworld_situation


def play(task: str) -> Observation:
    return Observation(kind="play", state={"task": task, "room": "Kitchen"})


def test_rules_follow_the_task_and_the_mechanics_are_always_shown() -> None:
    rules = textworld_knowledge().rules
    cooking = {r.id for r in rules.retrieve(textworld_situation(play("the_cooking_game")))}
    coins = {r.id for r in rules.retrieve(textworld_situation(play("coin_collector")))}
    assert "task:cooking" in cooking - coins and "task:coin" in coins - cooking
    assert {"mechanic:commands", "mechanic:doors"} <= cooking & coins


def test_situation_reads_the_room_and_skills_fire() -> None:
    knowledge = textworld_knowledge()
    situation = textworld_situation(play("treasure_hunter"))
    assert situation.room == "Kitchen" and situation.encounter == "treasure hunter"
    assert {s.id for s in knowledge.skills["hand"].fired(situation)} >= {"map-the-maze"}
    assert all(not s.filled for s in knowledge.skills["templates"].skills)
