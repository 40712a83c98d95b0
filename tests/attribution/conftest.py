import pytest

from bounded.archive import Archive
from bounded.envs.warehouse import state_keeping_reply
from bounded.models.scripted import ScriptedModel
from bounded.runner import GameSpec, play

SPEC_OPENING = "You run a warehouse"
HORIZON = 12


def layered_reply(messages, constraint=None):
    """The perfect state keeper while the spec layer (the system message) is in the prompt;
    without it, one shipment too many, so every decision without the layer changes."""
    reply = state_keeping_reply(messages)
    if not messages[0]["content"].startswith(SPEC_OPENING):
        reply["action"]["args"]["shipped"] += 1
    return reply


def layered_model():
    return ScriptedModel(layered_reply, id="scripted:layered")


def play_warehouse(archive, seed=3):
    spec = GameSpec(
        env="warehouse", env_options={"horizon": HORIZON, "state_hint": "schema"},
        contract="state",
        model="scripted:layered", seed=seed, tag="state",
    )  # fmt: skip
    return play(spec, archive=archive, model=layered_model())


@pytest.fixture
def warehouse_archive(tmp_path):
    """One warehouse game under `state`, played by the layer-dependent model."""
    path = tmp_path / "w.sqlite"
    with Archive(path) as archive:
        run = play_warehouse(archive)
    assert run.outcome["accuracy"] == 1.0
    return path, run.run_id
