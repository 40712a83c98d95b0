"""Snapshots: a directory's hash changes exactly when its content changes."""

import os

import pytest

from bounded.core import ConfigError
from bounded.stores.case_notes import CaseNote
from bounded.stores.directory import StoreSet, clear_store
from bounded.stores.gate import GateVerdict
from bounded.stores.skills import Skill
from bounded.stores.snapshot import (
    MANIFEST,
    describe,
    diff,
    directory_hash,
    freeze,
    freeze_to,
    manifest_hash,
    remove_snapshot,
    thaw,
    verify_snapshot,
)


def make_store(path, game="spire"):
    stores = StoreSet(game, path)
    stores.summaries.add(CaseNote(id="n1", category="combat", key="cultist", text="Block."))
    stores.save()
    return stores


def test_hash_is_stable_and_matches_memory(tmp_path):
    stores = make_store(tmp_path / "s")
    assert directory_hash(tmp_path / "s") == directory_hash(tmp_path / "s") == stores.hash()


def test_hash_changes_when_content_changes_and_not_otherwise(tmp_path):
    path = tmp_path / "s"
    stores = make_store(path)
    before = directory_hash(path)
    stores.save()  # same content rewritten: same hash
    stores.journal([GateVerdict(layer="L4", entry_id="x", accepted=False, reason="dup")])
    (path / ".hidden").write_text("editor file")
    os.utime(path / "summaries.json")
    assert directory_hash(path) == before
    stores.skills.put(Skill(id="new", title="t", text="Do it."))
    stores.save()
    assert directory_hash(path) != before


def test_any_byte_change_changes_the_hash(tmp_path):
    path = tmp_path / "s"
    make_store(path)
    before = directory_hash(path)
    data = (path / "summaries.json").read_text().replace("Block.", "Block!")
    (path / "summaries.json").write_text(data)
    assert directory_hash(path) != before


def test_same_content_in_two_places_hashes_alike(tmp_path):
    make_store(tmp_path / "a")
    make_store(tmp_path / "b")
    assert directory_hash(tmp_path / "a") == directory_hash(tmp_path / "b")


def test_freeze_copies_read_only_under_the_hash(tmp_path):
    path = tmp_path / "s"
    make_store(path)
    frozen = freeze(path, tmp_path / "snapshots")
    assert frozen.name == directory_hash(path)[:16]
    assert directory_hash(frozen) == directory_hash(path)
    assert not os.access(frozen / "summaries.json", os.W_OK) or os.geteuid() == 0
    assert not (frozen / "summaries.json").stat().st_mode & 0o222
    assert freeze(path, tmp_path / "snapshots") == frozen
    thawed = thaw(frozen, tmp_path / "work")
    assert directory_hash(thawed) == directory_hash(path)
    assert (thawed / "summaries.json").stat().st_mode & 0o200
    assert manifest_hash(frozen) == directory_hash(path) and manifest_hash(thawed) is None


def test_a_snapshot_carries_its_hash_and_refuses_drift(tmp_path):
    path = tmp_path / "s"
    make_store(path)
    stores = StoreSet("spire", path)
    stores.journal([GateVerdict(layer="L4", entry_id="x", accepted=False, reason="dup")])
    digest = freeze_to(path, tmp_path / "snap")
    snap = tmp_path / "snap"
    assert digest == directory_hash(path) == directory_hash(snap) == manifest_hash(snap)
    assert not (snap / "journal.jsonl").exists()  # not content: not frozen
    assert not (snap / MANIFEST).stat().st_mode & 0o222
    assert verify_snapshot(snap) == verify_snapshot(snap, digest) == digest
    with pytest.raises(ConfigError, match="already exists"):
        freeze_to(path, snap)
    with pytest.raises(ConfigError) as info:
        verify_snapshot(snap, "0" * 64)
    assert "0" * 64 in str(info.value) and digest in str(info.value)
    (snap / "skills.json").chmod(0o644)
    (snap / "skills.json").write_text('{"game": "spire", "skills": []}\n')
    with pytest.raises(ConfigError) as info:
        verify_snapshot(snap)
    message = str(info.value)
    assert digest in message and directory_hash(snap) in message and "\n" not in message


def test_only_a_snapshot_is_removed_as_one(tmp_path):
    path = tmp_path / "s"
    make_store(path)
    with pytest.raises(ConfigError, match="not a frozen snapshot"):
        remove_snapshot(path)
    assert path.is_dir()
    freeze_to(path, tmp_path / "snap")
    with pytest.raises(ConfigError, match="is a frozen snapshot: not clearing it"):
        clear_store(tmp_path / "snap")
    remove_snapshot(tmp_path / "snap")
    remove_snapshot(tmp_path / "snap")  # already gone: nothing to do
    assert not (tmp_path / "snap").exists()


def test_diff_lists_entries_added_removed_changed(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    make_store(a)
    other = make_store(b)
    other.summaries.summaries[0] = other.summaries.summaries[0].model_copy(update={"text": "Hit."})
    other.skills.put(Skill(id="s1", title="t", text="x"))
    other.save()
    result = diff(a, b)
    assert not result.same
    by_name = {f.name: f for f in result.files}
    assert by_name["summaries.json"].changed == ["n1"]
    assert by_name["skills.json"].added == ["s1"]
    assert "rules.json" not in by_name
    assert diff(a, a).same and diff(a, a).files == []
    assert "  ~ n1" in result.render() and "  + s1" in result.render()
    assert diff(a, a).render().endswith("no differences")


def test_describe_names_the_hash_and_entries(tmp_path):
    make_store(tmp_path / "s")
    text = describe(tmp_path / "s")
    assert directory_hash(tmp_path / "s") in text
    assert "summaries.json: 1 entries" in text and "  - n1" in text


def test_store_files_for_another_game_are_refused(tmp_path):
    make_store(tmp_path / "s", game="spire")
    with pytest.raises(ConfigError, match="for game 'spire'"):
        StoreSet("craft", tmp_path / "s")


def test_a_broken_store_file_is_refused_with_its_name(tmp_path):
    path = tmp_path / "s"
    make_store(path)
    (path / "skills.json").write_text("{not json")
    with pytest.raises(ConfigError, match=r"skills\.json"):
        StoreSet("spire", path)


def test_missing_directory_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        directory_hash(tmp_path / "nowhere")
