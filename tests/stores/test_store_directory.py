"""A store set starts each layer from the seed it is given (copied), or empty."""

from __future__ import annotations

from bounded.stores.directory import StoreSet
from bounded.stores.rules import Rule, RulesBook
from bounded.stores.skills import Skill, SkillLibrary


def seeds() -> tuple[RulesBook, SkillLibrary]:
    rules = RulesBook(
        game="docks", version="2", rules=[Rule(id="r", category="room", name="dock", text="x")]
    )
    skills = SkillLibrary(game="docks", skills=[Skill(id="s", title="t", text="Ship early.")])
    return rules, skills


def test_without_seeds_every_layer_starts_empty():
    stores = StoreSet("docks")
    assert stores.rules == RulesBook(game="docks")
    assert stores.skills == SkillLibrary(game="docks")
    assert stores.summaries.summaries == []


def test_seeds_are_copied_under_the_stores_game():
    rules, skills = seeds()
    stores = StoreSet("harbour", rules=rules, skills=skills)
    assert stores.rules.game == stores.skills.game == "harbour"
    assert stores.rules.version == "2" and [r.id for r in stores.rules.rules] == ["r"]
    stores.skills.put(Skill(id="t", title="t", text="Hold late."))
    assert [s.id for s in skills.skills] == ["s"] and rules.game == "docks"


def test_files_in_the_directory_win_over_the_seeds(tmp_path):
    rules, skills = seeds()
    first = StoreSet("docks", tmp_path, rules=rules)
    first.skills.put(Skill(id="own", title="Own", text="Written by a run."))
    first.save()
    again = StoreSet("docks", tmp_path, rules=RulesBook(), skills=skills)
    assert [r.id for r in again.rules.rules] == ["r"]
    assert [s.id for s in again.skills.skills] == ["own"]
    assert again.hash() == first.hash()
