"""Shared test settings and fixtures. Hypothesis deadlines are off: this machine is shared
and noisy, and speed is measured in bench/, not asserted in tests. `local_model` is the
embedded model; `llama_server` a real OpenAI-compatible server (llama-cpp-python's) on
127.0.0.1 serving its weights.

Tiers: `pytest_collection_modifyitems` marks the tests of the full suite that the quick
tier leaves out (`pytest --quick`, README's Development section): Ray tests (`ray`),
kill and signal trials (`kill`), the bench scripts (`bench`) and the long ones named in
`SLOW_TESTS` (`slow`), by path and by name, so test files need no marks of their own."""

from __future__ import annotations

import re
import socket
import sys
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
        r"(^|_)(kill|killed|killing|kills|sigterm|sigint|sigkill|signal|signals)(_|$)"
    ),
}
"""A test's name -> its tier marker, wherever the test is."""

SLOW_TESTS = frozenset(
    {
        "analysis/test_paired.py::test_analyze_compare_on_cells_with_different_seed_sets_lists_the_unpaired_games",
        "cli/test_plan.py::test_plan_on_a_file_uses_the_earlier_games_of_its_cells_and_prices_the_rest",
        "cli/test_table.py::test_the_rehearsal_plays_24_games_and_gives_the_papers_table",
        "cli/test_textworld.py::test_a_tasks_seeds_are_generated_once",
        "contracts/episodic/test_against_summary.py::test_a_throttled_summary_is_flagged_against_episodic",
        "contracts/episodic/test_against_summary.py::test_the_files_agents_act_at_matched_effective_rates",
        "contracts/episodic/test_scan.py::test_the_byte_scan_finds_exactly_what_the_whole_window_ranks",
    }
)
"""Tests (path under tests/ :: name) that took over 25 s alone in a quick-tier run on 2
loaded cores (`pytest --quick --durations=40`), marked `slow`."""

TESTS = Path(__file__).parent

FULL_SUITE_ONLY = ("slow", "model", "ray", "kill", "bench")
"""The markers the quick tier deselects."""


def tier_markers(path: Path, name: str) -> set[str]:
    """The tier markers of the test `name` in the file at `path`."""
    base = name.partition("[")[0]
    marks = {tier for tier, pattern in TIER_BY_FILE.items() if pattern.search(path.stem)}
    marks |= {tier for tier, pattern in TIER_BY_NAME.items() if pattern.search(base)}
    where = path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path.name
    if f"{where}::{base}" in SLOW_TESTS:
        marks.add("slow")
    return marks


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="the quick tier: leave out the tests marked " + ", ".join(FULL_SUITE_ONLY),
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    quick = config.getoption("--quick")
    kept, left_out = [], []
    for item in items:
        for tier in sorted(tier_markers(item.path, item.name)):
            item.add_marker(getattr(pytest.mark, tier))
        full_only = any(item.get_closest_marker(tier) for tier in FULL_SUITE_ONLY)
        (left_out if quick and full_only else kept).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


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
