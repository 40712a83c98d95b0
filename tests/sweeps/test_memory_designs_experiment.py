"""The shipped `experiments/memory_designs.toml` (all eight contracts on the warehouse and
spire Act 1), made small and played with the scripted schema-filling model: its phases
learn and freeze, and every cell's game completes."""

from pathlib import Path

from bounded.archive import Archive
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import run_sweep

SHIPPED = Path(__file__).parents[2] / "experiments" / "memory_designs.toml"
CONTRACTS = {"typed", "state", "transcript", "summary", "episodic", "rag", "paged"}


def small(tmp_path: Path) -> Path:
    text = SHIPPED.read_text()
    text = text.replace(
        'archive = "runs/memory-designs.sqlite"', f'archive = "{tmp_path}/m.sqlite"'
    )
    text = text.replace('model = "local"', 'model = "scripted:minimal"')
    text = text.replace("games = 3", "games = 1\nmax_decisions = 6")
    path = tmp_path / "memory_designs.toml"
    path.write_text(text)
    return path


def test_the_shipped_file_plans_two_phases_and_sixteen_cells():
    experiment = load_experiment(SHIPPED)
    plan = experiment.stages()
    assert [phase.name for phase in plan.phases] == [
        "learn-reflexion-warehouse", "learn-reflexion-spire"
    ]  # fmt: skip
    contracts = {spec.contract for spec in plan.cells}
    assert contracts == CONTRACTS | {"reflexion-frozen"}
    assert len(plan.cells) == 16 * 3 and not experiment.problems()


def test_the_shipped_file_made_small_plays_every_game(tmp_path, monkeypatch):
    monkeypatch.setenv("BOUNDED_BANK_DIR", str(tmp_path / "banks"))
    experiment = load_experiment(small(tmp_path))
    summary = run_sweep(experiment)
    assert summary.failed == [] and summary.played == 18
    assert set(summary.frozen) == {"learn-reflexion-warehouse", "learn-reflexion-spire"}
    with Archive(experiment.archive) as archive:
        runs = archive.runs()
    assert {run.status for run in runs} == {"completed"}
    frozen = [run for run in runs if run.tag.endswith("reflexion-frozen")]
    assert all(run.store_hashes["dir"] for run in frozen) and len(frozen) == 2
