"""Shared test settings and fixtures. Hypothesis deadlines are off: this machine is shared
and noisy, and speed is measured in bench/, not asserted in tests. `local_model` is the
embedded model; `llama_server` a real OpenAI-compatible server (llama-cpp-python's) on
127.0.0.1 serving its weights.

Tiers: `pytest_collection_modifyitems` marks the tests of the full suite that the quick
tier (`pytest --quick -n auto`, README's Development section) leaves out, by path and by
name, so test files need no marks of their own:

- `external`: the games of other projects' engines and the workbench's sandbox (`EXTERNAL`):
  the tests under their folders (tests/envs/nethack/, ...), in files named for them
  (test_nethack_bank.py), and the cases of a test parametrized over environments that
  play them (`[textworld]`). The built-in games (warehouse,
  spire, craft) stand for them in the quick tier; `conformance`-style tests keep their
  built-in cases there.
- `ray`: Ray tests; `kill`: kill, signal and Ctrl-C trials; `bench`: the bench scripts.
- `slow`: the long tests named in `SLOW_TESTS` (over ~5 s alone on 2 loaded cores, each
  with a quicker test of the same behaviour left in the quick tier, or a soak trial).
- `model` (marked in the test files): the embedded model.

The quick tier also plays fewer fuzzed games through the loop (`QUICK_FUZZ`: 4 games of 50
generated replies per contract, against the full suite's 20); the parsers' fuzzers keep
their 1,000 replies (at 100, a hostile sample can leave no clean parse to see)."""

from __future__ import annotations

import os
import re
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "bounded", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.load_profile("bounded")

TIER_BY_FILE = {
    "ray": re.compile(r"(^|_)ray(_|$)"),
    "kill": re.compile(r"(^|_)(kill|signal)_trials$"),
    "bench": re.compile(r"^test_bench$"),
}
"""A test file's stem -> the tier marker of every test in it."""

TIER_BY_NAME = {
    "ray": re.compile(r"(^|_)ray(_|$)"),
    "kill": re.compile(
        r"(^|_)(kill|killed|killing|kills|sigterm|sigint|sigkill|signal|signals|signalled"
        r"|ctrl_c|interrupt|interrupted)(_|$)"
    ),
}
"""A test's name -> its tier marker, wherever the test is."""

SLOW_TESTS = frozenset(
    {
        "analysis/test_paired.py::test_analyze_compare_on_cells_with_different_seed_sets_lists_the_unpaired_games",
        "analysis/test_known_skill.py::test_the_players_win_at_their_known_rates",
        "analysis/test_known_skill.py::test_the_stratified_interval_covers_the_truth_and_the_test_keeps_its_level",
        "analysis/test_known_skill.py::test_the_pooled_unpaired_comparison_and_the_stratified_one_differ",
        "cli/test_multitask_flow.py::test_plan_takes_treatment_names_and_plans_seeds_per_level",
        "cli/test_plan.py::test_plan_mistakes_are_one_line_and_exit_2",
        "cli/test_plan.py::test_plan_on_a_file_uses_the_earlier_games_of_its_cells_and_prices_the_rest",
        "cli/test_table.py::test_the_rehearsal_plays_24_games_and_gives_the_papers_table",
        "cli/test_textworld.py::test_a_tasks_seeds_are_generated_once",
        "contracts/episodic/test_against_summary.py::test_a_throttled_summary_is_flagged_against_episodic",
        "contracts/episodic/test_against_summary.py::test_the_files_agents_act_at_matched_effective_rates",
        "contracts/episodic/test_scan.py::test_the_byte_scan_finds_exactly_what_the_whole_window_ranks",
        "envs/spire/test_env.py::test_two_hundred_random_games",
        "report/test_report_paired.py::test_report_shows_paired_comparisons_and_the_unpaired_games",
        "runner/test_trajectory.py::test_a_bounded_contracts_game_holds_no_more_at_its_end_than_early_on",
        "sweeps/test_concurrency.py::test_a_stopped_concurrent_sweep_resumes_every_game_in_flight",
        "sweeps/test_phases.py::test_the_a0_protocol_learns_freezes_and_evaluates_end_to_end",
        "sweeps/test_sequential.py::test_analyze_prints_the_anytime_interval_of_a_sweep_stopped_when_decided",
        "sweeps/test_sequential.py::test_the_expert_against_no_skill_is_decided_early_and_recorded",
        "sweeps/test_small_experiments.py::test_balrog_small_played_prints_balrogs_table_for_every_agent_and_environment",
        "sweeps/test_sweep_edges.py::test_a_rerun_with_nothing_to_play_starts_no_worker_and_prints_nothing_odd",
        "test_cli.py::test_workbench_runs_unchanged_against_an_openai_compatible_server",
        "test_docs.py::test_the_example_runs_as_written",
        "test_plugins.py::test_a_two_worker_sweep_loads_the_plugin_in_every_worker",
        "testing/test_serving.py::test_the_server_ends_when_the_pytest_run_is_ended_by",
    }
)
"""Tests (path under tests/ :: name, every case of a parametrized one) that took over 8 s
alone in a quick-tier run on 2 loaded cores (`pytest --quick --durations=250`), marked
`slow`: memory soak games (test_trajectory), multi-process sweeps and their reruns, the
SIGTERM/SIGKILL trials of a sweep or server not named so, every docs example run as
written (test_docs; its checks of what the examples are stay quick). Each behaviour keeps
a quicker test in the quick tier where there is one (a concurrent sweep, a sequential stop,
a phase, a plan's one-line mistakes, a plugin's run)."""

