"""Prompts stored as integer ids, each a change to the one before it in its game."""

import sqlite3

import pytest

from bounded.archive import Archive
from bounded.archive.prompts import MAX_CHAIN, decode, encode
from bounded.core import DecisionRecord, RunRecord, Segment

SYSTEM = Segment(layer="spec", role="system", text="the rules, the same at every decision")


def transcript(index: int) -> list[Segment]:
    """A transcript prompt: the rules, then every observation and reply so far."""
    history = []
    for i in range(index + 1):
        history.append(Segment(layer="observation", role="user", text=f"observation {i}"))
        if i < index:
            history.append(Segment(layer="history", role="assistant", text=f"reply {i}"))
    return [SYSTEM, *history]


def windowed(index: int) -> list[Segment]:
    """A state contract's prompt: the rules, the state and the latest observation."""
    return [
        SYSTEM,
        Segment(layer="state", role="user", text=f"state after {index}"),
        Segment(layer="observation", role="user", text=f"observation {index}"),
    ]


def record(run_id: str, index: int, segments: list[Segment]) -> DecisionRecord:
    return DecisionRecord(
        run_id=run_id,
        index=index,
        t=index,
        kind="stream",
        segments=segments,
        tokens_by_layer={},
        prompt_tokens=1,
        completion=None,
        actions=[],
    )


def play(archive: Archive, run_id: str, n: int, prompt=transcript) -> None:
    archive.save_run(RunRecord(run_id=run_id, env_id="e", contract="c", model="m", seed=1))
    for index in range(n):
        archive.add_decision(record(run_id, index, prompt(index)))


def prompt_bytes(path, run_id: str) -> list[int]:
    db = sqlite3.connect(path)
    try:
        query = (
            "SELECT length(d.prompt) FROM decisions d JOIN runs r ON r.id = d.run "
            "WHERE r.run_id = ? ORDER BY d.idx"
        )
        return [row[0] for row in db.execute(query, (run_id,))]
    finally:
        db.close()


def test_encoding_round_trips():
    assert decode(encode(3, [(1, 2), (4, 2**40)])) == (3, [(1, 2), (4, 2**40)])
    assert decode(None) == (0, [])


def test_a_prompt_takes_the_narrowest_integers_that_hold_its_ids():
    assert len(encode(0, [(1, 2)])) == 1 + 3 * 2
    assert len(encode(0, [(1, 2**16)])) == 1 + 3 * 4
    assert len(encode(0, [(1, 2**32)])) == 1 + 3 * 8
    assert decode(encode(0, [(1, 2**16)])) == (0, [(1, 2**16)])


@pytest.mark.parametrize("prompt", [transcript, windowed])
def test_every_prompt_reads_back_whole_and_in_any_range(tmp_path, prompt):
    with Archive(tmp_path / "a.sqlite") as archive:
        play(archive, "r", 40, prompt)
        assert [d.segments for d in archive.decisions("r")] == [prompt(i) for i in range(40)]
        middle = archive.decisions("r", start=23, end=26)
        assert [d.segments for d in middle] == [prompt(i) for i in (23, 24, 25)]


def test_a_transcript_game_stores_per_decision_what_is_new(tmp_path):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        play(archive, "short", 100)
        play(archive, "long", 1000)
    short, long = prompt_bytes(path, "short"), prompt_bytes(path, "long")
    per_decision = sum(long) / 1000
    assert per_decision <= 1.5 * sum(short) / 100
    assert per_decision < 16 * 2 * 20  # far below the 2,000 ids the last prompt holds
    with Archive(path, read_only=True) as archive:
        [last] = archive.decisions("long", start=999)
    assert last.segments == transcript(999)


def test_a_chain_of_changes_is_cut_every_max_chain_decisions(tmp_path):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        play(archive, "r", 3 * MAX_CHAIN)
    db = sqlite3.connect(path)
    bases = [row[0] for row in db.execute("SELECT idx - prompt_base FROM decisions")]
    db.close()
    assert max(bases) <= MAX_CHAIN


def test_a_rewritten_decision_leaves_its_successors_as_they_were(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        play(archive, "r", 10)
        other = [Segment(layer="observation", role="user", text="written again")]
        archive.add_decision(record("r", 4, other))
        stored = [d.segments for d in archive.decisions("r")]
    assert stored == [*map(transcript, range(4)), other, *map(transcript, range(5, 10))]


def test_a_rolled_back_decision_is_not_built_on(tmp_path):
    with Archive(tmp_path / "a.sqlite") as archive:
        play(archive, "r", 3)
        with pytest.raises(RuntimeError), archive.transaction() as db:
            archive.write_decision(db, record("r", 3, transcript(3)))
            raise RuntimeError("killed before the commit")
        archive.add_decision(record("r", 3, transcript(3)))
        archive.add_decision(record("r", 4, transcript(4)))
        assert [d.segments for d in archive.decisions("r")] == [transcript(i) for i in range(5)]
    with Archive(tmp_path / "a.sqlite") as reopened:  # a new writer: the next one is a key
        reopened.add_decision(record("r", 5, transcript(5)))
        assert [d.segments for d in reopened.decisions("r")] == [transcript(i) for i in range(6)]


def test_texts_are_stored_once_with_integer_ids_and_their_hash(tmp_path):
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        play(archive, "r", 5, windowed)
        play(archive, "s", 5, windowed)
    db = sqlite3.connect(path)
    rows = db.execute("SELECT id, hash FROM texts").fetchall()
    db.close()
    assert len(rows) == 1 + 5 + 5  # the rules once, each state and observation once
    assert all(isinstance(i, int) and len(h) == 64 for i, h in rows)
