"""L5 triggers: a conjunction of conditions over the situation; unknown facts never fire."""

import pytest
from pydantic import ValidationError

from bounded.stores.situation import Situation
from bounded.stores.skills import Skill, SkillLibrary, Trigger


def fight(**facts) -> Situation:
    base = {
        "kind": "combat",
        "act": 1,
        "hp": 30,
        "max_hp": 60,
        "room": "elite",
        "enemies": ["Cultist", "Jaw Grub"],
        "enemy_powers": ["Ritual"],
        "deck": ["Strike", "Strike", "Defend", "Quick Slash+"],
        "relics": ["Lucky Coin"],
    }
    return Situation(**(base | facts))


def test_an_empty_trigger_always_fires():
    assert Trigger().matches(fight())
    assert Trigger().matches(Situation(kind="stream"))


@pytest.mark.parametrize(
    ("trigger", "expected"),
    [
        (Trigger(kinds=["combat"]), True),
        (Trigger(kinds=["map", "shop"]), False),
        (Trigger(enemies=["cultist"]), True),
        (Trigger(enemies=["Slime Boss"]), False),
        (Trigger(rooms=["elite"]), True),
        (Trigger(rooms=["boss"]), False),
        (Trigger(act_min=1, act_max=1), True),
        (Trigger(act_min=2), False),
        (Trigger(hp_max=0.5), True),
        (Trigger(hp_max=0.49), False),
        (Trigger(hp_min=0.6), False),
        (Trigger(deck_min=4, deck_max=4), True),
        (Trigger(deck_min=5), False),
        (Trigger(cards=["Quick Slash", "Defend"]), True),
        (Trigger(cards=["Quick Slash", "Backspring"]), False),
        (Trigger(relics=["lucky coin"]), True),
        (Trigger(relics=["Lucky Coin", "Anchor"]), False),
        (Trigger(enemy_powers=["Ritual"]), True),
        (Trigger(enemy_powers=["Strength"]), False),
        (Trigger(kinds=["combat"], enemies=["Cultist"], hp_max=0.5, cards=["Strike"]), True),
        (Trigger(kinds=["combat"], enemies=["Cultist"], hp_max=0.2), False),
    ],
)
def test_trigger_conditions(trigger, expected):
    assert trigger.matches(fight()) is expected


def test_conditions_on_missing_facts_do_not_fire():
    bare = Situation(kind="combat")
    assert not Trigger(hp_max=1.0).matches(bare)
    assert not Trigger(act_min=0).matches(bare)
    assert not Trigger(deck_max=100).matches(bare)
    assert Trigger(kinds=["combat"]).matches(bare)


def test_fired_skills_come_by_priority_and_skip_unfilled_templates():
    library = SkillLibrary(
        skills=[
            Skill(id="low", title="low", text="a", priority=10),
            Skill(id="high", title="high", text="b", priority=90),
            Skill(id="mid-b", title="mid", text="c", priority=50),
            Skill(id="mid-a", title="mid", text="d", priority=50),
            Skill(id="template", title="t", scaffold="what?", priority=99),
            Skill(id="elsewhere", title="e", text="e", trigger=Trigger(kinds=["map"])),
        ]
    )
    assert [s.id for s in library.fired(fight())] == ["high", "mid-a", "mid-b", "low"]
    assert library.matching(fight())[0].id == "template"


def test_a_skill_needs_prose_or_a_scaffold():
    with pytest.raises(ValidationError):
        Skill(id="empty", title="nothing")
    with pytest.raises(ValidationError):
        Skill(id="Bad Id", title="x", text="y")


def test_put_replaces_by_id():
    library = SkillLibrary(skills=[Skill(id="a", title="a", text="old")])
    library.put(Skill(id="a", title="a", text="new", version=2))
    assert [(s.id, s.text, s.version) for s in library.skills] == [("a", "new", 2)]
