import json
import subprocess
import sys
from typing import Any

from bounded.core import stable_hash
from bounded.envs.craft import CraftEnv

from .conftest import play_expert

GAME = """
import json
from bounded.core import stable_hash
from bounded.envs.craft import CraftEnv, CraftExpert

def run():
    env = CraftEnv(level=5, style="air", map="longbridge")
    expert = CraftExpert("robo")
    obs, _ = env.reset(seed=11)
    hashes = []
    while obs.t < 600:
        obs, *_ = env.step(expert.act(obs))
        hashes.append(stable_hash(obs.state))
    return {"hashes": hashes, "text": obs.text, "metrics": env.metrics()}
"""


def _here() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(GAME, namespace)
    return json.loads(json.dumps(namespace["run"]()))


def test_same_seed_same_game_in_another_process():
    out = subprocess.run(
        [sys.executable, "-c", GAME + "\nprint(json.dumps(run()))"],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345"},
    )
    there = json.loads(out.stdout)
    here = _here()
    assert len(here["hashes"]) == 60
    assert there == here


def test_different_seeds_differ():
    a = play_expert(CraftEnv(level=5, style="power"), seed=0, until=600)
    b = play_expert(CraftEnv(level=5, style="power"), seed=1, until=600)
    assert stable_hash(a._observe().state) != stable_hash(b._observe().state)