EXTERNAL = frozenset({"nethack", "minihack", "babyai", "crafter", "textworld", "workbench"})
"""The environments on other projects' engines (and the workbench's bash sandbox): slow to
make and to step, played in the full suite only (`external`)."""

QUICK_FUZZ = {"FUZZ_GAMES": "4"}
"""The reply fuzzers' example counts in the quick tier (tests/contracts/replies/test_fuzz.py)."""

TESTS = Path(__file__).parent

FULL_SUITE_ONLY = ("slow", "model", "ray", "kill", "bench", "external")
"""The markers the quick tier deselects."""


def tier_markers(path: Path, name: str) -> set[str]:
    """The tier markers of the test `name` in the file at `path`."""
    base = name.partition("[")[0]
    marks = {tier for tier, pattern in TIER_BY_FILE.items() if pattern.search(path.stem)}
    marks |= {tier for tier, pattern in TIER_BY_NAME.items() if pattern.search(base)}
    where = path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path.name
    if f"{where}::{base}" in SLOW_TESTS or f"{where}::{name}" in SLOW_TESTS:
        marks.add("slow")
    if names_external(where, name):
        marks.add("external")
    return marks


def names_external(where: str, name: str) -> bool:
    """Whether a test (its path under tests/ and its name) is about an `EXTERNAL` game: by
    its folder or its file's words (the cases of a parametrized test: `external_case`)."""
    folders, _, file = where.rpartition("/")
    return bool({*folders.split("/"), *re.split(r"[_.]", file)} & EXTERNAL)


def external_case(item: pytest.Item) -> bool:
    """Whether a parametrized test's case plays an `EXTERNAL` game: its parameter is that
    environment's record or (`env`) its name."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    names = {getattr(value, "name", None) for value in params.values() if hasattr(value, "env_id")}
    if isinstance(params.get("env"), str):
        names.add(params["env"])
    return bool(names & EXTERNAL)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="the quick tier: leave out the tests marked " + ", ".join(FULL_SUITE_ONLY),
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--quick"):
        for name, value in QUICK_FUZZ.items():
            os.environ.setdefault(name, value)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    quick = config.getoption("--quick")
    kept, left_out = [], []
    for item in items:
        marks = tier_markers(item.path, item.name)
        if external_case(item):
            marks.add("external")
        for tier in sorted(marks):
            item.add_marker(getattr(pytest.mark, tier))
        full_only = any(item.get_closest_marker(tier) for tier in FULL_SUITE_ONLY)
        (left_out if quick and full_only else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A worker of `-n` sends its reports as UTF-8: a failure quoting a lone surrogate (the
    reply fuzzers' subject) is written with it escaped, not a crashed worker."""
    outcome = yield
    if hasattr(item.config, "workerinput"):
        sendable(outcome.get_result())


def utf8(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def sendable(report: pytest.TestReport) -> None:
    if report.longrepr is not None and str(report.longrepr) != utf8(str(report.longrepr)):
        report.longrepr = utf8(str(report.longrepr))
    report.sections = [(title, utf8(text)) for title, text in report.sections]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def local_model():
    from bounded.models import make_model

    return make_model("local")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    """Base URL of `python -m llama_cpp.server` on the embedded weights, ended with the test
    run however it ends (SIGTERM and SIGKILL included: `bounded.testing.serving`)."""
    from bounded.models.local import EMBEDDED
    from bounded.testing.serving import serving

    port = free_port()
    weights = EMBEDDED["smollm2"].path()
    command = [
        sys.executable, "-m", "llama_cpp.server", "--model", str(weights), "--host", "127.0.0.1",
        "--port", str(port), "--n_ctx", "4096", "--n_threads", "2", "--model_alias", "smollm2",
    ]  # fmt: skip
    log_path = tmp_path_factory.mktemp("llama-server") / "server.log"
    with serving(command, f"http://127.0.0.1:{port}/v1", log_path) as served:
        yield served.url
