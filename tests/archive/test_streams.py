"""Every run and every decision of an archive read in one ordered pass."""

import sqlite3

import pytest

from bounded.archive import Archive
from bounded.archive.prompts import BrokenPrompt
from bounded.archive.queries import stream_runs
from bounded.archive.streams import PromptTexts, every_decision
from bounded.core import Segment

from .test_prompts import play, windowed

NEW_LABEL = Segment(layer="a layer of its own", role="user", text="new")


@pytest.fixture
def archive_path(tmp_path):
    """Three games saved out of their `Archive.runs` order (run ids and start times), two
    transcripts (prompts that change the one before) and a windowed one."""
    path = tmp_path / "a.sqlite"
    with Archive(path) as archive:
        play(archive, "b" * 64, 7)
        play(archive, "a" * 64, 5, prompt=windowed)
        play(archive, "c" * 64, 3)
        for run_id, started in (("b" * 64, 2.0), ("a" * 64, 2.0), ("c" * 64, 1.0)):
            run = archive.run(run_id)
            assert run is not None
            archive.save_run(run.model_copy(update={"started_at": started}))
    return path


def test_the_runs_stream_in_the_archive_order(archive_path):
    with Archive(archive_path, read_only=True) as archive:
        assert list(stream_runs(archive)) == archive.runs()
        assert [r.run_id[0] for r in stream_runs(archive)] == ["c", "a", "b"]


def test_every_decision_in_run_order_with_the_prompts_the_archive_reads(archive_path):
    with Archive(archive_path, read_only=True) as archive:
        texts = PromptTexts(archive)
        expected = [d for run in archive.runs() for d in archive.decisions(run.run_id)]
        got = list(every_decision(archive))
        assert [(s.record.run_id, s.record.index) for s in got] == [
            (d.run_id, d.index) for d in expected
        ]
        for stored, decision in zip(got, expected, strict=True):
            assert stored.record == decision.model_copy(update={"segments": []})
            named = texts.texts({text for _, text in stored.prompt})
            segments = [(*texts.label(label), named[text]) for label, text in stored.prompt]
            assert segments == [(s.layer, s.role, s.text) for s in decision.segments]


def test_without_prompts_no_prompt_is_decoded(archive_path):
    with Archive(archive_path, read_only=True) as archive:
        assert {len(s.prompt) for s in every_decision(archive, prompts=False)} == {0}


def test_a_prompt_built_on_a_missing_decision_is_a_broken_prompt(archive_path):
    db = sqlite3.connect(archive_path)
    with db:  # decision 3 of the 7-decision transcript builds on decision 2
        db.execute(
            "DELETE FROM decisions WHERE idx = 2 AND run = (SELECT id FROM runs WHERE run_id = ?)",
            ("b" * 64,),
        )
    db.close()
    with Archive(archive_path, read_only=True) as archive:
        with pytest.raises(BrokenPrompt, match="decision 3 of run bbbbbbbbbbbb builds on"):
            list(every_decision(archive))
        assert len(list(every_decision(archive, prompts=False))) == 14


def test_a_text_no_row_holds_is_a_broken_prompt(archive_path):
    with (
        Archive(archive_path, read_only=True) as archive,
        pytest.raises(BrokenPrompt, match="names text 999999, which is not stored"),
    ):
        PromptTexts(archive).texts({1, 999999})


def test_a_label_written_after_the_first_read_is_found(archive_path):
    with Archive(archive_path) as archive:
        texts = PromptTexts(archive)
        assert texts.label(1)
        play(archive, "d" * 64, 1, prompt=lambda _: [NEW_LABEL])
        newest = max(label for s in every_decision(archive) for label, _ in s.prompt)
        assert texts.label(newest) == ("a layer of its own", "user")
