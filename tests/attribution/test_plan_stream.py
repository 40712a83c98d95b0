"""An attribution without `--sample` plans a stream: planning reads no decision, the plan
is walked a chunk of decisions at a time, and what it holds does not grow with the
archive's decisions."""

import tracemalloc

import pytest

from bounded.archive import Archive
from bounded.archive.counterfactuals import iter_counterfactuals
from bounded.attribution import (
    CONTROL,
    AttributionSpec,
    attribute,
    attribution_table,
    counterfactuals,
    plan_attribution,
)

from .conftest import HORIZON, layered_model, play_warehouse


@pytest.fixture
def two_games(tmp_path):
    path = tmp_path / "two.sqlite"
    with Archive(path) as archive:
        runs = [play_warehouse(archive, seed=seed) for seed in (3, 4)]
    return path, [run.run_id for run in runs]


class CountingReads:
    """Wraps `Archive.iter_decisions`: the runs read, and the decisions handed out."""

    def __init__(self, archive: Archive) -> None:
        self.read = archive.iter_decisions
        self.runs: list[str] = []
        self.decisions = 0

    def __call__(self, run_id, **options):
        self.runs.append(run_id)
        for record in self.read(run_id, **options):
            self.decisions += 1
            yield record


def test_planning_without_a_sample_reads_no_decision_and_the_tasks_come_lazily(
    two_games, monkeypatch
):
    path, run_ids = two_games
    with Archive(path) as archive:
        reads = CountingReads(archive)
        monkeypatch.setattr(archive, "iter_decisions", reads)
        plan = plan_attribution(archive, AttributionSpec(layers=["spec"]))
        assert plan.sampled is None and reads.decisions == 0
        tasks = plan.tasks()
        first = next(tasks)
        assert first.run.run_id == run_ids[0] and first.record.index == 0
        assert reads.runs == [run_ids[0]] and reads.decisions < HORIZON  # one chunk, not all
        assert len(list(tasks)) == 2 * HORIZON - 1
        size = plan.size()
    assert (size.decisions, size.calls, size.pending) == (2 * HORIZON, 2 * HORIZON, 2 * HORIZON)
    assert size.run_ids == set(run_ids)


def test_attribute_walks_the_plan_a_run_at_a_time(two_games, monkeypatch):
    path, run_ids = two_games
    with Archive(path) as archive:
        plan = plan_attribution(archive, AttributionSpec(layers=["spec"]))
        reads = CountingReads(archive)
        monkeypatch.setattr(archive, "iter_decisions", reads)
        model = layered_model()
        assert attribute(archive, plan, model=model, max_calls=HORIZON + 2) == HORIZON + 2
        rows = counterfactuals(archive)
        assert plan.estimate()[0] == HORIZON - 2  # what is left, read back from the archive
    assert [row.run_id for row in rows].count(run_ids[1]) == 2
    # the first run's calls were made before the second run's decisions were read
    assert reads.runs.index(run_ids[1]) > reads.runs.index(run_ids[0])


def test_the_table_counted_from_a_stream_of_rows_equals_the_table_of_their_list(
    warehouse_archive, monkeypatch
):
    import bounded.archive.queries

    monkeypatch.setattr(bounded.archive.queries, "ROWS_PER_PAGE", 2)
    path, _ = warehouse_archive
    with Archive(path) as archive:
        spec = AttributionSpec(layers=["spec", CONTROL])
        attribute(archive, plan_attribution(archive, spec), model=layered_model())
        listed = counterfactuals(archive)
        streamed = attribution_table(iter_counterfactuals(archive))
    assert len(listed) == 2 * HORIZON
    assert streamed == attribution_table(listed)
    spec_row = next(row for row in streamed if row.layer == "spec" and row.kind == "all")
    assert (spec_row.decisions, spec_row.changed, spec_row.original_only) == (HORIZON,) * 3


def planned_peak(path) -> int:
    """Peak bytes allocated while a plan without a sample is made and counted."""
    with Archive(path, read_only=True) as archive:
        tracemalloc.start()
        try:
            plan = plan_attribution(archive, AttributionSpec(layers=["spec", "state"]))
            size = plan.size()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert size.calls == 2 * size.decisions
    return peak


def test_a_plan_holds_no_more_for_more_games(tmp_path, monkeypatch):
    import bounded.archive.queries

    # runs are read a page at a time: a page smaller than the games, as at scale
    monkeypatch.setattr(bounded.archive.queries, "ROWS_PER_PAGE", 2)
    small, large = tmp_path / "small.sqlite", tmp_path / "large.sqlite"
    for path, games in ((small, 2), (large, 16)):
        with Archive(path) as archive:
            for seed in range(games):
                play_warehouse(archive, seed=seed)
    planned_peak(small)  # the first plan imports and caches what every plan uses
    assert planned_peak(large) < 1.3 * planned_peak(small)
