"""A store set starts each layer from the seed it is given (copied), or empty."""

from __future__ import annotations

import pytest

from bounded.core import ConfigError
from bounded.stores.directory import StoreSet, clear_store, has_content
from bounded.stores.gate import GateVerdict
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


def test_clear_store_empties_a_store_and_refuses_anything_else(tmp_path):
    rules, skills = seeds()
    stores = StoreSet("docks", tmp_path / "s", rules=rules, skills=skills)
    stores.save()
    stores.journal([GateVerdict(layer="L4", entry_id="x", accepted=True, reason="new")])
    (tmp_path / "s" / ".editor").write_text("hidden: not the stores'")
    assert has_content(tmp_path / "s")
    clear_store(tmp_path / "s")
    assert not has_content(tmp_path / "s")
    assert [p.name for p in (tmp_path / "s").iterdir()] == [".editor"]
    clear_store(tmp_path / "nowhere")  # nothing to clear
    (tmp_path / "s" / "notes.txt").write_text("mine")
    with pytest.raises(ConfigError, match=r"holds other files \(notes\.txt\)"):
        clear_store(tmp_path / "s")
    assert (tmp_path / "s" / "notes.txt").exists()
