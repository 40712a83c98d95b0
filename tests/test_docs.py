"""Every Python and shell example in README.md and docs/*.md runs as written.

Each fenced ```python, ```bash, ```shell or ```console block is run in a fresh directory
(with `.venv` pointing at this interpreter's environment, so `.venv/bin/bounded` works as
the docs write it, and `tests/data/echo-plugin` importable for the plugin examples). The
few that cannot run here are listed in `CANNOT_RUN`, each with its reason; a listed
example that no longer exists fails `test_every_exception_names_an_example`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(python|bash|shell|console)\n(.*?)^```", re.S | re.M)
PLUGIN = ROOT / "tests" / "data" / "echo-plugin"

EMBEDDED = "plays long games on the embedded model (10-15 s a decision)"
ENDPOINT = "asks a paid or remote endpoint (openai:MODEL, ollama, a llama.cpp server)"
CANNOT_RUN: dict[tuple[str, str], str] = {
    ("README.md", "scripts/install.sh && .venv/bin/bounded demo"): "installs, then " + EMBEDDED,
    ("README.md", "scripts/install.sh --test"): "installs and runs the whole test suite",
    ("README.md", ".venv/bin/pytest --quick -n auto"): "runs the quick tier of this very suite",
    ("README.md", "bounded run warehouse --contract state --model local"): EMBEDDED,
    ("README.md", 'model="local", seed=1)'): EMBEDDED,
    ("docs/usage.md", "bounded run warehouse --contract state --model local"): EMBEDDED,
    ("docs/usage.md", 'model="local", seed=1)'): EMBEDDED,
    ("docs/usage.md", "bounded run spire --contract typed --opt ascension=5"): EMBEDDED,
    ("docs/usage.md", 'StateAgent(make_model("local"), [add]).run('): EMBEDDED,
    ("docs/analysis.md", 'load_experiment("experiments/warehouse_contracts.toml")'): EMBEDDED,
    ("docs/attribution.md", "bounded attribute runs/bounded.sqlite"): "needs an archive of "
    "played games, then asks the embedded model one counterfactual per sampled decision",
    ("docs/attribution.md", "plan_attribution(archive, AttributionSpec("): "needs an archive "
    "of played games, then asks the embedded model one counterfactual per sampled decision",
    ("docs/balrog.md", "bounded sweep experiments/balrog.toml"): "the full BALROG sweep "
    "on the embedded model",
    ("docs/episodic.md", 'GameSpec(env="craft", contract="episodic", model="local"'): EMBEDDED,
    ("docs/episodic.md", "bootstrap_craft_bank(levels=(6, 7), rounds=20"): "bootstraps a "
    "bank from expert games at two levels, 20 rounds each",
    ("docs/inspect.md", "inspect eval bounded/warehouse --model openai/gpt-4o-mini"): ENDPOINT,
    (
        "docs/results.md",
        "python bench/balrog_experts.py",
    ): "the BALROG experts' benchmark over every environment",
    ("docs/results.md", "bounded import agenticsts ../shared/reference"): "reads the "
    "AgenticSTS reference data outside the repository",
    ("docs/planning.md", "bounded import agenticsts ../shared/reference"): "reads the "
    "AgenticSTS reference data outside the repository (tests/cli/test_plan.py plans on it)",
    ("docs/planning.md", "bounded sweep experiments/skill_example.toml --until-decided"): "plays "
    "about 460 spire games (over a minute); tests/sweeps/test_sequential.py runs the same path",
    ("docs/results.md", "inspect eval bounded/warehouse --model openai/gpt-4o-mini"): ENDPOINT,
    ("docs/typed.md", 'GameSpec(env="spire", contract="self-evolve", model="local"'): EMBEDDED,
    ("docs/workbench.md", 'run_suite(make_model("local"), tasks="all"'): EMBEDDED,
    ("docs/workbench.md", 'agent = StateAgent(make_model("local")'): EMBEDDED,
}
"""(page, a line of the example) -> why it cannot run in CI."""


@dataclass(frozen=True)
class Example:
    page: str
    line: int
    language: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in FENCE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            name = str(page.relative_to(ROOT))
            found.append(Example(name, line, match.group(1), match.group(2)))
    return found


def reason_not_run(example: Example) -> str | None:
    for (page, line), reason in CANNOT_RUN.items():
        if page == example.page and line in example.code:
            return reason
    return None


def run(example: Example, where: Path) -> subprocess.CompletedProcess[str]:
    (where / ".venv").symlink_to(Path(sys.prefix))
    for folder in ("experiments", "scripts", "bench"):
        (where / folder).symlink_to(ROOT / folder)
    path = os.pathsep.join(filter(None, [str(PLUGIN), os.environ.get("PYTHONPATH")]))
    env = {
        **os.environ,
        "PYTHONPATH": path,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
    }
    if example.language == "python":
        command = [sys.executable, "-c", example.code]
    else:
        command = ["bash", "-euo", "pipefail", "-c", example.code]
    return subprocess.run(command, cwd=where, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("example", examples(), ids=lambda example: example.id)
def test_the_example_runs_as_written(example: Example, tmp_path: Path) -> None:
    reason = reason_not_run(example)
    if reason is not None:
        pytest.skip(reason)
    done = run(example, tmp_path)
    assert done.returncode == 0, f"{example.id} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}"


def test_every_exception_names_an_example() -> None:
    found = examples()
    stale = [
        key for key in CANNOT_RUN if not any(e.page == key[0] and key[1] in e.code for e in found)
    ]
    assert stale == []
