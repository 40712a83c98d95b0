"""The write gate: refuses same ids, empty, repetitive and near-identical texts, and says why."""

from bounded.envs.spire.knowledge import shipped_skills
from bounded.stores.gate import WriteGate, compression_ratio, most_repeated_sentence, similarity

STORED = [("block-early", "Against the Cultist, block early and kill it before Ritual stacks.")]


def test_a_new_distinct_entry_is_accepted():
    verdict = WriteGate().check("L5", "poison", "Stack Poison on big enemies.", STORED)
    assert verdict.accepted and verdict.reason == "new"


def test_a_text_that_repeats_one_sentence_is_refused():
    loop = "The game ended on floor 4. " + "The outcome was a decision made by the player. " * 3
    verdict = WriteGate().check("L4", "event-sands", loop, STORED)
    assert not verdict.accepted and verdict.reason == "repetitive (one sentence 3 times)"
    twice = "Block early. Then attack. Block early!"
    assert WriteGate().check("L4", "twice", twice, STORED).accepted
    assert most_repeated_sentence(twice) == 2 and most_repeated_sentence("") == 0


def test_a_loop_with_a_counter_is_refused_and_written_advice_is_not():
    loop = "".join(f"The 100 most powerful skills are: {n}. " for n in range(1, 9))
    verdict = WriteGate().check("L5", "learned-skills", loop, STORED)
    assert not verdict.accepted and verdict.reason.startswith("repetitive (compresses")
    hand = [skill.text for skill in shipped_skills("hand").skills]
    assert len(hand) > 30 and max(map(compression_ratio, hand)) < 2
    assert all(WriteGate().check("L5", "new", text, STORED).accepted for text in hand)
    assert compression_ratio("") == 0.0


def test_a_taken_id_is_refused():
    verdict = WriteGate().check("L5", "block-early", "Something else entirely.", STORED)
    assert not verdict.accepted
    assert verdict.reason == "id already exists" and verdict.duplicate_of == "block-early"


def test_near_identical_text_is_refused_under_a_new_id():
    text = "Against the cultist, block early and kill it before ritual stacks!"
    verdict = WriteGate().check("L4", "other", text, STORED, run_id="r1")
    assert not verdict.accepted
    assert verdict.duplicate_of == "block-early" and verdict.similarity >= 0.9
    assert verdict.run_id == "r1" and "near-identical" in verdict.reason


def test_a_revision_may_reuse_its_id_but_must_change_the_text():
    gate = WriteGate()
    same = gate.check("L5", "block-early", STORED[0][1], STORED, revises="block-early")
    assert not same.accepted
    changed = gate.check(
        "L5", "block-early", "Kill the Cultist in three turns.", STORED, revises="block-early"
    )
    assert changed.accepted and changed.reason == "revises block-early"


def test_empty_and_too_short_texts_are_refused():
    assert WriteGate().check("L4", "x", "   ", []).reason == "empty text"
    short = WriteGate().check("L5", "x", "Skills already stored", [])
    assert not short.accepted and short.reason.startswith("too short")
    assert WriteGate(min_words=3).check("L5", "x", "Skills already stored", []).accepted


def test_threshold_is_configurable():
    text = "Against the Cultist, block early."
    assert WriteGate(threshold=0.3).check("L4", "y", text, STORED).accepted is False
    assert WriteGate(threshold=0.99).check("L4", "y", text, STORED).accepted is True


def test_similarity_ignores_case_and_spacing():
    assert similarity("Block  EARLY", "block early") == 1.0
    assert similarity("abc", "xyz") == 0.0
