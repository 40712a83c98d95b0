"""Every environment has a named inspect task with its options as task parameters; the
BALROG environments' tasks play through inspect's API with its mock model, and
`inspect eval` of MiniHack's task runs against a real llama.cpp server."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model

import bounded.inspect_tasks
import bounded.inspect_tasks.tasks
from bounded.envs import ENV_IDS
from bounded.inspect_tasks import bounded_task, crafter, minihack

TASKS_FILE = Path(bounded.inspect_tasks.tasks.__file__)


def replies(action_id):
    reply = f'{{"state_patch": {{}}, "action": {{"id": "{action_id}"}}}}'
    while True:
        output = ModelOutput.from_content("mockllm/model", reply)
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        yield output


def test_every_environment_has_a_named_task():
    assert set(ENV_IDS) <= set(bounded.inspect_tasks.__all__)


def test_a_generic_task_takes_environment_options_as_keywords():
    task = bounded_task("nethack", max_steps=10)
    [sample] = list(task.dataset)
    assert sample.metadata["env_options"] == {"max_steps": 10}


@pytest.mark.parametrize(
    ("make_task", "action"),
    [(lambda: crafter(max_steps=3, contract="state"), "Do"),
     (lambda: minihack(task="mazewalk-9x9", max_steps=3, contract="state"), "north")],
)  # fmt: skip
def test_a_balrog_environments_task_plays_through_inspect(tmp_path, make_task, action):
    model = get_model("mockllm/model", custom_outputs=replies(action))
    [log] = inspect_eval(make_task(), model=model, log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    [sample] = log.samples
    assert sample.metadata["status"] == "completed" and sample.metadata["decisions"] <= 3
    assert 0.0 <= sample.scores["outcome_scorer"].value["progress"] <= 1.0


@pytest.mark.model
def test_inspect_eval_of_minihack_against_a_real_llama_server(tmp_path, llama_server):
    inspect_cli = shutil.which("inspect", path=str(Path(sys.executable).parent)) or "inspect"
    command = [
        inspect_cli, "eval", f"{TASKS_FILE}@minihack", "--model", "llama-cpp-python/smollm2",
        "--model-base-url", llama_server, "-T", "level=mazewalk-9x9", "-T", "max_steps=2",
        "-T", "contract=state", "-T", "schema=json_object",
        "--log-dir", str(tmp_path / "logs"), "--display", "plain",
    ]  # fmt: skip
    env = {**os.environ, "INSPECT_LOG_LEVEL": "warning"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    [info] = list_eval_logs(str(tmp_path / "logs"))
    log = read_eval_log(info)
    assert log.status == "success"
    [sample] = log.samples
    assert sample.metadata["status"] == "completed" and sample.metadata["decisions"] == 2
    assert sample.metadata["prompt_tokens"] > 100
