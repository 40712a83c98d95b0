import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.envs.warehouse import state_keeping_reply as honest_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode

CONSTANT = '{"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'


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
