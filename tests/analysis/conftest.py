import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.core import approx_tokens
from bounded.envs import make
from bounded.envs.warehouse import state_keeping_reply as honest_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode

CONSTANT = '{"reasoning": "", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'


class PrefixCachingModel(ScriptedModel):
    """A scripted model that reports, like a prefix cache, the messages it shares with the
    previous call as cached (counted the way it counts prompt tokens)."""

    def __init__(self, reply, cycle: bool = False) -> None:
        super().__init__(reply, cycle=cycle, id="local:prefix")
        self.previous: list[dict[str, str]] = []

    def complete(self, messages, **options):
        completion = super().complete(messages, **options)
        shared = 0
        for old, new in zip(self.previous, messages, strict=False):
            if old != new:
                break
            shared += approx_tokens(new["content"])
        self.previous = list(messages)
        return completion.model_copy(update={"cached_tokens": shared})


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
