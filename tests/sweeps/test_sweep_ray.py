"""The Ray executor on a local instance: workers return games, the driver writes them."""

import json
import textwrap

from bounded.archive import Archive
from bounded.sweeps.executors import RayExecutor
from bounded.sweeps.experiment import load_experiment
from bounded.sweeps.sweep import duplicate_games, run_sweep

REPLY = {"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}


def test_a_small_sweep_runs_through_a_local_ray_instance(tmp_path):
    import ray

    (tmp_path / "replies.jsonl").write_text(json.dumps(REPLY) + "\n")
    path = tmp_path / "exp.toml"
    path.write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "ray-sweep"
            archive = "{tmp_path / "a.sqlite"}"
            [defaults]
            env = "warehouse"
            model = "scripted:replies.jsonl"
            seeds = [4, 5]
            env_options = {{ horizon = 5 }}
            [[cells]]
            tag = "state"
            contract = "state"
            [[cells]]
            tag = "transcript"
            contract = "transcript"
            """
        )
    )
    experiment = load_experiment(path)
    summary = run_sweep(experiment, executor=RayExecutor(workers=2))
    assert not ray.is_initialized()  # the executor shut down the instance it started
    assert (summary.played, summary.failed) == (4, [])
    with Archive(experiment.archive) as archive:
        runs = archive.runs(experiment="ray-sweep")
        assert sorted((r.tag, r.seed) for r in runs) == [
            ("state", 4),
            ("state", 5),
            ("transcript", 4),
            ("transcript", 5),
        ]
        assert all(r.status == "completed" and r.decisions == 5 for r in runs)
        decisions = archive.decisions(runs[0].run_id)
        assert [d.index for d in decisions] == list(range(5))
        assert decisions[0].segments and decisions[0].completion is not None
        assert duplicate_games(archive, "ray-sweep") == {}
    resumed = run_sweep(experiment, executor="local")
    assert (resumed.skipped, resumed.played) == (4, 0)
