"""A user's own environment, contract and model plug in without editing bounded: an
out-of-tree package (tests/data/echo-plugin) installed into a directory of its own and put
on PYTHONPATH, used through its entry points from the CLI and a 2-worker sweep, and the
same classes named by import path."""

from __future__ import annotations

import subprocess
import textwrap
from pathlib import Path

import pytest

from bounded.archive import Archive
from bounded.testing.plugins import install_plugin, run_with_plugin

PLUGIN_SOURCE = Path(__file__).parent / "data" / "echo-plugin"


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory) -> Path:
    """The plugin installed (with its entry points) by pip into a directory of its own."""
    return install_plugin(PLUGIN_SOURCE, tmp_path_factory.mktemp("plugin-site"))


def bounded(plugin_path: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_with_plugin(plugin_path, *args, cwd=cwd)


def test_bounded_run_plays_a_plugins_environment_contract_and_model(plugin_path, tmp_path):
    archive = tmp_path / "a.sqlite"
    done = bounded(
        plugin_path, "run", "echo/Echo-v0", "--contract", "echo", "--model", "echo:echo",
        "--seed", "3", "--opt", "rounds=5", str(archive), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Archive(archive) as store:
        [run] = store.runs()
    assert (run.env_id, run.contract, run.model) == ("echo/Echo-v0", "echo", "echo:echo")
    assert run.status == "completed" and run.decisions == 5
    assert run.outcome["victory"] is True and run.outcome["score"] == 5.0
    assert run.contract_config == {"greeting": "Hello."}


def test_a_plugins_preset_and_a_failing_model_are_told_apart(plugin_path, tmp_path):
    archive = tmp_path / "a.sqlite"
    done = bounded(
        plugin_path, "run", "echo/Echo-v0", "--contract", "echo-terse", "--model", "echo:pass",
        str(archive), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    with Archive(archive) as store:
        [run] = store.runs()
    assert run.contract_config == {"greeting": "Hi."} and run.outcome["victory"] is False


def test_a_two_worker_sweep_loads_the_plugin_in_every_worker(plugin_path, tmp_path):
    (tmp_path / "echo.toml").write_text(
        textwrap.dedent(
            f"""
            [experiment]
            name = "echo"
            archive = "{tmp_path / "sweep.sqlite"}"

            [defaults]
            env = "echo/Echo-v0"
            games = 3
            env_options = {{ rounds = 3 }}

            [[cells]]
            tag = "entry-points"
            contract = "echo"
            model = "echo:echo"

            [[cells]]
            tag = "import-paths"
            contract = "echo_plugin:EchoContract"
            model = "echo_plugin:EchoModel:pass"
            """
        )
    )
    done = bounded(plugin_path, "sweep", "echo.toml", "--workers", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with Archive(tmp_path / "sweep.sqlite") as store:
        runs = store.runs(experiment="echo")
    assert len(runs) == 6 and all(r.status == "completed" for r in runs)
    by_tag = {tag: [r for r in runs if r.tag == tag] for tag in ("entry-points", "import-paths")}
    assert all(r.outcome["victory"] for r in by_tag["entry-points"])
    assert not any(r.outcome["victory"] for r in by_tag["import-paths"])
    assert {r.env_id for r in runs} == {"echo/Echo-v0"}


def test_an_unknown_plugin_name_is_one_line(plugin_path, tmp_path):
    done = bounded(
        plugin_path, "run", "echo/Echo-v0", "--contract", "echo_plugin:Nothing", "--model",
        "echo:echo", str(tmp_path / "a.sqlite"), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode != 0
    assert done.stderr.strip() == ("bounded: error: 'echo_plugin' has no attribute 'Nothing'")
    assert not (tmp_path / "a.sqlite").exists()


def test_the_echo_plugins_environment_passes_gymnasiums_checker_and_ours(monkeypatch):
    """What docs/extending.md asks of a user's environment, shown by its own example."""
    import warnings

    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from bounded.envs.checker import check_bounded_env

    monkeypatch.syspath_prepend(str(PLUGIN_SOURCE))
    from echo_plugin import EchoEnv

    if "echo-test/Echo-v0" not in gymnasium.registry:
        gymnasium.register("echo-test/Echo-v0", entry_point=EchoEnv)
    env = gymnasium.make("echo-test/Echo-v0").unwrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    assert [str(w.message) for w in caught] == []
    check_bounded_env(EchoEnv)
