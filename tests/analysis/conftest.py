import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode

CONSTANT = '{"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'


def honest_reply(messages, constraint):
    """A perfect state keeper: answers from the state the prompt shows."""
    import json
    import re

    state = json.loads(re.search(r"Your state: (\{.*\})", messages[-1]["content"]).group(1))
    event = re.search(r"Event \d+ of \d+: (\w+)", messages[-1]["content"]).group(1)
    occupied, shipped = state["occupied"], state["shipped"]
    if event == "STORE":
        occupied += 1
    elif event == "SHIP":
        occupied, shipped = occupied - 1, shipped + 1
    counts = {"occupied": occupied, "shipped": shipped}
    return {"reasoning": "", "state_patch": counts, "action": {"id": "report", "args": counts}}


@pytest.fixture(scope="package")
def warehouse_archive(tmp_path_factory):
    """Warehouse games under `state` (a perfect model) and `transcript` (a constant reply)."""
    path = tmp_path_factory.mktemp("warehouse") / "w.sqlite"
    with Archive(path) as archive:
        for seed in (1, 2):
            for contract, model in (
                ("state", ScriptedModel(honest_reply)),
                ("transcript", ScriptedModel([CONSTANT], cycle=True)),
            ):
                run_episode(
                    make("warehouse", horizon=20), make_contract(contract), model,
                    seed=seed, env_id="bounded/Warehouse-v0", tag=contract, archive=archive,
                )  # fmt: skip
    return path
