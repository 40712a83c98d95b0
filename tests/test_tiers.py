"""The test tiers of tests/conftest.py: every test it names exists, and its rules put a test
in the tier its folder, file, name or parameter says."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).parent


def load_conftest() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tiers_conftest", TESTS / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conftest = load_conftest()


def functions_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("test", sorted(conftest.SLOW_TESTS))
def test_every_slow_test_named_exists(test: str) -> None:
    where, _, name = test.partition("::")
    path = TESTS / where
    assert path.is_file(), f"{where} is no test file"
    assert name.partition("[")[0] in functions_in(path), f"{where} has no {name}"


@pytest.mark.parametrize(
    ("where", "name", "tier"),
    [
        ("envs/nethack/test_env.py", "test_a_death_is_recorded_with_its_cause", "external"),
        ("envs/workbench/test_sync.py", "test_anything", "external"),
        ("jobs/test_babyai_bank.py", "test_bank_babyai_command_writes_the_bank", "external"),
        ("cli/test_textworld.py", "test_bad_options_are_one_line", "external"),
        ("sweeps/test_kill_trials.py", "test_anything", "kill"),
        ("sweeps/test_sweep_edges.py", "test_ctrl_c_says_what_was_kept", "kill"),
        ("runner/test_resume.py", "test_a_killed_bounded_run_is_resumed[15]", "kill"),
        ("sweeps/test_ray_sweep.py", "test_anything", "ray"),
        ("test_bench.py", "test_anything", "bench"),
        ("test_docs.py", "test_the_example_runs_as_written[README.md:59]", "slow"),
    ],
)
def test_a_tests_place_or_name_gives_its_tier(where: str, name: str, tier: str) -> None:
    assert tier in conftest.tier_markers(TESTS / where, name)


@pytest.mark.parametrize(
    ("where", "name"),
    [
        ("envs/warehouse/test_engine.py", "test_same_seed_same_stream_in_another_process"),
        ("envs/test_conformance.py", "test_check_bounded_env_passes[spire]"),
        ("cli/test_help.py", "test_each_help_page_names_values_in_words[textworld-games]"),
        ("test_docs.py", "test_every_exception_names_an_example"),
        ("contracts/replies/test_fuzz.py", "test_parse_survives_any_reply_on_warehouse[state]"),
    ],
)
def test_a_quick_test_gets_no_tier(where: str, name: str) -> None:
    assert conftest.tier_markers(TESTS / where, name) == set()


class Record:
    """What `external_case` reads of an environment record."""

    def __init__(self, name: str) -> None:
        self.name, self.env_id = name, f"bounded/{name}"


class Case:
    def __init__(self, **params: object) -> None:
        self.callspec = type("Callspec", (), {"params": params})()


@pytest.mark.parametrize(
    ("params", "external"),
    [
        ({"record": Record("textworld")}, True),
        ({"record": Record("spire")}, False),
        ({"env": "minihack", "contract": "typed"}, True),
        ({"env": "warehouse"}, False),
        ({"argv": "textworld"}, False),
        ({}, False),
    ],
)
def test_a_case_playing_an_external_game_is_external(params: dict, external: bool) -> None:
    assert conftest.external_case(Case(**params)) is external
