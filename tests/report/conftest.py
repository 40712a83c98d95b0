import os
import shutil
from pathlib import Path

import pytest

from bounded.archive import Archive
from bounded.contracts import make_contract
from bounded.envs import make
from bounded.models.scripted import ScriptedModel
from bounded.runner import run_episode

REPLY = '{"reasoning": "count", "action": {"id": "report", "args": {"occupied": 0, "shipped": 0}}}'
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip


@pytest.fixture(scope="package")
def report_archive(tmp_path_factory):
    """Two contracts on the warehouse stream, two seeds each, plus a failed run."""
    path = tmp_path_factory.mktemp("report") / "r.sqlite"
    with Archive(path) as archive:
        for seed in (1, 2):
            for contract in ("state", "transcript"):
                run_episode(
                    make("warehouse", horizon=8), make_contract(contract),
                    ScriptedModel([REPLY], cycle=True), seed=seed,
                    env_id="bounded/Warehouse-v0", tag=contract, archive=archive,
                )  # fmt: skip
    return path


@pytest.fixture(scope="session")
def chromium_path():
    path = os.environ.get("BOUNDED_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        pytest.fail(f"headless browser tests need Chromium at {path} (apt-get install chromium)")
    return path


@pytest.fixture
def browser_page(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.errors = errors
        yield page
        browser.close()


@pytest.fixture
def artifact_dir(tmp_path):
    """Where screenshots go: $BOUNDED_ARTIFACT_DIR in CI, else the test's temp dir."""
    target = Path(os.environ.get("BOUNDED_ARTIFACT_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    return target


LONG_CELLS = (
    ("balrog-robust-naive.crafter[max_steps=200]", "balrog", "bounded/Crafter-v0"),
    ("typed.crafter[max_steps=200]", "typed", "bounded/Crafter-v0"),
    ("typed.warehouse[horizon=30]", "typed", "bounded/Warehouse-v0"),
)
"""Cells of two environments, with the long names a matrix sweep gives them."""


@pytest.fixture(scope="package")
def two_env_archive(tmp_path_factory):
    """Crafter and the warehouse, two games per cell, their decisions without stored
    prompts (no segments, no layers)."""
    from bounded.core import DecisionRecord, RunRecord

    path = tmp_path_factory.mktemp("envs") / "e.sqlite"
    with Archive(path) as archive:
        for position, (cell, contract, env_id) in enumerate(LONG_CELLS):
            for seed in (1, 2):
                run_id = f"{position}-{seed}"
                won = env_id.endswith("Warehouse-v0") and seed == 1
                archive.save_run(RunRecord(
                    run_id=run_id, env_id=env_id, contract=contract, model="m", seed=seed,
                    experiment="envs", cell=cell, tag=contract, status="completed",
                    outcome={"victory": won, "score": 2.0 * seed, "progress": 0.1 * seed},
                    decisions=2, prompt_tokens=100, started_at=float(position * 10 + seed),
                ))  # fmt: skip
                for index in range(2):
                    archive.add_decision(DecisionRecord(
                        run_id=run_id, index=index, t=index, kind="step", segments=[],
                        tokens_by_layer={}, prompt_tokens=50, completion=None, actions=[],
                    ))  # fmt: skip
    return path
