"""bounded inside inspect_ai: a task per environment, a contract as the solver, the outcome
as the scorer. The loop is checked through inspect's Python API and its mock model; the
command `inspect eval` runs offline against a real llama.cpp server on 127.0.0.1 serving
the embedded model, and its log is read back with inspect's own reader."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import bounded.inspect_tasks.tasks
from bounded.core import ConfigError
from bounded.inspect_tasks import bounded_task, warehouse
from bounded.inspect_tasks.tasks import seed_list

TASKS_FILE = Path(bounded.inspect_tasks.tasks.__file__)
REPLY = (
    '{"reasoning": "", "state_patch": {}, "action": {"id": "report", '
    '"args": {"occupied": 1, "shipped": 0}}}'
)


def fixed_replies():
    while True:
        output = ModelOutput.from_content("mockllm/model", REPLY)
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        yield output


def model_events(sample):
    return [event for event in sample.events if event.event == "model"]


def test_each_decision_goes_through_inspects_model_api(tmp_path):
    model = get_model("mockllm/model", custom_outputs=fixed_replies())
    [log] = inspect_eval(
        warehouse(horizon=3, seeds=[1, 2]), model=model, log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success"
    assert [sample.id for sample in log.samples] == ["seed-1", "seed-2"]
    for sample in log.samples:
        assert len(model_events(sample)) == 3  # one call per decision, in the transcript
        meta = sample.metadata
        assert (meta["status"], meta["decisions"], meta["model_calls"]) == ("completed", 3, 3)
        assert meta["prompt_tokens"] == 30  # the provider's usage, not an estimate
        assert set(meta["tokens_by_layer"]) == {"spec", "state", "observation"}
        score = sample.scores["outcome_scorer"]
        assert score.value["score"] == pytest.approx(meta["outcome"]["accuracy"])
        assert score.value["progress"] == 1.0 and score.value["victory"] == 0.0
        assert score.metadata["tokens_by_layer"] == meta["tokens_by_layer"]
    metrics = {score.name: score.metrics["mean"].value for score in log.results.scores}
    mean_score = sum(s.metadata["outcome"]["accuracy"] for s in log.samples) / 2
    assert metrics == {"victory": 0.0, "score": pytest.approx(mean_score), "progress": 1.0}


def test_samples_are_seeds_times_options():
    task = bounded_task("warehouse", seeds=2, env_options={"horizon": 4},
                        variants=[{"shelves": 4}, {"shelves": 12}])  # fmt: skip
    samples = list(task.dataset)
    assert [s.id for s in samples] == ["0-1", "0-2", "1-1", "1-2"]
    assert samples[3].metadata["env_options"] == {"horizon": 4, "shelves": 12}
    assert samples[3].metadata["env_id"] == "bounded/Warehouse-v0"
    assert seed_list("3,5") == [3, 5]
    with pytest.raises(ConfigError, match="seeds"):
        seed_list([])
    with pytest.raises(ConfigError, match="unknown environment"):
        bounded_task("nowhere")


@pytest.mark.model
def test_inspect_eval_against_a_real_llama_server(tmp_path, llama_server):
    inspect_cli = shutil.which("inspect", path=str(Path(sys.executable).parent)) or "inspect"
    command = [
        inspect_cli, "eval", f"{TASKS_FILE}@warehouse", "--model", "llama-cpp-python/smollm2",
        "--model-base-url", llama_server, "-T", "horizon=3", "-T", "seeds=[1,2]",
        "-T", "schema=json_object", "-T", f"archive={tmp_path / 'runs.sqlite'}",
        "--log-dir", str(tmp_path / "logs"), "--display", "plain", "--max-samples", "1",
    ]  # fmt: skip
    env = {**os.environ, "INSPECT_LOG_LEVEL": "warning"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [info] = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info)
    assert log.status == "success"
    assert log.eval.model == "llama-cpp-python/smollm2"
    names = {score.name for score in log.results.scores}
    assert names == {"victory", "score", "progress"}
    assert len(log.samples) == 2
    for sample in log.samples:
        assert sample.metadata["status"] == "completed"
        assert sample.metadata["decisions"] == 3 and len(model_events(sample)) == 3
        assert sample.metadata["prompt_tokens"] > 300  # usage the server reported
        assert 0.0 <= sample.scores["outcome_scorer"].value["score"] <= 1.0
    from bounded.archive import Archive

    with Archive(tmp_path / "runs.sqlite", read_only=True) as archive:
        runs = archive.runs()
    assert sorted(run.seed for run in runs) == [1, 2]
    assert {run.model for run in runs} == {"inspect:llama-cpp-python/smollm2"}


def test_the_declared_entry_point_names_the_tasks_bounded_slash_env(tmp_path):
    """What `pip install bounded[inspect]` declares (pyproject's `inspect_ai` entry point)
    lets inspect find `bounded/warehouse` by name, as `inspect eval bounded/warehouse`."""
    import tomllib

    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    target = pyproject["project"]["entry-points"]["inspect_ai"]["bounded"]
    dist = tmp_path / "bounded_declared-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: bounded-declared\nVersion: 0\n")
    (dist / "entry_points.txt").write_text(f"[inspect_ai]\nbounded = {target}\n")
    code = (
        "from inspect_ai._eval.loader import load_tasks\n"
        "[task] = load_tasks(['bounded/spire'], task_args={'seeds': [4, 5]})\n"
        "print(task.name, [s.metadata['seed'] for s in task.dataset])\n"
    )
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": path}, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "bounded/spire [4, 5]"
