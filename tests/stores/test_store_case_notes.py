"""L4: notes retrieved by category and key, never by text similarity."""

from bounded.stores.case_notes import CaseNote, CaseNoteBook, keys_for
from bounded.stores.situation import Situation


def note(id_, category, key, seq, text="t"):
    return CaseNote(id=id_, category=category, key=key, text=text, seq=seq)


BOOK = CaseNoteBook(
    summaries=[
        note("c1", "combat", "cultist", 1),
        note("c2", "combat", "cultist", 5),
        note("g1", "combat", "jaw grub", 2),
        note("b1", "boss", "slime king", 3),
        note("r1", "route", "act 1", 4),
        note("e1", "event", "the wishing well", 6),
        note("s1", "stream", "stream", 7),
    ]
)


def test_combat_keys_come_from_the_encounter_and_enemies():
    situation = Situation(kind="combat", encounter="Cultist", enemies=["Cultist"])
    assert keys_for(situation) == [("combat", "cultist")]
    group = Situation(kind="combat", enemies=["Jaw Grub", "Cultist"])
    assert keys_for(group) == [
        ("combat", "cultist, jaw grub"),
        ("combat", "cultist"),
        ("combat", "jaw grub"),
    ]


def test_combat_retrieval_is_by_enemy_newest_first():
    situation = Situation(kind="combat", enemies=["Cultist", "Jaw Grub"])
    assert [s.id for s in BOOK.retrieve(situation)] == ["c2", "c1", "g1"]


def test_boss_fights_use_the_boss_category():
    situation = Situation(kind="combat", room="boss", enemies=["Slime King"])
    assert [s.id for s in BOOK.retrieve(situation)] == ["b1"]


def test_similar_looking_but_differently_keyed_notes_are_not_retrieved():
    situation = Situation(kind="map", act=2)
    assert BOOK.retrieve(situation) == []
    assert [s.id for s in BOOK.retrieve(Situation(kind="map", act=1))] == ["r1"]


def test_events_are_keyed_by_name_and_other_games_by_kind():
    assert [s.id for s in BOOK.retrieve(Situation(kind="event", event="The Wishing Well"))] == [
        "e1"
    ]
    assert [s.id for s in BOOK.retrieve(Situation(kind="stream"))] == ["s1"]
    assert keys_for(Situation(kind="combat")) == [("combat", "combat")]


def test_next_seq_grows():
    assert BOOK.next_seq() == 8
    assert CaseNoteBook().next_seq() == 1
